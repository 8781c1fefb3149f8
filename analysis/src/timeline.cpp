// Builds the analyzer's lanes from a RecordSet: classifies ranges, flattens each thread's
// nested ranges into innermost-wins segments, and files steps, waits, blocking CUDA calls and
// produce/consume marks under their thread.
#include "amdahl/analysis/timeline.hpp"
#include "amdahl/text/escape.hpp"

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>

namespace amdahl::analysis {
namespace {

using LaneKey = std::pair<std::uint32_t, std::uint64_t>;

std::size_t lane_index(Timeline& tl, std::uint32_t pid, std::uint64_t tid) {
  auto [it, inserted] = tl.lane_of.try_emplace(LaneKey{pid, tid}, tl.lanes.size());
  if (inserted) {
    Lane lane;
    lane.pid = pid;
    lane.tid = tid;
    tl.lanes.push_back(std::move(lane));
  }
  return it->second;
}

bool integer_payload(const format::Payload& p) {
  return p.kind == format::PayloadKind::Int64 || p.kind == format::PayloadKind::UInt64;
}

struct Item {
  std::int64_t start, end, range;
  StageId stage;  // stage id, or kLabelWait; kLabelGpuWait for a blocking sync
};

void flatten(Lane& lane, std::vector<Item>& items) {
  struct Ev { std::int64_t t; int type; std::size_t i; };  // type 0 = end, 1 = start
  std::vector<Ev> evs;
  evs.reserve(items.size() * 2);
  for (std::size_t i = 0; i < items.size(); ++i) {
    evs.push_back({items[i].start, 1, i});
    evs.push_back({items[i].end, 0, i});
  }
  std::sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) {
    return std::tie(a.t, a.type, a.i) < std::tie(b.t, b.type, b.i);
  });
  // Innermost = latest start; on equal starts the earlier end; then the later record.
  using Key = std::tuple<std::int64_t, std::int64_t, std::size_t>;
  auto key = [&](std::size_t i) { return Key{items[i].start, -items[i].end, i}; };
  std::set<Key> labelled, stages;
  int syncs = 0;
  std::int64_t prev = evs.empty() ? 0 : evs.front().t;
  auto emit = [&](std::int64_t a, std::int64_t b) {
    if (b <= a) return;
    Segment s{a, b, kLabelOther, kLabelOther, -1};
    if (!labelled.empty()) {
      const auto& top = items[std::get<2>(*labelled.rbegin())];
      s.label = top.stage;
      s.range = top.range;
    } else if (syncs > 0) {
      s.label = kLabelGpuWait;
    }
    if (!stages.empty()) s.stage = items[std::get<2>(*stages.rbegin())].stage;
    auto& segs = lane.segments;
    if (!segs.empty() && segs.back().end_ns == a && segs.back().label == s.label &&
        segs.back().stage == s.stage && segs.back().range == s.range) {
      segs.back().end_ns = b;
    } else {
      segs.push_back(s);
    }
  };
  for (const Ev& e : evs) {
    emit(prev, e.t);
    prev = e.t;
    const Item& it = items[e.i];
    const bool is_sync = it.stage == kLabelGpuWait;
    if (is_sync) {
      syncs += e.type == 1 ? 1 : -1;
    } else {
      if (e.type == 1) labelled.insert(key(e.i)); else labelled.erase(key(e.i));
      if (it.stage >= 0) {
        if (e.type == 1) stages.insert(key(e.i)); else stages.erase(key(e.i));
      }
    }
  }
}

std::string_view strip_version(std::string_view name) {
  const std::size_t v = name.rfind("_v");
  if (v != std::string_view::npos && v + 2 < name.size() &&
      std::all_of(name.begin() + static_cast<std::ptrdiff_t>(v + 2), name.end(),
                  [](char c) { return c >= '0' && c <= '9'; }))
    return name.substr(0, v);
  return name;
}

using ApiKey = std::pair<std::uint64_t, std::uint32_t>;  // (pid << 32 | correlation id, index)

// Sorted (key, index) pairs; already sorted input (records in correlation order, the usual
// case) skips the sort. The pair order makes the first record of a key come first.
template <class Rec>
std::vector<ApiKey> sorted_keys(const std::vector<Rec>& v) {
  std::vector<ApiKey> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    out.emplace_back((static_cast<std::uint64_t>(v[i].pid) << 32) | v[i].correlation_id, static_cast<std::uint32_t>(i));
  if (!std::is_sorted(out.begin(), out.end())) std::sort(out.begin(), out.end());
  return out;
}

