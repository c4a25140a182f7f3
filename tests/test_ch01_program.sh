#!/bin/sh
# test_ch01_program.sh — build/chapter1: the narrated sentence example, --quiet,
# --help, --heatmap, a random example, .npy in/out compared with PyTorch
# (tests/fixtures/ch01, scripts/golden/ch01.py), --dump, and every bad input:
# exit 1 or 2, one line on stderr naming the problem, no --output file left.
. tests/lib.sh
suite test_ch01_program

P=$BUILD/chapter1
FX=${FIXTURES:-tests/fixtures}/ch01

# ---- the narrated default run: the sentence ------------------------------------
run "$P"
expect_status 0 "default run"
expect_err_empty() { if [ -s "$TMP/err" ]; then _bad "$1: stderr is not empty"; else _ok; fi; }
expect_err_empty "default run"
expect_out_contains "[1] Attention is a dictionary lookup made soft" "starts with the soft dictionary"
expect_out_contains "fruit = tensor([[8.]])" "0.6*10 + 0.4*5 + 0*2 = 8"
expect_out_contains "journey" "names the tokens"
expect_out_contains "scores_2 = tensor([[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]])" "journey's scores"
expect_out_contains "weights_2 = tensor([[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]])" "journey's weights"
expect_out_contains "context_2 = tensor([[0.4419, 0.6515, 0.5683]])" "journey's context vector"
expect_out_contains "naive = tensor([[nan, nan, nan," "the naive softmax overflows at scores ~100"
expect_out_contains "stable = tensor([[" "the stable softmax does not"
expect_out_contains "PyTorch: scores = torch.matmul(query, key.transpose(-2, -1))" "quotes the scores line"
expect_out_contains "PyTorch: p_attn = scores.softmax(dim=-1)" "quotes the softmax line"
expect_out_contains "PyTorch: output = torch.matmul(p_attn, value)" "quotes the weighted sum"
expect_out_contains "why:" "explains each step"
expect_out_contains "chapter 2" "says scaling comes in chapter 2"
expect_out_lacks "█" "no heatmap unless asked"

run "$P" --quiet
expect_status 0 "--quiet"
expect_out_contains "attn_weights = tensor([[0.2098," "--quiet prints the weights"
expect_out_contains "output = tensor([[0.4421," "--quiet prints the output"
expect_out_lacks "PyTorch:" "--quiet has no narration"
expect_out_lacks "why:" "--quiet has no reasons"
expect_out_lacks "[1]" "--quiet has no steps"

run "$P" --help
expect_status 0 "--help"
for flag in "--seed N" "--seq-len T" "--d-k D" "--quiet" "--dump DIR" "--heatmap" "--ascii" \
            "--q FILE" "--k FILE" "--v FILE" "--output FILE"; do
    expect_out_contains "$flag" "--help lists $flag"
done
expect_out_lacks "--heads" "--help does not list --heads"

run "$P" --heatmap --quiet
expect_status 0 "--heatmap"
expect_out_contains "attention weights (rows: queries, columns: keys)" "--heatmap draws the weights"
expect_out_contains "journey" "--heatmap labels the rows"
expect_out_contains "legend:" "--heatmap has a legend"
run "$P" --ascii --quiet
expect_status 0 "--ascii"
expect_out_contains "legend:" "--ascii has a legend"
expect_out_lacks "█" "--ascii uses no block characters"

# ---- outputs of the default run against PyTorch -----------------------------------
run "$P" --quiet --output "$TMP/out.npy" --dump "$TMP/dump"
expect_status 0 "--output and --dump"
expect_npy_close "$TMP/out.npy" "$FX/sentence_output.npy" 1e-5 1e-6 "sentence output vs PyTorch"
expect_npy_close "$TMP/dump/scores.npy" "$FX/sentence_scores.npy" 1e-5 1e-6 "dumped scores vs PyTorch"
expect_npy_close "$TMP/dump/attn_weights.npy" "$FX/sentence_weights.npy" 1e-5 1e-6 "dumped weights vs PyTorch"
expect_npy_close "$TMP/dump/output.npy" "$FX/sentence_output.npy" 1e-5 1e-6 "dumped output vs PyTorch"

