// Static-executable detection from ELF program headers (see elf_probe.hpp).
#include "elf_probe.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cstring>

namespace amdahl::profiler {
namespace {

bool read_at(int fd, void* buf, std::size_t n, off_t off) noexcept {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, off);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
    off += r;
  }
  return true;
}

}  // namespace

Linkage process_linkage() noexcept {
  const auto phdr = ::getauxval(AT_PHDR);
  const auto phnum = ::getauxval(AT_PHNUM);
  if (phdr == 0 || phnum == 0 || phnum > 4096) return Linkage::Unknown;
  const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(phdr);
  for (unsigned long i = 0; i < phnum; ++i)
    if (ph[i].p_type == PT_INTERP) return Linkage::Dynamic;
  // No interpreter. A static-pie has a dynamic section but needs no library; the dynamic
  // loader started by hand (`ld.so ./prog`) shows the program's headers here, not its own.
  return Linkage::Static;
}

Linkage file_linkage(const char* path) noexcept {
  // O_NONBLOCK and regular files only: a FIFO given as the command hung `amdahl profile` here,
  // in the open (issue 18, class 6).
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return Linkage::Unknown;
  struct stat sb {};
  if (::fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    ::close(fd);
    return Linkage::Unknown;
  }
  Linkage result = Linkage::Unknown;
  Elf64_Ehdr eh{};
  const unsigned char native_data = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
  if (read_at(fd, &eh, sizeof eh, 0) && std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == native_data &&
      (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum <= 4096) {
    bool interp = false, ok = true;
    Elf64_Phdr dynamic{};
    bool has_dynamic = false;
    for (unsigned i = 0; i < eh.e_phnum && ok; ++i) {
      Elf64_Phdr ph{};
      ok = read_at(fd, &ph, sizeof ph, static_cast<off_t>(eh.e_phoff + i * sizeof ph));
      if (ok && ph.p_type == PT_INTERP) interp = true;
      if (ok && ph.p_type == PT_DYNAMIC) {
        dynamic = ph;
        has_dynamic = true;
      }
    }
    if (ok && interp) {
      result = Linkage::Dynamic;
    } else if (ok && !has_dynamic) {
      result = Linkage::Static;
    } else if (ok) {
      // No interpreter but a dynamic section: a static-pie (no library needed, no soname), or
      // a shared object run directly, such as the dynamic loader itself.
      bool needs_loader = false;
      const std::size_t n = dynamic.p_filesz / sizeof(Elf64_Dyn);
      for (std::size_t k = 0; k < n && k < 65536; ++k) {
        Elf64_Dyn d{};
        if (!read_at(fd, &d, sizeof d, static_cast<off_t>(dynamic.p_offset + k * sizeof d))) break;
        if (d.d_tag == DT_NULL) break;
        if (d.d_tag == DT_NEEDED || d.d_tag == DT_SONAME) needs_loader = true;
      }
      result = needs_loader ? Linkage::Dynamic : Linkage::Static;
    }
  }
  ::close(fd);
  return result;
}

}  // namespace amdahl::profiler
