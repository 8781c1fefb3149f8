// Issue 18, class 7 (confident wrong answers from impossible records), through the built
// binary on profiles forged with SQLite. Before: a range ending before it started was dropped
// silently (its stage vanished into `other`, exit 0); a NULL timestamp read as 0; one range over
// the whole 64-bit time put every exported event at 0; a step at the largest time gave a
// 292-year window; a name id past the string table read as an empty name. Now the first is
// counted (analysis diagnostics, shown in text and JSON) and the others are a corrupt profile
// (exit 2, one line).
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "../analysis/profile_builder.hpp"
#include "amdahl/format/profile_store.hpp"
#include "../support/cli_support.hpp"

namespace fs = std::filesystem;
using namespace amdahl;
using test::run_amdahl;

namespace {

struct Dir : test::CliTempDir {
  Dir() : CliTempDir("amdahl_impossible") {}
};

// 6 steps of 10 ms on thread 1: disk_io 4 ms, decode 3 ms. With `reversed`, decode's range in
// steps 2 and 4 ends before it starts.
format::Profile fixture(bool reversed = false) {
  test::ProfileBuilder b;
  for (int i = 0; i < 6; ++i) {
    const double t = i * 10.0;
    b.stage(1, "step", t, t + 10);
    b.stage(1, "disk_io", t, t + 4);
    if (reversed && (i == 2 || i == 4)) b.stage(1, "decode", t + 7, t + 4);
    else b.stage(1, "decode", t + 4, t + 7);
  }
  return b.profile;
}

// Runs SQL on a saved profile (to forge what no writer produces).
void sql(const std::string& path, const std::string& statement) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &err);
  CAPTURE(statement);
  CAPTURE(err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

std::string saved(const Dir& d, const std::string& name, const std::string& forge = "") {
  const std::string path = d.p(name);
  format::save_profile(fixture(), path, true);
  if (!forge.empty()) sql(path, forge);
  return path;
}

bool one_error_line(const test::CmdResult& r) {
  return r.err.rfind("amdahl: error: ", 0) == 0 && r.err.find('\n') == r.err.size() - 1;
}

// report, whatif and export of `path` each exit 2 with one "is corrupt" line naming `what`.
void check_corrupt(const Dir& d, const std::string& path, const std::string& what) {
  for (const std::string& cmd : {"report " + path, "report " + path + " --format json",
                                 "whatif " + path + " --speedup disk_io=2", "export " + path + " --chrome " + d.p("t.json")}) {
    CAPTURE(cmd);
    const auto r = run_amdahl(cmd);
    CAPTURE(r.err);
    CHECK(r.rc == 2);
    CHECK(one_error_line(r));
    CHECK(r.err.find("is corrupt") != std::string::npos);
    CHECK(r.err.find(what) != std::string::npos);
    CHECK(r.out.empty());
  }
  CHECK_FALSE(fs::exists(d.p("t.json")));
}

const std::string kMax = std::to_string(std::numeric_limits<std::int64_t>::max());
const std::string kMin = std::to_string(std::numeric_limits<std::int64_t>::min());

}  // namespace

TEST_CASE("ranges that end before they start are counted and shown, not dropped silently") {
  Dir d;
  const std::string path = d.p("reversed.amdahl");
  format::save_profile(fixture(true), path, true);
  const auto text = run_amdahl("report " + path);
  CAPTURE(text.err);
  REQUIRE(text.rc == 0);
  CHECK(text.out.find("analysis.range_ends_before_start = 2") != std::string::npos);
  CHECK(text.out.find("'decode'") != std::string::npos);
  const auto js = run_amdahl("report " + path + " --format json");
  REQUIRE(js.rc == 0);
  const auto j = nlohmann::json::parse(js.out);
  bool found = false;
  for (const auto& diag : j["diagnostics"])
    if (diag["key"] == "analysis.range_ends_before_start") {
      found = true;
      CHECK(diag["count"] == 2);
    }
  CHECK(found);
  // A profile without such ranges has no such diagnostic.
  const auto clean = run_amdahl("report " + saved(d, "clean.amdahl"));
  REQUIRE(clean.rc == 0);
  CHECK(clean.out.find("ends_before_start") == std::string::npos);
}

TEST_CASE("a NULL timestamp is a corrupt profile, not time 0") {
  Dir d;
  // The schema says NOT NULL: rebuild the table without it (views dropped first), as a tool
  // or a hand edit could.
  std::string drop_views;
  {
    const std::string path = saved(d, "probe.amdahl");
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'view'", -1, &st, nullptr) == SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW)
      drop_views += std::string("DROP VIEW ") + reinterpret_cast<const char*>(sqlite3_column_text(st, 0)) + ";";
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  for (const std::string column : {"start_ns", "end_ns"}) {
    CAPTURE(column);
    const std::string path = saved(d, "null_" + column + ".amdahl",
                                   drop_views + "CREATE TABLE r2 AS SELECT * FROM ranges; DROP TABLE ranges; "
                                                "ALTER TABLE r2 RENAME TO ranges; UPDATE ranges SET " + column +
                                                " = NULL WHERE id = 3;");
    check_corrupt(d, path, "ranges." + column + " is NULL (row id 3)");
  }
}

TEST_CASE("a range over the whole 64-bit time is a corrupt profile, not an export at time 0") {
  Dir d;
  check_corrupt(d, saved(d, "whole.amdahl", "UPDATE ranges SET start_ns = " + kMin + ", end_ns = " + kMax + " WHERE id = 1;"),
                "no clock's time");
  check_corrupt(d, saved(d, "to_max.amdahl", "UPDATE ranges SET start_ns = 0, end_ns = " + kMax + " WHERE id = 1;"),
                "no clock's time");
}

TEST_CASE("a step at the largest time is a corrupt profile, not a 292-year window") {
  Dir d;
  // The last step (range id 15: 3 ranges per step) moved to the end of the 64-bit time...
  check_corrupt(d,
                saved(d, "max_step.amdahl",
                      "UPDATE ranges SET start_ns = " + kMax + " - 10000000, end_ns = " + kMax + " WHERE id = 15;"),
                "no clock's time");
  // ... or to 2^61 ns (73 years: within the clock's range, but no run spans that).
  check_corrupt(d,
                saved(d, "far_step.amdahl",
                      "UPDATE ranges SET start_ns = 2305843009213693952, end_ns = 2305843009223693952 WHERE id = 15;"),
                "no run lasts that long");
}

TEST_CASE("a name id past the string table is a corrupt profile, not an empty name") {
  Dir d;
  check_corrupt(d, saved(d, "name.amdahl", "UPDATE ranges SET name_id = 999999 WHERE id = 1;"),
                "ranges.name_id 999999 (row id 1) is past the string table");
  check_corrupt(d, saved(d, "domain.amdahl", "UPDATE ranges SET domain_id = 4294967295 WHERE id = 2;"),
                "ranges.domain_id 4294967295");
}
