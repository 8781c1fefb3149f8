// Conversion of CUPTI activity records into amdahl's plain records (see cupti_records.hpp).
// Reads the struct layouts of cupti_activity.h only; no cupti* call lives here.
#include "cupti_records.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace amdahl::profiler::cupti {

namespace {

constexpr std::uint32_t kNoStream = 0xffffffffU;

std::int64_t ns(std::uint64_t t) noexcept { return static_cast<std::int64_t>(t); }

}  // namespace

std::string api_display_name(std::string_view n) {
  // Strip one trailing "_v<digits>" (CUPTI's version suffix).
  const auto pos = n.rfind("_v");
  if (pos != std::string_view::npos && pos > 0 && pos + 2 < n.size()) {
    const bool digits = std::all_of(n.begin() + static_cast<std::ptrdiff_t>(pos) + 2, n.end(),
                                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
    if (digits) return std::string(n.substr(0, pos));
  }
  return std::string(n);
}

format::CopyKind map_copy_kind(std::uint32_t k) noexcept {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return format::CopyKind::HtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return format::CopyKind::DtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return format::CopyKind::DtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return format::CopyKind::HtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return format::CopyKind::PtoP;
    default: return format::CopyKind::Unknown;
  }
}

format::MemKind map_memory_kind(std::uint32_t k) noexcept {
  switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return format::MemKind::Pageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return format::MemKind::Pinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return format::MemKind::Device;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return format::MemKind::Managed;
    default: return format::MemKind::Unknown;
  }
}

format::SyncKind map_sync_kind(std::uint32_t t) noexcept {
  switch (t) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return format::SyncKind::EventSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return format::SyncKind::StreamWaitEvent;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return format::SyncKind::StreamSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return format::SyncKind::ContextSynchronize;
    default: return format::SyncKind::Unknown;
  }
}

const char* overhead_kind_name(std::uint32_t k) noexcept {
  switch (k) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER: return "driver_compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH: return "buffer_flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION: return "instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE: return "resource";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING: return "module_loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING: return "lazy_function_loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL: return "command_buffer_full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST: return "buffer_request";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT: return "uvm_init";
    default: return "unknown";
  }
}

std::vector<std::pair<std::string, std::uint64_t>> ConvertStats::as_diagnostics() const {
  std::vector<std::pair<std::string, std::uint64_t>> d;
  if (no_timestamp) d.emplace_back("cupti.no_timestamp", no_timestamp);
  if (bad_interval) d.emplace_back("cupti.bad_interval", bad_interval);
  for (const auto& [kind, n] : unknown_kinds) d.emplace_back("cupti.unknown_kind." + std::to_string(kind), n);
  for (const auto& [name, n] : overhead_ns) d.emplace_back("cupti.overhead_ns." + name, n);
  for (const auto& [name, n] : overhead_records) d.emplace_back("cupti.overhead_records." + name, n);
  return d;
}

ConvertStats ActivityConverter::take_stats() noexcept {
  ConvertStats s = std::move(stats_);
  stats_ = ConvertStats{};
  return s;
}

bool ActivityConverter::check_interval(std::uint64_t start, std::uint64_t end) noexcept {
  if (start == 0 && end == 0) {
    ++stats_.no_timestamp;
    return false;
  }
  if (end < start) {
    ++stats_.bad_interval;
    return false;
  }
  return true;
}

format::StrId ActivityConverter::kernel_name(const char* name) {
  if (name == nullptr || *name == '\0') return format::kNoString;
  auto it = kernel_names_.find(name);
  if (it != kernel_names_.end() && it->second.first == name) return it->second.second;
  const format::StrId id = interner_.intern(name);
  kernel_names_[name] = {std::string(name), id};
  return id;
}

format::StrId ActivityConverter::lookup_api_name(format::ApiKind api, std::uint32_t cbid) {
  const std::uint64_t key = (static_cast<std::uint64_t>(api) << 32) | cbid;
  auto it = api_names_.find(key);
  if (it != api_names_.end()) return it->second;
  const char* raw = api_name_ ? api_name_(api, cbid) : nullptr;
  const std::string name = (raw && *raw) ? api_display_name(raw) : "cbid:" + std::to_string(cbid);
  const format::StrId id = interner_.intern(name);
  api_names_.emplace(key, id);
  return id;
}

