#pragma once
// The DataLoader's worker processes are not in a torch.profiler trace: only the training
// thread's waits for their batches (`enumerate(DataLoader)#_MultiProcessingDataLoaderIter
// .__next__`) are. When the training thread waits for most batches, the workers are the
// bottleneck, and a wait alone (replayed as work of its own length) puts the critical path
// through the training thread instead of through the loading. This infers a loader lane from
// the waits (docs/analysis.md, "Kineto import: the inferred loader lane"):
//  - a batch whose __next__ waited (longer than `min_wait_ns`) was handed over when the wait
//    ended; the pool was producing it since it handed over the previous batch: a range from the
//    previous hand-off to this one, with a `produce` mark at its end;
//  - a batch that was ready when asked was produced no later than the previous hand-off: a
//    `produce` mark there, no range (the first batches, before any wait: at the first call,
//    the prefetch burst, which the analysis's steady-state window then leaves out);
//  - each __next__ ends with a `consume` mark of its batch.
// Only when the loading is the bottleneck: after the first call, at least one call in 8 waited
// (N workers hand batches over in bursts: one wait per N calls) and the waits add up to a tenth
// or more of the time from the first call's end to the last's. Otherwise (the GPU or the
// training thread is the bottleneck; rare waits are jitter) nothing is inferred and the waits
// stay what they are.
#include <cstdint>
#include <vector>

namespace amdahl::kineto {

struct LoaderCall {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

struct InferredLoaderLane {
  bool inferred = false;     // false: the loading was not the bottleneck; nothing below
  std::size_t waited = 0;    // calls after the first that waited longer than min_wait_ns
  struct Batch {
    std::int64_t start_ns = 0, end_ns = 0;  // a range (only for waited batches)
    std::int64_t item = 0;
  };
  std::vector<Batch> ranges;                          // production ranges
  std::vector<std::pair<std::int64_t, std::int64_t>> produces;  // (ts, item)
  std::vector<std::pair<std::int64_t, std::int64_t>> consumes;  // (ts, item)
};

// calls: the training thread's multi-process __next__ calls, sorted by start, not overlapping.
InferredLoaderLane infer_loader_lane(const std::vector<LoaderCall>& calls, std::int64_t min_wait_ns = 1'000'000);

}  // namespace amdahl::kineto
