#!/usr/bin/env python3
"""plot_ch13.py -- chapter 13: the training curves and every head over two real lines of a poem.

    build/chapter13 --save tang.bin --quiet --dump DIR
    python3 scripts/plot_ch13.py --dump DIR --out ch13_training.png

Reads from DIR (a training run's --dump): train_loss.npy (n, 2): step and the
batch's loss; val_loss.npy (k, 2): step and the validation loss after it;
chars.npy (T,): the code points of the first two lines of the validation text;
attn_L.npy (n_heads, T, T): layer L's attention weights over those characters.
Draws the two loss curves on top (the unigram entropy as a line when --unigram
gives it) and, below, one heatmap per head, the characters as labels. The
labels need a font with Chinese characters: the first of WenQuanYi Micro Hei,
WenQuanYi Zen Hei, Noto Sans CJK SC, Noto Sans SC, AR PL UMing, SimHei found by
matplotlib (apt-get install fonts-wqy-microhei), else the code points are drawn
as U+XXXX; the script prints which.
"""

import glob
import os
import sys

import numpy as np
from matplotlib import font_manager

import plotlib as pl

PROG = "plot_ch13"
CJK_FONTS = ["WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Noto Sans CJK SC", "Noto Sans SC", "AR PL UMing CN",
             "SimHei"]


def cjk_font():
    have = {f.name for f in font_manager.fontManager.ttflist}
    for name in CJK_FONTS:
        if name in have:
            return name
    return None


def main():
    p = pl.parser(PROG, __doc__.splitlines()[1])
    p.add_argument("--unigram", type=float, default=None, help="the unigram entropy, drawn as a line")
    args = p.parse_args()
    train = pl.load(PROG, args.dump, "train_loss")
    val = pl.load(PROG, args.dump, "val_loss")
    chars = pl.load(PROG, args.dump, "chars")
    layers = sorted(glob.glob(os.path.join(args.dump, "attn_*.npy")),
                    key=lambda f: int(os.path.basename(f)[5:-4]))
    if not layers:
        pl.die(PROG, "no attn_L.npy in %s (the --dump of a training run writes them)" % args.dump)
    attn = [pl.load(PROG, args.dump, os.path.basename(f)[:-4]) for f in layers]
    T = chars.shape[0] if chars.ndim == 1 else -1
    if train.ndim != 2 or train.shape[1] != 2 or val.ndim != 2 or val.shape[1] != 2 or \
            any(a.ndim != 3 or a.shape[1:] != (T, T) for a in attn):
        pl.die(PROG, "expected train_loss (n, 2), val_loss (k, 2), chars (T,) and attn_L (H, T, T); got %s, %s, "
               "%s, %s" % (pl.shape_str(train), pl.shape_str(val), pl.shape_str(chars), pl.shape_str(attn[0])))
    font = cjk_font()
    if font:
        pl.plt.rcParams["font.sans-serif"] = [font] + list(pl.plt.rcParams["font.sans-serif"])
        print("%s: the characters in the font %s" % (PROG, font))
        names = ["\\n" if c == 10 else chr(int(c)) for c in chars]
    else:
        print("%s: no font with Chinese characters (apt-get install fonts-wqy-microhei): code points instead" % PROG)
        names = ["\\n" if c == 10 else "U+%04X" % int(c) for c in chars]

    H = attn[0].shape[0]
    L = len(attn)
    fig = pl.plt.figure(figsize=(3.8 * H + 1.0, 3.4 + 3.8 * L), constrained_layout=True)
    grid = fig.add_gridspec(1 + L, H, height_ratios=[1.0] + [1.15] * L)
    ax = fig.add_subplot(grid[0, :])
    ax.plot(train[:, 0], train[:, 1], color="#9ecae1", lw=0.8, label="training batch")
    ax.plot(val[:, 0], val[:, 1], marker="o", ms=4, color="#d62728", label="validation text")
    if args.unigram is not None:
        ax.axhline(args.unigram, color="#555555", ls="--", lw=1.0,
                   label="unigram entropy %.4f (a model that ignores context)" % args.unigram)
    ax.set_xlabel("training step")
    ax.set_ylabel("cross-entropy (nats per character)")
    ax.set_title("loss: final validation %.4f after %d steps" % (val[-1, 1], int(val[-1, 0])))
    ax.legend(loc="best")

    im = None
    axes = []
    causal = np.triu(np.ones((T, T), dtype=bool), 1)
    for l_ in range(L):
        for h in range(H):
            a = fig.add_subplot(grid[1 + l_, h])
            axes.append(a)
            im = pl.heatmap(a, attn[l_][h], rows=names, cols=names, title="layer %d, head %d" % (l_, h), vmin=0.0,
                            vmax=1.0, hatch=causal, annotate=False, xlabel="key",
                            ylabel="query" if h == 0 else None, max_ticks=T)
            a.tick_params(labelsize=8 if T <= 16 else 7)
    pl.colorbar(fig, im, axes, "attention weight")
    fig.suptitle("Chapter 13 · a tiny LLaMA2 trained on Tang poems: its losses, and every head over two lines "
                 "it never trained on\nrows: queries, columns: keys; hatched: causal mask")
    pl.save(fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
