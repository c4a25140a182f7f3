#!/bin/sh
# test_budget.sh — every chapter's memory estimate counts every tensor it allocates:
# for chapters 0-8, 10 and 11, one run of a few hundred MiB (quick to compute: small
# head dims, the score-sized buffers dominate; chapter 0 has no scores: a run where its
# mask dominates, and one where its activations do) with ATTN_REPORT_PEAK=1, which prints
# at exit the most the run held at once by the allocator's own count (t_peak_bytes)
# and the estimate made before it started (common/program/budget.c). The estimate
# must be an upper bound within 10 % of that peak. The allocator's count is the
# measure: it is what the budget caps while the run goes on, exact and the same on
# every machine; the process's resident peak (VmHWM, where the system reports it)
# adds the program itself and blocks rounded up to whole pages, so it is checked
# only to be within a few MiB of the count. (Chapter 9 runs under MPI, in several
# processes, each with chapter 7's module: not here.)
. tests/lib.sh
suite test_budget

if [ -n "$RUNNER" ]; then # hundreds of MiB under valgrind: hours
    skip 24 "runs of a few hundred MiB are not for $RUNNER"
    finish
    exit
fi

MiB=1048576
# check CMD...: run it, then peak <= estimate <= 1.1 peak, and resident close to peak
check() {
    ATTN_REPORT_PEAK=1 run "$@"
    line=$(grep ': peak [0-9]* bytes' "$TMP/err")
    peak=$(echo "$line" | sed -n 's/.*: peak \([0-9]*\) bytes.*/\1/p')
    est=$(echo "$line" | sed -n 's/.*, estimate \([0-9]*\) bytes.*/\1/p')
    rss=$(echo "$line" | sed -n 's/.*; resident at most \([0-9]*\) bytes$/\1/p')
    if [ "$status" -eq 0 ] && [ -n "$peak" ] && [ -n "$est" ] &&
        awk -v p="$peak" -v e="$est" -v m="$MiB" 'BEGIN { exit !(p >= 100 * m && e >= p && e <= 1.1 * p) }'; then
        _ok
    else
        _bad "the estimate is not within 10 % above the peak of a run of a few hundred MiB: $line"
    fi
    if [ -z "$rss" ]; then
        : # the system does not report it
    elif sanitized; then
        skip 1 "a sanitizer build's resident memory counts its shadow memory"
    elif awk -v p="$peak" -v r="$rss" -v m="$MiB" 'BEGIN { exit !(r >= p && r <= 1.05 * p + 8 * m) }'; then
        _ok
    else
        _bad "the resident peak is far from the allocator's count: $line"
    fi
    echo "$*: $line" >>"$TMP/figures"
}

"$BUILD/randnpy" 1 "$TMP/qkv2.npy" 1 2600 16
"$BUILD/randnpy" 2 "$TMP/qkv8.npy" 1 768 256 64
mkdir -p "$TMP/w10"
"$BUILD/randnpy" 3 "$TMP/x10.npy" 1 1500 16
"$BUILD/randnpy" 4 "$TMP/dy10.npy" 1 1500 16
for w in wq wk wv wo; do "$BUILD/randnpy" 5 "$TMP/w10/$w.npy" 16 16; done

check "$BUILD/chapter0" --quiet --heads 4 --seq-len 3000
check "$BUILD/chapter0" --quiet --batch 50 --seq-len 100 --d-out 1000   # the (bsz, seqlen, d_out) activations
check "$BUILD/chapter1" --quiet --seq-len 3500 --d-k 16
check "$BUILD/chapter2" --quiet --q "$TMP/qkv2.npy" --k "$TMP/qkv2.npy" --v "$TMP/qkv2.npy"
check "$BUILD/chapter3" --quiet --seq-len 2400 --d-in 16 --d-out 16
check "$BUILD/chapter4" --quiet --max-seq-len 2800
check "$BUILD/chapter5" --quiet --seq-len 1200 --heads 2 --d-in 16 --d-out 16
check "$BUILD/chapter6" --quiet --seq-len 1400 --heads 2 --d-in 16 --d-out 16
check "$BUILD/chapter7" --quiet --batch 1 --seq-len 1500 --heads 2 --d-in 16 --d-out 16
check "$BUILD/chapter8" --quiet --q "$TMP/qkv8.npy" --k "$TMP/qkv8.npy" --v "$TMP/qkv8.npy"
check "$BUILD/chapter10" --quiet --input "$TMP/x10.npy" --weights "$TMP/w10" --grad-output "$TMP/dy10.npy" --heads 2
check "$BUILD/chapter11" --quiet --seq-len 600 --max-seq-len 600 --dim 32 --n-heads 2 --n-kv-heads 2

[ -n "${BUDGET_FIGURES:-}" ] && cat "$TMP/figures"
finish
