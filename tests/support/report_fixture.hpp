// A synthetic run for the report tests: 6 steps of 10 ms on thread 1 with disk_io, a user stage
// whose name is markup, a formula-like stage name, gpu_compute with a launched kernel, and a
// producer thread linked by produce/consume marks.
#pragma once

#include <string>

#include "../analysis/profile_builder.hpp"

namespace amdahl::test {

inline const std::string kMarkupStage = "<script>alert(\"x\")</script>&'";
inline const std::string kFormulaStage = "=cmd|' /C calc'!A0";
inline const std::string kControlStage = std::string("bad\nname\x01\x7f|*");

// `disk_ms` and `gpu_ms` per step let a second run differ (for diff tests).
inline format::Profile report_fixture(double disk_ms = 3, double gpu_ms = 4, int steps = 6) {
  ProfileBuilder b;
  double t = 0;
  std::uint32_t corr = 1;
  for (int i = 0; i < steps; ++i) {
    const double step = disk_ms + 1 + 0.5 + 0.5 + gpu_ms + 0.5;
    b.stage(1, "step", t, t + step);
    b.stage(1, "disk_io", t, t + disk_ms);
    b.stage(1, kMarkupStage, t + disk_ms, t + disk_ms + 1);
    b.stage(1, kFormulaStage, t + disk_ms + 1, t + disk_ms + 1.5);
    b.stage(1, kControlStage, t + disk_ms + 1.5, t + disk_ms + 2);
    const double g = t + disk_ms + 2;
    b.stage(1, "gpu_compute", g, g + gpu_ms);
    b.api(1, "cudaLaunchKernel", g + 0.01, g + 0.02, corr);
    b.gpu(format::GpuOpKind::Kernel, g + 0.05, g + gpu_ms - 0.2, corr, format::CopyKind::Unknown, "gemm<\"x\">");
    b.api(1, "cudaStreamSynchronize", g + 0.1, g + gpu_ms - 0.1, 100000 + corr);
    ++corr;
    // producer thread 2 makes item i, the driver consumes it at the step start
    b.stage(2, "cpu_preprocess", t, t + 1);
    b.mark(2, "produce", t + 1, i);
    b.mark(1, "consume", t + 1.2, i);
    t += step;
  }
  format::ThreadRec tr;
  tr.pid = 1;
  tr.tid = 1;
  tr.name = b.s("main <thread>");
  b.profile.records.threads.push_back(tr);
  format::ProcessRec pr;
  pr.pid = 1;
  pr.command = b.s("python train.py --name=\"<b>\"");
  b.profile.records.processes.push_back(pr);
  format::DiagRec d;
  d.pid = 1;
  d.key = b.s("dropped_records");
  d.count = 3;
  d.detail = b.s("buffer <full>");
  b.profile.records.diagnostics.push_back(d);
  b.profile.meta["command"] = "python train.py <script>";
  return b.profile;
}

}  // namespace amdahl::test
