// Scene generator: deterministic per (seed, index), differs across seeds and indices, labels in
// range with every class present over a few scenes; dataset writing is thread-count independent.
#include <doctest/doctest.h>

#include <array>
#include <filesystem>
#include <unistd.h>

#include "amdahl/segmentation/loader.hpp"
#include "amdahl/segmentation/png_codec.hpp"
#include "amdahl/segmentation/scene_generator.hpp"

using namespace amdahl::segmentation;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir(const char* tag) {
  fs::path d = fs::temp_directory_path() /
               ("amdahl_seg_" + std::string(tag) + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}
}  // namespace

TEST_CASE("generate_scene is deterministic and varies with seed and index") {
  const SceneConfig cfg{160, 96, 42};
  const Scene a = generate_scene(cfg, 3);
  const Scene b = generate_scene(cfg, 3);
  CHECK(a.rgb.pixels == b.rgb.pixels);
  CHECK(a.label.pixels == b.label.pixels);
  CHECK(generate_scene(cfg, 4).rgb.pixels != a.rgb.pixels);
  CHECK(generate_scene(SceneConfig{160, 96, 43}, 3).rgb.pixels != a.rgb.pixels);
  std::array<long, kNumClasses> counts{};
  for (int i = 0; i < 6; ++i) {
    const Scene s = generate_scene(cfg, i);
    CHECK(s.rgb.channels == 3);
    CHECK(s.label.channels == 1);
    for (auto v : s.label.pixels) {
      REQUIRE(v < kNumClasses);
      ++counts[v];
    }
  }
  for (long c : counts) CHECK(c > 0);
}

TEST_CASE("class colour is learnable: mean red/green/blue separate the classes") {
  const Scene s = generate_scene(SceneConfig{256, 128, 5}, 0);
  std::array<std::array<double, 3>, kNumClasses> sum{};
  std::array<long, kNumClasses> n{};
  for (std::size_t p = 0; p < s.label.pixels.size(); ++p) {
    const int c = s.label.pixels[p];
    ++n[c];
    for (int k = 0; k < 3; ++k) sum[c][k] += s.rgb.pixels[p * 3 + k];
  }
  if (n[1] > 0) CHECK(sum[1][0] / n[1] > sum[1][2] / n[1] + 60);  // red family
  if (n[2] > 0) CHECK(sum[2][1] / n[2] > sum[2][0] / n[2] + 60);  // green family
  if (n[3] > 0) CHECK(sum[3][2] / n[3] > sum[3][0] / n[3] + 60);  // blue family
}

TEST_CASE("write_dataset output does not depend on the thread count") {
  const fs::path d1 = temp_dir("t1"), d4 = temp_dir("t4");
  const SceneConfig cfg{96, 64, 9};
  const auto bytes1 = write_dataset(d1, 5, cfg, 1);
  const auto bytes4 = write_dataset(d4, 5, cfg, 4);
  CHECK(bytes1 == bytes4);
  const auto entries = list_dataset(d4);
  REQUIRE(entries.size() == 5);
  for (int i = 0; i < 5; ++i) {
    CHECK(read_file_bytes(image_path(d1, i)) == read_file_bytes(image_path(d4, i)));
    CHECK(read_file_bytes(label_path(d1, i)) == read_file_bytes(label_path(d4, i)));
    const Image img = decode_png(read_file_bytes(entries[i].image));
    CHECK(img.pixels == generate_scene(cfg, i).rgb.pixels);
  }
  CHECK_THROWS(list_dataset(d1 / "missing"));
  fs::remove_all(d1);
  fs::remove_all(d4);
}
