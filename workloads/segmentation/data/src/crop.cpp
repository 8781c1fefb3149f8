// Random crop placement and the crop + normalise copy into a batch slot (float or half).
#include "amdahl/segmentation/crop.hpp"

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

#include "amdahl/segmentation/half.hpp"
#include "amdahl/segmentation/random.hpp"

namespace amdahl::segmentation {

CropWindow choose_crop(int img_w, int img_h, int crop_w, int crop_h, std::uint64_t seed) {
  if (crop_w <= 0 || crop_h <= 0 || crop_w > img_w || crop_h > img_h)
    throw std::invalid_argument("crop " + std::to_string(crop_w) + "x" + std::to_string(crop_h) +
                                " does not fit in image " + std::to_string(img_w) + "x" +
                                std::to_string(img_h));
  Rng rng(seed);
  return CropWindow{rng.uniform_int(0, img_w - crop_w), rng.uniform_int(0, img_h - crop_h), crop_w,
                    crop_h};
}

namespace {

void check(const Image& rgb, const Image& label, const CropWindow& win) {
  if (rgb.channels != 3 || label.channels != 1)
    throw std::invalid_argument("crop: expected an RGB image and a 1-channel label map");
  if (rgb.width != label.width || rgb.height != label.height)
    throw std::invalid_argument("crop: image and label map sizes differ");
  if (win.x < 0 || win.y < 0 || win.width <= 0 || win.height <= 0 ||
      win.x + win.width > rgb.width || win.y + win.height > rgb.height)
    throw std::invalid_argument("crop: window outside the image");
}

// 256-entry lookup from byte to normalised value.
const std::array<float, 256>& float_table() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int v = 0; v < 256; ++v) t[v] = (static_cast<float>(v) / 255.0f - kMean) / kStd;
    return t;
  }();
  return table;
}

const std::array<std::uint16_t, 256>& half_table() {
  static const std::array<std::uint16_t, 256> table = [] {
    std::array<std::uint16_t, 256> t{};
    for (int v = 0; v < 256; ++v) t[v] = float_to_half(float_table()[v]);
    return t;
  }();
  return table;
}

template <class Out, class Table>
void crop_with(const Image& rgb, const Image& label, const CropWindow& win, Out* out,
               std::uint8_t* out_label, const Table& table) {
  check(rgb, label, win);
  const std::size_t row_values = static_cast<std::size_t>(win.width) * 3;
  for (int y = 0; y < win.height; ++y) {
    const std::uint8_t* src = rgb.row(win.y + y) + static_cast<std::size_t>(win.x) * 3;
    Out* dst = out + static_cast<std::size_t>(y) * row_values;
    for (std::size_t i = 0; i < row_values; ++i) dst[i] = table[src[i]];
    std::memcpy(out_label + static_cast<std::size_t>(y) * win.width, label.row(win.y + y) + win.x,
                static_cast<std::size_t>(win.width));
  }
}

}  // namespace

void crop_normalise(const Image& rgb, const Image& label, const CropWindow& window, float* out,
                    std::uint8_t* out_label) {
  crop_with(rgb, label, window, out, out_label, float_table());
}

void crop_normalise_half(const Image& rgb, const Image& label, const CropWindow& window,
                         std::uint16_t* out, std::uint8_t* out_label) {
  crop_with(rgb, label, window, out, out_label, half_table());
}

}  // namespace amdahl::segmentation
