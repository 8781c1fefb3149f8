// cpu_pipeline: parses the flags, generates the dataset, calibrates (--cost work), runs the
// pipeline and prints the measured time per step next to the configured per-stage costs.
// Exit codes: 0 success, 1 bad flags or a failure (one line on stderr).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dataset.hpp"
#include "options.hpp"
#include "pipeline.hpp"
#include "rank_env.hpp"
#include "rank_launch.hpp"
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
  // Data parallel: a launcher's rank, or our own ranks (the parent only waits for them).
  std::optional<RankEnv> rank;
  try {
    rank = rank_from_process_env();
  } catch (const RankEnvError& e) {
    std::fprintf(stderr, "cpu_pipeline: error: %s\n", e.what());
    return 1;
  }
  if (rank && o.ranks > 0 && rank->world_size != o.ranks) {
    std::fprintf(stderr, "cpu_pipeline: error: --ranks %lld, but the launcher set a world of %lld\n",
                 static_cast<long long>(o.ranks), static_cast<long long>(rank->world_size));
    return 1;
  }
  if (!rank && o.ranks > 1) {
    int code = 0;
    rank = launch_ranks(o.ranks, code);
    if (!rank) return code;  // the parent: every rank has ended
  } else if (!rank && o.ranks == 1) {
    rank = RankEnv{0, 1, 0, "cpu_pipeline"};
  }
  if (rank && o.straggler_rank >= rank->world_size) {
    std::fprintf(stderr, "cpu_pipeline: error: --straggler rank %lld is not below the world size %lld\n",
                 static_cast<long long>(o.straggler_rank), static_cast<long long>(rank->world_size));
    return 1;
  }
  if (rank && rank->rank == o.straggler_rank) o.compute_ms *= o.straggler_factor;
  try {
    const std::int64_t total = o.warmup_steps + o.steps;
    // Distinct item files: up to 8 batches' worth, reused cyclically.
    const auto items = static_cast<std::size_t>(o.batch_size * std::min<std::int64_t>(total, 8));
    Dataset dataset(o.data_dir, items);
    const StageWork work(o, dataset);
    std::unique_ptr<GradientSync> sync;
    if (rank) sync = std::make_unique<GradientSync>(o, *rank, rendezvous_name());
    const RunResult r =
        run_pipeline(o, work, sync.get(), rank ? batch_item_base(rank->rank) : 0);
    sync.reset();
    if (rank) {
      std::printf("rank %lld of %lld (%s): %.3f ms/step, compute %.3f ms, all-reduce %lld bytes "
                  "per step, %.3f ms + ring at %.3g GB/s\n",
                  static_cast<long long>(rank->rank), static_cast<long long>(rank->world_size),
                  rank->source.c_str(),
                  static_cast<double>(r.wall_ns) / 1e6 / static_cast<double>(r.measured_steps),
                  o.compute_ms, static_cast<long long>(o.comm_bytes), o.comm_ms, o.comm_gbps);
      std::fflush(stdout);
      if (rank->rank != 0) return 0;
    }

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
