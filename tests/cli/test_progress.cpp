// The progress line (cli/src/progress.hpp) as a unit, with a fake clock: nothing before the
// delay, throttled to one draw per interval, at once on a new phase, erased by clear(), never
// when disabled.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "progress.hpp"

using amdahl::cli::ProgressLine;

namespace {

// A memory stream and a clock the test moves.
struct Sink {
  char* buf = nullptr;
  std::size_t size = 0;
  std::FILE* f = ::open_memstream(&buf, &size);
  std::int64_t now = 0;
  ~Sink() {
    std::fclose(f);
    std::free(buf);
  }
  std::string text() {
    std::fflush(f);
    return std::string(buf, size);
  }
};

}  // namespace

TEST_CASE("nothing is drawn before the delay") {
  Sink s;
  ProgressLine p(s.f, true, [&] { return s.now; }, 1000, 100);
  for (s.now = 0; s.now < 1000; s.now += 10) p.update("loading profile", static_cast<std::uint64_t>(s.now) * 1000, "events");
  CHECK(p.draws() == 0);
  CHECK(s.text().empty());
  p.clear();  // nothing shown: nothing to erase
  CHECK(s.text().empty());
}

TEST_CASE("after the delay: one draw per interval, and at once on a new phase") {
  Sink s;
  ProgressLine p(s.f, true, [&] { return s.now; }, 1000, 100);
  s.now = 1000;
  p.update("loading profile", 3'200'000, "events");
  CHECK(p.draws() == 1);
  CHECK(s.text() == "\ramdahl: loading profile\u2026 3.2 M events\x1b[K");
  for (int i = 0; i < 99; ++i) {  // 99 updates within 99 ns < interval: no draw
    ++s.now;
    p.update("loading profile", 3'200'000 + static_cast<std::uint64_t>(i), "events");
  }
  CHECK(p.draws() == 1);
  s.now = 1100;
  p.update("loading profile", 4'000'000, "events");
  CHECK(p.draws() == 2);
  s.now = 1101;
  p.update("analysing");  // a new phase is drawn at once, without a count
  CHECK(p.draws() == 3);
  CHECK(s.text().size() > 0);
  CHECK(s.text().substr(s.text().rfind('\r')) == "\ramdahl: analysing\u2026\x1b[K");
  p.clear();
  CHECK(!p.shown());
  CHECK(s.text().substr(s.text().size() - 4) == "\r\x1b[K");
  const std::size_t size = s.text().size();
  p.clear();  // once only
  CHECK(s.text().size() == size);
}

TEST_CASE("a phase first seen before the delay is drawn once the delay has passed") {
  Sink s;
  ProgressLine p(s.f, true, [&] { return s.now; }, 1000, 100);
  p.update("analysing");
  CHECK(p.draws() == 0);
  s.now = 1500;
  p.update("analysing");
  CHECK(p.draws() == 1);
}

TEST_CASE("disabled (stderr not a terminal, --quiet): never drawn, never erased") {
  Sink s;
  {
    ProgressLine p(s.f, false, [&] { return s.now; }, 0, 0);
    for (s.now = 0; s.now < 5000; s.now += 50) p.update("writing trace", 70000, "events");
    CHECK(p.draws() == 0);
  }
  CHECK(s.text().empty());
}

TEST_CASE("counts read as people say them") {
  CHECK(amdahl::cli::count_text(950) == "950");
  CHECK(amdahl::cli::count_text(12'345) == "12.3 k");
  CHECK(amdahl::cli::count_text(3'210'000) == "3.2 M");
  CHECK(amdahl::cli::count_text(7'500'000'000ULL) == "7.5 G");
}
