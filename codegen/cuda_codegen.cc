#include "codegen/cuda_codegen.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "codegen/abi_tables.h"
#include "codegen/c_codegen.h"
#include "codegen/c_support.h"
#include "codegen/c_text.h"
#include "codegen/c_types.h"
#include "codegen/cuda_support.h"
#include "codegen/element_kernels.h"
#include "codegen/elementwise.h"
#include "codegen/kernel_util.h"
#include "ir/view_meta.h"

namespace atenaot {
namespace {

constexpr int64_t kStageAlign = 256;               // staging buffers (cudaMalloc's alignment)
constexpr int64_t kBlasWorkspace = 32 << 20;       // cuBLAS workspace (NVIDIA's advice for Hopper)
constexpr int64_t kSmallIndex = int64_t{1} << 30;  // below this, kernels index with 32-bit ints

std::string S(int64_t v) { return std::to_string(v); }
bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
// Whether `code` reads the variable `var` as `var.lane` (not as a suffix of
// a longer name).
bool ReadsVar(const std::string& code, const std::string& var) {
  const std::string key = var + ".";
  for (size_t at = code.find(key); at != std::string::npos; at = code.find(key, at + 1))
    if (at == 0 || !IsIdent(code[at - 1])) return true;
  return false;
}
int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}
// True when `name` occurs in `text` as a whole identifier.
bool UsesToken(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    bool left = at == 0 || !IsIdent(text[at - 1]);
    bool right = at + name.size() >= text.size() || !IsIdent(text[at + name.size()]);
    if (left && right) return true;
  }
  return false;
}
// Threads per block for one-block-per-row kernels: a multiple of 32 covering
// the row, at most 256, or 1024 when there are too few rows to fill the GPU
// with blocks (a full reduction is one long row).
int RowBlock(int64_t len, int64_t rows) {
  const int64_t cap = rows <= 128 ? 1024 : 256;
  return static_cast<int>(std::min<int64_t>(cap, std::max<int64_t>(32, (len + 31) / 32 * 32)));
}

// The accumulator type of reductions over dtype t.
std::string AccType(DType t) {
  if (t == DType::kFloat64) return "double";
  if (IsFloatingPoint(t)) return "float";
  return "int64_t";
}

// A row-major [R, C] operand (strides s0, s1) as cuBLAS sees its transpose,
// a column-major C x R matrix: op N with ld = s0 when it runs along C, op T
// with ld = s1 when it runs along R.
struct BlasOperand {
  bool ok = false;
  bool trans = false;
  int64_t ld = 0;
};
BlasOperand BlasView(int64_t R, int64_t C, int64_t s0, int64_t s1) {
  BlasOperand o;
  if (s1 == 1 || C == 1) {
    o.ld = R == 1 ? std::max<int64_t>(C, 1) : s0;
    if (o.ld >= std::max<int64_t>(C, 1)) {
      o.ok = true;
      return o;
    }
  }
  if (s0 == 1 || R == 1) {
    o.trans = true;
    o.ld = C == 1 ? std::max<int64_t>(R, 1) : s1;
    if (o.ld >= std::max<int64_t>(R, 1)) {
      o.ok = true;
      return o;
    }
  }
  return o;
}

class CudaEmitter final : public ElementKernels {
 public:
  CudaEmitter(const Graph& g, const MemoryPlan& plan, const KernelPlan& kernels, const CudaCodegenOptions& opts)
      : g_(g), plan_(plan), opts_(opts), fused_(kernels.fused), kernel_steps_(kernels.steps) {}

  StatusOr<GeneratedCuda> Run() {
    AOT_RETURN_IF_ERROR(CheckModelName(opts_.name));
    if (opts_.block_size < 32 || opts_.block_size > 1024 || opts_.block_size % 32 != 0)
      return InvalidArgument("block size must be a multiple of 32 in [32, 1024]");
    AOT_RETURN_IF_ERROR(Locate());
    for (const KernelStep& k : kernel_steps_) {
      Status s = k.target ? EmitElementwise(k.nodes, k.target) : EmitKernel(k.nodes[0]);
      if (!s.ok()) unsupported_.push_back(NodeText(k.nodes[0]) + ": " + s.message());
    }
    AOT_RETURN_IF_ERROR(EmitOutputCopies());
    if (!unsupported_.empty()) {
      std::string msg = S(static_cast<int64_t>(unsupported_.size())) + " op(s) the CUDA backend cannot compile:";
      for (const std::string& u : unsupported_) msg += " [" + u + "]";
      return Unsupported(msg);
    }
    return Assemble();
  }

 private:
  // ---- where every storage lives (host expressions of device addresses) ----
  Status Locate() {
    for (size_t k = 0; k < g_.inputs().size(); ++k) {
      const Value* v = g_.inputs()[k];
      if (v->meta().offset != 0 || !v->meta().IsContiguous())
        return Unsupported("input %" + v->name() + " is a strided view; compiled models take contiguous inputs");
      if (loc_.count(v->meta().storage))
        return Unsupported("inputs share memory (%" + v->name() + "); compiled models take separate inputs");
      loc_[v->meta().storage] = "((uint8_t*)c->in[" + S(static_cast<int64_t>(k)) + "])";
    }
    for (const Value* w : g_.weight_values()) {
      if (g_.weights().find(w->weight_key()) == g_.weights().end())
        return InvalidArgument("weight %" + w->name() + " has no data");
      pending_weights_[w->meta().storage] = w;
    }
    for (size_t i = 0; i < plan_.analysis.buffers.size(); ++i) {
      const Buffer& b = plan_.analysis.buffers[i];
      for (int64_t st : b.storages) {
        if (b.home == BufferHome::kArena)
          loc_[st] = "(c->arena + " + S(plan_.offsets[i]) + ")";
        else if (b.home == BufferHome::kOutput) {
          loc_[st] = "((uint8_t*)c->out[" + S(b.output_index) + "])";
          output_home_[st] = b.output_index;
        }
      }
    }
    // Inputs the program updates in place (flagged AOT_INFO_MUTATED; host
    // copies of them are copied back after a run).
    mutated_ = MutatedInputs(g_);
    return Status::Ok();
  }

  // Weights go into one device blob (64-byte aligned each) when a kernel first reads them.
  StatusOr<std::string> Base(const Value* v) {
    auto pw = pending_weights_.find(v->meta().storage);
    if (pw != pending_weights_.end()) {
      auto data = g_.weights().find(pw->second->weight_key());
      AOT_INTERNAL_CHECK(data != g_.weights().end(), "no data for weight %" + pw->second->name());  // verifier-checked
      const WeightData& d = data->second;
      pending_weights_.erase(pw);
      size_t off = (blob_.size() + 63) / 64 * 64;
      blob_.resize(off);
      blob_.insert(blob_.end(), d.bytes.begin(), d.bytes.end());
      loc_[v->meta().storage] = "(c->wts + " + S(static_cast<int64_t>(off)) + ")";
    }
    auto it = loc_.find(v->meta().storage);
    if (it == loc_.end())
      return Internal("no memory planned for %" + v->name() + " (storage " + S(v->meta().storage) + ")");
    return it->second;
  }

  // ---- steps: one host launcher per kernel of the plan ----
  void BeginStep(const std::string& comment) {
    host_.str("");
    ptrs_.clear();
    ptr_names_.clear();
    extent_ = 0;
    step_comment_ = comment;
    step_launches_ = 0;
    flag_ptr_.clear();
  }
  void EndStep() {
    if (step_launches_ == 0) return;  // nothing to run (empty tensors)
    std::string fn = "aot_s" + S(step_count_++);
    steps_ << "/* " << CComment(step_comment_) << " */\nstatic int " << fn << "(const aot__ctx* c) {\n"
           << host_.str() << "  return AOT_OK;\n}\n\n";
    calls_ << "  if ((s = " << fn << "(c)) != AOT_OK) return s;\n";
  }

