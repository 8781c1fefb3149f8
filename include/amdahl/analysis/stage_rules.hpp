// Stage vocabulary and the rules that map NVTX ranges to stages: the canonical stages, the
// special names of domain `amdahl` (step, wait), and `PATTERN -> TARGET` rule files
// (syntax: docs/analysis.md). Pure: no I/O besides the text handed in.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace amdahl::analysis {

inline constexpr std::string_view kAmdahlDomain = "amdahl";
inline constexpr std::array<std::string_view, 6> kCanonicalStages = {
    "disk_io", "cpu_preprocess", "h2d", "gpu_compute", "d2h", "communication"};
inline constexpr std::string_view kOtherStage = "other";
// Data loading that a profile cannot split into disk_io and cpu_preprocess (an imported PyTorch
// profiler trace: the DataLoader's __next__ on the training thread, the worker processes not
// traced). A user stage by name, counted in the verdict's input group with the two it holds.
inline constexpr std::string_view kDataLoadingStage = "data_loading";

bool is_canonical_stage(std::string_view name);

// What a range is to the analyzer.
enum class RangeRole {
  Ignore,  // transparent: its time belongs to whatever encloses it
  Stage,   // a stage range (stage name in RangeClass::stage)
  Step,    // a training step
  Wait,    // a blocking wait (queue take/put); attributed to the work waited on
};

struct RangeClass {
  RangeRole role = RangeRole::Ignore;
  std::string stage;  // for RangeRole::Stage
};

struct StageRule {
  std::string pattern;  // glob, lower-cased
  RangeClass target;
  std::string source;   // "FILE:LINE" or "default"
  // A default keyword rule: matched against the name's word form (word_form), so "read"
  // matches "read_batch" and "FileReader" but not "thread", "load" not "upload".
  bool words = false;
};

// A name as words: lower-cased, split at every character that is not a letter or digit and
// where a lower-case letter meets an upper-case one, joined and surrounded by '_':
// "loadBatch(x)" -> "_load_batch_x_", "DataLoader" -> "_data_loader_".
std::string word_form(std::string_view name);

// Case-insensitive glob: `*` any run of characters (also empty), `?` one character, `[abc]`
// / `[a-z]` / `[!a]` a character class; everything else literal.
bool glob_match(std::string_view pattern, std::string_view text);

// Parses a rule file's text. `source` names it in error messages. Throws UsageError
// ("FILE:LINE: ...") on a syntax error.
std::vector<StageRule> parse_stage_rules(std::string_view text, const std::string& source);

// The built-in rules, tried after every user rule. `step_name` maps to the step role.
std::vector<StageRule> default_stage_rules(const std::string& step_name);

namespace detail {
class RuleIndex;  // rule_index.hpp: finds the first matching rule without trying every rule
}

class StageRules {
 public:
  // user rules first (first match wins), then the defaults.
  explicit StageRules(std::vector<StageRule> user_rules = {}, std::string step_name = "step");

  // Domain `amdahl`: `step_name` -> Step, `wait` -> Wait, any other name -> that stage.
  // Other domains: the first rule matching the name or "domain::name"; no match -> Ignore.
  RangeClass classify(std::string_view domain, std::string_view name) const;
  // The same, and the rule that decided (nullptr: domain `amdahl`, or no rule matched).
  RangeClass classify(std::string_view domain, std::string_view name, const StageRule** rule) const;

  const std::string& step_name() const { return step_name_; }
  const std::vector<StageRule>& rules() const { return rules_; }

 private:
  std::vector<StageRule> rules_;
  std::string step_name_;
  std::shared_ptr<const detail::RuleIndex> index_;  // over rules_, which never change after construction
};

}  // namespace amdahl::analysis
