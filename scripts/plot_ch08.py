#!/usr/bin/env python3
"""plot_ch08.py -- chapter 8: time and memory of each attention implementation against sequence length.

    make bench                       # writes build/bench/attention.csv
    python3 scripts/plot_ch08.py --csv build/bench/attention.csv --out ch08_bench.png

Reads a CSV with a header line and the columns
    impl,causal,T,median_ms,gflops,peak_bytes
(one row per implementation, causal flag 0/1 and sequence length T; extra
columns are ignored; an impl named torch... is drawn as the PyTorch
reference). Draws two log-log panels against T: the median time per call
and the peak extra memory, one line per implementation (solid: causal,
dashed: not causal), with T^2 and T guide lines. --column NAME draws another
time column (make bench-torch's CSV has tuned_ms: the tuned allocator);
--skip IMPL leaves one implementation out. A column heads (make bench-torch:
fewer heads above T = 4096) makes the time one head's, time / heads, so the
rows of different H lie on one curve.
"""

import argparse
import csv
import os
import sys

import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator

import plotlib as pl

PROG = "plot_ch08"
NEEDED = ["impl", "causal", "T", "median_ms", "gflops", "peak_bytes"]


def read(path, column="median_ms"):
    if not os.path.exists(path):
        pl.die(PROG, "%s is missing; run make bench first (it writes the columns %s)" % (path, ",".join(NEEDED)))
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        pl.die(PROG, "%s has no data rows" % path)
    missing = [c for c in NEEDED + [column] if c not in rows[0]]
    if missing:
        pl.die(PROG, "%s lacks the column(s) %s; expected %s" % (path, ",".join(missing), ",".join(NEEDED)))
    data = {}  # insertion-ordered: the CSV's order of implementations
    for n, r in enumerate(rows, start=2):
        try:
            causal = r["causal"].strip().lower() in ("1", "true", "yes", "causal")
            key = (r["impl"].strip(), causal)
            heads = float(r.get("heads") or 1)
            data.setdefault(key, []).append((int(r["T"]), float(r[column]) / heads,
                                             float(r["peak_bytes"] or "nan")))
        except ValueError as e:
            pl.die(PROG, "%s line %d: %s" % (path, n, e))
    return {k: np.array(sorted(v)) for k, v in data.items()}


def human_bytes(v, _pos=None):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if v < 1024 or unit == "GiB":
            return "%g %s" % (round(v, 1), unit)
        v /= 1024.0


def guide(ax, Ts, y_at_end, power, label):
    """A dotted grey c*T^power line ending at (max T, y_at_end), labelled at its end."""
    Ts = np.asarray(sorted(set(Ts)), dtype=float)
    c = y_at_end / Ts[-1] ** power
    ax.plot(Ts, c * Ts ** power, color="#999999", linestyle=":", linewidth=1.5, zorder=0)
    ax.text(Ts[-1] * 1.08, y_at_end, label, color="#777777", fontsize=9, va="center", ha="left")


def main():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[1])
    p.add_argument("--csv", default=os.path.join("build", "bench", "attention.csv"), metavar="FILE",
                   help="benchmark results (default: %(default)s)")
    p.add_argument("--out", required=True, metavar="FILE", help="PNG to write")
    p.add_argument("--column", default="median_ms", metavar="NAME",
                   help="the time column to draw (default %(default)s; make bench-torch's CSV also has tuned_ms)")
    p.add_argument("--skip", action="append", default=[], metavar="IMPL",
                   help="leave this implementation out (repeatable), e.g. --skip 'flash x2'")
    args = p.parse_args()
    data = {k: v for k, v in read(args.csv, args.column).items() if k[0] not in args.skip}
    if not data:
        pl.die(PROG, "%s: nothing left to draw after --skip" % args.csv)

    impls = list(dict.fromkeys(k[0] for k in data))  # the CSV's order: naive first, ... flash, torch
    colours = dict(zip(impls, pl.plt.get_cmap("tab10").colors))
    fig, (a0, a1) = pl.plt.subplots(1, 2, figsize=(13.0, 5.2), constrained_layout=True)
    all_T, last_ms, last_mem = [], [], []
    for (impl, causal), arr in sorted(data.items(), key=lambda kv: (impls.index(kv[0][0]), kv[0][1])):
        T, ms, mem = arr[:, 0], arr[:, 1], arr[:, 2]
        style = dict(color=colours[impl], marker="o" if not impl.startswith("torch") else "s",
                     linestyle="-" if causal else "--", markersize=4,
                     label="%s%s" % (impl, " (causal)" if causal else ""))
        a0.loglog(T, ms, **style)
        if np.isfinite(mem).any() and (mem > 0).any():
            a1.loglog(T[mem > 0], mem[mem > 0], **style)
            last_mem.append(mem[-1])
        all_T.extend(T)
        last_ms.append(ms[-1])
    if len(set(all_T)) > 1:
        guide(a0, all_T, max(last_ms), 2, "∝ T²")
        if last_mem:
            guide(a1, all_T, max(last_mem), 2, "∝ T²")
            guide(a1, all_T, min(last_mem), 1, "∝ T")
    per_head = "heads" in open(args.csv).readline().strip().split(",")
    a0.set_title("time per attention call%s (median, %s)" % (" and head" if per_head else "", args.column))
    a0.set_ylabel("milliseconds")
    a0.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    a0.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: "%g" % v))
    a1.set_title("peak extra memory")
    a1.set_ylabel("bytes")
    a1.set_yscale("log", base=2)
    a1.yaxis.set_major_locator(LogLocator(base=4))
    a1.yaxis.set_major_formatter(FuncFormatter(human_bytes))
    Ts = sorted(set(int(t) for t in all_T))
    for ax in (a0, a1):
        ax.set_xlabel("sequence length T")
        ax.minorticks_off()
        ax.set_xticks(Ts)
        ax.set_xticklabels([str(t) for t in Ts])
        ax.set_xlim(Ts[0] / 1.25, Ts[-1] * 1.6)
        ax.grid(True, which="major", alpha=0.3)
    # the legend comes from the time panel: it has every line (torch has no memory figure)
    handles, labels = a0.get_legend_handles_labels()
    a1.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0),
              title="implementation", title_fontsize=8, frameon=False)
    fig.suptitle("Chapter 8 · fast attention: time and memory against sequence length")
    pl.save(fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
