#!/bin/sh
# test_ch12_program.sh — build/chapter12: the narrated run, --quiet, --help, --dump
# of both backwards compared with PyTorch's autograd (tests/fixtures/ch12,
# scripts/golden/ch12.py), the peak memory of the flash backward against the
# reference's as T grows (bytes counted, ATTN_REPORT_PEAK; no timing), and every
# bad input: exit 1 or 2, one line on stderr, no --dump folder left behind.
# CH12_FULL=1 (make test-chapter12-full) adds the resident peak at T = 65536.
. tests/lib.sh
suite test_ch12_program

P=$BUILD/chapter12
FX=${FIXTURES:-tests/fixtures}/ch12

# ---- the narrated run ---------------------------------------------------------------
run "$P" --seq-len 100 --heads 1
expect_status 0 "narrated run"
expect_out_contains "Chapter 12: the backward pass in O(T) memory" "title"
expect_out_contains "[1] The inputs, and a gradient for the output" "numbered steps"
expect_out_contains "PyTorch: torch.manual_seed(123)" "quotes the PyTorch lines"
expect_out_contains "Chapter 10's backward of one row (row 50 of slice 0)" "one row the chapter 10 way"
expect_out_contains "Why D = (grad_output * output).sum(-1) replaces that row sum" "why D"
expect_out_contains "p_attn's row rebuilt from lse" "P from lse"
expect_out_contains "The backward tile by tile (FlashAttention-2)" "the tiles"
expect_out_contains "The reference: chapter 10's backward on the full matrices" "the reference"
expect_out_contains "GFLOP: 2.50x the forward" "backward FLOPs are 2.5x the forward's"
expect_out_contains "why:" "explains each step"
# the one row's sum and D agree, and flash and the reference agree, to float rounding
d=$(sed -n 's/.*D\[i\] = [-0-9.]*, difference \([0-9.e+-]*\)$/\1/p' "$TMP/out")
if [ -n "$d" ] && awk -v d="$d" 'BEGIN { exit !(d < 1e-5) }'; then _ok; else _bad "row sum vs D: '$d'"; fi
line=$(grep 'max |flash - reference| / max |reference|' "$TMP/out")
if echo "$line" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^grad_/) { x = $(i + 1); sub(/,$/, "", x); if (x + 0 > 1e-4) bad = 1 } } END { exit bad }'; then
    _ok; else _bad "flash vs reference: '$line'"; fi
width=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/out")
if [ "$width" -le 80 ]; then _ok; else _bad "narration wider than 80 columns ($width)"; fi

run "$P" --seq-len 100 --heads 1 --causal
expect_status 0 "narrated run, causal"
expect_out_contains "(causal)" "causal title"
expect_out_contains "tiles wholly above the diagonal skipped" "causal tiles skipped"

run "$P" --quiet --seq-len 64 --heads 1
expect_status 0 "--quiet"
expect_out_contains "flash backward: " "--quiet prints the flash backward's time"
expect_out_contains "backward / forward = " "--quiet names the ratio to the forward"
expect_out_lacks "PyTorch:" "--quiet has no narration"

run "$P" --help
expect_status 0 "--help"
expect_out_contains "--grad-output FILE" "--help lists --grad-output"
expect_out_contains "--impl NAME" "--help lists --impl"
expect_out_contains "--causal" "--help lists --causal"
expect_out_contains "--q FILE" "--help lists --q"

