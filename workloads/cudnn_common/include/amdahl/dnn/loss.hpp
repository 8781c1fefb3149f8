// Softmax cross-entropy over fp32 logits [N, K] with int32 labels: adds the batch-mean loss to a
// device scalar and writes dlogits = (softmax - onehot) / N * scale, where scale is read from a
// device pointer (the fp16 loss scale) or is 1 when the pointer is null.
#pragma once

#include "amdahl/dnn/context.hpp"

namespace amdahl::dnn {

void softmax_cross_entropy(Context& ctx, const float* logits, const int* labels, int batch,
                           int classes, float* dlogits, float* loss_accum,
                           const float* grad_scale);

}  // namespace amdahl::dnn
