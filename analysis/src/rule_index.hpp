// Internal to amdahl_analysis: an index over a rule list that finds the first rule matching a
// name without trying every rule. Literal patterns are looked up in a hash map, `LIT*` and
// `*LIT` patterns by the name's prefixes and suffixes of the lengths such patterns have, `*LIT*`
// by the name's substrings of those lengths (or, for a long name, one search per such rule);
// only the other patterns are tried one by one, in order, and only until a rule found earlier
// in the list wins. 5 000 rules x 20 000 names: docs/reliability.md, class 6.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "amdahl/analysis/stage_rules.hpp"

namespace amdahl::analysis::detail {

class RuleIndex {
 public:
  explicit RuleIndex(const std::vector<StageRule>& rules);
  // The index of the first rule that matches `lname` or `lfull` (both lower-cased; word rules
  // against `words`, computed on demand), or rules.size() when none does.
  std::size_t first_match(const std::vector<StageRule>& rules, std::string_view lname, std::string_view lfull,
                          std::string_view name) const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  using Map = std::unordered_map<std::string, std::size_t, Hash, std::equal_to<>>;
  struct Affix {
    Map first;                       // literal part -> lowest rule index
    std::vector<std::size_t> sizes;  // distinct literal lengths, ascending
  };
  static void add(Map& m, std::string key, std::size_t i);
  static std::size_t lookup(const Map& m, std::string_view key);
  std::size_t affix_match(const Affix& a, std::string_view s, bool prefix) const;
  std::size_t contains_match(std::string_view s, std::size_t best) const;

  Map literal_;
  Affix prefix_, suffix_, contains_;
  std::vector<std::pair<std::size_t, std::string>> contains_list_;  // (rule, literal), in order
  std::vector<std::size_t> general_;  // every other rule (word rules included), in order
};

}  // namespace amdahl::analysis::detail
