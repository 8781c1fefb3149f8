// Test helper instrumented with the nvtx3 C API. Modes:
//   full   ranges in two domains (nested), a start/end range ended on another thread, marks
//          with every payload type, a registered string, category names, named OS threads,
//          an unbalanced pop, an unknown range end and unclosed ranges; prints "helper done"
//          and exits with code 3.
//   fork   forks one child that keeps running this image and one that execs "<self> child",
//          while a second thread keeps interning new names (stressing the fork lock handling).
//   child  a few ranges of its own (the exec'd child).
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

std::uint32_t gettid_u32() { return static_cast<std::uint32_t>(::syscall(SYS_gettid)); }

nvtxEventAttributes_t attrs(const char* msg) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = msg;
  return a;
}

int run_full() {
  pthread_setname_np(pthread_self(), "helper-main");
  nvtxDomainHandle_t amdahl = nvtxDomainCreateA("amdahl");
  nvtxDomainHandle_t other = nvtxDomainCreateA("other");
  nvtxNameCategoryA(7, "io-cat");
  nvtxDomainNameCategoryA(amdahl, 3, "stage-cat");
  nvtxStringHandle_t reg = nvtxDomainRegisterStringA(amdahl, "registered-name");

  nvtxRangePushA("outer");  // depth 0, default domain
  {
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = reg;
    a.category = 3;
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = 42;
    nvtxDomainRangePushEx(amdahl, &a);  // depth 1, parent outer
    nvtxEventAttributes_t b = attrs("inner-b");
    b.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
    b.payload.dValue = 2.5;
    nvtxDomainRangePushEx(other, &b);  // depth 2, parent registered-name
    nvtxDomainRangePop(other);
    nvtxDomainRangePop(amdahl);
    nvtxRangePushW(L"wide-\u00e9");  // depth 1, parent outer
    nvtxRangePop();
  }
  nvtxRangePop();

  // Marks with every payload type.
  nvtxEventAttributes_t m = attrs("produce");
  m.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  m.payload.llValue = 17;
  nvtxDomainMarkEx(amdahl, &m);
  m = attrs("consume");
  m.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
  m.payload.dValue = 0.5;
  nvtxDomainMarkEx(amdahl, &m);
  m = attrs("u32");
  m.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT32;
  m.payload.uiValue = 5;
  nvtxMarkEx(&m);
  m = attrs("i32");
  m.payloadType = NVTX_PAYLOAD_TYPE_INT32;
  m.payload.iValue = -3;
  m.category = 7;
  nvtxMarkEx(&m);
  m = attrs("f32");
  m.payloadType = NVTX_PAYLOAD_TYPE_FLOAT;
  m.payload.fValue = 1.5f;
  nvtxMarkEx(&m);
  m = attrs("u64");
  m.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  m.payload.ullValue = 0xFFFFFFFFFFFFFFFFull;
  nvtxMarkEx(&m);
  nvtxMarkA("plain-mark");

  // A start/end range ended on another thread, which also has its own push/pop range.
  nvtxEventAttributes_t s = attrs("async");
  nvtxRangeId_t id = nvtxDomainRangeStartEx(amdahl, &s);
  std::uint32_t worker_tid = 0;
  std::thread worker([&] {
    pthread_setname_np(pthread_self(), "wk-comm");
    worker_tid = gettid_u32();
    nvtxNameOsThreadA(worker_tid, "worker-named");
    nvtxRangePushA("worker-range");
    nvtxDomainRangeEnd(amdahl, id);
    nvtxRangePop();
  });
  worker.join();

  // Problems that must be counted, never fatal.
  nvtxRangePop();                  // unbalanced (default domain)
  nvtxDomainRangePop(other);       // unbalanced (domain "other")
  nvtxRangeEnd(12345);             // unknown id
  nvtxDomainRangeEnd(amdahl, id);  // ended twice: unknown
  nvtxRangePushA("never-popped");
  nvtxRangeStartA("never-ended");

  std::printf("helper done\n");
  std::fflush(stdout);
  return 3;
}

int run_child() {
  nvtxRangePushA("child-exec");
  nvtxRangePop();
  return 0;
}

int run_fork(const char* self) {
  // Load and initialise the collector on this thread before the second thread starts (NVTX
  // publishes its function table without atomics, which ThreadSanitizer would report).
  nvtxRangePushA("parent-range");
  nvtxRangePop();
  std::atomic<bool> stop{false};
  std::thread churn([&] {
    // Keeps the interning lock busy with new names while the main thread forks.
    for (unsigned i = 0; !stop.load(); ++i) {
      const std::string name = "churn-" + std::to_string(i % 4096);
      nvtxRangePushA(name.c_str());
      nvtxRangePop();
    }
  });
  nvtxRangePushA("around-fork");  // open across both forks

  const pid_t a = ::fork();
  if (a == 0) {
    nvtxRangePushA("child-noexec");
    nvtxRangePop();
    nvtxRangePop();  // closes the inherited "around-fork": balanced, not recorded
    std::exit(0);
  }
  const pid_t b = ::fork();
  if (b == 0) {
    char* const argv[] = {const_cast<char*>(self), const_cast<char*>("child"), nullptr};
    ::execv(self, argv);
    ::_exit(127);
  }
  int sa = 0;
  int sb = 0;
  ::waitpid(a, &sa, 0);
  ::waitpid(b, &sb, 0);
  nvtxRangePop();  // around-fork
  stop.store(true);
  churn.join();
  std::printf("children %d %d\n", static_cast<int>(a), static_cast<int>(b));
  const bool ok = WIFEXITED(sa) && WEXITSTATUS(sa) == 0 && WIFEXITED(sb) && WEXITSTATUS(sb) == 0;
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "full";
  if (std::strcmp(mode, "full") == 0) return run_full();
  if (std::strcmp(mode, "fork") == 0) return run_fork(argv[0]);
  if (std::strcmp(mode, "child") == 0) return run_child();
  std::fprintf(stderr, "usage: nvtx_helper [full|fork|child]\n");
  return 2;
}