  // Declares a typed device pointer to v's first element in the launcher.
  StatusOr<std::string> Ptr(const Value* v) override {
    auto have = ptr_names_.find(v);
    if (have != ptr_names_.end()) return have->second;
    AOT_ASSIGN_OR_RETURN(std::string base, Base(v));
    AOT_ASSIGN_OR_RETURN(std::string ct, CType(v->meta().dtype));
    std::string name = RawPtr(base + " + " + S(v->meta().offset * DTypeSize(v->meta().dtype)), ct);
    extent_ = std::max(extent_, v->meta().SpanBytes() / std::max<int64_t>(DTypeSize(v->meta().dtype), 1) + 1);
    ptr_names_[v] = name;
    return name;
  }
  std::string RawPtr(const std::string& byte_addr, const std::string& ct) {
    std::string name = "p" + S(static_cast<int64_t>(ptrs_.size()));
    host_ << "  " << ct << "* const " << name << " = (" << ct << "*)(" << byte_addr << "); (void)" << name << ";\n";
    ptrs_.push_back({name, ct});
    return name;
  }
  // The statement a kernel runs when an index read from a tensor (`raw`) is
  // outside [lo, hi): the first such index is recorded in the device flag
  // (its site and value) and the element is skipped, never read or written
  // out of bounds. The run reads the flag when the stream is done and returns
  // AOT_ERR_INDEX_OUT_OF_RANGE with the C backend's message.
  std::string IndexFail(const std::string& raw, int64_t lo, int64_t hi, const std::string& where) override {
    if (flag_ptr_.empty()) flag_ptr_ = RawPtr("c->flag", "unsigned long long");
    index_sites_.push_back({lo, hi, where});
    return "{ aot__flag_index(" + flag_ptr_ + ", " + S(static_cast<int64_t>(index_sites_.size())) + "ull, " + raw +
           "); continue; }";
  }

  // The index type of a kernel over `count` items in this step.
  std::string IndexType(int64_t count) const {
    return count >= kSmallIndex || extent_ >= kSmallIndex ? "int64_t" : "int";
  }

  // Defines a __global__ kernel from `body` (its parameters: the step's
  // pointers it names) and returns the statement launching it.
  std::string Kernel(const std::string& comment, const std::string& body, const std::string& grid, int block) {
    std::string name = "aot_k" + S(kernel_count_++);
    std::string params, args;
    for (const auto& [p, ct] : ptrs_) {
      if (!UsesToken(body, p)) continue;
      params += (params.empty() ? "" : ", ") + ct + "* " + p;
      args += (args.empty() ? "" : ", ") + p;
    }
    kernels_ << "/* " << CComment(comment) << " */\n__global__ void __launch_bounds__(" << block << ") " << name << "("
             << params << ") {\n"
             << body << "}\n\n";
    ++step_launches_;
    return name + "<<<" + grid + ", " + S(block) + ", 0, c->stream>>>(" + args +
           ");\n  AOT__CK(cudaGetLastError(), \"launching " + name + "\");\n";
  }

  // The element offset of row-major index `flat` over `sizes` laid out with
  // `strides`, as one expression ("(j % 4) * 12 + (j / 4) * 1").
  static std::string OffsetOf(const std::string& flat, const std::vector<int64_t>& sizes,
                              const std::vector<int64_t>& strides) {
    std::string e;
    int64_t below = 1;  // elements of the dims after d
    for (size_t d = sizes.size(); d-- > 0;) {
      if (sizes[d] != 1 && strides[d] != 0) {
        std::string idx = below == 1 ? flat : "(" + flat + " / " + S(below) + ")";
        if (d > 0) idx = "(" + idx + " % " + S(sizes[d]) + ")";
        e += (e.empty() ? "" : " + ") + idx + " * " + S(strides[d]);
      }
      below *= sizes[d];
    }
    return e.empty() ? "0" : e;
  }

  // "const IT v1 = r % 8; r /= 8; const IT v0 = r;": `flat` as indices over sizes.
  static std::string Decompose(const std::string& flat, const std::vector<int64_t>& sizes, const std::string& prefix,
                               const std::string& it, const std::string& ind, std::vector<std::string>* vars) {
    std::string s;
    vars->clear();
    for (size_t d = 0; d < sizes.size(); ++d) vars->push_back(prefix + S(static_cast<int64_t>(d)));
    if (sizes.empty()) return s;
    if (sizes.size() == 1) return ind + "const " + it + " " + (*vars)[0] + " = " + flat + ";\n";
    const std::string rem = "rem_" + prefix;
    s += ind + it + " " + rem + " = " + flat + ";\n";
    for (size_t d = sizes.size(); d-- > 1;)
      s += ind + "const " + it + " " + (*vars)[d] + " = " + rem + " % " + S(sizes[d]) + "; " + rem +
           " /= " + S(sizes[d]) + ";\n";
    s += ind + "const " + it + " " + (*vars)[0] + " = " + rem + ";\n";
    return s;
  }

  // A grid-stride loop over the elements of `sizes`: `inner` sees the
  // indices v0.. (and the flat index i); launched on the step's stream.
  void Flat(const std::string& comment, const std::vector<int64_t>& sizes,
            const std::function<std::string(const std::vector<std::string>&)>& inner) {
    const int64_t n = Product(sizes);
    if (n == 0) return;
    const std::string it = IndexType(n);
    std::vector<std::string> v;
    std::string body = "  for (" + it + " i = (" + it + ")blockIdx.x * (" + it + ")blockDim.x + (" + it +
                       ")threadIdx.x; i < (" + it + ")" + S(n) + "; i += (" + it + ")gridDim.x * (" + it +
                       ")blockDim.x) {\n";
    body += Decompose("i", sizes, "v", it, "    ", &v);
    body += inner(v);
    body += "  }\n";
    host_ << "  "
          << Kernel(comment, body, "aot__blocks(c->sms, " + S(n) + ", " + S(opts_.block_size) + ")", opts_.block_size);
  }

  void ElementLoop(const std::string& part, const std::vector<int64_t>& sizes, const ElementBody& body) override {
    Flat(part.empty() ? step_comment_ : step_comment_ + " (" + part + ")", sizes,
         [&](const std::vector<std::string>& v) { return body(v, "    "); });
  }

  // A block per row (grid-stride over rows): `inner` runs for row indices o0..
  // with the block's threads striding over the row.
  void Rows(const std::string& comment, const std::vector<int64_t>& outer, int64_t row_len, const std::string& prologue,
            const std::function<std::string(const std::vector<std::string>&, const std::string& it)>& inner) {
    const int64_t rows = Product(outer);
    if (rows == 0) return;
    const std::string it = IndexType(std::max(rows, row_len));
    const int block = RowBlock(row_len, rows);
    std::vector<std::string> vo;
    std::string body = prologue;
    body += "  for (" + it + " o = (" + it + ")blockIdx.x; o < (" + it + ")" + S(rows) + "; o += (" + it +
            ")gridDim.x) {\n";
    body += Decompose("o", outer, "o", it, "    ", &vo);
    body += inner(vo, it);
    body += "  }\n";
    host_ << "  " << Kernel(comment, body, "aot__blocks(c->sms, " + S(rows) + ", 1)", block);
  }

  // ---- elementwise (fused) ----
  // n's result (in its output dtype) as a CUDA expression; `self_expr` replaces
  // argument 0 (the running value of an in-place run).
  StatusOr<std::string> Expr(const Node* n, const std::string& self_expr) {
    return FusedExpr(n, self_expr, fused_, load_expr_);
  }

