// Synthetic batches on the device or prepared on the host (see synthetic_batch.hpp). Compiled
// by nvcc so that the host-side half/bfloat16 conversions of cuda_fp16.h/cuda_bf16.h are used.
#include "synthetic_batch.hpp"

#include "amdahl/dnn/check.hpp"
#include "amdahl/dnn/elementwise.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace amdahl::resnet {
namespace {

struct XorShift {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  // Uniform in [-1, 1).
  float uniform() { return static_cast<float>(next() >> 40) * (2.0f / 16777216.0f) - 1.0f; }
};

template <class T>
T convert(float v);
template <>
float convert<float>(float v) { return v; }
template <>
__half convert<__half>(float v) { return __float2half(v); }
template <>
__nv_bfloat16 convert<__nv_bfloat16>(float v) { return __float2bfloat16(v); }

template <class T>
void fill_host(T* p, std::size_t n, XorShift& rng) {
  for (std::size_t i = 0; i < n; ++i) p[i] = convert<T>(rng.uniform());
}

}  // namespace

SyntheticBatch::SyntheticBatch(dnn::Context& ctx, dnn::Shape4 shape, int classes, bool host,
                               bool pinned, std::uint64_t seed)
    : ctx_(ctx), shape_(shape), classes_(classes), host_(host), pinned_(pinned), seed_(seed),
      images_(shape, ctx.act_type()),
      labels_(static_cast<std::size_t>(shape.n) * sizeof(int)) {
  const std::size_t img_bytes = images_.bytes();
  const std::size_t lbl_bytes = static_cast<std::size_t>(shape.n) * sizeof(int);
  if (host_ && pinned_) {
    AMDAHL_CUDA(cudaMallocHost(&host_images_, img_bytes));
    AMDAHL_CUDA(cudaMallocHost(reinterpret_cast<void**>(&host_labels_), lbl_bytes));
  } else {
    const std::size_t label_offset = (img_bytes + 63) / 64 * 64;
    pageable_.resize(label_offset + lbl_bytes);
    host_images_ = pageable_.data();
    host_labels_ = reinterpret_cast<int*>(pageable_.data() + label_offset);
  }
  // Device data (and the first host step's labels): generated once.
  XorShift rng{seed * 0x9e3779b97f4a7c15ull + 1};
  for (int i = 0; i < shape.n; ++i) host_labels_[i] = static_cast<int>(rng.next() % classes);
  AMDAHL_CUDA(cudaMemcpyAsync(labels_.get(), host_labels_, lbl_bytes, cudaMemcpyHostToDevice,
                              ctx.stream()));
  if (!host_) dnn::fill_uniform(ctx, images_.data(), images_.count(), -1.f, 1.f, seed);
  ctx.synchronize();
}

SyntheticBatch::~SyntheticBatch() {
  if (host_ && pinned_) {
    cudaFreeHost(host_images_);
    cudaFreeHost(host_labels_);
  }
}

void SyntheticBatch::prepare_on_host(std::uint64_t step) {
  if (!host_) throw dnn::DnnError("prepare_on_host with --data device");
  XorShift rng{(seed_ + 1) * 0xd1b54a32d192ed03ull + step * 0x9e3779b97f4a7c15ull + 7};
  for (int i = 0; i < shape_.n; ++i) host_labels_[i] = static_cast<int>(rng.next() % classes_);
  const std::size_t n = images_.count();
  switch (ctx_.act_type()) {
    case dnn::DType::f32: fill_host(static_cast<float*>(host_images_), n, rng); break;
    case dnn::DType::f16: fill_host(static_cast<__half*>(host_images_), n, rng); break;
    case dnn::DType::bf16: fill_host(static_cast<__nv_bfloat16*>(host_images_), n, rng); break;
  }
}

void SyntheticBatch::copy_to_device() {
  if (!host_) throw dnn::DnnError("copy_to_device with --data device");
  AMDAHL_CUDA(cudaMemcpyAsync(images_.data(), host_images_, images_.bytes(),
                              cudaMemcpyHostToDevice, ctx_.stream()));
  AMDAHL_CUDA(cudaMemcpyAsync(labels_.get(), host_labels_,
                              static_cast<std::size_t>(shape_.n) * sizeof(int),
                              cudaMemcpyHostToDevice, ctx_.stream()));
}

}  // namespace amdahl::resnet
