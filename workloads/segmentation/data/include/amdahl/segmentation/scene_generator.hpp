// Deterministic synthetic segmentation scenes (random coloured, textured shapes on a textured
// background, the class of each pixel fixed by the colour family of the shape covering it) and
// the on-disk dataset made of them: DIR/img_NNNNNN.png (RGB) + DIR/lbl_NNNNNN.png (class ids).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "amdahl/segmentation/image.hpp"

namespace amdahl::segmentation {

inline constexpr int kNumClasses = 5;  // 0 = background, 1..4 = shape classes

struct SceneConfig {
  int width = 2048;
  int height = 1024;
  std::uint64_t seed = 1;
};

struct Scene {
  Image rgb;    // 3 channels
  Image label;  // 1 channel, values in [0, kNumClasses)
};

// Scene `index` of the dataset seeded by config.seed; a pure function of (config, index).
Scene generate_scene(const SceneConfig& config, std::int64_t index);

struct DatasetEntry {
  std::filesystem::path image;
  std::filesystem::path label;
};

std::filesystem::path image_path(const std::filesystem::path& dir, std::int64_t index);
std::filesystem::path label_path(const std::filesystem::path& dir, std::int64_t index);

// Writes `count` scenes as PNG pairs into dir (created if needed) using `threads` threads.
// Returns the total number of bytes written. Output is identical for any thread count.
std::uint64_t write_dataset(const std::filesystem::path& dir, int count, const SceneConfig& config,
                            int threads);

// Lists the complete image/label pairs in dir, sorted by index. Throws std::runtime_error when
// the folder is missing or holds no pair.
std::vector<DatasetEntry> list_dataset(const std::filesystem::path& dir);

}  // namespace amdahl::segmentation
