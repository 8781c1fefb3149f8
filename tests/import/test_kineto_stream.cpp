// The streaming Kineto import (issue 18, class 11: import/src/trace_stream.cpp): what the
// whole-document parse did is kept where a stream could differ: chunk boundaries, duplicate
// keys (the last wins), a second traceEvents list, the order of the errors.
#include <doctest/doctest.h>

#include <string>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/import/kineto_import.hpp"

using namespace amdahl;

namespace {

const std::string kStep =
    R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":1,"dur":50})";
const std::string kCall =
    R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":7}})";

std::string error_of(const std::string& text) {
  try {
    kineto::import_kineto_json(text, "t.json");
  } catch (const analysis::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("streaming import: a string across the 1 MiB chunk boundary, with escapes and brackets") {
  const std::string name = std::string((1u << 20) - 40, 'x') + R"(\"[[[{{{\\)";
  const std::string text = R"({"traceEvents":[{"ph":"X","cat":"user_annotation","name":")" + name +
                           R"(","pid":1,"tid":1,"ts":1,"dur":1},)" + kStep + "]}";
  const auto p = kineto::import_kineto_json(text, "big.json");
  REQUIRE(p.records.ranges.size() == 2);
  const std::string got = p.records.str(p.records.ranges[0].name);
  CHECK(got.size() == (1u << 20) - 40 + 8);
  CHECK(got.substr(got.size() - 8) == "\"[[[{{{\\");
}

TEST_CASE("streaming import: duplicate keys keep the last value, as the JSON DOM did") {
  // "name" first a string, then a number: the event's name is empty; "args" replaced whole.
  const std::string text =
      R"({"traceEvents":[{"ph":"X","cat":"cuda_runtime","name":"a","name":3,"pid":1,"tid":1,"ts":1,"dur":2,)"
      R"("args":{"correlation":5},"args":{"cbid":9}},)" + kStep + "]}";
  const auto p = kineto::import_kineto_json(text, "dup.json");
  REQUIRE(p.records.api_calls.size() == 1);
  CHECK(p.records.api_calls[0].name == format::kNoString);
  CHECK(p.records.api_calls[0].correlation_id == 0);
  CHECK(p.records.api_calls[0].cbid == 9);
}

TEST_CASE("streaming import: a second traceEvents list replaces the first") {
  kineto::KinetoImportStats st;
  const auto p = kineto::import_kineto_json(R"({"traceEvents":[)" + kCall + R"(],"traceEvents":[)" + kStep + "]}",
                                            "two.json", {}, &st);
  CHECK(p.records.api_calls.empty());
  CHECK(p.records.ranges.size() == 1);
  CHECK(st.events == 1);
  CHECK(error_of(R"({"traceEvents":[)" + kStep + R"(],"traceEvents":5})").find("no traceEvents list") !=
        std::string::npos);
}

TEST_CASE("streaming import: members outside the events are read from anywhere in the document") {
  const std::string text = R"({"traceEvents":[)" + kStep + R"(],"deviceProperties":[{"id":2,"name":"G","numSms":7}],)"
                           R"("schemaVersion":1,"schemaVersion":3})";
  const auto p = kineto::import_kineto_json(text, "after.json");
  REQUIRE(p.records.devices.size() == 1);
  CHECK(p.records.devices[0].device == 2);
  CHECK(p.records.devices[0].sm_count == 7);
  CHECK(p.meta.at("kineto_schema_version") == "3");
}

TEST_CASE("streaming import: the errors come in the whole-document order") {
  const std::string deep = std::string(70, '[') + std::string(70, ']');
  // A nesting too deep after a syntax error is still the depth error (the text is scanned whole).
  CHECK(error_of(R"({"traceEvents":[1,,)" + deep + "]}").find("deeper than 64 levels (at byte 81)") !=
        std::string::npos);
  CHECK(error_of(R"({"traceEvents":[1,,]})").find("is not valid JSON") != std::string::npos);
  CHECK(error_of(R"({"traceEvents":[)" + kStep + "]} x").find("is not valid JSON") != std::string::npos);
  CHECK(error_of(R"({"a":[)" + kStep + "]}").find("no traceEvents list") != std::string::npos);
  CHECK(error_of(R"({"traceEvents":[1,"x",[],null]})").find("holds no PyTorch profiler events") != std::string::npos);
}
