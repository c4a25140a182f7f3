# lib.sh — helpers for tests that run the programs (sourced by tests/test_*.sh).
#
#   . tests/lib.sh
#   suite test_ch04_program
#   run build/chapter4 --max-seq-len 5 --quiet         # sets $status; output in $TMP/out, $TMP/err
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
# The programs speak the language of LC_ALL, LC_MESSAGES or LANG (--lang en|zh):
# every test, and every transcript of the docs, runs them in English unless it
# says --lang zh or sets these itself (tests/test_lang.sh).
LC_ALL=C
export LC_ALL
_passed=0
_failed=0
_suite=test
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

suite() { _suite=$1; }

run() {
    $RUNNER "$@" >"$TMP/out" 2>"$TMP/err"
    status=$?
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

# The checks below read small files in the shell itself: a make test runs thousands
# of them, and a grep, ls or rm each is a process (several ms of CPU here).
# _has TEXT FILE: whether a line of FILE holds TEXT (grep -qF), the shell reading up
# to 100 lines and grep the rest
_has() {
    _all= _k=0
    while IFS= read -r _l || [ -n "$_l" ]; do
        _all="$_all$_l
"
        _k=$((_k + 1))
        [ "$_k" -ge 100 ] && break
    done <"$2"
    case $_all in *"$1"*) return 0 ;; esac
    [ "$_k" -ge 100 ] && grep -qF -- "$1" "$2"
}

# _nlines FILE: its number of lines in $_n (grep -c ''), counting stops at 2
_nlines() {
    _n=0
    while IFS= read -r _l || [ -n "$_l" ]; do
        _n=$((_n + 1))
        [ "$_n" -ge 2 ] && break
    done <"$1"
}

expect_out_contains() { # TEXT DESC
    if _has "$1" "$TMP/out"; then _ok; else _bad "$2: stdout lacks '$1'"; fi
}

expect_out_lacks() { # TEXT DESC
    if _has "$1" "$TMP/out"; then _bad "$2: stdout has '$1'"; else _ok; fi
}

expect_err_contains() { # TEXT DESC
    if _has "$1" "$TMP/err"; then _ok; else _bad "$2: stderr lacks '$1'"; fi
}

# One sentence: exactly one line on stderr (valgrind adds none with -q when clean).
expect_one_line() { # DESC
    _nlines "$TMP/err"
    if [ "$_n" -eq 1 ]; then _ok; else _bad "$1: expected exactly one line on stderr, got $(grep -c '' "$TMP/err")"; fi
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

expect_no_stdout() { # DESC   (a refusal prints nothing on stdout)
    if [ -s "$TMP/out" ]; then _bad "$1: expected nothing on stdout, got $(head -c 200 "$TMP/out")"; else _ok; fi
}

expect_no_file() { # PATH DESC  (also no temporary leftovers beside it)
    _left=
    [ -e "$1" ] && _left=$1
    for _f in "$1".tmp.*; do [ -e "$_f" ] && _left=$_f; done
    if [ -n "$_left" ]; then _bad "$2: $_left was left behind"; else _ok; fi
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
    [ -e "$TMP/bad.npy" ] && rm -f "$TMP/bad.npy"
    run "$P" "$@" --output "$TMP/bad.npy"
    expect_runtime_error "$text" "$desc"
    expect_no_file "$TMP/bad.npy" "$desc"
}
bad_usage() { # TEXT DESC ARGS...
    text=$1
    desc=$2
    shift 2
    [ -e "$TMP/bad.npy" ] && rm -f "$TMP/bad.npy"
    run "$P" "$@" --output "$TMP/bad.npy"
    expect_usage_error "$text" "$desc"
    expect_no_file "$TMP/bad.npy" "$desc"
}

# skip N WHY: N checks cannot run here (a missing tool, not root); they are
# counted as skipped on the summary line, never silently dropped.
_skipped=0
# sanitized: the programs of $BUILD are built with a sanitizer (make sanitize): they run
# several times slower, hold shadow memory beside their own and cannot start under a
# small ulimit -v, so checks of speed, resident memory or address-space limits skip
sanitized() {
    case $(cat "$BUILD/.flags" 2>/dev/null) in *-fsanitize=*) return 0 ;; esac
    return 1
}

skip() { # N WHY
    _skipped=$((_skipped + $1))
    echo "SKIP: $1 check(s): $2"
}

# grader_suite_only_once: the grader builds what it runs itself (static, with its own
# flags: scripts/exercises/grade_lib.sh), so under make sanitize or make memcheck a
# grading suite would run the same uninstrumented code again; it runs in make test.
grader_suite_only_once() {
    if sanitized || [ -n "${RUNNER:-}" ]; then
        skip 1 "the whole suite: the grader builds and runs its own uninstrumented programs, graded in make test"
        finish
        exit $?
    fi
}

finish() {
    if [ "$_skipped" -gt 0 ]; then
        echo "$_suite: $_passed passed, $_failed failed, $_skipped skipped"
    else
        echo "$_suite: $_passed passed, $_failed failed"
    fi
    [ "$_failed" -eq 0 ]
}

# The flags of a default-run fixture folder (scripts/golden/ch03.py .. ch07.py):
# s<seed>_b<B>_t<T>_i<d_in>_o<d_out>[_h<H>][_p<p>][_L<max_seq_len>][_bias][_resid][_train|_eval]
default_run_flags() { # NAME
    _f=""
    for _part in $(echo "$1" | tr '_' ' '); do
        case $_part in
            bias) _f="$_f --bias" ;;
            resid) _f="$_f --resid-dropout" ;;
            train) ;;
            eval) _f="$_f --eval" ;;
            s*) _f="$_f --seed ${_part#s}" ;;
            b*) _f="$_f --batch ${_part#b}" ;;
            t*) _f="$_f --seq-len ${_part#t}" ;;
            i*) _f="$_f --d-in ${_part#i}" ;;
            o*) _f="$_f --d-out ${_part#o}" ;;
            h*) _f="$_f --heads ${_part#h}" ;;
            p*) _f="$_f --dropout ${_part#p}" ;;
            L*) _f="$_f --max-seq-len ${_part#L}" ;;
        esac
    done
    echo "$_f"
}

# Run $P with no input file for every folder DIR/*/ (its flags from its name);
# its output must be PyTorch's out.npy within 1e-5 and its --dump x.npy
# PyTorch's x exactly. At least MIN folders must be there.
check_default_runs() { # DIR MIN
    _n=0
    for _d in "$1"/*/; do
        [ -f "$_d/out.npy" ] || continue
        _name=$(basename "$_d")
        rm -rf "$TMP/dflt" "$TMP/dflt.npy"
        # shellcheck disable=SC2046
        run "$P" $(default_run_flags "$_name") --quiet --output "$TMP/dflt.npy" --dump "$TMP/dflt"
        expect_status 0 "default run $_name"
        expect_npy_close "$TMP/dflt.npy" "$_d/out.npy" 1e-5 1e-5 "default run $_name == PyTorch"
        expect_npy_close "$TMP/dflt/x.npy" "$_d/x.npy" 0 0 "default run $_name: x == torch.randn"
        _n=$((_n + 1))
    done
    if [ "$_n" -ge "$2" ]; then _ok; else _bad "only $_n default-run fixtures in $1 (want $2)"; fi
}
