// Field lists of the plain records: one place that names every field of every record, used by
// the part-file writer and reader (and usable by any other serializer) so they cannot disagree.
// `version` is the part-file version (part_file.hpp) being written or read: a field added in a
// later version is visited only from that version on (reading an older part, it keeps its
// default). Without it, every field.
#pragma once

#include <cstdint>

#include "amdahl/format/records.hpp"

namespace amdahl::format {

template <class F> constexpr void visit_fields(Payload& r, F&& f) { f(r.kind); f(r.i); f(r.d); }
template <class F> constexpr void visit_fields(RangeRec& r, F&& f, std::uint32_t version = UINT32_MAX) {
  f(r.pid); f(r.tid); f(r.end_tid); f(r.domain); f(r.name); f(r.category); f(r.kind);
  f(r.depth); f(r.parent); f(r.start_ns); f(r.end_ns); f(r.unclosed); visit_fields(r.payload, f);
  if (version >= 3) { f(r.thread_cpu_ns); f(r.process_cpu_ns); }
}
template <class F> constexpr void visit_fields(MarkRec& r, F&& f) {
  f(r.pid); f(r.tid); f(r.domain); f(r.name); f(r.category); f(r.ts_ns); visit_fields(r.payload, f);
}
template <class F> constexpr void visit_fields(ThreadRec& r, F&& f) { f(r.pid); f(r.tid); f(r.name); }
template <class F> constexpr void visit_fields(CategoryRec& r, F&& f) { f(r.pid); f(r.domain); f(r.category); f(r.name); }
template <class F> constexpr void visit_fields(ProcessRec& r, F&& f, std::uint32_t version = UINT32_MAX) {
  f(r.pid); f(r.ppid); f(r.command); f(r.start_ns); f(r.end_ns); f(r.rank);
  if (version >= 3) { f(r.cpus_online); f(r.cpus_allowed); f(r.omp_threads); }
}
template <class F> constexpr void visit_fields(ApiCallRec& r, F&& f) {
  f(r.pid); f(r.tid); f(r.api); f(r.cbid); f(r.name); f(r.start_ns); f(r.end_ns); f(r.correlation_id);
}
template <class F> constexpr void visit_fields(GpuOpRec& r, F&& f) {
  f(r.pid); f(r.device); f(r.context); f(r.stream); f(r.kind); f(r.name); f(r.start_ns); f(r.end_ns);
  f(r.correlation_id); f(r.bytes); f(r.copy_kind); f(r.src_kind); f(r.dst_kind); f(r.graph_id);
}
template <class F> constexpr void visit_fields(SyncRec& r, F&& f) {
  f(r.pid); f(r.context); f(r.stream); f(r.event); f(r.kind); f(r.start_ns); f(r.end_ns); f(r.correlation_id);
}
template <class F> constexpr void visit_fields(DiagRec& r, F&& f) { f(r.pid); f(r.key); f(r.count); f(r.detail); }
template <class F> constexpr void visit_fields(EventRecordRec& r, F&& f) {
  f(r.pid); f(r.device); f(r.context); f(r.stream); f(r.event); f(r.correlation_id); f(r.device_ts_ns);
}
template <class F> constexpr void visit_fields(DeviceRec& r, F&& f) {
  f(r.pid); f(r.device); f(r.name); f(r.global_memory); f(r.cc_major); f(r.cc_minor); f(r.sm_count);
}

}  // namespace amdahl::format
