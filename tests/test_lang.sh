#!/bin/sh
# test_lang.sh — the programs in two languages (common/program/lang.h):
# - for each chapter that narrates in Chinese, a run in English and the same
#   run with --lang zh carry the same numbers in the same order and the same
#   PyTorch lines and tensor printouts (tests/lang_skeleton.awk), and the
#   Chinese run (and its --help) has no line left in English
#   (tests/lang_english_lines.awk);
# - the language from the environment: LC_ALL, then LC_MESSAGES, then LANG
#   (the first set and not empty), "zh..." is Chinese; --lang wins over them;
#   `make chapterN LANG=zh_CN.UTF-8` and `make chapterN ARGS="--lang zh"`;
# - --lang with a bad or missing value is a usage error (exit 2, one line).
. tests/lib.sh
suite test_lang

ZH_CHAPTERS="0 1 2 3 4 5 6 7"   # the chapters whose narration is translated (their zh.c)

skeleton() { # FILE
    awk -f tests/lang_skeleton.awk "$1"
}

# same_but_words DESC ARGS...: the run in en and in zh, words removed, are the same
same_but_words() {
    desc=$1
    shift
    run "$@" --lang en
    expect_status 0 "$desc in English"
    skeleton "$TMP/out" > "$TMP/skel_en"
    cp "$TMP/out" "$TMP/run_en"
    run "$@" --lang zh
    expect_status 0 "$desc in Chinese"
    skeleton "$TMP/out" > "$TMP/skel_zh"
    if cmp -s "$TMP/skel_en" "$TMP/skel_zh"; then _ok; else
        _bad "$desc: the English and the Chinese run differ once the words are removed: $(diff "$TMP/skel_en" "$TMP/skel_zh" | head -8)"
    fi
    case " $* " in
        *" --quiet "*) ;; # results only: chapter 1's has no words, chapter 2's its table
        *) if ! cmp -s "$TMP/run_en" "$TMP/out"; then _ok; else _bad "$desc: the Chinese run is the English run"; fi ;;
    esac
    no_english_left "$desc --lang zh" "$TMP/out"
}

# Chapter 0 quotes PyTorch's RuntimeError and the library's view error, which stay
# English (an error keeps its operation, shapes and rule): those lines only.
ALLOW_QUOTED='size and stride|contiguous subspaces|reshape\(\.\.\.\) instead|is not contiguous; call|contiguous\(\) first \(or reshape\(\), which copies\)'

no_english_left() { # DESC FILE
    awk -v allow="$ALLOW_QUOTED" -f tests/lang_english_lines.awk "$2" > "$TMP/english"
    if [ -s "$TMP/english" ]; then
        _bad "$1: lines still in English: $(head -5 "$TMP/english")"
    else
        _ok
    fi
}

B=$BUILD
for n in $ZH_CHAPTERS; do
    same_but_words "chapter$n" "$B/chapter$n"
    [ "$n" -eq 0 ] || same_but_words "chapter$n --heatmap" "$B/chapter$n" --heatmap   # chapter 0 draws none
    run "$B/chapter$n" --help --lang zh
    expect_status 0 "chapter$n --help --lang zh"
    expect_out_contains "用法：chapter$n [参数]" "chapter$n --help --lang zh"
    no_english_left "chapter$n --help --lang zh" "$TMP/out"
done
same_but_words "chapter0 --quiet" "$B/chapter0" --quiet
same_but_words "chapter0 --batch 1 --seq-len 2 --d-in 4 --d-out 6 --heads 3" "$B/chapter0" --batch 1 --seq-len 2 \
    --d-in 4 --d-out 6 --heads 3
same_but_words "chapter0 --heads 1" "$B/chapter0" --heads 1
same_but_words "chapter1 --seq-len 4 --d-k 2" "$B/chapter1" --seq-len 4 --d-k 2
same_but_words "chapter1 --quiet" "$B/chapter1" --quiet
same_but_words "chapter2 --d-k 8" "$B/chapter2" --d-k 8
same_but_words "chapter2 --seq-len 3 --quiet" "$B/chapter2" --seq-len 3 --quiet
same_but_words "chapter3 --batch 2 --seq-len 4 --d-in 5 --d-out 3 --bias" "$B/chapter3" --batch 2 --seq-len 4 \
    --d-in 5 --d-out 3 --bias
