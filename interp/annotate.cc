#include "interp/annotate.h"

#include <ATen/ATen.h>

#include <unordered_map>

#include "capture/jit_import.h"
#include "capture/tensor_convert.h"
#include "interp/reference_interpreter.h"

namespace atenaot {

Status AnnotateFromRun(Graph& g, const std::vector<at::Tensor>& sample_inputs) {
  std::unordered_map<const Value*, at::Tensor> values;
  RunOptions opts;
  opts.values = &values;
  // Copies: the run may write to its inputs.
  std::vector<at::Tensor> ins = CloneKeepingAliasing(sample_inputs);
  AOT_RETURN_IF_ERROR(RunReference(g, ins, opts).status().WithContext("annotating metadata"));
  std::unordered_map<const c10::StorageImpl*, int64_t> ids;
  for (size_t i = 0; i < g.inputs().size(); ++i)
    ids[ins[i].storage().unsafeGetStorageImpl()] = g.inputs()[i]->meta().storage;
  for (const Value* w : g.weight_values()) {
    auto it = values.find(w);
    if (it != values.end()) ids[it->second.storage().unsafeGetStorageImpl()] = w->meta().storage;
  }
  int64_t next = 0;
  for (const auto& [impl, id] : ids) next = std::max(next, id + 1);
  for (Node* n : g.nodes()) {
    for (Value* o : n->outputs()) {
      auto it = values.find(o);
      if (it == values.end()) continue;  // freed values are not requested here
      const c10::StorageImpl* impl = it->second.storage().unsafeGetStorageImpl();
      auto id = ids.find(impl);
      if (id == ids.end()) id = ids.emplace(impl, next++).first;
      AOT_ASSIGN_OR_RETURN(o->mutable_meta(), MetaFromTensor(it->second, id->second));
    }
  }
  for (int64_t s = 0; s < next; ++s) g.NoteStorageId(s);
  return Status::Ok();
}

}  // namespace atenaot
