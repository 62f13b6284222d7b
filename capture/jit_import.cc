#include "capture/jit_import.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "capture/libtorch_error.h"
#include "capture/tensor_convert.h"

namespace atenaot {

namespace jit = torch::jit;

std::vector<at::Tensor> CloneKeepingAliasing(const std::vector<at::Tensor>& ts) {
  std::unordered_map<const c10::StorageImpl*, c10::Storage> copies;
  std::vector<at::Tensor> out;
  for (const at::Tensor& t : ts) {
    if (!t.defined()) {  // None for an Optional[Tensor] input
      out.push_back(t);
      continue;
    }
    const c10::StorageImpl* key = t.storage().unsafeGetStorageImpl();
    auto it = copies.find(key);
    if (it == copies.end()) {
      size_t n = t.storage().nbytes();
      at::Tensor bytes = at::empty({static_cast<int64_t>(n)}, at::kByte);
      if (n) std::memcpy(bytes.data_ptr(), t.storage().data(), n);
      it = copies.emplace(key, bytes.storage()).first;
    }
    at::Tensor c = at::empty({0}, t.options());
    c.set_(it->second, t.storage_offset(), t.sizes(), t.strides());
    out.push_back(c);
  }
  return out;
}

namespace {

std::string Sanitize(const std::string& name) {
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') ? c : '_';
  return s.empty() ? "v" : s;
}

// "%y = aten::view(%x, %5)": how a node is named in error messages.
std::string Describe(const jit::Node* n) {
  std::ostringstream os;
  for (size_t i = 0; i < n->outputs().size(); ++i) os << (i ? ", " : "") << "%" << n->outputs()[i]->debugName();
  if (!n->outputs().empty()) os << " = ";
  os << n->kind().toQualString() << "(";
  for (size_t i = 0; i < n->inputs().size(); ++i) os << (i ? ", " : "") << "%" << n->inputs()[i]->debugName();
  os << ")";
  return "node '" + os.str() + "'";
}

bool IsMetadataQuery(const std::string& name) {
  static const std::unordered_set<std::string> kQueries = {
      "aten::size",       "aten::dim",        "aten::numel",
      "aten::stride",     "aten::len",        "prim::dtype",
      "prim::device",     "prim::layout",     "aten::is_floating_point",
      "aten::is_complex", "prim::shape",      "aten::sym_size",
      "aten::sym_numel",  "aten::sym_stride", "prim::is_cuda",
      "aten::__is__",     "aten::__isnot__",  "prim::isinstance"};
  return kQueries.count(name) > 0;
}

class JitImporter {
 public:
  JitImporter(const OpTable& ops, const JitImportOptions& opts) : ops_(ops), opts_(opts) {}

  StatusOr<std::unique_ptr<Graph>> Run(const jit::Graph& jg, const std::vector<at::Tensor>& samples) {
    g_ = std::make_unique<Graph>();
    size_t first = opts_.first_input_is_self ? 1 : 0;
    if (jg.inputs().size() < first) return InvalidArgument("the module's forward graph has no self input");
    if (first == 1 && jg.inputs()[0]->hasUses())
      return Unsupported(std::string("the module still reads attributes of self after freezing (") +
                         jg.inputs()[0]->uses()[0].user->kind().toQualString() +
                         "); only frozen, inlined modules can be imported");
    size_t n_in = jg.inputs().size() - first;
    if (samples.size() != n_in)
      return InvalidArgument("the model takes " + std::to_string(n_in) + " tensor input(s), got " +
                             std::to_string(samples.size()));
    std::vector<at::Tensor> run_inputs = CloneKeepingAliasing(samples);
    for (size_t i = 0; i < n_in; ++i) {
      const jit::Value* jv = jg.inputs()[i + first];
      auto opt = jv->type()->cast<c10::OptionalType>();
      const bool optional_tensor = opt && opt->getElementType()->cast<c10::TensorType>();
      if (!samples[i].defined()) {  // None for an Optional[Tensor]: folded in, no graph input
        if (!optional_tensor)
          return InvalidArgument("input " + std::to_string(i) + " is none, but graph input %" + jv->debugName() +
                                 " has type " + jv->type()->str() + "; only Optional[Tensor] inputs can be None");
        env_[jv] = c10::IValue();
        continue;
      }
      if (!jv->type()->cast<c10::TensorType>() && !optional_tensor)
        return Unsupported("graph input %" + jv->debugName() + " has type " + jv->type()->str() +
                           "; only tensor inputs are supported");
      AOT_ASSIGN_OR_RETURN(TensorMeta m, MetaFromTensor(samples[i], StorageId(samples[i])));
      // Run-time storage ids must follow the copies, which alias like the samples.
      MapStorage(run_inputs[i], m.storage);
      Value* v = g_->AddInput(UniqueName(jv->debugName()), m);
      tensors_[jv] = v;
      env_[jv] = run_inputs[i];
      data_origin_[jv] = jv->debugName();
    }
    for (const jit::Node* n : jg.nodes()) AOT_RETURN_IF_ERROR(ImportNode(n).WithContext("import " + Describe(n)));
    std::vector<Value*> flat;
    OutputTree tree;
    if (jg.outputs().size() == 1) {
      AOT_RETURN_IF_ERROR(BuildTree(jg.outputs()[0], &flat, &tree));
    } else {
      tree.kind = OutputTree::Kind::kTuple;
      for (const jit::Value* o : jg.outputs()) {
        OutputTree e;
        AOT_RETURN_IF_ERROR(BuildTree(o, &flat, &e));
        tree.elems.push_back(e);
      }
    }
    g_->SetOutputs(flat, tree);
    return std::move(g_);
  }