same_but_words "chapter3 --quiet" "$B/chapter3" --quiet
same_but_words "chapter4 --no-causal" "$B/chapter4" --no-causal
same_but_words "chapter4 --no-causal --heatmap" "$B/chapter4" --no-causal --heatmap
same_but_words "chapter4 --max-seq-len 12 --seed 7" "$B/chapter4" --max-seq-len 12 --seed 7
same_but_words "chapter6 --eval" "$B/chapter6" --eval
same_but_words "chapter6 --dropout 0" "$B/chapter6" --dropout 0
same_but_words "chapter6 --dropout 1 --no-causal" "$B/chapter6" --dropout 1 --no-causal
same_but_words "chapter6 --seed 5 --dropout 0.5 --heatmap" "$B/chapter6" --seed 5 --dropout 0.5 --heatmap
same_but_words "chapter7 --eval --bias" "$B/chapter7" --eval --bias
same_but_words "chapter7 --resid-dropout --no-causal" "$B/chapter7" --resid-dropout --no-causal
same_but_words "chapter7 --d-in 8 --heads 4" "$B/chapter7" --d-in 8 --heads 4
same_but_words "chapter5 --no-causal --bias" "$B/chapter5" --no-causal --bias
same_but_words "chapter5 --batch 2 --seq-len 3 --d-in 4 --d-out 6 --heads 3" "$B/chapter5" --batch 2 --seq-len 3 \
    --d-in 4 --d-out 6 --heads 3
"$B/randnpy" 1 "$TMP/q.npy" 2 4 3 >/dev/null 2>&1 && "$B/randnpy" 2 "$TMP/k.npy" 2 5 3 >/dev/null 2>&1 &&
    "$B/randnpy" 3 "$TMP/v.npy" 2 5 2 >/dev/null 2>&1
if [ -f "$TMP/v.npy" ]; then
    same_but_words "chapter1 --q --k --v" "$B/chapter1" --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/v.npy"
    same_but_words "chapter4 --q --k --v" "$B/chapter4" --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" \
        --no-causal
    same_but_words "chapter2 --q --k --v --heatmap" "$B/chapter2" --q "$TMP/q.npy" --k "$TMP/k.npy" \
        --v "$TMP/v.npy" --heatmap
else
    _bad "randnpy wrote no q, k, v files"
fi
# chapter 3's --dump holds an input and weights for chapters 3 and 5 (d_out 4, 2 heads)
run "$B/chapter3" --quiet --d-in 6 --d-out 4 --seq-len 5 --dump "$TMP/w"
expect_status 0 "chapter3 --dump for the files runs"
same_but_words "chapter3 --input --weights" "$B/chapter3" --input "$TMP/w/x.npy" --weights "$TMP/w"
same_but_words "chapter5 --input --weights --batch 3" "$B/chapter5" --input "$TMP/w/x.npy" --weights "$TMP/w" \
    --batch 3

# ---- which language: --lang, else LC_ALL, LC_MESSAGES, LANG -----------------------
# lang_is en|zh DESC LC_ALL LC_MESSAGES LANG [FLAGS...]: --help's first line
lang_is() {
    want=$1 desc=$2
    LC_ALL=$3 LC_MESSAGES=$4 LANG=$5
    export LC_ALL LC_MESSAGES LANG
    shift 5
    run "$B/chapter1" --help "$@"
    LC_ALL=C LC_MESSAGES= LANG=
    expect_status 0 "$desc"
    case $want in
        zh) expect_out_contains "用法：chapter1" "$desc: Chinese" ;;
        en) expect_out_contains "usage: chapter1" "$desc: English" ;;
    esac
}
lang_is zh "LC_ALL=zh_CN.UTF-8 wins over LC_MESSAGES and LANG" zh_CN.UTF-8 C C
lang_is en "LC_ALL=C wins over LC_MESSAGES=zh and LANG=zh" C zh_CN.UTF-8 zh_CN.UTF-8
lang_is zh "LC_MESSAGES=zh_TW.UTF-8 wins over LANG=C" "" zh_TW.UTF-8 C
lang_is en "LC_MESSAGES=en_US.UTF-8 wins over LANG=zh" "" en_US.UTF-8 zh_CN.UTF-8
lang_is zh "LANG=zh_CN.UTF-8 alone" "" "" zh_CN.UTF-8
lang_is en "LANG=en_GB.UTF-8 alone" "" "" en_GB.UTF-8
lang_is en "nothing set" "" "" ""
lang_is en "--lang en wins over LC_ALL=zh" zh_CN.UTF-8 zh_CN.UTF-8 zh_CN.UTF-8 --lang en
lang_is zh "--lang zh wins over LC_ALL=C" C C C --lang zh
lang_is zh "--lang=zh" C C C --lang=zh
lang_is en "the last --lang wins" C C C --lang zh --lang en

