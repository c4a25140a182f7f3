#!/bin/sh
# test_ch11_program.sh — build/chapter11, LLaMA2's attention: the narrated demo,
# --quiet, --help; the book's test run with no input file equal to PyTorch for
# every default-run fixture (tests/fixtures/ch11/default, scripts/golden/ch11.py);
# --input/--weights runs for MHA, GQA, MQA against PyTorch; the --dump/--weights
# round trip; --decode and --prefill-chunk through the KV cache equal to PyTorch's full forward;
# --rope-theta against PyTorch's runs at Code Llama's and Llama 3's theta
# (batch > 1, prompts of length 1, every position decoded); and every bad input
# (one line on stderr, exit 1 or 2, no output file left behind).
. tests/lib.sh
suite test_ch11_program

P="$BUILD/chapter11"
F=tests/fixtures/ch11
OUT="$TMP/out.npy"

# ---- the demo -------------------------------------------------------------------
run "$P"
expect_status 0 "default run"
expect_out_contains "[1]" "numbered steps"
expect_out_contains "PyTorch: torch.manual_seed(123)" "names the seed it replays"
expect_out_contains "PyTorch: xq, xk = apply_rotary_emb(xq, xk, freqs_cos, freqs_sin)" "the RoPE step"
expect_out_contains "q_2 . k_0 = " "q_m . k_n at two pairs of positions"
expect_out_contains "rotate_half" "the trap"
expect_out_contains "xk (2, 6, 2, 4) -> (2, 6, 4, 4): query head h reads kv head h // 2" "repeat_kv's shapes"
expect_out_contains "step 3: position 5 against 6 cached" "a cached decode"
expect_out_contains "LLaMA2-70B" "the cache's bytes at LLaMA2's sizes"
expect_out_contains "2.0 GiB      1.2 GiB       10.0 GiB" "7B, 70B and 70B as MHA at T = 4096"
expect_out_contains "shape (2, 6, 16)" "output (2, 6, 16)"

# the offset lesson: q_2 . k_0 and q_31 . k_29 print the same value
line=$(grep -F "q_2 . k_0 = " "$TMP/out")
a=$(echo "$line" | sed 's/.*q_2 \. k_0 = \([-0-9.]*\).*/\1/')
b=$(echo "$line" | sed 's/.*q_31 \. k_29 = \([-0-9.]*\).*/\1/')
if awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d < 1e-5 && d > -1e-5 && a != "") }'; then _ok; else
    _bad "q_2 . k_0 = $a and q_31 . k_29 = $b should be equal (the same offset)"; fi

run "$P" --quiet
expect_status 0 "--quiet"
expect_out_contains "output =" "--quiet prints the output"
expect_out_lacks "[1]" "--quiet does not narrate"

run "$P" --help
expect_status 0 "--help"
expect_out_contains "--n-kv-heads" "--help lists --n-kv-heads"
expect_out_contains "--decode" "--help lists --decode"
expect_out_contains "--weights" "--help lists --weights"
# chapter 11's files are the book's (dim, GQA widths, wo), not chapters 3-7's d_in and d_out
expect_out_contains "input .npy, shape (B, T, dim); needs --weights" "--help: --input's shape names dim"
expect_out_contains "folder with wq wk wv wo.npy in nn.Linear's (out, in)" "--help: --weights names wo"
run "$P" --help --lang zh
expect_out_contains "含 wq wk wv wo.npy 的文件夹" "--help --lang zh: --weights names wo"

