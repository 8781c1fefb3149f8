// The command line that checks a next action (amdahl/analysis/next_check.hpp), in one place: the
// amdahl command, its flags and the profile, quoted for a shell where it needs it. Every renderer
// (text, JSON, HTML, Markdown) prints a next action's "check:" through this.
#pragma once

#include <string>

#include "amdahl/analysis/guidance.hpp"

namespace amdahl::render {

// The command of `check` on the profile `profile_arg` (as the user named it).
std::string to_command(const analysis::Check& check, const std::string& profile_arg);
// The command that checks `action`.
std::string to_command(const analysis::NextAction& action);

// `text` single-quoted for a shell command line when it needs quoting, else as it is.
std::string shell_arg(const std::string& text);

}  // namespace amdahl::render
