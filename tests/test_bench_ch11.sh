#!/bin/sh
# test_bench_ch11.sh — scripts/bench_ch11.py (make bench-chapter11) runs, without timing:
# its usage errors exit 2, a library it cannot load exits 1, and a tiny run (dim 32,
# 4 query heads, 2 kv heads, 8 and 20 tokens, one round, the environment's OpenBLAS
# kernels: no race) exits 0 with a row per length, the C step's outputs equal to both
# PyTorch loops' (the script checks them; WRONG marks a row that is not), every line
# within 80 columns, and the csv it says it wrote. No figure is checked: the times
# depend on the machine. Skipped under $RUNNER, without a Python that imports torch and numpy; the tiny
# run also without $BUILD/libattn_bench.so (make bench-chapter11 builds it; make test does not).
. tests/lib.sh
suite test_bench_ch11

S=scripts/bench_ch11.py
SO=$BUILD/libattn_bench.so
if [ -n "$RUNNER" ]; then   # the runs are Python's: under valgrind they would check the interpreter
    skip 11 "under RUNNER ($RUNNER): scripts/bench_ch11.py is Python, not a program of ours"
    finish
    exit
fi
if ! PY=$(sh scripts/find_python.sh torch numpy 2>/dev/null); then
    skip 11 "no Python with torch and numpy: scripts/bench_ch11.py is not run"
    finish
    exit
fi

run "$PY" "$S" --lib "$SO" --rounds -1
expect_status 2 "--rounds -1"
expect_err_contains "--rounds must be >= 0" "--rounds -1 says why"
run "$PY" "$S" --lib "$SO" --steps 12,x
expect_status 2 "--steps with a word"
run "$PY" "$S" --lib "$SO" --heads 6 --kv-heads 4
expect_status 2 "kv heads that do not divide the heads"
expect_err_contains "kv heads dividing heads" "--kv-heads 4 of 6 says why"
run "$PY" "$S" --quick
expect_status 2 "no --lib"
run "$PY" "$S" --lib "$TMP/nothing.so"
expect_status 1 "a library that is not there"
expect_err_contains "cannot load" "a library that is not there says so"

if [ ! -f "$SO" ]; then
    skip 3 "no $SO (make bench-chapter11 builds it): the tiny run and the library's errors are not run"
else
    # the library's own errors come back as status 1 and a sentence, never an exit of Python
    cat >"$TMP/errors.py" <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.bench11_last_error.restype = ctypes.c_char_p
wall = ctypes.c_double()
st = lib.bench11_decode(ctypes.c_int64(1), None, None, ctypes.byref(wall))
print(st, lib.bench11_last_error().decode())
st = lib.bench11_setup(*(ctypes.c_int64(n) for n in (16, 4, 3, 8)), None, None, None, None)
print(st, lib.bench11_last_error().decode())
PY
    run "$PY" "$TMP/errors.py" "$SO"
    expect_out_contains "1 bench11_decode: no module (bench11_setup first)" "a decode before the setup"
    expect_out_contains "1 n_kv_heads = 3 must divide n_heads = 4" "a setup with 3 kv heads for 4"
    BENCH_KEEP_OPENBLAS_ENV=1 run "$PY" "$S" --lib "$SO" --steps 8,20 --dim 32 --heads 4 --kv-heads 2 --rounds 1 \
        --triad-mib 1 --csv "$TMP/t.csv"
    rows=$(awk '($1 == 8 || $1 == 20) && NF == 8 && $5 ~ /x$/' "$TMP/out" | wc -l)
    wide=$(awk 'length($0) > 80' "$TMP/out" | wc -l)
    csv=$(awk -F, 'NR > 1 && NF == 7' "$TMP/t.csv" 2>/dev/null | wc -l)
    if [ "$status" -eq 0 ] && [ "$rows" -eq 2 ] && [ "$wide" -eq 0 ] && [ "$csv" -eq 2 ] &&
        ! grep -q 'WRONG' "$TMP/out"; then _ok; else
        _bad "a tiny run: exit $status, $rows of 2 rows, $wide lines over 80 columns, $csv csv rows: $(head -c 400 "$TMP/out")"
    fi
fi
finish
