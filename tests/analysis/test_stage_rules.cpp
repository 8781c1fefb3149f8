// Stage mapping: glob syntax, the amdahl domain, defaults, user rules first, rule-file errors.
#include <doctest/doctest.h>

#include <string>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/stage_rules.hpp"

using namespace amdahl::analysis;

TEST_CASE("glob matching") {
  CHECK(glob_match("*load*", "DataLoader"));
  CHECK(glob_match("data?", "data1"));
  CHECK_FALSE(glob_match("data?", "data"));
  CHECK(glob_match("batch_[0-9]", "batch_7"));
  CHECK_FALSE(glob_match("batch_[!0-9]", "batch_7"));
  CHECK(glob_match("*", ""));
  CHECK(glob_match("a*b*c", "axxbyyc"));
  CHECK_FALSE(glob_match("a*b*c", "axxbyy"));
  CHECK(glob_match("torch::*", "torch::forward"));
}

TEST_CASE("domain amdahl: names are stages; step and wait are special") {
  StageRules rules;
  CHECK(rules.classify("amdahl", "disk_io").role == RangeRole::Stage);
  CHECK(rules.classify("amdahl", "disk_io").stage == "disk_io");
  CHECK(rules.classify("amdahl", "tokenize").stage == "tokenize");  // a user stage
  CHECK(rules.classify("amdahl", "step").role == RangeRole::Step);
  CHECK(rules.classify("amdahl", "wait").role == RangeRole::Wait);
  StageRules custom({}, "iteration");
  CHECK(custom.classify("amdahl", "iteration").role == RangeRole::Step);
  CHECK(custom.classify("amdahl", "step").role == RangeRole::Stage);
}

TEST_CASE("default rules for other domains") {
  StageRules rules;
  auto st = [&](const char* name) {
    auto c = rules.classify("", name);
    return c.role == RangeRole::Stage ? c.stage : std::string(c.role == RangeRole::Step ? "<step>"
                                                              : c.role == RangeRole::Wait ? "<wait>" : "<ignore>");
  };
  CHECK(st("gpu_compute") == "gpu_compute");
  CHECK(st("step") == "<step>");
  CHECK(st("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__") == "disk_io");
  CHECK(st("load_batch") == "disk_io");
  CHECK(st("read_io") == "disk_io");
  CHECK(st("collate") == "cpu_preprocess");
  CHECK(st("transform") == "cpu_preprocess");
  CHECK(st("forward") == "gpu_compute");
  CHECK(st("backward") == "gpu_compute");
  CHECK(st("optimizer.step") == "gpu_compute");
  CHECK(st("memcpy") == "h2d");
  CHECK(st("to_device") == "h2d");
  CHECK(st("copy_batch") == "<ignore>");  // a bare copy says nothing of where it copies
  CHECK(st("copy_to_device") == "h2d");
  CHECK(st("x.cuda()") == "h2d");
  CHECK(st("DataLoader") == "disk_io");
  CHECK(st("FileReader") == "disk_io");
  CHECK(st("readBatch") == "disk_io");
  CHECK(st("memcpy_dtoh") == "d2h");
  CHECK(st("nccl:all_reduce") == "communication");
  CHECK(st("aten::copy_") == "<ignore>");
  CHECK(st("ratio") == "<ignore>");
  CHECK(st("something else") == "<ignore>");
}

TEST_CASE("default keywords match whole words, not substrings (issue 19)") {
  StageRules rules;
  auto st = [&](const char* name) {
    auto c = rules.classify("", name);
    return c.role == RangeRole::Stage ? c.stage : std::string("<ignore>");
  };
  // Names that bare substrings sent to a loading or copy stage.
  CHECK(st("join worker thread") == "<ignore>");  // *read*
  CHECK(st("upload_metrics") == "<ignore>");      // *load*
  CHECK(st("ema weight copy") == "<ignore>");     // *copy*
  CHECK(st("metadata_update") == "<ignore>");     // *data*
  CHECK(st("spread_scores") == "<ignore>");       // *read*
  CHECK(st("profile") == "<ignore>");             // *file*
  // The words still match.
  CHECK(st("upload data") == "disk_io");
  CHECK(st("reader thread") == "disk_io");
  CHECK(st("Normalize") == "cpu_preprocess");
  CHECK(st("lossBackward") == "gpu_compute");
  // The deciding rule is reported.
  const StageRule* rule = nullptr;
  rules.classify("", "read_batch", &rule);
  REQUIRE(rule != nullptr);
  CHECK(rule->words);
  CHECK(rule->source == "default (word 'read')");
  CHECK(word_form("loadBatch(x)") == "_load_batch_x_");
  CHECK(word_form("DataLoader") == "_data_loader_");
}

