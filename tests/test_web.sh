#!/bin/sh
# test_web.sh — every chapter's WebAssembly (make web) against its native program.
#
# Each case runs build/chapterN and build/web-files/wasm/chapterN.wasm under node,
# through the page's own WASI (scripts/web/wasi.js, by tests/web/run_wasm.cjs),
# with the same flags, and compares stdout, stderr and the exit status byte for
# byte, and the .npy files each wrote: default runs, flags, --lang zh, files read
# (fixtures), --dump, and usage errors (exit 2). Chapter 8's and 12's narration
# holds times: there the quiet results and the dumped arrays are compared, and the
# narration with its times set aside. Chapter 9 runs on MPI: not built for the web.
# Without make web's output (or without node), or with one built from older sources
# than these (scripts/web/sources_sum.sh), the suite is skipped, by name, unless
# WEB_REQUIRED=1 (make test-web), when that is a failure.
. tests/lib.sh
suite test_web
W=build/web-files/wasm
# make web without the wasm toolchain: one sentence naming the packages, exit 1
_cmd="sh scripts/web/check_toolchain.sh (a target with no C library)"
sh scripts/web/check_toolchain.sh 'clang --target=wasm32-nowhere-at-all' llvm-ar >"$TMP/out" 2>"$TMP/err"
status=$?
expect_status 1 "make web without a wasm32 C library"
expect_err_contains "install the Debian packages clang, lld, wasi-libc and libclang-rt-14-dev-wasm32" "make web names what to install"
# the sum of the sources make web compiled (scripts/web/sources_sum.sh): the same
# files give the same sum, one changed byte another
_cmd="sh scripts/web/sources_sum.sh (in a copy of a small tree)"
mkdir -p "$TMP/tree/common" "$TMP/tree/chapters/00_x"
printf 'all:\n' >"$TMP/tree/Makefile"
printf 'int a;\n' >"$TMP/tree/common/a.c"
printf 'int b;\n' >"$TMP/tree/chapters/00_x/b.h"
s1=$(cd "$TMP/tree" && sh "$OLDPWD/scripts/web/sources_sum.sh")
s2=$(cd "$TMP/tree" && sh "$OLDPWD/scripts/web/sources_sum.sh")
printf 'int c;\n' >"$TMP/tree/chapters/00_x/b.h"
s3=$(cd "$TMP/tree" && sh "$OLDPWD/scripts/web/sources_sum.sh")
if [ -n "$s1" ] && [ "$s1" = "$s2" ] && [ "$s1" != "$s3" ]; then _ok; else _bad "sources_sum.sh: '$s1' '$s2' '$s3'"; fi
M=build/web-files/model
why=
if ! command -v node >/dev/null 2>&1 || [ ! -f "$W/chapter13.wasm" ] || [ ! -s "$M/tang.bin" ]; then
    why="the chapters' WebAssembly: make web has not run here (it needs clang, lld, wasi-libc and node)"
elif [ "$(cat build/web-files/sources.sum 2>/dev/null)" != "$(sh scripts/web/sources_sum.sh)" ]; then
    why="the chapters' WebAssembly: build/web was made from older sources than these (make web builds it again)"
fi
if [ -n "$why" ]; then
    if [ -n "${WEB_REQUIRED:-}" ]; then
        echo "FAIL: $why"
        _failed=1
    else
        skip 1 "$why"
    fi
    finish
    exit
fi
NODE_OPTIONS= export NODE_OPTIONS

# same N DESC FLAGS...: native and wasm, in folders of their own (each --dump/--output
# goes under $TMP/nat or $TMP/web), compared; $status is the native exit status
same() {
    _n=$1 _d=$2
    shift 2
    for side in nat web; do
        rm -rf "$TMP/$side" && mkdir -p "$TMP/$side"
    done
    (cd "$TMP/nat" && "$OLDPWD/$BUILD/chapter$_n" "$@" >"$TMP/nat.out" 2>"$TMP/nat.err"; echo $? >"$TMP/nat.rc")
    (cd "$TMP/web" && node "$OLDPWD/tests/web/run_wasm.cjs" "$OLDPWD/$W/chapter$_n.wasm" "$@" \
        >"$TMP/web.out" 2>"$TMP/web.err"; echo $? >"$TMP/web.rc")
    status=$(cat "$TMP/nat.rc")
    cp "$TMP/nat.err" "$TMP/err"
    _cmd="chapter$_n $*"
    if [ -n "${MASK:-}" ] && [ -n "${_masked:-}" ]; then
        _m=$MASK
        [ "$_masked" = 2 ] && _m="$MASK; s/[0-9]+//g; s/ //g" # (and the line breaks: numbers' widths move them)
        for f in nat.out web.out; do
            tr '\n' ' ' <"$TMP/$f" | sed -E "$_m" >"$TMP/$f.m" && mv "$TMP/$f.m" "$TMP/$f"
        done
    fi
    if cmp -s "$TMP/nat.out" "$TMP/web.out" && cmp -s "$TMP/nat.err" "$TMP/web.err" &&
        [ "$status" = "$(cat "$TMP/web.rc")" ] && _same_files; then
        _ok
    else
        _bad "$_d: chapter $_n's wasm differs from the native program (exit $status and $(cat "$TMP/web.rc"))"
        diff "$TMP/nat.out" "$TMP/web.out" | head -n 8
        diff "$TMP/nat.err" "$TMP/web.err" | head -n 4
    fi
}
_same_files() {
    [ "$(cd "$TMP/nat" && find . -type f | sort)" = "$(cd "$TMP/web" && find . -type f | sort)" ] || return 1
    for f in $(cd "$TMP/nat" && find . -type f); do
        cmp -s "$TMP/nat/$f" "$TMP/web/$f" || { echo "      differs: $f"; return 1; }
    done
}
F=$(pwd)/tests/fixtures

