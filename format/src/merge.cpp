// merge_parts: many per-process RecordSets (parts) into one run-wide RecordSet: one string
// table (every StrId field remapped), range parents re-based into the merged ranges vector,
// timed records sorted by start time, and a reused pid given a distinct synthetic pid so that
// threads of two different processes are never merged.
#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "amdahl/format/part_file.hpp"
#include "amdahl/format/profile_store.hpp"

namespace amdahl::format {
namespace {

// Linux pids stay below 2^22 (pid_max); a reused pid in a second part gets this bit set.
constexpr std::uint32_t kSyntheticPidBit = 0x80000000u;

class StringTable {
 public:
  explicit StringTable(std::vector<std::string>& out) : out_(out) {
    out_.assign(1, std::string{});
    ids_.emplace(std::string{}, kNoString);
  }
  StrId intern(const std::string& s) {
    const auto [it, inserted] = ids_.try_emplace(s, static_cast<StrId>(out_.size()));
    if (inserted) out_.push_back(s);
    return it->second;
  }

 private:
  std::vector<std::string>& out_;
  std::unordered_map<std::string, StrId> ids_;
};

// One part's local → merged string ids, and its pid rewrite (for a reused pid).
struct PartMap {
  std::vector<StrId> str;
  std::uint32_t from_pid = 0;
  std::uint32_t to_pid = 0;
  bool rewrite_pid = false;
  std::uint64_t bad_ids = 0;

  StrId operator()(StrId id) {
    if (id < str.size()) return str[id];
    ++bad_ids;
    return kNoString;
  }
  std::uint32_t pid(std::uint32_t p) const { return rewrite_pid && p == from_pid ? to_pid : p; }
};

// The pid a part belongs to: its process record's, else the first record's.
std::uint32_t part_pid(const RecordSet& p) {
  if (!p.processes.empty()) return p.processes.front().pid;
  if (!p.threads.empty()) return p.threads.front().pid;
  if (!p.ranges.empty()) return p.ranges.front().pid;
  if (!p.marks.empty()) return p.marks.front().pid;
  return 0;
}

// Whether the process of this part replaced its program (exec): the collector's "collector.exec"
// diagnostic. The next part with its pid is then the same process, not a reused pid.
bool ended_by_exec(const RecordSet& p) {
  for (const DiagRec& d : p.diagnostics)
    if (d.key < p.strings.size() && p.strings[d.key] == "collector.exec") return true;
  return false;
}

std::int64_t part_start(const RecordSet& p) {
  return p.processes.empty() ? 0 : p.processes.front().start_ns;
}

// Parts in process start order, so that the earliest process with a pid keeps it.
std::vector<std::size_t> start_order(const std::vector<RecordSet>& parts) {
  std::vector<std::size_t> order(parts.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return part_start(parts[a]) < part_start(parts[b]); });
  return order;
}

// The merge in progress: the merged records, their string table and the merge's own diagnostics.
class Merger {
 public:
  Merger() : strings_(out_.strings) {}

  // One part: checked, mapped (strings, pid) and moved in (its records are taken: the first
  // part's vectors become the merged ones, later parts' are appended and freed, so that a large
  // run is not held twice); a bad part is left out and counted.
  void add(RecordSet& p) {
    const std::uint32_t pid = part_pid(p);
    try {
      check_part_records(p);  // decode_part checked parts read from files; this, parts built in memory
    } catch (const PartError& e) {
      diag(pid, "merge.rejected_part", 1, std::string(e.what()) + "; the part is left out");
      return;
    }
    PartMap m = map_part(p);
    append(p, pid, m);
    if (m.bad_ids) diag(m.pid(pid), "merge.bad_string_id", m.bad_ids, "string id outside its part's string table");
  }

  // The merged records, sorted by time, the merge's diagnostics last.
  RecordSet finish() {
    sort_ranges();
    sort_records();
    out_.diagnostics.insert(out_.diagnostics.end(), merge_diags_.begin(), merge_diags_.end());
    return std::move(out_);
  }

 private:
  void diag(std::uint32_t pid, const std::string& key, std::uint64_t n, const std::string& detail) {
    merge_diags_.push_back({pid, strings_.intern(key), n, strings_.intern(detail)});
  }

  // The part's string ids in the merged table, and a synthetic pid where its pid was seen in an
  // earlier part of another process (pid reuse; a part after an exec is the same process).
  PartMap map_part(const RecordSet& p) {
    PartMap m;
    m.str.reserve(p.strings.size());
    for (const std::string& s : p.strings) m.str.push_back(strings_.intern(s));
    if (!p.strings.empty() && !p.strings[0].empty()) m.str[0] = kNoString;  // id 0 means "" everywhere

    const std::uint32_t pid = part_pid(p);
    const bool has_pid = !p.processes.empty() || pid != 0;  // an empty part claims no pid
    const bool after_exec = has_pid && exec_next_[pid];  // the same process, a new program
    if (has_pid) exec_next_[pid] = ended_by_exec(p);
    const std::uint32_t uses = has_pid && !after_exec ? ++pid_uses_[pid] : 0;
    if (uses > 1) {
      m.rewrite_pid = true;
      m.from_pid = pid;
      m.to_pid = pid | kSyntheticPidBit | ((uses - 1) << 22);
      diag(m.to_pid, "merge.duplicate_pid", 1,
           "pid " + std::to_string(pid) + " appeared in more than one part (pid reuse); this part's records use pid " +
               std::to_string(m.to_pid));
    }
    return m;
  }

