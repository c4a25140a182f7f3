#!/bin/sh
# bench_ring.sh — make bench-chapter9: does chapter 9's overlapped ring wait less?
#
# Runs build/chapter9 --parallel sequence on 2 processes, overlapped and
# --no-overlap, in interleaved rounds, and sums each run's per-rank lines
# "computed C ms, waited W ms" over the ranks. The messages cross a network
# link slow enough to see: Open MPI's TCP transport (OMPI_MCA_btl=tcp,self) in
# a private network namespace (unshare) whose loopback the kernel's token
# bucket filter limits to RING_RATE (tc qdisc tbf; default 1gbit, a 1 Gbit/s
# Ethernet link). Nothing outside the namespace is touched. RING_RATE=off runs
# on the machine's own TCP instead, as fast as the kernel copies.
# Prints each round, the bytes a run puts on the link and their time at the
# rate, the medians and the ratio of the waits (a ratio in one run, never an
# absolute claim); writes BUILD/bench/ring.txt (this printout) and ring.csv.
#
#     sh scripts/bench_ring.sh BUILD      (MPIRUN, MPIRUN_FLAGS from the Makefile;
#                                          BENCH_ROUNDS, BENCH_RING_ARGS, RING_RATE)
set -u
BUILD=${1:-build}
MPIRUN=${MPIRUN:-mpirun}
ROUNDS=${BENCH_ROUNDS:-9}
RATE=${RING_RATE:-1gbit}
ARGS=${BENCH_RING_ARGS:---parallel sequence --batch 1 --seq-len 8192 --d-in 64 --d-out 128 --heads 4}
me="bench_ring.sh"

case $ROUNDS in '' | *[!0-9]* | 0) echo "$me: BENCH_ROUNDS is '$ROUNDS': give a whole number of rounds, at least 1" >&2; exit 2 ;; esac
# the rate in bits per second, from tc's units (kbit, mbit, gbit)
case $RATE in
    off) bps=0 ;;
    *[0-9]kbit | *[0-9]mbit | *[0-9]gbit)
        n=${RATE%?bit}
        case $n in *[!0-9]*) bps= ;; *) case $RATE in *kbit) bps=${n}000 ;; *mbit) bps=${n}000000 ;; *) bps=${n}000000000 ;; esac ;; esac ;;
    *) bps= ;;
esac
case $bps in '' | 0 | 00*) [ "$RATE" = off ] || bps= ;; esac
if [ -z "$bps" ]; then
    echo "$me: RING_RATE is '$RATE': give a rate such as 1gbit, 500mbit or 100000kbit, or off" >&2
    exit 2
fi
[ -x "$BUILD/chapter9" ] || { echo "$me: $BUILD/chapter9 is missing (make needs MPI for it)" >&2; exit 1; }

# Inside the namespace (the script runs itself again there): bring up its
# loopback and limit it; Open MPI is told to use that loopback, which it leaves
# out by default. In a user namespace this process is root to mpirun: allowed.
# The namespace is checked to be a new one: this never limits the machine's own loopback.
ns=$(readlink /proc/self/ns/net 2>/dev/null || echo unknown)
if [ -n "${RING_OUTER_NETNS:-}" ]; then
    if [ "$ns" = unknown ] || [ "$ns" = "$RING_OUTER_NETNS" ]; then
        echo "$me: not in a network namespace of its own, so the loopback is left alone" >&2
        exit 1
    fi
    if ! err=$({ ip link set lo up && tc qdisc add dev lo root tbf rate "$RATE" burst 256kb latency 100ms; } 2>&1); then
        echo "$me: cannot limit the namespace's loopback to $RATE: $(echo "$err" | head -1)" >&2
        exit 1
    fi
    export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    link="a private network namespace's loopback, limited to $RATE (tc tbf)"
