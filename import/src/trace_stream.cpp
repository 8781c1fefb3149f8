// Streaming read of a trace document (see trace_stream.hpp).
#include "trace_stream.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <istream>
#include <memory>
#include <streambuf>
#include <utility>
#include <vector>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/import/kineto_import.hpp"

namespace amdahl::kineto::detail {
namespace {

using nlohmann::json;
using analysis::InputError;

constexpr std::size_t kNoOffset = static_cast<std::size_t>(-1);
constexpr std::size_t kChunk = std::size_t{1} << 20;

// The chunks as a stream for the parser: each chunk is depth-checked before the parser sees it.
// A read error or a too-deep bracket ends the stream early (the parser then reports a parse
// error) and is kept, to be reported in its place after the parse.
class ScanningBuffer final : public std::streambuf {
 public:
  explicit ScanningBuffer(ChunkSource& source) : source_(source), buf_(new char[kChunk]) {}

  // Reads what the parser left unread (after a parse error or an early end), still scanning the
  // depth, so that the errors are found in the order the whole-text read found them.
  void drain() {
    while (!ended_ && !read_error_) next_chunk();
  }
  std::exception_ptr read_error() const { return read_error_; }
  std::size_t too_deep_at() const { return too_deep_at_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (stopped_) return traits_type::eof();
    const std::size_t n = next_chunk();
    if (n == 0 || too_deep_at_ != kNoOffset) {
      stopped_ = true;
      return traits_type::eof();
    }
    setg(buf_.get(), buf_.get(), buf_.get() + n);
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  std::size_t next_chunk() {
    std::size_t n = 0;
    try {
      n = source_.read(buf_.get(), kChunk);
    } catch (const InputError&) {
      read_error_ = std::current_exception();
      ended_ = stopped_ = true;
      return 0;
    }
    if (n == 0) {
      ended_ = true;
      return 0;
    }
    if (too_deep_at_ == kNoOffset) too_deep_at_ = scanner_.feed(buf_.get(), n);
    return n;
  }

  ChunkSource& source_;
  std::unique_ptr<char[]> buf_;  // not zero-filled: a small trace costs no 1 MiB memset
  DepthScanner scanner_;
  std::exception_ptr read_error_;
  std::size_t too_deep_at_ = kNoOffset;
  bool ended_ = false, stopped_ = false;
};

bool is_event_key(const std::string& k) {
  return k == "ph" || k == "name" || k == "cat" || k == "pid" || k == "tid" || k == "ts" || k == "dur" || k == "args";
}
bool is_args_key(const std::string& k) {
  return k == "name" || k == "correlation" || k == "cbid" || k == "device" || k == "stream" || k == "context" ||
         k == "bytes";
}

// The SAX handler: routes each value to the event being built, a top-level member being built,
// or nowhere (skipped subtrees are counted through, never built).
class TraceSax {
 public:
  TraceSax(const TraceCallbacks& cb, TraceTopLevel& top) : cb_(cb), top_(top) {}

