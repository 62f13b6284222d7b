"""The model zoo's models: torchvision classification models and small
PyTorch layers, each built with random seeded weights (nothing downloaded),
in eval mode, with sample inputs.

build(name) -> (module, [inputs], trace_kwargs); SMALL are the ones CI runs.
"""

import math

import torch
from torch import nn

SEED = 0

# One per torchvision family (the smallest member): the default zoo run.
TORCHVISION_DEFAULT = [
    "alexnet", "convnext_tiny", "densenet121", "efficientnet_b0", "efficientnet_v2_s",
    "googlenet", "inception_v3", "maxvit_t", "mnasnet0_5", "mobilenet_v2",
    "mobilenet_v3_small", "mobilenet_v3_large", "regnet_x_400mf", "regnet_y_400mf",
    "resnet18", "resnet50", "resnext50_32x4d", "shufflenet_v2_x0_5", "squeezenet1_0",
    "swin_t", "swin_v2_t", "vgg11", "vit_b_32", "wide_resnet50_2",
]

# Left out of --all, and why.
TORCHVISION_LEFT_OUT = {
    "vit_h_14": "632M parameters (2.5 GB of weights); eager alone needs minutes on 2 cores",
    "regnet_y_128gf": "645M parameters (2.6 GB of weights); eager alone needs minutes on 2 cores",
}