# chapter 9 (MPI) in Chinese: its --help here, its narration in test_ch09_program.sh
if sanitized; then skip 2 "chapter 9 under ASan reports the MPI library's own leaks"
elif case "$RUNNER" in *valgrind*) true ;; *) false ;; esac; then
    skip 2 "chapter 9 under valgrind reports Open MPI's own memory, not chapter 9's"
else
    run "$B/chapter9" --help --lang zh
    expect_status 0 "chapter9 --help --lang zh"
    expect_out_contains "第 9 章：用 MPI 在多个进程上计算注意力" "chapter9 --help --lang zh is in Chinese"
fi
run "$B/chapter8" --quiet --lang zh
expect_status 0 "chapter8 --quiet --lang zh"

# make chapterN LANG=... and ARGS="--lang zh" (LC_ALL and LC_MESSAGES not set). make
# runs in a folder of its own beside the programs ($B/langtest, whose chapterN link to
# them), told never to remake them (-o): it neither rebuilds nor rewrites $B's flags.
unset LC_ALL LC_MESSAGES
L=$B/langtest
mkdir -p "$L"
ln -sf ../chapter1 "$L/chapter1"
ln -sf ../chapter2 "$L/chapter2"
run make -s --no-print-directory BUILD="$L" -o "$L/chapter1" chapter1 LANG=zh_CN.UTF-8
expect_status 0 "make chapter1 LANG=zh_CN.UTF-8"
expect_out_contains "第 1 章：点积注意力" "make chapter1 LANG=zh_CN.UTF-8"
run make -s --no-print-directory BUILD="$L" -o "$L/chapter2" chapter2 ARGS="--lang zh"
expect_out_contains "第 2 章：缩放点积注意力" "make chapter2 ARGS=\"--lang zh\""
run make -s --no-print-directory BUILD="$L" -o "$L/chapter2" chapter2 LANG=en_US.UTF-8
expect_out_contains "Chapter 2: scaled dot-product attention" "make chapter2 LANG=en_US.UTF-8"
rm -rf "$L"
LC_ALL=C
export LC_ALL

# ---- bad values ----------------------------------------------------------------------
run "$B/chapter1" --lang fr
expect_usage_error "--lang fr: must be en or zh" "--lang fr"
run "$B/chapter1" --lang
expect_usage_error "flag '--lang' needs a value" "--lang without a value"
run "$B/chapter1" --lang=
expect_usage_error "--lang '': must be en or zh" "--lang="
run "$B/chapter1" --lang zh_CN
expect_usage_error "--lang zh_CN: must be en or zh" "--lang zh_CN (a locale is not a --lang)"
run "$B/chapter2" --lang zh --seq-len 0
expect_usage_error "--seq-len 0：必须是 1 到 1000000 之间的整数" "a usage error in Chinese"
run "$B/chapter4" --lang xx
expect_usage_error "--lang xx: must be en or zh" "chapter4 --lang xx"


# ---- common/program's sentences: the memory refusal, the error word ---------------------
ATTN_MAX_BYTES=24G
export ATTN_MAX_BYTES
run "$B/chapter4" --max-seq-len 32000 --quiet --lang zh
expect_runtime_error "chapter4: 错误: 这次运行约需 26.7 GiB 内存" "the memory refusal in Chinese"
run "$B/chapter4" --max-seq-len 32000 --quiet
expect_runtime_error "chapter4: error: this run needs about 26.7 GiB of memory" "the memory refusal in English"
unset ATTN_MAX_BYTES
run "$B/chapter1" --q "$TMP/missing.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" --lang zh
expect_runtime_error "chapter1: 错误: " "a file error says 错误 in Chinese"

# the long-run notice (at a fixed rate: nothing is timed): wait for it, then stop the run
if [ -z "$RUNNER" ]; then
    "$B/chapter8" --quiet --seq-len 30000 --heads 2 --lang zh >/dev/null 2>"$TMP/longerr" &
    pid=$!
    while kill -0 $pid 2>/dev/null && ! grep -q "Ctrl-C" "$TMP/longerr" 2>/dev/null; do
        sleep 0.05
    done
    kill $pid 2>/dev/null
    wait $pid 2>/dev/null
    if grep -q "chapter8：这是一次长时间的运行：约 461 GFLOP，约需 58 秒（按本提示假定的 8 GFLOP/s 计）；Ctrl-C 可以停止它" \
        "$TMP/longerr"; then _ok; else _bad "the long-run notice in Chinese: $(head -n 1 "$TMP/longerr")"; fi
fi

finish
