// The ring all-reduce over abstract Unix-domain sockets (ring_allreduce.hpp).
#include "ring_allreduce.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cmath>
#include <cstring>

#include "pacing.hpp"

namespace amdahl::cpu_pipeline {
namespace {

sockaddr_un abstract_address(const std::string& name, socklen_t& len) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (name.size() + 1 > sizeof addr.sun_path) throw RingError("rendezvous name too long: " + name);
  addr.sun_path[0] = '\0';  // abstract namespace
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return addr;
}

std::string sys_error(const std::string& what) { return what + ": " + std::strerror(errno); }

void write_all(int fd, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::send(fd, c, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw RingError(sys_error("ring send"));
    c += w;
    n -= static_cast<std::size_t>(w);
  }
}

void read_all(int fd, void* p, std::size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t r = ::recv(fd, c, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) throw RingError("ring peer closed the connection");
    if (r < 0) throw RingError(sys_error("ring recv"));
    c += r;
    n -= static_cast<std::size_t>(r);
  }
}

}  // namespace

Chunk ring_chunk(std::size_t n, int world, int c) {
  const auto w = static_cast<std::size_t>(world);
  const auto i = static_cast<std::size_t>(c);
  const std::size_t base = n / w;
  const std::size_t extra = n % w;  // the first `extra` chunks hold one more element
  const std::size_t begin = i * base + std::min(i, extra);
  return {begin, begin + base + (i < extra ? 1 : 0)};
}

