// Writing an output file safely: every file amdahl writes (profiles, reports, traces) goes
// through OutputFile, so that
//  * a regular file is written to a temporary of our own next to it (mkstemp: a unique name,
//    created exclusively, never someone else's) and renamed over it only when complete: a full
//    disk or an error leaves the old file as it was, and two runs writing one output never share
//    a temporary (the last complete one wins);
//  * an existing path that is not a regular file (a FIFO, /dev/null, a terminal, a socket), and
//    the aliases of descriptors (/dev/stdout, /dev/stderr, /dev/fd/N, anything under /proc) are
//    written in place, never replaced; when such an alias leads to a regular file (the shell's
//    `> file` or `>> file`) it is appended to;
//  * a directory is refused ("is a directory").
// same_file() tells whether an output would overwrite an input (st_dev and st_ino compared).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace amdahl::format {

// Writing an output failed (exit code 2 in the CLI, like other bad-input errors).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class OutputFile {
 public:
  // `in_place_ok` false (an SQLite profile, which needs a seekable regular file): a path that
  // would be written in place is refused instead. Throws OutputError.
  explicit OutputFile(std::string path, bool in_place_ok = true);
  ~OutputFile();  // removes the temporary unless committed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  const std::string& path() const { return path_; }
  // Where to write: the temporary, or the path itself when in place.
  const std::string& write_path() const { return write_path_; }
  bool in_place() const { return in_place_; }

  // Writes all of `bytes` to write_path() (the temporary; in place: as said above). Throws
  // OutputError.
  void write_all(std::string_view bytes);

  // Publishes the temporary as path() (rename; with `overwrite` false, a hard link that fails
  // when path() exists, then the temporary is removed). Nothing to do in place. Throws
  // OutputError ("refusing to overwrite ..." when `overwrite` is false and the path exists).
  void commit(bool overwrite = true);

 private:
  std::string path_, write_path_;
  bool in_place_ = false;
  bool append_ = false;  // in place on a regular file (a redirection): appended to
  bool committed_ = false;
};

// Whether OutputFile would write `path` in place (not a regular file, or a descriptor alias).
bool written_in_place(const std::string& path);

// Writes `bytes` to `path` through an OutputFile (`overwrite` false: OutputFile::commit(false)
// refuses a file that appeared in the meantime).
void write_file(const std::string& path, std::string_view bytes, bool overwrite = true);

// Whether both paths name one existing file (after symbolic links; st_dev and st_ino).
bool same_file(const std::string& a, const std::string& b);

}  // namespace amdahl::format
