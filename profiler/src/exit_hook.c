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
   instrumented one an uninstrumented host).

   exec: the same for a process that replaces its program (execve and the other exec functions,
   os.execv in Python): exec runs no exit handler either, and everything the process recorded
   before it was lost (issue 18, class 8). The library defines the exec functions, calls the
   collector's exec hook (amdahl_exec_hook_register), which writes the part, then the C
   library's own function (looked up once, at load: no dlsym in a vfork child). The new program
   loads a fresh collector with the same pid; the merge keeps that pid (docs/collector.md). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
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

/* ---- exec ------------------------------------------------------------------------------ */

typedef void (*amdahl_exec_hook_fn)(void);
static _Atomic(amdahl_exec_hook_fn) g_exec_hook = NULL;

__attribute__((visibility("default"))) void amdahl_exec_hook_register(amdahl_exec_hook_fn hook) {
  atomic_store(&g_exec_hook, hook);
}

typedef int (*execve_fn)(const char*, char* const[], char* const[]);
typedef int (*execv_fn)(const char*, char* const[]);
typedef int (*fexecve_fn)(int, char* const[], char* const[]);
typedef int (*execveat_fn)(int, const char*, char* const[], char* const[], int);

static execve_fn real_execve, real_execvpe;
static execv_fn real_execv, real_execvp;
static fexecve_fn real_fexecve;
static execveat_fn real_execveat;

__attribute__((constructor)) static void find_exec_functions(void) {
  real_execve = (execve_fn)dlsym(RTLD_NEXT, "execve");
  real_execvpe = (execve_fn)dlsym(RTLD_NEXT, "execvpe");
  real_execv = (execv_fn)dlsym(RTLD_NEXT, "execv");
  real_execvp = (execv_fn)dlsym(RTLD_NEXT, "execvp");
  real_fexecve = (fexecve_fn)dlsym(RTLD_NEXT, "fexecve");
  real_execveat = (execveat_fn)dlsym(RTLD_NEXT, "execveat");  /* glibc 2.34 and later */
}

/* An exec called before the constructor above ran (from another preloaded library's
   constructor): look the function up now. */
#define REAL(var, type, name) (var ? var : (var = (type)dlsym(RTLD_NEXT, name)))

/* The collector writes the part (it returns at once in a vfork child, or when nothing was
   recorded). If the exec then fails the process goes on, and its later parts have it all. */
static void before_exec(void) {
  const amdahl_exec_hook_fn hook = atomic_load(&g_exec_hook);
  if (hook != NULL) hook();
}

static int missing(void) {
  errno = ENOSYS;
  return -1;
}

__attribute__((visibility("default"))) int execve(const char* path, char* const argv[], char* const envp[]) {
  before_exec();
  return REAL(real_execve, execve_fn, "execve") ? real_execve(path, argv, envp)
                                                 : (int)syscall(SYS_execve, path, argv, envp);
}
__attribute__((visibility("default"))) int execv(const char* path, char* const argv[]) {
  before_exec();
  return REAL(real_execv, execv_fn, "execv") ? real_execv(path, argv) : missing();
}
__attribute__((visibility("default"))) int execvp(const char* file, char* const argv[]) {
  before_exec();
  return REAL(real_execvp, execv_fn, "execvp") ? real_execvp(file, argv) : missing();
}
__attribute__((visibility("default"))) int execvpe(const char* file, char* const argv[], char* const envp[]) {
  before_exec();
  return REAL(real_execvpe, execve_fn, "execvpe") ? real_execvpe(file, argv, envp) : missing();
}
__attribute__((visibility("default"))) int fexecve(int fd, char* const argv[], char* const envp[]) {
  before_exec();
  return REAL(real_fexecve, fexecve_fn, "fexecve") ? real_fexecve(fd, argv, envp) : missing();
}
__attribute__((visibility("default"))) int execveat(int dirfd, const char* path, char* const argv[],
                                                    char* const envp[], int flags) {
  before_exec();
  return REAL(real_execveat, execveat_fn, "execveat") ? real_execveat(dirfd, path, argv, envp, flags) : missing();
}

/* execl, execlp, execle: the arguments as an array (on the stack), then the v form above. */
#define COLLECT_ARGS(first, last_envp)                                  \
  size_t n = 1;                                                         \
  va_list ap;                                                           \
  va_start(ap, first);                                                  \
  while (va_arg(ap, char*) != NULL) ++n;                                \
  va_end(ap);                                                           \
  char* args[n + 1];                                                    \
  args[0] = (char*)(first);                                             \
  va_start(ap, first);                                                  \
  for (size_t i = 1; i <= n; ++i) args[i] = va_arg(ap, char*);          \
  last_envp;                                                            \
  va_end(ap)

__attribute__((visibility("default"))) int execl(const char* path, const char* arg, ...) {
  COLLECT_ARGS(arg, (void)0);
  return execv(path, args);
}
__attribute__((visibility("default"))) int execlp(const char* file, const char* arg, ...) {
  COLLECT_ARGS(arg, (void)0);
  return execvp(file, args);
}
__attribute__((visibility("default"))) int execle(const char* path, const char* arg, ...) {
  char* const* envp;
  COLLECT_ARGS(arg, envp = va_arg(ap, char* const*));
  return execve(path, args, envp);
}
