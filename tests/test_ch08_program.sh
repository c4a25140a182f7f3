#!/bin/sh
# test_ch08_program.sh — build/chapter8: the narrated comparison, --quiet, --help,
# every --impl on .npy inputs compared with PyTorch (tests/fixtures/ch08,
# scripts/golden/ch08.py), --dump, and every bad input: exit 1 or 2, one line on
# stderr, no --output file left behind. Times are printed by the program but never
# checked here (make bench measures).
. tests/lib.sh
suite test_ch08_program

P=$BUILD/chapter8
FX=${FIXTURES:-tests/fixtures}/ch08
SMALL="--heads 2 --seq-len 40 --d-k 16"   # fast enough under valgrind too

# ---- the narrated run ----------------------------------------------------------
if [ -z "$RUNNER" ]; then # the default size (1, 8, 512, 64) is slow under valgrind
    run "$P"
    expect_status 0 "default run"
    expect_out_contains "Chapter 8: fast attention" "title"
    expect_out_contains "shape (1, 8, 512, 64)" "default (bsz, n_heads, seqlen, head_dim)"
    expect_out_contains "What each step bought (T = 512, S = 512, not causal)" "summary table"
fi

run "$P" $SMALL
expect_status 0 "narrated run, small"
expect_out_contains "[1] The inputs" "numbered steps"
expect_out_contains "PyTorch: xq = torch.randn(bsz, n_heads, seqlen, head_dim)" "quotes the PyTorch line"
expect_out_contains "FLOPs = 2·T·S·d_k (q·kᵀ) + 2·T·S·d_v (p_attn·v) per head" "cost model"
expect_out_contains "= 0.0002048 GFLOP for this call" "cost model: 2 heads x 40 x 40 x (32 + 32)"
expect_out_contains "scores: T x S = 40 x 40 floats per slice, 2 slices = 12.5 KiB" "bytes of the score matrix"
expect_out_contains "ceiling = " "this core's ceiling"
expect_out_contains "The reference: chapter 2's attention" "reference is chapter 2 without --causal"
for impl in naive reordered tiled online flash; do
    expect_out_contains "$impl: " "times $impl"
done
expect_out_contains "online: one query row at a time, max and sum in one pass" "online step"
# the numbers of this build (its register tile, vectors, accumulators), not one build's
tr -s ' \n' ' ' <"$TMP/out" >"$TMP/flat"
# (the tile's numbers only, no unit's name: the words are the same on every build, which
# tests/cross_programs.sh and the page's test compare)
tile=$(sed -n 's/.*Here a tile of \([0-9]*\) query rows x \([0-9]*\) keys of sums (this build.s register tile).*/\1 \2/p' "$TMP/flat")
set -- $tile
if [ $# -eq 2 ] && [ "$1" -ge 4 ] && [ "$2" -ge 8 ]; then _ok; else
    _bad "tiled's why names this build's register tile, rows and keys: '$tile'"; fi
parts=$(sed -n 's/.*max keeps \([0-9]*\) partial results and its sum \([0-9]*\),.*/\1 \2/p' "$TMP/flat")
set -- $parts
if [ $# -eq 2 ] && [ "$1" -eq $(($2 * 4)) ]; then _ok; else _bad "reordered's why: the max keeps 4 vectors, the sum 1: '$parts'"; fi
if grep -q "on [0-9]* independent floats, over and over" "$TMP/flat"; then _ok; else _bad "the ceiling's line names its floats"; fi
expect_out_contains "max |output - reference| = " "compares with the reference"
expect_out_lacks "max |output - reference| = nan" "no NaN differences"
expect_out_contains "why:" "explains each step"
expect_out_contains "The output of --impl flash" "the chosen version's output"

run "$P" $SMALL --causal --impl online
expect_status 0 "--causal --impl online"
expect_out_contains "The reference: chapter 4's masked_attention" "reference is chapter 4 with --causal"
expect_out_contains "(halved: causal, only the keys j <= i count)" "causal halves the FLOPs"
expect_out_contains "The output of --impl online" "--impl online"

run "$P" $SMALL --quiet
expect_status 0 "--quiet"
expect_out_contains "flash: " "--quiet prints the time of --impl"
expect_out_contains "output: shape (1, 2, 40, 16)" "--quiet names the output shape"
expect_out_contains "output[0, 0, :3, :6] =" "--quiet prints a corner of the output"
expect_out_lacks "PyTorch:" "--quiet has no narration"
expect_out_lacks "naive:" "--quiet runs only --impl"
expect_out_contains "kernel: " "--quiet closes with the kernel's time"
line=$(grep '^kernel: ' "$TMP/out")
kernel=$(echo "$line" | sed -n 's/^kernel: \([0-9.]*\) ms ([0-9.]* GFLOP\/s); whole process so far: [0-9.]* ms$/\1/p')
whole=$(echo "$line" | sed -n 's/.*; whole process so far: \([0-9.]*\) ms$/\1/p')
first=$(sed -n 's/^flash: \([0-9.]*\) ms, .*/\1/p' "$TMP/out")
if [ -n "$kernel" ] && [ "$kernel" = "$first" ] && awk -v k="$kernel" -v w="$whole" 'BEGIN { exit !(w >= k) }'; then
    _ok; else _bad "--quiet's last line: the kernel's time ($kernel, first line $first) beside the whole process ($whole): '$line'"; fi
last=$(tail -n 1 "$TMP/out")
case $last in kernel:*) _ok ;; *) _bad "--quiet's last line is '$last'" ;; esac

