#!/bin/sh
# test_ch09_program.sh — build/chapter9 under mpirun on 1 to 4 processes (more
# than the cores: --oversubscribe): both modes equal build/chapter7 --eval on the
# default model and on random inputs and weights folders (biases on and off,
# causal on and off, T < P), the bytes each rank counted equal the cost model,
# and every error (bad head count, bad file, bad shape, bad flag, unwritable
# output) is one sentence from rank 0 with exit 1 (2 for usage), no hang and no
# output file; a NaN or an inf in x gives chapter 7's output, or where the causal
# ring differs, what its README says. Chapter 7 is itself tested against PyTorch
# (test_ch07_program.sh).
#
# Without MPI (make without mpicc, or no mpirun) the checks count as skipped;
# under valgrind (make memcheck) too: Open MPI's own allocations and its
# shared-memory transport make valgrind reports about the library, not us.
# Under make sanitize, ASan's leak check is off for the mpirun runs (Open MPI
# keeps memory until exit); tests/test_ch09.c checks the chapter's MPI-free code
# with it on.
. tests/lib.sh
suite test_ch09_program

P9="$BUILD/chapter9"
P7="$BUILD/chapter7"
P10="$BUILD/chapter10"
OUT="$TMP/out.npy"
REF="$TMP/ref.npy"
MPI_CHECKS=286  # the number of checks below but the last, which checks this number
FULL_EXTRA=1333  # and how many more CH09_FULL=1 runs

MPIRUN=${MPIRUN:-mpirun}
if [ "${HAVE_MPI-unset}" = unset ]; then  # run by hand: look for MPI here
    command -v mpicc >/dev/null 2>&1 && HAVE_MPI=yes
fi
if [ -z "${MPIRUN_FLAGS+set}" ] && "$MPIRUN" --version 2>/dev/null | grep -q 'Open MPI'; then
    MPIRUN_FLAGS="-q --oversubscribe --mca pml ob1" # as the Makefile sets them
    [ "$(id -u)" = 0 ] && MPIRUN_FLAGS="$MPIRUN_FLAGS --allow-run-as-root"
fi
if [ "$HAVE_MPI" != yes ] || ! command -v "$MPIRUN" >/dev/null 2>&1 || [ ! -x "$P9" ]; then
    skip "$((MPI_CHECKS + 1))" "MPI is not installed (apt-get install openmpi-bin libopenmpi-dev), so $P9 was not built"
    finish
    exit $?
fi
case "$RUNNER" in
    *valgrind*)
        skip "$((MPI_CHECKS + 1))" "not under valgrind: it reports Open MPI's own memory, not chapter 9's"
        finish
        exit $?
        ;;
esac
# make sanitize: LeakSanitizer reports memory Open MPI keeps until exit, in modules it
# has unloaded (no names to suppress), so leak checking is off for these runs only;
# ASan's other checks and UBSan stay on.
export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
RUNNER=

# mp NP ARGS...: build/chapter9 on NP processes; a hang ends after 120 s (exit 124).
mp() {
    np=$1
    shift
    run timeout 120 $MPIRUN $MPIRUN_FLAGS -np "$np" "$P9" "$@"
}

# The bytes each rank counted equal the model: "rank R sent N bytes (model: N)".
expect_bytes_match() { # NP DESC
    n=$(grep -c '^rank [0-9]* sent [0-9]* bytes (model: [0-9]*)$' "$TMP/out")
    bad=$(sed -n 's/^rank \([0-9]*\) sent \([0-9]*\) bytes (model: \([0-9]*\))$/\1 \2 \3/p' "$TMP/out" |
        awk '$2 != $3 { print "rank " $1 ": sent " $2 ", model " $3 }')
    if [ "$n" -eq "$1" ] && [ -z "$bad" ]; then _ok; else _bad "$2: $n byte lines for $1 ranks; $bad"; fi
}

# The per-rank line, one per rank, its bytes those of "rank R sent N bytes", and (when
# WANT is not -) the key rows folded over all the ranks equal WANT.
expect_rank_lines() { # NP WANT DESC
    lines=$(grep -c '^rank [0-9]*: folded [0-9]* key rows, sent [0-9]* bytes, computed [0-9.]* ms, waited [0-9.]* ms$' "$TMP/out")
    sum=$(sed -n 's/^rank [0-9]*: folded \([0-9]*\) key rows, .*/\1/p' "$TMP/out" | awk '{ s += $1 } END { print s + 0 }')
    a=$(sed -n 's/^rank \([0-9]*\): folded [0-9]* key rows, sent \([0-9]*\) bytes.*/\1 \2/p' "$TMP/out")
    b=$(sed -n 's/^rank \([0-9]*\) sent \([0-9]*\) bytes (model: [0-9]*)$/\1 \2/p' "$TMP/out")
    if [ "$lines" -eq "$1" ] && [ "$a" = "$b" ] && { [ "$2" = - ] || [ "$sum" -eq "$2" ]; }; then _ok
    else _bad "$3: $lines per-rank lines for $1 ranks, folded $sum (want $2), bytes '$a' vs '$b'"; fi
}

# The busiest rank's folded key rows over the mean, times 100, from the per-rank lines.
busiest_pct() {
    sed -n 's/^rank [0-9]*: folded \([0-9]*\) key rows, .*/\1/p' "$TMP/out" |
        awk '{ s += $1; n++; if ($1 > m) m = $1 } END { if (s == 0) print 0; else printf "%d\n", 100 * m * n / s }'
}

