#!/bin/sh
# test_ch03_program.sh — build/chapter3: the narrated demo (attention(x, x, x)
# then attention(xW_q, xW_k, xW_v)), --quiet, --help, --bias, .npy in/out
# compared with PyTorch (tests/fixtures/ch03, scripts/golden/ch03.py), --dump,
# --heatmap, and every weights folder qkv_load refuses: exit 1 or 2, one line
# on stderr, no --output file left behind.
. tests/lib.sh
suite test_ch03_program

P=$BUILD/chapter3
FX=${FIXTURES:-tests/fixtures}/ch03

# ---- the narrated demo ----------------------------------------------------
run "$P"
expect_status 0 "default run"
expect_out_contains "[1] A random input x: batch 1, 6 tokens, d_in = 3" "random x of the default sizes"
expect_out_contains "PyTorch: output, p_attn = attention(x, x, x)" "quotes attention(x, x, x)"
expect_out_contains "PyTorch: W_query = nn.Linear(d_in, d_out, bias=False)" "quotes nn.Linear, bias off"
expect_out_contains "PyTorch: xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)" "quotes the projections"
expect_out_contains "PyTorch: output, p_attn = attention(xq, xk, xv)" "quotes attention on the projections"
expect_out_contains "plain x,x,x: scores symmetric: yes (max |scores - scores^T| = 0)" "x,x,x scores are symmetric"
expect_out_contains "projected: scores symmetric: no" "projected scores are not symmetric"
expect_out_contains "wq.weight = tensor(" "shows W_q"
expect_out_contains "shape (2, 3)" "W_q is (d_out, d_in)"
expect_out_contains "18 trainable numbers" "counts the parameters"
expect_out_contains "Same input, three different learned views" "answers: are Q, K and V the same?"
expect_out_contains "why:" "explains each step"
expect_out_lacks "wq.bias" "no biases by default"

run "$P" --quiet
expect_status 0 "--quiet"
expect_out_contains "p_attn = tensor(" "--quiet prints p_attn"
expect_out_contains "output = tensor(" "--quiet prints the output"
expect_out_contains "shape (1, 6, 2)" "output is (B, T, d_out)"
expect_out_contains "plain x,x,x: scores symmetric: yes" "--quiet prints the symmetry results"
expect_out_lacks "PyTorch:" "--quiet has no narration"

run "$P" --help
expect_status 0 "--help"
expect_out_contains "--input FILE" "--help lists --input"
expect_out_contains "--weights DIR" "--help lists --weights"
expect_out_contains "--bias" "--help lists --bias"
expect_out_contains "--d-out D" "--help lists --d-out"
expect_out_contains "--batch B" "--help lists --batch"
expect_out_lacks "--q FILE" "--help does not list --q"

run "$P" --bias --d-out 4 --quiet
expect_status 0 "--bias --d-out 4"
expect_out_contains "shape (1, 6, 4)" "--d-out sets the output width"
run "$P" --bias
expect_out_contains "PyTorch: W_query = nn.Linear(d_in, d_out, bias=True)" "--bias quotes bias=True"
expect_out_contains "wq.bias = tensor(" "--bias shows the biases"
expect_out_contains "24 trainable numbers" "--bias adds 3 * d_out parameters"

# many features: every token's largest x,x,x score is its own
run "$P" --quiet --d-in 64 --seq-len 8 --batch 4
expect_status 0 "--d-in 64 --seq-len 8 --batch 4"
expect_out_contains "plain x,x,x: largest score on the token itself in 32 of 32 rows" "x_i.x_i wins with 64 features"
expect_out_contains "shape (4, 8, 2)" "batch 4"

run "$P" --quiet --seed 9
cp "$TMP/out" "$TMP/seed9"
run "$P" --quiet --seed 9
if cmp -s "$TMP/out" "$TMP/seed9"; then _ok; else _bad "--seed 9 twice gives the same output"; fi
run "$P" --quiet --seed 10
if cmp -s "$TMP/out" "$TMP/seed9"; then _bad "--seed 10 gives another x than --seed 9"; else _ok; fi

run "$P" --heatmap --quiet --batch 2
expect_status 0 "--heatmap"
expect_out_contains "attention(x, x, x): batch 1" "--heatmap draws x,x,x for each batch"
expect_out_contains "attention(xW_q, xW_k, xW_v): batch 0" "--heatmap draws the projected weights"
run "$P" --ascii --quiet
expect_status 0 "--ascii"

# --dump writes the named intermediates, consistent with --output
run "$P" --quiet --dump "$TMP/demo" --output "$TMP/demo_out.npy"
expect_status 0 "demo --dump --output"
for f in xq xk xv scores attn_weights output plain_scores plain_attn_weights plain_output; do
    expect_file "$TMP/demo/$f.npy" "--dump writes $f.npy"
done
expect_npy_close "$TMP/demo_out.npy" "$TMP/demo/output.npy" 0 0 "--output is the dumped output"

