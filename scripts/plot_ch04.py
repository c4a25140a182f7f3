#!/usr/bin/env python3
"""plot_ch04.py -- chapter 4: the causal mask, the masked scores and the masked weights side by side.

    build/chapter4 --dump DIR
    python3 scripts/plot_ch04.py --dump DIR --out ch04_causal_mask.png

Reads DIR/mask.npy (1, 1, T, T): 0 on and below the diagonal, -inf above it
(torch.triu(torch.full(..., -inf), diagonal=1)); DIR/scores.npy, the scaled
scores with the mask added (..., T, T); and DIR/attn_weights.npy, the weights
after softmax (..., T, T). Draws the first (T, T) matrix of each, with the
tokens of chapter 1's sentence on the axes when T is 6.
"""

import sys

import numpy as np
from matplotlib.colors import ListedColormap

import plotlib as pl

PROG = "plot_ch04"
OPEN = "#cfe8c9"  # mask cells that are 0: the query may attend there


def first(a):
    return a.reshape((-1,) + a.shape[-2:])[0]


def main():
    args = pl.parser(PROG, __doc__.splitlines()[1], pl.SENTENCE).parse_args()
    mask = pl.load(PROG, args.dump, "mask", required=False)
    scores = first(pl.load(PROG, args.dump, "scores"))
    weights = first(pl.load(PROG, args.dump, "attn_weights"))
    T, S = weights.shape
    if mask is None:
        pl.die(PROG, "%s has no mask.npy: was chapter 4 run with --no-causal?" % args.dump)
    mask = first(mask)
    if mask.shape != (T, S) or scores.shape != (T, S):
        pl.die(PROG, "mask %s, scores %s and attn_weights %s should all end in the same (T, T)"
               % (pl.shape_str(mask), pl.shape_str(scores), pl.shape_str(weights)))
    rows = pl.labels_for(T, args.labels)
    cols = pl.labels_for(S, args.labels)
    future = ~np.isfinite(mask)

    fig, axes = pl.plt.subplots(1, 3, figsize=(16.0, 6.4), constrained_layout=True,
                                gridspec_kw=dict(width_ratios=[1, 1.12, 1.12]))
    a0, a1, a2 = axes
    pl.heatmap(a0, np.where(future, -np.inf, 0.0), rows, cols,
               "mask = triu(full(-inf), diagonal=1)\n0 = may attend, -inf = the future",
               vmin=0.0, vmax=1.0, cmap=ListedColormap([OPEN]), fmt="%.0f")
    a0.legend(handles=[pl.Patch(facecolor=OPEN, edgecolor="#9a9a9a", label="0: score kept"),
                       pl.Patch(facecolor=pl.MASK_FACE, edgecolor="#9a9a9a", hatch=pl.MASK_HATCH,
                                label="-inf: key is in the future")],
              loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=1, frameon=False, fontsize=9)

    finite = scores[np.isfinite(scores)]
    lim = float(np.max(np.abs(finite))) if finite.size else 1.0
    im1 = pl.heatmap(a1, scores, rows, cols, "scores + mask  (before softmax)\nthe future's scores become -inf",
                     vmin=-lim if finite.min() < 0 else 0.0, vmax=lim, cmap="Blues")
    pl.colorbar(fig, im1, a1, "scaled score Q·Kᵀ/√d_k")

    im2 = pl.heatmap(a2, weights, rows, cols, "weights = softmax(scores + mask)\nexp(-inf) = 0: no weight on the future",
                     vmin=0.0, vmax=1.0, hatch=future & (weights == 0.0), fmt="%.2f")
    pl.colorbar(fig, im2, a2, "attention weight (rows sum to 1)")
    a2.legend(handles=[pl.Patch(facecolor=pl.MASK_FACE, edgecolor="#9a9a9a", hatch=pl.MASK_HATCH,
                                label="masked: weight exactly 0")],
              loc="upper center", bbox_to_anchor=(0.5, -0.22), frameon=False, fontsize=9)
    fig.suptitle("Chapter 4 · causal mask: each token attends only to itself and the tokens before it (T = %d)" % T)
    pl.save(fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
