// Element-wise kernels on activations of the context's storage type (all enqueued on the
// context's stream, no synchronization): activation, residual add, conversion and synthetic fill.
#pragma once

#include "amdahl/dnn/context.hpp"

#include <cstddef>
#include <cstdint>

namespace amdahl::dnn {

// y = max(y, 0), in place.
void relu_forward(Context& ctx, void* y, std::size_t n);
// y = max(y + z, 0), in place (the residual join of a ResNet block).
void add_relu_forward(Context& ctx, void* y, const void* z, std::size_t n);
// dy = dy * (y > 0), in place; y is the activation's output.
void relu_backward(Context& ctx, const void* y, void* dy, std::size_t n);
// y += x.
void add_inplace(Context& ctx, void* y, const void* x, std::size_t n);
// dst (storage type) = src (fp32).
void convert_from_f32(Context& ctx, const float* src, void* dst, std::size_t n);
// dst (fp32) = src (storage type).
void convert_to_f32(Context& ctx, const void* src, float* dst, std::size_t n);
// Fills storage-type data with uniform values in [lo, hi) from a counter-based hash (deterministic).
void fill_uniform(Context& ctx, void* p, std::size_t n, float lo, float hi, std::uint64_t seed);

}  // namespace amdahl::dnn
