#!/bin/sh
# test_lib.sh — the checks of tests/lib.sh pass and fail when they should: the
# program tests rest on them. Each helper runs in a subshell on prepared files;
# a check that should fail must add one failure and print its FAIL line.
. tests/lib.sh
suite test_lib

# outcome CMD...: "pass" or "fail", as the helper CMD counted it (in a subshell)
outcome() {
    (
        _passed=0 _failed=0
        "$@" >"$TMP/said" 2>&1
        if [ "$_failed" -eq 1 ] && [ "$_passed" -eq 0 ] && grep -q '^FAIL: ' "$TMP/said"; then echo fail
        elif [ "$_passed" -eq 1 ] && [ "$_failed" -eq 0 ] && [ ! -s "$TMP/said" ]; then echo pass
        else echo "passed $_passed, failed $_failed: $(cat "$TMP/said")"; fi
    )
}
want() { # WANT DESC CMD...
    _w=$1 _d=$2
    shift 2
    _got=$(outcome "$@")
    if [ "$_got" = "$_w" ]; then _ok; else _failed=$((_failed + 1)); echo "FAIL: $_d: expected $_w, got $_got"; fi
}

status=0
printf 'first line\nsecond: the text\n' >"$TMP/out"
printf 'one sentence, no newline' >"$TMP/err"
want pass "a text on the second line of stdout" expect_out_contains "the text" d
want fail "a text not on stdout" expect_out_contains "not there" d
want fail "stdout has it, so 'lacks' fails" expect_out_lacks "first" d
want pass "stdout lacks it" expect_out_lacks "third" d
want pass "a line without its newline counts as one line" expect_one_line d
want pass "and is searched" expect_err_contains "no newline" d
printf 'a\nb\n' >"$TMP/err"
want fail "two lines are not one sentence" expect_one_line d
: >"$TMP/err"
want fail "no line is not one sentence" expect_one_line d
# a long stdout: the text after the lines the shell reads itself is still found
i=0
while [ $i -lt 150 ]; do echo "line $i"; i=$((i + 1)); done >"$TMP/out"
echo "far down" >>"$TMP/out"
want pass "a text after line 100" expect_out_contains "far down" d
want fail "a text nowhere in a long stdout" expect_out_contains "nowhere" d
want fail "'lacks' on a long stdout with it" expect_out_lacks "far down" d
status=2
want pass "status 2 as expected" expect_status 2 d
status=1
want fail "status 1, 2 expected" expect_status 2 d
# no output file, and no temporary beside it
want pass "nothing left" expect_no_file "$TMP/none.npy" d
: >"$TMP/left.npy"
want fail "the file itself is left" expect_no_file "$TMP/left.npy" d
: >"$TMP/tmpleft.npy.tmp.123"
want fail "a temporary is left" expect_no_file "$TMP/tmpleft.npy" d
finish