# ---- a random example: --seq-len / --d-k ---------------------------------------------
run "$P" --seq-len 5 --d-k 2
expect_status 0 "--seq-len 5 --d-k 2"
expect_out_contains "query (5, 2) (..., T, d_k)" "random query of the asked size"
expect_out_contains "value (5, 2)" "random value of the asked size"
run "$P" --seq-len 5 --d-k 2 --quiet --output "$TMP/r1.npy"
run "$P" --seq-len 5 --d-k 2 --quiet --output "$TMP/r2.npy"
if cmp -s "$TMP/r1.npy" "$TMP/r2.npy"; then _ok; else _bad "the same --seed gives the same output"; fi
run "$P" --seq-len 5 --d-k 2 --quiet --seed 7 --output "$TMP/r3.npy"
if cmp -s "$TMP/r1.npy" "$TMP/r3.npy"; then _bad "--seed 7 gives another output than --seed 123"; else _ok; fi
run "$P" --seq-len 1 --d-k 1 --quiet
expect_status 0 "--seq-len 1 --d-k 1"
expect_out_contains "attn_weights = tensor([[1.]])" "one token attends only to itself"

# ---- .npy in, .npy out, against PyTorch ---------------------------------------------------
for c in t1_dk1 batch23 bcast cross one_key; do
    rm -rf "$TMP/o.npy" "$TMP/d"
    run "$P" --q "$FX/${c}_q.npy" --k "$FX/${c}_k.npy" --v "$FX/${c}_v.npy" --output "$TMP/o.npy" --dump "$TMP/d"
    expect_status 0 "--q/--k/--v $c"
    expect_npy_close "$TMP/o.npy" "$FX/${c}_output.npy" 1e-5 1e-6 "$c: output vs PyTorch"
    expect_npy_close "$TMP/d/attn_weights.npy" "$FX/${c}_weights.npy" 1e-5 1e-6 "$c: attn_weights vs PyTorch"
    expect_npy_close "$TMP/d/scores.npy" "$FX/${c}_scores.npy" 1e-5 1e-6 "$c: scores vs PyTorch"
done
run "$P" --q "$FX/bcast_q.npy" --k "$FX/bcast_k.npy" --v "$FX/bcast_v.npy"
expect_out_contains "query (2, 3, 4, 5) (..., T, d_k)" "names the loaded query shape"
expect_out_contains "key (3, 6, 5)" "names the loaded key shape"
expect_out_contains "shape (2, 3, 4, 6)" "the scores broadcast over the batch dims"

# --output -: standard output holds the .npy alone (the narration goes to standard error)
run "$P" --q "$FX/cross_q.npy" --k "$FX/cross_k.npy" --v "$FX/cross_v.npy" --output -
expect_status 0 "--output -"
expect_npy_close "$TMP/out" "$FX/cross_output.npy" 1e-5 1e-6 "--output -: standard output is the .npy"
expect_err_contains "PyTorch: output = torch.matmul(p_attn, value)" "--output -: the narration on standard error"

# ---- bad input: exit 1 or 2, one stderr line naming the problem, no output file ------------------
bad() { # DESC EXPECTED_STATUS TEXT ARGS...   (adds --output $TMP/bad.npy)
    desc=$1; code=$2; text=$3; shift 3
    rm -f "$TMP/bad.npy"
    run "$P" "$@" --output "$TMP/bad.npy"
    expect_status "$code" "$desc"
    expect_one_line "$desc"
    expect_err_contains "$text" "$desc"
    expect_no_file "$TMP/bad.npy" "$desc"
}

bad "q and k with different d_k" 1 "--q $FX/cross_q.npy (5, 4) and --k $FX/t1_dk1_k.npy (4, 1) must share the last dim d_k: 4 != 1" \
    --q "$FX/cross_q.npy" --k "$FX/t1_dk1_k.npy" --v "$FX/t1_dk1_v.npy"
expect_no_stdout "q and k with different d_k: said before the title"
bad "k and v of different lengths" 1 "--k $FX/cross_k.npy (7, 4) and --v $FX/t1_dk1_v.npy (4, 2) must have the same length S (dim -2): 7 != 4" \
    --q "$FX/cross_q.npy" --k "$FX/cross_k.npy" --v "$FX/t1_dk1_v.npy"
bad "batch dims that do not broadcast" 1 "the batch dims of --q $FX/batch23_q.npy (2, 3, 4, 5), --k $FX/bad_k_batch.npy (4, 6, 5) and --v $FX/batch23_v.npy (2, 3, 6, 3) do not broadcast" \
    --q "$FX/batch23_q.npy" --k "$FX/bad_k_batch.npy" --v "$FX/batch23_v.npy"
bad "value batch dims that do not broadcast" 1 "and --v $FX/bad_k_batch.npy (4, 6, 5) do not broadcast" \
    --q "$FX/batch23_q.npy" --k "$FX/batch23_k.npy" --v "$FX/bad_k_batch.npy"
bad "a 1-dim query" 1 "--q $FX/bad_q_1d.npy has shape (5,): it needs at least 2 dims, (..., T, d_k)" \
    --q "$FX/bad_q_1d.npy" --k "$FX/cross_k.npy" --v "$FX/cross_v.npy"
