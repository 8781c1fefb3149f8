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

  // One part: checked, mapped (strings, pid) and appended; a bad part is left out and counted.
  void add(const RecordSet& p) {
    try {
      check_part_records(p);  // decode_part checked parts read from files; this, parts built in memory
    } catch (const PartError& e) {
      diag(part_pid(p), "merge.rejected_part", 1, std::string(e.what()) + "; the part is left out");
      return;
    }
    PartMap m = map_part(p);
    append(p, m);
    if (m.bad_ids) diag(m.pid(part_pid(p)), "merge.bad_string_id", m.bad_ids, "string id outside its part's string table");
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

  // The part's records with merged string ids and pids; range parents re-based.
  void append(const RecordSet& p, PartMap& m) {
    for (ProcessRec r : p.processes) {
      r.pid = m.pid(r.pid);
      r.command = m(r.command);
      out_.processes.push_back(r);
    }
    for (ThreadRec r : p.threads) {
      r.pid = m.pid(r.pid);
      r.name = m(r.name);
      out_.threads.push_back(r);
    }
    for (CategoryRec r : p.categories) {
      r.pid = m.pid(r.pid);
      r.domain = m(r.domain);
      r.name = m(r.name);
      out_.categories.push_back(r);
    }
    append_ranges(p, m);
    for (MarkRec r : p.marks) {
      r.pid = m.pid(r.pid);
      r.domain = m(r.domain);
      r.name = m(r.name);
      out_.marks.push_back(r);
    }
    for (ApiCallRec r : p.api_calls) {
      r.pid = m.pid(r.pid);
      r.name = m(r.name);
      out_.api_calls.push_back(r);
    }
    for (GpuOpRec r : p.gpu_ops) {
      r.pid = m.pid(r.pid);
      r.name = m(r.name);
      out_.gpu_ops.push_back(r);
    }
    for (SyncRec r : p.syncs) {
      r.pid = m.pid(r.pid);
      out_.syncs.push_back(r);
    }
    for (EventRecordRec r : p.event_records) {
      r.pid = m.pid(r.pid);
      out_.event_records.push_back(r);
    }
    for (DeviceRec r : p.devices) {
      r.pid = m.pid(r.pid);
      r.name = m(r.name);
      out_.devices.push_back(r);
    }
    for (DiagRec r : p.diagnostics) {
      r.pid = m.pid(r.pid);
      r.key = m(r.key);
      r.detail = m(r.detail);
      out_.diagnostics.push_back(r);
    }
  }

  void append_ranges(const RecordSet& p, PartMap& m) {
    const auto base = static_cast<std::int64_t>(out_.ranges.size());
    const auto n = static_cast<std::int64_t>(p.ranges.size());
    std::uint64_t bad_parents = 0;
    for (RangeRec r : p.ranges) {
      r.pid = m.pid(r.pid);
      r.domain = m(r.domain);
      r.name = m(r.name);
      if (r.parent >= n || r.parent < -1) {
        ++bad_parents;
        r.parent = -1;
      } else if (r.parent >= 0) {
        r.parent += base;
      }
      out_.ranges.push_back(r);
    }
    if (bad_parents) diag(m.pid(part_pid(p)), "merge.bad_parent", bad_parents, "range parent index outside its part");
  }

  // Ranges by start time; at equal starts, outer (smaller depth) first. Parents follow the move.
  void sort_ranges() {
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

RecordSet merge_parts(const std::vector<RecordSet>& parts) {
  Merger merger;
  for (const std::size_t pi : start_order(parts)) merger.add(parts[pi]);
  return merger.finish();
}

}  // namespace amdahl::format
