// PyTorch profiler (Kineto) Chrome-trace import (see kineto_import.hpp).
#include "amdahl/report/kineto_import.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "amdahl/analysis/errors.hpp"

namespace amdahl::report {
namespace {

using nlohmann::json;
using analysis::InputError;

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

// A JSON float as an unsigned integer: negative -> 0, beyond 2^64 -> the largest value (a
// plain cast of an out-of-range double is undefined behaviour).
std::uint64_t u64_of(double d) {
  if (!(d > 0)) return 0;
  if (d >= 18446744073709551616.0) return UINT64_MAX;
  return static_cast<std::uint64_t>(d);
}

// A string member, "" when it is absent or not a string (json::value throws on a wrong type).
std::string str_of(const json& obj, const char* key) {
  if (!obj.is_object()) return {};
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// pid / tid may be numbers or strings ("Spans", "stream 7"): trailing digits, else a hash.
std::uint64_t id_of(const json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) return static_cast<std::uint64_t>(v.get<std::int64_t>());
  if (v.is_number_float()) return u64_of(v.get<double>());
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    std::size_t k = s.size();
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9') --k;
    if (k < s.size() && s.size() - k < 10) return std::stoull(s.substr(k));
    return std::hash<std::string>{}(s) & 0x7fffffff;
  }
  return 0;
}

// Float microseconds as int64 ns; -1 (skipped) when not a number or beyond the int64 range.
std::int64_t ns_of(const json& v) {
  if (!v.is_number()) return -1;
  const double ns = v.get<double>() * 1000.0;
  if (!std::isfinite(ns) || ns >= 9.2e18 || ns <= -9.2e18) return -1;
  return static_cast<std::int64_t>(std::llround(ns));
}

std::uint64_t arg_u64(const json& args, const char* key, std::uint64_t fallback = 0) {
  if (!args.is_object()) return fallback;
  const auto it = args.find(key);
  if (it == args.end() || !it->is_number()) return fallback;
  if (it->is_number_float()) return u64_of(it->get<double>());
  if (it->is_number_integer() && it->get<std::int64_t>() < 0) return fallback;
  return it->get<std::uint64_t>();
}

format::MemKind mem_kind(std::string_view s) {
  if (s == "Pageable") return format::MemKind::Pageable;
  if (s == "Pinned") return format::MemKind::Pinned;
  if (s == "Device") return format::MemKind::Device;
  if (s == "Managed") return format::MemKind::Managed;
  return format::MemKind::Unknown;
}

// "Memcpy HtoD (Pageable -> Device)".
void parse_memcpy_name(const std::string& name, format::GpuOpRec& op) {
  if (name.find("HtoD") != std::string::npos) op.copy_kind = format::CopyKind::HtoD;
  else if (name.find("DtoH") != std::string::npos) op.copy_kind = format::CopyKind::DtoH;
  else if (name.find("DtoD") != std::string::npos) op.copy_kind = format::CopyKind::DtoD;
  else if (name.find("HtoH") != std::string::npos) op.copy_kind = format::CopyKind::HtoH;
  else if (name.find("PtoP") != std::string::npos) op.copy_kind = format::CopyKind::PtoP;
  const auto open = name.find('('), arrow = name.find(" -> "), close = name.find(')');
  if (open != std::string::npos && arrow != std::string::npos && close != std::string::npos && open < arrow &&
      arrow < close) {
    op.src_kind = mem_kind(std::string_view(name).substr(open + 1, arrow - open - 1));
    op.dst_kind = mem_kind(std::string_view(name).substr(arrow + 4, close - arrow - 4));
  }
}

// CPU-side ranges kept even when cpu_op events are dropped (older PyTorch versions record
// these as cpu_op rather than user_annotation).
bool is_structural_cpu_op(const std::string& name) {
  return name.rfind("ProfilerStep#", 0) == 0 || name.rfind("enumerate(DataLoader)", 0) == 0 ||
         name.rfind("Optimizer.", 0) == 0;
}

}  // namespace

