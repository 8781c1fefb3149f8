// IEEE 754 binary16 conversion on the CPU (no CUDA headers needed), round to nearest even.
#pragma once

#include <cstdint>

namespace amdahl::segmentation {

std::uint16_t float_to_half(float value);
float half_to_float(std::uint16_t bits);

}  // namespace amdahl::segmentation
