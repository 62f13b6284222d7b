// PyTorch's fused inference fast paths, decomposed into the ops of the slow
// path: aten::_native_multi_head_attention (nn.MultiheadAttention under
// no_grad) and aten::_transformer_encoder_layer_fwd (nn.TransformerEncoderLayer
// under no_grad). Batched [B, L, E] inputs; masks: none, a bool or float
// [L, S] attention mask, a [B, S] key padding mask (mask_type 1) or a
// [B, H, L, S] mask.
#pragma once

#include <vector>

#include "passes/decompose_builder.h"

namespace atenaot {

StatusOr<std::vector<Value*>> DecomposeNativeMha(DecomposeBuilder& b, const Node* n);
StatusOr<std::vector<Value*>> DecomposeEncoderLayer(DecomposeBuilder& b, const Node* n);

}  // namespace atenaot
