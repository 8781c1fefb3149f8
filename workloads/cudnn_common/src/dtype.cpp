// Mapping between precisions, storage types, cuDNN types and sizes.
#include "amdahl/dnn/dtype.hpp"

namespace amdahl::dnn {

std::optional<Precision> parse_precision(std::string_view text) {
  if (text == "fp32") return Precision::fp32;
  if (text == "tf32") return Precision::tf32;
  if (text == "fp16") return Precision::fp16;
  if (text == "bf16") return Precision::bf16;
  return std::nullopt;
}

const char* to_string(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
  }
  return "?";
}

const char* to_string(DType t) {
  switch (t) {
    case DType::f32: return "float";
    case DType::f16: return "half";
    case DType::bf16: return "bfloat16";
  }
  return "?";
}

DType storage_type(Precision p) {
  switch (p) {
    case Precision::fp16: return DType::f16;
    case Precision::bf16: return DType::bf16;
    default: return DType::f32;
  }
}

cudnnDataType_t cudnn_type(DType t) {
  switch (t) {
    case DType::f16: return CUDNN_DATA_HALF;
    case DType::bf16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
  }
}

std::size_t dtype_size(DType t) { return t == DType::f32 ? 4 : 2; }

bool needs_loss_scaling(Precision p) { return p == Precision::fp16; }

}  // namespace amdahl::dnn
