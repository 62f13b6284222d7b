#include "capture/tensor_convert.h"

#include <ATen/ATen.h>

#include <cstring>

namespace atenaot {

StatusOr<DType> DTypeFromAten(c10::ScalarType t) {
  auto d = DTypeFromAtenCode(static_cast<int>(t));
  if (!d) return Unsupported(std::string("tensor dtype ") + c10::toString(t) + " is not supported");
  return *d;
}

c10::ScalarType AtenFromDType(DType t) { return static_cast<c10::ScalarType>(AtenScalarTypeCode(t)); }

at::Tensor TensorFromNpy(const NpyArray& a) {
  std::vector<int64_t> strides = a.Strides();
  at::Tensor t = at::empty_strided(a.shape, strides, at::TensorOptions().dtype(AtenFromDType(a.dtype)));
  if (!a.data.empty()) std::memcpy(t.data_ptr(), a.data.data(), a.data.size());
  return t;
}

StatusOr<NpyArray> NpyFromTensor(const at::Tensor& t) {
  AOT_ASSIGN_OR_RETURN(DType d, DTypeFromAten(t.scalar_type()));
  NpyArray a;
  a.dtype = d;
  a.shape = t.sizes().vec();
  at::Tensor c = t.contiguous();
  a.data.resize(static_cast<size_t>(c.numel() * c.element_size()));
  if (!a.data.empty()) std::memcpy(a.data.data(), c.data_ptr(), a.data.size());
  return a;
}

at::Tensor TensorFromWeight(const WeightData& w) {
  at::Tensor t = at::empty(w.meta.sizes, at::TensorOptions().dtype(AtenFromDType(w.meta.dtype)));
  if (!w.bytes.empty()) std::memcpy(t.data_ptr(), w.bytes.data(), w.bytes.size());
  return t;
}

Status CheckStorageBounds(const at::Tensor& t, const std::string& what) {
  if (!t.defined() || t.layout() != at::kStrided || !t.has_storage() || t.numel() == 0) return Status::Ok();
  // Elements reach from storage_offset to the last index; widths in 128 bits
  // so hostile sizes and strides cannot wrap.
  __int128 last = t.storage_offset(), first = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) {
    const __int128 reach = static_cast<__int128>(t.size(d) - 1) * t.stride(d);
    if (reach > 0)
      last += reach;
    else
      first += reach;
  }
  const __int128 need = (last + 1) * static_cast<__int128>(t.element_size());
  const __int128 have = static_cast<__int128>(t.storage().nbytes());
  if (first >= 0 && need <= have) return Status::Ok();
  return InvalidArgument(what + " (" + std::to_string(t.numel()) + " elements of " +
                         std::string(c10::toString(t.scalar_type())) + ") needs " +
                         std::to_string(static_cast<long long>(need)) + " bytes of storage, but its data record has " +
                         std::to_string(static_cast<long long>(have)) + ": the file is truncated or corrupt");
}

StatusOr<WeightData> WeightFromTensor(const at::Tensor& t) {
  AOT_RETURN_IF_ERROR(CheckStorageBounds(t, "a tensor constant"));
  AOT_ASSIGN_OR_RETURN(DType d, DTypeFromAten(t.scalar_type()));
  WeightData w;
  w.meta.dtype = d;
  w.meta.sizes = t.sizes().vec();
  w.meta.strides = ContiguousStrides(w.meta.sizes);
  at::Tensor c = t.contiguous();
  w.bytes.resize(static_cast<size_t>(c.numel() * c.element_size()));
  if (!w.bytes.empty()) std::memcpy(w.bytes.data(), c.data_ptr(), w.bytes.size());
  return w;
}

StatusOr<TensorMeta> MetaFromTensor(const at::Tensor& t, int64_t storage_id) {
  if (!t.device().is_cpu()) return Unsupported("only CPU tensors can be captured, got " + t.device().str());
  if (t.layout() != at::kStrided) return Unsupported("only strided (dense) tensors are supported");
  TensorMeta m;
  AOT_ASSIGN_OR_RETURN(m.dtype, DTypeFromAten(t.scalar_type()));
  m.sizes = t.sizes().vec();
  m.strides = t.strides().vec();
  m.offset = t.storage_offset();
  m.storage = storage_id;
  return m;
}

}  // namespace atenaot
