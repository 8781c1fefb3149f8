// PyTorch profiler (Kineto) Chrome-trace import (see kineto_import.hpp).
#include "amdahl/import/kineto_import.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/stage_rules.hpp"
#include "amdahl/analysis/steps.hpp"
#include "kineto_event.hpp"
#include "kineto_loader_lane.hpp"
#include "trace_stream.hpp"

namespace amdahl::kineto {
namespace {

using nlohmann::json;
using analysis::InputError;
using detail::arg_u64;
using detail::EventHead;
using detail::EventKind;
using detail::Span;
using detail::str_of;

struct Builder {
  format::RecordSet rs;
  std::unordered_map<std::string, format::StrId> ids;
  format::StrId s(const std::string& text) {
    if (text.empty()) return format::kNoString;
    const auto it = ids.find(text);
    if (it != ids.end()) return it->second;
    rs.strings.push_back(text);
    const auto id = static_cast<format::StrId>(rs.strings.size() - 1);
    ids.emplace(text, id);
    return id;
  }
};

// A host-side event of the trace (kept or not): what the notes about the training thread's
// time are computed from. `range` indexes the kept range, -1 for a dropped op or an API call.
struct HostEvent {
  std::uint32_t pid = 0;
  std::uint64_t tid = 0;
  std::int64_t start = 0, end = 0;
  std::uint32_t name = 0;  // into HostNames::text
  std::int64_t range = -1;
};

struct HostNames {
  std::vector<std::string> text;
  std::unordered_map<std::string, std::uint32_t> ids;
  std::uint32_t id(const std::string& s) {
    const auto [it, inserted] = ids.try_emplace(s, static_cast<std::uint32_t>(text.size()));
    if (inserted) text.push_back(s);
    return it->second;
  }
};

using ThreadKey = std::pair<std::uint32_t, std::uint64_t>;
using analysis::Interval;

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// A trace name inside a note: one line (meta 'notes' is one note per line), at most 120 bytes.
std::string note_name(const std::string& name) {
  std::string out = name;
  if (out.size() > 120) {
    std::size_t cut = 117;  // not inside a UTF-8 sequence (JSON output needs valid UTF-8)
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out = out.substr(0, cut) + "...";
  }
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

std::string ms(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", ns / 1e6);
  return buf;
}

// Sorted disjoint intervals; covered(a, b): how much of [a, b) they cover.
struct Cover {
  std::vector<Interval> iv;
  void build(std::vector<Interval> v) {
    std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) { return x.start_ns < y.start_ns; });
    for (const auto& i : v) {
      if (i.end_ns <= i.start_ns) continue;
      if (!iv.empty() && i.start_ns <= iv.back().end_ns) iv.back().end_ns = std::max(iv.back().end_ns, i.end_ns);
      else iv.push_back(i);
    }
  }
  double covered(std::int64_t a, std::int64_t b) const {
    double sum = 0;
    auto it = std::lower_bound(iv.begin(), iv.end(), a,
                               [](const Interval& i, std::int64_t t) { return i.end_ns <= t; });
    for (; it != iv.end() && it->start_ns < b; ++it)
      sum += static_cast<double>(std::min(b, it->end_ns) - std::max(a, it->start_ns));
    return sum;
  }
};

double overlap(std::int64_t a, std::int64_t b, const Interval& w) {
  const std::int64_t lo = std::max(a, w.start_ns), hi = std::min(b, w.end_ns);
  return hi > lo ? static_cast<double>(hi - lo) : 0.0;
}

// Of ranges sorted by start, those not inside an earlier one (on one thread).
std::vector<std::size_t> top_level(const std::vector<format::RangeRec>& ranges, std::vector<std::size_t> idx) {
  std::sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) {
    if (ranges[x].start_ns != ranges[y].start_ns) return ranges[x].start_ns < ranges[y].start_ns;
    return ranges[x].end_ns > ranges[y].end_ns;
  });
  std::vector<std::size_t> out;
  std::int64_t until = INT64_MIN;
  for (std::size_t i : idx) {
    if (ranges[i].start_ns < until) continue;
    out.push_back(i);
    until = ranges[i].end_ns;
  }
  return out;
}

