// Helpers for the CUPTI GPU tests (see cupti_gpu_util.hpp).
#include "cupti_gpu_util.hpp"

#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "../support/test_support.hpp"

namespace amdahl::gpu_cupti_test {

void skip_without_device() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    std::fflush(stdout);
    std::_Exit(77);
  }
}

std::string build_dir() {
  const char* b = std::getenv("AMDAHL_BUILD_DIR");
  return b ? b : "..";
}

std::string make_temp_dir(const std::string& tag) {
  const char* t = std::getenv("TMPDIR");
  std::string templ = std::string(t ? t : "/tmp") + "/amdahl-" + tag + "-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return buf.data();
}

int run(const std::vector<std::string>& argv, const std::string& stdout_path) {
  if (::access(argv[0].c_str(), X_OK) != 0) throw std::runtime_error("cannot run " + argv[0]);
  testsupport::ProcessSetup setup;  // stderr and the environment are the test's
  setup.out_path = stdout_path;     // "" : stdout too
  const int code = testsupport::wait_exit_code(testsupport::start_process(argv, setup));
  if (code < 0) throw std::runtime_error("waitpid failed");
  return code;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return nlohmann::json::parse(in);
}

int profile_workload(const std::string& dir, const std::string& mode, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {build_dir() + "/bin/amdahl", "profile", "-o", dir + "/run.amdahl", "--",
                                   build_dir() + "/bin/cupti_workload", "--mode", mode,
                                   "--json", dir + "/events.json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run(argv);
}

std::vector<std::int64_t> launching_calls(const format::RecordSet& rs) {
  std::vector<std::int64_t> out(rs.gpu_ops.size(), -1);
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i) {
    const auto& op = rs.gpu_ops[i];
    for (std::size_t j = 0; j < rs.api_calls.size(); ++j) {
      const auto& a = rs.api_calls[j];
      if (a.pid != op.pid || a.correlation_id != op.correlation_id) continue;
      if (out[i] < 0 || a.api == format::ApiKind::Runtime) out[i] = static_cast<std::int64_t>(j);
    }
  }
  return out;
}

std::int64_t innermost_amdahl_range(const format::RecordSet& rs, std::uint32_t pid, std::uint64_t tid,
                                    std::int64_t t) {
  std::int64_t best = -1;
  for (std::size_t i = 0; i < rs.ranges.size(); ++i) {
    const auto& r = rs.ranges[i];
    if (r.pid != pid || r.tid != tid || r.kind != format::RangeKind::PushPop) continue;
    if (rs.str(r.domain) != "amdahl" || r.start_ns > t || r.end_ns < t) continue;
    if (best < 0 || r.depth > rs.ranges[static_cast<std::size_t>(best)].depth) best = static_cast<std::int64_t>(i);
  }
  return best;
}

std::vector<std::string> stages_by_correlation(const format::RecordSet& rs) {
  const auto calls = launching_calls(rs);
  std::vector<std::string> out(rs.gpu_ops.size());
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i) {
    if (calls[i] < 0) continue;
    const auto& a = rs.api_calls[static_cast<std::size_t>(calls[i])];
    const std::int64_t r = innermost_amdahl_range(rs, a.pid, a.tid, a.start_ns);
    if (r >= 0) out[i] = rs.str(rs.ranges[static_cast<std::size_t>(r)].name);
  }
  return out;
}

}  // namespace amdahl::gpu_cupti_test
