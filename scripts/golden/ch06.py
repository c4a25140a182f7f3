"""Golden fixtures for chapter 6 (dropout on the attention weights): tests/fixtures/ch06/.

The cases below are those where nn.Dropout is deterministic (eval, p = 0,
p = 1). The default runs (default/<case>/) are random and still exact:
torch.manual_seed(seed), W_query, W_key, W_value, x = torch.randn(...),
then nn.Dropout(p) in training mode draws its mask from the same generator,
which build/chapter6 reproduces (a PyTorch without MKL; see the chapter's
README).

One folder per case (named as in ch05.py, with input.npy and weights/):

    output_eval.npy      model.eval() with nn.Dropout(0.1): the identity, so
                         equal to chapter 5's output
    output_p0.npy        training mode, nn.Dropout(0.0): the identity too
    output_p1.npy        training mode, nn.Dropout(1.0): every weight is 0,
                         so the output is all zeros
    attn_weights.npy     after softmax, before dropout, (B, H, T, T)
"""

import torch
import torch.nn as nn

from golden.ch05 import case_name, default_cases, default_forward, default_name, forward, make_case, save_case

NAME = "ch06"
SEED = 6006

# (B, T, d_in, d_out, heads, causal, bias)
CASES = [
    (1, 4, 6, 4, 2, True, False),     # the chapter's default demo size
    (2, 5, 10, 8, 2, False, True),    # the 手撕 script's sizes, not causal, biases
    (1, 1, 3, 4, 4, True, True),      # T = 1, head_dim = 1
]


def make(out_dir, save):
    torch.manual_seed(SEED)
    with torch.no_grad():
        for c in CASES:
            name = case_name(c)
            x, wq, wk, wv = make_case(c)
            save_case(save, name, x, wq, wk, wv)
            h, causal = c[4], c[5]

            drop = nn.Dropout(0.1)
            drop.eval()                                   # model.eval()
            r = forward(x, wq, wk, wv, h, causal, drop)
            save(name + "/attn_weights", r["attn_weights"])
            save(name + "/output_eval", r["output"])

            drop = nn.Dropout(0.0)                        # training mode, p = 0
            save(name + "/output_p0", forward(x, wq, wk, wv, h, causal, drop)["output"])

            drop = nn.Dropout(1.0)                        # training mode, p = 1
            save(name + "/output_p1", forward(x, wq, wk, wv, h, causal, drop)["output"])

    with torch.no_grad():
        for c in default_cases(6006, True):
            for mode in ("train", "eval"):
                drop = nn.Dropout(c["p"])
                if mode == "eval":
                    drop.eval()
                x, out = default_forward(c, drop)
                save(default_name(c, mode) + "/x", x)
                save(default_name(c, mode) + "/out", out)
