# test_ch05_program.sh — build/chapter5: narration, flags, .npy in/out against PyTorch, bad input.
. tests/lib.sh
suite test_ch05_program
P="$BUILD/chapter5"
F=tests/fixtures/ch05

# ---- the default run narrates ------------------------------------------------
run "$P"
expect_status 0 "default run"
expect_out_contains "F.softmax(scores.float(), dim=-1).type_as(xq)" "the softmax line as Happy-LLM 2.1.6 writes it"
expect_out_contains "xq.view(bsz, seqlen, self.n_heads, self.head_dim)" "names the view as 2.1.6 writes it today"
expect_out_contains "Happy-LLM 5.1.3, LLaMA2 Attention" "cites n_local_heads where the book keeps it"
expect_out_contains "view must cut each token's d_out values into n_heads pieces of one" \
    "d_out % n_heads: the reason is view's whole head_dim"
if grep -q "2\.1\.6.*n_local_heads\|n_local_heads.*2\.1\.6" "$TMP/out"; then _bad "n_local_heads quoted as 2.1.6"; else _ok; fi
expect_out_contains "xq.transpose(1, 2): shape (1, 2, 4, 2)  strides (16, 2, 4, 1)" "split layout"
expect_out_contains "contiguous no" "the split is not contiguous"
expect_out_contains "output = output.contiguous()" "names the merge"
expect_out_contains "head_dim = d_out // n_heads = 4 // 2 = 2" "head_dim"
expect_out_contains "model_parallel_size" "explains model_parallel_size"
expect_out_contains "n_local_heads" "explains n_local_heads"
expect_out_contains "max |wrapper - output| = 0" "wrapper equals split"
expect_out_contains "-inf" "causal by default"

run "$P" --no-causal
expect_status 0 "--no-causal"
if grep -qF -- "-inf" "$TMP/out"; then _bad "--no-causal: scores still have -inf"; else _ok; fi

run "$P" --quiet
expect_status 0 "--quiet"
expect_out_contains "output = tensor(" "--quiet prints the output"
if grep -qF "PyTorch:" "$TMP/out"; then _bad "--quiet still narrates"; else _ok; fi

run "$P" --help
expect_status 0 "--help"
expect_out_contains "--heads" "--help lists --heads"
expect_out_contains "Causal by default" "--help says which default it chose"
expect_out_contains "input width d_in (Happy-LLM 2.1.6: args.n_embd)" "--help: d_in is the book's args.n_embd"

run "$P" --heads 4 --d-out 8 --seq-len 6 --batch 2 --d-in 5 --bias --quiet
expect_status 0 "bigger sizes"
expect_out_contains "shape (2, 4, 6, 6)" "one weight matrix per batch and head"

run "$P" --heatmap --quiet
expect_status 0 "--heatmap"
expect_out_contains "head 1" "one grid per head"

# ---- .npy in and out, against PyTorch -------------------------------------------
check_case() { # NAME HEADS CAUSAL_FLAG
    rm -f "$TMP/out.npy"
    run "$P" --input "$F/$1/input.npy" --weights "$F/$1/weights" --heads "$2" "$3" --quiet --output "$TMP/out.npy"
    expect_status 0 "$1"
    expect_npy_close "$TMP/out.npy" "$F/$1/output.npy" 1e-5 1e-6 "$1: output"
}
check_case b1_t4_din6_dout4_h2_causal 2 --causal
check_case b2_t5_din10_dout8_h2_causal 2 --causal
check_case b1_t1_din3_dout4_h4_causal_bias 4 --causal
check_case b3_t3_din5_dout6_h3_full_bias 3 --no-causal
check_case b2_t6_din7_dout12_h4_full 4 --no-causal
check_case b1_t7_din8_dout3_h1_causal_bias 1 --causal
check_case b2_t4_din4_dout6_h2_full_bias 2 --no-causal
check_case b1_t3_din9_dout8_h4_causal 4 --causal
check_case b2_t2_din6_dout8_h4_full_bias 4 --no-causal

