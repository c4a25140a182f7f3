#!/bin/sh
# test_ch04_program.sh — build/chapter4: the narrated demo, --quiet, --help,
# .npy in/out compared with PyTorch (tests/fixtures/ch04, scripts/golden/ch04.py),
# --dump, --heatmap, and every bad input: exit 1 or 2, one line on stderr,
# no --output file left behind.
. tests/lib.sh
suite test_ch04_program

P=$BUILD/chapter4
FX=${FIXTURES:-tests/fixtures}/ch04

# ---- the narrated demo ----------------------------------------------------
run "$P"
expect_status 0 "default run"
expect_out_contains "[1] The sentence" "numbered steps"
expect_out_contains "PyTorch: mask = torch.triu(mask, diagonal=1)" "quotes the triu line"
expect_out_contains "PyTorch: scores = scores + self.mask[:, :, :seqlen, :seqlen]" "quotes the slice + add line"
expect_out_contains "shape (1, 1, 8, 8)" "the buffer is max_seq_len x max_seq_len"
expect_out_contains "attn_weights[0] = tensor([1., 0., 0., 0., 0., 0.])" "row 0 attends only to itself"
expect_out_contains "max |weights_fill - attn_weights| = 0" "the two spellings agree"
expect_out_contains "causal:  rows 0..4 change by 0," "the future does not leak"
expect_out_contains "[   nan,    nan,    nan,    nan,    nan,    nan]" "diagonal=0 gives a NaN row"
expect_out_contains "why:" "explains each step"

run "$P" --quiet
expect_status 0 "--quiet"
expect_out_contains "attn_weights = tensor([[1.0000, 0.0000" "--quiet prints the weights"
expect_out_contains "output = tensor(" "--quiet prints the output"
expect_out_lacks "PyTorch:" "--quiet has no narration"

run "$P" --help
expect_status 0 "--help"
expect_out_contains "--max-seq-len" "--help lists --max-seq-len"
expect_out_lacks "--seq-len T" "--help does not offer --seq-len: the sentence has 6 tokens"
expect_out_contains "--no-causal" "--help lists --no-causal"
expect_out_contains "--q FILE" "--help lists --q"
expect_out_contains "max_seq_len" "--help says what --max-seq-len means"

run "$P" --no-causal
expect_status 0 "--no-causal demo"
expect_out_contains "chapter 2's attention()" "--no-causal is chapter 2's attention"
expect_out_lacks "torch.triu" "--no-causal builds no mask"

run "$P" --max-seq-len 6 --quiet
expect_status 0 "--max-seq-len 6 (max_seq_len == T) is fine"

run "$P" --heatmap --quiet
expect_status 0 "--heatmap"
expect_out_contains "Your" "--heatmap labels the rows"
expect_out_contains "masked" "--heatmap shows the masked cells"
run "$P" --heatmap --ascii --quiet
expect_status 0 "--heatmap --ascii"
expect_out_contains "masked" "--ascii shows the masked cells"

# the demo's numbers are PyTorch's
run "$P" --quiet --dump "$TMP/demo" --output "$TMP/demo_out.npy"
expect_status 0 "demo --dump --output"
expect_npy_close "$TMP/demo/mask.npy" "$FX/sentence_mask.npy" 0 0 "demo mask.npy is the (1, 1, 6, 6) slice"
expect_npy_close "$TMP/demo/scores.npy" "$FX/sentence_scores_causal.npy" 1e-5 1e-6 "demo scores.npy"
expect_npy_close "$TMP/demo/attn_weights.npy" "$FX/sentence_weights_causal.npy" 1e-5 1e-6 "demo attn_weights.npy"
expect_npy_close "$TMP/demo/output.npy" "$FX/sentence_output_causal.npy" 1e-5 1e-6 "demo output.npy"
expect_npy_close "$TMP/demo_out.npy" "$FX/sentence_output_causal.npy" 1e-5 1e-6 "demo --output"

run "$P" --quiet --no-causal --dump "$TMP/demo_nc"
expect_status 0 "demo --no-causal --dump"
expect_npy_close "$TMP/demo_nc/attn_weights.npy" "$FX/sentence_weights_nocausal.npy" 1e-5 1e-6 "demo --no-causal weights"
expect_no_file "$TMP/demo_nc/mask.npy" "--no-causal writes no mask.npy"

