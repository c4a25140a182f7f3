#!/bin/sh
# test_exit_codes.sh — one exit-code rule for every chapter program (README, "Exit status").
#
# 2: the flags, or their combination, cannot work. That is checked before any work or output:
#    an unknown flag or one that does not apply, a value out of range, flags that go together
#    or exclude each other, --heads that does not divide d_out (the flag's or the weights'),
#    chapter 11's n_kv_heads, head_dim and --generate past the cache, an output folder that
#    does not exist or cannot be written. So: one sentence on stderr, nothing on stdout, no file.
# 1: a file's content, or the system, fails during the run (the chapters' own tests check those).
#
# Each case below is one usage error; it must exit 2 with one line on stderr naming TEXT and
# an empty stdout, and leave no --output file behind.
. tests/lib.sh
suite test_exit_codes

NOPE=$TMP/no_such_folder       # a folder that does not exist
: >"$TMP/a_file"                # a file where a folder is wanted
OUT=$TMP/out.npy

# usage N TEXT ARGS...: build/chapterN ARGS... is a usage error naming TEXT
usage() {
    n=$1 text=$2
    shift 2
    rm -f "$OUT"
    if [ "$n" = 9 ] && [ ! -x "$BUILD/chapter9" ]; then
        # chapter 9 is built only where MPI is (the Makefile's HAVE_MPI)
        skip 5 "chapter9 $*: build/chapter9 was not built (MPI is not installed)"
        return
    fi
    if [ "$n" = 9 ]; then
        # an MPI program run alone (a singleton): Open MPI keeps memory until exit in modules it
        # has unloaded, which LeakSanitizer and valgrind report (test_ch09_program.sh does the same)
        _runner=$RUNNER _asan=${ASAN_OPTIONS-}
        RUNNER=
        export ASAN_OPTIONS="detect_leaks=0${_asan:+:$_asan}"
        run "$BUILD/chapter$n" "$@"
        RUNNER=$_runner ASAN_OPTIONS=$_asan
    else
        run "$BUILD/chapter$n" "$@"
    fi
    expect_usage_error "$text" "chapter$n $*"
    expect_no_stdout "chapter$n $*"
    expect_no_file "$OUT" "chapter$n $*"
}

# every chapter: an unknown flag, a value that is not a number, an output folder that does not
# exist; and for those with --dump, a file where the folder should be
for n in 0 1 2 3 4 5 6 7 8 9 10 11 12; do
    usage "$n" "unknown flag '--no-such-flag'" --no-such-flag
    usage "$n" "--seed abc" --seed abc
done
for n in 1 2 3 4 5 6 7 8 9 10 11; do  # (chapter 12 writes only --dump)
    usage "$n" "the folder $NOPE does not exist" --output "$NOPE/out.npy"
    usage "$n" "--output $TMP: it is a folder, not a file" --output "$TMP"
done
for n in 1 2 3 4 5 6 7 8 10 11; do
    usage "$n" "--dump $TMP/a_file: it is a file, not a folder" --dump "$TMP/a_file" --output "$OUT"
    usage "$n" "--dump $TMP/a_file/sub: $TMP/a_file is not a folder" --dump "$TMP/a_file/sub" --output "$OUT"
done
usage 12 "--dump $TMP/a_file: it is a file, not a folder" --dump "$TMP/a_file"
usage 12 "--dump $TMP/a_file/sub: $TMP/a_file is not a folder" --dump "$TMP/a_file/sub"
usage 12 "--impl nope: must be flash or reference" --impl nope
usage 12 "flag '--output' does not apply to chapter12" --output "$OUT"

# heads that do not divide d_out: the flag's d_out, or the rows of the weights' wq.npy
usage 0 "--heads 3: d_out 4 is not divisible by n_heads 3" --heads 3
usage 0 "d_out 7 is not divisible by n_heads 2" --d-out 7 --heads 2
usage 0 "flag '--output' does not apply to chapter0" --output "$OUT"
for n in 5 6 7 9 10; do
    usage "$n" "d_out 7 is not divisible by n_heads 2" --d-out 7 --heads 2 --output "$OUT"
