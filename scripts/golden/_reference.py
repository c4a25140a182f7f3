"""The PyTorch reference functions that several golden modules share.

Not a golden module (make_golden.py runs no file whose name starts with "_");
import it as golden._reference. Each function is written once here and called
by the chapters' modules:

    attention         Happy-LLM 2.1.3, as the book has it (chapters 2 and 3)
    scaled_scores     torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    causal_buffer     Happy-LLM 2.1.5's mask buffer (chapters 4 and 8)
    masked_attention  the scores plus the buffer sliced to T, softmax, @ v
    default_cases     the random shapes of the default-run fixtures (chapters 3, 5, 6)
"""

import math
import random

import torch


def attention(query, key, value, dropout=None):
    """Happy-LLM 2.1.3."""
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


def scaled_scores(q, k):
    d_k = q.size(-1)
    return torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)


def causal_buffer(max_seq_len, diagonal=1):
    mask = torch.full((1, 1, max_seq_len, max_seq_len), float("-inf"))
    return torch.triu(mask, diagonal=diagonal)


def masked_attention(q, k, v, mask=None):
    """Return (scores, weights, output); scores are after the mask, before softmax.
    Scores of fewer than 4 dims keep their own shape (the sum is viewed back)."""
    scores = scaled_scores(q, k)
    if mask is not None:
        seqlen = scores.size(-1)
        shape = scores.shape
        scores = (scores + mask[:, :, :seqlen, :seqlen]).view(shape)
    weights = torch.softmax(scores.float(), dim=-1)
    return scores, weights, torch.matmul(weights, v)


def default_cases(seed0, with_heads):
    """Random shapes for the default-run fixtures, from a fixed Python RNG."""
    rng = random.Random(seed0)
    cases = []
    for seed in (0, 1, 42, 123, 2**31 - 1):
        for _ in range(2):
            heads = rng.randint(1, 4) if with_heads else 1
            t = rng.randint(1, 9)
            cases.append(dict(seed=seed, b=rng.randint(1, 3), t=t, i=rng.randint(1, 12),
                              o=heads * rng.randint(1, 4), h=heads,
                              p=rng.choice([0.0, 0.1, 0.25, 0.5]), L=t + rng.randint(0, 5),
                              bias=rng.random() < 0.3))
    return cases
