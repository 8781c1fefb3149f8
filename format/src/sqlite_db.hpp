// Internal to amdahl_store: a minimal RAII wrapper over the SQLite C API (a connection and
// prepared statements) that turns SQLite failures into one exception type carrying the code.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

#include <sqlite3.h>

namespace amdahl::format::detail {

// A failed SQLite call: `code` is the primary result code (SQLITE_CORRUPT, SQLITE_NOTADB...).
class SqliteError : public std::runtime_error {
 public:
  SqliteError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const noexcept { return code_ & 0xff; }

 private:
  int code_;
};

// SQLite's message, with the operating system's reason when there is one ("disk I/O error"
// alone does not say that the disk is full or the file too large).
inline std::string sqlite_message(sqlite3* db, int rc, const std::string& base) {
  const int primary = rc & 0xff;
  const int sys = db != nullptr ? sqlite3_system_errno(db) : 0;
  if (sys != 0 && (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN || primary == SQLITE_FULL))
    return base + " (" + std::strerror(sys) + ")";
  return base;
}

class Db {
 public:
  Db(const std::string& path, int flags) {
    const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
      const std::string msg = sqlite_message(db_, rc, db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc));
      sqlite3_close(db_);
      db_ = nullptr;
      throw SqliteError(rc, msg);
    }
    sqlite3_extended_result_codes(db_, 1);
  }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db() { sqlite3_close(db_); }

  sqlite3* get() const noexcept { return db_; }

  // Runs SQL with no parameters and no rows wanted (schema, pragmas, BEGIN/COMMIT).
  void exec(const char* sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
      std::string msg = sqlite_message(db_, rc, err ? err : sqlite3_errstr(rc));
      sqlite3_free(err);
      throw SqliteError(rc, msg);
    }
  }
  [[noreturn]] void fail(int rc) const { throw SqliteError(rc, sqlite_message(db_, rc, sqlite3_errmsg(db_))); }

 private:
  sqlite3* db_ = nullptr;
};

class Stmt {
 public:
  Stmt(const Db& db, const char* sql) : db_(db) {
    const int rc = sqlite3_prepare_v3(db.get(), sql, -1, SQLITE_PREPARE_PERSISTENT, &st_, nullptr);
    if (rc != SQLITE_OK) db.fail(rc);
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() { sqlite3_finalize(st_); }

  // Parameters are 1-based, as in SQLite.
  void bind(int i, std::int64_t v) { check(sqlite3_bind_int64(st_, i, v)); }
  void bind(int i, double v) { check(sqlite3_bind_double(st_, i, v)); }
  void bind_null(int i) { check(sqlite3_bind_null(st_, i)); }
  // The text must outlive the next step() (static enum names, or strings held by the caller).
  void bind_text(int i, const char* s, int n = -1) { check(sqlite3_bind_text(st_, i, s, n, SQLITE_STATIC)); }

  // Executes an INSERT (no rows) and resets the statement for the next row.
  void run() {
    const int rc = sqlite3_step(st_);
    if (rc != SQLITE_DONE) {
      sqlite3_reset(st_);
      db_.fail(rc);
    }
    sqlite3_reset(st_);
  }
  // Steps a SELECT: true while there is a row.
  bool next() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    db_.fail(rc);
  }
  // Columns are 0-based, as in SQLite.
  std::int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
  double f64(int c) const { return sqlite3_column_double(st_, c); }
  bool is_null(int c) const { return sqlite3_column_type(st_, c) == SQLITE_NULL; }
  const char* text(int c) const {
    const unsigned char* t = sqlite3_column_text(st_, c);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  // The column's bytes without a copy or a terminating NUL (valid until the next step()):
  // sqlite3_column_text would first copy a TEXT value out of the page to NUL-terminate it.
  std::string_view view(int c) const {
    const void* b = sqlite3_column_blob(st_, c);
    return b ? std::string_view(static_cast<const char*>(b), static_cast<std::size_t>(sqlite3_column_bytes(st_, c)))
             : std::string_view{};
  }
  std::string str(int c) const {
    const unsigned char* t = sqlite3_column_text(st_, c);
    return t ? std::string(reinterpret_cast<const char*>(t), static_cast<std::size_t>(sqlite3_column_bytes(st_, c)))
             : std::string{};
  }

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK) db_.fail(rc);
  }
  const Db& db_;
  sqlite3_stmt* st_ = nullptr;
};

}  // namespace amdahl::format::detail
