# lib.sh — helpers for tests that run the programs (sourced by tests/test_*.sh).
#
#   . tests/lib.sh
#   suite test_ch04_program
#   run build/chapter4 --seq-len 5 --quiet         # sets $status, $out, $err
#   expect_status 0 "default run"
#   expect_out_contains "weights" "prints the weights"
#   run build/chapter4 --heads 2
#   expect_usage_error "--heads does not apply"    # exit 2, one stderr line naming --heads
#   finish
#
# Programs run under $RUNNER (valgrind in make memcheck). Each expect_* is one
# check; finish prints "<suite>: N passed, M failed[, K skipped]" and sets the
# exit status; skip N WHY counts checks that cannot run on this machine.
BUILD=${BUILD:-build}
_passed=0
_failed=0
_suite=test
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

suite() { _suite=$1; }

run() {
    $RUNNER "$@" >"$TMP/out" 2>"$TMP/err"
    status=$?
    out=$(cat "$TMP/out")
    err=$(cat "$TMP/err")
    _cmd="$*"
}

_ok() { _passed=$((_passed + 1)); }
_bad() {
    _failed=$((_failed + 1))
    echo "FAIL: $1"
    echo "      command: $_cmd"
    echo "      exit $status; stderr: $(head -c 600 "$TMP/err")"
}

expect_status() { # CODE DESC
    if [ "$status" -eq "$1" ]; then _ok; else _bad "$2: expected exit $1"; fi
}

expect_out_contains() { # TEXT DESC
    if grep -qF -- "$1" "$TMP/out"; then _ok; else _bad "$2: stdout lacks '$1'"; fi
}

expect_out_lacks() { # TEXT DESC
    if grep -qF -- "$1" "$TMP/out"; then _bad "$2: stdout has '$1'"; else _ok; fi
}

expect_err_contains() { # TEXT DESC
    if grep -qF -- "$1" "$TMP/err"; then _ok; else _bad "$2: stderr lacks '$1'"; fi
}

# One sentence: exactly one line on stderr (valgrind adds none with -q when clean).
expect_one_line() { # DESC
    n=$(grep -c '' "$TMP/err")
    if [ "$n" -eq 1 ]; then _ok; else _bad "$1: expected exactly one line on stderr, got $n"; fi
}

expect_usage_error() { # TEXT DESC   (exit 2, one line naming TEXT)
    expect_status 2 "$2"
    expect_one_line "$2"
    expect_err_contains "$1" "$2"
}

expect_runtime_error() { # TEXT DESC (exit 1, one line naming TEXT)
    expect_status 1 "$2"
    expect_one_line "$2"
    expect_err_contains "$1" "$2"
}

expect_no_file() { # PATH DESC  (also no temporary leftovers beside it)
    if [ -e "$1" ] || ls "$1".tmp.* >/dev/null 2>&1; then _bad "$2: $1 (or a temporary) was left behind"; else _ok; fi
}

expect_file() { # PATH DESC
    if [ -s "$1" ]; then _ok; else _bad "$2: $1 was not written"; fi
}

# Compare two .npy files of float32 data written by our programs or PyTorch:
# same shape and |a - b| <= atol + rtol*|b| everywhere (uses build/npyinfo).
expect_npy_close() { # A B RTOL ATOL DESC
    if "$BUILD/npyinfo" --compare "$1" "$2" "$3" "$4" >"$TMP/cmp" 2>&1; then _ok; else _bad "$5: $(cat "$TMP/cmp")"; fi
}

# A bad input for the program $P: run it with --output, expect one sentence
# naming TEXT (exit 1, or exit 2 for a usage error) and no output file.
bad_runtime() { # TEXT DESC ARGS...
    text=$1
    desc=$2
    shift 2
    rm -f "$TMP/bad.npy"
    run "$P" "$@" --output "$TMP/bad.npy"
    expect_runtime_error "$text" "$desc"
    expect_no_file "$TMP/bad.npy" "$desc"
}
bad_usage() { # TEXT DESC ARGS...
    text=$1
    desc=$2
    shift 2
    rm -f "$TMP/bad.npy"
    run "$P" "$@" --output "$TMP/bad.npy"
    expect_usage_error "$text" "$desc"
    expect_no_file "$TMP/bad.npy" "$desc"
}

# skip N WHY: N checks cannot run here (a missing tool, not root); they are
# counted as skipped on the summary line, never silently dropped.
_skipped=0
skip() { # N WHY
    _skipped=$((_skipped + $1))
    echo "SKIP: $1 check(s): $2"
}

finish() {
    if [ "$_skipped" -gt 0 ]; then
        echo "$_suite: $_passed passed, $_failed failed, $_skipped skipped"
    else
        echo "$_suite: $_passed passed, $_failed failed"
    fi
    [ "$_failed" -eq 0 ]
}
