// Builds the replay graph from the analyzer's timeline: cuts every host thread into work,
// launch and wait nodes, puts every GPU operation on its stream's lane, and links them with
// program-order, launch, completion and produce/consume edges whose weights are the delays
// observed in the recording (so an unscaled replay reproduces it exactly).
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/replay.hpp"
#include "amdahl/analysis/sort_times.hpp"

namespace amdahl::analysis {
namespace {

// Frees a container's memory: `v = {}` would pick operator=(initializer_list), which empties
// a vector but keeps its capacity.
template <class T>
void release(T& v) {
  T().swap(v);
}

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr std::int64_t kTolNs = 2000;  // clock noise allowed between threads (2 us)

using LaneKey = std::pair<std::uint32_t, std::uint64_t>;

// The part of a non-sync CUDA call after its typical cost, spent waiting for a GPU op to retire
// (docs/analysis.md, "Implicit waits"): a Wait node joined to that op.
struct ImplicitWait {
  std::int64_t start_ns = 0;  // call start + the call's typical cost
  std::int64_t end_ns = 0;    // call end
  std::uint32_t op = 0;       // index into RecordSet::gpu_ops
  EdgeKind kind = EdgeKind::ImplicitSync;
};

// What one host thread contributes before it is cut into nodes.
struct HostInput {
  std::uint32_t pid = 0;
  std::uint64_t tid = 0;
  std::size_t timeline_lane = kNone;
  std::vector<Interval> apis;        // non-blocking API calls (launch overhead)
  std::vector<std::int64_t> cuts;    // points that must start or end a node
  std::vector<std::int64_t> consumes;  // consume marks: a zero-length wait node each
  std::vector<ImplicitWait> implicit;  // sorted by start; see find_implicit_waits
  std::vector<std::uint32_t> implicit_node;   // per implicit wait, its node (set by cut_host_lane)
};


struct Builder {
  const Timeline& tl;
  const format::RecordSet& rs;
  const std::vector<GpuOpStage>& op_stages;
  const StepSelection& sel;
  ReplayGraph g;
  // Edges other than host program order (that one is implied by lane_nodes), in insertion
  // order; turned into the CSR of incoming edges at the end.
  std::vector<ReplayEdge> extra;
  void add_edge(std::uint32_t to, std::uint32_t from, std::int64_t weight, bool join, EdgeKind kind) {
    extra.push_back(make_edge(from, to, weight, join, kind));
  }

  // Per host lane: its nodes, which are consecutive ids in time order ([first, last)), for
  // "node at time t" look-ups; and the last look-up's answer, where the next one starts
  // (look-ups mostly come in time order).
  struct LaneNodes {
    std::uint32_t first = 0, last = 0;
    std::size_t size() const { return last - first; }
    bool empty() const { return last == first; }
  };
  std::vector<LaneNodes> lane_nodes;
  mutable std::vector<std::uint32_t> hint;

  // The first node id in [lo, hi) for which before(id) is false (before: true, then false),
  // found by galloping from `from`: std::lower_bound's answer in O(log distance).
  template <class Before>
  static std::uint32_t gallop(std::uint32_t lo, std::uint32_t hi, std::uint32_t from, Before before) {
    if (from < lo || from > hi) from = lo;
    std::uint32_t a, b;  // the answer is in [a, b]
    if (from < hi && before(from)) {
      a = from + 1;
      std::uint32_t step = 1;
      b = a;
      while (b < hi && before(b)) {
        a = b + 1;
        b = hi - b > step ? b + step : hi;
        step *= 2;
      }
    } else {
      b = from;
      std::uint32_t step = 1;
      a = b;
      while (a > lo && !before(a - 1)) {
        b = a - 1;
        a = a - lo > step ? a - step : lo;
        step *= 2;
      }
    }
    while (a < b) {  // before(a - 1) (or a == lo), !before(b) (or b == hi)
      const std::uint32_t mid = a + (b - a) / 2;
      if (before(mid)) a = mid + 1; else b = mid;
    }
    return a;
  }

  Builder(const Timeline& t, const std::vector<GpuOpStage>& s, const StepSelection& ss)
      : tl(t), rs(*t.records), op_stages(s), sel(ss) {}

  std::uint32_t add_node(ReplayNode n) {
    g.nodes.push_back(n);
    return static_cast<std::uint32_t>(g.nodes.size() - 1);
  }

