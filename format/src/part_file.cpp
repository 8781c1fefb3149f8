// Encoding and decoding of part files: a header, then one section per record vector, each a
// tag, a count and the records' fields in visit_fields order (little-endian, fixed width).
#include "amdahl/format/part_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <type_traits>

#include "amdahl/format/fields.hpp"
#include "amdahl/format/input_file.hpp"

namespace amdahl::format {
namespace {

enum class Tag : std::uint8_t {
  Strings = 1, Processes, Threads, Categories, Ranges, Marks, ApiCalls, GpuOps, Syncs, Devices,
  Diagnostics, EventRecords, End = 0xff
};

// Writes the encoding to a sink: a string (encode_part) or, through a 1 MiB buffer, a file
// (write_part), so a part of 64 million ranges is never held twice in memory.
// The fields of `r` that part version `version` has (fields.hpp; records without fields added
// after version 1 have no version parameter).
template <class Rec, class F>
constexpr void visit_part_fields(Rec& r, F&& f, std::uint32_t version) {
  if constexpr (requires { visit_fields(r, f, version); }) {
    visit_fields(r, f, version);
  } else {
    visit_fields(r, f);
  }
}

// A field's bytes, as every sink gets them (put() through a small buffer, or straight into the
// sink's room).
template <class T> char* put_raw(char* q, T v) {
  if constexpr (std::is_enum_v<T>) {
    return put_raw(q, static_cast<std::underlying_type_t<T>>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    *q = v ? 1 : 0;
    return q + 1;
  } else {
    static_assert(std::is_arithmetic_v<T>);
    std::memcpy(q, &v, sizeof(T));  // x86-64 and aarch64 are little-endian
    return q + sizeof(T);
  }
}

template <class T> constexpr std::size_t field_bytes() {
  if constexpr (std::is_enum_v<T>) return sizeof(std::underlying_type_t<T>);
  else if constexpr (std::is_same_v<T, bool>) return 1;
  else return sizeof(T);
}

// The bytes one record of type Rec takes in a part of `version` (the fields that version has;
// records are fixed width). The decoder checks a section's count with it.
template <class Rec> constexpr std::uint64_t part_record_bytes(std::uint32_t version) {
  Rec r{};
  std::uint64_t n = 0;
  visit_part_fields(r, [&n](auto& f) { n += field_bytes<std::remove_cvref_t<decltype(f)>>(); }, version);
  return n;
}
// The most bytes a record of type Rec takes, at any part version (versions only add fields).
template <class Rec> constexpr std::size_t encoded_size() { return part_record_bytes<Rec>(kPartVersion); }

inline constexpr std::size_t kMaxRecordBytes = 256;

template <class Sink>
class Encoder {
 public:
  Encoder(Sink& sink, std::uint32_t version) : sink_(sink), version_(version) {}
  std::uint32_t version() const { return version_; }
  template <class T> void put(T v) {
    char b[field_bytes<T>()];
    sink_.append(b, static_cast<std::size_t>(put_raw(b, v) - b));
  }
  void put_string(const std::string& s) {
    put(static_cast<std::uint32_t>(s.size()));
    sink_.append(s.data(), s.size());
  }
  template <class Rec> void put_record(const Rec& r) {
    if constexpr (requires { sink_.room(std::size_t{}); }) {
      // A sink with a buffer hands out room for the whole record: one bounds check, then a store
      // per field (the exit write of 10 M ranges puts 180 M fields).
      static_assert(encoded_size<Rec>() <= kMaxRecordBytes);
      char* const p = sink_.room(kMaxRecordBytes);
      char* q = p;
      visit_part_fields(const_cast<Rec&>(r), [&q](auto& f) { q = put_raw(q, f); }, version_);
      sink_.advance(static_cast<std::size_t>(q - p));
    } else {
      visit_part_fields(const_cast<Rec&>(r), [this](auto& f) { put(f); }, version_);
    }
  }
  template <class Rec> void section(Tag tag, const std::vector<Rec>& v) {
    put(tag);
    put(static_cast<std::uint64_t>(v.size()));
    for (const Rec& r : v) put_record(r);
  }

 private:
  Sink& sink_;
  std::uint32_t version_;
};

struct StringSink {
  std::string out;
  void append(const char* p, std::size_t n) { out.append(p, n); }
};

struct FileSink {
  std::FILE* f = nullptr;
  bool ok = true;
  std::unique_ptr<char[]> buf;
  std::size_t used = 0;
  explicit FileSink(std::FILE* file) : f(file), buf(new char[kSize]) {}
  // Small appends (one field) are a bounds check and a memcpy: the exit write of 10 M ranges
  // makes ~150 M of them.
  void append(const char* p, std::size_t n) {
    if (used + n > kSize) flush();
    if (n >= kSize) {
      ok = ok && std::fwrite(p, 1, n, f) == n;
    } else {
      std::memcpy(buf.get() + used, p, n);
      used += n;
    }
  }
  void flush() {
    if (used != 0) ok = ok && std::fwrite(buf.get(), 1, used, f) == used;
    used = 0;
  }
  // n bytes to write into directly (n <= kSize), then advance() by what was written.
  char* room(std::size_t n) {
    if (used + n > kSize) flush();
    return buf.get() + used;
  }
  void advance(std::size_t n) { used += n; }
  static constexpr std::size_t kSize = std::size_t{1} << 20;
};

// The sections before the ranges, and those after them (encode_into; write_part_streamed puts
// a streamed ranges section between the two).
template <class Sink>
void encode_head(Encoder<Sink>& e, const RecordSet& rs) {
  for (char c : kPartMagic) e.put(c);
  e.put(e.version());
  e.put(Tag::Strings);
  e.put(static_cast<std::uint64_t>(rs.strings.size()));
  for (const auto& s : rs.strings) e.put_string(s);
  e.section(Tag::Processes, rs.processes);
  e.section(Tag::Threads, rs.threads);
  e.section(Tag::Categories, rs.categories);
}

template <class Sink>
void encode_tail(Encoder<Sink>& e, const RecordSet& rs) {
  e.section(Tag::Marks, rs.marks);
  e.section(Tag::ApiCalls, rs.api_calls);
  e.section(Tag::GpuOps, rs.gpu_ops);
  e.section(Tag::Syncs, rs.syncs);
  e.section(Tag::Devices, rs.devices);
  e.section(Tag::Diagnostics, rs.diagnostics);
  if (e.version() >= 2) e.section(Tag::EventRecords, rs.event_records);
  e.put(Tag::End);
}

template <class Sink>
void encode_into(Encoder<Sink>& e, const RecordSet& rs) {
  encode_head(e, rs);
  e.section(Tag::Ranges, rs.ranges);
  encode_tail(e, rs);
}

template <class Sink>
void encode_streamed(Encoder<Sink>& e, RecordSet& rs, const RangeStream& stream) {
  encode_head(e, rs);
  e.put(Tag::Ranges);
  e.put(stream.count);
  std::uint64_t n = 0;
  const RangeSink sink = [&](const RangeRec& r) {
    if (++n > stream.count) throw PartError("streamed part: more ranges than announced");
    e.put_record(r);
  };
  if (stream.emit) stream.emit(sink);
  if (n != stream.count) throw PartError("streamed part: fewer ranges than announced");
  if (stream.finish) stream.finish(rs);
  encode_tail(e, rs);
}

// Where a decoder's bytes come from: a string in memory (decode_part), or a part file read
// through a 1 MiB buffer (read_part), so a part of millions of ranges is never held as bytes
// beside the records decoded from it. Both give read() exactly n bytes or throw "truncated".
class MemorySource {
 public:
  explicit MemorySource(const std::string& b) : b_(b) {}
  std::uint64_t size() const { return b_.size(); }
  std::uint64_t pos() const { return pos_; }
  void read(void* dst, std::size_t n) {
    if (b_.size() - pos_ < n) throw PartError("part file is truncated");
    std::memcpy(dst, b_.data() + pos_, n);
    pos_ += n;
  }

 private:
  const std::string& b_;
  std::size_t pos_ = 0;
};

class FileSource {
 public:
  FileSource(InputFile& f, std::string path) : f_(f), path_(std::move(path)), buf_(new char[kBuf]) {}
  // The size the file had when opened: a file that grows while read is cut there, one that
  // shrinks ends early ("truncated").
  std::uint64_t size() const { return f_.size(); }
  std::uint64_t pos() const { return pos_; }
  void read(void* dst, std::size_t n) {
    if (n == 0) return;  // an empty string: no memcpy from a buffer not yet filled (null)
    if (static_cast<std::size_t>(end_ - cur_) >= n) {  // the hot path: one field from the buffer
      std::memcpy(dst, cur_, n);
      cur_ += n;
      pos_ += n;
      return;
    }
    char* out = static_cast<char*>(dst);
    while (n > 0) {
      if (cur_ == end_) refill();
      const std::size_t k = std::min(n, static_cast<std::size_t>(end_ - cur_));
      std::memcpy(out, cur_, k);
      out += k;
      cur_ += k;
      pos_ += k;
      n -= k;
    }
  }

 private:
  static constexpr std::size_t kBuf = std::size_t{1} << 20;
  void refill() {
    const std::uint64_t left = f_.size() - filled_;
    if (left == 0) throw PartError("part file is truncated");
    for (;;) {
      const ssize_t k = ::read(f_.fd(), buf_.get(), static_cast<std::size_t>(std::min<std::uint64_t>(left, kBuf)));
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) throw PartError("cannot read " + path_ + ": " + std::strerror(errno));
      if (k == 0) throw PartError("part file is truncated");  // shrunk while read
      cur_ = buf_.get();
      end_ = cur_ + k;
      filled_ += static_cast<std::uint64_t>(k);
      return;
    }
  }
  InputFile& f_;
  std::string path_;
  std::unique_ptr<char[]> buf_;
  const char* cur_ = nullptr;
  const char* end_ = nullptr;
  std::uint64_t pos_ = 0, filled_ = 0;
};

template <class Source>
class Decoder {
 public:
  explicit Decoder(Source& src) : src_(src) {}
  std::uint32_t version = 0;  // of the part being read (set after the header)
  template <class T> void get(T& v) {
    if constexpr (std::is_enum_v<T>) {
      std::underlying_type_t<T> u{};
      get(u);
      v = static_cast<T>(u);
    } else if constexpr (std::is_same_v<T, bool>) {
      std::uint8_t u = 0;
      get(u);
      v = u != 0;
    } else {
      src_.read(&v, sizeof(T));
    }
  }
  std::string get_string() {
    std::uint32_t n = 0;
    get(n);
    if (n > left()) throw PartError("part file is truncated");
    std::string s(n, '\0');
    src_.read(s.data(), n);
    return s;
  }
  // Records are fixed width at a given part version, so a section's count is checked against
  // the bytes left before anything is allocated: a corrupt or hostile count can never ask for
  // more memory than the file's records would take. Each record is decoded into a local and
  // appended (one pass over the vector's memory, not a zero fill and then the fields).
  template <class Rec> void section(std::vector<Rec>& v) {
    std::uint64_t n = 0;
    get(n);
    const std::uint64_t per = part_record_bytes<Rec>(version);
    if (n > left() / per)
      throw PartError("part file is truncated: a section of " + std::to_string(n) + " records needs " +
                      (n > ~std::uint64_t{0} / per ? std::string("more") : std::to_string(n * per)) +
                      " bytes, " + std::to_string(left()) + " are left");
    v.clear();
    v.reserve(static_cast<std::size_t>(n));
    for (std::uint64_t i = 0; i < n; ++i) {
      Rec r{};
      visit_part_fields(r, [this](auto& f) { get(f); }, version);
      v.push_back(r);
    }
  }
  std::uint64_t left() const { return src_.size() - src_.pos(); }

