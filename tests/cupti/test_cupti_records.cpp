// Unit tests of the CUPTI record conversion with synthetic activity records laid out in memory
// as CUPTI delivers them (no GPU, no libcupti): every field of every converted record, skipped
// and unknown kinds counted, name caching, API name clean-up, and ordering.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cupti_records.hpp"

using namespace amdahl;
using namespace amdahl::profiler::cupti;

namespace {

// A string table standing in for the collector core's interner.
struct TableInterner final : Interner {
  std::vector<std::string> strings{std::string{}};
  int calls = 0;
  format::StrId intern(std::string_view s) noexcept override {
    ++calls;
    if (s.empty()) return format::kNoString;
    for (std::size_t i = 0; i < strings.size(); ++i) {
      if (strings[i] == s) return static_cast<format::StrId>(i);
    }
    strings.emplace_back(s);
    return static_cast<format::StrId>(strings.size() - 1);
  }
  const std::string& str(format::StrId id) const { return strings.at(id); }
};

int g_name_lookups = 0;
const char* fake_api_name(format::ApiKind api, std::uint32_t cbid) noexcept {
  ++g_name_lookups;
  if (api == format::ApiKind::Runtime && cbid == 211) return "cudaLaunchKernel_v7000";
  if (api == format::ApiKind::Runtime && cbid == 430) return "cudaLaunchKernelExC_v11060";
  if (api == format::ApiKind::Driver && cbid == 307) return "cuLaunchKernel";
  if (api == format::ApiKind::Runtime && cbid == 131) return "cudaStreamSynchronize_v3020";
  return nullptr;
}

// A byte buffer holding records back to back at 8-byte alignment, like a CUPTI buffer.
struct SyntheticBuffer {
  std::vector<std::uint8_t> bytes;
  std::vector<std::size_t> offsets;
  template <class T> T& add() {
    const std::size_t at = (bytes.size() + 7) / 8 * 8;
    bytes.resize(at + sizeof(T), 0);
    offsets.push_back(at);
    return *reinterpret_cast<T*>(bytes.data() + at);
  }
  // Converts every record in order (offsets stay valid once all records were added).
  void convert_all(ActivityConverter& c, format::RecordSet& out) const {
    for (std::size_t off : offsets) c.convert(reinterpret_cast<const CUpti_Activity*>(bytes.data() + off), out);
  }
};

CUpti_ActivityKernel10 make_kernel(const char* name, std::uint64_t start, std::uint64_t end, std::uint32_t corr) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = name;
  k.start = start;
  k.end = end;
  k.deviceId = 1;
  k.contextId = 7;
  k.streamId = 13;
  k.correlationId = corr;
  return k;
}

}  // namespace

TEST_CASE("kernel records keep device, context, stream, name, times, correlation and graph id") {
  TableInterner in;
  ActivityConverter conv(4242, in, &fake_api_name);
  format::RecordSet out;
  static const char kName[] = "_Z11spin_kernell";
  CUpti_ActivityKernel10 k = make_kernel(kName, 1'000'000'123, 1'002'000'456, 77);
  k.graphId = 5;
  k.graphNodeId = 99;
  REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&k), out));
  REQUIRE(out.gpu_ops.size() == 1);
  const auto& g = out.gpu_ops[0];
  CHECK(g.pid == 4242);
  CHECK(g.device == 1);
  CHECK(g.context == 7);
  CHECK(g.stream == 13);
  CHECK(g.kind == format::GpuOpKind::Kernel);
  CHECK(in.str(g.name) == kName);
  CHECK(g.start_ns == 1'000'000'123);
  CHECK(g.end_ns == 1'002'000'456);
  CHECK(g.correlation_id == 77);
  CHECK(g.bytes == 0);
  CHECK(g.copy_kind == format::CopyKind::Unknown);
  CHECK(g.src_kind == format::MemKind::Unknown);
  CHECK(g.dst_kind == format::MemKind::Unknown);
  CHECK(g.graph_id == 5);
  CHECK(conv.stats().converted == 1);

  // The legacy serial KERNEL kind has the same layout.
  k.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  k.graphId = 0;
  REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&k), out));
  CHECK(out.gpu_ops[1].graph_id == 0);
  CHECK(out.gpu_ops[1].name == g.name);
}

