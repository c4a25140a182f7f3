"""Golden fixtures for chapter 10 (the backward pass by hand): tests/fixtures/ch10/.

Every gradient here comes from torch.autograd; the C code computes it by hand.

Pieces (one folder each; inputs, the upstream gradient, and autograd's answer):
  linear/        x (2, 3, 5), weight (4, 5), bias (4,), dy (2, 3, 4)
                 -> dx, dweight, dbias of y = F.linear(x, weight, bias)
  matmul/        a (2, 3, 4, 5), b (2, 3, 5, 6), dc (2, 3, 4, 6) -> da, db of a @ b
  scale/         raw (2, 2, 3, 3), ds -> draw of raw / math.sqrt(4)
  mask/          raw (2, 2, 4, 4), ds -> draw of raw + triu(full(-inf), 1)
  softmax/       s (3, 4, 6) with large entries, dp -> ds of F.softmax(s, -1)
  softmax_masked/  the same with the causal -inf above the diagonal, (2, 2, 5, 5)
  dropout/       x (2, 3, 4, 4), mask (0 or 1/(1-p), p = 0.25), dy -> dx of
                 x * mask (what nn.Dropout does with that mask)
  split/         x (2, 3, 8) -> x.view(2, 3, 2, 4).transpose(1, 2); dxh -> dx
  merge/         xh (2, 2, 3, 4) -> xh.transpose(1, 2).contiguous().view(2, 3, 8); dy -> dxh

The module (rand_NN/, chapter 7's MultiHeadAttention in eval mode, the
SweepMultiHeadAttention of ch07.py, i.e. Happy-LLM's forward with d_in and
d_out apart and optional biases), random shapes, biases on and off, causal on
and off:
  G/x.npy (B, T, d_in), G/weights/w?.npy and b?.npy as chapter 7 reads them,
  G/config.npy [n_heads, causal (0/1), max_seq_len], G/dy.npy (B, T, d_out),
  G/grad_x.npy, G/grad_wq.npy ... grad_wo.npy, and grad_b?.npy for each bias:
  autograd of loss = (model(x, x, x) * dy).sum().
"""

import math

import torch
import torch.nn.functional as F

from golden.ch07 import SweepMultiHeadAttention, save_config, save_linears

NAME = "ch10"
SEED = 10010


def grads(loss, *inputs):
    return torch.autograd.grad(loss, inputs)


