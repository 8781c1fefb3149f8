// Chrome trace-event JSON export (see chrome_trace.hpp): candidate events, the kept window
// (user window, then the event limit), then the events streamed out one by one.
#include "amdahl/export/chrome_trace.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <ostream>
#include <set>

#include <nlohmann/json.hpp>

#include "amdahl/text/escape.hpp"

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/report.hpp"

namespace amdahl::chrome {
namespace {

using nlohmann::json;
using format::RecordSet;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr int kGpuPidBase = 0x70000000;  // synthetic pids of the GPU tracks

struct Flow {
  std::int64_t from_ts = 0, to_ts = 0;
  std::size_t from = 0, to = 0;  // launch: api index -> gpu index; item: mark -> mark
  bool launch = true;
};

struct Window {
  std::int64_t start = kMin, end = kMax;  // absolute ns
  bool has(std::int64_t s, std::int64_t e) const {
    return s < end && (e > start || (e == s && s >= start));
  }
};

std::string dump(const json& j) {
  return text::json_terminal_safe(j.dump(-1, ' ', false, json::error_handler_t::replace));  // --chrome /dev/stdout
}

double us(std::int64_t t, std::int64_t t0) { return static_cast<double>(std::max<std::int64_t>(0, t - t0)) / 1000.0; }

bool is_item_mark(const RecordSet& rs, const format::MarkRec& m, const char* name) {
  const std::string& d = rs.str(m.domain);
  return (d == "amdahl" || d.empty()) && rs.str(m.name) == name &&
         (m.payload.kind == format::PayloadKind::Int64 || m.payload.kind == format::PayloadKind::UInt64);
}

std::vector<Flow> find_flows(const RecordSet& rs) {
  std::vector<Flow> flows;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> api_of;  // (pid, corr) -> api
  for (std::size_t i = 0; i < rs.api_calls.size(); ++i)
    if (rs.api_calls[i].correlation_id != 0) api_of[{rs.api_calls[i].pid, rs.api_calls[i].correlation_id}] = i;
  for (std::size_t g = 0; g < rs.gpu_ops.size(); ++g) {
    const auto& op = rs.gpu_ops[g];
    const auto it = api_of.find({op.pid, op.correlation_id});
    if (op.correlation_id == 0 || it == api_of.end()) continue;
    const auto& api = rs.api_calls[it->second];
    if (api.start_ns > op.start_ns) continue;  // a flow must point forward in time
    flows.push_back({api.start_ns, op.start_ns, it->second, g, true});
  }
  // produce item n -> consume item n (the latest produce at or before the consume).
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::size_t>>> produces;
  for (std::size_t i = 0; i < rs.marks.size(); ++i)
    if (is_item_mark(rs, rs.marks[i], "produce")) produces[rs.marks[i].payload.i].push_back({rs.marks[i].ts_ns, i});
  for (auto& [item, v] : produces) std::sort(v.begin(), v.end());
  for (std::size_t i = 0; i < rs.marks.size(); ++i) {
    const auto& m = rs.marks[i];
    if (!is_item_mark(rs, m, "consume")) continue;
    const auto it = produces.find(m.payload.i);
    if (it == produces.end()) continue;
    const auto& v = it->second;
    auto up = std::upper_bound(v.begin(), v.end(), std::make_pair(m.ts_ns, std::numeric_limits<std::size_t>::max()));
    if (up == v.begin()) continue;
    --up;
    flows.push_back({up->first, m.ts_ns, up->second, i, false});
  }
  return flows;
}

// Candidate events overlapping `w`: slices, instants, and two per flow with both ends inside.
// `starts` (optional) receives their start times (a flow's two at its later end).
std::size_t count_events(const RecordSet& rs, const std::vector<Flow>& flows, const Window& w,
                         std::vector<std::int64_t>* starts) {
  std::size_t n = 0;
  const auto add = [&](std::int64_t s, std::int64_t e) {
    if (!w.has(s, e)) return;
    ++n;
    if (starts) starts->push_back(std::max(s, w.start));
  };
  for (const auto& r : rs.ranges) {
    add(r.start_ns, r.end_ns);
    if (r.kind == format::RangeKind::StartEnd) add(r.start_ns, r.end_ns);  // a begin and an end event
  }
  for (const auto& m : rs.marks) add(m.ts_ns, m.ts_ns);
  for (const auto& a : rs.api_calls) add(a.start_ns, a.end_ns);
  for (const auto& g : rs.gpu_ops) add(g.start_ns, g.end_ns);
  for (const auto& f : flows) {
    const bool in = w.has(f.from_ts, f.launch ? rs.api_calls[f.from].end_ns : f.from_ts) &&
                    w.has(f.to_ts, f.launch ? rs.gpu_ops[f.to].end_ns : f.to_ts);
    if (!in) continue;
    n += 2;
    if (starts) {
      starts->push_back(std::max(std::max(f.from_ts, f.to_ts), w.start));
      starts->push_back(std::max(std::max(f.from_ts, f.to_ts), w.start));
    }
  }
  return n;
}

std::string role_of(const analysis::StageRules& rules, const RecordSet& rs, const format::RangeRec& r,
                    std::map<std::pair<format::StrId, format::StrId>, std::string>& cache) {
  const auto key = std::make_pair(r.domain, r.name);
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const analysis::RangeClass c = rules.classify(rs.str(r.domain), rs.str(r.name));
  std::string s;
  switch (c.role) {
    case analysis::RangeRole::Stage: s = c.stage; break;
    case analysis::RangeRole::Step: s = "step"; break;
    case analysis::RangeRole::Wait: s = "wait"; break;
    case analysis::RangeRole::Ignore: break;
  }
  cache.emplace(key, s);
  return s;
}

std::string ms_text(std::int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e6);
  return buf;
}

// The profile's time span [t0, t1]: first and last timestamp of any range, mark, API call or GPU
// operation. Throws InputError when there is none.
std::pair<std::int64_t, std::int64_t> trace_span(const RecordSet& rs) {
  std::int64_t t0 = kMax, t1 = kMin;
  const auto see = [&](std::int64_t a, std::int64_t b) {
    t0 = std::min(t0, a);
    t1 = std::max(t1, b);
  };
  for (const auto& r : rs.ranges) see(r.start_ns, r.end_ns);
  for (const auto& m : rs.marks) see(m.ts_ns, m.ts_ns);
  for (const auto& a : rs.api_calls) see(a.start_ns, a.end_ns);
  for (const auto& g : rs.gpu_ops) see(g.start_ns, g.end_ns);
  if (t0 == kMax) throw analysis::InputError("the profile has no ranges, marks, API calls or GPU operations to export");
  return {t0, t1};
}

// The kept window: the user's --window, then, past the event limit, the analysis window and
// then its first part. Sets the stats' candidate count and `trimmed`; `note` says what was cut.
Window kept_window(const format::Profile& profile, const std::vector<Flow>& flows, std::int64_t t0,
                   const ChromeExportOptions& options, ChromeExportStats& st, std::string& note) {
  const RecordSet& rs = profile.records;
  Window w;
  if (options.window_start_ns) w.start = t0 + *options.window_start_ns;
  if (options.window_end_ns) w.end = t0 + *options.window_end_ns;
  st.candidate_events = count_events(rs, flows, w, nullptr);
  if (st.candidate_events <= options.max_events) return w;
  st.trimmed = true;
  // First the analysis window, when the profile has one.
  try {
    const analysis::Report rep = analysis::analyze(profile);
    Window aw{std::max(w.start, rep.window.start_ns), std::min(w.end, rep.window.end_ns)};
    if (aw.start < aw.end) {
      w = aw;
      note = "kept the analysis window";
    }
  } catch (const std::exception&) {
    // No steps or stages: fall through to the time cut.
  }
  std::vector<std::int64_t> starts;
  if (count_events(rs, flows, w, &starts) > options.max_events) {
    std::nth_element(starts.begin(), starts.begin() + static_cast<std::ptrdiff_t>(options.max_events), starts.end());
    w.end = starts[options.max_events];
    note += std::string(note.empty() ? "kept" : ", then") + " its first part";
  }
  return w;
}

// Writes the trace events one by one, ",\n" between them, reporting progress every 65536.
struct Emitter {
  std::ostream& out;
  const ChromeExportOptions& options;
  bool first = true;
  std::uint64_t emitted = 0;
  void operator()(const json& e) {
    if (!first) out << ",\n";
    first = false;
    out << dump(e);
    if ((++emitted & 0xFFFF) == 0 && options.on_events) options.on_events(emitted);
  }
};

using GpuPids = std::map<std::pair<std::uint32_t, std::uint32_t>, int>;  // (pid, device) -> synthetic pid

// Metadata: process and thread names, and a synthetic process per (process, device) with a
// thread per stream for the GPU tracks, whose pids are returned.
GpuPids write_metadata(const RecordSet& rs, Emitter& emit) {
  for (const auto& p : rs.processes) {
    std::string cmd = rs.str(p.command);
    if (cmd.size() > 120) cmd = cmd.substr(0, 117) + "...";
    emit({{"ph", "M"}, {"name", "process_name"}, {"pid", p.pid}, {"tid", 0},
          {"args", {{"name", cmd.empty() ? "pid " + std::to_string(p.pid) : cmd + " (" + std::to_string(p.pid) + ")"}}}});
    emit({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", p.pid}, {"tid", 0}, {"args", {{"sort_index", 0}}}});
  }
  for (const auto& t : rs.threads)
    if (!rs.str(t.name).empty())
      emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", t.pid}, {"tid", t.tid}, {"args", {{"name", rs.str(t.name)}}}});
  GpuPids gpu_pid;
  std::set<std::tuple<int, std::uint32_t>> gpu_streams;
  for (const auto& g : rs.gpu_ops) {
    auto [it, fresh] = gpu_pid.emplace(std::make_pair(g.pid, g.device), kGpuPidBase + static_cast<int>(gpu_pid.size()));
    if (fresh) {
      std::string dev_name;
      for (const auto& d : rs.devices)
        if (d.pid == g.pid && d.device == g.device) dev_name = rs.str(d.name);
      emit({{"ph", "M"}, {"name", "process_name"}, {"pid", it->second}, {"tid", 0},
            {"args", {{"name", "GPU " + std::to_string(g.device) + (dev_name.empty() ? "" : " " + dev_name) +
                                   " (pid " + std::to_string(g.pid) + ")"}}}});
      emit({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", it->second}, {"tid", 0},
            {"args", {{"sort_index", 1000 + it->second - kGpuPidBase}}}});
    }
    if (gpu_streams.emplace(it->second, g.stream).second)
      emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", it->second}, {"tid", g.stream},
            {"args", {{"name", "stream " + std::to_string(g.stream)}}}});
  }
  return gpu_pid;
}

// The ranges in the window: push/pop ranges as complete slices, start/end ranges as async
// begin/end pairs; args carry the domain, the stage (by the profile's rules), the payload.
void write_ranges(const format::Profile& profile, const Window& w, std::int64_t t0, Emitter& emit,
                  ChromeExportStats& st) {
  const RecordSet& rs = profile.records;
  const analysis::StageRules rules = [&] {
    try {
      return analysis::rules_for(profile, {});
    } catch (const std::exception&) {
      return analysis::StageRules{};
    }
  }();
  std::map<std::pair<format::StrId, format::StrId>, std::string> role_cache;
  for (std::size_t i = 0; i < rs.ranges.size(); ++i) {
    const auto& r = rs.ranges[i];
    if (!w.has(r.start_ns, r.end_ns)) continue;
    json args = json::object();
    if (!rs.str(r.domain).empty()) args["domain"] = rs.str(r.domain);
    const std::string role = role_of(rules, rs, r, role_cache);
    if (!role.empty()) args["stage"] = role;
    if (r.payload.kind == format::PayloadKind::Int64) args["payload"] = r.payload.i;
    if (r.payload.kind == format::PayloadKind::UInt64) args["payload"] = static_cast<std::uint64_t>(r.payload.i);
    if (r.payload.kind == format::PayloadKind::Double) args["payload"] = r.payload.d;
    if (r.unclosed) args["unclosed"] = true;
    const std::string cat = role.empty() ? "nvtx" : "nvtx,stage";
    if (r.kind == format::RangeKind::PushPop) {
      emit({{"ph", "X"}, {"name", rs.str(r.name)}, {"cat", cat}, {"pid", r.pid}, {"tid", r.tid},
            {"ts", us(r.start_ns, t0)}, {"dur", us(r.end_ns, r.start_ns)}, {"args", args}});
    } else {  // start/end ranges may overlap anything: async events on the process
      emit({{"ph", "b"}, {"name", rs.str(r.name)}, {"cat", cat}, {"id", i}, {"pid", r.pid}, {"tid", r.tid},
            {"ts", us(r.start_ns, t0)}, {"args", args}});
      emit({{"ph", "e"}, {"name", rs.str(r.name)}, {"cat", cat}, {"id", i}, {"pid", r.pid},
            {"tid", r.end_tid ? r.end_tid : r.tid}, {"ts", us(r.end_ns, t0)}});
      ++st.events;
    }
    ++st.events;
  }
}

// The marks in the window: instants, except those a flow ends on, drawn as 1 ns slices so that
// the arrows bind to them.
void write_marks(const RecordSet& rs, const std::vector<Flow>& flows, const Window& w, std::int64_t t0,
                 Emitter& emit, ChromeExportStats& st) {
  std::vector<char> flow_mark(rs.marks.size(), 0);
  for (const auto& f : flows)
    if (!f.launch) flow_mark[f.from] = flow_mark[f.to] = 1;
  for (std::size_t i = 0; i < rs.marks.size(); ++i) {
    const auto& m = rs.marks[i];
    if (!w.has(m.ts_ns, m.ts_ns)) continue;
    json args = json::object();
    if (!rs.str(m.domain).empty()) args["domain"] = rs.str(m.domain);
    if (m.payload.kind == format::PayloadKind::Int64 || m.payload.kind == format::PayloadKind::UInt64)
      args["item"] = m.payload.i;
    if (m.payload.kind == format::PayloadKind::Double) args["payload"] = m.payload.d;
    if (flow_mark[i])
      emit({{"ph", "X"}, {"name", rs.str(m.name)}, {"cat", "mark"}, {"pid", m.pid}, {"tid", m.tid},
            {"ts", us(m.ts_ns, t0)}, {"dur", 0.001}, {"args", args}});
    else
      emit({{"ph", "i"}, {"s", "t"}, {"name", rs.str(m.name)}, {"cat", "mark"}, {"pid", m.pid}, {"tid", m.tid},
            {"ts", us(m.ts_ns, t0)}, {"args", args}});
    ++st.events;
  }
}

// The CUDA API calls in the window, on their host threads.
void write_api_calls(const RecordSet& rs, const Window& w, std::int64_t t0, Emitter& emit, ChromeExportStats& st) {
  for (const auto& a : rs.api_calls) {
    if (!w.has(a.start_ns, a.end_ns)) continue;
    emit({{"ph", "X"}, {"name", rs.str(a.name)},
          {"cat", a.api == format::ApiKind::Runtime ? "cuda_runtime" : "cuda_driver"}, {"pid", a.pid}, {"tid", a.tid},
          {"ts", us(a.start_ns, t0)}, {"dur", us(a.end_ns, a.start_ns)},
          {"args", {{"correlation", a.correlation_id}, {"cbid", a.cbid}}}});
    ++st.events;
  }
}

// The GPU operations in the window (kernels, copies, sets), on their GPU tracks.
void write_gpu_ops(const RecordSet& rs, const GpuPids& gpu_pid, const Window& w, std::int64_t t0, Emitter& emit,
                   ChromeExportStats& st) {
  for (const auto& g : rs.gpu_ops) {
    if (!w.has(g.start_ns, g.end_ns)) continue;
    json args = {{"correlation", g.correlation_id}, {"device", g.device}, {"stream", g.stream}, {"pid", g.pid}};
    std::string name = rs.str(g.name), cat = "kernel";
    if (g.kind == format::GpuOpKind::Memcpy) {
      cat = "gpu_memcpy";
      if (name.empty()) name = std::string("Memcpy ") + format::copy_kind_name(g.copy_kind, "unknown");
      args["bytes"] = g.bytes;
      args["copy_kind"] = format::copy_kind_name(g.copy_kind, "unknown");
    } else if (g.kind == format::GpuOpKind::Memset) {
      cat = "gpu_memset";
      if (name.empty()) name = "Memset";
      args["bytes"] = g.bytes;
    }
    if (g.graph_id) args["graph_id"] = g.graph_id;
    emit({{"ph", "X"}, {"name", name}, {"cat", cat}, {"pid", gpu_pid.at({g.pid, g.device})}, {"tid", g.stream},
          {"ts", us(g.start_ns, t0)}, {"dur", us(g.end_ns, g.start_ns)}, {"args", args}});
    ++st.events;
  }
}

// The flows with both ends in the window: launch (API call -> GPU op) and item (produce ->
// consume), a start and a finish event each.
void write_flows(const RecordSet& rs, const std::vector<Flow>& flows, const GpuPids& gpu_pid, const Window& w,
                 std::int64_t t0, Emitter& emit, ChromeExportStats& st) {
  std::size_t flow_id = 1;
  for (const auto& f : flows) {
    json from, to;
    if (f.launch) {
      const auto& a = rs.api_calls[f.from];
      const auto& g = rs.gpu_ops[f.to];
      if (!w.has(a.start_ns, a.end_ns) || !w.has(g.start_ns, g.end_ns)) continue;
      from = {{"pid", a.pid}, {"tid", a.tid}, {"ts", us(a.start_ns, t0)}};
      to = {{"pid", gpu_pid.at({g.pid, g.device})}, {"tid", g.stream}, {"ts", us(g.start_ns, t0)}};
      ++st.launch_flows;
    } else {
      const auto& p = rs.marks[f.from];
      const auto& c = rs.marks[f.to];
      if (!w.has(p.ts_ns, p.ts_ns) || !w.has(c.ts_ns, c.ts_ns)) continue;
      from = {{"pid", p.pid}, {"tid", p.tid}, {"ts", us(p.ts_ns, t0)}};
      to = {{"pid", c.pid}, {"tid", c.tid}, {"ts", us(c.ts_ns, t0)}};
      ++st.item_flows;
    }
    const char* name = f.launch ? "launch" : "item";
    from["ph"] = "s";
    to["ph"] = "f";
    to["bp"] = "e";
    for (json* e : {&from, &to}) {
      (*e)["id"] = flow_id;
      (*e)["name"] = name;
      (*e)["cat"] = name;
    }
    emit(from);
    emit(to);
    ++flow_id;
    st.events += 2;
    ++st.flows;
  }
}

// The trace's otherData: the exporter, the event counts, the kept part and its note, and the
// profile's command, host and creation time.
json other_data(const format::Profile& profile, const ChromeExportStats& st) {
  json other = {{"exporter", "amdahl export --chrome"},
                {"events", st.events},
                {"candidate_events", st.candidate_events},
                {"trimmed", st.trimmed},
                {"kept_ms", {static_cast<double>(st.kept_start_ns) / 1e6, static_cast<double>(st.kept_end_ns) / 1e6}},
                {"note", st.note}};
  for (const auto& [k, v] : profile.meta)
    if (k == "command" || k == "host" || k == "created") other[k] = v;
  return other;
}

}  // namespace