  // The first node of host lane `lane` that starts at t (cuts guarantee one exists), or the
  // one containing t.
  std::uint32_t node_starting_at(std::uint32_t lane, std::int64_t t) const {
    const LaneNodes& v = lane_nodes[lane];
    if (v.empty()) return kNone;
    const std::uint32_t it = gallop(v.first, v.last, hint[lane], [&](std::uint32_t n) { return g.nodes[n].start_ns < t; });
    hint[lane] = it;
    if (it != v.last && g.nodes[it].start_ns == t) return it;
    if (it == v.first) return v.first;
    return it - 1;
  }
  // The node of host lane `lane` that ends at t (or contains t), or kNone before the lane.
  std::uint32_t node_ending_at(std::uint32_t lane, std::int64_t t) const {
    const LaneNodes& v = lane_nodes[lane];
    if (v.empty()) return kNone;
    const std::uint32_t it = gallop(v.first, v.last, hint[lane], [&](std::uint32_t n) { return g.nodes[n].end_ns < t; });
    hint[lane] = it;
    if (it == v.last) return v.last - 1;
    return it;
  }
};

// Completes a host thread's cut points (its segments' and blocking syncs' ends; API calls,
// marks and waits are already in), sorted and unique: the lane gets cuts.size() - 1 nodes plus
// one per consume.
void prepare_cuts(const Builder& b, HostInput& h) {
  const Lane* tl_lane = h.timeline_lane == kNone ? nullptr : &b.tl.lanes[h.timeline_lane];
  std::vector<std::int64_t>& cuts = h.cuts;
  if (tl_lane) {
    cuts.reserve(cuts.size() + 2 * (tl_lane->segments.size() + tl_lane->blocking_syncs.size()));
    for (const Segment& s : tl_lane->segments) { cuts.push_back(s.start_ns); cuts.push_back(s.end_ns); }
    for (const Interval& s : tl_lane->blocking_syncs) { cuts.push_back(s.start_ns); cuts.push_back(s.end_ns); }
  }
  sort_times(cuts);
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
}

// Cuts one host thread into nodes between consecutive cut points (prepare_cuts first).
void cut_host_lane(Builder& b, std::uint32_t lane_id, HostInput& h) {
  const Lane* tl_lane = h.timeline_lane == kNone ? nullptr : &b.tl.lanes[h.timeline_lane];
  const std::vector<std::int64_t>& cuts = h.cuts;
  static const std::vector<Interval> kNoSyncs;
  const std::vector<Interval>& syncs = tl_lane ? tl_lane->blocking_syncs : kNoSyncs;
  auto by_start = [](const Interval& x, const Interval& y) { return x.start_ns < y.start_ns; };
  if (!std::is_sorted(h.apis.begin(), h.apis.end(), by_start)) std::sort(h.apis.begin(), h.apis.end(), by_start);

  // Whether t is inside one of the intervals of v (sorted by start, possibly overlapping a
  // little): the few candidates starting at or before t are checked. Cuts ascend, so the
  // first interval starting after t is found by a forward cursor (pos), not a binary search.
  auto inside = [](const std::vector<Interval>& v, std::size_t& pos, std::int64_t t) {
    while (pos < v.size() && v[pos].start_ns <= t) ++pos;
    std::size_t it = pos;
    for (int k = 0; k < 4 && it != 0; ++k) {
      --it;
      if (t >= v[it].start_ns && t < v[it].end_ns) return true;
    }
    return false;
  };
  std::size_t sync_pos = 0, api_pos = 0, imp_pos = 0;
  h.implicit_node.assign(h.implicit.size(), kNone);

  // The lane's nodes are consecutive ids (the program-order edges are added at the end).
  b.lane_nodes[lane_id].first = b.lane_nodes[lane_id].last = static_cast<std::uint32_t>(b.g.nodes.size());
  auto link = [&](std::uint32_t id) { b.lane_nodes[lane_id].last = id + 1; };
  // A consume is a wait of zero length in the recording that may grow in a replay: the item
  // must have been produced. Its join is added once all lanes exist.
  std::sort(h.consumes.begin(), h.consumes.end());
  std::size_t next_consume = 0;
  auto zero_waits_until = [&](std::int64_t t) {
    for (; next_consume < h.consumes.size() && h.consumes[next_consume] <= t; ++next_consume) {
      ReplayNode w;
      w.start_ns = w.end_ns = h.consumes[next_consume];
      w.lane = lane_id;
      w.kind = NodeKind::Wait;
      w.stage = kLabelWait;
      link(b.add_node(w));
    }
  };
  std::size_t seg_cursor = 0;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const std::int64_t a = cuts[i], e = cuts[i + 1];
    zero_waits_until(a);
    ReplayNode n;
    n.start_ns = a;
    n.end_ns = e;
    n.lane = lane_id;
    // Segments are sorted and cuts ascend: a forward cursor replaces a binary search per cut.
    const Segment* seg = nullptr;
    if (tl_lane) {
      const auto& sv = tl_lane->segments;
      while (seg_cursor < sv.size() && sv[seg_cursor].end_ns <= a) ++seg_cursor;
      if (seg_cursor < sv.size() && sv[seg_cursor].start_ns <= a) seg = &sv[seg_cursor];
    }
    while (imp_pos < h.implicit.size() && h.implicit[imp_pos].end_ns <= a) ++imp_pos;
    const bool implicit_starts = imp_pos < h.implicit.size() && h.implicit[imp_pos].start_ns == a;
    if (inside(syncs, sync_pos, a)) {
      n.kind = NodeKind::Wait;
      n.stage = kLabelGpuWait;
    } else if (implicit_starts) {
      n.kind = NodeKind::Wait;
      n.stage = kLabelGpuWait;
      h.implicit_node[imp_pos] = static_cast<std::uint32_t>(b.g.nodes.size());
    } else if (seg && seg->label == kLabelWait) {
      n.kind = NodeKind::Wait;
      n.stage = kLabelWait;
    } else if (inside(h.apis, api_pos, a)) {
      n.kind = NodeKind::Launch;
      n.stage = seg ? seg->stage : kLabelOther;
    } else {
      n.kind = NodeKind::Work;
      n.stage = seg ? (seg->label >= 0 ? seg->label : kLabelOther) : kLabelOther;
    }
    n.base_ns = e - a;
    link(b.add_node(n));
  }
  zero_waits_until(std::numeric_limits<std::int64_t>::max());
  release(h.cuts);  // free the lane's inputs as soon as it is cut
  release(h.apis);
  release(h.consumes);
}

// Typical cost of each non-blocking API name (by string id): the 10th percentile of its
// durations, from at most about 4096 calls per name taken evenly through the run, and at most
// kMaxTypicalNs (a call that waits every time it is made, as a cudaFree in every step, has no
// unblocked calls to learn its own cost from).
constexpr std::int64_t kMaxTypicalNs = 20'000;
std::vector<std::int64_t> typical_call_ns(const format::RecordSet& rs, const std::vector<std::int8_t>& blocking) {
  std::vector<std::uint32_t> count(rs.strings.size(), 0);
  for (const auto& a : rs.api_calls)
    if (a.name < count.size()) ++count[a.name];
  std::vector<std::vector<std::int64_t>> samples(rs.strings.size());
  std::vector<std::uint32_t> seen(rs.strings.size(), 0);
  for (const auto& a : rs.api_calls) {
    if (a.name >= count.size() || blocking[a.name] == 1) continue;
    const std::uint32_t stride = std::max<std::uint32_t>(1, count[a.name] / 4096);
    if (seen[a.name]++ % stride == 0) samples[a.name].push_back(a.end_ns - a.start_ns);
  }
  std::vector<std::int64_t> typ(rs.strings.size(), 0);
  for (std::size_t k = 0; k < samples.size(); ++k) {
    auto& v = samples[k];
    if (v.empty()) continue;
    const auto at = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 10);
    std::nth_element(v.begin(), at, v.end());
    typ[k] = std::min(*at, kMaxTypicalNs);
  }
  return typ;
}

// Sorts GPU op indices by key(op), ties by index; input already in that order (the usual
// case: records come in time order) costs one pass.
template <class Key>
void sort_ops_by(std::vector<std::uint32_t>& v, Key key) {
  auto less = [&](std::uint32_t x, std::uint32_t y) {
    const std::int64_t kx = key(x), ky = key(y);
    return kx != ky ? kx < ky : x < y;
  };
  if (!std::is_sorted(v.begin(), v.end(), less)) std::sort(v.begin(), v.end(), less);
}

std::int64_t median(std::vector<std::int64_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Per pid, the indices of its GPU ops (those with end >= start) sorted by end.
using OpsByEnd = std::map<std::uint32_t, std::vector<std::uint32_t>>;
OpsByEnd ops_by_end_per_pid(const format::RecordSet& rs) {
  OpsByEnd out;
  std::vector<std::uint32_t>* run = nullptr;
  std::uint32_t last = 0;
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i) {
    if (rs.gpu_ops[i].end_ns < rs.gpu_ops[i].start_ns) continue;
    if (!run || rs.gpu_ops[i].pid != last) {
      last = rs.gpu_ops[i].pid;
      run = &out[last];
    }
    run->push_back(static_cast<std::uint32_t>(i));
  }
  for (auto& [pid, v] : out) sort_ops_by(v, [&](std::uint32_t x) { return rs.gpu_ops[x].end_ns; });
  return out;
}

// When a GPU op was handed to the driver: its launching call's start (else its own start).
std::int64_t launch_time_of(const format::RecordSet& rs, const std::vector<std::uint32_t>& api_for_op, std::size_t op) {
  return api_for_op[op] == kNone ? rs.gpu_ops[op].start_ns : rs.api_calls[api_for_op[op]].start_ns;
}