# ---- .npy in, .npy out --------------------------------------------------------
QKV="--q $FX/prog_q.npy --k $FX/prog_k.npy --v $FX/prog_v.npy"

run "$P" $QKV --output "$TMP/out.npy" --dump "$TMP/d"
expect_status 0 "causal .npy run"
expect_npy_close "$TMP/out.npy" "$FX/prog_out_causal.npy" 1e-5 1e-6 "causal output equals PyTorch"
expect_npy_close "$TMP/d/mask.npy" "$FX/prog_mask.npy" 0 0 "dumped mask.npy"
expect_npy_close "$TMP/d/scores.npy" "$FX/prog_scores_causal.npy" 1e-5 1e-6 "dumped scores.npy (masked, before softmax)"
expect_npy_close "$TMP/d/attn_weights.npy" "$FX/prog_weights_causal.npy" 1e-5 1e-6 "dumped attn_weights.npy"
expect_npy_close "$TMP/d/output.npy" "$FX/prog_out_causal.npy" 1e-5 1e-6 "dumped output.npy"

run "$P" $QKV --causal --max-seq-len 100 --quiet --output "$TMP/out100.npy"
expect_status 0 "--max-seq-len 100 > T slices the buffer"
expect_npy_close "$TMP/out100.npy" "$FX/prog_out_causal.npy" 1e-5 1e-6 "a bigger buffer gives the same output"

run "$P" $QKV --no-causal --quiet --output "$TMP/out_nc.npy"
expect_status 0 "--no-causal .npy run"
expect_npy_close "$TMP/out_nc.npy" "$FX/prog_out_nocausal.npy" 1e-5 1e-6 "--no-causal output equals PyTorch"

run "$P" --q "$FX/prog_ns_q.npy" --k "$FX/prog_ns_k.npy" --v "$FX/prog_ns_v.npy" --no-causal --output "$TMP/out_ns.npy"
expect_status 0 "--no-causal with T != S"
expect_npy_close "$TMP/out_ns.npy" "$FX/prog_ns_out_nocausal.npy" 1e-5 1e-6 "T != S output equals PyTorch"

run "$P" --q "$FX/prog_long_q.npy" --k "$FX/prog_long_k.npy" --v "$FX/prog_long_v.npy" --max-seq-len 64 --quiet --output "$TMP/out_long.npy"
expect_status 0 "T == max_seq_len == 64"
expect_npy_close "$TMP/out_long.npy" "$FX/prog_long_out_causal.npy" 1e-5 1e-6 "T = 64 output equals PyTorch"

run "$P" $QKV --heatmap --quiet
expect_status 0 ".npy --heatmap"
expect_out_contains "masked" ".npy --heatmap shows the masked cells"

# ---- bad input: one sentence, exit 1 or 2, no output file ---------------------
run "$P" --q "$FX/prog_q.npy" --k "$FX/dk1_k.npy" --v "$FX/prog_v.npy" --output "$TMP/bad1.npy"
expect_runtime_error "must share the last dim d_k: 4 != 1" "q/k inner dims differ"
expect_no_file "$TMP/bad1.npy" "q/k inner dims differ"

run "$P" --q "$FX/prog_q.npy" --k "$FX/prog_k.npy" --v "$FX/prog_ns_v.npy" --output "$TMP/bad2.npy"
expect_runtime_error "must have the same length S (dim -2): 5 != 7" "k/v lengths differ"
expect_no_file "$TMP/bad2.npy" "k/v lengths differ"

run "$P" --q "$FX/prog_ns_q.npy" --k "$FX/prog_ns_k.npy" --v "$FX/prog_ns_v.npy" --output "$TMP/bad3.npy" --dump "$TMP/bad3"
expect_runtime_error "T 3 != S 7, but a causal mask needs T == S" "causal mask with T != S"
expect_no_file "$TMP/bad3.npy" "causal mask with T != S"
expect_no_file "$TMP/bad3" "causal mask with T != S: no dump folder"

