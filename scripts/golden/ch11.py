"""Golden fixtures for chapter 11 (LLaMA2's attention): tests/fixtures/ch11/.

The source mirrored here is Happy-LLM chapter 5 (5.1.3, 构建 LLaMA2
Attention) and its code file docs/chapter5/code/k_model.py: ModelConfig,
precompute_freqs_cis, reshape_for_broadcast, apply_rotary_emb, repeat_kv
and the Attention class. They are restated below from that text, behaving
as the book's functions do:

  * precompute_freqs_cis(dim, end, theta=10000.0) takes dim = head_dim
    (the book calls it with dim // n_heads) and returns cos and sin tables
    of shape (end, dim // 2);
  * apply_rotary_emb reshapes the last dim into (dim // 2, 2) pairs:
    neighbouring elements (2i, 2i + 1) are rotated together;
  * repeat_kv is x[:, :, :, None, :].expand(...).reshape(...);
  * Attention.forward takes the book's manual path (PyTorch before 2.0 has
    no scaled_dot_product_attention, and the book keeps this path for it):
    scores + mask[:, :, :seqlen, :seqlen], softmax in float, attn_dropout
    on the weights, wo, resid_dropout on the output. With dropout 0 (the
    book's ModelConfig default) the flash path gives the same numbers.
ModelConfig is a dataclass here (the book derives it from transformers'
PretrainedConfig; only its fields matter).

Fixture folders (all float32):
  rope/        xq (2, 5, 3, 8), xk (2, 5, 1, 8), freqs_cos, freqs_sin (5, 4),
               xq_out, xk_out; table/freqs_cos, freqs_sin = precompute(16, 12)
  repeat_kv/   x (2, 3, 2, 4), out = repeat_kv(x, 3) (2, 3, 6, 4)
  <group>/     mha, gqa, mqa, odd (dim % n_heads != 0), long (B 1, T 12):
               x (B, T, dim), wq wk wv wo (nn.Linear layout), freqs_cos,
               freqs_sin (T, head_dim // 2), config [dim, n_heads,
               n_kv_heads, max_seq_len], output (eval mode)
  trap/        Hugging Face's rotate_half layout: wq_hf, wk_hf (gqa's wq and
               wk with each head's rows permuted as HF's conversion script
               does), out_hf_unpermuted (rotate_half with gqa's weights as
               they are: the trap's wrong numbers); rotate_half with wq_hf,
               wk_hf equals gqa/output (asserted here)
  default/<case>/  what `build/chapter11` must print with no input file:
               torch.manual_seed(S); m = Attention(ModelConfig(dim=D,
               n_heads=H, n_kv_heads=K, max_seq_len=L, dropout=P));
               x = torch.rand(B, T, D); cos, sin = precompute_freqs_cis(D // H, T);
               out = m(x, cos, sin)  (m.eval() first for the _eval cases).
               Case name: s<S>_b<B>_t<T>_d<D>_h<H>_k<K>_L<L>_p<P>_<train|eval>.
  book/        the book's own test (ModelConfig() defaults: dim 768,
               n_heads 16, n_kv_heads 8, max_seq_len 512, dropout 0.0;
               batch 1, seq_len 50, seed 123): out_head = out[0, :4, :8],
               out_tail = out[0, -4:, -8:], out_sum = [out.sum(), out.abs().sum()]
               (the whole output is too large to commit).
  chunked/     a group as above at T == max_seq_len = 11, batch 3, dim 24,
               6 query heads over 2 kv heads.
  rope_theta/  table_1e6/, table_5e5/: precompute_freqs_cis(16, 12, theta) at
               Code Llama's 1e6 and Llama 3's 500000; xq (2, 12, 3, 16) and
               xq_out_meta, Meta's complex form (torch.polar, view_as_complex) at
               theta 500000, asserted here equal to the book's cos/sin lines;
               s<S>_..._theta<5e5|1e6>/x, out: default runs (eval) at that theta.
A KV-cache decode written in PyTorch (prefill, then one position at a time)
is asserted here to equal the full forward, for every group; and for chunked/
a prefill in chunks of every size 1..11 (each chunk's scores + the mask's
rows start_pos .. start_pos + n - 1), then decode, for every prompt length.
"""

import math
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "ch11"
SEED = 1111


@dataclass
class ModelConfig:
    dim: int = 768
    n_heads: int = 16
    n_kv_heads: Optional[int] = 8
    max_seq_len: int = 512
    dropout: float = 0.0