TEST_CASE("user rules win, first match wins, domain::name patterns") {
  auto user = parse_stage_rules(
      "# my rules\n"
      "\n"
      "mylib::*load*   -> tokenize   # a user stage\n"
      "enumerate(DataLoader)#* -> wait\n"
      "*load*          -> cpu_preprocess\n"
      "*load*          -> disk_io\n"
      "noise*          -> ignore\n",
      "rules.txt");
  REQUIRE(user.size() == 5);
  CHECK(user[0].source == "rules.txt:3");
  StageRules rules(user);
  CHECK(rules.classify("mylib", "load_x").stage == "tokenize");
  CHECK(rules.classify("other", "load_x").stage == "cpu_preprocess");
  CHECK(rules.classify("", "enumerate(DataLoader)#_Iter.__next__").role == RangeRole::Wait);
  CHECK(rules.classify("", "noise_data").role == RangeRole::Ignore);
  CHECK(rules.classify("", "forward").stage == "gpu_compute");  // defaults still apply
  CHECK(rules.classify("amdahl", "load").stage == "load");      // domain amdahl not remapped
}

TEST_CASE("rule-file syntax errors name the line") {
  auto error_of = [](const char* text) {
    try {
      parse_stage_rules(text, "r.txt");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("a -> disk_io\nno arrow here\n").rfind("r.txt:2:", 0) == 0);
  CHECK(error_of("\n\n -> disk_io").rfind("r.txt:3:", 0) == 0);
  CHECK(error_of("x ->").rfind("r.txt:1:", 0) == 0);
  CHECK(error_of("x -> two words").rfind("r.txt:1:", 0) == 0);
  CHECK(error_of("x -> a -> b").rfind("r.txt:1:", 0) == 0);
  CHECK(error_of("x -> other").rfind("r.txt:1:", 0) == 0);
  CHECK(error_of("# ok\nx[ab -> disk_io").rfind("r.txt:2:", 0) == 0);
  CHECK(error_of("# only a comment\n   \n") == "no error");
}

// Issue 18, class 6: rule matching goes through an index (literal, NAME*, *NAME looked up; the
// rest tried in order). Whatever the shapes, the rule it finds is the first rule in the list
// that glob_match accepts for the name or domain::name, as a plain scan finds it.
TEST_CASE("the rule index finds the same first matching rule as trying every rule in order") {
  const std::vector<std::string> patterns = {
      "load",  "load*",  "*load", "*load*", "lo?d*", "l[a-o]ad", "mylib::*", "*::load", "read_batch", "read*",
      "*batch", "ba*ch", "x",    "*",      "read",  "mylib::read*", "*_x", "step", "Load*", "*[0-9]"};
  // The last two are long enough for the `*LIT*` rules' search instead of their lookup.
  const std::vector<std::string> names = {"load", "Load_x", "preload", "loader", "read_batch", "read", "batch",
                                          "x",    "step1",  "",        "lood",   "LOAD9",      "bitch", "mylib",
                                          std::string(std::size_t{1} << 20, 'q') + "LoAd",
                                          std::string(std::size_t{1} << 20, 'q') + "_x"};
  std::string text;
  for (std::size_t i = 0; i < patterns.size(); ++i) text += patterns[i] + " -> s" + std::to_string(i) + "\n";
  const auto user = parse_stage_rules(text, "rules.txt");
  // Every rotation of the list, so each shape comes first somewhere.
  for (std::size_t rot = 0; rot < user.size(); ++rot) {
    std::vector<StageRule> rs(user.begin() + static_cast<std::ptrdiff_t>(rot), user.end());
    rs.insert(rs.end(), user.begin(), user.begin() + static_cast<std::ptrdiff_t>(rot));
    const StageRules rules(rs);
    for (const std::string domain : {"", "mylib"}) {
      for (const std::string& name : names) {
        CAPTURE(rot);
        CAPTURE(domain);
        CAPTURE(name.substr(0, 40));
        const std::string full = domain + "::" + name;
        const StageRule* expect = nullptr;
        for (const StageRule& r : rules.rules()) {
          const bool hit = r.words ? glob_match(r.pattern, word_form(name))
                                   : glob_match(r.pattern, name) || glob_match(r.pattern, full);
          if (hit) {
            expect = &r;
            break;
          }
        }
        const StageRule* got = nullptr;
        const RangeClass c = rules.classify(domain, name, &got);
        CHECK(got == expect);
        if (expect != nullptr) CHECK(c.stage == expect->target.stage);
      }
    }
  }
}
