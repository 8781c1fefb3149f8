// The intern cache's hit test without a strcmp call (issue 20, item 3: nvtxRangePushA's name).
// A cached name keeps its first 16 bytes and a mask of those that belong to it (up to and
// including its NUL); a hit loads 16 bytes from the caller's pointer and compares them under the
// mask, and only a name longer than that compares its rest with strcmp. The load may read past
// the caller's NUL, so it is done only where all 16 bytes lie in the page of the first one (a
// mapped, readable page: protection is per page), and never under the sanitizers, which would
// report the bytes past the NUL (memcheck-style tools would too: amdahl's own tests run ASan and
// TSan, where strcmp is used instead). Pure and header-only: tests/profiler/test_name_prefix.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define AMDAHL_NAME_PREFIX_LOADS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define AMDAHL_NAME_PREFIX_LOADS 0
#endif
#endif
#ifndef AMDAHL_NAME_PREFIX_LOADS
#define AMDAHL_NAME_PREFIX_LOADS 1
#endif

namespace amdahl::profiler {

struct NamePrefix {
  std::uint64_t bytes[2] = {0, 0};  // the name's first 16 bytes, zero past its NUL
  std::uint64_t mask[2] = {0, 0};   // 0xff for each of them that is the name's (its NUL included)
  bool tail = false;                // the name goes on past 16 bytes (the rest by strcmp)
};

inline NamePrefix make_name_prefix(const char* text) noexcept {
  NamePrefix p;
  const std::size_t n = std::strlen(text) + 1;
  const std::size_t k = n < 16 ? n : 16;
  unsigned char b[16] = {}, m[16] = {};
  std::memcpy(b, text, k);
  std::memset(m, 0xff, k);
  std::memcpy(p.bytes, b, sizeof b);
  std::memcpy(p.mask, m, sizeof m);
  p.tail = n > 16;
  return p;
}

// Whether the NUL-terminated s has the text of `text`, p being make_name_prefix(text).
inline bool name_matches(const NamePrefix& p, const char* text, const char* s) noexcept {
#if AMDAHL_NAME_PREFIX_LOADS
  constexpr std::uintptr_t kPage = 4096;  // the smallest page size: safe on larger pages too
  if ((reinterpret_cast<std::uintptr_t>(s) & (kPage - 1)) <= kPage - 16) [[likely]] {
    std::uint64_t a = 0, b = 0;
    std::memcpy(&a, s, 8);
    std::memcpy(&b, s + 8, 8);
    if ((((a ^ p.bytes[0]) & p.mask[0]) | ((b ^ p.bytes[1]) & p.mask[1])) != 0) return false;
    return !p.tail || std::strcmp(s + 16, text + 16) == 0;
  }
#else
  static_cast<void>(p);
#endif
  return std::strcmp(s, text) == 0;
}

}  // namespace amdahl::profiler
