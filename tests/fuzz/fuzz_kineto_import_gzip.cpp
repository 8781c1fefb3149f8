// libFuzzer target: amdahl::fuzz::kineto_import_gzip (see fuzz_entries.hpp). Run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>

#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  amdahl::fuzz::kineto_import_gzip(data, size);
  return 0;
}
