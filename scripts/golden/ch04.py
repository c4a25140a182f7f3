"""Golden fixtures for chapter 4, the causal mask (Happy-LLM 2.1.5): tests/fixtures/ch04/.

The PyTorch being mirrored (Happy-LLM 2.1.6's MultiHeadAttention):

    mask = torch.full((1, 1, args.max_seq_len, args.max_seq_len), float("-inf"))
    mask = torch.triu(mask, diagonal=1)
    scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)
    scores = scores + self.mask[:, :, :seqlen, :seqlen]
    scores = F.softmax(scores.float(), dim=-1)
    output = torch.matmul(scores, xv)

and the second spelling (Raschka, seeds/002):

    mask_bool = torch.triu(torch.ones(seq_len, seq_len), diagonal=1).bool()[:T, :T]
    attn_scores.masked_fill_(mask_bool, -torch.inf)

Scores of fewer than 4 dims keep their own shape: the mask's leading (1, 1)
would add two size-1 dims, so the sum is viewed back to scores.shape (the C
apply_causal_mask does the same).

Files (all float32):
  mask_8                 the buffer, (1, 1, 8, 8); mask_8_slice_5 is mask[:, :, :5, :5]
  mask_bool_8            triu(ones(8, 8), diagonal=1), 0/1
  <case>_{q,k,v}         inputs; <case>_{scores,weights,output} with the mask (buffer mask_8),
                         <case>_{weights,output}_nomask without it (chapter 2's attention)
  <case>_weights_fill    the masked_fill spelling (checked equal to <case>_weights here)
  sentence_x             "Your journey starts with one step", (6, 3); q = k = v = x
  sentence_*             its scores/weights/output, causal and not
  diag0_*                the diagonal=0 mistake on the sentence: row 0 all -inf -> NaN
  prog_*, sentence_mask  inputs and expected outputs for tests/test_ch04_program.sh
"""

import torch

from golden._reference import causal_buffer, masked_attention, scaled_scores

NAME = "ch04"
SEED = 4
MAX_SEQ_LEN = 8

# Raschka's embeddings of the chapter-1 sentence, one row per token (d = 3).
SENTENCE = [
    [0.43, 0.15, 0.89],  # Your
    [0.55, 0.87, 0.66],  # journey
    [0.57, 0.85, 0.64],  # starts
    [0.22, 0.58, 0.33],  # with
    [0.77, 0.25, 0.10],  # one
    [0.05, 0.80, 0.55],  # step
]


def masked_fill_attention(q, k, v, mask_bool):
    scores = scaled_scores(q, k)
    T = scores.size(-1)
    scores = scores.masked_fill(mask_bool.bool()[:T, :T], -torch.inf)
    weights = torch.softmax(scores, dim=-1)
    return weights, torch.matmul(weights, v)


def make(out_dir, save):
    torch.manual_seed(SEED)
    randn = torch.randn

    mask = causal_buffer(MAX_SEQ_LEN)
    mask_bool = torch.triu(torch.ones(MAX_SEQ_LEN, MAX_SEQ_LEN), diagonal=1)
    save("mask_8", mask)
    save("mask_8_slice_5", mask[:, :, :5, :5])
    save("mask_bool_8", mask_bool)

    # --- masked attention on random shapes (all with the (1, 1, 8, 8) buffer) ---
    cases = [
        # name       q shape          k shape          v shape
        ("plain2d", (5, 4),          (5, 4),          (5, 3)),
        ("t1",      (2, 1, 3),       (2, 1, 3),       (2, 1, 2)),      # T = 1
        ("dk1",     (3, 6, 1),       (3, 6, 1),       (3, 6, 2)),      # d_k = 1
        ("heads",   (2, 3, 4, 5),    (2, 3, 4, 5),    (2, 3, 4, 2)),   # (bsz, n_heads, T, head_dim)
        ("bcast",   (2, 1, 5, 4),    (1, 3, 5, 4),    (5, 2)),         # batch dims broadcast
        ("full8",   (1, 8, 3),       (1, 8, 3),       (1, 8, 3)),      # T = max_seq_len
    ]
    for name, qs, ks, vs in cases:
        q, k, v = randn(*qs), randn(*ks), randn(*vs)
        save(name + "_q", q)
        save(name + "_k", k)
        save(name + "_v", v)
        scores, weights, output = masked_attention(q, k, v, mask)
        save(name + "_scores", scores)
        save(name + "_weights", weights)
        save(name + "_output", output)
        _, weights_nm, output_nm = masked_attention(q, k, v, None)
        save(name + "_weights_nomask", weights_nm)
        save(name + "_output_nomask", output_nm)
        # the two spellings agree
        weights_fill, output_fill = masked_fill_attention(q, k, v, mask_bool)
        if not torch.allclose(weights_fill, weights, rtol=0, atol=0):
            raise RuntimeError("%s: masked_fill and the additive mask disagree" % name)
        save(name + "_weights_fill", weights_fill)
        save(name + "_output_fill", output_fill)

    # --- the chapter-1 sentence, q = k = v = x (what build/chapter4 shows) ---
    x = torch.tensor(SENTENCE)
    save("sentence_x", x)
    scores, weights, output = masked_attention(x, x, x, mask)
    save("sentence_scores_causal", scores)
    save("sentence_weights_causal", weights)
    save("sentence_output_causal", output)
    scores, weights, output = masked_attention(x, x, x, None)
    save("sentence_scores_nocausal", scores)
    save("sentence_weights_nocausal", weights)
    save("sentence_output_nocausal", output)

    # --- the diagonal=0 mistake: row 0 has no key left, softmax gives NaN ---
    mask0 = causal_buffer(MAX_SEQ_LEN, diagonal=0)
    save("diag0_mask_8", mask0)
    scores, weights, output = masked_attention(x, x, x, mask0)
    if not (torch.isnan(weights[0]).all() and not torch.isnan(weights[1:]).any()):
        raise RuntimeError("diagonal=0: expected NaN in row 0 only")
    save("diag0_scores", scores)
    save("diag0_weights", weights)

    # --- inputs and expected outputs for the program tests ---
    q, k, v = randn(2, 5, 4), randn(2, 5, 4), randn(2, 5, 3)       # causal, T == S == 5
    save("prog_q", q)
    save("prog_k", k)
    save("prog_v", v)
    mask5 = causal_buffer(5)                                        # max_seq_len = T
    scores, weights, output = masked_attention(q, k, v, mask5)
    save("prog_mask", mask5[:, :, :5, :5])
    save("prog_scores_causal", scores)
    save("prog_weights_causal", weights)
    save("prog_out_causal", output)
    _, weights, output = masked_attention(q, k, v, None)
    save("prog_weights_nocausal", weights)
    save("prog_out_nocausal", output)

    q, k, v = randn(2, 3, 4), randn(2, 7, 4), randn(2, 7, 3)       # T = 3 != S = 7
    save("prog_ns_q", q)
    save("prog_ns_k", k)
    save("prog_ns_v", v)
    _, _, output = masked_attention(q, k, v, None)
    save("prog_ns_out_nocausal", output)

    q, k, v = randn(64, 1), randn(64, 1), randn(64, 1)             # small inputs, (64, 64) scores
    save("prog_long_q", q)
    save("prog_long_k", k)
    save("prog_long_v", v)
    _, _, output = masked_attention(q, k, v, causal_buffer(64))
    save("prog_long_out_causal", output)

    # the (1, 1, 6, 6) slice the demo dumps as mask.npy
    save("sentence_mask", mask[:, :, :6, :6])