# ---- .npy in, .npy out: both backwards against autograd ----------------------------------
IN="--q $FX/prog_q.npy --k $FX/prog_k.npy --v $FX/prog_v.npy --grad-output $FX/prog_do.npy"
for impl in flash reference; do
    for mode in nocausal causal; do
        c=--no-causal; [ $mode = causal ] && c=--causal
        run "$P" $IN $c --impl $impl --quiet --dump "$TMP/d_${impl}_$mode"
        expect_status 0 "--impl $impl $c --dump"
        D=$TMP/d_${impl}_$mode
        expect_npy_close "$D/output.npy" "$FX/prog_${mode}_out.npy" 1e-5 1e-6 "$impl $mode: output.npy"
        expect_npy_close "$D/lse.npy" "$FX/prog_${mode}_lse.npy" 1e-5 1e-5 "$impl $mode: lse.npy"
        for g in q k v; do
            expect_npy_close "$D/grad_$g.npy" "$FX/prog_${mode}_d$g.npy" 1e-4 1e-5 "$impl $mode: grad_$g.npy equals autograd"
        done
    done
done

# the narrated run with files and --dump writes the same files
run "$P" $IN --dump "$TMP/dn"
expect_status 0 "narrated run with files and --dump"
expect_out_contains "q (1, 2, 40, 8), k (1, 2, 40, 8), v (1, 2, 40, 8), grad_output (1, 2, 40, 8)" "names the shapes"
expect_npy_close "$TMP/dn/grad_q.npy" "$FX/prog_nocausal_dq.npy" 1e-4 1e-5 "narrated --dump grad_q.npy"
run "$P" $IN --causal --impl reference --dump "$TMP/dnr"
expect_status 0 "narrated run, --impl reference --dump"
expect_npy_close "$TMP/dnr/grad_k.npy" "$FX/prog_causal_dk.npy" 1e-4 1e-5 "narrated --impl reference --dump grad_k.npy"

# T != S, d_v != d_k
NS="--q $FX/ns_q.npy --k $FX/ns_k.npy --v $FX/ns_v.npy --grad-output $FX/ns_do.npy"
run "$P" $NS --quiet --dump "$TMP/dns"
expect_status 0 "T != S, d_v != d_k"
expect_npy_close "$TMP/dns/grad_k.npy" "$FX/ns_nocausal_dk.npy" 1e-4 1e-5 "T != S: grad_k.npy equals autograd"
expect_npy_close "$TMP/dns/grad_v.npy" "$FX/ns_nocausal_dv.npy" 1e-4 1e-5 "T != S: grad_v.npy equals autograd"

# random inputs: the same seed, the same gradients, either backward
run "$P" --quiet --seq-len 70 --heads 2 --seed 5 --dump "$TMP/r1"
run "$P" --quiet --seq-len 70 --heads 2 --seed 5 --impl reference --dump "$TMP/r2"
expect_npy_close "$TMP/r1/grad_k.npy" "$TMP/r2/grad_k.npy" 1e-4 1e-5 "random run: flash and reference agree"

# ---- memory: linear in T for flash, quadratic for the reference (bytes, not time) ---------
peak() { sed -n 's/.*peak \([0-9]*\) bytes.*/\1/p' "$TMP/err"; }
est() { sed -n 's/.*estimate \([0-9]*\) bytes.*/\1/p' "$TMP/err"; }
ATTN_REPORT_PEAK=1 run "$P" --quiet --heads 4 --seq-len 256 --d-k 32 --causal
f1=$(peak); e1=$(est)
ATTN_REPORT_PEAK=1 run "$P" --quiet --heads 4 --seq-len 1024 --d-k 32 --causal
f4=$(peak); e4=$(est)
ATTN_REPORT_PEAK=1 run "$P" --quiet --heads 1 --seq-len 128 --d-k 32 --impl reference
r1=$(peak); x1=$(est)
ATTN_REPORT_PEAK=1 run "$P" --quiet --heads 1 --seq-len 512 --d-k 32 --impl reference
r4=$(peak); x4=$(est)
if [ -n "$f1" ] && [ -n "$f4" ] && awk -v a="$f1" -v b="$f4" 'BEGIN { exit !(b / a < 4.5) }'; then _ok; else
    _bad "flash: peak $f1 bytes at T = 256, $f4 at 1024: not linear"; fi
