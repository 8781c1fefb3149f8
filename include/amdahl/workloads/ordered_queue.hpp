// Forwarding header, kept for one release (issue 22, step 5): the annotation API moved to
// amdahl/annotate/ordered_queue.hpp and its namespace to amdahl::annotate. Include that header instead;
// this one and the amdahl::workloads names will be removed in the release after.
#pragma once

#include "amdahl/annotate/ordered_queue.hpp"

namespace amdahl::workloads {
using namespace amdahl::annotate;  // amdahl::workloads::Range etc. still name the moved API
}  // namespace amdahl::workloads