  bool null() { return scalar([] { return json(nullptr); }); }
  bool boolean(bool v) { return scalar([v] { return json(v); }); }
  bool number_integer(json::number_integer_t v) { return scalar([v] { return json(v); }); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar([v] { return json(v); }); }
  bool number_float(json::number_float_t v, const json::string_t&) { return scalar([v] { return json(v); }); }
  bool string(json::string_t& v) { return scalar([&v] { return json(std::move(v)); }); }
  bool binary(json::binary_t&) { return true; }  // not produced by the JSON parser
  bool start_object(std::size_t) { return start(true); }
  bool start_array(std::size_t) { return start(false); }
  bool end_object() { return end(); }
  bool end_array() { return end(); }
  bool key(json::string_t& k) {
    if (skip_at_ >= 0) return true;
    if (target_ != Target::None) {
      if (target_ == Target::Event && stack_.size() == 1) {
        if (!is_event_key(k)) return skip_next();
        next_is_args_ = k == "args";
      } else if (target_ == Target::Event && stack_.size() == 2 && in_args_ && !is_args_key(k)) {
        return skip_next();
      }
      slot_ = &(*stack_.back())[k];
      return true;
    }
    if (doc_ == Doc::Object && depth_ == 1) top_key_.swap(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    failed_ = true;
    return false;
  }

  bool failed() const { return failed_; }
  bool has_events_list() const { return events_list_; }

 private:
  enum class Target { None, Event, Devices, Schema };
  enum class Doc { Unknown, Object, Array, Scalar };

  bool skip_next() {
    skip_next_ = true;
    return true;
  }

  // Places a value built in the current container (or as the root).
  json* put(json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& top = *stack_.back();
    if (top.is_array()) {
      top.get_ref<json::array_t&>().push_back(std::move(v));
      return &top.get_ref<json::array_t&>().back();
    }
    *slot_ = std::move(v);
    return slot_;
  }

  void restart_if_delivered() {
    if (!delivered_) return;
    delivered_ = false;
    if (cb_.on_restart) cb_.on_restart();
  }

  void finish_build() {
    if (target_ == Target::Event) {
      cb_.on_event(root_);
      delivered_ = true;
    } else if (target_ == Target::Devices) {
      top_.device_properties = std::move(root_);
    } else if (target_ == Target::Schema) {
      top_.schema_version = std::move(root_);
    }
    root_ = json();
    target_ = Target::None;
  }

  Target member_target() const {
    if (top_key_ == "deviceProperties") return Target::Devices;
    if (top_key_ == "schemaVersion") return Target::Schema;
    return Target::None;
  }

  template <class Make>
  bool scalar(Make&& make) {
    if (skip_at_ >= 0) return true;
    if (target_ != Target::None) {
      if (skip_next_) {
        skip_next_ = false;
        return true;
      }
      put(make());
      return true;
    }
    if (depth_ == 0) {
      doc_ = Doc::Scalar;
    } else if (doc_ == Doc::Object && depth_ == 1) {
      if (top_key_ == "traceEvents") {
        restart_if_delivered();
        events_list_ = false;
      } else if (const Target t = member_target(); t != Target::None) {
        target_ = t;
        put(make());
        finish_build();
      }
    }
    return true;  // a scalar element of the events list is not an event
  }

  bool start(bool is_object) {
    ++depth_;
    if (skip_at_ >= 0) return true;
    if (target_ != Target::None) {
      if (skip_next_) {
        skip_next_ = false;
        skip_at_ = depth_;
        return true;
      }
      const bool args = is_object && target_ == Target::Event && stack_.size() == 1 && next_is_args_;
      stack_.push_back(put(is_object ? json::object() : json::array()));
      if (stack_.size() == 2) in_args_ = args;
      return true;
    }
    if (depth_ == 1) {
      doc_ = is_object ? Doc::Object : Doc::Array;
      if (!is_object) {
        events_list_ = true;
        events_at_ = 1;
      }
      return true;
    }
    if (doc_ == Doc::Object && depth_ == 2) {  // the value of a top-level member
      if (top_key_ == "traceEvents") {
        restart_if_delivered();
        events_list_ = !is_object;
        if (is_object) skip_at_ = depth_;
        else events_at_ = depth_;
        return true;
      }
      if (const Target t = member_target(); t != Target::None) {
        target_ = t;
        stack_.push_back(put(is_object ? json::object() : json::array()));
        return true;
      }
      skip_at_ = depth_;
      return true;
    }
    if (events_at_ >= 0 && depth_ == events_at_ + 1 && is_object) {  // an event
      target_ = Target::Event;
      in_args_ = next_is_args_ = false;
      stack_.push_back(put(json::object()));
      return true;
    }
    skip_at_ = depth_;  // an array element of the events list
    return true;
  }

  bool end() {
    if (skip_at_ >= 0) {
      if (depth_ == skip_at_) skip_at_ = -1;
      --depth_;
      return true;
    }
    if (target_ != Target::None) {
      stack_.pop_back();
      if (stack_.size() < 2) in_args_ = false;
      --depth_;
      if (stack_.empty()) finish_build();
      return true;
    }
    if (depth_ == events_at_) events_at_ = -1;
    --depth_;
    return true;
  }

  const TraceCallbacks& cb_;
  TraceTopLevel& top_;
  int depth_ = 0, skip_at_ = -1, events_at_ = -1;
  Doc doc_ = Doc::Unknown;
  std::string top_key_;
  bool events_list_ = false, delivered_ = false, failed_ = false;
  Target target_ = Target::None;
  json root_;
  std::vector<json*> stack_;
  json* slot_ = nullptr;
  bool skip_next_ = false, next_is_args_ = false, in_args_ = false;
};

}  // namespace

std::size_t MemorySource::read(char* buf, std::size_t cap) {
  const std::size_t n = std::min(cap, text_.size() - pos_);
  if (n > 0) std::memcpy(buf, text_.data() + pos_, n);
  pos_ += n;
  return n;
}

std::size_t DepthScanner::feed(const char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const char c = p[i];
    if (in_string_) {
      if (escaped_) escaped_ = false;  // the escaped character cannot end the string
      else if (c == '\\') escaped_ = true;
      else if (c == '"') in_string_ = false;
    } else if (c == '"') {
      in_string_ = true;
    } else if (c == '[' || c == '{') {
      if (++depth_ > kMaxJsonDepth) return offset_ + i;
    } else if ((c == ']' || c == '}') && depth_ > 0) {
      --depth_;
    }
  }
  offset_ += n;
  return kNoOffset;
}

std::string DepthScanner::message(const std::string& source, std::size_t offset) {
  return "'" + source + "' nests JSON arrays/objects deeper than " + std::to_string(kMaxJsonDepth) + " levels (at byte " +
         std::to_string(offset) + "); a PyTorch profiler trace needs fewer than 10";
}

TraceTopLevel stream_trace(ChunkSource& source, const std::string& name, const TraceCallbacks& callbacks) {
  TraceTopLevel top;
  TraceSax sax(callbacks, top);
  ScanningBuffer buffer(source);
  {
    std::istream in(&buffer);
    json::sax_parse(in, &sax, json::input_format_t::json, true, false);
  }
  buffer.drain();
  if (buffer.read_error()) std::rethrow_exception(buffer.read_error());
  if (buffer.too_deep_at() != kNoOffset) throw InputError(DepthScanner::message(name, buffer.too_deep_at()));
  if (sax.failed()) throw InputError("'" + name + "' is not valid JSON (expected a PyTorch profiler trace)");
  if (!sax.has_events_list()) throw InputError("'" + name + "' is not a Chrome trace: no traceEvents list");
  return top;
}

}  // namespace amdahl::kineto::detail
