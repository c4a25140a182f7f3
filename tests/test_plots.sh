#!/bin/sh
# test_plots.sh -- make test-plots: every scripts/plot_*.py draws a real figure.
#
# Runs scripts/plot_all.sh (the chapters with --dump, then the plot scripts)
# into a temporary folder with PLOT_CHECK=1, so a figure without a title,
# axis labels or labelled colour bars fails; feeds scripts/plot_ch08.py a
# small made-up benchmark table when make bench has not written one; then
# checks each PNG: readable, a sensible size, and not blank. Without a Python
# that imports matplotlib and numpy it says it is skipped (exit 0). Not part
# of make test, which never needs Python.
. tests/lib.sh
suite test_plots

# Needs no Python: a PYTHON that cannot plot is one sentence and exit 1.
run env PYTHON=/nonexistent/python3 sh scripts/plot_all.sh "$TMP/never"
expect_runtime_error "apt-get install python3-matplotlib" "make plots with a PYTHON lacking matplotlib"
expect_no_file "$TMP/never/ch01_weights.png" "no figure without Python"

# Committed figures stay small.
for f in docs/img/*.png; do
    [ -e "$f" ] || continue
    size=$(wc -c <"$f")
    if [ "$size" -lt 150000 ]; then _ok; else _bad "$f is $size bytes, over 150000"; fi
done

if [ -n "${PYTHON:-}" ]; then
    if "$PYTHON" -c 'import matplotlib, numpy' >/dev/null 2>&1; then PY=$PYTHON; else PY=; fi
else
    PY=$(sh scripts/find_python.sh matplotlib numpy 2>/dev/null) || PY=
fi
if [ -z "$PY" ]; then
    echo "test_plots: skipped: no Python with matplotlib and numpy (apt-get install python3-matplotlib, or pip install matplotlib numpy; or PYTHON=...)"
    finish
    exit $?
fi
export PYTHONDONTWRITEBYTECODE=1

# All figures, with the house rules checked.
plots=$TMP/plots
# (chapter 13's figure from a training run of seconds, not its default configuration's minutes)
printf '白日依山尽，黄河入海流。\n欲穷千里目，更上一层楼。\n' >"$TMP/poem.txt"
run env PLOT_CHECK=1 PYTHON="$PY" BUILD="$BUILD" CH13_PLOT_ARGS="--corpus $TMP/poem.txt --train-steps 24" \
    sh scripts/plot_all.sh "$plots"
expect_status 0 "make plots"
expect_out_contains "figures in $plots/, 0 failed" "make plots summary"
if [ ! -f "$plots/ch08_bench.png" ]; then
    cat >"$TMP/attention.csv" <<'EOF'
impl,causal,T,median_ms,gflops,peak_bytes
naive,1,64,0.05,1.2,16384
naive,1,128,0.2,1.3,65536
naive,1,256,0.8,1.3,262144
flash,1,64,0.03,2.0,4096
flash,1,128,0.1,2.4,8192
flash,1,256,0.4,2.5,16384
EOF
    run env PLOT_CHECK=1 "$PY" scripts/plot_ch08.py --csv "$TMP/attention.csv" --out "$plots/ch08_bench.png"
    expect_status 0 "plot_ch08.py on a small made-up benchmark table"
fi

# Every plot script made its figure, and the figure has ink.
for script in scripts/plot_*.py; do
    nn=$(basename "$script" .py)
    nn=${nn#plot_}
    png=
    for f in "$plots/${nn}"_*.png; do [ -f "$f" ] && png=$f && break; done
    if [ -z "$png" ]; then _bad "$script wrote no $plots/${nn}_*.png"; continue; fi
    if "$PY" - "$png" >"$TMP/check" 2>&1 <<'EOF'
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.image as mpimg
import numpy as np
path = sys.argv[1]
with open(path, "rb") as f:
    assert f.read(8) == b"\x89PNG\r\n\x1a\n", "not a PNG file"
img = mpimg.imread(path)[..., :3]
h, w = img.shape[:2]
assert w >= 500 and h >= 300, "only %d x %d pixels" % (w, h)
assert w <= 2400 and h <= 1600, "too large: %d x %d pixels" % (w, h)
ink = np.mean(np.any(img < 0.9, axis=-1))
assert ink > 0.015, "almost blank: %.1f%% of the pixels are not white" % (100 * ink)
colours = len(np.unique((img * 255).astype(np.uint8).reshape(-1, 3), axis=0))
assert colours > 16, "only %d colours" % colours
EOF
    then _ok; else _bad "$png: $(tail -n 1 "$TMP/check")"; fi
done

# A plot script without its data: one sentence, exit 1, no file.
run "$PY" scripts/plot_ch04.py --dump "$TMP/nowhere" --out "$TMP/x.png"
expect_runtime_error "is missing; run the chapter program with --dump" "plot script without a dump"
expect_no_file "$TMP/x.png" "no figure from a missing dump"
run "$PY" scripts/plot_ch08.py --csv "$TMP/nowhere.csv" --out "$TMP/y.png"
expect_runtime_error "run make bench first" "plot_ch08.py without a benchmark table"

finish