 private:
  Source& src_;
};

template <class Source>
RecordSet decode_from(Source& src) {
  Decoder<Source> d(src);
  char magic[sizeof(kPartMagic)] = {};
  if (src.size() < sizeof(kPartMagic) + 4) throw PartError("not an amdahl part file (bad magic)");
  src.read(magic, sizeof magic);
  if (std::memcmp(magic, kPartMagic, sizeof(kPartMagic)) != 0) throw PartError("not an amdahl part file (bad magic)");
  std::uint32_t version = 0;
  d.get(version);
  if (version > kPartVersion)
    throw PartError("part file version " + std::to_string(version) + " is newer than this amdahl reads (" +
                    std::to_string(kPartVersion) + ")");
  d.version = version;
  RecordSet rs;
  rs.strings.clear();
  for (;;) {
    Tag tag{};
    d.get(tag);
    switch (tag) {
      case Tag::Strings: {
        std::uint64_t n = 0;
        d.get(n);
        // Each string takes at least its 4-byte length: the count is bounded by the bytes left
        // before the table is reserved (32 bytes a std::string).
        if (n > d.left() / 4) throw PartError("part file is corrupt: string count too large");
        rs.strings.reserve(static_cast<std::size_t>(n));
        for (std::uint64_t i = 0; i < n; ++i) rs.strings.push_back(d.get_string());
        break;
      }
      case Tag::Processes: d.section(rs.processes); break;
      case Tag::Threads: d.section(rs.threads); break;
      case Tag::Categories: d.section(rs.categories); break;
      case Tag::Ranges: d.section(rs.ranges); break;
      case Tag::Marks: d.section(rs.marks); break;
      case Tag::ApiCalls: d.section(rs.api_calls); break;
      case Tag::GpuOps: d.section(rs.gpu_ops); break;
      case Tag::Syncs: d.section(rs.syncs); break;
      case Tag::Devices: d.section(rs.devices); break;
      case Tag::Diagnostics: d.section(rs.diagnostics); break;
      case Tag::EventRecords:
        if (version < 2) throw PartError("part file is corrupt: unknown section 12");  // not in version 1
        d.section(rs.event_records);
        break;
      case Tag::End:
        if (rs.strings.empty() || !rs.strings[0].empty()) throw PartError("part file is corrupt: bad string table");
        check_part_records(rs);
        return rs;
      default: throw PartError("part file is corrupt: unknown section " + std::to_string(static_cast<int>(tag)));
    }
  }
}

}  // namespace

std::string encode_part(const RecordSet& rs, std::uint32_t version) {
  if (version < 1 || version > kPartVersion) throw PartError("cannot write part version " + std::to_string(version));
  StringSink sink;
  Encoder<StringSink> e(sink, version);
  encode_into(e, rs);
  return std::move(sink.out);
}

RecordSet decode_part(const std::string& bytes) {
  MemorySource src(bytes);
  return decode_from(src);
}

namespace {

template <class Encode>
bool write_part_file(const std::string& path, std::string* error, Encode&& encode) noexcept {
  try {
    const std::string tmp = path + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) {
      if (error) *error = "cannot open " + tmp + ": " + std::strerror(errno);
      return false;
    }
    bool ok = true;
    try {
      FileSink sink(f);
      Encoder<FileSink> e(sink, kPartVersion);
      encode(e);
      sink.flush();
      ok = sink.ok;
    } catch (...) {
      std::fclose(f);
      std::remove(tmp.c_str());
      throw;
    }
    const bool closed = std::fclose(f) == 0;
    if (!ok || !closed) {
      if (error) *error = "cannot write " + tmp + ": " + std::strerror(errno);
      std::remove(tmp.c_str());
      return false;
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      if (error) *error = "cannot rename " + tmp + ": " + std::strerror(errno);
      std::remove(tmp.c_str());
      return false;
    }
    return true;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  } catch (...) {
    if (error) *error = "unknown error";
    return false;
  }
}

}  // namespace

bool write_part(const RecordSet& rs, const std::string& path, std::string* error) noexcept {
  return write_part_file(path, error, [&rs](Encoder<FileSink>& e) { encode_into(e, rs); });
}

bool write_part_streamed(RecordSet& rs, const RangeStream& ranges, const std::string& path,
                         std::string* error) noexcept {
  return write_part_file(path, error, [&](Encoder<FileSink>& e) { encode_streamed(e, rs, ranges); });
}

RecordSet read_part(const std::string& path) {
  std::unique_ptr<InputFile> f;
  try {
    f = std::make_unique<InputFile>(path, "part file", kNoSizeLimit);  // regular files only: never a FIFO
  } catch (const InputFileError& e) {
    throw PartError(e.what());
  }
  FileSource src(*f, path);
  return decode_from(src);
}

}  // namespace amdahl::format