 private:
  int64_t StorageId(const at::Tensor& t) {
    const c10::StorageImpl* key = t.storage().unsafeGetStorageImpl();
    auto it = storage_ids_.find(key);
    if (it != storage_ids_.end()) return it->second;
    int64_t id = g_->NewStorageId();
    MapStorage(t, id);
    return id;
  }

  // storage_ids_ is keyed by StorageImpl address: the storage is kept alive
  // so that no later tensor gets its address, and with it this id (a folded
  // constant's freed storage once gave a new result the weight's id).
  void MapStorage(const at::Tensor& t, int64_t id) {
    storage_ids_[t.storage().unsafeGetStorageImpl()] = id;
    mapped_storages_.push_back(t.storage());
  }

  std::string UniqueName(const std::string& want) {
    std::string base = Sanitize(want), name = base;
    for (int k = 1; g_->FindValue(name); ++k) name = base + "_" + std::to_string(k);
    return name;
  }

  // Gives v TorchScript's name for it (v may already hold that name).
  void NameAfter(Value* v, const jit::Value* jv) {
    std::string want = Sanitize(jv->debugName());
    if (v->name() == want) return;
    g_->RenameValue(v, UniqueName(want));
  }

  // The IR value for a tensor-typed JIT value; tensors not produced by an
  // imported op (constants, NumToTensor results) become weights.
  StatusOr<Value*> TensorFor(const jit::Value* jv) {
    auto it = tensors_.find(jv);
    if (it != tensors_.end()) return it->second;
    auto e = env_.find(jv);
    if (e == env_.end() || !e->second.isTensor()) return Internal("no tensor recorded for %" + jv->debugName());
    AOT_ASSIGN_OR_RETURN(Value * v, AddWeight(e->second.toTensor(), jv->debugName(), &env_[jv]));
    tensors_[jv] = v;
    return v;
  }

  // A weight holding t's values; *laid_out_out (when given) becomes the
  // tensor later ops on it run on.
  StatusOr<Value*> AddWeight(const at::Tensor t, const std::string& want_name, c10::IValue* laid_out_out) {
    AOT_ASSIGN_OR_RETURN(WeightData w, WeightFromTensor(t));
    std::string name = UniqueName(want_name);
    w.meta.storage = g_->NewStorageId();
    // Later ops (views of the constant) run on a tensor laid out like the
    // weight, in a storage that maps to the weight's id, so their storage ids
    // and offsets are the weight's (bug I1: they kept the constant's own).
    at::Tensor laid_out = at::empty(t.sizes(), t.options()).copy_(t);  // strides as ContiguousStrides
    MapStorage(laid_out, w.meta.storage);
    if (laid_out_out) *laid_out_out = laid_out;
    // The constant itself, when it is exactly its storage and no other value
    // claimed it, maps there too (a list built before holds it).
    const c10::StorageImpl* own = t.storage().unsafeGetStorageImpl();
    if (t.storage_offset() == 0 && t.is_contiguous() && t.storage().nbytes() == t.nbytes() && !storage_ids_.count(own))
      MapStorage(t, w.meta.storage);
    Value* v = g_->AddWeight(name, name, w.meta);
    g_->weights()[name] = std::move(w);
    return v;
  }

