# test_ch06_program.sh — build/chapter6: dropout on the weights; train vs eval; PyTorch fixtures; bad input.
. tests/lib.sh
suite test_ch06_program
P="$BUILD/chapter6"
F=tests/fixtures/ch06
F5=tests/fixtures/ch05

# ---- the default run narrates ----------------------------------------------------
run "$P"
expect_status 0 "default run"
expect_out_contains "F.softmax(scores.float(), dim=-1).type_as(xq)" "the softmax line as Happy-LLM 2.1.6 writes it"
expect_out_contains "nn.Dropout(p = 0.1), training mode" "training with the 手撕 script's p by default"
expect_out_contains "scores = self.attn_dropout(scores)" "names the PyTorch line"
expect_out_contains "The rows no longer sum to 1" "rows no longer sum to 1"
expect_out_contains "(1 - p) * w / (1 - p) + p * 0 = w" "why the expectation is kept"
expect_out_contains "The expectation is kept: the mean of 2000 dropout draws" "the averaging experiment"

run "$P" --eval
expect_status 0 "--eval"
expect_out_contains "eval mode" "--eval says so"
expect_out_contains "max |output - chapter 5's output| = 0" "--eval equals chapter 5"

run "$P" --quiet
expect_status 0 "--quiet"
expect_out_contains "output = tensor(" "--quiet prints the output"
if grep -qF "PyTorch:" "$TMP/out"; then _bad "--quiet still narrates"; else _ok; fi

run "$P" --help
expect_status 0 "--help"
expect_out_contains "--dropout P" "--help lists --dropout"
expect_out_contains "--eval" "--help lists --eval"
expect_out_contains "(default 0.1)" "--help shows the default p"

run "$P" --dropout 0.5 --heatmap --quiet
expect_status 0 "--heatmap"
expect_out_contains "after dropout (dropped cells are 0): batch 0, head 1" "one grid per head, after dropout"
expect_out_contains "weights before dropout: batch 0, head 1" "the weights before dropout are drawn too"

# ---- reproducible, and chapter 5 in eval ------------------------------------------
run "$P" --quiet --output "$TMP/a.npy"
run "$P" --quiet --output "$TMP/b.npy"
expect_npy_close "$TMP/a.npy" "$TMP/b.npy" 0 0 "same seed, same output"
if cmp -s "$TMP/a.npy" "$TMP/b.npy"; then _ok; else _bad "same seed: files differ"; fi
run "$P" --quiet --seed 7 --dropout 0.5 --output "$TMP/c.npy"
run "$P" --quiet --seed 8 --dropout 0.5 --output "$TMP/d.npy"
if cmp -s "$TMP/c.npy" "$TMP/d.npy"; then _bad "different seeds gave the same dropout"; else _ok; fi

run "$P" --quiet --eval --output "$TMP/eval.npy"
run "$BUILD/chapter5" --quiet --output "$TMP/ch5.npy"
expect_npy_close "$TMP/eval.npy" "$TMP/ch5.npy" 0 0 "--eval equals chapter 5 with the same seed"
run "$P" --quiet --dropout 0 --output "$TMP/p0.npy"
expect_npy_close "$TMP/p0.npy" "$TMP/ch5.npy" 0 0 "--dropout 0 equals chapter 5 with the same seed"

# ---- .npy in and out, against PyTorch ----------------------------------------------
check_case() { # NAME HEADS CAUSAL_FLAG
    rm -f "$TMP/o.npy"
    run "$P" --input "$F/$1/input.npy" --weights "$F/$1/weights" --heads "$2" "$3" --eval --quiet --output "$TMP/o.npy"
    expect_status 0 "$1 --eval"
    expect_npy_close "$TMP/o.npy" "$F/$1/output_eval.npy" 1e-5 1e-6 "$1: --eval"
    run "$P" --input "$F/$1/input.npy" --weights "$F/$1/weights" --heads "$2" "$3" --dropout 0 --quiet --output "$TMP/o.npy"
    expect_npy_close "$TMP/o.npy" "$F/$1/output_p0.npy" 1e-5 1e-6 "$1: --dropout 0"
    run "$P" --input "$F/$1/input.npy" --weights "$F/$1/weights" --heads "$2" "$3" --dropout 1 --quiet --output "$TMP/o.npy"
    expect_npy_close "$TMP/o.npy" "$F/$1/output_p1.npy" 0 0 "$1: --dropout 1"
}
check_case b1_t4_din6_dout4_h2_causal 2 --causal
check_case b2_t5_din10_dout8_h2_full_bias 2 --no-causal
check_case b1_t1_din3_dout4_h4_causal_bias 4 --causal

