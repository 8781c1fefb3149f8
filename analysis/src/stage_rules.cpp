// Stage vocabulary, glob matching, rule-file parsing and range classification.
#include "amdahl/analysis/stage_rules.hpp"

#include <algorithm>
#include <cctype>

#include "amdahl/analysis/errors.hpp"
#include "rule_index.hpp"

namespace amdahl::analysis {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::string to_lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool valid_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Matches a character class starting at pattern[pi] == '['. Sets `next` past the ']'.
bool class_match(std::string_view p, std::size_t pi, char c, std::size_t& next) {
  std::size_t i = pi + 1;
  bool negate = false;
  if (i < p.size() && (p[i] == '!' || p[i] == '^')) { negate = true; ++i; }
  bool matched = false;
  bool first = true;
  while (i < p.size() && (p[i] != ']' || first)) {
    first = false;
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      if (c >= p[i] && c <= p[i + 2]) matched = true;
      i += 3;
    } else {
      if (c == p[i]) matched = true;
      ++i;
    }
  }
  next = i + 1;  // past ']' (validated at parse time)
  return matched != negate;
}

RangeClass parse_target(std::string_view t) {
  const std::string lt = to_lower(t);
  if (lt == "ignore") return {RangeRole::Ignore, {}};
  if (lt == "step") return {RangeRole::Step, {}};
  if (lt == "wait") return {RangeRole::Wait, {}};
  return {RangeRole::Stage, std::string(t)};
}

void add(std::vector<StageRule>& rules, std::string_view pattern, std::string_view target) {
  rules.push_back({to_lower(pattern), parse_target(target), "default", false});
}

// A keyword rule on the word form: "read*" (a word starting with "read") -> "*_read*";
// "data" (the whole word) -> "*_data_*"; "to_device" (words in a row) -> "*_to_device_*".
void add_words(std::vector<StageRule>& rules, std::string_view keyword, std::string_view target) {
  std::string p = "*_" + to_lower(keyword);
  if (p.back() != '*') p += "_*";
  rules.push_back({p, parse_target(target), "default (word '" + std::string(keyword) + "')", true});
}

}  // namespace

bool is_canonical_stage(std::string_view name) {
  return std::find(kCanonicalStages.begin(), kCanonicalStages.end(), name) != kCanonicalStages.end();
}

bool glob_match(std::string_view p, std::string_view t) {
  // Iterative matcher with single-star backtracking (linear for the common cases).
  std::size_t pi = 0, ti = 0, star_p = std::string_view::npos, star_t = 0;
  while (ti < t.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star_p = pi++;
      star_t = ti;
      continue;
    }
    if (pi < p.size()) {
      const char c = lower(t[ti]);
      if (p[pi] == '?') { ++pi; ++ti; continue; }
      if (p[pi] == '[' && p.find(']', pi + 2) != std::string_view::npos) {
        std::size_t next = 0;
        if (class_match(p, pi, c, next)) { pi = next; ++ti; continue; }
      } else if (lower(p[pi]) == c) {
        ++pi; ++ti; continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    pi = star_p + 1;
    ti = ++star_t;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

std::vector<StageRule> parse_stage_rules(std::string_view text, const std::string& source) {
  std::vector<StageRule> rules;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    // '#' starts a comment at the start of a line or after whitespace (names like
    // "enumerate(DataLoader)#_Iter.__next__" keep their '#').
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(line[i - 1])))) {
        line = line.substr(0, i);
        break;
      }
    }
    line = trim(line);
    if (line.empty()) continue;
    const auto where = source + ":" + std::to_string(line_no) + ": ";
    const std::size_t arrow = line.find("->");
    if (arrow == std::string_view::npos)
      throw UsageError(where + "expected 'PATTERN -> STAGE', got '" + std::string(line) + "'");
    if (line.find("->", arrow + 2) != std::string_view::npos)
      throw UsageError(where + "more than one '->' on the line");
    const std::string_view pattern = trim(line.substr(0, arrow));
    const std::string_view target = trim(line.substr(arrow + 2));
    if (pattern.empty()) throw UsageError(where + "empty pattern before '->'");
    if (target.empty()) throw UsageError(where + "empty stage after '->'");
    if (!valid_identifier(target))
      throw UsageError(where + "stage '" + std::string(target) +
                       "' is not a name (letters, digits, '_'; not starting with a digit)");
    if (to_lower(target) == kOtherStage)
      throw UsageError(where + "'other' is reserved for time in no stage; use 'ignore'");
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      if (pattern[i] == '[') {
        const std::size_t close = pattern.find(']', i + 2);
        if (close == std::string_view::npos)
          throw UsageError(where + "unterminated '[' in pattern '" + std::string(pattern) + "'");
        i = close;
      }
    }
    rules.push_back({to_lower(pattern), parse_target(target), source + ":" + std::to_string(line_no)});
  }
  return rules;
}

