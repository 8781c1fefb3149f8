// The process's string table: interning (one lock, a deque of stable strings and an index by
// content), the per-thread pointer-keyed cache in front of it, and the snapshot the part writer
// takes.
#include <cstring>

#include "collector_core_internal.hpp"

namespace amdahl::profiler {
namespace detail {

void string_table_init() noexcept {
  Core& c = core();
  c.strings.emplace_back();  // id 0 is ""
  c.string_ids.emplace(std::string_view(c.strings.front()), format::kNoString);
}

format::StrId intern_with_text(std::string_view s, const std::string** text) noexcept {
  Core& c = core();
  try {
    std::lock_guard<std::mutex> lock(c.strings_mu);
    auto it = c.string_ids.find(s);
    if (it != c.string_ids.end()) {
      if (text != nullptr) *text = &c.strings[it->second];
      return it->second;
    }
    const auto id = static_cast<format::StrId>(c.strings.size());
    c.strings.emplace_back(s);
    c.string_ids.emplace(std::string_view(c.strings.back()), id);
    if (text != nullptr) *text = &c.strings.back();
    return id;
  } catch (...) {
    if (text != nullptr) *text = &c.strings.front();
    return format::kNoString;
  }
}

format::StrId intern_cached_slow(ThreadState* ts, const char* s) noexcept {
  if (s == nullptr || *s == '\0') return format::kNoString;
  InternCacheEntry& e = intern_slot(ts, s);
  const std::string* text = nullptr;
  const format::StrId id = intern_with_text(std::string_view(s), &text);
  e.ptr = s;
  e.text = text->c_str();
  e.prefix = make_name_prefix(e.text);
  e.id = id;
  return id;
}

std::vector<std::string> strings_snapshot() {
  std::lock_guard<std::mutex> lock(core().strings_mu);
  return {core().strings.begin(), core().strings.end()};
}

}  // namespace detail

format::StrId intern(std::string_view s) noexcept {
  if (s.empty() || detail::g_core == nullptr) return format::kNoString;
  return detail::intern_with_text(s, nullptr);
}

}  // namespace amdahl::profiler
