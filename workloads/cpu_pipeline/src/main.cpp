// cpu_pipeline: parses the flags, generates the dataset, calibrates (--cost work), runs the
// pipeline and prints the measured time per step next to the configured per-stage costs.
// Exit codes: 0 success, 1 bad flags or a failure (one line on stderr).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "dataset.hpp"
#include "options.hpp"
#include "pipeline.hpp"
#include "stage_work.hpp"

namespace {

using namespace amdahl::cpu_pipeline;

// Time per step if every stage took exactly its configured cost (sleep mode's ground truth):
// serial, the sum; pipelined, the slower of the driver's part and the loaders' share.
double ideal_ms_per_step(const Options& o) {
  const double driver = o.h2d_ms + o.compute_ms;
  const double load = o.io_ms + o.preprocess_ms;
  if (o.loader_threads == 0) return driver + load;
  return std::max(driver, load / static_cast<double>(o.loader_threads));
}

void print_plan(const char* stage, double ms, const StagePlan& p, const char* unit) {
  if (p.units == 0) {
    std::printf("  %-15s %8.3f ms  (no work)\n", stage, ms);
  } else {
    std::printf("  %-15s %8.3f ms  = %lld %s x %.2f us\n", stage, ms,
                static_cast<long long>(p.units), unit, p.unit_ns / 1e3);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parse_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const OptionsError& e) {
    std::fprintf(stderr, "cpu_pipeline: error: %s\n", e.what());
    return 1;
  }
  if (o.help) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  try {
    const std::int64_t total = o.warmup_steps + o.steps;
    // Distinct item files: up to 8 batches' worth, reused cyclically.
    const auto items = static_cast<std::size_t>(o.batch_size * std::min<std::int64_t>(total, 8));
    Dataset dataset(o.data_dir, items);
    const StageWork work(o, dataset);
    const RunResult r = run_pipeline(o, work);

    const double wall_ms = static_cast<double>(r.wall_ns) / 1e6;
    std::printf("cpu_pipeline: done\n");
    std::printf("steps:            %lld (after %lld warm-up)\n",
                static_cast<long long>(r.measured_steps), static_cast<long long>(o.warmup_steps));
    std::printf("wall time:        %.3f ms (measured steps)\n", wall_ms);
    std::printf("ms/step:          %.3f\n", wall_ms / static_cast<double>(r.measured_steps));
    std::printf("ideal ms/step:    %.3f (configured costs, %s)\n", ideal_ms_per_step(o),
                o.loader_threads == 0 ? "serial" : "pipelined");
    std::printf("loader threads:   %lld, queue depth %lld, batch size %lld, cost %s\n",
                static_cast<long long>(o.loader_threads), static_cast<long long>(o.queue_depth),
                static_cast<long long>(o.batch_size), cost_mode_name(o.cost));
    std::printf("configured cost per batch:\n");
    if (o.cost == CostMode::sleep) {
      std::printf("  %-15s %8.3f ms\n  %-15s %8.3f ms\n  %-15s %8.3f ms\n  %-15s %8.3f ms\n",
                  "disk_io", o.io_ms, "cpu_preprocess", o.preprocess_ms, "h2d", o.h2d_ms,
                  "gpu_compute", o.compute_ms);
    } else {
      print_plan("disk_io", o.io_ms, work.io_plan(), "file reads");
      print_plan("cpu_preprocess", o.preprocess_ms, work.preprocess_plan(), "items");
      print_plan("h2d", o.h2d_ms, work.h2d_plan(), "item copies");
      print_plan("gpu_compute", o.compute_ms, work.compute_plan(), "item passes");
    }
    std::printf("checksum:         %.6g\n", r.checksum);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cpu_pipeline: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
