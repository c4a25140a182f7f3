#!/bin/sh
# test_npyinfo.sh — the exit status and stderr contract of a program that
# reads .npy files, checked on the seed corpus tests/corpus/npy/.
#
#     sh tests/test_npyinfo.sh [build/npyinfo]      (from the repo root)
#
# Without an argument the program is $BUILD/npyinfo (BUILD defaults to build);
# it runs under $RUNNER when that is set (valgrind in make memcheck).
# valid_*.npy must load (exit 0, one line naming the file on stdout, nothing
# on stderr); every other corpus file must be refused with exit 1 and exactly
# one line on stderr that names the file; no file at all, or an unknown
# option, is a usage error (exit 2, one line on stderr), and so is a bad
# ATTN_MAX_BYTES; standard output that cannot be written (/dev/full, closed)
# is exit 1 and one line. --compare says whether two files are close (exit 0)
# or not (exit 1, one line). --lang zh (or a zh locale) says all of it in
# Chinese, as the chapters do. Then randnpy (the tests' random .npy maker, in
# chapter 8's README): a file all or nothing, its usage errors exit 2 with one
# line, a file it cannot write exit 1, --lang as npyinfo's.
# Prints one line per failing check and ends with
#     test_npyinfo: N passed, M failed
set -u
LC_ALL=C   # English unless a check asks for Chinese
export LC_ALL

prog=${1:-${BUILD:-build}/npyinfo}
corpus=${CORPUS:-tests/corpus/npy}
tmp=${TMPDIR:-/tmp}/test_npyinfo.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); printf '%s\n' "FAIL: $*"; }

# run ARGS...: runs the program, sets $status; its output in $tmp/out and $tmp/err
run() {
    ${RUNNER:-} "$prog" "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
}
# lines FILE: its number of lines in $n; has TEXT FILE: whether a line holds TEXT.
# The files are a line or two, read by the shell: no grep process for each of the
# hundreds of files
lines() {
    n=0
    while IFS= read -r _l || [ -n "$_l" ]; do n=$((n + 1)); done <"$1"
}
has() {
    _all=
    while IFS= read -r _l || [ -n "$_l" ]; do _all="$_all$_l
"; done <"$2"
    case $_all in *"$1"*) return 0 ;; esac
    return 1
}

if [ ! -x "$prog" ]; then
    fail "$prog is not an executable program"
    echo "test_npyinfo: $passed passed, $failed failed"
    exit 1
fi

found=0
for f in "$corpus"/*.npy; do
    [ -e "$f" ] || continue
    found=$((found + 1))
    run "$f"
    case ${f##*/} in
    valid_*)
        if [ "$status" -ne 0 ]; then
            fail "$f: exit status $status, expected 0 ($(head -n 1 "$tmp/err"))"
        elif lines "$tmp/out" && [ "$n" -ne 1 ] || ! has "$f: shape (" "$tmp/out"; then
            fail "$f: expected one line \"$f: shape (...), float32\" on stdout"
        elif [ -s "$tmp/err" ]; then
            fail "$f: loaded, but wrote on stderr: $(head -n 1 "$tmp/err")"
        else
            pass
        fi
        ;;
    *)
        if [ "$status" -ne 1 ]; then
            fail "$f: exit status $status, expected 1"
        elif lines "$tmp/err" && [ "$n" -ne 1 ]; then
            fail "$f: $n lines on stderr, expected exactly 1"
        elif ! has "$f" "$tmp/err"; then
            fail "$f: the stderr line does not name the file: $(cat "$tmp/err")"
        else
            pass
        fi
        ;;
    esac
done
if [ "$found" -lt 2 ]; then
    fail "no .npy files in $corpus"
fi

# a bad file after a good one: still exit 1 and one line on stderr
good=$corpus/valid_f4_2x3.npy
bad=$corpus/bad_truncated_data.npy
run "$good" "$bad"
if [ "$status" -eq 1 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; } && grep -F -q -- "$bad" "$tmp/err"; then
    pass
else
    fail "good then bad file: exit status $status, stderr: $(cat "$tmp/err")"
fi

# a file that does not exist
run "$tmp/no_such_file.npy"
if [ "$status" -eq 1 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; } && grep -F -q -- "no_such_file.npy" "$tmp/err"; then
    pass
else
    fail "missing file: exit status $status, stderr: $(cat "$tmp/err")"
fi

# --print shows the values (C order, even for the Fortran-order file)
run --print "$corpus/valid_fortran.npy"
if [ "$status" -eq 0 ] && grep -q '\[1\., 2\., 3\.\]' "$tmp/out" && grep -q '\[4\., 5\., 6\.\]' "$tmp/out"; then
    pass
else
    fail "--print valid_fortran.npy: expected rows [1., 2., 3.] and [4., 5., 6.], got: $(cat "$tmp/out")"
fi

