// Report -> a text table for people: one row per stage with time, plus verdict, GPU summary,
// notes and diagnostics.
#include "amdahl/render/renderers.hpp"
#include "amdahl/analysis/ranks.hpp"
#include <cmath>
#include <cstdio>
#include <string>

#include "amdahl/render/guidance_render.hpp"
#include "amdahl/analysis/path_explanation.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/text/escape.hpp"
#include "amdahl/render/finding_text.hpp"
#include "numbers.hpp"

namespace amdahl::render {
using namespace analysis;
namespace {

using detail::fmt;

std::string speedup(double s) { return detail::speedup_text(s, "%.2fx"); }

}  // namespace

std::string report_to_text(const Report& r) { return report_to_text(r, true); }

std::string report_to_text(const Report& r, bool with_notes) {
  std::string out;
  char buf[512];
  const double wall_ms = static_cast<double>(r.wall_ns) / 1e6;
  if (r.steps > 0) {
    std::string edges;
    if (r.fill_steps > 0) edges += ", " + std::to_string(r.fill_steps) + " pipeline fill";
    if (r.drain_steps > 0) edges += ", " + std::to_string(r.drain_steps) + " drain";
    std::snprintf(buf, sizeof buf,
                  "window: %.1f ms, %zu steps (%zu warm-up%s excluded, %s), %.2f ms/step; steps %zu to %zu (from 0)\n",
                  wall_ms, r.steps, r.warmup - r.fill_steps, edges.c_str(), r.warmup_auto ? "auto" : "--warmup",
                  wall_ms / static_cast<double>(r.steps), r.first_step, r.first_step + r.steps - 1);
  } else {
    std::snprintf(buf, sizeof buf, "window: %.1f ms, no steps (whole run of the driving thread)\n", wall_ms);
  }
  out += buf;
  std::snprintf(buf, sizeof buf, "driving thread: pid %u tid %llu%s%s\n", r.driving_pid,
                static_cast<unsigned long long>(r.driving_tid), r.driving_name.empty() ? "" : " ",
                r.driving_name.c_str());
  out += buf;
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
  if (own_table)
    std::snprintf(buf, sizeof buf, "%-16s %9s %12s %11s %11s\n", "stage", "exposed", r.steps > 0 ? "ms/step" : "exposed ms",
                  "total ms", "hidden ms");
  else
    std::snprintf(buf, sizeof buf, "%-16s %9s %12s %11s %11s %7s %7s %7s %7s\n", "stage", "exposed",
                  r.steps > 0 ? "ms/step" : "exposed ms", "total ms", "hidden ms", "2x", "4x", "10x", "limit");
  out += buf;
  out += std::string(own_table ? 63 : 95, '-') + "\n";
  for (const auto& s : r.stages) {
    if (!s.is_other && s.exposed_ns <= 0 && s.total_ns <= 0 && s.gpu_busy_ns <= 0) continue;
    if (s.is_other) {
      std::snprintf(buf, sizeof buf, "%-16s %8.1f%% %12.3f %11s %11s\n", s.name.c_str(), s.fraction * 100.0,
                    s.exposed_ns / 1e6 / per, "", "");
    } else if (own_table) {
      std::snprintf(buf, sizeof buf, "%-16s %8.1f%% %12.3f %11.1f %11.1f\n", s.name.c_str(), s.fraction * 100.0,
                    s.exposed_ns / 1e6 / per, s.total_ns / 1e6, s.hidden_ns / 1e6);
    } else {
      std::snprintf(buf, sizeof buf, "%-16s %8.1f%% %12.3f %11.1f %11.1f %7s %7s %7s %7s\n", s.name.c_str(),
                    s.fraction * 100.0, s.exposed_ns / 1e6 / per, s.total_ns / 1e6, s.hidden_ns / 1e6,
                    speedup(s.speedup_2x).c_str(), speedup(s.speedup_4x).c_str(), speedup(s.speedup_10x).c_str(),
                    speedup(s.speedup_limit).c_str());
    }
    out += buf;
  }
  for (const auto& s : r.stages)
    if (s.on_gpu && s.exposed_ns > 0 && s.exposed_host_ns > 0) {
      const double wall = static_cast<double>(r.wall_ns);
      std::snprintf(buf, sizeof buf, "  %s: GPU part %.1f%%, host part %.1f%% (its ranges' host work: what a faster GPU does not shorten)\n",
                    s.name.c_str(), 100.0 * s.exposed_gpu_ns / wall, 100.0 * s.exposed_host_ns / wall);
      out += buf;
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
    std::snprintf(buf, sizeof buf, "step time: mean %.3f ms, median %.3f ms, p95 %.3f ms, stddev %.3f ms\n",
                  r.step_ns.mean / 1e6, r.step_ns.median / 1e6, r.step_ns.p95 / 1e6, r.step_ns.stddev / 1e6);
    out += buf;
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
        std::snprintf(buf, sizeof buf, "  %-40.40s -> %-16s %10.1f ms  %zu ranges  (%s)\n",
                      (m->domain.empty() ? m->name : m->domain + "::" + m->name).c_str(), m->target.c_str(),
                      m->total_ns / 1e6, m->ranges, m->rule.c_str());
        out += buf;
      }
      if (more > 0) out += "  ... " + std::to_string(more) + " more\n";
    }
  }
  if (r.cpu.known) {
    out += "\nCPU (clocks read at each stage range's push and pop):";
    if (r.cpu.cpus_allowed > 0) {
      std::snprintf(buf, sizeof buf, " %u CPUs allowed of %u online", r.cpu.cpus_allowed, r.cpu.cpus_online);
      out += buf;
    }
    if (r.cpu.main_cores_busy >= 0) {
      std::snprintf(buf, sizeof buf, "; the driving process keeps %.2f cores busy outside loading", r.cpu.main_cores_busy);
      out += buf;
    }
    out += "\n";
    for (const StageCpu& c : r.cpu.stages) {
      std::snprintf(buf, sizeof buf, "  %-16s %-16s on-CPU %3.0f%% of its wall time, process %.2f cores busy (%zu ranges)\n",
                    c.stage.c_str(), c.driving_process ? "(driving proc.)" : "(other procs.)", 100.0 * c.on_cpu(),
                    c.cores_busy(), c.ranges);
      out += buf;
    }
    out += "  (on-CPU below 100%: the thread waited for the GIL, IO or a free core; cores busy above 1: other threads "
           "of the process, e.g. intra-op pools, ran meanwhile)\n";
  }
  if (r.gpu.present) {
    std::snprintf(buf, sizeof buf, "\nGPU: %zu ops in the window (%zu by launching stage, %zu by kind); busy %.1f ms, idle %.1f ms\n",
                  r.gpu.ops_in_window, r.gpu.by_correlation, r.gpu.by_fallback,
                  static_cast<double>(r.gpu.busy_ns) / 1e6, static_cast<double>(r.gpu.idle_ns) / 1e6);
    out += buf;
    for (const auto& s : r.stages)
      if (!s.is_other && s.gpu_busy_ns > 0) {
        std::snprintf(buf, sizeof buf, "  %-16s busy %.3f ms\n", s.name.c_str(), static_cast<double>(s.gpu_busy_ns) / 1e6);
        out += buf;
      }
    const auto ld = r.gpu.launch_delay_ns.summary();
    if (ld.count > 0) {
      std::snprintf(buf, sizeof buf, "  launch delay: median %.1f us, p95 %.1f us, max %.1f us\n", ld.median / 1e3,
                    ld.p95 / 1e3, ld.max / 1e3);
      out += buf;
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
    std::snprintf(buf, sizeof buf, "  - pid %u: %s = %llu%s%s\n", d.pid, d.key.c_str(),
                  static_cast<unsigned long long>(d.count), d.detail.empty() ? "" : ": ", d.detail.c_str());
    out += buf;
  }
  if (cupti_overhead_ns > 0) {
    std::snprintf(buf, sizeof buf, "  - CUPTI's own overhead records: %.1f ms in all (JSON: diagnostics)\n",
                  cupti_overhead_ns / 1e6);
    out += buf;
  }
  return out;
}

}  // namespace amdahl::render