# ---- the narrated default run ------------------------------------------------------
run "$P7" --eval --quiet --output "$REF"
expect_status 0 "chapter 7 --eval, the default model"
rm -f "$OUT"
mp 2 --output "$OUT"
expect_status 0 "default run on 2 processes"
expect_npy_close "$OUT" "$REF" 1e-5 1e-5 "default model, heads, P = 2 == chapter 7 --eval"
expect_out_contains "model_parallel_size = 2: each rank owns 1 of the 2 heads" "who owns the heads"
expect_out_contains "self.n_local_heads = args.n_heads // model_parallel_size" "the Happy-LLM line"
expect_out_contains "rank 1: heads [1, 2): wq, wk, wv rows [4, 8) -> (4, 10) each; wo columns ->" "rank 1's shards"
expect_out_contains "MPI_Allreduce(SUM) of (3, 5, 8) floats = 480 bytes per rank" "the all-reduce and its bytes"
expect_bytes_match 2 "heads: bytes counted == model"
expect_rank_lines 2 90 "heads, P = 2: each rank folds its heads' B T (T + 1) / 2 pairs"
expect_out_contains "max |output - chapter 7's mha_forward(x)|" "checks itself against chapter 7"
expect_out_contains "     T   H  P |      sent    memory |      sent    memory |      sent    memory" "the cost table"
# its first row's bytes, by hand: heads 3*5*8 floats = 480; sequence (zigzag, ranks own
# positions {0, 1, 4} and {2, 3}) rank 1 sends its 2 rows of K and V, 2*3*2*8*4 = 384, and
# its output, 192: 576; ulysses rank 1 (2 positions, 1 head of 4) 3*3*2*4 + 3*3*4 + 3*2*8
# floats = 624
row=$(grep '^     5   2  2 | ' "$TMP/out")
case $row in
    *"| 480 bytes "*"| 576 bytes "*"| 624 bytes "*) _ok ;;
    *) _bad "the cost table's first row: '$row'" ;;
esac
long=$(awk 'length($0) > 80' "$TMP/out" | head -n 1)
if [ -z "$long" ]; then _ok; else _bad "narration wider than 80 columns: $long"; fi

rm -f "$OUT"
mp 3 --parallel sequence --output "$OUT"
expect_status 0 "sequence on 3 processes"
expect_npy_close "$OUT" "$REF" 1e-5 1e-5 "default model, sequence, P = 3 == chapter 7 --eval"
expect_out_contains "rank 2: positions [4, 5) -> x (3, 1, 10)" "uneven chunks"
expect_out_contains "--layout contiguous: each rank owns one chunk of the 5 positions" "T < 2P: contiguous"
expect_out_contains "rank 0: K/V of rank 2: not received (its future)" "a future block is not sent"
expect_out_contains "rank 1: K/V of rank 0: all q x all k, 2 rows 384 bytes -> 2" "a past block is passed on"
expect_out_contains "rank 2 sends its (3, 1, 8) output rows: 96 bytes" "the gather and its bytes"
expect_bytes_match 3 "sequence: bytes counted == model"
expect_rank_lines 3 90 "sequence, P = 3: folded = B H T (T + 1) / 2"
long=$(awk 'length($0) > 80' "$TMP/out" | head -n 1)
if [ -z "$long" ]; then _ok; else _bad "narration wider than 80 columns: $long"; fi

mp 2 --quiet
expect_status 0 "--quiet"
if grep -qF "[1]" "$TMP/out"; then _bad "--quiet must not narrate"; else _ok; fi
expect_out_contains "output =" "--quiet prints the output"
expect_out_contains "tensor([[[" "--quiet prints the output tensor"
expect_out_lacks "rank 0 sent" "--quiet prints no byte counts"
expect_out_lacks "key rows" "--quiet prints no per-rank line"

run "$P9" --heads 4 --output "$OUT"  # no mpirun: one process (an MPI singleton)
expect_status 0 "build/chapter9 without mpirun"
expect_out_contains "rank 0 sent 0 bytes (model: 0)" "one process sends nothing"

mp 1 --help
expect_status 0 "--help"
expect_out_contains "--parallel" "--help names --parallel"
expect_out_contains "mpirun -np P" "--help says how to run it"
expect_out_contains "folder with wq wk wv wo.npy (bq bk bv bo: optional)" "--help: --weights names wo (chapter 7's module)"

# ---- random inputs and weights folders equal chapter 7 --eval, P = 1..4, both modes ------
# weights ~ N(0, 1/d_in) (nn.Linear's scale), so outputs stay O(1) and 1e-5 means 1e-5.
seed=1
make_case() { # DIR B T D_IN D_OUT BIAS(0/1)
    dir=$1
    mkdir -p "$dir/w"
    seed=$((seed + 10))
    "$BUILD/randnpy" "$seed" "$dir/x.npy" "$2" "$3" "$4"
    std_in=$(awk -v d="$4" 'BEGIN { print 1 / sqrt(d) }')
    std_out=$(awk -v d="$5" 'BEGIN { print 1 / sqrt(d) }')
    "$BUILD/randnpy" --std "$std_in" $((seed + 1)) "$dir/w/wq.npy" "$5" "$4"
    "$BUILD/randnpy" --std "$std_in" $((seed + 2)) "$dir/w/wk.npy" "$5" "$4"
    "$BUILD/randnpy" --std "$std_in" $((seed + 3)) "$dir/w/wv.npy" "$5" "$4"
    "$BUILD/randnpy" --std "$std_out" $((seed + 4)) "$dir/w/wo.npy" "$5" "$5"
    if [ "$6" = 1 ]; then
        for b in bq bk bv bo; do
            seed=$((seed + 1))
            "$BUILD/randnpy" --std 0.1 $((seed + 5)) "$dir/w/$b.npy" "$5"
        done
    fi
}

