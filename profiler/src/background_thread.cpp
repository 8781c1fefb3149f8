// The collector's own threads (the flusher, the prefaulter): detached, with a small stack, and
// with every signal blocked, so the host's signal handling (which thread gets SIGINT, sigwait
// loops) stays as it was.
#include <pthread.h>
#include <signal.h>

#include "collector_state.hpp"

namespace amdahl::profiler::detail {

int start_background_thread(void* (*main)(void*), void* arg, std::size_t stack_bytes) noexcept {
  sigset_t all;
  sigset_t old;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);  // the new thread inherits the mask
  pthread_attr_t attr;
  ::pthread_attr_init(&attr);
  ::pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  ::pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t thread;
  const int rc = ::pthread_create(&thread, &attr, main, arg);
  ::pthread_attr_destroy(&attr);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return rc;
}

}  // namespace amdahl::profiler::detail
