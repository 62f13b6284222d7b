#include "codegen/c_codegen.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "codegen/abi_tables.h"
#include "codegen/c_support.h"
#include "codegen/c_text.h"
#include "codegen/c_threads.h"
#include "codegen/c_types.h"
#include "codegen/cpu_check.h"
#include "codegen/element_kernels.h"
#include "codegen/elementwise.h"
#include "codegen/epilogue.h"
#include "codegen/kernel_scratch.h"
#include "codegen/kernel_util.h"
#include "codegen/kernels/aot_kernels.h"
#include "codegen/kernels/kernels_source.h"
#include "ir/type_promotion.h"
#include "ir/view_meta.h"

namespace atenaot {
namespace {

// ---- which values fuse into their consumer --------------------------------

struct FusionInfo {
  std::unordered_set<const Value*> fused;  // computed inside their single consumer
};

FusionInfo ComputeFusion(const Graph& g) {
  FusionInfo f;
  std::unordered_map<int64_t, int> storage_count;
  std::unordered_map<int64_t, int64_t> last_write;  // storage -> last writing position
  std::unordered_map<const Node*, int64_t> pos;
  int64_t p = 0;
  for (const Node* n : g.nodes()) {
    pos[n] = p;
    for (const Value* o : n->outputs()) storage_count[o->meta().storage]++;
    if (n->op().Writes())
      for (int w : n->op().written_args)
        if (n->input(w)) last_write[n->input(w)->meta().storage] = p;
    ++p;
  }
  for (const Value* v : g.inputs()) storage_count[v->meta().storage]++;
  std::unordered_map<const Value*, std::unordered_set<int64_t>> reads;  // storages a fused value reads
  for (const Node* n : g.nodes()) {
    if (n->outputs().size() != 1 || n->op().Writes() || IsViewNode(n) || !FindElementwise(*n)) continue;
    const Value* u = n->output();
    if (u->uses().size() != 1 || !u->uses()[0].user || u->uses()[0].elem >= 0) continue;
    if (storage_count[u->meta().storage] != 1) continue;  // something views it
    const Node* c = u->uses()[0].user;
    if (!FindElementwise(*c) || IsViewNode(c) || c->outputs().empty()) continue;
    if (c->output()->meta().sizes != u->meta().sizes) continue;
    // What u's computation reads must not change before the consumer runs.
    std::unordered_set<int64_t> rs;
    for (const Value* in : n->InputValues()) {
      if (f.fused.count(in))
        rs.insert(reads[in].begin(), reads[in].end());
      else
        rs.insert(in->meta().storage);
    }
    bool stable = true;
    for (int64_t s : rs) {
      auto lw = last_write.find(s);
      if (lw != last_write.end() && lw->second > pos[n]) stable = false;
    }
    if (!stable) continue;
    f.fused.insert(u);
    reads[u] = std::move(rs);
  }
  return f;
}

// ---- the emitter -------------------------------------------------------------

class CEmitter final : public ElementKernels {
  static constexpr int64_t kTile = 512;  // elements per tile of a long elementwise run (2 KiB of floats)

 public:
  CEmitter(const Graph& g, const MemoryPlan& plan, const CodegenOptions& opts) : g_(g), plan_(plan), opts_(opts) {}

  StatusOr<GeneratedC> Run() {
    AOT_RETURN_IF_ERROR(CheckModelName(opts_.name));
    fusion_.fused = FusedAwayValues(g_, opts_);  // as PlanForCodegen planned
    AOT_RETURN_IF_ERROR(Locate());
    use_kl_ = opts_.kernel_library && !opts_.float_accumulation;
    const std::vector<KernelStep> steps = KernelSchedule(g_, fusion_.fused);
    for (size_t i = 0; i < steps.size(); ++i) {
      const KernelStep& k = steps[i];
      // In-place updates of a GEMM/conv result right after it may run in its store.
      epilogue_ = EpilogueMatch();
      std::vector<const Node*> rest;
      if (use_kl_ && !k.target && i + 1 < steps.size() && steps[i + 1].target && k.nodes[0]->outputs().size() == 1 &&
          steps[i + 1].target == k.nodes[0]->output()) {
        const KernelKind kind = ClassifyKernel(k.nodes[0]);
        if (kind == KernelKind::kConv2d || kind == KernelKind::kMatmul) {
          epilogue_ = MatchEpilogue(k.nodes[0]->output(), steps[i + 1].nodes, fusion_.fused);
          epilogue_group_ = steps[i + 1].nodes;
        }
      }
      Status s = k.target ? EmitElementwise(k.nodes, k.target) : EmitKernel(k.nodes[0]);
      if (!s.ok()) unsupported_.push_back(NodeText(k.nodes[0]) + ": " + s.message());
      if (epilogue_consumed_ && epilogue_.nodes > 0) {  // the next step's leading nodes ran in this store
        const KernelStep& e = steps[++i];
        std::vector<const Node*> left(e.nodes.begin() + static_cast<std::ptrdiff_t>(epilogue_.nodes), e.nodes.end());
        if (!left.empty()) {
          Status t = EmitElementwise(left, e.target);
          if (!t.ok()) unsupported_.push_back(NodeText(left[0]) + ": " + t.message());
        }
      }
      epilogue_consumed_ = false;
    }
    AOT_RETURN_IF_ERROR(EmitOutputCopies());
    if (!unsupported_.empty()) {
      std::string msg = std::to_string(unsupported_.size()) + " op(s) the C backend cannot compile:";
      for (const std::string& u : unsupported_) msg += " [" + u + "]";
      return Unsupported(msg);
    }
    AOT_ASSIGN_OR_RETURN(GeneratedC out, Assemble());
    if (opts_.embed_weights && !blob_.empty()) out.weights_asm = WeightsAsm();
    return out;
  }

  // NAME_weights.S: the blob as one read-only, 64-byte aligned object.
  std::string WeightsAsm() const {
    const std::string& N = opts_.name;
    const std::string data = N + "_weights_data";
    std::ostringstream a;
    a << "/* Generated by atenaot from " << CComment(opts_.source_note) << ". Do not edit.\n"
      << " * " << N << "'s weights (" << blob_.size() << " bytes), the symbol " << data << " of " << N << ".c.\n"
      << " * Assemble where " << N << "_weights.bin is (or with -Wa,-I,DIR): cc -c " << N
      << "_weights.S\n"
      // Build systems see only this file change (.incbin is no #include, so
      // Bazel's and make's dependency files miss the .bin): the CRC ties them.
      << " * CRC-32 of " << N << "_weights.bin: " << Crc32Hex(blob_) << " */\n"
      << "\t.section .rodata." << data << ",\"a\"\n"
      << "\t.balign 64\n"
      << "\t.globl " << data << "\n"
      << "\t.hidden " << data << "\n"
      << "\t.type " << data << ", %object\n"
      << data << ":\n"
      << "\t.incbin \"" << N << "_weights.bin\"\n"
      << "\t.size " << data << ", . - " << data << "\n"
      << "#if defined(__ELF__)\n\t.section .note.GNU-stack,\"\",%progbits\n#endif\n";
    return a.str();
  }

 private:
  // ---- where every storage lives ----
  struct Loc {
    std::string base;  // a uint8_t* expression for the storage's first byte
  };

  Status Locate() {
    // Inputs keep the layout they were traced with (strides, offsets, and
    // which inputs share memory): the first input of each storage anchors
    // it, and the run checks the caller's tensors against that layout
    // (InputLayoutTable), so kernels work in the caller's memory, no copy.
    for (size_t k = 0; k < g_.inputs().size(); ++k) {
      const Value* v = g_.inputs()[k];
      if (loc_.count(v->meta().storage)) continue;
      const int64_t off = v->meta().offset * DTypeSize(v->meta().dtype);
      loc_[v->meta().storage] = {"((uint8_t*)in[" + std::to_string(k) + "]" + (off ? " - " + std::to_string(off) : "") +
                                 ")"};
    }
    // Weights are emitted when a kernel first reads them (a weight only
    // used transposed by linear is emitted only in that form).
    for (const Value* w : g_.weight_values()) {
      if (g_.weights().find(w->weight_key()) == g_.weights().end())
        return InvalidArgument("weight %" + w->name() + " has no data");
      pending_weights_[w->meta().storage] = w;
    }
    for (size_t i = 0; i < plan_.analysis.buffers.size(); ++i) {
      const Buffer& b = plan_.analysis.buffers[i];
      if (b.scratch_for) scratch_[b.scratch_for] = {plan_.offsets[i], b.bytes};
      for (int64_t st : b.storages) {
        if (b.home == BufferHome::kArena)
          loc_[st] = {"(arena + " + std::to_string(plan_.offsets[i]) + ")"};
        else if (b.home == BufferHome::kOutput) {
          loc_[st] = {"((uint8_t*)out[" + std::to_string(b.output_index) + "])"};
          output_home_[st] = b.output_index;
        }
      }
    }
    return Status::Ok();
  }

  Status AddWeight(const Value* w, const WeightData& d) {
    AOT_ASSIGN_OR_RETURN(std::string ct, CType(d.meta.dtype));
    loc_[w->meta().storage] = {WeightBytes("%" + w->name() + " " + d.meta.ToString(), d.bytes)};
    return Status::Ok();
  }

  // Places one weight's bytes where opts_ says and returns a uint8_t*
  // expression for its first byte: 64-byte aligned in the blob (NAME.weights
  // read at open, or NAME_weights.bin linked in as NAME_weights_data), or a C
  // array in NAME.c.
  std::string WeightBytes(const std::string& comment, const std::vector<uint8_t>& bytes) {
    std::string sym = "aot_w" + std::to_string(weight_count_++);
    if (opts_.embed_weights && opts_.weights_as_c_arrays) {
      weights_ << "/* " << CComment(comment) << " */\n";
      weights_ << "static const uint8_t " << sym << "[" << std::max<size_t>(bytes.size(), 1)
               << "] __attribute__((aligned(64))) = {";
      for (size_t i = 0; i < bytes.size(); ++i)
        weights_ << (i % 24 == 0 ? "\n  " : "") << static_cast<int>(bytes[i]) << ",";
      if (bytes.empty()) weights_ << "0";
      weights_ << "\n};\n";
      return "((uint8_t*)(uintptr_t)" + sym + ")";
    }
    size_t off = (blob_.size() + 63) / 64 * 64;
    blob_.resize(off);
    blob_.insert(blob_.end(), bytes.begin(), bytes.end());
    if (!opts_.embed_weights) return "((uint8_t*)(uintptr_t)(wts + " + std::to_string(off) + "))";
    const std::string data = opts_.name + "_weights_data";
    if (off == 0)
      weights_ << "/* The weights: " << opts_.name << "_weights.bin, linked in by " << opts_.name << "_weights.S. */\n"
               << "extern const uint8_t " << data << "[] __attribute__((visibility(\"hidden\"), aligned(64)));\n";
    weights_ << "/* " << sym << ": " << CComment(comment) << " at byte " << off << " */\n";
    return "((uint8_t*)(uintptr_t)(" + data + " + " + std::to_string(off) + "))";
  }

  // Emits w (a 2-D f32 weight [N, K]) transposed to [K, N] as a new constant,
  // so linear's GEMM runs along contiguous rows of both B and C.
  StatusOr<std::string> TransposedWeightPtr(const Value* w) {
    auto it = g_.weights().find(w->weight_key());
    if (it == g_.weights().end()) return InvalidArgument("weight %" + w->name() + " has no data");
    const WeightData& d = it->second;
    const int64_t N = d.meta.sizes[0], K = d.meta.sizes[1];
    WeightData t;
    t.meta = d.meta;
    t.meta.sizes = {K, N};
    t.meta.strides = {N, 1};
    t.bytes.resize(d.bytes.size());
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k)
        std::memcpy(&t.bytes[static_cast<size_t>((k * N + n) * 4)], &d.bytes[static_cast<size_t>((n * K + k) * 4)], 4);
    auto& sym = transposed_[w];
    if (sym.empty())
      sym = WeightBytes(
          "%" + w->name() + " transposed to [" + std::to_string(K) + ", " + std::to_string(N) + "] for linear",
          t.bytes);
    std::string p = "pt" + std::to_string(ptr_names_.size());
    body_ << "  float* const " << p << " = (float*)" << sym << ";\n";
    ptr_names_[reinterpret_cast<const Value*>(&sym)] = p;  // keeps pointer names unique
    return p;
  }

  // ---- accumulation precision (opts_.float_accumulation) ----
  // float32 kernels accumulate in double on hosts; in float with
  // float_accumulation (compensated where many terms add up).
  bool FloatAcc(DType t) const { return opts_.float_accumulation && t == DType::kFloat32; }
  std::string AccT(DType t) const { return FloatAcc(t) ? "float" : "double"; }
  std::string MathFn(DType t, const std::string& f) const { return FloatAcc(t) ? f + "f" : f; }  // exp -> expf ...
  std::string Num(DType t, double v) const { return FormatDouble(v) + (FloatAcc(t) ? "f" : ""); }
  // Statements that add `term` into `acc` (declared by AccDecl): Kahan-
  // compensated in float, plain in double.
  std::string AccDecl(DType t, const std::string& acc, const std::string& init) const {
    return AccT(t) + " " + acc + " = " + init + (FloatAcc(t) ? ", " + acc + "_c = 0" : "") + ";";
  }
  std::string AccAdd(DType t, const std::string& acc, const std::string& term) const {
    if (!FloatAcc(t)) return acc + " += " + term + ";";
    return "{ const float ky = (float)(" + term + ") - " + acc + "_c, kt = " + acc + " + ky; " + acc + "_c = (kt - " +
           acc + ") - ky; " + acc + " = kt; }";
  }

