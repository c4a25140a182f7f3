#!/bin/sh
# test_budget_rates.sh — the time budget refuses only what does not fit (common/program/
# budget.c, budget_seconds). The fixed rate of normal draws (5e6 a second) is slower than
# t_randn runs anywhere; when the estimate at that rate would refuse, t_randn's fill is
# timed once and half its rate counted on. Chapter 2's d_k table is the run dominated by
# draws: (200 T + 2000) x (2047 + d_k) samples.
#   (a) T = 50: 2.5e7 draws, about 5 s at the fixed rate, refused under a 4 s limit
#       before; it runs, well within the limit, and its estimate is not below its time
#   (b) T = 400: over 5 s of work: still refused, in one sentence, writing nothing
#   (c) the timing draws on a generator of its own: the run prints the same numbers
#       (PyTorch's, after torch.manual_seed) as the same run with no limit
. tests/lib.sh
suite test_budget_rates

C2="$BUILD/chapter2"
now() { date +%s.%N; }

# (a) and (c)
if [ -n "$RUNNER" ] || sanitized; then
    skip 5 "timings of an instrumented build do not show the plain build's rates"
else
    # both runs write the same path (the narration names it)
    ATTN_MAX_SECONDS=0 ATTN_REPORT_PEAK=1 run "$C2" --seq-len 50 --output "$TMP/o.npy"
    expect_status 0 "T = 50 without a limit"
    mv "$TMP/o.npy" "$TMP/free.npy"
    cp "$TMP/out" "$TMP/free.out"
    fixed=$(sed -n 's/.*estimate [0-9]* bytes, \([0-9.]*\) s.*/\1/p' "$TMP/err")
    t0=$(now)
    ATTN_MAX_SECONDS=4 ATTN_REPORT_PEAK=1 run "$C2" --seq-len 50 --output "$TMP/o.npy"
    t1=$(now)
    expect_status 0 "T = 50 runs under a 4 s limit that the fixed rate of draws broke"
    est=$(sed -n 's/.*estimate [0-9]* bytes, \([0-9.]*\) s.*/\1/p' "$TMP/err")
    if [ -n "$fixed" ] && [ -n "$est" ] &&
        awk -v f="$fixed" -v e="$est" -v t0="$t0" -v t1="$t1" \
            'BEGIN { exit !(f > 4 && e <= 4 && e < f && e >= t1 - t0) }'; then
        _ok
    else
        _bad "fixed estimate $fixed s (want > 4), calibrated $est s (want <= 4 and >= the $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s it took)"
    fi
    if cmp -s "$TMP/free.out" "$TMP/out"; then _ok; else
        _bad "a calibrated run printed other numbers than the same run with ATTN_MAX_SECONDS=0"; fi
    if cmp -s "$TMP/free.npy" "$TMP/o.npy"; then _ok; else
        _bad "a calibrated run wrote another output than the same run with ATTN_MAX_SECONDS=0"; fi
fi

# (b)
ATTN_MAX_SECONDS=4 run "$C2" --quiet --seq-len 400 --output "$TMP/long.npy"
expect_runtime_error "would take about" "T = 400 is still refused under a 4 s limit"
expect_err_contains "more than the limit of 4 s; lower --seq-len, or set ATTN_MAX_SECONDS=" "the refusal says what to lower"
expect_no_file "$TMP/long.npy" "a refused run writes nothing"
finish
