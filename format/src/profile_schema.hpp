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

// Tables every profile of format 1 has (used to tell "not an amdahl profile" on load).
inline constexpr const char* kTables[] = {
    "meta", "strings", "processes", "threads", "categories", "ranges", "marks",
    "api_calls", "gpu_ops", "syncs", "devices", "diagnostics"};

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
