// Loader: delivers exactly total_batches in id order, batch content depends only on the job,
// stage/wait/produce/consume hooks are reported in a consistent order, and errors surface.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <unistd.h>

#include "amdahl/segmentation/crop.hpp"
#include "amdahl/segmentation/half.hpp"
#include "amdahl/segmentation/loader.hpp"

using namespace amdahl::segmentation;
namespace fs = std::filesystem;

namespace {
struct Recorder : PipelineObserver {
  std::mutex m;
  std::map<Stage, int> begun, ended;
  std::vector<std::int64_t> produced_ids, consumed_ids;
  void stage_begin(Stage s) override {
    std::lock_guard l(m);
    ++begun[s];
  }
  void stage_end(Stage s) override {
    std::lock_guard l(m);
    ++ended[s];
  }
  void produced(std::int64_t id) override {
    std::lock_guard l(m);
    produced_ids.push_back(id);
  }
  void consumed(std::int64_t id) override {
    std::lock_guard l(m);
    consumed_ids.push_back(id);
  }
};

struct Dataset {
  fs::path dir;
  Dataset() {
    dir = fs::temp_directory_path() / ("amdahl_loader_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    write_dataset(dir, 4, SceneConfig{80, 48, 3}, 2);
  }
  ~Dataset() { fs::remove_all(dir); }
};

LoaderConfig small_config(const fs::path& dir, int threads) {
  LoaderConfig c;
  c.files = list_dataset(dir);
  c.batch_size = 3;
  c.crop_width = 32;
  c.crop_height = 16;
  c.threads = threads;
  c.queue_depth = 2;
  c.seed = 11;
  c.total_batches = 9;
  return c;
}
}  // namespace

TEST_CASE("loader delivers every batch once, ids in order, content fixed by the job") {
  Dataset data;
  std::map<std::int64_t, std::vector<std::uint8_t>> labels_by_job_1, labels_by_job_3;
  for (int threads : {1, 3}) {
    Recorder rec;
    Loader loader(small_config(data.dir, threads), heap_allocator(), &rec);
    std::set<std::int64_t> jobs;
    for (std::int64_t expect = 0;; ++expect) {
      auto batch = loader.next();
      if (!batch) {
        CHECK(expect == 9);
        break;
      }
      CHECK(batch->id == expect);
      CHECK(batch->label_bytes == 3u * 32 * 16);
      CHECK(batch->pixel_bytes == 3u * 32 * 16 * 3 * sizeof(float));
      CHECK(jobs.insert(batch->job).second);
      const auto* lbl = batch->labels;
      auto& by_job = threads == 1 ? labels_by_job_1 : labels_by_job_3;
      by_job[batch->job].assign(lbl, lbl + batch->label_bytes);
      for (std::size_t i = 0; i < batch->label_bytes; ++i) REQUIRE(lbl[i] < kNumClasses);
      const float* px = static_cast<const float*>(batch->pixels);
      for (std::size_t i = 0; i < batch->pixel_bytes / 4; ++i) {
        REQUIRE(px[i] >= (0.0f - kMean) / kStd - 1e-5f);
        REQUIRE(px[i] <= (1.0f - kMean) / kStd + 1e-5f);
      }
      loader.recycle(*batch);
    }
    CHECK(jobs.size() == 9);
    loader.stop();
    CHECK(rec.begun[Stage::disk_io] == 9);
    CHECK(rec.ended[Stage::cpu_preprocess] == 9);
    CHECK(rec.produced_ids.size() == 9);
    CHECK(rec.consumed_ids == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8});
  }
  CHECK(labels_by_job_1 == labels_by_job_3);
}

TEST_CASE("fill_batch in half precision matches the float batch") {
  Dataset data;
  LoaderConfig c = small_config(data.dir, 1);
  const std::size_t values = 3u * 32 * 16 * 3;
  std::vector<float> f(values);
  std::vector<std::uint16_t> h(values);
  std::vector<std::uint8_t> l1(3u * 32 * 16), l2(l1.size());
  Batch bf{0, 0, f.data(), l1.data(), values * 4, l1.size(), 0};
  fill_batch(c, 5, bf, nullptr);
  c.format = PixelFormat::f16;
  Batch bh{0, 0, h.data(), l2.data(), values * 2, l2.size(), 0};
  fill_batch(c, 5, bh, nullptr);
  CHECK(l1 == l2);
  for (std::size_t i = 0; i < values; ++i)
    REQUIRE(half_to_float(h[i]) == doctest::Approx(f[i]).epsilon(1e-3));
}

TEST_CASE("a missing file surfaces as an error from next()") {
  Dataset data;
  LoaderConfig c = small_config(data.dir, 2);
  c.files.push_back(DatasetEntry{data.dir / "nope.png", data.dir / "nope_lbl.png"});
  c.files.erase(c.files.begin(), c.files.begin() + 4);  // only the missing pair is left
  Loader loader(c, heap_allocator());
  CHECK_THROWS_WITH_AS(
      [&] {
        while (auto b = loader.next()) loader.recycle(*b);
      }(),
      doctest::Contains("cannot open"), std::runtime_error);
  CHECK_THROWS_AS(Loader(LoaderConfig{}, heap_allocator()), std::invalid_argument);
}
