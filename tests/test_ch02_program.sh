#!/bin/sh
# test_ch02_program.sh — build/chapter2: the narrated demo and the d_k table,
# --quiet, --help, .npy in/out compared with PyTorch (tests/fixtures/ch02,
# scripts/golden/ch02.py), --dump, --heatmap, and every bad input: exit 1 or
# 2, one line on stderr, no --output file left behind.
. tests/lib.sh
suite test_ch02_program

P=$BUILD/chapter2
FX=${FIXTURES:-tests/fixtures}/ch02

# ---- the narrated demo ----------------------------------------------------
run "$P"
expect_status 0 "default run"
expect_out_contains "[1] Chapter 1's sentence" "starts from chapter 1's sentence"
expect_out_contains "PyTorch: d_k = query.size(-1)" "quotes the d_k line"
expect_out_contains "PyTorch: scores = torch.matmul(query, key.transpose(-2, -1)) /" "quotes the scale line"
expect_out_contains "             math.sqrt(d_k)" "the scale line continues under 80 columns"
expect_out_contains "PyTorch: p_attn = scores.softmax(dim=-1)" "quotes the softmax line"
expect_out_contains "PyTorch: return torch.matmul(p_attn, value), p_attn" "quotes the return line"
expect_out_contains "sqrt(3) = 1.7321" "d_k of the sentence is 3"
expect_out_contains "journey" "labels the rows with the tokens"
expect_out_contains "weights (unscaled) = tensor([[0.2098," "shows chapter 1's unscaled weights"
expect_out_contains "p_attn = tensor([[0.1916," "shows the scaled weights"
expect_out_contains "why:" "explains each step"
expect_out_contains "variance of q·k" "prints the d_k table"
for dk in 4 16 64 256 1024; do
    if grep -qE "^ +$dk +[0-9]" "$TMP/out"; then _ok; else _bad "the table has a row for d_k = $dk"; fi
done

# the table: unscaled variance near d_k, scaled near 1 (1000 pairs: 5 sd = 23%)
if awk '$1 == 1024 && $2 > 790 && $2 < 1260 && $3 > 0.77 && $3 < 1.23 { ok = 1 } END { exit !ok }' "$TMP/out"; then _ok
else _bad "d_k = 1024: var(q.k) near 1024 and scaled near 1"; fi
if awk '$1 == 1024 && $4 > 0.9 && $5 < 0.6 && $6 < 0.3 && $7 > 1.2 { ok = 1 } END { exit !ok }' "$TMP/out"; then _ok
else _bad "d_k = 1024: unscaled softmax saturates (max w > 0.9, entropy < 0.3), scaled does not"; fi

run "$P" --quiet
expect_status 0 "--quiet"
expect_out_contains "p_attn = tensor([[0.1916," "--quiet prints p_attn"
expect_out_contains "output = tensor(" "--quiet prints the output"
expect_out_contains "variance of q·k" "--quiet prints the table"
expect_out_lacks "PyTorch:" "--quiet has no narration"
expect_out_lacks "why:" "--quiet has no reasons"

# same seed, same run; another seed, another table
cp "$TMP/out" "$TMP/quiet"
run "$P" --quiet --seed 123
if cmp -s "$TMP/out" "$TMP/quiet"; then _ok; else _bad "--seed 123 (the default) twice gives the same output"; fi
run "$P" --quiet --seed 6
if cmp -s "$TMP/out" "$TMP/quiet"; then _bad "--seed 6 gives another table than --seed 123"; else _ok; fi

