#!/bin/sh
# test_ch13_program.sh — build/chapter13: the forward of llama2.c checkpoints written as
# export.py writes them (--tokens --dump: logits.npy, attn_L.npy) and every gradient
# (--batch-tokens --grad-dump) against PyTorch (tests/fixtures/ch13, scripts/golden/ch13.py:
# MHA tied, GQA unshared, MQA), the narrated run, and every bad input: exit 1 or 2, one
# line on stderr, no output folder left behind.
. tests/lib.sh
suite test_ch13_program

P=$BUILD/chapter13
FX=${FIXTURES:-tests/fixtures}/ch13

# the fixtures' token lists (tests/fixtures/ch13/<case>/tokens.npy)
tokens_of() {
    case $1 in
    mha_shared) echo 1,9,2,6,8,3,7,1,5 ;;
    gqa_unshared) echo 11,10,1,6,4,10,3,5,0,12 ;;
    mqa_shared) echo 0,2,2,2,3 ;;
    esac
}

for c in mha_shared gqa_unshared mqa_shared; do
    run "$P" --checkpoint "$FX/$c/model.bin" --tokens "$(tokens_of $c)" --dump "$TMP/$c" --quiet
    expect_status 0 "$c: --tokens --dump"
    expect_npy_close "$TMP/$c/logits.npy" "$FX/$c/logits.npy" 1e-4 1e-4 "$c: logits.npy equals PyTorch"
    for a in "$FX/$c"/attn_*.npy; do
        expect_npy_close "$TMP/$c/${a##*/}" "$a" 1e-4 1e-5 "$c: ${a##*/} equals PyTorch"
    done
    run "$P" --checkpoint "$FX/$c/model.bin" --batch-tokens "$FX/$c/batch.npy" --grad-dump "$TMP/g_$c" --quiet
    expect_status 0 "$c: --batch-tokens --grad-dump"
    expect_out_contains "loss " "$c: --quiet prints the loss"
    expect_npy_close "$TMP/g_$c/loss.npy" "$FX/$c/loss.npy" 1e-5 1e-5 "$c: loss.npy equals PyTorch"
    n=0
    for g in "$FX/$c"/grads/*.npy; do
        expect_npy_close "$TMP/g_$c/${g##*/}" "$g" 1e-4 1e-4 "$c: ${g##*/} equals autograd"
        n=$((n + 1))
    done
    m=$(ls "$TMP/g_$c" | grep -c '\.npy$')
    if [ "$m" -eq $((n + 1)) ]; then _ok; else _bad "$c: --grad-dump wrote $m files, expected $n gradients and loss.npy"; fi
done
expect_no_file "$TMP/g_mha_shared/output.weight.npy" "tied head: no output.weight.npy"
expect_file "$TMP/g_gqa_unshared/output.weight.npy" "unshared head: output.weight.npy"

# ---- the narrated run --------------------------------------------------------------------------
run "$P" --checkpoint "$FX/mha_shared/model.bin" --tokenizer "$FX/mha_shared/tokenizer.bin" --tokens 4,5,6,7,8,2
expect_status 0 "narrated run"
expect_out_contains "Chapter 13: a tiny LLaMA2" "title"
expect_out_contains "dim 16, hidden_dim 48, n_layers 2, n_heads 4, n_kv_heads 4, vocab_size 11," "the header"
expect_out_contains "tied to tok_embeddings" "says the head is tied"
expect_out_contains "layer 0: batch 0, head 3" "a heatmap per head"
expect_out_contains "春" "the tokenizer's pieces label the heatmap"
expect_out_contains "legend: ░ " "one scale for the whole grid"
run "$P" --checkpoint "$FX/mha_shared/model.bin" --tokenizer "$FX/mha_shared/tokenizer.bin" --tokens 4,5,6,7,8,2 --row-scale
expect_out_contains "legend: per row" "--row-scale shades each row on its own"
run "$P" --checkpoint "$FX/gqa_unshared/model.bin" --batch-tokens "$FX/gqa_unshared/batch.npy" --lang zh
expect_status 0 "narrated gradients, zh"
expect_out_contains "layers.1.feed_forward.w3.weight" "names every gradient by its state-dict key"

# ---- training, saving, generating (a tiny corpus, a few steps) ---------------------------------------
printf '白日依山尽，黄河入海流。\n欲穷千里目，更上一层楼。\n' >"$TMP/poem.txt"
run "$P" --corpus "$TMP/poem.txt" --train-steps 3 --save "$TMP/m.bin" --seed 5 --quiet
expect_status 0 "--corpus --train-steps --save"
last=$(tail -n 1 "$TMP/out")
case $last in "val loss "[0-9]*) _ok ;; *) _bad "the last line is '$last', not 'val loss V'" ;; esac
expect_out_contains "unigram entropy of the training text 2.5649" "prints the unigram entropy (log counts of 13 characters)"
expect_file "$TMP/m.bin" "OUT.bin written"
expect_file "$TMP/m.tok" "OUT.tok written beside it"
run "$P" --corpus "$TMP/poem.txt" --train-steps 3 --save "$TMP/m2.bin" --seed 5 --quiet
if cmp -s "$TMP/m.bin" "$TMP/m2.bin" && cmp -s "$TMP/m.tok" "$TMP/m2.tok"; then _ok; else _bad "the same seed trains other weights"; fi
run "$P" --corpus "$TMP/poem.txt" --train-steps 3 --save "$TMP/m3.bin" --seed 6 --quiet
if cmp -s "$TMP/m.bin" "$TMP/m3.bin"; then _bad "another seed trains the same weights"; else _ok; fi
# the checkpoint reads back: 23 distinct characters in the corpus, a tied head
run "$P" --checkpoint "$TMP/m.bin" --tokenizer "$TMP/m.tok" --tokens 0,1,2
expect_status 0 "the saved checkpoint reads back"
expect_out_contains "vocab_size 23" "its header holds the corpus's 23 characters"
run "$P" --checkpoint "$TMP/m.bin" --prompt "白日" --generate 6 --temperature 0 --quiet
expect_status 0 "greedy generation"
cp "$TMP/out" "$TMP/greedy1"
run "$P" --checkpoint "$TMP/m.bin" --prompt "白日" --generate 6 --temperature 0 --quiet --seed 99
if cmp -s "$TMP/out" "$TMP/greedy1"; then _ok; else _bad "greedy generation depends on the seed"; fi
case $(cat "$TMP/greedy1") in "白日"??????*) _ok ;; *) _bad "generation does not continue the prompt: $(cat "$TMP/greedy1")" ;; esac
# --dump of a generation: the program's own ids of the prompt and what followed (tokens.npy),
# and the forward over them, the same files as --tokens of those ids writes
run "$P" --checkpoint "$TMP/m.bin" --prompt "白日" --generate 6 --temperature 0 --quiet --dump "$TMP/gd"
expect_status 0 "greedy generation with --dump"
if cmp -s "$TMP/out" "$TMP/greedy1"; then _ok; else _bad "--dump changes the generated text"; fi
"$BUILD/npyinfo" --print "$TMP/gd/tokens.npy" >"$TMP/ids" 2>&1
if grep -q "shape (8,)" "$TMP/ids"; then _ok; else _bad "tokens.npy does not hold the prompt's 2 characters and the 6 generated: $(cat "$TMP/ids")"; fi
ids=$(sed -n 's/^tensor(\[\(.*\)\])$/\1/p' "$TMP/ids" | tr -d ' .')
run "$P" --checkpoint "$TMP/m.bin" --tokens "$ids" --quiet --dump "$TMP/td"
expect_status 0 "--tokens of the generation's ids"
for f in tokens logits attn_0 attn_1; do   # the model of 2 layers
    if [ -s "$TMP/gd/$f.npy" ] && cmp -s "$TMP/gd/$f.npy" "$TMP/td/$f.npy"; then _ok; else _bad "--prompt --dump's $f.npy is not --tokens $ids's"; fi
