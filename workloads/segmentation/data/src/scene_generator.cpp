// Synthetic scenes: a textured background (class 0) covered by 12-40 random ellipses and
// rectangles; each shape's class fixes its colour family (red, green, blue, yellow) and texture,
// with per-shape brightness jitter and per-pixel noise, so the class is learnable from local
// colour and texture. Also writes/lists the PNG dataset.
#include "amdahl/segmentation/scene_generator.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "amdahl/segmentation/png_codec.hpp"
#include "amdahl/segmentation/random.hpp"

namespace amdahl::segmentation {
namespace {

struct Colour {
  int r, g, b;
};
// Colour family per class; background is a neutral grey-brown.
constexpr std::array<Colour, kNumClasses> kBase{{
    {110, 100, 90}, {200, 50, 45}, {50, 180, 60}, {45, 70, 200}, {210, 200, 40}}};

std::uint8_t clamp_u8(int v) { return static_cast<std::uint8_t>(std::clamp(v, 0, 255)); }

// Paints pixel (x, y) of class c with the shape colour plus a class texture and noise.
inline void paint(Image& rgb, Image& label, int x, int y, int cls, const Colour& c, Rng& noise) {
  std::uint8_t* p = rgb.row(y) + static_cast<std::size_t>(x) * 3;
  const std::uint64_t n = noise.next();
  int tex = 0;
  switch (cls) {
    case 1: tex = ((x + y) / 6 % 2) ? 18 : -18; break;  // diagonal stripes
    case 2: tex = ((x / 8 + y / 8) % 2) ? 14 : -14; break;  // checks
    case 3: tex = (y / 5 % 2) ? 16 : -16; break;  // horizontal stripes
    case 4: tex = 0; break;  // flat
    default: tex = static_cast<int>((n >> 40) & 31) - 16; break;  // background: coarse noise
  }
  const int jitter_r = static_cast<int>(n & 31) - 16;
  const int jitter_g = static_cast<int>((n >> 8) & 31) - 16;
  const int jitter_b = static_cast<int>((n >> 16) & 31) - 16;
  p[0] = clamp_u8(c.r + tex + jitter_r);
  p[1] = clamp_u8(c.g + tex + jitter_g);
  p[2] = clamp_u8(c.b + tex + jitter_b);
  label.row(y)[x] = static_cast<std::uint8_t>(cls);
}

}  // namespace

Scene generate_scene(const SceneConfig& config, std::int64_t index) {
  if (config.width <= 0 || config.height <= 0)
    throw std::invalid_argument("generate_scene: width and height must be positive");
  Scene scene{Image(config.width, config.height, 3), Image(config.width, config.height, 1)};
  Rng rng(mix64(config.seed) ^ mix64(static_cast<std::uint64_t>(index) + 0x51u));
  Rng noise(rng.next());
  const int w = config.width;
  const int h = config.height;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) paint(scene.rgb, scene.label, x, y, 0, kBase[0], noise);

  const int shapes = rng.uniform_int(12, 40);
  const int min_dim = std::min(w, h);
  for (int s = 0; s < shapes; ++s) {
    const int cls = rng.uniform_int(1, kNumClasses - 1);
    const int shade = rng.uniform_int(-30, 30);
    const Colour c{kBase[cls].r + shade, kBase[cls].g + shade, kBase[cls].b + shade};
    const int rx = std::max(2, rng.uniform_int(min_dim / 40, min_dim / 5));
    const int ry = std::max(2, rng.uniform_int(min_dim / 40, min_dim / 5));
    const int cx = rng.uniform_int(0, w - 1);
    const int cy = rng.uniform_int(0, h - 1);
    const bool ellipse = rng.uniform() < 0.5;
    const int x0 = std::max(0, cx - rx), x1 = std::min(w - 1, cx + rx);
    const int y0 = std::max(0, cy - ry), y1 = std::min(h - 1, cy + ry);
    const double irx2 = 1.0 / (static_cast<double>(rx) * rx);
    const double iry2 = 1.0 / (static_cast<double>(ry) * ry);
    for (int y = y0; y <= y1; ++y) {
      const double dy2 = static_cast<double>(y - cy) * (y - cy) * iry2;
      for (int x = x0; x <= x1; ++x) {
        if (ellipse && static_cast<double>(x - cx) * (x - cx) * irx2 + dy2 > 1.0) continue;
        paint(scene.rgb, scene.label, x, y, cls, c, noise);
      }
    }
  }
  return scene;
}

std::filesystem::path image_path(const std::filesystem::path& dir, std::int64_t index) {
  char name[32];
  std::snprintf(name, sizeof name, "img_%06lld.png", static_cast<long long>(index));
  return dir / name;
}

std::filesystem::path label_path(const std::filesystem::path& dir, std::int64_t index) {
  char name[32];
  std::snprintf(name, sizeof name, "lbl_%06lld.png", static_cast<long long>(index));
  return dir / name;
}

namespace {
void write_bytes(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  // Write to a temporary name and rename, so a half-written file is never listed.
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  std::filesystem::rename(tmp, path);
}
}  // namespace

std::uint64_t write_dataset(const std::filesystem::path& dir, int count, const SceneConfig& config,
                            int threads) {
  if (count < 1) throw std::invalid_argument("write_dataset: count must be at least 1");
  std::filesystem::create_directories(dir);
  threads = std::clamp(threads, 1, count);
  std::atomic<std::int64_t> next{0};
  std::atomic<std::uint64_t> bytes{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto worker = [&] {
    try {
      for (std::int64_t i = next++; i < count; i = next++) {
        const Scene scene = generate_scene(config, i);
        const auto img = encode_png(scene.rgb);
        const auto lbl = encode_png(scene.label);
        write_bytes(image_path(dir, i), img);
        write_bytes(label_path(dir, i), lbl);
        bytes += img.size() + lbl.size();
      }
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next = count;  // stop the others
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  return bytes.load();
}

std::vector<DatasetEntry> list_dataset(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error("dataset folder not found: " + dir.string());
  std::vector<DatasetEntry> entries;
  for (std::int64_t i = 0;; ++i) {
    DatasetEntry e{image_path(dir, i), label_path(dir, i)};
    if (!std::filesystem::exists(e.image) || !std::filesystem::exists(e.label)) break;
    entries.push_back(std::move(e));
  }
  if (entries.empty())
    throw std::runtime_error("no img_000000.png/lbl_000000.png pairs in " + dir.string());
  return entries;
}

}  // namespace amdahl::segmentation