  StatusOr<Literal> LiteralFrom(const c10::IValue& iv, const SchemaArg& sa) {
    if (iv.isNone()) return Literal::None();
    if (iv.isBool()) return Literal::Bool(iv.toBool());
    if (iv.isInt()) return Literal::Int(iv.toInt());
    if (iv.isDouble()) return Literal::Float(iv.toDouble());
    if (iv.isString()) return Literal::String(iv.toStringRef());
    if (iv.isDevice()) return Literal::Device(iv.toDevice().str());
    if (iv.isIntList()) return Literal::IntList(iv.toIntVector());
    if (iv.isDoubleList()) return Literal::FloatList(iv.toDoubleVector());
    if (iv.isBoolList()) {
      std::vector<bool> bs;
      for (bool b : iv.toBoolList()) bs.push_back(b);
      return Literal::BoolList(bs);
    }
    if (iv.isList()) {
      // A generic list of ints/floats (e.g. built by ListConstruct as int[]).
      std::vector<int64_t> is;
      std::vector<double> ds;
      bool all_int = true, all_num = true;
      for (const c10::IValue& e : iv.toListRef()) {
        if (e.isInt()) {
          is.push_back(e.toInt());
          ds.push_back(static_cast<double>(e.toInt()));
        } else if (e.isDouble()) {
          all_int = false;
          ds.push_back(e.toDouble());
        } else
          all_num = false;
      }
      if (all_num && all_int && sa.type.base != BaseType::kFloat) return Literal::IntList(is);
      if (all_num) return Literal::FloatList(ds);
    }
    return Unsupported("argument '" + sa.name + "' has a value of type " + iv.tagKind() +
                       " that atenaot cannot represent");
  }

  // ScalarType, Layout and MemoryFormat arguments are plain ints in the JIT
  // (aten::view(%x, -1) resolves to view.dtype), and LibTorch indexes tables
  // with them unchecked: an invalid code segfaults instead of throwing. So
  // they, and Device arguments, are checked before any op runs.
  static Status CheckEnumArgs(const jit::Node* n, const jit::Stack& stack) {
    const c10::FunctionSchema* schema = n->maybeSchema();
    if (!schema) return Status::Ok();
    const auto& args = schema->arguments();
    for (size_t i = 0; i < args.size() && i < stack.size(); ++i) {
      c10::TypePtr t = args[i].real_type();
      if (auto opt = t->cast<c10::OptionalType>()) t = opt->getElementType();
      const c10::IValue& iv = stack[i];
      const std::string what = "argument '" + args[i].name() + "' of " + schema->name();
      auto check_code = [&](const char* kind, int64_t limit) -> Status {
        if (!iv.isInt()) return Status::Ok();
        int64_t v = iv.toInt();
        if (v < 0 || v >= limit)
          return InvalidArgument(what + " is " + std::to_string(v) + ", not a valid " + kind + " code");
        return Status::Ok();
      };
      switch (t->kind()) {
        case c10::TypeKind::ScalarTypeType: {
          AOT_RETURN_IF_ERROR(check_code("ScalarType", static_cast<int64_t>(c10::ScalarType::Undefined)));
          if (iv.isInt()) {
            auto st = static_cast<c10::ScalarType>(iv.toInt());
            if (!DTypeFromAten(st).ok())
              return Unsupported(what + " is dtype " + c10::toString(st) + ", which atenaot does not support");
          }
          break;
        }
        case c10::TypeKind::LayoutType:
          AOT_RETURN_IF_ERROR(check_code("Layout", static_cast<int64_t>(c10::Layout::NumOptions)));
          break;
        case c10::TypeKind::MemoryFormatType:
          AOT_RETURN_IF_ERROR(check_code("MemoryFormat", static_cast<int64_t>(c10::MemoryFormat::NumOptions)));
          break;
        case c10::TypeKind::DeviceObjType:
          if (iv.isDevice() && !iv.toDevice().is_cpu())
            return Unsupported(what + " is device " + iv.toDevice().str() + "; atenaot captures CPU programs only");
          break;
        default:
          break;
      }
    }
    return Status::Ok();
  }

