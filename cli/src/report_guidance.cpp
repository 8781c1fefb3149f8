// `amdahl report`'s guidance (report_guidance.hpp).
#include "report_guidance.hpp"

#include "amdahl/analysis/projections.hpp"
#include "option_parse.hpp"

namespace amdahl::cli {

std::vector<analysis::SpeedupRequest> parse_whatif_requests(const std::vector<std::string>& texts) {
  std::vector<analysis::SpeedupRequest> out;
  for (const auto& t : texts) out.push_back(parse_speedup(t));
  return out;
}

std::optional<analysis::WhatIf> add_report_guidance(analysis::Report& report, const std::string& format,
                                                    const std::string& profile_arg,
                                                    const std::vector<analysis::SpeedupRequest>& requests) {
  std::optional<analysis::WhatIf> w;
  const bool curves = format == "html";  // the HTML charts: their replays are reused below
  if (curves || !requests.empty()) {
    analysis::WhatIfOptions wo;
    wo.curves = curves;
    w = analysis::compute_whatif(report, requests, std::nullopt, wo);
  }
  analysis::GuidanceInputs in;
  in.profile_arg = profile_arg;
  in.user_whatif = w && !requests.empty() ? &*w : nullptr;
  in.projection.curves = w && curves ? &w->curves : nullptr;
  analysis::add_guidance(report, in);
  return w;
}

}  // namespace amdahl::cli
