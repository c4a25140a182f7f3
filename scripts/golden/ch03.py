"""Golden fixtures for chapter 3, self-attention: tests/fixtures/ch03/.

Self-attention twice, as Happy-LLM 2.1.4 has it:
    attention(x, x, x)                                  plain: Q = K = V = x
    xq, xk, xv = F.linear(x, wq, bq), ...               nn.Linear layout (d_out, d_in)
    output, p_attn = attention(xq, xk, xv)
Each projected case <case>_ saves x, wq wk wv (and bq bk bv with bias), xq xk
xv, scores, p_attn and output; plain cases save x, scores, p_attn, output.
Configurations include T = 1, d_in = 1, d_out = 1, B > 1, bias on and off.

For the program tests it also writes whole input sets: input_<set>.npy, a
folder weights_<set>/ with wq.npy wk.npy wv.npy [bq.npy bk.npy bv.npy] and
the expected output_<set>.npy; and folders bad_*/ that qkv_load must refuse.
New fixtures go at the end of make(), so existing ones keep their values.
"""

import torch
import torch.nn.functional as F

from golden._reference import attention, default_cases, scaled_scores

NAME = "ch03"
SEED = 20240603


def linear_params(d_in, d_out, bias):
    """nn.Linear(d_in, d_out, bias) three times: default init, weight (d_out, d_in)."""
    layers = [torch.nn.Linear(d_in, d_out, bias=bias) for _ in range(3)]
    ws = [l.weight.detach().clone() for l in layers]
    bs = [l.bias.detach().clone() for l in layers] if bias else [None] * 3
    return ws, bs


def project_and_attend(x, ws, bs):
    xq, xk, xv = (F.linear(x, w, b) for w, b in zip(ws, bs))
    scores = scaled_scores(xq, xk)
    output, p_attn = attention(xq, xk, xv)
    return xq, xk, xv, scores, output, p_attn


def save_weights(save, prefix, ws, bs):
    for name, w in zip(("wq", "wk", "wv"), ws):
        save(prefix + name, w)
    for name, b in zip(("bq", "bk", "bv"), bs):
        if b is not None:
            save(prefix + name, b)


# (case, B, T, d_in, d_out, bias)
CASES = [
    ("small", 1, 6, 3, 2, False),     # the program's default sizes
    ("bias", 2, 5, 8, 4, True),
    ("t1", 3, 1, 4, 3, True),         # T = 1
    ("din1", 2, 4, 1, 3, False),      # d_in = 1
    ("dout1", 1, 5, 6, 1, True),      # d_out = 1 (d_k = 1)
    ("square", 2, 4, 16, 16, False),  # d_out == d_in
]

# (case, shape of x) for attention(x, x, x)
PLAIN = [
    ("plain_small", (1, 6, 3)),
    ("plain_batch", (2, 5, 4)),
    ("plain_t1", (3, 1, 2)),
]

# Input sets for the program: (set, B, T, d_in, d_out, bias)
SETS = [
    ("a", 2, 5, 10, 8, True),
    ("b", 2, 5, 10, 4, False),        # same d_in as a, other d_out
    ("c", 1, 1, 9, 8, False),         # T = 1; d_in 9 does not fit the input of a
]


def make(out_dir, save):
    torch.manual_seed(SEED)

    for case, b, t, d_in, d_out, bias in CASES:
        x = torch.randn(b, t, d_in)
        ws, bs = linear_params(d_in, d_out, bias)
        xq, xk, xv, scores, output, p_attn = project_and_attend(x, ws, bs)
        save(case + "_x", x)
        save_weights(save, case + "_", ws, bs)
        for name, val in (("xq", xq), ("xk", xk), ("xv", xv), ("scores", scores),
                          ("p_attn", p_attn), ("output", output)):
            save(case + "_" + name, val)

    for case, shape in PLAIN:
        x = torch.randn(*shape)
        output, p_attn = attention(x, x, x)
        save(case + "_x", x)
        save(case + "_scores", scaled_scores(x, x))
        save(case + "_p_attn", p_attn)
        save(case + "_output", output)

    # whole input sets for tests/test_ch03_program.sh
    sets = {}
    for name, b, t, d_in, d_out, bias in SETS:
        x = torch.randn(b, t, d_in)
        ws, bs = linear_params(d_in, d_out, bias)
        xq, xk, xv, scores, output, p_attn = project_and_attend(x, ws, bs)
        save("input_%s" % name, x)
        save_weights(save, "weights_%s/" % name, ws, bs)
        save("output_%s" % name, output)
        save("attn_weights_%s" % name, p_attn)
        save("xq_%s" % name, xq)
        sets[name] = (ws, bs)

    # folders qkv_load must refuse, for an input of d_in = 10 (input_a)
    (wa, ba), (wb, _), (wc, _) = sets["a"], sets["b"], sets["c"]
    save("bad_missing_wk/wq", wa[0])                 # no wk.npy
    save("bad_missing_wk/wv", wa[2])
    save_weights(save, "bad_d_in/", [wa[0], wc[1], wa[2]], [None] * 3)   # wk (8, 9)
    save_weights(save, "bad_shapes/", [wa[0], wb[1], wa[2]], [None] * 3) # wk (4, 10)
    save_weights(save, "bad_1d/", [ba[0], wa[1], wa[2]], [None] * 3)     # wq (8,)
    save_weights(save, "bad_3d/", [wa[0], wa[1], wa[2].reshape(2, 4, 10)], [None] * 3)
    save_weights(save, "bad_some_bias/", wa, [ba[0], None, ba[2]])       # no bk.npy
    save_weights(save, "bad_bias_len/", wa, [ba[0], ba[1][:7], ba[2]])   # bk (7,)
    make_defaults(save)


def make_defaults(save):
    """Default runs of build/chapter3: torch.manual_seed(seed); W_query, W_key,
    W_value = nn.Linear(d_in, d_out, bias); x = torch.randn(B, T, d_in);
    output, p_attn = attention(W_query(x), W_key(x), W_value(x))."""
    import torch.nn as nn
    with torch.no_grad():
        for c in default_cases(3003, False):
            torch.manual_seed(c["seed"])
            wq = nn.Linear(c["i"], c["o"], bias=c["bias"])
            wk = nn.Linear(c["i"], c["o"], bias=c["bias"])
            wv = nn.Linear(c["i"], c["o"], bias=c["bias"])
            x = torch.randn(c["b"], c["t"], c["i"])
            out, _ = attention(wq(x), wk(x), wv(x))
            name = "default/s%d_b%d_t%d_i%d_o%d%s" % (c["seed"], c["b"], c["t"], c["i"], c["o"],
                                                      "_bias" if c["bias"] else "")
            save(name + "/x", x)
            save(name + "/out", out)