def make(out_dir, save):
    torch.manual_seed(SEED)
    randn = torch.randn

    # --- nn.Linear
    x = randn(2, 3, 5, requires_grad=True)
    w = randn(4, 5, requires_grad=True)
    b = randn(4, requires_grad=True)
    dy = randn(2, 3, 4)
    dx, dw, db = grads((F.linear(x, w, b) * dy).sum(), x, w, b)
    for n, t in (("x", x), ("weight", w), ("bias", b), ("dy", dy), ("dx", dx), ("dweight", dw), ("dbias", db)):
        save("linear/" + n, t.detach())

    # --- torch.matmul
    a = randn(2, 3, 4, 5, requires_grad=True)
    bm = randn(2, 3, 5, 6, requires_grad=True)
    dc = randn(2, 3, 4, 6)
    da, dbm = grads((torch.matmul(a, bm) * dc).sum(), a, bm)
    for n, t in (("a", a), ("b", bm), ("dc", dc), ("da", da), ("db", dbm)):
        save("matmul/" + n, t.detach())

    # --- the 1/sqrt(d_k) scale (d_k = 4)
    raw = randn(2, 2, 3, 3, requires_grad=True)
    ds = randn(2, 2, 3, 3)
    (draw,) = grads((raw / math.sqrt(4) * ds).sum(), raw)
    save("scale/raw", raw.detach())
    save("scale/ds", ds)
    save("scale/draw", draw)

    # --- the additive causal mask
    raw = randn(2, 2, 4, 4, requires_grad=True)
    ds = randn(2, 2, 4, 4)
    mask = torch.triu(torch.full((1, 1, 4, 4), float("-inf")), diagonal=1)
    # d(raw + mask)/d raw is 1 everywhere: backward(ds) hands ds straight through
    raw2 = raw.detach().clone().requires_grad_(True)
    out = raw2 + mask
    out.backward(ds)
    assert torch.equal(raw2.grad, ds)
    save("mask/raw", raw.detach())
    save("mask/ds", ds)
    save("mask/draw", raw2.grad)

    # --- softmax: large scores (the max subtraction matters forward, not backward)
    s = (randn(3, 4, 6) * 20.0).requires_grad_(True)
    dp = randn(3, 4, 6)
    p = F.softmax(s, dim=-1)
    (ds,) = grads((p * dp).sum(), s)
    save("softmax/s", s.detach())
    save("softmax/p", p.detach())
    save("softmax/dp", dp)
    save("softmax/ds", ds)

    # --- softmax after the causal mask
    s = randn(2, 2, 5, 5).requires_grad_(True)
    mask = torch.triu(torch.full((1, 1, 5, 5), float("-inf")), diagonal=1)
    dp = randn(2, 2, 5, 5)
    p = F.softmax(s + mask, dim=-1)
    (ds,) = grads((p * dp).sum(), s)
    save("softmax_masked/s", s.detach())
    save("softmax_masked/p", p.detach())
    save("softmax_masked/dp", dp)
    save("softmax_masked/ds", ds)

    # --- dropout with a given mask (nn.Dropout: x * keep / (1 - p))
    pdrop = 0.25
    x = randn(2, 3, 4, 4, requires_grad=True)
    keep = (torch.rand(2, 3, 4, 4) >= pdrop).float()
    mask = keep / (1.0 - pdrop)
    dy = randn(2, 3, 4, 4)
    (dx,) = grads((x * mask * dy).sum(), x)
    save("dropout/x", x.detach())
    save("dropout/mask", mask)
    save("dropout/dy", dy)
    save("dropout/dx", dx)

    # --- split heads: view + transpose
    x = randn(2, 3, 8, requires_grad=True)
    xh = x.view(2, 3, 2, 4).transpose(1, 2)
    dxh = randn(2, 2, 3, 4)
    (dx,) = grads((xh * dxh).sum(), x)
    save("split/x", x.detach())
    save("split/dxh", dxh)
    save("split/dx", dx)

    # --- merge heads: transpose + contiguous + view
    xh = randn(2, 2, 3, 4, requires_grad=True)
    y = xh.transpose(1, 2).contiguous().view(2, 3, 8)
    dy = randn(2, 3, 8)
    (dxh,) = grads((y * dy).sum(), xh)
    save("merge/xh", xh.detach())
    save("merge/dy", dy)
    save("merge/dxh", dxh)

    # --- the whole module: (B, T, d_in, d_out, heads, qkv_bias, out_bias, causal, extra max_seq_len)
    sweep = [
        (2, 5, 6, 4, 2, False, True, True, 0),     # the chapter's default shape, seed class layout
        (1, 1, 3, 2, 1, False, False, True, 2),    # T = 1
        (3, 4, 8, 8, 4, True, True, True, 1),      # all biases, head_dim = 2
        (2, 6, 5, 9, 3, True, False, False, 0),    # qkv biases only, not causal
        (1, 7, 10, 6, 6, False, True, False, 3),   # head_dim = 1
        (2, 3, 4, 12, 2, True, True, False, 0),
        (2, 8, 7, 8, 2, False, False, True, 0),    # no biases
        (1, 5, 16, 16, 8, True, True, True, 2),
    ]
    save("sweep_count", torch.tensor([len(sweep)], dtype=torch.float32))
    for i, (b, t, d_in, d_out, heads, qkv_bias, out_bias, causal, extra) in enumerate(sweep):
        group = "rand_%02d" % i
        m = SweepMultiHeadAttention(d_in, d_out, heads, t + extra, causal, qkv_bias, out_bias).eval()
        with torch.no_grad():
            for lin in (m.wq, m.wk, m.wv, m.wo):
                if lin.bias is not None:
                    lin.bias.copy_(randn(d_out) * 0.5)
        x = randn(b, t, d_in, requires_grad=True)
        y = m(x, x, x)
        dy = randn(b, t, d_out)
        params = [("wq", m.wq.weight), ("wk", m.wk.weight), ("wv", m.wv.weight), ("wo", m.wo.weight)]
        for n, lin in (("bq", m.wq), ("bk", m.wk), ("bv", m.wv), ("bo", m.wo)):
            if lin.bias is not None:
                params.append((n, lin.bias))
        g = grads((y * dy).sum(), x, *[p for _, p in params])
        save(group + "/x", x.detach())
        save_linears(save, group, m.wq, m.wk, m.wv, m.wo)
        save_config(save, group, heads, causal, t + extra)
        save(group + "/dy", dy)
        save(group + "/out", y.detach())
        save(group + "/grad_x", g[0])
        for (n, _), gp in zip(params, g[1:]):
            save(group + "/grad_" + n, gp)

    # --- the training pieces: cross-entropy on the lagged targets, and Adam
    lag = 2
    logits = randn(2, 6, 5, requires_grad=True)
    idx = torch.randint(0, 5, (2, 6))
    loss = F.cross_entropy(logits[:, lag:].reshape(-1, 5), idx[:, :-lag].reshape(-1))
    (dlogits,) = grads(loss, logits)
    save("ce/logits", logits.detach())
    save("ce/idx", idx)
    save("ce/loss", loss.detach().reshape(1))
    save("ce/dlogits", dlogits)

    p = randn(7, requires_grad=True)
    opt = torch.optim.Adam([p], lr=0.01)
    g_seq = randn(4, 7)
    after = []
    save("adam/p0", p.detach().clone())
    for k in range(4):
        opt.zero_grad()
        p.grad = g_seq[k].clone()
        opt.step()
        after.append(p.detach().clone())
    save("adam/grads", g_seq)
    save("adam/after", torch.stack(after))        # (4, 7): p after each step, lr 0.01