TEST_CASE("kernel names are interned once per distinct name, also when a pointer is reused") {
  TableInterner in;
  ActivityConverter conv(1, in, &fake_api_name);
  format::RecordSet out;
  char name[32] = "kernel_a";
  for (int i = 0; i < 5; ++i) {
    auto k = make_kernel(name, 10 + i, 20 + i, i);
    conv.convert(reinterpret_cast<const CUpti_Activity*>(&k), out);
  }
  CHECK(in.calls == 1);
  std::strcpy(name, "kernel_b");  // same address, new text (module unloaded and reloaded)
  auto k = make_kernel(name, 30, 40, 9);
  conv.convert(reinterpret_cast<const CUpti_Activity*>(&k), out);
  CHECK(in.calls == 2);
  CHECK(in.str(out.gpu_ops.back().name) == "kernel_b");
  CHECK(in.str(out.gpu_ops.front().name) == "kernel_a");
}

TEST_CASE("memcpy records: copy kind, bytes, and pinned / pageable / device / managed memory") {
  TableInterner in;
  ActivityConverter conv(10, in, &fake_api_name);
  format::RecordSet out;
  struct Case {
    std::uint8_t copy, src, dst;
    format::CopyKind ck;
    format::MemKind sk, dk;
  };
  const Case cases[] = {
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
       format::CopyKind::HtoD, format::MemKind::Pinned, format::MemKind::Device},
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
       format::CopyKind::HtoD, format::MemKind::Pageable, format::MemKind::Device},
      {CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
       format::CopyKind::DtoH, format::MemKind::Device, format::MemKind::Pageable},
      {CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC,
       format::CopyKind::DtoD, format::MemKind::Managed, format::MemKind::Device},
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, CUPTI_ACTIVITY_MEMORY_KIND_PINNED, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY,
       format::CopyKind::HtoD, format::MemKind::Pinned, format::MemKind::Device},
      {CUPTI_ACTIVITY_MEMCPY_KIND_ATOH, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC,
       format::CopyKind::DtoH, format::MemKind::Device, format::MemKind::Managed},
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
       format::CopyKind::HtoH, format::MemKind::Pageable, format::MemKind::Pinned},
      {CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN, CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN, 200,
       format::CopyKind::Unknown, format::MemKind::Unknown, format::MemKind::Unknown},
  };
  std::uint32_t corr = 100;
  for (const auto& c : cases) {
    CUpti_ActivityMemcpy6 m;
    std::memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = c.copy;
    m.srcKind = c.src;
    m.dstKind = c.dst;
    m.bytes = 64ull << 20;
    m.start = 5'000 + corr;
    m.end = 9'000 + corr;
    m.deviceId = 2;
    m.contextId = 3;
    m.streamId = 4;
    m.correlationId = corr;
    m.graphId = 0;
    REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&m), out));
    const auto& g = out.gpu_ops.back();
    CHECK(g.pid == 10);
    CHECK(g.kind == format::GpuOpKind::Memcpy);
    CHECK(g.name == format::kNoString);
    CHECK(g.device == 2);
    CHECK(g.context == 3);
    CHECK(g.stream == 4);
    CHECK(g.bytes == (64ull << 20));
    CHECK(g.start_ns == 5'000 + corr);
    CHECK(g.end_ns == 9'000 + corr);
    CHECK(g.correlation_id == corr);
    CHECK(g.copy_kind == c.ck);
    CHECK(g.src_kind == c.sk);
    CHECK(g.dst_kind == c.dk);
    CHECK(g.graph_id == 0);
    ++corr;
  }
  CHECK(out.gpu_ops.size() == std::size(cases));
}

