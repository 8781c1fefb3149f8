// Opening an input file (a profile, a trace, a rule file, a part) safely: regular files only
// and a size bound, so a FIFO, a device (/dev/zero), a directory or a huge file given as an
// input is one clear error instead of a hang, an endless read or an empty read.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace amdahl::format {

// A refused or unreadable input; the message names the file and says why.
class InputFileError : public std::runtime_error {
 public:
  InputFileError(const std::string& what, std::string reason) : std::runtime_error(what), reason_(std::move(reason)) {}
  // Why, without the file's name ("it is a FIFO (named pipe); only a regular file is read").
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string reason_;
};

// An open input file: a read-only descriptor of a regular file, closed with the object.
class InputFile {
 public:
  // `what` names the kind of input in messages ("profile", "trace", "stage rule file"...).
  // Refuses (InputFileError) anything that is not a regular file, before opening it (stat) and
  // again on the descriptor (opened with O_NONBLOCK, so a FIFO swapped in between cannot block
  // the open; fstat then refuses it), and a file larger than `max_bytes`.
  InputFile(const std::string& path, const std::string& what, std::uint64_t max_bytes);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  int fd() const noexcept { return fd_; }
  std::uint64_t size() const noexcept { return size_; }
  // Gives the descriptor away (e.g. to gzdopen); the object no longer closes it.
  int release() noexcept;
  // Reads the whole file (at most the size it had when opened, plus nothing: a file growing
  // while read is cut at that size).
  std::string read_all(const std::string& path);

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// No size bound (the file's own size still bounds what read_all reads).
inline constexpr std::uint64_t kNoSizeLimit = ~std::uint64_t{0};

// Reads a whole regular file of at most `max_bytes`. Throws InputFileError.
std::string read_input_file(const std::string& path, const std::string& what, std::uint64_t max_bytes);

// Whether `path` (not followed if it is a symbolic link: lstat) is a regular file. For listings
// that must skip FIFOs, devices and sockets without opening them.
bool is_regular_file_entry(const std::string& path) noexcept;

}  // namespace amdahl::format
