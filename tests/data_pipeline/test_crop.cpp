// Crop placement bounds and determinism; crop + normalise copies the right pixels.
#include <doctest/doctest.h>

#include <stdexcept>

#include "amdahl/segmentation/crop.hpp"
#include "amdahl/segmentation/half.hpp"

using namespace amdahl::segmentation;

TEST_CASE("choose_crop stays inside the image and is deterministic") {
  bool moved = false;
  for (std::uint64_t seed = 0; seed < 500; ++seed) {
    const CropWindow w = choose_crop(100, 60, 32, 20, seed);
    REQUIRE(w.x >= 0);
    REQUIRE(w.y >= 0);
    REQUIRE(w.x + w.width <= 100);
    REQUIRE(w.y + w.height <= 60);
    const CropWindow again = choose_crop(100, 60, 32, 20, seed);
    REQUIRE(again.x == w.x);
    REQUIRE(again.y == w.y);
    if (w.x != choose_crop(100, 60, 32, 20, 0).x) moved = true;
  }
  CHECK(moved);
  const CropWindow full = choose_crop(32, 20, 32, 20, 3);
  CHECK(full.x == 0);
  CHECK(full.y == 0);
  CHECK_THROWS_AS(choose_crop(10, 10, 11, 5, 1), std::invalid_argument);
  CHECK_THROWS_AS(choose_crop(10, 10, 0, 5, 1), std::invalid_argument);
}

TEST_CASE("crop_normalise copies and normalises the window") {
  Image rgb(8, 6, 3), label(8, 6, 1);
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 8; ++x) {
      for (int c = 0; c < 3; ++c) rgb.row(y)[x * 3 + c] = static_cast<std::uint8_t>(y * 40 + x * 3 + c);
      label.row(y)[x] = static_cast<std::uint8_t>((x + y) % 5);
    }
  const CropWindow win{2, 1, 4, 3};
  std::vector<float> out(4 * 3 * 3);
  std::vector<std::uint16_t> out_h(out.size());
  std::vector<std::uint8_t> lbl(12), lbl_h(12);
  crop_normalise(rgb, label, win, out.data(), lbl.data());
  crop_normalise_half(rgb, label, win, out_h.data(), lbl_h.data());
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x) {
      CHECK(lbl[y * 4 + x] == label.row(y + 1)[x + 2]);
      for (int c = 0; c < 3; ++c) {
        const float v = rgb.row(y + 1)[(x + 2) * 3 + c];
        const float expect = (v / 255.0f - kMean) / kStd;
        CHECK(out[(y * 4 + x) * 3 + c] == doctest::Approx(expect));
        CHECK(half_to_float(out_h[(y * 4 + x) * 3 + c]) == doctest::Approx(expect).epsilon(1e-3));
      }
    }
  CHECK(lbl_h == lbl);
  CHECK_THROWS_AS(crop_normalise(rgb, label, CropWindow{6, 0, 4, 3}, out.data(), lbl.data()),
                  std::invalid_argument);
  Image small_label(7, 6, 1);
  CHECK_THROWS_AS(crop_normalise(rgb, small_label, win, out.data(), lbl.data()),
                  std::invalid_argument);
}
