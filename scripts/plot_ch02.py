#!/usr/bin/env python3
"""plot_ch02.py -- chapter 2: what dividing by sqrt(d_k) does, measured.

    build/chapter2 --dump DIR
    python3 scripts/plot_ch02.py --dump DIR --out ch02_scaling.png

Reads DIR/scaling_stats.npy, the chapter's measured table, shape (N, 7) with
columns d_k, var_unscaled, var_scaled, max_weight_unscaled,
max_weight_scaled, entropy_unscaled, entropy_scaled (one row per d_k), and
DIR/attn_weights.npy for the number of keys per row S (a uniform row has
largest weight 1/S and entropy log S). Draws three panels against d_k:
the variance of q·k, the mean largest softmax weight and the mean entropy of
a row of weights, unscaled vs scaled by 1/sqrt(d_k).
"""

import sys

import numpy as np

import plotlib as pl

PROG = "plot_ch02"
COLUMNS = ["d_k", "var_unscaled", "var_scaled", "max_weight_unscaled", "max_weight_scaled",
           "entropy_unscaled", "entropy_scaled"]
UNSCALED = dict(color="#d62728", marker="o", label="unscaled: q·k")
SCALED = dict(color="#1f77b4", marker="s", label="scaled: q·k / √d_k")


def main():
    args = pl.parser(PROG, __doc__.splitlines()[1]).parse_args()
    st = pl.load(PROG, args.dump, "scaling_stats")
    if st.ndim != 2 or st.shape[1] != len(COLUMNS) or st.shape[0] < 2:
        pl.die(PROG, "scaling_stats.npy should be (N >= 2, %d) with columns %s; got %s"
               % (len(COLUMNS), ", ".join(COLUMNS), pl.shape_str(st)))
    st = st[np.argsort(st[:, 0])]
    dk = st[:, 0]
    w = pl.load(PROG, args.dump, "attn_weights", required=False)
    S = int(w.shape[-1]) if w is not None else None

    fig, axes = pl.plt.subplots(1, 3, figsize=(14.0, 4.6), constrained_layout=True)
    a0, a1, a2 = axes

    a0.loglog(dk, st[:, 1], **UNSCALED)
    a0.loglog(dk, st[:, 2], **SCALED)
    a0.loglog(dk, dk, color="#999999", linestyle="--", linewidth=1, label="d_k (theory, unscaled)")
    a0.axhline(1.0, color="#999999", linestyle=":", linewidth=1, label="1 (theory, scaled)")
    a0.set_title("variance of the score q·k")
    a0.set_ylabel("variance over random q, k ~ N(0, 1)")

    a1.semilogx(dk, st[:, 3], **UNSCALED)
    a1.semilogx(dk, st[:, 4], **SCALED)
    a1.axhline(1.0, color="#999999", linestyle="--", linewidth=1, label="1 = one-hot (saturated)")
    if S:
        a1.axhline(1.0 / S, color="#999999", linestyle=":", linewidth=1,
                   label="1/%d = uniform over %d keys" % (S, S))
    a1.set_ylim(0.0, 1.05)
    a1.set_title("largest weight in a row of softmax")
    a1.set_ylabel("mean of max(weights)")

    a2.semilogx(dk, st[:, 5], **UNSCALED)
    a2.semilogx(dk, st[:, 6], **SCALED)
    if S:
        a2.axhline(np.log(S), color="#999999", linestyle=":", linewidth=1,
                   label="log %d = %.2f, uniform" % (S, np.log(S)))
    a2.axhline(0.0, color="#999999", linestyle="--", linewidth=1, label="0 = one-hot (saturated)")
    a2.set_ylim(bottom=-0.05)
    a2.set_title("entropy of a row of weights")
    a2.set_ylabel("mean entropy (nats)")

    for ax in axes:
        ax.set_xlabel("d_k (width of q and k)")
        ax.minorticks_off()
        ax.set_xticks(dk)
        ax.set_xticklabels(["%d" % d for d in dk])
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    fig.suptitle("Chapter 2 · why divide by √d_k: unscaled scores grow with d_k and softmax saturates"
                 + ("" if S is None else "  (rows of %d keys)" % S))
    pl.save(fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
