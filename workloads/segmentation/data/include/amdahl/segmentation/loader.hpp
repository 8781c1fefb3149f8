// The segmentation input pipeline: N loader threads read PNG pairs from disk (disk_io), decode,
// random-crop and normalise them into NHWC batches (cpu_preprocess), and hand them to the
// training thread through a bounded prefetch queue. Batch buffers come from a fixed pool
// allocated through a caller-supplied allocator (pinned memory in the CUDA workload).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "amdahl/segmentation/bounded_queue.hpp"
#include "amdahl/segmentation/pipeline_observer.hpp"
#include "amdahl/segmentation/scene_generator.hpp"

namespace amdahl::segmentation {

enum class PixelFormat { f32, f16 };

struct LoaderConfig {
  std::vector<DatasetEntry> files;
  int batch_size = 8;
  int crop_width = 512;
  int crop_height = 512;
  int threads = 1;
  int queue_depth = 2;
  PixelFormat format = PixelFormat::f32;
  std::uint64_t seed = 1;
  std::int64_t total_batches = -1;  // batches to produce; < 0 = until stop()
};

struct BufferAllocator {
  std::function<void*(std::size_t)> allocate;
  std::function<void(void*)> release;
};
// operator new / delete.
BufferAllocator heap_allocator();

// One batch: images NHWC (batch x crop_h x crop_w x 3, float or half bits), labels NHW uint8.
struct Batch {
  std::int64_t id = -1;   // queue order: 0, 1, 2, ...
  std::int64_t job = -1;  // which sample draw filled it (content is a pure function of job)
  void* pixels = nullptr;
  std::uint8_t* labels = nullptr;
  std::size_t pixel_bytes = 0;
  std::size_t label_bytes = 0;
  int slot = -1;  // index in the buffer pool; hand the batch back with recycle()
};

// Fills a batch's buffers for sample draw `job`: reads, decodes and crops batch_size images
// chosen by (seed, job). Reports disk_io / cpu_preprocess to the observer. Throws on I/O or
// decode errors.
void fill_batch(const LoaderConfig& config, std::int64_t job, Batch& batch,
                PipelineObserver* observer);

// Reads a whole file into memory; throws std::runtime_error with the path on failure.
std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path);

class Loader {
 public:
  Loader(LoaderConfig config, BufferAllocator allocator, PipelineObserver* observer = nullptr);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  // Next batch in queue order; nullopt when total_batches were delivered or after stop().
  // Rethrows a loader thread's error.
  std::optional<Batch> next();
  // Returns a batch's buffers to the pool once the consumer no longer needs them.
  void recycle(const Batch& batch);
  void stop();

  const LoaderConfig& config() const { return config_; }

 private:
  void run(int index);

  LoaderConfig config_;
  BufferAllocator allocator_;
  PipelineObserver* observer_;
  std::vector<Batch> pool_;
  BoundedQueue<Batch> ready_;
  BoundedQueue<int> free_slots_;
  std::atomic<std::int64_t> next_job_{0};
  std::atomic<int> running_{0};
  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace amdahl::segmentation