// The DataLoader's workers as a lane inferred from the training thread's waits, when they were
// the bottleneck (kineto_loader_lane.hpp): a thread of ranges `kInferredLoaderName` (stage
// data_loading) with produce marks, and consume marks on the training thread. Returns the
// sentence for the data_loading note, "" when nothing was inferred.
constexpr std::uint64_t kInferredLoaderTidBase = 0xDA7A000000000000ull;
constexpr const char* kInferredLoaderName = "DataLoader batch (inferred from the training thread's waits)";

std::string add_inferred_loader_lane(Builder& b, const ThreadKey& drv, const std::vector<std::size_t>& loads,
                                     KinetoImportStats& st) {
  std::vector<LoaderCall> calls;
  for (std::size_t i : loads)
    if (b.rs.str(b.rs.ranges[i].name).find("_MultiProcessingDataLoaderIter") != std::string::npos)
      calls.push_back({b.rs.ranges[i].start_ns, b.rs.ranges[i].end_ns});
  std::sort(calls.begin(), calls.end(), [](const LoaderCall& x, const LoaderCall& y) { return x.start_ns < y.start_ns; });
  const InferredLoaderLane lane = infer_loader_lane(calls);
  if (!lane.inferred) return {};
  const std::uint64_t tid = kInferredLoaderTidBase | drv.first;
  const format::StrId name = b.s(kInferredLoaderName), amdahl = b.s("amdahl");
  for (const auto& r : lane.ranges) {
    format::RangeRec rec;
    rec.pid = drv.first;
    rec.tid = rec.end_tid = tid;
    rec.name = name;
    rec.start_ns = r.start_ns;
    rec.end_ns = r.end_ns;
    b.rs.ranges.push_back(rec);
  }
  auto mark = [&](std::uint64_t on, const char* what, std::int64_t ts, std::int64_t item) {
    format::MarkRec m;
    m.pid = drv.first;
    m.tid = on;
    m.domain = amdahl;
    m.name = b.s(what);
    m.ts_ns = ts;
    m.payload.kind = format::PayloadKind::Int64;
    m.payload.i = item;
    b.rs.marks.push_back(m);
  };
  for (const auto& [ts, item] : lane.produces) mark(tid, "produce", ts, item);
  for (const auto& [ts, item] : lane.consumes) mark(drv.second, "consume", ts, item);
  st.inferred_loader_batches = lane.ranges.size();
  return "The training thread waited at " + std::to_string(lane.waited) + " of " + std::to_string(calls.size()) +
         " calls: the workers were the bottleneck. amdahl import adds their lane, inferred from the waits (thread '"
         "DataLoader workers (inferred)'): a batch whose fetch waited was being produced since the previous "
         "hand-off, one that was ready was produced by then; produce/consume marks link each fetch to it, so the "
         "critical path runs through the loading as in amdahl's own profile, and the batches prefetched before the "
         "first wait are the pipeline's fill. The lane shows the pool's throughput (one batch per hand-off "
         "interval), not each worker; `whatif --speedup data_loading=K` makes it K-fold faster";
}

// The top-level ranges of each thread that make steps and the data_loading note, by kind.
using RangesByThread = std::map<ThreadKey, std::vector<std::size_t>>;
struct TrainingRanges {
  RangesByThread prof, opt, loader, zero;  // ProfilerStep#, Optimizer.step, enumerate(DataLoader), zero_grad
};

TrainingRanges training_ranges(const Builder& b) {
  const auto& ranges = b.rs.ranges;
  TrainingRanges t;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const std::string& n = b.rs.str(ranges[i].name);
    const ThreadKey k{ranges[i].pid, ranges[i].tid};
    if (starts_with(n, "ProfilerStep#")) t.prof[k].push_back(i);
    else if (starts_with(n, "Optimizer.step")) t.opt[k].push_back(i);
    else if (starts_with(n, "enumerate(DataLoader)")) t.loader[k].push_back(i);
    else if (starts_with(n, "Optimizer.zero_grad")) t.zero[k].push_back(i);
  }
  for (auto* m : {&t.prof, &t.opt, &t.loader, &t.zero})
    for (auto& [k, v] : *m) v = top_level(ranges, std::move(v));
  return t;
}

// The thread with the most ranges in `m` (the first such thread).
ThreadKey thread_with_most(const RangesByThread& m) {
  ThreadKey best{};
  std::size_t n = 0;
  for (const auto& [k, v] : m)
    if (v.size() > n) {
      n = v.size();
      best = k;
    }
  return best;
}

