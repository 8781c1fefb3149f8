// Parses cpu_pipeline's flags: every flag takes one value ("--flag V" or "--flag=V"), numbers
// are checked for range, unknown flags and stray arguments are errors; "--" ends the options.
#include "options.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>

namespace amdahl::cpu_pipeline {
namespace {

std::int64_t parse_count(std::string_view flag, const std::string& v, std::int64_t min,
                         std::int64_t max) {
  std::int64_t out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc{} || end != v.data() + v.size()) {
    throw OptionsError(std::string(flag) + " expects an integer, got '" + v + "'");
  }
  if (out < min || out > max) {
    throw OptionsError(std::string(flag) + " must be between " + std::to_string(min) + " and " +
                       std::to_string(max) + ", got " + v);
  }
  return out;
}

double parse_ms(std::string_view flag, const std::string& v) {
  // std::from_chars for double is available in GCC 11+.
  double out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc{} || end != v.data() + v.size() || !std::isfinite(out)) {
    throw OptionsError(std::string(flag) + " expects a number of milliseconds, got '" + v + "'");
  }
  if (out < 0 || out > 60'000) {
    throw OptionsError(std::string(flag) + " must be between 0 and 60000 ms, got " + v);
  }
  return out;
}

}  // namespace

const char* cost_mode_name(CostMode m) noexcept { return m == CostMode::sleep ? "sleep" : "work"; }

std::string usage_text() {
  return "usage: cpu_pipeline [--steps N] [--warmup-steps N] [--batch-size N] [--io-ms X]\n"
         "                    [--preprocess-ms X] [--h2d-ms X] [--compute-ms X]\n"
         "                    [--loader-threads N] [--queue-depth N] [--cost sleep|work]\n"
         "                    [--first-step-ms X] [--data-dir DIR]\n"
         "                    [--ranks N] [--comm-ms X] [--comm-bytes B] [--comm-gbps G]\n"
         "                    [--straggler RANK:FACTOR]\n"
         "A training-like pipeline instrumented with NVTX (domain amdahl): per batch, disk_io\n"
         "and cpu_preprocess (inline with --loader-threads 0, else on N loader threads feeding\n"
         "a queue of --queue-depth batches), then h2d and gpu_compute on the driving thread.\n"
         "Costs are per batch in ms. --cost sleep: each stage is a blocking wait of exactly its\n"
         "cost; --cost work: real reads, transforms, copies and arithmetic calibrated to it.\n"
         "--first-step-ms X: the first step's gpu_compute takes X ms more (a start-up such as\n"
         "cuDNN autotuning, while loader threads fill the queue).\n"
         "Data parallel: --ranks N forks N rank processes (or run one process per rank under\n"
         "torchrun / mpirun: RANK and WORLD_SIZE, OMPI_COMM_WORLD_*, PMI_*, SLURM_* are read).\n"
         "Each rank all-reduces --comm-bytes of gradients per step over a ring of Unix sockets\n"
         "paced to --comm-gbps GB/s (0: unpaced) after a fixed --comm-ms, on a communication\n"
         "thread overlapped with the next step; step i+1 waits for step i's all-reduce after its\n"
         "gpu_compute. --straggler R:F makes rank R's gpu_compute F times slower.\n"
         "Defaults: --steps 50 --warmup-steps 2 --batch-size 32 --io-ms 5 --preprocess-ms 10\n"
         "          --h2d-ms 3 --compute-ms 12 --loader-threads 0 --queue-depth 4 --cost sleep\n"
         "          --comm-ms 2 --comm-bytes 4194304 --comm-gbps 2\n";
}

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  constexpr std::int64_t kBig = std::numeric_limits<std::int32_t>::max();
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    bool has_value = false;
    if (flag == "--") {  // end of options: cpu_pipeline takes no operands
      if (i + 1 < args.size()) throw OptionsError("unexpected argument '" + args[i + 1] + "'");
      break;
    }
    if (flag == "-h" || flag == "--help") {
      o.help = true;
      continue;
    }
    if (flag.rfind("--", 0) != 0) throw OptionsError("unexpected argument '" + flag + "'");
    if (const auto eq = flag.find('='); eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    }
    auto need_value = [&]() -> const std::string& {
      if (!has_value) {
        if (i + 1 >= args.size()) throw OptionsError(flag + " needs a value");
        value = args[++i];
        has_value = true;
      }
      return value;
    };
    if (flag == "--steps") {
      o.steps = parse_count(flag, need_value(), 1, kBig);
    } else if (flag == "--warmup-steps") {
      o.warmup_steps = parse_count(flag, need_value(), 0, kBig);
    } else if (flag == "--batch-size") {
      o.batch_size = parse_count(flag, need_value(), 1, 65536);
    } else if (flag == "--io-ms") {
      o.io_ms = parse_ms(flag, need_value());
    } else if (flag == "--preprocess-ms") {
      o.preprocess_ms = parse_ms(flag, need_value());
    } else if (flag == "--h2d-ms") {
      o.h2d_ms = parse_ms(flag, need_value());
    } else if (flag == "--compute-ms") {
      o.compute_ms = parse_ms(flag, need_value());
    } else if (flag == "--first-step-ms") {
      o.first_step_ms = parse_ms(flag, need_value());
    } else if (flag == "--loader-threads") {
      o.loader_threads = parse_count(flag, need_value(), 0, 256);
    } else if (flag == "--queue-depth") {
      o.queue_depth = parse_count(flag, need_value(), 1, 65536);
    } else if (flag == "--cost") {
      const std::string& v = need_value();
      if (v == "sleep") {
        o.cost = CostMode::sleep;
      } else if (v == "work") {
        o.cost = CostMode::work;
      } else {
        throw OptionsError("--cost must be 'sleep' or 'work', got '" + v + "'");
      }
    } else if (flag == "--ranks") {
      o.ranks = parse_count(flag, need_value(), 1, 64);
    } else if (flag == "--comm-ms") {
      o.comm_ms = parse_ms(flag, need_value());
    } else if (flag == "--comm-bytes") {
      o.comm_bytes = parse_count(flag, need_value(), 4, std::int64_t{1} << 30);
    } else if (flag == "--comm-gbps") {
      o.comm_gbps = parse_ms(flag, need_value());
    } else if (flag == "--straggler") {
      const std::string& v = need_value();
      const auto colon = v.find(':');
      if (colon == std::string::npos) throw OptionsError("--straggler expects RANK:FACTOR, got '" + v + "'");
      o.straggler_rank = parse_count(flag, v.substr(0, colon), 0, 63);
      o.straggler_factor = parse_ms(flag, v.substr(colon + 1));
      if (o.straggler_factor <= 0) throw OptionsError("--straggler FACTOR must be positive, got '" + v + "'");
    } else if (flag == "--data-dir") {
      o.data_dir = need_value();
      if (o.data_dir.empty()) throw OptionsError("--data-dir needs a non-empty path");
    } else {
      throw OptionsError("unknown flag '" + flag + "' (see --help)");
    }
  }
  return o;
}

}  // namespace amdahl::cpu_pipeline