// Exact event joins from the profile's event records (CUPTI CUDA_EVENT records, one per
// cudaEventRecord): the GPU work an event stands for is the last op launched on its stream
// before the record call. A cudaEventSynchronize waits for that op (keyed by the host thread and
// the sync call's start); the first op launched on a stream after a cudaStreamWaitEvent on it
// starts after that op.
struct EventLinks {
  std::map<std::pair<LaneKey, std::int64_t>, std::uint32_t> sync_op;  // (pid, tid), call start -> op
  std::unordered_map<std::uint32_t, std::uint32_t> stream_wait_op;     // waiting op -> event's op
};

EventLinks event_links(const format::RecordSet& rs, const std::vector<std::uint32_t>& api_for_op) {
  EventLinks out;
  if (rs.event_records.empty() || rs.syncs.empty()) return out;
  // API calls by (pid, correlation id), for the calls the event records and syncs name.
  std::unordered_map<std::uint64_t, std::uint32_t> api_of;
  auto key = [](std::uint32_t pid, std::uint32_t corr) { return (static_cast<std::uint64_t>(pid) << 32) | corr; };
  for (const auto& e : rs.event_records) api_of.emplace(key(e.pid, e.correlation_id), kNone);
  for (const auto& y : rs.syncs) api_of.emplace(key(y.pid, y.correlation_id), kNone);
  for (std::size_t i = 0; i < rs.api_calls.size(); ++i) {
    auto it = api_of.find(key(rs.api_calls[i].pid, rs.api_calls[i].correlation_id));
    if (it != api_of.end() && it->second == kNone) it->second = static_cast<std::uint32_t>(i);
  }
  // Per (pid, stream): ops with their launch call's start, sorted by it.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::pair<std::int64_t, std::uint32_t>>> launched;
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i)
    if (api_for_op[i] != kNone && rs.gpu_ops[i].end_ns >= rs.gpu_ops[i].start_ns)
      launched[{rs.gpu_ops[i].pid, rs.gpu_ops[i].stream}].push_back({rs.api_calls[api_for_op[i]].start_ns, static_cast<std::uint32_t>(i)});
  for (auto& [k, v] : launched) std::sort(v.begin(), v.end());
  // Per (pid, event): its records as (record call start, the op it stands for or kNone).
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::pair<std::int64_t, std::uint32_t>>> records;
  for (const auto& e : rs.event_records) {
    const std::uint32_t call = api_of[key(e.pid, e.correlation_id)];
    if (call == kNone) continue;
    const std::int64_t at = rs.api_calls[call].start_ns;
    std::uint32_t op = kNone;
    auto it = launched.find({e.pid, e.stream});
    if (it != launched.end()) {
      auto pos = std::lower_bound(it->second.begin(), it->second.end(), std::make_pair(at, std::uint32_t{0}));
      if (pos != it->second.begin()) op = std::prev(pos)->second;
    }
    records[{e.pid, e.event}].push_back({at, op});
  }
  for (auto& [k, v] : records) std::sort(v.begin(), v.end());
  for (const auto& y : rs.syncs) {
    if (y.kind != format::SyncKind::EventSynchronize && y.kind != format::SyncKind::StreamWaitEvent) continue;
    const std::uint32_t call = api_of[key(y.pid, y.correlation_id)];
    auto rec = records.find({y.pid, y.event});
    if (call == kNone || rec == records.end()) continue;
    const auto& a = rs.api_calls[call];
    // The latest record of the event made before this call.
    auto pos = std::lower_bound(rec->second.begin(), rec->second.end(), std::make_pair(a.start_ns, std::uint32_t{0}));
    if (pos == rec->second.begin()) continue;
    const std::uint32_t op = std::prev(pos)->second;
    if (op == kNone) continue;
    if (y.kind == format::SyncKind::EventSynchronize) {
      out.sync_op[{LaneKey{a.pid, a.tid}, a.start_ns}] = op;
    } else if (y.stream != 0xffffffffu) {
      auto it = launched.find({y.pid, y.stream});
      if (it == launched.end()) continue;
      auto next = std::lower_bound(it->second.begin(), it->second.end(), std::make_pair(a.end_ns, std::uint32_t{0}));
      if (next != it->second.end()) out.stream_wait_op.emplace(next->second, op);
    }
  }
  return out;
}

// Finds implicit waits (docs/analysis.md, "Implicit waits"): a non-blocking CUDA call that took
// well over its typical cost while a GPU op of its process that was already queued (or that the
// call itself launched) retired inside it, shortly before the call returned. The call is taken
// to have waited for that op: a launch call for a free slot in the full launch queue
// (QueueFull), any other call (a pageable copy, a memset, cudaFree, an allocation) for the
// device to drain (ImplicitSync).
class ImplicitWaitFinder {
 public:
  static constexpr std::int64_t kMinExcessNs = 10'000;  // an implicit sync shorter than this is not told apart
  // A launch call on a full queue (many ops in flight, checked below) is told apart from 2 us:
  // a GPU-bound PyTorch run blocks in most launches, mostly for a few microseconds each.
  static constexpr std::int64_t kMinQueueExcessNs = 2'000;
  static constexpr std::int64_t kMaxWakeNs = 30'000;    // op end -> call return, at most
  static constexpr std::int64_t kMaxDrainWakeNs = 2'000'000;  // the same after a device drain
  static constexpr std::int64_t kMinQueueDepth = 16;    // ops in flight for a launch to wait on a full queue