// The training thread and its steps: the ProfilerStep#N ranges of the thread with the most, else
// one step per Optimizer.step of the thread with the most (added as ranges, so that they nest
// like the others), else no steps and the thread with the most host events.
struct TrainingSteps {
  ThreadKey drv{};
  std::vector<Interval> steps;
};

TrainingSteps find_steps(Builder& b, TrainingRanges& tr, const std::vector<HostEvent>& host, KinetoImportStats& st) {
  auto& ranges = b.rs.ranges;
  TrainingSteps out;
  ThreadKey& drv = out.drv;
  std::vector<Interval>& steps = out.steps;
  if (!tr.prof.empty()) {
    st.step_source = "ProfilerStep";
    drv = thread_with_most(tr.prof);
    for (std::size_t i : tr.prof[drv]) steps.push_back({ranges[i].start_ns, ranges[i].end_ns});
  } else if (!tr.opt.empty()) {
    st.step_source = "Optimizer.step";
    drv = thread_with_most(tr.opt);
    const std::vector<std::size_t> o = tr.opt[drv];
    // The first step opens at the first training event before the first optimizer step ends
    // (a batch fetch, zero_grad, the optimizer step); each next one where the previous ended.
    std::int64_t first = ranges[o.front()].start_ns;
    for (auto* m : {&tr.loader, &tr.zero})
      for (std::size_t i : (*m)[drv])
        if (ranges[i].start_ns < ranges[o.front()].end_ns) first = std::min(first, ranges[i].start_ns);
    for (std::size_t k = 0; k < o.size(); ++k)
      steps.push_back({k == 0 ? first : ranges[o[k - 1]].end_ns, ranges[o[k]].end_ns});
    for (std::size_t k = 0; k < steps.size(); ++k) {
      format::RangeRec r;
      r.pid = drv.first;
      r.tid = r.end_tid = drv.second;
      r.name = b.s(std::string(kImportStepPrefix) + std::to_string(k + 1));
      r.start_ns = steps[k].start_ns;
      r.end_ns = steps[k].end_ns;
      ranges.push_back(r);
    }
  } else {
    st.step_source = "none";
    std::map<ThreadKey, std::size_t> count;
    for (const auto& e : host) ++count[{e.pid, e.tid}];
    std::size_t n = 0;
    for (const auto& [k, c] : count)
      if (c > n) {
        n = c;
        drv = k;
      }
  }
  st.steps = steps.size();
  return out;
}

// The part the report analyses by default: the steps after the automatic warm-up; without
// steps, the training thread's whole trace (`mine`: its host events). `where` names it in notes.
struct AnalysedPart {
  Interval w{0, 0};
  std::string where;
};

AnalysedPart analysed_part(const std::vector<Interval>& steps, const std::vector<HostEvent>& mine) {
  AnalysedPart part;
  Interval& w = part.w;
  std::size_t warmup = 0;
  if (!steps.empty()) {
    std::vector<std::int64_t> d;
    for (const auto& s : steps) d.push_back(s.end_ns - s.start_ns);
    warmup = analysis::auto_warmup(d);
    w = {steps[warmup].start_ns, steps.back().end_ns};
    for (std::size_t k = warmup; k < steps.size(); ++k) w.end_ns = std::max(w.end_ns, steps[k].end_ns);
  } else if (!mine.empty()) {
    w = {INT64_MAX, INT64_MIN};
    for (const auto& e : mine) {
      w.start_ns = std::min(w.start_ns, e.start);
      w.end_ns = std::max(w.end_ns, e.end);
    }
  }
  part.where = steps.empty() ? std::string("the whole trace of the training thread")
                             : "the " + std::to_string(steps.size() - warmup) + " steps after the automatic warm-up";
  return part;
}

// The note on where the steps came from, when not from ProfilerStep#N ranges.
void add_steps_note(KinetoImportStats& st, std::size_t steps) {
  if (st.step_source == "Optimizer.step") {
    st.notes.push_back(
        "steps: the trace has no ProfilerStep#N ranges (prof.step() was not called), so amdahl import made one step "
        "per Optimizer.step range on the training thread (" + std::to_string(steps) +
        "): a step ends where its Optimizer.step ends and the next begins there; the first begins at the first batch "
        "fetch, zero_grad or optimizer step before it. Time before the first step (setup, DataLoader worker start) "
        "is not analysed");
  } else if (st.step_source == "none") {
    st.notes.push_back(
        "steps: the trace has neither ProfilerStep#N nor Optimizer.step ranges, so there are no steps: the analysis "
        "covers a whole thread's trace, setup and DataLoader worker start included; call prof.step() once per "
        "iteration (or step a torch.optim optimizer) to get steps");
  }
}

