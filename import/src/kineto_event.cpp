// One event of a Kineto trace, decoded (see kineto_event.hpp).
#include "kineto_event.hpp"

#include <cmath>
#include <functional>
#include <string_view>

namespace amdahl::kineto::detail {

using nlohmann::json;

std::uint64_t u64_of(double d) {
  if (!(d > 0)) return 0;
  if (d >= 18446744073709551616.0) return UINT64_MAX;
  return static_cast<std::uint64_t>(d);
}

std::string str_of(const json& obj, const char* key) {
  if (!obj.is_object()) return {};
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::uint64_t id_of(const json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) return static_cast<std::uint64_t>(v.get<std::int64_t>());
  if (v.is_number_float()) return u64_of(v.get<double>());
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    std::size_t k = s.size();
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9') --k;
    if (k < s.size() && s.size() - k < 10) return std::stoull(s.substr(k));
    return std::hash<std::string>{}(s) & 0x7fffffff;
  }
  return 0;
}

std::int64_t ns_of(const json& v) {
  if (!v.is_number()) return -1;
  const double ns = v.get<double>() * 1000.0;
  if (!std::isfinite(ns) || ns >= 9.2e18 || ns <= -9.2e18) return -1;
  return static_cast<std::int64_t>(std::llround(ns));
}

std::uint64_t arg_u64(const json& args, const char* key, std::uint64_t fallback) {
  if (!args.is_object()) return fallback;
  const auto it = args.find(key);
  if (it == args.end() || !it->is_number()) return fallback;
  if (it->is_number_float()) return u64_of(it->get<double>());
  if (it->is_number_integer() && it->get<std::int64_t>() < 0) return fallback;
  return it->get<std::uint64_t>();
}

namespace {

format::MemKind mem_kind(std::string_view s) {
  if (s == "Pageable") return format::MemKind::Pageable;
  if (s == "Pinned") return format::MemKind::Pinned;
  if (s == "Device") return format::MemKind::Device;
  if (s == "Managed") return format::MemKind::Managed;
  return format::MemKind::Unknown;
}

// pid or tid: absent -> 0.
std::uint64_t member_id(const json& e, const char* key) {
  const auto it = e.find(key);
  return it != e.end() ? id_of(*it) : 0;
}

}  // namespace

void parse_memcpy_name(const std::string& name, format::GpuOpRec& op) {
  if (name.find("HtoD") != std::string::npos) op.copy_kind = format::CopyKind::HtoD;
  else if (name.find("DtoH") != std::string::npos) op.copy_kind = format::CopyKind::DtoH;
  else if (name.find("DtoD") != std::string::npos) op.copy_kind = format::CopyKind::DtoD;
  else if (name.find("HtoH") != std::string::npos) op.copy_kind = format::CopyKind::HtoH;
  else if (name.find("PtoP") != std::string::npos) op.copy_kind = format::CopyKind::PtoP;
  const auto open = name.find('('), arrow = name.find(" -> "), close = name.find(')');
  if (open != std::string::npos && arrow != std::string::npos && close != std::string::npos && open < arrow &&
      arrow < close) {
    op.src_kind = mem_kind(std::string_view(name).substr(open + 1, arrow - open - 1));
    op.dst_kind = mem_kind(std::string_view(name).substr(arrow + 4, close - arrow - 4));
  }
}

bool is_structural_cpu_op(const std::string& name) {
  return name.rfind("ProfilerStep#", 0) == 0 || name.rfind("enumerate(DataLoader)", 0) == 0 ||
         name.rfind("Optimizer.", 0) == 0;
}

EventHead head_of(const json& e) {
  static const json kNoArgs = json::object();
  EventHead h;
  h.ph = str_of(e, "ph");
  h.name = str_of(e, "name");
  const auto args_it = e.find("args");
  h.args = args_it != e.end() ? &*args_it : &kNoArgs;
  h.pid = static_cast<std::uint32_t>(member_id(e, "pid"));
  h.tid = member_id(e, "tid");
  return h;
}

std::optional<std::string> metadata_name(const EventHead& h) {
  const json& args = *h.args;
  if (!args.is_object()) return std::nullopt;
  const auto it = args.find("name");
  if (it == args.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<Span> span_of(const json& e) {
  const std::int64_t start = ns_of(e.value("ts", json()));
  const std::int64_t dur = ns_of(e.value("dur", json(0)));
  if (start < 0 || dur < 0) return std::nullopt;
  if (dur > INT64_MAX - start) return std::nullopt;  // would overflow int64 ns
  return Span{start, start + dur};
}

EventKind kind_of(const std::string& cat, const std::string& name, bool keep_cpu_ops) {
  const bool cpu_side = cat == "cpu_op" || cat == "Trace";
  if (cat == "user_annotation" || (cpu_side && (keep_cpu_ops || is_structural_cpu_op(name)))) return EventKind::Range;
  if (cpu_side || cat == "python_function") return EventKind::DroppedCpuOp;
  if (cat == "cuda_runtime" || cat == "cuda_driver") return EventKind::ApiCall;
  if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") return EventKind::GpuOp;
  return EventKind::Other;
}

bool is_host_event(EventKind kind, const std::string& cat) {
  return kind == EventKind::Range || kind == EventKind::ApiCall || cat == "cpu_op";
}

std::uint32_t correlation_of(const json& args) { return static_cast<std::uint32_t>(arg_u64(args, "correlation")); }

format::RangeRec range_of(const EventHead& h, Span s, format::StrId name) {
  format::RangeRec r;
  r.pid = h.pid;
  r.tid = h.tid;
  r.end_tid = h.tid;
  r.name = name;
  r.start_ns = s.start;
  r.end_ns = s.end;
  return r;
}

format::ApiCallRec api_call_of(const EventHead& h, const std::string& cat, Span s, format::StrId name) {
  format::ApiCallRec a;
  a.pid = h.pid;
  a.tid = h.tid;
  a.api = cat == "cuda_runtime" ? format::ApiKind::Runtime : format::ApiKind::Driver;
  a.cbid = static_cast<std::uint32_t>(arg_u64(*h.args, "cbid"));
  a.name = name;
  a.start_ns = s.start;
  a.end_ns = s.end;
  a.correlation_id = correlation_of(*h.args);
  return a;
}

format::GpuOpRec gpu_op_of(const EventHead& h, const std::string& cat, Span s, format::StrId kernel_name) {
  const json& args = *h.args;
  format::GpuOpRec op;
  op.device = static_cast<std::uint32_t>(arg_u64(args, "device", h.pid));
  op.stream = static_cast<std::uint32_t>(arg_u64(args, "stream", h.tid));
  op.context = static_cast<std::uint32_t>(arg_u64(args, "context"));
  op.start_ns = s.start;
  op.end_ns = s.end;
  op.correlation_id = correlation_of(args);
  if (cat == "kernel") {
    op.kind = format::GpuOpKind::Kernel;
    op.name = kernel_name;
  } else if (cat == "gpu_memcpy") {
    op.kind = format::GpuOpKind::Memcpy;
    op.bytes = arg_u64(args, "bytes");
    parse_memcpy_name(h.name, op);
  } else {
    op.kind = format::GpuOpKind::Memset;
    op.bytes = arg_u64(args, "bytes");
  }
  return op;
}

}  // namespace amdahl::kineto::detail
