// `amdahl stages run.amdahl [--stages FILE] [--format text|json] [-o FILE]`: every range name of
// the profile with the stage it went to, the rule that decided, its range count and total time
// (analysis/stage_mapping.hpp); the report shows the first few.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "amdahl/analysis/stage_mapping.hpp"
#include "commands.hpp"
#include "report_options.hpp"

namespace amdahl::cli {

void register_stages_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("stages", "which range names went to which stage, by which rule, with their time");
  add_report_options(*cmd, *opt, {"text", "json"});
  cmd->callback([opt, &exit_code] {
    const analysis::Report report = load_and_analyze(*opt);
    if (opt->format == "json") {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& m : report.stage_mapping)
        rows.push_back({{"domain", m.domain}, {"name", m.name}, {"target", m.target}, {"rule", m.rule},
                        {"pattern", m.pattern}, {"ranges", m.ranges}, {"total_ns", m.total_ns}});
      write_output(*opt, json_text(nlohmann::json{{"stage_mapping", std::move(rows)}}));
    } else {
      std::string out = "name                                     domain        -> stage            total ms     ranges  rule\n";
      char buf[512];
      for (const auto& m : report.stage_mapping) {
        std::snprintf(buf, sizeof buf, "%-40.40s %-13.13s -> %-16s %10.1f %10zu  %s%s%s\n", m.name.c_str(),
                      m.domain.empty() ? "(default)" : m.domain.c_str(), m.target.c_str(), m.total_ns / 1e6, m.ranges,
                      m.rule.c_str(), m.pattern.empty() ? "" : ": ", m.pattern.c_str());
        out += buf;
      }
      write_output(*opt, out);
    }
    exit_code = 0;
  });
}

}  // namespace amdahl::cli
