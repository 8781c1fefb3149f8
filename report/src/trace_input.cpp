// Reading a trace file for `amdahl import`: plain or gzip, a regular file only (format::InputFile),
// with the inflated size bounded so that a small gzip bomb is one error line, not 12 GB of RSS.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <zlib.h>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/format/input_file.hpp"
#include "amdahl/report/kineto_import.hpp"

namespace amdahl::report {
namespace {

using analysis::InputError;

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

std::uint64_t inflate_limit(std::uint64_t compressed) {
  if (const char* env = std::getenv("AMDAHL_MAX_INFLATED_MB"); env && *env) {
    char* end = nullptr;
    const unsigned long long mb = std::strtoull(env, &end, 10);
    if (end && *end == '\0' && mb > 0 && mb < (std::uint64_t{1} << 44)) return mb << 20;
  }
  constexpr std::uint64_t kFloor = std::uint64_t{1} << 30;
  constexpr std::uint64_t kRatio = 200;
  return std::max(kFloor, compressed > ~std::uint64_t{0} / kRatio ? ~std::uint64_t{0} : compressed * kRatio);
}

std::string read_maybe_gzip(const std::string& path) {
  std::uint64_t file_size = 0;
  int fd = -1;
  try {
    format::InputFile in(path, "the trace", kMaxTraceFileBytes);
    file_size = in.size();
    fd = in.release();
  } catch (const format::InputFileError& e) {
    throw InputError(e.what());
  }
  gzFile f = gzdopen(fd, "rb");  // reads plain files unchanged; closes fd with gzclose
  if (!f) {
    ::close(fd);
    throw InputError("cannot open '" + path + "'");
  }
  gzbuffer(f, 1 << 17);
  const std::uint64_t limit = inflate_limit(file_size);
  std::string data;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int err = 0;
      const std::string msg = gzerror(f, &err);
      gzclose(f);
      throw InputError("cannot read '" + path + "': " + (err == Z_ERRNO ? "read error" : "corrupt gzip data (" + msg + ")"));
    }
    if (n == 0) break;
    if (data.size() + static_cast<std::size_t>(n) > limit && gzdirect(f) == 0) {
      gzclose(f);
      throw InputError("cannot read '" + path + "': its gzip data inflates past " + mib(limit) + " (" +
                       std::to_string(file_size) + " bytes compressed; the limit is max(1 GiB, 200x the file), "
                       "AMDAHL_MAX_INFLATED_MB=N raises it): not a trace, or a gzip bomb");
    }
    data.append(buf, static_cast<std::size_t>(n));
  }
  const int rc = gzclose(f);
  if (rc == Z_BUF_ERROR) throw InputError("cannot read '" + path + "': truncated gzip data");
  if (rc != Z_OK) throw InputError("cannot read '" + path + "'");
  return data;
}

}  // namespace amdahl::report