# Each case: "B T D_IN HEAD_DIM BIAS CAUSAL" with H = 12 heads (divisible by 1..4), and
# which (P, mode) runs it. make test: every P and both modes once, each case with
# biases and causal on or off in both modes. CH09_FULL=1 (make test-chapter9-full):
# every case on every P in both modes.
# sequence runs the default layout (zigzag when causal and T >= 2P), zigzag and contiguous
# ask for one; zigzag is left out where T < 2P.
if [ "${CH09_FULL:-0}" = 1 ]; then
    runs_a=
    for np in 1 2 3 4; do runs_a="$runs_a $np:heads $np:sequence $np:zigzag $np:contiguous $np:ulysses"; done
    runs_b=$runs_a runs_c=$runs_a runs_d=$runs_a
else
    runs_a="1:heads 2:sequence 3:heads 4:sequence 4:contiguous 3:ulysses"
    runs_b="1:sequence 2:heads 3:zigzag 4:heads 4:ulysses"
    runs_c= runs_d=
fi
for c in a b c d; do
    case $c in
        a) spec="2 9 7 2 1 causal" runs=$runs_a ;;
        b) spec="1 6 5 1 0 no-causal" runs=$runs_b ;;
        c) spec="3 13 4 3 1 no-causal" runs=$runs_c ;;
        d) spec="2 5 11 2 0 causal" runs=$runs_d ;;
    esac
    set -- $spec
    d_out=$((12 * $4))
    case_dir="$TMP/case_$c"
    make_case "$case_dir" "$1" "$2" "$3" "$d_out" "$5"
    [ -n "$runs" ] || continue
    run "$P7" --input "$case_dir/x.npy" --weights "$case_dir/w" --heads 12 --"$6" --eval --quiet --output "$REF"
    expect_status 0 "chapter 7 on B=$1 T=$2 d_in=$3 d_out=$d_out bias=$5 $6"
    for pm in $runs; do
        np=${pm%%:*} mode=${pm#*:}
        case $mode in
            zigzag | contiguous) flags="--parallel sequence --layout $mode" ;;
            *) flags="--parallel $mode" ;;
        esac
        [ "$mode" = zigzag ] && [ "$2" -lt $((2 * np)) ] && continue
        rm -f "$OUT"
        mp "$np" $flags --input "$case_dir/x.npy" --weights "$case_dir/w" --heads 12 --"$6" --output "$OUT"
        expect_status 0 "$mode, P = $np, B=$1 T=$2"
        expect_npy_close "$OUT" "$REF" 1e-5 1e-5 "$mode, P = $np, B=$1 T=$2 d_in=$3 d_out=$d_out bias=$5 $6"
        expect_bytes_match "$np" "$mode, P = $np, B=$1 T=$2: bytes counted == model"
        if [ "$6" = causal ]; then pairs=$(($1 * 12 * $2 * ($2 + 1) / 2)); else pairs=$(($1 * 12 * $2 * $2)); fi
        expect_rank_lines "$np" "$pairs" "$mode, P = $np, B=$1 T=$2 $6: the per-rank lines"
        case $mode in heads | ulysses) continue ;; esac
        # the ring: --no-overlap gives the same numbers, bit for bit
        mv "$OUT" "$TMP/overlap.npy"
        mp "$np" $flags --no-overlap --input "$case_dir/x.npy" --weights "$case_dir/w" --heads 12 --"$6" \
            --quiet --output "$OUT"
        if cmp -s "$OUT" "$TMP/overlap.npy"; then _ok; else _bad "$mode, P = $np, T=$2: --no-overlap differs"; fi
    done
done

