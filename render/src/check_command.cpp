// The command lines of the next actions' checks (check_command.hpp).
#include "amdahl/render/check_command.hpp"

#include <algorithm>
#include <cctype>

#include "amdahl/analysis/restructure.hpp"
#include "numbers.hpp"

namespace amdahl::render {
namespace {

using namespace analysis::checks;

// A factor or target as the options take it: 2 -> "2", 1.1 -> "1.1".
std::string number(double v) { return detail::general(v, 6); }

std::string command(const ShowStages&, const std::string& prof) { return "amdahl stages " + prof; }
std::string command(const Reprofile& c, const std::string& prof) {
  if (c.imported)  // the recorded command is the import (amdahl import TRACE)
    return c.command ? *c.command + " -o " + prof + " --force" : "amdahl import TRACE -o " + prof;
  return "amdahl profile -o " + prof + " -- " + c.command.value_or("COMMAND");
}
std::string command(const StageFaster& c, const std::string& prof) {
  return "amdahl whatif " + prof + " --speedup " + shell_arg(c.stage + (c.host ? ":host" : "") + "=" + number(c.factor));
}
std::string command(const MoreWorkers& c, const std::string& prof) {
  std::string cmd = "amdahl whatif " + prof + " --workers " + std::to_string(c.workers);
  // --worker-stages only where the default list would not do: a default stage the profile
  // lacks is ignored, so a subset of the defaults needs none.
  const std::vector<std::string> defaults = analysis::LoaderWorkers{}.stages;
  const bool default_stages = std::all_of(c.stages.begin(), c.stages.end(), [&](const std::string& s) {
    return std::find(defaults.begin(), defaults.end(), s) != defaults.end();
  });
  if (!default_stages) {
    std::string list;
    for (const auto& s : c.stages) list += (list.empty() ? "" : ",") + s;
    cmd += " --worker-stages " + shell_arg(list);
  }
  return cmd;
}
std::string command(const TargetSpeedup& c, const std::string& prof) {
  return "amdahl whatif " + prof + " --target " + number(c.target);
}

}  // namespace

std::string shell_arg(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/' || c == '=' ||
           c == ':' || c == ',' || c == '+';
  });
  if (plain) return text;
  std::string q = "'";
  for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string to_command(const analysis::Check& check, const std::string& profile_arg) {
  const std::string prof = shell_arg(profile_arg);
  return std::visit([&](const auto& c) { return command(c, prof); }, check);
}

std::string to_command(const analysis::NextAction& action) { return to_command(action.check, action.profile); }

}  // namespace amdahl::render