  // Executes `n` through its JIT operation on the recorded inputs.
  StatusOr<std::vector<c10::IValue>> Execute(const jit::Node* n) {
    jit::Stack stack;
    for (const jit::Value* in : n->inputs()) {
      auto it = env_.find(in);
      if (it == env_.end()) return Internal("input %" + in->debugName() + " has no recorded value");
      stack.push_back(it->second);
    }
    AOT_RETURN_IF_ERROR(CheckEnumArgs(n, stack));
    try {
      jit::Operation op = n->getOperation();
      op(stack);
    } catch (const std::exception& e) {
      return InvalidArgument("running the op on the sample inputs failed: " + LibTorchMessage(e));
    }
    if (stack.size() != n->outputs().size())
      return Internal("the op returned " + std::to_string(stack.size()) + " values for " +
                      std::to_string(n->outputs().size()) + " outputs");
    return std::vector<c10::IValue>(stack.begin(), stack.end());
  }

  Status ImportNode(const jit::Node* n) {
    const jit::Symbol kind = n->kind();
    const std::string kname = kind.toQualString();
    if (kind == jit::prim::Loop)
      return Unsupported("control flow (prim::Loop) is not supported; trace the model to unroll loops");
    if (kind == jit::prim::If) return ImportStaticIf(n);
    if (kind == jit::prim::RaiseException) {
      std::string msg;
      if (!n->inputs().empty() && env_.count(n->input(0)) && env_.at(n->input(0)).isString())
        msg = ": " + env_.at(n->input(0)).toStringRef();
      return InvalidArgument("the model raises an exception on these inputs (a failed shape or argument check)" + msg);
    }
    if (kind == jit::prim::unchecked_cast) {
      Alias(n->output(), n->input());
      return Status::Ok();
    }
    if (kind == jit::prim::CallMethod || kind == jit::prim::CallFunction || kind == jit::prim::GetAttr ||
        kind == jit::prim::SetAttr)
      return Unsupported(kname + " remains in the graph; only frozen, inlined graphs can be imported");
    if (kind == jit::prim::Constant) {
      auto iv = jit::toIValue(n->output());
      if (!iv) return Unsupported("a constant of type " + n->output()->type()->str() + " cannot be read");
      env_[n->output()] = *iv;
      if (iv->isTensor()) static_tensors_.insert(n->output());  // part of the program, not input data
      return Status::Ok();
    }
    if (kind == jit::prim::ListConstruct) {
      // The JIT has no Operator for ListConstruct; a GenericList of the element
      // type is what ops accept as int[] / Tensor[] / Tensor?[].
      c10::impl::GenericList list(n->output()->type()->expectRef<c10::ListType>().getElementType());
      for (const jit::Value* in : n->inputs()) list.push_back(env_.at(in));
      env_[n->output()] = list;
      elems_[n->output()] = std::vector<const jit::Value*>(n->inputs().begin(), n->inputs().end());
      RecordDataOrigin(n);
      return Status::Ok();
    }
    if (kind == jit::prim::TupleConstruct) {
      std::vector<c10::IValue> items;
      for (const jit::Value* in : n->inputs()) items.push_back(env_.at(in));
      env_[n->output()] = c10::ivalue::Tuple::create(std::move(items));
      elems_[n->output()] = std::vector<const jit::Value*>(n->inputs().begin(), n->inputs().end());
      RecordDataOrigin(n);
      return Status::Ok();
    }
    if (kind == jit::prim::ListUnpack || kind == jit::prim::TupleUnpack) {
      const jit::Value* src = n->input();
      auto lv = list_values_.find(src);
      auto el = elems_.find(src);
      size_t count = lv != list_values_.end() ? lv->second.size() : el != elems_.end() ? el->second.size() : 0;
      if (count != n->outputs().size())
        return Unsupported("unpacking a list or tuple that was not built in the graph, or of the wrong length");
      for (size_t k = 0; k < count; ++k) {
        const jit::Value* out = n->outputs()[k];
        if (lv != list_values_.end()) {
          Value* v = lv->second[k];
          NameAfter(v, out);
          tensors_[out] = v;
          env_[out] = env_.at(src).toListRef()[k];
        } else {
          Alias(out, el->second[k]);
        }
      }
      RecordDataOrigin(n);
      return Status::Ok();
    }
    if (kind == jit::prim::NumToTensor) return FoldStatic(n, kname);
    const c10::FunctionSchema* schema = n->maybeSchema();
    if (!schema) {
      if (jit::getAllOperatorsFor(kind).empty()) return Unsupported("unknown op " + kname);
      return Unsupported("op " + kname + " has no overload matching its argument types");
    }
    std::string qname = schema->name() + (schema->overload_name().empty() ? "" : "." + schema->overload_name());

    bool tensor_out = false;
    for (const jit::Value* o : n->outputs()) {
      c10::TypePtr t = o->type();
      if (t->cast<c10::TensorType>() ||
          (t->cast<c10::ListType>() && t->expectRef<c10::ListType>().getElementType()->cast<c10::TensorType>()))
        tensor_out = true;
    }
    if (!tensor_out) return FoldStatic(n, kname);

    const OpInfo* op = ops_.Find(qname);
    if (!op) return Unsupported("op " + qname + " is not a dispatcher operator atenaot knows");
    AOT_ASSIGN_OR_RETURN(bool folded, FoldShapeArithmetic(n, *op));
    if (folded) return Status::Ok();
    if (IsEvalDropout(n, *op)) {
      Alias(n->output(), n->input(0));
      return Status::Ok();
    }
    AOT_RETURN_IF_ERROR(CheckStaticShape(n, *op));
    if (!op->Representable())
      return Unsupported("op " + qname + " has argument or return types atenaot cannot represent");
    std::vector<Arg> args;
    const auto& sargs = op->schema.args;
    if (sargs.size() != n->inputs().size()) return Internal("schema arity differs from the node's input count");
    for (size_t i = 0; i < sargs.size(); ++i) {
      const jit::Value* in = n->inputs()[i];
      const c10::IValue& iv = env_.at(in);
      const SchemaArg& sa = sargs[i];
      if (sa.type.base == BaseType::kTensor && sa.type.list) {
        AOT_ASSIGN_OR_RETURN(std::vector<Value*> list, TensorListFor(in));
        args.push_back(Arg::List(list));
      } else if (sa.type.base == BaseType::kTensor) {
        if (iv.isNone()) {
          args.push_back(Arg::Of(Literal::None()));
          continue;
        }
        AOT_ASSIGN_OR_RETURN(Value * v, TensorFor(in));
        args.push_back(Arg::Of(v));
      } else {
        if (iv.isTensor())
          return Unsupported("argument '" + sa.name + "' is a tensor where " + sa.type.raw + " is expected");
        AOT_ASSIGN_OR_RETURN(Literal l, LiteralFrom(iv, sa));
        args.push_back(Arg::Of(l));
      }
    }
    AOT_ASSIGN_OR_RETURN(std::vector<c10::IValue> results, Execute(n));
    bool list_ret = op->schema.returns.size() == 1 && op->schema.returns[0].type.list;
    std::vector<at::Tensor> out_tensors;
    if (list_ret) {
      for (const c10::IValue& e : results[0].toListRef()) out_tensors.push_back(e.toTensor());
    } else {
      for (c10::IValue& r : results) {
        if (r.isNone()) r = at::Tensor();
        if (!r.isTensor()) return Unsupported("the op returned a non-tensor value");
        // An undefined result (_native_multi_head_attention without weights)
        // is imported as an empty tensor; using it would fail in eager too.
        if (!r.toTensor().defined()) r = at::empty({0});
        out_tensors.push_back(r.toTensor());
      }
    }
    Node* node = g_->CreateNode(op, std::move(args), static_cast<int>(out_tensors.size()));
    g_->SetListOutput(node, list_ret);
    for (size_t k = 0; k < out_tensors.size(); ++k) {
      Value* v = node->output(static_cast<int>(k));
      AOT_ASSIGN_OR_RETURN(v->mutable_meta(), MetaFromTensor(out_tensors[k], StorageId(out_tensors[k])));
      if (!list_ret) {
        NameAfter(v, n->outputs()[k]);
        tensors_[n->outputs()[k]] = v;
      }
    }
    if (list_ret) list_values_[n->output()] = node->outputs();
    RebindResizedArgs(n, *op, node);
    for (size_t k = 0; k < results.size(); ++k) env_[n->outputs()[k]] = results[k];
    RecordDataOrigin(n);
    return Status::Ok();
  }

