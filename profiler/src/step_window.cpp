// Parsing of the GPU trace window (see step_window.hpp).
#include "step_window.hpp"

#include "gpu_schedule.hpp"

namespace amdahl::profiler {

std::optional<StepWindow> parse_step_window(std::string_view text) noexcept {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto from = parse_count(text.substr(0, colon));
  const auto to = parse_count(text.substr(colon + 1));
  if (!from || !to || *to <= *from) return std::nullopt;
  return StepWindow{*from, *to};
}

}  // namespace amdahl::profiler