// The DataLoader's __next__ on the training thread (`loads`): stage data_loading. Its note says
// what the time is (a wait for workers, or inline loading) and adds the inferred loader lane
// when the workers were the bottleneck.
void add_data_loading_note(Builder& b, const ThreadKey& drv, const std::vector<std::size_t>& loads,
                           const AnalysedPart& part, KinetoImportStats& st) {
  const auto& ranges = b.rs.ranges;
  const Interval& w = part.w;
  st.dataloader_ranges = loads.size();
  if (loads.empty()) return;
  std::size_t multi = 0, single = 0, in_w = 0;
  double ns = 0;
  std::string other_name;
  for (std::size_t i : loads) {
    const std::string& n = b.rs.str(ranges[i].name);
    if (n.find("_MultiProcessingDataLoaderIter") != std::string::npos) ++multi;
    else if (n.find("_SingleProcessDataLoaderIter") != std::string::npos) ++single;
    else if (other_name.empty()) other_name = note_name(n);
    const double o = overlap(ranges[i].start_ns, ranges[i].end_ns, w);
    if (o > 0) {
      ++in_w;
      ns += o;
    }
  }
  const std::string lane_note = add_inferred_loader_lane(b, drv, loads, st);
  const std::string figures = std::to_string(loads.size()) + " calls; " + std::to_string(in_w) + " of them, " +
                              ms(ns) + ", in " + part.where + " (" + ms(static_cast<double>(w.end_ns - w.start_ns)) +
                              ")";
  const std::string split =
      "so it cannot split this time into disk_io and cpu_preprocess: stage data_loading holds both (compare it "
      "with disk_io + cpu_preprocess of amdahl's own profile, `amdahl profile --torch`)";
  std::string note = "data_loading: ";
  if (multi > 0) {
    note += "the training thread's enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__ (" + figures +
            ") is time it waited for batches from the DataLoader's worker processes. The trace does not record "
            "those processes (what they spent reading files and what decoding and transforming), " + split +
            ". " + (lane_note.empty() ? std::string(
            "The wait is replayed as data_loading work: `whatif --speedup data_loading=K` shortens it K-fold, "
            "a lower bound of what K-fold faster loading gives (the workers' loading also overlaps the training "
            "step, which a wait does not show)") : lane_note);
    if (single > 0)
      note += "; " + std::to_string(single) + " of the calls were single-process (num_workers=0) loading";
  } else if (single > 0) {
    note += "the training thread's enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ (num_workers=0: " +
            figures + ") is batch loading done on the training thread itself, not a wait. The trace does not say "
            "which part of it read files and which decoded and transformed, " + split +
            ". `whatif --workers N --worker-stages data_loading` projects N DataLoader workers";
  } else {
    note += "the training thread's " + other_name + " (" + figures +
            ") is the DataLoader handing over batches (a wait for worker processes, or loading inline: the trace "
            "does not say which). The trace does not record what the loading spent reading files and what "
            "decoding and transforming, " + split;
  }
  note += "; record_function ranges named disk_io or cpu_preprocess inside it keep their own stage";
  st.notes.push_back(note);
}