# --compare: the Fortran-order file holds the same matrix as the C-order one
run --compare "$good" "$corpus/valid_fortran.npy" 0 0
if [ "$status" -eq 0 ] && [ ! -s "$tmp/err" ]; then pass; else
    fail "--compare of equal matrices: exit status $status, stderr: $(cat "$tmp/err")"; fi
# the same matrix with its last element 6.0 changed to 7.0 (float32 00 00 e0 40)
{ dd bs=1 count=148 < "$good" 2>/dev/null; printf '\000\000\340\100'; } > "$tmp/seven.npy"
run --compare "$tmp/seven.npy" "$good" 0 0.5
if [ "$status" -eq 1 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; } && grep -F -q "[1, 2]" "$tmp/err"; then pass; else
    fail "--compare of different matrices: exit status $status (expected 1), stderr: $(cat "$tmp/err")"; fi
run --compare "$tmp/seven.npy" "$good" 0 1.5
if [ "$status" -eq 0 ]; then pass; else
    fail "--compare within atol 1.5: exit status $status (expected 0), stderr: $(cat "$tmp/err")"; fi
run --compare "$good" "$corpus/valid_f8.npy"
if [ "$status" -eq 1 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; } && grep -F -q "(2, 3) vs (2, 2)" "$tmp/err"; then pass; else
    fail "--compare of different shapes: exit status $status (expected 1), stderr: $(cat "$tmp/err")"; fi
run --compare "$good" "$bad"
if [ "$status" -eq 1 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; } && grep -F -q -- "$bad" "$tmp/err"; then pass; else
    fail "--compare with a bad file: exit status $status (expected 1), stderr: $(cat "$tmp/err")"; fi
run --compare "$good" "$good" abc
if [ "$status" -eq 2 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; }; then pass; else
    fail "--compare with RTOL abc: exit status $status (expected 2), stderr: $(cat "$tmp/err")"; fi

# standard output that cannot be written: exit 1 and one sentence, never a silent success
if [ -w /dev/full ]; then
    ${RUNNER:-} "$prog" "$good" > /dev/full 2> "$tmp/err"
    status=$?
    if [ "$status" -eq 1 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; } && has "writing standard output" "$tmp/err"; then
        pass
    else
        fail "stdout on /dev/full: exit status $status (expected 1), stderr: $(cat "$tmp/err")"
    fi
    ${RUNNER:-} "$prog" --compare "$good" "$good" > /dev/full 2> "$tmp/err"
    status=$?
    if [ "$status" -eq 1 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; } && has "writing standard output" "$tmp/err"; then
        pass
    else
        fail "--compare with stdout on /dev/full: exit status $status (expected 1), stderr: $(cat "$tmp/err")"
    fi
fi
${RUNNER:-} "$prog" "$good" >&- 2> "$tmp/err"
status=$?
if [ "$status" -eq 1 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; } && has "writing standard output" "$tmp/err"; then
    pass
else
    fail "closed stdout: exit status $status (expected 1), stderr: $(cat "$tmp/err")"
fi

# a bad memory limit is a usage error, as in the chapter programs; a good one is used
ATTN_MAX_BYTES=garbage run "$good"
if [ "$status" -eq 2 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; } && has "ATTN_MAX_BYTES='garbage'" "$tmp/err" &&
    [ ! -s "$tmp/out" ]; then
    pass
else
    fail "ATTN_MAX_BYTES=garbage: exit status $status (expected 2), stderr: $(cat "$tmp/err")"
fi
ATTN_MAX_BYTES=16 run "$good"
if [ "$status" -eq 1 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; } && has "more than the limit of 16 bytes" "$tmp/err"; then
    pass
else
    fail "ATTN_MAX_BYTES=16: exit status $status (expected 1), stderr: $(cat "$tmp/err")"
fi

# usage errors: exit 2, one line on stderr
run
if [ "$status" -eq 2 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; }; then
    pass
else
    lines "$tmp/err"; fail "no arguments: exit status $status (expected 2), $n lines on stderr (expected 1)"
fi
run --no-such-option "$good"
if [ "$status" -eq 2 ] && { lines "$tmp/err" && [ "$n" -eq 1 ]; }; then
    pass
else
    lines "$tmp/err"; fail "unknown option: exit status $status (expected 2), $n lines on stderr (expected 1)"
fi
run --help
if [ "$status" -eq 0 ] && grep -q usage "$tmp/out"; then
    pass
else
    fail "--help: exit status $status (expected 0) and a usage text on stdout"
fi