  StatusOr<std::string> Base(const Value* v) {
    auto pw = pending_weights_.find(v->meta().storage);
    if (pw != pending_weights_.end()) {
      const Value* w = pw->second;
      pending_weights_.erase(pw);
      auto data = g_.weights().find(w->weight_key());
      AOT_INTERNAL_CHECK(data != g_.weights().end(), "no data for weight %" + w->name());  // the verifier checks it
      AOT_RETURN_IF_ERROR(AddWeight(w, data->second));
    }
    auto it = loc_.find(v->meta().storage);
    if (it == loc_.end())
      return Internal("no memory planned for %" + v->name() + " (storage " + std::to_string(v->meta().storage) + ")");
    return it->second.base;
  }

  // Declares a typed pointer to v's first element in the current kernel.
  StatusOr<std::string> Ptr(const Value* v) override {
    auto have = ptr_names_.find(v);
    if (have != ptr_names_.end()) return have->second;
    AOT_ASSIGN_OR_RETURN(std::string base, Base(v));
    AOT_ASSIGN_OR_RETURN(std::string ct, CType(v->meta().dtype));
    std::string name = "p" + std::to_string(ptr_names_.size());
    body_ << "  " << ct << "* const " << name << " = (" << ct << "*)(" << base << " + "
          << v->meta().offset * DTypeSize(v->meta().dtype) << ");\n";
    ptr_names_[v] = name;
    return name;
  }

  // "p3[i0 * 4 + i1]" for the given per-dimension strides and loop variables.
  static std::string Index(const std::string& p, const std::vector<int64_t>& st, const std::vector<std::string>& vars) {
    std::string e;
    for (size_t d = 0; d < st.size(); ++d) {
      if (st[d] == 0) continue;
      if (!e.empty()) e += " + ";
      e += vars[d] + (st[d] == 1 ? "" : " * " + std::to_string(st[d]));
    }
    return p + "[" + (e.empty() ? "0" : e) + "]";
  }

  void BeginKernel(const std::string& comment) {
    body_.str("");
    loops_.str("");
    ptr_names_.clear();
    kernel_comment_ = comment;
    par_total_ = 0;
    kernel_fails_ = false;
  }

  // The statement a kernel runs when an index read from a tensor (`raw`) is
  // outside [lo, hi): the kernel returns the status to aot__compute, which
  // returns it to the caller. Such kernels run on the calling thread.
  std::string IndexFail(const std::string& raw, int64_t lo, int64_t hi, const std::string& where) override {
    kernel_fails_ = true;
    return "return aot__bad_index(err, err_len, " + raw + ", " + std::to_string(lo) + ", " + std::to_string(hi) + ", " +
           CStringLiteral(where) + ");";
  }

  void EndKernel() {
    std::string fn = "aot_k" + std::to_string(kernel_count_++);
    kernels_ << "/* " << CComment(kernel_comment_) << " */\n";
    if (kernel_fails_) {  // returns a status (an index out of range); never split
      kernels_ << "static int " << fn
               << "(void* const* in, void* const* out, uint8_t* arena, const uint8_t* wts, char* err,\n"
               << "    size_t err_len) {\n  (void)in; (void)out; (void)arena; (void)wts;\n"
               << body_.str() << loops_.str() << "  return AOT_OK;\n}\n\n";
      calls_ << "  {\n    const int s = " << fn << "(in, out, arena, wts, err, err_len);\n    if (s) return s;\n  }\n";
      return;
    }
    if (par_total_ > 0) {  // the loops run over [lo, hi) of the first loop's range, on the pool
      kernels_ << "static void " << fn << "_part(void* ctx, int64_t lo, int64_t hi) {\n"
               << "  const aot__kargs* a = (const aot__kargs*)ctx;\n"
               << "  void* const* in = a->in; void* const* out = a->out; uint8_t* arena = a->arena; const uint8_t* wts "
                  "= a->wts;\n"
               << "  (void)in; (void)out; (void)arena; (void)wts;\n"
               << body_.str() << loops_.str() << "}\n";
      kernels_ << "static void " << fn << "(void* const* in, void* const* out, uint8_t* arena, const uint8_t* wts) {\n"
               << "  aot__kargs a = {in, out, arena, wts};\n"
               << "  aot__parallel_for(" << par_total_ << ", " << par_unit_ << ", " << par_grain_ << ", " << fn
               << "_part, &a);\n}\n\n";
    } else {
      kernels_ << "static void " << fn << "(void* const* in, void* const* out, uint8_t* arena, const uint8_t* wts) {\n";
      kernels_ << "  (void)in; (void)out; (void)arena; (void)wts;\n";
      kernels_ << body_.str() << loops_.str() << "}\n\n";
    }
    calls_ << "  " << fn << "(in, out, arena, wts);\n";
  }

  // With threads, whether the kernel's first loop (`outer` iterations of
  // `per_iter` elements of work each) is worth splitting; if so it must run
  // over [lo, hi), chunks a multiple of `unit` iterations, and EndKernel
  // emits the split. Small kernels stay on the calling thread.
  bool SplitFirstLoop(int64_t outer, int64_t per_iter, int64_t unit) {
    const int64_t kGrain = std::max<int64_t>(opts_.thread_grain, 1);
    per_iter = std::max<int64_t>(per_iter, 1);
    if (!opts_.threads || outer < 2 || outer * per_iter < 2 * kGrain) return false;
    par_total_ = outer;
    par_unit_ = unit;
    par_grain_ = std::max<int64_t>(unit, (kGrain + per_iter - 1) / per_iter);
    return true;
  }
  static int64_t Product(const std::vector<int64_t>& v, size_t from) {
    int64_t p = 1;
    for (size_t d = from; d < v.size(); ++d) p *= v[d];
    return p;
  }

  // ---- elementwise kernels (fused) ----

  // n's result (in its output dtype) as a C expression; `self_expr` replaces
  // argument 0 (the running value of an in-place run).
  StatusOr<std::string> Expr(const Node* n, const std::string& self_expr) {
    return FusedExpr(n, self_expr, fusion_.fused, load_expr_);
  }

  // With float_accumulation, a one-element float weight (e.g. a traced
  // `x / math.sqrt(d)`'s float64 divisor) is read as a literal: the compiler
  // folds its conversion, so no double is loaded or converted at run time.
  std::optional<std::string> ScalarWeightLiteral(const Value* v) const {
    if (!opts_.float_accumulation || v->kind() != ValueKind::kWeight || v->meta().numel() != 1 || v->meta().offset != 0)
      return std::nullopt;
    const DType t = v->meta().dtype;
    auto it = g_.weights().find(v->weight_key());
    if (it == g_.weights().end() || (t != DType::kFloat32 && t != DType::kFloat64) ||
        it->second.bytes.size() != static_cast<size_t>(DTypeSize(t)))
      return std::nullopt;
    double x;
    if (t == DType::kFloat64)
      std::memcpy(&x, it->second.bytes.data(), 8);
    else {
      float f;
      std::memcpy(&f, it->second.bytes.data(), 4);
      x = f;
    }
    if (!std::isfinite(x)) return std::nullopt;
    return std::string("((") + (t == DType::kFloat64 ? "double" : "float") + ")" + FormatDouble(x) + ")";
  }

  Status EmitElementwise(const std::vector<const Node*>& group, const Value* target) {
    std::string comment;
    for (const Node* n : group) comment += (comment.empty() ? "" : "; ") + NodeText(n);
    BeginKernel("fused elementwise: " + comment);
    std::vector<const Value*> loads;
    for (size_t k = 0; k < group.size(); ++k)
      FusedLoads(group[k], k == 0 && !group[0]->op().Writes() ? -1 : 0, fusion_.fused, &loads);
    bool load_target = group[0]->op().Writes();  // the run starts from the target's current content
    if (load_target && std::find(loads.begin(), loads.end(), target) == loads.end()) loads.push_back(target);
    const std::vector<int64_t>& sizes = target->meta().sizes;
    std::vector<std::vector<int64_t>> strides;
    for (const Value* v : loads) strides.push_back(BroadcastStrides(v->meta(), sizes));
    strides.push_back(target->meta().strides);
    LoopSpace sp = CoalesceLoops(sizes, strides);
    // Long runs over a flat range go tile by tile: each step is its own short
    // loop over a stack tile, so loops are throughput-bound (independent
    // elements) instead of one deep dependency chain per element.
    const bool tiled = sp.sizes.size() == 1 && group.size() >= 3 && sp.sizes[0] >= 2 * kTile;
    std::vector<std::string> vars;
    if (tiled)
      vars.push_back("(t + j)");
    else
      for (size_t d = 0; d < sp.sizes.size(); ++d) vars.push_back("i" + std::to_string(d));
    load_expr_.clear();
    for (size_t k = 0; k < loads.size(); ++k) {
      if (std::optional<std::string> lit = ScalarWeightLiteral(loads[k])) {
        load_expr_[loads[k]] = *lit;
        continue;
      }
      AOT_ASSIGN_OR_RETURN(std::string p, Ptr(loads[k]));
      load_expr_[loads[k]] = Index(p, sp.strides[k], vars);
    }
    AOT_ASSIGN_OR_RETURN(std::string tp, Ptr(target));
    std::string store = Index(tp, sp.strides.back(), vars);
    AOT_ASSIGN_OR_RETURN(std::string tct, CType(target->meta().dtype));
    if (tiled) {
      const int64_t total = sp.sizes[0];
      const bool split = SplitFirstLoop(total, 1, kTile);  // chunks of whole tiles
      const std::string lo = split ? "lo" : "0", hi = split ? "hi" : std::to_string(total);
      loops_ << "  " << tct << " tile[" << kTile << "];\n";
      loops_ << "  for (int64_t t = " << lo << "; t < " << hi << "; t += " << kTile << ") {\n";
      loops_ << "    const int64_t n = " << hi << " - t < " << kTile << " ? " << hi << " - t : " << kTile << ";\n";
      std::string running;
      if (load_target) {
        AOT_ASSIGN_OR_RETURN(running, PreparedLoad(load_expr_, group[0], target));
      }
      for (size_t k = 0; k < group.size(); ++k) {
        AOT_ASSIGN_OR_RETURN(std::string e, Expr(group[k], group[k]->op().Writes() ? running : ""));
        // A float sigmoid or SiLU of the tile itself runs as 16-float blocks
        // (aot__sigmoid16 / aot__silu16: the scalar functions' bits, AVX-512
        // where there is one).
        const char* block = nullptr;
        if (e == "((float)(aot__sigmoidf(((float)(tile[j])))))") block = "aot__sigmoid16";
        if (e == "((float)(aot__siluf(((float)(tile[j])))))") block = "aot__silu16";
        if (block) {
          loops_ << "    AOT__ACT_BLOCKS(tile, n, " << block << ");\n";
          act_blocks_used_ = true;
        } else
          loops_ << "    for (int64_t j = 0; j < n; ++j) tile[j] = " << e << ";\n";
        running = "tile[j]";
      }
      loops_ << "    for (int64_t j = 0; j < n; ++j) " << store << " = tile[j];\n  }\n";
      EndKernel();
      return Status::Ok();
    }
    std::string indent = "  ";
    const bool split =
        !sp.sizes.empty() && SplitFirstLoop(sp.sizes[0], Product(sp.sizes, 1), sp.sizes.size() == 1 ? 16 : 1);
    for (size_t d = 0; d < sp.sizes.size(); ++d) {
      const bool range = split && d == 0;
      loops_ << indent << "for (int64_t " << vars[d] << " = " << (range ? "lo" : "0") << "; " << vars[d] << " < "
             << (range ? std::string("hi") : std::to_string(sp.sizes[d])) << "; ++" << vars[d] << ")";
      loops_ << (d + 1 == sp.sizes.size() ? " {\n" : "\n");
      indent += "  ";
    }
    if (sp.sizes.empty()) loops_ << "  {\n";
    std::string running;
    if (load_target) {
      AOT_ASSIGN_OR_RETURN(running, PreparedLoad(load_expr_, group[0], target));
    }
    for (size_t k = 0; k < group.size(); ++k) {
      AOT_ASSIGN_OR_RETURN(std::string e, Expr(group[k], group[k]->op().Writes() ? running : ""));
      std::string var = "v" + std::to_string(k);
      loops_ << indent << "const " << tct << " " << var << " = " << e << "; (void)" << var << ";\n";
      running = var;
    }
    loops_ << indent << store << " = " << running << ";\n";
    loops_ << std::string(sp.sizes.empty() ? 2 : 2 * sp.sizes.size(), ' ') << "}\n";
    EndKernel();
    return Status::Ok();
  }

  // ---- other kernels ----

  // A nested loop over `sizes` with variables i0..; returns the indent inside.
  // split: the first loop runs over [lo, hi) (see SplitFirstLoop).
  std::string OpenLoops(const std::vector<int64_t>& sizes, const std::string& prefix, std::vector<std::string>* vars,
                        bool split = false) {
    std::string indent = "  ";
    for (size_t d = 0; d < sizes.size(); ++d) {
      std::string v = prefix + std::to_string(d);
      vars->push_back(v);
      const bool range = split && d == 0;
      loops_ << indent << "for (int64_t " << v << " = " << (range ? "lo" : "0") << "; " << v << " < "
             << (range ? std::string("hi") : std::to_string(sizes[d])) << "; ++" << v << ") {\n";
      indent += "  ";
    }
    return indent;
  }
  void CloseLoops(size_t n) {
    for (size_t d = n; d-- > 0;) loops_ << std::string(2 * (d + 1), ' ') << "}\n";
  }
  void ElementLoop(const std::string&, const std::vector<int64_t>& sizes, const ElementBody& body) override {
    std::vector<std::string> v;
    std::string ind = OpenLoops(sizes, "i", &v);
    loops_ << body(v, ind);
    CloseLoops(v.size());
  }
  const Literal& Lit(const Node* n, int i) { return n->args()[static_cast<size_t>(i)].literal; }

  const char* BackendName() const override { return "C"; }

  Status EmitKernel(const Node* n) {
    BeginKernel(NodeText(n));
    AOT_RETURN_IF_ERROR(LowerKernel(*this, n));
    EndKernel();
    return Status::Ok();
  }

