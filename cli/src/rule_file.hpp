// Reading a `--stages FILE`: a regular file of at most kMaxRuleFileBytes (a FIFO, a device or a
// directory is refused with one line instead of hanging, reading forever or reading as empty).
#pragma once

#include <cstdint>
#include <string>

namespace amdahl::cli {

inline constexpr std::uint64_t kMaxRuleFileBytes = std::uint64_t{16} << 20;  // 16 MiB

// The file's text. Throws format::InputFileError (main: exit 2) naming the file and why.
std::string read_rule_file(const std::string& path);

}  // namespace amdahl::cli