# in Chinese: --lang zh, --lang=zh or the locale (LC_ALL first); --lang wins over the locale
verdict() { # DESC: pass when the condition just tested held ($? is 0)
    if [ $? -eq 0 ]; then pass; else fail "$1: exit status $status, stdout: $(cat "$tmp/out") stderr: $(cat "$tmp/err")"; fi
}
run --lang zh "$good"
[ "$status" -eq 0 ] && has "$good：形状 (2, 3)，float32" "$tmp/out"
verdict "--lang zh FILE: its shape in Chinese"
LC_ALL=zh_CN.UTF-8 run "$good"
[ "$status" -eq 0 ] && has "$good：形状 (2, 3)" "$tmp/out"
verdict "LC_ALL=zh_CN.UTF-8 FILE: Chinese"
LC_ALL=zh_CN.UTF-8 run --lang en "$good"
[ "$status" -eq 0 ] && has "$good: shape (2, 3), float32" "$tmp/out"
verdict "--lang en wins over a Chinese locale"
run --lang=zh "$bad"
[ "$status" -eq 1 ] && lines "$tmp/err" && [ "$n" -eq 1 ] && has "npyinfo：错误：$bad" "$tmp/err"
verdict "--lang=zh with a bad file: one Chinese sentence naming it, exit 1"
run --lang zh --compare "$tmp/seven.npy" "$good" 0 0.5
[ "$status" -eq 1 ] && lines "$tmp/err" && [ "$n" -eq 1 ] && has "不接近" "$tmp/err" && has "[1, 2]" "$tmp/err"
verdict "--lang zh --compare of different matrices: exit 1, in Chinese"
run --lang zh --compare "$good" "$good" abc
[ "$status" -eq 2 ] && has "RTOL 'abc' 不是 >= 0 的数" "$tmp/err"
verdict "--lang zh --compare RTOL abc: exit 2, in Chinese"
run --lang zh --help
[ "$status" -eq 0 ] && has "用法：npyinfo" "$tmp/out" && has "--lang" "$tmp/out"
verdict "--lang zh --help: the usage in Chinese"
run --lang zh
[ "$status" -eq 2 ] && lines "$tmp/err" && [ "$n" -eq 1 ] && has "没有给文件" "$tmp/err"
verdict "--lang zh and no file: exit 2, one Chinese line"
for l in "xx" ""; do
    run --lang "$l" "$good"
    [ "$status" -eq 2 ] && lines "$tmp/err" && [ "$n" -eq 1 ] && has "must be en or zh" "$tmp/err" && [ ! -s "$tmp/out" ]
    verdict "--lang '$l': exit 2, one line"
done
run "$good" --lang
[ "$status" -eq 2 ] && has "'--lang' needs a value" "$tmp/err"
verdict "--lang without a value: exit 2, one line"
run --lang zh -- "$good"
[ "$status" -eq 0 ] && has "$good：形状" "$tmp/out"
verdict "--lang zh -- FILE: the file after -- is read"

# ---- randnpy ----
rand=$(dirname "$prog")/randnpy
if [ -x "$rand" ]; then
    rrun() { ${RUNNER:-} "$rand" "$@" > "$tmp/out" 2> "$tmp/err"; status=$?; }
    rrun 7 "$tmp/r1.npy" 2 3 4
    [ "$status" -eq 0 ] && [ ! -s "$tmp/err" ] && "$prog" "$tmp/r1.npy" | grep -q "shape (2, 3, 4)"
    verdict "randnpy SEED FILE 2 3 4: a (2, 3, 4) file"
    rrun --lang zh 7 "$tmp/r2.npy" 2 3 4
    [ "$status" -eq 0 ] && cmp -s "$tmp/r1.npy" "$tmp/r2.npy"
    verdict "randnpy: the same seed, the same bytes (and --lang takes no part in them)"
    for args in "7 $tmp/r3.npy 2 x" "7 $tmp/r3.npy 0" "7 $tmp/r3.npy 100001" "abc $tmp/r3.npy 2" "--std 0 7 $tmp/r3.npy 2" \
        "--std x 7 $tmp/r3.npy 2" "7 $tmp/r3.npy" "7 $tmp/r3.npy 1 1 1 1 1 1 1 1 1" "--lang xx 7 $tmp/r3.npy 2" \
        "7 $tmp/r3.npy 2 --lang"; do
        # shellcheck disable=SC2086
        rrun $args
        [ "$status" -eq 2 ] && lines "$tmp/err" && [ "$n" -eq 1 ] && [ ! -e "$tmp/r3.npy" ]
        verdict "randnpy $args: exit 2, one line, no file"
    done
    rrun --lang zh 7 "$tmp/r3.npy" 2 x
    [ "$status" -eq 2 ] && has "randnpy：大小 'x' 不是 1 到 100000 之间的数" "$tmp/err"
    verdict "randnpy --lang zh with a bad size: the sentence in Chinese"
    LC_ALL=zh_CN.UTF-8 rrun 7 "$tmp/r3.npy"
    [ "$status" -eq 2 ] && has "用法：randnpy" "$tmp/err"
    verdict "randnpy in a Chinese locale, too few arguments: the usage in Chinese"
    rrun 7 "$tmp/no/such/dir/r.npy" 2
    [ "$status" -eq 1 ] && lines "$tmp/err" && [ "$n" -eq 1 ] && has "$tmp/no/such/dir/r.npy" "$tmp/err"
    verdict "randnpy into a missing folder: exit 1, one line naming the file"
else
    fail "$rand is not an executable program"
fi

echo "test_npyinfo: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
