#!/usr/bin/env python3
"""plot_ch07.py -- chapter 7: the shapes flowing through MultiHeadAttention, and its per-head weights.

    build/chapter7 --dump DIR
    python3 scripts/plot_ch07.py --dump DIR --out ch07_mha.png [--d-in 10]

Reads from DIR: xq.npy (B, H, T, head_dim), scores.npy, attn_weights.npy,
attn_dropped.npy (B, H, T, T), merged.npy, projected.npy and output.npy
(B, T, d_out). Every shape in the diagram is the shape of the array in the
dump (or computed from them, marked so). The input x (B, T, d_in) is read
from DIR/x.npy when the dump has it; otherwise d_in comes from --d-in (make
plots passes the value it ran the chapter with). On the right: the weights
of every head for batch 0, after softmax and before dropout.
"""

import sys

import numpy as np
from matplotlib.patches import FancyBboxPatch

import plotlib as pl

PROG = "plot_ch07"
TOKEN = "#fde7c8"     # (B, T, .) tensors: one row per token
HEADS = "#d6e6f7"     # (B, H, T, .) tensors: split into heads
MAX_HEADS = 4


def shp(dims):
    return "(" + ", ".join(str(d) for d in dims) + ")"


def main():
    p = pl.parser(PROG, __doc__.splitlines()[1])
    p.add_argument("--d-in", type=int, default=None, help="width of the input x, when the dump has no x.npy")
    args = p.parse_args()
    L = {n: pl.load(PROG, args.dump, n) for n in
         ["xq", "scores", "attn_weights", "attn_dropped", "merged", "projected", "output"]}
    x = pl.load(PROG, args.dump, "x", required=False)
    if x is None:
        x = pl.load(PROG, args.dump, "input", required=False)
    if L["xq"].ndim != 4 or L["attn_weights"].ndim != 4 or L["merged"].ndim != 3:
        pl.die(PROG, "expected xq (B, H, T, head_dim), attn_weights (B, H, T, T) and merged (B, T, d_out); "
               "got %s, %s, %s" % (pl.shape_str(L["xq"]), pl.shape_str(L["attn_weights"]),
                                   pl.shape_str(L["merged"])))
    B, H, T, hd = L["xq"].shape
    d_out = L["merged"].shape[-1]
    if x is not None:
        d_in = x.shape[-1]
        x_note = "dumped"
    elif args.d_in:
        d_in = args.d_in
        x_note = "d_in given to the plot"
    else:
        d_in = "d_in"
        x_note = "not in the dump"
    w = L["attn_weights"]
    dropped = L["attn_dropped"]
    training = not np.array_equal(w, dropped)
    causal = T > 1 and bool(np.all(np.triu(w, 1) == 0.0))

    # (label, shape, colour, dumped-as or None, the step that leads to the next box)
    boxes = [
        ("x  (the input)", (B, T, d_in), TOKEN, None if x is None else "x.npy",
         "xq = self.wq(x), xk = self.wk(x),\nxv = self.wv(x); nn.Linear:\n%s -> d_out %d"
         % ("d_in" if d_in == "d_in" else "d_in %s" % d_in, d_out)),
        ("xq, xk, xv", (B, T, H * hd), TOKEN, None,
         ".view(B, T, n_heads, head_dim)\n.transpose(1, 2)\nd_out %d = %d heads x %d" % (d_out, H, hd)),
        ("xq, xk, xv  (split into heads)", L["xq"].shape, HEADS, "xq.npy xk.npy xv.npy",
         "xq @ xk.transpose(2, 3)\n/ sqrt(head_dim)" + (" + mask" if causal else "")),
        ("scores", L["scores"].shape, HEADS, "scores.npy", "F.softmax(scores, dim=-1)"),
        ("attn_weights", w.shape, HEADS, "attn_weights.npy",
         "self.attn_dropout(scores)" + ("" if training else "  (eval: identity)")),
        ("attn_dropped", dropped.shape, HEADS, "attn_dropped.npy", "torch.matmul(scores, xv)"),
        ("output per head", (B, H, T, hd), HEADS, None,
         ".transpose(1, 2).contiguous()\n.view(B, T, -1): merge heads"),
        ("merged", L["merged"].shape, TOKEN, "merged.npy", "self.wo(output)\nnn.Linear: d_out -> d_out"),
        ("projected", L["projected"].shape, TOKEN, "projected.npy",
         "self.resid_dropout(output)" + ("" if training else "  (eval: identity)")),
        ("output", L["output"].shape, TOKEN, "output.npy", None),
    ]

    nh = min(H, MAX_HEADS)
    hcols = 1 if nh <= 2 else 2
    hrows = -(-nh // hcols)
    fig = pl.plt.figure(figsize=(14.0, 7.7), constrained_layout=True)
    gs = fig.add_gridspec(1, 2, width_ratios=[2.35, 1.0])
    gs_heads = gs[0, 1].subgridspec(hrows, hcols)
    ax = fig.add_subplot(gs[0, 0])
    ax.set_xlim(0, 2)
    ax.set_ylim(0, 5)
    ax.axis("off")
    ax.set_title("the shapes of this run, step by step  (B = %d, T = %d, d_in = %s, d_out = %d, H = %d, head_dim = %d)"
                 % (B, T, d_in, d_out, H, hd), fontsize=10)

    # A U: down the left column from x to attn_weights, across, up the right column to output.
    half = (len(boxes) + 1) // 2
    bw, bh = 0.74, 0.52
    centres = []
    for k in range(len(boxes)):
        col, row = divmod(k, half)
        if col:
            row = half - 1 - row
        centres.append((0.42 + col * 1.08, 4.55 - row * 1.0))
    for k, (label, shape, colour, dumped, step) in enumerate(boxes):
        cx, cy = centres[k]
        ax.add_patch(FancyBboxPatch((cx - bw / 2, cy - bh / 2), bw, bh, boxstyle="round,pad=0.02",
                                    facecolor=colour, edgecolor="#444444" if dumped else "#888888",
                                    linestyle="-" if dumped else "--", linewidth=1.3))
        ax.text(cx, cy + 0.11, label, ha="center", va="center", fontsize=10, fontweight="bold")
        ax.text(cx, cy - 0.06, shp(shape), ha="center", va="center", fontsize=11, family="monospace")
        ax.text(cx, cy - 0.19, dumped if dumped else ("computed from the dump" if k else x_note),
                ha="center", va="center", fontsize=7.5, color="#555555", style="italic")
        if step is None:
            continue
        nx, ny = centres[k + 1]
        if nx == cx:  # along a column, the step written beside the arrow
            down = ny < cy
            ax.annotate("", xy=(cx, ny + (bh / 2 + 0.02) * (1 if down else -1)),
                        xytext=(cx, cy - (bh / 2 + 0.02) * (1 if down else -1)),
                        arrowprops=dict(arrowstyle="-|>", color="#333333", lw=1.2))
            ax.text(cx + 0.03, (cy + ny) / 2, step, ha="left", va="center", fontsize=7.8,
                    family="monospace", color="#1f3f7a")
        else:         # across the bottom, from the left column to the right one
            ax.annotate("", xy=(nx - bw / 2 - 0.02, ny), xytext=(cx + bw / 2 + 0.02, cy),
                        arrowprops=dict(arrowstyle="-|>", color="#333333", lw=1.2))
            ax.text((cx + nx) / 2, cy + 0.1, step.replace("(scores)", "(\nscores)"), ha="center",
                    va="bottom", fontsize=7.8, family="monospace", color="#1f3f7a")
    ax.legend(handles=[pl.Patch(facecolor=TOKEN, edgecolor="#444444", label="(B, T, ...): one row per token"),
                       pl.Patch(facecolor=HEADS, edgecolor="#444444", label="(B, H, T, ...): split into heads"),
                       pl.Patch(facecolor="white", edgecolor="#888888", linestyle="--",
                                label="dashed: not in the dump, shape computed")],
              loc="lower center", bbox_to_anchor=(0.5, -0.04), ncol=3, frameon=False, fontsize=8.5)

    im = None
    hatch = w[0] == 0.0
    vmax = float(w[0, :nh].max())
    for h in range(nh):
        a = fig.add_subplot(gs_heads[h // hcols, h % hcols])
        im = pl.heatmap(a, w[0, h], title=("batch 0, head %d: attn_weights" if hcols == 1 else "head %d, batch 0")
                        % h, vmin=0.0, vmax=vmax, hatch=hatch[h], annotate=T <= 6 and hcols == 1,
                        xlabel="key" if h // hcols == hrows - 1 else None,
                        ylabel="query" if h % hcols == 0 else None, max_ticks=12 // hcols // hrows + 2)
    pl.colorbar(fig, im, fig.axes[1:], "attention weight (before dropout)")
    fig.suptitle("Chapter 7 · MultiHeadAttention: x -> wq/wk/wv -> split heads -> attention -> merge -> wo (%s, %s%s)"
                 % ("causal" if causal else "no mask", "training" if training else "eval",
                    "" if nh == H else "; %d of %d heads drawn" % (nh, H)))
    pl.save(fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