  // out (contiguous or not) <- in, element k of in's row-major order to
  // element k of out's row-major order (reshape of a non-viewable tensor).
  Status CopyInOrder(const Value* in, const Value* out) {
    if (in->meta().numel() != out->meta().numel()) return Unsupported("copy between different element counts");
    AOT_ASSIGN_OR_RETURN(std::string pi, Ptr(in));
    AOT_ASSIGN_OR_RETURN(std::string po, Ptr(out));
    std::vector<std::string> vi, vo;
    std::string ind = OpenLoops(in->meta().sizes, "i", &vi);
    // Row-major element number of the input index, then out's index of it.
    std::string k = "0";
    for (size_t d = 0; d < vi.size(); ++d) k = "(" + k + ") * " + std::to_string(in->meta().sizes[d]) + " + " + vi[d];
    loops_ << ind << "int64_t k = " << k << ", o = 0;\n";
    const auto& os = out->meta().sizes;
    for (size_t d = os.size(); d-- > 0;) {
      loops_ << ind << "o += (k % " << os[d] << ") * " << out->meta().strides[d] << "; k /= " << os[d] << ";\n";
    }
    loops_ << ind << po << "[o] = " << CCast(pi + "[" + LinearIndex(vi, in->meta().strides) + "]", out->meta().dtype)
           << ";\n";
    CloseLoops(vi.size());
    return Status::Ok();
  }

  Status Reduce(const Node* n) {
    const Value* x = n->input(0);
    const Value* y = n->output();
    const std::string& name = n->op().schema.name;
    const ReductionDims rd = ReduceDims(n);
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    bool fl = IsFloatingPoint(y->meta().dtype);
    const DType at =
        x->meta().dtype == DType::kFloat32 ? y->meta().dtype : DType::kFloat64;  // float acc only for f32 -> f32
    std::string acc_t = fl ? AccT(at) : "int64_t";
    const bool kahan = fl && FloatAcc(at) && (name == "sum" || name == "mean");
    // Outer loops over kept dims, inner over reduced ones.
    const std::vector<int64_t>&outer_sizes = rd.outer, &inner_sizes = rd.inner, &xo = rd.x_outer, &xi = rd.x_inner,
          &yo = rd.y_outer;
    const int64_t count = rd.count;
    std::vector<std::string> vo, vi;
    const bool split = !outer_sizes.empty() && SplitFirstLoop(outer_sizes[0], Product(outer_sizes, 1) * count, 1);
    std::string ind = OpenLoops(outer_sizes, "o", &vo, split);
    std::string init = name == "sum" || name == "mean" ? "0"
                       : name == "prod"                ? "1"
                                                       : px + "[" + LinearIndex(vo, xo) + "]";
    if (kahan)
      loops_ << ind << AccDecl(at, "acc", init) << "\n";
    else
      loops_ << ind << acc_t << " acc = " << init << ";\n";
    // A float sum over one contiguous run, accumulated in double: the lane sum.
    bool run = !kahan && fl && acc_t == "double" && x->meta().dtype == DType::kFloat32 &&
               (name == "sum" || name == "mean") && count > 0;
    for (size_t d = inner_sizes.size(), st = 1; run && d-- > 0; st *= static_cast<size_t>(inner_sizes[d]))
      run = inner_sizes[d] == 1 || xi[d] == static_cast<int64_t>(st);
    if (run) {
      loops_ << ind << "acc = aot__sum_f32d(" << px << " + " << LinearIndex(vo, xo) << ", " << count << ");\n";
    } else {
      std::string ind2 = ind;
      for (size_t d = 0; d < inner_sizes.size(); ++d) {
        vi.push_back("r" + std::to_string(d));
        loops_ << ind2 << "for (int64_t " << vi.back() << " = 0; " << vi.back() << " < " << inner_sizes[d] << "; ++"
               << vi.back() << ") {\n";
        ind2 += "  ";
      }
      std::string xe = "(" + acc_t + ")" + px + "[" + LinearIndex(vo, xo) + " + " + LinearIndex(vi, xi) + "]";
      if (kahan)
        loops_ << ind2 << AccAdd(at, "acc", xe) << "\n";
      else if (name == "sum" || name == "mean")
        loops_ << ind2 << "acc += " << xe << ";\n";
      else if (name == "prod")
        loops_ << ind2 << "acc *= " << xe << ";\n";
      else if (name == "amax")
        loops_ << ind2 << "{ " << acc_t << " v = " << xe << "; if (v > acc || v != v) acc = v; }\n";
      else
        loops_ << ind2 << "{ " << acc_t << " v = " << xe << "; if (v < acc || v != v) acc = v; }\n";
      for (size_t d = inner_sizes.size(); d-- > 0;) loops_ << ind << std::string(2 * d, ' ') << "}\n";
    }
    std::string val = name == "mean"
                          ? "acc / " + (fl ? Num(at, static_cast<double>(count)) : std::to_string(count) + ".0")
                          : std::string("acc");
    loops_ << ind << py << "[" << LinearIndex(vo, yo) << "] = " << CCast(val, y->meta().dtype) << ";\n";
    CloseLoops(vo.size());
    return Status::Ok();
  }

  Status ReduceWithIndex(const Node* n) {
    const Value* x = n->input(0);
    AOT_ASSIGN_OR_RETURN(const IndexReductionDims ir, IndexReduceDims(n));
    const size_t dim = ir.dim;
    const bool is_max = ir.is_max;
    const Value *vals = ir.values, *idx = ir.indices;
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    std::string pv;
    if (vals) {
      AOT_ASSIGN_OR_RETURN(pv, Ptr(vals));
    }
    AOT_ASSIGN_OR_RETURN(std::string pi, Ptr(idx));
    const std::vector<int64_t>&outer = ir.outer, &xo = ir.x_outer, &yo = ir.idx_outer, &vo_st = ir.values_outer;
    std::vector<std::string> vo;
    std::string ind = OpenLoops(outer, "o", &vo);
    std::string base = LinearIndex(vo, xo);
    const int64_t st = x->meta().strides[dim];
    const std::string bt = AccT(x->meta().dtype);  // float for f32 with float_accumulation: exact either way
    loops_ << ind << bt << " best = " << px << "[" << base << "]; int64_t bi = 0;\n";
    loops_ << ind << "for (int64_t r = 1; r < " << x->meta().sizes[dim] << "; ++r) { " << bt << " v = " << px << "["
           << base << " + r * " << st << "]; if (best != best) break; if (v != v || v " << (is_max ? ">" : "<")
           << " best) { best = v; bi = r; } }\n";
    if (vals)
      loops_ << ind << pv << "[" << LinearIndex(vo, vo_st) << "] = " << CCast("best", vals->meta().dtype) << ";\n";
    loops_ << ind << pi << "[" << LinearIndex(vo, yo) << "] = bi;\n";
    CloseLoops(vo.size());
    return Status::Ok();
  }

  Status Softmax(const Node* n) {
    const Value* x = n->input(0);
    const Value* y = n->output();
    const bool log = n->op().schema.name.find("log") != std::string::npos;
    const size_t rank = x->meta().sizes.size();
    const size_t dim = static_cast<size_t>(NormDim(n->args()[1].literal.i, rank));
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    std::vector<int64_t> outer, xo, yo;
    // Size-1 dims left out: their index is always 0, and a leading one (a
    // GPT block's [1, heads, T, T] scores) left nothing for the split.
    for (size_t d = 0; d < rank; ++d)
      if (d != dim && x->meta().sizes[d] != 1) {
        outer.push_back(x->meta().sizes[d]);
        xo.push_back(x->meta().strides[d]);
        yo.push_back(y->meta().strides[d]);
      }
    std::vector<std::string> vo;
    const int64_t len = x->meta().sizes[dim], xs = x->meta().strides[dim], ys = y->meta().strides[dim];
    const bool split = !outer.empty() && SplitFirstLoop(outer[0], Product(outer, 1) * len * 4, 1);  // ~4 passes a row
    std::string ind = OpenLoops(outer, "o", &vo, split);
    std::string xb = LinearIndex(vo, xo), yb = LinearIndex(vo, yo);
    const DType t =
        x->meta().dtype == DType::kFloat32 && y->meta().dtype == DType::kFloat32 ? DType::kFloat32 : DType::kFloat64;
    if (t == DType::kFloat32 && !FloatAcc(t) && xs == 1 && ys == 1) {
      FloatSoftmaxRow(px + " + " + xb, py + " + " + yb, len, log, ind);
      CloseLoops(vo.size());
      return Status::Ok();
    }
    const std::string a = AccT(t), ex = MathFn(t, "exp"),
                      xr = "(" + a + ")" + px + "[" + xb + " + r * " + std::to_string(xs) + "]";
    loops_ << ind << a << " m = -INFINITY; " << AccDecl(t, "s", "0") << "\n";
    loops_ << ind << "for (int64_t r = 0; r < " << len << "; ++r) { " << a << " v = " << xr
           << "; if (v > m) m = v; }\n";
    loops_ << ind << "for (int64_t r = 0; r < " << len << "; ++r) " << AccAdd(t, "s", ex + "(" + xr + " - m)") << "\n";
    if (log)
      loops_ << ind << "for (int64_t r = 0; r < " << len << "; ++r) " << py << "[" << yb << " + r * " << ys
             << "] = " << CCast(xr + " - m - " + MathFn(t, "log") + "(s)", y->meta().dtype) << ";\n";
    else
      loops_ << ind << "for (int64_t r = 0; r < " << len << "; ++r) " << py << "[" << yb << " + r * " << ys
             << "] = " << CCast(ex + "(" + xr + " - m) / s", y->meta().dtype) << ";\n";
    CloseLoops(vo.size());
    return Status::Ok();
  }

  // A float row of softmax as eager's vectorised CPU kernel computes it:
  // e = exp(x - max) in float (aot__expf, 1 ulp), the sum in double lanes,
  // then e * (1 / sum); log_softmax as x - max - log(sum). Before, every
  // element took two libm double exp calls (a GPT block's attention softmax
  // 6.6 us of its 40).
  void FloatSoftmaxRow(const std::string& x, const std::string& y, int64_t len, bool log, const std::string& ind) {
    const std::string for_r = "for (int64_t r = 0; r < " + std::to_string(len) + "; ++r) ";
    loops_ << ind << "{\n"
           << ind << "  const float* const xr = " << x << ";\n"
           << ind << "  float* const yr = " << y << ";\n"
           << ind << "  const float m = aot__max_f32(xr, " << len << ");\n";
    if (log) {
      loops_ << ind << "  double s = 0;\n"
             << ind << "  " << for_r << "s += (double)aot__expf(xr[r] - m);\n"
             << ind << "  const float ls = (float)log(s);\n"
             << ind << "  " << for_r << "yr[r] = xr[r] - m - ls;\n";
    } else {
      loops_ << ind << "  " << for_r << "yr[r] = aot__expf(xr[r] - m);\n"
             << ind << "  const float inv = (float)(1.0 / aot__sum_f32d(yr, " << len << "));\n"
             << ind << "  " << for_r << "yr[r] *= inv;\n";
    }
    loops_ << ind << "}\n";
  }

  Status LayerNorm(const Node* n) {
    const Value* x = n->input(0);
    const Value* y = n->output(0);
    const auto& shape = n->args()[1].literal.ints;
    const Value* w = n->input(2);
    const Value* b = n->input(3);
    double eps = n->args()[4].literal.kind == Literal::Kind::kFloat ? n->args()[4].literal.f : 1e-5;
    int64_t inner = 1;
    for (int64_t s : shape) inner *= s;
    const int64_t rows = x->meta().numel() / std::max<int64_t>(inner, 1);
    // Any strides (ConvNeXt normalizes channels after a permute): offsets of
    // row r and of element j within it, per tensor ("r * inner" and "j" when
    // contiguous).
    const size_t outer_dims = x->meta().sizes.size() - std::min(shape.size(), x->meta().sizes.size());
    auto split = [&](const TensorMeta& m, bool outer) {
      auto mid = static_cast<std::ptrdiff_t>(outer_dims);
      std::vector<int64_t> sz = outer ? std::vector<int64_t>(m.sizes.begin(), m.sizes.begin() + mid)
                                      : std::vector<int64_t>(m.sizes.begin() + mid, m.sizes.end());
      std::vector<int64_t> st = outer ? std::vector<int64_t>(m.strides.begin(), m.strides.begin() + mid)
                                      : std::vector<int64_t>(m.strides.begin() + mid, m.strides.end());
      return StridedOffset(outer ? "r" : "j", sz, st);
    };
    const std::string xj = split(x->meta(), false), yj = split(y->meta(), false);
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    std::string pw, pb;
    if (w) {
      AOT_ASSIGN_OR_RETURN(pw, Ptr(w));
      if (!w->meta().IsContiguous()) return Unsupported("strided layer_norm weight");
    }
    if (b) {
      AOT_ASSIGN_OR_RETURN(pb, Ptr(b));
      if (!b->meta().IsContiguous()) return Unsupported("strided layer_norm bias");
    }
    std::string pm, pr;
    if (n->outputs().size() == 3) {
      AOT_ASSIGN_OR_RETURN(pm, Ptr(n->output(1)));
      AOT_ASSIGN_OR_RETURN(pr, Ptr(n->output(2)));
    }
    loops_ << "  for (int64_t r = 0; r < " << rows << "; ++r) {\n";
    loops_ << "    const int64_t o = " << split(x->meta(), true) << ", oy = " << split(y->meta(), true)
           << "; (void)oy;\n";
    const DType t = x->meta().dtype == DType::kFloat32 ? DType::kFloat32 : DType::kFloat64;
    const std::string a = AccT(t);
    if (t == DType::kFloat32 && !FloatAcc(t) && y->meta().dtype == DType::kFloat32 && xj == "j" && yj == "j" &&
        (!w || w->meta().dtype == DType::kFloat32) && (!b || b->meta().dtype == DType::kFloat32)) {
      // Contiguous float rows: mean and variance over double lanes, then the
      // normalisation in float, as eager's kernel (x - mean) * rstd * w + b
      // (vectorised; the double loop took 2 ns an element).
      const std::string inner_d = FormatDouble(static_cast<double>(inner));
      loops_ << "    const double mean = aot__sum_f32d(" << px << " + o, " << inner << ") / " << inner_d << ";\n"
             << "    const double var = aot__sqdev_f32d(" << px << " + o, " << inner << ", mean) / " << inner_d << ";\n"
             << "    const double rstd = 1.0 / sqrt(var + " << FormatDouble(eps) << ");\n"
             << "    const float fm = (float)mean, fr = (float)rstd;\n"
             << "    for (int64_t j = 0; j < " << inner << "; ++j) {\n"
             << "      float v = (" << px << "[o + j] - fm) * fr;\n";
      if (w) loops_ << "      v *= " << pw << "[j];\n";
      if (b) loops_ << "      v += " << pb << "[j];\n";
      loops_ << "      " << py << "[oy + j] = v;\n    }\n";
      if (!pm.empty()) loops_ << "    " << pm << "[r] = fm; " << pr << "[r] = fr;\n";
      loops_ << "  }\n";
      return Status::Ok();
    }
    loops_ << "    " << AccDecl(t, "mean", "0") << " " << AccDecl(t, "var", "0") << "\n";
    loops_ << "    for (int64_t j = 0; j < " << inner << "; ++j) " << AccAdd(t, "mean", px + "[o + " + xj + "]")
           << "\n";
    loops_ << "    mean /= " << Num(t, static_cast<double>(inner)) << ";\n";
    loops_ << "    for (int64_t j = 0; j < " << inner << "; ++j) { const " << a << " d = " << px << "[o + " << xj
           << "] - mean; " << AccAdd(t, "var", "d * d") << " }\n";
    loops_ << "    var /= " << Num(t, static_cast<double>(inner)) << ";\n";
    loops_ << "    const " << a << " rstd = " << Num(t, 1.0) << " / " << MathFn(t, "sqrt") << "(var + " << Num(t, eps)
           << ");\n";
    loops_ << "    for (int64_t j = 0; j < " << inner << "; ++j) {\n";
    loops_ << "      " << a << " v = (" << px << "[o + " << xj << "] - mean) * rstd;\n";
    if (w) loops_ << "      v *= " << pw << "[j];\n";
    if (b) loops_ << "      v += " << pb << "[j];\n";
    loops_ << "      " << py << "[oy + " << yj << "] = " << CCast("v", y->meta().dtype) << ";\n    }\n";
    if (!pm.empty()) loops_ << "    " << pm << "[r] = (float)mean; " << pr << "[r] = (float)rstd;\n";
    loops_ << "  }\n";
    return Status::Ok();
  }

