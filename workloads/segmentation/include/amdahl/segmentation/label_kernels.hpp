// GPU kernels of the segmentation workload: widening uint8 label maps to int32, and the
// per-pixel softmax cross-entropy (one thread per pixel, which suits few classes and millions
// of rows; amdahl::dnn's softmax_cross_entropy spends a block per row).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace amdahl::segmentation {

void widen_labels(const std::uint8_t* src, int* dst, std::size_t n, cudaStream_t stream);
// For every row r (pixel) of fp32 logits [rows, classes] with label labels[r]:
//   dlogits[r, k] = (softmax(logits[r])_k - [k == label]) * scale / rows,
// loss_accum += mean over rows of -log softmax(logits[r])_label, correct += pixels whose argmax
// is the label. scale is read from grad_scale (device) or is 1 when it is null. Labels outside
// [0, classes) make the loss NaN.
void pixel_softmax_xent(const float* logits, const int* labels, std::size_t rows, int classes,
                        float* dlogits, float* loss_accum, unsigned long long* correct,
                        const float* grad_scale, cudaStream_t stream);
// correct += number of rows r in [0, rows) whose argmax over logits[r, 0..classes) == labels[r].
void count_correct(const float* logits, const int* labels, std::size_t rows, int classes,
                   unsigned long long* correct, cudaStream_t stream);

}  // namespace amdahl::segmentation