TEST_CASE("peer-to-peer copies and memsets") {
  TableInterner in;
  ActivityConverter conv(10, in, &fake_api_name);
  format::RecordSet out;
  CUpti_ActivityMemcpyPtoP4 p;
  std::memset(&p, 0, sizeof p);
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.bytes = 4096;
  p.start = 100;
  p.end = 250;
  p.deviceId = 0;
  p.contextId = 1;
  p.streamId = 2;
  p.srcDeviceId = 0;
  p.dstDeviceId = 1;
  p.correlationId = 31;
  p.graphId = 8;
  REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&p), out));
  auto g = out.gpu_ops.back();
  CHECK(g.kind == format::GpuOpKind::Memcpy);
  CHECK(g.copy_kind == format::CopyKind::PtoP);
  CHECK(g.src_kind == format::MemKind::Device);
  CHECK(g.dst_kind == format::MemKind::Device);
  CHECK(g.bytes == 4096);
  CHECK(g.start_ns == 100);
  CHECK(g.end_ns == 250);
  CHECK(g.device == 0);
  CHECK(g.context == 1);
  CHECK(g.stream == 2);
  CHECK(g.correlation_id == 31);
  CHECK(g.graph_id == 8);

  CUpti_ActivityMemset4 s;
  std::memset(&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.value = 0;
  s.bytes = 1 << 20;
  s.start = 300;
  s.end = 320;
  s.deviceId = 3;
  s.contextId = 4;
  s.streamId = 5;
  s.correlationId = 32;
  s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  s.graphId = 0;
  REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&s), out));
  g = out.gpu_ops.back();
  CHECK(g.pid == 10);
  CHECK(g.kind == format::GpuOpKind::Memset);
  CHECK(g.bytes == (1u << 20));
  CHECK(g.start_ns == 300);
  CHECK(g.end_ns == 320);
  CHECK(g.device == 3);
  CHECK(g.context == 4);
  CHECK(g.stream == 5);
  CHECK(g.correlation_id == 32);
  CHECK(g.copy_kind == format::CopyKind::Unknown);
  CHECK(g.src_kind == format::MemKind::Unknown);
  CHECK(g.dst_kind == format::MemKind::Managed);
}

TEST_CASE("runtime, driver and internal-launch API records keep pid, tid, cbid, name and correlation") {
  TableInterner in;
  ActivityConverter conv(10, in, &fake_api_name);
  format::RecordSet out;
  g_name_lookups = 0;
  auto api = [](CUpti_ActivityKind kind, std::uint32_t cbid, std::uint64_t start, std::uint64_t end,
                std::uint32_t corr) {
    CUpti_ActivityAPI a;
    std::memset(&a, 0, sizeof a);
    a.kind = kind;
    a.cbid = cbid;
    a.start = start;
    a.end = end;
    a.processId = 555;
    a.threadId = 556;
    a.correlationId = corr;
    return a;
  };
  const CUpti_ActivityAPI recs[] = {
      api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 1000, 1500, 41),
      api(CUPTI_ACTIVITY_KIND_DRIVER, 307, 1100, 1400, 41),
      api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 2000, 2500, 42),
      api(CUPTI_ACTIVITY_KIND_RUNTIME, 430, 3000, 3500, 43),
      api(CUPTI_ACTIVITY_KIND_RUNTIME, 9999, 4000, 4100, 44),
      api(CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API, 0, 5000, 5100, 45),
  };
  for (const auto& a : recs) REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&a), out));
  REQUIRE(out.api_calls.size() == 6);
  const auto& r0 = out.api_calls[0];
  CHECK(r0.pid == 555);
  CHECK(r0.tid == 556);
  CHECK(r0.api == format::ApiKind::Runtime);
  CHECK(r0.cbid == 211);
  CHECK(in.str(r0.name) == "cudaLaunchKernel");
  CHECK(r0.start_ns == 1000);
  CHECK(r0.end_ns == 1500);
  CHECK(r0.correlation_id == 41);
  CHECK(out.api_calls[1].api == format::ApiKind::Driver);
  CHECK(out.api_calls[1].cbid == 307);
  CHECK(in.str(out.api_calls[1].name) == "cuLaunchKernel");
  CHECK(out.api_calls[1].correlation_id == 41);
  CHECK(out.api_calls[2].name == r0.name);
  CHECK(in.str(out.api_calls[3].name) == "cudaLaunchKernelExC");
  CHECK(in.str(out.api_calls[4].name) == "cbid:9999");
  CHECK(out.api_calls[5].api == format::ApiKind::Driver);
  CHECK(out.api_calls[5].cbid == 0);
  CHECK(in.str(out.api_calls[5].name) == "internal_launch");
  CHECK(out.api_calls[5].correlation_id == 45);
  // One lookup per distinct (api, cbid): 211 runtime, 307 driver, 430, 9999.
  CHECK(g_name_lookups == 4);
}

