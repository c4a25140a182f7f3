#!/bin/sh
# run_tests.sh — run test programs and add up their results.
#
# Each argument is a test binary or a tests/*.sh script. Each prints lines for
# failing checks and ends with "<name>: N passed, M failed" (", K skipped" may
# follow, for checks that need something this machine lacks, e.g. MPI). A
# program that crashes or ends without that line counts as one failed test.
# The last line printed here is the total, "N passed, M failed, K skipped";
# exit status 1 if M > 0.
# RUNNER (e.g. valgrind) wraps each binary; scripts get BUILD and RUNNER.
# TEST_JOBS (default: the number of CPUs) tests run at the same time, started
# in the order given (so put the slowest first); each one's output is kept in
# its own file and reported in that same order, as if they had run one by one.
passed=0
failed=0
skipped=0
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
jobs=${TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case $jobs in
    '' | *[!0-9]* | 0 | 0*)
        if [ -n "${TEST_JOBS:-}" ]; then
            echo "run_tests.sh: TEST_JOBS='$TEST_JOBS': must be a whole number of tests at a time, 1 or more" >&2
            exit 2
        fi
        jobs=1 ;;
esac

# run_one I TEST: run TEST, its output in $dir/I.log and its exit status in $dir/I.rc
run_one() {
    case "$2" in
        *.sh) sh "$2" >"$dir/$1.log" 2>&1 ;;
        *)
            if [ ! -x "$2" ]; then
                echo "$2: missing (not built)" >"$dir/$1.log"
                echo missing >"$dir/$1.rc"
                return
            fi
            $RUNNER "$2" >"$dir/$1.log" 2>&1 ;;
    esac
    echo $? >"$dir/$1.rc"
}

# start them all, at most $jobs at a time: a FIFO holds one line per free slot; a
# test takes a line before it starts and puts it back when it ends (a loop that
# looked for finished tests every 0.1 s started over a thousand sleep processes
# in one make test)
mkfifo "$dir/slots" || exit 1
exec 3<>"$dir/slots"
i=0
while [ "$i" -lt "$jobs" ]; do
    echo >&3
    i=$((i + 1))
done
i=0
for t in "$@"; do
    read -r _ <&3
    { run_one "$i" "$t" 3>&-; echo >&3; } &
    i=$((i + 1))
done
wait
exec 3>&-

# report in the order given
i=0
for t in "$@"; do
    log=$dir/$i.log
    rc=$(cat "$dir/$i.rc" 2>/dev/null || echo 1)
    i=$((i + 1))
    if [ "$rc" = missing ]; then
        cat "$log"
        failed=$((failed + 1))
        continue
    fi
    summary=$(grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
    if [ -z "$summary" ]; then
        cat "$log"
        echo "$t: ended with exit status $rc before printing its summary"
        failed=$((failed + 1))
        continue
    fi
    p=$(echo "$summary" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*$/\1/')
    f=$(echo "$summary" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*$/\2/')
    k=0
    case "$summary" in *skipped) k=$(echo "$summary" | sed -E 's/.*, ([0-9]+) skipped$/\1/') ;; esac
    if [ "$f" -gt 0 ] || [ "$rc" -ne 0 ]; then
        grep -v -F "$summary" "$log"
        if [ "$f" -eq 0 ]; then
            echo "$t: exit status $rc (memory errors?) although its checks passed"
            f=1
        fi
    fi
    grep '^SKIP: ' "$log"
    echo "$summary"
    skipped=$((skipped + k))
    passed=$((passed + p))
    failed=$((failed + f))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
