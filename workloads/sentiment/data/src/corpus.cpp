// Review generator, labelling rule, vocabulary and tokeniser of the sentiment corpus.
#include "amdahl/sentiment/corpus.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace amdahl::sentiment {
namespace {

constexpr std::array<std::string_view, 24> kPositive{
    "good",   "great",    "excellent", "wonderful", "superb",    "brilliant",
    "lovely", "enjoyable", "delightful", "charming", "fantastic", "moving",
    "fun",    "clever",   "beautiful", "gripping",  "touching",  "loved",
    "liked",  "enjoyed",  "admired",   "recommend", "masterful", "perfect"};
constexpr std::array<std::string_view, 24> kNegative{
    "bad",    "awful",   "terrible", "boring",   "dull",     "poor",
    "weak",   "clumsy",  "tedious",  "annoying", "horrible", "bland",
    "messy",  "silly",   "painful",  "lifeless", "forgettable", "hated",
    "disliked", "regretted", "wasted", "avoid",   "pointless", "ugly"};
constexpr std::array<std::string_view, 4> kNegators{"not", "never", "hardly", "barely"};
constexpr std::array<std::string_view, 16> kNouns{
    "movie", "film",   "plot",    "acting", "script", "ending", "cast",  "director",
    "score", "pacing", "dialogue", "story", "camera", "effects", "sequel", "premise"};
constexpr std::array<std::string_view, 6> kIntensifiers{"very", "really", "truly",
                                                          "quite", "so", "rather"};
constexpr std::array<std::string_view, 20> kNeutral{
    "we",     "watched", "it",     "on",     "a",      "sunday", "with",   "friends",
    "there",  "is",      "some",   "music",  "and",    "the",    "cinema", "was",
    "crowded", "tickets", "cost",  "ten"};
constexpr std::array<std::string_view, 8> kExtra{"this", "i", "found", "to", "be", "that",
                                                 "."  , ","};

class Rng {  // xorshift64* seeded through splitmix64
 public:
  explicit Rng(std::uint64_t seed) {
    seed += 0x9E3779B97F4A7C15ull;
    seed = (seed ^ (seed >> 30)) * 0xBF58476D1CE4E5B9ull;
    seed = (seed ^ (seed >> 27)) * 0x94D049BB133111EBull;
    s_ = (seed ^ (seed >> 31)) | 1u;
  }
  std::uint64_t next() {
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 0x2545F4914F6CDD1Dull;
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1p-53 < p; }
  template <class A>
  std::string_view pick(const A& a) { return a[below(a.size())]; }

 private:
  std::uint64_t s_;
};

int word_polarity(std::string_view w) {
  if (std::find(kPositive.begin(), kPositive.end(), w) != kPositive.end()) return 1;
  if (std::find(kNegative.begin(), kNegative.end(), w) != kNegative.end()) return -1;
  return 0;
}
bool is_negator(std::string_view w) {
  return std::find(kNegators.begin(), kNegators.end(), w) != kNegators.end();
}

// Appends one sentence with the given polarity contribution (+1, -1, or 0 = neutral).
void sentence(Rng& rng, int polarity, std::string& out) {
  auto add = [&](std::string_view w) {
    if (!out.empty() && out.back() != ' ') out += ' ';
    out += w;
  };
  if (polarity == 0) {  // neutral filler: no polar words, no negators
    const std::size_t n = 4 + rng.below(6);
    for (std::size_t i = 0; i < n; ++i) add(rng.pick(kNeutral));
    add(".");
    return;
  }
  const bool negate = rng.chance(0.3);
  // A negated word of the opposite list contributes `polarity`.
  const int word_sign = negate ? -polarity : polarity;
  const auto& words = word_sign > 0 ? kPositive : kNegative;
  switch (rng.below(3)) {
    case 0:
      add("the");
      add(rng.pick(kNouns));
      add("was");
      if (negate) add(rng.pick(kNegators));
      if (rng.chance(0.5)) add(rng.pick(kIntensifiers));
      add(rng.pick(words));
      break;
    case 1:
      add("i");
      add("found");
      add("the");
      add(rng.pick(kNouns));
      if (negate) add(rng.pick(kNegators));
      add(rng.pick(words));
      break;
    default:
      add("this");
      add(rng.pick(kNouns));
      add("is");
      if (negate) add(rng.pick(kNegators));
      add(rng.pick(words));
      add(",");
      add("i");
      add("think");
      break;
  }
  add(".");
}

}  // namespace

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      ++i;
    } else if (c == '.' || c == ',' || c == '!' || c == '?') {
      words.push_back(text.substr(i, 1));
      ++i;
    } else {
      std::size_t j = i;
      while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\n' &&
             text[j] != '.' && text[j] != ',' && text[j] != '!' && text[j] != '?')
        ++j;
      words.push_back(text.substr(i, j - i));
      i = j;
    }
  }
  return words;
}

