// Streaming read of a Chrome / Kineto trace document for `amdahl import` (issue 18, class 11):
// the bytes come in chunks (a gzip file inflated 1 MiB at a time, or memory), pass the JSON
// depth bound, and feed nlohmann-json's SAX parser; each event of `traceEvents` is built as a
// small JSON object of the members the importer reads, handed to a callback and dropped. Neither
// the document's DOM nor its inflated text is ever held whole.
//
// The outcome is the one the whole-document parse gave, error lines included: a read error
// first (corrupt or over-inflating gzip), then a nesting deeper than kMaxJsonDepth anywhere in
// the text (with its byte offset), then invalid JSON, then a document without a traceEvents list.
// After a parse error the rest of the input is still read (and depth-checked) to keep that order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace amdahl::kineto::detail {

// Where the bytes come from. read() fills up to `cap` bytes and returns how many (0: the end);
// it throws analysis::InputError on a read error.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  virtual std::size_t read(char* buf, std::size_t cap) = 0;
};

// The bytes of a string, handed out in chunks like a file's.
class MemorySource final : public ChunkSource {
 public:
  explicit MemorySource(std::string_view text) : text_(text) {}
  std::size_t read(char* buf, std::size_t cap) override;

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// A trace file, plain or gzip (trace_input.cpp): format::InputFile's checks, then zlib reads
// with the inflated size bounded by inflate_limit(). Throws InputError from the constructor when
// the file cannot be opened.
class TraceFileSource final : public ChunkSource {
 public:
  explicit TraceFileSource(const std::string& path);
  ~TraceFileSource() override;
  TraceFileSource(const TraceFileSource&) = delete;
  TraceFileSource& operator=(const TraceFileSource&) = delete;
  // At the end (0) the gzip stream is closed: truncated or corrupt data is an InputError then.
  std::size_t read(char* buf, std::size_t cap) override;

 private:
  std::string path_;
  void* gz_ = nullptr;  // gzFile
  std::uint64_t file_size_ = 0, limit_ = 0, total_ = 0;
};

// The JSON depth bound over a stream of bytes: strings skipped, one state carried between
// chunks. feed() returns the absolute offset of the first bracket deeper than kMaxJsonDepth,
// or npos.
class DepthScanner {
 public:
  std::size_t feed(const char* p, std::size_t n);
  static std::string message(const std::string& source, std::size_t offset);

 private:
  std::size_t depth_ = 0, offset_ = 0;
  bool in_string_ = false, escaped_ = false;
};

// What the document holds besides its events: the last value of each top-level member that the
// import reads (null when absent or the document is not an object).
struct TraceTopLevel {
  nlohmann::json device_properties, schema_version;
};

struct TraceCallbacks {
  // One object element of the events list (the members ph, name, cat, pid, tid, ts, dur, args;
  // of args: name, correlation, cbid, device, stream, context, bytes; others are not built).
  std::function<void(const nlohmann::json&)> on_event;
  // A later "traceEvents" member replaces an earlier one (the last of duplicate keys wins, as in
  // the DOM): what the earlier one's events built is to be forgotten.
  std::function<void()> on_restart;
};

// Reads the whole source, calling back per event; throws InputError (the messages above).
TraceTopLevel stream_trace(ChunkSource& source, const std::string& name, const TraceCallbacks& callbacks);

}  // namespace amdahl::kineto::detail
