// The GPU-only report (analysis/gpu_only.hpp: a profile with GPU records and no ranges) as JSON,
// text, HTML, Markdown and CSV. The HTML and Markdown show what the text shows; the CSV is the
// kernel table.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "amdahl/analysis/gpu_only.hpp"

namespace amdahl::render {

nlohmann::json gpu_only_to_json(const analysis::GpuOnlyReport& report);
std::string gpu_only_to_text(const analysis::GpuOnlyReport& report);

// One self-contained page (no script, no external resource); `source` is the profile's path.
std::string render_gpu_only_html(const analysis::GpuOnlyReport& report, const std::string& source = {});
std::string render_gpu_only_markdown(const analysis::GpuOnlyReport& report, const std::string& source = {});
// CSV (RFC 4180, CRLF): header `kernel,count,total_ns,share_of_kernel_time`, one row per top kernel.
std::string render_gpu_only_csv(const analysis::GpuOnlyReport& report);

}  // namespace amdahl::render
