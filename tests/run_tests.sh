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
passed=0
failed=0
skipped=0
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT INT TERM
for t in "$@"; do
    case "$t" in
        *.sh) sh "$t" >"$log" 2>&1; rc=$? ;;
        *)
            if [ ! -x "$t" ]; then
                echo "$t: missing (not built)"
                failed=$((failed + 1))
                continue
            fi
            $RUNNER "$t" >"$log" 2>&1; rc=$? ;;
    esac
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