  // The statements computing one element into `store` from load_expr_.
  StatusOr<std::string> Chain(const std::vector<const Node*>& group, const Value* target, bool load_target,
                              const std::string& tct, const std::string& store, const std::string& ind) {
    std::string s, running;
    if (load_target) {
      AOT_ASSIGN_OR_RETURN(running, PreparedLoad(load_expr_, group[0], target));
    }
    for (size_t k = 0; k < group.size(); ++k) {
      AOT_ASSIGN_OR_RETURN(std::string e, Expr(group[k], group[k]->op().Writes() ? running : ""));
      std::string var = "t" + S(static_cast<int64_t>(k));
      s += ind + "const " + tct + " " + var + " = " + e + "; (void)" + var + ";\n";
      running = var;
    }
    return s + ind + store + " = " + running + ";\n";
  }

  static std::string Index(const std::string& p, const std::vector<int64_t>& st, const std::vector<std::string>& vars) {
    return p + "[" + LinearIndex(vars, st) + "]";
  }

  Status EmitElementwise(const std::vector<const Node*>& group, const Value* target) {
    std::string comment;
    for (const Node* n : group) comment += (comment.empty() ? "" : "; ") + NodeText(n);
    comment = "fused elementwise: " + comment;
    BeginStep(comment);
    std::vector<const Value*> loads;
    for (size_t k = 0; k < group.size(); ++k)
      FusedLoads(group[k], k == 0 && !group[0]->op().Writes() ? -1 : 0, fused_, &loads);
    const bool load_target = group[0]->op().Writes();  // the run starts from the target's current content
    if (load_target && std::find(loads.begin(), loads.end(), target) == loads.end()) loads.push_back(target);
    const std::vector<int64_t>& sizes = target->meta().sizes;
    std::vector<std::vector<int64_t>> strides;
    for (const Value* v : loads) strides.push_back(BroadcastStrides(v->meta(), sizes));
    strides.push_back(target->meta().strides);
    LoopSpace sp = CoalesceLoops(sizes, strides);
    const int64_t n = Product(sp.sizes);
    std::vector<std::string> pl;
    for (const Value* v : loads) {
      AOT_ASSIGN_OR_RETURN(std::string p, Ptr(v));
      pl.push_back(p);
    }
    AOT_ASSIGN_OR_RETURN(std::string tp, Ptr(target));
    AOT_ASSIGN_OR_RETURN(std::string tct, CType(target->meta().dtype));
    if (n == 0) {
      EndStep();
      return Status::Ok();
    }
    const std::string it = IndexType(n);
    const std::string tid = "(" + it + ")blockIdx.x * (" + it + ")blockDim.x + (" + it + ")threadIdx.x";
    const std::string stride = "(" + it + ")gridDim.x * (" + it + ")blockDim.x";
    // Scalar kernel: a grid-stride loop over the coalesced index space.
    std::vector<std::string> vars;
    std::string idx = Decompose("i", sp.sizes, "i", it, "    ", &vars);
    load_expr_.clear();
    for (size_t k = 0; k < loads.size(); ++k) load_expr_[loads[k]] = Index(pl[k], sp.strides[k], vars);
    AOT_ASSIGN_OR_RETURN(std::string scalar,
                         Chain(group, target, load_target, tct, Index(tp, sp.strides.back(), vars), "    "));
    std::string body = "  for (" + it + " i = " + tid + "; i < (" + it + ")" + S(n) + "; i += " + stride + ") {\n" +
                       idx + scalar + "  }\n";
    // Vector kernel: float4 loads and stores when the space is flat and every
    // tensor runs along it contiguously (or is one broadcast value).
    bool vec = sp.sizes.size() == 1 && n >= 8 && target->meta().dtype == DType::kFloat32 && sp.strides.back()[0] == 1;
    for (size_t k = 0; k < loads.size() && vec; ++k) {
      const int64_t s = sp.strides[k][0];
      if (s != 0 && !(s == 1 && loads[k]->meta().dtype == DType::kFloat32)) vec = false;
    }
    const std::string scalar_launch =
        Kernel(comment, body, "aot__blocks(c->sms, " + S(n) + ", " + S(opts_.block_size) + ")", opts_.block_size);
    if (!vec) {
      host_ << "  " << scalar_launch;
      EndStep();
      return Status::Ok();
    }
    const int64_t n4 = n / 4;
    std::string vb = "  for (" + it + " q = " + tid + "; q < (" + it + ")" + S(n4) + "; q += " + stride + ") {\n";
    std::string lanes;
    for (const char* lane : {"x", "y", "z", "w"}) {
      for (size_t k = 0; k < loads.size(); ++k)
        load_expr_[loads[k]] = sp.strides[k][0] == 1 ? "a" + S(static_cast<int64_t>(k)) + "." + lane : pl[k] + "[0]";
      AOT_ASSIGN_OR_RETURN(std::string lane_code,
                           Chain(group, target, load_target, tct, std::string("o.") + lane, "      "));
      lanes += "    {\n" + lane_code + "    }\n";
    }
    // Load only the vectors the lanes read (a fill_ target is written, not
    // read: nvcc -Werror rejects the unused variable).
    std::string aligned;
    for (size_t k = 0; k < loads.size(); ++k)
      if (sp.strides[k][0] == 1) {
        const std::string a = "a" + S(static_cast<int64_t>(k));
        if (!ReadsVar(lanes, a)) continue;
        vb += "    const float4 " + a + " = reinterpret_cast<const float4*>(" + pl[k] + ")[q];\n";
        aligned += "(uintptr_t)" + pl[k] + " | ";
      }
    vb += "    float4 o;\n" + lanes;
    vb += "    reinterpret_cast<float4*>(" + tp + ")[q] = o;\n  }\n";
    if (n % 4 != 0) {  // the last n % 4 elements
      for (size_t k = 0; k < loads.size(); ++k) load_expr_[loads[k]] = Index(pl[k], sp.strides[k], {"i"});
      AOT_ASSIGN_OR_RETURN(std::string tail, Chain(group, target, load_target, tct, tp + "[i]", "    "));
      vb += "  for (" + it + " i = " + S(n4 * 4) + " + " + tid + "; i < (" + it + ")" + S(n) + "; i += " + stride +
            ") {\n" + tail + "  }\n";
    }
    const std::string vec_launch = Kernel(
        comment + " (float4)", vb, "aot__blocks(c->sms, " + S(n4) + ", " + S(opts_.block_size) + ")", opts_.block_size);
    --step_launches_;  // one of the two runs
    host_ << "  if (((" << aligned << "(uintptr_t)" << tp << ") & 15u) == 0) {\n    " << vec_launch
          << "  } else {\n    " << scalar_launch << "  }\n";
    EndStep();
    return Status::Ok();
  }

  // ---- other kernels ----

  const char* BackendName() const override { return "CUDA"; }

  Status EmitKernel(const Node* n) {
    BeginStep(NodeText(n));
    AOT_RETURN_IF_ERROR(LowerKernel(*this, n));
    EndStep();
    return Status::Ok();
  }

  // out <- in, element k of in's row-major order to element k of out's.
  Status CopyInOrder(const Value* in, const Value* out) {
    if (in->meta().numel() != out->meta().numel()) return Unsupported("copy between different element counts");
    AOT_ASSIGN_OR_RETURN(std::string pi, Ptr(in));
    AOT_ASSIGN_OR_RETURN(std::string po, Ptr(out));
    const std::string it = IndexType(in->meta().numel());
    Flat(step_comment_, in->meta().sizes, [&](const std::vector<std::string>& v) {
      std::vector<std::string> w;
      std::string s = Decompose("i", out->meta().sizes, "w", it, "    ", &w);
      return s + "    " + po + "[" + LinearIndex(w, out->meta().strides) +
             "] = " + CCast(pi + "[" + LinearIndex(v, in->meta().strides) + "]", out->meta().dtype) + ";\n";
    });
    return Status::Ok();
  }