TEST_CASE("API records without a process id take the converter's pid") {
  TableInterner in;
  ActivityConverter conv(77, in, nullptr);
  format::RecordSet out;
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof a);
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = 211;
  a.start = 1;
  a.end = 2;
  a.threadId = 9;
  REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&a), out));
  CHECK(out.api_calls[0].pid == 77);
  CHECK(in.str(out.api_calls[0].name) == "cbid:211");  // no name function
}

TEST_CASE("after CUPTI attaches again, correlation ids continue after the largest so far") {
  // CUPTI numbers correlations afresh after cuptiFinalize: a sampled run's second window would
  // reuse the first window's ids, and its kernels would be matched to the first window's launches.
  TableInterner in;
  ActivityConverter conv(77, in, nullptr);
  format::RecordSet out;
  auto api = [&](std::uint32_t corr, std::uint64_t t) {
    CUpti_ActivityAPI a;
    std::memset(&a, 0, sizeof a);
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = 211;
    a.start = t;
    a.end = t + 1;
    a.correlationId = corr;
    REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&a), out));
  };
  auto kernel = [&](std::uint32_t corr, std::uint64_t t) {
    const CUpti_ActivityKernel10 k = make_kernel("k", t, t + 5, corr);
    REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&k), out));
  };
  api(1, 10);
  kernel(1, 12);
  api(7, 20);
  kernel(7, 22);
  conv.new_correlation_epoch();  // detached and attached again
  api(1, 100);
  kernel(1, 102);
  api(0, 110);  // 0 stays "none"
  REQUIRE(out.api_calls.size() == 4);
  REQUIRE(out.gpu_ops.size() == 3);
  CHECK(out.api_calls[0].correlation_id == 1);
  CHECK(out.api_calls[1].correlation_id == 7);
  CHECK(out.api_calls[2].correlation_id == 8);
  CHECK(out.gpu_ops[2].correlation_id == 8);
  CHECK(out.api_calls[3].correlation_id == 0);
  conv.new_correlation_epoch();
  api(3, 200);
  CHECK(out.api_calls[4].correlation_id == 11);
}

