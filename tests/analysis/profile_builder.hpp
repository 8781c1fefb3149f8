// Builds synthetic profiles in memory for the analysis tests (times given in ms).
#pragma once

#include <cstdint>
#include <string>

#include "amdahl/format/profile.hpp"

namespace amdahl::test {

inline std::int64_t ms(double v) { return static_cast<std::int64_t>(v * 1e6); }

struct ProfileBuilder {
  format::Profile profile;

  format::StrId s(const std::string& text) {
    auto& strs = profile.records.strings;
    for (std::size_t i = 0; i < strs.size(); ++i)
      if (strs[i] == text) return static_cast<format::StrId>(i);
    strs.push_back(text);
    return static_cast<format::StrId>(strs.size() - 1);
  }
  ProfileBuilder& range(std::uint64_t tid, const std::string& domain, const std::string& name, double start_ms,
                        double end_ms, std::uint32_t pid = 1) {
    format::RangeRec r;
    r.pid = pid;
    r.tid = tid;
    r.end_tid = tid;
    r.domain = s(domain);
    r.name = s(name);
    r.start_ns = ms(start_ms);
    r.end_ns = ms(end_ms);
    profile.records.ranges.push_back(r);
    return *this;
  }
  ProfileBuilder& stage(std::uint64_t tid, const std::string& name, double a, double b, std::uint32_t pid = 1) {
    return range(tid, "amdahl", name, a, b, pid);
  }
  ProfileBuilder& mark(std::uint64_t tid, const std::string& name, double ts_ms, std::int64_t item,
                       std::uint32_t pid = 1) {
    format::MarkRec m;
    m.pid = pid;
    m.tid = tid;
    m.domain = s("amdahl");
    m.name = s(name);
    m.ts_ns = ms(ts_ms);
    m.payload.kind = format::PayloadKind::Int64;
    m.payload.i = item;
    profile.records.marks.push_back(m);
    return *this;
  }
  ProfileBuilder& api(std::uint64_t tid, const std::string& name, double a, double b, std::uint32_t corr,
                      std::uint32_t pid = 1) {
    format::ApiCallRec c;
    c.pid = pid;
    c.tid = tid;
    c.name = s(name);
    c.start_ns = ms(a);
    c.end_ns = ms(b);
    c.correlation_id = corr;
    profile.records.api_calls.push_back(c);
    return *this;
  }
  ProfileBuilder& gpu(format::GpuOpKind kind, double a, double b, std::uint32_t corr,
                      format::CopyKind copy = format::CopyKind::Unknown, const std::string& name = "",
                      std::uint32_t device = 0, std::uint32_t pid = 1) {
    format::GpuOpRec op;
    op.pid = pid;
    op.device = device;
    op.kind = kind;
    op.name = s(name);
    op.start_ns = ms(a);
    op.end_ns = ms(b);
    op.correlation_id = corr;
    op.copy_kind = copy;
    profile.records.gpu_ops.push_back(op);
    return *this;
  }
};

}  // namespace amdahl::test
