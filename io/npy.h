// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0),
// without LibTorch or NumPy. Supported dtypes: f2/f4/f8, i1/i2/i4/i8, u1, b1,
// little-endian (or byte-order-free); C and Fortran order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/status.h"

namespace atenaot {

struct NpyArray {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  bool fortran_order = false;  // data is column-major; strides reversed
  std::vector<uint8_t> data;   // numel * itemsize bytes
  bool none = false;           // no array: None for an Optional[Tensor] input (`--inputs none`)

  int64_t numel() const;
  // Element strides of `data` for this order (row- or column-major).
  std::vector<int64_t> Strides() const;
};

StatusOr<NpyArray> ParseNpy(const std::string& bytes, const std::string& what);
StatusOr<NpyArray> ReadNpy(const std::string& path);
// Always writes version 1.0, C order.
std::string SerializeNpy(const NpyArray& a);
Status WriteNpy(const std::string& path, const NpyArray& a);

}  // namespace atenaot