  ImplicitWaitFinder(const format::RecordSet& rs, const std::vector<std::uint32_t>& api_for_op,
                     const OpsByEnd& ops_by_end, std::vector<std::int64_t> typical)
      : rs_(rs), api_for_op_(api_for_op), ops_by_end_(ops_by_end), typical_(std::move(typical)) {
    own_op_.assign(rs.api_calls.size(), kNone);
    for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i)
      if (api_for_op[i] != kNone && own_op_[api_for_op[i]] == kNone) own_op_[api_for_op[i]] = static_cast<std::uint32_t>(i);
    for (const auto& [pid, v] : ops_by_end) {
      auto& t = launches_[pid];
      t.reserve(v.size());
      for (std::uint32_t x : v) t.push_back(launch_time_of(rs, api_for_op, x));
      std::sort(t.begin(), t.end());
    }
  }

  std::optional<ImplicitWait> find(std::size_t call) {
    const auto& a = rs_.api_calls[call];
    const std::int64_t typ = a.name < typical_.size() ? typical_[a.name] : 0;
    const std::int64_t dur = a.end_ns - a.start_ns;
    // A call that puts something into the launch queue (a launch, an event record, a stream
    // wait) blocks on a full queue as a launch does.
    const bool launches = own_op_[call] != kNone || enqueues(a.name);
    if (dur - typ < (launches ? kMinQueueExcessNs : std::max(kMinExcessNs, typ))) return std::nullopt;
    if (!ops_ || pid_ != a.pid) {
      pid_ = a.pid;
      auto it = ops_by_end_.find(a.pid);
      ops_ = it == ops_by_end_.end() ? nullptr : &it->second;
      auto lt = launches_.find(a.pid);
      launch_times_ = lt == launches_.end() ? nullptr : &lt->second;
    }
    if (!ops_) return std::nullopt;
    const std::int64_t wait_start = a.start_ns + typ;
    auto pos = std::upper_bound(ops_->begin(), ops_->end(), a.end_ns,
                                [&](std::int64_t t, std::uint32_t x) { return t < rs_.gpu_ops[x].end_ns; });
    // Whether the device was idle when the call returned: the first op to end after it had not
    // started yet (a drain, as cudaFree's, leaves nothing running).
    const bool idle_at_return = pos == ops_->end() || rs_.gpu_ops[*pos].start_ns >= a.end_ns;
    for (int k = 0; k < 64 && pos != ops_->begin(); ++k) {
      --pos;
      const std::uint32_t op = *pos;
      const std::int64_t end = rs_.gpu_ops[op].end_ns;
      if (end < wait_start) break;
      // The call's own op (a pageable copy) may be followed by host work of the call (the
      // staging copy out of a bounce buffer): any wake-up. Another op woke it only if it was
      // queued before the call began, and the call returned shortly after it (a launch call),
      // or, for a call that launches nothing (cudaFree: drain, then free), it was the last op
      // to end before the call returned, with the device idle since, and the call returned
      // within kMaxDrainWakeNs.
      const bool own = api_for_op_[op] == call;
      if (!own) {
        if (launch_time_of(rs_, api_for_op_, op) > a.start_ns) continue;
        const std::int64_t wake = a.end_ns - end;
        const bool drained = !launches && k == 0 && idle_at_return && wake <= kMaxDrainWakeNs;
        if (wake > kMaxWakeNs && !drained) continue;
      }
      ImplicitWait w;
      w.start_ns = wait_start;
      w.end_ns = a.end_ns;
      w.op = op;
      w.kind = launches && !own ? EdgeKind::QueueFull : EdgeKind::ImplicitSync;
      if (w.kind == EdgeKind::ImplicitSync && dur - typ < std::max(kMinExcessNs, typ)) return std::nullopt;
      if (w.kind == EdgeKind::QueueFull) {
        // Ops handed to the driver after the retired one and up to this call: the queue's
        // depth. A launch call that was slow with few ops in flight did not wait for a slot
        // (the host was slow; an op retired by chance): no implicit wait.
        std::int64_t depth = 0;
        if (launch_times_) {
          const auto from = std::upper_bound(launch_times_->begin(), launch_times_->end(), launch_time_of(rs_, api_for_op_, op));
          const auto to = std::upper_bound(launch_times_->begin(), launch_times_->end(), a.start_ns);
          depth = to > from ? static_cast<std::int64_t>(to - from) : 0;
        }
        if (depth < kMinQueueDepth) return std::nullopt;
        depths_.push_back(depth);
      }
      return w;
    }
    return std::nullopt;
  }

  std::size_t median_depth() const { return static_cast<std::size_t>(median(depths_)); }

  bool enqueues(format::StrId name) {
    if (name >= enqueues_.size()) return false;
    if (enqueues_[name] < 0) {
      const std::string& n = rs_.str(name);
      enqueues_[name] = n.find("EventRecord") != std::string::npos || n.find("StreamWaitEvent") != std::string::npos ? 1 : 0;
    }
    return enqueues_[name] == 1;
  }

 private:
  const format::RecordSet& rs_;
  const std::vector<std::uint32_t>& api_for_op_;
  const OpsByEnd& ops_by_end_;
  std::vector<std::int64_t> typical_;
  std::vector<std::uint32_t> own_op_;  // per API call, the first op it launched
  std::map<std::uint32_t, std::vector<std::int64_t>> launches_;  // per pid, sorted launch times
  std::uint32_t pid_ = 0;
  const std::vector<std::uint32_t>* ops_ = nullptr;
  const std::vector<std::int64_t>* launch_times_ = nullptr;
  std::vector<std::int64_t> depths_;
  std::vector<std::int8_t> enqueues_ = std::vector<std::int8_t>(rs_.strings.size(), -1);  // per name id
};

}  // namespace

std::vector<double> stage_work_ns(const ReplayGraph& g, Interval window) {
  const std::size_t other = g.stage_names.size();
  std::vector<double> out(other + 1, 0.0);
  for (const ReplayNode& n : g.nodes) {
    if (n.kind != NodeKind::Work && n.kind != NodeKind::GpuOp) continue;
    const std::int64_t a = std::max(n.start_ns, window.start_ns), e = std::min(n.end_ns, window.end_ns);
    if (e <= a) continue;
    const std::size_t k = n.stage >= 0 && static_cast<std::size_t>(n.stage) < other ? static_cast<std::size_t>(n.stage) : other;
    out[k] += static_cast<double>(e - a);
  }
  return out;
}

namespace {

// The state the phases of build_replay_graph share (besides Builder's graph and look-ups).
struct GraphBuild : Builder {
  using Builder::Builder;
  std::vector<HostInput> hosts;
  std::map<LaneKey, std::uint32_t> host_of;
  std::vector<std::uint32_t> computed;  // launching API calls, when the timeline has none
  const std::vector<std::uint32_t>* api_for_op = nullptr;
  OpsByEnd ops_by_end;
  EventLinks events;
  std::uint32_t drv_host = kNone;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::vector<std::uint32_t>> streams;  // (pid, device|stream) -> ops
  std::vector<std::uint32_t> gpu_node_of;  // per GPU op, its node
  std::int64_t launch_latency = 0;
  std::unordered_map<std::int64_t, std::vector<std::pair<std::uint32_t, std::int64_t>>> produce_of;  // item -> (lane, ts)
  std::vector<std::pair<std::int64_t, std::uint32_t>> consumes_by_ts;  // (ts, host lane)

  // The host lane of (pid, tid), added on first sight.
  std::uint32_t host(std::uint32_t pid, std::uint64_t tid) {
    auto [it, added] = host_of.try_emplace(LaneKey{pid, tid}, static_cast<std::uint32_t>(hosts.size()));
    if (added) {
      HostInput h;
      h.pid = pid;
      h.tid = tid;
      auto tli = tl.lane_of.find(LaneKey{pid, tid});
      if (tli != tl.lane_of.end()) h.timeline_lane = tli->second;
      hosts.push_back(std::move(h));
    }
    return it->second;
  }
  std::int64_t launch_time(std::size_t op) const { return launch_time_of(rs, *api_for_op, op); }