  Status Reduce(const Node* n) {
    const Value* x = n->input(0);
    const Value* y = n->output();
    const std::string& name = n->op().schema.name;
    AOT_ASSIGN_OR_RETURN(const ReductionDims rd, ReduceDims(n));
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    DType adt = IsFloatingPoint(y->meta().dtype)
                    ? (x->meta().dtype == DType::kFloat64 || y->meta().dtype == DType::kFloat64 ? DType::kFloat64
                                                                                                : DType::kFloat32)
                    : DType::kInt64;
    const std::string acc_t = AccType(adt);
    const std::vector<int64_t>&outer = rd.outer, &inner = rd.inner, &xo = rd.x_outer, &xi = rd.x_inner,
          &yo = rd.y_outer;
    const int64_t count = rd.count;
    const bool minmax = name == "amax" || name == "amin";
    if (minmax && count == 0) return Unsupported(name + " over an empty dimension");
    const std::string op = name == "sum" || name == "mean" ? "aot__add"
                           : name == "prod"                ? "aot__mul"
                           : name == "amax"                ? "aot__max"
                                                           : "aot__min";
    const std::string init = name == "sum" || name == "mean" ? "(" + acc_t + ")0"
                             : name == "prod"                ? "(" + acc_t + ")1"
                                                             : "";
    Rows(step_comment_, outer, count, "  __shared__ " + acc_t + " sh[32];\n",
         [&](const std::vector<std::string>& vo, const std::string& it) {
           std::string s = "    const " + it + " xb = " + LinearIndex(vo, xo) + ";\n";
           s += "    " + acc_t + " acc = " + (minmax ? "(" + acc_t + ")" + px + "[xb]" : init) + ";\n";
           s += "    for (" + it + " r = (" + it + ")threadIdx.x; r < (" + it + ")" + S(count) + "; r += (" + it +
                ")blockDim.x) {\n";
           std::vector<std::string> vi;
           s += Decompose("r", inner, "r", it, "      ", &vi);
           s += "      acc = " + op + "()(acc, (" + acc_t + ")" + px + "[xb + " + LinearIndex(vi, xi) + "]);\n    }\n";
           s += "    acc = aot__block_reduce(acc, " + op + "(), sh);\n";
           std::string val = name == "mean" ? "acc / (" + acc_t + ")" + S(count) : std::string("acc");
           s += "    if (threadIdx.x == 0) " + py + "[" + LinearIndex(vo, yo) + "] = " + CCast(val, y->meta().dtype) +
                ";\n";
           return s;
         });
    return Status::Ok();
  }