// The training thread's time in no stage (the report's `other` is the part of it on the
// critical path): its top-level ranges by name, from its host events `mine`.
void add_other_note(const Builder& b, const ThreadKey& drv, std::vector<HostEvent>& mine, const HostNames& names,
                    const AnalysedPart& part, KinetoImportStats& st) {
  const auto& ranges = b.rs.ranges;
  const Interval& w = part.w;
  if (w.end_ns <= w.start_ns) return;
  const analysis::StageRules rules(analysis::parse_stage_rules(kineto_stage_rules(), "import rules"));
  std::vector<analysis::RangeRole> role(ranges.size(), analysis::RangeRole::Ignore);
  std::vector<Interval> staged;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i].pid != drv.first || ranges[i].tid != drv.second) continue;
    role[i] = rules.classify("", b.rs.str(ranges[i].name)).role;
    if (role[i] == analysis::RangeRole::Stage || role[i] == analysis::RangeRole::Wait)
      staged.push_back({ranges[i].start_ns, ranges[i].end_ns});
  }
  Cover cover;
  cover.build(std::move(staged));
  const double window_ns = static_cast<double>(w.end_ns - w.start_ns);
  const double unstaged = window_ns - cover.covered(w.start_ns, w.end_ns);
  if (unstaged <= 0) return;
  std::sort(mine.begin(), mine.end(), [](const HostEvent& x, const HostEvent& y) {
    if (x.start != y.start) return x.start < y.start;
    return x.end > y.end;
  });
  std::map<std::uint32_t, std::pair<double, std::size_t>> by_name;  // name -> (ns, count)
  double named = 0;
  std::int64_t until = INT64_MIN;
  for (const auto& e : mine) {
    if (e.range >= 0 && role[static_cast<std::size_t>(e.range)] == analysis::RangeRole::Step) continue;
    if (e.start < until) continue;  // inside a top-level one
    until = e.end;
    if (e.range >= 0 && role[static_cast<std::size_t>(e.range)] != analysis::RangeRole::Ignore) continue;
    const std::int64_t a = std::max(e.start, w.start_ns), z = std::min(e.end, w.end_ns);
    if (z <= a) continue;
    const double t = static_cast<double>(z - a) - cover.covered(a, z);
    if (t <= 0) continue;
    auto& slot = by_name[e.name];
    slot.first += t;
    ++slot.second;
    named += t;
  }
  std::vector<std::pair<double, std::uint32_t>> top;
  for (const auto& [n, v] : by_name) top.emplace_back(v.first, n);
  std::sort(top.begin(), top.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  constexpr std::size_t kShown = 6;
  std::string note = "other: " + ms(unstaged) + " of the training thread's " + ms(window_ns) + " in " + part.where +
                     " is in no stage range (the report's 'other' is the part of it on the critical path)";
  if (top.empty()) {
    note += "; none of it is inside a traced range (Python code between operators, or waits)";
  } else {
    note += "; its largest top-level ranges:";
    for (std::size_t k = 0; k < top.size() && k < kShown; ++k) {
      const auto& v = by_name[top[k].second];
      note += (k ? ", " : " ") + note_name(names.text[top[k].second]) + " " + ms(top[k].first) + " (" +
              std::to_string(v.second) + "x)";
    }
    if (top.size() > kShown) {
      double rest = 0;
      for (std::size_t k = kShown; k < top.size(); ++k) rest += top[k].first;
      note += ", " + std::to_string(top.size() - kShown) + " more names " + ms(rest);
    }
    note += "; " + ms(std::max(0.0, unstaged - named)) + " is inside no traced range (Python code between operators, "
            "or waits)";
  }
  st.notes.push_back(note);
}

// Steps (ProfilerStep#N ranges, else one added per Optimizer.step on the training thread) and
// the notes of meta 'notes' (docs/reports.md, "amdahl import"). Before the ranges' nesting is
// computed: the added step ranges nest like the others.
void steps_and_notes(Builder& b, std::vector<HostEvent>& host, const HostNames& names, KinetoImportStats& st) {
  TrainingRanges tr = training_ranges(b);
  const TrainingSteps ts = find_steps(b, tr, host, st);
  // The training thread's host events; the others are not needed any more.
  std::vector<HostEvent> mine;
  for (const auto& e : host)
    if (e.pid == ts.drv.first && e.tid == ts.drv.second) mine.push_back(e);
  host.clear();
  host.shrink_to_fit();
  const AnalysedPart part = analysed_part(ts.steps, mine);
  add_steps_note(st, ts.steps.size());
  add_data_loading_note(b, ts.drv, tr.loader[ts.drv], part, st);
  add_other_note(b, ts.drv, mine, names, part, st);
}

// What the events of a trace build, one event at a time (the streaming parse hands each over
// and drops it): the records, the names, and what the notes are computed from.
struct Accumulator {
  explicit Accumulator(const KinetoImportOptions& o) : options(o) {}
  const KinetoImportOptions& options;
  KinetoImportStats st;
  Builder b;
  std::map<std::uint32_t, std::string> process_names;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::string> thread_names;
  std::vector<format::GpuOpRec> gpu_ops;
  std::map<std::uint32_t, std::uint32_t> pid_of_corr;  // correlation -> CPU pid
  std::map<std::uint32_t, std::size_t> events_per_pid;
  std::int64_t t_min = INT64_MAX, t_max = INT64_MIN;
  std::vector<HostEvent> host;  // host events of every thread, kept or not (for the notes)
  HostNames host_names;

