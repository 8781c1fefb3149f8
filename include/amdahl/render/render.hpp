// The one dispatch of the outputs: a Format picks the renderer, for each thing a command
// prints (the report, the GPU-only report, a what-if, a validation, a diff, the stage mapping).
// What each format shows: renderers.hpp, gpu_only_render.hpp and stages_render.hpp; the JSON
// document's text: json_text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdahl/analysis/gpu_only.hpp"
#include "amdahl/analysis/profile_diff.hpp"
#include "amdahl/analysis/rank_whatif.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/stage_mapping.hpp"
#include "amdahl/analysis/validate.hpp"
#include "amdahl/analysis/whatif.hpp"
#include "amdahl/render/renderers.hpp"

namespace amdahl::render {

enum class Format { Text, Json, Html, Markdown, Csv };

// "text", "json", "html", "markdown", "csv" (the --format values); throws std::invalid_argument
// for any other name (the CLI accepts only these).
Format format_named(std::string_view name);

// Every JSON document amdahl prints starts with "schema_version" (kJsonSchemaVersion,
// docs/json-schema.md: additive changes keep it, removals and renames bump it).
inline constexpr int kJsonSchemaVersion = 1;

// The text of a JSON output: indented, newline-terminated, "schema_version" first (the objects
// sort their keys, so the key is put first in the text); strings that are not UTF-8 (profiles
// keep NVTX names as recorded) get U+FFFD instead of making dump() throw; DEL and C1 controls,
// which the library leaves raw, are \u escapes (text::json_terminal_safe).
std::string json_text(const nlohmann::json& j);

// `amdahl report`: text, JSON, HTML, Markdown or CSV of the report (`whatif`, when given, is the
// what-if whose curves the HTML and Markdown reuse; `options.source` the profile's path).
std::string render(const analysis::Report& report, Format format,
                   const std::optional<analysis::WhatIf>& whatif = std::nullopt, const RenderOptions& options = {});

// `amdahl report` on a profile with GPU records and no ranges, in any of the five formats.
std::string render(const analysis::GpuOnlyReport& report, Format format, const std::string& source = {});

// `amdahl whatif`: JSON (the what-if's document, or the report's without one, plus the rank
// what-ifs) or text (the stage table without its notes, the what-if, the rank what-ifs).
// Throws std::invalid_argument for another format.
std::string render(const analysis::Report& report, const std::optional<analysis::WhatIf>& whatif,
                   const analysis::RankWhatIf& ranks, Format format);

// `amdahl validate`: JSON or text (another format: std::invalid_argument).
std::string render(const analysis::Report& base, const analysis::Report& improved, const analysis::Validation& v,
                   Format format);

// `amdahl diff`: JSON or text (another format: std::invalid_argument); the text names the runs.
std::string render(const analysis::ProfileDiff& diff, Format format, const std::string& name_a,
                   const std::string& name_b);

// `amdahl stages`: JSON or text of every range name's stage (another format:
// std::invalid_argument). Defined with its renderers in render/src/stages_render.cpp.
std::string render(const std::vector<analysis::StageMappingRow>& rows, Format format);

}  // namespace amdahl::render
