// Import of a PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzipped, into an amdahl
// profile: user annotations (record_function, ProfilerStep#N, DataLoader and optimizer ranges)
// become ranges in the default domain, cuda_runtime / cuda_driver events become API calls,
// kernel / gpu_memcpy / gpu_memset events become GPU operations (correlation, device, stream,
// bytes), timestamps in float microseconds become int64 nanoseconds. The profile carries
// import-specific stage rules in meta 'stage_rules' (kineto_stage_rules()): the DataLoader's
// __next__ is stage `data_loading` (disk_io and cpu_preprocess together: the trace cannot split
// them). Steps come from ProfilerStep#N ranges, else one per top-level Optimizer.step range (step
// ranges `amdahl_step#N` are added on the training thread). Meta 'notes' (lines the report prints)
// says what the data_loading time is and what the training thread's time in no stage is.
// The rules: docs/reports.md, "amdahl import".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "amdahl/format/profile.hpp"

namespace amdahl::kineto {

struct KinetoImportOptions {
  bool keep_cpu_ops = false;  // also keep every cpu_op (aten::...) as a range: much more volume
};

struct KinetoImportStats {
  std::size_t events = 0;          // trace events read
  std::size_t ranges = 0, api_calls = 0, gpu_ops = 0, threads = 0;
  std::size_t skipped_cpu_ops = 0;  // cpu_op / python_function events not kept
  std::size_t skipped_other = 0;    // flows, GPU-side annotations, unknown categories
  std::size_t gpu_ops_without_call = 0;  // no cuda_runtime/driver event with their correlation
  std::string step_source;          // "ProfilerStep", "Optimizer.step" or "none"
  std::size_t steps = 0;            // step ranges on the training thread (ProfilerStep#N, or added)
  std::size_t dataloader_ranges = 0;  // enumerate(DataLoader)...__next__ on the training thread
  std::size_t inferred_loader_batches = 0;  // production ranges of the inferred loader lane (0: none)
  std::vector<std::string> notes;   // the lines written to meta 'notes'
};

// The synthetic step ranges' name prefix (`amdahl_step#1`, ...), mapped to `step` by the rules.
inline constexpr std::string_view kImportStepPrefix = "amdahl_step#";

// The rules written to meta 'stage_rules' (syntax: docs/analysis.md).
const std::string& kineto_stage_rules();

// The deepest nesting of JSON arrays and objects a trace may have (a Kineto trace has at most
// 6: the document, traceEvents, an event, its args, an argument's list of shapes, a shape).
// Deeper input is refused with an InputError before it is parsed (the JSON library recurses
// over depth when it copies a value: 200 000 levels overflowed an 8 MB stack).
inline constexpr std::size_t kMaxJsonDepth = 64;

// Throws analysis::InputError when `text` nests arrays/objects deeper than kMaxJsonDepth.
// One pass over the bytes, strings skipped; says nothing else about the text's validity.
void check_json_depth(std::string_view text, const std::string& source);

// Reads a file, gunzipping it when it is gzip-compressed (trace_input.cpp). Regular files
// only (a FIFO or a device is refused, never opened for a blocking read), of at most
// kMaxTraceFileBytes; a gzip file may inflate to at most inflate_limit(its size) bytes.
// Throws analysis::InputError naming the file.
std::string read_maybe_gzip(const std::string& path);

inline constexpr std::uint64_t kMaxTraceFileBytes = std::uint64_t{16} << 30;  // 16 GiB
// How many bytes a gzip file of `compressed` bytes may inflate to: AMDAHL_MAX_INFLATED_MB MiB
// when that is set (a positive number), else max(1 GiB, 200 x compressed). A PyTorch trace
// compresses 10-30x; a gzip bomb (all zeros) about 1000x.
std::uint64_t inflate_limit(std::uint64_t compressed);

// Throws analysis::InputError on text that is not a Kineto / Chrome trace, or holds no event
// amdahl can use. `source` names the input in messages and in meta 'command'.
format::Profile import_kineto_json(std::string_view text, const std::string& source,
                                   const KinetoImportOptions& options = {}, KinetoImportStats* stats = nullptr);

format::Profile import_kineto_file(const std::string& path, const KinetoImportOptions& options = {},
                                   KinetoImportStats* stats = nullptr);

}  // namespace amdahl::kineto