  Status BatchNorm(const Node* n) {
    if (n->args()[5].literal.kind != Literal::Kind::kBool || n->args()[5].literal.b)
      return Unsupported("batch_norm in training mode");
    const Value* x = n->input(0);
    const Value* y = n->output();
    const Value *w = n->input(1), *b = n->input(2), *mean = n->input(3), *var = n->input(4);
    if (!mean || !var) return Unsupported("batch_norm without running statistics");
    double eps = n->args()[7].literal.f;
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    AOT_ASSIGN_OR_RETURN(std::string pm, Ptr(mean));
    AOT_ASSIGN_OR_RETURN(std::string pv, Ptr(var));
    std::string pw, pb;
    if (w) {
      AOT_ASSIGN_OR_RETURN(pw, Ptr(w));
    }
    if (b) {
      AOT_ASSIGN_OR_RETURN(pb, Ptr(b));
    }
    std::vector<std::string> v;
    std::string ind = OpenLoops(x->meta().sizes, "i", &v);
    std::string c = v.size() > 1 ? v[1] : "0";
    auto at = [&](const std::string& p, const Value* t) {
      return p + "[" + c + " * " + std::to_string(t->meta().strides[0]) + "]";
    };
    const DType t = x->meta().dtype == DType::kFloat32 ? DType::kFloat32 : DType::kFloat64;
    const std::string a = "(" + AccT(t) + ")";
    std::string e = "(" + a + px + "[" + LinearIndex(v, x->meta().strides) + "] - " + at(pm, mean) + ") / " +
                    MathFn(t, "sqrt") + "(" + a + at(pv, var) + " + " + Num(t, eps) + ")";
    if (w) e = "(" + e + ") * " + at(pw, w);
    if (b) e = "(" + e + ") + " + at(pb, b);
    loops_ << ind << py << "[" << LinearIndex(v, y->meta().strides) << "] = " << CCast(e, y->meta().dtype) << ";\n";
    CloseLoops(v.size());
    return Status::Ok();
  }

  // C[b] = A[b] @ B[b] (+ bias) through aot__gemm_f32, batch dims broadcast.
  Status Matmul(const Node* n) {
    const Value* y = n->output();
    AOT_ASSIGN_OR_RETURN(const MatmulShape ms, AnalyzeMatmul(n));
    if (use_kl_) {
      AOT_ASSIGN_OR_RETURN(bool done, MatmulLibrary(n, ms));
      if (done) return Status::Ok();
    }
    const Value *a = ms.a, *b = ms.b, *bias = ms.bias;
    const bool b_transposed = ms.b_transposed, a_vec = ms.a_vec, b_vec = ms.b_vec;
    const double alpha = ms.alpha, beta = ms.beta;
    TensorMeta am = ms.am, bm = ms.bm, ym = ms.ym;
    const size_t ra = am.sizes.size(), rb = bm.sizes.size(), ry = ym.sizes.size();
    const int64_t M = ms.M, K = ms.K, N = ms.N;
    const std::vector<int64_t>& batch = ms.batch;
    auto batch_strides = [&](const TensorMeta& m) { return ms.BatchStrides(m); };
    AOT_ASSIGN_OR_RETURN(std::string pa, Ptr(a));
    std::string pb;
    if (b_transposed && b->kind() == ValueKind::kWeight && b->meta().IsContiguous() && b->meta().offset == 0 &&
        b->meta().sizes.size() == 2) {
      AOT_ASSIGN_OR_RETURN(pb, TransposedWeightPtr(b));
      bm.strides = {bm.sizes[1], 1};  // [K, N] contiguous
    } else {
      AOT_ASSIGN_OR_RETURN(pb, Ptr(b));
    }
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    std::string pbias;
    if (bias) {
      AOT_ASSIGN_OR_RETURN(pbias, Ptr(bias));
    }
    std::vector<std::string> vb;
    std::string ind = OpenLoops(batch, "b", &vb);
    std::string ao = LinearIndex(vb, batch_strides(am)), bo = LinearIndex(vb, batch_strides(bm)),
                yo = LinearIndex(vb, batch_strides(ym));
    if (bias) {
      // Broadcast the bias into C first; the GEMM then adds with beta.
      TensorMeta cm;
      cm.sizes = {M, N};
      cm.strides = {ym.strides[ry - 2], ym.strides[ry - 1]};
      std::vector<int64_t> bs = BroadcastStrides(bias->meta(), y->meta().sizes);
      int64_t bsm = bs.size() >= 2 ? bs[bs.size() - 2] : 0, bsn = bs.empty() ? 0 : bs.back();
      if (a_vec || b_vec) return Unsupported("matmul with bias on vectors");
      loops_ << ind << "for (int64_t m = 0; m < " << M << "; ++m) for (int64_t n = 0; n < " << N << "; ++n) " << py
             << "[" << yo << " + m * " << cm.strides[0] << " + n * " << cm.strides[1] << "] = " << pbias << "[m * "
             << bsm << " + n * " << bsn << "];\n";
    }
    loops_ << ind << "aot__gemm_f32(" << M << ", " << N << ", " << K << ", " << FormatDouble(alpha) << "f, " << pa
           << " + " << ao << ", " << am.strides[ra - 2] << ", " << am.strides[ra - 1] << ", " << pb << " + " << bo
           << ", " << bm.strides[rb - 2] << ", " << bm.strides[rb - 1] << ", " << FormatDouble(beta) << "f, " << py
           << " + " << yo << ", " << ym.strides[ry - 2] << ", " << ym.strides[ry - 1] << ");\n";
    CloseLoops(vb.size());
    return Status::Ok();
  }

  // ---- calls into the kernel library (codegen/kernels) ----

  // A float* expression for n's scratch: the buffer the planner placed for
  // it (PlanForCodegen with KernelScratchBytes), as large as `lg` needs.
  StatusOr<std::string> Scratch(const Node* n, const LibraryGemm& lg) { return Scratch(n, lg.ScratchBytes(), "float"); }
  StatusOr<std::string> Scratch(const Node* n, int64_t bytes, const std::string& ctype) {
    if (bytes == 0) return "(" + ctype + "*)0";  // a GEMM reading its operands in place
    auto it = scratch_.find(n);
    if (it == scratch_.end() || it->second.second < bytes)
      return Internal("the memory plan lacks the " + std::to_string(bytes) + " B of kernel scratch of " + NodeText(n) +
                      " (plan with KernelScratchBytes for the same options)");
    return "(" + ctype + "*)(arena + " + std::to_string(it->second.first) + ")";
  }

  // aot__sgemm's call with `args` (up to the epilogue), split over threads
  // when lg says so.
  static std::string SgemmCall(const LibraryGemm& lg, const std::string& args, const std::string& scratch) {
    if (lg.parts <= 1) return "aot__sgemm(" + args + ", " + scratch + ")";
    return "aot__sgemm_mt(" + args + ", " + scratch + ", " + std::to_string(lg.slot_floats) + ", " +
           std::to_string(lg.parts) + ", " + (lg.split_n ? "1" : "0") + ")";
  }

  // "aot__epilogue ep = {...};" for `bias` (strides bm, bn over the output's
  // m, n; empty for none) and the matched in-place epilogue, whose residual
  // sits at offset `res_off` (an expression) with strides res_m, res_n.
  StatusOr<std::string> EpilogueDecl(const std::string& bias, int64_t bm, int64_t bn, const std::string& res_off,
                                     int64_t res_m, int64_t res_n) {
    std::string r = "0";
    if (epilogue_.residual) {
      AOT_ASSIGN_OR_RETURN(std::string pr, Ptr(epilogue_.residual));
      r = pr + " + " + res_off;
    }
    std::ostringstream e;
    e << "aot__epilogue ep = {" << (bias.empty() ? "0" : bias) << ", " << bm << ", " << bn << ", " << r << ", " << res_m
      << ", " << res_n << ", " << epilogue_.act << ", " << FormatDouble(epilogue_.lo) << "f, "
      << FormatDouble(epilogue_.hi) << "f};";
    return e.str();
  }

  // `call` (after `prologue`) for the (image, channel) pairs i = nb * C + c
  // in chunks of whole channels [c0, c1) of image nb, split over the pool;
  // the kernels compute each element alike on any split.
  void ChannelChunks(int64_t images, int64_t C, int64_t work_per_channel, const std::string& prologue,
                     const std::string& call) {
    const int64_t total = images * C;
    const bool split = SplitFirstLoop(total, work_per_channel, 1);
    const std::string lo = split ? "lo" : "0", hi = split ? "hi" : std::to_string(total);
    loops_ << "  for (int64_t i = " << lo << "; i < " << hi << ";) {\n"
           << "    const int64_t nb = i / " << C << ", c0 = i % " << C << ", c1 = c0 + (" << hi << " - i) < " << C
           << " ? c0 + (" << hi << " - i) : " << C << ";\n";
    if (!prologue.empty()) loops_ << "    " << prologue << "\n";
    loops_ << "    " << call << "\n    i += c1 - c0;\n  }\n";
  }

  // max_pool2d of contiguous float tensors through the kernel library.
  bool MaxPoolLibrary(const Node* n, const Pool2dArgs& pa, const std::string& px, const std::string& py) {
    const Value *x = n->input(0), *y = n->output();
    if (!use_kl_ || !pa.is_max || x->meta().dtype != DType::kFloat32 || y->meta().dtype != DType::kFloat32 ||
        !x->meta().IsContiguous() || !y->meta().IsContiguous())
      return false;
    const auto &xs = x->meta().sizes, &ys = y->meta().sizes;
    body_ << "  static const aot__conv_geom geom = {" << xs[1] << ", " << xs[2] << ", " << xs[3] << ", " << pa.k[0]
          << ", " << pa.k[1] << ", " << pa.s[0] << ", " << pa.s[1] << ", " << pa.p[0] << ", " << pa.p[1] << ", "
          << pa.d[0] << ", " << pa.d[1] << ", " << ys[2] << ", " << ys[3] << "};\n";
    ChannelChunks(xs[0], xs[1], ys[2] * ys[3] * pa.k[0] * pa.k[1], "",
                  "aot__max_pool2d_range(&geom, " + px + " + nb * " + std::to_string(x->meta().strides[0]) + ", " + py +
                      " + nb * " + std::to_string(y->meta().strides[0]) + ", c0, c1);");
    kl_used_ = true;
    return true;
  }

  // A library call was emitted and ran the matched epilogue in its store.
  void ConsumeEpilogue() {
    epilogue_consumed_ = kl_used_ = true;
    for (size_t j = 0; j < epilogue_.nodes; ++j) kernel_comment_ += "; in its store: " + NodeText(epilogue_group_[j]);
  }

  // A weight's float32 data when it is a contiguous constant, else nullptr.
  const WeightData* ConstF32(const Value* v) const { return ConstF32Weight(g_, v); }

  static std::vector<uint8_t> Bytes(const std::vector<float>& f) {
    std::vector<uint8_t> b(f.size() * 4);
    if (!f.empty()) std::memcpy(b.data(), f.data(), b.size());
    return b;
  }

