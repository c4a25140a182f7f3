#!/bin/sh
# test_ch07_program.sh — build/chapter7, the complete MultiHeadAttention: the
# narrated demo, --quiet, --help, .npy runs compared with PyTorch fixtures
# (tests/fixtures/ch07, scripts/golden/ch07.py), dropout in training and eval,
# --dump, and every bad input of the issue (one line on stderr, exit 1 or 2,
# no output file left behind).
. tests/lib.sh
suite test_ch07_program

P="$BUILD/chapter7"
F=tests/fixtures/ch07
OUT="$TMP/out.npy"

# ---- the demo ----------------------------------------------------------------
run "$P"
expect_status 0 "default run"
expect_out_contains "F.softmax(scores.float(), dim=-1).type_as(xq)" "the softmax line as Happy-LLM 2.1.6 writes it"
expect_out_contains "[1]" "numbered steps"
expect_out_contains "PyTorch: output = self.wo(output)" "the W_o step names its PyTorch line"
expect_out_contains "parameters: 3 x 8 x 10 (wq, wk, wv) + 8 x 8 (wo) + 8 (bo) = 312" "the 手撕 script's parameter count"
expect_out_contains "PyTorch: torch.manual_seed(123)" "names the seed it replays"
expect_out_contains "shape (3, 5, 8)" "output of the 手撕 script is (3, 5, 8)"
expect_out_contains "d_in = 10 != d_out = 8" "explains the residual"
expect_out_contains "issues #121" "names the Happy-LLM issues"
expect_out_contains "#141" "names the Happy-LLM issues (2)"

run "$P" --quiet
expect_status 0 "--quiet"
expect_out_contains "parameters: 312" "--quiet prints the parameter count"
expect_out_contains "output =" "--quiet prints the output"
if grep -qF "[1]" "$TMP/out"; then _bad "--quiet must not narrate"; else _ok; fi

run "$P" --help
expect_status 0 "--help"
expect_out_contains "--input" "--help lists --input"
expect_out_contains "--dropout" "--help lists --dropout"
expect_out_contains "folder with wq wk wv wo.npy (bq bk bv bo: optional)" "--help: --weights names wo"
expect_out_contains "--eval" "--help lists --eval"

run "$P" --d-in 8 --d-out 8 --heads 4 --eval --bias --heatmap
expect_status 0 "d_in == d_out with biases and a heatmap"
expect_out_contains "d_in = d_out = 8: x (3, 5, 8) + output (3, 5, 8) = h (3, 5, 8)" "the residual adds"
expect_out_contains "+ 3 x 8 (bq, bk, bv)" "--bias counts the qkv biases"
expect_out_contains "batch 0, head 3" "one heatmap per head"

# ---- .npy runs against PyTorch -------------------------------------------------
run "$P" --input "$F/seed/x.npy" --weights "$F/seed/weights" --eval --output "$OUT"
expect_status 0 "the 手撕 class in eval"
expect_npy_close "$OUT" "$F/seed/out.npy" 1e-5 1e-6 "the 手撕 class == PyTorch (eval)"
rm -f "$OUT"

run "$P" --input "$F/seed/x.npy" --weights "$F/seed/weights" --dropout 0 --output "$OUT"
expect_status 0 "training with --dropout 0"
expect_npy_close "$OUT" "$F/seed/out.npy" 1e-5 1e-6 "--dropout 0 == eval == PyTorch"
rm -f "$OUT"

run "$P" --input "$F/seed/x.npy" --weights "$F/seed/weights" --eval --no-causal --output "$OUT"
expect_status 0 "--no-causal"
expect_npy_close "$OUT" "$F/seed/out_no_causal.npy" 1e-5 1e-6 "the 手撕 script's weights without the mask"
rm -f "$OUT"