  // Joins the end of Wait node `wait` to the end of `from`. Binding in the recording (the
  // source ended after the wait began): the wait costs nothing by itself and ends the observed
  // wake-up latency after the source; otherwise it keeps its recorded duration as its own cost
  // and the join only says "not before the source" (weight 0: a wake-up weight measured from a
  // source that ended long before the wait began would pin the wait's end to its recorded time
  // in every replay). False (and counted) for a source that ended after the wait.
  bool add_join(std::uint32_t wait, std::uint32_t from, EdgeKind kind) {
    ReplayNode& w = g.nodes[wait];
    const std::int64_t src_end = g.nodes[from].end_ns;
    if (src_end > w.end_ns + kTolNs) { ++g.dropped_backward_edges; return false; }
    const bool binding = src_end > w.start_ns;
    add_edge(wait, from, binding ? w.end_ns - src_end : 0, true, kind);
    if (binding) w.base_ns = 0;
    return true;
  }

  // What the graph no longer needs once every edge is in.
  void release_inputs() {
    release(streams);
    release(ops_by_end);
    release(produce_of);
    release(consumes_by_ts);
    release(gpu_node_of);
    release(events.sync_op);
    release(events.stream_wait_op);
    release(computed);
  }
};

// Phase 1: the host lanes (every timeline lane, every thread with CUDA calls) and their cut
// points: API calls (implicit waits cut at the call's typical cost), marks, waits, steps.
void collect_host_inputs(GraphBuild& b) {
  const Timeline& tl = b.tl;
  const format::RecordSet& rs = b.rs;
  const StepSelection& sel = b.sel;
  auto host = [&](std::uint32_t pid, std::uint64_t tid) { return b.host(pid, tid); };
  std::vector<HostInput>& hosts = b.hosts;
  // ---- host lanes: every timeline lane, plus every thread that made CUDA API calls.
  for (const Lane& l : tl.lanes) host(l.pid, l.tid);

  // Each GPU op's launching API call (found once, by build_timeline), and per pid the ops
  // sorted by end (for the joins of waits).
  if (tl.api_of_op.size() != rs.gpu_ops.size()) b.computed = launching_api_calls(rs);
  b.api_for_op = b.computed.empty() ? &tl.api_of_op : &b.computed;
  static_assert(kNone == kNoApiCall);
  const std::vector<std::uint32_t>& api_for_op = *b.api_for_op;
  b.ops_by_end = ops_by_end_per_pid(rs);
  b.events = event_links(rs, api_for_op);

  // API calls: launch calls (non-blocking) and the start of every call that launched GPU work.
  {
    // Each thread's cut points are reserved once, exactly: growing a vector of millions of
    // cuts copies it several times into fresh (page-faulting) memory.
    std::vector<std::size_t> calls(hosts.size(), 0);
    {
      std::uint32_t li = 0;
      LaneKey last{};
      bool any = false;
      for (const auto& a : rs.api_calls) {
        if (!any || last != LaneKey{a.pid, a.tid}) {
          last = {a.pid, a.tid};
          li = host(a.pid, a.tid);
          any = true;
          if (calls.size() < hosts.size()) calls.resize(hosts.size(), 0);
        }
        ++calls[li];
      }
    }
    for (std::uint32_t li = 0; li < hosts.size(); ++li) {
      HostInput& h = hosts[li];
      std::size_t n = 2 * calls[li] + 3;
      if (h.timeline_lane != kNone) {
        const Lane& l = tl.lanes[h.timeline_lane];
        n += l.produces.size() + l.consumes.size() + 2 * l.wait_ranges.size() +
             2 * (l.segments.size() + l.blocking_syncs.size());
        if (h.timeline_lane == sel.driving_lane) n += sel.steps.size();
      }
      h.cuts.reserve(n);
      h.apis.reserve(calls[li]);
    }
    std::vector<std::int8_t> blocking(rs.strings.size(), -1);  // is_blocking_cuda_call per name id
    for (const auto& a : rs.api_calls)
      if (a.name < blocking.size() && blocking[a.name] < 0) blocking[a.name] = is_blocking_cuda_call(rs.str(a.name)) ? 1 : 0;
    ImplicitWaitFinder finder(rs, api_for_op, b.ops_by_end, typical_call_ns(rs, blocking));
    HostInput* h = nullptr;  // the previous call's thread (calls come in long runs per thread)
    LaneKey last{};
    for (std::size_t i = 0; i < rs.api_calls.size(); ++i) {
      const auto& a = rs.api_calls[i];
      if (!h || last != LaneKey{a.pid, a.tid}) {
        last = {a.pid, a.tid};
        const std::uint32_t li = host(a.pid, a.tid);
        h = &hosts[li];
      }
      h->cuts.push_back(a.start_ns);
      h->cuts.push_back(a.end_ns);
      const bool blocks = a.name < blocking.size() ? blocking[a.name] == 1 : is_blocking_cuda_call(rs.str(a.name));
      if (blocks || a.end_ns <= a.start_ns) continue;
      if (auto w = finder.find(i)) {  // its typical cost is launch overhead, the rest a wait
        h->apis.push_back({a.start_ns, w->start_ns});
        h->cuts.push_back(w->start_ns);
        h->implicit.push_back(*w);
      } else {
        h->apis.push_back({a.start_ns, a.end_ns});
      }
    }
    b.g.queue_depth = finder.median_depth();
  }
  // Marks and (on the driving lane) step starts and the window end are cut points.
  for (const Lane& l : tl.lanes) {
    HostInput& h = hosts[host(l.pid, l.tid)];
    for (const auto& m : l.produces) h.cuts.push_back(m.ts_ns);
    for (const auto& m : l.consumes) { h.cuts.push_back(m.ts_ns); h.consumes.push_back(m.ts_ns); }
    for (const auto& w : l.wait_ranges) { h.cuts.push_back(w.start_ns); h.cuts.push_back(w.end_ns); }
  }
  if (sel.driving_lane >= tl.lanes.size() || sel.steps.empty()) throw InputError("replay: no analysis window");
  const Lane& drv = tl.lanes[sel.driving_lane];
  b.drv_host = host(drv.pid, drv.tid);
  const std::uint32_t drv_host = b.drv_host;
  for (const Interval& s : sel.steps) hosts[drv_host].cuts.push_back(s.start_ns);
  hosts[drv_host].cuts.push_back(sel.window.start_ns);
  hosts[drv_host].cuts.push_back(sel.window.end_ns);

}

// Phase 2: every host lane cut into work, launch and wait nodes.
void cut_host_lanes(GraphBuild& b) {
  const Timeline& tl = b.tl;
  const format::RecordSet& rs = b.rs;
  std::vector<HostInput>& hosts = b.hosts;
  b.lane_nodes.resize(hosts.size());
  b.hint.assign(hosts.size(), 0);
  {  // reserve once, exactly: growing vectors of millions of nodes/edges doubles their peak
    std::size_t count = rs.gpu_ops.size(), waits = 0;
    for (HostInput& h : hosts) {
      prepare_cuts(b, h);
      count += (h.cuts.empty() ? 0 : h.cuts.size() - 1) + h.consumes.size();
    }
    for (const Lane& l : tl.lanes) waits += l.wait_ranges.size() + l.consumes.size() + l.blocking_syncs.size();
    if (count > kMaxReplayNodes) throw InputError("replay: the profile has too many events for one dependency graph");
    b.g.nodes.reserve(count);
    b.extra.reserve(2 * rs.gpu_ops.size() + waits + 16);
  }
  for (std::uint32_t li = 0; li < hosts.size(); ++li) {
    ReplayLane rl;
    rl.pid = hosts[li].pid;
    rl.id = hosts[li].tid;
    rl.timeline_lane = hosts[li].timeline_lane == kNone ? 0 : hosts[li].timeline_lane;
    rl.name = hosts[li].timeline_lane == kNone ? std::string() : tl.lanes[hosts[li].timeline_lane].name;
    b.g.lanes.push_back(rl);
    cut_host_lane(b, li, hosts[li]);
  }


}

// Phase 3: one lane per GPU stream, a node per op in start order; the launch latency observed
// when the GPU was idle; which stages have GPU operations.
void place_gpu_ops(GraphBuild& b) {
  const format::RecordSet& rs = b.rs;
  const std::vector<GpuOpStage>& op_stages = b.op_stages;
  const std::vector<std::uint32_t>& api_for_op = *b.api_for_op;
  auto& streams = b.streams;
  auto& gpu_node_of = b.gpu_node_of;
  // ---- GPU lanes: one per (pid, device, stream), ops in start order.
  {
    std::vector<std::uint32_t>* run = nullptr;  // the previous op's stream (ops come in runs)
    std::pair<std::uint32_t, std::uint64_t> last{};
    for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i) {
      const auto& op = rs.gpu_ops[i];
      if (op.end_ns < op.start_ns) continue;
      const std::pair<std::uint32_t, std::uint64_t> key{op.pid, (static_cast<std::uint64_t>(op.device) << 32) | op.stream};
      if (!run || key != last) {
        run = &streams[key];
        last = key;
      }
      run->push_back(static_cast<std::uint32_t>(i));
    }
  }
  // Launch latency observed when the GPU was idle: op start - API start where the stream's
  // previous op had ended before the API call began.
  std::vector<std::int64_t> idle_latencies;
  gpu_node_of.assign(rs.gpu_ops.size(), kNone);
  for (auto& [key, ops] : streams) {
    sort_ops_by(ops, [&](std::uint32_t x) { return rs.gpu_ops[x].start_ns; });
    ReplayLane rl;
    rl.gpu = true;
    rl.pid = key.first;
    rl.id = key.second;
    rl.name = "gpu" + std::to_string(key.second >> 32) + "/stream" + std::to_string(key.second & 0xffffffffu);
    const auto lane_id = static_cast<std::uint32_t>(b.g.lanes.size());
    b.g.lanes.push_back(rl);
    std::int64_t prev_end = std::numeric_limits<std::int64_t>::min();
    for (std::uint32_t i : ops) {
      const auto& op = rs.gpu_ops[i];
      ReplayNode n;
      n.start_ns = op.start_ns;
      n.end_ns = op.end_ns;
      n.lane = lane_id;
      n.kind = NodeKind::GpuOp;
      n.stage = i < op_stages.size() ? op_stages[i].stage : kLabelOther;
      gpu_node_of[i] = b.add_node(n);
      if (api_for_op[i] != kNone) {
        const auto& api = rs.api_calls[api_for_op[i]];
        if (prev_end <= api.start_ns && op.start_ns >= api.start_ns) idle_latencies.push_back(op.start_ns - api.start_ns);
      }
      prev_end = std::max(prev_end, op.end_ns);
    }
  }
  b.launch_latency = median(idle_latencies);

