#!/bin/sh
# test_figures.sh — every figure of docs/img is drawn from what the programs dump today.
#
# make figures (scripts/plot_all.sh) draws each PNG of scripts/figures.list from
# a chapter's --dump and commits beside it NAME.txt, that dump as text
# (scripts/figure_data.sh). Here each run is made again and its data must equal
# NAME.txt byte for byte: a change in a program that moves the figure fails
# until make figures redraws it. Every PNG in docs/img must be one of the list
# or chapter 8's measured benchmark (ch08_bench.png, drawn from make
# bench-torch's table, committed as ch08_bench.csv beside it with the run's
# printout, ch08_bench.txt: check_bench). Needs no Python. The programs run without
# $RUNNER (valgrind): what is checked is the data, and ch10's training is slow
# under valgrind.
. tests/lib.sh
suite test_figures

# same_data NAME FILE: FILE equals docs/img/NAME.txt, else one FAIL naming the first difference
same_data() {
    if cmp -s "$2" "docs/img/$1.txt"; then _ok; else
        _cmd="make figures ($1)"; status=0
        diff "docs/img/$1.txt" "$2" | sed -n '2,5p' >"$TMP/err"
        _bad "docs/img/$1.png is stale: the program no longer dumps the data it was drawn from (make figures redraws it)"
    fi
}

# check_bench: chapter 8's figure is measured (make bench-torch, then make figures):
# beside it its table ch08_bench.csv and the run's printout ch08_bench.txt (the
# chapter's README shows it, tests/test_docs.sh). Every row the printout's table
# shows is in the CSV with the same times (the figure and the README come from one
# run), with the columns make bench-torch writes today.
check_bench() {
    _cmd="docs/img/ch08_bench.csv against docs/img/ch08_bench.txt"; status=0; : >"$TMP/err"
    for f in docs/img/ch08_bench.csv docs/img/ch08_bench.txt; do
        if [ -f "$f" ]; then _ok; else _bad "$f is missing (make bench-torch, then make figures)"; return; fi
    done
    if [ "$(sed -n 1p docs/img/ch08_bench.csv)" = "impl,causal,T,median_ms,gflops,peak_bytes,tuned_ms,wall_ms,max_abs_diff,heads" ] &&
        grep -q '"max_abs_diff",$' scripts/bench_torch.py && grep -q '^            "heads"\]$' scripts/bench_torch.py; then
        _ok
    else
        _bad "docs/img/ch08_bench.csv does not have the columns scripts/bench_torch.py writes (make bench-torch, then make figures)"
    fi
    if awk -f tests/bench_rows.awk docs/img/ch08_bench.csv docs/img/ch08_bench.txt >"$TMP/err"; then _ok; else
        _bad "docs/img/ch08_bench.csv is not the table of the run docs/img/ch08_bench.txt printed"
    fi
}

# check_ch13: chapter 13's figure is its default training run (minutes: make figures runs it,
# make test does not). Its data is beside it; the run is the README's measured one: the
# figure's last validation loss is the 'val loss V' of that run's printout, and its
# characters are those of the README's look inside (the first two lines of the validation text).
check_ch13() { # [DATA] (default docs/img/ch13_training.txt)
    data=${1:-docs/img/ch13_training.txt}
    _cmd="$data against chapters/13_tiny_llama/measured/train_default.txt"; status=0
    : >"$TMP/err"
    if [ -f "$data" ]; then _ok; else _bad "$data is missing (make figures)"; return; fi
    want=$(sed -n 's/^val loss \([0-9.]*\)$/\1/p' chapters/13_tiny_llama/measured/train_default.txt)
    got=$(awk '/^val_loss.npy:/ { v = 1; next } v && /\]\]\)$/ { gsub(/[],)]/, ""); print $NF; exit }' "$data")
    if [ -n "$want" ] && [ "$got" = "$want" ]; then _ok; else
        _bad "docs/img/ch13_training.png is not of the measured default run: its last validation loss is '$got', the run printed 'val loss $want' (make figures redraws it)"
    fi
}

listed=" "
while read -r name nn rest; do
    case $name in '#'* | '') continue ;; esac
    listed="$listed$name "
    # the chapter's flags are the words after "--"
    # shellcheck disable=SC2086  # a list of words
    set -- $rest
    while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
    [ $# -gt 0 ] && shift
    for f in "docs/img/$name.png" "docs/img/$name.txt"; do
        if [ -f "$f" ]; then _ok; else _cmd=; status=0; : >"$TMP/err"; _bad "$f is missing (make figures)"; fi
    done
    dump=$TMP/dump-$name
    # (not under $RUNNER: this checks what the figure shows; the chapters' own
    # tests run these programs under valgrind and the sanitizers)
    _cmd="$BUILD/chapter${nn#0} $* --quiet --dump $dump"
    "$BUILD/chapter${nn#0}" "$@" --quiet --dump "$dump" >"$TMP/out" 2>"$TMP/err" </dev/null
    status=$?
    expect_status 0 "$name: the run the figure is drawn from"
    sh scripts/figure_data.sh "$BUILD/npyinfo" "$dump" >"$TMP/$name.txt" 2>"$TMP/err"
    [ -f "docs/img/$name.txt" ] && same_data "$name" "$TMP/$name.txt"
done <scripts/figures.list

for f in docs/img/*.png; do
    name=${f##*/}
    name=${name%.png}
    case $listed in *" $name "*) continue ;; esac
    if [ "$name" = ch08_bench ]; then
        check_bench
        continue
    fi
    if [ "$name" = ch13_training ]; then
        check_ch13
        continue
    fi
    _cmd=; status=0; : >"$TMP/err"
    _bad "$f is not drawn by make figures (not in scripts/figures.list)"
done

# the bench check checks itself: a time changed in a copy of the printout fails
awk 'done == 0 && / flash  *[0-9]/ { sub(/[0-9]\./, "9."); done = 1 } { print }' docs/img/ch08_bench.txt >"$TMP/bench.txt"
if awk -f tests/bench_rows.awk docs/img/ch08_bench.csv "$TMP/bench.txt" >/dev/null 2>&1; then
    _cmd=; status=0; : >"$TMP/err"; _bad "a bench printout with one time changed still matched its table"
else _ok; fi

# chapter 13's check checks itself: another last validation loss in a copy of its data fails
awk '/^val_loss.npy:/ { v = 1 } v && /\]\]\)$/ { sub(/[0-9]\]\]\)$/, "X]])"); v = 0 } { print }' docs/img/ch13_training.txt >"$TMP/ch13.txt"
if (_failed=0; check_ch13 "$TMP/ch13.txt" >/dev/null; [ "$_failed" -gt 0 ]); then _ok; else
    _cmd=; status=0; : >"$TMP/err"; _bad "chapter 13's figure data with another last validation loss was not caught"
fi

# the check checks itself: one digit changed in a copy of a figure's data fails
sed '2s/[0-9]/X/' docs/img/ch04_causal_mask.txt >"$TMP/mutated.txt"
if (_failed=0; same_data ch04_causal_mask "$TMP/mutated.txt" >/dev/null; [ "$_failed" -gt 0 ]); then _ok; else
    _cmd=; status=0; : >"$TMP/err"; _bad "a figure's data with one digit changed was not caught"
fi

finish