elif [ "$RATE" != off ]; then
    command -v unshare >/dev/null 2>&1 && command -v tc >/dev/null 2>&1 && command -v ip >/dev/null 2>&1 || {
        echo "$me: limiting the link needs unshare (util-linux), ip and tc (iproute2); RING_RATE=off runs on the machine's own TCP" >&2
        exit 1
    }
    if [ "$(id -u)" = 0 ]; then set -- unshare --net; else set -- unshare --user --map-root-user --net; fi
    if ! "$@" true 2>/dev/null; then
        echo "$me: cannot make a private network namespace ($* true failed: it needs root or user namespaces); RING_RATE=off runs on the machine's own TCP" >&2
        exit 1
    fi
    RING_OUTER_NETNS=$ns exec "$@" sh "$0" "$BUILD"
else
    link="the machine's own TCP (RING_RATE=off: not limited)"
fi

mkdir -p "$BUILD/bench"
txt=$BUILD/bench/ring.txt
csv=$BUILD/bench/ring.csv
tmp=$BUILD/bench/ring.$$.tmp
trap 'rm -f "$tmp" "$tmp.csv"' EXIT
trap 'exit 1' INT TERM  # an interrupted run leaves nothing half-written

# one run: "computed waited sent", each summed over the ranks (ms, ms, bytes)
one_run() { # FLAG
    # shellcheck disable=SC2086  # the flags are words
    OMPI_MCA_btl=tcp,self $MPIRUN ${MPIRUN_FLAGS:-} -np 2 "$BUILD/chapter9" $ARGS $1 |
        awk '/^rank [0-9]*: folded/ { c += $(NF - 4); w += $(NF - 1); s += $(NF - 7); n++ }
             END { if (n != 2) exit 1; printf "%.1f %.1f %d\n", c, w, s }'
}

load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*average[s]*: *//')
{
    echo "Chapter 9's ring over TCP, overlapped or not (make bench-chapter9)"
    echo "machine: $(getconf _NPROCESSORS_ONLN) cores; load average at the start: $load"
    echo "link: $link"
    echo "mpirun -np 2, OMPI_MCA_btl=tcp,self: build/chapter9"
    echo "  $ARGS"
    echo "times are summed over the 2 ranks, in ms"
    echo "round | overlap: computed  waited | --no-overlap: computed  waited"
} >"$tmp"
echo "round,overlap_computed_ms,overlap_waited_ms,no_overlap_computed_ms,no_overlap_waited_ms" >"$tmp.csv"
r=1
sent=0
while [ "$r" -le "$ROUNDS" ]; do
    a=$(one_run "") || { echo "$me: the overlapped run failed" >&2; rm -f "$tmp" "$tmp.csv"; exit 1; }
    b=$(one_run --no-overlap) || { echo "$me: the --no-overlap run failed" >&2; rm -f "$tmp" "$tmp.csv"; exit 1; }
    # shellcheck disable=SC2086  # three numbers each
    set -- $a $b
    sent=$3
    printf '%5d |          %8.1f %7.1f |               %8.1f %7.1f\n' "$r" "$1" "$2" "$4" "$5" >>"$tmp"
    echo "$r,$1,$2,$4,$5" >>"$tmp.csv"
    r=$((r + 1))
done
# what a run puts on the link (the ring's blocks and the gather), and its time at the rate
if [ "$bps" -gt 0 ]; then
    awk -v b="$sent" -v bps="$bps" -v rate="$RATE" \
        'BEGIN { printf "a run sends %d bytes over both ranks: %.1f ms on the link at %s\n", b, b * 8 * 1000 / bps, rate }' >>"$tmp"
else
    echo "a run sends $sent bytes over both ranks" >>"$tmp"
fi
# the medians of the waits, and their ratio
awk -F, 'NR > 1 { a[NR - 1] = $3; b[NR - 1] = $5; n = NR - 1 }
    function median(x, n,   i, j, t) {
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
        return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
    }
    END {
        ma = median(a, n); mb = median(b, n)
        printf "median waited: overlap %.1f ms, --no-overlap %.1f ms: ratio %.2f\n", ma, mb, (mb > 0 ? ma / mb : 0)
    }' "$tmp.csv" >>"$tmp"
mv "$tmp.csv" "$csv" && mv "$tmp" "$txt"
cat "$txt"
echo "wrote $csv"
