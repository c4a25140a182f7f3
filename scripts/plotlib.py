"""plotlib.py -- shared helpers for the scripts/plot_*.py figures (matplotlib + numpy).

Every plot script reads the .npy intermediates that a chapter program writes
with `--dump DIR` and writes one PNG:

    build/chapter4 --dump build/plots/dump/ch04
    python3 scripts/plot_ch04.py --dump build/plots/dump/ch04 --out build/plots/ch04_causal_mask.png

`make plots` does both for every chapter (see scripts/plot_all.sh).

Conventions for every figure: a title (suptitle) saying what is shown and
from which run, axis labels (rows are queries, columns are keys), a colour
bar for every heatmap, and masked entries (-inf before softmax, exactly 0
after it) drawn as grey hatching so that they are not confused with small
weights.
"""

import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed: we only write files

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

# Chapter 1's sentence, used by chapters 1, 2 and 4 for their default run.
SENTENCE = ["Your", "journey", "starts", "with", "one", "step"]

WEIGHT_CMAP = "viridis"   # attention weights: 0 (dark) .. max (yellow)
SCORE_CMAP = "RdBu_r"     # scores: signed, centred on 0
MASK_FACE = "#e6e6e6"     # background of masked cells
MASK_HATCH = "////"
DPI = 100

plt.rcParams.update({
    "font.size": 10,
    "axes.titlesize": 11,
    "figure.titlesize": 13,
    "figure.titleweight": "bold",
})


def die(prog, msg):
    """One sentence on stderr, exit 1 (the project's runtime-error status)."""
    print("%s: %s" % (prog, msg), file=sys.stderr)
    sys.exit(1)


def parser(prog, description, default_labels=None):
    """The flags every plot script takes: --dump DIR --out FILE [--labels W1,W2,...]."""
    p = argparse.ArgumentParser(prog=prog, description=description)
    p.add_argument("--dump", required=True, metavar="DIR",
                   help="folder written by the chapter program's --dump DIR")
    p.add_argument("--out", required=True, metavar="FILE", help="PNG to write")
    if default_labels is not None:
        p.add_argument("--labels", default=",".join(default_labels), metavar="W1,W2,...",
                       help="token labels, comma-separated, used when their number matches "
                            "the sequence length (default: %(default)s); '' for positions")
    return p


def load(prog, dump, name, required=True):
    """dump/name.npy as a float64 array; a missing required file is one sentence and exit 1."""
    path = os.path.join(dump, name + ".npy")
    if not os.path.exists(path):
        if not required:
            return None
        die(prog, "%s is missing; run the chapter program with --dump %s first" % (path, dump))
    try:
        return np.load(path).astype(np.float64)
    except (OSError, ValueError) as e:
        die(prog, "cannot read %s: %s" % (path, e))


def labels_for(n, labels):
    """The given labels if there are exactly n of them, else the positions 0..n-1."""
    if isinstance(labels, str):
        labels = [w for w in labels.split(",") if w] if labels else []
    if labels and len(labels) == n:
        return list(labels)
    return [str(i) for i in range(n)]


def masked_cells(w):
    """Boolean mask of the cells to hatch: -inf/NaN scores, or weights that are exactly 0."""
    return ~np.isfinite(w) | (w == 0.0)