TEST_CASE("synchronization records: kind, context, stream, event, correlation") {
  TableInterner in;
  ActivityConverter conv(10, in, &fake_api_name);
  format::RecordSet out;
  auto sync = [](CUpti_ActivitySynchronizationType t, std::uint32_t stream, std::uint32_t event, std::uint32_t corr) {
    CUpti_ActivitySynchronization2 s;
    std::memset(&s, 0, sizeof s);
    s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    s.type = t;
    s.start = 1000 + corr;
    s.end = 2000 + corr;
    s.correlationId = corr;
    s.contextId = 6;
    s.streamId = stream;
    s.cudaEventId = event;
    return s;
  };
  const CUpti_ActivitySynchronization2 recs[] = {
      sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 14, CUPTI_SYNCHRONIZATION_INVALID_VALUE, 1),
      sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, CUPTI_SYNCHRONIZATION_INVALID_VALUE, 3, 2),
      sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 15, 4, 3),
      sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, CUPTI_SYNCHRONIZATION_INVALID_VALUE,
           CUPTI_SYNCHRONIZATION_INVALID_VALUE, 4),
      sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN, 1, 1, 5),
  };
  for (const auto& s : recs) REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&s), out));
  REQUIRE(out.syncs.size() == 5);
  const format::SyncKind kinds[] = {format::SyncKind::StreamSynchronize, format::SyncKind::EventSynchronize,
                                    format::SyncKind::StreamWaitEvent, format::SyncKind::ContextSynchronize,
                                    format::SyncKind::Unknown};
  const std::uint32_t streams[] = {14, 0xffffffffU, 15, 0xffffffffU, 1};
  const std::uint32_t events[] = {0, 3, 4, 0, 1};
  for (std::size_t i = 0; i < 5; ++i) {
    const auto& s = out.syncs[i];
    CAPTURE(i);
    CHECK(s.pid == 10);
    CHECK(s.context == 6);
    CHECK(s.kind == kinds[i]);
    CHECK(s.stream == streams[i]);
    CHECK(s.event == events[i]);
    CHECK(s.correlation_id == i + 1);
    CHECK(s.start_ns == static_cast<std::int64_t>(1000 + i + 1));
    CHECK(s.end_ns == static_cast<std::int64_t>(2000 + i + 1));
  }
}

TEST_CASE("CUDA event records: device, context, stream, event, correlation and device time") {
  TableInterner in;
  ActivityConverter conv(10, in, &fake_api_name);
  format::RecordSet out;
  auto event = [](std::uint32_t id, std::uint32_t stream, std::uint32_t corr, std::uint64_t device_ts) {
    CUpti_ActivityCudaEvent2 e;
    std::memset(&e, 0xab, sizeof e);  // padding and reserved fields hold junk, as they may
    e.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
    e.correlationId = corr;
    e.contextId = 6;
    e.streamId = stream;
    e.eventId = id;
    e.deviceId = 2;
    e.deviceTimestamp = device_ts;
    e.cudaEventSyncId = 777;
    return e;
  };
  SyntheticBuffer buf;
  buf.add<CUpti_ActivityCudaEvent2>() = event(3, 14, 52, 0);  // device timestamps not collected
  buf.add<CUpti_ActivityCudaEvent2>() = event(3, 15, 50, 1'000'000'000'777);
  buf.add<CUpti_ActivityCudaEvent2>() = event(0xfffffff0u, 0xfffffffeu, 0xffffffffu, 0);
  buf.convert_all(conv, out);
  REQUIRE(out.event_records.size() == 3);
  CHECK(conv.stats().converted == 3);
  CHECK(conv.stats().no_timestamp == 0);  // no host interval: never "untimed"
  CHECK(out.gpu_ops.empty());
  CHECK(out.syncs.empty());
  const auto& e = out.event_records[0];
  CHECK(e.pid == 10);
  CHECK(e.device == 2);
  CHECK(e.context == 6);
  CHECK(e.stream == 14);
  CHECK(e.event == 3);
  CHECK(e.correlation_id == 52);
  CHECK(e.device_ts_ns == 0);
  CHECK(out.event_records[1].device_ts_ns == 1'000'000'000'777);
  CHECK(out.event_records[2].event == 0xfffffff0u);
  CHECK(out.event_records[2].stream == 0xfffffffeu);
  CHECK(out.event_records[2].correlation_id == 0xffffffffu);
  // order_records: by correlation id, the order of the record calls.
  order_records(out);
  CHECK(out.event_records[0].correlation_id == 50);
  CHECK(out.event_records[1].correlation_id == 52);
  CHECK(out.event_records[2].correlation_id == 0xffffffffu);
}