  // In-place ops that change a tensor's sizes or strides (t_, unsqueeze_,
  // resize_, an out= argument resized) leave scripted code naming the tensor
  // by its old JIT value: later reads of that value read the op's result.
  void RebindResizedArgs(const jit::Node* n, const OpInfo& op, const Node* node) {
    if (op.kind != OpKind::kInplace && op.kind != OpKind::kOut) return;
    for (size_t k = 0; k < op.return_alias_arg.size() && k < node->outputs().size(); ++k) {
      const int a = op.return_alias_arg[k];
      if (a < 0 || node->list_output()) continue;
      auto it = tensors_.find(n->inputs()[static_cast<size_t>(a)]);
      if (it != tensors_.end() && !(it->second->meta() == node->output(static_cast<int>(k))->meta()))
        it->second = node->output(static_cast<int>(k));
    }
  }

  // Every non-tensor value is static (FoldStatic rejects data-dependent
  // scalars), so an If's condition is known for these input shapes: import the
  // branch taken, as scripted modules' shape checks need. Data-dependent
  // branches never get here: their condition fails in FoldStatic.
  Status ImportStaticIf(const jit::Node* n) {
    const c10::IValue& cond = env_.at(n->input(0));
    if (!cond.isBool()) return Unsupported("control flow (prim::If) on a non-bool condition");
    const jit::Block* b = n->blocks()[cond.toBool() ? 0 : 1];
    for (const jit::Node* inner : b->nodes())
      AOT_RETURN_IF_ERROR(ImportNode(inner).WithContext("inside the taken branch, " + Describe(inner)));
    for (size_t k = 0; k < n->outputs().size(); ++k) Alias(n->outputs()[k], b->outputs()[k]);
    return Status::Ok();
  }

