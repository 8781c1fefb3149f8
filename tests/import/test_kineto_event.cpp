// One Kineto event decoded (import/src/kineto_event.cpp): the fields every event has, its span,
// what each category becomes, which events the notes see, and the records built from them.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "../../import/src/kineto_event.hpp"

using namespace amdahl;
using namespace amdahl::kineto::detail;
using nlohmann::json;

TEST_CASE("kineto event: the head reads ph, name, pid and tid (numbers or strings) and args by reference") {
  const json e = json::parse(R"({"ph":"X","name":"aten::mm","pid":"Spans","tid":"stream 7","args":{"a":1}})");
  const EventHead h = head_of(e);
  CHECK(h.ph == "X");
  CHECK(h.name == "aten::mm");
  CHECK(h.pid == static_cast<std::uint32_t>(std::hash<std::string>{}("Spans") & 0x7fffffff));
  CHECK(h.tid == 7);
  CHECK(h.args == &e["args"]);

  const EventHead bare = head_of(json::parse(R"({"name":3})"));
  CHECK(bare.ph.empty());
  CHECK(bare.name.empty());  // not a string
  CHECK(bare.pid == 0);
  CHECK(bare.tid == 0);
  REQUIRE(bare.args != nullptr);
  CHECK(bare.args->is_object());
  CHECK(bare.args->empty());
}

TEST_CASE("kineto event: a metadata name only from a string args.name") {
  const json named = json::parse(R"({"ph":"M","name":"thread_name","args":{"name":""}})");
  CHECK(metadata_name(head_of(named)) == std::string());  // an empty string is still a name
  CHECK_FALSE(metadata_name(head_of(json::parse(R"({"ph":"M","args":{"name":5}})"))).has_value());
  CHECK_FALSE(metadata_name(head_of(json::parse(R"({"ph":"M","args":[1]})"))).has_value());
  CHECK_FALSE(metadata_name(head_of(json::parse(R"({"ph":"M"})"))).has_value());
}

TEST_CASE("kineto event: the span in ns; dur 0 when absent; skipped when ts is absent, negative or overflows") {
  const auto s = span_of(json::parse(R"({"ts":1.5,"dur":2.25})"));
  REQUIRE(s.has_value());
  CHECK(s->start == 1500);
  CHECK(s->end == 3750);
  const auto no_dur = span_of(json::parse(R"({"ts":4})"));
  REQUIRE(no_dur.has_value());
  CHECK(no_dur->end == no_dur->start);
  CHECK_FALSE(span_of(json::parse(R"({"dur":4})")).has_value());
  CHECK_FALSE(span_of(json::parse(R"({"ts":"4","dur":4})")).has_value());
  CHECK_FALSE(span_of(json::parse(R"({"ts":-1,"dur":4})")).has_value());
  CHECK_FALSE(span_of(json::parse(R"({"ts":4,"dur":-1})")).has_value());
  CHECK_FALSE(span_of(json::parse(R"({"ts":9.1e15,"dur":9.1e15})")).has_value());  // end past int64 ns
}

TEST_CASE("kineto event: what each category becomes, with and without --keep-cpu-ops") {
  CHECK(kind_of("user_annotation", "x", false) == EventKind::Range);
  CHECK(kind_of("cpu_op", "aten::mm", false) == EventKind::DroppedCpuOp);
  CHECK(kind_of("cpu_op", "aten::mm", true) == EventKind::Range);
  CHECK(kind_of("cpu_op", "ProfilerStep#3", false) == EventKind::Range);
  CHECK(kind_of("Trace", "Optimizer.step#SGD.step", false) == EventKind::Range);
  CHECK(kind_of("Trace", "PyTorch Profiler (0)", false) == EventKind::DroppedCpuOp);
  CHECK(kind_of("python_function", "ProfilerStep#3", true) == EventKind::DroppedCpuOp);
  CHECK(kind_of("cuda_runtime", "cudaLaunchKernel", false) == EventKind::ApiCall);
  CHECK(kind_of("cuda_driver", "cuLaunchKernel", false) == EventKind::ApiCall);
  for (const char* cat : {"kernel", "gpu_memcpy", "gpu_memset"}) CHECK(kind_of(cat, "k", false) == EventKind::GpuOp);
  for (const char* cat : {"gpu_user_annotation", "ac2g", "overhead", ""})
    CHECK(kind_of(cat, "ProfilerStep#1", true) == EventKind::Other);
}

TEST_CASE("kineto event: the notes see kept ranges, API calls and every cpu_op, not dropped Trace spans") {
  CHECK(is_host_event(EventKind::Range, "Trace"));
  CHECK(is_host_event(EventKind::ApiCall, "cuda_runtime"));
  CHECK(is_host_event(EventKind::DroppedCpuOp, "cpu_op"));
  CHECK_FALSE(is_host_event(EventKind::DroppedCpuOp, "Trace"));
  CHECK_FALSE(is_host_event(EventKind::DroppedCpuOp, "python_function"));
  CHECK_FALSE(is_host_event(EventKind::GpuOp, "kernel"));
  CHECK_FALSE(is_host_event(EventKind::Other, "ac2g"));
}

TEST_CASE("kineto event: the records carry the head, the span, the args and the name id given") {
  const json call = json::parse(
      R"({"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":3,"tid":9,"args":{"cbid":13,"correlation":-2}})");
  const format::ApiCallRec a = api_call_of(head_of(call), "cuda_driver", Span{10, 20}, 5);
  CHECK(a.pid == 3);
  CHECK(a.tid == 9);
  CHECK(a.api == format::ApiKind::Driver);
  CHECK(a.cbid == 13);
  CHECK(a.name == 5);
  CHECK(a.start_ns == 10);
  CHECK(a.end_ns == 20);
  CHECK(a.correlation_id == 0);  // a negative correlation is none

  const format::RangeRec r = range_of(head_of(call), Span{1, 2}, 4);
  CHECK(r.tid == 9);
  CHECK(r.end_tid == 9);
  CHECK(r.name == 4);
  CHECK(r.depth == 0);

  const json copy = json::parse(R"j({"name":"Memcpy DtoH (Device -> Pinned)","pid":0,"tid":7,
                                      "args":{"bytes":4096.0,"correlation":11,"context":1}})j");
  const format::GpuOpRec m = gpu_op_of(head_of(copy), "gpu_memcpy", Span{5, 6}, 8);
  CHECK(m.kind == format::GpuOpKind::Memcpy);
  CHECK(m.name == format::kNoString);  // a copy has no name
  CHECK(m.device == 0);                // no args.device: the pid
  CHECK(m.stream == 7);                // no args.stream: the tid
  CHECK(m.context == 1);
  CHECK(m.bytes == 4096);
  CHECK(m.correlation_id == 11);
  CHECK(m.copy_kind == format::CopyKind::DtoH);
  CHECK(m.src_kind == format::MemKind::Device);
  CHECK(m.dst_kind == format::MemKind::Pinned);

  const json kernel = json::parse(R"({"name":"gemm","pid":0,"tid":7,"args":{"device":2,"stream":14}})");
  const format::GpuOpRec k = gpu_op_of(head_of(kernel), "kernel", Span{5, 6}, 8);
  CHECK(k.kind == format::GpuOpKind::Kernel);
  CHECK(k.name == 8);
  CHECK(k.device == 2);
  CHECK(k.stream == 14);
  CHECK(k.bytes == 0);
}