run "$P" --quiet --heads 1 --seq-len 5 --d-k 4
expect_status 0 "--quiet, small output"
expect_out_contains "output = tensor([[[[" "--quiet prints a small output whole"

run "$P" --help
expect_status 0 "--help"
expect_out_contains "--impl NAME" "--help lists --impl"
expect_out_contains "naive, reordered, tiled, online or flash (default flash)" "--help names the versions"
expect_out_contains "with --impl flash, lse.npy" "--help says --dump writes lse.npy with flash"
expect_out_contains "--causal" "--help lists --causal"
expect_out_contains "--q FILE" "--help lists --q"
expect_out_contains "--d-k" "--help lists --d-k"

# ---- .npy in, .npy out, every version -----------------------------------------------
QKV="--q $FX/prog_q.npy --k $FX/prog_k.npy --v $FX/prog_v.npy"
for impl in naive reordered tiled online flash; do
    run "$P" $QKV --quiet --impl $impl --output "$TMP/out_$impl.npy"
    expect_status 0 "--impl $impl on .npy"
    expect_npy_close "$TMP/out_$impl.npy" "$FX/prog_out_nocausal.npy" 1e-5 1e-6 "--impl $impl equals PyTorch"
    run "$P" $QKV --quiet --impl $impl --causal --output "$TMP/outc_$impl.npy"
    expect_status 0 "--impl $impl --causal on .npy"
    expect_npy_close "$TMP/outc_$impl.npy" "$FX/prog_out_causal.npy" 1e-5 1e-6 "--impl $impl --causal equals PyTorch"
done

LONG="--q $FX/long_q.npy --k $FX/long_k.npy --v $FX/long_v.npy"
run "$P" $LONG --quiet --causal --output "$TMP/long.npy"
expect_status 0 "T = 300 (several tiles), flash, causal"
expect_npy_close "$TMP/long.npy" "$FX/long_out_causal.npy" 1e-5 1e-6 "T = 300 causal equals PyTorch"

run "$P" $QKV --output "$TMP/narrated.npy" --dump "$TMP/d"
expect_status 0 "narrated .npy run with --dump"
expect_out_contains "query (1, 2, 40, 8), key (1, 2, 40, 8), value (1, 2, 40, 8)" "names the file shapes"
expect_npy_close "$TMP/narrated.npy" "$FX/prog_out_nocausal.npy" 1e-5 1e-6 "narrated run --output equals PyTorch"
expect_npy_close "$TMP/d/output.npy" "$FX/prog_out_nocausal.npy" 1e-5 1e-6 "dumped output.npy"
expect_npy_close "$TMP/d/attn_weights.npy" "$FX/prog_weights_nocausal.npy" 1e-5 1e-6 "dumped attn_weights.npy"
expect_npy_close "$TMP/d/lse.npy" "$FX/prog_lse_nocausal.npy" 1e-5 1e-5 "dumped lse.npy (flash) equals torch.logsumexp"
run "$P" $QKV --quiet --causal --dump "$TMP/dl"
expect_status 0 "--quiet --causal --dump, flash"
expect_npy_close "$TMP/dl/lse.npy" "$FX/prog_lse_causal.npy" 1e-5 1e-5 "dumped causal lse.npy equals torch.logsumexp"

run "$P" $QKV --quiet --causal --impl tiled --dump "$TMP/dc"
expect_status 0 "--causal --dump"
expect_npy_close "$TMP/dc/attn_weights.npy" "$FX/prog_weights_causal.npy" 1e-5 1e-6 "dumped causal attn_weights.npy"
expect_npy_close "$TMP/dc/output.npy" "$FX/prog_out_causal.npy" 1e-5 1e-6 "dumped causal output.npy"
expect_no_file "$TMP/dc/lse.npy" "lse.npy is flash's: --impl tiled writes none"