Ring::Ring(const std::string& key, int rank, int world, std::int64_t timeout_ms)
    : rank_(rank), world_(world) {
  if (world < 1 || rank < 0 || rank >= world) throw RingError("bad rank/world for the ring");
  if (world == 1) return;
  const int listen_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd < 0) throw RingError(sys_error("socket"));
  try {
    socklen_t len = 0;
    const sockaddr_un me = abstract_address(key + "." + std::to_string(rank), len);
    if (::bind(listen_fd, reinterpret_cast<const sockaddr*>(&me), len) != 0) {
      throw RingError(sys_error("bind " + key + "." + std::to_string(rank) +
                                " (another run with the same rendezvous?)"));
    }
    if (::listen(listen_fd, 4) != 0) throw RingError(sys_error("listen"));

    // Connect to the next rank, retrying until it listens.
    const int next = (rank + 1) % world;
    const sockaddr_un peer = abstract_address(key + "." + std::to_string(next), len);
    const std::int64_t deadline = monotonic_ns() + timeout_ms * 1'000'000;
    for (;;) {
      next_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (next_fd_ < 0) throw RingError(sys_error("socket"));
      if (::connect(next_fd_, reinterpret_cast<const sockaddr*>(&peer), len) == 0) break;
      ::close(next_fd_);
      next_fd_ = -1;
      if (monotonic_ns() > deadline) {
        throw RingError("rank " + std::to_string(rank) + ": rank " + std::to_string(next) +
                        " did not come up within " + std::to_string(timeout_ms) + " ms");
      }
      ::usleep(2000);
    }
    const std::int32_t hello = rank;
    write_all(next_fd_, &hello, sizeof hello);

    // Accept the previous rank.
    pollfd p{listen_fd, POLLIN, 0};
    const std::int64_t left_ms = std::max<std::int64_t>(1, (deadline - monotonic_ns()) / 1'000'000);
    if (::poll(&p, 1, static_cast<int>(left_ms)) <= 0) {
      throw RingError("rank " + std::to_string(rank) + ": the previous rank did not connect");
    }
    prev_fd_ = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (prev_fd_ < 0) throw RingError(sys_error("accept"));
    std::int32_t from = -1;
    read_all(prev_fd_, &from, sizeof from);
    if (from != (rank + world - 1) % world) {
      throw RingError("rank " + std::to_string(rank) + ": expected rank " +
                      std::to_string((rank + world - 1) % world) + ", got " + std::to_string(from));
    }
  } catch (...) {
    ::close(listen_fd);
    if (next_fd_ >= 0) ::close(next_fd_);
    if (prev_fd_ >= 0) ::close(prev_fd_);
    throw;
  }
  ::close(listen_fd);
  for (const int fd : {next_fd_, prev_fd_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

Ring::~Ring() {
  if (next_fd_ >= 0) ::close(next_fd_);
  if (prev_fd_ >= 0) ::close(prev_fd_);
}

void Ring::exchange(const float* send, std::size_t send_n, float* recv, std::size_t recv_n) {
  const char* s = reinterpret_cast<const char*>(send);
  char* r = reinterpret_cast<char*>(recv);
  std::size_t to_send = send_n * sizeof(float);
  std::size_t to_recv = recv_n * sizeof(float);
  while (to_send > 0 || to_recv > 0) {
    pollfd p[2] = {{next_fd_, static_cast<short>(to_send > 0 ? POLLOUT : 0), 0},
                   {prev_fd_, static_cast<short>(to_recv > 0 ? POLLIN : 0), 0}};
    if (::poll(p, 2, 30'000) <= 0) {
      if (errno == EINTR) continue;
      throw RingError("rank " + std::to_string(rank_) + ": ring exchange timed out");
    }
    if (to_send > 0 && (p[0].revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
      const ssize_t w = ::send(next_fd_, s, to_send, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w < 0 && errno != EAGAIN && errno != EINTR) throw RingError(sys_error("ring send"));
      if (w > 0) {
        s += w;
        to_send -= static_cast<std::size_t>(w);
      }
    }
    if (to_recv > 0 && (p[1].revents & (POLLIN | POLLERR | POLLHUP)) != 0) {
      const ssize_t n = ::recv(prev_fd_, r, to_recv, MSG_DONTWAIT);
      if (n == 0) throw RingError("ring peer closed the connection");
      if (n < 0 && errno != EAGAIN && errno != EINTR) throw RingError(sys_error("ring recv"));
      if (n > 0) {
        r += n;
        to_recv -= static_cast<std::size_t>(n);
      }
    }
  }
}

void Ring::allreduce(std::vector<float>& data, double bytes_per_s) {
  if (world_ == 1) return;
  const std::size_t n = data.size();
  std::vector<float> incoming(ring_chunk(n, world_, 0).end);  // chunk 0 is the largest
  // Deadlines chained from the start (as the Pacer's): ring step s ends no earlier than the
  // start plus s + 1 chunks over the bandwidth, so a late wake-up in one step is absorbed by
  // the next instead of adding up over the 2(W-1) steps.
  std::int64_t deadline = monotonic_ns();
  auto pace = [&](std::int64_t, std::size_t elements) {
    if (bytes_per_s <= 0) return;
    deadline += std::llround(static_cast<double>(elements * sizeof(float)) / bytes_per_s * 1e9);
    sleep_until_ns(deadline);
  };
  // Reduce-scatter: after step s, chunk (rank - s - 1) holds the sum over s + 2 ranks.
  for (int s = 0; s < world_ - 1; ++s) {
    const Chunk out = ring_chunk(n, world_, ((rank_ - s) % world_ + world_) % world_);
    const Chunk in = ring_chunk(n, world_, ((rank_ - s - 1) % world_ + world_) % world_);
    const std::int64_t t0 = monotonic_ns();
    exchange(data.data() + out.begin, out.end - out.begin, incoming.data(), in.end - in.begin);
    for (std::size_t i = in.begin; i < in.end; ++i) data[i] += incoming[i - in.begin];
    pace(t0, out.end - out.begin);
  }
  // All-gather: rank r now owns the full sum of chunk (r + 1); pass the sums around.
  for (int s = 0; s < world_ - 1; ++s) {
    const Chunk out = ring_chunk(n, world_, ((rank_ + 1 - s) % world_ + world_) % world_);
    const Chunk in = ring_chunk(n, world_, ((rank_ - s) % world_ + world_) % world_);
    const std::int64_t t0 = monotonic_ns();
    exchange(data.data() + out.begin, out.end - out.begin, data.data() + in.begin,
             in.end - in.begin);
    pace(t0, out.end - out.begin);
  }
}

}  // namespace amdahl::cpu_pipeline