  // matmul family through aot__sgemm: linear's constant weight prepacked as
  // B at compile time, other operands packed at run time into scratch; bias
  // and the in-place epilogue in the store. false: use the generic GEMM.
  StatusOr<bool> MatmulLibrary(const Node* n, const MatmulShape& ms) {
    const Value *a = ms.a, *b = ms.b, *bias = ms.bias, *y = n->output();
    const LibraryGemm lg = MatmulGemm(g_, ms, opts_);  // the planner's decision too
    if (!lg.library) return false;
    const size_t ra = ms.am.sizes.size(), rb = ms.bm.sizes.size(), ry = ms.ym.sizes.size();
    const int64_t M = ms.M, K = ms.K, N = ms.N;
    const int64_t ym = ms.ym.strides[ry - 2], yn = ms.ym.strides[ry - 1];
    const WeightData* wd = lg.b_packed ? ConstF32(b) : nullptr;
    if (epilogue_.residual && (epilogue_.residual->meta().strides != y->meta().strides)) epilogue_ = EpilogueMatch();
    AOT_ASSIGN_OR_RETURN(std::string pa, Ptr(a));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    std::string pb, bdecl;
    if (wd) {
      std::vector<float> w(static_cast<size_t>(N * K)), packed(static_cast<size_t>(aot__sgemm_packed_b_floats(K, N)));
      std::memcpy(w.data(), wd->bytes.data(), w.size() * 4);
      aot__sgemm_pack_b(K, N, w.data(), 1, K, packed.data());  // B[k, n] = W[n, k]
      auto& sym = packed_[b];
      if (sym.empty())
        sym = WeightBytes(
            "%" + b->name() + " packed as GEMM B panels [" + std::to_string(K) + ", " + std::to_string(N) + "]",
            Bytes(packed));
      bdecl = "const aot__operand B = {(const float*)" + sym + ", 0, 0, 1, 0};";
    } else {
      AOT_ASSIGN_OR_RETURN(pb, Ptr(b));
    }
    std::string pbias;
    int64_t bsm = 0, bsn = 0;
    if (bias) {
      AOT_ASSIGN_OR_RETURN(pbias, Ptr(bias));
      std::vector<int64_t> bs = BroadcastStrides(bias->meta(), y->meta().sizes);
      bsm = bs.size() >= 2 ? bs[bs.size() - 2] : 0;
      bsn = bs.empty() ? 0 : bs.back();
    }
    std::vector<std::string> vb;
    std::string ind = OpenLoops(ms.batch, "b", &vb);
    const std::string ao = LinearIndex(vb, ms.BatchStrides(ms.am)), bo = LinearIndex(vb, ms.BatchStrides(ms.bm)),
                      yo = LinearIndex(vb, ms.BatchStrides(ms.ym));
    AOT_ASSIGN_OR_RETURN(std::string ep, EpilogueDecl(pbias, bsm, bsn, yo, ym, yn));
    AOT_ASSIGN_OR_RETURN(const std::string scratch, Scratch(n, lg));
    loops_ << ind << "{\n"
           << ind << "  const aot__operand A = {" << pa << " + " << ao << ", " << ms.am.strides[ra - 2] << ", "
           << ms.am.strides[ra - 1] << ", 0, 0};\n";
    if (bdecl.empty())
      loops_ << ind << "  const aot__operand B = {" << pb << " + " << bo << ", " << ms.bm.strides[rb - 2] << ", "
             << ms.bm.strides[rb - 1] << ", 0, 0};\n";
    else
      loops_ << ind << "  " << bdecl << "\n";
    loops_ << ind << "  const " << ep << "\n";
    loops_ << ind << "  "
           << SgemmCall(lg,
                        std::to_string(M) + ", " + std::to_string(N) + ", " + std::to_string(K) + ", &A, &B, " + py +
                            " + " + yo + ", " + std::to_string(ym) + ", " + std::to_string(yn) + ", &ep",
                        scratch)
           << ";\n"
           << ind << "}\n";
    CloseLoops(vb.size());
    ConsumeEpilogue();
    return true;
  }

  // conv2d through the kernel library: depthwise directly, everything else
  // as GEMM (weights prepacked as A, the image packed as im2col panels at run
  // time) per image and group. false: use the generic loop nest.
  StatusOr<bool> Conv2dLibrary(const Node* n, const Conv2dArgs& ca) {
    const Value *x = n->input(0), *w = n->input(1), *bias = n->input(2), *y = n->output();
    const WeightData* wd = ConstF32(w);
    const LibraryGemm lg = Conv2dGemm(g_, n, opts_);  // the planner's decision too
    if (!lg.library && !lg.depthwise) return false;
    if (epilogue_.residual && epilogue_.residual->meta().strides != y->meta().strides) epilogue_ = EpilogueMatch();
    const auto &xs = x->meta().sizes, &ws = w->meta().sizes, &ys = y->meta().sizes;
    const int64_t G = ca.groups, cin_g = ws[1], cout_g = ws[0] / G, OHW = ys[2] * ys[3], K = cin_g * ws[2] * ws[3];
    const bool depthwise = lg.depthwise;
    const std::optional<ConvGate> gate = lg.gated ? ConvGateOf(g_, n) : std::nullopt;
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(gate ? gate->x : x));  // a gated conv reads the image itself
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    std::string pb;  // the bias, then (GEMM) its group's part
    if (bias) {
      AOT_ASSIGN_OR_RETURN(pb, Ptr(bias));
    }
    std::ostringstream geom;
    geom << "{" << (depthwise ? xs[1] : cin_g) << ", " << xs[2] << ", " << xs[3] << ", " << ws[2] << ", " << ws[3]
         << ", " << ca.stride[0] << ", " << ca.stride[1] << ", " << ca.pad[0] << ", " << ca.pad[1] << ", " << ca.dil[0]
         << ", " << ca.dil[1] << ", " << ys[2] << ", " << ys[3] << "}";
    body_ << "  static const aot__conv_geom geom = " << geom.str() << ";\n";
    const int64_t xn = x->meta().strides[0], yn = y->meta().strides[0];
    if (depthwise) {
      AOT_ASSIGN_OR_RETURN(std::string pw, Ptr(w));
      AOT_ASSIGN_OR_RETURN(std::string ep, EpilogueDecl(pb, bias ? bias->meta().strides[0] : 0, 0,
                                                        "nb * " + std::to_string(yn), OHW, 1));
      ChannelChunks(xs[0], xs[1], OHW * ws[2] * ws[3], "const " + ep,
                    "aot__conv2d_depthwise_range(&geom, " + px + " + nb * " + std::to_string(xn) + ", " + pw + ", " +
                        py + " + nb * " + std::to_string(yn) + ", &ep, c0, c1);");
      ConsumeEpilogue();
      return true;
    }
    if (lg.winograd) return Conv2dWinograd(n, lg, px, py, pb, xn, yn);
    // Weights of each group as packed A panels, one block after another.
    const int64_t per_group = aot__sgemm_packed_a_floats(cout_g, K);
    auto& sym = packed_[w];
    if (sym.empty()) {
      std::vector<float> wf(static_cast<size_t>(w->meta().numel())), packed(static_cast<size_t>(per_group * G));
      std::memcpy(wf.data(), wd->bytes.data(), wf.size() * 4);
      for (int64_t g = 0; g < G; ++g)
        aot__sgemm_pack_a(cout_g, K, wf.data() + g * cout_g * K, K, 1, packed.data() + g * per_group);
      sym = WeightBytes("%" + w->name() + " packed as GEMM A panels, " + std::to_string(G) + " group(s) of [" +
                            std::to_string(cout_g) + ", " + std::to_string(K) + "]",
                        Bytes(packed));
    }
    if (bias) pb += " + g * " + std::to_string(cout_g * bias->meta().strides[0]);
    const bool pointwise = lg.pointwise;  // B is the image itself
    const std::string plane = std::to_string(xs[2] * xs[3]);
    AOT_ASSIGN_OR_RETURN(std::string ep,
                         EpilogueDecl(pb, bias ? bias->meta().strides[0] : 0, 0,
                                      "nb * " + std::to_string(yn) + " + g * " + std::to_string(cout_g * OHW), OHW, 1));
    AOT_ASSIGN_OR_RETURN(std::string scratch, Scratch(n, lg));
    std::string a_panels = "(const float*)" + sym + " + g * " + std::to_string(per_group);
    if (gate) {  // this image's gate times the packed weights, then the GEMM slots (G == 1)
      AOT_ASSIGN_OR_RETURN(std::string pg, Ptr(gate->gate));
      const std::vector<int64_t>&gs = gate->gate->meta().strides, &gsz = gate->gate->meta().sizes;
      a_panels = scratch;
      scratch = "(" + scratch + " + " + std::to_string(lg.gate_floats) + ")";
      loops_ << "  for (int64_t nb = 0; nb < " << xs[0] << "; ++nb) {\n"
             << "    aot__sgemm_scale_packed_a(" << cout_g << ", " << K << ", (const float*)" << sym << ", " << pg
             << (gsz[0] == 1 ? "" : " + nb * " + std::to_string(gs[0])) << ", " << gs[1] << ", " << a_panels << ");\n";
    } else {
      loops_ << "  for (int64_t nb = 0; nb < " << xs[0] << "; ++nb) {\n";
    }
    loops_ << "  for (int64_t g = 0; g < " << G << "; ++g) {\n";
    loops_ << "    const aot__operand A = {" << a_panels << ", 0, 0, 1, 0};\n";
    loops_ << "    const aot__operand B = {" << px << " + nb * " << xn << " + g * " << cin_g << " * " << plane << ", "
           << (pointwise ? plane + ", 1, 0, 0" : "0, 0, 0, &geom") << "};\n";
    loops_ << "    const " << ep << "\n";
    loops_ << "    "
           << SgemmCall(lg,
                        std::to_string(cout_g) + ", " + std::to_string(OHW) + ", " + std::to_string(K) + ", &A, &B, " +
                            py + " + nb * " + std::to_string(yn) + " + g * " + std::to_string(cout_g * OHW) + ", " +
                            std::to_string(OHW) + ", 1, &ep",
                        scratch)
           << ";\n  }\n  }\n";
    if (pointwise) body_ << "  (void)geom;\n";
    ConsumeEpilogue();
    return true;
  }

  // conv2d as Winograd F(m x m, 3 x 3) per image: the filters transformed
  // and packed at compile time, the blocks of tile rows split over the pool.
  StatusOr<bool> Conv2dWinograd(const Node* n, const LibraryGemm& lg, const std::string& px, const std::string& py,
                                const std::string& pb, int64_t xn, int64_t yn) {
    const Value *w = n->input(1), *bias = n->input(2);
    const WeightData* wd = ConstF32(w);
    const int m = lg.winograd;
    const int64_t M = lg.M, C = w->meta().sizes[1], OHW = lg.N, images = n->input(0)->meta().sizes[0];
    std::string& sym = wino_packed_[{w, m}];
    if (sym.empty()) {
      std::vector<float> wf(static_cast<size_t>(M * C * 9)), tmp(static_cast<size_t>(M * C)),
          packed(static_cast<size_t>(aot__wino_packed_floats(m, M, C)));
      std::memcpy(wf.data(), wd->bytes.data(), wf.size() * 4);
      aot__wino_pack(m, M, C, wf.data(), tmp.data(), packed.data());
      const std::string ms = std::to_string(m), a2 = std::to_string((m + 2) * (m + 2));
      sym = WeightBytes("%" + w->name() + " as Winograd F(" + ms + "x" + ms + ", 3x3) filters: " + a2 +
                            " GEMM A panels [" + std::to_string(M) + ", " + std::to_string(C) + "]",
                        Bytes(packed));
    }
    AOT_ASSIGN_OR_RETURN(std::string ep,
                         EpilogueDecl(pb, bias ? bias->meta().strides[0] : 0, 0, "nb * " + std::to_string(yn), OHW, 1));
    AOT_ASSIGN_OR_RETURN(const std::string scratch, Scratch(n, lg));
    const std::string args = std::to_string(m) + ", &geom, " + std::to_string(M) + ", " + px + " + nb * " +
                             std::to_string(xn) + ", (const float*)" + sym + ", " + py + " + nb * " +
                             std::to_string(yn) + ", &ep, " + scratch;
    loops_ << "  for (int64_t nb = 0; nb < " << images << "; ++nb) {\n    const " << ep << "\n    ";
    if (lg.parts <= 1)
      loops_ << "aot__conv2d_wino_range(" << args << ", 0, " << lg.wino_blocks << ");\n  }\n";
    else
      loops_ << "aot__wino_mt(" << args << ", " << lg.slot_floats << ", " << lg.parts << ");\n  }\n";
    ConsumeEpilogue();
    return true;
  }

