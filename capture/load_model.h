// Loading a model file into atenaot IR, whatever its format:
//  - a TorchScript archive (.pt from torch.jit.trace(...).save or a scripted
//    module without control flow): a zip file;
//  - TorchScript IR text (what str(traced.graph) prints): starts with "graph(";
//  - atenaot IR text (docs/ir_format.md): starts with "graph @", with its
//    weights in FILE.weights next to it when it has any.
// The format is decided by content, never by extension. LibTorch stays behind
// this header.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io/npy.h"
#include "ir/graph.h"
#include "ir/op_table.h"

namespace atenaot {

enum class ModelFormat { kTorchScriptArchive, kTorchScriptText, kAtenaotText };
const char* ModelFormatName(ModelFormat f);
// From the file's bytes; `path` only names it in the error.
StatusOr<ModelFormat> DetectModelFormat(const std::string& bytes, const std::string& path);

// The file is read once (pipes work). `inputs` give shapes and dtypes; they may be empty for IR text whose inputs
// carry complete types. For atenaot IR they are checked against the graph.
StatusOr<std::unique_ptr<Graph>> LoadModel(const std::string& path, const std::vector<NpyArray>& inputs,
                                           const OpTable& ops);

}  // namespace atenaot