if [ -n "$r1" ] && [ -n "$r4" ] && awk -v a="$r1" -v b="$r4" 'BEGIN { exit !(b / a > 8) }'; then _ok; else
    _bad "reference: peak $r1 bytes at T = 128, $r4 at 512: not quadratic"; fi
for pair in "$f1 $e1" "$f4 $e4" "$r1 $x1" "$r4 $x4"; do
    set -- $pair
    if [ -n "$2" ] && [ "$1" -le "$2" ]; then _ok; else _bad "the estimate $2 is below the peak $1"; fi
done

# the whole process at (1, 1, 16384, 64), causal: under 80 MiB resident (the reference
# would need about 11 GiB); real sizes, so not under valgrind or a sanitizer
if [ -n "$RUNNER" ] || sanitized; then
    skip 2 "T = 16384 is too slow under valgrind or a sanitizer"
else
    ATTN_REPORT_PEAK=1 run "$P" --quiet --causal --heads 1 --seq-len 16384 --d-k 64
    expect_status 0 "T = 16384 causal"
    rss=$(sed -n 's/.*resident at most \([0-9]*\) bytes.*/\1/p' "$TMP/err")
    if [ -z "$rss" ]; then skip 1 "this system does not report the resident peak"
    elif [ "$rss" -lt $((80 * 1048576)) ]; then _ok; else _bad "T = 16384: resident $rss bytes, not under 80 MiB"; fi
fi

# CH12_FULL=1 (make test-chapter12-full, not part of make test: about 25 s of one core):
# the whole process at (1, 1, 65536, 64), causal, under 200 MiB resident
if [ "${CH12_FULL:-0}" = 1 ]; then
    if [ -n "$RUNNER" ] || sanitized; then
        skip 2 "T = 65536 is too slow under valgrind or a sanitizer"
    else
        ATTN_REPORT_PEAK=1 run "$P" --quiet --causal --heads 1 --batch 1 --seq-len 65536 --d-k 64
        expect_status 0 "T = 65536 causal"
        rss=$(sed -n 's/.*resident at most \([0-9]*\) bytes.*/\1/p' "$TMP/err")
        if [ -z "$rss" ]; then skip 1 "this system does not report the resident peak"
        elif [ "$rss" -lt $((200 * 1048576)) ]; then _ok; else _bad "T = 65536: resident $rss bytes, not under 200 MiB"; fi
    fi
fi

# ---- --bench takes no files ---------------------------------------------------------------
run "$P" --bench --quiet
expect_usage_error "--bench draws its own inputs and writes nothing" "--bench with --quiet"
run "$P" --bench --dump "$TMP/bd"
expect_usage_error "--bench draws its own inputs" "--bench with --dump"
expect_no_file "$TMP/bd" "--bench --dump writes no folder"
# sizes --bench fixes itself, and --impl (it times both): refused, not ignored
for flag in "--seq-len 64" "--batch 2" "--heads 3" "--impl reference"; do
    # shellcheck disable=SC2086
    run "$P" --bench $flag
    expect_usage_error "${flag%% *} does not apply to --bench" "--bench refuses $flag, which it would ignore"
    expect_no_stdout "--bench $flag"
done
# an output folder that cannot be written: refused before any work
if [ -d /proc ]; then
    run "$P" --dump /proc/attn_no_such/d
    expect_status 2 "--dump in a folder nothing can be made in"
    expect_no_stdout "--dump /proc/...: refused before the title"
else
    skip 2 "no /proc here"
fi

