// Loader threads: draw a batch job, read its files (disk_io), decode + crop + normalise into a
// pooled buffer (cpu_preprocess), put it on the bounded queue; the training thread takes them.
#include "amdahl/segmentation/loader.hpp"

#include <fstream>
#include <stdexcept>

#include "amdahl/segmentation/crop.hpp"
#include "amdahl/segmentation/png_codec.hpp"
#include "amdahl/segmentation/random.hpp"

namespace amdahl::segmentation {

BufferAllocator heap_allocator() {
  return BufferAllocator{[](std::size_t n) { return ::operator new(n); },
                         [](void* p) { ::operator delete(p); }};
}

std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  const std::streamsize size = in.tellg();
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size))
    throw std::runtime_error("cannot read " + path.string());
  return bytes;
}

namespace {
struct StageScope {
  PipelineObserver* observer;
  Stage stage;
  StageScope(PipelineObserver* o, Stage s) : observer(o), stage(s) {
    if (observer) observer->stage_begin(stage);
  }
  ~StageScope() {
    if (observer) observer->stage_end(stage);
  }
  StageScope(const StageScope&) = delete;
  StageScope& operator=(const StageScope&) = delete;
};

// Forwards only the wait ranges: the free-buffer list's ids are not pipeline items.
struct WaitOnly final : PipelineObserver {
  PipelineObserver* inner;
  explicit WaitOnly(PipelineObserver* o) : inner(o) {}
  void wait_begin() override {
    if (inner) inner->wait_begin();
  }
  void wait_end() override {
    if (inner) inner->wait_end();
  }
};

void validate(const LoaderConfig& c) {
  if (c.files.empty()) throw std::invalid_argument("loader: no files");
  if (c.batch_size < 1 || c.crop_width < 1 || c.crop_height < 1 || c.threads < 1 ||
      c.queue_depth < 1)
    throw std::invalid_argument("loader: batch size, crop, threads and queue depth must be >= 1");
}
}  // namespace

void fill_batch(const LoaderConfig& config, std::int64_t job, Batch& batch,
                PipelineObserver* observer) {
  const std::size_t b = static_cast<std::size_t>(config.batch_size);
  Rng rng(mix64(config.seed) ^ mix64(static_cast<std::uint64_t>(job) * 2 + 1));
  std::vector<std::size_t> picks(b);
  std::vector<std::uint64_t> crop_seeds(b);
  for (std::size_t i = 0; i < b; ++i) {
    picks[i] = static_cast<std::size_t>(rng.next() % config.files.size());
    crop_seeds[i] = rng.next();
  }
  std::vector<std::vector<std::uint8_t>> image_bytes(b), label_bytes(b);
  {
    StageScope scope(observer, Stage::disk_io);
    for (std::size_t i = 0; i < b; ++i) {
      image_bytes[i] = read_file_bytes(config.files[picks[i]].image);
      label_bytes[i] = read_file_bytes(config.files[picks[i]].label);
    }
  }
  StageScope scope(observer, Stage::cpu_preprocess);
  const std::size_t pixels_per_image =
      static_cast<std::size_t>(config.crop_width) * config.crop_height;
  for (std::size_t i = 0; i < b; ++i) {
    const Image rgb = decode_png(image_bytes[i]);
    const Image label = decode_png(label_bytes[i]);
    const CropWindow win =
        choose_crop(rgb.width, rgb.height, config.crop_width, config.crop_height, crop_seeds[i]);
    std::uint8_t* lbl = batch.labels + i * pixels_per_image;
    if (config.format == PixelFormat::f32)
      crop_normalise(rgb, label, win, static_cast<float*>(batch.pixels) + i * pixels_per_image * 3,
                     lbl);
    else
      crop_normalise_half(rgb, label, win,
                          static_cast<std::uint16_t*>(batch.pixels) + i * pixels_per_image * 3, lbl);
  }
  batch.job = job;
}

Loader::Loader(LoaderConfig config, BufferAllocator allocator, PipelineObserver* observer)
    : config_(std::move(config)),
      allocator_(std::move(allocator)),
      observer_(observer),
      ready_((validate(config_), static_cast<std::size_t>(config_.queue_depth))),
      free_slots_(static_cast<std::size_t>(config_.queue_depth + config_.threads + 2)) {
  // Pool: queue_depth batches queued + one per loader thread in flight + two held by the
  // consumer (the one being copied and the one in use), so a loader never waits for a buffer.
  const int pool_size = config_.queue_depth + config_.threads + 2;
  const std::size_t pixels =
      static_cast<std::size_t>(config_.batch_size) * config_.crop_width * config_.crop_height;
  const std::size_t value_bytes = config_.format == PixelFormat::f32 ? 4 : 2;
  try {
    for (int s = 0; s < pool_size; ++s) {
      Batch b;
      b.slot = s;
      b.pixel_bytes = pixels * 3 * value_bytes;
      b.label_bytes = pixels;
      b.pixels = allocator_.allocate(b.pixel_bytes);
      b.labels = static_cast<std::uint8_t*>(allocator_.allocate(b.label_bytes));
      pool_.push_back(b);
      free_slots_.put(s);
    }
  } catch (...) {
    for (auto& b : pool_) {
      allocator_.release(b.pixels);
      allocator_.release(b.labels);
    }
    throw;
  }
  running_ = config_.threads;
  for (int t = 0; t < config_.threads; ++t) threads_.emplace_back([this, t] { run(t); });
}

Loader::~Loader() {
  stop();
  for (auto& b : pool_) {
    allocator_.release(b.pixels);
    allocator_.release(b.labels);
  }
}

void Loader::run(int index) {
  if (observer_) observer_->thread_started(index);
  WaitOnly waits(observer_);
  try {
    for (;;) {
      const std::int64_t job = next_job_++;
      if (config_.total_batches >= 0 && job >= config_.total_batches) break;
      auto slot = free_slots_.take(&waits);
      if (!slot) break;  // stopped
      Batch batch = pool_[static_cast<std::size_t>(slot->value)];
      fill_batch(config_, job, batch, observer_);
      auto id = ready_.put(batch, observer_);
      if (!id) break;  // stopped
    }
  } catch (...) {
    std::lock_guard lock(error_mutex_);
    if (!error_) error_ = std::current_exception();
  }
  if (--running_ == 0) ready_.close();  // the last loader out ends the stream
}

std::optional<Batch> Loader::next() {
  auto item = ready_.take(observer_);
  if (!item) {
    std::lock_guard lock(error_mutex_);
    if (error_) std::rethrow_exception(error_);
    return std::nullopt;
  }
  item->value.id = item->id;
  return item->value;
}

void Loader::recycle(const Batch& batch) {
  if (batch.slot < 0 || batch.slot >= static_cast<int>(pool_.size()))
    throw std::invalid_argument("loader: recycle of a batch that is not from this pool");
  free_slots_.put(batch.slot);
}

void Loader::stop() {
  ready_.close();
  free_slots_.close();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

}  // namespace amdahl::segmentation
