"""Golden fixtures for chapter 7 (the complete MultiHeadAttention): tests/fixtures/ch07/.

Three PyTorch classes are written out or used here, and the C module is
compared with each of them:

  HappyMultiHeadAttention    Happy-LLM 2.1.6 as its text stands today (commit
                             f115ef3: wq, wk, wv read args.n_embd, the heads
                             split by self.n_heads), with one real fix: the
                             book views k and v with q's seqlen, so
                             cross-attention (S != T) needs their own length.
                             No biases; d_in = args.n_embd, d_out = args.dim.
  RaschkaMultiHeadAttention  the 手撕 MHA class of the README (qkv_bias False,
                             out_proj with bias, always causal), verbatim.
  torch.nn.MultiheadAttention  the real library (batch_first=True): its packed
                             in_proj_weight is split into wq, wk, wv,
                             in_proj_bias into bq, bk, bv, out_proj into wo, bo.

The random sweep (rand_NN/) needs every combination of d_in != d_out, bias
modes, causal on/off and cross-attention, which no single class above
offers; it uses SweepMultiHeadAttention: Happy-LLM's forward with the two
widths kept apart (wq: n_embd -> dim, as DESIGN.md asks) and optional biases.
For every sweep configuration that a library class can also express, this
script asserts that they agree (nn.MultiheadAttention when d_in == d_out and
all-or-no biases; Raschka's class when causal with an out bias), so the sweep
is anchored to PyTorch itself, not only to our re-statement of it.

Layout of a fixture folder G/ (all float32):
  G/x.npy or G/q.npy, G/k.npy, G/v.npy   inputs, (B, T, d_in) and (B, S, d_in)
  G/weights/wq.npy wk.npy wv.npy         (d_out, d_in)
  G/weights/wo.npy                       (d_out, d_out)
  G/weights/bq.npy bk.npy bv.npy bo.npy  (d_out,), only when the class has them
  G/config.npy                           [n_heads, causal (0/1), max_seq_len]
  G/out.npy                              forward output in eval mode, (B, T, d_out)
  G/attn_weights.npy                     after softmax, (B, H, T, S)
Everything above runs in eval mode (dropout off) on given weights.

Default runs (default/<case>/out.npy): what `build/chapter7 --seed S ...`
must print, without any input file, eval and training mode alike:
    torch.manual_seed(S)
    model = RaschkaMultiHeadAttention(d_in, d_out, max_seq_len, p, heads, qkv_bias)
    x = torch.randn(B, T, d_in)
    out = model(x)                      # training mode: dropout draws too
    out = resid_dropout(out)            # only for the "resid" cases
The case name holds the flags: s<seed>_b<B>_t<T>_i<d_in>_o<d_out>_h<heads>
_p<p>_L<max_seq_len>[_bias][_resid]_<train|eval>. Its x.npy is saved too.

Happy-LLM's own class (happy_default/<case>/out.npy): what
`build/chapter7 --happy-llm --seed S ...` must print, training and eval:
    torch.manual_seed(S)
    model = HappyMultiHeadAttention(ModelArgs(dim=d_out, n_embd=d_in, ...), is_causal)
    x = torch.randn(B, T, d_in)
    out = model(x, x, x)                # training mode: attn_dropout, then resid_dropout
The case name: s<seed>_b<B>_t<T>_i<d_in>_o<d_out>_h<heads>_p<p>_L<max_seq_len>
[_causal]_<train|eval>.
"""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "ch07"
SEED = 7007


@dataclass
class ModelArgs:
    dim: int          # width of q, k, v and of the output (the book uses it as the input width too)
    n_embd: int       # width of the input: what wq, wk, wv read (the book: nn.Linear(args.n_embd, ...))
    n_heads: int
    dropout: float
    max_seq_len: int


