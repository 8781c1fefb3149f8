// A real ring all-reduce between the rank processes of cpu_pipeline: each rank connects to the
// next one over an abstract Unix-domain stream socket ("<key>.<rank>", no files to clean up)
// and accepts the previous one; a sum all-reduce is a reduce-scatter then an all-gather,
// 2(W-1) ring steps each sending one chunk (1/W of the buffer) to the next rank while receiving
// one from the previous. Optionally paced to a link bandwidth, so the transfer time is known.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace amdahl::cpu_pipeline {

class RingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The chunk [begin, end) of element range [0, n) that ring position `c` of `world` owns.
struct Chunk {
  std::size_t begin = 0;
  std::size_t end = 0;
};
Chunk ring_chunk(std::size_t n, int world, int c);

class Ring {
 public:
  // Blocks until both neighbours are connected (at most `timeout_ms`), else throws RingError.
  // world 1: no sockets, every all-reduce returns at once.
  Ring(const std::string& key, int rank, int world, std::int64_t timeout_ms = 30'000);
  ~Ring();
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  // In place: every rank ends with the element-wise sum over the ranks. `bytes_per_s` > 0 makes
  // ring step s end no earlier than
  // the start plus the s + 1 chunks sent so far over bytes_per_s (a sleep after a faster transfer).
  void allreduce(std::vector<float>& data, double bytes_per_s);

  int rank() const noexcept { return rank_; }
  int world() const noexcept { return world_; }

 private:
  // Sends `send` to the next rank while receiving `recv` from the previous one.
  void exchange(const float* send, std::size_t send_n, float* recv, std::size_t recv_n);

  int rank_;
  int world_;
  int next_fd_ = -1;  // connected to rank + 1
  int prev_fd_ = -1;  // accepted from rank - 1
};

}  // namespace amdahl::cpu_pipeline
