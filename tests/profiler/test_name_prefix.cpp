// The intern cache's hit test (profiler/src/name_prefix.hpp): a 16-byte masked compare, strcmp
// past 16 bytes, and no load across a page end (a name in the last bytes of a page whose next
// page is unmapped must not fault).
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "name_prefix.hpp"

using amdahl::profiler::make_name_prefix;
using amdahl::profiler::name_matches;

namespace {

// s in a 64-byte buffer whose bytes past the NUL are `fill` (what an over-read would see).
bool matches_in_buffer(const std::string& cached, const std::string& s, char fill) {
  char buf[64];
  std::memset(buf, fill, sizeof buf);
  std::memcpy(buf, s.c_str(), s.size() + 1);
  const auto p = make_name_prefix(cached.c_str());
  return name_matches(p, cached.c_str(), buf);
}

}  // namespace

TEST_CASE("a name matches itself and nothing else, whatever lies past its NUL") {
  const std::string names[] = {"", "a", "step", "forward", "fifteen-chars-x", "sixteen-chars-xy",
                               "seventeen-chars-x", "a-name-of-thirty-one-characters",
                               "optimizer_step#AdamW.step"};
  for (const auto& a : names) {
    for (const auto& b : names) {
      for (char fill : {'\0', 'x', '\x7f', '\xff'}) {
        CAPTURE(a);
        CAPTURE(b);
        CAPTURE(static_cast<int>(fill));
        CHECK(matches_in_buffer(a, b, fill) == (a == b));
      }
    }
  }
}

TEST_CASE("names that differ only at byte 15, at byte 16 or in their tail") {
  const std::string base = "abcdefghijklmnopqrstuvwxyz";
  for (std::size_t len = 1; len <= base.size(); ++len) {
    const std::string a = base.substr(0, len);
    for (std::size_t at = 0; at < len; ++at) {
      std::string b = a;
      b[at] = '#';
      CAPTURE(len);
      CAPTURE(at);
      CHECK_FALSE(matches_in_buffer(a, b, 'q'));
      CHECK(matches_in_buffer(a, a, 'q'));
    }
    // One character longer or shorter: the NUL is part of the compare.
    CHECK_FALSE(matches_in_buffer(a, a + "z", '\0'));
    CHECK_FALSE(matches_in_buffer(a + "z", a, 'z'));
  }
}

TEST_CASE("a name at a page's end is compared without reading the next page") {
  const long page = sysconf(_SC_PAGESIZE);
  REQUIRE(page >= 4096);
  void* mem = mmap(nullptr, static_cast<std::size_t>(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  REQUIRE(mem != MAP_FAILED);
  char* base = static_cast<char*>(mem);
  REQUIRE(mprotect(base + page, static_cast<std::size_t>(page), PROT_NONE) == 0);  // a load there faults
  for (const std::string name : {"s", "step", "fifteen-chars-x", "a-name-of-thirty-one-characters"}) {
    for (std::size_t gap = 0; gap <= 20; ++gap) {  // the NUL at the page's last byte, then earlier
      char* s = base + page - static_cast<long>(name.size() + 1 + gap);
      std::memcpy(s, name.c_str(), name.size() + 1);
      const auto p = make_name_prefix(name.c_str());
      CAPTURE(name);
      CAPTURE(gap);
      CHECK(name_matches(p, name.c_str(), s));
      const auto other = make_name_prefix("other");
      CHECK_FALSE(name_matches(other, "other", s));
    }
  }
  munmap(mem, static_cast<std::size_t>(2 * page));
}