printf 'this is not a .npy file\n' > "$TMP/garbage.npy"
bad "a malformed .npy" 1 "$TMP/garbage.npy" \
    --q "$TMP/garbage.npy" --k "$FX/cross_k.npy" --v "$FX/cross_v.npy"
head -c 100 "$FX/cross_k.npy" > "$TMP/truncated.npy"
bad "a truncated .npy" 1 "$TMP/truncated.npy" \
    --q "$FX/cross_q.npy" --k "$TMP/truncated.npy" --v "$FX/cross_v.npy"
bad "a truncated .npy, in Chinese" 1 "文件头不完整：它声明有 118 字节，但文件在开头之后只有 90 字节" \
    --q "$FX/cross_q.npy" --k "$TMP/truncated.npy" --v "$FX/cross_v.npy" --lang zh
ATTN_MAX_BYTES=lots
export ATTN_MAX_BYTES
bad "a bad ATTN_MAX_BYTES, in Chinese" 2 "ATTN_MAX_BYTES='lots'：必须是至少为 1 的字节数，例如 2000000000、512M 或 2G" \
    --lang zh
unset ATTN_MAX_BYTES
bad "a missing file" 1 "$TMP/missing.npy" \
    --q "$FX/cross_q.npy" --k "$FX/cross_k.npy" --v "$TMP/missing.npy"
ATTN_MAX_BYTES=1000000
export ATTN_MAX_BYTES
bad "scores that do not fit in memory" 1 "the scores: shape (1, 1000, 1000) needs 3.8 MiB of float32, more than the 976.6 KiB limit (ATTN_MAX_BYTES)" \
    --q "$FX/long_q.npy" --k "$FX/long_q.npy" --v "$FX/long_q.npy"
unset ATTN_MAX_BYTES
ATTN_MAX_BYTES=100M
export ATTN_MAX_BYTES
bad "a wide random example past the budget" 1 \
    "(the query, key, value and output, (..., T, d_k) and (..., S, d_v), d_k = 1000000, d_v = 1000000)" \
    --seq-len 10 --d-k 1000000
expect_err_contains "more than the budget of 100.0 MiB (ATTN_MAX_BYTES); lower --d-k or --seq-len" \
    "a wide random example past the budget: what to lower"
unset ATTN_MAX_BYTES
bad "a random example too big for memory" 1 "the scores: shape (1000000, 1000000) needs" \
    --seq-len 1000000 --d-k 1
: > "$TMP/a_file"
bad "--dump into a file" 2 "$TMP/a_file: it is a file, not a folder" --dump "$TMP/a_file"

# usage errors: exit 2
bad "--q without --k and --v" 2 "missing --k and --v" --q "$FX/cross_q.npy"
bad "a flag of another chapter" 2 "--heads" --heads 2
bad "--seq-len 0" 2 "--seq-len" --seq-len 0
bad "--d-k abc" 2 "--d-k" --d-k abc
bad "--seq-len with --q" 2 "--seq-len and --d-k size a random example" \
    --q "$FX/cross_q.npy" --k "$FX/cross_k.npy" --v "$FX/cross_v.npy" --seq-len 4
bad "an unknown flag" 2 "--no-such-flag" --no-such-flag
# a flag that would change nothing is refused, not ignored: --seed draws only the random example
bad "--seed with --q" 2 "the files give the sizes and the numbers, so it does not take --seed" \
    --q "$FX/cross_q.npy" --k "$FX/cross_k.npy" --v "$FX/cross_v.npy" --seed 5
bad "--seed and --d-k with --q" 2 "so it does not take --seed and --d-k" \
    --q "$FX/cross_q.npy" --k "$FX/cross_k.npy" --v "$FX/cross_v.npy" --d-k 4 --seed 5
bad "--seed with the sentence" 2 "the default run (the sentence) has nothing random" --seed 5
bad "--seed with the sentence, in Chinese" 2 "默认运行（那个句子）里没有随机的东西" --seed 5 --lang zh
# the usage error comes before the memory refusal: q = k = v of shape (2500, 1) need 4 scores-sized
# buffers of 24 MiB, past a budget of 80 MiB
dict="{'descr': '<f4', 'fortran_order': False, 'shape': (2500, 1), }"
{ printf '\223NUMPY\001\000\166\000%s' "$dict"; printf "%$((118 - ${#dict} - 1))s\n" ''
  head -c 10000 /dev/zero; } >"$TMP/big.npy"
ATTN_MAX_BYTES=80M
export ATTN_MAX_BYTES
bad "--seq-len with --q past the budget: a usage error first" 2 "--seq-len and --d-k size a random example" \
    --q "$TMP/big.npy" --k "$TMP/big.npy" --v "$TMP/big.npy" --seq-len 4
unset ATTN_MAX_BYTES

finish
