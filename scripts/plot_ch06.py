#!/usr/bin/env python3
"""plot_ch06.py -- chapter 6: the attention weights before and after dropout.

    build/chapter6 --dump DIR
    python3 scripts/plot_ch06.py --dump DIR --out ch06_dropout.png

Reads DIR/attn_weights.npy (after softmax, before dropout) and
DIR/attn_dropped.npy (after attn_dropout), both (B, H, T, T). Draws, for each
head of one batch element, the weights before (top row) and after (bottom
row) dropout on one colour scale. Dropped weights (non-zero before, 0 after)
are crossed out; the kept ones grew by 1/(1 - p). p is not in the dump: it
is read off the data, as 1 - before/after of the kept weights.
"""

import sys

import numpy as np

import plotlib as pl

PROG = "plot_ch06"
MAX_HEADS = 4


def main():
    p = pl.parser(PROG, __doc__.splitlines()[1])
    p.add_argument("--batch", type=int, default=0, help="which batch element to draw (default 0)")
    args = p.parse_args()
    w = pl.load(PROG, args.dump, "attn_weights")
    d = pl.load(PROG, args.dump, "attn_dropped")
    if w.ndim != 4 or d.shape != w.shape:
        pl.die(PROG, "attn_weights and attn_dropped should both be (B, H, T, T); got %s and %s"
               % (pl.shape_str(w), pl.shape_str(d)))
    B, H, T, S = w.shape
    if not 0 <= args.batch < B:
        pl.die(PROG, "--batch %d is out of range: the dump has batch %d" % (args.batch, B))
    w, d = w[args.batch], d[args.batch]
    nh = min(H, MAX_HEADS)

    live = w > 0.0                      # not masked by the causal mask
    dropped = live & (d == 0.0)
    kept = live & (d != 0.0)
    if kept.any():
        scale = float(np.median(d[kept] / w[kept]))
        p_est = 1.0 - 1.0 / scale
        p_text = "p = %.2f (kept weights x %.3f = 1/(1-p))" % (p_est, scale)
    else:
        p_text = "every weight dropped"
    if not dropped.any() and kept.any() and abs(scale - 1.0) < 1e-6:
        p_text = "no dropout: eval mode or p = 0, after = before"
    n_live = int(live.sum())

    cell = 2.7 if T <= 8 else 3.3
    fig, axes = pl.plt.subplots(2, nh, figsize=(cell * nh + 1.4, 2 * cell + 1.4),
                                constrained_layout=True, squeeze=False)
    vmax = float(max(d.max(), w.max()))
    im = None
    for h in range(nh):
        im = pl.heatmap(axes[0, h], w[h], title="head %d: before dropout\nrow sums = 1" % h,
                        vmin=0.0, vmax=vmax, hatch=~live[h], xlabel=None,
                        ylabel="query" if h == 0 else None)
        sums = d[h].sum(axis=-1)
        im = pl.heatmap(axes[1, h], d[h], title="head %d: after dropout\nrow sums %.2f .. %.2f"
                        % (h, sums.min(), sums.max()),
                        vmin=0.0, vmax=vmax, hatch=~live[h], blank=dropped[h], xlabel="key",
                        ylabel="query" if h == 0 else None)
        for i, j in zip(*np.nonzero(dropped[h])):
            axes[1, h].plot([j - 0.3, j + 0.3], [i - 0.3, i + 0.3], color="#d62728", lw=1.5, zorder=4)
            axes[1, h].plot([j - 0.3, j + 0.3], [i + 0.3, i - 0.3], color="#d62728", lw=1.5, zorder=4)
    pl.colorbar(fig, im, axes, "attention weight")
    more = "" if nh == H else "; heads %d..%d not shown" % (nh, H - 1)
    fig.supxlabel("red cross: dropped (set to 0), %d of %d weights; hatched: causal mask%s"
                  % (int(dropped.sum()), n_live, more), fontsize=9)
    fig.suptitle("Chapter 6 · dropout on the attention weights (training mode)\n%s, batch %d"
                 % (p_text, args.batch))
    pl.save(fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
