// libFuzzer target: amdahl::fuzz::two_profiles (see fuzz_entries.hpp). Run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>

#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  amdahl::fuzz::two_profiles(data, size);
  return 0;
}
