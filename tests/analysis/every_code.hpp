// The word-for-word check of a variant's sentences (findings, problems): each (value, sentence)
// pair read through `say`, and every alternative of the variant covered, so a new code needs its
// line in the list.
#pragma once

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace amdahl::test {

template <class Variant, class Say>
void check_every_code(const std::vector<std::pair<Variant, std::string>>& expected, Say say) {
  std::set<std::size_t> codes;
  for (const auto& [value, sentence] : expected) {
    codes.insert(value.index());
    CHECK(say(value) == sentence);
  }
  CHECK(codes.size() == std::variant_size_v<Variant>);
}

}  // namespace amdahl::test
