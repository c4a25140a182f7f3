#!/bin/sh
# test_bench_ch13.sh — scripts/bench_ch13.py (make bench-chapter13) runs, without timing:
# its usage errors exit 2, a chapter13 that is not there exits 1, and a tiny run (dim 8,
# vocab 11, a batch of 2 x 8, one round of one step) exits 0 with the CPU line and both
# rows (train, decode: two rates and their ratio, numbers), every line within 80 columns.
# No figure is checked: the times depend on the machine. Skipped under $RUNNER and without
# a Python that imports torch and numpy.
. tests/lib.sh
suite test_bench_ch13

S=scripts/bench_ch13.py
if [ -n "$RUNNER" ]; then   # the runs are Python's: under valgrind they would check the interpreter
    skip 7 "under RUNNER ($RUNNER): scripts/bench_ch13.py is Python, not a program of ours"
    finish
    exit
fi
if ! PY=$(sh scripts/find_python.sh torch numpy 2>/dev/null); then
    skip 7 "no Python with torch and numpy: scripts/bench_ch13.py is not run"
    finish
    exit
fi

run "$PY" "$S" --chapter13 "$BUILD/chapter13" --rounds 0
expect_status 2 "--rounds 0"
expect_err_contains "--rounds must be >= 1" "--rounds 0 says why"
run "$PY" "$S" --quick
expect_status 2 "no --chapter13"
run "$PY" "$S" --chapter13 "$TMP/nothing"
expect_status 1 "a chapter13 that is not there"
expect_err_contains "is not a program" "a chapter13 that is not there says so"

run "$PY" "$S" --chapter13 "$BUILD/chapter13" --dim 8 --vocab 11 --batch 2 --seq-len 8 --rounds 1 --steps 1
expect_status 0 "a tiny run"
rows=$(awk '($1 == "train" || $1 == "decode") && NF == 4 && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+\.[0-9]+$/' \
    "$TMP/out" | wc -l)
wide=$(awk 'length($0) > 80' "$TMP/out" | wc -l)
if [ "$rows" -eq 2 ] && [ "$wide" -eq 0 ] && grep -q '^CPU: .*, vector unit ' "$TMP/out"; then _ok; else
    _bad "a tiny run: $rows of 2 rows parse, $wide lines over 80 columns: $(head -c 400 "$TMP/out")"
fi
finish