  b.g.stage_on_gpu.assign(b.g.stage_names.size(), 0);
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i)
    if (gpu_node_of[i] != kNone) {
      const auto st = b.g.nodes[gpu_node_of[i]].stage;
      if (st >= 0 && static_cast<std::size_t>(st) < b.g.stage_on_gpu.size()) b.g.stage_on_gpu[static_cast<std::size_t>(st)] = 1;
    }

}

// Phase 4: each op's start: stream order, its launch, an event it waits for through
// cudaStreamWaitEvent, or (inferred) the op that ended last on another stream.
void link_gpu_ops(GraphBuild& b) {
  const format::RecordSet& rs = b.rs;
  const std::vector<std::uint32_t>& api_for_op = *b.api_for_op;
  const auto& streams = b.streams;
  const auto& gpu_node_of = b.gpu_node_of;
  const auto& host_of = b.host_of;
  const auto& events = b.events;
  const std::int64_t launch_latency = b.launch_latency;
  // Per (pid, device): ops sorted by end, for inferring cross-stream waits.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint32_t>> device_ops_by_end;
  {
    std::vector<std::uint32_t>* run = nullptr;
    std::pair<std::uint32_t, std::uint32_t> last{};
    for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i) {
      if (gpu_node_of[i] == kNone) continue;
      const std::pair<std::uint32_t, std::uint32_t> key{rs.gpu_ops[i].pid, rs.gpu_ops[i].device};
      if (!run || key != last) {
        run = &device_ops_by_end[key];
        last = key;
      }
      run->push_back(static_cast<std::uint32_t>(i));
    }
  }
  for (auto& [k, v] : device_ops_by_end) sort_ops_by(v, [&](std::uint32_t x) { return rs.gpu_ops[x].end_ns; });
  // An op that started this long after everything its stream and launch explain waited for
  // something else: the op of another stream that ended last before it (an event wait).
  constexpr std::int64_t kUnexplainedNs = 3000;

  // Stream order and launch edges, with the residual delay put on the binding edge.
  // Up to four candidates per op (stream order, launch, event wait, inferred cross-stream wait).
  struct Cand { std::uint32_t from; std::int64_t weight; std::int64_t at; EdgeKind kind; };
  struct Cands {
    Cand v[4];
    std::size_t n = 0;
    void push_back(const Cand& x) { v[n++] = x; }
    bool empty() const { return n == 0; }
    std::size_t size() const { return n; }
    Cand& operator[](std::size_t k) { return v[k]; }
    const Cand* begin() const { return v; }
    const Cand* end() const { return v + n; }
  };
  LaneKey last_api_thread{};
  std::uint32_t last_api_host = kNone;
  bool have_api_thread = false;
  for (auto& [key, ops] : streams) {
    std::uint32_t prev = kNone;
    for (std::uint32_t i : ops) {
      const std::uint32_t id = gpu_node_of[i];
      const auto& op = rs.gpu_ops[i];
      Cands c;
      if (prev != kNone) c.push_back({prev, 0, b.g.nodes[prev].end_ns, EdgeKind::ProgramOrder});
      std::uint32_t launch_from = kNone;
      if (api_for_op[i] != kNone) {
        const auto& api = rs.api_calls[api_for_op[i]];
        if (!have_api_thread || last_api_thread != LaneKey{api.pid, api.tid}) {
          last_api_thread = {api.pid, api.tid};
          auto h = host_of.find(last_api_thread);
          last_api_host = h != host_of.end() ? h->second : kNone;
          have_api_thread = true;
        }
        if (last_api_host != kNone) {
          // The node ending at the API call's start: the launch happens right after it.
          launch_from = b.node_ending_at(last_api_host, api.start_ns);
          if (launch_from != kNone && b.g.nodes[launch_from].end_ns > api.start_ns) launch_from = kNone;
          if (launch_from != kNone) c.push_back({launch_from, launch_latency, b.g.nodes[launch_from].end_ns + launch_latency, EdgeKind::Launch});
        }
      }
      if (!events.stream_wait_op.empty()) {  // the op waits, through cudaStreamWaitEvent, for an event's op
        auto ev = events.stream_wait_op.find(i);
        if (ev != events.stream_wait_op.end() && gpu_node_of[ev->second] != kNone) {
          const std::uint32_t from = gpu_node_of[ev->second];
          if (b.g.nodes[from].end_ns <= op.start_ns + kTolNs) {
            c.push_back({from, 0, b.g.nodes[from].end_ns, EdgeKind::Event});
            ++b.g.event_joins;
          }
        }
      }
      std::int64_t explained = std::numeric_limits<std::int64_t>::min();
      for (const Cand& x : c) explained = std::max(explained, x.at);
      if (c.empty() || op.start_ns - explained > kUnexplainedNs) {
        const auto& v = device_ops_by_end[{op.pid, op.device}];
        auto pos = std::upper_bound(v.begin(), v.end(), op.start_ns + 500,
                                    [&](std::int64_t t, std::uint32_t x) { return t < rs.gpu_ops[x].end_ns; });
        for (int k = 0; k < 16 && pos != v.begin(); ++k) {
          --pos;
          const auto& other = rs.gpu_ops[*pos];
          if (other.stream == op.stream) continue;
          if (other.end_ns > explained) {
            c.push_back({gpu_node_of[*pos], 0, other.end_ns, EdgeKind::Inferred});
            ++b.g.inferred_stream_edges;
          }
          break;
        }
      }
      if (!c.empty()) {
        std::size_t bind = 0;
        for (std::size_t k = 1; k < c.size(); ++k) if (c[k].at > c[bind].at) bind = k;
        c[bind].weight += op.start_ns - c[bind].at;  // exact at factor 1
        for (const Cand& x : c) b.add_edge(id, x.from, x.weight, false, x.kind);
      }
      prev = id;
    }
  }

}