  Status Conv2d(const Node* n) {
    const Value *x = n->input(0), *w = n->input(1), *bias = n->input(2), *y = n->output();
    AOT_ASSIGN_OR_RETURN(const Conv2dArgs ca, Conv2dArguments(n));
    if (use_kl_) {
      AOT_ASSIGN_OR_RETURN(bool done, Conv2dLibrary(n, ca));
      if (done) return Status::Ok();
    }
    const std::vector<int64_t>&stride = ca.stride, &pad = ca.pad, &dil = ca.dil;
    const int64_t groups = ca.groups;
    const auto& xs = x->meta().sizes;
    const auto& ws = w->meta().sizes;
    const auto& ys = y->meta().sizes;
    const int64_t cin_g = ws[1], cout_g = ws[0] / groups;
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string pw, Ptr(w));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    std::string pb;
    if (bias) {
      AOT_ASSIGN_OR_RETURN(pb, Ptr(bias));
    }
    const auto& xst = x->meta().strides;
    const auto& wst = w->meta().strides;
    const auto& yst = y->meta().strides;
    loops_ << "  for (int64_t nb = 0; nb < " << xs[0] << "; ++nb)\n";
    loops_ << "  for (int64_t oc = 0; oc < " << ys[1] << "; ++oc) {\n";
    loops_ << "    const int64_t g = oc / " << cout_g << ";\n";
    loops_ << "    for (int64_t oh = 0; oh < " << ys[2] << "; ++oh)\n";
    loops_ << "    for (int64_t ow = 0; ow < " << ys[3] << "; ++ow) {\n";
    loops_ << "      float acc = "
           << (bias ? pb + "[oc * " + std::to_string(bias->meta().strides[0]) + "]" : std::string("0.f")) << ";\n";
    loops_ << "      for (int64_t ic = 0; ic < " << cin_g << "; ++ic)\n";
    loops_ << "      for (int64_t kh = 0; kh < " << ws[2] << "; ++kh) {\n";
    loops_ << "        const int64_t ih = oh * " << stride[0] << " - " << pad[0] << " + kh * " << dil[0] << ";\n";
    loops_ << "        if (ih < 0 || ih >= " << xs[2] << ") continue;\n";
    loops_ << "        for (int64_t kw = 0; kw < " << ws[3] << "; ++kw) {\n";
    loops_ << "          const int64_t iw = ow * " << stride[1] << " - " << pad[1] << " + kw * " << dil[1] << ";\n";
    loops_ << "          if (iw < 0 || iw >= " << xs[3] << ") continue;\n";
    loops_ << "          acc += " << px << "[nb * " << xst[0] << " + (g * " << cin_g << " + ic) * " << xst[1]
           << " + ih * " << xst[2] << " + iw * " << xst[3] << "] * " << pw << "[oc * " << wst[0] << " + ic * " << wst[1]
           << " + kh * " << wst[2] << " + kw * " << wst[3] << "];\n";
    loops_ << "        }\n      }\n";
    loops_ << "      " << py << "[nb * " << yst[0] << " + oc * " << yst[1] << " + oh * " << yst[2] << " + ow * "
           << yst[3] << "] = acc;\n";
    loops_ << "    }\n  }\n";
    return Status::Ok();
  }

  Status Pool2d(const Node* n) {
    const Value *x = n->input(0), *y = n->output();
    AOT_ASSIGN_OR_RETURN(const Pool2dArgs pa, Pool2dArguments(n));
    const bool is_max = pa.is_max, count_pad = pa.count_pad;
    const std::vector<int64_t>&k = pa.k, &s = pa.s, &p = pa.p, &d = pa.d;
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    if (MaxPoolLibrary(n, pa, px, py)) return Status::Ok();
    const auto& xs = x->meta().sizes;
    const auto& xst = x->meta().strides;
    std::vector<std::string> v;
    std::string ind = OpenLoops(y->meta().sizes, "i", &v);
    const DType t = x->meta().dtype == DType::kFloat32 ? DType::kFloat32 : DType::kFloat64;
    // A window's count fits int32_t (int64_t -> float needs a helper on 32-bit targets).
    const std::string cnt_t = FloatAcc(t) ? "int32_t" : "int64_t";
    loops_ << ind << AccT(t) << " acc = " << (is_max ? "-INFINITY" : "0") << ";"
           << (is_max ? "" : " " + cnt_t + " cnt = 0;") << "\n";
    loops_ << ind << "for (int64_t kh = 0; kh < " << k[0] << "; ++kh) for (int64_t kw = 0; kw < " << k[1]
           << "; ++kw) {\n";
    loops_ << ind << "  const int64_t ih = " << v[2] << " * " << s[0] << " - " << p[0] << " + kh * " << d[0]
           << ", iw = " << v[3] << " * " << s[1] << " - " << p[1] << " + kw * " << d[1] << ";\n";
    if (!is_max && count_pad)
      loops_ << ind << "  if (ih < " << xs[2] + p[0] << " && iw < " << xs[3] + p[1] << ") ++cnt;\n";
    loops_ << ind << "  if (ih < 0 || ih >= " << xs[2] << " || iw < 0 || iw >= " << xs[3] << ") continue;\n";
    if (!is_max && !count_pad) loops_ << ind << "  ++cnt;\n";
    loops_ << ind << "  const " << AccT(t) << " v = " << px << "[" << v[0] << " * " << xst[0] << " + " << v[1] << " * "
           << xst[1] << " + ih * " << xst[2] << " + iw * " << xst[3] << "];\n";
    if (is_max)
      loops_ << ind << "  if (v > acc || v != v) acc = v;\n";
    else
      loops_ << ind << "  acc += v;\n";
    loops_ << ind << "}\n";
    std::string val = is_max ? "acc" : "(cnt ? acc / cnt : 0)";
    loops_ << ind << py << "[" << LinearIndex(v, y->meta().strides) << "] = " << CCast(val, y->meta().dtype) << ";\n";
    CloseLoops(v.size());
    return Status::Ok();
  }

  Status AdaptiveAvgPool2d(const Node* n) {
    const Value *x = n->input(0), *y = n->output();
    if (x->meta().sizes.size() != 4) return Unsupported("only 4-D adaptive pooling");
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    const int64_t H = x->meta().sizes[2], W = x->meta().sizes[3], OH = y->meta().sizes[2], OW = y->meta().sizes[3];
    const auto &xst = x->meta().strides, &yst = y->meta().strides;
    const int64_t C = x->meta().sizes[1], planes = x->meta().sizes[0] * C;
    if (x->meta().dtype == DType::kFloat32 && !FloatAcc(DType::kFloat32) && OH == 1 && OW == 1 && xst[3] == 1 &&
        xst[2] == W) {
      // Global pooling, each plane one contiguous run: one loop over N x C,
      // split over threads in equal shares of channels, as the depthwise
      // convolution before it (EfficientNet's SE blocks) split them: each
      // thread sums the planes it just wrote, from its own cache.
      const bool split = SplitFirstLoop(planes, H * W, 1);
      const std::string sum = "aot__sum_f32d(" + px + " + p / " + std::to_string(C) + " * " + std::to_string(xst[0]) +
                              " + p % " + std::to_string(C) + " * " + std::to_string(xst[1]) + ", " +
                              std::to_string(H * W) + ") / " + std::to_string(H * W);
      loops_ << "  for (int64_t p = " << (split ? "lo" : "0") << "; p < " << (split ? "hi" : std::to_string(planes))
             << "; ++p)\n    " << py << "[p / " << C << " * " << yst[0] << " + p % " << C << " * " << yst[1]
             << "] = " << CCast(sum, y->meta().dtype) << ";\n";
      return Status::Ok();
    }
    std::vector<std::string> v;
    std::string ind = OpenLoops(y->meta().sizes, "i", &v);
    // ATen's bins: start = floor(o*H/OH), end = ceil((o+1)*H/OH).
    loops_ << ind << "const int64_t h0 = (" << v[2] << " * " << H << ") / " << OH << ", h1 = ((" << v[2] << " + 1) * "
           << H << " + " << OH - 1 << ") / " << OH << ";\n";
    loops_ << ind << "const int64_t w0 = (" << v[3] << " * " << W << ") / " << OW << ", w1 = ((" << v[3] << " + 1) * "
           << W << " + " << OW - 1 << ") / " << OW << ";\n";
    const DType t = x->meta().dtype == DType::kFloat32 ? DType::kFloat32 : DType::kFloat64;
    const std::string base = px + " + " + v[0] + " * " + std::to_string(xst[0]) + " + " + v[1] + " * " +
                             std::to_string(xst[1]) + " + h * " + std::to_string(xst[2]);
    if (t == DType::kFloat32 && !FloatAcc(t) && xst[3] == 1) {  // rows of the window: contiguous runs
      loops_ << ind << "double acc = 0;\n"
             << ind << "for (int64_t h = h0; h < h1; ++h) acc += aot__sum_f32d(" << base << " + w0, w1 - w0);\n";
    } else {
      loops_ << ind << AccDecl(t, "acc", "0") << "\n";
      loops_ << ind << "for (int64_t h = h0; h < h1; ++h) for (int64_t w = w0; w < w1; ++w) "
             << AccAdd(t, "acc", "(" + base + ")[w * " + std::to_string(xst[3]) + "]") << "\n";
    }
    const std::string area = FloatAcc(t) ? "(int32_t)((h1 - h0) * (w1 - w0))" : "((h1 - h0) * (w1 - w0))";
    loops_ << ind << py << "[" << LinearIndex(v, y->meta().strides) << "] = " << CCast("acc / " + area, y->meta().dtype)
           << ";\n";
    CloseLoops(v.size());
    return Status::Ok();
  }

  // out = self with values written (or added) at the indexed positions:
  // integer index tensors (advanced indexing), or a boolean mask over the
  // leading dimensions with values broadcast over the masked elements.
  Status IndexPut(const Node* n) {
    const Value *self = n->input(0), *values = n->input(2), *out = n->output();
    const bool acc = n->args()[3].literal.kind == Literal::Kind::kBool && n->args()[3].literal.b;
    if (out->meta().storage != self->meta().storage) AOT_RETURN_IF_ERROR(CopyInOrder(self, out));
    const std::vector<Value*>& idx = n->args()[1].list;
    AOT_ASSIGN_OR_RETURN(std::string po, Ptr(out));
    AOT_ASSIGN_OR_RETURN(std::string pv, Ptr(values));
    const TensorMeta& om = out->meta();
    const std::string op = acc ? " += " : " = ";
    auto is_mask = [](const Value* t) {
      return t && (t->meta().dtype == DType::kBool || t->meta().dtype == DType::kUInt8);
    };
    if (std::any_of(idx.begin(), idx.end(), is_mask)) {
      // Values broadcast over the masked elements: one value, or one block of
      // the dims after the mask's (a value per masked element would need the
      // number of true elements, known only at run time).
      const Value* ix = idx[0];
      const TensorMeta &mm = ix->meta(), &vm = values->meta();
      const size_t rest = om.sizes.size() - std::min(om.sizes.size(), mm.sizes.size());
      if (!is_mask(ix) || std::count(idx.begin(), idx.end(), nullptr) + 1 != static_cast<std::ptrdiff_t>(idx.size()) ||
          vm.sizes.size() > rest + 1 || (vm.sizes.size() == rest + 1 && vm.sizes[0] != 1))
        return Unsupported("boolean-mask index_put needs values that broadcast over the masked elements");
      AOT_ASSIGN_OR_RETURN(std::string pi, Ptr(ix));
      std::vector<std::string> v;
      std::string ind = OpenLoops(om.sizes, "i", &v);
      std::vector<std::string> mv(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mm.sizes.size()));
      loops_ << ind << "if (" << pi << "[" << LinearIndex(mv, mm.strides) << "]) " << po << "["
             << LinearIndex(v, om.strides) << "]" << op
             << CCast(pv + "[" + LinearIndex(v, BroadcastStrides(vm, om.sizes)) + "]", om.dtype) << ";\n";
      CloseLoops(v.size());
      return Status::Ok();
    }
    // Integer index tensors (several broadcast together): iterate over the
    // indexed shape, values broadcast to it.
    AOT_ASSIGN_OR_RETURN(AdvancedIndex ai, AnalyzeAdvancedIndex(om, idx));
    std::vector<std::string> v;
    std::string ind = OpenLoops(ai.result, "i", &v);
    AOT_ASSIGN_OR_RETURN(GatherText gt, GatherFor(n, ai, om, v, ind));
    loops_ << gt.decls << ind << po << "[" << gt.offset << "]" << op
           << CCast(pv + "[" + LinearIndex(v, BroadcastStrides(values->meta(), ai.result)) + "]", om.dtype) << ";\n";
    CloseLoops(v.size());
    return Status::Ok();
  }

  // The pointers of ai's index tensors, then the statements that read them.
  // n indexes its first input (index.Tensor, index_put), laid out as x.
  StatusOr<GatherText> GatherFor(const Node* n, const AdvancedIndex& ai, const TensorMeta& x,
                                 const std::vector<std::string>& v, const std::string& ind) {
    AOT_ASSIGN_OR_RETURN(std::vector<std::string> ptrs, IndexTensorPtrs(ai, [this](const Value* t) { return Ptr(t); }));
    return AdvancedIndexText(ai, x, v, ptrs, ind, [&](const std::string& raw, int64_t size, size_t dim) {
      return IndexFail(raw, -size, size, IndexWhere(n, n->input(0), dim));
    });
  }

  // y = x[indices] (index.Tensor): a gather over y's elements.
  Status Index(const Node* n) override {
    const Value *x = n->input(0), *y = n->output();
    AOT_ASSIGN_OR_RETURN(AdvancedIndex ai, AnalyzeIndexNode(n));
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    std::vector<std::string> v;
    std::string ind = OpenLoops(ai.result, "i", &v);
    AOT_ASSIGN_OR_RETURN(GatherText gt, GatherFor(n, ai, x->meta(), v, ind));
    loops_ << gt.decls << ind << py << "[" << LinearIndex(v, y->meta().strides)
           << "] = " << CCast(px + "[" + gt.offset + "]", y->meta().dtype) << ";\n";
    CloseLoops(v.size());
    return Status::Ok();
  }

  // embedding_bag (weight, indices, offsets, scale_grad, mode, sparse,
  // per_sample_weights, include_last_offset[, padding_idx]): bag b reduces the
  // rows weight[indices[offsets[b] .. offsets[b + 1])] (sum, mean or max;
  // padding_idx rows skipped; an empty bag gives zeros). Only the first
  // result (the bags) may be used.
  Status EmbeddingBag(const Node* n) override {
    const Value *w = n->input(0), *idx = n->input(1), *offs = n->input(2), *y = n->output(0);
    for (size_t k = 1; k < n->outputs().size(); ++k)
      if (!n->output(static_cast<int>(k))->uses().empty())
        return Unsupported("embedding_bag's offset2bag, bag_size or max_indices result is used");
    const int64_t mode = Lit(n, 4).i;
    const Value* psw = n->input(6);
    const bool last_offset = Lit(n, 7).kind == Literal::Kind::kBool && Lit(n, 7).b;
    const bool has_pad = n->args().size() > 8 && Lit(n, 8).kind == Literal::Kind::kInt && Lit(n, 8).i >= 0;
    if (idx->meta().sizes.size() != 1 || offs->meta().sizes.size() != 1 || w->meta().sizes.size() != 2)
      return Unsupported("embedding_bag needs 1-D indices and offsets and a 2-D weight");
    if (mode < 0 || mode > 2) return InvalidArgument("embedding_bag mode " + std::to_string(mode));
    const DType dt = y->meta().dtype;
    AOT_ASSIGN_OR_RETURN(std::string ct, CType(dt));
    AOT_ASSIGN_OR_RETURN(std::string pw, Ptr(w));
    AOT_ASSIGN_OR_RETURN(std::string pi, Ptr(idx));
    AOT_ASSIGN_OR_RETURN(std::string po, Ptr(offs));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    std::string pp;
    if (psw) {
      AOT_ASSIGN_OR_RETURN(pp, Ptr(psw));
    }
    const int64_t noff = offs->meta().sizes[0], nidx = idx->meta().sizes[0], D = w->meta().sizes[1];
    const int64_t nbags = y->meta().sizes[0];
    const auto &ws = w->meta().strides, &ys = y->meta().strides;
    const std::string os = std::to_string(offs->meta().strides[0]), is = std::to_string(idx->meta().strides[0]);
    const std::string yrow = "b * " + std::to_string(ys[0]), yj = yrow + " + j * " + std::to_string(ys[1]);
    const std::string wj = "k * " + std::to_string(ws[0]) + " + j * " + std::to_string(ws[1]);
    // Offsets as eager accepts them: offsets[0] = 0, non-decreasing, at most the number of indices.
    if (noff > 0)
      loops_ << "  if ((int64_t)" << po << "[0] != 0) "
             << IndexFail("(int64_t)" + po + "[0]", 0, 1,
                          "offsets[0] (must be 0) of %" + w->name() + " in aten::embedding_bag (%" + y->name() + ")")
             << "\n";
    loops_ << "  for (int64_t b = 0; b < " << nbags << "; ++b) {\n"
           << "    const int64_t s = (int64_t)" << po << "[b * " << os << "], e = "
           << (last_offset ? "(int64_t)" + po + "[(b + 1) * " + os + "]"
                           : "b + 1 < " + std::to_string(noff) + " ? (int64_t)" + po + "[(b + 1) * " + os +
                                 "] : " + std::to_string(nidx))
           << ";\n"
           // s is offsets[0] = 0 or the previous bag's e, already checked.
           << "    if (e < s || e > " << nidx << ") "
           << IndexFail(
                  "e", 0, nidx + 1,
                  "the offsets (non-decreasing) of %" + w->name() + " in aten::embedding_bag (%" + y->name() + ")")
           << "\n    int64_t cnt = 0;\n"
           << "    for (int64_t j = 0; j < " << D << "; ++j) " << py << "[" << yj
           << "] = " << (mode == 2 ? "-INFINITY" : "0") << ";\n"
           << "    for (int64_t i = s; i < e; ++i) {\n"
           << "      const int64_t k = (int64_t)" << pi << "[i * " << is << "];\n"
           << "      if (k < 0 || k >= " << w->meta().sizes[0] << ") "
           << IndexFail("k", 0, w->meta().sizes[0], IndexWhere(n, w, 0)) << "\n";
    if (has_pad) loops_ << "      if (k == " << Lit(n, 8).i << ") continue;\n";
    std::string x = pw + "[" + wj + "]";
    if (psw) x = "(" + ct + ")(" + x + " * " + pp + "[i * " + std::to_string(psw->meta().strides[0]) + "])";
    loops_ << "      ++cnt;\n      for (int64_t j = 0; j < " << D << "; ++j) {\n"
           << "        const " << ct << " v = " << x << ";\n";
    if (mode == 2)
      loops_ << "        if (v > " << py << "[" << yj << "] || v != v) " << py << "[" << yj << "] = v;\n";
    else
      loops_ << "        " << py << "[" << yj << "] += v;\n";
    loops_ << "      }\n    }\n";
    if (mode == 1)
      loops_ << "    if (cnt > 0) for (int64_t j = 0; j < " << D << "; ++j) " << py << "[" << yj << "] /= (" << ct
             << ")cnt;\n";
    if (mode == 2)
      loops_ << "    if (cnt == 0) for (int64_t j = 0; j < " << D << "; ++j) " << py << "[" << yj << "] = 0;\n";
    loops_ << "  }\n";
    return Status::Ok();
  }

  // sort/topk: per row, a stable bottom-up merge sort of the positions in
  // scratch (NaN orders as the largest value, as in eager), then the first k.
  Status Sort(const Node* n) override {
    const Value *x = n->input(0), *vals = n->output(0), *idx = n->output(1);
    AOT_ASSIGN_OR_RETURN(SortArgs sa, SortArguments(n));
    const int64_t len = x->meta().sizes[sa.dim];
    AOT_ASSIGN_OR_RETURN(std::string ct, CType(x->meta().dtype));
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string pv, Ptr(vals));
    AOT_ASSIGN_OR_RETURN(std::string pi, Ptr(idx));
    const std::string st = std::to_string(x->meta().strides[sa.dim]), n_s = std::to_string(len);
    AOT_ASSIGN_OR_RETURN(const std::string scratch, Scratch(n, SortScratchBytes(n), "int64_t"));
    body_ << "  int64_t* const ia = " << scratch << ";\n"
          << "  int64_t* const ib = ia + " << len << ";\n";
    // p strictly before q: greater (descending) or smaller, NaN largest.
    const std::string before = sa.descending ? "(p > q || (p != p && q == q))" : "(p < q || (p == p && q != q))";
    std::vector<std::string> v;
    std::string ind = OpenLoops(sa.outer, "o", &v);
    loops_ << ind << "const " << ct << "* const xr = " << px << " + " << LinearIndex(v, sa.x_outer) << ";\n"
           << ind << "int64_t *src = ia, *dst = ib;\n"
           << ind << "for (int64_t i = 0; i < " << n_s << "; ++i) ia[i] = i;\n"
           << ind << "for (int64_t w = 1; w < " << n_s << "; w *= 2) {\n"
           << ind << "  for (int64_t lo = 0; lo < " << n_s << "; lo += 2 * w) {\n"
           << ind << "    const int64_t m = lo + w < " << n_s << " ? lo + w : " << n_s << ", hi = lo + 2 * w < " << n_s
           << " ? lo + 2 * w : " << n_s << ";\n"
           << ind << "    int64_t a = lo, b = m, t = lo;\n"
           << ind << "    while (a < m && b < hi) {\n"
           << ind << "      const " << ct << " p = xr[src[b] * " << st << "], q = xr[src[a] * " << st << "];\n"
           << ind << "      dst[t++] = " << before << " ? src[b++] : src[a++];\n"
           << ind << "    }\n"
           << ind << "    while (a < m) dst[t++] = src[a++];\n"
           << ind << "    while (b < hi) dst[t++] = src[b++];\n"
           << ind << "  }\n"
           << ind << "  int64_t* const sw = src; src = dst; dst = sw;\n"
           << ind << "}\n"
           << ind << "for (int64_t i = 0; i < " << sa.k << "; ++i) {\n"
           << ind << "  " << pv << "[" << LinearIndex(v, sa.v_outer) << " + i * " << vals->meta().strides[sa.dim]
           << "] = " << CCast("xr[src[i] * " + st + "]", vals->meta().dtype) << ";\n"
           << ind << "  " << pi << "[" << LinearIndex(v, sa.i_outer) << " + i * " << idx->meta().strides[sa.dim]
           << "] = src[i];\n"
           << ind << "}\n";
    CloseLoops(v.size());
    return Status::Ok();
  }

  // cumsum/cumprod along one dim, accumulated in double (floats, as eager's
  // CPU kernel; float with float_accumulation) or int64, each prefix rounded
  // to the result's dtype.
  Status Cumulative(const Node* n) override {
    const Value *x = n->input(0), *y = n->output();
    const bool sum = n->op().schema.name == "cumsum";
    const size_t rank = x->meta().sizes.size();
    if (rank == 0) return CopyInOrder(x, y);
    const size_t dim = static_cast<size_t>(NormDim(Lit(n, 1).i, rank));
    AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
    AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
    const DType yt = y->meta().dtype;
    if (yt == DType::kBool || !(IsFloatingPoint(yt) || yt == DType::kInt64 || yt == DType::kInt32 ||
                                yt == DType::kInt16 || yt == DType::kInt8 || yt == DType::kUInt8))
      return Unsupported(std::string("cumulative op in dtype ") + DTypeName(yt));
    const std::string acc = IsFloatingPoint(yt) ? AccT(yt) : "int64_t";
    std::vector<int64_t> outer, xo, yo;
    for (size_t d = 0; d < rank; ++d)
      if (d != dim) {
        outer.push_back(x->meta().sizes[d]);
        xo.push_back(x->meta().strides[d]);
        yo.push_back(y->meta().strides[d]);
      }
    std::vector<std::string> v;
    std::string ind = OpenLoops(outer, "o", &v);
    loops_ << ind << acc << " acc = " << (sum ? "0" : "1") << ";\n"
           << ind << "for (int64_t i = 0; i < " << x->meta().sizes[dim] << "; ++i) {\n"
           << ind << "  acc " << (sum ? "+=" : "*=") << " (" << acc << ")" << px << "[" << LinearIndex(v, xo)
           << " + i * " << x->meta().strides[dim] << "];\n"
           << ind << "  " << py << "[" << LinearIndex(v, yo) << " + i * " << y->meta().strides[dim]
           << "] = " << CCast("acc", yt) << ";\n"
           << ind << "}\n";
    CloseLoops(v.size());
    return Status::Ok();
  }

  // Outputs not written in place: inputs or weights returned as they are, a
  // second output sharing a buffer, a partial view of an arena buffer.
  Status EmitOutputCopies() {
    for (size_t k = 0; k < g_.outputs().size(); ++k) {
      const Value* v = g_.outputs()[k];
      auto home = output_home_.find(v->meta().storage);
      if (home != output_home_.end() && home->second == static_cast<int64_t>(k) && v->meta().offset == 0 &&
          v->meta().IsContiguous())
        continue;
      BeginKernel("output " + std::to_string(k) + " <- %" + v->name());
      AOT_ASSIGN_OR_RETURN(std::string src, Ptr(v));
      AOT_ASSIGN_OR_RETURN(std::string ct, CType(v->meta().dtype));
      std::vector<std::string> vars;
      std::string ind = OpenLoops(v->meta().sizes, "i", &vars);
      loops_ << ind << "((" << ct << "*)out[" << k << "])[" << LinearIndex(vars, ContiguousStrides(v->meta().sizes))
             << "] = " << src << "[" << LinearIndex(vars, v->meta().strides) << "];\n";
      CloseLoops(vars.size());
      EndKernel();
    }
    return Status::Ok();
  }

  // ---- the files ----
  // The plan's buffers, the kernels' scratch among them.
  int64_t ArenaTotal() const { return plan_.arena_bytes(); }

  StatusOr<GeneratedC> Assemble() {
    const std::string& N = opts_.name;
    GeneratedC out;
    out.arena_bytes = ArenaTotal();
    out.kernels = kernel_count_;
    out.weights = blob_;
    std::ostringstream h;
    h << "/* Generated by atenaot from " << CComment(opts_.source_note) << ". Do not edit. */\n";
    h << "#ifndef " << N << "_H_\n#define " << N
      << "_H_\n\n#include \"atenaot_model.h\"\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
    const size_t nin = g_.inputs().size(), nout = g_.outputs().size();
    const int64_t wbytes = opts_.embed_weights ? 0 : static_cast<int64_t>(blob_.size());
    h << "/* Sizes known at compile time, e.g. for a static arena in firmware:\n"
      << " *   static uint8_t arena[" << N << "_ARENA_BYTES] __attribute__((aligned(64))); */\n";
    h << "#define " << N << "_ARENA_BYTES " << ArenaTotal() << "\n";
    h << "#define " << N << "_WEIGHTS_BYTES " << wbytes << " /* 0: embedded */\n";
    h << "#define " << N << "_NUM_INPUTS " << nin << "\n#define " << N << "_NUM_OUTPUTS " << nout << "\n";
    h << "#define " << N << "_MAX_THREADS " << (opts_.threads ? kMaxThreads : 1)
      << " /* 1: single-threaded (--embedded) */\n\n";
    h << "/* Entry points for static linking (firmware): no loader needed. */\n";
    h << "AOT_EXPORT size_t " << N << "_arena_bytes(void);\n";
    h << "AOT_EXPORT size_t " << N << "_weights_bytes(void);\n";
    h << "AOT_EXPORT const aot_compiled_model* " << N << "_model(void);\n";
    h << "/* Validates every argument first and returns a status of atenaot.h; `weights` is NULL when embedded.\n"
      << " * The _msg form also writes a message (at most err_len bytes with its 0) on failure. */\n";
    h << "AOT_EXPORT int " << N
      << "_run(const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs, size_t num_outputs,\n"
      << "                    void* arena, size_t arena_bytes, const void* weights);\n";
    h << "AOT_EXPORT int " << N << "_run_msg(const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs,\n"
      << "                    size_t num_outputs, void* arena, size_t arena_bytes, const void* weights, char* err,\n"
      << "                    size_t err_len);\n";
    if (opts_.threads)
      h << "/* Threads the kernels split over: 1.." << N
        << "_MAX_THREADS, or 0 for one per CPU (the default). Shared by\n"
        << " * every user of this library; the same as aot_model_set_option(m, \"threads\", n). Link with -pthread. "
           "*/\n"
        << "AOT_EXPORT int " << N << "_set_threads(int n);\n";
    const bool checked = WeightsChecked();
    if (checked)
      h << "/* Checks the weights (`weights` as for " << N << "_run) against the CRC-32 recorded at compile time:\n"
        << " * AOT_OK, or AOT_ERR_CORRUPT_WEIGHTS. aot_model_open does this for " << N << ".weights. */\n"
        << "AOT_EXPORT int " << N << "_check_weights(const void* weights);\n";
    h << "\n";
    h << "#ifdef __cplusplus\n}\n#endif\n#endif\n";
    out.header = h.str();

    std::ostringstream c;
    c << "/* Generated by atenaot from " << CComment(opts_.source_note) << ". Do not edit.\n * " << kernel_count_
      << " kernels, arena " << ArenaTotal() << " bytes (" << plan_.placement.algorithm << "). */\n";
    if (opts_.threads) c << "#define _POSIX_C_SOURCE 200809L /* pthreads, sysconf */\n";
    c << kCCompilerWorkarounds;
    c << "#include \"" << N << ".h\"\n\n#include <math.h>\n#include <stdint.h>\n#include <string.h>\n";
    if (opts_.threads) c << "#include <pthread.h>\n#include <sched.h>\n#include <unistd.h>\n";
    if (kl_used_ || act_blocks_used_) c << "#define AOT_ACT_BLOCKS_WANTED 1\n";
    c << kCSupportValidation << kCSupportMath << kCpuCheckSource << "\n";
    if (opts_.threads) c << kCThreadsSource << "\n";
    if (kl_used_)
      c << "/* ---- the kernel library (codegen/kernels) ---- */\n#define AOT_KAPI AOT_UNUSED static\n"
        << kKernelsSource << "\n";
    if (kl_used_ && opts_.threads) c << kCGemmThreadsSource << "\n";
    c << weights_.str() << "\n" << kernels_.str();
    c << "static int aot__compute(void* const* in, void* const* out, uint8_t* arena, const uint8_t* wts, char* err,\n"
      << "                        size_t err_len) {\n"
      << calls_.str()
      << "  (void)in; (void)out; (void)arena; (void)wts; (void)err; (void)err_len;\n  return AOT_OK;\n}\n\n";
    AOT_ASSIGN_OR_RETURN(std::string ins, TensorInfoTable(g_, "aot__inputs", true));
    AOT_ASSIGN_OR_RETURN(std::string outs, TensorInfoTable(g_, "aot__outputs", false));
    const std::string layout = InputLayoutTable(g_, "aot__in_layout");
    c << ins << layout << outs;
    c << "\nstatic aot_status aot__run(void* state, const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs,\n"
      << "                           size_t num_outputs, void* arena, size_t arena_bytes, const void* weights, void* "
         "stream,\n"
      << "                           char* err, size_t err_len) {\n"
      << "  (void)state;\n"
      << "  if (stream) return aot__fail(err, err_len, AOT_ERR_BAD_DEVICE, \"stream\", \"must be NULL: this model runs "
         "on the CPU\");\n"
      << "  int s = aot__validate(inputs, num_inputs, aot__inputs, " << (layout.empty() ? "0" : "aot__in_layout")
      << ", " << nin << ", outputs, num_outputs, aot__outputs, " << nout << ", arena, arena_bytes, " << ArenaTotal()
      << ", AOT_DEVICE_CPU, err, err_len);\n  if (s) return s;\n";
    if (!opts_.embed_weights)
      c << "  if (!weights) return aot__fail(err, err_len, AOT_ERR_NULL_POINTER, \"weights\", \"are NULL (this model "
           "keeps them in "
        << N << ".weights)\");\n";
    c << "  void* in[" << std::max<size_t>(nin, 1) << "];\n  void* out[" << std::max<size_t>(nout, 1) << "];\n";
    // No loop for a program without inputs (or outputs): `i < 0` fails -Wtype-limits.
    if (nin) c << "  for (size_t i = 0; i < " << nin << "; ++i) in[i] = inputs[i].data;\n";
    if (nout) c << "  for (size_t i = 0; i < " << nout << "; ++i) out[i] = outputs[i].data;\n";
    c << "  return aot__compute(in, out, (uint8_t*)arena, (const uint8_t*)weights, err, err_len);\n}\n\n";
    c << "size_t " << N << "_arena_bytes(void) { return " << ArenaTotal() << "; }\n";
    c << "size_t " << N << "_weights_bytes(void) { return " << wbytes << "; }\n";
    c << "int " << N << "_run(const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs, size_t num_outputs,\n"
      << "    void* arena, size_t arena_bytes, const void* weights) {\n"
      << "  return aot__run(0, inputs, num_inputs, outputs, num_outputs, arena, arena_bytes, weights, 0, 0, 0);\n}\n";
    c << "int " << N
      << "_run_msg(const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs, size_t num_outputs,\n"
      << "    void* arena, size_t arena_bytes, const void* weights, char* err, size_t err_len) {\n"
      << "  if (err && err_len) err[0] = 0;\n"
      << "  return aot__run(0, inputs, num_inputs, outputs, num_outputs, arena, arena_bytes, weights, 0, err, "
         "err_len);\n}\n\n";
    c << WeightsOptionSource(checked);
    if (opts_.threads) c << "int " << N << "_set_threads(int n) { return aot__set_threads(n, 0, 0); }\n";
    c << CpuCheckedOpen(checked && !opts_.embed_weights ? "aot__open" : "");
    c << "static const aot_compiled_model aot__model = {ATENAOT_ABI_VERSION, \"" << N << "\", AOT_DEVICE_CPU, 0, "
      << nin << ", " << nout << ", aot__inputs, aot__outputs, " << ArenaTotal() << ", " << wbytes << ", "
      << "aot__open_checked, 0, aot__run, aot__set_option};\n";
    c << "const aot_compiled_model* " << N << "_model(void) { return &aot__model; }\n";
    c << "#ifdef AOT_SHARED_ENTRY\n/* What the loader (aot_model_open) looks up in a shared library. */\n"
      << "AOT_EXPORT AOT_BASELINE const aot_compiled_model* aot_compiled_model_entry(void) { return &aot__model; "
         "}\n#endif\n";
    out.source = c.str();
    return out;
  }

  // Weights in one blob (NAME.weights or the linked NAME_weights.bin) carry
  // a CRC-32; C arrays in NAME.c (--weights c) do not.
  bool WeightsChecked() const { return !blob_.empty() && !(opts_.embed_weights && opts_.weights_as_c_arrays); }

  // The weights check (at open for NAME.weights, on request through the
  // "verify_weights" option) and aot__set_option.
  std::string WeightsOptionSource(bool checked) const {
    const std::string& N = opts_.name;
    const bool in_file = !opts_.embed_weights;
    std::ostringstream c;
    const std::string blob = in_file ? "state" : N + "_weights_data";
    if (checked) {
      c << WeightsCheckSource(N, blob_, in_file);
      c << "int " << N << "_check_weights(const void* weights) {\n"
        << (in_file ? "  return aot__check_weights(weights, 0, 0);\n}\n"
                    : "  (void)weights;\n  return aot__check_weights(" + blob + ", 0, 0);\n}\n");
      if (in_file)  // the loader's copy of NAME.weights becomes the state the option checks again
        c << "static aot_status aot__open(const void* weights, void** state, char* err, size_t err_len) {\n"
          << "  int s = aot__check_weights(weights, err, err_len);\n  if (s) return s;\n"
          << "  *state = (void*)(uintptr_t)weights;\n  return AOT_OK;\n}\n";
    }
    c << "static aot_status aot__set_option(void* state, const char* key, int64_t value, char* err, size_t err_len) {\n"
      << "  (void)state;\n";
    if (opts_.threads) c << "  if (strcmp(key, \"threads\") == 0) return aot__set_threads(value, err, err_len);\n";
    c << "  if (strcmp(key, \"verify_weights\") != 0) {\n"
      << "    aot__fail(err, err_len, AOT_ERR_BAD_OPTION, \"unknown option\", key);\n"
      << "    aot__msg m = aot__tail(err, err_len);\n"
      << "    aot__put(&m, \""
      << (opts_.threads ? " (CPU models take threads and verify_weights)" : " (CPU models take verify_weights)")
      << "\");\n"
      << "    return AOT_ERR_BAD_OPTION;\n  }\n"
      << "  if (value != 1) return aot__fail(err, err_len, AOT_ERR_BAD_OPTION, \"verify_weights\", "
      << "\"takes 1 (check the weights' CRC-32 now)\");\n";
    if (checked)
      c << "  return aot__check_weights(" << blob << ", err, err_len);\n}\n";
    else if (blob_.empty())
      c << "  return AOT_OK; /* the model has no weights */\n}\n";
    else
      c << "  return aot__fail(err, err_len, AOT_ERR_BAD_OPTION, \"verify_weights\", \"has nothing to check: the "
           "weights are "
        << "C arrays in " << N << ".c (--weights c), without a checksum\");\n}\n";
    return c.str();
  }

  const Graph& g_;
  const MemoryPlan& plan_;
  CodegenOptions opts_;
  FusionInfo fusion_;
  std::unordered_map<int64_t, Loc> loc_;
  std::unordered_map<int64_t, int64_t> output_home_;  // storage -> the output buffer it was planned into
  std::ostringstream weights_, kernels_, calls_, body_, loops_;
  std::string kernel_comment_;
  bool kernel_fails_ = false;  // the current kernel returns a status (IndexFail)
  std::unordered_map<const Value*, std::string> ptr_names_;
  LoadExprs load_expr_;
  std::vector<std::string> unsupported_;
  std::vector<uint8_t> blob_;
  std::unordered_map<const Value*, std::string> transposed_;   // weight -> its [K, N] copy
  std::unordered_map<int64_t, const Value*> pending_weights_;  // storage -> weight not emitted yet
  int weight_count_ = 0;
  int kernel_count_ = 0;
  // The kernel library (codegen/kernels): used unless float_accumulation
  // (single-precision embedded targets keep the small generic kernels).
  bool use_kl_ = false;
  bool kl_used_ = false;
  bool act_blocks_used_ = false;  // tiled fused loops call aot__sigmoid16 / aot__silu16
  std::unordered_map<const Node*, std::pair<int64_t, int64_t>> scratch_;  // node -> its planned scratch (offset, bytes)
  EpilogueMatch epilogue_;                   // in-place updates the current kernel may run in its store
  std::vector<const Node*> epilogue_group_;  // the elementwise run they come from
  bool epilogue_consumed_ = false;
  std::unordered_map<const Value*, std::string> packed_;             // weight -> its packed copy
  std::map<std::pair<const Value*, int>, std::string> wino_packed_;  // (weight, m) -> its Winograd transform
  int64_t par_total_ = 0, par_unit_ = 1, par_grain_ = 1;             // the current kernel's split (SplitFirstLoop)
};

}  // namespace

