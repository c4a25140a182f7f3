#!/usr/bin/env python3
"""plot_ch03.py -- chapter 3: attention(x, x, x) vs attention(xW_q, xW_k, xW_v).

    build/chapter3 --dump DIR
    python3 scripts/plot_ch03.py --dump DIR --out ch03_self_attention.png

Reads DIR/plain_scores.npy, DIR/plain_attn_weights.npy (Q = K = V = x) and
DIR/scores.npy, DIR/attn_weights.npy (after the learned projections), each
(B, T, T), and draws batch 0: the scores of x·xᵀ are symmetric, those of
xq·xkᵀ are not; below them the weights.
"""

import sys

import numpy as np

import plotlib as pl

PROG = "plot_ch03"


def main():
    p = pl.parser(PROG, __doc__.splitlines()[1])
    p.add_argument("--batch", type=int, default=0, help="which batch element to draw (default 0)")
    args = p.parse_args()
    names = ["plain_scores", "plain_attn_weights", "scores", "attn_weights"]
    arrs = {n: pl.load(PROG, args.dump, n) for n in names}
    for n in names:
        a = arrs[n]
        if a.ndim < 2 or a.shape != arrs["attn_weights"].shape:
            pl.die(PROG, "%s.npy has shape %s, expected %s like attn_weights.npy"
                   % (n, pl.shape_str(a), pl.shape_str(arrs["attn_weights"])))
        flat = a.reshape((-1,) + a.shape[-2:])
        if not 0 <= args.batch < flat.shape[0]:
            pl.die(PROG, "--batch %d is out of range: the dump has %d" % (args.batch, flat.shape[0]))
        arrs[n] = flat[args.batch]
    T = arrs["scores"].shape[0]

    fig, axes = pl.plt.subplots(2, 2, figsize=(10.5, 9.2), constrained_layout=True)
    for col, (pre, what) in enumerate([("plain_", "attention(x, x, x): Q = K = V = x"),
                                       ("", "attention(xW_qᵀ, xW_kᵀ, xW_vᵀ): learned projections")]):
        s = arrs[pre + "scores"]
        w = arrs[pre + "attn_weights"]
        asym = float(np.max(np.abs(s - s.T)))
        lim = float(np.max(np.abs(s)))
        im = pl.heatmap(axes[0, col], s, title="%s\nscores, max |s - sᵀ| = %.3g (%s)"
                        % (what, asym, "symmetric" if asym == 0 else "not symmetric"),
                        vmin=-lim, vmax=lim, cmap=pl.SCORE_CMAP)
        pl.colorbar(fig, im, axes[0, col], "score")
        im = pl.heatmap(axes[1, col], w, title="weights = softmax(scores)", vmin=0.0, vmax=float(w.max()))
        pl.colorbar(fig, im, axes[1, col], "attention weight")
        # mark each row's largest score: on the diagonal means "attends most to itself"
        for i in range(T):
            j = int(np.argmax(s[i]))
            axes[0, col].add_patch(pl.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                                edgecolor="black", linewidth=1.8, zorder=3))
    fig.supxlabel("black box: the largest score of each row (on the diagonal = the token scores itself highest)",
                  fontsize=9)
    fig.suptitle("Chapter 3 · are Q, K and V the same? Same x, different learned views (batch %d, T = %d)"
                 % (args.batch, T))
    pl.save(fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