done
run "$P" --checkpoint "$TMP/m.bin" --prompt "白日" --generate 6 --temperature 1.2 --top-p 0.8 --quiet
expect_status 0 "sampled generation"
run "$P" --corpus "$TMP/poem.txt" --train-steps 2 --save "$TMP/g.bin" --prompt "黄" --generate 3 --temperature 0 --quiet
expect_status 0 "train, then generate in the same run"
last=$(tail -n 1 "$TMP/out")
case $last in "val loss "[0-9]*) _ok ;; *) _bad "with --prompt, the last line is '$last', not 'val loss V'" ;; esac
run "$P" --checkpoint "$TMP/m.bin" --corpus "$TMP/poem.txt"
expect_status 0 "--checkpoint --corpus looks inside"
# (its validation text, the poem's second line, is shorter than seq_len: one window of it is measured)
if grep -q nan "$TMP/out"; then _bad "--checkpoint --corpus of a short text prints nan: $(grep nan "$TMP/out" | head -n 2)"; else _ok; fi
if grep -Eq '^ +0\.0 +0\.00 0\.0x' "$TMP/out"; then _bad "a validation text shorter than seq_len is not measured (head 0.0: 0.00)"; else _ok; fi
expect_out_contains "same place" "the head roles table"
expect_out_contains "looks back to the previous line most" "names the head that looks back most"
expect_out_contains "within a couplet (the line before ends in a comma):" "splits that head's numbers by couplet"