const std::string& kineto_stage_rules() {
  static const std::string rules =
      "# amdahl import: PyTorch profiler (Kineto) names, tried before the built-in defaults\n"
      "ProfilerStep#*            -> step\n"
      "# the DataLoader's __next__ on the training thread is exposed input time (worker processes\n"
      "# are not in a Kineto trace, so a `wait` could not be charged to their work)\n"
      "enumerate(DataLoader)*    -> disk_io\n"
      "Optimizer.step*           -> gpu_compute\n"
      "Optimizer.zero_grad*      -> gpu_compute\n";
  return rules;
}

std::string read_maybe_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files unchanged
  if (!f) throw InputError("cannot open '" + path + "'");
  std::string data;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int err = 0;
      const std::string msg = gzerror(f, &err);
      gzclose(f);
      throw InputError("cannot read '" + path + "': " + (err == Z_ERRNO ? "read error" : "corrupt gzip data (" + msg + ")"));
    }
    if (n == 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  const int rc = gzclose(f);
  if (rc == Z_BUF_ERROR) throw InputError("cannot read '" + path + "': truncated gzip data");
  if (rc != Z_OK) throw InputError("cannot read '" + path + "'");
  return data;
}

void check_json_depth(std::string_view text, const std::string& source) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character cannot end the string
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw InputError("'" + source + "' nests JSON arrays/objects deeper than " + std::to_string(kMaxJsonDepth) +
                         " levels (at byte " + std::to_string(i) + "); a PyTorch profiler trace needs fewer than 10");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

