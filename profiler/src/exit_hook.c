/* libamdahl_exit.so: preloaded by `amdahl profile` (LD_PRELOAD) into the profiled command and
   its children, so that a process leaving through _exit() or _Exit() still writes its part.
   No exit handler runs there, and that is how Python's multiprocessing ends every forked child
   (os._exit after the target returns), how PyTorch's DataLoader workers leave (also from their
   SIGTERM handler), and how many C programs end a forked child. Such workers often live less
   than the collector's first flush (0.5 s) and used to vanish from the profile.

   The library only defines _exit, _Exit and amdahl_exit_hook_register. The collector, when it
   loads into a process and is enabled, registers its hook (dlsym(RTLD_DEFAULT)); _exit calls it,
   then ends the process with the exit_group system call, as glibc's _exit does. Without a
   registered hook (a process that never loaded the collector) it is a plain _exit. The hook
   itself returns at once in a vfork child and in a process that recorded nothing. No C library
   call besides syscall(): _exit may be called in a vfork child or from a signal handler.
   Not built under sanitizers (an uninstrumented preload breaks ASan's link order check, an
   instrumented one an uninstrumented host). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef void (*amdahl_exit_hook_fn)(int status);

static _Atomic(amdahl_exit_hook_fn) g_hook = NULL;

__attribute__((visibility("default"))) void amdahl_exit_hook_register(amdahl_exit_hook_fn hook) {
  atomic_store(&g_hook, hook);
}

static _Noreturn void leave(int status) {
  const amdahl_exit_hook_fn hook = atomic_load(&g_hook);
  if (hook != NULL) hook(status);
  for (;;) {
    syscall(SYS_exit_group, status);
    syscall(SYS_exit, status);
  }
}

__attribute__((visibility("default"))) _Noreturn void _exit(int status) { leave(status); }
__attribute__((visibility("default"))) _Noreturn void _Exit(int status) { leave(status); }
