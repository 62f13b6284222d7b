#include "codegen/kernel_scratch.h"

#include <algorithm>
#include <functional>

#include "codegen/elementwise.h"
#include "codegen/epilogue.h"
#include "codegen/kernels/aot_kernels.h"

namespace atenaot {

namespace {

// Multiply-adds per thread at least, per element of thread_grain: 2^19 by
// default; below that a split costs more than it saves (waking a worker takes
// tens of microseconds on a loaded machine). Tests use a tiny grain.
constexpr int64_t kMacsPerGrainElement = 32;

// The most threads a kernel of `macs` multiply-adds splits over: the
// options' limit, and at least a grain of work each.
int64_t MaxParts(const CodegenOptions& o, int64_t macs) {
  const int64_t parts = o.threads ? std::max(o.gemm_threads, 1) : 1;
  return std::min(parts, std::max<int64_t>(1, macs / (std::max<int64_t>(o.thread_grain, 1) * kMacsPerGrainElement)));
}

// A and B as the emitter passes them to aot__sgemm, less the data pointers
// (the packing question reads only strides and flags); a conv B's geometry
// is irrelevant to it, any non-null one will do.
void ChooseSplit(LibraryGemm& lg, const CodegenOptions& o, int64_t a_s0, int64_t a_s1, int64_t b_s0, int64_t b_s1,
                 bool b_conv) {
  static const aot__conv_geom kAnyGeom = {};
  static const aot__prologue kAnyPrologue = {};
  const aot__operand a = {nullptr, a_s0, a_s1, lg.a_packed ? 1 : 0, nullptr, nullptr},
                     b = {nullptr,
                          b_s0,
                          b_s1,
                          lg.b_packed ? 1 : 0,
                          b_conv ? &kAnyGeom : nullptr,
                          lg.prologue ? &kAnyPrologue : nullptr};
  lg.packing = aot__sgemm_packing(lg.M, lg.N, lg.K, &a, &b);
  lg.slot_floats = aot__sgemm_scratch_floats(lg.M, lg.N, lg.K, lg.packing);
  const int64_t parts = MaxParts(o, lg.M * lg.N * std::max<int64_t>(lg.K, 1));
  const int64_t cols = (lg.N + 2 * AOT_GEMM_NR - 1) / (2 * AOT_GEMM_NR), rows = (lg.M + AOT_GEMM_MR - 1) / AOT_GEMM_MR;
  // Columns when they go round (each thread packs only its own B panels),
  // else rows (each packs all of B, as for late conv layers with few pixels).
  lg.split_n = cols >= parts || cols >= rows;
  lg.parts = static_cast<int>(std::max<int64_t>(1, std::min(parts, lg.split_n ? cols : rows)));
}

// Winograd F(m x m, 3x3), m = o.winograd (2 by default: F(4x4)'s error from
// float64 was up to 35x eager's on a layer; 4; else none), for 3x3 stride-1
// convolutions where F(4x4) measured faster than im2col GEMM (bench/kernels
// gemm_bench's AotWinograd rows, and ResNet-18 layer by layer) and F(2x2)
// 1.0-1.2x: at least 64 input and 32 output channels (fewer leave the
// transforms unamortised) on maps at least 28 wide and high (on 14 x 14 even
// F(2x2, 3x3) ran slower inside ResNet-18, and on 7 x 7 the tiles overhang
// and the GEMMs are narrow). Its scratch (0.5-1.5 MB a slot) is split over at
// most 2 threads: more slots would raise the arena more than a 2-core machine
// gains.
bool ChooseWinograd(LibraryGemm& lg, const CodegenOptions& o, const Node* n, const Conv2dArgs& ca,
                    const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, const std::vector<int64_t>& ys) {
  if ((o.winograd != 2 && o.winograd != 4) || o.im2col_convs.count(n) || ca.groups != 1 || ws[2] != 3 || ws[3] != 3 ||
      ca.stride[0] != 1 || ca.stride[1] != 1 || ca.dil[0] != 1 || ca.dil[1] != 1 || ws[1] < 64 || ws[0] < 32 ||
      ys[2] < 28 || ys[3] < 28)
    return false;
  lg.winograd = o.winograd;
  const aot__conv_geom g = {xs[1], xs[2], xs[3], 3, 3, 1, 1, ca.pad[0], ca.pad[1], 1, 1, ys[2], ys[3]};
  lg.wino_tile_rows = aot__wino_tile_rows(lg.winograd, &g);
  lg.slot_floats = aot__wino_scratch_floats(lg.winograd, &g, lg.M);
  const int64_t parts = MaxParts(o, lg.M * lg.N * lg.K / 4);  // about the work left after the transform
  lg.parts = static_cast<int>(std::max<int64_t>(1, std::min({parts, lg.wino_tile_rows, int64_t{2}})));
  return true;
}

// Whether elementwise fusion (c_codegen's ComputeFusion) may compute v
// inside its reader instead of storing it: then it has no memory to read.
bool MayBeFused(const Value* v) {
  const Node* p = v->producer();
  return p && p->outputs().size() == 1 && !p->op().Writes() && !IsViewNode(p) && FindElementwise(*p) &&
         v->uses().size() == 1;
}

// Whether the kernel library can run conv2d node n: constant f32 weights,
// contiguous f32 input and output, a 1-D f32 bias or none.
bool LibraryConvOperands(const Graph& g, const Node* n) {
  const Value *x = n->input(0), *w = n->input(1), *bias = n->input(2), *y = n->output();
  return ConstF32Weight(g, w) && x->meta().dtype == DType::kFloat32 && y->meta().dtype == DType::kFloat32 &&
         x->meta().IsContiguous() && y->meta().IsContiguous() &&
         (!bias || (bias->meta().dtype == DType::kFloat32 && bias->meta().sizes.size() == 1));
}

// A conv2d the library runs on an image in any layout, gathered into CHW
// order first, and writes a result whose rows (H, W) collapse into one
// dimension (NCHW, NHWC): the GEMM stores through the result's strides.
bool StridedConvOperands(const Graph& g, const Node* n) {
  const Value *x = n->input(0), *w = n->input(1), *bias = n->input(2), *y = n->output();
  if (!ConstF32Weight(g, w) || x->meta().dtype != DType::kFloat32 || y->meta().dtype != DType::kFloat32 ||
      (bias && (bias->meta().dtype != DType::kFloat32 || bias->meta().sizes.size() != 1)))
    return false;
  if (x->meta().sizes.size() != 4 || y->meta().sizes.size() != 4) return false;
  const std::vector<int64_t>&ys = y->meta().sizes, &yst = y->meta().strides;
  return yst[1] > 0 && yst[2] > 0 && yst[3] > 0 && (ys[2] == 1 || ys[3] == 1 || yst[2] == ys[3] * yst[3]);
}

// 1x1, stride 1, no padding: the GEMM's B is the image itself.
bool Pointwise(const std::vector<int64_t>& ws, const Conv2dArgs& ca) {
  return ws[2] == 1 && ws[3] == 1 && ca.stride[0] == 1 && ca.stride[1] == 1 && ca.pad[0] == 0 && ca.pad[1] == 0;
}

// Whether the library runs n as its depthwise kernel (the reader of
// ConvBands): one filter per channel.
bool LibraryDepthwise(const Graph& g, const Node* n) {
  if (n->outputs().size() != 1 || !LibraryConvOperands(g, n) || n->input(0)->meta().sizes.size() != 4) return false;
  auto ca = Conv2dArguments(n);
  const std::vector<int64_t>& ws = n->input(1)->meta().sizes;
  return ca.ok() && ws[1] == 1 && ws[0] == ca->groups && ca->groups == n->input(0)->meta().sizes[1];
}

// The value an in-place activation updated, where r is its result (or r):
// after reinplacing, a band's reader reads the producer's result c after
// act_(c) updated it, or act_'s own result.
const Value* BeforeInPlace(const Value* r) {
  const Node* p = r ? r->producer() : nullptr;
  return p && p->op().kind == OpKind::kInplace ? p->input(0) : r;
}

// A node reading n's result (`use` says which uses count), directly or
// through one in-place node; the matchers decide the rest.
const Node* ReaderThroughInPlace(const Node* n, const std::function<bool(const Use&)>& use) {
  if (n->outputs().size() != 1) return nullptr;
  for (const Use& u : n->output()->uses()) {
    if (!u.user) continue;
    if (use(u)) return u.user;
    if (u.user->op().kind == OpKind::kInplace && u.user->outputs().size() == 1)
      for (const Use& v : u.user->output()->uses())
        if (v.user && use(v)) return v.user;
  }
  return nullptr;
}

// Whether c's readers are exactly `reader` (argument 0) and at most one
// in-place activation of c that a GEMM store applies (*act, else nullptr),
// whose result again only `reader` reads: one read of the value in all.
bool ReadOnceAfterActivation(const Value* c, const Node* reader, const Node** act) {
  *act = nullptr;
  size_t reads = 0;
  for (const Use& u : c->uses()) {
    if (u.user == reader && u.arg == 0 && u.elem < 0) {
      ++reads;
      continue;
    }
    if (*act || !u.user || u.arg != 0 || u.user->op().kind != OpKind::kInplace) return false;
    *act = u.user;
  }
  if (*act) {
    const EpilogueMatch em = MatchEpilogue(c, {*act}, {});
    if (em.nodes != 1 || em.residual || em.act == AOT_ACT_NONE) return false;
    for (const Use& u : (*act)->output()->uses()) {
      if (u.user != reader || u.arg != 0 || u.elem >= 0) return false;
      ++reads;
    }
  }
  return reads == 1;
}

// Whether a kernel moved from `from` to `to` (after `act`, which may be
// nullptr) still reads the same x and bias: nothing in between writes them,
// and act lies in between.
bool UnwrittenUntil(const Node* from, const Node* to, const Node* act, const Value* x, const Value* bias) {
  bool act_seen = !act;
  const Node* n = from->next();
  for (; n && n != to; n = n->next()) {
    act_seen = act_seen || n == act;
    if (n->op().Writes() && n != act)
      for (int wa : n->op().written_args) {
        const Value* t = n->input(wa);
        if (t && (t->meta().storage == x->meta().storage || (bias && t->meta().storage == bias->meta().storage)))
          return false;
      }
  }
  return n == to && act_seen;
}

// The structural pattern of ConvBandsOf, options aside. After reinplacing,
// the reader reads the convolution's result c after relu_(c) updated it (or
// relu_'s own result): c's and the activation's readers are exactly the
// activation and the reader, in that order.
std::optional<ConvBands> MatchConvBands(const Graph& g, const Node* reader) {
  const KernelKind kind = ClassifyKernel(reader);
  if ((kind != KernelKind::kPool2d && kind != KernelKind::kConv2d) || reader->outputs().size() != 1)
    return std::nullopt;
  ConvBands cb;
  cb.reader = reader;
  cb.depthwise = kind == KernelKind::kConv2d;
  const Value *r = reader->input(0), *y = reader->output();
  if (cb.depthwise) {
    if (!LibraryDepthwise(g, reader)) return std::nullopt;
  } else {
    auto pa = Pool2dArguments(reader);
    if (!pa.ok() || !pa->is_max || !r || r->meta().dtype != DType::kFloat32 || y->meta().dtype != DType::kFloat32 ||
        !r->meta().IsContiguous() || !y->meta().IsContiguous())
      return std::nullopt;
  }
  const Value* c = BeforeInPlace(r);  // the convolution's result
  const Node* conv = c ? c->producer() : nullptr;
  if (!conv || ClassifyKernel(conv) != KernelKind::kConv2d || conv->outputs().size() != 1 || conv->output() != c)
    return std::nullopt;
  cb.conv = conv;
  if (!ReadOnceAfterActivation(c, reader, &cb.act)) return std::nullopt;
  const Value *x = conv->input(0), *bias = conv->input(2);
  auto ca = Conv2dArguments(conv);
  if (!ca.ok() || ca->groups != 1 || !LibraryConvOperands(g, conv) || x->meta().sizes.size() != 4) return std::nullopt;
  // A pointwise convolution's image the band GEMM reads in place, any
  // other's as im2col panels; not with a gate folded into the weights.
  if (Pointwise(conv->input(1)->meta().sizes, *ca) && ConvGateOf(g, conv)) return std::nullopt;
  // The convolution runs at the reader's step, after the activation: what
  // it reads must not change in between.
  return UnwrittenUntil(conv, reader, cb.act, x, bias) ? std::optional<ConvBands>(cb) : std::nullopt;
}

// A max pooling or convolution reading conv's result (MatchConvBands
// decides the rest).
const Node* BandReader(const Node* conv) {
  return ReaderThroughInPlace(conv, [](const Use& u) {
    const KernelKind k = ClassifyKernel(u.user);
    return k == KernelKind::kPool2d || k == KernelKind::kConv2d;
  });
}

// A linear the kernel library runs with its weight prepacked, on rows
// folded from any batch dims, x's and y's rows with unit column stride.
std::optional<MatmulShape> PrepackedLinear(const Graph& g, const Node* n, const CodegenOptions& o) {
  if (!n || ClassifyKernel(n) != KernelKind::kMatmul || n->op().schema.name != "linear" || n->outputs().size() != 1)
    return std::nullopt;
  auto ms = AnalyzeMatmul(n);
  if (!ms.ok() || !ms->batch.empty() || ms->a_vec || ms->b_vec || ms->am.strides.back() != 1 ||
      ms->ym.strides.back() != 1 || ms->ym.strides[ms->ym.strides.size() - 2] != ms->N)
    return std::nullopt;
  const LibraryGemm lg = MatmulGemm(g, *ms, o);
  if (!lg.library || !lg.b_packed) return std::nullopt;
  return *ms;
}

// The structural pattern of LinearBandsOf (as MatchConvBands: after
// reinplacing, the second reads h after act_(h) updated it, or act_'s result).
std::optional<LinearBands> MatchLinearBands(const Graph& g, const Node* second, const CodegenOptions& o) {
  const std::optional<MatmulShape> m2 = PrepackedLinear(g, second, o);
  if (!m2) return std::nullopt;
  LinearBands lb;
  lb.second = second;
  const Value* h = BeforeInPlace(second->input(0));  // the first linear's result
  const Node* first = h ? h->producer() : nullptr;
  const std::optional<MatmulShape> m1 = PrepackedLinear(g, first, o);
  if (!m1 || first->output() != h || m1->M != m2->M || m1->N != m2->K ||
      m2->am.strides[m2->am.strides.size() - 2] != m1->N)
    return std::nullopt;
  lb.first = first;
  if (!ReadOnceAfterActivation(h, second, &lb.act)) return std::nullopt;
  lb.M = m1->M;
  lb.K1 = m1->K;
  lb.N1 = m1->N;
  lb.N2 = m2->N;
  lb.band = aot__linear_band_rows(lb.K1, lb.N1, lb.N2);
  if (lb.M <= lb.band) return std::nullopt;  // one band: nothing saved
  // The first runs at the second's step, after the activation: what it
  // reads must not change in between.
  return UnwrittenUntil(first, second, lb.act, first->input(0), m1->bias) ? std::optional<LinearBands>(lb)
                                                                          : std::nullopt;
}

// A linear reading n's result as its input (MatchLinearBands decides whether
// it is the second of n's LinearBands).
const Node* LinearBandsSecond(const Node* n) {
  return ReaderThroughInPlace(n, [](const Use& u) { return u.arg == 0 && u.user->op().schema.name == "linear"; });
}

}  // namespace

std::optional<LinearBands> LinearBandsOf(const Graph& g, const Node* second, const CodegenOptions& o) {
  if (!o.kernel_library || o.float_accumulation) return std::nullopt;
  return MatchLinearBands(g, second, o);
}

LibraryGemm LinearBandsGemm(const LinearBands& lb, const CodegenOptions& o) {
  LibraryGemm lg;
  lg.library = lg.banded = lg.b_packed = true;
  lg.M = lb.M;
  lg.N = lb.N2;
  lg.K = lb.N1;
  lg.slot_floats = aot__linear_band_scratch_floats(lb.M, lb.N1, lb.band);
  // At most 2 slots, as for the convolution bands: each slot is a band's
  // hidden rows, and more would give back what the bands save.
  const int64_t bands = aot__linear_bands(lb.M, lb.band),
                parts = std::min<int64_t>(MaxParts(o, lb.M * lb.N1 * (lb.K1 + lb.N2)), 2);
  lg.parts = static_cast<int>(std::max<int64_t>(1, std::min(parts, bands)));
  return lg;
}

std::unordered_set<const Value*> LinearBandsResults(const Graph& g, const CodegenOptions& o) {
  std::unordered_set<const Value*> out;
  for (const Node* n : g.nodes())
    if (ClassifyKernel(n) == KernelKind::kMatmul)
      if (std::optional<LinearBands> lb = LinearBandsOf(g, n, o)) {
        out.insert(lb->first->output());
        if (lb->act) out.insert(lb->act->output());
      }
  return out;
}

std::optional<ConvBands> ConvBandsOf(const Graph& g, const Node* reader, const CodegenOptions& o) {
  if (!o.kernel_library || o.float_accumulation) return std::nullopt;
  return MatchConvBands(g, reader);
}

void ConvBandsGeometry(const ConvBands& cb, aot__conv_geom* conv, aot__conv_geom* reader) {
  const auto &xs = cb.conv->input(0)->meta().sizes, &ws = cb.conv->input(1)->meta().sizes,
             &cs = cb.conv->output()->meta().sizes, &ys = cb.reader->output()->meta().sizes;
  const Conv2dArgs ca = *Conv2dArguments(cb.conv);
  *conv = {xs[1],     xs[2],     xs[3],     ws[2],     ws[3], ca.stride[0], ca.stride[1],
           ca.pad[0], ca.pad[1], ca.dil[0], ca.dil[1], cs[2], cs[3]};
  if (cb.depthwise) {
    const Conv2dArgs da = *Conv2dArguments(cb.reader);
    const auto& ds = cb.reader->input(1)->meta().sizes;
    *reader = {cs[1],     cs[2],     cs[3],     ds[2],     ds[3], da.stride[0], da.stride[1],
               da.pad[0], da.pad[1], da.dil[0], da.dil[1], ys[2], ys[3]};
  } else {
    const Pool2dArgs pa = *Pool2dArguments(cb.reader);
    *reader = {cs[1],   cs[2],   cs[3],   pa.k[0], pa.k[1], pa.s[0], pa.s[1],
               pa.p[0], pa.p[1], pa.d[0], pa.d[1], ys[2],   ys[3]};
  }
}

std::unordered_set<const Value*> ConvBandsResults(const Graph& g, const CodegenOptions& o) {
  std::unordered_set<const Value*> out;
  for (const Node* n : g.nodes()) {
    const KernelKind k = ClassifyKernel(n);
    if (k == KernelKind::kPool2d || k == KernelKind::kConv2d)
      if (std::optional<ConvBands> cb = ConvBandsOf(g, n, o)) {
        out.insert(cb->conv->output());
        if (cb->act) out.insert(cb->act->output());
      }
  }
  return out;
}

std::optional<ConvGate> ConvGateOf(const Graph& g, const Node* conv) {
  const Value* m = conv->input(0);
  const Node* mul = m ? m->producer() : nullptr;
  if (!mul || mul->op().schema.name != "mul" || mul->op().schema.overload != "Tensor" || mul->outputs().size() != 1 ||
      m->uses().size() != 1 || m->uses()[0].user != conv || m->uses()[0].arg != 0 || m->uses()[0].elem >= 0)
    return std::nullopt;
  const TensorMeta& mm = m->meta();
  if (mm.sizes.size() != 4 || mm.dtype != DType::kFloat32) return std::nullopt;
  ConvGate cg;
  cg.mul = mul;
  for (int k = 0; k < 2; ++k) {
    const Value *a = mul->input(k), *b = mul->input(1 - k);
    if (!a || !b || a->meta().dtype != DType::kFloat32 || b->meta().dtype != DType::kFloat32) return std::nullopt;
    const std::vector<int64_t>& bs = b->meta().sizes;
    if (a->meta().sizes == mm.sizes && a->meta().IsContiguous() && bs.size() == 4 &&
        (bs[0] == mm.sizes[0] || bs[0] == 1) && bs[1] == mm.sizes[1] && bs[2] == 1 && bs[3] == 1) {
      cg.x = a;
      cg.gate = b;
      break;
    }
  }
  if (!cg.x || MayBeFused(cg.x) || MayBeFused(cg.gate)) return std::nullopt;
  // The conv reads x and the gate where the mul stood: nothing may write them in between.
  bool between = false;
  for (const Node* n : g.nodes()) {
    if (n == conv) break;
    if (between && n->op().Writes())
      for (int w : n->op().written_args) {
        const Value* t = n->input(w);
        if (t && (t->meta().storage == cg.x->meta().storage || t->meta().storage == cg.gate->meta().storage))
          return std::nullopt;
      }
    between = between || n == mul;
  }
  return between ? std::optional<ConvGate>(cg) : std::nullopt;
}

const WeightData* ConstF32Weight(const Graph& g, const Value* v) {
  return v && v->meta().dtype == DType::kFloat32 ? WeightDataOf(g, v) : nullptr;
}

LibraryGemm MatmulGemm(const Graph& g, const MatmulShape& ms, const CodegenOptions& o) {
  LibraryGemm lg;
  if (!o.kernel_library || o.float_accumulation) return lg;
  if (ms.alpha != 1 || (ms.bias && ms.beta != 1) || (ms.bias && (ms.a_vec || ms.b_vec))) return lg;
  if (ms.bias && !ms.batch.empty()) {  // a batched bias must not vary over the batch
    const std::vector<int64_t> bs = BroadcastStrides(ms.bias->meta(), ms.ym.sizes);
    for (size_t d = 0; d + 2 < bs.size(); ++d)
      if (bs[d] != 0) return lg;
  }
  lg.library = true;
  lg.M = ms.M;
  lg.N = ms.N;
  lg.K = ms.K;
  bool b_shared = true;  // the same B for every batch entry (linear's weight)
  for (int64_t st : ms.BatchStrides(ms.bm)) b_shared = b_shared && st == 0;
  lg.b_packed = ms.b_transposed && ms.b->meta().sizes.size() == 2 && ConstF32Weight(g, ms.b) && b_shared;
  const std::vector<int64_t>&as = ms.am.strides, &bs = ms.bm.strides;  // as MatmulLibrary passes them
  ChooseSplit(lg, o, as[as.size() - 2], as.back(), lg.b_packed ? 0 : bs[bs.size() - 2], lg.b_packed ? 0 : bs.back(),
              false);
  return lg;
}

namespace {
// Whether conv n's input is a node's result no later node reads and no graph
// output shares: its buffer may die at n (the planner has the last word).
bool InputDiesAt(const Graph& g, const Node* n) {
  const Value* x = n->input(0);
  if (!x || !x->producer()) return false;
  for (const Value* v : g.outputs())
    if (v->meta().storage == x->meta().storage) return false;
  for (const Use& u : x->uses())
    if (!u.user) return false;
  for (const Node* m = n->next(); m; m = m->next())
    for (const Use& u : x->uses())
      if (u.user == m) return false;
  return true;
}

// A per-channel operand of the prologue: f32 [C, 1, 1] or [1, C, 1, 1], contiguous.
bool PerChannel(const Value* v, int64_t C) {
  if (!v || v->meta().dtype != DType::kFloat32 || MayBeFused(v) || !v->meta().IsContiguous()) return false;
  std::vector<int64_t> s = v->meta().sizes;
  if (s.size() == 4 && s[0] == 1) s.erase(s.begin());
  return s == std::vector<int64_t>{C, 1, 1};
}
}  // namespace

std::optional<ConvPrologue> ConvPrologueOf(const Graph& g, const Node* conv) {
  (void)g;
  const Value* r = conv->input(0);
  const Value* b = BeforeInPlace(r);  // the addcmul's result
  const Node* add = b ? b->producer() : nullptr;
  if (!add || add->op().schema.name != "addcmul" || add->outputs().size() != 1 || add->output() != b ||
      add->args().size() != 4 || add->args()[3].kind != Arg::Kind::kLiteral ||
      LiteralNumber(add->args()[3].literal) != 1)
    return std::nullopt;
  ConvPrologue cp;
  cp.affine = add;
  if (!ReadOnceAfterActivation(b, conv, &cp.act) || (cp.act && cp.act->op().schema.name != "relu_"))
    return std::nullopt;
  const TensorMeta& rm = r->meta();
  if (rm.dtype != DType::kFloat32 || rm.sizes.size() != 4) return std::nullopt;
  // shift + x * scale: x is the product's operand laid out as the conv's input, scale the per-channel one.
  cp.shift = add->input(0);
  for (int k = 1; k <= 2 && !cp.x; ++k) {
    const Value *x = add->input(k), *s = add->input(3 - k);
    if (x && x->meta().dtype == DType::kFloat32 && x->meta().sizes == rm.sizes && x->meta().strides == rm.strides &&
        !MayBeFused(x) && PerChannel(s, rm.sizes[1])) {
      cp.x = x;
      cp.scale = s;
    }
  }
  if (!cp.x || !PerChannel(cp.shift, rm.sizes[1])) return std::nullopt;
  // The conv reads them where the addcmul stood.
  if (!UnwrittenUntil(add, conv, cp.act, cp.x, cp.scale) || !UnwrittenUntil(add, conv, cp.act, cp.shift, nullptr))
    return std::nullopt;
  return cp;
}

ReusePairs ConvInPlacePairs(const Graph& g, const CodegenOptions& o) {
  ReusePairs out;
  for (const Node* n : g.nodes())
    if (ClassifyKernel(n) == KernelKind::kConv2d && Conv2dGemm(g, n, o).in_place)
      out.push_back({n->output(), n->input(0)});
  return out;
}

std::unordered_set<const Value*> ConvPrologueResults(const Graph& g, const CodegenOptions& o) {
  std::unordered_set<const Value*> out;
  for (const Node* n : g.nodes()) {
    if (ClassifyKernel(n) != KernelKind::kConv2d) continue;
    // The pattern first (most convolutions fail it), then the library's decision.
    const std::optional<ConvPrologue> cp = ConvPrologueOf(g, n);
    if (!cp || !Conv2dGemm(g, n, o).prologue) continue;
    out.insert(cp->affine->output());
    if (cp->act) out.insert(cp->act->output());
  }
  return out;
}

LibraryGemm Conv2dGemm(const Graph& g, const Node* n, const CodegenOptions& o) {
  LibraryGemm lg;
  if (!o.kernel_library || o.float_accumulation) return lg;
  const bool contiguous = LibraryConvOperands(g, n);
  if (!contiguous && !StridedConvOperands(g, n)) return lg;
  const Value *x = n->input(0), *w = n->input(1), *y = n->output();
  auto ca = Conv2dArguments(n);
  if (!ca.ok()) return lg;
  const auto &ws = w->meta().sizes, &ys = y->meta().sizes;
  const int64_t G = ca->groups, cin_g = ws[1], cout_g = ws[0] / G;
  if (cin_g == 1 && cout_g == 1) {  // its own kernel, no scratch
    lg.depthwise = contiguous;
    return lg;
  }
  if (!contiguous) {  // im2col GEMM on the gathered image, nothing fancier
    const std::vector<int64_t>& xs = x->meta().sizes;
    lg.library = lg.a_packed = true;
    lg.M = cout_g;
    lg.N = ys[2] * ys[3];
    lg.K = cin_g * ws[2] * ws[3];
    lg.pointwise = Pointwise(ws, *ca);
    if (!x->meta().IsContiguous())
      lg.x_copy_floats = (xs[1] * xs[2] * xs[3] + 15) / 16 * 16;  // the slots stay 64-byte aligned
    ChooseSplit(lg, o, 0, 0, lg.pointwise ? lg.N : 0, lg.pointwise ? 1 : 0, !lg.pointwise);
    return lg;
  }
  lg.library = true;
  lg.M = cout_g;
  lg.N = ys[2] * ys[3];
  lg.K = cin_g * ws[2] * ws[3];
  if (const Node* reader = BandReader(n)) {
    std::optional<ConvBands> cb = MatchConvBands(g, reader);
    if (cb && cb->conv == n) {  // in bands at the reader's step, the scratch its own
      aot__conv_geom cg, qg;
      ConvBandsGeometry(*cb, &cg, &qg);
      lg.banded = lg.a_packed = true;
      // At most 2 slots, as for Winograd: each is a band and a GEMM block.
      const int64_t parts = std::min<int64_t>(MaxParts(o, lg.M * lg.N * lg.K), 2);
      lg.band_chunks = aot__conv_band_chunks(&cg, &qg, cb->Reader(), lg.M, parts);
      lg.slot_floats =
          (aot__conv_band_scratch_floats(&cg, &qg, cb->Reader(), lg.M, lg.K, lg.band_chunks) + 15) / 16 * 16;
      const int64_t units = lg.band_chunks * aot__conv_bands(&cg, &qg, cb->Reader(), lg.M);
      lg.parts = static_cast<int>(std::max<int64_t>(1, std::min(parts, units)));
      return lg;
    }
  }
  if (ChooseWinograd(lg, o, n, *ca, x->meta().sizes, ws, ys)) return lg;
  lg.a_packed = true;  // the weights, packed at compile time; B is the image (im2col panels)
  lg.pointwise = Pointwise(ws, *ca);
  lg.prologue = lg.pointwise && G == 1 && ConvPrologueOf(g, n);
  lg.in_place = lg.pointwise && !lg.prologue && G == 1 && lg.M == lg.K && lg.K <= AOT_GEMM_KC && InputDiesAt(g, n) &&
                !ConvGateOf(g, n);
  if (lg.in_place) {
    ChooseSplit(lg, o, 0, 0, 0, 0, true);
    lg.in_place = lg.split_n || lg.parts == 1;  // row parts would overwrite columns another part still reads
  }
  if (!lg.in_place) ChooseSplit(lg, o, 0, 0, lg.pointwise ? lg.N : 0, lg.pointwise ? 1 : 0, !lg.pointwise);
  if (lg.pointwise && !lg.prologue && G == 1 && 2 * lg.M <= lg.N && ConvGateOf(g, n)) {
    lg.gated = true;
    lg.gate_floats = (aot__sgemm_packed_a_floats(lg.M, lg.K) + 15) / 16 * 16;  // the slots stay 64-byte aligned
  }
  return lg;
}

int64_t SortScratchBytes(const Node* n) {
  auto sa = SortArguments(n);
  const std::vector<int64_t>& xs = n->input(0)->meta().sizes;
  const int64_t len = sa.ok() && sa->dim < xs.size() ? xs[sa->dim] : 1;
  return 2 * 8 * std::max<int64_t>(len, 1);
}

std::unordered_set<const Value*> GatedConvProducts(const Graph& g, const CodegenOptions& o) {
  std::unordered_set<const Value*> out;
  for (const Node* n : g.nodes())
    // The pattern first (most convolutions fail its first test): PlanForCodegen
    // recomputes this set for every candidate cat move and Winograd refusal.
    if (ClassifyKernel(n) == KernelKind::kConv2d && ConvGateOf(g, n) && Conv2dGemm(g, n, o).gated)
      out.insert(n->input(0));
  return out;
}

std::vector<const Node*> WinogradConvs(const Graph& g, const CodegenOptions& o) {
  std::vector<const Node*> out;
  for (const Node* n : g.nodes())
    if (ClassifyKernel(n) == KernelKind::kConv2d && Conv2dGemm(g, n, o).winograd) out.push_back(n);
  return out;
}

int64_t NodeScratchBytes(const Graph& g, const Node* n, const CodegenOptions& o) {
  const KernelKind kind = ClassifyKernel(n);
  if (kind == KernelKind::kSort) return SortScratchBytes(n);
  if (kind == KernelKind::kConv2d || kind == KernelKind::kPool2d) {
    // A band reader's scratch is its convolution's; a banded convolution has none of its own.
    if (std::optional<ConvBands> cb = ConvBandsOf(g, n, o)) return Conv2dGemm(g, cb->conv, o).ScratchBytes();
    if (kind == KernelKind::kPool2d) return 0;
    const LibraryGemm lg = Conv2dGemm(g, n, o);
    return lg.banded ? 0 : lg.ScratchBytes();
  }
  if (kind != KernelKind::kMatmul) return 0;
  // The bands' scratch is the second linear's; the first runs there.
  if (std::optional<LinearBands> lb = LinearBandsOf(g, n, o)) return LinearBandsGemm(*lb, o).ScratchBytes();
  if (const Node* second = LinearBandsSecond(n))
    if (std::optional<LinearBands> lb = LinearBandsOf(g, second, o); lb && lb->first == n) return 0;
  auto ms = AnalyzeMatmul(n);
  return ms.ok() ? MatmulGemm(g, *ms, o).ScratchBytes() : 0;
}

NodeBytes KernelScratchBytes(const Graph& g, const CodegenOptions& o) {
  NodeBytes out;
  for (const Node* n : g.nodes())
    if (const int64_t b = NodeScratchBytes(g, n, o); b > 0) out[n] = b;
  return out;
}

}  // namespace atenaot