  // The part's records (of process `pid`, part_pid) with merged string ids and pids, range
  // parents re-based, taken from it.
  void append(RecordSet& p, std::uint32_t pid, PartMap& m) {
    take(p.processes, out_.processes, [&](ProcessRec& r) {
      r.pid = m.pid(r.pid);
      r.command = m(r.command);
    });
    take(p.threads, out_.threads, [&](ThreadRec& r) {
      r.pid = m.pid(r.pid);
      r.name = m(r.name);
    });
    take(p.categories, out_.categories, [&](CategoryRec& r) {
      r.pid = m.pid(r.pid);
      r.domain = m(r.domain);
      r.name = m(r.name);
    });
    const auto base = static_cast<std::int64_t>(out_.ranges.size());
    const auto n = static_cast<std::int64_t>(p.ranges.size());
    std::uint64_t bad_parents = 0;
    take(p.ranges, out_.ranges, [&](RangeRec& r) {
      r.pid = m.pid(r.pid);
      r.domain = m(r.domain);
      r.name = m(r.name);
      if (r.parent >= n || r.parent < -1) {
        ++bad_parents;
        r.parent = -1;
      } else if (r.parent >= 0) {
        r.parent += base;
      }
    });
    if (bad_parents) diag(m.pid(pid), "merge.bad_parent", bad_parents, "range parent index outside its part");
    take(p.marks, out_.marks, [&](MarkRec& r) {
      r.pid = m.pid(r.pid);
      r.domain = m(r.domain);
      r.name = m(r.name);
    });
    take(p.api_calls, out_.api_calls, [&](ApiCallRec& r) {
      r.pid = m.pid(r.pid);
      r.name = m(r.name);
    });
    take(p.gpu_ops, out_.gpu_ops, [&](GpuOpRec& r) {
      r.pid = m.pid(r.pid);
      r.name = m(r.name);
    });
    take(p.syncs, out_.syncs, [&](SyncRec& r) { r.pid = m.pid(r.pid); });
    take(p.event_records, out_.event_records, [&](EventRecordRec& r) { r.pid = m.pid(r.pid); });
    take(p.devices, out_.devices, [&](DeviceRec& r) {
      r.pid = m.pid(r.pid);
      r.name = m(r.name);
    });
    take(p.diagnostics, out_.diagnostics, [&](DiagRec& r) {
      r.pid = m.pid(r.pid);
      r.key = m(r.key);
      r.detail = m(r.detail);
    });
  }

  // Each record of `from` rewritten in place, then moved to the end of `to`; `from` is left
  // empty, its memory freed.
  template <class Rec, class Rewrite>
  static void take(std::vector<Rec>& from, std::vector<Rec>& to, Rewrite rewrite) {
    for (Rec& r : from) rewrite(r);
    if (to.empty()) {
      to = std::move(from);
    } else {
      to.insert(to.end(), from.begin(), from.end());
    }
    std::vector<Rec>().swap(from);
  }

  // Ranges by start time; at equal starts, outer (smaller depth) first. Parents follow the move.
  void sort_ranges() {
    const auto before = [](const RangeRec& x, const RangeRec& y) {
      return x.start_ns != y.start_ns ? x.start_ns < y.start_ns : x.depth < y.depth;
    };
    // One thread's part comes in this order already (pushes in time order, outer first).
    if (std::is_sorted(out_.ranges.begin(), out_.ranges.end(), before)) return;
    std::vector<std::int64_t> perm(out_.ranges.size());
    std::iota(perm.begin(), perm.end(), std::int64_t{0});
    std::stable_sort(perm.begin(), perm.end(), [&](std::int64_t a, std::int64_t b) {
      const RangeRec& x = out_.ranges[static_cast<std::size_t>(a)];
      const RangeRec& y = out_.ranges[static_cast<std::size_t>(b)];
      if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
      return x.depth < y.depth;
    });
    std::vector<std::int64_t> new_index(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) new_index[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
    std::vector<RangeRec> sorted;
    sorted.reserve(out_.ranges.size());
    for (const std::int64_t old : perm) {
      RangeRec r = out_.ranges[static_cast<std::size_t>(old)];
      if (r.parent >= 0) r.parent = new_index[static_cast<std::size_t>(r.parent)];
      sorted.push_back(r);
    }
    out_.ranges = std::move(sorted);
  }

  // Every other timed table by its time (threads by pid and tid).
  void sort_records() {
    auto by = [](auto key) { return [key](const auto& a, const auto& b) { return key(a) < key(b); }; };
    std::stable_sort(out_.processes.begin(), out_.processes.end(), by([](const ProcessRec& r) { return r.start_ns; }));
    std::stable_sort(out_.threads.begin(), out_.threads.end(),
                     by([](const ThreadRec& r) { return std::pair{r.pid, r.tid}; }));
    std::stable_sort(out_.marks.begin(), out_.marks.end(), by([](const MarkRec& r) { return r.ts_ns; }));
    std::stable_sort(out_.api_calls.begin(), out_.api_calls.end(), by([](const ApiCallRec& r) { return r.start_ns; }));
    std::stable_sort(out_.gpu_ops.begin(), out_.gpu_ops.end(), by([](const GpuOpRec& r) { return r.start_ns; }));
    std::stable_sort(out_.syncs.begin(), out_.syncs.end(), by([](const SyncRec& r) { return r.start_ns; }));
  }

  RecordSet out_;
  StringTable strings_;
  std::vector<DiagRec> merge_diags_;
  std::unordered_map<std::uint32_t, std::uint32_t> pid_uses_;  // real pid -> parts seen with it
  std::unordered_map<std::uint32_t, bool> exec_next_;          // real pid -> its last part ended in exec
};

}  // namespace

RecordSet merge_parts(std::vector<RecordSet> parts) {
  Merger merger;
  for (const std::size_t pi : start_order(parts)) merger.add(parts[pi]);
  return merger.finish();
}

}  // namespace amdahl::format
