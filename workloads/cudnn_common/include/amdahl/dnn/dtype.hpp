// Precisions a workload can train in, and the storage data types they imply.
//   fp32: float storage, FMA math only (no TF32 anywhere).
//   tf32: float storage, tensor-core TF32 math in convolutions and GEMMs.
//   fp16: half activations and weights (fp32 master weights), fp32 accumulation, loss scaling.
//   bf16: bfloat16 activations and weights (fp32 master weights), fp32 accumulation.
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <optional>
#include <string_view>

namespace amdahl::dnn {

enum class Precision { fp32, tf32, fp16, bf16 };
enum class DType { f32, f16, bf16 };

std::optional<Precision> parse_precision(std::string_view text);
const char* to_string(Precision p);
const char* to_string(DType t);

// The data type activations and compute copies of weights are stored in.
DType storage_type(Precision p);
cudnnDataType_t cudnn_type(DType t);
std::size_t dtype_size(DType t);
// True when fp16 dynamic loss scaling is needed.
bool needs_loss_scaling(Precision p);

}  // namespace amdahl::dnn
