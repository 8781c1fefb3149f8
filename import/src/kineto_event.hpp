// One event of a Kineto trace, decoded (kineto_import.cpp's Accumulator adds what these return
// to the profile, one event at a time): the JSON values' readers, the fields every event has, its
// time span, what the event becomes (a range, an API call, a GPU op, a dropped op, nothing) and
// the record of each kind. Pure functions of the event's JSON: the caller interns the names and
// passes their ids, so the string table fills in the order of the events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "amdahl/format/records.hpp"

namespace amdahl::kineto::detail {

// A JSON float as an unsigned integer: negative -> 0, beyond 2^64 -> the largest value (a
// plain cast of an out-of-range double is undefined behaviour).
std::uint64_t u64_of(double d);

// A string member, "" when it is absent or not a string (json::value throws on a wrong type).
std::string str_of(const nlohmann::json& obj, const char* key);

// pid / tid may be numbers or strings ("Spans", "stream 7"): trailing digits, else a hash.
std::uint64_t id_of(const nlohmann::json& v);

// Float microseconds as int64 ns; -1 (skipped) when not a number or beyond the int64 range.
std::int64_t ns_of(const nlohmann::json& v);

// A non-negative number member of `args` as an unsigned integer, else `fallback`.
std::uint64_t arg_u64(const nlohmann::json& args, const char* key, std::uint64_t fallback = 0);

// "Memcpy HtoD (Pageable -> Device)": the copy's direction and its memory kinds, set on `op`.
void parse_memcpy_name(const std::string& name, format::GpuOpRec& op);

// CPU-side ranges kept even when cpu_op events are dropped (older PyTorch versions record
// these as cpu_op rather than user_annotation).
bool is_structural_cpu_op(const std::string& name);

// The members every event has, "M" (metadata) and "X" (complete) alike.
struct EventHead {
  std::string ph, name;
  const nlohmann::json* args = nullptr;  // the event's args (never a copy: they can be big), or {}
  std::uint32_t pid = 0;
  std::uint64_t tid = 0;
};
// `e` is an object.
EventHead head_of(const nlohmann::json& e);

// A metadata event's args.name (a process's or a thread's name); nullopt when it has none.
std::optional<std::string> metadata_name(const EventHead& h);

struct Span {
  std::int64_t start = 0, end = 0;  // ns
};
// An "X" event's ts and dur (dur 0 when absent); nullopt (the event is skipped) when ts is
// absent, either is negative or not a number, or the end is past the int64 range.
std::optional<Span> span_of(const nlohmann::json& e);

// What an "X" event of category `cat` becomes.
enum class EventKind {
  Range,         // user_annotation; cpu_op / Trace with --keep-cpu-ops or a structural name
  DroppedCpuOp,  // any other cpu_op, Trace or python_function (counted as skipped_cpu_ops)
  ApiCall,       // cuda_runtime, cuda_driver
  GpuOp,         // kernel, gpu_memcpy, gpu_memset
  Other,         // gpu_user_annotation, ac2g flows, overhead, ... (counted as skipped_other)
};
EventKind kind_of(const std::string& cat, const std::string& name, bool keep_cpu_ops);

// Whether the event is one of the host events the notes are computed from: the kept ranges,
// the API calls and every cpu_op; not Kineto's own "Trace" spans such as "PyTorch Profiler (0)",
// which enclose everything, unless kept, nor python_function events.
bool is_host_event(EventKind kind, const std::string& cat);

// args.correlation (0: none).
std::uint32_t correlation_of(const nlohmann::json& args);

// The records; `name` is the interned event name.
format::RangeRec range_of(const EventHead& h, Span s, format::StrId name);
format::ApiCallRec api_call_of(const EventHead& h, const std::string& cat, Span s, format::StrId name);
// `kernel_name` is used for a kernel only (copies and sets have no name).
format::GpuOpRec gpu_op_of(const EventHead& h, const std::string& cat, Span s, format::StrId kernel_name);

}  // namespace amdahl::kineto::detail
