#!/usr/bin/env python3
"""plot_ch01.py -- chapter 1: the scores Q·Kᵀ and the attention weights of the six-word sentence.

    build/chapter1 --dump DIR
    python3 scripts/plot_ch01.py --dump DIR --out ch01_weights.png

Reads DIR/scores.npy and DIR/attn_weights.npy, both (T, S); draws the scores
(before softmax) and the weights (after softmax: each row sums to 1) side by
side, with the tokens "Your journey starts with one step" on both axes.
"""

import sys

import numpy as np

import plotlib as pl

PROG = "plot_ch01"


def main():
    args = pl.parser(PROG, __doc__.splitlines()[1], pl.SENTENCE).parse_args()
    scores = pl.load(PROG, args.dump, "scores")
    weights = pl.load(PROG, args.dump, "attn_weights")
    if weights.ndim != 2 or scores.shape != weights.shape:
        pl.die(PROG, "expected scores and attn_weights of the same shape (T, S), got %s and %s"
               % (pl.shape_str(scores), pl.shape_str(weights)))
    T, S = weights.shape
    rows = pl.labels_for(T, args.labels)
    cols = pl.labels_for(S, args.labels)

    fig, (a0, a1) = pl.plt.subplots(1, 2, figsize=(11.5, 5.0), constrained_layout=True)
    lim = float(np.nanmax(np.abs(scores[np.isfinite(scores)])))
    im0 = pl.heatmap(a0, scores, rows, cols, "scores = Q·Kᵀ  (before softmax)",
                     vmin=-lim if scores.min() < 0 else 0.0, vmax=lim, cmap="Blues")
    pl.colorbar(fig, im0, a0, "score (dot product)")
    im1 = pl.heatmap(a1, weights, rows, cols, "weights = softmax(scores, dim=-1)  (rows sum to 1)",
                     vmin=0.0, vmax=float(weights.max()))
    pl.colorbar(fig, im1, a1, "attention weight")
    # The row the chapter narrates: "journey" (row 1) as a query.
    if T > 1 and rows[1] == "journey":
        for ax in (a0, a1):
            ax.add_patch(pl.Rectangle((-0.5, 0.5), S, 1, fill=False, edgecolor="#d62728",
                                      linewidth=2.0, zorder=3))
        fig.supxlabel("red box: the query \"journey\", whose scores, weights and context vector "
                      "the chapter narrates", fontsize=9, color="#d62728")
    fig.suptitle("Chapter 1 · dot-product attention on \"%s\" (Q = K = V)" % " ".join(rows)
                 if rows == pl.SENTENCE else "Chapter 1 · dot-product attention, %d queries x %d keys" % (T, S))
    pl.save(fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
