#!/bin/sh
# plot_all.sh -- run the chapters with --dump and draw every figure (make plots).
#
# Usage: BUILD=build sh scripts/plot_all.sh [OUTDIR]      (OUTDIR default: $BUILD/plots)
#        PLOT_DUMP=DIR puts the chapters' dumps there (default OUTDIR/dump)
#
# Needs the programs in $BUILD (make all) and a Python with matplotlib and
# numpy: $PYTHON when it is set (and then only that one), else the first of
# python3, /usr/bin/python3 that imports both (scripts/find_python.sh). With
# none, one line says how to get matplotlib and the exit status is 1.
#
# For each figure of scripts/figures.list: build/chapterN ... --quiet --dump
# OUTDIR/dump/chNN, then scripts/plot_chNN.py --dump OUTDIR/dump/chNN --out
# OUTDIR/<name>.png, and beside it <name>.txt, the data it was drawn from
# (scripts/figure_data.sh; make figures writes both into docs/img).
# Chapter 8 plots the benchmark table $BUILD/bench/torch.csv (make bench-torch)
# or else $BUILD/bench/attention.csv (make bench); when both are missing, that
# figure is skipped with a note. Exit status 1 when
# a chapter or a plot script failed.

BUILD=${BUILD:-build}
OUT=${1:-$BUILD/plots}
DUMP=${PLOT_DUMP:-$OUT/dump}
HERE=$(dirname "$0")

if [ -n "${PYTHON:-}" ]; then
    if ! "$PYTHON" -c 'import matplotlib, numpy' >/dev/null 2>&1; then
        echo "make plots: PYTHON=$PYTHON cannot import matplotlib and numpy; install them (apt-get install python3-matplotlib, or pip install matplotlib numpy) or leave PYTHON unset" >&2
        exit 1
    fi
    PY=$PYTHON
else
    PY=$(sh "$HERE/find_python.sh" matplotlib numpy) || exit 1
fi

mkdir -p "$OUT" "$DUMP" || exit 1
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in scripts/
made=0
failed=0
skipped=

# figure NAME NN SCRIPT_ARGS -- CHAPTER_ARGS: run chapter NN with CHAPTER_ARGS and
# --dump, then scripts/plot_chNN.py with SCRIPT_ARGS.
figure() {
    name=$1 nn=$2
    shift 2
    sargs=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs="$sargs $1"; shift; done
    [ $# -gt 0 ] && shift
    n=${nn#0}
    dir=$DUMP/ch$nn
    if [ ! -x "$BUILD/chapter$n" ]; then
        echo "plots: $BUILD/chapter$n is not built (run make first)" >&2
        failed=$((failed + 1))
        return
    fi
    rm -rf "$dir"
    if ! "$BUILD/chapter$n" "$@" --quiet --dump "$dir" >/dev/null; then
        echo "plots: $BUILD/chapter$n $* --dump $dir failed" >&2
        failed=$((failed + 1))
        return
    fi
    # shellcheck disable=SC2086  # sargs is a list of words
    if "$PY" "$HERE/plot_ch$nn.py" --dump "$dir" --out "$OUT/$name.png" $sargs &&
        sh "$HERE/figure_data.sh" "$BUILD/npyinfo" "$dir" >"$OUT/$name.txt"; then
        made=$((made + 1))
    else
        failed=$((failed + 1))
    fi
}

# shellcheck disable=SC2086  # a line of figures.list is a list of words
while read -r line; do
    case $line in '#'* | '') continue ;; esac
    figure $line </dev/null
done <"$HERE/figures.list"

# chapter 8's figure is measured: make bench-torch's table (PyTorch beside C; the
# tuned allocator, one thread) when there is one, else make bench's; the table is
# kept beside it as ch08_bench.csv, and bench-torch's printout, which the chapter's
# README shows, as ch08_bench.txt
bench=$BUILD/bench/torch.csv
set -- --column tuned_ms --skip "flash x2"
if [ ! -f "$bench" ]; then
    bench=$BUILD/bench/attention.csv
    set --
fi
if [ -f "$bench" ]; then
    printout=${bench%.csv}.txt
    if "$PY" "$HERE/plot_ch08.py" --csv "$bench" --out "$OUT/ch08_bench.png" "$@" &&
        cp "$bench" "$OUT/ch08_bench.csv" &&
        { [ "$bench" != "$BUILD/bench/torch.csv" ] || cp "$printout" "$OUT/ch08_bench.txt"; }; then
        made=$((made + 1))
    else
        failed=$((failed + 1))
    fi
else
    skipped="$skipped ch08 (no $bench: run make bench first)"
fi

# chapter 13's figure is a training run: the default configuration (a minute or more on
# 2 cores) with --dump, its losses and every head over two lines of the validation text;
# the unigram entropy from its printout. CH13_PLOT_ARGS replaces the run's flags (a small
# --corpus and --train-steps: a quick look, as make test-plots does).
if [ -x "$BUILD/chapter13" ]; then
    dir=$DUMP/ch13
    rm -rf "$dir" "$DUMP/ch13_model"
    mkdir -p "$DUMP/ch13_model"
    [ -z "${CH13_PLOT_ARGS:-}" ] && echo "plots: chapter 13 trains its default configuration first (a minute or more)"
    # shellcheck disable=SC2086  # CH13_PLOT_ARGS is a list of words
    if "$BUILD/chapter13" ${CH13_PLOT_ARGS:-} --save "$DUMP/ch13_model/tang.bin" --quiet --dump "$dir" \
        >"$DUMP/ch13_model/out.txt" &&
        h=$(sed -n 's/^unigram entropy of the training text \([0-9.]*\) .*/\1/p' "$DUMP/ch13_model/out.txt") &&
        "$PY" "$HERE/plot_ch13.py" --dump "$dir" --out "$OUT/ch13_training.png" --unigram "$h" &&
        sh "$HERE/figure_data.sh" "$BUILD/npyinfo" "$dir" >"$OUT/ch13_training.txt"; then
        made=$((made + 1))
    else
        echo "plots: chapter 13's training run or its figure failed" >&2
        failed=$((failed + 1))
    fi
else
    echo "plots: $BUILD/chapter13 is not built (run make first)" >&2
    failed=$((failed + 1))
fi

[ -n "$skipped" ] && echo "plots: skipped:$skipped"
echo "plots: $made figures in $OUT/, $failed failed"
[ "$failed" -eq 0 ]
