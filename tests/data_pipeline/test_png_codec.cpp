// PNG codec round trips (RGB and label maps), half conversion, and corrupt-input errors.
#include <doctest/doctest.h>

#include <cmath>

#include "amdahl/segmentation/half.hpp"
#include "amdahl/segmentation/png_codec.hpp"
#include "amdahl/segmentation/random.hpp"

using namespace amdahl::segmentation;

TEST_CASE("png round trip preserves RGB and grey pixels exactly") {
  for (int channels : {1, 3}) {
    Image img(37, 19, channels);
    Rng rng(7);
    for (auto& p : img.pixels) p = static_cast<std::uint8_t>(rng.next());
    const auto bytes = encode_png(img);
    CHECK(bytes.size() > 8);
    const Image back = decode_png(bytes);
    CHECK(back.width == 37);
    CHECK(back.height == 19);
    CHECK(back.channels == channels);
    CHECK(back.pixels == img.pixels);
  }
}

TEST_CASE("png decode rejects garbage and truncated data") {
  std::vector<std::uint8_t> junk(100, 0x42);
  CHECK_THROWS_AS(decode_png(junk), CodecError);
  Image img(16, 16, 3);
  auto bytes = encode_png(img);
  bytes.resize(bytes.size() / 2);
  CHECK_THROWS_AS(decode_png(bytes), CodecError);
  Image bad(4, 4, 2);
  CHECK_THROWS_AS(encode_png(bad), CodecError);
}

TEST_CASE("half conversion matches known bit patterns and round-trips") {
  CHECK(float_to_half(0.0f) == 0x0000);
  CHECK(float_to_half(-0.0f) == 0x8000);
  CHECK(float_to_half(1.0f) == 0x3C00);
  CHECK(float_to_half(-2.0f) == 0xC000);
  CHECK(float_to_half(65504.0f) == 0x7BFF);
  CHECK(float_to_half(70000.0f) == 0x7C00);
  CHECK(float_to_half(5.9604645e-8f) == 0x0001);  // smallest subnormal
  CHECK(float_to_half(1.0f + 1.0f / 2048.0f) == 0x3C00);  // tie rounds to even
  CHECK(float_to_half(1.0f + 3.0f / 2048.0f) == 0x3C02);
  CHECK(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  for (std::uint32_t bits = 0; bits < 0x7C00; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    REQUIRE(float_to_half(half_to_float(h)) == h);
  }
}
