// Plain 8-bit image buffers shared by the segmentation codec, generator and crop code.
#pragma once

#include <cstdint>
#include <vector>

namespace amdahl::segmentation {

// Interleaved 8-bit pixels, row-major, `channels` values per pixel (3 = RGB, 1 = label map).
struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<std::uint8_t> pixels;

  Image() = default;
  Image(int w, int h, int c)
      : width(w), height(h), channels(c),
        pixels(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(c)) {}

  std::uint8_t* row(int y) { return pixels.data() + static_cast<std::size_t>(y) * width * channels; }
  const std::uint8_t* row(int y) const {
    return pixels.data() + static_cast<std::size_t>(y) * width * channels;
  }
};

}  // namespace amdahl::segmentation