# chapter 5's fixtures too: --eval is chapter 5
C5=b2_t6_din7_dout12_h4_full
run "$P" --input "$F5/$C5/input.npy" --weights "$F5/$C5/weights" --heads 4 --no-causal --eval --quiet --output "$TMP/o5.npy"
expect_npy_close "$TMP/o5.npy" "$F5/$C5/output.npy" 1e-5 1e-6 "--eval on a chapter 5 fixture"

# --dump: attn_weights before dropout (= PyTorch), attn_dropped after
C=b1_t4_din6_dout4_h2_causal
run "$P" --input "$F/$C/input.npy" --weights "$F/$C/weights" --heads 2 --quiet --dump "$TMP/dump"
expect_status 0 "--dump"
expect_npy_close "$TMP/dump/attn_weights.npy" "$F/$C/attn_weights.npy" 1e-5 1e-6 "--dump attn_weights.npy"
expect_file "$TMP/dump/attn_dropped.npy" "--dump attn_dropped.npy"
for f in xq xk xv scores output; do expect_file "$TMP/dump/$f.npy" "--dump $f.npy"; done
run "$P" --input "$F/$C/input.npy" --weights "$F/$C/weights" --heads 2 --quiet --eval --dump "$TMP/dump_eval"
expect_npy_close "$TMP/dump_eval/attn_dropped.npy" "$F/$C/attn_weights.npy" 1e-5 1e-6 "--eval: attn_dropped = attn_weights"

# ---- bad input: one sentence, no output file -----------------------------------------
run "$P" --dropout 1.5 --output "$TMP/bad.npy"
expect_usage_error "--dropout" "--dropout 1.5"
expect_no_file "$TMP/bad.npy" "--dropout 1.5"
run "$P" --dropout -0.1 --output "$TMP/bad.npy"
expect_status 2 "--dropout -0.1"
expect_one_line "--dropout -0.1"
expect_no_file "$TMP/bad.npy" "--dropout -0.1"

run "$P" --heads 3 --output "$TMP/bad.npy"
expect_usage_error "--heads 3: d_out 4 is not divisible by n_heads 3" "heads that do not divide d_out"
expect_no_file "$TMP/bad.npy" "heads that do not divide d_out"

mkdir -p "$TMP/missing"
cp "$F/$C/weights/wq.npy" "$F/$C/weights/wk.npy" "$TMP/missing/"
run "$P" --input "$F/$C/input.npy" --weights "$TMP/missing" --heads 2 --output "$TMP/bad.npy"
expect_runtime_error "wv.npy" "weights folder without wv.npy"
expect_no_file "$TMP/bad.npy" "weights folder without wv.npy"

run "$P" --input "$F/$C/input.npy" --weights "$F/b2_t5_din10_dout8_h2_full_bias/weights" --heads 2 --output "$TMP/bad.npy"
expect_runtime_error "d_in = 6" "weights that do not fit d_in"
expect_no_file "$TMP/bad.npy" "weights that do not fit d_in"

mkdir -p "$TMP/bias"
B=b2_t5_din10_dout8_h2_full_bias
cp "$F/$B/weights/"*.npy "$TMP/bias/"
cp "$F/b1_t1_din3_dout4_h4_causal_bias/weights/bq.npy" "$TMP/bias/bq.npy"
run "$P" --input "$F/$B/input.npy" --weights "$TMP/bias" --heads 2 --output "$TMP/bad.npy"
expect_runtime_error "bq.npy has shape (4,)" "a bias of the wrong length"
expect_no_file "$TMP/bad.npy" "a bias of the wrong length"