std::vector<StageRule> default_stage_rules(const std::string& step_name) {
  std::vector<StageRule> r;
  // Exact vocabulary in any domain (torch.cuda.nvtx has no domains).
  add(r, step_name, "step");
  add(r, "wait", "wait");
  for (auto s : kCanonicalStages) add(r, s, s);
  // PyTorch operator-level ranges (emit_nvtx / record_function) are too fine to be stages:
  // they belong to the stage that encloses them.
  add(r, "aten::*", "ignore");
  add(r, "autograd::*", "ignore");
  add(r, "*profilerstep*", "step");
  // Keywords match whole words of the name (word_form), not bare substrings: "thread" is not a
  // read, "upload_metrics" not a load, and a bare "copy" (an EMA weight copy) no transfer.
  // Transfers (device-to-host first).
  for (auto p : {"dtoh*", "d2h*", "to_cpu", "to_host", "memcpy_dtoh*", "memcpy_d2h*"}) add_words(r, p, "d2h");
  add(r, "*memcpy*htod*", "h2d");
  add(r, "*.cuda(*", "h2d");
  for (auto p : {"htod*", "h2d*", "to_device", "to_gpu", "to_cuda", "pin_memory*", "memcpy", "host_to_device"})
    add_words(r, p, "h2d");
  // Collectives.
  for (auto p : {"nccl*", "allreduce*", "all_reduce*", "all_gather*", "allgather*", "reduce_scatter*", "broadcast*",
                 "barrier*", "communicat*"})
    add_words(r, p, "communication");
  // Compute.
  for (auto p : {"forward*", "backward*", "optimizer*", "loss*", "train_step*", "compute*", "zero_grad*"})
    add_words(r, p, "gpu_compute");
  // Input pipeline: transforms first, then reads.
  for (auto p : {"collate*", "transform*", "augment*", "preprocess*", "decode*", "tokeniz*", "normaliz*"})
    add_words(r, p, "cpu_preprocess");
  for (auto p : {"dataloader*", "data_loader*", "read", "reads", "reader*", "reading", "load", "loads", "loader*",
                 "loading", "fetch*", "data", "dataset*", "disk*", "io", "file*"})
    add_words(r, p, "disk_io");
  return r;
}

StageRules::StageRules(std::vector<StageRule> user_rules, std::string step_name)
    : rules_(std::move(user_rules)), step_name_(std::move(step_name)) {
  auto defaults = default_stage_rules(step_name_);
  rules_.insert(rules_.end(), defaults.begin(), defaults.end());
  index_ = std::make_shared<const detail::RuleIndex>(rules_);
}

std::string word_form(std::string_view name) {
  std::string out = "_";
  char prev = 0;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u)) {
      if (out.back() != '_') out += '_';
    } else {
      if (std::isupper(u) && prev != 0 && std::islower(static_cast<unsigned char>(prev)) && out.back() != '_') out += '_';
      out += lower(c);
    }
    prev = c;
  }
  if (out.back() != '_') out += '_';
  return out;
}

RangeClass StageRules::classify(std::string_view domain, std::string_view name) const {
  return classify(domain, name, nullptr);
}

RangeClass StageRules::classify(std::string_view domain, std::string_view name, const StageRule** rule) const {
  if (rule != nullptr) *rule = nullptr;
  if (domain == kAmdahlDomain) {
    if (name == step_name_) return {RangeRole::Step, {}};
    if (name == "wait") return {RangeRole::Wait, {}};
    if (name.empty()) return {RangeRole::Ignore, {}};
    return {RangeRole::Stage, std::string(name)};
  }
  std::string full;
  full.reserve(domain.size() + 2 + name.size());
  full.append(domain).append("::").append(name);
  const std::string lfull = to_lower(full);
  const std::string_view lname = std::string_view(lfull).substr(domain.size() + 2);
  const std::size_t i = index_->first_match(rules_, lname, lfull, name);
  if (i < rules_.size()) {
    if (rule != nullptr) *rule = &rules_[i];
    return rules_[i].target;
  }
  return {RangeRole::Ignore, {}};
}

}  // namespace amdahl::analysis