  void add(const json& e);

 private:
  void add_metadata(const EventHead& h);
  void add_host_event(const EventHead& h, Span s, std::int64_t range);  // range: its index, or -1
  void add_api_call(const format::ApiCallRec& a);
};

// One event: a metadata event names a process or a thread; an "X" event with a valid span is
// a host event for the notes when it is one (is_host_event), and becomes a range, an API call
// or a GPU op, or is counted as skipped.
void Accumulator::add(const json& e) {
  if (!e.is_object()) return;
  ++st.events;
  const EventHead h = detail::head_of(e);
  if (h.ph == "M") {
    add_metadata(h);
    return;
  }
  const std::optional<Span> span = h.ph == "X" ? detail::span_of(e) : std::nullopt;
  if (!span) {
    ++st.skipped_other;
    return;
  }
  const std::string cat = str_of(e, "cat");
  const EventKind kind = detail::kind_of(cat, h.name, options.keep_cpu_ops);
  if (detail::is_host_event(kind, cat))
    add_host_event(h, *span, kind == EventKind::Range ? static_cast<std::int64_t>(b.rs.ranges.size()) : -1);
  switch (kind) {
    case EventKind::DroppedCpuOp:
      ++st.skipped_cpu_ops;
      return;
    case EventKind::Other:
      ++st.skipped_other;
      return;
    case EventKind::Range:
      b.rs.ranges.push_back(detail::range_of(h, *span, b.s(h.name)));
      ++events_per_pid[h.pid];
      break;
    case EventKind::ApiCall:
      add_api_call(detail::api_call_of(h, cat, *span, b.s(h.name)));
      break;
    case EventKind::GpuOp:
      gpu_ops.push_back(detail::gpu_op_of(h, cat, *span, cat == "kernel" ? b.s(h.name) : format::kNoString));
      break;
  }
  t_min = std::min(t_min, span->start);
  t_max = std::max(t_max, span->end);
}

void Accumulator::add_metadata(const EventHead& h) {
  const std::optional<std::string> name = detail::metadata_name(h);
  if (!name) return;
  if (h.name == "process_name") process_names[h.pid] = *name;
  else if (h.name == "thread_name") thread_names[{h.pid, h.tid}] = *name;
}

void Accumulator::add_host_event(const EventHead& h, Span s, std::int64_t range) {
  HostEvent he;
  he.pid = h.pid;
  he.tid = h.tid;
  he.start = s.start;
  he.end = s.end;
  he.name = host_names.id(h.name);
  he.range = range;
  host.push_back(he);
}

void Accumulator::add_api_call(const format::ApiCallRec& a) {
  b.rs.api_calls.push_back(a);
  if (a.correlation_id) pid_of_corr[a.correlation_id] = a.pid;
  ++events_per_pid[a.pid];
}

}  // namespace

const std::string& kineto_stage_rules() {
  static const std::string rules =
      "# amdahl import: PyTorch profiler (Kineto) names, tried before the built-in defaults\n"
      "ProfilerStep#*            -> step\n"
      "amdahl_step#*             -> step           # one per Optimizer.step, added by the import\n"
      "# the DataLoader's __next__ on the training thread: waiting for batches from the worker\n"
      "# processes (not in the trace), or loading them inline (num_workers=0); either way disk_io\n"
      "# and cpu_preprocess together, which the trace cannot split\n"
      "enumerate(DataLoader)*    -> data_loading\n"
      "# the worker processes' batches, inferred from those waits when the loading was the bottleneck\n"
      "DataLoader batch (inferred* -> data_loading\n"
      "Optimizer.step*           -> gpu_compute\n"
      "Optimizer.zero_grad*      -> gpu_compute\n";
  return rules;
}