class HappyMultiHeadAttention(nn.Module):
    """Happy-LLM 2.1.6 as of commit f115ef3, k and v viewed with their own length."""

    def __init__(self, args: ModelArgs, is_causal=False):
        super().__init__()
        assert args.dim % args.n_heads == 0
        self.head_dim = args.dim // args.n_heads
        self.n_local_heads = args.n_heads               # the book: self.n_heads = args.n_heads
        self.wq = nn.Linear(args.n_embd, args.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(args.n_embd, args.n_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(args.n_embd, args.n_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)
        self.attn_dropout = nn.Dropout(args.dropout)
        self.resid_dropout = nn.Dropout(args.dropout)
        self.is_causal = is_causal
        if is_causal:
            mask = torch.full((1, 1, args.max_seq_len, args.max_seq_len), float("-inf"))
            mask = torch.triu(mask, diagonal=1)
            self.register_buffer("mask", mask)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
        bsz, seqlen, _ = q.shape
        kvlen = k.shape[1]                              # book: seqlen (breaks when S != T)
        xq, xk, xv = self.wq(q), self.wk(k), self.wv(v)
        xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xk = xk.view(bsz, kvlen, self.n_local_heads, self.head_dim)
        xv = xv.view(bsz, kvlen, self.n_local_heads, self.head_dim)
        xq = xq.transpose(1, 2)
        xk = xk.transpose(1, 2)
        xv = xv.transpose(1, 2)
        scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)
        if self.is_causal:
            assert hasattr(self, "mask")
            scores = scores + self.mask[:, :, :seqlen, :seqlen]
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        self.attn_weights = scores                      # kept for the fixtures (not in the book)
        scores = self.attn_dropout(scores)
        output = torch.matmul(scores, xv)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        output = self.wo(output)
        output = self.resid_dropout(output)
        return output


class RaschkaMultiHeadAttention(nn.Module):
    """The 手撕 MHA class of the README (the README's 手撕 MHA script), verbatim but for attn_weights."""

    def __init__(self, d_in, d_out, seq_len, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(seq_len, seq_len), diagonal=1))

    def forward(self, x):
        b, seq_len, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        keys = keys.view(b, seq_len, self.num_heads, self.head_dim)
        values = values.view(b, seq_len, self.num_heads, self.head_dim)
        queries = queries.view(b, seq_len, self.num_heads, self.head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)
        attn_scores = queries @ keys.transpose(-2, -1)
        mask_bool = self.mask.bool()[:seq_len, :seq_len]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        self.attn_weights = attn_weights                # kept for the fixtures
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.reshape(b, seq_len, self.d_out)
        context_vec = self.out_proj(context_vec)
        return context_vec


class SweepMultiHeadAttention(HappyMultiHeadAttention):
    """Happy-LLM's forward with d_in (n_embd) and d_out (dim) apart and optional biases."""

    def __init__(self, d_in, d_out, n_heads, max_seq_len, causal, qkv_bias, out_bias):
        args = ModelArgs(dim=d_out, n_embd=d_out, n_heads=n_heads, dropout=0.0,
                         max_seq_len=max_seq_len)
        super().__init__(args, is_causal=causal)
        self.wq = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.wk = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.wv = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.wo = nn.Linear(d_out, d_out, bias=out_bias)


def causal_bool(t):
    """nn.MultiheadAttention's attn_mask: True = may not attend (the future)."""
    return torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)


def save_linears(save, group, wq, wk, wv, wo):
    """wq, wk, wv, wo: nn.Linear layers -> group/weights/w?.npy and b?.npy."""
    for name, lin in (("q", wq), ("k", wk), ("v", wv), ("o", wo)):
        save("%s/weights/w%s" % (group, name), lin.weight)
        if lin.bias is not None:
            save("%s/weights/b%s" % (group, name), lin.bias)


def save_config(save, group, n_heads, causal, max_seq_len):
    save("%s/config" % group, torch.tensor([n_heads, 1 if causal else 0, max_seq_len], dtype=torch.float32))


def split_torch_mha(mha):
    """nn.MultiheadAttention -> (wq, wk, wv, bq, bk, bv, wo, bo); biases may be None."""
    wq, wk, wv = mha.in_proj_weight.detach().chunk(3, dim=0)
    bq = bk = bv = None
    if mha.in_proj_bias is not None:
        bq, bk, bv = mha.in_proj_bias.detach().chunk(3, dim=0)
    bo = mha.out_proj.bias.detach() if mha.out_proj.bias is not None else None
    return wq, wk, wv, bq, bk, bv, mha.out_proj.weight.detach(), bo


