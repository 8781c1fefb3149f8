// The fuzzed entry points (see fuzz_entries.hpp).
#include "fuzz_entries.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/stage_rules.hpp"
#include "amdahl/analysis/whatif.hpp"
#include "amdahl/format/profile_store.hpp"
#include "amdahl/report/chrome_trace.hpp"
#include "amdahl/report/kineto_import.hpp"
#include "amdahl/report/renderers.hpp"

namespace amdahl::fuzz {
namespace {

// One scratch file per process (the loaders read paths, not memory), removed at exit.
const std::string& scratch_path(const char* suffix) {
  static const std::string dir = [] {
    const char* t = std::getenv("TMPDIR");
    return std::string(t && *t ? t : "/tmp");
  }();
  static std::string paths[2];
  static bool registered = false;
  std::string& p = paths[suffix[0] == 'a' ? 0 : 1];
  if (p.empty()) {
    p = dir + "/amdahl-fuzz-" + std::to_string(::getpid()) + "." + suffix;
    if (!registered) {
      registered = true;
      std::atexit([] {
        for (const std::string& q : paths)
          if (!q.empty()) ::unlink(q.c_str());
      });
    }
  }
  return p;
}

void write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();  // the harness itself failed: not an input problem
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  if (std::fclose(f) != 0) std::abort();
}

// The JSON text of `--format json`, as the CLI writes it (cli::json_text, cli/src/commands.hpp:
// names that are not UTF-8, which profiles keep as recorded, become U+FFFD).
std::string json_text(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

// What `amdahl report` (every format) and `whatif` (no request) do with a profile they loaded
// (cli/src/report_options.cpp: analysis columns only, the profile given up to analyze).
void analyze_and_render(format::Profile&& profile) {
  const analysis::Report report = analysis::analyze(std::move(profile), {});
  (void)analysis::report_to_text(report);
  (void)json_text(analysis::report_to_json(report));
  const analysis::WhatIf w = analysis::compute_whatif(report, {}, std::nullopt);
  (void)analysis::whatif_to_text(report, w);
  (void)json_text(analysis::whatif_to_json(report, w));
  const report::RenderOptions ro{"fuzz.amdahl"};
  (void)report::render_markdown(report, std::nullopt, ro);
  (void)report::render_csv_steps(report);
  (void)report::render_html(report, w, ro);
}

}  // namespace

void profile_loader(const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch_path("amdahl");
  write_file(path, data, size);
  try {  // amdahl report / whatif
    format::LoadOptions lo;
    lo.analysis_columns_only = true;
    analyze_and_render(format::load_profile(path, lo));
  } catch (const format::ProfileError&) {
  } catch (const analysis::InputError&) {
  } catch (const analysis::UsageError&) {
  }
  try {  // amdahl export --chrome: the whole profile
    const format::Profile profile = format::load_profile(path);
    std::ostringstream chrome;
    (void)report::write_chrome_trace(profile, chrome, {});
  } catch (const format::ProfileError&) {
  } catch (const analysis::InputError&) {
  } catch (const analysis::UsageError&) {
  }
}

void stage_rules(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const std::vector<analysis::StageRule> rules = analysis::parse_stage_rules(text, "fuzz.rules");
    for (const auto& a : rules) {
      for (const auto& b : rules) (void)analysis::glob_match(a.pattern, b.pattern);
      (void)analysis::glob_match(a.pattern, text.substr(0, 256));
    }
    const analysis::StageRules sr(rules, rules.empty() ? std::string("step") : rules.front().pattern);
    for (const char* name : {"step", "wait", "data_loader", "forward", "aten::mm", "ProfilerStep#3",
                             "enumerate(DataLoader)#_Iter.__next__", ""}) {
      (void)sr.classify("", name);
      (void)sr.classify("amdahl", name);
      (void)sr.classify("torch", name);
    }
    for (const auto& r : rules) (void)sr.classify("user", r.pattern);
  } catch (const analysis::UsageError&) {
  }
}

void kineto_import(const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch_path("json");
  write_file(path, data, size);
  try {
    report::KinetoImportStats st;
    format::Profile profile = report::import_kineto_file(path, {}, &st);
    const analysis::Report report = analysis::analyze(std::move(profile), {});
    (void)analysis::report_to_text(report);
    (void)json_text(analysis::report_to_json(report));
  } catch (const analysis::InputError&) {
  } catch (const analysis::UsageError&) {
  } catch (const format::ProfileError&) {
  }
}

}  // namespace amdahl::fuzz
