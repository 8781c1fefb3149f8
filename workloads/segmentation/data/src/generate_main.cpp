// segmentation_gen: writes the synthetic segmentation dataset (PNG image + label map pairs).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <thread>

#include <CLI/CLI.hpp>

#include "amdahl/segmentation/scene_generator.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Generate the synthetic segmentation dataset (deterministic for a given seed)"};
  std::string dir;
  int images = 200;
  amdahl::segmentation::SceneConfig config;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  app.add_option("--generate,-o,dir", dir, "output folder")->required();
  app.add_option("--images,-n", images, "number of image/label pairs")->check(CLI::PositiveNumber);
  app.add_option("--width", config.width, "image width")->check(CLI::PositiveNumber);
  app.add_option("--height", config.height, "image height")->check(CLI::PositiveNumber);
  app.add_option("--seed", config.seed, "generator seed");
  app.add_option("--threads,-j", threads, "generator threads")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const auto bytes = amdahl::segmentation::write_dataset(dir, images, config, threads);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("segmentation_gen: %d images %dx%d, %.1f MB in %s (%.1f s, %d threads)\n", images,
                config.width, config.height, static_cast<double>(bytes) / 1e6, dir.c_str(), s,
                threads);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "segmentation_gen: %s\n", e.what());
    return 2;
  }
  return 0;
}
