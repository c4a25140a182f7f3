#!/bin/sh
# cross_programs.sh — the chapter programs built for another system (make
# test-windows, test-arm64, test-musl: tests/cross.sh), run there under $RUNNER
# and held against this machine's programs and PyTorch's fixtures:
#   - each chapter's default run (chapter 13: a model of the fixtures), in English and in Chinese, prints the same
#     words and the same numbers within the tolerance of tests/cross_same.awk
#     (chapter 8's printout is a timing report: its words in English, and its --dump);
#   - each chapter's --dump writes the same .npy files, close to this machine's
#     (rtol 1e-4, atol 1e-5: another compiler may round a sum differently);
#   - chapter 7 (which composes 3 to 6) reproduces PyTorch's default runs
#     (tests/fixtures/ch07/default);
#   - a bad flag is still one sentence and exit 2; a missing file exit 1.
# BUILD is the other system's build folder, NATIVE this machine's, EXE ".exe" on Windows.
. tests/lib.sh
suite cross_programs
NATIVE=${NATIVE:-build}
EXE=${EXE:-}

# what a chapter's tests compare with: this machine's npyinfo
expect_npy_close() { # A B RTOL ATOL DESC
    if "$NATIVE/npyinfo" --compare "$1" "$2" "$3" "$4" >"$TMP/cmp" 2>&1; then _ok; else _bad "$5: $(cat "$TMP/cmp")"; fi
}
same_printout() { # DESC [AWK FLAGS]
    _d=$1
    shift
    if awk "$@" -f tests/cross_same.awk "$TMP/here" "$TMP/out" >"$TMP/cmp" 2>&1; then _ok; else _bad "$_d: $(cat "$TMP/cmp")"; fi
}

n_chapters=0
for prog in "$BUILD"/chapter[0-9]*"$EXE"; do
    [ -f "$prog" ] || continue
    name=$(basename "$prog" "$EXE")
    n=${name#chapter}
    case $n in *[!0-9]*) continue ;; esac
    [ "$n" = 9 ] && continue # MPI: Linux only (a chapter9 left from a build with MPI)
    [ -x "$NATIVE/$name" ] || { _bad "$NATIVE/$name: this machine's program is missing (make all)"; continue; }
    n_chapters=$((n_chapters + 1))
    words= langs="en zh"
    # chapter 8's default run times every version at (1, 8, 512, 64): half a minute
    # under QEMU; its words once (the Chinese narration is checked on the others)
    [ "$n" = 8 ] && words="-v words_only=1" langs=en
    # chapter 13's default run trains for minutes, or loads the checkpoint beside the program
    # (one machine's file, not the flags'): a model of the fixtures, narrated, instead
    args=
    [ "$n" = 13 ] && args="--checkpoint tests/fixtures/ch13/mha_shared/model.bin --tokens 3,1,4"
    for lang in $langs; do
        # shellcheck disable=SC2086
        "$NATIVE/$name" --lang $lang $args >"$TMP/here" 2>/dev/null
        # shellcheck disable=SC2086
        run "$prog" --lang $lang $args
        expect_status 0 "$name --lang $lang"
        # shellcheck disable=SC2086
        same_printout "$name --lang $lang: the same printout as here" $words
    done
    rm -rf "$TMP/dump_here" "$TMP/dump_there"
    # (chapter 0 has no --dump: there as here, a usage error)
    # shellcheck disable=SC2086
    "$NATIVE/$name" --quiet $args --dump "$TMP/dump_here" >/dev/null 2>&1 || continue
    # shellcheck disable=SC2086
    run "$prog" --quiet $args --dump "$TMP/dump_there"
    expect_status 0 "$name --dump"
    k=0
    for f in "$TMP/dump_here"/*.npy; do
        [ -f "$f" ] || continue
        k=$((k + 1))
        expect_npy_close "$TMP/dump_there/$(basename "$f")" "$f" 1e-4 1e-5 "$name --dump: $(basename "$f") as here"
    done
    if [ "$k" -gt 0 ]; then _ok; else _bad "$name --dump wrote no .npy here"; fi
    run "$prog" --no-such-flag
    expect_usage_error "--no-such-flag" "$name: an unknown flag"
done
# chapters 0-8 and 10-12 at least (chapter 9 runs on MPI: Linux only, not built there)
if [ "$n_chapters" -ge 12 ]; then _ok; else _bad "only $n_chapters chapter programs in $BUILD (want 12)"; fi

# the .npy files in: chapter 1 reads PyTorch's q, k, v and writes the output it got
F=tests/fixtures/ch01
if [ -f "$F/cross_q.npy" ] && [ -x "$BUILD/chapter1$EXE" ]; then
    run "$BUILD/chapter1$EXE" --q "$F/cross_q.npy" --k "$F/cross_k.npy" --v "$F/cross_v.npy" --output "$TMP/out1.npy" --quiet
    expect_status 0 "chapter1 --q --k --v --output"
    expect_npy_close "$TMP/out1.npy" "$F/cross_output.npy" 1e-5 1e-6 "chapter1's output from PyTorch's inputs == PyTorch's"
    run "$BUILD/chapter1$EXE" --q "$TMP/nowhere.npy" --k "$F/cross_k.npy" --v "$F/cross_v.npy"
    expect_runtime_error "nowhere.npy" "chapter1: a missing input file"
fi
P="$BUILD/chapter7$EXE"
[ -d tests/fixtures/ch07/default ] && [ -x "$P" ] && check_default_runs tests/fixtures/ch07/default 32
finish
