// Data-movement kernels that the C and CUDA backends lower the same way
// (cat, index_select/embedding, the *_scatter ops, arange): one description
// each, as per-element C statements. A backend supplies the pointers, the
// statement for an index out of range, and the loop around the statements
// (C: nested for-loops in the node's function; CUDA: a grid-stride kernel).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "codegen/kernel_util.h"

namespace atenaot {

// The statements for one element: `v` has a loop variable per dimension of
// the loop's sizes; each line starts with `indent`.
using ElementBody = std::function<std::string(const std::vector<std::string>& v, const std::string& indent)>;

class ElementKernels : public KernelLowering {
 public:
  Status Cat(const Node* n) final;
  Status IndexSelect(const Node* n) final;  // index_select, embedding
  Status Gather(const Node* n) final;
  Status Scatter(const Node* n) final;
  Status Arange(const Node* n) final;

  // A typed pointer expression for v's first element, declared in the current kernel.
  virtual StatusOr<std::string> Ptr(const Value* v) = 0;
  // Ptr(v), or "" for an absent optional operand (v null).
  StatusOr<std::string> OptPtr(const Value* v) { return v ? Ptr(v) : StatusOr<std::string>(std::string()); }
  // The statement run when an index `raw` read from a tensor lies outside [lo, hi).
  virtual std::string IndexFail(const std::string& raw, int64_t lo, int64_t hi, const std::string& where) = 0;

 protected:
  // A loop over the elements of `sizes` running `body`, for the current
  // node; `part` ("" for the whole node) names the loop for a backend that
  // launches one kernel per loop.
  virtual void ElementLoop(const std::string& part, const std::vector<int64_t>& sizes, const ElementBody& body) = 0;
};

}  // namespace atenaot
