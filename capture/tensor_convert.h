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
// Checks the storage bounds first (CheckStorageBounds).
StatusOr<WeightData> WeightFromTensor(const at::Tensor& t);

// Fails unless every element of `t` lies inside its storage (offset and
// extent within the storage's bytes). LibTorch 1.13 loads a .pt whose data
// record is shorter than its tensor, and reading that tensor reads the heap;
// every tensor taken from a model file is checked before anything reads it.
// `what` names it in the message ("parameter self.w").
Status CheckStorageBounds(const at::Tensor& t, const std::string& what);

// Metadata of `t`; `storage_id` identifies its storage.
StatusOr<TensorMeta> MetaFromTensor(const at::Tensor& t, int64_t storage_id);

}  // namespace atenaot