namespace {

// GPU ops belong to the process that launched them (matched by correlation), else to the
// process with the most host events, which is returned (the devices and diagnostics go there).
std::uint32_t assign_gpu_ops(Accumulator& acc) {
  std::uint32_t main_pid = 0;
  std::size_t best = 0;
  for (const auto& [p, n] : acc.events_per_pid)
    if (n > best) {
      best = n;
      main_pid = p;
    }
  for (auto& op : acc.gpu_ops) {
    const auto it = op.correlation_id ? acc.pid_of_corr.find(op.correlation_id) : acc.pid_of_corr.end();
    if (it != acc.pid_of_corr.end()) {
      op.pid = it->second;
    } else {
      op.pid = main_pid;
      ++acc.st.gpu_ops_without_call;
    }
    acc.b.rs.gpu_ops.push_back(op);
  }
  return main_pid;
}

// Depth and parent of the ranges: nesting per thread.
void nest_ranges(std::vector<format::RangeRec>& ranges) {
  std::vector<std::size_t> order(ranges.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const auto& a = ranges[x];
    const auto& c = ranges[y];
    if (a.pid != c.pid) return a.pid < c.pid;
    if (a.tid != c.tid) return a.tid < c.tid;
    if (a.start_ns != c.start_ns) return a.start_ns < c.start_ns;
    return a.end_ns > c.end_ns;
  });
  std::vector<std::size_t> stack;
  for (std::size_t k = 0; k < order.size(); ++k) {
    auto& r = ranges[order[k]];
    if (k > 0) {
      const auto& prev = ranges[order[k - 1]];
      if (prev.pid != r.pid || prev.tid != r.tid) stack.clear();
    }
    while (!stack.empty() && ranges[stack.back()].end_ns <= r.start_ns) stack.pop_back();
    r.depth = static_cast<std::int32_t>(stack.size());
    r.parent = stack.empty() ? -1 : static_cast<std::int64_t>(stack.back());
    stack.push_back(order[k]);
  }
}

// Processes and threads: every one with a range, an API call or (processes) a GPU op, named
// from the trace's metadata events (the inferred loader lane by its own name).
void add_processes_and_threads(Accumulator& acc) {
  Builder& b = acc.b;
  std::map<std::uint32_t, bool> cpu_pids;
  std::map<std::pair<std::uint32_t, std::uint64_t>, bool> cpu_threads;
  for (const auto& r : b.rs.ranges) cpu_threads[{r.pid, r.tid}] = cpu_pids[r.pid] = true;
  for (const auto& a : b.rs.api_calls) cpu_threads[{a.pid, a.tid}] = cpu_pids[a.pid] = true;
  for (const auto& op : b.rs.gpu_ops) cpu_pids[op.pid] = true;
  for (const auto& [p, unused] : cpu_pids) {
    (void)unused;
    format::ProcessRec pr;
    pr.pid = p;
    const auto it = acc.process_names.find(p);
    pr.command = b.s(it != acc.process_names.end() ? it->second : std::string("python"));
    pr.start_ns = acc.t_min;
    pr.end_ns = acc.t_max;
    b.rs.processes.push_back(pr);
  }
  for (const auto& [key, unused] : cpu_threads) {
    (void)unused;
    format::ThreadRec t;
    t.pid = key.first;
    t.tid = key.second;
    const auto it = acc.thread_names.find(key);
    t.name = b.s(it != acc.thread_names.end()                                 ? it->second
                 : (key.second & kInferredLoaderTidBase) == kInferredLoaderTidBase ? std::string("DataLoader workers (inferred)")
                                                                             : std::string());
    b.rs.threads.push_back(t);
  }
}

// The devices of the trace's deviceProperties, on the main process.
void add_devices(Builder& b, const json& device_properties, std::uint32_t main_pid) {
  if (!device_properties.is_array()) return;
  for (const auto& d : device_properties) {
    if (!d.is_object()) continue;
    format::DeviceRec dr;
    dr.pid = main_pid;
    dr.device = static_cast<std::uint32_t>(arg_u64(d, "id"));
    dr.name = b.s(str_of(d, "name"));
    dr.global_memory = arg_u64(d, "totalGlobalMem");
    dr.cc_major = static_cast<std::uint32_t>(arg_u64(d, "computeMajor"));
    dr.cc_minor = static_cast<std::uint32_t>(arg_u64(d, "computeMinor"));
    dr.sm_count = static_cast<std::uint32_t>(arg_u64(d, "numSms"));
    b.rs.devices.push_back(dr);
  }
}