run "$P" --input "$F/happy/x.npy" --weights "$F/happy/weights" --heads 3 --seq-len 8 --eval --quiet --output "$OUT"
expect_status 0 "Happy-LLM's class, max_seq_len 8 > T 6"
expect_npy_close "$OUT" "$F/happy/out.npy" 1e-5 1e-6 "Happy-LLM's class == PyTorch"
rm -f "$OUT"

run "$P" --input "$F/torch_mha/x.npy" --weights "$F/torch_mha/weights" --heads 4 --eval --quiet --output "$OUT" --dump "$TMP/dump_mha"
expect_status 0 "nn.MultiheadAttention weights, all biases"
expect_npy_close "$OUT" "$F/torch_mha/out.npy" 1e-5 1e-6 "== torch.nn.MultiheadAttention"
expect_npy_close "$TMP/dump_mha/attn_weights.npy" "$F/torch_mha/attn_weights.npy" 1e-5 1e-6 "per-head weights == nn.MultiheadAttention's"
rm -f "$OUT"

run "$P" --input "$F/rand_07/x.npy" --weights "$F/rand_07/weights" --heads 3 --seq-len 8 --eval --quiet --output "$OUT"
expect_status 0 "d_in 16 != d_out 9, qkv biases, no out bias"
expect_npy_close "$OUT" "$F/rand_07/out.npy" 1e-5 1e-6 "random configuration == PyTorch"
rm -f "$OUT"

run "$P" --input "$F/torch_mha_t1/x.npy" --weights "$F/torch_mha_t1/weights" --heads 6 --eval --quiet --output "$OUT"
expect_status 0 "T = 1, head_dim = 1"
expect_npy_close "$OUT" "$F/torch_mha_t1/out.npy" 1e-5 1e-6 "T = 1 == PyTorch"
rm -f "$OUT"

# ---- training mode: repeatable, and not eval -----------------------------------
run "$P" --input "$F/seed/x.npy" --weights "$F/seed/weights" --seed 7 --quiet --output "$TMP/train_a.npy"
expect_status 0 "training run a"
run "$P" --input "$F/seed/x.npy" --weights "$F/seed/weights" --seed 7 --quiet --output "$TMP/train_b.npy"
expect_status 0 "training run b"
expect_npy_close "$TMP/train_a.npy" "$TMP/train_b.npy" 0 0 "the same --seed gives the same output"
if "$BUILD/npyinfo" --compare "$TMP/train_a.npy" "$F/seed/out.npy" 1e-5 1e-6 >/dev/null 2>&1; then
    _bad "training mode (dropout 0.1) should differ from eval"
else _ok; fi

# ---- --dump ---------------------------------------------------------------------
run "$P" --input "$F/seed/x.npy" --weights "$F/seed/weights" --eval --quiet --dump "$TMP/dump"
expect_status 0 "--dump"
for name in xq xk xv scores attn_weights attn_dropped merged projected output; do
    expect_file "$TMP/dump/$name.npy" "--dump writes $name.npy"
done
expect_npy_close "$TMP/dump/attn_weights.npy" "$F/seed/attn_weights.npy" 1e-5 1e-6 "dumped weights == PyTorch's"
expect_npy_close "$TMP/dump/attn_dropped.npy" "$TMP/dump/attn_weights.npy" 0 0 "eval: attn_dropped == attn_weights"
expect_npy_close "$TMP/dump/output.npy" "$F/seed/out.npy" 1e-5 1e-6 "dumped output == PyTorch's"
run "$BUILD/npyinfo" "$TMP/dump/xq.npy" "$TMP/dump/merged.npy"
expect_out_contains "xq.npy: shape (3, 2, 5, 4)" "xq is dumped split into heads"
expect_out_contains "merged.npy: shape (3, 5, 8)" "merged is (B, T, d_out)"

