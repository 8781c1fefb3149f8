// The one dispatch of the outputs (render.hpp): a Format picks the renderer.
#include "amdahl/render/render.hpp"

#include <stdexcept>

#include "amdahl/render/gpu_only_render.hpp"
#include "amdahl/text/escape.hpp"

namespace amdahl::render {
namespace {

[[noreturn]] void unsupported(Format f, const char* what) {
  static const char* const names[] = {"text", "json", "html", "markdown", "csv"};
  throw std::invalid_argument(std::string(what) + " has no " + names[static_cast<int>(f)] + " rendering");
}

}  // namespace

Format format_named(std::string_view name) {
  if (name == "text") return Format::Text;
  if (name == "json") return Format::Json;
  if (name == "html") return Format::Html;
  if (name == "markdown") return Format::Markdown;
  if (name == "csv") return Format::Csv;
  throw std::invalid_argument("unknown output format '" + std::string(name) + "'");
}

std::string json_text(const nlohmann::json& j) {
  nlohmann::json body = j;
  if (body.is_object()) body.erase("schema_version");
  std::string text = body.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  if (body.is_object()) {
    const std::string first = "{\n  \"schema_version\": " + std::to_string(kJsonSchemaVersion);
    text = body.empty() ? first + "\n}" : first + "," + text.substr(1);
  }
  return text::json_terminal_safe(text) + "\n";
}

std::string render(const analysis::Report& report, Format format, const std::optional<analysis::WhatIf>& whatif,
                   const RenderOptions& options) {
  switch (format) {
    case Format::Text: return report_to_text(report);
    case Format::Json: return json_text(report_to_json(report));
    case Format::Html: return render_html(report, whatif, options);
    case Format::Markdown: return render_markdown(report, whatif, options);
    case Format::Csv: return render_csv_steps(report);
  }
  unsupported(format, "the report");
}

std::string render(const analysis::GpuOnlyReport& report, Format format, const std::string& source) {
  switch (format) {
    case Format::Text: return gpu_only_to_text(report);
    case Format::Json: return json_text(gpu_only_to_json(report));
    case Format::Html: return render_gpu_only_html(report, source);
    case Format::Markdown: return render_gpu_only_markdown(report, source);
    case Format::Csv: return render_gpu_only_csv(report);
  }
  unsupported(format, "the GPU-only report");
}

std::string render(const analysis::Report& report, const std::optional<analysis::WhatIf>& whatif,
                   const analysis::RankWhatIf& ranks, Format format) {
  const analysis::WhatIf* w = whatif ? &*whatif : nullptr;
  if (format == Format::Json) {
    nlohmann::json j = w ? whatif_to_json(report, *w) : report_to_json(report);
    add_rank_whatif_json(j, report, ranks, w);
    return json_text(j);
  }
  if (format != Format::Text) unsupported(format, "a what-if");
  return report_to_text(report, false) + "\n" + (w ? whatif_to_text(report, *w) : "") +
         rank_whatif_text(report, ranks, w);
}

std::string render(const analysis::Report& base, const analysis::Report& improved, const analysis::Validation& v,
                   Format format) {
  if (format == Format::Json) return json_text(validation_to_json(base, improved, v));
  if (format != Format::Text) unsupported(format, "a validation");
  return validation_to_text(base, improved, v);
}

std::string render(const analysis::ProfileDiff& diff, Format format, const std::string& name_a,
                   const std::string& name_b) {
  if (format == Format::Json) return json_text(diff_to_json(diff));
  if (format != Format::Text) unsupported(format, "a diff");
  return diff_to_text(diff, name_a, name_b);
}

}  // namespace amdahl::render