// For every record of `queries` (pid, correlation id), its API call: of the calls with that
// key, the last one that started no later than the record (CUPTI numbers correlations afresh
// each time it is attached again, so a sampled profile holds one call per window with the same
// id; a GPU op or sync belongs to the latest launch before it), else the first; kNoApiCall when
// none has the key. A merge of the two sorted key lists (no hash map of millions of calls).
template <class Rec>
std::vector<std::uint32_t> match_api_calls(const std::vector<ApiKey>& apis, const std::vector<format::ApiCallRec>& calls,
                                           const std::vector<Rec>& queries) {
  std::vector<std::uint32_t> out(queries.size(), kNoApiCall);
  const std::vector<ApiKey> q = sorted_keys(queries);
  std::size_t a = 0;
  for (const ApiKey& k : q) {
    while (a < apis.size() && apis[a].first < k.first) ++a;
    if (a >= apis.size() || apis[a].first != k.first) continue;
    std::uint32_t pick = apis[a].second;
    const std::int64_t t = queries[k.second].start_ns;
    for (std::size_t b = a + 1; b < apis.size() && apis[b].first == k.first; ++b) {
      const std::uint32_t c = apis[b].second;
      if (calls[c].start_ns > t) continue;
      if (calls[pick].start_ns > t || calls[c].start_ns >= calls[pick].start_ns) pick = c;
    }
    out[k.second] = pick;
  }
  return out;
}

// is_blocking_cuda_call per string id, computed once per name.
struct BlockingNames {
  const format::RecordSet& rs;
  std::vector<std::int8_t> known = std::vector<std::int8_t>(rs.strings.size(), -1);
  bool operator()(format::StrId id) {
    if (id >= known.size()) return is_blocking_cuda_call(rs.str(id));
    if (known[id] < 0) known[id] = is_blocking_cuda_call(rs.str(id)) ? 1 : 0;
    return known[id] == 1;
  }
};

}  // namespace

std::vector<std::uint32_t> launching_api_calls(const format::RecordSet& rs) {
  return match_api_calls(sorted_keys(rs.api_calls), rs.api_calls, rs.gpu_ops);
}

const Segment* Lane::segment_at(std::int64_t t) const {
  auto it = std::upper_bound(segments.begin(), segments.end(), t,
                             [](std::int64_t v, const Segment& s) { return v < s.start_ns; });
  if (it == segments.begin()) return nullptr;
  --it;
  return t < it->end_ns ? &*it : nullptr;
}

StageId Timeline::stage_id(const std::string& name) const {
  auto it = std::find(stage_names.begin(), stage_names.end(), name);
  return it == stage_names.end() ? -1 : static_cast<StageId>(it - stage_names.begin());
}

bool is_blocking_cuda_call(std::string_view name) {
  static const std::set<std::string_view> kBlocking = {
      "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaThreadSynchronize",
      "cudaEventSynchronize",  "cuStreamSynchronize",   "cuCtxSynchronize",
      "cuEventSynchronize",    "cudaMemcpy",            "cudaMemcpy2D",
      "cudaMemcpy3D",          "cudaMemcpyToSymbol",    "cudaMemcpyFromSymbol",
      "cuMemcpy",              "cuMemcpyHtoD",          "cuMemcpyDtoH",
      "cuMemcpyDtoD"};
  return kBlocking.count(strip_version(name)) > 0;
}