class GptBlock(nn.Module):
    """A GPT-2 style pre-norm decoder block; the head size is computed from
    the input's shape (x.size(-1) // n_head), as such code usually does."""

    def __init__(self, d=64, n_head=4, t_max=16):
        super().__init__()
        self.n_head = n_head
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))
        self.drop = nn.Dropout(0.1)
        self.register_buffer("mask", torch.tril(torch.ones(t_max, t_max)).view(1, 1, t_max, t_max))

    def forward(self, x):
        b, t, c = x.size()
        hs = c // self.n_head
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q = q.view(b, t, self.n_head, hs).transpose(1, 2)
        k = k.view(b, t, self.n_head, hs).transpose(1, 2)
        v = v.view(b, t, self.n_head, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        att = self.drop(torch.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.drop(self.proj(y))
        return x + self.drop(self.mlp(self.ln2(x)))


class EmbeddingPool(nn.Module):
    """Token embedding, mean pooling over the sequence, a linear classifier."""

    def __init__(self, vocab=100, d=32, classes=5):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.fc = nn.Linear(d, classes)

    def forward(self, tokens):
        return self.fc(self.emb(tokens).mean(dim=1))


class EmbeddingBagModel(nn.Module):
    def __init__(self, vocab=100, d=32, classes=5):
        super().__init__()
        self.bag = nn.EmbeddingBag(vocab, d, mode="mean")
        self.fc = nn.Linear(d, classes)

    def forward(self, tokens):
        return self.fc(self.bag(tokens))


class Rnn(nn.Module):
    """LSTM/GRU returning every output (y, h[, c])."""

    def __init__(self, cls, batch_first=True, **kwargs):
        super().__init__()
        kwargs.setdefault("bidirectional", True)
        self.rnn = cls(16, 32, num_layers=2, batch_first=batch_first, **kwargs)

    def forward(self, x):
        y, h = self.rnn(x)
        return (y,) + (tuple(h) if isinstance(h, tuple) else (h,))


class Mha(nn.Module):
    def __init__(self, need_weights=True, padding=False):
        super().__init__()
        self.need_weights = need_weights
        self.mha = nn.MultiheadAttention(64, 4, batch_first=True)
        # Key padding: the last 3 keys of the second sequence are masked out.
        self.register_buffer("pad", torch.tensor([[False] * 10, [False] * 7 + [True] * 3]) if padding else None)

    def forward(self, q, kv=None):
        kv = q if kv is None else kv  # self-attention: PyTorch's fast path needs q is k is v
        y, w = self.mha(q, kv, kv, need_weights=self.need_weights, key_padding_mask=self.pad)
        return (y, w) if self.need_weights else y


def _randn(*shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(SEED + 1))


def _layers():
    d = dict(d_model=64, nhead=4, dim_feedforward=128, batch_first=True)
    x, mem = _randn(2, 10, 64), _randn(2, 7, 64) * 0.5
    out = {}
    for nf in (False, True):
        suffix = "_norm_first" if nf else ""
        out["transformer_encoder" + suffix] = (lambda nf=nf: nn.TransformerEncoderLayer(norm_first=nf, **d), [x], True)
        # Under no_grad PyTorch takes its fused fast path (_transformer_encoder_layer_fwd).
        out["transformer_encoder_fastpath" + suffix] = (
            lambda nf=nf: nn.TransformerEncoderLayer(norm_first=nf, **d), [x], False)
        out["transformer_decoder" + suffix] = (
            lambda nf=nf: nn.TransformerDecoderLayer(norm_first=nf, **d), [x, mem], True)
    out["multihead_attention"] = (Mha, [x, mem], True)
    # Self-attention without weights under no_grad: _native_multi_head_attention.
    out["multihead_attention_fastpath"] = (lambda: Mha(need_weights=False), [x], False)
    out["multihead_attention_fastpath_padding"] = (lambda: Mha(need_weights=False, padding=True), [x], False)
    out["lstm"] = (lambda: Rnn(nn.LSTM), [_randn(3, 5, 16)], True)
    out["gru"] = (lambda: Rnn(nn.GRU), [_randn(3, 5, 16)], True)
    out["lstm_seq_first"] = (lambda: Rnn(nn.LSTM, batch_first=False), [_randn(5, 3, 16)], True)
    out["rnn_relu_no_bias"] = (lambda: Rnn(nn.RNN, batch_first=False, nonlinearity="relu", bias=False,
                                           bidirectional=False), [_randn(5, 3, 16)], True)
    out["gpt_block"] = (GptBlock, [_randn(2, 12, 64)], True)
    tokens = torch.randint(0, 100, (4, 9), generator=torch.Generator().manual_seed(SEED + 2))
    out["embedding_pool"] = (EmbeddingPool, [tokens], True)
    out["embedding_bag"] = (EmbeddingBagModel, [tokens], True)
    return out


LAYERS = _layers()
SMALL = list(LAYERS) + ["mobilenet_v3_small", "shufflenet_v2_x0_5", "squeezenet1_1"]
# The transformer layers above at the size of BERT-base and GPT-2 small (d 768,
# 12 heads, 128 tokens): in the speed tables, where the small ones are too
# short (~25 us) for threads to pay; not in SMALL or the default zoo run.
BENCH_LAYERS = {
    "bert_base_layer": (lambda: nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072,
                                                           batch_first=True), [_randn(1, 128, 768)], True),
    "gpt2_block": (lambda: GptBlock(d=768, n_head=12, t_max=128), [_randn(1, 128, 768)], True),
}


def all_torchvision():
    import torchvision.models as tvm
    return [n for n in tvm.list_models(module=tvm) if n not in TORCHVISION_LEFT_OUT]


def build(name):
    """(module in eval mode, inputs, grad): grad says whether to trace with
    autograd enabled (False: under no_grad, as inference code usually runs)."""
    torch.manual_seed(SEED)
    if name in LAYERS or name in BENCH_LAYERS:
        ctor, inputs, grad = LAYERS.get(name) or BENCH_LAYERS[name]
        return ctor().eval(), inputs, grad
    import torchvision.models as tvm
    side = 299 if name == "inception_v3" else 224
    kwargs = {"aux_logits": False, "init_weights": True} if name in ("inception_v3", "googlenet") else {}
    m = getattr(tvm, name)(**kwargs).eval()
    with torch.no_grad():  # zero-initialized weights (ViT's head) would make every output 0
        for p in m.parameters():
            if p.dim() >= 2 and not p.any():
                nn.init.normal_(p, std=0.02)
    _calibrate_batch_norm(m, side)
    return m, [_randn(1, 3, side, side)], False


def _calibrate_batch_norm(m, side):
    """Every BatchNorm's running statistics from the model's own activations
    on random inputs (the average over two batches), as training leaves them.
    With the constructors' mean 0 and variance 1, activations shrink or grow
    layer by layer: GoogLeNet's logits did not depend on the input at all
    (2e-12 of their scale; ShuffleNet's 6e-5), so a wrong kernel inside would
    still have equalled eager."""
    bns = [b for b in m.modules() if isinstance(b, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for b in bns:
        b.reset_running_stats()
        b.momentum = None  # a cumulative average
    g = torch.Generator().manual_seed(SEED + 3)
    m.train()
    with torch.no_grad():
        for _ in range(2):
            m(torch.randn(2, 3, side, side, generator=g))
    m.eval()
