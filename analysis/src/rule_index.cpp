// RuleIndex: first matching rule by hash lookups, then the remaining glob rules in order
// (rule_index.hpp).
#include "rule_index.hpp"

#include <algorithm>

namespace amdahl::analysis::detail {
namespace {

bool wild(char c) { return c == '*' || c == '?' || c == '['; }
bool has_wild(std::string_view s) { return std::any_of(s.begin(), s.end(), wild); }

}  // namespace

void RuleIndex::add(Map& m, std::string key, std::size_t i) { m.try_emplace(std::move(key), i); }

std::size_t RuleIndex::lookup(const Map& m, std::string_view key) {
  const auto it = m.find(key);
  return it == m.end() ? static_cast<std::size_t>(-1) : it->second;
}

RuleIndex::RuleIndex(const std::vector<StageRule>& rules) {
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const std::string_view p = rules[i].pattern;  // lower-cased by the parser
    if (rules[i].words || p.empty()) {
      general_.push_back(i);
    } else if (!has_wild(p)) {
      add(literal_, std::string(p), i);
    } else if (p.size() >= 2 && p.back() == '*' && !has_wild(p.substr(0, p.size() - 1))) {
      add(prefix_.first, std::string(p.substr(0, p.size() - 1)), i);
      prefix_.sizes.push_back(p.size() - 1);
    } else if (p.size() >= 3 && p.front() == '*' && p.back() == '*' && !has_wild(p.substr(1, p.size() - 2))) {
      add(contains_.first, std::string(p.substr(1, p.size() - 2)), i);
      contains_.sizes.push_back(p.size() - 2);
      contains_list_.emplace_back(i, std::string(p.substr(1, p.size() - 2)));
    } else if (p.size() >= 2 && p.front() == '*' && !has_wild(p.substr(1))) {
      add(suffix_.first, std::string(p.substr(1)), i);
      suffix_.sizes.push_back(p.size() - 1);
    } else {
      general_.push_back(i);
    }
  }
  for (Affix* a : {&prefix_, &suffix_, &contains_}) {
    std::sort(a->sizes.begin(), a->sizes.end());
    a->sizes.erase(std::unique(a->sizes.begin(), a->sizes.end()), a->sizes.end());
  }
}

std::size_t RuleIndex::affix_match(const Affix& a, std::string_view s, bool prefix) const {
  std::size_t best = static_cast<std::size_t>(-1);
  for (const std::size_t n : a.sizes) {
    if (n > s.size()) break;
    best = std::min(best, lookup(a.first, prefix ? s.substr(0, n) : s.substr(s.size() - n)));
  }
  return best;
}

// `*LIT*` rules: every substring of `s` of a length such a literal has, looked up; for a long
// name (more than 2^20 window positions in all) each rule's literal searched for instead, in
// rule order, until `best`. Only `s` = domain::name is searched: the name is a substring of it.
std::size_t RuleIndex::contains_match(std::string_view s, std::size_t best) const {
  std::size_t windows = 0;
  for (const std::size_t n : contains_.sizes) windows += n <= s.size() ? s.size() - n + 1 : 0;
  if (windows <= (std::size_t{1} << 20)) {
    for (const std::size_t n : contains_.sizes) {
      if (n > s.size()) break;
      for (std::size_t at = 0; at + n <= s.size(); ++at) best = std::min(best, lookup(contains_.first, s.substr(at, n)));
    }
    return best;
  }
  for (const auto& [i, lit] : contains_list_) {
    if (i >= best) break;
    if (s.find(lit) != std::string_view::npos) return i;
  }
  return best;
}

std::size_t RuleIndex::first_match(const std::vector<StageRule>& rules, std::string_view lname,
                                   std::string_view lfull, std::string_view name) const {
  std::size_t best = std::min(lookup(literal_, lname), lookup(literal_, lfull));
  if (!prefix_.sizes.empty()) best = std::min({best, affix_match(prefix_, lname, true), affix_match(prefix_, lfull, true)});
  if (!suffix_.sizes.empty())
    best = std::min({best, affix_match(suffix_, lname, false), affix_match(suffix_, lfull, false)});
  if (!contains_.sizes.empty()) best = contains_match(lfull, best);
  std::string words;
  for (const std::size_t i : general_) {
    if (i >= best) break;  // a rule earlier in the list already matched
    const StageRule& r = rules[i];
    bool hit = false;
    if (r.words) {
      if (words.empty()) words = word_form(name);
      hit = glob_match(r.pattern, words);
    } else {
      hit = glob_match(r.pattern, lname) || glob_match(r.pattern, lfull);
    }
    if (hit) {
      best = i;
      break;
    }
  }
  return std::min(best, rules.size());
}

}  // namespace amdahl::analysis::detail