# --dump writes the split tensors and the weights
C=b2_t5_din10_dout8_h2_causal
run "$P" --input "$F/$C/input.npy" --weights "$F/$C/weights" --heads 2 --quiet --dump "$TMP/dump"
expect_status 0 "--dump"
for f in xq xk xv scores attn_weights output; do
    expect_npy_close "$TMP/dump/$f.npy" "$F/$C/$f.npy" 1e-5 1e-6 "--dump $f.npy"
done

# the same seed gives the same output
run "$P" --quiet --output "$TMP/a.npy"
run "$P" --quiet --output "$TMP/b.npy"
expect_npy_close "$TMP/a.npy" "$TMP/b.npy" 0 0 "same seed, same output"

# ---- bad input: one sentence, no output file --------------------------------------
run "$P" --heads 3 --output "$TMP/bad.npy"
expect_usage_error "--heads 3: d_out 4 is not divisible by n_heads 3" "heads that do not divide d_out"
expect_no_file "$TMP/bad.npy" "heads that do not divide d_out"

run "$P" --input "$F/$C/input.npy" --weights "$F/$C/weights" --heads 3 --output "$TMP/bad.npy"
expect_usage_error "d_out 8 (the rows of" "heads that do not divide the weights' d_out"
expect_no_file "$TMP/bad.npy" "heads that do not divide the weights' d_out"

mkdir -p "$TMP/missing"
cp "$F/$C/weights/wq.npy" "$F/$C/weights/wv.npy" "$TMP/missing/"
run "$P" --input "$F/$C/input.npy" --weights "$TMP/missing" --heads 2 --output "$TMP/bad.npy"
expect_runtime_error "wk.npy" "weights folder without wk.npy"
expect_no_file "$TMP/bad.npy" "weights folder without wk.npy"

run "$P" --input "$F/b1_t4_din6_dout4_h2_causal/input.npy" --weights "$F/$C/weights" --heads 2 --output "$TMP/bad.npy"
expect_runtime_error "d_in = 6" "weights that do not fit d_in"
expect_no_file "$TMP/bad.npy" "weights that do not fit d_in"

# wk of another d_out than wq and wv: (8, 6) beside (4, 6)
mkdir -p "$TMP/dout"
D=b1_t4_din6_dout4_h2_causal
cp "$F/$D/weights/wq.npy" "$F/$D/weights/wv.npy" "$TMP/dout/"
cp "$F/b2_t2_din6_dout8_h4_full_bias/weights/wq.npy" "$TMP/dout/wk.npy"
run "$P" --input "$F/$D/input.npy" --weights "$TMP/dout" --heads 2 --output "$TMP/bad.npy"
expect_runtime_error "wk.npy has shape (8, 6) but wq.npy has shape (4, 6)" "a matrix that does not fit d_out"
expect_no_file "$TMP/bad.npy" "a matrix that does not fit d_out"

mkdir -p "$TMP/bias"
cp "$F/b3_t3_din5_dout6_h3_full_bias/weights/"*.npy "$TMP/bias/"
cp "$F/b1_t1_din3_dout4_h4_causal_bias/weights/bk.npy" "$TMP/bias/bk.npy"
run "$P" --input "$F/b3_t3_din5_dout6_h3_full_bias/input.npy" --weights "$TMP/bias" --heads 3 --output "$TMP/bad.npy"
expect_runtime_error "bk.npy has shape (4,)" "a bias of the wrong length"
expect_no_file "$TMP/bad.npy" "a bias of the wrong length"

run "$P" --input "$F/$C/weights/wq.npy" --weights "$F/$C/weights" --heads 2 --output "$TMP/bad.npy"
expect_runtime_error "expected (B, T, d_in)" "a 2-D input"
expect_no_file "$TMP/bad.npy" "a 2-D input"

run "$P" --input "$TMP/nothing.npy" --weights "$F/$C/weights" --heads 2 --output "$TMP/bad.npy"
expect_status 1 "a missing input file"
expect_one_line "a missing input file"
expect_no_file "$TMP/bad.npy" "a missing input file"