Timeline build_timeline(const format::RecordSet& rs, const StageRules& rules) {
  Timeline tl;
  tl.records = &rs;
  for (auto s : kCanonicalStages) tl.stage_names.emplace_back(s);

  // Classify every range (cached per (domain, name) string pair).
  std::unordered_map<std::uint64_t, std::pair<RangeClass, StageId>> cache;
  tl.range_class.resize(rs.ranges.size());
  std::vector<StageId> range_stage(rs.ranges.size(), kLabelOther);
  for (std::size_t i = 0; i < rs.ranges.size(); ++i) {
    const auto& r = rs.ranges[i];
    const std::uint64_t k = (static_cast<std::uint64_t>(r.domain) << 32) | r.name;
    auto it = cache.find(k);
    if (it == cache.end()) {
      RangeClass c = rules.classify(rs.str(r.domain), rs.str(r.name));
      StageId id = kLabelOther;
      if (c.role == RangeRole::Stage) {
        // Stage names come from the profile (a range name, a saved rule): shown escaped in
        // every report, and matched in that form (escape.hpp, display_name).
        c.stage = text::display_name(c.stage);
        id = tl.stage_id(c.stage);
        if (id < 0) {
          id = static_cast<StageId>(tl.stage_names.size());
          tl.stage_names.push_back(c.stage);
        }
      }
      it = cache.emplace(k, std::make_pair(std::move(c), id)).first;
    }
    tl.range_class[i] = it->second.first;
    range_stage[i] = it->second.second;
  }

  std::vector<std::vector<Item>> items;
  auto items_of = [&](std::size_t lane) -> std::vector<Item>& {
    if (items.size() <= lane) items.resize(lane + 1);
    return items[lane];
  };
  for (std::size_t i = 0; i < rs.ranges.size(); ++i) {
    const auto& r = rs.ranges[i];
    const RangeRole role = tl.range_class[i].role;
    if (role == RangeRole::Ignore || r.end_ns < r.start_ns) continue;
    const std::size_t li = lane_index(tl, r.pid, r.tid);
    Lane& lane = tl.lanes[li];
    if (lane.first_ns == lane.last_ns && lane.first_ns == 0) {
      lane.first_ns = r.start_ns;
      lane.last_ns = r.end_ns;
    }
    lane.first_ns = std::min(lane.first_ns, r.start_ns);
    lane.last_ns = std::max(lane.last_ns, r.end_ns);
    if (role == RangeRole::Step) {
      lane.steps.push_back({r.start_ns, r.end_ns});
      continue;
    }
    if (role == RangeRole::Wait) {
      lane.wait_ranges.push_back({r.start_ns, r.end_ns});
      items_of(li).push_back({r.start_ns, r.end_ns, static_cast<std::int64_t>(i), kLabelWait});
    } else {
      ++lane.stage_ranges;
      items_of(li).push_back({r.start_ns, r.end_ns, static_cast<std::int64_t>(i), range_stage[i]});
    }
  }

  // Blocking CUDA calls: by API name, and CUPTI sync records through their correlation id.
  BlockingNames blocking{rs};
  for (std::size_t i = 0; i < rs.api_calls.size(); ++i) {
    const auto& a = rs.api_calls[i];
    if (a.end_ns > a.start_ns && blocking(a.name)) {
      const std::size_t li = lane_index(tl, a.pid, a.tid);
      tl.lanes[li].blocking_syncs.push_back({a.start_ns, a.end_ns});
      items_of(li).push_back({a.start_ns, a.end_ns, -1, kLabelGpuWait});
    }
  }
  {
    const std::vector<ApiKey> apis = sorted_keys(rs.api_calls);
    tl.api_of_op = match_api_calls(apis, rs.api_calls, rs.gpu_ops);
    const std::vector<std::uint32_t> api_of_sync = rs.syncs.empty() ? std::vector<std::uint32_t>{}
                                                                    : match_api_calls(apis, rs.api_calls, rs.syncs);
    for (std::size_t k = 0; k < rs.syncs.size(); ++k) {
      const auto& s = rs.syncs[k];
      if (s.kind == format::SyncKind::StreamWaitEvent || s.end_ns <= s.start_ns) continue;
      if (api_of_sync[k] == kNoApiCall) continue;  // no thread known for it
      const auto& a = rs.api_calls[api_of_sync[k]];
      const std::size_t li = lane_index(tl, a.pid, a.tid);
      tl.lanes[li].blocking_syncs.push_back({s.start_ns, s.end_ns});
      items_of(li).push_back({s.start_ns, s.end_ns, -1, kLabelGpuWait});
    }
  }

  for (const auto& m : rs.marks) {
    const std::string& dom = rs.str(m.domain);
    if (!(dom == kAmdahlDomain || dom.empty()) || !integer_payload(m.payload)) continue;
    const std::string& name = rs.str(m.name);
    if (name != "produce" && name != "consume") continue;
    Lane& lane = tl.lanes[lane_index(tl, m.pid, m.tid)];
    (name == "produce" ? lane.produces : lane.consumes).push_back({m.ts_ns, m.payload.i});
    tl.has_item_marks = true;
  }

  for (const auto& t : rs.threads) {
    auto it = tl.lane_of.find(LaneKey{t.pid, t.tid});
    if (it != tl.lane_of.end()) tl.lanes[it->second].name = text::display_name(rs.str(t.name));
  }
  for (std::size_t li = 0; li < tl.lanes.size(); ++li) {
    Lane& lane = tl.lanes[li];
    auto by_start = [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; };
    auto by_ts = [](const ItemMark& a, const ItemMark& b) { return a.ts_ns < b.ts_ns; };
    std::sort(lane.steps.begin(), lane.steps.end(), by_start);
    // Two sources of steps on one thread (the program's own `step` range and the one --torch
    // opens, say) give two overlapping steps per iteration: keep the first of each overlap.
    std::size_t kept = 0;
    for (std::size_t k = 0; k < lane.steps.size(); ++k) {
      if (kept > 0 && lane.steps[k].start_ns < lane.steps[kept - 1].end_ns) {
        ++lane.nested_steps;
        continue;
      }
      lane.steps[kept++] = lane.steps[k];
    }
    lane.steps.resize(kept);
    std::sort(lane.wait_ranges.begin(), lane.wait_ranges.end(), by_start);
    std::sort(lane.blocking_syncs.begin(), lane.blocking_syncs.end(), by_start);
    std::stable_sort(lane.produces.begin(), lane.produces.end(), by_ts);
    std::stable_sort(lane.consumes.begin(), lane.consumes.end(), by_ts);
    if (li < items.size()) flatten(lane, items[li]);
  }
  return tl;
}

}  // namespace amdahl::analysis