bool ActivityConverter::convert(const CUpti_Activity* rec, format::RecordSet& out) {
  if (rec == nullptr) return false;
  bool ok = false;
  switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      ok = convert_kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(rec), out);
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      ok = convert_memcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec), out);
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      ok = convert_memcpy_p2p(*reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(rec), out);
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      ok = convert_memset(*reinterpret_cast<const CUpti_ActivityMemset4*>(rec), out);
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API:
      ok = convert_api(*reinterpret_cast<const CUpti_ActivityAPI*>(rec), out);
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      ok = convert_sync(*reinterpret_cast<const CUpti_ActivitySynchronization2*>(rec), out);
      break;
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      ok = convert_cuda_event(*reinterpret_cast<const CUpti_ActivityCudaEvent2*>(rec), out);
      break;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      ok = convert_overhead(*reinterpret_cast<const CUpti_ActivityOverhead3*>(rec));
      break;
    case CUPTI_ACTIVITY_KIND_DEVICE:
      ok = convert_device(*reinterpret_cast<const CUpti_ActivityDevice5*>(rec), out);
      break;
    default:
      ++stats_.unknown_kinds[static_cast<std::uint32_t>(rec->kind)];
      return false;
  }
  if (ok) ++stats_.converted;
  return ok;
}

// The fields every GPU-operation record shares (kernel, memcpy, memset layouts all name them
// alike).
template <class Rec>
format::GpuOpRec ActivityConverter::gpu_op(const Rec& r, format::GpuOpKind kind) {
  format::GpuOpRec g;
  g.pid = pid_;
  g.device = r.deviceId;
  g.context = r.contextId;
  g.stream = r.streamId;
  g.kind = kind;
  g.start_ns = ns(r.start);
  g.end_ns = ns(r.end);
  g.correlation_id = correlation(r.correlationId);
  g.graph_id = r.graphId;
  return g;
}

bool ActivityConverter::convert_kernel(const CUpti_ActivityKernel10& k, format::RecordSet& out) {
  if (!check_interval(k.start, k.end)) return false;
  format::GpuOpRec g = gpu_op(k, format::GpuOpKind::Kernel);
  g.name = kernel_name(k.name);
  out.gpu_ops.push_back(g);
  return true;
}

bool ActivityConverter::convert_memcpy(const CUpti_ActivityMemcpy6& m, format::RecordSet& out) {
  if (!check_interval(m.start, m.end)) return false;
  format::GpuOpRec g = gpu_op(m, format::GpuOpKind::Memcpy);
  g.bytes = m.bytes;
  g.copy_kind = map_copy_kind(m.copyKind);
  g.src_kind = map_memory_kind(m.srcKind);
  g.dst_kind = map_memory_kind(m.dstKind);
  out.gpu_ops.push_back(g);
  return true;
}

bool ActivityConverter::convert_memcpy_p2p(const CUpti_ActivityMemcpyPtoP4& m, format::RecordSet& out) {
  if (!check_interval(m.start, m.end)) return false;
  format::GpuOpRec g = gpu_op(m, format::GpuOpKind::Memcpy);
  g.bytes = m.bytes;
  const format::CopyKind ck = map_copy_kind(m.copyKind);
  g.copy_kind = ck == format::CopyKind::Unknown ? format::CopyKind::PtoP : ck;
  g.src_kind = map_memory_kind(m.srcKind);
  g.dst_kind = map_memory_kind(m.dstKind);
  out.gpu_ops.push_back(g);
  return true;
}

bool ActivityConverter::convert_memset(const CUpti_ActivityMemset4& m, format::RecordSet& out) {
  if (!check_interval(m.start, m.end)) return false;
  format::GpuOpRec g = gpu_op(m, format::GpuOpKind::Memset);
  g.bytes = m.bytes;
  g.dst_kind = map_memory_kind(m.memoryKind);
  out.gpu_ops.push_back(g);
  return true;
}