# ---- the book's test, with no input file, == PyTorch -------------------------------
# default/s<S>_b<B>_t<T>_d<D>_h<H>_k<K>_L<L>_p<P>_<train|eval>:
#   torch.manual_seed(S); m = Attention(ModelConfig(D, H, K, L, P)); x = torch.rand(B, T, D)
flags_of() { # NAME
    _f=""
    for _part in $(echo "$1" | tr '_' ' '); do
        case $_part in
            train) ;;
            eval) _f="$_f --eval" ;;
            theta*) _f="$_f --rope-theta ${_part#theta}" ;;
            s*) _f="$_f --seed ${_part#s}" ;;
            b*) _f="$_f --batch ${_part#b}" ;;
            t*) _f="$_f --seq-len ${_part#t}" ;;
            d*) _f="$_f --dim ${_part#d}" ;;
            h*) _f="$_f --n-heads ${_part#h}" ;;
            k*) _f="$_f --n-kv-heads ${_part#k}" ;;
            L*) _f="$_f --max-seq-len ${_part#L}" ;;
            p*) _f="$_f --dropout ${_part#p}" ;;
        esac
    done
    echo "$_f"
}
n=0
for d in "$F"/default/*/; do
    name=$(basename "$d")
    rm -rf "$TMP/dflt" "$TMP/dflt.npy"
    # shellcheck disable=SC2046
    run "$P" $(flags_of "$name") --quiet --output "$TMP/dflt.npy" --dump "$TMP/dflt"
    expect_status 0 "default run $name"
    expect_npy_close "$TMP/dflt.npy" "$d/out.npy" 1e-5 1e-5 "default run $name == PyTorch"
    expect_npy_close "$TMP/dflt/x.npy" "$d/x.npy" 0 0 "default run $name: x == torch.rand"
    n=$((n + 1))
done
if [ "$n" -ge 16 ]; then _ok; else _bad "only $n default-run fixtures (want 16)"; fi

# ---- --rope-theta: Code Llama's 1e6 and Llama 3's 500000 against PyTorch's runs at that theta ----
n=0
for d in "$F"/rope_theta/s*/; do
    name=$(basename "$d")
    # shellcheck disable=SC2046
    run "$P" $(flags_of "$name") --eval --quiet --output "$OUT"
    expect_status 0 "--rope-theta run $name"
    expect_npy_close "$OUT" "$d/out.npy" 1e-5 1e-5 "--rope-theta run $name == PyTorch at that theta"
    # shellcheck disable=SC2046
    run "$P" $(flags_of "$name") --eval --prefill-chunk 2 --quiet --output "$OUT"
    expect_npy_close "$OUT" "$d/out.npy" 1e-5 1e-5 "--rope-theta run $name in chunks of 2 through the cache"
    n=$((n + 1))
done
rm -f "$OUT"
if [ "$n" -eq 2 ]; then _ok; else _bad "$n --rope-theta fixtures (want 2)"; fi
run "$P"
expect_out_contains "LLaMA2-7B     12.6 GiB    2.0 GiB        64.0 GiB" "7B's weights and cache read per decode token"
expect_out_contains "LLaMA2-70B    128.5 GiB   1.2 GiB        40.0 GiB" "70B's, with its 8 kv heads"
expect_out_contains "70B as MHA    146.0 GiB   10.0 GiB       320.0 GiB" "70B as MHA"
expect_out_contains "this module, float32, bsz 2, T = 32 cached: weights 3.0 KiB, cache 4.0 KiB" \
    "the run's own weights and cache"
run "$P" --rope-theta 5e5
expect_out_contains "theta = 500000 (--rope-theta X" "the RoPE step names the run's theta"
expect_out_contains "[3] RoPE as complex numbers: (a + ib)(cos t + i sin t)" "the complex-number step"
expect_out_contains "Meta's complex product on every pair of xq: max |difference| = 0.0000000" \
    "Meta's complex form gives the book's numbers"
run "$P" --rope-theta 1e6 --seed 123 --eval --quiet --output "$OUT"
expect_status 0 "another theta"
if cmp -s "$OUT" "$F/default/s123_b2_t6_d16_h4_k2_L32_p0_eval/out.npy"; then
    _bad "--rope-theta 1e6 printed theta 10000's output"
else _ok; fi
rm -f "$OUT"

# ---- files: MHA, GQA, MQA, dim % n_heads != 0 == PyTorch ----------------------------
group_flags() { # GROUP: --n-heads from its config.npy
    case $1 in
        mha | gqa | mqa | odd) echo "--n-heads 4" ;;
        long | chunked) echo "--n-heads 6" ;;
    esac
}
for g in mha gqa mqa odd long; do
    # shellcheck disable=SC2046
    run "$P" --input "$F/$g/x.npy" --weights "$F/$g" $(group_flags $g) --eval --quiet --output "$OUT"
    expect_status 0 "$g from files"
    expect_npy_close "$OUT" "$F/$g/output.npy" 1e-5 1e-5 "$g from files == PyTorch"
    rm -f "$OUT"
done

# --dump then --weights: the same run replayed from its own files
rm -rf "$TMP/d1"
run "$P" --seed 7 --batch 3 --seq-len 5 --dim 12 --n-heads 6 --n-kv-heads 2 --quiet --dump "$TMP/d1" --output "$TMP/o1.npy"
expect_status 0 "a run with --dump"
for w in x wq wk wv wo freqs_cos freqs_sin output; do expect_file "$TMP/d1/$w.npy" "--dump writes $w.npy"; done
run "$P" --input "$TMP/d1/x.npy" --weights "$TMP/d1" --n-heads 6 --quiet --output "$OUT"
expect_status 0 "replay of the dump"
expect_npy_close "$OUT" "$TMP/d1/output.npy" 0 1e-7 "the replay prints the same numbers"
rm -f "$OUT"

