// Transfer, random data and comparison helpers for the GPU layer tests.
#include "gpu_test_util.hpp"

#include "amdahl/dnn/check.hpp"
#include "amdahl/dnn/elementwise.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

namespace amdahl::gpu_test {

std::vector<float> random_vector(std::size_t n, std::uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

void upload_f32(dnn::Context& ctx, const std::vector<float>& v, float* dst) {
  AMDAHL_CUDA(cudaMemcpyAsync(dst, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice,
                              ctx.stream()));
  ctx.synchronize();
}

void upload_into(dnn::Context& ctx, const std::vector<float>& v, void* dst) {
  dnn::DeviceBuffer tmp(std::max<std::size_t>(v.size(), 1) * sizeof(float));
  upload_f32(ctx, v, tmp.as<float>());
  dnn::convert_from_f32(ctx, tmp.as<float>(), dst, v.size());
  ctx.synchronize();
}

dnn::DeviceBuffer upload(dnn::Context& ctx, const std::vector<float>& v) {
  dnn::DeviceBuffer out(std::max<std::size_t>(v.size(), 1) * dnn::dtype_size(ctx.act_type()));
  upload_into(ctx, v, out.get());
  return out;
}

std::vector<float> download_f32(dnn::Context& ctx, const float* src, std::size_t n) {
  std::vector<float> v(n);
  AMDAHL_CUDA(cudaMemcpyAsync(v.data(), src, n * sizeof(float), cudaMemcpyDeviceToHost,
                              ctx.stream()));
  ctx.synchronize();
  return v;
}

std::vector<float> download(dnn::Context& ctx, const void* src, std::size_t n) {
  dnn::DeviceBuffer tmp(std::max<std::size_t>(n, 1) * sizeof(float));
  dnn::convert_to_f32(ctx, src, tmp.as<float>(), n);
  return download_f32(ctx, tmp.as<float>(), n);
}

Compare compare(const std::string& what, const std::vector<float>& got,
                const std::vector<double>& want, double tol) {
  Compare c;
  std::ostringstream os;
  if (got.size() != want.size()) {
    c.ok = false;
    os << what << ": size " << got.size() << " != expected " << want.size();
    c.message = os.str();
    return c;
  }
  double scale = 1e-3;
  for (double w : want) scale = std::max(scale, std::abs(w));
  double worst = -1;
  std::size_t at = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double e = std::isfinite(got[i]) ? std::abs(static_cast<double>(got[i]) - want[i])
                                           : INFINITY;
    if (e > worst) {
      worst = e;
      at = i;
    }
  }
  c.max_rel = worst / scale;
  c.ok = c.max_rel <= tol;
  os << what << ": max error " << worst << " (" << c.max_rel << " of max |expected| " << scale
     << ", tolerance " << tol << ") at element " << at << " of " << got.size();
  if (!got.empty()) os << ": got " << got[at] << ", expected " << want[at];
  c.message = os.str();
  return c;
}

}  // namespace amdahl::gpu_test
