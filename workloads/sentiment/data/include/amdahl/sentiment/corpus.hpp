// The synthetic review corpus of the sentiment workload: a seeded generator composing reviews
// from positive, negative and neutral word lists with negations, the rule that labels them
// (sum of word polarities, a negation among the two previous words flipping a polar word; the
// review is positive when the sum is > 0), the fixed vocabulary, and tokenisation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace amdahl::sentiment {

struct CorpusConfig {
  std::uint64_t seed = 1;
  std::size_t target_bytes = 16u << 20;  // the corpus is at least this long (one review over)
};

struct Review {
  int label = 0;  // 1 positive, 0 negative
  std::string text;
};

// One review per line: "<label>\t<text>\n". Pure function of the config.
std::string generate_corpus(const CorpusConfig& config);
std::vector<Review> parse_corpus(std::string_view corpus);

// The polarity score of a text under the labelling rule, and the label it implies.
int polarity_score(std::string_view text);
inline int label_of(std::string_view text) { return polarity_score(text) > 0 ? 1 : 0; }

// Splits on spaces and punctuation (punctuation marks become tokens), lower-case input assumed.
std::vector<std::string_view> split_words(std::string_view text);

// Every word the generator can emit, plus <pad> = 0 and <unk> = 1.
class Vocabulary {
 public:
  Vocabulary();
  static constexpr std::int32_t kPad = 0;
  static constexpr std::int32_t kUnk = 1;
  std::int32_t id(std::string_view word) const;
  std::size_t size() const { return words_.size(); }
  const std::string& word(std::int32_t id) const { return words_.at(static_cast<std::size_t>(id)); }

 private:
  std::vector<std::string> words_;
  std::unordered_map<std::string, std::int32_t> ids_;
};

// Reviews as a dense [count x seq_len] matrix of token ids (truncated / padded with kPad).
struct TokenizedCorpus {
  int seq_len = 0;
  std::size_t count = 0;
  std::vector<std::int32_t> tokens;
  std::vector<std::int32_t> labels;
};
TokenizedCorpus tokenize_corpus(const std::vector<Review>& reviews, const Vocabulary& vocab,
                                int seq_len);

}  // namespace amdahl::sentiment