NS="--q $FX/prog_ns_q.npy --k $FX/prog_ns_k.npy --v $FX/prog_ns_v.npy"
run "$P" $NS --quiet --output "$TMP/ns.npy"
expect_status 0 "T != S without the mask"
expect_npy_close "$TMP/ns.npy" "$FX/prog_ns_out_nocausal.npy" 1e-5 1e-6 "T != S equals PyTorch"

# ---- a long run: announced at a fixed rate, never refused; progress on a terminal ----------
if [ -z "$RUNNER" ]; then # real sizes: too slow under valgrind
    # T = 20000 causal, 2 heads: 102 GFLOP (causal work counts half: the keys j <= i),
    # 13 s at the fixed 8 GFLOP/s the notice assumes, so it is announced; nothing is timed
    run "$P" --seq-len 20000 --heads 2 --quiet --causal --output "$TMP/x20k_out.npy"
    expect_status 0 "T = 20000 causal runs (no time limit)"
    expect_err_contains "chapter8: a long run: about 102 GFLOP, about 13 seconds at the 8 GFLOP/s this notice assumes; Ctrl-C stops it" \
        "the long-run notice counts causal work as half"
    expect_file "$TMP/x20k_out.npy" "the long run writes its output"
    # a short run says nothing on stderr
    run "$P" --quiet --seq-len 512 --heads 1
    if [ -s "$TMP/err" ]; then _bad "a short run wrote to stderr: $(cat "$TMP/err")"; else _ok; fi
    # on a terminal the same run is cut between its two slices and shows the line
    # (a one-slice causal run is one call: it shows the notice only)
    if grep -q -- '-fopenmp' "$BUILD/.flags" 2>/dev/null; then
        skip 2 "make OMP=1: the slice is shared by threads, whose progress this line does not follow"
    elif command -v script >/dev/null 2>&1; then
        script -qc "$P --seq-len 20000 --heads 2 --quiet --causal --output $TMP/x20k_tty.npy" /dev/null >"$TMP/tty" 2>&1
        if grep -q '% of the work done, ' "$TMP/tty"; then _ok; else
            _bad "T = 20000 causal H = 2: no progress line on a terminal: $(head -c 300 "$TMP/tty")"; fi
        expect_file "$TMP/x20k_tty.npy" "the run with a progress line writes its output"
    else
        skip 2 "progress on a terminal needs script(1)"
    fi
fi

# ---- bad input: one sentence, exit 1 or 2, no output file ------------------------------
run "$P" --impl fastest --output "$TMP/bad1.npy"
expect_usage_error "--impl" "unknown --impl"
expect_err_contains "naive, reordered, tiled, online, flash" "unknown --impl lists the versions"
expect_no_file "$TMP/bad1.npy" "unknown --impl"

run "$P" $NS --causal --output "$TMP/bad2.npy" --dump "$TMP/bad2"
expect_runtime_error "have T 3 != S 7, but a causal mask needs T == S" "causal with T != S"
expect_no_file "$TMP/bad2.npy" "causal with T != S"
expect_no_file "$TMP/bad2" "causal with T != S: no dump folder"

export ATTN_MAX_BYTES=100000
run "$P" $LONG --impl naive --quiet --output "$TMP/bad3.npy"
expect_runtime_error "attention_naive: the scores (1, 300, 300) would take 351.6 KiB, more than the 97.7 KiB this chapter allows" "naive over the budget"
expect_err_contains "attention_flash (--impl flash) never stores them" "naive over the budget points to flash"
expect_no_file "$TMP/bad3.npy" "naive over the budget"

run "$P" $LONG --impl flash --quiet --output "$TMP/flash_small_limit.npy"
expect_status 0 "flash under the same limit"
expect_npy_close "$TMP/flash_small_limit.npy" "$FX/long_out_nocausal.npy" 1e-5 1e-6 "flash needs no score matrix"
unset ATTN_MAX_BYTES

if [ -z "$RUNNER" ]; then # the real size of the chapter's memory target
    run "$P" --quiet --impl naive --causal --heads 1 --d-k 64 --seq-len 16384 --output "$TMP/bad4.npy"
    expect_usage_error "the scores (1, 1, 16384, 16384) would take 1.0 GiB, more than the 512.0 MiB this chapter allows" "naive at T = 16384: the flags alone decide it"
    expect_no_stdout "naive at T = 16384: refused before any work"
    expect_err_contains "attention_flash (--impl flash) never stores them" "naive at T = 16384 points to flash"
    expect_no_file "$TMP/bad4.npy" "naive at T = 16384"
fi