# ---- resuming: --stop-at or a signal writes OUT.state beside OUT.bin; --resume continues ----------------
R="--corpus $TMP/poem.txt --train-steps 7 --seed 5 --quiet"
run "$P" $R --save "$TMP/whole.bin"
expect_status 0 "7 steps without a stop"
run "$P" $R --save "$TMP/r.bin" --stop-at 3
expect_status 0 "--stop-at 3"
expect_out_contains "stopped after step 3 of 7" "says where it stopped"
expect_file "$TMP/r.state" "--stop-at writes OUT.state"
run "$P" $R --save "$TMP/r.bin" --resume --stop-at 5
expect_status 0 "--resume --stop-at 5"
run "$P" $R --save "$TMP/r.bin" --resume
expect_status 0 "--resume to the end"
last=$(tail -n 1 "$TMP/out")
case $last in "val loss "[0-9]*) _ok ;; *) _bad "a resumed run's last line is '$last', not 'val loss V'" ;; esac
if cmp -s "$TMP/r.bin" "$TMP/whole.bin"; then _ok; else _bad "stopped at 3 and 5, resumed: not the weights of the run without a stop"; fi
expect_no_file "$TMP/r.state" "a finished run leaves no OUT.state"
# the default run's checkpoint (ch13/tang.bin beside the program): one that this program's default
# run did not train (its ch13/tang.run missing, or naming another configuration) is trained again
mkdir -p "$TMP/def/ch13"
cp "$P" "$TMP/def/chapter13"
cp "$TMP/whole.bin" "$TMP/def/ch13/tang.bin"
cp "$TMP/whole.tok" "$TMP/def/ch13/tang.tok"
echo "chapter 13's default run: another configuration" >"$TMP/def/ch13/tang.run"
run "$TMP/def/chapter13" --stop-at 1
expect_status 0 "the default run beside a checkpoint of another configuration"
# (the narration wraps its lines: read them as one)
said_once() { tr '\n' ' ' <"$TMP/out" | tr -s ' ' | grep -qF -- "$1"; }
if said_once "was not trained by this program's default run"; then _ok; else _bad "says the checkpoint is not the default run's"; fi
expect_out_contains "stopped after step 1 of" "and trains the default configuration again"
expect_out_contains "the next run continues" "a stopped default run says the next run continues (it resumes by itself)"
# the default run trains only its own checkpoint: --corpus and --train-steps without --save are a
# usage error, before anything is written beside the program
mkdir -p "$TMP/def2"
cp "$P" "$TMP/def2/chapter13"
for f in "--train-steps 5" "--corpus $TMP/poem.txt"; do
    # shellcheck disable=SC2086  # a flag and its value
    run "$TMP/def2/chapter13" $f
    expect_usage_error "give --save OUT.bin to keep it" "the default run with ${f%% *} and no --save"
    if [ ! -s "$TMP/out" ]; then _ok; else _bad "the default run with ${f%% *}: printed before its usage error"; fi
    expect_no_file "$TMP/def2/ch13" "the default run with ${f%% *}: nothing written beside the program"
