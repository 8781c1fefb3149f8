// PNG encode/decode of 8-bit RGB images and 8-bit label maps, in memory, through libpng.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "amdahl/segmentation/image.hpp"

namespace amdahl::segmentation {

// Raised when bytes are not a PNG libpng can read, or an image cannot be encoded.
class CodecError : public std::runtime_error {
 public:
  explicit CodecError(const std::string& what) : std::runtime_error(what) {}
};

// Encodes an image with 1 (grey) or 3 (RGB) channels as PNG bytes.
std::vector<std::uint8_t> encode_png(const Image& image);

// Decodes PNG bytes. Grey PNGs decode to 1 channel, colour PNGs to 3 (alpha is dropped).
Image decode_png(std::span<const std::uint8_t> bytes);

}  // namespace amdahl::segmentation
