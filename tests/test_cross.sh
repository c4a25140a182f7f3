#!/bin/sh
# test_cross.sh — the parts of make test-windows, test-arm64 and test-musl that
# can be checked here in a moment: a missing compiler is one sentence naming
# the Debian package (exit 1), a wrong system the usage (exit 2); and
# tests/cross_same.awk, which holds a printout from there against one from here.
. tests/lib.sh
suite test_cross

for sys in windows arm64 musl; do
    case $sys in
        windows) var=WINDOWS_CC pkg=gcc-mingw-w64-x86-64 ;;
        arm64) var=ARM64_CC pkg=gcc-aarch64-linux-gnu ;;
        musl) var=MUSL_CC pkg=musl-tools ;;
    esac
    # (without wine or qemu-aarch64 the sentence names that package instead)
    env "$var=no-such-cc-$$" sh tests/cross.sh "$sys" >"$TMP/out" 2>"$TMP/err"
    status=$?
    _cmd="$var=no-such-cc sh tests/cross.sh $sys"
    expect_status 1 "make test-$sys without its compiler"
    expect_one_line "make test-$sys without its compiler: one sentence"
    if _has "$pkg" "$TMP/err" || _has "wine64" "$TMP/err" || _has "qemu-user" "$TMP/err" || _has "libc6-dev-arm64-cross" "$TMP/err"; then _ok; else _bad "make test-$sys: the sentence names no Debian package"; fi
    expect_no_stdout "make test-$sys without its compiler: nothing on stdout"
done
sh tests/cross.sh plan9 >"$TMP/out" 2>"$TMP/err"
status=$?
_cmd="sh tests/cross.sh plan9"
expect_status 2 "an unknown system"
expect_err_contains "usage: sh tests/cross.sh windows|arm64|musl" "an unknown system: the usage"

# cross_same.awk: 0 when the same, 1 with the first difference
same() { # WANT(0|1) DESC [AWK FLAGS]
    _w=$1 _d=$2
    shift 2
    awk "$@" -f tests/cross_same.awk "$TMP/here" "$TMP/there" >"$TMP/out" 2>&1
    status=$?
    _cmd="awk -f tests/cross_same.awk here there ($_d)"
    expect_status "$_w" "$_d"
}
printf 'scores (2, 3):\n  [ 0.1235, -7.6561e-04]\nflash: 27.40 ms = 19.6 GFLOP/s = 7%% of the ceiling (5.91x)\n' >"$TMP/here"
cp "$TMP/here" "$TMP/there"
same 0 "the same printout"
printf 'scores (2, 3):\r\n  [ 0.1235,\n -7.6562e-04]\nflash: 823.29 ms = 0.7 GFLOP/s = 58%% of the ceiling (1.96x)\n' >"$TMP/there"
same 0 "the last digit, a line wrapped elsewhere, \\r\\n and the timings differ: the same"
printf 'scores (2, 3):\n  [ 0.1245, -7.6561e-04]\nflash: 27.40 ms = 19.6 GFLOP/s = 7%% of the ceiling (5.91x)\n' >"$TMP/there"
same 1 "a value 1e-3 off"
expect_out_contains "0.1235, here, 0.1245, there" "a value off: both named"
same 0 "a value 1e-3 off, words only" -v words_only=1
printf 'scores (3, 2):\n  [ 0.1235, -7.6561e-04]\nflash: 27.40 ms = 19.6 GFLOP/s = 7%% of the ceiling (5.91x)\n' >"$TMP/there"
same 1 "a shape differs"
printf 'weights (2, 3):\n  [ 0.1235, -7.6561e-04]\nflash: 27.40 ms = 19.6 GFLOP/s = 7%% of the ceiling (5.91x)\n' >"$TMP/there"
same 1 "a word differs"
expect_out_contains '"scores" here, "weights" there' "a word differs: both named"
printf 'scores (2, 3):\n  [ 0.1235, -7.6561e-04]\n' >"$TMP/there"
same 1 "a printout cut short"
finish