done
# the whole default run, twice: the first trains (about half a minute here) to a validation loss below
# the unigram entropy and names a head; the second looks inside the checkpoint the first saved, and
# --dump or --stop-at, which are for a training run, are usage errors beside it
if [ -n "$RUNNER" ] || sanitized; then
    skip 13 "the default run trains for half a minute: not under $RUNNER or a sanitizer"
else
    mkdir -p "$TMP/def3"
    cp "$P" "$TMP/def3/chapter13"
    run "$TMP/def3/chapter13"
    expect_status 0 "the default run"
    v=$(sed -n 's/^val loss \([0-9.]*\)$/\1/p' "$TMP/out")
    h=$(sed -n 's/^unigram entropy of the training text \([0-9.]*\) .*/\1/p' "$TMP/out")
    if [ -n "$v" ] && [ -n "$h" ] && awk -v v="$v" -v h="$h" 'BEGIN { exit !(v < h) }'; then _ok; else
        _bad "the default run: val loss '$v' is not below the unigram entropy '$h'"; fi
    expect_out_contains "looks back to the previous line most" "the default run names the head that looks back most"
    sed -n '/A poem through the KV cache/,$p' "$TMP/out" >"$TMP/poem1"
    run "$TMP/def3/chapter13"
    expect_status 0 "the default run again"
    expect_out_contains "the chapter's checkpoint: " "the second default run looks inside the saved checkpoint"
    sed -n '/A poem through the KV cache/,$p' "$TMP/out" >"$TMP/poem2"
    if [ -s "$TMP/poem1" ] && cmp -s "$TMP/poem1" "$TMP/poem2"; then _ok; else
        _bad "the poem after training differs from the poem of the saved model: $(head -c 300 "$TMP/poem1")"; fi
    run "$TMP/def3/chapter13" --stop-at 1
    expect_usage_error "the chapter's checkpoint is trained already" "--stop-at beside the trained default checkpoint"
    run "$TMP/def3/chapter13" --dump "$TMP/def3/d"
    expect_usage_error "the chapter's checkpoint is trained already" "--dump beside the trained default checkpoint"
    expect_no_file "$TMP/def3/d" "--dump beside the trained default checkpoint writes nothing"
fi
# SIGTERM while training (the corpus a FIFO: the run holds its handler once it opens it): the step under
# way ends, the state is written, exit 143; resumed to step K + 2 it equals a run stopped at K + 2
if mkfifo "$TMP/fifo" 2>/dev/null; then
    $RUNNER "$P" --corpus "$TMP/fifo" --train-steps 100000 --seed 5 --quiet --save "$TMP/s.bin" >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    cat "$TMP/poem.txt" >"$TMP/fifo"
    kill -TERM $pid
    wait $pid
    status=$?
    if [ $status -eq 143 ]; then _ok; else _bad "SIGTERM while training: exit $status, not 143 ($(cat "$TMP/err"))"; fi
    k=$(sed -n 's/.*stopped by a signal after step \([0-9]*\) of 100000.*/\1/p' "$TMP/err")
    if [ -n "$k" ]; then _ok; else _bad "SIGTERM: no 'stopped by a signal after step K' on stderr: $(cat "$TMP/err")"; k=0; fi
    S="--corpus $TMP/poem.txt --train-steps 100000 --seed 5 --quiet --stop-at $((k + 2))"
    run "$P" $S --save "$TMP/s.bin" --resume
    expect_status 0 "resumed after SIGTERM"
    run "$P" $S --save "$TMP/u.bin"
    if cmp -s "$TMP/s.bin" "$TMP/u.bin" && cmp -s "$TMP/s.state" "$TMP/u.state"; then _ok; else
        _bad "stopped by SIGTERM at $k, resumed to $((k + 2)): weights or state differ from a run stopped at $((k + 2))"; fi
