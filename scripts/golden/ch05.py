"""Golden fixtures for chapter 5 (multi-head split/merge): tests/fixtures/ch05/.

PyTorch multi-head self-attention *without* the output projection W_o,
written exactly as Happy-LLM 2.1.6's MultiHeadAttention.forward (Happy-LLM 2.1.6):
view + transpose(1, 2) to split, per-head scaled attention (+ the causal
mask buffer when causal), transpose(1, 2).contiguous().view(...) to merge.

One folder per case, named after its configuration
(b<B>_t<T>_din<d_in>_dout<d_out>_h<heads>_<causal|full>[_bias]):

    input.npy                       x, (B, T, d_in)
    weights/wq.npy wk.npy wv.npy    nn.Linear(d_in, d_out).weight, (d_out, d_in)
    weights/bq.npy bk.npy bv.npy    their biases, (d_out,), only for _bias cases
    xq.npy xk.npy xv.npy            after the split, (B, H, T, head_dim)
    scores.npy                      scaled (and masked) scores, (B, H, T, T)
    attn_weights.npy                after softmax, (B, H, T, T)
    output.npy                      after the merge, (B, T, d_out)

The chapter 6 module (ch06.py) imports CASES and forward() from here.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from golden._reference import causal_buffer, default_cases

NAME = "ch05"
SEED = 5005

# (B, T, d_in, d_out, heads, causal, bias); every case has d_in != d_out
CASES = [
    (1, 4, 6, 4, 2, True, False),     # the chapter's default demo size
    (2, 5, 10, 8, 2, True, False),    # the 手撕 script's sizes, batch 2
    (1, 1, 3, 4, 4, True, True),      # T = 1, head_dim = 1
    (3, 3, 5, 6, 3, False, True),     # not causal, with biases
    (2, 6, 7, 12, 4, False, False),   # 4 heads, d_out > d_in
    (1, 7, 8, 3, 1, True, True),      # one head (plain self-attention), d_out < d_in
    (2, 4, 4, 6, 2, False, True),     # head_dim 3
    (1, 3, 9, 8, 4, True, False),     # head_dim 2, causal
    (2, 2, 6, 8, 4, False, True),     # same d_in as the first case, another d_out
]


def case_name(c):
    b, t, d_in, d_out, h, causal, bias = c
    return "b%d_t%d_din%d_dout%d_h%d_%s%s" % (
        b, t, d_in, d_out, h, "causal" if causal else "full", "_bias" if bias else "")


def forward(x, wq, wk, wv, n_heads, causal, attn_dropout=None, max_seq_len=None):
    """Happy-LLM's forward() without wo/resid_dropout, the causal mask a buffer of
    max_seq_len (default: seqlen) sliced to seqlen; returns the intermediates."""
    bsz, seqlen, _ = x.shape
    head_dim = wq.out_features // n_heads
    xq, xk, xv = wq(x), wk(x), wv(x)
    xq = xq.view(bsz, seqlen, n_heads, head_dim).transpose(1, 2)
    xk = xk.view(bsz, seqlen, n_heads, head_dim).transpose(1, 2)
    xv = xv.view(bsz, seqlen, n_heads, head_dim).transpose(1, 2)
    scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(head_dim)
    if causal:
        mask = causal_buffer(max_seq_len or seqlen)
        scores = scores + mask[:, :, :seqlen, :seqlen]
    weights = F.softmax(scores.float(), dim=-1).type_as(xq)
    dropped = attn_dropout(weights) if attn_dropout is not None else weights
    output = torch.matmul(dropped, xv)
    output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
    return dict(xq=xq, xk=xk, xv=xv, scores=scores, attn_weights=weights,
                attn_dropped=dropped, output=output)


def make_case(c):
    """Random input and nn.Linear weights (PyTorch's default init) for one case."""
    b, t, d_in, d_out, h, causal, bias = c
    wq = nn.Linear(d_in, d_out, bias=bias)
    wk = nn.Linear(d_in, d_out, bias=bias)
    wv = nn.Linear(d_in, d_out, bias=bias)
    x = torch.randn(b, t, d_in)
    return x, wq, wk, wv


def save_case(save, name, x, wq, wk, wv):
    save(name + "/input", x)
    save(name + "/weights/wq", wq.weight)
    save(name + "/weights/wk", wk.weight)
    save(name + "/weights/wv", wv.weight)
    if wq.bias is not None:
        save(name + "/weights/bq", wq.bias)
        save(name + "/weights/bk", wk.bias)
        save(name + "/weights/bv", wv.bias)


def make(out_dir, save):
    torch.manual_seed(SEED)
    with torch.no_grad():
        for c in CASES:
            name = case_name(c)
            x, wq, wk, wv = make_case(c)
            save_case(save, name, x, wq, wk, wv)
            r = forward(x, wq, wk, wv, c[4], c[5])
            for key in ("xq", "xk", "xv", "scores", "attn_weights", "output"):
                save(name + "/" + key, r[key])
    make_defaults(save)


def default_forward(c, attn_dropout=None):
    """torch.manual_seed(seed); W_query, W_key, W_value; x = torch.randn(B, T, d_in);
    then chapter 5's forward with a (1, 1, L, L) mask buffer sliced to T."""
    torch.manual_seed(c["seed"])
    wq = nn.Linear(c["i"], c["o"], bias=c["bias"])
    wk = nn.Linear(c["i"], c["o"], bias=c["bias"])
    wv = nn.Linear(c["i"], c["o"], bias=c["bias"])
    x = torch.randn(c["b"], c["t"], c["i"])
    return x, forward(x, wq, wk, wv, c["h"], True, attn_dropout, max_seq_len=c["L"])["output"]


def default_name(c, mode=None):
    """s<seed>_b<B>_t<T>_i<d_in>_o<d_out>_h<H>[_p<p>]_L<L>[_bias][_<mode>]"""
    name = "default/s%d_b%d_t%d_i%d_o%d_h%d" % (c["seed"], c["b"], c["t"], c["i"], c["o"], c["h"])
    if mode is not None:
        name += "_p%g" % c["p"]
    name += "_L%d" % c["L"] + ("_bias" if c["bias"] else "")
    return name + ("_" + mode if mode else "")


def make_defaults(save):
    """Default runs of build/chapter5: PyTorch's numbers from a seed alone."""
    with torch.no_grad():
        for c in default_cases(5005, True):
            x, out = default_forward(c)
            save(default_name(c) + "/x", x)
            save(default_name(c) + "/out", out)