for n in 0 1 2 3 4 5 6 7 10 11; do
    same "$n" "default run" 
    expect_status 0 "chapter $n's default run"
    same "$n" "--lang zh" --lang zh
    same "$n" "a flag the chapter does not know" --no-such-flag
    expect_status 2 "chapter $n: an unknown flag is a usage error"
done
# flags, files read, --dump
same 1 "--q --k --v fixtures, --output" --q "$F/ch01/cross_q.npy" --k "$F/ch01/cross_k.npy" --v "$F/ch01/cross_v.npy" --output out.npy
same 1 "a 1-d query file" --q "$F/ch01/bad_q_1d.npy" --k "$F/ch01/cross_k.npy" --v "$F/ch01/cross_v.npy"
expect_status 1 "chapter 1: a bad file is exit 1"
same 2 "--seed 7 --dump" --seed 7 --dump d
same 3 "--seed 5 --d-out 4 --dump" --seed 5 --d-out 4 --dump d
same 4 "--heatmap --dump" --heatmap --dump d
same 4 "--heatmap --lang zh --max-seq-len 6" --heatmap --lang zh --max-seq-len 6
same 4 "--max-seq-len 0" --max-seq-len 0
expect_status 2 "chapter 4: --max-seq-len 0 is a usage error"
same 5 "--heads 4 --dump" --heads 4 --dump d
same 5 "--heads 3 (does not divide d_out)" --heads 3
expect_status 2 "chapter 5: heads that do not divide d_out"
same 6 "--dropout 0.5 --seed 9 --dump" --dropout 0.5 --seed 9 --dump d
same 7 "--eval --bias --dump" --eval --bias --dump d
same 10 "--dump" --dump d
same 11 "--n-kv-heads 1 --decode 2 --dump" --n-kv-heads 1 --decode 2 --dump d
# chapter 8: the results (its narration times each version: the times set aside)
# (timed: the lines joined, since a time's width moves the wrapping; every decimal
# number and every count of %, x, KiB set aside; the arrays are compared in the --dump cases)
MASK='s/ +/ /g; s/[0-9]+(\.[0-9]+)? ?(ms|GFLOP\/s|%|x|KiB|MiB)//g; s/[0-9]+\.[0-9]+//g'
timed() { _masked=1; "$@"; _masked=; }
# chapter 8's narration says this build's vector width and register tile (the page's build is
# the portable one): its words are compared, its numbers and where its lines break not
numbers_aside() { _masked=2; "$@"; _masked=; }
timed same 8 "flash --quiet --dump" --quiet --seq-len 96 --dump d
timed same 8 "naive --quiet --causal" --quiet --impl naive --causal --seq-len 40
timed same 8 "fixtures --q --k --v --output" --quiet --q "$F/ch08/d64_q.npy" --k "$F/ch08/d64_k.npy" --v "$F/ch08/d64_v.npy" --output o.npy
same 8 "--impl fast" --impl fast
expect_status 2 "chapter 8: an unknown --impl"
numbers_aside same 8 "narration, numbers aside" --seq-len 32 --lang zh
timed same 12 "--dump" --quiet --dump d --causal
timed same 12 "narration, times aside" --seq-len 48
same 12 "no such flag" --bogus
expect_status 2 "chapter 12: an unknown flag"
# chapter 13: make web's checkpoint
C="--checkpoint $(pwd)/$M/tang.bin --tokenizer $(pwd)/$M/tang.tok"
# shellcheck disable=SC2086
same 13 "--tokens --dump" $C --tokens 3,1,4,1,5,9 --dump d
# shellcheck disable=SC2086
same 13 "--prompt --generate (greedy)" $C --prompt 床前明月光 --generate 12 --temperature 0
# shellcheck disable=SC2086
same 13 "--prompt --generate (sampled) --lang zh" $C --prompt 白日 --generate 12 --seed 4 --lang zh
same 13 "a checkpoint that is not there" --checkpoint missing.bin --tokens 1,2
same 13 "--generate without --prompt" --generate 3
# the page stays under 5 MB (chapter 13's checkpoint, build/web/model/, apart)
if [ -f build/web/index.html ]; then
    bytes=$(find build/web -type f ! -path 'build/web/model/*' -exec cat {} + | wc -c)
    _cmd="the page's size"
    if [ "$bytes" -lt 5000000 ]; then _ok; else _bad "build/web/ is $bytes bytes, over 5 MB"; fi
fi
finish