bool ActivityConverter::convert_api(const CUpti_ActivityAPI& a, format::RecordSet& out) {
  if (!check_interval(a.start, a.end)) return false;
  format::ApiCallRec r;
  r.pid = a.processId != 0 ? a.processId : pid_;
  r.tid = a.threadId;
  if (a.kind == CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API) {
    // A launch made by the driver outside any public API call: cbid is unused.
    r.api = format::ApiKind::Driver;
    r.cbid = 0;
    auto it = api_names_.find(~std::uint64_t{0});
    if (it == api_names_.end()) it = api_names_.emplace(~std::uint64_t{0}, interner_.intern("internal_launch")).first;
    r.name = it->second;
  } else {
    r.api = a.kind == CUPTI_ACTIVITY_KIND_DRIVER ? format::ApiKind::Driver : format::ApiKind::Runtime;
    r.cbid = a.cbid;
    r.name = lookup_api_name(r.api, a.cbid);
  }
  r.start_ns = ns(a.start);
  r.end_ns = ns(a.end);
  r.correlation_id = correlation(a.correlationId);
  out.api_calls.push_back(r);
  return true;
}

bool ActivityConverter::convert_sync(const CUpti_ActivitySynchronization2& s, format::RecordSet& out) {
  if (!check_interval(s.start, s.end)) return false;
  format::SyncRec r;
  r.pid = pid_;
  r.context = s.contextId;
  r.stream = s.streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? kNoStream : s.streamId;
  r.event = s.cudaEventId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : s.cudaEventId;
  r.kind = map_sync_kind(s.type);
  r.start_ns = ns(s.start);
  r.end_ns = ns(s.end);
  r.correlation_id = correlation(s.correlationId);
  out.syncs.push_back(r);
  return true;
}

// One cudaEventRecord / cuEventRecord* call. No host interval of its own: the API record with
// the same correlation id has the thread and time. deviceTimestamp is 0 unless CUPTI was asked
// for it (cuptiActivityEnableCudaEventDeviceTimestamps, which the collector does not call).
bool ActivityConverter::convert_cuda_event(const CUpti_ActivityCudaEvent2& e, format::RecordSet& out) {
  format::EventRecordRec r;
  r.pid = pid_;
  r.device = e.deviceId;
  r.context = e.contextId;
  r.stream = e.streamId;
  r.event = e.eventId;
  r.correlation_id = correlation(e.correlationId);
  r.device_ts_ns = ns(e.deviceTimestamp);
  out.event_records.push_back(r);
  return true;
}

bool ActivityConverter::convert_overhead(const CUpti_ActivityOverhead3& o) {
  if (!check_interval(o.start, o.end)) return false;
  const std::string name = overhead_kind_name(o.overheadKind);
  stats_.overhead_ns[name] += o.end - o.start;
  stats_.overhead_records[name] += 1;
  return true;
}

bool ActivityConverter::convert_device(const CUpti_ActivityDevice5& d, format::RecordSet& out) {
  format::DeviceRec r;
  r.pid = pid_;
  r.device = d.id;
  r.name = d.name ? interner_.intern(d.name) : format::kNoString;
  r.global_memory = d.globalMemorySize;
  r.cc_major = d.computeCapabilityMajor;
  r.cc_minor = d.computeCapabilityMinor;
  r.sm_count = d.numMultiprocessors;
  out.devices.push_back(r);
  ++stats_.devices;
  return true;
}

void order_records(format::RecordSet& rs) {
  auto by_start = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
  std::stable_sort(rs.gpu_ops.begin(), rs.gpu_ops.end(), by_start);
  std::stable_sort(rs.api_calls.begin(), rs.api_calls.end(), by_start);
  std::stable_sort(rs.syncs.begin(), rs.syncs.end(), by_start);
  std::stable_sort(rs.event_records.begin(), rs.event_records.end(),
                   [](const auto& a, const auto& b) { return a.correlation_id < b.correlation_id; });
  std::vector<format::DeviceRec> unique;
  for (const auto& d : rs.devices) {
    const bool seen = std::any_of(unique.begin(), unique.end(), [&](const format::DeviceRec& u) {
      return u.pid == d.pid && u.device == d.device;
    });
    if (!seen) unique.push_back(d);
  }
  rs.devices = std::move(unique);
}

}  // namespace amdahl::profiler::cupti
