// How a matmul or conv2d node runs through the kernel library's GEMM
// (codegen/kernels), decided in one place for the C emitter and the memory
// planner: whether it does, its shape, which operands come prepacked, how
// many threads one call splits over, and so the scratch (packed panels) it
// needs while it runs. The planner places that scratch as a buffer live only
// during the node (plan/buffers.h), so it shares bytes with dead activations.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_set>

#include "codegen/codegen_options.h"
#include "codegen/kernel_util.h"
#include "codegen/kernels/aot_kernels.h"
#include "ir/graph.h"
#include "plan/buffers.h"

namespace atenaot {

struct LibraryGemm {
  bool library = false;    // false: a generic kernel, or the depthwise one (no scratch)
  bool depthwise = false;  // conv2d through the library's depthwise kernel
  int64_t M = 0, N = 0, K = 0;
  bool a_packed = false, b_packed = false;  // prepacked at compile time
  // conv2d 1x1, stride 1, no padding: B is the image itself (strides N, 1),
  // which the kernel may read in place; other convs pack im2col panels.
  bool pointwise = false;
  // conv2d through Winograd F(m x m, 3 x 3) (aot__conv2d_wino_range): m = 2
  // or 4, 0 for im2col GEMM. Its tile rows (m output rows each) split over
  // `parts` threads, each with a slot of `slot_floats`
  // (aot__wino_scratch_floats).
  int winograd = 0;
  int64_t wino_tile_rows = 0;
  // AOT_GEMM_PACK_A/_B: the operands the kernel packs into scratch at run
  // time (aot__sgemm_packing of the strides the emitter passes); the others
  // it reads in place.
  int packing = 0;
  // One GEMM call splits over at most `parts` threads, by columns (units of
  // 32, so the micro-kernel's tile pairs never change) or by rows (units of
  // 8); part k packs into slot k of the scratch, `slot_floats` each.
  int parts = 1;
  bool split_n = true;
  int64_t slot_floats = 0;
  // conv2d 1x1 reading a gated image (ConvGateOf): the gate scales the packed
  // weights into the first `gate_floats` of the scratch (the slots follow),
  // and the GEMM reads the image itself.
  bool gated = false;
  int64_t gate_floats = 0;
  // conv2d whose result only a max pooling or a depthwise conv reads
  // (ConvBandsOf): the C backend runs both at the reader's step in bands
  // (aot__conv_band_range), `parts` slots of `slot_floats`, so the scratch
  // belongs to the reader's node. Also the second linear of LinearBands.
  // Where its bands are fewer than the parts, channel chunks add units
  // (aot__conv_band_chunks).
  bool banded = false;
  int64_t band_chunks = 1;
  // conv2d reading an image in another layout (channels-last: ConvNeXt's
  // downsampling layers): the image gathered into CHW order first, into the
  // first `x_copy_floats` of the scratch (the slots follow).
  int64_t x_copy_floats = 0;
  // 1x1 conv2d reading relu_(addcmul(shift, x, scale)) (ConvPrologueOf): the
  // GEMM packs x through the affine map and relu (aot__prologue).
  bool prologue = false;
  // 1x1 conv2d with as many output channels as input channels whose input
  // dies at it (ConvInPlacePairs): B packed through the conv geometry (K <=
  // KC: each block of columns packed whole before its results are stored,
  // split by columns only), so the result may take over the input's buffer.
  bool in_place = false;
  int64_t ScratchBytes() const { return library ? (parts * slot_floats + gate_floats + x_copy_floats) * 4 : 0; }
};

// A squeeze-and-excitation gate in front of a 1x1 convolution: the conv
// reads mul(x, gate), gate [N or 1, C, 1, 1], and nothing else reads the
// product. Where the weights are clearly the smaller operand (2 M <= H W:
// the scaling runs on one thread, the pass it saves on all), the C
// backend folds the gate into them at run time (aot__sgemm_scale_packed_a:
// M K products instead of a pass over the C H W image, which is never
// stored: the product is fused away, FusedAwayValues).
struct ConvGate {
  const Node* mul = nullptr;
  const Value* x = nullptr;     // [N, C, H, W], contiguous
  const Value* gate = nullptr;  // [N or 1, C, 1, 1]
};
std::optional<ConvGate> ConvGateOf(const Graph& g, const Node* conv);

// An eval batch norm and relu in front of a 1x1 convolution that alone reads
// their result: relu_(addcmul(shift, x, scale, 1)) after FoldBatchNormIntoConv
// turned the batch norm into addcmul (DenseNet: each layer's and
// transition's norm and relu of the concatenated features, 2.8 MB of
// DenseNet-121's 7.2 MB peak). The C backend applies both as the GEMM packs
// x (aot__prologue), so neither result is stored (FusedAwayValues): x [N,
// C, H, W] laid out as the convolution's input, scale and shift per
// channel ([C, 1, 1] or [1, C, 1, 1], contiguous), none of them written
// between the addcmul and the convolution.
struct ConvPrologue {
  const Node* affine = nullptr;  // the addcmul
  const Node* act = nullptr;     // relu_, or nullptr
  const Value* x = nullptr;
  const Value* scale = nullptr;
  const Value* shift = nullptr;
};
// The pattern alone; Conv2dGemm decides whether the library takes it.
std::optional<ConvPrologue> ConvPrologueOf(const Graph& g, const Node* conv);
// (result, input) pairs of the convolutions that may write their result over
// their input (LibraryGemm::in_place): add them to KernelReusePairs'.
ReusePairs ConvInPlacePairs(const Graph& g, const CodegenOptions& o);

// The values the C backend fuses away with them: each prologue's addcmul
// result and relu_ result.
std::unordered_set<const Value*> ConvPrologueResults(const Graph& g, const CodegenOptions& o);

// A convolution whose result only one windowed kernel reads, with at most
// one in-place activation between them: a max pooling (conv, relu_,
// max_pool2d: the stems of ResNet, GoogLeNet, SqueezeNet; VGG's and
// AlexNet's blocks) or a depthwise convolution (MobileNet's and
// EfficientNet's expansions: 1x1, relu6 or silu, depthwise; their stems).
// The C backend computes the convolution in bands of the reader's output
// rows at the reader's step (aot__conv_band_range; its result, and the
// activation's, are fused away: no buffer), so nothing may write the
// convolution's input or bias in between. One group, weights constant, no
// squeeze-and-excitation gate folded in.
struct ConvBands {
  const Node* conv = nullptr;
  const Node* act = nullptr;     // the in-place activation, or nullptr
  const Node* reader = nullptr;  // the max_pool2d or the depthwise conv
  bool depthwise = false;
  // aot__conv_band_range's reader argument.
  int Reader() const { return depthwise ? AOT_BAND_DEPTHWISE : AOT_BAND_MAX_POOL; }
};
// For a max_pool2d or depthwise conv node (else nullopt), with these options.
std::optional<ConvBands> ConvBandsOf(const Graph& g, const Node* reader, const CodegenOptions& o);
// Its kernel-library geometries: the convolution's, and the reader's window
// over the convolution's result (one image).
void ConvBandsGeometry(const ConvBands& cb, aot__conv_geom* conv, aot__conv_geom* reader);
// The values the C backend fuses away with them: each ConvBands'
// convolution result and activation result.
std::unordered_set<const Value*> ConvBandsResults(const Graph& g, const CodegenOptions& o);

// A linear whose result only a second linear reads, with at most one
// in-place activation between them: a transformer's or ConvNeXt's MLP
// (linear, gelu_ or relu_, linear). The C backend computes both at the
// second's step in bands of rows (aot__linear_band_range: each band's hidden
// rows in scratch), so the hidden result, and the activation's, are fused
// away. Both weights constant (prepacked), rows of x and of the results
// contiguous, no batch dims left after folding them into rows, and more rows
// than one band (else nothing is saved). Nothing may write x or the first
// bias between the two.
struct LinearBands {
  const Node* first = nullptr;
  const Node* act = nullptr;  // the in-place activation, or nullptr
  const Node* second = nullptr;
  int64_t M = 0, K1 = 0, N1 = 0, N2 = 0, band = 0;  // rows, x's width, hidden, out; rows per band
};
// For the second linear (else nullopt), with these options.
std::optional<LinearBands> LinearBandsOf(const Graph& g, const Node* second, const CodegenOptions& o);
// Its GEMM plan: the band slots (parts of slot_floats) at the second's step.
LibraryGemm LinearBandsGemm(const LinearBands& lb, const CodegenOptions& o);
// The values the C backend fuses away with them: each first linear's result
// and its activation's.
std::unordered_set<const Value*> LinearBandsResults(const Graph& g, const CodegenOptions& o);

// The C options that decide it: kernel_library && !float_accumulation, and
// threads ? gemm_threads : 1 slots.
LibraryGemm MatmulGemm(const Graph& g, const MatmulShape& ms, const CodegenOptions& o);
LibraryGemm Conv2dGemm(const Graph& g, const Node* n, const CodegenOptions& o);

// A weight's float32 data when it is a contiguous constant with all its
// bytes, else nullptr (what the kernel library can prepack).
const WeightData* ConstF32Weight(const Graph& g, const Value* v);

// sort/topk: two int64 arrays of positions along the sorted dim (the merge
// sort's source and destination).
int64_t SortScratchBytes(const Node* n);

// Per node, the scratch bytes its kernel needs (only nodes that need some):
// pass to the planner, so the emitter finds each node's planned region.
NodeBytes KernelScratchBytes(const Graph& g, const CodegenOptions& o);
// One node's entry of it (0: none).
int64_t NodeScratchBytes(const Graph& g, const Node* n, const CodegenOptions& o);

// The products of gated convolutions the C backend folds into weights
// (LibraryGemm::gated) with these options: computed in no kernel, stored nowhere.
std::unordered_set<const Value*> GatedConvProducts(const Graph& g, const CodegenOptions& o);

// The convolutions that run as Winograd F(4x4, 3x3) with these options.
std::vector<const Node*> WinogradConvs(const Graph& g, const CodegenOptions& o);

}  // namespace atenaot
