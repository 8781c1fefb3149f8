// sentiment: trains the 1-D CNN text classifier on the generated ~16 MB review corpus. The
// corpus is generated and tokenised once (cpu_preprocess), uploaded once (h2d), and every step
// trains on a slice of it already on the GPU (gpu_compute): GPU bound by design.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <numeric>
#include <random>
#include <string>

#include <CLI/CLI.hpp>

#include "amdahl/dnn/check.hpp"
#include "amdahl/dnn/context.hpp"
#include "amdahl/sentiment/corpus.hpp"
#include "amdahl/sentiment/text_cnn.hpp"
#include "amdahl/annotate/stages.hpp"

namespace snt = amdahl::sentiment;
namespace dnn = amdahl::dnn;
namespace wl = amdahl::annotate;

namespace {

struct Options {
  int steps = 300;
  int warmup = 20;
  int batch = 256;
  int seq_len = 128;
  std::string precision = "fp32";
  float lr = 0.05f;
  std::uint64_t seed = 1;
  double corpus_mb = 16.0;
  int print_every = 100;
};

int run(const Options& o) {
  if (o.precision != "fp32") {
    std::fprintf(stderr, "sentiment: only --precision fp32 is supported\n");
    return 1;
  }
  if (dnn::cuda_device_count() == 0) {
    std::fprintf(stderr, "sentiment: no CUDA device\n");
    return 2;
  }
  const snt::Vocabulary vocab;
  snt::TokenizedCorpus data;
  std::size_t corpus_bytes = 0;
  {
    wl::Range r(wl::Stage::cpu_preprocess);
    const std::string corpus = snt::generate_corpus(
        snt::CorpusConfig{o.seed, static_cast<std::size_t>(o.corpus_mb * 1024 * 1024)});
    corpus_bytes = corpus.size();
    auto reviews = snt::parse_corpus(corpus);
    std::mt19937_64 rng(o.seed);
    std::shuffle(reviews.begin(), reviews.end(), rng);
    data = snt::tokenize_corpus(reviews, vocab, o.seq_len);
  }
  const std::size_t n = data.count;
  const std::size_t held_out = n / 10;
  const std::size_t train = n - held_out;
  const std::size_t train_batches = train / static_cast<std::size_t>(o.batch);
  if (train_batches < 1 || held_out < static_cast<std::size_t>(o.batch)) {
    std::fprintf(stderr, "sentiment: corpus too small for batch size %d\n", o.batch);
    return 1;
  }

  dnn::Context ctx(dnn::Precision::fp32);
  snt::TextCnnConfig cfg;
  cfg.batch = o.batch;
  cfg.seq_len = o.seq_len;
  cfg.vocab = static_cast<int>(vocab.size());
  cfg.seed = o.seed;
  snt::TextCnn model(ctx, cfg);
  dnn::DeviceBuffer tokens(data.tokens.size() * sizeof(std::int32_t));
  dnn::DeviceBuffer labels(data.labels.size() * sizeof(std::int32_t));
  {
    wl::Range r(wl::Stage::h2d);
    AMDAHL_CUDA(cudaMemcpyAsync(tokens.get(), data.tokens.data(), tokens.bytes(),
                                cudaMemcpyHostToDevice, ctx.stream()));
    AMDAHL_CUDA(cudaMemcpyAsync(labels.get(), data.labels.data(), labels.bytes(),
                                cudaMemcpyHostToDevice, ctx.stream()));
    ctx.synchronize();
  }
  std::printf("sentiment: %.1f MB corpus, %zu reviews (%zu train, %zu held out), vocab %zu, "
              "batch %d, seq-len %d, %zu parameters\n",
              static_cast<double>(corpus_bytes) / 1e6, n, train, held_out, vocab.size(), o.batch,
              o.seq_len, model.parameter_count());

  const auto* tok = tokens.as<std::int32_t>();
  const auto* lab = labels.as<int>();
  cudaEvent_t done[2];
  for (auto& e : done) AMDAHL_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  auto t_start = std::chrono::steady_clock::now();
  for (int step = 0; step < o.warmup + o.steps; ++step) {
    if (step == o.warmup) {
      ctx.synchronize();
      model.reset_metrics();
      t_start = std::chrono::steady_clock::now();
    }
    auto step_range = wl::step_range();
    const std::size_t row = (static_cast<std::size_t>(step) % train_batches) * o.batch;
    {
      wl::Range r(wl::Stage::gpu_compute);
      model.train_step(tok + row * o.seq_len, lab + row, o.lr);
      AMDAHL_CUDA(cudaEventRecord(done[step % 2], ctx.stream()));
    }
    // Keep at most one step queued ahead of the GPU.
    if (step > 0) AMDAHL_CUDA(cudaEventSynchronize(done[(step + 1) % 2]));
    if (o.print_every > 0 && step >= o.warmup && (step - o.warmup + 1) % o.print_every == 0) {
      const int k = step - o.warmup + 1;
      std::printf("step %d: mean loss %.4f, accuracy %.3f\n", k, model.loss_sum() / k,
                  static_cast<double>(model.correct()) / (static_cast<double>(k) * o.batch));
    }
  }
  ctx.synchronize();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  const float loss = model.loss_sum() / static_cast<float>(o.steps);
  const double acc = static_cast<double>(model.correct()) / (static_cast<double>(o.steps) * o.batch);

  // Held-out accuracy (forward only, outside the measured window).
  model.reset_metrics();
  const std::size_t eval_batches = held_out / static_cast<std::size_t>(o.batch);
  for (std::size_t b = 0; b < eval_batches; ++b) {
    const std::size_t r0 = train + b * o.batch;
    model.forward_loss(tok + r0 * o.seq_len, lab + r0);
  }
  const double eval_acc = static_cast<double>(model.correct()) /
                          (static_cast<double>(eval_batches) * o.batch);
  std::printf("sentiment: %.1f sequences/s, loss %.4f, accuracy %.3f, held-out accuracy %.3f "
              "(%d steps, %.2f s)\n",
              o.steps * o.batch / seconds, loss, acc, eval_acc, o.steps, seconds);
  for (auto& e : done) cudaEventDestroy(e);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train a 1-D CNN sentiment classifier on a generated corpus (instrumented)"};
  Options o;
  app.add_option("--steps", o.steps, "measured steps")->check(CLI::PositiveNumber);
  app.add_option("--warmup-steps", o.warmup)->check(CLI::NonNegativeNumber);
  app.add_option("--batch-size", o.batch)->check(CLI::PositiveNumber);
  app.add_option("--seq-len", o.seq_len)->check(CLI::PositiveNumber);
  app.add_option("--precision", o.precision, "fp32 (the only one)");
  app.add_option("--lr", o.lr);
  app.add_option("--seed", o.seed);
  app.add_option("--corpus-mb", o.corpus_mb, "corpus size in MiB")->check(CLI::PositiveNumber);
  app.add_option("--print-every", o.print_every, "print loss every N steps (0: only at the end)");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sentiment: %s\n", e.what());
    return 2;
  }
}