# ---- --decode: the KV cache == PyTorch's full forward at every step ---------------------
decode_case() { # GROUP N DESC
    # shellcheck disable=SC2046
    run "$P" --input "$F/$1/x.npy" --weights "$F/$1" $(group_flags "$1") --decode "$2" --quiet --output "$OUT"
    expect_status 0 "$3"
    expect_npy_close "$OUT" "$F/$1/output.npy" 1e-5 1e-5 "$3 == PyTorch's full forward"
    expect_out_contains "decode: $2 steps" "$3 says how many steps"
    rm -f "$OUT"
}
decode_case mha 3 "MHA, batch 2: prefill 4, decode 3"
decode_case gqa 6 "GQA, batch 2: a prompt of one token"
decode_case gqa 7 "GQA: every position decoded"
decode_case mqa 4 "MQA, batch 3: a prompt of one token"
decode_case long 11 "12 tokens, 6 heads over 3: a prompt of one token"
decode_case odd 1 "dim % n_heads != 0: one step"

# ---- --prefill-chunk: a prefill in chunks through the cache, then decode ---------------
chunk_case() { # GROUP CHUNK DECODE DESC
    # shellcheck disable=SC2046
    run "$P" --input "$F/$1/x.npy" --weights "$F/$1" $(group_flags "$1") --prefill-chunk "$2" --decode "$3" \
        --quiet --output "$OUT"
    expect_status 0 "$4"
    expect_npy_close "$OUT" "$F/$1/output.npy" 1e-5 1e-5 "$4 == PyTorch's full forward"
    expect_out_contains "in chunks of $2, decode: $3 steps" "$4 says how it ran"
    rm -f "$OUT"
}
chunk_case gqa 2 1 "GQA, batch 2: chunks of 2, 2, 2, then one step"
chunk_case mqa 3 0 "MQA, batch 3: chunks of 3 and 2, no decode"
chunk_case long 5 2 "12 tokens: chunks of 5, 5, then 2 steps"
chunk_case chunked 4 0 "T == max_seq_len, batch 3, 6 heads over 2: chunks of 4, 4, 3"
chunk_case chunked 1 0 "T == max_seq_len: chunks of one position"
chunk_case odd 6 0 "dim % n_heads != 0: one chunk of all 6"
run "$P" --seed 123 --dropout 0.1 --prefill-chunk 4 --quiet --output "$OUT"
expect_status 0 "--prefill-chunk on the default run, no --decode: all T prefilled"
expect_npy_close "$OUT" "$F/default/s123_b2_t6_d16_h4_k2_L32_p0.1_eval/out.npy" 1e-5 1e-5 "--prefill-chunk runs in eval mode: PyTorch's eval output"
expect_out_contains "prefill: 6 in chunks of 4, decode: 0 steps" "chunks of 4 and 2, nothing decoded"
rm -f "$OUT"
run "$P" --prefill-chunk 0 --quiet --output "$OUT"
expect_status 0 "--prefill-chunk 0: the prompt at once"
expect_npy_close "$OUT" "$F/default/s123_b2_t6_d16_h4_k2_L32_p0_eval/out.npy" 1e-5 1e-5 "--prefill-chunk 0 is the default run"
expect_out_lacks "in chunks of" "--prefill-chunk 0 runs no chunks"
rm -f "$OUT"
run "$P" --prefill-chunk 2 --decode 1
expect_status 0 "a narrated run in chunks"
expect_out_contains "chunk: positions 2..3 against keys 0..3" "the second chunk sees the cache and its own triangle"
expect_out_contains "step 1: position 5 against 6 cached" "then the decode step"

run "$P" --seed 123 --dropout 0.1 --decode 5 --quiet --output "$OUT"
expect_status 0 "--decode on the default run"
expect_npy_close "$OUT" "$F/default/s123_b2_t6_d16_h4_k2_L32_p0.1_eval/out.npy" 1e-5 1e-5 "--decode runs in eval mode: PyTorch's eval output"
rm -f "$OUT"