# ---- bad input: one sentence, exit 1 or 2, no output file --------------------------
W="$TMP/weights"
fresh_weights() { # a copy of the 手撕 script's weights folder in $W
    rm -rf "$W"
    mkdir -p "$W"
    cp "$F"/seed/weights/*.npy "$W"/
}

run "$P" --heads 3 --output "$OUT"
expect_usage_error "--heads 3: d_out 8 is not divisible by n_heads 3" "heads that do not divide d_out"
expect_no_file "$OUT" "heads that do not divide d_out"

run "$P" --input "$F/seed/x.npy" --weights "$F/seed/weights" --heads 3 --output "$OUT"
expect_usage_error "d_out 8 (the rows of" "heads that do not divide the files' d_out"
expect_no_file "$OUT" "heads that do not divide the files' d_out"

fresh_weights; rm "$W/wo.npy"
run "$P" --input "$F/seed/x.npy" --weights "$W" --output "$OUT"
expect_runtime_error "has no wo.npy" "weights folder without wo.npy"
expect_no_file "$OUT" "weights folder without wo.npy"

fresh_weights; rm "$W/wv.npy"
run "$P" --input "$F/seed/x.npy" --weights "$W" --output "$OUT"
expect_runtime_error "has no wv.npy" "weights folder without wv.npy"
expect_no_file "$OUT" "weights folder without wv.npy"

run "$P" --input "$F/happy/x.npy" --weights "$F/seed/weights" --output "$OUT"
expect_runtime_error "wq.npy has shape (8, 10) but the input has d_in = 12" "weights that do not fit d_in"
expect_no_file "$OUT" "weights that do not fit d_in"

fresh_weights; cp "$F/seed/weights/wq.npy" "$W/wo.npy"
run "$P" --input "$F/seed/x.npy" --weights "$W" --output "$OUT"
expect_runtime_error "wo must be (d_out, d_out) = (8, 8)" "wo that is not (d_out, d_out)"
expect_no_file "$OUT" "wo that is not (d_out, d_out)"

fresh_weights; cp "$F/happy/weights/wk.npy" "$W/wk.npy"
run "$P" --input "$F/seed/x.npy" --weights "$W" --output "$OUT"
expect_runtime_error "wk.npy has shape (12, 12)" "wk of another shape"
expect_no_file "$OUT" "wk of another shape"

fresh_weights; cp "$F/torch_mha_t1/weights/bo.npy" "$W/bo.npy"
run "$P" --input "$F/seed/x.npy" --weights "$W" --output "$OUT"
expect_runtime_error "bo.npy has shape (6,) but the weights have d_out = 8: expected (8,)" "bo of the wrong length"
expect_no_file "$OUT" "bo of the wrong length"

fresh_weights; cp "$F"/torch_mha_t1/weights/b[qkv].npy "$W"/
run "$P" --input "$F/seed/x.npy" --weights "$W" --output "$OUT"
expect_runtime_error "bq.npy has shape (6,) but the weights have d_out = 8: expected (8,)" "qkv biases of the wrong length"
expect_no_file "$OUT" "qkv biases of the wrong length"

fresh_weights; cp "$F/seed/weights/bo.npy" "$W/bq.npy"
run "$P" --input "$F/seed/x.npy" --weights "$W" --output "$OUT"
expect_runtime_error "give all three biases bq, bk, bv or none" "bq without bk and bv"
expect_no_file "$OUT" "bq without bk and bv"

run "$P" --input "$F/seed/x.npy" --weights "$F/seed/weights" --seq-len 3 --output "$OUT"
expect_runtime_error "sequence length 5 is longer than max_seq_len 3, the size of the causal mask buffer" "seq longer than max_seq_len"
expect_no_stdout "--input's T past max_seq_len: said before the title"
expect_no_file "$OUT" "seq longer than max_seq_len"
run "$P" --seq-len 6 --max-seq-len 4 --output "$OUT"
expect_usage_error "--max-seq-len 4: sequence length 6 is longer than max_seq_len 4, the size of the causal mask buffer" \
    "the default run: --seq-len past --max-seq-len"
expect_no_stdout "the default run: --seq-len past --max-seq-len, refused before the title"
run "$P" --no-causal --max-seq-len 8
expect_usage_error "--max-seq-len does not apply with --no-causal" "--max-seq-len with --no-causal"
run "$P" --input "$F/seed/x.npy" --weights "$F/seed/weights" --eval --seed 7
expect_usage_error "--seed does not apply: this run draws no random numbers" "--input --eval draws nothing: --seed refused"
run "$P" --input "$F/seed/x.npy" --weights "$F/seed/weights" --dropout 0 --seed 7
expect_usage_error "--seed does not apply" "--input --dropout 0 draws nothing: --seed refused"
# the weights alone past the budget: said before any output, naming them (not the scores)
run "$P" --d-in 10 --d-out 100000
expect_runtime_error "the weights wq, wk, wv (d_out, d_in) and wo (d_out, d_out), d_in = 10, d_out = 100000" \
    "weights past the budget named"
expect_no_stdout "weights past the budget: before the title"
run "$P" --d-in 1000000 --d-out 1000000
expect_runtime_error "wq.weight: shape (1000000, 1000000) needs" "one weight past the limit"
expect_no_stdout "one weight past the limit: before the title"
run "$P" --happy-llm --max-seq-len 3
expect_usage_error "--happy-llm without --causal is is_causal=False" "--happy-llm (not causal) with --max-seq-len"
run "$P" --happy-llm --causal --max-seq-len 5 --quiet
expect_status 0 "--happy-llm --causal takes --max-seq-len"
expect_no_file "$OUT" "the default run: --seq-len past --max-seq-len"

run "$P" --batch 1000 --seq-len 100000 --output "$OUT"
expect_runtime_error "chapter 8" "scores that do not fit in memory point to chapter 8"
expect_err_contains "(1000, 2, 100000, 100000)" "names the scores' shape"
expect_no_stdout "scores that do not fit: said before the title"
expect_no_file "$OUT" "scores that do not fit in memory"

run "$P" --input "$F/seed/x.npy" --weights "$F/seed/weights" --heads 1 --seq-len 60000 --output "$OUT"
expect_runtime_error "causal mask" "a mask buffer that does not fit in memory"
expect_no_file "$OUT" "a mask buffer that does not fit in memory"

run "$P" --dropout 1.5 --output "$OUT"
expect_usage_error "--dropout" "--dropout above 1"
expect_no_file "$OUT" "--dropout above 1"

run "$P" --dropout -0.1 --output "$OUT"
expect_usage_error "--dropout" "--dropout below 0"
expect_no_file "$OUT" "--dropout below 0"

run "$P" --input "$F/seed/weights/wq.npy" --weights "$F/seed/weights" --output "$OUT"
expect_runtime_error "expected (B, T, d_in)" "input that is not 3-D"
expect_no_file "$OUT" "input that is not 3-D"

run "$P" --input "$TMP/missing.npy" --weights "$F/seed/weights" --output "$OUT"
expect_runtime_error "missing.npy" "missing input file"
expect_no_file "$OUT" "missing input file"

run "$P" --impl flash
expect_usage_error "--impl" "a flag of another chapter"

# ---- default runs == the 手撕 MHA script in PyTorch ----------------------------
# Each folder default/s<seed>_b<B>_t<T>_i<d_in>_o<d_out>_h<H>_p<p>_L<max_seq_len>
# [_bias][_resid]_<train|eval> holds PyTorch's x and output for
#   torch.manual_seed(seed); model = MultiHeadAttention(d_in, d_out, L, p, H)
#   x = torch.randn(B, T, d_in); out = model(x)
# (scripts/golden/ch07.py); build/chapter7 draws the same numbers itself.
check_default_runs "$F/default" 32

# ---- --happy-llm: Happy-LLM 2.1.6's own class == the book's class in PyTorch ----------------
# happy_default/s<seed>_b<B>_t<T>_i<d_in>_o<d_out>_h<H>_p<p>_L<max_seq_len>[_causal]_<train|eval>/out.npy:
#   torch.manual_seed(seed); model = MultiHeadAttention(ModelArgs(n_embd=d_in, dim=d_out, ...), is_causal)
#   x = torch.randn(B, T, d_in); out = model(x, x, x)      (scripts/golden/ch07.py)
n_happy=0
for d in "$F"/happy_default/*/; do
    c=$(basename "$d")
    set -- $(echo "$c" | sed 's/^s\([0-9]*\)_b\([0-9]*\)_t\([0-9]*\)_i\([0-9]*\)_o\([0-9]*\)_h\([0-9]*\)_p\([0-9.]*\)_L\([0-9]*\).*/\1 \2 \3 \4 \5 \6 \7 \8/')
    extra=""
    # max_seq_len sizes the mask buffer, which only is_causal=True makes (else refused, exit 2)
    case $c in *_causal_*) extra="--causal --max-seq-len $8" ;; esac
    case $c in *_eval) extra="$extra --eval" ;; esac
    run "$P" --happy-llm --seed "$1" --batch "$2" --seq-len "$3" --d-in "$4" --d-out "$5" --heads "$6" \
        --dropout "$7" $extra --quiet --output "$OUT"
    expect_status 0 "--happy-llm $c"
    expect_npy_close "$OUT" "$d/out.npy" 1e-5 1e-6 "--happy-llm $c == the book's class in PyTorch"
    rm -f "$OUT"
    n_happy=$((n_happy + 1))