# ---- a NaN or an inf in x: where chapter 9 gives chapter 7's output, and where not ---------
# Chapter 7 adds the mask's -inf to every score, and NaN + -inf is NaN, so one NaN key makes
# every row of its batch NaN, the rows before it too (PyTorch's additive mask does the same).
# heads, ulysses and the ring without a mask compute every score as chapter 7 does: the same
# output, NaN for NaN. The causal ring never meets a key in a block wholly in a row's future
# (it is not even sent): its NaN rows are the rows at or after the bad position and the rows
# of the rank that owns it (their diagonal block is one causal flash call, which adds the
# mask as chapter 7 does); every other row is chapter 7's on the finite input (README).
split_chunk() { # T N K: np.array_split(range(T), N)[K] as "start end"
    awk -v t="$1" -v n="$2" -v k="$3" \
        'BEGIN { q = int(t / n); r = t % n; s = k * q + (k < r ? k : r); print s, s + q + (k < r ? 1 : 0) }'
}
owned_ranges() { # LAYOUT T NP R: the "start end" ranges rank R owns
    if [ "$1" = zigzag ]; then
        split_chunk "$2" $((2 * $3)) "$4"
        split_chunk "$2" $((2 * $3)) $((2 * $3 - 1 - $4))
    else
        split_chunk "$2" "$3" "$4"
    fi
}
poke_nan_row() { # FILE ROW WIDTH: row ROW of a (rows, WIDTH) float32 .npy becomes NaN
    hl=$(od -An -tu2 -j8 -N2 "$1" | tr -d ' ')
    bytes= k=0
    while [ "$k" -lt "$3" ]; do bytes="$bytes\\000\\000\\300\\177" k=$((k + 1)); done
    printf "$bytes" | dd of="$1" bs=4 seek=$(((10 + hl) / 4 + $2 * $3)) conv=notrunc 2>/dev/null
}
poke_value() { # FILE INDEX BYTES: one float32 of a .npy
    hl=$(od -An -tu2 -j8 -N2 "$1" | tr -d ' ')
    printf "$3" | dd of="$1" bs=1 seek=$((10 + hl + 4 * $2)) conv=notrunc 2>/dev/null
}
# ring_nan_expected CLEAN OUT LAYOUT NP BATCH POS T D: chapter 7's output on the finite
# input with the rows the causal ring makes NaN set to NaN
ring_nan_expected() {
    cp "$1" "$2"
    owner_ranges=
    r=0
    while [ "$r" -lt "$4" ]; do
        rs=$(owned_ranges "$3" "$7" "$4" "$r")
        if echo "$rs" | awk -v p="$6" '$1 <= p && p < $2 { f = 1 } END { exit !f }'; then owner_ranges=$rs; fi
        r=$((r + 1))
    done
    i=0
    while [ "$i" -lt "$7" ]; do
        if [ "$i" -ge "$6" ] || echo "$owner_ranges" | awk -v p="$i" '$1 <= p && p < $2 { f = 1 } END { exit !f }'
        then poke_nan_row "$2" $(($5 * $7 + i)) "$8"; fi
        i=$((i + 1))
    done
}
nf_dir="$TMP/case_a"  # x (2, 9, 7), 12 heads of 2, biases
cp "$nf_dir/x.npy" "$TMP/x_nan.npy"
poke_value "$TMP/x_nan.npy" $((6 * 7 + 2)) '\000\000\300\177'       # x[0, 6, 2] = nan
cp "$nf_dir/x.npy" "$TMP/x_inf.npy"
poke_value "$TMP/x_inf.npy" $((9 * 7 + 3 * 7 + 1)) '\000\000\200\177' # x[1, 3, 1] = inf
run "$P7" --input "$nf_dir/x.npy" --weights "$nf_dir/w" --heads 12 --causal --eval --quiet --output "$TMP/clean7.npy"
expect_status 0 "chapter 7 on the finite x"
if [ "${CH09_FULL:-0}" = 1 ]; then
    nf_runs="nan:causal nan:no-causal inf:causal inf:no-causal"
    nf_modes="heads sequence zigzag contiguous ulysses"
    nf_nps="1 2 3 4"
else
    nf_runs="nan:causal"
    nf_modes="sequence ulysses"
    nf_nps="3"
fi
for nr in $nf_runs; do
    bad=${nr%%:*} mask=${nr#*:}
    if [ "$bad" = nan ]; then bb=0 bpos=6; else bb=1 bpos=3; fi
    run "$P7" --input "$TMP/x_$bad.npy" --weights "$nf_dir/w" --heads 12 --"$mask" --eval --quiet \
        --output "$TMP/ref_nf.npy"
    expect_status 0 "chapter 7 with $bad in x, $mask"
    # chapter 7 itself: batch $bb all NaN (the mask's -inf does not hide a NaN), the other batch finite
    "$BUILD/npyinfo" --print "$TMP/ref_nf.npy" >"$TMP/ref_nf.txt" 2>&1
    nn=$(grep -o nan "$TMP/ref_nf.txt" | wc -l)
    if [ "$nn" -eq $((9 * 24)) ]; then _ok; else _bad "chapter 7, $bad in x, $mask: $nn NaN, want 216"; fi
    for np in $nf_nps; do
        for mode in $nf_modes; do
            case $mode in
                zigzag | contiguous) flags="--parallel sequence --layout $mode" layout=$mode ;;
                sequence) flags="--parallel sequence" layout=zigzag ;;
                *) flags="--parallel $mode" layout= ;;
            esac
            [ "$layout" = zigzag ] && [ "$np" -gt 4 ] && continue
            want="$TMP/ref_nf.npy" what="chapter 7"
            if [ -n "$layout" ] && [ "$mask" = causal ]; then
                ring_nan_expected "$TMP/clean7.npy" "$TMP/want_nf.npy" "$layout" "$np" "$bb" "$bpos" 9 24
                want="$TMP/want_nf.npy" what="chapter 7 on finite x, NaN at and after $bpos and on its rank"
            fi
            rm -f "$OUT"
            mp "$np" $flags --input "$TMP/x_$bad.npy" --weights "$nf_dir/w" --heads 12 --"$mask" --quiet \
                --output "$OUT"
            expect_status 0 "$bad in x: $mode, P = $np, $mask"
            expect_npy_close "$OUT" "$want" 1e-5 1e-5 "$bad in x: $mode, P = $np, $mask == $what"
            [ -n "$layout" ] || continue
            mv "$OUT" "$TMP/overlap.npy"
            mp "$np" $flags --no-overlap --input "$TMP/x_$bad.npy" --weights "$nf_dir/w" --heads 12 --"$mask" \
                --quiet --output "$OUT"
            if cmp -s "$OUT" "$TMP/overlap.npy"; then _ok
            else _bad "$bad in x: $mode, P = $np: --no-overlap differs"; fi
        done
    done
