// The fuzzed entry points (issue #8), shared by the libFuzzer targets (fuzz_*.cpp, clang) and
// the regression test (test_fuzz_regressions.cpp, the normal build), so that each input that
// once crashed a target is replayed through exactly the same code in ctest.
//
// Each function feeds `data` to one of amdahl's input parsers the way the CLI does, then
// analyses and renders what it accepted. The project's documented bad-input errors
// (format::ProfileError, analysis::InputError, analysis::UsageError) are the expected outcome
// of bad input and are caught here; anything else (a crash, a sanitizer report, any other
// exception, std::bad_alloc included) escapes and is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace amdahl::fuzz {

// The bytes as a .amdahl file: format::load_profile of the analysis columns, then analyze (the
// profile moved in), the text / JSON / Markdown / CSV / HTML reports and the what-if (what
// `amdahl report` / `whatif` do); and the whole load with the Chrome trace export (`export`).
void profile_loader(const std::uint8_t* data, std::size_t size);

// The bytes as a `--stages FILE` rule file: parse_stage_rules, then the rules (with the
// defaults) classifying a few names, and each pattern matched against the other patterns.
void stage_rules(const std::uint8_t* data, std::size_t size);

// The bytes as a Kineto trace file (`amdahl import`; plain JSON or gzip): import_kineto_file,
// then the analysis of the imported profile (what `amdahl report` of the import gives).
void kineto_import(const std::uint8_t* data, std::size_t size);

// The bytes as the JSON of a gzip-compressed trace: the entry gzips them (one member, level 1)
// and imports the .json.gz file as kineto_import does, so that the mutations reach the JSON
// behind the gzip layer (kineto_import's own gzip inputs mostly fail the CRC).
void kineto_import_gzip(const std::uint8_t* data, std::size_t size);

// The bytes as a collector part file (`.amdpart`, what `amdahl profile` merges): read_part (the
// decoding and record checks), then, if accepted, merge_parts of it alone and of it twice,
// save_profile, and the report of the saved profile (load_profile, analyze, every renderer).
void part_file(const std::uint8_t* data, std::size_t size);

// The bytes as two profiles, split at the first kProfileSeparator (without one: the same bytes
// twice): both loaded and analysed as `amdahl diff` / `amdahl validate` do, then diff_reports
// with its JSON and text, and validate_runs (default and --all-stages) with its JSON and text.
inline constexpr std::string_view kProfileSeparator = "\n--amdahl-fuzz-second-profile--\n";
void two_profiles(const std::uint8_t* data, std::size_t size);

}  // namespace amdahl::fuzz