std::vector<KernelStep> KernelSchedule(const Graph& g, const std::unordered_set<const Value*>& fused) {
  std::vector<const Node*> nodes;
  for (const Node* n : g.nodes()) nodes.push_back(n);
  std::vector<KernelStep> steps;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node* n = nodes[i];
    if (IsViewNode(n) || (n->outputs().size() == 1 && fused.count(n->output()))) continue;
    if (!FindElementwise(*n) || n->outputs().size() != 1) {
      steps.push_back({{n}, nullptr});
      continue;
    }
    // A run of in-place elementwise updates of the same tensor joins it.
    KernelStep k{{n}, n->op().Writes() ? n->input(0) : n->output()};
    while (i + 1 < nodes.size()) {
      const Node* m = nodes[i + 1];
      if (m->outputs().size() == 1 && fused.count(m->output())) {
        ++i;
        continue;
      }
      if (m->op().kind != OpKind::kInplace || m->input(0) != k.target || !FindElementwise(*m) ||
          m->output()->meta().sizes != k.target->meta().sizes)
        break;
      bool aliased = false;
      for (size_t a = 1; a < m->InputValues().size(); ++a)
        if (m->InputValues()[a]->meta().storage == k.target->meta().storage) aliased = true;
      if (aliased) break;
      k.nodes.push_back(m);
      ++i;
    }
    steps.push_back(std::move(k));
  }
  return steps;
}