def precompute_freqs_cis(dim, end, theta=10000.0):
    """Happy-LLM 5.1.3.2: dim is head_dim; (end, dim // 2) cos and sin."""
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.cos(freqs), torch.sin(freqs)


def precompute_freqs_cis_meta(dim, end, theta=10000.0):
    """Meta's llama/model.py: the same angles as complex numbers cos + i sin (torch.polar)."""
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)  # complex64


def apply_rotary_emb_meta(x, freqs_cis):
    """Meta's apply_rotary_emb for one tensor: each pair (2i, 2i + 1) a complex number, one product."""
    x_ = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    shape = [d if i == 1 or i == x_.ndim - 1 else 1 for i, d in enumerate(x_.shape)]
    return torch.view_as_real(x_ * freqs_cis.view(*shape)).flatten(3).type_as(x)


def reshape_for_broadcast(freqs, x):
    ndim = x.ndim
    assert freqs.shape == (x.shape[1], x.shape[-1])
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs.view(shape)


def apply_rotary_emb(xq, xk, freqs_cos, freqs_sin):
    """Rotate neighbouring pairs (2i, 2i + 1) by position * freq_i."""
    xq_r, xq_i = xq.float().reshape(xq.shape[:-1] + (-1, 2)).unbind(-1)
    xk_r, xk_i = xk.float().reshape(xk.shape[:-1] + (-1, 2)).unbind(-1)
    freqs_cos = reshape_for_broadcast(freqs_cos, xq_r)
    freqs_sin = reshape_for_broadcast(freqs_sin, xq_r)
    xq_out_r = xq_r * freqs_cos - xq_i * freqs_sin
    xq_out_i = xq_r * freqs_sin + xq_i * freqs_cos
    xk_out_r = xk_r * freqs_cos - xk_i * freqs_sin
    xk_out_i = xk_r * freqs_sin + xk_i * freqs_cos
    xq_out = torch.stack([xq_out_r, xq_out_i], dim=-1).flatten(3)
    xk_out = torch.stack([xk_out_r, xk_out_i], dim=-1).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def repeat_kv(x, n_rep):
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return (x[:, :, :, None, :]
            .expand(bs, slen, n_kv_heads, n_rep, head_dim)
            .reshape(bs, slen, n_kv_heads * n_rep, head_dim))


class Attention(nn.Module):
    """Happy-LLM 5.1.3.3's Attention, its manual (non-flash) path."""

    def __init__(self, args):
        super().__init__()
        self.n_kv_heads = args.n_heads if args.n_kv_heads is None else args.n_kv_heads
        assert args.n_heads % self.n_kv_heads == 0
        model_parallel_size = 1
        self.n_local_heads = args.n_heads // model_parallel_size
        self.n_local_kv_heads = self.n_kv_heads // model_parallel_size
        self.n_rep = self.n_local_heads // self.n_local_kv_heads
        self.head_dim = args.dim // args.n_heads
        self.wq = nn.Linear(args.dim, args.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)
        self.attn_dropout = nn.Dropout(args.dropout)
        self.resid_dropout = nn.Dropout(args.dropout)
        self.dropout = args.dropout
        mask = torch.full((1, 1, args.max_seq_len, args.max_seq_len), float("-inf"))
        mask = torch.triu(mask, diagonal=1)
        self.register_buffer("mask", mask)
        self.rope = apply_rotary_emb          # the trap swaps this for rotate_half

    def forward(self, x, freqs_cos, freqs_sin):
        bsz, seqlen, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xk = xk.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        xv = xv.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        xq, xk = self.rope(xq, xk, freqs_cos, freqs_sin)
        xk = repeat_kv(xk, self.n_rep)
        xv = repeat_kv(xv, self.n_rep)
        xq, xk, xv = xq.transpose(1, 2), xk.transpose(1, 2), xv.transpose(1, 2)
        scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)
        scores = scores + self.mask[:, :, :seqlen, :seqlen]
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        scores = self.attn_dropout(scores)
        output = torch.matmul(scores, xv)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        output = self.wo(output)
        output = self.resid_dropout(output)
        return output


# ---- Hugging Face's layout (the trap) ------------------------------------------

