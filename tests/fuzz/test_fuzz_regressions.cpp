// Replays the fuzzing inputs through the fuzzed entry points (fuzz_entries.hpp) in the normal
// build: tests/fuzz/regressions/<target>/* (inputs that crashed a target once; each is fixed)
// and the seed corpora tests/fuzz/corpus/<target>/*. Passing means: no crash, no sanitizer
// report (in the sanitizer builds), no exception other than the documented bad-input errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_entries.hpp"

namespace fs = std::filesystem;

namespace {

fs::path fuzz_dir() {
  const char* src = std::getenv("AMDAHL_SOURCE_DIR");
  return fs::path(src ? src : AMDAHL_FUZZ_SOURCE_DIR_FALLBACK) / "tests" / "fuzz";
}

std::vector<fs::path> inputs(const std::string& kind, const std::string& target) {
  std::vector<fs::path> out;
  const fs::path dir = fuzz_dir() / kind / target;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class Entry>
std::size_t replay(const std::string& target, Entry entry) {
  std::size_t n = 0;
  for (const char* kind : {"regressions", "corpus"}) {
    for (const fs::path& p : inputs(kind, target)) {
      CAPTURE(p.string());
      const std::vector<std::uint8_t> bytes = read_bytes(p);
      CHECK_NOTHROW(entry(bytes.data(), bytes.size()));
      ++n;
    }
  }
  return n;
}

}  // namespace

TEST_CASE("fuzz regressions and seeds: profile loader") {
  CHECK(replay("profile_loader", amdahl::fuzz::profile_loader) > 0);
}

TEST_CASE("fuzz regressions and seeds: stage rules") {
  CHECK(replay("stage_rules", amdahl::fuzz::stage_rules) > 0);
}

TEST_CASE("fuzz regressions and seeds: Kineto import") {
  CHECK(replay("kineto_import", amdahl::fuzz::kineto_import) > 0);
}

TEST_CASE("fuzz regressions and seeds: Kineto import behind gzip") {
  CHECK(replay("kineto_import_gzip", amdahl::fuzz::kineto_import_gzip) > 0);
}

TEST_CASE("fuzz regressions and seeds: part files") {
  CHECK(replay("part_file", amdahl::fuzz::part_file) > 0);
}

TEST_CASE("fuzz regressions and seeds: two profiles (diff, validate)") {
  CHECK(replay("two_profiles", amdahl::fuzz::two_profiles) > 0);
}