format::Profile import_kineto_json(std::string_view text, const std::string& source,
                                   const KinetoImportOptions& options, KinetoImportStats* stats_out) {
  // Bounded before parsing: the JSON library copies, compares and prints values recursively,
  // so a few hundred kilobytes of brackets would otherwise exhaust the stack.
  check_json_depth(text, source);
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) throw InputError("'" + source + "' is not valid JSON (expected a PyTorch profiler trace)");
  const json* events = nullptr;
  if (doc.is_object() && doc.contains("traceEvents") && doc["traceEvents"].is_array()) events = &doc["traceEvents"];
  else if (doc.is_array()) events = &doc;
  if (!events) throw InputError("'" + source + "' is not a Chrome trace: no traceEvents list");

  KinetoImportStats st;
  Builder b;
  std::map<std::uint32_t, std::string> process_names;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::string> thread_names;
  std::vector<format::GpuOpRec> gpu_ops;
  std::map<std::uint32_t, std::uint32_t> pid_of_corr;  // correlation -> CPU pid
  std::map<std::uint32_t, std::size_t> events_per_pid;
  std::int64_t t_min = INT64_MAX, t_max = INT64_MIN;

  for (const json& e : *events) {
    if (!e.is_object()) continue;
    ++st.events;
    const std::string ph = str_of(e, "ph");
    const std::string name = e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : "";
    static const json kNoArgs = json::object();
    const auto args_it = e.find("args");
    const json& args = args_it != e.end() ? *args_it : kNoArgs;  // a reference: no copy of big args
    const auto pid = static_cast<std::uint32_t>(e.contains("pid") ? id_of(e["pid"]) : 0);
    const std::uint64_t tid = e.contains("tid") ? id_of(e["tid"]) : 0;
    if (ph == "M") {
      if (name == "process_name" && args.is_object() && args.contains("name") && args["name"].is_string())
        process_names[pid] = args["name"].get<std::string>();
      else if (name == "thread_name" && args.is_object() && args.contains("name") && args["name"].is_string())
        thread_names[{pid, tid}] = args["name"].get<std::string>();
      continue;
    }
    if (ph != "X") {
      ++st.skipped_other;
      continue;
    }
    const std::string cat = e.contains("cat") && e["cat"].is_string() ? e["cat"].get<std::string>() : "";
    const std::int64_t start = ns_of(e.value("ts", json()));
    const std::int64_t dur = ns_of(e.value("dur", json(0)));
    if (start < 0 || dur < 0) {
      ++st.skipped_other;
      continue;
    }
    if (dur > INT64_MAX - start) {  // would overflow int64 ns
      ++st.skipped_other;
      continue;
    }
    const std::int64_t end = start + dur;
    const auto corr = static_cast<std::uint32_t>(arg_u64(args, "correlation"));

    if (cat == "user_annotation" || ((cat == "cpu_op" || cat == "Trace") &&
                                     (options.keep_cpu_ops || is_structural_cpu_op(name)))) {
      format::RangeRec r;
      r.pid = pid;
      r.tid = tid;
      r.end_tid = tid;
      r.name = b.s(name);
      r.start_ns = start;
      r.end_ns = end;
      b.rs.ranges.push_back(r);
      ++events_per_pid[pid];
    } else if (cat == "cpu_op" || cat == "python_function" || cat == "Trace") {
      ++st.skipped_cpu_ops;
      continue;
    } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
      format::ApiCallRec a;
      a.pid = pid;
      a.tid = tid;
      a.api = cat == "cuda_runtime" ? format::ApiKind::Runtime : format::ApiKind::Driver;
      a.cbid = static_cast<std::uint32_t>(arg_u64(args, "cbid"));
      a.name = b.s(name);
      a.start_ns = start;
      a.end_ns = end;
      a.correlation_id = corr;
      b.rs.api_calls.push_back(a);
      if (corr) pid_of_corr[corr] = pid;
      ++events_per_pid[pid];
    } else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      format::GpuOpRec op;
      op.device = static_cast<std::uint32_t>(arg_u64(args, "device", pid));
      op.stream = static_cast<std::uint32_t>(arg_u64(args, "stream", tid));
      op.context = static_cast<std::uint32_t>(arg_u64(args, "context"));
      op.start_ns = start;
      op.end_ns = end;
      op.correlation_id = corr;
      if (cat == "kernel") {
        op.kind = format::GpuOpKind::Kernel;
        op.name = b.s(name);
      } else if (cat == "gpu_memcpy") {
        op.kind = format::GpuOpKind::Memcpy;
        op.bytes = arg_u64(args, "bytes");
        parse_memcpy_name(name, op);
      } else {
        op.kind = format::GpuOpKind::Memset;
        op.bytes = arg_u64(args, "bytes");
      }
      gpu_ops.push_back(op);
    } else {
      ++st.skipped_other;  // gpu_user_annotation, ac2g flows, overhead, ...
      continue;
    }
    t_min = std::min(t_min, start);
    t_max = std::max(t_max, end);
  }
  if (b.rs.ranges.empty() && b.rs.api_calls.empty() && gpu_ops.empty())
    throw InputError("'" + source + "' holds no PyTorch profiler events amdahl can use (user annotations, CUDA "
                     "runtime calls, kernels, memcpys)");

  // GPU ops belong to the process that launched them (matched by correlation), else to the
  // process with the most host events.
  std::uint32_t main_pid = 0;
  std::size_t best = 0;
  for (const auto& [p, n] : events_per_pid)
    if (n > best) {
      best = n;
      main_pid = p;
    }
  for (auto& op : gpu_ops) {
    const auto it = op.correlation_id ? pid_of_corr.find(op.correlation_id) : pid_of_corr.end();
    if (it != pid_of_corr.end()) {
      op.pid = it->second;
    } else {
      op.pid = main_pid;
      ++st.gpu_ops_without_call;
    }
    b.rs.gpu_ops.push_back(op);
  }

  // Depth and parent of the ranges: nesting per thread.
  std::vector<std::size_t> order(b.rs.ranges.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const auto& a = b.rs.ranges[x];
    const auto& c = b.rs.ranges[y];
    if (a.pid != c.pid) return a.pid < c.pid;
    if (a.tid != c.tid) return a.tid < c.tid;
    if (a.start_ns != c.start_ns) return a.start_ns < c.start_ns;
    return a.end_ns > c.end_ns;
  });
  std::vector<std::size_t> stack;
  for (std::size_t k = 0; k < order.size(); ++k) {
    auto& r = b.rs.ranges[order[k]];
    if (k > 0) {
      const auto& prev = b.rs.ranges[order[k - 1]];
      if (prev.pid != r.pid || prev.tid != r.tid) stack.clear();
    }
    while (!stack.empty() && b.rs.ranges[stack.back()].end_ns <= r.start_ns) stack.pop_back();
    r.depth = static_cast<std::int32_t>(stack.size());
    r.parent = stack.empty() ? -1 : static_cast<std::int64_t>(stack.back());
    stack.push_back(order[k]);
  }

  // Processes and threads.
  std::map<std::uint32_t, bool> cpu_pids;
  std::map<std::pair<std::uint32_t, std::uint64_t>, bool> cpu_threads;
  for (const auto& r : b.rs.ranges) cpu_threads[{r.pid, r.tid}] = cpu_pids[r.pid] = true;
  for (const auto& a : b.rs.api_calls) cpu_threads[{a.pid, a.tid}] = cpu_pids[a.pid] = true;
  for (const auto& op : b.rs.gpu_ops) cpu_pids[op.pid] = true;
  for (const auto& [p, unused] : cpu_pids) {
    (void)unused;
    format::ProcessRec pr;
    pr.pid = p;
    const auto it = process_names.find(p);
    pr.command = b.s(it != process_names.end() ? it->second : std::string("python"));
    pr.start_ns = t_min;
    pr.end_ns = t_max;
    b.rs.processes.push_back(pr);
  }
  for (const auto& [key, unused] : cpu_threads) {
    (void)unused;
    format::ThreadRec t;
    t.pid = key.first;
    t.tid = key.second;
    const auto it = thread_names.find(key);
    t.name = b.s(it != thread_names.end() ? it->second : std::string());
    b.rs.threads.push_back(t);
  }
  if (doc.is_object() && doc.contains("deviceProperties") && doc["deviceProperties"].is_array()) {
    for (const auto& d : doc["deviceProperties"]) {
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
  if (st.gpu_ops_without_call > 0) {
    format::DiagRec d;
    d.pid = main_pid;
    d.key = b.s("import_gpu_op_without_call");
    d.count = st.gpu_ops_without_call;
    d.detail = b.s("GPU operations whose correlation id matched no cuda_runtime/cuda_driver event in the trace");
    b.rs.diagnostics.push_back(d);
  }

  st.ranges = b.rs.ranges.size();
  st.api_calls = b.rs.api_calls.size();
  st.gpu_ops = b.rs.gpu_ops.size();
  st.threads = b.rs.threads.size();
  if (stats_out) *stats_out = st;

  format::Profile p;
  p.records = std::move(b.rs);
  p.meta["command"] = "amdahl import " + source;
  p.meta["source"] = "kineto";
  p.meta["clock"] = "kineto (microseconds, converted to ns)";
  p.meta["stage_rules"] = kineto_stage_rules();
  if (doc.is_object() && doc.contains("schemaVersion") && doc["schemaVersion"].is_number()) {
    const json& v = doc["schemaVersion"];
    if (v.is_number_integer()) p.meta["kineto_schema_version"] = v.dump();
    else if (std::fabs(v.get<double>()) < 9.2e18)  // a float beyond int64 has no integer version
      p.meta["kineto_schema_version"] = std::to_string(static_cast<long long>(v.get<double>()));
  }
  return p;
}

format::Profile import_kineto_file(const std::string& path, const KinetoImportOptions& options,
                                   KinetoImportStats* stats) {
  const std::string text = read_maybe_gzip(path);
  return import_kineto_json(text, path, options, stats);
}

}  // namespace amdahl::report