# ---- bad input: one sentence, exit 1 or 2, no --dump folder left -----------------------
bad() { # CODE TEXT DESC ARGS...
    code=$1 text=$2 desc=$3
    shift 3
    rm -rf "$TMP/bad"
    run "$P" "$@" --quiet --dump "$TMP/bad"
    if [ "$code" = 2 ]; then expect_usage_error "$text" "$desc"; else expect_runtime_error "$text" "$desc"; fi
    expect_no_file "$TMP/bad" "$desc: no --dump folder"
}
F8=${FIXTURES:-tests/fixtures}/ch08
"$BUILD/randnpy" 1 "$TMP/do7.npy" 1 2 40 7
bad 2 "--impl" "unknown --impl" --impl tiled
bad 2 "does not apply to chapter12" "--output is not this chapter's" --output "$TMP/x.npy"
bad 1 "--grad-output $TMP/do7.npy (1, 2, 40, 7) must have the output's shape (1, 2, 40, 8)" "grad-output of the wrong shape" \
    --q $FX/prog_q.npy --k $FX/prog_k.npy --v $FX/prog_v.npy --grad-output "$TMP/do7.npy"
bad 1 "--k $FX/ns_k.npy (2, 70, 8) have T 5 != S 70, but a causal mask needs T == S" "causal with T != S" $NS --causal
bad 1 "--q $FX/prog_q.npy (1, 2, 40, 8) and --k $FX/basic_k.npy" "q and k of different widths" --q $FX/prog_q.npy --k $FX/basic_k.npy --v $FX/basic_v.npy
"$BUILD/randnpy" 2 "$TMP/k1.npy" 1 1 40 8 >/dev/null
bad 1 "--q $FX/prog_q.npy (1, 2, 40, 8), --k $TMP/k1.npy (1, 1, 40, 8) and --v $FX/prog_v.npy (1, 2, 40, 8) must have the same leading dims" \
    "k with a head dim to broadcast" --q $FX/prog_q.npy --k "$TMP/k1.npy" --v $FX/prog_v.npy
run "$P" --q $FX/prog_q.npy --k $FX/basic_k.npy --v $FX/basic_v.npy
expect_runtime_error "--q $FX/prog_q.npy (1, 2, 40, 8) and --k $FX/basic_k.npy" "narrated: q and k of different widths"
expect_no_stdout "narrated: q and k of different widths, said before the title"
# a file with a NaN or an infinity: the file named, and where (nf_knan_k.npy's NaN is element
# 405, nf_qinf_q.npy's inf element 161, as scripts/golden/ch08.py placed them)
bad 1 "$F8/nf_knan_k.npy holds NaN at flat index 405: the backward needs finite numbers" "NaN in --grad-output" \
    --q $F8/nf_knan_q.npy --k $F8/nf_knan_q.npy --v $F8/nf_knan_q.npy --grad-output $F8/nf_knan_k.npy
bad 1 "$F8/nf_knan_k.npy holds NaN at flat index 405" "NaN in --k" --q $F8/nf_knan_q.npy --k $F8/nf_knan_k.npy \
    --v $F8/nf_knan_v.npy
bad 1 "$F8/nf_qinf_q.npy holds inf at flat index 161" "inf in --q" --q $F8/nf_qinf_q.npy --k $F8/nf_qinf_k.npy \
    --v $F8/nf_qinf_v.npy
run "$P" --q $F8/nf_qinf_q.npy --k $F8/nf_qinf_k.npy --v $F8/nf_qinf_v.npy --lang zh
expect_runtime_error "$F8/nf_qinf_q.npy 含有 inf（展平下标 161）：反向传播需要有限的数" "inf in --q, in Chinese"
expect_no_stdout "inf in --q: said before the title"
for flag in "--seq-len 5" "--d-k 4" "--heads 1" "--batch 1"; do
    # shellcheck disable=SC2086
    bad 2 "${flag%% *} does not apply with --q, --k and --v, whose files give every size" "--q/--k/--v refuse $flag" \
        --q $FX/prog_q.npy --k $FX/prog_k.npy --v $FX/prog_v.npy $flag
    expect_no_stdout "--q/--k/--v with $flag"
done
bad 1 "no-such.npy" "missing file" --q "$TMP/no-such.npy" --k $FX/prog_k.npy --v $FX/prog_v.npy

finish