def rotate_half(x):
    """transformers' LLaMA: (x1, x2) halves -> (-x2, x1)."""
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_half(xq, xk, freqs_cos, freqs_sin):
    """transformers' apply_rotary_pos_emb: cos = cat(freqs, freqs), halves rotated."""
    cos = torch.cat((freqs_cos, freqs_cos), dim=-1)[None, :, None, :]   # (1, T, 1, hd)
    sin = torch.cat((freqs_sin, freqs_sin), dim=-1)[None, :, None, :]
    return xq * cos + rotate_half(xq) * sin, xk * cos + rotate_half(xk) * sin


def permute_hf(w, n_heads):
    """convert_llama_weights_to_hf.py's permute: each head's rows 0, 2, 4, ..., 1, 3, 5, ..."""
    dim1, dim2 = w.shape
    return w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2)


# ---- a KV cache, to check that a cached decode is the full forward -------------

def decode_with_cache(m, x, cos, sin, n_decode):
    """Prefill T - n_decode positions, then one at a time; eval mode."""
    bsz, T, _ = x.shape
    L = m.mask.shape[-1]
    cache_k = torch.zeros(bsz, L, m.n_local_kv_heads, m.head_dim)
    cache_v = torch.zeros(bsz, L, m.n_local_kv_heads, m.head_dim)
    outs = []
    pos = 0
    steps = [T - n_decode] + [1] * n_decode
    for n in steps:
        if n == 0:
            continue
        xs = x[:, pos:pos + n]
        xq, xk, xv = m.wq(xs), m.wk(xs), m.wv(xs)
        xq = xq.view(bsz, n, m.n_local_heads, m.head_dim)
        xk = xk.view(bsz, n, m.n_local_kv_heads, m.head_dim)
        xv = xv.view(bsz, n, m.n_local_kv_heads, m.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, cos[pos:pos + n], sin[pos:pos + n])
        cache_k[:, pos:pos + n] = xk
        cache_v[:, pos:pos + n] = xv
        keys = repeat_kv(cache_k[:, :pos + n], m.n_rep).transpose(1, 2)
        values = repeat_kv(cache_v[:, :pos + n], m.n_rep).transpose(1, 2)
        q = xq.transpose(1, 2)
        scores = torch.matmul(q, keys.transpose(2, 3)) / math.sqrt(m.head_dim)
        scores = scores + m.mask[:, :, pos:pos + n, :pos + n]
        scores = F.softmax(scores.float(), dim=-1)
        out = torch.matmul(scores, values).transpose(1, 2).contiguous().view(bsz, n, -1)
        outs.append(m.wo(out))
        pos += n
    return torch.cat(outs, dim=1)


def prefill_in_chunks(m, x, cos, sin, chunk, n_decode):
    """Prefill T - n_decode positions `chunk` at a time, then one at a time; eval mode.
    Each chunk's scores take the mask's rows start_pos .. start_pos + n - 1."""
    bsz, T, _ = x.shape
    L = m.mask.shape[-1]
    cache_k = torch.zeros(bsz, L, m.n_local_kv_heads, m.head_dim)
    cache_v = torch.zeros(bsz, L, m.n_local_kv_heads, m.head_dim)
    outs, start_pos, prompt = [], 0, T - n_decode
    while start_pos < T:
        n = min(chunk, prompt - start_pos) if start_pos < prompt else 1
        xs = x[:, start_pos:start_pos + n]
        xq = m.wq(xs).view(bsz, n, m.n_local_heads, m.head_dim)
        xk = m.wk(xs).view(bsz, n, m.n_local_kv_heads, m.head_dim)
        xv = m.wv(xs).view(bsz, n, m.n_local_kv_heads, m.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, cos[start_pos:start_pos + n], sin[start_pos:start_pos + n])
        cache_k[:, start_pos:start_pos + n] = xk
        cache_v[:, start_pos:start_pos + n] = xv
        keys = repeat_kv(cache_k[:, :start_pos + n], m.n_rep).transpose(1, 2)
        values = repeat_kv(cache_v[:, :start_pos + n], m.n_rep).transpose(1, 2)
        scores = torch.matmul(xq.transpose(1, 2), keys.transpose(2, 3)) / math.sqrt(m.head_dim)
        scores = scores + m.mask[:, :, start_pos:start_pos + n, :start_pos + n]
        scores = F.softmax(scores.float(), dim=-1)
        out = torch.matmul(scores, values).transpose(1, 2).contiguous().view(bsz, n, -1)
        outs.append(m.wo(out))
        start_pos += n
    return torch.cat(outs, dim=1)


