// Lists in a sentence: the one home of render's "a, b, c" (findings and problems alike).
#pragma once

#include <string>
#include <vector>

namespace amdahl::render::detail {

// The names joined with ", ": {"a", "b"} -> "a, b"; none -> "".
inline std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& s : names) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace amdahl::render::detail
