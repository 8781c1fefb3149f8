// The program test_launcher profiles. Modes:
//   exit N          exits with code N
//   signal N        raises signal N (dies of it)
//   sleep S         sleeps S seconds (to be interrupted), then exits 0
//   env FILE        writes the collector-related environment variables to FILE, exits 0
//   ranges          NVTX: two `step` ranges in domain amdahl with an `h2d` range nested in
//                   each, a `produce` mark with payload 7, then forks a child that pushes one
//                   `child_work` range; waits for it and exits 5
//   signals FILE S  counts SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2; writes FILE.ready once its
//                   handlers are in place; on the first SIGINT/SIGTERM shuts down "gracefully"
//                   (0.5 s, during which a second one is counted too), or ends after S seconds;
//                   writes "int=I term=T hup=H usr1=A usr2=B" to FILE and exits with I + T
//   reexec N R [HOW] NVTX: N `step` ranges (domain amdahl, a `cpu_preprocess` range in each),
//                   then, while R > 1, replaces itself with `reexec N R-1 HOW` (HOW: execv, the
//                   default, or execve, execvp, execl); exits 3 after the last round
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#ifdef AMDAHL_TARGET_HAS_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace {

int ranges() {
#ifdef AMDAHL_TARGET_HAS_NVTX
  nvtxDomainHandle_t d = nvtxDomainCreateA("amdahl");
  auto push = [&](const char* name) {
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name;
    nvtxDomainRangePushEx(d, &a);
  };
  for (int i = 0; i < 2; ++i) {
    push("step");
    push("h2d");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    nvtxDomainRangePop(d);
    nvtxDomainRangePop(d);
  }
  nvtxEventAttributes_t m{};
  m.version = NVTX_VERSION;
  m.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  m.messageType = NVTX_MESSAGE_TYPE_ASCII;
  m.message.ascii = "produce";
  m.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  m.payload.llValue = 7;
  nvtxDomainMarkEx(d, &m);
  const pid_t child = ::fork();
  if (child == 0) {
    push("child_work");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    nvtxDomainRangePop(d);
    std::exit(0);  // runs atexit handlers: the child writes its part
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return 5;
#else
  std::fprintf(stderr, "launcher_target: built without NVTX headers\n");
  return 99;
#endif
}

int reexec(const char* self, int steps, int rounds, const std::string& how) {
#ifdef AMDAHL_TARGET_HAS_NVTX
  nvtxDomainHandle_t d = nvtxDomainCreateA("amdahl");
  auto push = [&](const char* name) {
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name;
    nvtxDomainRangePushEx(d, &a);
  };
  for (int i = 0; i < steps; ++i) {
    push("step");
    push("cpu_preprocess");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    nvtxDomainRangePop(d);
    nvtxDomainRangePop(d);
  }
  if (rounds <= 1) return 3;
  const std::string n = std::to_string(steps), r = std::to_string(rounds - 1);
  char* args[] = {const_cast<char*>(self), const_cast<char*>("reexec"), const_cast<char*>(n.c_str()),
                  const_cast<char*>(r.c_str()), const_cast<char*>(how.c_str()), nullptr};
  if (how == "execve") ::execve(self, args, environ);
  else if (how == "execvp") ::execvp(self, args);
  else if (how == "execl") ::execl(self, self, "reexec", n.c_str(), r.c_str(), how.c_str(), static_cast<char*>(nullptr));
  else ::execv(self, args);
  std::perror("launcher_target: exec");
  return 97;
#else
  (void)self; (void)steps; (void)rounds; (void)how;
  std::fprintf(stderr, "launcher_target: built without NVTX headers\n");
  return 99;
#endif
}

int env(const char* file) {
  std::FILE* f = std::fopen(file, "w");
  if (!f) return 98;
  for (const char* k : {"AMDAHL_PART_DIR", "NVTX_INJECTION64_PATH", "NCCL_NVLS_ENABLE",
                        "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"}) {
    const char* v = std::getenv(k);
    std::fprintf(f, "%s=%s\n", k, v ? v : "(unset)");
  }
  std::fclose(f);
  return 0;
}

std::atomic<int> g_counts[65];
void count_signal(int sig) { g_counts[sig].fetch_add(1); }

int signals(const std::string& file, double max_seconds) {
  struct sigaction sa {};
  sa.sa_handler = count_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}) ::sigaction(sig, &sa, nullptr);
  if (std::FILE* f = std::fopen((file + ".ready").c_str(), "w")) std::fclose(f);
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  double stop_at = max_seconds;
  while (elapsed() < stop_at) {
    if (stop_at == max_seconds && g_counts[SIGINT] + g_counts[SIGTERM] > 0) stop_at = elapsed() + 0.5;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::FILE* f = std::fopen(file.c_str(), "w");
  if (!f) return 98;
  std::fprintf(f, "int=%d term=%d hup=%d usr1=%d usr2=%d", g_counts[SIGINT].load(),
               g_counts[SIGTERM].load(), g_counts[SIGHUP].load(),
               g_counts[SIGUSR1].load(), g_counts[SIGUSR2].load());
  std::fclose(f);
  return g_counts[SIGINT] + g_counts[SIGTERM];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 64;
  const std::string mode = argv[1];
  if (mode == "exit" && argc > 2) return std::atoi(argv[2]);
  if (mode == "signal" && argc > 2) {
    const int sig = std::atoi(argv[2]);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return 0;
  }
  if (mode == "sleep" && argc > 2) {
    std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(argv[2])));
    return 0;
  }
  if (mode == "env" && argc > 2) return env(argv[2]);
  if (mode == "ranges") return ranges();
  if (mode == "signals" && argc > 3) return signals(argv[2], std::atof(argv[3]));
  if (mode == "reexec" && argc > 3) return reexec(argv[0], std::atoi(argv[2]), std::atoi(argv[3]), argc > 4 ? argv[4] : "execv");
  return 64;
}