done
W=tests/fixtures/ch07/happy
for n in 5 6 7 9 10; do
    usage "$n" "d_out 12 (the rows of $W/weights/wq.npy) is not divisible by n_heads 5" \
        --input "$W/x.npy" --weights "$W/weights" --heads 5 --output "$OUT"
done

# flags that go together, exclude each other, or do not apply
usage 1 "--q, --k and --v go together: missing --k and --v" --q "$TMP/a_file"
usage 1 "with --q, --k, --v the files give the sizes" --q x.npy --k x.npy --v x.npy --seq-len 3
usage 2 "flag '--heads' does not apply to chapter2" --heads 2
usage 3 "--input and --weights go together: missing --weights" --input x.npy
usage 4 "flag '--seq-len' does not apply to chapter4" --seq-len 4
usage 5 "--input and --weights go together: missing --input" --weights "$W/weights"
usage 6 "--dropout 1.5" --dropout 1.5
usage 7 "--seq-len 0" --seq-len 0
usage 8 "--impl nope" --impl nope
usage 8 "flag '--d-out' does not apply to chapter8" --d-out 4
usage 9 "--parallel pipeline" --parallel pipeline
usage 9 "--input/--weights need --heads H" --input "$W/x.npy" --weights "$W/weights"
usage 10 "--grad-output needs --input" --grad-output x.npy
usage 10 "--train trains its own model" --train --input "$W/x.npy" --weights "$W/weights"

# chapter 11: the sizes the book's ModelConfig asserts, and --generate
usage 11 "n_kv_heads = 3 must divide n_heads = 4" --n-kv-heads 3 --output "$OUT"
usage 11 "--n-kv-heads 0" --n-kv-heads 0
usage 11 "head_dim must be even and at least 2, but it is 3" --dim 12 --n-heads 4
usage 11 "dim = 2 is smaller than n_heads = 4" --dim 2
usage 11 "--decode 7 asks for more steps than the 6 positions" --decode 7 --output "$OUT"
usage 11 "--prefill-chunk -1: must be an integer from 0" --prefill-chunk -1 --output "$OUT"
usage 11 "--prefill-chunk 7 is longer than the 6 positions to prefill" --prefill-chunk 7 --output "$OUT"
usage 11 "--prefill-chunk does not apply to --generate" --generate "$NOPE" --prefill-chunk 2
usage 11 "--rope-theta 0: must be a positive number" --rope-theta 0 --output "$OUT"
usage 11 "--rope-theta does not apply to --generate" --generate "$NOPE" --rope-theta 1e6
usage 11 "--tokens applies only with --generate DIR" --tokens 3
usage 11 "--prompt applies only with --generate DIR" --prompt "D A"
# --generate checks its flags before it reads the folder: this one does not exist
usage 11 "would feed the model 9 positions, past the 8" --generate "$NOPE" --prompt "D A" --tokens 8
usage 11 "--n-kv-heads does not apply to --generate" --generate "$NOPE" --n-kv-heads 2
usage 11 "--decode does not apply to --generate" --generate "$NOPE" --decode 1
usage 11 "--output does not apply to --generate" --generate "$NOPE" --output "$OUT"

# the other side of the rule: a file's content fails during the run, exit 1
printf 'not an npy file' >"$TMP/bad.npy"
run "$BUILD/chapter1" --q "$TMP/bad.npy" --k "$TMP/bad.npy" --v "$TMP/bad.npy" --output "$OUT"
expect_runtime_error "bad.npy" "a file that is not .npy is the run's error"
expect_no_file "$OUT" "a file that is not .npy: no output"
run "$BUILD/chapter11" --generate "$NOPE"
expect_runtime_error "no_such_folder" "--generate on a folder that does not exist is the run's error"

# --help of every chapter says the rule
for n in 0 1 2 3 4 5 6 7 8 10 11 12; do
    run "$BUILD/chapter$n" --help
    expect_out_contains "exit status: 0 ok; 2 when the flags cannot work together" "chapter$n --help: exit 2"
    expect_out_contains "1 when a file's content or the system fails during the run." "chapter$n --help: exit 1"
done

finish
