// Conversions between LibTorch tensors and the LibTorch-free data types of the
// core: .npy arrays, weight data, tensor metadata and dtypes.
#pragma once

#include <ATen/Tensor.h>

#include "io/npy.h"
#include "ir/graph.h"

namespace atenaot {

StatusOr<DType> DTypeFromAten(c10::ScalarType t);
c10::ScalarType AtenFromDType(DType t);

// A fresh tensor owning a copy of the array's data (Fortran order kept as strides).
at::Tensor TensorFromNpy(const NpyArray& a);
// Contiguous copy of `t` as an array. Fails for dtypes .npy cannot hold.
StatusOr<NpyArray> NpyFromTensor(const at::Tensor& t);

at::Tensor TensorFromWeight(const WeightData& w);
StatusOr<WeightData> WeightFromTensor(const at::Tensor& t);

// Metadata of `t`; `storage_id` identifies its storage.
StatusOr<TensorMeta> MetaFromTensor(const at::Tensor& t, int64_t storage_id);

}  // namespace atenaot
