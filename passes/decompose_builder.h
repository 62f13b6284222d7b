// Builder: how decompose rules add nodes before the node they replace. New
// values get exact sizes and dtypes and contiguous layouts in a new storage;
// strides of views and which values share memory are fixed later by the
// sample run (interp/annotate.h), as for every pass.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/op_table.h"
#include "ir/status.h"

namespace atenaot {

class DecomposeBuilder {
 public:
  DecomposeBuilder(Graph& g, const OpTable& ops, Node* at) : g_(g), ops_(ops), at_(at) {}

  StatusOr<Value*> Emit(const std::string& op, std::vector<Arg> args, std::vector<int64_t> sizes, DType dtype) {
    const OpInfo* info = ops_.Find(op);
    if (!info) return Internal("op table lacks " + op);
    Node* n = g_.CreateNode(info, std::move(args), 1, at_);
    TensorMeta m;
    m.dtype = dtype;
    m.sizes = std::move(sizes);
    m.strides = ContiguousStrides(m.sizes);
    m.storage = g_.NewStorageId();
    n->output()->mutable_meta() = m;
    return n->output();
  }

 private:
  Graph& g_;
  const OpTable& ops_;
  Node* at_;
};

inline Arg L(Literal l) { return Arg::Of(std::move(l)); }

}  // namespace atenaot
