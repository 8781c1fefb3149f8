// The fuzzed entry points (see fuzz_entries.hpp).
#include "fuzz_entries.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <zlib.h>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/stage_rules.hpp"
#include "amdahl/analysis/validate.hpp"
#include "amdahl/analysis/whatif.hpp"
#include "amdahl/format/part_file.hpp"
#include "amdahl/format/profile_store.hpp"
#include "amdahl/export/chrome_trace.hpp"
#include "amdahl/import/kineto_import.hpp"
#include "amdahl/analysis/profile_diff.hpp"
#include "amdahl/render/render.hpp"

namespace amdahl::fuzz {
namespace {

// One scratch file per process and suffix (the loaders read paths, not memory), removed at exit.
const std::string& scratch_path(const std::string& suffix) {
  static const std::string dir = [] {
    const char* t = std::getenv("TMPDIR");
    return std::string(t && *t ? t : "/tmp");
  }();
  static std::map<std::string, std::string> paths;
  static bool registered = false;
  std::string& p = paths[suffix];
  if (p.empty()) {
    p = dir + "/amdahl-fuzz-" + std::to_string(::getpid()) + "." + suffix;
    if (!registered) {
      registered = true;
      std::atexit([] {
        for (const auto& [unused, q] : paths) ::unlink(q.c_str());
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

using render::json_text;  // the JSON text of `--format json`, as the CLI writes it (render.hpp)

// What `amdahl report` (every format) and `whatif` (no request) do with a profile they loaded
// (cli/src/report_options.cpp: analysis columns only, the profile given up to analyze).
void analyze_and_render(format::Profile&& profile) {
  const analysis::Report report = analysis::analyze(std::move(profile), {});
  (void)render::report_to_text(report);
  (void)json_text(render::report_to_json(report));
  const analysis::WhatIf w = analysis::compute_whatif(report, {}, std::nullopt);
  (void)render::whatif_to_text(report, w);
  (void)json_text(render::whatif_to_json(report, w));
  const render::RenderOptions ro{"fuzz.amdahl"};
  (void)render::render_markdown(report, std::nullopt, ro);
  (void)render::render_csv_steps(report);
  (void)render::render_html(report, w, ro);
}

// `amdahl import PATH` and the report of what it imported.
void import_and_analyze(const std::string& path) {
  try {
    kineto::KinetoImportStats st;
    format::Profile profile = kineto::import_kineto_file(path, {}, &st);
    const analysis::Report report = analysis::analyze(std::move(profile), {});
    (void)render::report_to_text(report);
    (void)json_text(render::report_to_json(report));
  } catch (const analysis::InputError&) {
  } catch (const analysis::UsageError&) {
  } catch (const format::ProfileError&) {
  }
}

// The bytes as one gzip member (level 1: the fuzzer's time goes to the parser, not to zlib).
std::string gzip(const std::uint8_t* data, std::size_t size) {
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&z, static_cast<uLong>(size)) + 32, '\0');
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();  // the harness itself failed
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
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
    (void)chrome::write_chrome_trace(profile, chrome, {});
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
  import_and_analyze(path);
}

void kineto_import_gzip(const std::uint8_t* data, std::size_t size) {
  const std::string gz = gzip(data, size);
  const std::string& path = scratch_path("json.gz");
  write_file(path, reinterpret_cast<const std::uint8_t*>(gz.data()), gz.size());
  import_and_analyze(path);
}

void part_file(const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch_path("amdpart");
  write_file(path, data, size);
  format::RecordSet part;
  try {
    part = format::read_part(path);
  } catch (const format::PartError&) {
    return;  // amdahl profile: the part is rejected with a diagnostic
  }
  try {  // amdahl profile: merged (alone, and twice: two parts of one pid), saved, then reported
    (void)format::merge_parts({part});
    format::Profile profile;
    profile.records = format::merge_parts({part, part});
    profile.meta["command"] = "fuzz";
    const std::string& saved = scratch_path("part.amdahl");
    format::save_profile(profile, saved, true);
    format::LoadOptions lo;
    lo.analysis_columns_only = true;
    analyze_and_render(format::load_profile(saved, lo));
  } catch (const format::ProfileError&) {
  } catch (const analysis::InputError&) {
  } catch (const analysis::UsageError&) {
  }
}

void two_profiles(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = all.find(kProfileSeparator);
  const std::string_view a = cut == std::string_view::npos ? all : all.substr(0, cut);
  const std::string_view b = cut == std::string_view::npos ? all : all.substr(cut + kProfileSeparator.size());
  const std::string& path_a = scratch_path("a.amdahl");
  const std::string& path_b = scratch_path("b.amdahl");
  write_file(path_a, reinterpret_cast<const std::uint8_t*>(a.data()), a.size());
  write_file(path_b, reinterpret_cast<const std::uint8_t*>(b.data()), b.size());
  try {  // what `amdahl diff` and `amdahl validate` do (cli/src/diff_command.cpp, validate_command.cpp)
    format::LoadOptions lo;
    lo.analysis_columns_only = true;
    const analysis::Report ra = analysis::analyze(format::load_profile(path_a, lo), {});
    const analysis::Report rb = analysis::analyze(format::load_profile(path_b, lo), {});
    const analysis::ProfileDiff d = analysis::diff_reports(ra, rb);
    (void)json_text(render::diff_to_json(d));
    (void)render::diff_to_text(d, "a.amdahl", "b.amdahl");
    for (const bool all_stages : {false, true}) {
      analysis::ValidateOptions vo;
      vo.all_stages = all_stages;
      const analysis::Validation v = analysis::validate_runs(ra, rb, vo);
      (void)json_text(render::validation_to_json(ra, rb, v));
      (void)render::validation_to_text(ra, rb, v);
    }
  } catch (const format::ProfileError&) {
  } catch (const analysis::InputError&) {
  } catch (const analysis::UsageError&) {
  }
}

}  // namespace amdahl::fuzz