# random q, k, v: --d-k adds its row to the table
run "$P" --d-k 100 --seq-len 5
expect_status 0 "--d-k 100 --seq-len 5"
expect_out_contains "Random query, key and value: 5 tokens of width d_k = 100" "--d-k draws random q, k, v"
expect_out_contains "sqrt(100) = 10.0000" "d_k is the width"
if grep -qE "^ +100 +[0-9]" "$TMP/out"; then _ok; else _bad "--d-k 100 adds a row to the table"; fi
expect_out_contains "log 5 = 1.609" "--seq-len sets the experiment's row length"
run "$P" --d-k 256 --quiet --ascii
expect_status 0 "--d-k 256 --ascii"
n=$(grep -cE "^ +256 +[0-9]" "$TMP/out")
if [ "$n" -eq 1 ]; then _ok; else _bad "--d-k 256 (already in the table) appears once, got $n"; fi
expect_out_contains "weights, unscaled (chapter 1)" "--ascii draws the unscaled weights"

# ---- the demo's numbers are PyTorch's ---------------------------------------
run "$P" --quiet --heatmap --dump "$TMP/demo" --output "$TMP/demo_out.npy"
expect_status 0 "demo --heatmap --dump --output"
expect_out_contains "journey" "--heatmap labels the rows"
expect_out_contains "scaled by 1/sqrt(d_k)" "--heatmap draws the scaled weights"
expect_npy_close "$TMP/demo/scores.npy" "$FX/sentence_scores.npy" 1e-5 1e-6 "demo scores (scaled)"
expect_npy_close "$TMP/demo/attn_weights.npy" "$FX/sentence_p_attn.npy" 1e-5 1e-6 "demo attn_weights"
expect_npy_close "$TMP/demo/output.npy" "$FX/sentence_output.npy" 1e-5 1e-6 "demo output (dump)"
expect_npy_close "$TMP/demo_out.npy" "$FX/sentence_output.npy" 1e-5 1e-6 "demo --output"
expect_npy_close "$TMP/demo/attn_weights_unscaled.npy" "$FX/sentence_p_attn_unscaled.npy" 1e-5 1e-6 "chapter 1's weights"
run "$BUILD/npyinfo" "$TMP/demo/scaling_stats.npy"
expect_out_contains "shape (5, 7)" "--dump writes the d_k table as scaling_stats.npy (5, 7)"

run "$P" --help
expect_status 0 "--help"
expect_out_contains "--d-k D" "--help lists --d-k"
expect_out_contains "--seq-len T" "--help lists --seq-len"
expect_out_contains "--q FILE" "--help lists --q"
expect_out_contains "--output FILE" "--help lists --output"
expect_out_contains "--heatmap" "--help lists --heatmap"
expect_out_lacks "--batch" "--help does not list --batch"

# ---- .npy in and out against PyTorch ----------------------------------------
for c in basic rect batch bcast t1 dk1 s1 wide; do
    rm -rf "$TMP/d"
    run "$P" --quiet --q "$FX/${c}_q.npy" --k "$FX/${c}_k.npy" --v "$FX/${c}_v.npy" \
        --output "$TMP/${c}.npy" --dump "$TMP/d"
    expect_status 0 "$c: files in, files out"
    expect_npy_close "$TMP/${c}.npy" "$FX/${c}_output.npy" 1e-5 1e-6 "$c: output"
    expect_npy_close "$TMP/d/scores.npy" "$FX/${c}_scores.npy" 1e-5 1e-6 "$c: scores"
    expect_npy_close "$TMP/d/attn_weights.npy" "$FX/${c}_p_attn.npy" 1e-5 1e-6 "$c: attn_weights"
done
run "$P" --q "$FX/rect_q.npy" --k "$FX/rect_k.npy" --v "$FX/rect_v.npy"
expect_status 0 "narrated run on files"
expect_out_contains "query (3, 8) = (..., T, d_k), key (7, 8)" "names the shapes of the files"
expect_out_lacks "variance of q·k" "no experiment table on files"

# ---- bad input: one sentence, exit 1 or 2, no output file --------------------

bad_runtime "--q $FX/rect_q.npy (3, 8) and --k $FX/basic_k.npy (5, 4) must share the last dim d_k: 8 != 4" "d_k of query and key differ" \
    --q "$FX/rect_q.npy" --k "$FX/basic_k.npy" --v "$FX/basic_v.npy"