# ---- .npy in and out against PyTorch (F.linear, then Happy-LLM attention) ----
for s in a b c; do
    rm -rf "$TMP/d"
    run "$P" --quiet --input "$FX/input_$s.npy" --weights "$FX/weights_$s" --output "$TMP/out_$s.npy" --dump "$TMP/d"
    expect_status 0 "set $s: files in, files out"
    expect_npy_close "$TMP/out_$s.npy" "$FX/output_$s.npy" 1e-5 1e-6 "set $s: output"
    expect_npy_close "$TMP/d/attn_weights.npy" "$FX/attn_weights_$s.npy" 1e-5 1e-6 "set $s: attn_weights"
    expect_npy_close "$TMP/d/xq.npy" "$FX/xq_$s.npy" 1e-5 1e-6 "set $s: xq"
done
run "$P" --input "$FX/input_a.npy" --weights "$FX/weights_a"
expect_status 0 "narrated run on files"
expect_out_contains "Load W_q, W_k, W_v from $FX/weights_a" "says where the weights come from"
expect_out_contains "wq.bias =" "the biases of the folder are used"

# ---- bad input: one sentence, exit 1 or 2, no output file --------------------

IN="$FX/input_a.npy" # (2, 5, 10)
bad_runtime "has no wk.npy" "missing wk.npy" --input "$IN" --weights "$FX/bad_missing_wk"
bad_runtime "has no wq.npy" "a weights folder that does not exist" --input "$IN" --weights "$TMP/nowhere"
bad_runtime "wk.npy has shape (8, 9) but the input has d_in = 10: expected (d_out, 10)" "wk does not fit d_in" \
    --input "$IN" --weights "$FX/bad_d_in"
bad_runtime "wq.npy has shape (8, 10) but the input has d_in = 9: expected (d_out, 9)" "the input does not fit the weights" \
    --input "$FX/input_c.npy" --weights "$FX/weights_a"
bad_runtime "wk.npy has shape (4, 10) but wq.npy has shape (8, 10)" "wq and wk of different shapes" \
    --input "$IN" --weights "$FX/bad_shapes"
bad_runtime "wq.npy has shape (8,): a weight must be 2-D (d_out, d_in)" "a 1-D weight" \
    --input "$IN" --weights "$FX/bad_1d"
bad_runtime "wv.npy has shape (2, 4, 10): a weight must be 2-D (d_out, d_in)" "a 3-D weight" \
    --input "$IN" --weights "$FX/bad_3d"
bad_runtime "has bq.npy, bv.npy but not bk.npy: give all three biases bq, bk, bv or none" "only some biases" \
    --input "$IN" --weights "$FX/bad_some_bias"
bad_runtime "bk.npy has shape (7,) but the weights have d_out = 8: expected (8,)" "a bias of the wrong length" \
    --input "$IN" --weights "$FX/bad_bias_len"
bad_runtime "expected (B, T, d_in), 3 dims" "a 2-D input" \
    --input "$FX/weights_a/wq.npy" --weights "$FX/weights_a"
bad_runtime "$TMP/missing.npy" "a missing input file" --input "$TMP/missing.npy" --weights "$FX/weights_a"
printf '\223NUMPY garbage' >"$TMP/garbage.npy"
bad_runtime "$TMP/garbage.npy" "an input that is not .npy" --input "$TMP/garbage.npy" --weights "$FX/weights_a"
bad_runtime "randn: shape (1000000, 1000000, 3)" "x too big for memory" --batch 1000000 --seq-len 1000000

bad_usage "--input and --weights go together: missing --weights" "--input alone" --input "$IN"
bad_usage "--input and --weights go together: missing --input" "--weights alone" --weights "$FX/weights_a"
bad_usage "--d-out" "--d-out 0" --d-out 0
bad_usage "--seq-len" "--seq-len -1" --seq-len -1
bad_usage "--q" "--q does not apply" --q "$IN"
bad_usage "--heads" "--heads does not apply" --heads 2
# a flag that would change nothing is refused, not ignored: the files give x, the weights and biases
bad_usage "nothing is random; it does not take --seed" "--seed with --input" \
    --input "$IN" --weights "$FX/weights_a" --seed 4
bad_usage "it does not take --batch, --seq-len, --d-in, --d-out and --bias" "the sizes and --bias with --input" \
    --input "$IN" --weights "$FX/weights_a" --quiet --batch 2 --seq-len 5 --d-in 10 --d-out 8 --bias
bad_usage "也没有随机的东西；不接受 --d-out" "--d-out with --input, in Chinese" \
    --input "$IN" --weights "$FX/weights_a" --d-out 8 --lang zh

run "$P" --quiet --output "$TMP/no_such_dir/out.npy"
expect_usage_error "no_such_dir does not exist" "--output into a missing folder"
expect_no_file "$TMP/no_such_dir/out.npy" "--output into a missing folder"

# ---- default runs == PyTorch from the seed alone ------------------------------
# Each folder default/s<seed>_b<B>_t<T>_i<d_in>_o<d_out>[_bias] holds PyTorch's x and
# output for torch.manual_seed(seed); W_query, W_key, W_value = nn.Linear(d_in,
# d_out) x 3; x = torch.randn(B, T, d_in) (scripts/golden/ch03.py).
check_default_runs "tests/fixtures/ch03/default" 10

finish
