#!/bin/sh
# test_run_tests.sh — tests/run_tests.sh, the runner of make test: with several
# tests at a time it reports them in the order given (not the order they end),
# adds up passed/failed/skipped, counts a crash, a missing binary, a missing
# summary or a non-zero exit as a failure, runs TEST_JOBS tests at a time (never
# more), and refuses a bad TEST_JOBS.
. tests/lib.sh
suite test_run_tests

# runner JOBS TEST...: run_tests.sh itself, never under $RUNNER (valgrind would watch sh)
runner() {
    _j=$1
    shift
    TEST_JOBS=$_j RUNNER= sh tests/run_tests.sh "$@" >"$TMP/out" 2>"$TMP/err"
    status=$?
    _cmd="TEST_JOBS=$_j sh tests/run_tests.sh $*"
}

D=$TMP/fake
mkdir -p "$D"
# slow first: with 2 at a time, b ends before a
printf 'sleep 0.5; echo "a: 3 passed, 0 failed"\n' >"$D/a.sh"
printf 'echo "b: 1 passed, 1 failed, 2 skipped"; echo "FAIL: b thing"\n' >"$D/b.sh"
printf 'echo boom; exit 3\n' >"$D/c.sh"
printf 'echo "d: 2 passed, 0 failed"; exit 1\n' >"$D/d.sh"
printf 'echo "e: 4 passed, 0 failed"\n' >"$D/e.sh"
want="a: 3 passed, 0 failed
FAIL: b thing
b: 1 passed, 1 failed, 2 skipped
boom
$D/c.sh: ended with exit status 3 before printing its summary
$D/nothere: missing (not built)
$D/d.sh: exit status 1 (memory errors?) although its checks passed
d: 2 passed, 0 failed
e: 4 passed, 0 failed
10 passed, 4 failed, 2 skipped"
for j in 1 2 4; do
    runner $j "$D/a.sh" "$D/b.sh" "$D/c.sh" "$D/nothere" "$D/d.sh" "$D/e.sh"
    expect_status 1 "TEST_JOBS=$j: failures give exit 1"
    if [ "$(cat "$TMP/out")" = "$want" ]; then _ok; else _bad "TEST_JOBS=$j: report in the given order with the totals; got: $(tr "\n" "|" <"$TMP/out")"; fi
done
# at most TEST_JOBS at a time, and that many when there are enough: each test counts
# the tests running beside it (a file per running test) and writes the count down
mkdir -p "$TMP/running"
: >"$TMP/seen"
# (each waits, up to 20 s, until WANT tests run at once: no test relies on the
# machine being quick enough to start the others within a fixed time)
cat >"$D/w.sh" <<EOF
touch "$TMP/running/\$\$"
n=0
while [ "\$(ls "$TMP/running" | wc -l)" -lt "\$WANT" ] && [ \$n -lt 400 ]; do sleep 0.05; n=\$((n + 1)); done
ls "$TMP/running" | wc -l >>"$TMP/seen"
sleep 0.1
rm "$TMP/running/\$\$"
echo "w: 1 passed, 0 failed"
EOF
for j in 1 2; do
    : >"$TMP/seen"
    export WANT=$j
    runner $j "$D/w.sh" "$D/w.sh" "$D/w.sh" "$D/w.sh"
    most=$(sort -n "$TMP/seen" | tail -n 1 | tr -d ' ')
    if [ "$status" -eq 0 ] && [ "$most" = "$j" ]; then _ok; else
        _bad "TEST_JOBS=$j: $j tests at a time, never more (exit $status, at most $most at once)"
    fi
done
runner 2 "$D/a.sh" "$D/e.sh"
expect_status 0 "all passing: exit 0"
expect_out_contains "7 passed, 0 failed, 0 skipped" "the closing line adds them up"
for v in abc 0 -1 1.5 07; do
    runner $v "$D/e.sh"
    expect_usage_error "TEST_JOBS='$v'" "TEST_JOBS=$v is refused"
done
finish