int polarity_score(std::string_view text) {
  const auto words = split_words(text);
  int score = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    int p = word_polarity(words[i]);
    if (p == 0) continue;
    if ((i >= 1 && is_negator(words[i - 1])) || (i >= 2 && is_negator(words[i - 2]))) p = -p;
    score += p;
  }
  return score;
}

std::string generate_corpus(const CorpusConfig& config) {
  Rng rng(config.seed);
  std::string corpus;
  corpus.reserve(config.target_bytes + 1024);
  std::string text;
  while (corpus.size() < config.target_bytes) {
    const int label = rng.chance(0.5) ? 1 : 0;
    const int sign = label ? 1 : -1;
    text.clear();
    int score = 0;
    const std::size_t sentences = 3 + rng.below(7);
    for (std::size_t s = 0; s < sentences; ++s) {
      int pol = 0;
      if (!rng.chance(0.35)) pol = rng.chance(0.7) ? sign : -sign;
      sentence(rng, pol, text);
      score += pol;
    }
    while ((label == 1 && score <= 0) || (label == 0 && score > 0)) {
      sentence(rng, sign, text);
      score += sign;
    }
    corpus += label ? '1' : '0';
    corpus += '\t';
    corpus += text;
    corpus += '\n';
  }
  return corpus;
}

std::vector<Review> parse_corpus(std::string_view corpus) {
  std::vector<Review> reviews;
  std::size_t pos = 0;
  while (pos < corpus.size()) {
    std::size_t end = corpus.find('\n', pos);
    if (end == std::string_view::npos) end = corpus.size();
    const std::string_view line = corpus.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    if (line.size() < 2 || (line[0] != '0' && line[0] != '1') || line[1] != '\t')
      throw std::runtime_error("corpus line does not start with '<0|1>\\t'");
    reviews.push_back(Review{line[0] - '0', std::string(line.substr(2))});
  }
  return reviews;
}

Vocabulary::Vocabulary() {
  auto add = [&](std::string_view w) {
    if (ids_.count(std::string(w))) return;
    ids_.emplace(std::string(w), static_cast<std::int32_t>(words_.size()));
    words_.emplace_back(w);
  };
  add("<pad>");
  add("<unk>");
  for (auto w : kPositive) add(w);
  for (auto w : kNegative) add(w);
  for (auto w : kNegators) add(w);
  for (auto w : kNouns) add(w);
  for (auto w : kIntensifiers) add(w);
  for (auto w : kNeutral) add(w);
  for (auto w : kExtra) add(w);
  add("think");
}

std::int32_t Vocabulary::id(std::string_view word) const {
  const auto it = ids_.find(std::string(word));
  return it == ids_.end() ? kUnk : it->second;
}

TokenizedCorpus tokenize_corpus(const std::vector<Review>& reviews, const Vocabulary& vocab,
                                int seq_len) {
  if (seq_len < 1) throw std::invalid_argument("seq_len must be at least 1");
  TokenizedCorpus out;
  out.seq_len = seq_len;
  out.count = reviews.size();
  out.tokens.assign(reviews.size() * static_cast<std::size_t>(seq_len), Vocabulary::kPad);
  out.labels.reserve(reviews.size());
  for (std::size_t r = 0; r < reviews.size(); ++r) {
    const auto words = split_words(reviews[r].text);
    const std::size_t n = std::min(words.size(), static_cast<std::size_t>(seq_len));
    for (std::size_t i = 0; i < n; ++i)
      out.tokens[r * static_cast<std::size_t>(seq_len) + i] = vocab.id(words[i]);
    out.labels.push_back(reviews[r].label);
  }
  return out;
}

}  // namespace amdahl::sentiment