run "$P" $QKV --max-seq-len 4 --output "$TMP/bad4.npy"
expect_runtime_error "sequence length 5 is longer than max_seq_len 4" "sequence longer than max_seq_len"
expect_no_stdout "files' T past --max-seq-len: said before the title"
expect_no_file "$TMP/bad4.npy" "sequence longer than max_seq_len"

run "$P" --max-seq-len 4 --output "$TMP/bad5.npy"
expect_usage_error "--max-seq-len 4: sequence length 6 is longer than max_seq_len 4" \
    "demo sentence longer than max_seq_len: the flags cannot work (exit 2)"
expect_no_stdout "demo sentence longer than max_seq_len: refused before any output"
expect_no_file "$TMP/bad5.npy" "demo sentence longer than max_seq_len"

export ATTN_MAX_BYTES=4096
run "$P" --q "$FX/prog_long_q.npy" --k "$FX/prog_long_k.npy" --v "$FX/prog_long_v.npy" --output "$TMP/bad6.npy"
expect_runtime_error "scores: shape (64, 64) needs" "scores too big for memory"
expect_err_contains "ATTN_MAX_BYTES" "scores too big for memory: names the limit"
expect_no_file "$TMP/bad6.npy" "scores too big for memory"
expect_no_stdout "scores too big for memory: said before the title"
# the mask buffer alone past the limit: its own sentence, before any output
run "$P" --max-seq-len 64 --output "$TMP/bad6.npy"
expect_runtime_error "causal mask: the max_seq_len x max_seq_len buffer (1, 1, 64, 64) needs" "mask too big"
expect_no_stdout "mask too big: said before the title"
unset ATTN_MAX_BYTES
run "$P" --no-causal --max-seq-len 12
expect_usage_error "--max-seq-len does not apply with --no-causal" "--max-seq-len with --no-causal"
expect_no_stdout "--max-seq-len with --no-causal: refused before any output"
run "$P" $QKV --seed 5
expect_usage_error "--seed does not apply: this run draws no random numbers" "--q/--k/--v draw nothing: --seed refused"
expect_no_stdout "--seed with files: refused before the title"
run "$P" $QKV --no-causal --max-seq-len 12
expect_usage_error "--max-seq-len does not apply with --no-causal" "--q/--k/--v, --max-seq-len with --no-causal"

run "$P" --q "$TMP/missing.npy" --k "$FX/prog_k.npy" --v "$FX/prog_v.npy" --output "$TMP/bad7.npy"
expect_runtime_error "missing.npy" "missing input file"
expect_no_file "$TMP/bad7.npy" "missing input file"

printf 'not an npy file\n' >"$TMP/text.npy"
run "$P" --q "$TMP/text.npy" --k "$FX/prog_k.npy" --v "$FX/prog_v.npy" --output "$TMP/bad8.npy"
expect_runtime_error "text.npy" "not a .npy file"
expect_no_file "$TMP/bad8.npy" "not a .npy file"

printf 'x' >"$TMP/plainfile"
run "$P" $QKV --dump "$TMP/plainfile" --output "$TMP/bad9.npy"
expect_status 2 "--dump into a file that is not a folder"
expect_one_line "--dump into a file that is not a folder"
expect_no_file "$TMP/bad9.npy" "--dump failed, so no --output"

run "$P" --q "$FX/prog_q.npy" --output "$TMP/bad10.npy"
expect_usage_error "--k and --v" "--q without --k and --v"
expect_no_file "$TMP/bad10.npy" "--q without --k and --v"

run "$P" --heads 2
expect_usage_error "--heads" "--heads does not apply to chapter 4"

run "$P" --max-seq-len 0
expect_usage_error "--max-seq-len" "--max-seq-len 0"

# The READMEs quote Happy-LLM 2.1.6's lines as the book writes them today (its text of
# August 2025 on): the mask only when is_causal, and softmax's .type_as(xq).
for readme in chapters/04_causal_mask/README.md chapters/04_causal_mask/README.zh-CN.md; do
    for line in "if is_causal:" "if self.is_causal:" "scores = F.softmax(scores.float(), dim=-1).type_as(xq)"; do
        if grep -qF -- "$line" "$readme"; then _ok; else _bad "$readme does not quote the book's line: $line"; fi
    done
done

finish