else
    skip 4 "the SIGTERM test needs mkfifo"
fi
# bad or mismatched states: one sentence, exit 1
run "$P" $R --save "$TMP/whole.bin" --resume
expect_runtime_error "whole.state: cannot open it: --resume continues a run that --stop-at or Ctrl-C stopped" "--resume without a state"
run "$P" $R --save "$TMP/r.bin" --stop-at 3
run "$P" --corpus "$TMP/poem.txt" --train-steps 7 --seed 6 --quiet --save "$TMP/r.bin" --resume
expect_runtime_error "the state is of a run with --seed 5, this run has 6" "another seed"
run "$P" --corpus "$TMP/poem.txt" --train-steps 9 --seed 5 --quiet --save "$TMP/r.bin" --resume
expect_runtime_error "the state is of a run with --train-steps 7, this run has 9" "another schedule"
run "$P" $R --save "$TMP/r.bin" --resume --stop-at 2
expect_runtime_error "the state is at step 3; --stop-at 2 is not after it" "--stop-at before the state's step"
cp "$TMP/r.bin" "$TMP/t.bin"
head -c 3000 "$TMP/r.state" >"$TMP/t.state"
run "$P" $R --save "$TMP/t.bin" --resume
expect_runtime_error "a state of this model is" "a truncated state"
printf 'CH13ST00' >"$TMP/t.state"
run "$P" $R --save "$TMP/t.bin" --resume
expect_runtime_error "not a training state of this chapter" "not a state"
cp "$TMP/r.state" "$TMP/t.state"
cp "$TMP/whole.bin" "$TMP/t.bin"
run "$P" $R --save "$TMP/t.bin" --resume
expect_runtime_error "not of the weights in the checkpoint beside it" "a state beside other weights"
run "$P" --checkpoint "$TMP/m.bin" --tokens 1 --resume
expect_usage_error "not --checkpoint" "--resume with --checkpoint"

# --dump of a training run (make plots draws it): the curves and every head over two real lines
# (N steps: a validation loss every N / 12 steps and at the end, so 12 of them; 12 steps
# under valgrind, where a step of this model takes about 4 s)
N=24
[ -z "$RUNNER" ] || N=12
run "$P" --corpus "$TMP/poem.txt" --train-steps $N --save "$TMP/d.bin" --quiet --dump "$TMP/dd"
expect_status 0 "training with --dump"
shapes=$("$BUILD/npyinfo" "$TMP/dd/train_loss.npy" "$TMP/dd/val_loss.npy" "$TMP/dd/chars.npy" "$TMP/dd/attn_0.npy" \
    "$TMP/dd/attn_1.npy" 2>&1 | sed 's/.*: shape //' | tr '\n' ' ')
if [ "$shapes" = "($N, 2), float32 (12, 2), float32 (13,), float32 (4, 13, 13), float32 (4, 13, 13), float32 " ]; then
    _ok; else _bad "training --dump: shapes $shapes"; fi
# the last validation loss is the run's 'val loss', and the first character the validation text's (欲 U+6B32)
v=$(sed -n 's/^val loss //p' "$TMP/out")
if "$BUILD/npyinfo" --print "$TMP/dd/val_loss.npy" | grep -q "$N.0000, *$v\]\])" &&
    "$BUILD/npyinfo" --print "$TMP/dd/chars.npy" | grep -q "27442\."; then _ok; else
    _bad "training --dump: the last validation loss is not 'val loss $v', or chars.npy does not start with 欲"; fi
run "$P" --corpus "$TMP/poem.txt" --train-steps $N --save "$TMP/d2.bin" --quiet
if cmp -s "$TMP/d.bin" "$TMP/d2.bin"; then _ok; else _bad "--dump changed the trained weights"; fi