def save_group(save, group, m, x, cos, sin, out, cfg):
    save(group + "/x", x)
    for name in ("wq", "wk", "wv", "wo"):
        save("%s/%s" % (group, name), getattr(m, name).weight)
    save(group + "/freqs_cos", cos)
    save(group + "/freqs_sin", sin)
    save(group + "/config", torch.tensor([cfg.dim, cfg.n_heads, cfg.n_kv_heads, cfg.max_seq_len],
                                         dtype=torch.float32))
    save(group + "/output", out)


def make(out_dir, save):
    torch.manual_seed(SEED)
    randn = torch.randn

    with torch.no_grad():
        # --- RoPE: neighbouring pairs, q with 3 heads and k with 1
        xq, xk = randn(2, 5, 3, 8), randn(2, 5, 1, 8)
        cos, sin = precompute_freqs_cis(8, 5)
        xq_out, xk_out = apply_rotary_emb(xq, xk, cos, sin)
        save("rope/xq", xq)
        save("rope/xk", xk)
        save("rope/freqs_cos", cos)                 # (5, 4)
        save("rope/freqs_sin", sin)
        save("rope/xq_out", xq_out)                 # (2, 5, 3, 8)
        save("rope/xk_out", xk_out)                 # (2, 5, 1, 8)
        cos, sin = precompute_freqs_cis(16, 12)
        save("rope/table/freqs_cos", cos)           # (12, 8)
        save("rope/table/freqs_sin", sin)

        # --- repeat_kv: expand + reshape
        x = randn(2, 3, 2, 4)
        save("repeat_kv/x", x)
        save("repeat_kv/out", repeat_kv(x, 3))      # (2, 3, 6, 4)

        # --- the Attention class: MHA, GQA, MQA, dim % n_heads != 0, a longer T
        groups = [
            ("mha", ModelConfig(dim=16, n_heads=4, n_kv_heads=4, max_seq_len=10), 2, 7),
            ("gqa", ModelConfig(dim=16, n_heads=4, n_kv_heads=2, max_seq_len=10), 2, 7),
            ("mqa", ModelConfig(dim=16, n_heads=4, n_kv_heads=1, max_seq_len=10), 3, 5),
            ("odd", ModelConfig(dim=10, n_heads=4, n_kv_heads=2, max_seq_len=6), 2, 6),
            ("long", ModelConfig(dim=12, n_heads=6, n_kv_heads=3, max_seq_len=16), 1, 12),
        ]
        for group, cfg, b, t in groups:
            m = Attention(cfg).eval()
            x = torch.rand(b, t, cfg.dim)
            cos, sin = precompute_freqs_cis(cfg.dim // cfg.n_heads, t)
            out = m(x, cos, sin)
            for n_decode in range(0, t + 1):
                dec = decode_with_cache(m, x, cos, sin, n_decode)
                assert torch.allclose(dec, out, rtol=1e-5, atol=1e-6), (group, n_decode)
            save_group(save, group, m, x, cos, sin, out, cfg)
            if group == "gqa":
                gqa = (m, x, cos, sin, out, cfg)

        # --- the rotate_half trap, on gqa's module
        m, x, cos, sin, out, cfg = gqa
        m.rope = apply_rotary_half
        wrong = m(x, cos, sin)                      # HF's rotation, the book's weights
        assert not torch.allclose(wrong, out, rtol=1e-3, atol=1e-3)
        wq_hf = permute_hf(m.wq.weight.clone(), cfg.n_heads)
        wk_hf = permute_hf(m.wk.weight.clone(), cfg.n_kv_heads)
        m.wq.weight.copy_(wq_hf)
        m.wk.weight.copy_(wk_hf)
        right = m(x, cos, sin)                      # HF's rotation, permuted weights
        assert torch.allclose(right, out, rtol=1e-5, atol=1e-6)
        save("trap/wq_hf", wq_hf)
        save("trap/wk_hf", wk_hf)
        save("trap/out_hf_unpermuted", wrong)

    # --- default runs: manual_seed; Attention(ModelConfig(...)); x = torch.rand; m(x, cos, sin)
    cases = [
        (123, 2, 6, 16, 4, 2, 32, 0.0),             # the chapter's defaults
        (123, 2, 6, 16, 4, 2, 32, 0.1),
        (123, 1, 5, 16, 4, 4, 8, 0.0),              # MHA
        (0, 3, 4, 8, 2, 1, 4, 0.25),                # MQA, T == max_seq_len
        (42, 2, 9, 24, 6, 3, 12, 0.1),
        (7, 1, 1, 4, 1, 1, 1, 0.0),                 # T = 1, one head
        (2**31 - 1, 2, 3, 10, 4, 2, 5, 0.5),        # dim % n_heads != 0
        (5, 4, 7, 12, 3, 3, 7, 0.1),
    ]
    for (seed, b, t, d, h, k, L, p) in cases:
        for train in (True, False):
            torch.manual_seed(seed)
            m = Attention(ModelConfig(dim=d, n_heads=h, n_kv_heads=k, max_seq_len=L, dropout=p))
            x = torch.rand(b, t, d)
            cos, sin = precompute_freqs_cis(d // h, t)
            if not train:
                m.eval()
            with torch.no_grad():
                out = m(x, cos, sin)
            name = "default/s%d_b%d_t%d_d%d_h%d_k%d_L%d_p%g_%s" % (
                seed, b, t, d, h, k, L, p, "train" if train else "eval")
            save(name + "/x", x)
            save(name + "/out", out)

    # --- the book's own test: ModelConfig() defaults, x = torch.rand(1, 50, 768)
    torch.manual_seed(123)
    args = ModelConfig()
    m = Attention(args)
    x = torch.rand(1, 50, args.dim)
    cos, sin = precompute_freqs_cis(args.dim // args.n_heads, 50)
    with torch.no_grad():
        out = m(x, cos, sin)
    assert out.shape == (1, 50, 768)
    save("book/out_head", out[0, :4, :8])
    save("book/out_tail", out[0, -4:, -8:])
    save("book/out_sum", torch.tensor([out.double().sum().item(), out.double().abs().sum().item()]))

    # --- chunked prefill up to max_seq_len: batch 3, 6 query heads over 2 kv heads, T == L
    torch.manual_seed(SEED + 1)
    cfg = ModelConfig(dim=24, n_heads=6, n_kv_heads=2, max_seq_len=11)
    with torch.no_grad():
        m = Attention(cfg).eval()
        x = torch.rand(3, 11, cfg.dim)
        cos, sin = precompute_freqs_cis(cfg.dim // cfg.n_heads, 11)
        out = m(x, cos, sin)
        for chunk in range(1, 12):
            for n_decode in range(0, 11):
                got = prefill_in_chunks(m, x, cos, sin, chunk, n_decode)
                assert torch.allclose(got, out, rtol=1e-5, atol=1e-6), (chunk, n_decode)
        save_group(save, "chunked", m, x, cos, sin, out, cfg)

    # --- --rope-theta: the tables at Code Llama's and Llama 3's theta; Meta's complex form;
    #     default runs with another theta
    torch.manual_seed(SEED + 2)
    with torch.no_grad():
        for theta, tag in ((1e6, "1e6"), (500000.0, "5e5")):
            cos, sin = precompute_freqs_cis(16, 12, theta)
            save("rope_theta/table_%s/freqs_cos" % tag, cos)       # (12, 8)
            save("rope_theta/table_%s/freqs_sin" % tag, sin)
        xq = torch.randn(2, 12, 3, 16)
        cis = precompute_freqs_cis_meta(16, 12, 500000.0)
        meta = apply_rotary_emb_meta(xq, cis)
        cos, sin = precompute_freqs_cis(16, 12, 500000.0)
        book, _ = apply_rotary_emb(xq, xq, cos, sin)
        assert torch.allclose(meta, book, rtol=1e-5, atol=1e-6)   # the book's lines are the complex product
        assert torch.allclose(cis.real, cos) and torch.allclose(cis.imag, sin)
        save("rope_theta/xq", xq)
        save("rope_theta/xq_out_meta", meta)                     # (2, 12, 3, 16), theta 500000
    for (seed, b, t, d, h, k, L, theta, tag) in [(123, 2, 6, 16, 4, 2, 32, 500000.0, "5e5"),
                                                 (42, 1, 12, 32, 2, 1, 16, 1e6, "1e6")]:
        torch.manual_seed(seed)
        m = Attention(ModelConfig(dim=d, n_heads=h, n_kv_heads=k, max_seq_len=L, dropout=0.0)).eval()
        x = torch.rand(b, t, d)
        cos, sin = precompute_freqs_cis(d // h, t, theta)
        with torch.no_grad():
            out = m(x, cos, sin)
        name = "rope_theta/s%d_b%d_t%d_d%d_h%d_k%d_L%d_theta%s" % (seed, b, t, d, h, k, L, tag)
        save(name + "/x", x)
        save(name + "/out", out)
