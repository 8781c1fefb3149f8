// Plain value records shared by the collector, the part files, the SQLite profile and the
// analyzer. Timestamps are int64 nanoseconds on one clock (CLOCK_MONOTONIC); names are ids
// into a string table (per part file in a part, per profile in a profile). No CUDA types here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace amdahl::format {

using StrId = std::uint32_t;
inline constexpr StrId kNoString = 0;  // id 0 is always the empty string

enum class PayloadKind : std::uint8_t { None = 0, Int64 = 1, UInt64 = 2, Double = 3 };

struct Payload {
  PayloadKind kind = PayloadKind::None;
  std::int64_t i = 0;  // Int64 and UInt64 (bit pattern) payloads
  double d = 0.0;      // Double payloads
};

enum class RangeKind : std::uint8_t { PushPop = 0, StartEnd = 1 };

// One NVTX range. For push/pop ranges depth and parent come from the thread's stack at push
// time; start/end ranges have depth -1 and may end on another thread (end_tid).
// thread_cpu_ns / process_cpu_ns: CPU time between push and pop, of the opening thread
// (CLOCK_THREAD_CPUTIME_ID) and of the whole process, all its threads (CLOCK_PROCESS_CPUTIME_ID);
// process - thread is what the process's other threads ran meanwhile. Recorded for push/pop
// ranges of domain `amdahl` only (AMDAHL_RANGE_CPU=0: none); -1 when unknown (other domains,
// start/end ranges, unclosed ranges, profiles and parts written before the fields existed).
struct RangeRec {
  std::uint32_t pid = 0;
  std::uint64_t tid = 0;       // OS thread id (gettid) that opened the range
  std::uint64_t end_tid = 0;   // OS thread id that closed it
  StrId domain = kNoString;    // "" for the default domain
  StrId name = kNoString;
  std::uint32_t category = 0;
  RangeKind kind = RangeKind::PushPop;
  std::int32_t depth = 0;      // 0 = outermost push/pop range on its thread; -1 start/end
  std::int64_t parent = -1;    // index of the enclosing push/pop range in the same part, or -1
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;     // for ranges never closed: the process end, and `unclosed` set
  bool unclosed = false;
  Payload payload;
  std::int64_t thread_cpu_ns = -1;   // CPU time of the opening thread over the range; -1 unknown
  std::int64_t process_cpu_ns = -1;  // CPU time of all the process's threads over it; -1 unknown
};

struct MarkRec {
  std::uint32_t pid = 0;
  std::uint64_t tid = 0;
  StrId domain = kNoString;
  StrId name = kNoString;
  std::uint32_t category = 0;
  std::int64_t ts_ns = 0;
  Payload payload;
};

struct ThreadRec {
  std::uint32_t pid = 0;
  std::uint64_t tid = 0;
  StrId name = kNoString;  // OS thread name or nvtxNameOsThread name
};

// NVTX category names (nvtxNameCategory / nvtxDomainNameCategory).
struct CategoryRec {
  std::uint32_t pid = 0;
  StrId domain = kNoString;
  std::uint32_t category = 0;
  StrId name = kNoString;
};

struct ProcessRec {
  std::uint32_t pid = 0;
  std::uint32_t ppid = 0;
  StrId command = kNoString;  // argv joined by spaces (from /proc/self/cmdline)
  std::int64_t start_ns = 0;  // collector initialisation
  std::int64_t end_ns = 0;    // part written
  std::uint32_t rank = 0;     // data-parallel rank where known (RANK / OMPI_COMM_WORLD_RANK)
  // The CPUs the process had, read at collector initialisation; 0 = unknown (older profiles).
  std::uint32_t cpus_online = 0;   // sysconf(_SC_NPROCESSORS_ONLN)
  std::uint32_t cpus_allowed = 0;  // CPU_COUNT of sched_getaffinity (taskset, cgroup cpusets)
  std::uint32_t omp_threads = 0;   // OMP_NUM_THREADS (its first number) if set, else 0
};

enum class ApiKind : std::uint8_t { Runtime = 0, Driver = 1 };

struct ApiCallRec {
  std::uint32_t pid = 0;
  std::uint64_t tid = 0;
  ApiKind api = ApiKind::Runtime;
  std::uint32_t cbid = 0;
  StrId name = kNoString;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t correlation_id = 0;
};