  // Ops whose result shape depends on tensor values would freeze one sample's
  // shape into the program, so they are refused.
  Status CheckStaticShape(const jit::Node* n, const OpInfo& op) {
    static const std::unordered_set<std::string> kDataDependent = {"nonzero",
                                                                   "nonzero_numpy",
                                                                   "argwhere",
                                                                   "masked_select",
                                                                   "unique",
                                                                   "_unique",
                                                                   "_unique2",
                                                                   "unique_consecutive",
                                                                   "unique_dim",
                                                                   "unique_dim_consecutive",
                                                                   "repeat_interleave",
                                                                   "bincount",
                                                                   "_nested_tensor_from_mask",
                                                                   "nonzero_static"};
    const std::string& name = op.schema.name;
    bool dependent = kDataDependent.count(name) > 0;
    if (name == "repeat_interleave" && op.schema.overload == "self_int") dependent = false;
    if (name == "index" || name == "_index_put_impl_") {
      // Boolean-mask indexing selects a data-dependent number of elements.
      const c10::IValue& idx = env_.at(n->input(1));
      if (idx.isList())
        for (const c10::IValue& e : idx.toListRef())
          if (e.isTensor() && (e.toTensor().scalar_type() == at::kBool || e.toTensor().scalar_type() == at::kByte))
            dependent = name == "index";
    }
    if (dependent)
      return Unsupported("the output shape of " + op.qualified_name +
                         " depends on tensor values; atenaot compiles only programs whose shapes follow from "
                         "the input shapes");
    return Status::Ok();
  }

  // Traces record shape arithmetic (`x.size(1) // heads`) as tensor ops on
  // prim::NumToTensor results and constants. Shapes are fixed by the sample
  // inputs, so an op whose tensor inputs are all such static values and whose
  // results are scalars (0-dim) is evaluated here instead of imported; a
  // later aten::Int folds it into a literal, and a real op using it as an
  // operand gets it as a weight.
  StatusOr<bool> FoldShapeArithmetic(const jit::Node* n, const OpInfo& op) {
    if (op.Writes() || op.IsView() || n->inputs().empty()) return false;
    bool any_tensor = false;
    for (const jit::Value* in : n->inputs()) {
      const c10::IValue& iv = env_.at(in);
      if (iv.isTensor()) {
        if (!static_tensors_.count(in)) return false;
        any_tensor = true;
      } else if (iv.isList() && !iv.isIntList() && !iv.isDoubleList() && !iv.isBoolList()) {
        return false;  // tensor lists: not shape arithmetic
      }
    }
    if (!any_tensor) return false;
    for (const jit::Value* o : n->outputs())
      if (!o->type()->cast<c10::TensorType>() || WrittenLater(o)) return false;
    AOT_ASSIGN_OR_RETURN(std::vector<c10::IValue> results, Execute(n));
    for (const c10::IValue& r : results)
      if (!r.isTensor() || r.toTensor().dim() != 0) return false;  // imported as a real op instead
    for (size_t k = 0; k < results.size(); ++k) {
      env_[n->outputs()[k]] = results[k];
      static_tensors_.insert(n->outputs()[k]);
    }
    return true;
  }

