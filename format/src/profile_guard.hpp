// Internal to amdahl_store: what a profile opened for reading may make SQLite do. A profile is
// a file from anyone; SQLite runs whatever its schema says (generated columns, triggers, views,
// expressions of any depth) when it is read. A reading connection is therefore hardened
// (limits, trusted_schema off, defensive mode, cell size checks), its schema is checked against
// what the format defines, and every statement runs under a time budget.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "sqlite_db.hpp"

namespace amdahl::format::detail {

// The longest single value (a name, a meta value) a profile may hold: longer ones make the load
// fail ("too big"). Names are cut shorter still, at kMaxNameBytes, when they are read.
inline constexpr int kMaxValueBytes = 256 << 20;
// Strings (range, mark, thread, kernel names...) longer than this are cut to it when a profile
// is loaded, and counted in the diagnostic load.long_names_truncated: every later step (rules,
// reports, the terminal) then handles bounded names. The collector keeps names whole in parts.
inline constexpr std::size_t kMaxNameBytes = std::size_t{64} << 10;

// When a load must give up: now + the budget for a file of `file_size` bytes:
// AMDAHL_LOAD_TIMEOUT_S seconds when set (a positive number, fractions allowed), else
// 120 s + 1 s per 10 MB. A load that takes longer is stopped: ProfileError.
struct LoadDeadline {
  std::chrono::steady_clock::time_point at;
  double seconds = 0;
  std::atomic<bool> expired{false};  // set by the progress handler when it stopped a statement
  static LoadDeadline for_file(std::int64_t file_size);
  LoadDeadline() = default;
  LoadDeadline(LoadDeadline&& o) noexcept : at(o.at), seconds(o.seconds) {}
};

// Applies the limits and pragmas to a connection opened read-only, and installs the progress
// handler that interrupts it past `deadline` (which must outlive the connection).
void harden_reading_connection(Db& db, LoadDeadline& deadline);

// Throws ProfileError (naming `path`) for a schema with a trigger, a virtual table, a generated
// column, or a view the format does not define.
void check_profile_schema(const Db& db, const std::string& path);

// Cuts `s` to kMaxNameBytes (at a UTF-8 character boundary); true when it did.
bool cut_long_name(std::string& s);

}  // namespace amdahl::format::detail