// The finished profile: the records and the meta (command, source, the import's stage rules,
// where the steps came from, the notes, Kineto's schema version).
format::Profile profile_of(format::RecordSet&& records, const KinetoImportStats& st, const std::string& name,
                           const detail::TraceTopLevel& doc) {
  format::Profile p;
  p.records = std::move(records);
  p.meta["command"] = "amdahl import " + name;
  p.meta["source"] = "kineto";
  p.meta["clock"] = "kineto (microseconds, converted to ns)";
  p.meta["stage_rules"] =
      st.inferred_loader_batches > 0
          ? "# the loading was the bottleneck: the fetch is a wait, linked to the inferred loader lane\n"
            "enumerate(DataLoader)#_MultiProcessingDataLoaderIter* -> wait\n" + kineto_stage_rules()
          : kineto_stage_rules();
  p.meta["kineto_steps"] = st.step_source;
  if (!st.notes.empty()) {
    std::string notes;
    for (const auto& n : st.notes) notes += n + "\n";
    p.meta["notes"] = notes;
  }
  if (doc.schema_version.is_number()) {
    const json& v = doc.schema_version;
    if (v.is_number_integer()) p.meta["kineto_schema_version"] = v.dump();
    else if (std::fabs(v.get<double>()) < 9.2e18)  // a float beyond int64 has no integer version
      p.meta["kineto_schema_version"] = std::to_string(static_cast<long long>(v.get<double>()));
  }
  return p;
}

// The import: stream the events into an Accumulator, then the GPU ops' processes, the steps and
// notes, the ranges' nesting, processes, threads, devices and diagnostics, and the profile.
format::Profile import_kineto_stream(detail::ChunkSource& source, const std::string& name,
                                     const KinetoImportOptions& options, KinetoImportStats* stats_out) {
  std::unique_ptr<Accumulator> acc = std::make_unique<Accumulator>(options);
  detail::TraceCallbacks callbacks;
  callbacks.on_event = [&](const json& e) { acc->add(e); };
  callbacks.on_restart = [&] { acc = std::make_unique<Accumulator>(options); };
  const detail::TraceTopLevel doc = detail::stream_trace(source, name, callbacks);
  KinetoImportStats& st = acc->st;
  Builder& b = acc->b;
  if (b.rs.ranges.empty() && b.rs.api_calls.empty() && acc->gpu_ops.empty())
    throw InputError("'" + name + "' holds no PyTorch profiler events amdahl can use (user annotations, CUDA "
                     "runtime calls, kernels, memcpys)");

  const std::uint32_t main_pid = assign_gpu_ops(*acc);
  const std::size_t trace_ranges = b.rs.ranges.size();
  steps_and_notes(b, acc->host, acc->host_names, st);
  nest_ranges(b.rs.ranges);
  add_processes_and_threads(*acc);
  add_devices(b, doc.device_properties, main_pid);
  if (st.gpu_ops_without_call > 0) {
    format::DiagRec d;
    d.pid = main_pid;
    d.key = b.s("import_gpu_op_without_call");
    d.count = st.gpu_ops_without_call;
    d.detail = b.s("GPU operations whose correlation id matched no cuda_runtime/cuda_driver event in the trace");
    b.rs.diagnostics.push_back(d);
  }

  st.ranges = trace_ranges;  // without the added step ranges (st.steps)
  st.api_calls = b.rs.api_calls.size();
  st.gpu_ops = b.rs.gpu_ops.size();
  st.threads = b.rs.threads.size();
  if (stats_out) *stats_out = st;
  return profile_of(std::move(b.rs), st, name, doc);
}

}  // namespace

void check_json_depth(std::string_view text, const std::string& source) {
  detail::DepthScanner scanner;
  if (const std::size_t at = scanner.feed(text.data(), text.size()); at != static_cast<std::size_t>(-1))
    throw InputError(detail::DepthScanner::message(source, at));
}

format::Profile import_kineto_json(std::string_view text, const std::string& source,
                                   const KinetoImportOptions& options, KinetoImportStats* stats_out) {
  detail::MemorySource chunks(text);
  return import_kineto_stream(chunks, source, options, stats_out);
}

format::Profile import_kineto_file(const std::string& path, const KinetoImportOptions& options,
                                   KinetoImportStats* stats) {
  detail::TraceFileSource chunks(path);
  return import_kineto_stream(chunks, path, options, stats);
}

}  // namespace amdahl::kineto
