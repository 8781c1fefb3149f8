// Issue 18, class 13: `amdahl_gen_profile --help` wrote a 557 MB profile named `--help`. It now
// parses its arguments: --help prints the usage and exits 0, an unknown option is refused with
// exit 1, and in neither case is a file written.
#include <doctest/doctest.h>

#include <filesystem>

#include "../support/cli_support.hpp"

namespace fs = std::filesystem;

namespace {

struct Dir {
  fs::path dir;
  std::string gen;
  Dir() {
    gen = amdahl::test::build_dir() + "/bin/amdahl_gen_profile";
    if (!fs::exists(gen)) {
      std::fprintf(stderr, "SKIP: %s not built\n", gen.c_str());
      std::exit(77);
    }
    std::string tmpl = (fs::temp_directory_path() / "amdahl_gen_XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
  }
  ~Dir() { fs::remove_all(dir); }
  // Runs the generator in the temporary directory (where a stray `--help` file would land).
  amdahl::test::CmdResult run(const std::string& args) const {
    return amdahl::test::shell("cd " + dir.string() + " && " + gen + " " + args);
  }
  std::size_t entries() const {
    std::size_t n = 0;
    for (auto it = fs::directory_iterator(dir); it != fs::directory_iterator(); ++it) ++n;
    return n;
  }
};

}  // namespace

TEST_CASE("amdahl_gen_profile --help prints the usage, exits 0 and writes nothing") {
  Dir d;
  for (const char* help : {"--help", "-h"}) {
    CAPTURE(help);
    const auto r = d.run(help);
    CHECK(r.rc == 0);
    CHECK(r.out.find("out") != std::string::npos);
    CHECK(r.out.find("events") != std::string::npos);
    CHECK(d.entries() == 0);
  }
}

TEST_CASE("amdahl_gen_profile refuses unknown options and bad counts with exit 1, writing nothing") {
  Dir d;
  for (const char* args : {"--bogus", "-x out.amdahl", "out.amdahl --events=5", "out.amdahl 0", "out.amdahl abc",
                           "out.amdahl 5 6", ""}) {
    CAPTURE(args);
    const auto r = d.run(args);
    CHECK(r.rc == 1);
    CHECK(r.err.find("error") != std::string::npos);
    CHECK(d.entries() == 0);
  }
}

TEST_CASE("amdahl_gen_profile still writes the profile it is asked for") {
  Dir d;
  const auto r = d.run("small.amdahl 2000");
  CHECK(r.rc == 0);
  CHECK(fs::exists(d.dir / "small.amdahl"));
  CHECK(d.entries() == 1);
}