# ---- --generate DIR: chapter 10's trained model, with the cache and without -------------
TINY=$TMP/tiny
run "$BUILD/chapter10" --train --quiet --dump "$TINY"
expect_status 0 "chapter 10 --train --dump: the model to generate with"
run "$P" --generate "$TINY" --prompt "D A" --tokens 6
expect_out_contains "from $TINY: vocab A..H, seq_len 8, dim 32, 2 heads" "the model comes from chapter 10's folder"
expect_status 0 "--generate"
expect_out_contains "with the cache == without it: yes" "the cached tokens are the recomputed ones"
expect_out_contains "ms with the cache" "each token's step time"
# the learned task (output the token two places back) read as the next token: period 3
gen=$(sed -n 's/^generated: //p' "$TMP/out")
if echo "$gen" | awk '{ ok = NF == 8; for (i = 4; i <= NF; i++) if ($i != $(i - 3)) ok = 0; exit !ok }'; then _ok; else
    _bad "generated '$gen': 8 tokens, each new one from position 3 on equal to the one three places back"; fi
run "$P" --generate "$TINY" --prompt "D A" --tokens 7 --quiet
expect_status 0 "--generate up to the model's last position"
expect_out_contains "with the cache == without it: yes" "7 tokens, cached == recomputed"
run "$P" --generate "$TINY" --prompt "D A" --tokens 8
expect_usage_error "would feed the model 9 positions, past the 8 its position embeddings and KV cache hold (at most --tokens 7 here)" \
    "generating past the cache is refused up front"
expect_no_stdout "generating past the cache prints nothing"
for flag in "--n-kv-heads 2" "--decode 1" "--dim 8" "--seed 5" "--output $TMP/gen.npy" "--eval"; do
    # shellcheck disable=SC2086  # a flag and its value
    run "$P" --generate "$TINY" $flag
    expect_usage_error "${flag%% *} does not apply to --generate" "--generate refuses $flag, which it would ignore"
    expect_no_stdout "--generate with $flag prints nothing"