TEST_CASE("device records: name, memory, compute capability, SM count; duplicates dropped by order_records") {
  TableInterner in;
  ActivityConverter conv(10, in, &fake_api_name);
  format::RecordSet out;
  CUpti_ActivityDevice5 d;
  std::memset(&d, 0, sizeof d);
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 0;
  d.name = "NVIDIA H200";
  d.globalMemorySize = 150'000'000'000ull;
  d.computeCapabilityMajor = 9;
  d.computeCapabilityMinor = 0;
  d.numMultiprocessors = 132;
  REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&d), out));
  REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&d), out));
  d.id = 1;
  REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&d), out));
  REQUIRE(out.devices.size() == 3);
  const auto& r = out.devices[0];
  CHECK(r.pid == 10);
  CHECK(r.device == 0);
  CHECK(in.str(r.name) == "NVIDIA H200");
  CHECK(r.global_memory == 150'000'000'000ull);
  CHECK(r.cc_major == 9);
  CHECK(r.cc_minor == 0);
  CHECK(r.sm_count == 132);
  CHECK(conv.stats().devices == 3);
  order_records(out);
  REQUIRE(out.devices.size() == 2);
  CHECK(out.devices[0].device == 0);
  CHECK(out.devices[1].device == 1);
}

TEST_CASE("overhead records become per-kind totals, not records") {
  TableInterner in;
  ActivityConverter conv(10, in, &fake_api_name);
  format::RecordSet out;
  CUpti_ActivityOverhead3 o;
  std::memset(&o, 0, sizeof o);
  o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  o.start = 1000;
  o.end = 1600;
  REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&o), out));
  o.start = 2000;
  o.end = 2400;
  REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&o), out));
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER;
  o.start = 10;
  o.end = 20;
  REQUIRE(conv.convert(reinterpret_cast<const CUpti_Activity*>(&o), out));
  CHECK(out.gpu_ops.empty());
  CHECK(out.api_calls.empty());
  CHECK(conv.stats().overhead_ns.at("buffer_flush") == 1000);
  CHECK(conv.stats().overhead_records.at("buffer_flush") == 2);
  CHECK(conv.stats().overhead_ns.at("driver_compiler") == 10);
  const auto diags = conv.stats().as_diagnostics();
  std::map<std::string, std::uint64_t> m(diags.begin(), diags.end());
  CHECK(m.at("cupti.overhead_ns.buffer_flush") == 1000);
  CHECK(m.at("cupti.overhead_records.buffer_flush") == 2);
  CHECK(m.at("cupti.overhead_ns.driver_compiler") == 10);
}

TEST_CASE("unknown kinds, missing timestamps and inverted intervals are counted and skipped") {
  TableInterner in;
  ActivityConverter conv(10, in, &fake_api_name);
  format::RecordSet out;
  SyntheticBuffer buf;
  buf.add<CUpti_ActivityKernel10>() = make_kernel("k", 0, 0, 1);        // no timestamps
  buf.add<CUpti_ActivityKernel10>() = make_kernel("k", 500, 400, 2);    // end before start
  buf.add<CUpti_ActivityKernel10>() = make_kernel("k", 500, 600, 3);    // fine
  auto& marker = buf.add<CUpti_ActivityMarker2>();
  marker.kind = CUPTI_ACTIVITY_KIND_MARKER;
  auto& marker2 = buf.add<CUpti_ActivityMarker2>();
  marker2.kind = CUPTI_ACTIVITY_KIND_MARKER;
  auto& ctx = buf.add<CUpti_ActivityContext3>();
  ctx.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  buf.convert_all(conv, out);
  CHECK(out.gpu_ops.size() == 1);
  CHECK(out.gpu_ops[0].correlation_id == 3);
  CHECK(conv.stats().converted == 1);
  CHECK(conv.stats().no_timestamp == 1);
  CHECK(conv.stats().bad_interval == 1);
  CHECK(conv.stats().unknown_kinds.at(CUPTI_ACTIVITY_KIND_MARKER) == 2);
  CHECK(conv.stats().unknown_kinds.at(CUPTI_ACTIVITY_KIND_CONTEXT) == 1);
  CHECK_FALSE(conv.convert(nullptr, out));

  const auto diags = conv.stats().as_diagnostics();
  std::map<std::string, std::uint64_t> m(diags.begin(), diags.end());
  CHECK(m.at("cupti.no_timestamp") == 1);
  CHECK(m.at("cupti.bad_interval") == 1);
  CHECK(m.at("cupti.unknown_kind." + std::to_string(CUPTI_ACTIVITY_KIND_MARKER)) == 2);

  const ConvertStats taken = conv.take_stats();
  CHECK(taken.converted == 1);
  CHECK(conv.stats().converted == 0);
  CHECK(conv.stats().unknown_kinds.empty());
}

