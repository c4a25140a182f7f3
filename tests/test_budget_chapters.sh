#!/bin/sh
# test_budget_chapters.sh — the time budget refuses only what does not fit, in the
# chapters whose estimates count floating-point operations (common/program/budget.c,
# budget_seconds). The fixed rate (1e8 operations a second) is slower than these
# chapters run anywhere; when the estimate at that rate would refuse, the chapter's own
# work is timed on smaller problems (its sampler) and half that rate counted on.
#   (a) a run the fixed rate refuses under a 3 s limit (its estimate with no limit is
#       past 3 s) runs, exit 0, with an estimate within the limit
#   (b) a run far past the limit is still refused: exit 1, one sentence that says the
#       rate was measured, no output file
#   (c) the timing changes nothing: the same numbers printed and the same --output
#       bytes as the same run with ATTN_MAX_SECONDS=0 (that it leaves the generator,
#       the narration and the peak as they were: tests/test_common_budget.c)
#   (d) the calibrated estimate is not below the run's time by more than the margin
#       allows: at least 0.8 x the elapsed time of the whole run
. tests/lib.sh
suite test_budget_chapters

now() { date +%s.%N; }
estimate() { sed -n 's/.*estimate [0-9]* bytes, \([0-9.]*\) s.*/\1/p' "$TMP/err"; }

# NAME ARGS...: (a), (c) and (d) for one run
fits_now() {
    name=$1
    shift
    ATTN_MAX_SECONDS=0 ATTN_REPORT_PEAK=1 run "$@" --output "$TMP/o.npy"
    expect_status 0 "$name without a limit"
    mv "$TMP/o.npy" "$TMP/free.npy"
    cp "$TMP/out" "$TMP/free.out"
    fixed=$(estimate)
    t0=$(now)
    ATTN_MAX_SECONDS=3 ATTN_REPORT_PEAK=1 run "$@" --output "$TMP/o.npy"
    t1=$(now)
    expect_status 0 "$name runs under a 3 s limit that the fixed rate broke"
    est=$(estimate)
    if [ -n "$fixed" ] && [ -n "$est" ] &&
        awk -v f="$fixed" -v e="$est" 'BEGIN { exit !(f > 3 && e <= 3 && e < f) }'; then
        _ok
    else
        _bad "$name: fixed-rate estimate $fixed s (want > 3), calibrated $est s (want <= 3)"
    fi
    if [ -n "$est" ] && awk -v e="$est" -v t0="$t0" -v t1="$t1" 'BEGIN { exit !(e >= 0.8 * (t1 - t0)) }'; then
        _ok
    else
        _bad "$name: calibrated estimate $est s, below 0.8 x the $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s it took"
    fi
    if cmp -s "$TMP/free.out" "$TMP/out"; then _ok; else
        _bad "$name: a calibrated run printed other numbers than with ATTN_MAX_SECONDS=0"; fi
    if cmp -s "$TMP/free.npy" "$TMP/o.npy"; then _ok; else
        _bad "$name: a calibrated run wrote another output than with ATTN_MAX_SECONDS=0"; fi
    rm -f "$TMP/o.npy" "$TMP/free.npy"
}

if [ -n "$RUNNER" ] || sanitized; then
    skip 36 "timings of an instrumented build do not show the plain build's rates"
else
    fits_now "chapter 1, T = 2000" "$BUILD/chapter1" --quiet --seq-len 2000 --d-k 64
    fits_now "chapter 3, T = 1200" "$BUILD/chapter3" --quiet --seq-len 1200 --d-in 64 --d-out 64
    fits_now "chapter 5, T = 600" "$BUILD/chapter5" --quiet --seq-len 600 --d-in 64 --d-out 64 --heads 4
    fits_now "chapter 7, T = 1000" "$BUILD/chapter7" --quiet --seq-len 1000
    fits_now "chapter 11, T = 1000" "$BUILD/chapter11" --quiet --seq-len 1000 --max-seq-len 1000
    # with the narration too: the timing prints none of it
    fits_now "chapter 7 narrated, T = 1000" "$BUILD/chapter7" --seq-len 1000
fi

# (b): far past the limit at any measured rate
far_past() { # NAME FLAG ARGS...
    name=$1 flag=$2
    shift 2
    ATTN_MAX_SECONDS=3 run "$@" --output "$TMP/long.npy"
    expect_runtime_error "would take about" "$name is still refused under a 3 s limit"
    expect_err_contains "), more than the limit of 3 s; lower $flag, or set ATTN_MAX_SECONDS=" \
        "$name: the refusal says what to lower"
    # under valgrind (or a slow build) the measured rate falls below the fixed one,
    # which is then used, and the sentence does not claim a measured rate
    if [ -n "$RUNNER" ] || sanitized; then
        skip 1 "$name: whether the rate was measured depends on the build's speed"
    else
        expect_err_contains "at half the rate measured here), more than" "$name: the refusal says the rate was measured"
    fi
    expect_no_file "$TMP/long.npy" "$name: a refused run writes nothing"
}
far_past "chapter 1, T = 4000, d_k = 1024" --seq-len "$BUILD/chapter1" --quiet --seq-len 4000 --d-k 1024
far_past "chapter 3, d = 1024" "--seq-len or --batch" "$BUILD/chapter3" --quiet --seq-len 1500 --d-in 1024 --d-out 1024
finish
