// GPU layers of the sentiment CNN that amdahl::dnn does not have, all fp32 and enqueued on the
// given stream: embedding lookup (+ scatter-add gradient), the unfold / fold pair that turns a
// 1-D convolution into one GEMM (conv1d = unfold then amdahl::dnn::Linear), and max-over-time
// pooling (+ its gradient through the saved argmax).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace amdahl::sentiment {

// out[b, t, :] = table[tokens[b, t], :]   (tokens [batch, len], table [vocab, dim])
void embedding_forward(const std::int32_t* tokens, const float* table, float* out, int batch,
                       int len, int dim, cudaStream_t stream);
// dtable (zeroed here) += scatter of dout by token.
void embedding_backward(const std::int32_t* tokens, const float* dout, float* dtable, int batch,
                        int len, int vocab, int dim, cudaStream_t stream);

// Unfold x [batch, len, dim] into cols [batch * len, kernel * dim] for a "same" 1-D conv of odd
// width `kernel` (zero padding (kernel - 1) / 2 each side): cols[b*len+t, j*dim+c] =
// x[b, t + j - pad, c] (0 outside).
void unfold1d(const float* x, float* cols, int batch, int len, int dim, int kernel,
              cudaStream_t stream);
// The adjoint: dx [batch, len, dim] (overwritten) = sum of dcols over the windows holding it.
void fold1d(const float* dcols, float* dx, int batch, int len, int dim, int kernel,
            cudaStream_t stream);

// y[b, f] = max over t of x[b, t, f]; argmax[b, f] = that t.  x [batch, len, filters].
void max_over_time_forward(const float* x, float* y, int* argmax, int batch, int len, int filters,
                           cudaStream_t stream);
// dx (overwritten) = dy routed to the argmax positions.
void max_over_time_backward(const float* dy, const int* argmax, float* dx, int batch, int len,
                            int filters, cudaStream_t stream);

// correct += number of rows whose argmax over logits [rows, classes] equals labels[row].
void count_correct(const float* logits, const int* labels, int rows, int classes,
                   unsigned long long* correct, cudaStream_t stream);

}  // namespace amdahl::sentiment
