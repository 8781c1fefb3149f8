// The per-item units of real work behind each stage, and their calibration: a unit is timed
// over at least 10 ms of repetitions (fastest of five trials) and a stage with cost C ms does
// round(C / unit time) units per batch. In sleep mode the stages do no work at all (the Pacer's
// sleep is the whole stage): even a short CPU burst before a sleep delays the wake-up on a busy
// machine (the scheduler favours threads that used little CPU), which skews stage boundaries.
#include "stage_work.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>

#include "pacing.hpp"

namespace amdahl::cpu_pipeline {
namespace {

constexpr std::size_t kItemFloats = kItemBytes;  // one feature per byte
constexpr std::int64_t kMinTrialNs = 10'000'000;

// Keeps the compiler from dropping or merging memory writes it could otherwise prove unused.
inline void clobber_memory() noexcept { __asm__ __volatile__("" : : : "memory"); }

StagePlan calibrate(double cost_ms, const std::function<void(std::int64_t)>& run_units) {
  StagePlan plan;
  if (cost_ms <= 0) {
    plan.units = 0;
    return plan;
  }
  std::int64_t k = 1;
  for (;;) {
    const std::int64_t t0 = monotonic_ns();
    run_units(k);
    if (monotonic_ns() - t0 >= kMinTrialNs || k >= (std::int64_t{1} << 40)) break;
    k *= 2;
  }
  std::array<double, 5> per_unit{};
  for (auto& p : per_unit) {
    const std::int64_t t0 = monotonic_ns();
    run_units(k);
    p = static_cast<double>(monotonic_ns() - t0) / static_cast<double>(k);
  }
  // The fastest trial: the uncontended speed. On a busy machine a stage then takes at least
  // its cost (more when other processes hold the cores), never much less.
  plan.unit_ns = *std::min_element(per_unit.begin(), per_unit.end());
  plan.units = std::max<std::int64_t>(1, std::llround(cost_ms * 1e6 / plan.unit_ns));
  return plan;
}

}  // namespace

StageWork::StageWork(const Options& options, const Dataset& dataset)
    : options_(options), dataset_(dataset),
      batch_items_(static_cast<std::size_t>(options.batch_size)) {
  if (options_.cost == CostMode::sleep) {
    io_.units = pre_.units = h2d_.units = compute_.units = 0;
    return;
  }
  Batch b = make_batch();
  std::vector<float> device = make_device_buffer();
  io_ = calibrate(options_.io_ms, [&](std::int64_t n) { read_units(0, n, b); });
  pre_ = calibrate(options_.preprocess_ms, [&](std::int64_t n) { transform_units(0, n, b); });
  h2d_ = calibrate(options_.h2d_ms, [&](std::int64_t n) { copy_units(n, b, device); });
  volatile double sink = 0;  // the result must be used, or the compiler drops the reduction
  compute_ = calibrate(options_.compute_ms,
                       [&](std::int64_t n) { sink = sink + compute_units(n, device); });
}

Batch StageWork::make_batch() const {
  Batch b;
  if (options_.cost == CostMode::sleep) return b;  // no work, no data
  b.raw.resize(batch_items_ * kItemBytes);
  b.features.resize(batch_items_ * kItemFloats);
  return b;
}

std::vector<float> StageWork::make_device_buffer() const {
  if (options_.cost == CostMode::sleep) return {};
  return std::vector<float>(batch_items_ * kItemFloats, 0.0f);
}

void StageWork::disk_io(std::int64_t batch_index, Batch& b) const {
  read_units(batch_index * static_cast<std::int64_t>(batch_items_), io_.units, b);
}

void StageWork::preprocess(Batch& b) const { transform_units(0, pre_.units, b); }

void StageWork::h2d(const Batch& b, std::vector<float>& device) const {
  copy_units(h2d_.units, b, device);
}

double StageWork::compute(std::vector<float>& device) const {
  return compute_units(compute_.units, device);
}

void StageWork::read_units(std::int64_t first_item, std::int64_t units, Batch& b) const {
  for (std::int64_t u = 0; u < units; ++u) {
    const std::size_t slot = static_cast<std::size_t>(u) % batch_items_;
    dataset_.read_item(static_cast<std::size_t>(first_item + u), b.raw.data() + slot * kItemBytes);
  }
}

void StageWork::transform_units(std::int64_t first_item, std::int64_t units, Batch& b) const {
  // Normalise bytes to [-2, 2) and smooth with a 3-tap filter, as image preprocessing would.
  for (std::int64_t u = 0; u < units; ++u) {
    const std::size_t slot = static_cast<std::size_t>(first_item + u) % batch_items_;
    const std::uint8_t* in = b.raw.data() + slot * kItemBytes;
    float* out = b.features.data() + slot * kItemFloats;
    float prev = (static_cast<float>(in[0]) * (1.0f / 255.0f) - 0.5f) * 4.0f;
    float cur = prev;
    for (std::size_t i = 0; i < kItemBytes; ++i) {
      const std::size_t n = i + 1 < kItemBytes ? i + 1 : i;
      const float next = (static_cast<float>(in[n]) * (1.0f / 255.0f) - 0.5f) * 4.0f;
      out[i] = 0.25f * prev + 0.5f * cur + 0.25f * next;
      prev = cur;
      cur = next;
    }
    clobber_memory();
  }
}

void StageWork::copy_units(std::int64_t units, const Batch& b, std::vector<float>& device) const {
  for (std::int64_t u = 0; u < units; ++u) {
    const std::size_t slot = static_cast<std::size_t>(u) % batch_items_;
    std::memcpy(device.data() + slot * kItemFloats, b.features.data() + slot * kItemFloats,
                kItemFloats * sizeof(float));
    clobber_memory();
  }
}

double StageWork::compute_units(std::int64_t units, std::vector<float>& device) const {
  // A few dependent multiply-adds per element: compute-bound, like a small dense layer.
  double sum = 0;
  for (std::int64_t u = 0; u < units; ++u) {
    const std::size_t slot = static_cast<std::size_t>(u) % batch_items_;
    float* x = device.data() + slot * kItemFloats;
    float acc = 0;
    for (std::size_t i = 0; i < kItemFloats; ++i) {
      float y = x[i];
      for (int r = 0; r < 8; ++r) y = y * 0.999f + 0.001f;
      x[i] = y;
      acc += y;
    }
    sum += acc;
    clobber_memory();
  }
  return sum;
}

}  // namespace amdahl::cpu_pipeline
