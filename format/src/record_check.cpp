// check_part_records: every enum field of a decoded part within its enum, so that a part
// with a byte the format does not define is refused as a whole when it is read (a merged
// profile with it would save, then fail `export` as corrupt while `report` worked).
#include <string>
#include <type_traits>

#include "amdahl/format/part_file.hpp"

namespace amdahl::format {
namespace {

// The first field of a record outside its enum: its name and value; name nullptr when none.
struct Bad {
  const char* field = nullptr;
  unsigned value = 0;
};

template <class E>
bool within(E v, E last, const char* field, Bad& bad) {
  using U = std::underlying_type_t<E>;
  if (static_cast<U>(v) <= static_cast<U>(last)) return true;
  bad = {field, static_cast<unsigned>(v)};
  return false;
}

template <class Rec, class Check>
void each(const std::vector<Rec>& v, const char* what, Check check) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    Bad bad;
    check(v[i], bad);
    if (bad.field != nullptr)
      throw PartError(std::string("part file is corrupt: ") + what + " " + std::to_string(i) + " has " + bad.field +
                      " " + std::to_string(bad.value) + ", a kind the format does not define");
  }
}

}  // namespace

void check_part_records(const RecordSet& rs) {
  each(rs.ranges, "range", [](const RangeRec& r, Bad& b) {
    (void)(within(r.kind, RangeKind::StartEnd, "kind", b) && within(r.payload.kind, PayloadKind::Double, "payload kind", b));
  });
  each(rs.marks, "mark", [](const MarkRec& r, Bad& b) { within(r.payload.kind, PayloadKind::Double, "payload kind", b); });
  each(rs.api_calls, "API call", [](const ApiCallRec& r, Bad& b) { within(r.api, ApiKind::Driver, "API kind", b); });
  each(rs.gpu_ops, "GPU operation", [](const GpuOpRec& r, Bad& b) {
    (void)(within(r.kind, GpuOpKind::Memset, "kind", b) && within(r.copy_kind, CopyKind::PtoP, "copy kind", b) &&
        within(r.src_kind, MemKind::Managed, "source memory kind", b) &&
        within(r.dst_kind, MemKind::Managed, "destination memory kind", b));
  });
  each(rs.syncs, "sync", [](const SyncRec& r, Bad& b) { within(r.kind, SyncKind::ContextSynchronize, "kind", b); });
}

}  // namespace amdahl::format
