#!/bin/sh
# test_bench_ring.sh — scripts/bench_ring.sh (make bench-chapter9) on a tiny run:
# its refusals (a bad rate or round count: exit 2; no chapter9, or a namespace
# that is not its own: exit 1, one sentence, the machine's loopback untouched),
# and one round on a limited link and one on the machine's own TCP: the
# printout's lines in order, the bytes it says a run sends equal to what the
# two ranks print, their time at the rate, ring.txt and ring.csv written whole
# and nothing left beside them. The times themselves are the machine's and
# are not checked. Without MPI, or where no private network namespace can be
# made (unshare, ip and tc, and root or user namespaces), the runs count as
# skipped, named.
. tests/lib.sh
suite test_bench_ring

B="sh scripts/bench_ring.sh"
P9="$BUILD/chapter9"
ARGS="--parallel sequence --seq-len 64 --heads 4"
RUN_CHECKS=11  # the checks of one run (check_run)

# the refusals need no MPI: they come before any run
run env RING_RATE=fast $B "$BUILD"
expect_usage_error "RING_RATE" "a rate tc does not know is refused"
run env RING_RATE=0gbit $B "$BUILD"
expect_usage_error "RING_RATE" "a rate of 0 is refused"
run env BENCH_ROUNDS=none $B "$BUILD"
expect_usage_error "BENCH_ROUNDS" "rounds that are not a number are refused"
run env BENCH_ROUNDS=0 $B "$BUILD"
expect_usage_error "BENCH_ROUNDS" "0 rounds are refused"
mkdir "$TMP/empty"
run $B "$TMP/empty"
expect_runtime_error "chapter9 is missing" "a build without chapter9 is a sentence"
expect_no_stdout "a build without chapter9 prints nothing"

MPIRUN=${MPIRUN:-mpirun}
if [ "${HAVE_MPI-unset}" = unset ]; then  # run by hand: look for MPI here
    command -v mpicc >/dev/null 2>&1 && HAVE_MPI=yes
fi
if [ -z "${MPIRUN_FLAGS+set}" ] && "$MPIRUN" --version 2>/dev/null | grep -q 'Open MPI'; then
    MPIRUN_FLAGS="-q --oversubscribe --mca pml ob1"  # as the Makefile sets them
    [ "$(id -u)" = 0 ] && MPIRUN_FLAGS="$MPIRUN_FLAGS --allow-run-as-root"
fi
export MPIRUN MPIRUN_FLAGS
if [ "$HAVE_MPI" != yes ] || ! command -v "$MPIRUN" >/dev/null 2>&1 || [ ! -x "$P9" ]; then
    skip "$((5 + 2 * RUN_CHECKS))" "MPI is not installed (apt-get install openmpi-bin libopenmpi-dev), so $P9 was not built"
    finish
    exit $?
fi

# make sanitize: LeakSanitizer reports memory Open MPI keeps until exit (as in
# test_ch09_program.sh), so leak checking is off for these runs; ASan's other
# checks and UBSan stay on. The bench runs build/chapter9 itself, never under
# $RUNNER (valgrind would only report Open MPI's memory).
export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

# told it is inside a namespace of its own when it is not: it refuses, and the
# machine's loopback keeps its queueing discipline
before=$(tc qdisc show dev lo 2>/dev/null)
run env RING_OUTER_NETNS="$(readlink /proc/self/ns/net)" $B "$BUILD"
expect_runtime_error "not in a network namespace of its own" "a namespace that is not its own is refused"
if [ "$(tc qdisc show dev lo 2>/dev/null)" = "$before" ]; then _ok; else _bad "the machine's loopback was changed"; fi

# the bytes the two ranks print for ARGS, summed: what the printout must say a run sends
OMPI_MCA_btl=tcp,self $MPIRUN $MPIRUN_FLAGS -np 2 "$P9" $ARGS >"$TMP/p9" 2>&1
want=$(awk '/^rank [0-9]*: folded/ { s += $8 } END { print s + 0 }' "$TMP/p9")

# check_run RATE LINK: one round; the printout's lines, the files
check_run() {
    out=$TMP/b.$1
    rm -rf "$out" && mkdir -p "$out" && ln -s "$(cd "$BUILD" && pwd)/chapter9" "$out/chapter9"
    run env RING_RATE="$1" BENCH_ROUNDS=1 BENCH_RING_ARGS="$ARGS" $B "$out"
    expect_status 0 "RING_RATE=$1: one round runs"
    expect_out_contains "Chapter 9's ring over TCP, overlapped or not (make bench-chapter9)" "RING_RATE=$1: the title"
    expect_out_contains "link: $2" "RING_RATE=$1: the link it ran on"
    expect_out_contains "  $ARGS" "RING_RATE=$1: the flags of the runs"
    if grep -Eq '^    1 \| +[0-9]+\.[0-9] +[0-9]+\.[0-9] \| +[0-9]+\.[0-9] +[0-9]+\.[0-9]$' "$TMP/out"; then _ok; else
        _bad "RING_RATE=$1: the round's line is not four times"
    fi
    if [ "$1" = off ]; then
        expect_out_contains "a run sends $want bytes over both ranks" "RING_RATE=off: the bytes the ranks printed"
    else  # 1gbit: bytes * 8 / 1e9 s
        ms=$(awk -v b="$want" 'BEGIN { printf "%.1f", b * 8 / 1e6 }')
        expect_out_contains "a run sends $want bytes over both ranks: $ms ms on the link at $1" \
            "RING_RATE=$1: the bytes the ranks printed and their time at the rate"
    fi
    if grep -Eq '^median waited: overlap [0-9]+\.[0-9] ms, --no-overlap [0-9]+\.[0-9] ms: ratio [0-9]+\.[0-9][0-9]$' "$TMP/out"; then
        _ok; else _bad "RING_RATE=$1: the medians' line"; fi
    if [ -f "$out/bench/ring.txt" ] && printf 'wrote %s\n' "$out/bench/ring.csv" | cat "$out/bench/ring.txt" - | cmp -s - "$TMP/out"; then
        _ok; else _bad "RING_RATE=$1: ring.txt is not the printout"; fi
    if [ "$(wc -l <"$out/bench/ring.csv" 2>/dev/null)" = 2 ] && head -1 "$out/bench/ring.csv" | grep -q '^round,overlap_computed_ms'; then
        _ok; else _bad "RING_RATE=$1: ring.csv is not a header and one round"; fi
    if [ -z "$(find "$out/bench" -name '*.tmp*')" ]; then _ok; else _bad "RING_RATE=$1: a temporary file is left"; fi
    if [ ! -s "$TMP/err" ]; then _ok; else _bad "RING_RATE=$1: a run that worked wrote to stderr"; fi
}

if [ -n "$want" ] && [ "$want" -gt 0 ]; then _ok; else _bad "the ranks printed no bytes sent for $ARGS"; fi
check_run off "the machine's own TCP (RING_RATE=off: not limited)"
if [ "$(id -u)" = 0 ]; then ns="unshare --net"; else ns="unshare --user --map-root-user --net"; fi
if command -v tc >/dev/null 2>&1 && command -v ip >/dev/null 2>&1 && $ns true 2>/dev/null &&
    $ns sh -c 'ip link set lo up && tc qdisc add dev lo root tbf rate 1gbit burst 256kb latency 100ms' 2>/dev/null; then
    check_run 1gbit "a private network namespace's loopback, limited to 1gbit (tc tbf)"
else
    skip "$RUN_CHECKS" "no private network namespace with a limited loopback here (unshare, ip and tc, and root or user namespaces)"
fi
finish
