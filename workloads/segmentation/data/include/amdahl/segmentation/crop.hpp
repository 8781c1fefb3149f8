// Random crop + normalisation of a decoded scene into one slot of an NHWC training batch.
#pragma once

#include <cstdint>

#include "amdahl/segmentation/image.hpp"

namespace amdahl::segmentation {

struct CropWindow {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
};

// Per-channel normalisation applied to 8-bit RGB: (v / 255 - kMean) / kStd.
inline constexpr float kMean = 0.5f;
inline constexpr float kStd = 0.25f;

// A crop window of crop_w x crop_h inside img_w x img_h, uniformly placed; a pure function of
// the arguments. Throws std::invalid_argument when the crop does not fit or is empty.
CropWindow choose_crop(int img_w, int img_h, int crop_w, int crop_h, std::uint64_t seed);

// Copies the window of rgb (3 channels) normalised into out (NHWC, window.height x
// window.width x 3) and the window of label (1 channel) into out_label. Throws
// std::invalid_argument when the window is outside the images or their sizes differ.
void crop_normalise(const Image& rgb, const Image& label, const CropWindow& window, float* out,
                    std::uint8_t* out_label);
// Same, writing IEEE half-precision bit patterns.
void crop_normalise_half(const Image& rgb, const Image& label, const CropWindow& window,
                         std::uint16_t* out, std::uint8_t* out_label);

}  // namespace amdahl::segmentation