done

# ---- the backward: --grad-output DY --dump DIR writes chapter 10's gradients -------------
# Chapter 10 (tested against PyTorch's autograd in test_ch10_program.sh) on the same x,
# weights and dy is the reference; every file it writes, to 1e-5; the backward's bytes
# counted equal parallel_backward_bytes_sent(); the ring's --no-overlap bit for bit.
expect_backward_bytes() { # NP DESC
    n=$(grep -c '^rank [0-9]* sent [0-9]* bytes in the backward (model: [0-9]*)$' "$TMP/out")
    bad=$(sed -n 's/^rank \([0-9]*\) sent \([0-9]*\) bytes in the backward (model: \([0-9]*\))$/\1 \2 \3/p' \
        "$TMP/out" | awk '$2 != $3 { print "rank " $1 ": sent " $2 ", model " $3 }')
    lines=$(grep -c '^rank [0-9]* backward: sent [0-9]* bytes, computed [0-9.]* ms, waited [0-9.]* ms$' "$TMP/out")
    if [ "$n" -eq "$1" ] && [ "$lines" -eq "$1" ] && [ -z "$bad" ]; then _ok
    else _bad "$2: $n backward byte lines, $lines per-rank lines for $1 ranks; $bad"; fi
}
expect_grads_equal() { # DIR REFDIR DESC
    want=$(cd "$2" && ls)
    got=$(cd "$1" 2>/dev/null && ls)
    if [ "$got" = "$want" ]; then _ok; else _bad "$3: files '$got', chapter 10 wrote '$want'"; fi
    for f in $want; do
        expect_npy_close "$1/$f" "$2/$f" 1e-5 1e-5 "$3: $f == chapter 10's"
    done
}
if [ "${CH09_FULL:-0}" = 1 ]; then
    bw_cases="a b c d" bw_nps="1 2 3 4" bw_modes="heads sequence zigzag contiguous ulysses"
else
    bw_cases="a" bw_nps="3" bw_modes="sequence ulysses"
fi
for c in $bw_cases; do
    case $c in
        a) spec="2 9 causal" ;;
        b) spec="1 6 no-causal" ;;
        c) spec="3 13 no-causal" ;;
        d) spec="2 5 causal" ;;
    esac
    set -- $spec
    bw_dir="$TMP/case_$c"
    d_out=$("$BUILD/npyinfo" "$bw_dir/w/wq.npy" | sed -n 's/.*shape (\([0-9]*\), .*/\1/p')
    "$BUILD/randnpy" $((seed + 7)) "$bw_dir/dy.npy" "$1" "$2" "$d_out"
    rm -rf "$TMP/ref_grads"
    run "$P10" --input "$bw_dir/x.npy" --weights "$bw_dir/w" --heads 12 --"$3" --grad-output "$bw_dir/dy.npy" \
        --dump "$TMP/ref_grads" --quiet
    expect_status 0 "chapter 10 on case $c"
    for np in $bw_nps; do
        for mode in $bw_modes; do
            case $mode in
                zigzag | contiguous) flags="--parallel sequence --layout $mode" ;;
                *) flags="--parallel $mode" ;;
            esac
            [ "$mode" = zigzag ] && [ "$2" -lt $((2 * np)) ] && continue
            rm -rf "$TMP/grads"
            mp "$np" $flags --input "$bw_dir/x.npy" --weights "$bw_dir/w" --heads 12 --"$3" \
                --grad-output "$bw_dir/dy.npy" --dump "$TMP/grads"
            expect_status 0 "backward: $mode, P = $np, case $c"
            expect_grads_equal "$TMP/grads" "$TMP/ref_grads" "backward: $mode, P = $np, B=$1 T=$2 $3"
            expect_backward_bytes "$np" "backward: $mode, P = $np, case $c"
            case $mode in heads | ulysses) continue ;; esac
            rm -rf "$TMP/grads_no"
            mp "$np" $flags --no-overlap --input "$bw_dir/x.npy" --weights "$bw_dir/w" --heads 12 --"$3" \
                --grad-output "$bw_dir/dy.npy" --dump "$TMP/grads_no" --quiet
            if cmp -s "$TMP/grads/grad_x.npy" "$TMP/grads_no/grad_x.npy" &&
                cmp -s "$TMP/grads/grad_wq.npy" "$TMP/grads_no/grad_wq.npy"; then _ok
            else _bad "backward: $mode, P = $np, case $c: --no-overlap differs"; fi
        done
    done
done
# the narration checks itself against chapter 10 and says what the mode does
expect_out_contains "max |grad_x - chapter 10's| = " "the backward checks itself against chapter 10"
# T < P in the backward: ranks with no position still take part
"$BUILD/randnpy" 5 "$TMP/x_t2.npy" 1 2 7
"$BUILD/randnpy" 6 "$TMP/dy_t2.npy" 1 2 24
rm -rf "$TMP/ref_grads"
run "$P10" --input "$TMP/x_t2.npy" --weights "$TMP/case_a/w" --heads 12 --causal --grad-output "$TMP/dy_t2.npy" \
    --dump "$TMP/ref_grads" --quiet
