// The program test_launcher profiles. Modes:
//   exit N          exits with code N
//   signal N        raises signal N (dies of it)
//   sleep S         sleeps S seconds (to be interrupted), then exits 0
//   env FILE        writes the collector-related environment variables to FILE, exits 0
//   ranges          NVTX: two `step` ranges in domain amdahl with an `h2d` range nested in
//                   each, a `produce` mark with payload 7, then forks a child that pushes one
//                   `child_work` range; waits for it and exits 5
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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
  return 64;
}
