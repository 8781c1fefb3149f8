// read_rule_file: the stage rule file through format::InputFile (rule_file.hpp).
#include "rule_file.hpp"

#include "amdahl/format/input_file.hpp"

namespace amdahl::cli {

std::string read_rule_file(const std::string& path) {
  return format::read_input_file(path, "the stage rule file", kMaxRuleFileBytes);
}

}  // namespace amdahl::cli
