#!/usr/bin/env python3
"""plot_ch05.py -- chapter 5: one attention heatmap per head.

    build/chapter5 --dump DIR
    python3 scripts/plot_ch05.py --dump DIR --out ch05_heads.png

Reads DIR/attn_weights.npy, shape (B, H, T, T) (batch, head, query, key), and
DIR/xq.npy (B, H, T, head_dim) for head_dim; draws the H heads of one batch
element side by side on one colour scale, so the heads can be compared: each
head looks at the same tokens through its own slice of W_q and W_k.
"""

import sys

import numpy as np

import plotlib as pl

PROG = "plot_ch05"
MAX_COLS = 4


def head_grid(fig_title, w):
    """A figure with one panel per head of w (H, T, S), on one colour scale."""
    H, T, S = w.shape
    ncol = min(H, MAX_COLS)
    nrow = (H + ncol - 1) // ncol
    cell = 2.6 if T <= 8 else 3.2
    fig, axes = pl.plt.subplots(nrow, ncol, figsize=(cell * ncol + 1.2, cell * nrow + 0.9),
                                constrained_layout=True, squeeze=False)
    im = None
    for h in range(H):
        ax = axes[h // ncol, h % ncol]
        im = pl.heatmap(ax, w[h], title="head %d" % h, vmin=0.0, vmax=float(np.nanmax(w)),
                        hatch=w[h] == 0.0, xlabel="key" if h // ncol == nrow - 1 else None,
                        ylabel="query" if h % ncol == 0 else None)
    for h in range(H, nrow * ncol):
        axes[h // ncol, h % ncol].axis("off")
    pl.colorbar(fig, im, axes, "attention weight")
    if np.any(w == 0.0):
        fig.supxlabel("hatched: masked by the causal mask (weight exactly 0)", fontsize=9)
    fig.suptitle(fig_title)
    return fig


def main():
    p = pl.parser(PROG, __doc__.splitlines()[1])
    p.add_argument("--batch", type=int, default=0, help="which batch element to draw (default 0)")
    args = p.parse_args()
    w = pl.load(PROG, args.dump, "attn_weights")
    if w.ndim != 4:
        pl.die(PROG, "attn_weights.npy should be (B, H, T, T), got %s" % pl.shape_str(w))
    B, H, T, S = w.shape
    if not 0 <= args.batch < B:
        pl.die(PROG, "--batch %d is out of range: the dump has batch %d" % (args.batch, B))
    xq = pl.load(PROG, args.dump, "xq", required=False)
    hd = ", head_dim %d" % xq.shape[-1] if xq is not None and xq.ndim == 4 else ""
    causal = bool(np.all(np.triu(w[args.batch], 1) == 0.0)) and T > 1
    title = ("Chapter 5 · multi-head attention: one %d x %d weight matrix per head\n"
             "(%d heads%s, %s, batch %d of %d)" % (T, S, H, hd, "causal" if causal else "no mask", args.batch, B))
    fig = head_grid(title, w[args.batch])
    pl.save(fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