expect_no_stdout "d_k of query and key differ: said before the title"
bad_runtime "must have the same length S (dim -2): 7 != 5" "key and value lengths differ" \
    --q "$FX/rect_q.npy" --k "$FX/rect_k.npy" --v "$FX/basic_v.npy"
bad_runtime "--q $FX/entropy_uniform_out.npy has shape (2,): it needs at least 2 dims, (..., T, d_k)" "1-D query" \
    --q "$FX/entropy_uniform_out.npy" --k "$FX/basic_k.npy" --v "$FX/basic_v.npy"
expect_no_stdout "1-D query: said before the title"
bad_runtime "the batch dims of --q $FX/batch_q.npy (2, 3, 4, 6), --k $FX/bad_k_batch.npy (4, 5, 6)" "batch dims that do not broadcast" \
    --q "$FX/batch_q.npy" --k "$FX/bad_k_batch.npy" --v "$FX/bad_k_batch.npy"
bad_runtime "$TMP/missing.npy" "a missing file" \
    --q "$TMP/missing.npy" --k "$FX/basic_k.npy" --v "$FX/basic_v.npy"
printf 'not a numpy file' >"$TMP/garbage.npy"
bad_runtime "$TMP/garbage.npy" "a file that is not .npy" \
    --q "$FX/basic_q.npy" --k "$TMP/garbage.npy" --v "$FX/basic_v.npy"
bad_runtime "randn: shape (1000000, 1000000) needs" "q, k, v too big for memory" --seq-len 1000000 --d-k 1000000

# past the memory budget: the sentence names what dominates (the d_k table's samples, at a wide --d-k) and what to
# lower; a single buffer past it (the table's (200, T, 1024) keys at a long --seq-len) is named before any work
ATTN_MAX_BYTES=100M
export ATTN_MAX_BYTES
bad_runtime "(the d_k table's random q and k: 1000 pairs and 200 rows of 6 keys, of width up to 20000)" \
    "a wide --d-k past the budget" --d-k 20000 --quiet
expect_err_contains "lower --d-k or --seq-len, or raise ATTN_MAX_BYTES" "a wide --d-k past the budget: what to lower"
bad_runtime "the d_k table's keys: shape (200, 2000, 1024) needs" "a long --seq-len past the budget" \
    --seq-len 2000 --quiet
expect_no_stdout "a long --seq-len past the budget: nothing computed first"
unset ATTN_MAX_BYTES

bad_usage "--q, --k and --v go together: missing --k and --v" "--q alone" --q "$FX/basic_q.npy"
bad_usage "--seq-len" "--seq-len 0" --seq-len 0
bad_usage "--d-k" "--d-k abc" --d-k abc
bad_usage "--batch" "--batch does not apply" --batch 2
bad_usage "--input" "--input does not apply" --input "$FX/basic_q.npy"
bad_usage "--frobnicate" "unknown flag" --frobnicate
# a flag that would change nothing is refused, not ignored (with --q there is nothing random and no table)
bad_usage "so it does not take --seq-len" "--seq-len with --q" \
    --q "$FX/basic_q.npy" --k "$FX/basic_k.npy" --v "$FX/basic_v.npy" --seq-len 3
bad_usage "so it does not take --seed and --d-k" "--d-k and --seed with --q" \
    --q "$FX/basic_q.npy" --k "$FX/basic_k.npy" --v "$FX/basic_v.npy" --quiet --d-k 3 --seed 4
bad_usage "所以不接受 --seed" "--seed with --q, in Chinese" \
    --q "$FX/basic_q.npy" --k "$FX/basic_k.npy" --v "$FX/basic_v.npy" --seed 4 --lang zh

run "$P" --quiet --q "$FX/basic_q.npy" --k "$FX/basic_k.npy" --v "$FX/basic_v.npy" --output "$TMP/no_such_dir/out.npy"
expect_usage_error "no_such_dir does not exist" "--output into a missing folder"
expect_no_file "$TMP/no_such_dir/out.npy" "--output into a missing folder"

finish