export ATTN_MAX_BYTES=100000   # a low memory limit, so that 1000 tokens are too many
run "$P" --seq-len 1000 --quiet --output "$TMP/bad.npy"
unset ATTN_MAX_BYTES
expect_runtime_error "chapter 8" "scores that do not fit in memory"
expect_no_file "$TMP/bad.npy" "scores that do not fit in memory"
export ATTN_MAX_BYTES=100000
run "$P" --seq-len 1000
unset ATTN_MAX_BYTES
expect_runtime_error "chapter 8" "scores that do not fit, narrated run"
expect_no_stdout "scores that do not fit: said before the title"
run "$P" --seq-len 6 --max-seq-len 4
expect_usage_error "--max-seq-len 4: sequence length 6 is longer than max_seq_len 4" "--seq-len past --max-seq-len"
expect_no_stdout "--seq-len past --max-seq-len: refused before the title"
run "$P" --input "$F/$B/input.npy" --weights "$F/$B/weights" --heads 2 --eval --seed 4
expect_usage_error "--seed does not apply: this run draws no random numbers" "--input --eval draws nothing: --seed refused"
run "$P" --input "$F/$B/input.npy" --weights "$F/$B/weights" --heads 2 --seed 4 --quiet
expect_status 0 "--input in training mode: --seed draws the dropout masks"
run "$P" --no-causal --max-seq-len 8
expect_usage_error "--max-seq-len does not apply with --no-causal" "--max-seq-len with --no-causal"

# T = 43540 with the budget at this machine's memory: refused before any allocation.
# Without --causal no mask is built; the estimate used to count one anyway, call it the
# largest buffer, leave the refusing to the mask's own check (which never came) and
# allocate 14 GiB of scores. A limit on the address space keeps a regression from
# taking the machine's memory: it would then end in another sentence, and fail here.
mem=$(awk '/^MemTotal:/ { print $2 "K" }' /proc/meminfo 2>/dev/null)
[ -n "$mem" ] || mem=24G
for causal in --causal --no-causal; do
    if sanitized; then skip 4 "a sanitizer build cannot start under ulimit -v"; continue; fi
    (ulimit -v 2000000 2>/dev/null; ATTN_MAX_BYTES=$mem run "$P" --seq-len 43540 $causal --output "$TMP/bad.npy"
     echo "$status" >"$TMP/status")
    status=$(cat "$TMP/status")
    _cmd="ATTN_MAX_BYTES=$mem $P --seq-len 43540 $causal"
    expect_status 1 "T = 43540 $causal: refused up front"
    expect_one_line "T = 43540 $causal: one sentence"
    expect_err_contains "ATTN_MAX_BYTES" "T = 43540 $causal: names the budget"
    expect_no_file "$TMP/bad.npy" "T = 43540 $causal"
done

run "$P" --impl flash
expect_usage_error "--impl" "--impl does not apply to chapter 6"

# ---- default runs == PyTorch from the seed alone ------------------------------
# Each folder default/<case> holds PyTorch's x and output, as chapter 5, with
# nn.Dropout(p) on the weights, in training (mask from the same generator) and
# eval mode (scripts/golden/ch06.py).
check_default_runs "tests/fixtures/ch06/default" 20

# --dump writes the run's x and weights under the names --input and --weights read:
# a dump runs again to the same output
run "$P" --bias --heads 2 --eval --dump "$TMP/replay" --quiet
expect_status 0 "--bias --dump: the default run's files"
run "$P" --input "$TMP/replay/x.npy" --weights "$TMP/replay" --heads 2 --eval --output "$TMP/replay.npy" --quiet
expect_status 0 "the dump read back by --input and --weights"
expect_npy_close "$TMP/replay.npy" "$TMP/replay/output.npy" 0 0 "the dump run again gives its output.npy"

finish
