// Sentiment corpus: deterministic, about the target size, balanced labels that agree with the
// labelling rule, vocabulary covers every generated word, tokenisation pads and truncates.
#include <doctest/doctest.h>

#include <stdexcept>

#include "amdahl/sentiment/corpus.hpp"

using namespace amdahl::sentiment;

TEST_CASE("corpus is deterministic per seed and reaches the target size") {
  const CorpusConfig cfg{7, 1u << 20};
  const std::string a = generate_corpus(cfg);
  CHECK(a == generate_corpus(cfg));
  CHECK(a != generate_corpus(CorpusConfig{8, 1u << 20}));
  CHECK(a.size() >= cfg.target_bytes);
  CHECK(a.size() < cfg.target_bytes + 2000);  // at most one review over
}

TEST_CASE("labels are balanced and follow the labelling rule") {
  const auto reviews = parse_corpus(generate_corpus(CorpusConfig{3, 2u << 20}));
  REQUIRE(reviews.size() > 1000);
  std::size_t positive = 0, mixed = 0;
  const Vocabulary vocab;
  for (const auto& r : reviews) {
    REQUIRE(r.label == label_of(r.text));
    positive += static_cast<std::size_t>(r.label);
    for (auto w : split_words(r.text)) REQUIRE(vocab.id(w) != Vocabulary::kUnk);
    if (r.text.find("not ") != std::string::npos || r.text.find("never ") != std::string::npos)
      ++mixed;
  }
  const double share = static_cast<double>(positive) / static_cast<double>(reviews.size());
  CHECK(share > 0.47);
  CHECK(share < 0.53);
  CHECK(mixed > reviews.size() / 4);  // negations are common, so word counting alone fails
}

TEST_CASE("labelling rule handles negation") {
  CHECK(polarity_score("the movie was great .") == 1);
  CHECK(polarity_score("the movie was not great .") == -1);
  CHECK(polarity_score("the movie was not very great .") == -1);
  CHECK(polarity_score("i found the plot never boring .") == 1);
  CHECK(label_of("the plot was dull . the cast was good .") == 0);  // score 0 is negative
}

TEST_CASE("full-size corpus is about 16 MB") {
  const std::string corpus = generate_corpus(CorpusConfig{});
  CHECK(corpus.size() >= (16u << 20));
  CHECK(corpus.size() < (16u << 20) + 2000);
}

TEST_CASE("tokenize_corpus pads, truncates and maps words") {
  const Vocabulary vocab;
  std::vector<Review> reviews{{1, "the movie was great ."}, {0, "zzz bad"}};
  const auto t = tokenize_corpus(reviews, vocab, 4);
  CHECK(t.count == 2);
  CHECK(t.tokens.size() == 8);
  CHECK(t.tokens[0] == vocab.id("the"));
  CHECK(t.tokens[3] == vocab.id("great"));  // "." truncated
  CHECK(t.tokens[4] == Vocabulary::kUnk);
  CHECK(t.tokens[5] == vocab.id("bad"));
  CHECK(t.tokens[6] == Vocabulary::kPad);
  CHECK(t.labels == std::vector<std::int32_t>{1, 0});
  CHECK_THROWS_AS(parse_corpus("2\tbad line\n"), std::runtime_error);
}
