#!/bin/sh
# bench_ring.sh — make bench-chapter9: does chapter 9's overlapped ring wait less?
#
# Runs build/chapter9 --parallel sequence on 2 processes over TCP (Open MPI's
# OMPI_MCA_btl=tcp,self: messages through the kernel's network stack, costly
# enough to see), overlapped and --no-overlap, in interleaved rounds, and sums
# each run's per-rank lines "computed C ms, waited W ms" over the ranks. Prints
# each round, the medians and the ratio of the waits (a ratio in one run, never
# an absolute claim); writes BUILD/bench/ring.txt (this printout) and ring.csv.
#
#     sh scripts/bench_ring.sh BUILD      (MPIRUN, MPIRUN_FLAGS from the Makefile)
set -u
BUILD=${1:-build}
MPIRUN=${MPIRUN:-mpirun}
ROUNDS=${BENCH_ROUNDS:-5}
ARGS="--parallel sequence --batch 4 --seq-len 1024 --d-in 64 --d-out 256 --heads 8"
mkdir -p "$BUILD/bench"
txt=$BUILD/bench/ring.txt
csv=$BUILD/bench/ring.csv
[ -x "$BUILD/chapter9" ] || { echo "bench_ring.sh: $BUILD/chapter9 is missing (make needs MPI for it)" >&2; exit 1; }

# one run: "computed waited", each summed over the ranks, in ms
one_run() { # FLAG
    # shellcheck disable=SC2086  # the flags are words
    OMPI_MCA_btl=tcp,self $MPIRUN ${MPIRUN_FLAGS:-} -np 2 "$BUILD/chapter9" $ARGS $1 |
        awk '/^rank [0-9]*: folded/ { c += $(NF - 4); w += $(NF - 1); n++ }
             END { if (n != 2) exit 1; printf "%.1f %.1f\n", c, w }'
}

load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*average[s]*: *//')
{
    echo "Chapter 9's ring over TCP, overlapped or not (make bench-chapter9)"
    echo "machine: $(getconf _NPROCESSORS_ONLN) cores; load average at the start: $load"
    echo "mpirun -np 2, OMPI_MCA_btl=tcp,self: build/chapter9"
    echo "  $ARGS"
    echo "times are summed over the 2 ranks, in ms"
    echo "round | overlap: computed  waited | --no-overlap: computed  waited"
} >"$txt"
echo "round,overlap_computed_ms,overlap_waited_ms,no_overlap_computed_ms,no_overlap_waited_ms" >"$csv"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    a=$(one_run "") || { echo "bench_ring.sh: the overlapped run failed" >&2; exit 1; }
    b=$(one_run --no-overlap) || { echo "bench_ring.sh: the --no-overlap run failed" >&2; exit 1; }
    # shellcheck disable=SC2086  # two numbers each
    set -- $a $b
    printf '%5d |          %8.1f %7.1f |               %8.1f %7.1f\n' "$r" "$1" "$2" "$3" "$4" >>"$txt"
    echo "$r,$1,$2,$3,$4" >>"$csv"
    r=$((r + 1))
done
# the medians of the waits, and their ratio
awk -F, 'NR > 1 { a[NR - 1] = $3; b[NR - 1] = $5; n = NR - 1 }
    function median(x, n,   i, j, t) {
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
        return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
    }
    END {
        ma = median(a, n); mb = median(b, n)
        printf "median waited: overlap %.1f ms, --no-overlap %.1f ms: ratio %.2f\n", ma, mb, (mb > 0 ? ma / mb : 0)
    }' "$csv" >>"$txt"
cat "$txt"
echo "wrote $csv"