run "$P" --seq-len 6 --max-seq-len 4 --output "$TMP/bad.npy"
expect_usage_error "--max-seq-len 4: sequence length 6 is longer than max_seq_len 4, the size of the causal mask buffer" \
    "--seq-len past --max-seq-len"
expect_no_stdout "--seq-len past --max-seq-len: refused before the title"
run "$P" --no-causal --max-seq-len 8
expect_usage_error "--max-seq-len does not apply with --no-causal" "--max-seq-len with --no-causal"
run "$P" --input "$F/b2_t5_din10_dout8_h2_causal/input.npy" --weights "$F/b2_t5_din10_dout8_h2_causal/weights" \
    --heads 2 --no-causal --seq-len 3
expect_usage_error "--seq-len does not apply with --input when the run is not causal" "--input, --no-causal, --seq-len"
expect_no_stdout "--input, --no-causal, --seq-len: refused before the title"
run "$P" --help
expect_out_contains "with --input, the input's T (or --seq-len)" "--help: what sets max_seq_len"
run "$P" --d-in 1000000 --d-out 1000000
expect_runtime_error "wq.weight: shape (1000000, 1000000) needs" "one weight past the limit"
expect_no_stdout "one weight past the limit: before the title"
run "$P" --input "$F/b2_t5_din10_dout8_h2_causal/input.npy" --weights "$F/b2_t5_din10_dout8_h2_causal/weights" \
    --heads 2 --seed 4
expect_usage_error "--seed does not apply: this run draws no random numbers" "--input draws nothing: --seed refused"
expect_no_stdout "--input --seed: refused before the title"
export ATTN_MAX_BYTES=100000
run "$P" --seq-len 1000
expect_runtime_error "chapter 8" "scores that do not fit, narrated run"
expect_no_stdout "scores that do not fit: said before the title"
run "$P" --max-seq-len 200
expect_runtime_error "causal mask: the max_seq_len x max_seq_len buffer (1, 1, 200, 200)" "a mask that does not fit"
expect_no_stdout "a mask that does not fit: said before the title"
unset ATTN_MAX_BYTES
expect_no_file "$TMP/bad.npy" "--seq-len past --max-seq-len"

export ATTN_MAX_BYTES=100000   # a low memory limit, so that 1000 tokens are too many
run "$P" --seq-len 1000 --quiet --output "$TMP/bad.npy"
unset ATTN_MAX_BYTES
expect_runtime_error "chapter 8" "scores that do not fit in memory"
expect_err_contains "(1, 2, 1000, 1000)" "scores that do not fit: the shape"
expect_no_file "$TMP/bad.npy" "scores that do not fit in memory"

run "$P" --heads 0
expect_usage_error "--heads" "--heads 0"
run "$P" --dropout 0.1
expect_usage_error "--dropout" "--dropout does not apply to chapter 5"
run "$P" --input "$F/$C/input.npy"
expect_usage_error "--weights" "--input without --weights"

# ---- default runs == PyTorch from the seed alone ------------------------------
# Each folder default/<case> holds PyTorch's x and output for
# torch.manual_seed(seed); W_query, W_key, W_value; x = torch.randn(B, T, d_in),
# then chapter 5's heads with a (1, 1, L, L) mask buffer (scripts/golden/ch05.py).
check_default_runs "tests/fixtures/ch05/default" 10

# --dump writes the run's x and weights under the names --input and --weights read:
# a dump runs again to the same output
run "$P" --bias --heads 2 --dump "$TMP/replay" --quiet
expect_status 0 "--bias --dump: the default run's files"
run "$P" --input "$TMP/replay/x.npy" --weights "$TMP/replay" --heads 2 --output "$TMP/replay.npy" --quiet
expect_status 0 "the dump read back by --input and --weights"
expect_npy_close "$TMP/replay.npy" "$TMP/replay/output.npy" 0 0 "the dump run again gives its output.npy"

finish
