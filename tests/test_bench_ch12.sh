#!/bin/sh
# test_bench_ch12.sh — scripts/bench_ch12.py (make bench-chapter12-torch) runs, without
# timing: its usage errors exit 2, a library it cannot load exits 1, and a tiny run
# (T = 32, H = 1, one round, the memory children, the environment's OpenBLAS kernels:
# no race) exits 0 with every row of both tables, every gradient right, every line
# within 80 columns. No figure is checked: the times depend on the machine.
# Skipped without a Python that imports torch and numpy; the tiny run also without
# $BUILD/libattn_bench.so (make bench-chapter12-torch builds it; make test does not).
. tests/lib.sh
suite test_bench_ch12

S=scripts/bench_ch12.py
SO=$BUILD/libattn_bench.so
if ! PY=$(sh scripts/find_python.sh torch numpy 2>/dev/null); then
    skip 8 "no Python with torch and numpy: scripts/bench_ch12.py is not run"
    finish
    exit
fi

run "$PY" "$S" --lib "$SO" --rounds -1
expect_status 2 "--rounds -1"
expect_err_contains "--rounds must be >= 0" "--rounds -1 says why"
run "$PY" "$S" --lib "$SO" --ts 12,x
expect_status 2 "--ts with a word"
run "$PY" "$S" --quick
expect_status 2 "no --lib"
run "$PY" "$S" --lib "$TMP/nothing.so" --no-memory
expect_status 1 "a library that is not there"
expect_err_contains "cannot load" "a library that is not there says so"

if [ ! -f "$SO" ]; then
    skip 2 "no $SO (make bench-chapter12-torch builds it): the tiny run is not run"
else
    BENCH_KEEP_OPENBLAS_ENV=1 run "$PY" "$S" --lib "$SO" --ts 32 --heads 1 --rounds 1
    expect_status 0 "a tiny run"
    rows=$(awk '$1 == 32 && ($2 == "no" || $2 == "yes") && $NF != "WRONG" && $3 != "-" && $5 != "-"' "$TMP/out" | wc -l)
    wide=$(awk 'length($0) > 80' "$TMP/out" | wc -l)
    if [ "$rows" -eq 4 ] && [ "$wide" -eq 0 ] && ! grep -q 'WRONG\|no figure' "$TMP/out"; then _ok; else
        _bad "a tiny run: $rows of 4 rows with figures, $wide lines over 80 columns: $(head -c 300 "$TMP/out")"
    fi
fi
finish