done
run "$P" --tokens 3
expect_usage_error "--tokens applies only with --generate DIR" "--tokens without --generate"
run "$P" --generate "$TINY" --prompt "D Z"
expect_usage_error "'Z' is not a token" "a prompt with an unknown token"
run "$P" --generate "$TMP/no_such_folder"
expect_runtime_error "no_such_folder" "--generate on a missing folder"
mkdir -p "$TMP/bad_tiny" && cp "$TINY"/*.npy "$TMP/bad_tiny/"
cp "$TINY/wq.npy" "$TMP/bad_tiny/tok_emb.npy"             # (32, 32), not (vocab 8, dim 32)
run "$P" --generate "$TMP/bad_tiny"
expect_runtime_error "tok_emb.npy has shape (32, 32); the model_config of the folder wants (8, 32)" "a parameter of the wrong shape"
rm -f "$TMP/bad_tiny/model_config.npy"
run "$P" --generate "$TMP/bad_tiny"
expect_runtime_error "model_config.npy" "a folder without the model's config (a chapter 7 dump, say)"
cp "$TINY/attn_on_target.npy" "$TMP/bad_tiny/model_config.npy"  # (2,): not (vocab, seq_len, dim, n_heads)
run "$P" --generate "$TMP/bad_tiny"
expect_runtime_error "it holds (vocab, seq_len, dim, n_heads): shape (4,)" "a config of the wrong shape"
run "$P" --generate
expect_usage_error "flag '--generate' needs a value" "--generate names the folder"

# ---- the README's PyTorch snippet prints what --quiet prints ----------------------------
if PY=$(sh scripts/find_python.sh torch numpy 2>/dev/null); then
    for readme in chapters/11_llama_attention/README.md chapters/11_llama_attention/README.zh-CN.md; do
        awk '/^## / { sect = $0 } /^```python/ { if (sect ~ /Same numbers|同样的数/) on = 1; next } /^```/ { on = 0 } on' \
            "$readme" >"$TMP/snippet.py"
        "$PY" "$TMP/snippet.py" >"$TMP/torch.txt" 2>"$TMP/torch.err"
        run "$P" --quiet
        sed -n '/^tensor(/,/]])$/p' "$TMP/out" >"$TMP/c.txt"
        if [ -s "$TMP/torch.txt" ] && cmp -s "$TMP/torch.txt" "$TMP/c.txt"; then _ok; else
            _bad "$readme: the PyTorch snippet prints what build/chapter11 --quiet prints: $(head -c 300 "$TMP/torch.err")"
        fi
    done
else
    skip 2 "no Python with torch: the README's PyTorch snippet is not run"
fi

# ---- errors: one sentence, exit 1 or 2, no output file -------------------------------
bad_usage "n_kv_heads = 3 must divide n_heads = 4" "n_kv_heads not dividing n_heads" --n-kv-heads 3
bad_usage "head_dim must be even and at least 2, but it is 3" "odd head_dim" --dim 12 --n-heads 4
bad_usage "dim = 2 is smaller than n_heads = 4" "dim smaller than n_heads" --dim 2
bad_usage "--seq-len 40 is longer than --max-seq-len 32, the size of the causal mask buffer" \
    "a --seq-len longer than --max-seq-len" --seq-len 40
expect_no_stdout "--seq-len past --max-seq-len is refused before the title"
bad_usage "--seq-len 6 is longer than --max-seq-len 3" "a --max-seq-len shorter than --seq-len" --max-seq-len 3
expect_no_stdout "--max-seq-len under --seq-len is refused before the title"
bad_usage "--n-heads 3: n_kv_heads = 2 must divide n_heads = 3" "names --n-heads, the flag typed" --n-heads 3
bad_runtime "sequence length 7 is longer than max_seq_len 5, the size of the causal mask buffer" \
    "an input longer than max_seq_len" \
    --input "$F/gqa/x.npy" --weights "$F/gqa" --max-seq-len 5
bad_usage "--decode 7 asks for more steps than the 6 positions" "--decode past T" --decode 7
bad_usage "--decode" "a negative --decode" --decode -1
bad_usage "--prefill-chunk two: must be an integer from 0" "--prefill-chunk not a number" --prefill-chunk two
bad_usage "--rope-theta 0: must be a positive number" "--rope-theta 0" --rope-theta 0
bad_usage "--rope-theta -10000: must be a positive number" "a negative --rope-theta" --rope-theta -10000
bad_usage "--rope-theta" "--rope-theta not a number" --rope-theta ten
bad_runtime "has its own freqs_cos.npy and freqs_sin.npy, so --rope-theta 500000 would not be used" \
    "--rope-theta with tables in the weights folder" --input "$F/gqa/x.npy" --weights "$F/gqa" --n-heads 4 \
    --rope-theta 500000
bad_usage "--prefill-chunk -2: must be an integer from 0" "a negative --prefill-chunk" --prefill-chunk -2
bad_usage "--prefill-chunk 7 is longer than the 6 positions to prefill (T = 6, --decode 0)" \
    "--prefill-chunk past T" --prefill-chunk 7
bad_usage "--prefill-chunk 4 is longer than the 3 positions to prefill (T = 6, --decode 3)" \
    "--prefill-chunk past the prompt" --prefill-chunk 4 --decode 3
bad_usage "--prefill-chunk 1 is longer than the 0 positions to prefill" "--prefill-chunk with every position decoded" \
    --prefill-chunk 1 --decode 6
bad_runtime "--prefill-chunk 8 is longer than the 7 positions to prefill (T = 7, --decode 0)" \
    "--prefill-chunk past the T of a file" --input "$F/gqa/x.npy" --weights "$F/gqa" --n-heads 4 --prefill-chunk 8
bad_usage "--n-kv-heads" "--n-kv-heads 0" --n-kv-heads 0
bad_usage "missing --weights" "--input alone" --input "$F/gqa/x.npy"
bad_usage "missing --input" "--weights alone" --weights "$F/gqa"

W="$TMP/w"
fresh_weights() { rm -rf "$W"; mkdir -p "$W"; cp "$F/gqa"/w?.npy "$F/gqa"/freqs_*.npy "$W"/; }
fresh_weights; cp "$F/gqa/wq.npy" "$W/wk.npy"
bad_runtime "wv.npy has shape (8, 16) but must be (n_kv_heads * head_dim, dim) = (16, 16)" \
    "wk with the rows of wq (n_kv_heads read from wk)" --input "$F/gqa/x.npy" --weights "$W" --n-heads 4
bad_runtime "wk.npy has shape (16, 16) but must be (n_kv_heads * head_dim, dim) = (8, 16)" \
    "wk of the wrong shape for --n-kv-heads" --input "$F/gqa/x.npy" --weights "$W" --n-heads 4 --n-kv-heads 2
fresh_weights; cp "$F/gqa/wk.npy" "$W/wo.npy"
bad_runtime "wo.npy has shape (8, 16) but must be (dim, n_heads * head_dim) = (16, 16)" "wo of the wrong shape" \
    --input "$F/gqa/x.npy" --weights "$W" --n-heads 4
fresh_weights; rm "$W/wv.npy"
bad_runtime "wv.npy" "a missing weight" --input "$F/gqa/x.npy" --weights "$W" --n-heads 4
fresh_weights; rm "$W/freqs_sin.npy"
bad_runtime "has only one of freqs_cos.npy and freqs_sin.npy" "one table without the other" \
    --input "$F/gqa/x.npy" --weights "$W" --n-heads 4
fresh_weights; cp "$F/rope/freqs_cos.npy" "$W/freqs_cos.npy"; cp "$F/rope/freqs_sin.npy" "$W/freqs_sin.npy"
bad_runtime "must both be (T, head_dim / 2) = (7, 2)" "tables of the wrong shape" \
    --input "$F/gqa/x.npy" --weights "$W" --n-heads 4
bad_runtime "wq.npy has shape (16, 16) but must be (n_heads * head_dim, dim) = (10, 10)" "x narrower than the weights" \
    --input "$F/odd/x.npy" --weights "$F/gqa" --n-heads 5 --n-kv-heads 5
bad_runtime "--input must be (bsz, seqlen, dim)" "an input that is not 3-D" --input "$F/gqa/wq.npy" --weights "$F/gqa"
expect_no_stdout "a bad --input is refused before the title"
bad_runtime "no_such.npy" "a missing --input" --input "$TMP/no_such.npy" --weights "$F/gqa"
expect_no_stdout "a missing --input is refused before the title"
fresh_weights; rm "$W/wo.npy"
bad_runtime "wo.npy" "a missing wo.npy" --input "$F/gqa/x.npy" --weights "$W" --n-heads 4
expect_no_stdout "a missing wo.npy is refused before the title"

# non-finite numbers in the files: one sentence, as chapter 12 does
poke_value() { # FILE INDEX BYTES: one float32 of a .npy
    hl=$(od -An -tu2 -j8 -N2 "$1" | tr -d ' ')
    printf "$3" | dd of="$1" bs=1 seek=$((10 + hl + 4 * $2)) conv=notrunc 2>/dev/null
}
cp "$F/gqa/x.npy" "$TMP/x_nan.npy"; poke_value "$TMP/x_nan.npy" 5 '\000\000\300\177'
bad_runtime "x_nan.npy holds NaN at flat index 5: the attention needs finite numbers" "NaN in --input" \
    --input "$TMP/x_nan.npy" --weights "$F/gqa" --n-heads 4
bad_runtime "x_nan.npy 含有 NaN（展平下标 5）：注意力需要有限的数" "NaN in --input, in Chinese" \
    --input "$TMP/x_nan.npy" --weights "$F/gqa" --n-heads 4 --lang zh
fresh_weights; poke_value "$W/wv.npy" 3 '\000\000\200\177'
bad_runtime "wv.npy holds inf at flat index 3" "inf in wv.npy" --input "$F/gqa/x.npy" --weights "$W" --n-heads 4

# flags that would be ignored are refused (exit 2, nothing on stdout)
for flag in "--dim 32" "--n-kv-heads 1" "--decode 2" "--rope-theta 500000" "--input $F/gqa/x.npy --weights $F/gqa" "--seq-len 4" \
    "--output $TMP/b.npy" "--dump $TMP/bd"; do
    # shellcheck disable=SC2086
    run "$P" --bench $flag
    expect_usage_error "${flag%% *} does not apply to --bench" "--bench refuses $flag, which it would ignore"
    expect_no_stdout "--bench $flag"
done
expect_no_file "$TMP/b.npy" "--bench --output writes nothing"
expect_no_file "$TMP/bd" "--bench --dump writes nothing"
for flag in "--dim 32" "--batch 3" "--seq-len 4"; do
    # shellcheck disable=SC2086
    bad_usage "${flag%% *} does not apply with --input, whose file gives bsz, seqlen and dim" \
        "--input refuses $flag" --input "$F/gqa/x.npy" --weights "$F/gqa" --n-heads 4 $flag
    expect_no_stdout "--input with $flag"
done
# an output folder that cannot be written: refused before any work
if [ -d /proc ]; then
    run "$P" --dump /proc/attn_no_such/d
    expect_status 2 "--dump in a folder nothing can be made in"
    expect_no_stdout "--dump /proc/...: refused before the title"
else
    skip 2 "no /proc here"
fi

finish