def copy_into_sweep(dst, mha):
    """Give a SweepMultiHeadAttention the weights of an nn.MultiheadAttention."""
    wq, wk, wv, bq, bk, bv, wo, bo = split_torch_mha(mha)
    for lin, w, b in ((dst.wq, wq, bq), (dst.wk, wk, bk), (dst.wv, wv, bv), (dst.wo, wo, bo)):
        lin.weight.copy_(w)
        if b is not None:
            lin.bias.copy_(b)


def make(out_dir, save):
    torch.manual_seed(SEED)
    randn = torch.randn

    with torch.no_grad():
        # --- (a) Happy-LLM's class: causal self-attention, mask buffer 8 sliced to 6
        args = ModelArgs(dim=12, n_embd=12, n_heads=3, dropout=0.1, max_seq_len=8)
        m = HappyMultiHeadAttention(args, is_causal=True).eval()
        x = randn(2, 6, 12)
        out = m(x, x, x)
        save("happy/x", x)
        save_linears(save, "happy", m.wq, m.wk, m.wv, m.wo)
        save_config(save, "happy", 3, True, 8)
        save("happy/out", out)                                   # (2, 6, 12)
        save("happy/attn_weights", m.attn_weights)               # (2, 3, 6, 6)

        # --- (a) Happy-LLM's class, not causal, cross-attention: S = 7 != T = 4
        args = ModelArgs(dim=8, n_embd=8, n_heads=2, dropout=0.0, max_seq_len=16)
        m = HappyMultiHeadAttention(args, is_causal=False).eval()
        q, k, v = randn(2, 4, 8), randn(2, 7, 8), randn(2, 7, 8)
        out = m(q, k, v)
        save("happy_cross/q", q)
        save("happy_cross/k", k)
        save("happy_cross/v", v)
        save_linears(save, "happy_cross", m.wq, m.wk, m.wv, m.wo)
        save_config(save, "happy_cross", 2, False, 16)
        save("happy_cross/out", out)                             # (2, 4, 8)
        save("happy_cross/attn_weights", m.attn_weights)         # (2, 2, 4, 7)

        # --- (b) the 手撕 script: manual_seed(123), MHA(10, 8, 5, 0.1, 2), x (3, 5, 10)
        torch.manual_seed(123)
        m = RaschkaMultiHeadAttention(10, 8, 5, 0.1, 2)
        x = randn(3, 5, 10)
        m.eval()                                                 # dropout off
        out = m(x)
        save("seed/x", x)
        save_linears(save, "seed", m.W_query, m.W_key, m.W_value, m.out_proj)
        save_config(save, "seed", 2, True, 5)
        save("seed/out", out)                                    # (3, 5, 8)
        save("seed/attn_weights", m.attn_weights)                # (3, 2, 5, 5)
        # the same weights without the mask (every token sees every token)
        ref = SweepMultiHeadAttention(10, 8, 2, 5, True, False, True).eval()
        for dst, src in ((ref.wq, m.W_query), (ref.wk, m.W_key), (ref.wv, m.W_value), (ref.wo, m.out_proj)):
            dst.weight.copy_(src.weight)
            if src.bias is not None:
                dst.bias.copy_(src.bias)
        assert torch.allclose(ref(x, x, x), out, rtol=1e-5, atol=1e-6)   # sweep class == seed class
        ref.is_causal = False
        save("seed/out_no_causal", ref(x, x, x))                 # (3, 5, 8)
        torch.manual_seed(SEED + 1)

        # parameter counts, sum(p.numel() for p in model.parameters())
        counts = [
            sum(p.numel() for p in RaschkaMultiHeadAttention(10, 8, 5, 0.1, 2).parameters()),
            sum(p.numel() for p in RaschkaMultiHeadAttention(768, 768, 1024, 0.0, 12).parameters()),
            sum(p.numel() for p in HappyMultiHeadAttention(
                ModelArgs(dim=768, n_embd=768, n_heads=12, dropout=0.0, max_seq_len=16)).parameters()),
            sum(p.numel() for p in nn.MultiheadAttention(768, 12, bias=True).parameters()),
        ]
        assert counts[1] == 2360064
        save("param_counts", torch.tensor(counts, dtype=torch.float32))   # exact below 2**24

        # --- (c) torch.nn.MultiheadAttention(batch_first=True), the real library
        def torch_mha_case(group, embed, heads, bias, b, t, s, causal):
            mha = nn.MultiheadAttention(embed, heads, bias=bias, batch_first=True).eval()
            if bias:   # PyTorch starts in_proj_bias and out_proj.bias at 0: make them count
                mha.in_proj_bias.copy_(randn(3 * embed) * 0.5)
                mha.out_proj.bias.copy_(randn(embed) * 0.5)
            q = randn(b, t, embed)
            if s is None:
                k = v = q
            else:
                k, v = randn(b, s, embed), randn(b, s, embed)
            mask = causal_bool(t) if causal else None
            out, w = mha(q, k, v, attn_mask=mask, need_weights=True, average_attn_weights=False)
            wq, wk, wv, bq, bk, bv, wo, bo = split_torch_mha(mha)
            if s is None:
                save(group + "/x", q)
            else:
                save(group + "/q", q)
                save(group + "/k", k)
                save(group + "/v", v)
            for name, tsr in (("wq", wq), ("wk", wk), ("wv", wv), ("wo", wo),
                              ("bq", bq), ("bk", bk), ("bv", bv), ("bo", bo)):
                if tsr is not None:
                    save("%s/weights/%s" % (group, name), tsr)
            save_config(save, group, heads, causal, t)
            save(group + "/out", out)
            save(group + "/attn_weights", w)                      # (B, H, T, S), per head

        torch_mha_case("torch_mha", 12, 4, True, 2, 5, None, True)          # causal self-attention
        torch_mha_case("torch_mha_cross", 8, 2, True, 2, 3, 6, False)       # S = 6 != T = 3
        torch_mha_case("torch_mha_nobias", 9, 3, False, 3, 4, None, True)   # bias=False
        torch_mha_case("torch_mha_t1", 6, 6, True, 1, 1, None, True)        # T = 1, head_dim = 1

        # --- random sweep: (B, T, S, d_in, d_out, heads, qkv_bias, out_bias, causal)
        sweep = [
            (1, 1, 1, 5, 8, 2, False, False, True),
            (2, 7, 7, 6, 4, 4, True, True, True),      # head_dim = 1
            (3, 5, 5, 10, 8, 2, False, True, True),    # the 手撕 script's shape
            (2, 3, 6, 7, 12, 3, True, False, False),   # cross, S > T
            (1, 6, 2, 9, 16, 8, False, False, False),  # cross, S < T, 8 heads
            (2, 4, 4, 12, 12, 6, True, True, False),
            (3, 2, 2, 3, 10, 5, False, True, False),
            (1, 7, 7, 16, 9, 3, True, False, True),
            (2, 1, 5, 4, 6, 1, False, True, False),    # T = 1, cross
            (2, 5, 5, 8, 14, 7, True, True, True),
            (1, 3, 3, 11, 5, 1, False, False, False),  # one head, d_in > d_out
            (3, 4, 1, 6, 6, 2, True, True, False),     # S = 1
            (2, 6, 6, 5, 24, 8, False, True, True),
            (1, 2, 2, 20, 3, 3, True, False, True),    # d_out = 3 heads of 1
            (2, 5, 3, 7, 10, 2, True, True, False),
            (1, 4, 4, 2, 2, 2, False, False, True),
        ]
        save("sweep_count", torch.tensor([len(sweep)], dtype=torch.float32))
        for i, (b, t, s, d_in, d_out, heads, qkv_bias, out_bias, causal) in enumerate(sweep):
            group = "rand_%02d" % i
            max_seq_len = t + i % 3                                # a buffer longer than T, often
            m = SweepMultiHeadAttention(d_in, d_out, heads, max_seq_len, causal, qkv_bias, out_bias).eval()
            for lin in (m.wq, m.wk, m.wv, m.wo):                   # biases of a visible size
                if lin.bias is not None:
                    lin.bias.copy_(randn(d_out) * 0.5)
            q = randn(b, t, d_in)
            cross = s != t or (not causal and i % 2 == 1)
            if cross:
                k, v = randn(b, s, d_in), randn(b, s, d_in)
                save(group + "/q", q)
                save(group + "/k", k)
                save(group + "/v", v)
            else:
                k = v = q
                save(group + "/x", q)
            out = m(q, k, v)
            # anchor the sweep class to the library where it can say the same thing
            if d_in == d_out and qkv_bias == out_bias:
                lib = nn.MultiheadAttention(d_out, heads, bias=qkv_bias, batch_first=True).eval()
                lib.in_proj_weight.copy_(torch.cat([m.wq.weight, m.wk.weight, m.wv.weight]))
                lib.out_proj.weight.copy_(m.wo.weight)
                if qkv_bias:
                    lib.in_proj_bias.copy_(torch.cat([m.wq.bias, m.wk.bias, m.wv.bias]))
                    lib.out_proj.bias.copy_(m.wo.bias)
                lib_out, _ = lib(q, k, v, attn_mask=causal_bool(t) if causal else None)
                assert torch.allclose(lib_out, out, rtol=1e-5, atol=1e-6), group
            if causal and out_bias and not cross:
                r = RaschkaMultiHeadAttention(d_in, d_out, max_seq_len, 0.0, heads, qkv_bias).eval()
                for dst, src in ((r.W_query, m.wq), (r.W_key, m.wk), (r.W_value, m.wv), (r.out_proj, m.wo)):
                    dst.weight.copy_(src.weight)
                    if src.bias is not None:
                        dst.bias.copy_(src.bias)
                assert torch.allclose(r(q), out, rtol=1e-5, atol=1e-6), group
            save_linears(save, group, m.wq, m.wk, m.wv, m.wo)
            save_config(save, group, heads, causal, max_seq_len)
            save(group + "/out", out)
            save(group + "/attn_weights", m.attn_weights)

    # --- default runs: torch.manual_seed(S); the class; x = torch.randn(B, T, d_in)
    import random
    rng = random.Random(20261130)
    cases = [(123, 3, 5, 10, 8, 2, 0.1, 10, False, False)]   # the script's own sizes
    for seed in (0, 1, 42, 123, 2**31 - 1):
        for _ in range(3):
            heads = rng.randint(1, 4)
            d_out = heads * rng.randint(1, 4)
            t = rng.randint(1, 9)
            cases.append((seed, rng.randint(1, 4), t, rng.randint(1, 12), d_out, heads,
                          rng.choice([0.0, 0.1, 0.25, 0.5]), t + rng.randint(0, 5),
                          rng.random() < 0.3, rng.random() < 0.2))
    # --- Happy-LLM's own class, default runs (build/chapter7 --happy-llm)
    happy_cases = [(123, 3, 5, 10, 8, 2, 0.1, 10, False), (123, 3, 5, 10, 8, 2, 0.1, 10, True),
                   (7, 2, 4, 6, 6, 3, 0.25, 6, True), (42, 1, 6, 5, 4, 1, 0.5, 9, False)]
    for (seed, b, t, d_in, d_out, heads, p, L, causal) in happy_cases:
        for train in (True, False):
            torch.manual_seed(seed)
            model = HappyMultiHeadAttention(ModelArgs(dim=d_out, n_embd=d_in, n_heads=heads, dropout=p,
                                                      max_seq_len=L), is_causal=causal)
            x = torch.randn(b, t, d_in)
            if not train:
                model.eval()
            with torch.no_grad():
                out = model(x, x, x)
            save("happy_default/s%d_b%d_t%d_i%d_o%d_h%d_p%g_L%d%s_%s/out" % (
                seed, b, t, d_in, d_out, heads, p, L, "_causal" if causal else "",
                "train" if train else "eval"), out)

    for (seed, b, t, d_in, d_out, heads, p, L, bias, resid) in cases:
        for train in (True, False):
            torch.manual_seed(seed)
            model = RaschkaMultiHeadAttention(d_in, d_out, L, p, heads, bias)
            resid_dropout = nn.Dropout(p)
            x = torch.randn(b, t, d_in)
            if not train:
                model.eval()
                resid_dropout.eval()
            with torch.no_grad():
                out = model(x)
                if resid:
                    out = resid_dropout(out)
            name = "default/s%d_b%d_t%d_i%d_o%d_h%d_p%g_L%d%s%s_%s" % (
                seed, b, t, d_in, d_out, heads, p, L, "_bias" if bias else "",
                "_resid" if resid else "", "train" if train else "eval")
            save(name + "/x", x)
            save(name + "/out", out)
