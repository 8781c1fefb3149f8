// PNG encode/decode in memory through libpng's simplified API (no setjmp in our code).
#include "amdahl/segmentation/png_codec.hpp"

#include <png.h>

namespace amdahl::segmentation {

std::vector<std::uint8_t> encode_png(const Image& image) {
  if (image.channels != 1 && image.channels != 3)
    throw CodecError("encode_png: only 1 or 3 channels are supported, got " +
                     std::to_string(image.channels));
  if (image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != static_cast<std::size_t>(image.width) * image.height * image.channels)
    throw CodecError("encode_png: image size does not match its pixel buffer");
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = image.channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
  png_alloc_size_t size = PNG_IMAGE_PNG_SIZE_MAX(png);
  std::vector<std::uint8_t> out(size);
  if (!png_image_write_to_memory(&png, out.data(), &size, 0, image.pixels.data(), 0, nullptr)) {
    std::string message = png.message;
    png_image_free(&png);
    throw CodecError("encode_png: " + message);
  }
  out.resize(size);
  return out;
}

Image decode_png(std::span<const std::uint8_t> bytes) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size())) {
    std::string message = png.message;
    png_image_free(&png);
    throw CodecError("decode_png: " + message);
  }
  const bool colour = (png.format & PNG_FORMAT_FLAG_COLOR) != 0;
  png.format = colour ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
  Image image(static_cast<int>(png.width), static_cast<int>(png.height), colour ? 3 : 1);
  if (!png_image_finish_read(&png, nullptr, image.pixels.data(), 0, nullptr)) {
    std::string message = png.message;
    png_image_free(&png);
    throw CodecError("decode_png: " + message);
  }
  return image;
}

}  // namespace amdahl::segmentation
