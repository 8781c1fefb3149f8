// A profile in memory: the merged records of a run and its metadata. What the analysis, the
// importers and the exporters pass around; saving and loading it (SQLite) is
// profile_store.hpp's.
#pragma once

#include <map>
#include <string>

#include "amdahl/format/records.hpp"

namespace amdahl::format {

struct Profile {
  std::map<std::string, std::string> meta;  // format_version, command, host, clock, created, exit_code, ...
  RecordSet records;                         // ids are profile-wide
};

}  // namespace amdahl::format
