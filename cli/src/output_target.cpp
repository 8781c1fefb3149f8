// The output rules shared by every command (output_target.hpp): stdout as "-", the format from
// the extension, and the one overwrite policy.
#include "output_target.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "amdahl/format/output_file.hpp"
#include "commands.hpp"

namespace amdahl::cli {

bool is_stdout_path(const std::string& path) { return path == "-"; }

std::string format_from_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".html" || ext == ".htm") return "html";
  if (ext == ".md" || ext == ".markdown") return "markdown";
  if (ext == ".json") return "json";
  if (ext == ".csv") return "csv";
  return "";
}

std::string resolve_output_format(const std::string& output, const std::string& given, const std::string& fallback,
                                  const std::vector<std::string>& formats, const char* command) {
  const std::string from_ext = is_stdout_path(output) ? "" : format_from_extension(output);
  if (!given.empty() && !from_ext.empty() && given != from_ext)
    throw UsageError(std::string("--format ") + given + " contradicts -o " + output + " (a " + from_ext +
                     " file name); drop --format or choose a matching name");
  if (!given.empty()) return given;
  if (from_ext.empty()) return fallback;
  if (std::find(formats.begin(), formats.end(), from_ext) == formats.end()) {
    std::string list;
    for (const auto& f : formats) list += (list.empty() ? "" : ", ") + f;
    throw UsageError(std::string(command) + " does not write " + from_ext + " (-o " + output + "); it writes " + list);
  }
  return from_ext;
}

void check_overwrite(const std::string& path, bool force, const char* what) {
  if (force || path.empty() || is_stdout_path(path)) return;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;  // nothing there (a dangling symbolic link is there)
  if (format::written_in_place(path)) return;   // a device, a FIFO, /dev/stdout: not replaced
  throw UsageError(std::string("refusing to overwrite ") + what + " " + path +
                   ": it already exists; use --force to replace it");
}

}  // namespace amdahl::cli