# --bench N (make bench-chapter13 reads these two lines; no figure is checked)
run "$P" --checkpoint "$FX/mha_shared/model.bin" --batch-tokens "$FX/mha_shared/batch.npy" --bench 1 --quiet
expect_status 0 "--bench 1"
expect_out_contains "train step: best " "--bench: the training step's line"
expect_out_contains "decode: best " "--bench: the decode's line"
run "$P" --checkpoint "$FX/mha_shared/model.bin" --bench 1 --quiet
expect_usage_error "--bench times training steps on --batch-tokens FILE" "--bench without --batch-tokens"

# training and generation: bad input
rm -f "$TMP/x.bin" "$TMP/x.tok"
run "$P" --corpus "$TMP/poem.txt" --train-steps -1 --save "$TMP/x.bin" --quiet
expect_usage_error "--train-steps" "negative step count"
run "$P" --checkpoint "$TMP/m.bin" --prompt "白" --generate 2 --temperature -0.5 --quiet
expect_usage_error "--temperature" "negative temperature"
run "$P" --checkpoint "$TMP/m.bin" --prompt "白" --generate 2 --top-p 0 --quiet
expect_usage_error "--top-p 0: must be a number above 0 and at most 1" "top-p 0"
run "$P" --checkpoint "$TMP/m.bin" --prompt "白" --quiet
expect_usage_error "go together" "--prompt without --generate"
run "$P" --checkpoint "$TMP/m.bin" --corpus "$TMP/poem.txt" --dump "$TMP/nodump"
expect_usage_error "--dump writes the forward of --tokens or of --prompt" "--dump with neither --tokens nor --prompt"
run "$P" --checkpoint "$TMP/m.bin" --prompt "白" --generate 100 --quiet
expect_usage_error "pass the model's seq_len" "--generate past seq_len"
run "$P" --checkpoint "$TMP/m.bin" --prompt "白" --generate 100
expect_usage_error "pass the model's seq_len" "--generate past seq_len, narrated"
if [ ! -s "$TMP/out" ]; then _ok; else _bad "--generate past seq_len: the narration began before the usage error"; fi
run "$P" --checkpoint "$TMP/m.bin" --tokens 0,1,99
expect_usage_error "token 99 is outside the vocabulary 0..22" "--tokens past the vocabulary, narrated"
if [ ! -s "$TMP/out" ]; then _ok; else _bad "--tokens past the vocabulary: the narration began before the usage error"; fi
run "$P" --checkpoint "$TMP/m.bin" --prompt "猫" --generate 2
expect_runtime_error "is not in the model's vocabulary" "a character outside the vocabulary, narrated"
if [ ! -s "$TMP/out" ]; then _ok; else _bad "a prompt outside the vocabulary: the narration began before the error"; fi
run "$P" --checkpoint "$TMP/m.bin" --prompt "猫" --generate 2 --quiet
expect_runtime_error "'猫' (U+732B), is not in the model's vocabulary of 23 characters" "a character outside the vocabulary"
printf '白日依山尽，黄河入海流。' >"$TMP/short.txt"
run "$P" --corpus "$TMP/short.txt" --train-steps 2 --save "$TMP/x.bin" --quiet
expect_runtime_error "the validation text, must hold at least 2" "a text whose last tenth is 1 character"
expect_no_file "$TMP/x.bin" "a text too short to validate on"
printf 'ab\377cd\n' >"$TMP/bad.txt"
run "$P" --corpus "$TMP/bad.txt" --train-steps 2 --save "$TMP/x.bin" --quiet
expect_runtime_error "byte 2 is not valid UTF-8" "a corpus that is not UTF-8"
expect_no_file "$TMP/x.bin" "a corpus that is not UTF-8"
expect_no_file "$TMP/x.tok" "a corpus that is not UTF-8: no .tok"
run "$P" --corpus "$TMP/poem.txt" --train-steps 2 --save "$TMP/nowhere/x.bin" --quiet
expect_usage_error "--save" "--save into a folder that does not exist"
run "$P" --corpus "$TMP/none.txt" --train-steps 2 --save "$TMP/x.bin" --quiet
expect_runtime_error "none.txt: cannot open" "a missing corpus"
expect_no_file "$TMP/x.bin" "a missing corpus"

