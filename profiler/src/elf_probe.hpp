// Whether a program is statically linked, for the collector's own safety check and for the
// launcher. A static executable cannot host the collector: NVTX dlopen()s it with the static
// C library's loader, which maps a second libc and sets up no TLS for it, so the first record
// (a thread_local access) dies of SIGSEGV. Only syscalls and no allocation: the collector calls
// this from its constructor inside such a process.
#pragma once

namespace amdahl::profiler {

enum class Linkage {
  Dynamic,  // has an ELF interpreter (PT_INTERP): the dynamic loader runs it
  Static,   // no interpreter: static, or static-pie (no DT_NEEDED, no DT_SONAME)
  Unknown,  // not a 64-bit ELF of this machine's byte order, or unreadable
};

// The executable the current process runs, from its program headers in memory
// (getauxval(AT_PHDR)): right also for `ld.so ./prog`, where /proc/self/exe is the loader.
Linkage process_linkage() noexcept;

// An executable file on disk (the command `amdahl profile` is about to run).
Linkage file_linkage(const char* path) noexcept;

}  // namespace amdahl::profiler
