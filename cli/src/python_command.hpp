// Whether `amdahl profile`'s command runs a Python interpreter, for the automatic PyTorch
// annotation (issue 19; docs/torch.md, "Python commands"): python/python3/python3.X/pypy3,
// through `/usr/bin/env`, a Python launcher (torchrun, accelerate, deepspeed) or a script whose
// `#!` line names Python. And whether the interpreter's own flags keep the annotation out
// (-I, -E: PYTHONPATH ignored; -S: no sitecustomize; `env -i`: the environment cleared).
#pragma once

#include <string>
#include <vector>

namespace amdahl::cli {

struct PythonCommand {
  bool python = false;  // the command runs Python
  std::string what;     // how it was recognised, for the one-line message ("python3", "torchrun", ...)
  std::string blocked;  // why the annotation cannot reach it; empty when it can
};

// `path_env`: the PATH to resolve a bare command name in (for its `#!` line).
PythonCommand detect_python_command(const std::vector<std::string>& argv, const std::string& path_env);

}  // namespace amdahl::cli
