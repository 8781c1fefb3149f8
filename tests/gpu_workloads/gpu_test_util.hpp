// Helpers for the GPU layer tests: host<->device transfer in the context's storage type,
// deterministic random vectors, and a comparison that describes the worst mismatch.
#pragma once

#include "amdahl/dnn/context.hpp"
#include "amdahl/dnn/tensor.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace amdahl::gpu_test {

// Uniform values in [lo, hi).
std::vector<float> random_vector(std::size_t n, std::uint64_t seed, float lo = -1.f, float hi = 1.f);
// Copies fp32 host values to a new device buffer in the context's storage type.
dnn::DeviceBuffer upload(dnn::Context& ctx, const std::vector<float>& v);
// Copies fp32 host values into existing storage-type device memory.
void upload_into(dnn::Context& ctx, const std::vector<float>& v, void* dst);
void upload_f32(dnn::Context& ctx, const std::vector<float>& v, float* dst);
// Reads n storage-type elements back as fp32 (synchronizes).
std::vector<float> download(dnn::Context& ctx, const void* src, std::size_t n);
std::vector<float> download_f32(dnn::Context& ctx, const float* src, std::size_t n);

struct Compare {
  bool ok = true;
  double max_rel = 0;  // max |got - want| / max(|want|_inf, floor)
  std::string message;
};
// Compares got against want with max |got - want| <= tol * max(max|want|, 1e-3).
Compare compare(const std::string& what, const std::vector<float>& got,
                const std::vector<double>& want, double tol);

}  // namespace amdahl::gpu_test
