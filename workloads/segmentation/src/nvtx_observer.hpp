// PipelineObserver implemented with the amdahl NVTX stage helpers: stage ranges on the loader
// threads, `wait` ranges around blocked queue operations, produce/consume marks with batch ids.
#pragma once

#include <string>

#include "amdahl/segmentation/pipeline_observer.hpp"
#include "amdahl/annotate/stages.hpp"

namespace amdahl::segmentation {

class NvtxObserver final : public PipelineObserver {
 public:
  void thread_started(int loader_index) override {
    annotate::name_this_thread(("loader-" + std::to_string(loader_index)).c_str());
  }
  void stage_begin(Stage s) override {
    annotate::detail::push(s == Stage::disk_io ? annotate::detail::Name::disk_io
                                                : annotate::detail::Name::cpu_preprocess);
  }
  void stage_end(Stage) override { nvtxDomainRangePop(annotate::domain()); }
  void wait_begin() override { annotate::detail::push(annotate::detail::Name::wait); }
  void wait_end() override { nvtxDomainRangePop(annotate::domain()); }
  void produced(std::int64_t id) override { annotate::produce(id); }
  void consumed(std::int64_t id) override { annotate::consume(id); }
};

}  // namespace amdahl::segmentation