  // True when v, or a view of it, is written in place later: folded into a
  // constant it would make the program write module state (random programs:
  // `t0.max(0)` of a tensor constant, then `zero_` on the indices).
  static bool WrittenLater(const jit::Value* v, int depth = 0) {
    if (depth > 32) return true;  // deep alias chains: do not fold
    for (const jit::Use& u : v->uses()) {
      const jit::Node* user = u.user;
      const c10::FunctionSchema* schema = user->maybeSchema();
      if (!schema) {
        const auto k = user->kind();
        if (k == jit::prim::ListConstruct || k == jit::prim::TupleConstruct || k == jit::prim::ListUnpack ||
            k == jit::prim::TupleUnpack)
          for (const jit::Value* o : user->outputs())
            if (WrittenLater(o, depth + 1)) return true;
        continue;
      }
      if (u.offset >= schema->arguments().size()) continue;
      const c10::AliasInfo* info = schema->arguments()[u.offset].alias_info();
      if (!info) continue;
      if (info->isWrite()) return true;
      for (const jit::Value* o : user->outputs())  // a view of v
        if (WrittenLater(o, depth + 1)) return true;
    }
    return false;
  }

  // For error messages: the first graph input whose data flows into n's results.
  void RecordDataOrigin(const jit::Node* n) {
    for (const jit::Value* in : n->inputs()) {
      auto it = data_origin_.find(in);
      if (it == data_origin_.end()) continue;
      for (const jit::Value* o : n->outputs()) data_origin_[o] = it->second;
      return;
    }
  }

  // Eval-mode dropout (train=False) returns its input, in every variant.
  bool IsEvalDropout(const jit::Node* n, const OpInfo& op) {
    static const std::unordered_set<std::string> kDropouts = {
        "dropout",       "dropout_",       "feature_dropout",       "feature_dropout_",
        "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_"};
    if (!kDropouts.count(op.schema.name) || n->inputs().size() != 3 || n->outputs().size() != 1) return false;
    const c10::IValue& train = env_.at(n->input(2));
    return train.isBool() && !train.toBool() && env_.at(n->input(0)).isTensor();
  }

  // Non-tensor results: shape arithmetic and constants fold into literals.
  // Reading tensor *data* into a scalar would freeze one sample's values into
  // the program, so it is rejected.
  Status FoldStatic(const jit::Node* n, const std::string& kname) {
    for (const jit::Value* in : n->inputs()) {
      if (!in->type()->cast<c10::TensorType>()) continue;
      if (static_tensors_.count(in) || IsMetadataQuery(kname)) continue;
      auto origin = data_origin_.find(in);
      std::string from = origin == data_origin_.end() ? "tensor values" : "the values of input %" + origin->second;
      return Unsupported(
          "op " + kname + " turns tensor data into a Python scalar (data-dependent): %" + in->debugName() +
          " is computed from " + from +
          ", not only from shapes; atenaot compiles only programs whose control values depend on shapes");
    }
    AOT_ASSIGN_OR_RETURN(std::vector<c10::IValue> results, Execute(n));
    for (size_t k = 0; k < results.size(); ++k) env_[n->outputs()[k]] = results[k];
    if (n->kind() == jit::prim::NumToTensor) static_tensors_.insert(n->output());
    return Status::Ok();
  }

  StatusOr<std::vector<Value*>> TensorListFor(const jit::Value* jv) {
    auto lv = list_values_.find(jv);
    if (lv != list_values_.end()) return lv->second;
    auto el = elems_.find(jv);
    if (el == elems_.end()) {
      // A constant list (an RNN's frozen parameters): one weight per element.
      const c10::IValue& iv = env_.at(jv);
      if (!iv.isList()) return Unsupported("a tensor list argument was not built in the graph");
      std::vector<Value*> out;
      for (const c10::IValue& e : iv.toListRef()) {
        if (!e.isTensor()) return Unsupported("a constant tensor list holds a " + e.tagKind());
        AOT_ASSIGN_OR_RETURN(Value * v,
                             AddWeight(e.toTensor(), jv->debugName() + "_" + std::to_string(out.size()), nullptr));
        out.push_back(v);
      }
      list_values_[jv] = out;
      return out;
    }
    std::vector<Value*> out;
    for (const jit::Value* e : el->second) {
      if (env_.at(e).isNone()) {
        out.push_back(nullptr);
        continue;
      }
      AOT_ASSIGN_OR_RETURN(Value * v, TensorFor(e));
      out.push_back(v);
    }
    return out;
  }

