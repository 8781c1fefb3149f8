#include "kineto_loader_lane.hpp"

#include <algorithm>

namespace amdahl::kineto {

InferredLoaderLane infer_loader_lane(const std::vector<LoaderCall>& calls, std::int64_t min_wait_ns) {
  InferredLoaderLane lane;
  // Waits after the first call (which also waits for the workers to start).
  std::int64_t waited_ns = 0;
  for (std::size_t i = 1; i < calls.size(); ++i)
    if (calls[i].end_ns - calls[i].start_ns > min_wait_ns) {
      ++lane.waited;
      waited_ns += calls[i].end_ns - calls[i].start_ns;
    }
  if (calls.size() < 8) return lane;
  const std::int64_t span = calls.back().end_ns - calls.front().end_ns;
  // The bottleneck: the training thread waits regularly (N workers hand over in bursts of up to
  // N: one wait in N calls) and the waits are a tenth of its time or more.
  if (8 * lane.waited < calls.size() - 1 || span <= 0 || 10 * waited_ns < span) return lane;
  lane.inferred = true;
  std::int64_t handed = calls.front().start_ns;  // the previous hand-off (the first call for the burst)
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const auto item = static_cast<std::int64_t>(i);
    const LoaderCall& c = calls[i];
    if (c.end_ns - c.start_ns > min_wait_ns) {
      const std::int64_t from = std::min(handed, c.start_ns);
      lane.ranges.push_back({from, c.end_ns, item});
      handed = c.end_ns;
    }
    lane.produces.emplace_back(handed, item);  // waited: at its end; ready: no later than the last hand-off
    lane.consumes.emplace_back(c.end_ns, item);
  }
  return lane;
}

}  // namespace amdahl::kineto