for mode in sequence ulysses; do
    rm -rf "$TMP/grads"
    mp 4 --parallel $mode --input "$TMP/x_t2.npy" --weights "$TMP/case_a/w" --heads 12 --grad-output "$TMP/dy_t2.npy" \
        --dump "$TMP/grads" --quiet
    expect_status 0 "backward: $mode, T = 2 < P = 4"
    expect_grads_equal "$TMP/grads" "$TMP/ref_grads" "backward: $mode, T = 2 < P = 4"
done
# a NaN in x: heads gives chapter 10's gradients (NaN where it has NaN); sequence and ulysses
# stop with chapter 12's sentence (its flash backward needs finite numbers), as the README says
rm -rf "$TMP/ref_grads" "$TMP/grads"
run "$P10" --input "$TMP/x_nan.npy" --weights "$TMP/case_a/w" --heads 12 --causal --grad-output "$TMP/case_a/dy.npy" \
    --dump "$TMP/ref_grads" --quiet
mp 2 --parallel heads --input "$TMP/x_nan.npy" --weights "$TMP/case_a/w" --heads 12 --grad-output "$TMP/case_a/dy.npy" \
    --dump "$TMP/grads" --quiet
expect_status 0 "backward, NaN in x: heads"
expect_grads_equal "$TMP/grads" "$TMP/ref_grads" "backward, NaN in x: heads"
for mode in sequence ulysses; do
    rm -rf "$TMP/grads"
    mp 2 --parallel $mode --input "$TMP/x_nan.npy" --weights "$TMP/case_a/w" --heads 12 \
        --grad-output "$TMP/case_a/dy.npy" --dump "$TMP/grads"
    expect_runtime_error "the backward needs finite numbers" "backward, NaN in x: $mode"
    if [ -e "$TMP/grads" ]; then _bad "backward, NaN in x: $mode left $TMP/grads"; else _ok; fi
done
# a NaN only in the last rank's positions: that rank refuses before the ring starts, and
# every rank ends (no rank waits for a block that never comes)
cp "$TMP/case_a/x.npy" "$TMP/x_last.npy"
poke_value "$TMP/x_last.npy" $((8 * 7 + 3)) '\000\000\300\177'       # x[0, 8, 3] = nan
mp 3 --parallel sequence --layout contiguous --input "$TMP/x_last.npy" --weights "$TMP/case_a/w" --heads 12 \
    --grad-output "$TMP/case_a/dy.npy" --dump "$TMP/grads"
expect_runtime_error "error on rank 2: attention_backward_flash: query holds NaN" "backward, NaN on rank 2 only"
# errors of the backward
rm -rf "$TMP/grads"
mp 2 --input "$TMP/case_a/x.npy" --weights "$TMP/case_a/w" --heads 12 --grad-output "$TMP/dy_t2.npy" \
    --dump "$TMP/grads"
expect_runtime_error "dy_t2.npy has shape (1, 2, 24) but the output y is (B, T, d_out) = (2, 9, 24)" \
    "backward: --grad-output of the wrong shape"
if [ -e "$TMP/grads" ]; then _bad "backward: a wrong --grad-output left $TMP/grads"; else _ok; fi
mp 2 --input "$TMP/case_a/x.npy" --weights "$TMP/case_a/w" --heads 12 --grad-output "$TMP/case_a/dy.npy" \
    --dump "$TMP/x_t2.npy/grads"
expect_usage_error "$TMP/x_t2.npy" "backward: a --dump folder that cannot be made (under a file)"
mp 2 --input "$TMP/case_a/x.npy" --weights "$TMP/case_a/w" --heads 12 --grad-output "$TMP/missing.npy" --quiet
expect_runtime_error "missing.npy" "backward: a missing --grad-output"
mp 2 --grad-output "$TMP/case_a/dy.npy"
expect_usage_error "--grad-output needs --input and --weights" "backward: --grad-output without --input"
mp 2 --dump "$TMP/grads"
expect_usage_error "--dump writes the backward's gradients: give --grad-output FILE too" "--dump without --grad-output"

# ---- T < P: ranks that own no position still pass the ring on ----------------------------
for t in 2; do
    run "$P7" --eval --seq-len "$t" --heads 4 --quiet --output "$REF"
    rm -f "$OUT"
    mp 4 --parallel sequence --seq-len "$t" --heads 4 --output "$OUT"
    expect_status 0 "sequence, T = $t < P = 4"
    expect_npy_close "$OUT" "$REF" 1e-5 1e-5 "sequence, T = $t < P = 4 == chapter 7"
    expect_bytes_match 4 "sequence, T = $t < P = 4: bytes counted == model"
    rm -f "$OUT"
    mp 4 --parallel ulysses --seq-len "$t" --heads 4 --output "$OUT"
    expect_status 0 "ulysses, T = $t < P = 4"
    expect_npy_close "$OUT" "$REF" 1e-5 1e-5 "ulysses, T = $t < P = 4 == chapter 7"
    expect_bytes_match 4 "ulysses, T = $t < P = 4: bytes counted == model"
    expect_out_contains "All-to-all: my positions of every head -> every position of my heads" "ulysses narrates"
done

