"""Golden fixtures for chapter 1, dot-product attention (unscaled): tests/fixtures/ch01/.

The attention here is Happy-LLM's attention() of 2.1.3 *without* the
division by sqrt(d_k) (chapter 2 adds it):

    scores  = torch.matmul(query, key.transpose(-2, -1))   # (..., T, S)
    weights = scores.softmax(dim=-1)                        # p_attn
    output  = torch.matmul(weights, value)                  # (..., T, d_v)

Files, each group named <case>_<role>:
* sentence_*  the 6-token, 3-dim sentence "Your journey starts with one step"
              with query = key = value = inputs: inputs, scores, weights, output.
* sentence10_* the same sentence with every input multiplied by 10, so that the
              scores are 100 times larger (up to ~150): the row softmax must
              subtract the row max to stay finite (scores, weights).
* random cases <case>_{q,k,v,scores,weights,output} from torch.randn:
    t1_dk1   T = 1, d_k = 1             q (1, 1)        k (4, 1)        v (4, 2)
    batch23  two batch dims, T != S     q (2, 3, 4, 5)  k (2, 3, 6, 5)  v (2, 3, 6, 3)
    bcast    key/value broadcast        q (2, 3, 4, 5)  k (3, 6, 5)     v (2, 1, 6, 3)
    cross    no batch dims, T != S      q (5, 4)        k (7, 4)        v (7, 2)
    one_key  S = 1 (every weight is 1)  q (3, 2)        k (1, 2)        v (1, 4)
* softmax_small_{x,out}, softmax_large_{x,out}: torch.softmax(x, dim=-1) of
  randn(3, 5) and of randn(4, 6) * 100 (large scores).
* Inputs for the error paths of the program test (no PyTorch result):
    bad_k_batch  randn(4, 6, 5): batch (4,) does not broadcast with (2, 3)
    long_q       zeros(1, 1000, 1): with itself as key, the scores are
                 (1, 1000, 1000), 4 MB -- over a 1 MB ATTN_MAX_BYTES limit.
    bad_q_1d     randn(5): a query needs at least 2 dims (T, d_k).
New fixtures go at the end of make(), so existing ones keep their values.
"""

import torch

NAME = "ch01"
SEED = 20240101

SENTENCE = [
    [0.43, 0.15, 0.89],  # Your     (x^1)
    [0.55, 0.87, 0.66],  # journey  (x^2)
    [0.57, 0.85, 0.64],  # starts   (x^3)
    [0.22, 0.58, 0.33],  # with     (x^4)
    [0.77, 0.25, 0.10],  # one      (x^5)
    [0.05, 0.80, 0.55],  # step     (x^6)
]


def attention_unscaled(query, key, value):
    scores = torch.matmul(query, key.transpose(-2, -1))
    weights = scores.softmax(dim=-1)
    return scores, weights, torch.matmul(weights, value)


def make(out_dir, save):
    torch.manual_seed(SEED)

    # --- the sentence, query = key = value = inputs --------------------------
    inputs = torch.tensor(SENTENCE)
    scores, weights, output = attention_unscaled(inputs, inputs, inputs)
    save("sentence_inputs", inputs)      # (6, 3)
    save("sentence_scores", scores)      # (6, 6)
    save("sentence_weights", weights)    # (6, 6)
    save("sentence_output", output)      # (6, 3)

    big = inputs * 10
    scores, weights, _ = attention_unscaled(big, big, big)
    save("sentence10_scores", scores)    # (6, 6), entries up to 149.5
    save("sentence10_weights", weights)

    # --- random cases ---------------------------------------------------------
    cases = [
        ("t1_dk1", (1, 1), (4, 1), (4, 2)),
        ("batch23", (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 3)),
        ("bcast", (2, 3, 4, 5), (3, 6, 5), (2, 1, 6, 3)),
        ("cross", (5, 4), (7, 4), (7, 2)),
        ("one_key", (3, 2), (1, 2), (1, 4)),
    ]
    for name, qs, ks, vs in cases:
        q, k, v = torch.randn(*qs), torch.randn(*ks), torch.randn(*vs)
        scores, weights, output = attention_unscaled(q, k, v)
        save(name + "_q", q)
        save(name + "_k", k)
        save(name + "_v", v)
        save(name + "_scores", scores)
        save(name + "_weights", weights)
        save(name + "_output", output)

    # --- softmax, small and large scores ---------------------------------------
    x = torch.randn(3, 5)
    save("softmax_small_x", x)
    save("softmax_small_out", torch.softmax(x, dim=-1))
    x = torch.randn(4, 6) * 100
    save("softmax_large_x", x)
    save("softmax_large_out", torch.softmax(x, dim=-1))

    # --- inputs for the program's error paths ----------------------------------
    save("bad_k_batch", torch.randn(4, 6, 5))
    save("long_q", torch.zeros(1, 1000, 1))
    save("bad_q_1d", torch.randn(5))