run "$P" --q "$FX/prog_q.npy" --k "$FX/dk1_k.npy" --v "$FX/prog_v.npy" --output "$TMP/bad5.npy"
expect_runtime_error "must share the last dim d_k: 8 != 1" "q/k inner dims differ"
expect_no_file "$TMP/bad5.npy" "q/k inner dims differ"

run "$P" --q "$FX/prog_q.npy" --k "$FX/prog_k.npy" --v "$FX/prog_ns_v.npy" --output "$TMP/bad6.npy"
expect_runtime_error "must have the same length S (dim -2): 40 != 7" "k/v lengths differ"
expect_no_file "$TMP/bad6.npy" "k/v lengths differ"

run "$P" --q "$TMP/missing.npy" --k "$FX/prog_k.npy" --v "$FX/prog_v.npy" --output "$TMP/bad7.npy"
expect_runtime_error "missing.npy" "missing input file"
expect_no_file "$TMP/bad7.npy" "missing input file"

printf 'not an npy file\n' >"$TMP/text.npy"
run "$P" --q "$TMP/text.npy" --k "$FX/prog_k.npy" --v "$FX/prog_v.npy" --output "$TMP/bad8.npy"
expect_runtime_error "text.npy" "not a .npy file"
expect_no_file "$TMP/bad8.npy" "not a .npy file"

"$BUILD/randnpy" 1 "$TMP/one.npy" 8 >/dev/null 2>&1
run "$P" --q "$TMP/one.npy" --k "$FX/prog_k.npy" --v "$FX/prog_v.npy" --output "$TMP/bad11.npy"
expect_runtime_error "--q $TMP/one.npy has shape (8,): it needs at least 2 dims, (..., T, d_k)" "a 1-D --q names the file"
expect_no_file "$TMP/bad11.npy" "a 1-D --q"
run "$P" --q "$FX/prog_q.npy" --k "$FX/prog_k.npy" --v "$TMP/one.npy" --output "$TMP/bad12.npy"
expect_runtime_error "--v $TMP/one.npy has shape (8,): it needs at least 2 dims, (..., S, d_v)" "a 1-D --v names the file"
"$BUILD/randnpy" 2 "$TMP/b3.npy" 3 2 40 8 >/dev/null 2>&1
"$BUILD/randnpy" 3 "$TMP/b2.npy" 2 2 40 8 >/dev/null 2>&1
run "$P" --q "$TMP/b2.npy" --k "$TMP/b3.npy" --v "$TMP/b3.npy" --output "$TMP/bad13.npy"
expect_runtime_error "the batch dims of --q $TMP/b2.npy (2, 2, 40, 8), --k $TMP/b3.npy (3, 2, 40, 8) and --v" \
    "batch dims that do not broadcast name the files"
expect_no_file "$TMP/bad13.npy" "batch dims that do not broadcast"

printf 'x' >"$TMP/plainfile"
run "$P" $QKV --quiet --dump "$TMP/plainfile" --output "$TMP/bad9.npy"
expect_status 2 "--dump into a file that is not a folder"
expect_one_line "--dump into a file that is not a folder"
expect_no_file "$TMP/bad9.npy" "--dump failed, so no --output"

# refused before any work: q, k and v past the memory budget (the budget's sentence, not
# randn's), and output places nothing can be made in (/proc and /sys take no new files,
# not even root's, whose access() says yes)
run "$P" --seq-len 1000000 --heads 1000 --quiet
expect_runtime_error "this run needs about" "q, k, v past the budget"
expect_err_contains "lower --seq-len" "q, k, v past the budget: the budget's sentence"
expect_no_stdout "q, k, v past the budget: nothing on stdout"
if [ -d /proc ] && [ -d /sys ]; then
    run "$P" --quiet $SMALL --dump /proc/x
    expect_usage_error "--dump /proc/x: the folder /proc cannot be written (no file can be made in it)" \
        "--dump in /proc"
    expect_no_stdout "--dump in /proc: refused before any work"
    run "$P" --quiet $SMALL --output /sys/out.npy
    expect_usage_error "--output /sys/out.npy" "--output in /sys"
    expect_no_stdout "--output in /sys: refused before any work"
else
    skip 6 "no /proc and /sys on this system"
fi

run "$P" --q "$FX/prog_q.npy" --output "$TMP/bad10.npy"
expect_usage_error "--k and --v" "--q without --k and --v"
expect_no_file "$TMP/bad10.npy" "--q without --k and --v"

run "$P" --heatmap
expect_usage_error "--heatmap" "--heatmap does not apply to chapter 8"

run "$P" --seq-len 0
expect_usage_error "--seq-len" "--seq-len 0"

run "$P" --heads 0
expect_usage_error "--heads" "--heads 0"

finish