# ---- zigzag balances causal work; a causal ring sends nothing into the future -------------
mp 4 --parallel sequence --seq-len 64 --heads 4
expect_status 0 "zigzag, T = 64, P = 4"
expect_out_contains "--layout zigzag: 8 chunks of the 64 positions, rank r owns r and 7 - r" "zigzag is the causal default"
expect_rank_lines 4 24960 "zigzag, T = 64, P = 4: folded = B H T (T + 1) / 2"
pct=$(busiest_pct)
if [ "$pct" -le 110 ]; then _ok; else _bad "zigzag, T = 64, P = 4: the busiest rank folds $pct % of the mean"; fi
n=$(grep -c '^rank [0-3]: folded 6240 key rows,' "$TMP/out")
if [ "$n" -eq 4 ]; then _ok; else _bad "zigzag, T = 64, P = 4: $n ranks fold 6240 key rows (the README says all 4)"; fi
expect_bytes_match 4 "zigzag, T = 64, P = 4: bytes counted == model"
mp 4 --parallel sequence --layout contiguous --seq-len 64 --heads 4
expect_rank_lines 4 24960 "contiguous, T = 64, P = 4: folded = B H T (T + 1) / 2"
pct=$(busiest_pct)
if [ "$pct" -ge 170 ]; then _ok; else _bad "contiguous, T = 64, P = 4: the busiest rank folds $pct % (1 : 3 : 5 : 7 is 175 %)"; fi
# rank 3 owns the last positions: no rank uses its K/V but rank 3, so it sends only its
# (3, 16, 8) output rows, 1536 bytes
expect_out_contains "rank 3: folded 10848 key rows, sent 1536 bytes," "contiguous: the last rank sends no K/V"
expect_bytes_match 4 "contiguous, T = 64, P = 4: bytes counted == model"

# ---- --lang zh: the narration in Chinese, no line wider than 80 columns (CJK = 2) ----------
# (the per-rank lines and the byte counts stay in English: the checks above read them)
zh_run() { # DESC TEXT NP ARGS...
    desc=$1 text=$2 np=$3
    shift 3
    mp "$np" "$@" --lang zh
    expect_status 0 "$desc"
    expect_out_contains "$text" "$desc narrates in Chinese"
    # the per-rank lines are the contract's data (their byte counts grow with the run), not narration
    grep -v '^rank [0-9]' "$TMP/out" >"$TMP/narration"
    set -- $(od -An -v -tu1 "$TMP/narration" | awk -f tests/columns.awk)
    if [ "$1" -le 80 ]; then _ok; else _bad "$desc: line $2 is $1 columns wide: $(sed -n "$2p" "$TMP/narration")"; fi
}
zh_run "heads --lang zh" "一次 MPI_Allreduce 把部分输出加起来" 2
expect_out_contains "rank 1: folded 45 key rows, sent 480 bytes," "heads --lang zh: the per-rank line in English"
zh_run "sequence --lang zh" "环：3 步，K/V 块传给进程 - 1，与计算重叠" 3 --parallel sequence --seq-len 9
zh_run "ulysses --lang zh" "all-to-all：我的位置上的全部头 -> 我的头的全部位置" 2 --parallel ulysses
zh_run "backward --lang zh" "跨进程的反向传播：第 10 章的梯度" 2 --parallel sequence --input "$TMP/case_a/x.npy" \
    --weights "$TMP/case_a/w" --heads 12 --grad-output "$TMP/case_a/dy.npy"
expect_backward_bytes 2 "backward --lang zh: the byte lines in English"
zh_run "--help --lang zh" "--parallel sequence  环形注意力" 1 --help

# ---- errors: one sentence from rank 0, every rank exits 1, no output file -----------------
mpbad() { # NP TEXT DESC ARGS...
    np=$1 text=$2 desc=$3
    shift 3
    rm -f "$OUT"
    mp "$np" "$@" --output "$OUT"
    expect_runtime_error "$text" "$desc"
    expect_no_file "$OUT" "$desc"
}
rm -f "$OUT"
mp 3 --parallel heads --heads 4 --output "$OUT"
expect_usage_error "--parallel heads: n_heads = 4 is not divisible by model_parallel_size = 3" "heads, H % P != 0"
expect_no_file "$OUT" "heads, H % P != 0"
mpbad 2 "missing.npy" "missing input" --input "$TMP/missing.npy" --weights "$case_dir/w" --heads 12
mpbad 3 "wq.npy" "weights of the wrong width" --parallel sequence --input "$TMP/case_a/x.npy" --weights "$case_dir/w" --heads 12
rm -f "$OUT"
mp 2 --output "$TMP/no/such/dir/out.npy"
expect_usage_error "the folder $TMP/no/such/dir does not exist" "an output folder that does not exist"
expect_no_file "$TMP/no/such/dir/out.npy" "unwritable output"
mp 2 --parallel pipeline
expect_usage_error "--parallel pipeline: must be heads, sequence or ulysses" "unknown --parallel"
mp 3 --parallel ulysses --heads 4
expect_usage_error "--parallel ulysses: n_heads = 4 is not divisible by 3 processes" "ulysses, H % P != 0"
n=$(grep -c 'not divisible' "$TMP/err")
if [ "$n" -eq 1 ]; then _ok; else _bad "ulysses, H % P != 0: $n sentences on stderr, want 1"; fi
mpbad 3 "needs T >= 6, got T = 5" "zigzag with T < 2P from a file" --parallel sequence --layout zigzag \
    --input "$TMP/case_d/x.npy" --weights "$TMP/case_d/w" --heads 12