TEST_CASE("a mixed buffer converts in arrival order; order_records sorts by start, stably") {
  TableInterner in;
  ActivityConverter conv(10, in, &fake_api_name);
  format::RecordSet out;
  SyntheticBuffer buf;
  // Two streams complete out of order; the API calls arrive after their kernels.
  buf.add<CUpti_ActivityKernel10>() = make_kernel("b", 3000, 4000, 2);
  buf.add<CUpti_ActivityKernel10>() = make_kernel("a", 1000, 2000, 1);
  buf.add<CUpti_ActivityKernel10>() = make_kernel("c", 3000, 3500, 3);  // same start as "b"
  auto& a2 = buf.add<CUpti_ActivityAPI>();
  a2 = CUpti_ActivityAPI{};
  a2.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a2.cbid = 211;
  a2.start = 900;
  a2.end = 950;
  a2.correlationId = 2;
  a2.threadId = 1;
  auto& a1 = buf.add<CUpti_ActivityAPI>();
  a1 = a2;
  a1.start = 800;
  a1.end = 850;
  a1.correlationId = 1;
  buf.convert_all(conv, out);
  REQUIRE(out.gpu_ops.size() == 3);
  CHECK(out.gpu_ops[0].correlation_id == 2);  // arrival order kept by convert
  CHECK(out.gpu_ops[1].correlation_id == 1);
  order_records(out);
  CHECK(out.gpu_ops[0].correlation_id == 1);
  CHECK(out.gpu_ops[1].correlation_id == 2);  // stable: "b" arrived before "c"
  CHECK(out.gpu_ops[2].correlation_id == 3);
  CHECK(out.api_calls[0].correlation_id == 1);
  CHECK(out.api_calls[1].correlation_id == 2);
}

TEST_CASE("API names lose CUPTI's version suffix only") {
  CHECK(api_display_name("cudaMemcpy_v3020") == "cudaMemcpy");
  CHECK(api_display_name("cuMemcpyHtoD_v2") == "cuMemcpyHtoD");
  CHECK(api_display_name("cudaLaunchKernel_ptsz_v7000") == "cudaLaunchKernel_ptsz");
  CHECK(api_display_name("cuLaunchKernel") == "cuLaunchKernel");
  CHECK(api_display_name("cuMemcpy_v") == "cuMemcpy_v");
  CHECK(api_display_name("cuFoo_vx2") == "cuFoo_vx2");
  CHECK(api_display_name("") == "");
}

TEST_CASE("enum mappings and overhead kind names") {
  CHECK(map_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP) == format::CopyKind::PtoP);
  CHECK(map_copy_kind(12345) == format::CopyKind::Unknown);
  CHECK(map_memory_kind(CUPTI_ACTIVITY_MEMORY_KIND_PINNED) == format::MemKind::Pinned);
  CHECK(map_memory_kind(99) == format::MemKind::Unknown);
  CHECK(map_sync_kind(77) == format::SyncKind::Unknown);
  CHECK(std::string(overhead_kind_name(CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL)) == "command_buffer_full");
  CHECK(std::string(overhead_kind_name(0x12345)) == "unknown");
}