def heatmap(ax, w, rows=None, cols=None, title=None, vmin=None, vmax=None, cmap=WEIGHT_CMAP,
            annotate=None, hatch=None, blank=None, fmt="%.2f", xlabel="key (position attended to)",
            ylabel="query (position attending)", max_ticks=16):
    """Draw a (T, S) matrix on ax with labelled ticks; returns the image (for a colour bar).

    hatch: boolean (T, S) array of cells to draw as masked (grey hatching) instead
    of a colour; default: the non-finite cells. blank: boolean (T, S) array of
    cells drawn white and without a value (e.g. dropped by dropout). annotate:
    write the value in each cell (default: when the grid is at most 10 x 10).
    max_ticks: at most this many labelled ticks per axis.
    """
    w = np.asarray(w, dtype=np.float64)
    T, S = w.shape
    if hatch is None:
        hatch = ~np.isfinite(w)
    shown = np.ma.masked_array(np.where(np.isfinite(w), w, 0.0), mask=hatch)
    # The hatched background shows through the masked (transparent) cells.
    ax.add_patch(Rectangle((-0.5, -0.5), S, T, facecolor=MASK_FACE, edgecolor="#9a9a9a",
                           hatch=MASK_HATCH, linewidth=0, zorder=0))
    im = ax.imshow(shown, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest",
                   aspect="equal", zorder=1)
    if blank is not None:
        for i, j in zip(*np.nonzero(blank)):
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="white", edgecolor="none", zorder=1.5))
    else:
        blank = np.zeros((T, S), dtype=bool)
    ax.set_xlim(-0.5, S - 0.5)
    ax.set_ylim(T - 0.5, -0.5)
    rows = labels_for(T, rows)
    cols = labels_for(S, cols)
    step_r = max(1, -(-T // max_ticks))
    step_c = max(1, -(-S // max_ticks))
    ax.set_yticks(range(0, T, step_r))
    ax.set_yticklabels(rows[::step_r])
    ax.set_xticks(range(0, S, step_c))
    ax.set_xticklabels(cols[::step_c], rotation=45 if max(len(c) for c in cols) > 2 else 0,
                       ha="right" if max(len(c) for c in cols) > 2 else "center")
    ax.tick_params(length=0)
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if annotate is None:
        annotate = T <= 10 and S <= 10
    if annotate:
        norm = im.norm
        cm = im.get_cmap()
        for i in range(T):
            for j in range(S):
                if blank[i, j]:
                    continue
                if hatch[i, j]:
                    v = w[i, j]
                    if np.isfinite(v):
                        continue  # a masked weight (0): the hatching says it
                    txt = "-inf" if v == -np.inf else ("NaN" if np.isnan(v) else "+inf")
                    ax.text(j, i, txt, ha="center", va="center", fontsize=8, color="#555555",
                            zorder=2, bbox=dict(boxstyle="round,pad=0.1", fc=MASK_FACE, ec="none"))
                    continue
                r, g, b, _ = cm(norm(w[i, j]))
                dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.55
                ax.text(j, i, fmt % w[i, j], ha="center", va="center", fontsize=8,
                        color="white" if dark else "black", zorder=2)
    return im


def colorbar(fig, im, ax, label):
    """A colour bar beside ax (or a list of axes) with a label."""
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    cb.set_label(label)
    return cb


def mask_legend(fig, text="masked (-inf before softmax, 0 after)", loc="lower center"):
    """A legend entry explaining the grey hatching."""
    fig.legend(handles=[Patch(facecolor=MASK_FACE, edgecolor="#9a9a9a", hatch=MASK_HATCH, label=text)],
               loc=loc, frameon=False, fontsize=9)


def shape_str(a):
    return "(" + ", ".join(str(d) for d in a.shape) + ")"


def _shrink(png):
    """Re-compress the PNG harder (zlib level 9, no change to the pixels) when Pillow is there."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(png) as im:
        im.load()
        rgb = im.convert("RGB")  # a white background: the alpha channel is all opaque
    rgb.save(png, optimize=True)


def problems(fig):
    """What a figure lacks of the house rules: a title, axis labels, labelled colour bars.

    Returns a list of sentences (empty when the figure is fine). Checked by save()
    when the environment has PLOT_CHECK=1 (make test-plots sets it).
    """
    out = []
    if fig._suptitle is None or not fig._suptitle.get_text().strip():
        out.append("no figure title (suptitle)")
    colorbars = [a for a in fig.axes if getattr(a, "_colorbar", None) is not None]
    for cb in colorbars:
        if not (cb.get_ylabel().strip() or cb.get_xlabel().strip()):
            out.append("a colour bar has no label")
    plots = [a for a in fig.axes if a not in colorbars and a.get_visible() and (a.images or a.lines)]
    if not plots:
        out.append("no axes with data")
    for a in plots:
        if not a.get_title().strip():
            out.append("an axes with data has no title")
        if a.lines and not a.images and a.axison and not (a.get_xlabel().strip() and a.get_ylabel().strip()):
            out.append("the line plot '%s' lacks an x or y label" % a.get_title())
    if any(a.images for a in plots) and not colorbars:
        out.append("a heatmap without a colour bar")
    drawn = [a for a in plots if a.axison]
    if drawn and not any(a.get_xlabel().strip() for a in drawn):
        out.append("no x-axis label anywhere")
    if drawn and not any(a.get_ylabel().strip() for a in drawn):
        out.append("no y-axis label anywhere")
    return out


def save(fig, path):
    """Write the figure as PNG (tight box), creating the folder; prints the path."""
    if os.environ.get("PLOT_CHECK") == "1":
        bad = problems(fig)
        if bad:
            die(os.path.basename(sys.argv[0]), "figure for %s: %s" % (path, "; ".join(bad)))
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=DPI, bbox_inches="tight", pad_inches=0.15, facecolor="white")
    _shrink(tmp)
    os.replace(tmp, path)
    plt.close(fig)
    print("wrote %s" % path)