mp 3 --parallel sequence --layout zigzag --seq-len 5
expect_usage_error "needs T >= 6, got --seq-len 5" "zigzag with T < 2P"
mp 2 --layout zigzag
expect_usage_error "--layout applies to --parallel sequence only" "--layout with heads"
mp 2 --parallel heads --no-overlap
expect_usage_error "--no-overlap applies to --parallel sequence only" "--no-overlap with heads"
mp 2 --parallel sequence --layout striped
expect_usage_error "--layout striped: must be zigzag or contiguous" "unknown --layout"
mp 2 --dropout 0.1
expect_usage_error "--dropout" "chapter 9 is eval only: --dropout does not apply"
rm -f "$OUT"
mp 2 --input "$TMP/case_a/x.npy" --weights "$case_dir/w" --output "$OUT"
expect_usage_error "--input/--weights need --heads H" "weights without --heads: the files do not store it"
expect_no_file "$OUT" "weights without --heads"

# in Chinese: the chapter's own refusals, the runtime error's label, chapter 7's step of the files
mp 3 --parallel ulysses --lang zh
expect_usage_error "chapter9：--parallel ulysses：n_heads = 2 不能被 3 个进程整除" "ulysses, H % P != 0, --lang zh"
expect_err_contains "（见 --help）" "ulysses, H % P != 0, --lang zh: the usage error's ending"
mp 2 --dump "$TMP/d9" --lang zh
expect_usage_error "--dump 写出的是反向传播的梯度" "--dump without --grad-output, --lang zh"
"$BUILD/randnpy" 4 "$TMP/dy_bad.npy" 2 2
mp 2 --parallel sequence --input "$TMP/case_a/x.npy" --weights "$TMP/case_a/w" --heads 12 --lang zh \
    --grad-output "$TMP/dy_bad.npy"
expect_runtime_error "chapter9：错误：$TMP/dy_bad.npy 的形状是 (2, 2)" "a dy of the wrong shape, --lang zh"
mp 1 --input "$TMP/case_a/x.npy" --weights "$TMP/case_a/w" --heads 12 --lang zh
expect_out_contains "[1] 从 $TMP/case_a/x.npy 读入 x" "--input --lang zh: chapter 7's step in Chinese"
# standard output lost (a full disk) is a failed run, as in every chapter; --output /dev/full too
rm -f "$OUT"
run sh -c '"$0" --quiet --output "$1" >/dev/full' "$P9" "$OUT"
expect_runtime_error "writing standard output: No space left on device" "standard output on a full disk"
expect_no_file "$OUT" "standard output on a full disk: --output is not written"
mp 2 --quiet --output /dev/full
expect_runtime_error "No space left on device" "--output /dev/full"
# --output -: the .npy alone on standard output (the text goes to stderr), as in every chapter
rm -f "$OUT"
mp 2 --quiet --output "$OUT"
mp 2 --output -
expect_status 0 "--output -"
expect_npy_close "$TMP/out" "$OUT" 0 0 "--output -: standard output is the .npy that --output FILE writes"
expect_err_contains "output =" "--output -: the run's text on stderr"
# ATTN_MAX_BYTES is read as in every chapter: a bad value is a usage error before any output
run env ATTN_MAX_BYTES=abc timeout 120 $MPIRUN $MPIRUN_FLAGS -np 2 "$P9"
expect_usage_error "ATTN_MAX_BYTES='abc'" "a bad ATTN_MAX_BYTES"
expect_no_stdout "a bad ATTN_MAX_BYTES"

# More errors of chapter 7's loader, through the same path (make test-chapter9-full).
if [ "${CH09_FULL:-0}" = 1 ]; then
    rm -f "$OUT"
    mp 4 --heads 2 --input "$TMP/case_a/x.npy" --weights "$TMP/case_a/w" --output "$OUT"
    expect_usage_error "n_heads = 2 is not divisible by model_parallel_size = 4" "heads, H < P, with --input"
    expect_no_file "$OUT" "heads, H < P"
    "$BUILD/randnpy" 3 "$TMP/x2d.npy" 5 11
    case_dir="$TMP/case_d"  # x (2, 5, 11), weights (24, 11)
    mpbad 2 "x2d.npy" "a 2-D input" --input "$TMP/x2d.npy" --weights "$case_dir/w" --heads 12
    mpbad 2 "max_seq_len" "T longer than --seq-len" --parallel sequence --input "$case_dir/x.npy" \
        --weights "$case_dir/w" --heads 12 --seq-len 3
    rm -f "$OUT"
    mp 3 --heads 3 --output "$OUT"
    expect_usage_error "d_out 8 is not divisible by n_heads 3" "d_out % n_heads"
    expect_no_file "$OUT" "d_out % n_heads"
    mp 2 --parallel
    expect_usage_error "flag '--parallel' needs a value" "--parallel without a value"
    MPI_CHECKS=$((MPI_CHECKS + FULL_EXTRA))
fi

# ---- the count above ----------------------------------------------------------------------
if [ $((_passed + _failed)) -eq "$MPI_CHECKS" ]; then _ok; else _bad "ran $((_passed + _failed)) checks, MPI_CHECKS says $MPI_CHECKS"; fi
finish
