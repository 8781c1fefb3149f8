// libFuzzer target: amdahl::fuzz::part_file (see fuzz_entries.hpp). Run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>

#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  amdahl::fuzz::part_file(data, size);
  return 0;
}