enum class GpuOpKind : std::uint8_t { Kernel = 0, Memcpy = 1, Memset = 2 };
enum class CopyKind : std::uint8_t { Unknown = 0, HtoD = 1, DtoH = 2, DtoD = 3, HtoH = 4, PtoP = 5 };
// A copy direction's name ("HtoD", ...); `unknown` for Unknown and for a value no enumerator has
// (the reports and the Chrome trace each word that case their own way).
inline const char* copy_kind_name(CopyKind k, const char* unknown) noexcept {
  switch (k) {
    case CopyKind::HtoD: return "HtoD";
    case CopyKind::DtoH: return "DtoH";
    case CopyKind::DtoD: return "DtoD";
    case CopyKind::HtoH: return "HtoH";
    case CopyKind::PtoP: return "PtoP";
    case CopyKind::Unknown: break;
  }
  return unknown;
}
enum class MemKind : std::uint8_t { Unknown = 0, Pageable = 1, Pinned = 2, Device = 3, Managed = 4 };

struct GpuOpRec {
  std::uint32_t pid = 0;
  std::uint32_t device = 0;
  std::uint32_t context = 0;
  std::uint32_t stream = 0;
  GpuOpKind kind = GpuOpKind::Kernel;
  StrId name = kNoString;  // kernel name; "" for copies and sets
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t correlation_id = 0;
  std::uint64_t bytes = 0;  // memcpy / memset
  CopyKind copy_kind = CopyKind::Unknown;
  MemKind src_kind = MemKind::Unknown;
  MemKind dst_kind = MemKind::Unknown;
  std::uint32_t graph_id = 0;  // non-zero when launched through a CUDA graph
};

enum class SyncKind : std::uint8_t {
  Unknown = 0, EventSynchronize = 1, StreamWaitEvent = 2, StreamSynchronize = 3,
  ContextSynchronize = 4
};

// A CUPTI synchronization record: the host thread blocked from start to end.
struct SyncRec {
  std::uint32_t pid = 0;
  std::uint32_t context = 0;
  std::uint32_t stream = 0;  // 0xffffffff when not stream specific
  std::uint32_t event = 0;
  SyncKind kind = SyncKind::Unknown;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t correlation_id = 0;
};

// A CUDA event recorded on a stream (cudaEventRecord, cudaEventRecordWithFlags, cuEventRecord*):
// CUPTI's CUDA_EVENT record, one per record call. `correlation_id` is that call's
// (api_calls.correlation_id, same pid: the host thread and time that recorded it); the GPU work
// the event stands for is what was put on `stream` before that call. `event` is the id that
// syncs.event names: a sync waits for the latest record of its event made before the sync's call.
struct EventRecordRec {
  std::uint32_t pid = 0;
  std::uint32_t device = 0;
  std::uint32_t context = 0;
  std::uint32_t stream = 0;
  std::uint32_t event = 0;
  std::uint32_t correlation_id = 0;
  std::int64_t device_ts_ns = 0;  // when the GPU reached the event; 0 if unknown (not collected)
};

// Counted problems: dropped records, unbalanced pops, ranges never closed, truncated parts...
struct DiagRec {
  std::uint32_t pid = 0;
  StrId key = kNoString;
  std::uint64_t count = 0;
  StrId detail = kNoString;
};

// Devices seen by CUPTI.
struct DeviceRec {
  std::uint32_t pid = 0;
  std::uint32_t device = 0;
  StrId name = kNoString;
  std::uint64_t global_memory = 0;
  std::uint32_t cc_major = 0;
  std::uint32_t cc_minor = 0;
  std::uint32_t sm_count = 0;
};

// Everything one process (a part) or one whole run (a profile) holds.
struct RecordSet {
  std::vector<std::string> strings{std::string{}};  // id -> text; id 0 is ""
  std::vector<ProcessRec> processes;
  std::vector<ThreadRec> threads;
  std::vector<CategoryRec> categories;
  std::vector<RangeRec> ranges;
  std::vector<MarkRec> marks;
  std::vector<ApiCallRec> api_calls;
  std::vector<GpuOpRec> gpu_ops;
  std::vector<SyncRec> syncs;
  std::vector<EventRecordRec> event_records;
  std::vector<DeviceRec> devices;
  std::vector<DiagRec> diagnostics;

  const std::string& str(StrId id) const { return id < strings.size() ? strings[id] : strings[0]; }
};

}  // namespace amdahl::format