// Phase 5: implicit waits joined to the op they waited for.
void link_implicit_waits(GraphBuild& b) {
  const auto& gpu_node_of = b.gpu_node_of;
  std::vector<HostInput>& hosts = b.hosts;
  // Implicit waits: joined to the op they waited for (found before the lanes were cut).
  for (HostInput& h : hosts) {
    for (std::size_t k = 0; k < h.implicit.size(); ++k) {
      const std::uint32_t id = h.implicit_node[k];
      const ImplicitWait& w = h.implicit[k];
      if (id == kNone || gpu_node_of[w.op] == kNone) continue;
      if (!b.add_join(id, gpu_node_of[w.op], w.kind)) { ++b.g.unlinked_waits; continue; }
      ++b.g.linked_waits;
      const std::int64_t len = b.g.nodes[id].end_ns - b.g.nodes[id].start_ns;
      if (w.kind == EdgeKind::QueueFull) {
        ++b.g.queue_full_waits;
        b.g.queue_full_wait_ns += len;
      } else {
        ++b.g.implicit_sync_waits;
        b.g.implicit_sync_wait_ns += len;
      }
    }
  }

}

// Phase 6: the other waits of the host lanes: blocking syncs (joined to their exact event, or
// to the latest-ending op of the process that ended before the wait ended and whose launch,
// or start, came before the wait began), queue waits (produce -> consume, consume -> a
// producer blocked on a full queue).
void link_host_waits(GraphBuild& b) {
  const Timeline& tl = b.tl;
  const format::RecordSet& rs = b.rs;
  const auto& gpu_node_of = b.gpu_node_of;
  const auto& host_of = b.host_of;
  const auto& events = b.events;
  const auto& ops_by_end = b.ops_by_end;
  std::vector<HostInput>& hosts = b.hosts;
  auto& produce_of = b.produce_of;
  auto& consumes_by_ts = b.consumes_by_ts;
  // Produce / consume look-ups: item -> (host lane, ts) of produce and of consume.
  for (const Lane& l : tl.lanes) {
    const std::uint32_t h = host_of.at(LaneKey{l.pid, l.tid});
    for (const auto& m : l.produces) produce_of[m.item].push_back({h, m.ts_ns});
    for (const auto& m : l.consumes) consumes_by_ts.push_back({m.ts_ns, h});
  }
  std::sort(consumes_by_ts.begin(), consumes_by_ts.end());

  for (std::uint32_t hl = 0; hl < hosts.size(); ++hl) {
    const Lane* lane = hosts[hl].timeline_lane == kNone ? nullptr : &tl.lanes[hosts[hl].timeline_lane];
    std::size_t next_implicit = 0;  // implicit waits (linked above) come in node order
    const std::vector<std::uint32_t>& implicit_nodes = hosts[hl].implicit_node;
    for (std::uint32_t id = b.lane_nodes[hl].first; id < b.lane_nodes[hl].last; ++id) {
      ReplayNode& n = b.g.nodes[id];
      if (n.kind != NodeKind::Wait || n.end_ns == n.start_ns) continue;  // zero-length: consume joins below
      while (next_implicit < implicit_nodes.size() && (implicit_nodes[next_implicit] == kNone || implicit_nodes[next_implicit] < id))
        ++next_implicit;
      if (next_implicit < implicit_nodes.size() && implicit_nodes[next_implicit] == id) {
        continue;  // an implicit wait: joined above (or kept at its recorded length)
      }
      bool linked = false;
      if (n.stage == kLabelGpuWait && !events.sync_op.empty()) {
        auto ev = events.sync_op.find({LaneKey{hosts[hl].pid, hosts[hl].tid}, n.start_ns});
        if (ev != events.sync_op.end() && gpu_node_of[ev->second] != kNone) {
          linked = b.add_join(id, gpu_node_of[ev->second], EdgeKind::Event);
          if (linked) { ++b.g.event_joins; ++b.g.gpu_joins; }
        }
      }
      if (linked) {
        // a wait on an event: joined to its exact op above
      } else if (n.stage == kLabelGpuWait) {
        auto it = ops_by_end.find(hosts[hl].pid);
        if (it != ops_by_end.end()) {
          const auto& v = it->second;
          auto pos = std::upper_bound(v.begin(), v.end(), n.end_ns + kTolNs,
                                      [&](std::int64_t t, std::uint32_t x) { return t < rs.gpu_ops[x].end_ns; });
          for (int k = 0; k < 64 && pos != v.begin(); ++k) {
            --pos;
            if (b.launch_time(*pos) <= n.start_ns + kTolNs) {
              linked = b.add_join(id, gpu_node_of[*pos], EdgeKind::Completion);
              if (linked) ++b.g.gpu_joins;
              break;
            }
          }
        }
      } else if (lane) {
        // A queue wait: the first produce/consume mark on this lane at or after its start
        // decides which side it is.
        auto first_after = [&](const std::vector<ItemMark>& v) -> const ItemMark* {
          auto it = std::lower_bound(v.begin(), v.end(), n.start_ns, [](const ItemMark& m, std::int64_t t) { return m.ts_ns < t; });
          return it == v.end() ? nullptr : &*it;
        };
        const ItemMark* c = first_after(lane->consumes);
        const ItemMark* p = first_after(lane->produces);
        if (c && (!p || c->ts_ns <= p->ts_ns)) {
          // Consumer: waits for the produce of the same item.
          auto it = produce_of.find(c->item);
          if (it != produce_of.end()) {
            // Prefer a produce before the consume; the latest such.
            const std::pair<std::uint32_t, std::int64_t>* best = nullptr;
            for (const auto& pr : it->second)
              if (pr.second <= c->ts_ns + kTolNs && (!best || pr.second > best->second)) best = &pr;
            if (best) {
              const std::uint32_t from = b.node_ending_at(best->first, best->second);
              if (from != kNone && from != id) linked = b.add_join(id, from, EdgeKind::ProduceConsume);
            }
          }
        } else if (p) {
          // Producer blocked on a full queue: released by the latest consume before it woke.
          auto it = std::upper_bound(consumes_by_ts.begin(), consumes_by_ts.end(),
                                     std::make_pair(n.end_ns + kTolNs, std::numeric_limits<std::uint32_t>::max()));
          if (it != consumes_by_ts.begin()) {
            --it;
            const std::uint32_t from = b.node_ending_at(it->second, it->first);
            if (from != kNone && from != id && b.g.nodes[from].end_ns <= n.end_ns + kTolNs) linked = b.add_join(id, from, EdgeKind::ProduceConsume);
          }
        }
      }
      if (linked) {
        ++b.g.linked_waits;
      } else {
        ++b.g.unlinked_waits;
        n.base_ns = n.end_ns - n.start_ns;
      }
    }
  }

}

