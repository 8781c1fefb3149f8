// Parsing of the GPU trace window (see step_window.hpp).
#include "step_window.hpp"

namespace amdahl::profiler {
namespace {
std::optional<std::uint64_t> parse_count(std::string_view s) noexcept {
  if (s.empty() || s.size() > 18) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}
}  // namespace

std::optional<StepWindow> parse_step_window(std::string_view text) noexcept {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto from = parse_count(text.substr(0, colon));
  const auto to = parse_count(text.substr(colon + 1));
  if (!from || !to || *to <= *from) return std::nullopt;
  return StepWindow{*from, *to};
}

}  // namespace amdahl::profiler
