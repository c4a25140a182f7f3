"""Golden fixtures for chapter 8, fast attention: tests/fixtures/ch08/.

Every version of chapter 8 computes what PyTorch 2 calls
F.scaled_dot_product_attention(q, k, v, is_causal=causal); PyTorch 1.13 (the
one this project's fixtures are made with) does not have it yet, so this module
writes it out the way chapters 2 and 4 do:

    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    scores = scores + mask            # causal: triu(full((T, T), -inf), diagonal=1)
    output = torch.matmul(scores.softmax(dim=-1), v)

and, when F.scaled_dot_product_attention exists, checks that it agrees.

Files (float32), for each case <c>:
  <c>_q, <c>_k, <c>_v        inputs
  <c>_out_nocausal           the output without a mask (every case)
  <c>_out_causal             with the causal mask (only cases with T == S)
Cases: t1 (T = S = 1), dk1 (d_k = 1), odd (odd sizes, 4-D), ns (T != S), bcast
(batch dims that broadcast, value 2-D), many (three batch dims), long (T = S = 300:
several query blocks and key tiles of 256), d64 (head_dim 64: whole register
tiles).
<c>_lse_nocausal, <c>_lse_causal: torch.logsumexp(scores, dim=-1) of the scaled
(and masked) scores, (..., T), what attention_flash_lse returns beside the output
(written for the cases above, for prog_* and for the non-finite cases).
prog_*: inputs and expected outputs for tests/test_ch08_program.sh, with the
attention weights (prog_weights_*) that --dump writes.

Non-finite inputs (nf_<c>_q/k/v, nf_<c>_out_causal/_nocausal), shape (1, 2, 70, 8):
head 0 holds the bad value, head 1 is finite, so one call mixes both paths. The
mask is added (chapter 4), so NaN + -inf = NaN and +inf + -inf = NaN; a row whose
scores hold a NaN or +inf, or nothing but -inf, is NaN; p_attn · value computes
0 · inf = NaN for masked keys too. Cases: kneginf (-inf in a key), kposinf, knan,
qinf, vinf (+inf in a value row), vnan, rowneginf (row 0's only visible key scores
-inf), big (finite values whose scores overflow to inf).
nf_strips_*, shape (1, 3, 300, 4): 300 queries are two of flash's strips, and the
bad values sit in both: head 0 finite, head 1 a -inf in key 280, head 2 an
overflowing score in query 270.
"""

import torch
import torch.nn.functional as F

from golden._reference import causal_buffer, masked_attention

NAME = "ch08"
SEED = 8


def attention(q, k, v, causal):
    """Return (weights, output) the way chapters 2 and 4 compute them."""
    _, weights, output = masked_attention(q, k, v, causal_buffer(k.size(-2)) if causal else None)
    return weights, output


def logsumexp(q, k, causal):
    """lse = torch.logsumexp(scores, dim=-1): the log of each row's softmax denominator."""
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    if causal:
        T = scores.size(-1)
        scores = scores + torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
    return torch.logsumexp(scores, dim=-1)


def check_sdpa(q, k, v, causal, output):
    """PyTorch >= 2.0 has the fused call; it must give the same numbers."""
    if not hasattr(F, "scaled_dot_product_attention"):
        return
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    fused = F.scaled_dot_product_attention(q.expand(*batch, *q.shape[-2:]), k.expand(*batch, *k.shape[-2:]),
                                           v.expand(*batch, *v.shape[-2:]), is_causal=causal)
    if not torch.allclose(fused, output, rtol=1e-5, atol=1e-6):
        raise RuntimeError("F.scaled_dot_product_attention disagrees with matmul + softmax + matmul")