// Phase 7: produce -> consume joins at every consume mark.
void link_consumes(GraphBuild& b) {
  const Timeline& tl = b.tl;
  const auto& host_of = b.host_of;
  const auto& produce_of = b.produce_of;
  // ---- produce -> consume joins on the zero-length waits at every consume: the consume of
  // item n cannot happen before its produce, also where the consumer did not wait in the
  // recording (it may have to once its own work gets faster).
  for (const Lane& l : tl.lanes) {
    const std::uint32_t h = host_of.at(LaneKey{l.pid, l.tid});
    for (const auto& m : l.consumes) {
      const std::uint32_t to = b.node_starting_at(h, m.ts_ns);
      if (to == kNone || b.g.nodes[to].kind != NodeKind::Wait || b.g.nodes[to].end_ns != m.ts_ns) continue;
      auto it = produce_of.find(m.item);
      const std::pair<std::uint32_t, std::int64_t>* best = nullptr;
      if (it != produce_of.end())
        for (const auto& pr : it->second)
          if (pr.second <= m.ts_ns + kTolNs && (!best || pr.second > best->second)) best = &pr;
      const std::uint32_t from = best ? b.node_ending_at(best->first, best->second) : kNone;
      if (from == kNone || from == to) continue;
      if (b.g.nodes[from].end_ns > m.ts_ns + kTolNs) { ++b.g.dropped_backward_edges; continue; }
      b.add_edge(to, from, std::min<std::int64_t>(0, m.ts_ns - b.g.nodes[from].end_ns), true, EdgeKind::ProduceConsume);
    }
  }

}

// Phase 8: the analysis window's nodes on the driving lane.
void set_window(GraphBuild& b) {
  const StepSelection& sel = b.sel;
  const std::uint32_t drv_host = b.drv_host;
  // ---- the analysis window on the driving lane.
  for (const Interval& s : sel.steps) b.g.span_first_node.push_back(b.node_starting_at(drv_host, s.start_ns));
  b.g.window_end_node = b.node_ending_at(drv_host, sel.window.end_ns);
  if (b.g.window_end_node == kNone || b.g.span_first_node.empty() || b.g.span_first_node.front() == kNone)
    throw InputError("replay: the analysis window is not on the driving thread's timeline");

}

// Phase 9: the edges flattened into the CSR of incoming edges.
void flatten_edges(GraphBuild& b) {
  // ---- flatten edges into the CSR of incoming edges: per node, its program-order edge (host
  // lanes) first, then the others in insertion order (a counting sort: no comparison sort).
  // Program order: a host lane's nodes are consecutive ids, so node i > first follows i - 1.
  // The slices are filled from their ends (extra edges in reverse, then the program-order
  // edge), with edge_begin[i + 1] as node i's cursor, and shifted down by one at the end.
  const std::size_t n = b.g.nodes.size();
  auto& begin = b.g.edge_begin;
  begin.assign(n + 1, 0);
  for (const auto& v : b.lane_nodes)
    for (std::uint32_t i = v.first + 1; i < v.last; ++i) begin[i + 1] = 1;
  for (const ReplayEdge& e : b.extra) begin[e.to + 1] += 1;
  for (std::size_t i = 0; i < n; ++i) begin[i + 1] += begin[i];
  const std::uint32_t total = begin[n];
  b.g.edges.resize(total);
  for (std::size_t k = b.extra.size(); k-- > 0;) b.g.edges[--begin[b.extra[k].to + 1]] = b.extra[k];
  release(b.extra);
  for (const auto& v : b.lane_nodes)
    for (std::uint32_t i = v.first + 1; i < v.last; ++i) {
      ReplayEdge& e = b.g.edges[--begin[i + 1]];
      e.from = i - 1;
      e.to = i & kMaxReplayNodes;
      e.weight_ns = b.g.nodes[i].start_ns - b.g.nodes[i - 1].end_ns;
      e.kind = static_cast<std::uint32_t>(EdgeKind::ProgramOrder);
      e.join = 0;
    }
  release(b.lane_nodes);
  for (std::size_t i = 0; i < n; ++i) begin[i] = begin[i + 1];  // now the slice starts
  begin[n] = total;
}

}  // namespace

ReplayGraph build_replay_graph(const Timeline& tl, const std::vector<GpuOpStage>& op_stages,
                               const StepSelection& sel, const std::function<void()>& inputs_read) {
  if (!tl.records) throw InputError("replay: timeline without records");
  GraphBuild b(tl, op_stages, sel);
  b.g.stage_names = tl.stage_names;
  b.g.window = sel.window;
  collect_host_inputs(b);
  cut_host_lanes(b);
  place_gpu_ops(b);
  link_gpu_ops(b);
  link_implicit_waits(b);
  link_host_waits(b);
  link_consumes(b);
  set_window(b);
  b.release_inputs();
  if (inputs_read) inputs_read();  // tl, rs and op_stages are not read below
  flatten_edges(b);
  return std::move(b.g);
}

}  // namespace amdahl::analysis
