"""Golden fixtures for chapter 2, scaled dot-product attention: tests/fixtures/ch02/.

Happy-LLM 2.1.3's attention function, exactly as the book has it, is
golden/_reference.py's attention() (dropout comes in chapter 6). Each case <case>_ saves
    <case>_q, <case>_k, <case>_v          the inputs (torch.randn)
    <case>_scores                          matmul(q, kᵀ) / √d_k, before softmax
    <case>_p_attn                          scores.softmax(dim=-1)
    <case>_output                          matmul(p_attn, v)
with T = 1, d_k = 1, T != S, several and broadcast batch dims among them.
Also: the chapter-1 sentence (q = k = v = inputs), the entropy of softmax
rows (torch.special.entr) and Monte-Carlo statistics of the d_k experiment.
New fixtures go at the end of make(), so existing ones keep their values.
"""

import math

import torch

from golden._reference import attention, scaled_scores

NAME = "ch02"
SEED = 20240602


def save_case(save, case, q, k, v):
    scores = scaled_scores(q, k)
    output, p_attn = attention(q, k, v)
    save(case + "_q", q)
    save(case + "_k", k)
    save(case + "_v", v)
    save(case + "_scores", scores)
    save(case + "_p_attn", p_attn)
    save(case + "_output", output)


# (name, q shape, k shape, v shape, factor on q): T != S, batch dims, T = 1, d_k = 1
CASES = [
    ("basic", (5, 4), (5, 4), (5, 4), 1.0),
    ("rect", (3, 8), (7, 8), (7, 5), 1.0),                        # T=3 != S=7, d_v=5
    ("batch", (2, 3, 4, 6), (2, 3, 5, 6), (2, 3, 5, 2), 1.0),     # two batch dims, T != S
    ("bcast", (2, 1, 4, 6), (3, 5, 6), (3, 5, 3), 1.0),           # batch dims broadcast
    ("t1", (2, 1, 7), (2, 6, 7), (2, 6, 4), 1.0),                 # T = 1
    ("dk1", (4, 1), (4, 1), (4, 3), 1.0),                         # d_k = 1: √1 = 1
    ("s1", (3, 5), (1, 5), (1, 2), 1.0),                          # S = 1: every weight is 1
    ("wide", (4, 256), (4, 256), (4, 3), 1.0),                    # d_k = 256
    ("large", (2, 6, 64), (2, 6, 64), (2, 6, 4), 8.0),            # big scores: stable softmax
]

# The chapter-1 sentence (Raschka, ch. 3): 6 tokens, 3 dims each.
SENTENCE = [[0.43, 0.15, 0.89],   # Your
            [0.55, 0.87, 0.66],   # journey
            [0.57, 0.85, 0.64],   # starts
            [0.22, 0.58, 0.33],   # with
            [0.77, 0.25, 0.10],   # one
            [0.05, 0.80, 0.55]]   # step


def entr_sum(p):
    """-(p log p).sum(-1) with 0 log 0 = 0."""
    return torch.special.entr(p).sum(dim=-1)


def scaling_stats(d_k, seq_len, rows, chunk):
    """Mean and std of the largest softmax weight and of the row entropy, for
    rows of seq_len scores q·k_j (q, k_j standard normal of width d_k),
    unscaled and divided by √d_k. Float64 so the reference is exact enough."""
    vals = {"max_u": [], "max_s": [], "ent_u": [], "ent_s": []}
    done = 0
    while done < rows:
        n = min(chunk, rows - done)
        q = torch.randn(n, 1, d_k, dtype=torch.float64)
        k = torch.randn(n, seq_len, d_k, dtype=torch.float64)
        s = torch.matmul(q, k.transpose(-2, -1))            # (n, 1, seq_len)
        pu = s.softmax(dim=-1)
        ps = (s / math.sqrt(d_k)).softmax(dim=-1)
        vals["max_u"].append(pu.max(dim=-1).values.flatten())
        vals["max_s"].append(ps.max(dim=-1).values.flatten())
        vals["ent_u"].append(entr_sum(pu).flatten())
        vals["ent_s"].append(entr_sum(ps).flatten())
        done += n
    out = []
    for key in ("max_u", "max_s", "ent_u", "ent_s"):
        x = torch.cat(vals[key])
        out += [x.mean().item(), x.std().item()]
    return torch.tensor(out + [float(rows)])


def make(out_dir, save):
    torch.manual_seed(SEED)

    for case, qs, ks, vs, factor in CASES:
        q = torch.randn(*qs) * factor
        k = torch.randn(*ks)
        v = torch.randn(*vs)
        save_case(save, case, q, k, v)

    # the chapter-1 sentence: q = k = v = inputs, scaled this time
    x = torch.tensor(SENTENCE)
    save_case(save, "sentence", x, x, x)
    # chapter 1's unscaled weights, for the comparison the program prints
    save("sentence_p_attn_unscaled", torch.matmul(x, x.T).softmax(dim=-1))

    # entropy of softmax rows, including exact zeros (masked positions)
    s = torch.randn(3, 4, 6) * 3
    s[0, 1, 2:] = float("-inf")
    s[2, 3, :5] = float("-inf")                     # one-hot row: entropy 0
    p = s.softmax(dim=-1)
    save("entropy_p", p)
    save("entropy_out", entr_sum(p))                # (3, 4)
    save("entropy_uniform_out", entr_sum(torch.full((2, 5), 0.2)))   # log 5

    # Monte-Carlo statistics of the experiment (seq_len 6), for measure_scaling:
    # [mean, std] of max weight unscaled, scaled, entropy unscaled, scaled; rows
    for d_k in (4, 64):
        save("stats_dk%d" % d_k, scaling_stats(d_k, 6, 200000, 20000))

    # for the program's error test: batch (4,) does not broadcast with (2, 3)
    save("bad_k_batch", torch.randn(4, 5, 6))