std::unordered_set<const Value*> FusedAwayValues(const Graph& g) { return ComputeFusion(g).fused; }

std::unordered_set<const Value*> FusedAwayValues(const Graph& g, const CodegenOptions& o) {
  std::unordered_set<const Value*> f = ComputeFusion(g).fused;
  for (const Value* v : GatedConvProducts(g, o)) f.insert(v);
  return f;
}

namespace {
// Whether a kernel writing its output over input 0 would change what it
// still reads: another operand in input 0's storage laid out differently
// (y = x + x[0] over x's buffer overwrote row 0 before rows 1.. read it),
// directly or through a fused operand's producer.
bool ReadsInput0Elsewhere(const Node* n, const std::unordered_set<const Value*>& fused) {
  const TensorMeta& m0 = n->input(0)->meta();
  std::function<bool(const Value*)> clashes = [&](const Value* v) {
    if (fused.count(v) && v->producer()) {
      for (const Value* w : v->producer()->InputValues())
        if (clashes(w)) return true;
      return false;
    }
    const TensorMeta& m = v->meta();
    return m.storage == m0.storage && !(m.offset == m0.offset && m.strides == m0.strides && m.sizes == m0.sizes);
  };
  const std::vector<Value*> ins = n->InputValues();
  for (size_t k = 1; k < ins.size(); ++k)
    if (clashes(ins[k])) return true;
  return false;
}
}  // namespace

ReusePairs KernelReusePairs(const Graph& g, const std::unordered_set<const Value*>& fused) {
  // Kernels that read element i of input 0 before writing element i of their
  // output (per element, or per row after the row's statistics).
  static const std::unordered_set<std::string> kRowwise = {"batch_norm", "layer_norm",  "native_layer_norm", "softmax",
                                                           "_softmax",   "log_softmax", "_log_softmax"};
  ReusePairs pairs;
  for (const Node* n : g.nodes()) {
    if (n->outputs().empty() || IsViewNode(n) || n->op().Writes() || !n->input(0)) continue;
    const Value* o = n->output(0);
    if (fused.count(o) || fused.count(n->input(0))) continue;
    if ((kRowwise.count(n->op().schema.name) || FindElementwise(*n)) && !ReadsInput0Elsewhere(n, fused))
      pairs.push_back({o, n->input(0)});
  }
  return pairs;
}

StatusOr<GeneratedC> GenerateC(const Graph& g, const MemoryPlan& plan, const CodegenOptions& opts) {
  return CEmitter(g, plan, opts).Run();
}

}  // namespace atenaot
