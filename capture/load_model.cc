#include "capture/load_model.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/irparser.h>
#include <torch/csrc/jit/passes/freeze_module.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/serialization/import.h>

#include <regex>
#include <sstream>

#include "capture/archive_check.h"
#include "capture/jit_import.h"
#include "capture/libtorch_error.h"
#include "capture/tensor_convert.h"
#include "io/files.h"
#include "io/weights_file.h"
#include "ir/parser.h"

namespace atenaot {

namespace jit = torch::jit;

const char* ModelFormatName(ModelFormat f) {
  switch (f) {
    case ModelFormat::kTorchScriptArchive:
      return "TorchScript archive";
    case ModelFormat::kTorchScriptText:
      return "TorchScript IR text";
    case ModelFormat::kAtenaotText:
      return "atenaot IR text";
  }
  return "?";
}

namespace {

std::vector<at::Tensor> ToTensors(const std::vector<NpyArray>& inputs) {
  std::vector<at::Tensor> ts;
  for (const NpyArray& a : inputs) ts.push_back(a.none ? at::Tensor() : TensorFromNpy(a));  // undefined: None
  return ts;
}

std::string ShapeText(DType d, const std::vector<int64_t>& sizes) {
  TensorMeta m;
  m.dtype = d;
  m.sizes = sizes;
  m.strides = ContiguousStrides(sizes);
  return m.ToString();
}

// Every tensor an IValue holds (lists, tuples and dict values included).
Status CheckTensors(const c10::IValue& v, const std::string& what, int depth = 0) {
  if (depth > 64) return InvalidArgument(what + " nests too deeply");
  if (v.isTensor()) return CheckStorageBounds(v.toTensor(), what);
  if (v.isList()) {
    for (const c10::IValue& e : v.toListRef()) AOT_RETURN_IF_ERROR(CheckTensors(e, what, depth + 1));
  } else if (v.isTuple()) {
    for (const c10::IValue& e : v.toTupleRef().elements()) AOT_RETURN_IF_ERROR(CheckTensors(e, what, depth + 1));
  } else if (v.isGenericDict()) {
    for (const auto& kv : v.toGenericDict()) AOT_RETURN_IF_ERROR(CheckTensors(kv.value(), what, depth + 1));
  }
  return Status::Ok();
}

// The archive's tensors (parameters, buffers, attributes, and the constants
// of its code) before anything reads them: see CheckStorageBounds.
Status CheckArchiveTensors(const jit::Module& m) {
  for (const auto& a : m.named_attributes(/*recurse=*/true))
    AOT_RETURN_IF_ERROR(CheckTensors(a.value, "attribute " + a.name));
  for (const jit::Method& method : m.get_methods()) {
    std::vector<const jit::Block*> blocks = {method.graph()->block()};
    while (!blocks.empty()) {
      const jit::Block* b = blocks.back();
      blocks.pop_back();
      for (const jit::Node* n : b->nodes()) {
        for (const jit::Block* sub : n->blocks()) blocks.push_back(sub);
        if (n->kind() != c10::prim::Constant || n->outputs().size() != 1) continue;
        if (std::optional<c10::IValue> c = jit::toIValue(n->output()))
          AOT_RETURN_IF_ERROR(CheckTensors(*c, "a constant of " + method.name() + "()"));
      }
    }
  }
  return Status::Ok();
}

StatusOr<std::unique_ptr<Graph>> LoadArchive(const std::string& path, const std::string& bytes,
                                             const std::vector<NpyArray>& inputs, const OpTable& ops) {
  AOT_RETURN_IF_ERROR(CheckArchiveRecords(bytes, path));
  std::shared_ptr<jit::Graph> g;
  try {
    std::istringstream in(bytes);
    jit::Module m = jit::load(in);
    Status bounds = CheckArchiveTensors(m);
    if (!bounds.ok()) return bounds.WithContext("TorchScript archive '" + path + "'");
    m.eval();
    if (!m.find_method("forward")) return InvalidArgument("'" + path + "' has no forward method");
    jit::Module frozen = jit::freeze_module(m);
    g = frozen.get_method("forward").graph()->copy();
    jit::Inline(*g);
  } catch (const std::exception& e) {
    return InvalidArgument("cannot load TorchScript archive '" + path + "': " + LibTorchMessage(e));
  }
  if (inputs.empty() && g->inputs().size() > 1)  // forward(self) alone takes no inputs
    return InvalidArgument("'" + path + "' is a TorchScript archive, which keeps no input shapes: pass --inputs");
  return ImportJitGraph(*g, ToTensors(inputs), ops, {.first_input_is_self = true});
}

// parseIR reads "prim::Constant[value={2.5}]" (Python scalars in traces) as
// uninitialised memory, so the values are taken from the text and set again.
struct ScalarConstant {
  std::string name, type;
  double value;
};

std::vector<ScalarConstant> FindScalarConstants(const std::string& text) {
  static const std::regex re(R"(%([A-Za-z0-9_.]+) : ([A-Za-z]+)\([^)]*\) = prim::Constant\[value=\{([^}]*)\}\]\(\))");
  std::vector<ScalarConstant> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back({(*it)[1], (*it)[2], std::strtod((*it)[3].str().c_str(), nullptr)});
  return out;
}

StatusOr<std::unique_ptr<Graph>> LoadTorchScriptText(const std::string& path, const std::string& text,
                                                     const std::vector<NpyArray>& inputs, const OpTable& ops) {
  auto g = std::make_shared<jit::Graph>();
  std::unordered_map<std::string, jit::Value*> vmap;
  try {
    jit::parseIR(text, g.get(), vmap, /*parse_tensor_constants=*/true);
  } catch (const std::exception& e) {
    std::string why = LibTorchMessage(e);
    if (why.empty()) why = "the parser gave no reason";
    // Two known gaps of LibTorch's parser get a hint; other errors speak for themselves.
    if (text.find("CPUFloatType") != std::string::npos || text.find("Type{") != std::string::npos ||
        text.find(": __torch__") != std::string::npos)
      why +=
          " (LibTorch cannot parse multi-element tensor constants or class-typed inputs: save the module "
          "with torch.jit.save and import the .pt instead)";
    return InvalidArgument("cannot parse TorchScript IR text '" + path + "': " + why);
  }
  for (const ScalarConstant& c : FindScalarConstants(text)) {
    auto it = vmap.find(c.name);
    if (it == vmap.end()) continue;
    c10::ScalarType st = c.type == "Long"    ? at::kLong
                         : c.type == "Int"   ? at::kInt
                         : c.type == "Bool"  ? at::kBool
                         : c.type == "Float" ? at::kFloat
                         : c.type == "Half"  ? at::kHalf
                                             : at::kDouble;
    it->second->node()->t_(jit::attr::value, at::scalar_tensor(c.value, at::TensorOptions().dtype(st)));
  }
  std::vector<at::Tensor> samples;
  const auto& gin = g->inputs();
  if (!inputs.empty() && inputs.size() != gin.size())
    return InvalidArgument("the graph takes " + std::to_string(gin.size()) + " input(s), got " +
                           std::to_string(inputs.size()));
  for (size_t i = 0; i < gin.size(); ++i) {
    auto tt = gin[i]->type()->cast<c10::TensorType>();
    if (!tt)
      return Unsupported("graph input %" + gin[i]->debugName() + " has type " + gin[i]->type()->str() +
                         "; only tensor inputs are supported");
    auto sizes = tt->sizes().concrete_sizes();
    auto strides = tt->strides().concrete_sizes();
    auto st = tt->scalarType();
    if (!inputs.empty()) {
      if (sizes && st) {
        AOT_ASSIGN_OR_RETURN(DType want, DTypeFromAten(*st));
        if (want != inputs[i].dtype || *sizes != inputs[i].shape)
          return InvalidArgument("input " + std::to_string(i) + " (%" + gin[i]->debugName() + ") is declared " +
                                 ShapeText(want, *sizes) + " but the given array is " +
                                 ShapeText(inputs[i].dtype, inputs[i].shape));
      }
      continue;
    }
    if (!sizes || !strides || !st)
      return InvalidArgument("graph input %" + gin[i]->debugName() + " has no complete type (" + tt->str() +
                             "): pass --inputs to give shapes and dtypes");
    // The type is untrusted text: bound it before allocating a sample (bug FZ7).
    AOT_ASSIGN_OR_RETURN(DType dt, DTypeFromAten(*st));
    TensorMeta m;
    m.dtype = dt;
    m.sizes = *sizes;
    m.strides = *strides;
    std::string too_big = m.sizes.size() == m.strides.size() ? m.SizeError() : "sizes and strides of different rank";
    for (int64_t s : m.strides)
      if (too_big.empty() && s < 0) too_big = "a negative stride";
    if (!too_big.empty()) {
      std::ostringstream declared;
      declared << *tt;
      return InvalidArgument("graph input %" + gin[i]->debugName() + " is declared " + declared.str() + ", with " +
                             too_big);
    }
    try {
      samples.push_back(at::zeros_like(at::empty_strided(*sizes, *strides, at::TensorOptions().dtype(*st)),
                                       at::MemoryFormat::Preserve));
    } catch (const std::exception& e) {
      return InvalidArgument("cannot make a sample for graph input %" + gin[i]->debugName() + ": " +
                             LibTorchMessage(e));
    }
  }
  if (!inputs.empty()) samples = ToTensors(inputs);
  return ImportJitGraph(*g, samples, ops);
}

StatusOr<std::unique_ptr<Graph>> LoadAtenaotText(const std::string& path, const std::string& text,
                                                 const std::vector<NpyArray>& inputs, const OpTable& ops) {
  auto parsed = ParseGraph(text, ops);
  if (!parsed.ok()) return parsed.status().WithContext("'" + path + "'");
  std::unique_ptr<Graph> g = std::move(parsed).value();
  if (!g->weight_values().empty()) {
    auto w = ReadWeightsFile(path + ".weights");
    if (!w.ok()) return w.status().WithContext("'" + path + "' has weights");
    g->weights() = std::move(w).value();
  }
  if (!inputs.empty()) {
    if (inputs.size() != g->inputs().size())
      return InvalidArgument("the graph takes " + std::to_string(g->inputs().size()) + " input(s), got " +
                             std::to_string(inputs.size()));
    for (size_t i = 0; i < inputs.size(); ++i) {
      const TensorMeta& m = g->inputs()[i]->meta();
      if (m.dtype != inputs[i].dtype || m.sizes != inputs[i].shape)
        return InvalidArgument("input " + std::to_string(i) + " (%" + g->inputs()[i]->name() + ") is declared " +
                               ShapeText(m.dtype, m.sizes) + " but the given array is " +
                               ShapeText(inputs[i].dtype, inputs[i].shape));
    }
  }
  return g;
}

}  // namespace

StatusOr<ModelFormat> DetectModelFormat(const std::string& text, const std::string& path) {
  if (text.compare(0, 4, "PK\x03\x04") == 0) return ModelFormat::kTorchScriptArchive;
  if (LooksLikeAtenaotIr(text)) return ModelFormat::kAtenaotText;
  size_t p = text.find_first_not_of(" \t\r\n");
  if (p != std::string::npos && text.compare(p, 6, "graph(") == 0) return ModelFormat::kTorchScriptText;
  return InvalidArgument("cannot tell the format of '" + path +
                         "': expected a TorchScript archive (a zip file from torch.jit.save), TorchScript IR "
                         "text (starting with 'graph(') or atenaot IR text (starting with 'graph @')");
}

StatusOr<std::unique_ptr<Graph>> LoadModel(const std::string& path, const std::vector<NpyArray>& inputs,
                                           const OpTable& ops) {
  AOT_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path, "model file"));
  AOT_ASSIGN_OR_RETURN(ModelFormat f, DetectModelFormat(bytes, path));
  for (const NpyArray& a : inputs)
    if (a.none && f != ModelFormat::kTorchScriptArchive)
      return InvalidArgument(
          "'none' among the inputs stands for an Optional[Tensor] argument of a TorchScript "
          "archive; '" +
          path + "' is " + ModelFormatName(f) + ", whose inputs are all tensors");
  // The importer boundary: whatever LibTorch throws on a bad model becomes a Status.
  try {
    if (f == ModelFormat::kTorchScriptArchive) return LoadArchive(path, bytes, inputs, ops);
    if (f == ModelFormat::kAtenaotText) return LoadAtenaotText(path, bytes, inputs, ops);
    return LoadTorchScriptText(path, bytes, inputs, ops);
  } catch (const std::exception& e) {
    return InvalidArgument("cannot load " + std::string(ModelFormatName(f)) + " '" + path +
                           "': LibTorch raised: " + LibTorchMessage(e));
  }
}

}  // namespace atenaot
