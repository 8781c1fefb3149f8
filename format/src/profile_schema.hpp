// Internal to amdahl_store: the SQL schema of the .amdahl profile (tables, views, indexes) and
// the readable TEXT names its enum columns use. docs/profile-format.md documents all of it.
#pragma once

#include <cstddef>
#include <string_view>

#include "amdahl/format/records.hpp"

namespace amdahl::format::detail {

extern const char* const kSchemaSql;   // CREATE TABLE ...; run before the bulk insert
extern const char* const kIndexSql;    // CREATE INDEX ...; run after it
extern const char* const kViewsSql;    // CREATE VIEW ...

// The tables a profile has, and the format version that added each (a profile of an older
// version lacks the newer tables: they load empty; a profile of a version that has one must
// have it, or it is "not a complete amdahl profile").
struct TableSince {
  const char* name;
  int since;
};
inline constexpr TableSince kTables[] = {
    {"meta", 1},   {"strings", 1}, {"processes", 1}, {"threads", 1}, {"categories", 1},
    {"ranges", 1}, {"marks", 1},   {"api_calls", 1}, {"gpu_ops", 1}, {"syncs", 1},
    {"devices", 1}, {"diagnostics", 1}, {"event_records", 2}};

const char* enum_name(PayloadKind v) noexcept;
const char* enum_name(RangeKind v) noexcept;
const char* enum_name(ApiKind v) noexcept;
const char* enum_name(GpuOpKind v) noexcept;
const char* enum_name(CopyKind v) noexcept;
const char* enum_name(MemKind v) noexcept;
const char* enum_name(SyncKind v) noexcept;

// Parse a name made by enum_name into `out`; false for an unknown text.
bool enum_from_name(std::string_view s, PayloadKind& out) noexcept;
bool enum_from_name(std::string_view s, RangeKind& out) noexcept;
bool enum_from_name(std::string_view s, ApiKind& out) noexcept;
bool enum_from_name(std::string_view s, GpuOpKind& out) noexcept;
bool enum_from_name(std::string_view s, CopyKind& out) noexcept;
bool enum_from_name(std::string_view s, MemKind& out) noexcept;
bool enum_from_name(std::string_view s, SyncKind& out) noexcept;

}  // namespace amdahl::format::detail
