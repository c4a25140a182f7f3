"""Golden fixtures for common/rng.c: tests/fixtures/rng/.

What PyTorch's CPU generator draws right after torch.manual_seed(seed), for
the seeds 0, 1, 123, 2**31-1 and 2**32+5 (the last one checks that only the
low 32 bits of a seed count). Per seed <s> (files are <kind>_<s>.npy):

  randn_<s>     for n in RANDN_SIZES: manual_seed(s); torch.randn(n),
                concatenated (n < 16 is the scalar Box-Muller path, n >= 16
                the 16-wide fill with its recomputed tail)
  rand_<s>      for n in RAND_SIZES: manual_seed(s); torch.rand(n)
  seq_<s>       one stream: manual_seed(s); randn(3), randn(5), rand(7),
                randn(20), randn(1), randn(2) concatenated (the cached second
                Box-Muller value carries over from one call to the next)
  randint_<s>   manual_seed(s); randint(0, 10, (9,)), randint(-50, 50, (7,)),
                randint(0, 2**33 + 7, (4,)) split as (v >> 20, v & 0xFFFFF)
  linear_<s>    manual_seed(s); then nn.Linear(i, o, bias) for LINEAR_SHAPES,
                every weight then bias, flattened and concatenated
  randn_big_<s> manual_seed(s); torch.randn(4000), for s = 0 and 2**31-1
  dropout_<s>   manual_seed(s); F.dropout(ones(n), p, training=True) for
                (n, p) in DROPOUT_CASES, concatenated; then torch.randn(5)
                (dropout with p = 1 and p = 0 draws nothing)
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "rng"
SEED = 0
SEEDS = [0, 1, 123, 2**31 - 1, 2**32 + 5]
RANDN_SIZES = list(range(1, 41)) + [47, 48, 49, 63, 64, 65, 79, 80, 81, 95, 96, 97, 100]
RAND_SIZES = [1, 2, 3, 15, 16, 17, 31, 32, 33, 100]
LINEAR_SHAPES = [(10, 10, True), (3, 7, True), (1, 5, True), (64, 6, False),
                 (100, 3, True), (7, 33, True), (12, 4, False)]
DROPOUT_CASES = [(10, 0.1), (37, 0.5), (64, 0.25), (5, 0.9), (9, 1.0), (4, 0.0), (50, 0.1)]


def make(out_dir, save):
    torch.manual_seed(SEED)
    for s in SEEDS:
        parts = []
        for n in RANDN_SIZES:
            torch.manual_seed(s)
            parts.append(torch.randn(n))
        save("randn_%d" % s, torch.cat(parts))

        parts = []
        for n in RAND_SIZES:
            torch.manual_seed(s)
            parts.append(torch.rand(n))
        save("rand_%d" % s, torch.cat(parts))

        torch.manual_seed(s)
        parts = [torch.randn(3), torch.randn(5), torch.rand(7), torch.randn(20),
                 torch.randn(1), torch.randn(2)]
        save("seq_%d" % s, torch.cat(parts))

        torch.manual_seed(s)
        a = torch.randint(0, 10, (9,))
        b = torch.randint(-50, 50, (7,))
        c = torch.randint(0, 2**33 + 7, (4,))
        save("randint_%d" % s, torch.cat([a, b, c >> 20, c & 0xFFFFF]).to(torch.float32))

        torch.manual_seed(s)
        parts = []
        for (i, o, bias) in LINEAR_SHAPES:
            layer = nn.Linear(i, o, bias=bias)
            parts.append(layer.weight.detach().reshape(-1))
            if bias:
                parts.append(layer.bias.detach().reshape(-1))
        save("linear_%d" % s, torch.cat(parts))

        torch.manual_seed(s)
        parts = []
        for (n, p) in DROPOUT_CASES:
            parts.append(F.dropout(torch.ones(n), p, training=True))
        parts.append(torch.randn(5))
        save("dropout_%d" % s, torch.cat(parts))

    # randn_big_<s>: manual_seed(s); torch.randn(4000), 250 blocks of the 16-wide path
    for s in (0, 2**31 - 1):
        torch.manual_seed(s)
        save("randn_big_%d" % s, torch.randn(4000))