  Status ReduceWithIndex(const Node* n) {
    const Value* x = n->input(0);
    AOT_ASSIGN_OR_RETURN(const IndexReductionDims ir, IndexReduceDims(n));
    const bool is_max = ir.is_max;
    const Value *vals = ir.values, *idx = ir.indices;
    const int64_t len = ir.len;
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string pv, OptPtr(vals));
    AOT_ASSIGN_OR_RETURN(std::string pi, Ptr(idx));
    const std::vector<int64_t>&outer = ir.outer, &xo = ir.x_outer, &yo = ir.idx_outer, &vo_st = ir.values_outer;
    const std::string acc_t = AccType(x->meta().dtype);
    const std::string km = is_max ? "true" : "false";
    Rows(step_comment_, outer, len, "  __shared__ " + acc_t + " shv[32];\n  __shared__ int64_t shi[32];\n",
         [&](const std::vector<std::string>& vo, const std::string& it) {
           std::string s = "    const " + it + " xb = " + LinearIndex(vo, xo) + ";\n";
           s += "    " + acc_t + " best = (" + acc_t + ")" + px + "[xb]; int64_t bi = 0;\n";
           s += "    for (" + it + " r = (" + it + ")threadIdx.x; r < (" + it + ")" + S(len) + "; r += (" + it +
                ")blockDim.x) {\n";
           s += "      const " + acc_t + " v = (" + acc_t + ")" + px + "[xb + r * " + S(ir.x_step) + "];\n";
           s += "      if (aot__better<" + km + ">(v, (int64_t)r, best, bi)) { best = v; bi = (int64_t)r; }\n    }\n";
           s += "    aot__block_arg<" + km + ">(&best, &bi, shv, shi);\n";
           s += "    if (threadIdx.x == 0) {\n";
           if (vals)
             s += "      " + pv + "[" + LinearIndex(vo, vo_st) + "] = " + CCast("best", vals->meta().dtype) + ";\n";
           s += "      " + pi + "[" + LinearIndex(vo, yo) + "] = bi;\n    }\n";
           return s;
         });
    return Status::Ok();
  }

  Status Softmax(const Node* n) {
    const Value* x = n->input(0);
    const Value* y = n->output();
    const bool log = n->op().schema.name.find("log") != std::string::npos;
    AOT_ASSIGN_OR_RETURN(const RowsAlong ra, RowsAlongDim(n, x, y, n->args()[1].literal.i));
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    const std::vector<int64_t>&outer = ra.outer, &xo = ra.x_outer, &yo = ra.y_outer;
    const int64_t len = ra.len, xs = ra.x_step, ys = ra.y_step;
    const std::string a = AccType(
        y->meta().dtype == DType::kFloat64 || x->meta().dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32);
    const std::string f = a == "float" ? "f" : "";
    // Three passes over the row (max, sum of exponentials, result); each
    // thread reads element r before it writes it, so y may be x's buffer.
    Rows(step_comment_, outer, len, "  __shared__ " + a + " sh[32];\n",
         [&](const std::vector<std::string>& vo, const std::string& it) {
           const std::string loop = "    for (" + it + " r = (" + it + ")threadIdx.x; r < (" + it + ")" + S(len) +
                                    "; r += (" + it + ")blockDim.x)";
           const std::string xv = "(" + a + ")" + px + "[xb + r * " + S(xs) + "]";
           std::string s = "    const " + it + " xb = " + LinearIndex(vo, xo) + ", yb = " + LinearIndex(vo, yo) + ";\n";
           s += "    " + a + " m = -INFINITY, sum = 0;\n";
           s += loop + " m = aot__max()(m, " + xv + ");\n";
           s += "    m = aot__block_reduce(m, aot__max(), sh);\n";
           s += loop + " sum += exp" + f + "(" + xv + " - m);\n";
           s += "    sum = aot__block_reduce(sum, aot__add(), sh);\n";
           if (log) {
             s += "    const " + a + " ls = log" + f + "(sum);\n";
             s += loop + " " + py + "[yb + r * " + S(ys) + "] = " + CCast(xv + " - m - ls", y->meta().dtype) + ";\n";
           } else {
             s += "    const " + a + " inv = (" + a + ")1 / sum;\n";
             s += loop + " " + py + "[yb + r * " + S(ys) +
                  "] = " + CCast("exp" + f + "(" + xv + " - m) * inv", y->meta().dtype) + ";\n";
           }
           return s;
         });
    return Status::Ok();
  }

  Status LayerNorm(const Node* n) {
    const Value* x = n->input(0);
    const Value* y = n->output(0);
    const auto& shape = n->args()[1].literal.ints;
    const Value* w = n->input(2);
    const Value* b = n->input(3);
    const double eps = n->args()[4].literal.kind == Literal::Kind::kFloat ? n->args()[4].literal.f : 1e-5;
    const int64_t inner = Product(shape);
    const int64_t rows = x->meta().numel() / std::max<int64_t>(inner, 1);
    // Rows and normalized elements of strided x and y (ConvNeXt normalizes
    // the channels of a permuted tensor): each gets its offset from its index.
    const TensorMeta &xm = x->meta(), &ym = y->meta();
    const bool dense = xm.IsContiguous() && ym.IsContiguous();
    const size_t k = std::min(shape.size(), xm.sizes.size()), outer = xm.sizes.size() - k;
    auto part = [&](const std::vector<int64_t>& v, bool inner_part) {
      return inner_part ? std::vector<int64_t>(v.begin() + static_cast<std::ptrdiff_t>(outer), v.end())
                        : std::vector<int64_t>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(outer));
    };
    auto at = [&](const std::string& var, const TensorMeta& m, bool inner_part) {
      return OffsetOf(var, part(m.sizes, inner_part), part(m.strides, inner_part));
    };
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    std::string pw, pb, pm, pr;
    if (w) {
      if (!w->meta().IsContiguous()) return Unsupported("strided layer_norm weight");
      AOT_ASSIGN_OR_RETURN(pw, Ptr(w));
    }
    if (b) {
      if (!b->meta().IsContiguous()) return Unsupported("strided layer_norm bias");
      AOT_ASSIGN_OR_RETURN(pb, Ptr(b));
    }
    if (n->outputs().size() == 3) {
      AOT_ASSIGN_OR_RETURN(pm, Ptr(n->output(1)));
      AOT_ASSIGN_OR_RETURN(pr, Ptr(n->output(2)));
    }
    const std::string a = AccType(x->meta().dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32);
    const std::string sq = a == "float" ? "sqrtf" : "sqrt";
    // Two-pass mean and variance; each thread reads x[j] before writing y[j].
    Rows(step_comment_, {rows}, inner, "  __shared__ " + a + " sh[32];\n",
         [&](const std::vector<std::string>& vo, const std::string& it) {
           const std::string loop = "    for (" + it + " j = (" + it + ")threadIdx.x; j < (" + it + ")" + S(inner) +
                                    "; j += (" + it + ")blockDim.x)";
           std::string s, xj = "ob + j", yj = "ob + j";
           if (dense) {
             s = "    const " + it + " ob = " + vo[0] + " * " + S(inner) + ";\n";
           } else {
             s = "    const " + it + " xb = " + at(vo[0], xm, false) + ", yb = " + at(vo[0], ym, false) + ";\n";
             xj = "xb + " + at("j", xm, true);
             yj = "yb + " + at("j", ym, true);
           }
           s += "    " + a + " mean = 0, var = 0;\n";
           s += loop + " mean += (" + a + ")" + px + "[" + xj + "];\n";
           s += "    mean = aot__block_reduce(mean, aot__add(), sh) / (" + a + ")" + S(inner) + ";\n";
           s += loop + " { const " + a + " d = (" + a + ")" + px + "[" + xj + "] - mean; var += d * d; }\n";
           s += "    var = aot__block_reduce(var, aot__add(), sh) / (" + a + ")" + S(inner) + ";\n";
           s += "    const " + a + " rstd = (" + a + ")1 / " + sq + "(var + (" + a + ")" + FormatDouble(eps) + ");\n";
           s += loop + " {\n      " + a + " v = ((" + a + ")" + px + "[" + xj + "] - mean) * rstd;\n";
           if (w) s += "      v *= (" + a + ")" + pw + "[j];\n";
           if (b) s += "      v += (" + a + ")" + pb + "[j];\n";
           s += "      " + py + "[" + yj + "] = " + CCast("v", y->meta().dtype) + ";\n    }\n";
           if (!pm.empty())
             s += "    if (threadIdx.x == 0) { " + pm + "[" + vo[0] +
                  "] = " + CCast("mean", n->output(1)->meta().dtype) + "; " + pr + "[" + vo[0] +
                  "] = " + CCast("rstd", n->output(2)->meta().dtype) + "; }\n";
           return s;
         });
    return Status::Ok();
  }

  Status BatchNorm(const Node* n) {
    if (n->args()[5].literal.kind != Literal::Kind::kBool || n->args()[5].literal.b)
      return Unsupported("batch_norm in training mode");
    const Value* x = n->input(0);
    const Value* y = n->output();
    const Value *w = n->input(1), *b = n->input(2), *mean = n->input(3), *var = n->input(4);
    if (!mean || !var) return Unsupported("batch_norm without running statistics");
    const double eps = n->args()[7].literal.f;
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    AOT_ASSIGN_OR_RETURN(std::string pm, Ptr(mean));
    AOT_ASSIGN_OR_RETURN(std::string pv, Ptr(var));
    AOT_ASSIGN_OR_RETURN(std::string pw, OptPtr(w));
    AOT_ASSIGN_OR_RETURN(std::string pb, OptPtr(b));
    const std::string a = AccType(x->meta().dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32);
    const std::string sq = a == "float" ? "sqrtf" : "sqrt";
    Flat(step_comment_, x->meta().sizes, [&](const std::vector<std::string>& v) {
      const std::string ch = v.size() > 1 ? v[1] : "0";
      auto at = [&](const std::string& p, const Value* t) {
        return "(" + a + ")" + p + "[" + ch + " * " + S(t->meta().strides[0]) + "]";
      };
      std::string e = "((" + a + ")" + px + "[" + LinearIndex(v, x->meta().strides) + "] - " + at(pm, mean) + ") / " +
                      sq + "(" + at(pv, var) + " + (" + a + ")" + FormatDouble(eps) + ")";
      if (w) e = "(" + e + ") * " + at(pw, w);
      if (b) e = "(" + e + ") + " + at(pb, b);
      return "    " + py + "[" + LinearIndex(v, y->meta().strides) + "] = " + CCast(e, y->meta().dtype) + ";\n";
    });
    return Status::Ok();
  }

  // C[b] = alpha A[b] @ B[b] + beta C[b] through cuBLAS (row-major through
  // the transpose: C^T = B^T A^T in column-major), batch dims broadcast and
  // merged into strided batches where they allow.
  Status Matmul(const Node* n) {
    const Value* y = n->output();
    AOT_ASSIGN_OR_RETURN(const MatmulShape ms, AnalyzeMatmul(n));
    const Value *a = ms.a, *b = ms.b, *bias = ms.bias;
    const bool a_vec = ms.a_vec, b_vec = ms.b_vec;
    const double alpha = ms.alpha, beta = ms.beta;
    const TensorMeta &am = ms.am, &bm = ms.bm, &ym = ms.ym;
    const size_t ra = am.sizes.size(), rb = bm.sizes.size(), ry = ym.sizes.size();
    const int64_t M = ms.M, K = ms.K, N = ms.N;
    const std::vector<int64_t>& batch = ms.batch;
    auto batch_strides = [&](const TensorMeta& m) { return ms.BatchStrides(m); };
    if (bias && (a_vec || b_vec)) return Unsupported("matmul with bias on vectors");
    if (M == 0 || N == 0 || Product(batch) == 0) return Status::Ok();
    if (K == 0) return Unsupported("matmul with an empty inner dimension");
    const BlasOperand ob = BlasView(K, N, bm.strides[rb - 2], bm.strides[rb - 1]);
    const BlasOperand oa = BlasView(M, K, am.strides[ra - 2], am.strides[ra - 1]);
    const BlasOperand oc = BlasView(M, N, ym.strides[ry - 2], ym.strides[ry - 1]);
    if (!ob.ok || !oa.ok) return Unsupported("matmul operand without a unit stride in its last two dimensions");
    if (!oc.ok || oc.trans) return Unsupported("matmul result is not row-major in its last two dimensions");
    for (int64_t v : {M, N, K, oa.ld, ob.ld, oc.ld})
      if (v > INT_MAX) return Unsupported("matmul dimension beyond cuBLAS's int range");
    AOT_ASSIGN_OR_RETURN(std::string pa, Ptr(a));
    AOT_ASSIGN_OR_RETURN(std::string pb, Ptr(b));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    if (bias) {
      // Broadcast the bias into C first; the GEMM then adds with beta.
      AOT_ASSIGN_OR_RETURN(std::string pbias, Ptr(bias));
      const std::vector<int64_t> bs = BroadcastStrides(bias->meta(), y->meta().sizes);
      Flat(step_comment_ + " (bias)", y->meta().sizes, [&](const std::vector<std::string>& v) {
        return "    " + py + "[" + LinearIndex(v, y->meta().strides) + "] = " + pbias + "[" + LinearIndex(v, bs) +
               "];\n";
      });
    }
    LoopSpace sp = CoalesceLoops(batch, {batch_strides(am), batch_strides(bm), batch_strides(ym)});
    int64_t count = 1, sa = 0, sb = 0, sc = 0;
    if (!sp.sizes.empty()) {
      count = sp.sizes.back();
      sa = sp.strides[0].back();
      sb = sp.strides[1].back();
      sc = sp.strides[2].back();
      if (count > INT_MAX) return Unsupported("matmul batch beyond cuBLAS's int range");
    }
    host_ << "  {\n    const float alpha = " << FormatDouble(alpha) << "f, beta = " << FormatDouble(beta) << "f;\n";
    std::string ind = "    ";
    std::vector<std::string> vb;
    for (size_t d = 0; d + 1 < sp.sizes.size(); ++d) {  // batch dims cuBLAS cannot stride over: a host loop
      vb.push_back("b" + S(static_cast<int64_t>(d)));
      host_ << ind << "for (int64_t " << vb.back() << " = 0; " << vb.back() << " < " << sp.sizes[d] << "; ++"
            << vb.back() << ")\n";
      ind += "  ";
    }
    auto off = [&](size_t t) {
      std::vector<int64_t> st(sp.strides[t].begin(), sp.strides[t].end() - (sp.strides[t].empty() ? 0 : 1));
      return LinearIndex(vb, st);
    };
    host_ << ind << "AOT__BLAS(cublasSgemmStridedBatched(c->blas, " << (ob.trans ? "CUBLAS_OP_T" : "CUBLAS_OP_N")
          << ", " << (oa.trans ? "CUBLAS_OP_T" : "CUBLAS_OP_N") << ", " << N << ", " << M << ", " << K << ", &alpha, "
          << pb << " + " << off(1) << ", " << ob.ld << ", " << sb << "LL, " << pa << " + " << off(0) << ", " << oa.ld
          << ", " << sa << "LL, &beta, " << py << " + " << off(2) << ", " << oc.ld << ", " << sc << "LL, " << count
          << "), \"cuBLAS SGEMM (" << n->op().qualified_name << ")\");\n  }\n";
    ++step_launches_;
    ++gemms_;
    uses_blas_ = true;
    return Status::Ok();
  }

  Status Conv2d(const Node* n) {
    const Value *x = n->input(0), *w = n->input(1), *bias = n->input(2), *y = n->output();
    AOT_ASSIGN_OR_RETURN(const Conv2dArgs ca, Conv2dArguments(n));
    const std::vector<int64_t>&stride = ca.stride, &pad = ca.pad, &dil = ca.dil;
    const int64_t groups = ca.groups;
    const auto& xs = x->meta().sizes;
    const auto& ws = w->meta().sizes;
    const int64_t cin_g = ws[1], cout_g = ws[0] / groups;
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string pw, Ptr(w));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    AOT_ASSIGN_OR_RETURN(std::string pb, OptPtr(bias));
    const auto& xst = x->meta().strides;
    const auto& wst = w->meta().strides;
    // One thread per output element (nb, oc, oh, ow), accumulating in float.
    Flat(step_comment_, y->meta().sizes, [&](const std::vector<std::string>& v) {
      std::string s = "    const int64_t g = (int64_t)" + v[1] + " / " + S(cout_g) + ";\n";
      s += "    float acc = " +
           (bias ? pb + "[" + v[1] + " * " + S(bias->meta().strides[0]) + "]" : std::string("0.f")) + ";\n";
      s += "    for (int64_t ic = 0; ic < " + S(cin_g) + "; ++ic)\n";
      s += "      for (int64_t kh = 0; kh < " + S(ws[2]) + "; ++kh) {\n";
      s += "        const int64_t ih = (int64_t)" + v[2] + " * " + S(stride[0]) + " - " + S(pad[0]) + " + kh * " +
           S(dil[0]) + ";\n";
      s += "        if (ih < 0 || ih >= " + S(xs[2]) + ") continue;\n";
      s += "        for (int64_t kw = 0; kw < " + S(ws[3]) + "; ++kw) {\n";
      s += "          const int64_t iw = (int64_t)" + v[3] + " * " + S(stride[1]) + " - " + S(pad[1]) + " + kw * " +
           S(dil[1]) + ";\n";
      s += "          if (iw < 0 || iw >= " + S(xs[3]) + ") continue;\n";
      s += "          acc += " + px + "[(int64_t)" + v[0] + " * " + S(xst[0]) + " + (g * " + S(cin_g) + " + ic) * " +
           S(xst[1]) + " + ih * " + S(xst[2]) + " + iw * " + S(xst[3]) + "] * " + pw + "[(int64_t)" + v[1] + " * " +
           S(wst[0]) + " + ic * " + S(wst[1]) + " + kh * " + S(wst[2]) + " + kw * " + S(wst[3]) + "];\n";
      s += "        }\n      }\n";
      s += "    " + py + "[" + LinearIndex(v, y->meta().strides) + "] = acc;\n";
      return s;
    });
    return Status::Ok();
  }

  Status Pool2d(const Node* n) {
    const Value *x = n->input(0), *y = n->output();
    AOT_ASSIGN_OR_RETURN(const Pool2dArgs pa, Pool2dArguments(n));
    const bool is_max = pa.is_max, count_pad = pa.count_pad;
    const std::vector<int64_t>&k = pa.k, &s = pa.s, &p = pa.p, &d = pa.d;
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    const auto& xs = x->meta().sizes;
    const auto& xst = x->meta().strides;
    const std::string a = AccType(x->meta().dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32);
    Flat(step_comment_, y->meta().sizes, [&](const std::vector<std::string>& v) {
      std::string b =
          "    " + a + " acc = " + (is_max ? "-INFINITY" : "0") + ";" + (is_max ? "" : " int cnt = 0;") + "\n";
      b += "    for (int64_t kh = 0; kh < " + S(k[0]) + "; ++kh)\n      for (int64_t kw = 0; kw < " + S(k[1]) +
           "; ++kw) {\n";
      b += "        const int64_t ih = (int64_t)" + v[2] + " * " + S(s[0]) + " - " + S(p[0]) + " + kh * " + S(d[0]) +
           ", iw = (int64_t)" + v[3] + " * " + S(s[1]) + " - " + S(p[1]) + " + kw * " + S(d[1]) + ";\n";
      if (!is_max && count_pad)
        b += "        if (ih < " + S(xs[2] + p[0]) + " && iw < " + S(xs[3] + p[1]) + ") ++cnt;\n";
      b += "        if (ih < 0 || ih >= " + S(xs[2]) + " || iw < 0 || iw >= " + S(xs[3]) + ") continue;\n";
      if (!is_max && !count_pad) b += "        ++cnt;\n";
      b += "        const " + a + " x = (" + a + ")" + px + "[(int64_t)" + v[0] + " * " + S(xst[0]) + " + (int64_t)" +
           v[1] + " * " + S(xst[1]) + " + ih * " + S(xst[2]) + " + iw * " + S(xst[3]) + "];\n";
      b += is_max ? "        acc = aot__max()(x, acc);\n" : "        acc += x;\n";
      b += "      }\n";
      std::string val = is_max ? "acc" : "(cnt ? acc / (" + a + ")cnt : (" + a + ")0)";
      b += "    " + py + "[" + LinearIndex(v, y->meta().strides) + "] = " + CCast(val, y->meta().dtype) + ";\n";
      return b;
    });
    return Status::Ok();
  }

  Status AdaptiveAvgPool2d(const Node* n) {
    const Value *x = n->input(0), *y = n->output();
    if (x->meta().sizes.size() != 4) return Unsupported("only 4-D adaptive pooling");
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    const int64_t H = x->meta().sizes[2], W = x->meta().sizes[3], OH = y->meta().sizes[2], OW = y->meta().sizes[3];
    const auto& xst = x->meta().strides;
    const std::string a = AccType(x->meta().dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32);
    // ATen's bins: start = floor(o*H/OH), end = ceil((o+1)*H/OH).
    Flat(step_comment_, y->meta().sizes, [&](const std::vector<std::string>& v) {
      std::string b = "    const int64_t h0 = ((int64_t)" + v[2] + " * " + S(H) + ") / " + S(OH) +
                      ", h1 = (((int64_t)" + v[2] + " + 1) * " + S(H) + " + " + S(OH - 1) + ") / " + S(OH) + ";\n";
      b += "    const int64_t w0 = ((int64_t)" + v[3] + " * " + S(W) + ") / " + S(OW) + ", w1 = (((int64_t)" + v[3] +
           " + 1) * " + S(W) + " + " + S(OW - 1) + ") / " + S(OW) + ";\n";
      b += "    " + a + " acc = 0;\n";
      b += "    for (int64_t h = h0; h < h1; ++h)\n      for (int64_t w = w0; w < w1; ++w) acc += (" + a + ")" + px +
           "[(int64_t)" + v[0] + " * " + S(xst[0]) + " + (int64_t)" + v[1] + " * " + S(xst[1]) + " + h * " + S(xst[2]) +
           " + w * " + S(xst[3]) + "];\n";
      b += "    " + py + "[" + LinearIndex(v, y->meta().strides) +
           "] = " + CCast("acc / (" + a + ")((h1 - h0) * (w1 - w0))", y->meta().dtype) + ";\n";
      return b;
    });
    return Status::Ok();
  }

  // y = x[indices] (index.Tensor): a gather over y's elements.
  Status Index(const Node* n) override {
    const Value *x = n->input(0), *y = n->output();
    AOT_ASSIGN_OR_RETURN(AdvancedIndex ai, AnalyzeIndexNode(n));
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    AOT_ASSIGN_OR_RETURN(std::vector<std::string> ptrs, IndexTensorPtrs(ai, [this](const Value* t) { return Ptr(t); }));
    Flat(step_comment_, y->meta().sizes, [&](const std::vector<std::string>& v) {
      GatherText gt =
          AdvancedIndexText(ai, x->meta(), v, ptrs, "    ", [&](const std::string& raw, int64_t size, size_t d) {
            return IndexFail(raw, -size, size, IndexWhere(n, x, d));
          });
      return gt.decls + "    " + py + "[" + LinearIndex(v, y->meta().strides) +
             "] = " + CCast(px + "[" + gt.offset + "]", y->meta().dtype) + ";\n";
    });
    return Status::Ok();
  }

  // out = self with values written (or added) at the indexed positions.
  Status IndexPut(const Node* n) {
    const Value *self = n->input(0), *values = n->input(2), *out = n->output();
    const bool acc = n->args()[3].literal.kind == Literal::Kind::kBool && n->args()[3].literal.b;
    const std::vector<Value*>& idx = n->args()[1].list;
    int pos = -1;
    for (size_t k = 0; k < idx.size(); ++k)
      if (idx[k]) {
        if (pos >= 0) return Unsupported("index_put with several index tensors");
        pos = static_cast<int>(k);
      }
    if (pos < 0) return Unsupported("index_put without an index tensor");
    const Value* ix = idx[static_cast<size_t>(pos)];
    const bool mask = ix->meta().dtype == DType::kBool || ix->meta().dtype == DType::kUInt8;
    if (mask && (pos != 0 || values->meta().numel() != 1))
      return Unsupported("boolean-mask index_put needs a single value");
    if (!mask && ix->meta().sizes.size() != 1) return Unsupported("index_put with a multi-dimensional index tensor");
    const TensorMeta& om = out->meta();
    std::string atomic;
    if (acc && !mask) {
      switch (om.dtype) {
        case DType::kFloat32:
        case DType::kFloat64:
        case DType::kInt32:
          atomic = "atomicAdd(&";
          break;
        case DType::kInt64:
          atomic = "atomicAdd((unsigned long long*)&";
          break;
        default:
          return Unsupported("accumulating index_put in dtype " + std::string(DTypeName(om.dtype)));
      }
    }
    if (out->meta().storage != self->meta().storage) AOT_RETURN_IF_ERROR(CopyInOrder(self, out));
    AOT_ASSIGN_OR_RETURN(std::string po, Ptr(out));
    AOT_ASSIGN_OR_RETURN(std::string pv, Ptr(values));
    AOT_ASSIGN_OR_RETURN(std::string pi, Ptr(ix));
    const std::string op = acc ? " += " : " = ";
    if (mask) {
      const TensorMeta& mm = ix->meta();
      Flat(step_comment_, om.sizes, [&](const std::vector<std::string>& v) {
        std::vector<std::string> mv(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mm.sizes.size()));
        return "    if (" + pi + "[" + LinearIndex(mv, mm.strides) + "]) " + po + "[" + LinearIndex(v, om.strides) +
               "]" + op + CCast(pv + "[0]", om.dtype) + ";\n";
      });
      return Status::Ok();
    }
    std::vector<int64_t> space = om.sizes;
    space[static_cast<size_t>(pos)] = ix->meta().sizes[0];
    Flat(step_comment_, space, [&](const std::vector<std::string>& v) {
      const int64_t size = om.sizes[static_cast<size_t>(pos)];
      std::string b = "    const int64_t r = (int64_t)" + pi + "[" + v[static_cast<size_t>(pos)] + " * " +
                      S(ix->meta().strides[0]) + "];\n";
      b += "    const int64_t k = r < 0 ? r + " + S(size) + " : r;\n";
      b += "    if (k < 0 || k >= " + S(size) + ") " +
           IndexFail("r", -size, size, IndexWhere(n, self, static_cast<size_t>(pos))) + "\n";
      std::vector<std::string> ov = v;
      ov[static_cast<size_t>(pos)] = "k";
      const std::string dst = po + "[" + LinearIndex(ov, om.strides) + "]";
      const std::string val = CCast(pv + "[" + LinearIndex(v, BroadcastStrides(values->meta(), space)) + "]", om.dtype);
      if (!atomic.empty()) {  // duplicate indices add up
        const std::string cast = om.dtype == DType::kInt64 ? "(unsigned long long)" : "";
        return b + "    " + atomic + dst + ", " + cast + val + ");\n";
      }
      return b + "    " + dst + op + val + ";\n";
    });
    return Status::Ok();
  }

  // Outputs not written in place: inputs or weights returned as they are, a
  // second output sharing a buffer, a partial view of an arena buffer.
  Status EmitOutputCopies() {
    for (size_t k = 0; k < g_.outputs().size(); ++k) {
      const Value* v = g_.outputs()[k];
      const std::string here = "c->out[" + S(static_cast<int64_t>(k)) + "]";
      auto home = output_home_.find(v->meta().storage);
      if (home != output_home_.end() && home->second == static_cast<int64_t>(k) && v->meta().offset == 0 &&
          v->meta().IsContiguous())
        continue;
      BeginStep("output " + S(static_cast<int64_t>(k)) + " <- %" + v->name());
      AOT_ASSIGN_OR_RETURN(std::string src, Ptr(v));
      AOT_ASSIGN_OR_RETURN(std::string ct, CType(v->meta().dtype));
      std::string dst = RawPtr("(uint8_t*)" + here, ct);
      const std::vector<int64_t> cs = ContiguousStrides(v->meta().sizes);
      Flat(step_comment_, v->meta().sizes, [&](const std::vector<std::string>& vars) {
        return "    " + dst + "[" + LinearIndex(vars, cs) + "] = " + src + "[" + LinearIndex(vars, v->meta().strides) +
               "];\n";
      });
      EndStep();
    }
    return Status::Ok();
  }

  // ---- the files ----
  static int64_t AlignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

  StatusOr<GeneratedCuda> Assemble() {
    const std::string& N = opts_.name;
    const size_t nin = g_.inputs().size(), nout = g_.outputs().size();
    const int64_t arena = plan_.arena_bytes();
    const int64_t wbytes = static_cast<int64_t>(blob_.size());
    // Staging buffers: one per input and output, for host tensors.
    std::vector<int64_t> in_bytes, in_off, out_bytes, out_off;
    int64_t stage = 0;
    for (const Value* v : g_.inputs()) {
      in_bytes.push_back(v->meta().numel() * DTypeSize(v->meta().dtype));
      in_off.push_back(stage);
      stage = AlignUp(stage + in_bytes.back(), kStageAlign);
    }
    for (const Value* v : g_.outputs()) {
      out_bytes.push_back(v->meta().numel() * DTypeSize(v->meta().dtype));
      out_off.push_back(stage);
      stage = AlignUp(stage + out_bytes.back(), kStageAlign);
    }
    auto list = [](const std::vector<int64_t>& v) {
      std::string s;
      for (int64_t x : v) s += (s.empty() ? "" : ", ") + S(x);
      return s.empty() ? std::string("0") : s;
    };
    GeneratedCuda out;
    out.arena_bytes = arena;
    out.weight_bytes = wbytes;
    out.staging_bytes = stage;
    out.kernels = kernel_count_;
    out.gemms = gemms_;
    if (!opts_.embed_weights) out.weights = blob_;

    std::ostringstream h;
    h << "/* Generated by atenaot from " << CComment(opts_.source_note) << ". Do not edit. */\n";
    h << "#ifndef " << N << "_H_\n#define " << N
      << "_H_\n\n#include \"atenaot_model.h\"\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
    h << "/* The model's table (what aot_compiled_model_entry returns); device AOT_DEVICE_CUDA. */\n";
    h << "AOT_EXPORT const aot_compiled_model* " << N << "_model(void);\n";
    h << "/* Bytes of the device arena a run needs (the model allocates its own at open). */\n";
    h << "AOT_EXPORT size_t " << N << "_arena_bytes(void);\n\n";
    h << "#ifdef __cplusplus\n}\n#endif\n#endif\n";
    out.header = h.str();

    std::ostringstream c;
    c << "/* Generated by atenaot from " << CComment(opts_.source_note) << ". Do not edit.\n * CUDA: " << kernel_count_
      << " kernels, " << gemms_ << " cuBLAS GEMM call sites, device arena " << arena << " bytes ("
      << plan_.placement.algorithm << "), weights " << wbytes << " bytes, staging " << stage << " bytes. */\n";
    c << "#include \"" << N
      << ".h\"\n\n#include <cublas_v2.h>\n#include <cuda_runtime.h>\n#include <math.h>\n#include <stdint.h>\n"
      << "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n";
    c << kCSupportValidation << kCudaSupportDevice << kCudaSupportHost << "\n";
    if (opts_.embed_weights && wbytes > 0) {
      c << "/* The weights the kernels read, uploaded once at open. */\nstatic const unsigned char aot__weights["
        << wbytes << "] = {";
      for (size_t i = 0; i < blob_.size(); ++i) c << (i % 24 == 0 ? "\n  " : "") << static_cast<int>(blob_[i]) << ",";
      c << "\n};\n\n";
    }
    // This model's facts, for codegen/templates/aot_cuda_ctx.cuh and aot_cuda_model.cuh.
    const bool weights_arg = !opts_.embed_weights && wbytes > 0;
    c << "/* ---- this model's facts, for codegen/templates/aot_cuda_model.cuh ---- */\n"
      << ModelMacro("AOT_M_NAME_STR", CStringLiteral(N)) << SymbolMacros(N, {"_model", "_arena_bytes"})
      << ModelMacro("AOT_M_INPUTS", S(static_cast<int64_t>(nin)))
      << ModelMacro("AOT_M_OUTPUTS", S(static_cast<int64_t>(nout))) << ModelMacro("AOT_M_ARENA_BYTES", S(arena))
      << ModelMacro("AOT_M_STAGE_BYTES", S(stage)) << ModelMacro("AOT_M_WEIGHTS_BYTES", S(wbytes))
      << ModelMacro("AOT_M_WEIGHTS_ARG", weights_arg ? "1" : "0", "1: NAME.weights, passed to open")
      << ModelMacro("AOT_M_INDEX_SITES", S(static_cast<int64_t>(index_sites_.size())))
      << ModelMacro("AOT_M_BLAS", uses_blas_ ? "1" : "0") << ModelMacro("AOT_M_BLAS_WORKSPACE", S(kBlasWorkspace))
      << ModelMacro("AOT_M_MUTATED_INPUTS",
                    std::find(mutated_.begin(), mutated_.end(), true) != mutated_.end() ? "1" : "0")
      << "\n"
      << kCudaCtxSource << "\n";
    c << kernels_.str() << steps_.str();
    c << "static int aot__compute(const aot__ctx* c) {\n  int s = AOT_OK;\n"
      << calls_.str() << "  (void)c;\n  return s;\n}\n\n";
    AOT_ASSIGN_OR_RETURN(std::string ins, TensorInfoTable(g_, "aot__inputs", true));
    AOT_ASSIGN_OR_RETURN(std::string outs, TensorInfoTable(g_, "aot__outputs", false));
    c << ins << outs;
    // Only tables the run reads (nvcc -Werror rejects unused ones).
    if (nin)
      c << "static const size_t aot__in_bytes[] = {" << list(in_bytes) << "}, aot__in_stage[] = {" << list(in_off)
        << "};\n";
    if (nout)
      c << "static const size_t aot__out_bytes[] = {" << list(out_bytes) << "}, aot__out_stage[] = {" << list(out_off)
        << "};\n";
    c << "\n";
    if (!index_sites_.empty()) {
      c << "/* Gathers that check indices read from tensors: flag value k + 1 is site k. */\n"
        << "typedef struct aot__index_site {\n  int64_t lo, hi;\n  const char* where;\n} aot__index_site;\n"
        << "static const aot__index_site aot__index_sites[] = {\n";
      for (const IndexSite& q : index_sites_)
        c << "    {" << q.lo << ", " << q.hi << ", " << CStringLiteral(q.where) << "},\n";
      c << "};\n\n";
    }
    if (weights_arg) c << WeightsCheckSource(blob_);
    c << kCudaModelSource;
    out.source = c.str();
    return out;
  }

  const Graph& g_;
  const MemoryPlan& plan_;
  CudaCodegenOptions opts_;
  const std::unordered_set<const Value*>& fused_;  // the plan's fusion (KernelPlan)
  const std::vector<KernelStep>& kernel_steps_;
  std::unordered_map<int64_t, std::string> loc_;
  std::unordered_map<int64_t, const Value*> pending_weights_;
  std::unordered_map<int64_t, int64_t> output_home_;  // storage -> the output buffer it was planned into
  std::vector<bool> mutated_;
  std::vector<uint8_t> blob_;
  std::ostringstream kernels_, steps_, calls_, host_;
  std::string step_comment_;
  std::vector<std::pair<std::string, std::string>> ptrs_;  // name, element type
  std::unordered_map<const Value*, std::string> ptr_names_;
  LoadExprs load_expr_;
  std::vector<std::string> unsupported_;
  int64_t extent_ = 0;
  int step_launches_ = 0;
  std::string flag_ptr_;  // this step's pointer to the index flag (empty: not declared)
  struct IndexSite {
    int64_t lo, hi;
    std::string where;
  };
  std::vector<IndexSite> index_sites_;  // flag value k + 1: site k
  int step_count_ = 0;
  int kernel_count_ = 0;
  int gemms_ = 0;
  bool uses_blas_ = false;
};

}  // namespace

StatusOr<GeneratedCuda> GenerateCuda(const Graph& g, const MemoryPlan& plan, const KernelPlan& kernels,
                                     const CudaCodegenOptions& opts) {
  return CudaEmitter(g, plan, kernels, opts).Run();
}

}  // namespace atenaot
