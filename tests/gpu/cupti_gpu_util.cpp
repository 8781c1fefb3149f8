// Helpers for the CUPTI GPU tests (see cupti_gpu_util.hpp).
#include "cupti_gpu_util.hpp"

#include <cuda_runtime.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

extern char** environ;

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
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!stdout_path.empty()) {
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot run " + argv[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) throw std::runtime_error("waitpid failed");
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
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
