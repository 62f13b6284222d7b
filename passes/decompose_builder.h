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
    AOT_ASSIGN_OR_RETURN(std::vector<Value*> outs, EmitResults(op, std::move(args), {{std::move(sizes), dtype}}));
    return outs[0];
  }

  // An op with several results, each contiguous in its own storage.
  StatusOr<std::vector<Value*>> EmitResults(const std::string& op, std::vector<Arg> args,
                                            std::vector<std::pair<std::vector<int64_t>, DType>> results) {
    const OpInfo* info = ops_.Find(op);
    if (!info) return Internal("op table lacks " + op);
    Node* n = g_.CreateNode(info, std::move(args), static_cast<int>(results.size()), at_);
    std::vector<Value*> outs;
    for (size_t k = 0; k < results.size(); ++k) {
      TensorMeta m;
      m.dtype = results[k].second;
      m.sizes = std::move(results[k].first);
      m.strides = ContiguousStrides(m.sizes);
      m.storage = g_.NewStorageId();
      n->output(static_cast<int>(k))->mutable_meta() = m;
      outs.push_back(n->output(static_cast<int>(k)));
    }
    return outs;
  }

 private:
  Graph& g_;
  const OpTable& ops_;
  Node* at_;
};

inline Arg L(Literal l) { return Arg::Of(std::move(l)); }

}  // namespace atenaot
