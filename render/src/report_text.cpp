// Report -> a text table for people: one row per stage with time, plus verdict, GPU summary,
// notes and diagnostics.
#include "amdahl/render/renderers.hpp"
#include "amdahl/analysis/ranks.hpp"
#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>

#include "amdahl/render/guidance_render.hpp"
#include "amdahl/analysis/path_explanation.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/text/escape.hpp"
#include "amdahl/render/finding_text.hpp"
#include "numbers.hpp"

namespace amdahl::render {
using namespace analysis;
namespace {

using detail::fixed;
using detail::left;
using detail::right;

std::string speedup(double s) { return detail::speedup_text(s, 2); }
// Cells right-aligned in their widths, a space before each: " 12.3% 4.000".
std::string right_cells(std::initializer_list<std::pair<std::string, std::size_t>> cells) {
  std::string out;
  for (const auto& [text, width] : cells) out.append(" ").append(right(text, width));
  return out;
}
// The stage table's columns after the name: exposed share, per step, total, hidden.
std::string stage_cells(const std::string& exposed, const std::string& per_step, const std::string& total,
                        const std::string& hidden) {
  return right_cells({{exposed, 9}, {per_step, 12}, {total, 11}, {hidden, 11}});
}
// Its classic Amdahl columns: 2x, 4x, 10x, limit.
std::string limit_cells(const std::string& x2, const std::string& x4, const std::string& x10, const std::string& lim) {
  return right_cells({{x2, 7}, {x4, 7}, {x10, 7}, {lim, 7}});
}

}  // namespace

std::string report_to_text(const Report& r) { return report_to_text(r, true); }

std::string report_to_text(const Report& r, bool with_notes) {
  std::string out;
  const double wall_ms = static_cast<double>(r.wall_ns) / 1e6;
  if (r.steps > 0) {
    std::string edges;
    if (r.fill_steps > 0) edges += ", " + std::to_string(r.fill_steps) + " pipeline fill";
    if (r.drain_steps > 0) edges += ", " + std::to_string(r.drain_steps) + " drain";
    out += "window: " + fixed(wall_ms, 1) + " ms, " + std::to_string(r.steps) + " steps (" +
           std::to_string(r.warmup - r.fill_steps) + " warm-up" + edges + " excluded, " +
           (r.warmup_auto ? "auto" : "--warmup") + "), " + fixed(wall_ms / static_cast<double>(r.steps), 2) +
           " ms/step; steps " + std::to_string(r.first_step) + " to " + std::to_string(r.first_step + r.steps - 1) +
           " (from 0)\n";
  } else {
    out += "window: " + fixed(wall_ms, 1) + " ms, no steps (whole run of the driving thread)\n";
  }
  out += "driving thread: pid " + std::to_string(r.driving_pid) + " tid " +
         std::to_string(static_cast<unsigned long long>(r.driving_tid)) + (r.driving_name.empty() ? "" : " ") +
         r.driving_name + "\n";
  // Variables `amdahl profile` set in the command's environment beyond its own (--multicast-off).
  if (auto it = r.meta.find("command_env"); it != r.meta.end() && !it->second.empty())
    out += "command environment set by amdahl profile: " + text::display_name(it->second) + "\n";
  out += r.exposed_basis == "critical_path"
             ? "exposed = time on the critical path of the dependency graph; hidden = work off it\n\n"
             : "exposed = the driving thread's view (no dependency graph: see notes)\n\n";
  const double per = r.steps > 0 ? static_cast<double>(r.steps) : 1.0;
  // With the guidance (amdahl report) the projections are a table of their own, replay beside
  // classic; without it (the table `amdahl whatif` starts with) the classic columns stay here.
  const bool own_table = r.guidance.projections.computed;
  out += left("stage", 16) + stage_cells("exposed", r.steps > 0 ? "ms/step" : "exposed ms", "total ms", "hidden ms") +
         (own_table ? "" : limit_cells("2x", "4x", "10x", "limit")) + "\n";
  out += std::string(own_table ? 63 : 95, '-') + "\n";
  for (const auto& s : r.stages) {
    if (!s.is_other && s.exposed_ns <= 0 && s.total_ns <= 0 && s.gpu_busy_ns <= 0) continue;
    const std::string exposed = fixed(s.fraction * 100.0, 1) + "%", per_step = fixed(s.exposed_ns / 1e6 / per, 3);
    if (s.is_other)
      out += left(s.name, 16) + stage_cells(exposed, per_step, "", "") + "\n";
    else
      out += left(s.name, 16) + stage_cells(exposed, per_step, fixed(s.total_ns / 1e6, 1), fixed(s.hidden_ns / 1e6, 1)) +
             (own_table ? "" : limit_cells(speedup(s.speedup_2x), speedup(s.speedup_4x), speedup(s.speedup_10x),
                                           speedup(s.speedup_limit))) +
             "\n";
  }
  for (const auto& s : r.stages)
    if (s.on_gpu && s.exposed_ns > 0 && s.exposed_host_ns > 0) {
      const double wall = static_cast<double>(r.wall_ns);
      out += "  " + s.name + ": GPU part " + fixed(100.0 * s.exposed_gpu_ns / wall, 1) + "%, host part " +
             fixed(100.0 * s.exposed_host_ns / wall, 1) +
             "% (its ranges' host work: what a faster GPU does not shorten)\n";
    }
  if (!own_table)
    out += "2x, 4x, 10x, limit: classic Amdahl, 1 / ((1 - p) + p / k) from the stage's exposed share p; assumes the "
           "stages add up serially (no overlap); `amdahl report` gives the replay beside it\n";
  out += projections_to_text(r.guidance.projections);
  if (r.guidance.user_whatif) out += user_whatif_to_text(*r.guidance.user_whatif);
  out += "\nverdict: " + to_text(r.verdict) + "\n";
  if (r.graph && r.exposed_basis == "critical_path") out += to_text(r.explanation) + "\n";
  out += next_actions_to_text(r.guidance.next_actions);
  if (r.steps > 1) {
    out += "step time: mean " + fixed(r.step_ns.mean / 1e6, 3) + " ms, median " + fixed(r.step_ns.median / 1e6, 3) +
           " ms, p95 " + fixed(r.step_ns.p95 / 1e6, 3) + " ms, stddev " + fixed(r.step_ns.stddev / 1e6, 3) + " ms\n";
  }
  {
    // Names a rule sent to a stage, step or wait (domain `amdahl` names stand for themselves).
    std::vector<const StageMappingRow*> mapped;
    std::size_t more = 0;
    for (const StageMappingRow& m : r.stage_mapping) {
      if (m.rule == "domain amdahl" || m.target == "ignore") continue;
      if (mapped.size() < 8) mapped.push_back(&m);
      else ++more;
    }
    if (!mapped.empty()) {
      out += "\nstage mapping (range names a rule sent to a stage; `amdahl stages` lists every name):\n";
      for (const StageMappingRow* m : mapped) {
        // The range name in 40 bytes; a longer one ends in '~' at byte 40, so a cut shows (the
        // whole name is in `amdahl stages`, which the heading points to).
        std::string name = m->domain.empty() ? m->name : m->domain + "::" + m->name;
        if (name.size() > 40) name = name.substr(0, 39) + "~";
        out += "  " + left(name, 40) + " -> " + left(m->target, 16) + " " + right(fixed(m->total_ns / 1e6, 1), 10) +
               " ms  " + std::to_string(m->ranges) + " ranges  (" + m->rule + ")\n";
      }
      if (more > 0) out += "  ... " + std::to_string(more) + " more\n";
    }
  }
  if (r.cpu.known) {
    out += "\nCPU (clocks read at each stage range's push and pop):";
    if (r.cpu.cpus_allowed > 0) {
      out += " " + std::to_string(r.cpu.cpus_allowed) + " CPUs allowed of " + std::to_string(r.cpu.cpus_online) +
             " online";
    }
    if (r.cpu.main_cores_busy >= 0) {
      out += "; the driving process keeps " + fixed(r.cpu.main_cores_busy, 2) + " cores busy outside loading";
    }
    out += "\n";
    for (const StageCpu& c : r.cpu.stages) {
      out += "  " + left(c.stage, 16) + " " + left(c.driving_process ? "(driving proc.)" : "(other procs.)", 16) +
             " on-CPU " + right(fixed(100.0 * c.on_cpu(), 0), 3) + "% of its wall time, process " +
             fixed(c.cores_busy(), 2) + " cores busy (" + std::to_string(c.ranges) + " ranges)\n";
    }
    out += "  (on-CPU below 100%: the thread waited for the GIL, IO or a free core; cores busy above 1: other threads "
           "of the process, e.g. intra-op pools, ran meanwhile)\n";
  }
  if (r.gpu.present) {
    out += "\nGPU: " + std::to_string(r.gpu.ops_in_window) + " ops in the window (" +
           std::to_string(r.gpu.by_correlation) + " by launching stage, " + std::to_string(r.gpu.by_fallback) +
           " by kind); busy " + fixed(static_cast<double>(r.gpu.busy_ns) / 1e6, 1) + " ms, idle " +
           fixed(static_cast<double>(r.gpu.idle_ns) / 1e6, 1) + " ms\n";
    for (const auto& s : r.stages)
      if (!s.is_other && s.gpu_busy_ns > 0) {
        out += "  " + left(s.name, 16) + " busy " + fixed(static_cast<double>(s.gpu_busy_ns) / 1e6, 3) + " ms\n";
      }
    const auto ld = r.gpu.launch_delay_ns.summary();
    if (ld.count > 0) {
      out += "  launch delay: median " + fixed(ld.median / 1e3, 1) + " us, p95 " + fixed(ld.p95 / 1e3, 1) + " us, max " +
             fixed(ld.max / 1e3, 1) + " us\n";
    }
  }
  out += ranks_to_text(r.ranks, r.stage_names());  // data-parallel ranks (ranks.hpp), if any
  if (with_notes && !r.notes.empty()) {
    out += "\nnotes:\n";
    for (const auto& n : to_text(r.notes)) out += "  - " + n + "\n";
  }
  // CUPTI's own overhead records are information, not problems: one summed line (the JSON
  // keeps every entry).
  double cupti_overhead_ns = 0;
  std::size_t problems = 0;
  for (const auto& d : r.diagnostics) {
    if (d.key.rfind("cupti.overhead", 0) != 0) ++problems;
    else if (d.key.rfind("cupti.overhead_ns.", 0) == 0) cupti_overhead_ns += static_cast<double>(d.count);
  }
  if (problems > 0 || cupti_overhead_ns > 0) out += "\ndiagnostics:\n";
  for (const auto& d : r.diagnostics) {
    if (d.key.rfind("cupti.overhead", 0) == 0) continue;
    out += "  - pid " + std::to_string(d.pid) + ": " + d.key + " = " +
           std::to_string(static_cast<unsigned long long>(d.count)) + (d.detail.empty() ? "" : ": ") + d.detail + "\n";
  }
  if (cupti_overhead_ns > 0) {
    out += "  - CUPTI's own overhead records: " + fixed(cupti_overhead_ns / 1e6, 1) + " ms in all (JSON: diagnostics)\n";
  }
  return out;
}

}  // namespace amdahl::render