std::pair<std::optional<std::int64_t>, std::optional<std::int64_t>> parse_window_ms(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos)
    throw analysis::UsageError("--window expects START:END in ms from the trace start, got '" + text + "'");
  const auto side = [&](const std::string& s) -> std::optional<std::int64_t> {
    if (s.empty()) return std::nullopt;
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || !(v >= 0) || v > 1e12)
      throw analysis::UsageError("--window expects START:END in ms from the trace start, got '" + text + "'");
    return static_cast<std::int64_t>(v * 1e6);
  };
  auto a = side(text.substr(0, colon));
  auto b = side(text.substr(colon + 1));
  if (!a && !b) throw analysis::UsageError("--window needs a START or an END (START:END in ms), got '" + text + "'");
  if (a && b && *b <= *a) throw analysis::UsageError("--window END must be after START, got '" + text + "'");
  return {a, b};
}

// The export: the time span and flows, the kept window, then the events streamed out in order
// (metadata, ranges, marks, API calls, GPU operations, flows) and the otherData.
ChromeExportStats write_chrome_trace(const format::Profile& profile, std::ostream& out,
                                     const ChromeExportOptions& options) {
  const RecordSet& rs = profile.records;
  const auto [t0, t1] = trace_span(rs);
  ChromeExportStats st;
  st.trace_end_ns = t1 - t0;
  const auto flows = find_flows(rs);
  std::string note;
  const Window w = kept_window(profile, flows, t0, options, st, note);
  st.kept_start_ns = std::max(w.start, t0) - t0;
  st.kept_end_ns = std::min(w.end, t1) - t0;

  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  Emitter emit{out, options};
  const GpuPids gpu_pid = write_metadata(rs, emit);
  write_ranges(profile, w, t0, emit, st);
  write_marks(rs, flows, w, t0, emit, st);
  write_api_calls(rs, w, t0, emit, st);
  write_gpu_ops(rs, gpu_pid, w, t0, emit, st);
  write_flows(rs, flows, gpu_pid, w, t0, emit, st);
  if (st.trimmed) {
    st.note = "the profile gives " + std::to_string(st.candidate_events) + " trace events, more than the limit of " +
              std::to_string(options.max_events) + " (trace viewers slow down or fail past about 1 M); " + note +
              ": " + ms_text(st.kept_start_ns) + " to " + ms_text(st.kept_end_ns) + " ms of " +
              ms_text(st.trace_end_ns) + " ms, " + std::to_string(st.events) + " events kept, " +
              std::to_string(st.candidate_events - std::min(st.candidate_events, st.events)) +
              " dropped; use --window START:END (ms) for another part or --max-events N";
  }
  out << "\n],\"otherData\":" << dump(other_data(profile, st)) << "}\n";
  return st;
}

}  // namespace amdahl::chrome
