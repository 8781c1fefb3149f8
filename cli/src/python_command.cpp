// Recognising a Python command for `amdahl profile`'s automatic PyTorch annotation.
#include "python_command.hpp"

#include "amdahl/format/input_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace amdahl::cli {
namespace {

namespace fs = std::filesystem;

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

bool is_python_name(const std::string& name) {
  static const std::regex re("(python|pypy)([0-9]+(\\.[0-9]+)*)?[a-z]?");
  return std::regex_match(name, re);
}

bool is_python_launcher(const std::string& name) {
  return name == "torchrun" || name == "accelerate" || name == "deepspeed";
}

// The interpreter's options before the script, `-m` or `-c`: the reason one of them keeps the
// annotation out, or "".
std::string blocking_flag(const std::vector<std::string>& args, std::size_t from) {
  for (std::size_t i = from; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return "";
    if (a.size() < 2 || a[0] != '-') return "";  // the script
    if (a[1] == '-') {                           // --help, --version, --check-hash-based-pycs MODE
      if (a == "--check-hash-based-pycs") ++i;
      continue;
    }
    for (std::size_t k = 1; k < a.size(); ++k) {
      const char c = a[k];
      if (c == 'I') return "-I (isolated mode) ignores PYTHONPATH";
      if (c == 'E') return "-E ignores PYTHONPATH";
      if (c == 'S') return "-S skips sitecustomize";
      if (c == 'c' || c == 'm') return "";   // the rest is the command or the module
      if (c == 'W' || c == 'X') {            // an argument: the rest of this word or the next
        if (k + 1 == a.size()) ++i;
        break;
      }
    }
  }
  return "";
}

// `path` resolved through PATH when it has no '/'; "" when not found.
std::string resolve(const std::string& cmd, const std::string& path_env) {
  if (cmd.find('/') != std::string::npos) return cmd;
  std::stringstream ss(path_env);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    const fs::path p = fs::path(dir.empty() ? "." : dir) / cmd;
    std::error_code ec;
    if (fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

// The words of a `#!` line (interpreter first); empty when the file has none.
// A regular file only (format::InputFile): a FIFO given as the command hung amdahl here, in the
// open, deaf to SIGTERM (issue 18, class 6). Its first 4 KiB at most.
std::vector<std::string> shebang(const std::string& file) {
  std::string line;
  try {
    format::InputFile in(file, "command", format::kNoSizeLimit);
    line.resize(4096);
    const ssize_t n = ::read(in.fd(), line.data(), line.size());
    line.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  } catch (const format::InputFileError&) {
    return {};  // not a regular file: no #! line to read (the exec says what is wrong with it)
  }
  line = line.substr(0, line.find('\n'));
  if (line.rfind("#!", 0) != 0) return {};
  std::istringstream words(line.substr(2));
  std::vector<std::string> out;
  for (std::string w; words >> w;) out.push_back(w);
  return out;
}

// Skips `env`'s options and NAME=VALUE words from `i`; sets `cleared` for -i / --ignore-environment.
std::size_t skip_env(const std::vector<std::string>& argv, std::size_t i, bool& cleared) {
  while (i < argv.size()) {
    const std::string& a = argv[i];
    if (a == "-i" || a == "-" || a == "--ignore-environment") {
      cleared = true;
      ++i;
    } else if (a == "-u" || a == "--unset" || a == "-C" || a == "--chdir") {
      i += 2;
    } else if (a == "-S" || a == "--split-string") {  // the rest is one word to split
      ++i;
    } else if ((!a.empty() && a[0] == '-') || a.find('=') != std::string::npos) {
      ++i;
    } else {
      break;
    }
  }
  return i;
}

}  // namespace

PythonCommand detect_python_command(const std::vector<std::string>& argv_in, const std::string& path_env) {
  PythonCommand r;
  std::vector<std::string> argv = argv_in;
  bool cleared = false;
  std::size_t i = 0;
  if (!argv.empty() && base_name(argv[0]) == "env") i = skip_env(argv, 1, cleared);
  if (i < argv.size() && i > 0 && argv[i].find(' ') != std::string::npos) {  // env -S "python3 -u"
    std::istringstream words(argv[i]);
    std::vector<std::string> split;
    for (std::string w; words >> w;) split.push_back(w);
    argv.erase(argv.begin() + static_cast<std::ptrdiff_t>(i));
    argv.insert(argv.begin() + static_cast<std::ptrdiff_t>(i), split.begin(), split.end());
  }
  if (i >= argv.size()) return r;
  const std::string name = base_name(argv[i]);
  if (is_python_name(name)) {
    r.python = true;
    r.what = i > 0 ? "env " + name : name;
    r.blocked = blocking_flag(argv, i + 1);
  } else if (is_python_launcher(name)) {
    r.python = true;
    r.what = name + " (a Python launcher)";
  } else if (const std::string file = resolve(argv[i], path_env); !file.empty()) {
    // A script whose #! line runs Python (directly or through env).
    std::vector<std::string> sb = shebang(file);
    std::size_t k = 0;
    bool sb_cleared = false;
    if (!sb.empty() && base_name(sb[0]) == "env") k = skip_env(sb, 1, sb_cleared);
    if (k < sb.size() && is_python_name(base_name(sb[k]))) {
      r.python = true;
      r.what = name + " (#!" + sb[0] + (k > 0 ? " " + sb[k] : "") + ")";
      r.blocked = blocking_flag(sb, k + 1);
      cleared = cleared || sb_cleared;
    }
  }
  if (r.python && cleared) r.blocked = "env -i clears the environment (PYTHONPATH included)";
  return r;
}

}  // namespace amdahl::cli