done
if [ "$n_happy" -ge 8 ]; then _ok; else _bad "happy_default: $n_happy cases, expected 8"; fi
run "$P" --happy-llm
expect_status 0 "--happy-llm narrated"
expect_out_contains "model = MultiHeadAttention(args)   # is_causal=False" "names the book's class and its default"
expect_out_contains "self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim," "wo without bias"
expect_out_contains "parameters: 3 x 8 x 10 (wq, wk, wv) + 8 x 8 (wo) = 304" "no bias anywhere"
expect_out_contains "PyTorch: output = self.resid_dropout(output)" "resid_dropout after wo"
if grep -qF -- "-inf" "$TMP/out"; then _bad "--happy-llm: masked though is_causal=False"; else _ok; fi
run "$P" --happy-llm --causal --quiet
expect_status 0 "--happy-llm --causal"
run "$P" --happy-llm --bias
expect_usage_error "--happy-llm is the book's class, which has no biases; it does not take --bias" "--happy-llm --bias"
run "$P" --happy-llm --input "$F/seed/x.npy" --weights "$F/seed/weights" --quiet
expect_runtime_error "--happy-llm: the weights folder '$F/seed/weights' has biases" "--happy-llm refuses a folder with bo"
run "$P" --happy-llm --input "$F/happy/x.npy" --weights "$F/happy/weights" --heads 3 --seq-len 8 --eval --causal \
    --quiet --output "$OUT"
expect_status 0 "--happy-llm with the book's weights from files"
expect_npy_close "$OUT" "$F/happy/out.npy" 1e-5 1e-6 "--happy-llm --input/--weights == PyTorch"
rm -f "$OUT"
run "$P" --help
expect_out_contains "--happy-llm" "--help lists --happy-llm"
expect_out_contains "input width d_in (Happy-LLM 2.1.6: args.n_embd)" "--help: d_in is the book's args.n_embd"

# the size flags the files replace: named once, only those given (load_or_default)
run "$BUILD/chapter7" --input tests/fixtures/ch07/happy/x.npy --weights tests/fixtures/ch07/happy/weights --heads 2 --batch 3
expect_status 0 "--batch with files"
expect_out_contains "(--batch is not used: --input and --weights give the shapes and biases)" "names --batch, once"
if [ "$(grep -c 'not used' "$TMP/out")" = 1 ]; then _ok; else _bad "the note is said more than once"; fi
finish
