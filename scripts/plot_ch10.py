#!/usr/bin/env python3
"""plot_ch10.py -- chapter 10: the loss curve and the attention forming over training.

    build/chapter10 --train --dump DIR
    python3 scripts/plot_ch10.py --dump DIR --out ch10_training.png

Reads from DIR: loss.npy (n, 2): training step and cross-entropy loss;
attn_snapshots.npy (K, H, T, T): the attention weights of held-out sequence 0
at K steps of training; snapshot_steps.npy (K,): those steps; tokens.npy
(T,): that sequence's token ids (0 = A, 1 = B, ...). Draws the loss curve
(log scale) on top and, below, head 0's weights at every snapshot, with the
target cells (query t, key t - 2) outlined: the pattern the task needs.
"""

import sys

import numpy as np
from matplotlib.patches import Rectangle

import plotlib as pl

PROG = "plot_ch10"
LAG = 2


def main():
    p = pl.parser(PROG, __doc__.splitlines()[1])
    p.add_argument("--head", type=int, default=0, help="which head to draw (default 0)")
    args = p.parse_args()
    loss = pl.load(PROG, args.dump, "loss")
    snaps = pl.load(PROG, args.dump, "attn_snapshots")
    steps = pl.load(PROG, args.dump, "snapshot_steps")
    tokens = pl.load(PROG, args.dump, "tokens", required=False)
    if loss.ndim != 2 or loss.shape[1] != 2 or snaps.ndim != 4 or steps.shape != (snaps.shape[0],):
        pl.die(PROG, "expected loss (n, 2), attn_snapshots (K, H, T, T) and snapshot_steps (K,); got %s, %s, %s"
               % (pl.shape_str(loss), pl.shape_str(snaps), pl.shape_str(steps)))
    K, H, T, _ = snaps.shape
    if not 0 <= args.head < H:
        pl.die(PROG, "--head %d is out of range: the dump has %d heads" % (args.head, H))
    if tokens is not None and tokens.shape == (T,):
        names = ["%d:%s" % (t, chr(ord("A") + int(v))) for t, v in enumerate(tokens)]
    else:
        names = [str(t) for t in range(T)]

    fig = pl.plt.figure(figsize=(2.6 * K + 1.0, 6.6), constrained_layout=True)
    grid = fig.add_gridspec(2, K, height_ratios=[1.0, 1.25])
    ax = fig.add_subplot(grid[0, :])
    ax.plot(loss[:, 0], np.maximum(loss[:, 1], 1e-6), marker="o", ms=3, color="#1f77b4")
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel("cross-entropy loss (log scale)")
    ax.set_title("training loss: output the token two places back")
    for s in steps:
        ax.axvline(s, color="#bbbbbb", lw=0.8, zorder=0)

    im = None
    axes = []
    for k in range(K):
        a = fig.add_subplot(grid[1, k])
        axes.append(a)
        w = snaps[k, args.head]
        causal = np.triu(np.ones((T, T), dtype=bool), 1)
        im = pl.heatmap(a, w, rows=names, cols=names, title="step %d" % int(steps[k]), vmin=0.0, vmax=1.0,
                        hatch=causal, annotate=False, xlabel="key", ylabel="query" if k == 0 else None)
        for t in range(LAG, T):
            a.add_patch(Rectangle((t - LAG - 0.5, t - 0.5), 1, 1, fill=False, edgecolor="#d62728", lw=1.2,
                                  zorder=3))
    pl.colorbar(fig, im, axes, "attention weight")
    fig.suptitle("Chapter 10 · a tiny model learns to attend (head %d of %d, held-out sequence 0)\n"
                 "red boxes: query t, key t - 2, the token it must output; hatched: causal mask" % (args.head, H))
    pl.save(fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