# ---- bad input -----------------------------------------------------------------------------------
bad() { # CODE TEXT DESC ARGS...
    code=$1 text=$2 desc=$3
    shift 3
    rm -rf "$TMP/bad"
    run "$P" "$@" --dump "$TMP/bad" --quiet
    if [ "$code" = 2 ]; then expect_usage_error "$text" "$desc"; else expect_runtime_error "$text" "$desc"; fi
    expect_no_file "$TMP/bad" "$desc"
}
M="--checkpoint $FX/mha_shared/model.bin"
bad 2 "need --checkpoint M.bin" "no checkpoint" --tokens 1,2
bad 2 "give --tokens" "nothing to run" $M
bad 2 "--tokens takes token ids" "bad token list" $M --tokens 1,,2
bad 2 "--tokens takes token ids" "negative token" $M --tokens 1,-2
bad 2 "outside the vocabulary 0..10" "token past the vocabulary" $M --tokens 1,11
bad 2 "more than the model's seq_len 12" "too many tokens" $M --tokens 1,1,1,1,1,1,1,1,1,1,1,1,1
bad 2 "two runs" "--tokens with --batch-tokens" $M --tokens 1 --batch-tokens "$FX/mha_shared/batch.npy"
bad 2 "--checkpoint" "--checkpoint without a value" --checkpoint

# files: truncated, longer, inconsistent header, not a checkpoint
head -c 20 "$FX/mha_shared/model.bin" >"$TMP/short.bin"
bad 1 "shorter than llama2.c's 28-byte header" "header cut" --checkpoint "$TMP/short.bin" --tokens 1
head -c 20000 "$FX/mha_shared/model.bin" >"$TMP/trunc.bin"
bad 1 "the file is truncated: its header says 27868 bytes, but it ends after 20000" "weights cut" \
    --checkpoint "$TMP/trunc.bin" --tokens 1
{ cat "$FX/mha_shared/model.bin"; printf 'x'; } >"$TMP/long.bin"
bad 1 "longer than its header says (27868 bytes)" "bytes after the weights" --checkpoint "$TMP/long.bin" --tokens 1
# n_kv_heads 3 (the fifth int32) does not divide n_heads 4
{ head -c 16 "$FX/mha_shared/model.bin"; printf '\003\000\000\000'; tail -c +21 "$FX/mha_shared/model.bin"; } >"$TMP/kv.bin"
bad 1 "n_kv_heads 3 does not divide n_heads 4" "inconsistent header" --checkpoint "$TMP/kv.bin" --tokens 1
# vocab_size 0 (the sixth int32)
{ head -c 20 "$FX/mha_shared/model.bin"; printf '\000\000\000\000'; tail -c +25 "$FX/mha_shared/model.bin"; } >"$TMP/v0.bin"
bad 1 "vocab_size is 0" "vocab_size 0" --checkpoint "$TMP/v0.bin" --tokens 1
bad 1 "cannot open the checkpoint" "missing checkpoint" --checkpoint "$TMP/none.bin" --tokens 1
bad 1 "the file ends at token 11" "tokenizer of a smaller vocabulary" \
    --checkpoint "$FX/gqa_unshared/model.bin" --tokenizer "$FX/mha_shared/tokenizer.bin" --tokens 1
# a float batch, and ids outside the vocabulary
rm -rf "$TMP/bg"
run "$P" $M --batch-tokens "$FX/mha_shared/logits.npy" --grad-dump "$TMP/bg" --quiet
expect_runtime_error "needs a version 1.0 .npy of int32" "float batch"
expect_no_file "$TMP/bg" "float batch"
run "$P" --checkpoint "$FX/mqa_shared/model.bin" --batch-tokens "$FX/mha_shared/batch.npy" --grad-dump "$TMP/bg" --quiet
expect_runtime_error "outside the model's vocabulary 0..8" "batch ids past the vocabulary"
expect_no_file "$TMP/bg" "batch ids past the vocabulary"
run "$P" $M --batch-tokens "$FX/mha_shared/batch.npy" --grad-dump "$FX/mha_shared/model.bin/sub" --quiet
expect_usage_error "--grad-dump" "--grad-dump folder that cannot be made"

finish
