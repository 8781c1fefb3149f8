// Hardening of a connection that reads a profile (profile_guard.hpp): limits, pragmas, the
// schema check and the time budget.
#include "profile_guard.hpp"

#include <cstdlib>
#include <set>
#include <string_view>

#include "amdahl/format/profile_store.hpp"
#include "profile_schema.hpp"

namespace amdahl::format::detail {
namespace {

int progress(void* arg) {
  auto* d = static_cast<LoadDeadline*>(arg);
  if (std::chrono::steady_clock::now() < d->at) return 0;
  d->expired = true;
  return 1;  // interrupts the statement: SQLITE_INTERRUPT
}

// The names of the views kViewsSql creates.
std::set<std::string> format_views() {
  std::set<std::string> out;
  const std::string_view sql = kViewsSql;
  constexpr std::string_view kCreate = "CREATE VIEW ";
  for (std::size_t at = sql.find(kCreate); at != std::string_view::npos; at = sql.find(kCreate, at + 1)) {
    const std::size_t b = at + kCreate.size();
    const std::size_t e = sql.find(' ', b);
    out.emplace(sql.substr(b, e - b));
  }
  return out;
}

}  // namespace

LoadDeadline LoadDeadline::for_file(std::int64_t file_size) {
  double s = 120.0 + static_cast<double>(file_size) / 10e6;
  if (const char* env = std::getenv("AMDAHL_LOAD_TIMEOUT_S"); env && *env) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end && *end == '\0' && v > 0 && v < 1e7) s = v;
  }
  LoadDeadline d;
  d.at = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                std::chrono::duration<double>(s));
  d.seconds = s;
  return d;
}

void harden_reading_connection(Db& db, LoadDeadline& deadline) {
  sqlite3* h = db.get();
  // Bounds on what the schema and the rows may make SQLite build. The format's own statements
  // stay far below each (18 columns, short SQL, no deep expressions).
  sqlite3_limit(h, SQLITE_LIMIT_LENGTH, kMaxValueBytes);
  sqlite3_limit(h, SQLITE_LIMIT_SQL_LENGTH, 100'000);
  sqlite3_limit(h, SQLITE_LIMIT_COLUMN, 100);
  sqlite3_limit(h, SQLITE_LIMIT_EXPR_DEPTH, 50);
  sqlite3_limit(h, SQLITE_LIMIT_COMPOUND_SELECT, 10);
  sqlite3_limit(h, SQLITE_LIMIT_VDBE_OP, 25'000);
  sqlite3_limit(h, SQLITE_LIMIT_FUNCTION_ARG, 8);
  sqlite3_limit(h, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_limit(h, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100);
  sqlite3_limit(h, SQLITE_LIMIT_VARIABLE_NUMBER, 100);
  sqlite3_limit(h, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
  sqlite3_db_config(h, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
  sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_progress_handler(h, 1000, progress, &deadline);
  db.exec("PRAGMA trusted_schema=OFF; PRAGMA cell_size_check=ON; PRAGMA query_only=ON;");
}

void check_profile_schema(const Db& db, const std::string& path) {
  const std::set<std::string> views = format_views();
  auto refuse = [&](const std::string& why) {
    throw ProfileError(path + " is not an amdahl profile: its schema has " + why +
                       ", which the profile format does not define (refused: SQLite would run it while reading)");
  };
  std::set<std::string> tables;
  {
    Stmt st(db, "SELECT type, name, sql FROM sqlite_master");
    while (st.next()) {
      const std::string type = st.str(0), name = st.str(1), sql = st.str(2);
      if (type == "trigger") refuse("a trigger '" + name + "'");
      if (type == "view" && !views.count(name)) refuse("a view '" + name + "'");
      if (type == "table") {
        if (sql.size() >= 14 && sqlite3_strnicmp(sql.c_str(), "CREATE VIRTUAL", 14) == 0)
          refuse("a virtual table '" + name + "'");
        tables.insert(name);
      }
    }
  }
  for (const std::string& t : tables) {
    if (t.rfind("sqlite_", 0) == 0) continue;
    // table_xinfo's `hidden`: 2 = virtual generated column, 3 = stored generated column.
    Stmt st(db, "SELECT name FROM pragma_table_xinfo(?1) WHERE hidden IN (2, 3)");
    st.bind_text(1, t.c_str(), static_cast<int>(t.size()));
    if (st.next()) refuse("a generated column '" + t + "." + st.str(0) + "'");
  }
}

bool cut_long_name(std::string& s) {
  if (s.size() <= kMaxNameBytes) return false;
  std::size_t n = kMaxNameBytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // not inside a character
  s.resize(n);
  return true;
}

}  // namespace amdahl::format::detail
