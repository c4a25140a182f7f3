"""Golden fixtures for chapter 12 (the backward pass in O(T) memory): tests/fixtures/ch12/.

PyTorch 1.13 (the one this project's fixtures are made with) has no
F.scaled_dot_product_attention, so the forward is written out as chapters 2, 4
and 8 write it, in float64, and autograd gives the gradients:

    q, k, v = (x.double().requires_grad_() for x in (q32, k32, v32))
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    scores = scores + mask            # causal: triu(full((T, T), -inf), diagonal=1)
    output = torch.matmul(scores.softmax(dim=-1), v)
    (output * do).sum().backward()    # do = dloss/doutput

The inputs are drawn in float32 and the results stored in float32 (computed in
float64, so the fixtures are the exact gradients of the float32 inputs, rounded
once).

Files, for each case <c> and mode <m> (causal or nocausal; causal only when T == S):
  <c>_q, <c>_k, <c>_v, <c>_do       inputs, float32
  <c>_<m>_out, <c>_<m>_lse          output (..., T, d_v) and torch.logsumexp(scores, -1) (..., T)
  <c>_<m>_dq, <c>_<m>_dk, <c>_<m>_dv  q.grad, k.grad, v.grad
Cases: t1 (T = S = 1), basic (1, 2, 37, 16), ns (T = 5 != S = 70, d_v = 12 != d_k = 8),
many (three batch dims, d_v 3), long (T = S = 300: five query blocks, two key tiles of
256, 300 not a multiple of either), d64 (head_dim 64, T = 72: whole register tiles).
prog_*: (1, 2, 40, 8) inputs and results for tests/test_ch12_program.sh.
"""

import math

import torch

NAME = "ch12"
SEED = 12012


def forward_backward(q32, k32, v32, do32, causal):
    q, k, v = (x.double().requires_grad_() for x in (q32, k32, v32))
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    if causal:
        T = scores.size(-1)
        scores = scores + torch.triu(torch.full((T, T), float("-inf"), dtype=torch.float64), diagonal=1)
    lse = torch.logsumexp(scores, dim=-1)
    output = torch.matmul(scores.softmax(dim=-1), v)
    (output * do32.double()).sum().backward()
    return output.detach(), lse.detach(), q.grad, k.grad, v.grad


def make(out_dir, save):
    torch.manual_seed(SEED)
    randn = torch.randn
    cases = [
        # name    q shape           k shape           v shape
        ("t1",    (2, 3, 1, 8),     (2, 3, 1, 8),     (2, 3, 1, 8)),
        ("basic", (1, 2, 37, 16),   (1, 2, 37, 16),   (1, 2, 37, 16)),
        ("ns",    (2, 5, 8),        (2, 70, 8),       (2, 70, 12)),
        ("many",  (2, 2, 2, 9, 5),  (2, 2, 2, 9, 5),  (2, 2, 2, 9, 3)),
        ("long",  (1, 300, 8),      (1, 300, 8),      (1, 300, 8)),
        ("d64",   (1, 1, 72, 64),   (1, 1, 72, 64),   (1, 1, 72, 64)),
        ("prog",  (1, 2, 40, 8),    (1, 2, 40, 8),    (1, 2, 40, 8)),
    ]
    for name, qs, ks, vs in cases:
        q, k, v = randn(*qs), randn(*ks), randn(*vs)
        do = randn(*(qs[:-1] + vs[-1:]))
        for n, t in (("q", q), ("k", k), ("v", v), ("do", do)):
            save("%s_%s" % (name, n), t)
        for causal in (False, True):
            if causal and qs[-2] != ks[-2]:
                continue
            m = "causal" if causal else "nocausal"
            out, lse, dq, dk, dv = forward_backward(q, k, v, do, causal)
            for n, t in (("out", out), ("lse", lse), ("dq", dq), ("dk", dk), ("dv", dv)):
                save("%s_%s_%s" % (name, m, n), t)
