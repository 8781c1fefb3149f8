// Reading a trace file for `amdahl import`: plain or gzip, a regular file only (format::InputFile),
// with the inflated size bounded so that a small gzip bomb is one error line, not 12 GB of RSS.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <zlib.h>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/format/input_file.hpp"
#include "amdahl/import/kineto_import.hpp"
#include "trace_stream.hpp"

namespace amdahl::kineto {
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

namespace detail {

TraceFileSource::TraceFileSource(const std::string& path) : path_(path) {
  int fd = -1;
  try {
    format::InputFile in(path, "the trace", kMaxTraceFileBytes);
    file_size_ = in.size();
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
  gz_ = f;
  limit_ = inflate_limit(file_size_);
}

TraceFileSource::~TraceFileSource() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
}

std::size_t TraceFileSource::read(char* buf, std::size_t cap) {
  if (!gz_) return 0;
  gzFile f = static_cast<gzFile>(gz_);
  std::size_t got = 0;
  while (got < cap) {  // gzread takes an unsigned count: at most 1 GiB per call
    const unsigned want = static_cast<unsigned>(std::min<std::size_t>(cap - got, std::size_t{1} << 30));
    const int n = gzread(f, buf + got, want);
    if (n < 0) {
      int err = 0;
      const std::string msg = gzerror(f, &err);
      gzclose(f);
      gz_ = nullptr;
      throw InputError("cannot read '" + path_ + "': " +
                       (err == Z_ERRNO ? "read error" : "corrupt gzip data (" + msg + ")"));
    }
    if (n == 0) break;
    if (total_ + static_cast<std::uint64_t>(n) > limit_ && gzdirect(f) == 0) {
      gzclose(f);
      gz_ = nullptr;
      throw InputError("cannot read '" + path_ + "': its gzip data inflates past " + mib(limit_) + " (" +
                       std::to_string(file_size_) + " bytes compressed; the limit is max(1 GiB, 200x the file), "
                       "AMDAHL_MAX_INFLATED_MB=N raises it): not a trace, or a gzip bomb");
    }
    total_ += static_cast<std::uint64_t>(n);
    got += static_cast<std::size_t>(n);
  }
  if (got > 0) return got;
  const int rc = gzclose(f);
  gz_ = nullptr;
  if (rc == Z_BUF_ERROR) throw InputError("cannot read '" + path_ + "': truncated gzip data");
  if (rc != Z_OK) throw InputError("cannot read '" + path_ + "'");
  return 0;
}

}  // namespace detail

std::string read_maybe_gzip(const std::string& path) {
  detail::TraceFileSource source(path);
  std::string data;
  char buf[1 << 16];
  while (const std::size_t n = source.read(buf, sizeof buf)) data.append(buf, n);
  return data;
}

}  // namespace amdahl::kineto