def make(out_dir, save):
    torch.manual_seed(SEED)
    randn = torch.randn

    cases = [
        # name     q shape           k shape           v shape
        ("t1",    (2, 3, 1, 8),     (2, 3, 1, 8),     (2, 3, 1, 8)),     # T = S = 1
        ("dk1",   (3, 6, 1),        (3, 6, 1),        (3, 6, 2)),        # d_k = 1
        ("odd",   (1, 3, 37, 19),   (1, 3, 37, 19),   (1, 3, 37, 7)),    # odd sizes
        ("ns",    (2, 5, 16),       (2, 70, 16),      (2, 70, 9)),       # T != S
        ("bcast", (2, 1, 5, 4),     (1, 3, 70, 4),    (70, 33)),         # batch dims broadcast
        ("many",  (2, 2, 2, 9, 5),  (2, 2, 2, 9, 5),  (2, 2, 2, 9, 3)),  # three batch dims
        ("long",  (1, 300, 8),      (1, 300, 8),      (1, 300, 8)),      # 5 query blocks, 2 key tiles
        ("d64",   (1, 1, 72, 64),   (1, 1, 72, 64),   (1, 1, 72, 64)),   # whole register tiles
    ]
    for name, qs, ks, vs in cases:
        q, k, v = randn(*qs), randn(*ks), randn(*vs)
        save(name + "_q", q)
        save(name + "_k", k)
        save(name + "_v", v)
        _, out = attention(q, k, v, False)
        check_sdpa(q, k, v, False, out)
        save(name + "_out_nocausal", out)
        save(name + "_lse_nocausal", logsumexp(q, k, False))
        if qs[-2] == ks[-2]:
            _, out = attention(q, k, v, True)
            check_sdpa(q, k, v, True, out)
            save(name + "_out_causal", out)
            save(name + "_lse_causal", logsumexp(q, k, True))

    # --- for the program tests -------------------------------------------------
    q, k, v = randn(1, 2, 40, 8), randn(1, 2, 40, 8), randn(1, 2, 40, 8)  # (bsz, n_heads, T, head_dim)
    save("prog_q", q)
    save("prog_k", k)
    save("prog_v", v)
    for causal in (False, True):
        weights, out = attention(q, k, v, causal)
        tag = "causal" if causal else "nocausal"
        save("prog_weights_" + tag, weights)   # (1, 2, 40, 40)
        save("prog_out_" + tag, out)
        save("prog_lse_" + tag, logsumexp(q, k, causal))   # (1, 2, 40)

    q, k, v = randn(2, 3, 4), randn(2, 7, 4), randn(2, 7, 3)  # T = 3 != S = 7
    save("prog_ns_q", q)
    save("prog_ns_k", k)
    save("prog_ns_v", v)
    _, out = attention(q, k, v, False)
    save("prog_ns_out_nocausal", out)

    # --- non-finite inputs: what PyTorch does, position by position ---------------
    def nonfinite(name, edit):
        q, k, v = randn(1, 2, 70, 8), randn(1, 2, 70, 8), randn(1, 2, 70, 8)
        edit(q[0, 0], k[0, 0], v[0, 0])  # head 0 only
        save("nf_%s_q" % name, q)
        save("nf_%s_k" % name, k)
        save("nf_%s_v" % name, v)
        for causal in (False, True):
            _, out = attention(q, k, v, causal)
            save("nf_%s_out_%s" % (name, "causal" if causal else "nocausal"), out)
            save("nf_%s_lse_%s" % (name, "causal" if causal else "nocausal"), logsumexp(q, k, causal))

    inf, nan = float("inf"), float("nan")

    def set_(t, i, j, x):
        t[i, j] = x

    nonfinite("kneginf", lambda q, k, v: set_(k, 30, 2, -inf))
    nonfinite("kposinf", lambda q, k, v: set_(k, 40, 0, inf))
    nonfinite("knan", lambda q, k, v: set_(k, 50, 5, nan))
    nonfinite("qinf", lambda q, k, v: set_(q, 20, 1, inf))
    nonfinite("vinf", lambda q, k, v: set_(v, 45, 3, inf))
    nonfinite("vnan", lambda q, k, v: set_(v, 60, 7, nan))

    def row_neginf(q, k, v):
        q[0].fill_(1.0)
        k[0].fill_(-inf)  # q[0] . k[0] = -inf: row 0 sees only key 0 when causal

    nonfinite("rowneginf", row_neginf)

    def big(q, k, v):
        q[10].fill_(1e20)
        k[12].fill_(1e20)  # finite, but q[10] . k[12] / sqrt(8) overflows to inf

    nonfinite("big", big)

    # three heads of 300 queries (two strips of flash's query blocks): head 0 finite,
    # head 1 a -inf in key 280 (rows with q[:, 2] < 0 score +inf there: NaN, in both
    # strips), head 2 a score that overflows in the second strip
    q, k, v = randn(1, 3, 300, 4), randn(1, 3, 300, 4), randn(1, 3, 300, 4)
    k[0, 1, 280, 2] = -inf
    q[0, 2, 270].fill_(1e20)
    k[0, 2, 5].fill_(1e20)
    save("nf_strips_q", q)
    save("nf_strips_k", k)
    save("nf_strips_v", v)
    for causal in (False, True):
        _, out = attention(q, k, v, causal)
        save("nf_strips_out_%s" % ("causal" if causal else "nocausal"), out)