  void Alias(const jit::Value* to, const jit::Value* from) {
    env_[to] = env_.at(from);
    if (tensors_.count(from)) tensors_[to] = tensors_[from];
    if (elems_.count(from)) elems_[to] = elems_[from];
    if (list_values_.count(from)) list_values_[to] = list_values_[from];
    if (static_tensors_.count(from)) static_tensors_.insert(to);
    if (data_origin_.count(from)) data_origin_[to] = data_origin_[from];
  }

  Status BuildTree(const jit::Value* jv, std::vector<Value*>* flat, OutputTree* tree) {
    const c10::IValue& iv = env_.at(jv);
    if (iv.isTensor()) {
      AOT_ASSIGN_OR_RETURN(Value * v, TensorFor(jv));
      tree->kind = OutputTree::Kind::kLeaf;
      tree->leaf = static_cast<int>(flat->size());
      flat->push_back(v);
      return Status::Ok();
    }
    auto lv = list_values_.find(jv);
    if (lv != list_values_.end()) {
      tree->kind = OutputTree::Kind::kList;
      for (Value* v : lv->second) {
        OutputTree e;
        e.leaf = static_cast<int>(flat->size());
        flat->push_back(v);
        tree->elems.push_back(e);
      }
      return Status::Ok();
    }
    auto el = elems_.find(jv);
    if (el != elems_.end() && (iv.isTuple() || iv.isList())) {
      tree->kind = iv.isTuple() ? OutputTree::Kind::kTuple : OutputTree::Kind::kList;
      for (const jit::Value* e : el->second) {
        OutputTree sub;
        AOT_RETURN_IF_ERROR(BuildTree(e, flat, &sub));
        tree->elems.push_back(sub);
      }
      return Status::Ok();
    }
    return ConstantTree(iv, jv->debugName(), flat, tree);
  }

  // An output built by no node: a constant (freezing folds a tuple of
  // buffers into one); its tensors become weights.
  Status ConstantTree(const c10::IValue& iv, const std::string& name, std::vector<Value*>* flat, OutputTree* tree) {
    if (iv.isTensor()) {
      AOT_ASSIGN_OR_RETURN(Value * v, AddWeight(iv.toTensor(), name, nullptr));
      tree->kind = OutputTree::Kind::kLeaf;
      tree->leaf = static_cast<int>(flat->size());
      flat->push_back(v);
      return Status::Ok();
    }
    if (iv.isTuple() || iv.isList()) {
      tree->kind = iv.isTuple() ? OutputTree::Kind::kTuple : OutputTree::Kind::kList;
      const std::vector<c10::IValue> items = iv.isTuple() ? iv.toTupleRef().elements().vec() : iv.toListRef().vec();
      for (size_t k = 0; k < items.size(); ++k) {
        OutputTree sub;
        AOT_RETURN_IF_ERROR(ConstantTree(items[k], name + "_" + std::to_string(k), flat, &sub));
        tree->elems.push_back(sub);
      }
      return Status::Ok();
    }
    return Unsupported("graph output %" + name + " has type " + iv.tagKind() +
                       "; outputs must be tensors or tuples/lists of tensors");
  }

  const OpTable& ops_;
  JitImportOptions opts_;
  std::unique_ptr<Graph> g_;
  std::unordered_map<const jit::Value*, c10::IValue> env_;
  std::unordered_map<const jit::Value*, Value*> tensors_;
  std::unordered_map<const jit::Value*, std::vector<const jit::Value*>> elems_;
  std::unordered_map<const jit::Value*, std::vector<Value*>> list_values_;
  std::unordered_set<const jit::Value*> static_tensors_;
  std::unordered_map<const jit::Value*, std::string> data_origin_;
  std::unordered_map<const c10::StorageImpl*, int64_t> storage_ids_;
  std::vector<c10::Storage> mapped_storages_;  // keeps storage_ids_'s keys alive
};

}  // namespace

StatusOr<std::unique_ptr<Graph>> ImportJitGraph(const jit::Graph& jit_graph, const std::vector<at::Tensor>& samples,
                                                const OpTable& ops, const JitImportOptions& opts) {
  try {
    return JitImporter(ops, opts).Run(jit_graph, samples);
  } catch (const std::exception& e) {
    return Internal("LibTorch raised during import: " + LibTorchMessage(e));
  }
}

}  // namespace atenaot
