// Forks the ranks of `cpu_pipeline --ranks N` and waits for them (rank_launch.hpp).
#include "rank_launch.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "amdahl/annotate/stages.hpp"

namespace amdahl::cpu_pipeline {

std::optional<RankEnv> launch_ranks(std::int64_t n, int& exit_code) {
  const std::string key = "cpu_pipeline." + std::to_string(::getpid());
  // Touch NVTX before forking: a profiler injected through NVTX then starts here and follows
  // the forked ranks (the launcher process leaves its part too).
  (void)annotate::domain();
  std::fflush(nullptr);  // no buffered output duplicated into the children
  std::vector<pid_t> children;
  for (std::int64_t r = 0; r < n; ++r) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      std::perror("cpu_pipeline: fork");
      for (const pid_t c : children) ::kill(c, SIGTERM);
      for (const pid_t c : children) ::waitpid(c, nullptr, 0);
      exit_code = 1;
      return std::nullopt;
    }
    if (pid == 0) {
      ::setenv("RANK", std::to_string(r).c_str(), 1);
      ::setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      ::setenv("WORLD_SIZE", std::to_string(n).c_str(), 1);
      ::setenv("LOCAL_WORLD_SIZE", std::to_string(n).c_str(), 1);
      ::setenv("CPU_PIPELINE_RENDEZVOUS", key.c_str(), 1);
      return RankEnv{r, n, r, "cpu_pipeline"};
    }
    children.push_back(pid);
  }
  exit_code = 0;
  std::size_t left = children.size();
  while (left > 0) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) break;
    bool ours = false;
    for (pid_t& c : children) {
      if (c == pid) {
        c = -1;
        ours = true;
      }
    }
    if (!ours) continue;
    --left;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code != 0 && exit_code == 0) {
      exit_code = code;
      for (const pid_t c : children) {
        if (c > 0) ::kill(c, SIGTERM);
      }
    }
  }
  return std::nullopt;
}

std::string rendezvous_name() {
  if (const char* k = std::getenv("CPU_PIPELINE_RENDEZVOUS"); k != nullptr && *k != '\0') return k;
  const char* port = std::getenv("MASTER_PORT");
  if (port != nullptr && *port != '\0') {
    const char* addr = std::getenv("MASTER_ADDR");
    return std::string("cpu_pipeline.") + (addr != nullptr ? addr : "") + ":" + port;
  }
  return "cpu_pipeline.ppid" + std::to_string(::getppid());
}

}  // namespace amdahl::cpu_pipeline
