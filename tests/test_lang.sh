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

ZH_CHAPTERS="0 1 2 3 4 5 6 7 11"   # translated (their zh.c), the same checks; 8, 10 and 12 below

# SKEL_TIMED=1: chapters 8 and 12 time themselves; their skeleton leaves out what a clock gives
skeleton() { # FILE
    awk -v timed="${SKEL_TIMED:-0}" -f tests/lang_skeleton.awk "$1"
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
# English (an error keeps its operation, shapes and rule): those lines only. Chapter 11's
# tables of bytes (rows of T or a model's name, then sizes in KiB/MiB/GiB) have no words.
ALLOW_QUOTED='size and stride|contiguous subspaces|reshape\(\.\.\.\) instead|is not contiguous; call|contiguous\(\) first \(or reshape\(\), which copies\)|^    (T = +[0-9]+|LLaMA2-70?B) +[0-9.]+ [KMG]iB +[0-9.]+ [KMG]iB +[0-9.]+ [KMG]iB$'
# Chapter 8's table rows are a version's name and numbers (its units KiB, MiB); chapter
# 10's last line is the contract `--train ends with final accuracy: A%` (tools read it).
ALLOW_QUOTED="$ALLOW_QUOTED"'|^    (reference|naive|reordered|tiled|online|flash) +[0-9]|^final accuracy: [0-9.]+%$'

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
    case $n in 0 | 11) ;; *) same_but_words "chapter$n --heatmap" "$B/chapter$n" --heatmap ;; esac  # 0, 11 draw none
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
same_but_words "chapter7 --happy-llm" "$B/chapter7" --happy-llm
same_but_words "chapter11 --decode 2" "$B/chapter11" --decode 2
same_but_words "chapter11 --prefill-chunk 2 --decode 1" "$B/chapter11" --prefill-chunk 2 --decode 1
same_but_words "chapter11 --n-kv-heads 4 --eval" "$B/chapter11" --n-kv-heads 4 --eval
same_but_words "chapter11 --n-kv-heads 1 --batch 1 --seq-len 4" "$B/chapter11" --n-kv-heads 1 --batch 1 --seq-len 4
same_but_words "chapter5 --no-causal --bias" "$B/chapter5" --no-causal --bias
same_but_words "chapter5 --batch 2 --seq-len 3 --d-in 4 --d-out 6 --heads 3" "$B/chapter5" --batch 2 --seq-len 3 \
    --d-in 4 --d-out 6 --heads 3
"$B/randnpy" 1 "$TMP/q.npy" 2 4 3 >/dev/null 2>&1 && "$B/randnpy" 2 "$TMP/k.npy" 2 5 3 >/dev/null 2>&1 &&
    "$B/randnpy" 3 "$TMP/v.npy" 2 5 2 >/dev/null 2>&1
if [ -f "$TMP/v.npy" ]; then
    same_but_words "chapter1 --q --k --v" "$B/chapter1" --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/v.npy"
    same_but_words "chapter4 --q --k --v" "$B/chapter4" --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" \
        --no-causal
    same_but_words "chapter4 --q --k --v, causal" "$B/chapter4" --q "$TMP/q.npy" --k "$TMP/q.npy" --v "$TMP/q.npy"
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

# chapter 13 on the PyTorch fixtures' checkpoints (its default run trains for minutes)
F13=${FIXTURES:-tests/fixtures}/ch13
run "$B/chapter13" --help --lang zh
expect_status 0 "chapter13 --help --lang zh"
expect_out_contains "用法：chapter13 [参数]" "chapter13 --help --lang zh"
no_english_left "chapter13 --help --lang zh" "$TMP/out"
same_but_words "chapter13 --checkpoint --tokens" "$B/chapter13" --checkpoint "$F13/gqa_unshared/model.bin" --tokens 1,2,3
same_but_words "chapter13 --checkpoint --batch-tokens" "$B/chapter13" --checkpoint "$F13/mqa_shared/model.bin" \
    --batch-tokens "$F13/mqa_shared/batch.npy"

# chapters 8, 10 and 12 (small sizes: chapter 8 times every version, chapter 12 both backwards)
for n in 8 10 12; do
    run "$B/chapter$n" --help --lang zh
    expect_status 0 "chapter$n --help --lang zh"
    expect_out_contains "用法：chapter$n [参数]" "chapter$n --help --lang zh"
    no_english_left "chapter$n --help --lang zh" "$TMP/out"
done
SKEL_TIMED=1
same_but_words "chapter8 --seq-len 64 --heads 2" "$B/chapter8" --seq-len 64 --heads 2
same_but_words "chapter8 --seq-len 70 --heads 1 --causal" "$B/chapter8" --seq-len 70 --heads 1 --causal
same_but_words "chapter8 --quiet --impl tiled" "$B/chapter8" --seq-len 32 --heads 1 --quiet --impl tiled
same_but_words "chapter12 --seq-len 40" "$B/chapter12" --seq-len 40
same_but_words "chapter12 --seq-len 70 --causal --d-k 8" "$B/chapter12" --seq-len 70 --causal --d-k 8
same_but_words "chapter12 --quiet --impl reference" "$B/chapter12" --seq-len 20 --quiet --impl reference
SKEL_TIMED=0
same_but_words "chapter10" "$B/chapter10"
same_but_words "chapter10 --no-causal --bias --heatmap" "$B/chapter10" --no-causal --bias --heatmap
same_but_words "chapter10 --train --steps 20" "$B/chapter10" --train --steps 20
# chapter 7's --dump holds x and wq wk wv wo bo for chapter 10's files (B 3, T 5, d_out 8)
run "$B/chapter7" --quiet --eval --dump "$TMP/w7"
expect_status 0 "chapter7 --dump for chapter 10's files runs"
"$B/randnpy" 4 "$TMP/dy.npy" 3 5 8 >/dev/null 2>&1
same_but_words "chapter10 --input --weights --eval" "$B/chapter10" --input "$TMP/w7/x.npy" --weights "$TMP/w7" \
    --eval
same_but_words "chapter10 --input --weights --grad-output" "$B/chapter10" --input "$TMP/w7/x.npy" \
    --weights "$TMP/w7" --grad-output "$TMP/dy.npy"

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
if [ ! -x "$B/chapter9" ]; then skip 2 "chapter9 --help --lang zh: build/chapter9 was not built (MPI is not installed)"
elif sanitized; then skip 2 "chapter 9 under ASan reports the MPI library's own leaks"
elif case "$RUNNER" in *valgrind*) true ;; *) false ;; esac; then
    skip 2 "chapter 9 under valgrind reports Open MPI's own memory, not chapter 9's"
else
    run "$B/chapter9" --help --lang zh
    expect_status 0 "chapter9 --help --lang zh"
    expect_out_contains "第 9 章：用 MPI 在多个进程上计算注意力" "chapter9 --help --lang zh is in Chinese"
fi

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

# ---- one glossary: a term is never translated two ways ---------------------------------
# docs/GLOSSARY.md's last column names the other translations of each term; none of them
# appears in a README.zh-CN (chapters', the top one, docs') or in a zh.c table.
LC_ALL=C awk -F '|' 'NF >= 6 && $2 !~ /English|---/ {
        n = split($5, w, /\343\200\201/)   # the list is separated by "、"
        for (i = 1; i <= n; i++) { gsub(/^ +| +$/, "", w[i]); if (w[i] != "") print w[i] }
    }' docs/GLOSSARY.md > "$TMP/never"
if [ "$(grep -c '' "$TMP/never")" -ge 20 ]; then _ok; else _bad "docs/GLOSSARY.md: its last column names $(grep -c '' "$TMP/never") variants, expected at least 20"; fi
: > "$TMP/twice"
while IFS= read -r w; do
    grep -n -F -- "$w" README.zh-CN.md chapters/*/README.zh-CN.md docs/*.zh-CN.md common/program/lang_zh.c \
        chapters/*/zh.c 2>/dev/null | sed "s|^|$w: |" >> "$TMP/twice"
done < "$TMP/never"
if [ -s "$TMP/twice" ]; then _bad "a glossary term translated another way: $(head -5 "$TMP/twice")"; else _ok; fi
# the check itself finds a variant
printf '这里的掩膜\n' > "$TMP/variant.md"
if grep -q -F -f "$TMP/never" "$TMP/variant.md"; then _ok; else _bad "the glossary check misses 掩膜"; fi

# ---- 查询、键、KV 缓存, not query, key, KV cache, in Chinese prose -----------------------------
# docs/GLOSSARY.md: Chinese prose writes 查询 / 键 / KV 缓存; the English words are code (`query`,
# `key.transpose(-2, -1)`) or a transcript. READMEs only, outside code blocks, indented code and
# `spans` (the zh.c tables name the variables query, key and value of Happy-LLM's attention()).
LC_ALL=C awk '
    FNR == 1 { code = 0 }
    /^ *```/ { code = !code; next }
    code || /^    / { next }
    { t = $0; gsub(/`[^`]*`/, "", t); gsub(/\]\([^)]*\)/, "", t)
      if (t ~ /(^|[^A-Za-z_-])([Qq]uer(y|ies)|[Kk]eys?|KV cache)([^A-Za-z_-]|$)/) print FILENAME ":" FNR ": " $0 }' \
    README.zh-CN.md chapters/*/README.zh-CN.md docs/*.zh-CN.md > "$TMP/qk_words"
if [ -s "$TMP/qk_words" ]; then _bad "query/key/KV cache where Chinese writes 查询/键/KV 缓存: $(head -3 "$TMP/qk_words")"; else _ok; fi
printf '每个 query 对 S 个 key\n' > "$TMP/qk.md"
if LC_ALL=C awk '{ if ($0 ~ /(^|[^A-Za-z_-])([Qq]uer(y|ies)|[Kk]eys?|KV cache)([^A-Za-z_-]|$)/) f = 1 } END { exit !f }' "$TMP/qk.md"; then _ok; else
    _bad "the 查询/键 check misses query"; fi

# ---- 头, not head, in Chinese prose --------------------------------------------------------
# docs/GLOSSARY.md: Chinese prose writes 头 / 头数; head is code (`head_dim`, `--parallel heads`,
# `n_heads`) or a transcript (a heatmap's "batch 0, head 1"). READMEs only, outside code blocks,
# indented code, `spans` and link targets; a picture's alt text is prose.
zh_head_words() { # FILE...
    LC_ALL=C awk '
        FNR == 1 { code = 0 }
        /^ *```/ { code = !code; next }
        code || /^    / { next }
        { t = $0; gsub(/`[^`]*`/, "", t); gsub(/\]\([^)]*\)/, "", t)
          if (t ~ /(^|[^A-Za-z_-])[Hh]eads?([^A-Za-z_-]|$)/) print FILENAME ":" FNR ": " $0 }' "$@"
}
zh_head_words README.zh-CN.md chapters/*/README.zh-CN.md docs/*.zh-CN.md > "$TMP/head_words"
if [ -s "$TMP/head_words" ]; then _bad "head where Chinese writes 头: $(head -3 "$TMP/head_words")"; else _ok; fi
# the check finds head in prose, in a table cell and in alt text, and not in code
printf '每个 head 一张图\n| heads | 按头切分 |\n![One heatmap per head](x.png)\n' > "$TMP/head.md"
if [ "$(zh_head_words "$TMP/head.md" | grep -c '')" -eq 3 ]; then _ok; else
    _bad "the 头 check misses head: $(zh_head_words "$TMP/head.md")"; fi
printf '`--parallel heads`、`head_dim` 和 `n_heads`\n    make chapter5 ARGS="--heads 4"\n```console\nbatch 0, head 1\n```\n[第 5 章](../05_multi_head/)\n' > "$TMP/head_code.md"
if [ -z "$(zh_head_words "$TMP/head_code.md")" ]; then _ok; else
    _bad "the 头 check flags code: $(zh_head_words "$TMP/head_code.md")"; fi

# ---- 词元, not token, in Chinese prose -------------------------------------------------
# The word token is code (`n_tokens`, a PyTorch line) or English; Chinese prose writes 词元
# (docs/GLOSSARY.md). READMEs: outside code blocks and `spans`; zh.c: the Chinese halves
# (a line with Chinese in it, after the pair's ", " when the English shares the line).
# Two English terms keep the word: "token bucket filter" and "C 语言的 token"; a flag's name
# (--tokens, --batch-tokens) and a file's name (tokens.npy) are code.
LC_ALL=C awk '
    FNR == 1 { code = 0 }
    /^ *```/ { code = !code; next }
    code || /^    / { next }
    { t = $0; gsub(/`[^`]*`/, "", t); gsub(/token bucket filter|C 语言的 token|tokens?\.npy/, "", t)
      if (t ~ /(^|[^A-Za-z_-])[Tt]okens?([^A-Za-z_]|$)/) print FILENAME ":" FNR ": " $0 }' \
    README.zh-CN.md chapters/*/README.zh-CN.md docs/*.zh-CN.md > "$TMP/token_words"
LC_ALL=C awk '
    { t = $0; if (t ~ /^ *\{"/ && index(t, "\", \"")) { while (i = index(t, "\", \"")) t = substr(t, i + 4) }
      gsub(/tokens?\.npy/, "", t)
      if (t ~ /[\343-\351]/ && t ~ /(^|[^A-Za-z_-])[Tt]okens?([^A-Za-z_]|$)/) print FILENAME ":" FNR ": " $0 }' \
    chapters/*/zh.c common/program/lang_zh.c >> "$TMP/token_words"
if [ -s "$TMP/token_words" ]; then _bad "token where Chinese writes 词元: $(head -3 "$TMP/token_words")"; else _ok; fi
printf '每个 token 一个向量\n' > "$TMP/token.md"
if LC_ALL=C awk '{ if ($0 ~ /(^|[^A-Za-z_])[Tt]okens?([^A-Za-z_]|$)/) f = 1 } END { exit !f }' "$TMP/token.md"; then _ok; else
    _bad "the 词元 check misses token"; fi

# ---- Chinese quotes in Chinese prose ------------------------------------------------------
# Outside code blocks and `spans`, a README.zh-CN quotes with “” (docs/GLOSSARY.md): no ASCII
# double quote touches a Chinese character.
zh_ascii_quotes() { # FILE...
    LC_ALL=C awk '
        FNR == 1 { code = 0 }
        /^ *```/ { code = !code; next }
        code || /^    / { next }
        { t = $0; gsub(/`[^`]*`/, "", t)
          if (t ~ /[\344-\351][\200-\277][\200-\277]"|"[\344-\351]/) print FILENAME ":" FNR ": " $0 }' "$@"
}
zh_ascii_quotes README.zh-CN.md chapters/*/README.zh-CN.md docs/*.zh-CN.md > "$TMP/ascii_quotes"
if [ -s "$TMP/ascii_quotes" ]; then _bad "ASCII quotes in Chinese prose: $(head -3 "$TMP/ascii_quotes")"; else _ok; fi
printf '可以把 xq 理解为"这个词元在找什么"\n' > "$TMP/quotes.md"
if [ -n "$(zh_ascii_quotes "$TMP/quotes.md")" ]; then _ok; else _bad "the quote check misses \"这个词元\""; fi

# ---- a Chinese README shows Chinese runs ------------------------------------------------
# Every program run in a console block of a README.zh-CN (or docs/*.zh-CN.md) is a Chinese run
# (--lang zh) or says it is not (LC_ALL=C). (A make bench printout is a table tools read: it
# stays English, and no build/chapterN command begins its block.)
LC_ALL=C awk '/^ *```console/ { c = 1; next } /^ *```/ { c = 0 }
    c && /^ *\$ / && /build\/chapter[0-9]/ && !/--lang zh/ && !/LC_ALL=C/ { print FILENAME ":" FNR ": " $0 }' \
    README.zh-CN.md chapters/*/README.zh-CN.md docs/*.zh-CN.md > "$TMP/en_runs"
if [ -s "$TMP/en_runs" ]; then _bad "English runs in a Chinese README: $(head -3 "$TMP/en_runs")"; else _ok; fi
# the check itself finds one
printf '```console\n$ build/chapter3 --quiet\n```\n' > "$TMP/en_run.md"
if LC_ALL=C awk '/^ *```console/ { c = 1; next } /^ *```/ { c = 0 }
    c && /^ *\$ / && /build\/chapter[0-9]/ && !/--lang zh/ && !/LC_ALL=C/ { found = 1 } END { exit !found }' \
    "$TMP/en_run.md"; then _ok; else _bad "the Chinese-run check misses an English run"; fi

# ---- make hint and the handout's README in Chinese ---------------------------------------
# (make and the shell scripts are not this project's programs: never under $RUNNER)
run_tool() {
    "$@" >"$TMP/out" 2>"$TMP/err"
    status=$?
    _cmd="$*"
}
# Every blank of every chapter has its tier 1 and tier 2 in Chinese (hint_zh,
# helpers_zh) with a Chinese character in each.
for m in chapters/[0-9][0-9]_*/blanks.txt; do
    LC_ALL=C awk -v m="$m" '
        function done_stanza() {
            if (name == "") return
            if (!has["hint_zh"]) printf "%s: [%s] has no hint_zh\n", m, name
            if (has["helpers"] && !has["helpers_zh"]) printf "%s: [%s] has helpers but no helpers_zh\n", m, name
            split("", has)
        }
        /^\[/ { done_stanza(); name = $0; next }
        /^[a-z_]+ *=/ { k = $0; sub(/ *=.*/, "", k); has[k] = 1
                        if (k ~ /_zh$/ && $0 !~ /[\343-\351]/) printf "%s: [%s] %s has no Chinese\n", m, name, k }
        END { done_stanza() }' "$m" >> "$TMP/no_zh"
done
if [ -s "$TMP/no_zh" ]; then _bad "blanks without their Chinese tiers: $(head -5 "$TMP/no_zh")"; else _ok; fi
unset LC_ALL LC_MESSAGES
run_tool make -s --no-print-directory hint BLANK=scale TIER=1 LANG=zh_CN.UTF-8
expect_status 0 "make hint BLANK=scale TIER=1 LANG=zh_CN.UTF-8"
expect_out_contains "scale（第 1 级，1 分，第 2 章）：chapters/02_scaling/scaling.c:" "make hint in Chinese: its first line"
expect_out_contains "提示 1/3（思路）：d_k 个随机数的点积随 d_k 变大" "make hint in Chinese: tier 1 from hint_zh"
expect_out_contains "更多：make hint BLANK=scale TIER=2" "make hint in Chinese: the next tier"
run_tool make -s --no-print-directory hint BLANK=naive_softmax TIER=2 LANG=zh_CN.UTF-8
expect_out_contains "提示 2/3（用哪些函数）：t_exp、t_sum_last（按行求和）、t_unsqueeze（保留被求和的那一维，以便广播）、t_div。" \
    "make hint TIER=2 in Chinese: helpers_zh, its continuation lines joined without a space"
run_tool make -s --no-print-directory hint BLANK=scale TIER=3 LANG=zh_CN.UTF-8
expect_out_contains "提示 3/3（对应的 PyTorch 代码）：scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)" \
    "make hint TIER=3 in Chinese: the PyTorch line as it is"
run_tool make -s --no-print-directory hint BLANK=scale TIER=1 LANG=en_US.UTF-8
expect_out_contains "hint 1 of 3 (the idea): Dot products of d_k random numbers" "make hint in English"
LC_ALL=C
export LC_ALL
run_tool make -s --no-print-directory hint BLANK=scale LANG=zh_CN.UTF-8
expect_out_contains "hint 1 of 3 (the idea)" "make hint: LC_ALL=C wins over LANG=zh"
unset LC_ALL
run_tool make -s --no-print-directory hint BLANK=scale TIER=4 LANG=zh_CN.UTF-8
expect_status 2 "make hint TIER=4 in Chinese"
expect_err_contains "TIER=4：提示的层级必须是 1（思路）、2（用哪些函数）或 3（对应的 PyTorch 代码）" "make hint's tier error in Chinese"
run_tool make -s --no-print-directory hint BLANK=no_such_blank LANG=zh_CN.UTF-8
expect_err_contains "make hint：没有名为 'no_such_blank' 的空" "make hint's unknown blank in Chinese"

# make exercises: README-EXERCISES.zh-CN.md beside README-EXERCISES.md, and make hint in
# the handout (from its manifest) in Chinese
run_tool make -s --no-print-directory exercises EXERCISES_DIR="$TMP/ex" LEVEL=1 CHAPTERS=2,4
expect_status 0 "make exercises for the Chinese README"
if grep -q "^| 2 | \`scale\` | 1 | 1 | chapters/02_scaling/scaling.c:[0-9]* | d_k 个随机数的点积随 d_k 变大" \
    "$TMP/ex/README-EXERCISES.zh-CN.md" && grep -q "^# 练习：填空" "$TMP/ex/README-EXERCISES.zh-CN.md" &&
    grep -q "第 2、4 章" "$TMP/ex/README-EXERCISES.zh-CN.md"; then _ok; else
    _bad "README-EXERCISES.zh-CN.md: no Chinese title, chapters or scale row: $(head -c 600 "$TMP/ex/README-EXERCISES.zh-CN.md" 2>&1)"
fi
if grep -q "README-EXERCISES.zh-CN.md" "$TMP/ex/README-EXERCISES.md"; then _ok; else
    _bad "README-EXERCISES.md does not point to the Chinese one"
fi
n_en=$(grep -c '^| [0-9]' "$TMP/ex/README-EXERCISES.md")
n_zh=$(grep -c '^| [0-9]' "$TMP/ex/README-EXERCISES.zh-CN.md")
if [ "$n_en" -gt 0 ] && [ "$n_en" = "$n_zh" ]; then _ok; else _bad "the blanks' tables: $n_en rows in English, $n_zh in Chinese"; fi
run_tool make -s --no-print-directory -C "$TMP/ex" hint BLANK=mask_diagonal TIER=2 LANG=zh_CN.UTF-8
expect_out_contains "提示 2/3（用哪些函数）：t_triu（它的 diagonal 参数就是本函数的 diagonal）。" "make hint in a handout, in Chinese"
rm -rf "$TMP/ex"
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
expect_runtime_error "chapter4：错误：这次运行约需 26.7 GiB 内存" "the memory refusal in Chinese"
run "$B/chapter4" --max-seq-len 32000 --quiet
expect_runtime_error "chapter4: error: this run needs about 26.7 GiB of memory (the max_seq_len x max_seq_len mask buffers)" \
    "the memory refusal's buffer named in English"
run "$B/chapter4" --max-seq-len 32000 --quiet --lang zh
expect_runtime_error "（max_seq_len x max_seq_len 的掩码缓冲区）" "the memory refusal's buffer named in Chinese"
ATTN_MAX_BYTES=1M
run "$B/chapter5" --seq-len 2000 --quiet --lang zh
expect_runtime_error "multi-head attention：注意力分数 (1, 2, 2000, 2000) 需要 30.5 MiB 的 float32，超过了 1.0 MiB 的上限" \
    "chapter 5's scores refusal in Chinese"
unset ATTN_MAX_BYTES
ATTN_MAX_BYTES=100M
export ATTN_MAX_BYTES
run "$B/chapter5" --seq-len 2000 --batch 2 --lang zh
expect_runtime_error "请调小 --seq-len 或 --batch，或调大 ATTN_MAX_BYTES" "the memory refusal's flags in Chinese"
run "$B/chapter7" --d-in 10 --d-out 6000 --lang zh
expect_runtime_error "（权重 wq、wk、wv (d_out, d_in) 和 wo (d_out, d_out)，d_in = 10，d_out = 6000）" \
    "the memory refusal names the weights in Chinese"
expect_err_contains "请调小 --d-in 或 --d-out" "the weights' flags in Chinese"
"$B/randnpy" 1 "$TMP/q2048.npy" 2048 1 >/dev/null 2>&1
run "$B/chapter4" --q "$TMP/q2048.npy" --k "$TMP/q2048.npy" --v "$TMP/q2048.npy" --quiet --lang zh
expect_runtime_error "请调小 --q/--k/--v 的大小，或调大 ATTN_MAX_BYTES" "chapter 4's memory refusal of files in Chinese"
unset ATTN_MAX_BYTES
run "$B/chapter4" --max-seq-len 4 --lang zh
expect_usage_error "chapter4：--max-seq-len 4：序列长度 6 超过了因果掩码缓冲区的大小 max_seq_len 4" \
    "the mask buffer's sentence in Chinese"
run "$B/chapter4" --q "$TMP/q.npy" --k "$TMP/v.npy" --v "$TMP/v.npy" --lang zh
expect_runtime_error "--q $TMP/q.npy (2, 4, 3) 和 --k $TMP/v.npy (2, 5, 2) 的最后一维 d_k 必须相同：3 != 2" \
    "chapter 4's shape errors in Chinese, naming the files"
expect_no_stdout "chapter 4's shape errors: before the title"
# chapters 1, 2 and 12 check their --q, --k and --v as chapter 4 does: before any output, naming the files
"$B/randnpy" 4 "$TMP/q1d.npy" 8 >/dev/null 2>&1
for n in 1 2 12; do
    run "$B/chapter$n" --q "$TMP/q.npy" --k "$TMP/v.npy" --v "$TMP/v.npy" --lang zh
    expect_runtime_error "chapter$n：错误：--q $TMP/q.npy (2, 4, 3) 和 --k $TMP/v.npy (2, 5, 2) 的最后一维 d_k 必须相同：3 != 2" \
        "chapter $n's query and key of different d_k, in Chinese, naming the files"
    expect_no_stdout "chapter $n's query and key of different d_k: before the title"
    run "$B/chapter$n" --q "$TMP/q1d.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" --lang zh
    expect_runtime_error "chapter$n：错误：--q $TMP/q1d.npy 的形状是 (8,)：它至少要有 2 维，即 (..., T, d_k)" \
        "chapter $n's 1-D --q, in Chinese"
    expect_no_stdout "chapter $n's 1-D --q: before the title"
    run "$B/chapter$n" --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/q.npy" --lang zh
    expect_runtime_error "--k $TMP/k.npy (2, 5, 3) 和 --v $TMP/q.npy (2, 4, 3) 的长度 S（倒数第 2 维）必须相同：5 != 4" \
        "chapter $n's key and value of different lengths, in Chinese"
    expect_no_stdout "chapter $n's key and value of different lengths: before the title"
done
# chapter 12's own rules on the files (no broadcast in the backward; --grad-output the output's shape)
"$B/randnpy" 5 "$TMP/k15.npy" 1 5 3 >/dev/null 2>&1 && "$B/randnpy" 6 "$TMP/v15.npy" 1 5 2 >/dev/null 2>&1
run "$B/chapter12" --q "$TMP/q.npy" --k "$TMP/k15.npy" --v "$TMP/v15.npy" --lang zh
expect_runtime_error "chapter12：错误：--q $TMP/q.npy (2, 4, 3)、--k $TMP/k15.npy (1, 5, 3) 和 --v $TMP/v15.npy (1, 5, 2) 的前面几维必须相同" \
    "chapter 12's leading dims that differ, in Chinese, naming the files"
expect_no_stdout "chapter 12's leading dims that differ: before the title"
run "$B/chapter12" --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" --grad-output "$TMP/k.npy" --lang zh
expect_runtime_error "chapter12：错误：--grad-output $TMP/k.npy (2, 5, 3) 必须和输出的形状 (2, 4, 2) (..., T, d_v) 相同" \
    "chapter 12's --grad-output of the wrong shape, in Chinese, naming the file"
expect_no_stdout "chapter 12's --grad-output of the wrong shape: before the title"
run "$B/chapter12" --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" --causal --lang zh
expect_runtime_error "chapter12：错误：--q $TMP/q.npy (2, 4, 3) 和 --k $TMP/k.npy (2, 5, 3) 的 T 4 != S 5，但因果掩码需要 T == S" \
    "chapter 12's causal T != S, in Chinese, naming the files"
run "$B/chapter1" --q "$TMP/missing.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" --lang zh
expect_runtime_error "chapter1：错误：$TMP/missing.npy: 无法打开文件：没有这个文件或文件夹" "a missing file in Chinese"
run "$B/chapter1" --q "$TMP/missing.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" --lang en
expect_runtime_error "chapter1: error: $TMP/missing.npy: cannot open the file: No such file or directory" \
    "a missing file in English"

# ---- the first sentence of the errors a student triggers from files and folders -------
printf 'not numpy\n' > "$TMP/junk.npy"
mkdir -p "$TMP/folder" "$TMP/empty_weights"
run "$B/chapter2" --q "$TMP/junk.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" --lang zh
expect_runtime_error "$TMP/junk.npy: 不是 .npy 文件（开头的魔数不对）" "not a .npy file, in Chinese"
run "$B/chapter4" --q "$TMP/folder" --k "$TMP/k.npy" --v "$TMP/v.npy" --lang zh
expect_runtime_error "$TMP/folder: 是文件夹，不是 .npy 文件" "a folder for a .npy file, in Chinese"
"$B/randnpy" 5 "$TMP/short.npy" 2 3 >/dev/null 2>&1 &&
    head -c $(($(wc -c < "$TMP/short.npy") - 4)) "$TMP/short.npy" > "$TMP/cut.npy"   # 4 bytes short
run "$B/chapter1" --q "$TMP/cut.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" --lang zh
expect_runtime_error "$TMP/cut.npy: 数据不完整：形状 (2, 3) 需要 24 字节的 float32 数据，文件里有 20 字节" \
    "a cut file, in Chinese"
run "$B/chapter3" --input "$TMP/w/x.npy" --weights "$TMP/empty_weights" --lang zh
expect_runtime_error "权重文件夹 '$TMP/empty_weights' 里没有 wq.npy" "a weights folder without wq.npy, in Chinese"
run "$B/chapter5" --input "$TMP/w/x.npy" --weights "$TMP/nowhere" --lang zh
expect_runtime_error "权重文件夹 '$TMP/nowhere' 里没有 wq.npy：文件夹不存在" "a missing weights folder, in Chinese"
run "$B/chapter3" --input "$TMP/q.npy" --weights "$TMP/w" --lang zh
expect_runtime_error "$TMP/w/wq.npy 的形状是 (4, 6)，但输入的 d_in = 3：应为 (d_out, 3)" "a weight of the wrong width, in Chinese"
expect_no_stdout "a weight of the wrong width: said before the title"
# chapters 3, 5, 6, 7 and 10 load --input and --weights before any output, as chapter 4 its --q/--k/--v
"$B/randnpy" 4 "$TMP/x1d.npy" 6 >/dev/null 2>&1
for n in 3 5 6 7 10; do
    case $n in 7|10) wdir=$TMP/w7 ;; *) wdir=$TMP/w ;; esac
    run "$B/chapter$n" --input "$TMP/x1d.npy" --weights "$wdir" --lang zh
    expect_runtime_error "chapter$n：错误：$TMP/x1d.npy 的形状是 (6,)：应为三维的 (B, T, d_in)" "chapter $n's 1-D --input, in Chinese"
    expect_no_stdout "chapter $n's 1-D --input: said before the title"
    run "$B/chapter$n" --input "$TMP/q.npy" --weights "$wdir" --lang zh
    expect_status 1 "chapter $n's weights of the wrong width"
    expect_err_contains "wq.npy 的形状是" "chapter $n's weights of the wrong width, in Chinese"
    expect_no_stdout "chapter $n's weights of the wrong width: said before the title"
done
run "$B/chapter3" --input "$TMP/k.npy" --weights "$TMP/w" --lang en
expect_runtime_error "$TMP/w/wq.npy has shape (4, 6) but the input has d_in = 3: expected (d_out, 3)" \
    "a weight of the wrong width, in English"
mkdir -p "$TMP/w7b" && cp "$TMP/w7/"*.npy "$TMP/w7b/" && "$B/randnpy" 3 "$TMP/w7b/wo.npy" 4 4 >/dev/null 2>&1
run "$B/chapter7" --input "$TMP/w7b/x.npy" --weights "$TMP/w7b" --lang zh
expect_runtime_error "$TMP/w7b/wo.npy 的形状是 (4, 4)，但 wq.npy 的 d_out = 8：wo 必须是 (d_out, d_out) = (8, 8)" \
    "a wo of the wrong shape, in Chinese"
expect_no_stdout "a wo of the wrong shape: said before the title"
run "$B/chapter1" --output "$TMP/nowhere/o.npy" --lang zh
expect_usage_error "--output $TMP/nowhere/o.npy：文件夹 $TMP/nowhere 不存在" "--output in a missing folder, in Chinese"
run "$B/chapter2" --output "$TMP/folder" --lang zh
expect_usage_error "--output $TMP/folder：它是文件夹，不是文件" "--output naming a folder, in Chinese"
run "$B/chapter4" --dump "$TMP/junk.npy" --lang zh
expect_usage_error "--dump $TMP/junk.npy：它是文件，不是文件夹" "--dump naming a file, in Chinese"
run "$B/chapter5" --heads 3 --lang zh
expect_usage_error "--heads 3：d_out 4 不能被 n_heads 3 整除（4 % 3 = 1）" "--heads that does not divide d_out, in Chinese"
run "$B/chapter5" --heads 3 --lang en
expect_usage_error "--heads 3: d_out 4 is not divisible by n_heads 3 (4 % 3 = 1)" "--heads, in English"
run "$B/chapter12" --impl x --lang zh
expect_usage_error "--impl x：必须是 flash 或 reference" "a choice's words, in Chinese"
run "$B/chapter10" --grad-output "$TMP/k.npy" --lang zh
expect_usage_error "--grad-output 需要 --input 和 --weights" "chapter 10's flag clash, in Chinese"
run "$B/chapter12" --bench --quiet --lang zh
expect_usage_error "--bench 自己生成输入" "chapter 12's flag clash, in Chinese"
run "$B/chapter10" --input "$TMP/w7/x.npy" --weights "$TMP/w7" --grad-output "$TMP/k.npy" --lang zh
expect_runtime_error "$TMP/k.npy 的形状是 (2, 5, 3)，但输出 y 是 (B, T, d_out) = (3, 5, 8)" \
    "chapter 10's --grad-output of the wrong shape, in Chinese"
expect_no_stdout "chapter 10's --grad-output of the wrong shape: said before the title"

# PyTorch lines keep their code, but their words and comments are Chinese too (chapters 8, 10)
run "$B/chapter8" --seq-len 32 --heads 1 --lang zh
expect_status 0 "chapter8 --lang zh"
for words in "independent floats" "each block of" "over one row, read once" "chapter 5's shapes" \
    "every inner loop walks" "fused kernel" "成本模型" ; do
    case $words in 成本模型) expect_out_contains "$words" "chapter8 --lang zh says the glossary's term for the cost model" ;;
    *) expect_out_lacks "$words" "chapter8 --lang zh: no '$words' left in English" ;; esac
done
run "$B/chapter10" --lang zh
for words in "the same dropout masks" ; do expect_out_lacks "$words" "chapter10 --lang zh: no '$words' left in English"; done
run "$B/chapter10" --train --steps 2 --lang zh
for words in "attn: chapter 7" "by hand; Adam" ; do expect_out_lacks "$words" "chapter10 --train --lang zh: no '$words' left in English"; done

# chapter 8's --q, --k and --v that cannot make one attention call: the files named, in Chinese
for spec in "q8 1 2 16 8" "k8 1 2 16 8" "v8 1 2 12 8" "kd8 1 2 16 4" "b8 3 2 16 8" "one8 8"; do
    set -- $spec
    name=$1
    shift
    "$B/randnpy" 5 "$TMP/$name.npy" "$@" >/dev/null 2>&1
done
"$B/randnpy" 6 "$TMP/q28.npy" 2 2 16 8 >/dev/null 2>&1
run "$B/chapter8" --quiet --q "$TMP/q8.npy" --k "$TMP/k8.npy" --v "$TMP/v8.npy" --lang zh
expect_runtime_error "--k $TMP/k8.npy (1, 2, 16, 8) 和 --v $TMP/v8.npy (1, 2, 12, 8) 的长度 S（倒数第 2 维）必须相同：16 != 12" \
    "chapter 8's key and value of different lengths, in Chinese"
run "$B/chapter8" --quiet --q "$TMP/q8.npy" --k "$TMP/kd8.npy" --v "$TMP/k8.npy" --lang zh
expect_runtime_error "的最后一维 d_k 必须相同：8 != 4" "chapter 8's query and key of different d_k, in Chinese"
run "$B/chapter8" --quiet --q "$TMP/q28.npy" --k "$TMP/b8.npy" --v "$TMP/b8.npy" --lang zh
expect_runtime_error "的批维度无法广播" "chapter 8's batch dims that do not broadcast, in Chinese"
run "$B/chapter8" --quiet --q "$TMP/one8.npy" --k "$TMP/k8.npy" --v "$TMP/k8.npy" --lang zh
expect_runtime_error "--q $TMP/one8.npy 的形状是 (8,)：它至少要有 2 维，即 (..., T, d_k)" "chapter 8's 1-D --q, in Chinese"

# chapter 13's files (checkpoint.c, tiny_llama_setup.c): each sentence in Chinese, and in English
# as tests/test_ch13_program.sh expects it. A Chinese line passes no_english_left whole (the 错误
# before the sentence is Chinese), so the check is run on the line with the tokens it keeps as
# they are (file names, the np.save call, a flag, llama2.c, int32, the program's name; taken out in
# that order) and its Chinese characters taken out; the same check on the English line finds its words.
err13() { # en|zh DESC TEXT KEEP... -- ARGS...: the run names TEXT; KEEP and CJK taken out, words left in en only
    lang=$1 desc="$2, in $1" text=$3
    shift 3
    : > "$TMP/keep"
    while [ "$1" != "--" ]; do printf '%s\n' "$1" >> "$TMP/keep"; shift; done
    shift
    echo chapter13 >> "$TMP/keep"
    run "$B/chapter13" "$@" --lang "$lang"
    case $lang in zh) expect_runtime_error "chapter13：错误：$text" "$desc" ;;
        *) expect_runtime_error "chapter13: error: $text" "$desc" ;; esac
    LC_ALL=C awk 'NR == FNR { k[++n] = $0; next }
        { for (i = 1; i <= n; i++)
              while ((j = index($0, k[i])) > 0) $0 = substr($0, 1, j - 1) " " substr($0, j + length(k[i]))
          gsub(/[\343-\351][\200-\277][\200-\277]/, " "); print }' "$TMP/keep" "$TMP/err" > "$TMP/err_words"
    case $lang in zh) no_english_left "$desc: no English word left" "$TMP/err_words" ;;
        *) awk -f tests/lang_english_lines.awk "$TMP/err_words" > "$TMP/english"
           if [ -s "$TMP/english" ]; then _ok; else _bad "$desc: the check finds no English in $(cat "$TMP/err")"; fi ;;
    esac
}
M13="$F13/mha_shared/model.bin"
head -c 20 "$M13" > "$TMP/short13.bin"
head -c 30 "$F13/mha_shared/tokenizer.bin" > "$TMP/short13.tok"
for l in zh en; do
    case $l in
        zh) s1="$TMP/none13.bin：无法打开检查点：没有这个文件或文件夹"
            s2="$TMP/short13.bin：文件只有 20 字节，比 llama2.c 28 字节的文件头（七个 int32）还短"
            s3="$TMP/short13.tok：文件在词元 2 处就结束了，但检查点的 vocab_size 是 11"
            s4="$TMP/none13.txt：无法打开文件：没有这个文件或文件夹"
            s5="$F13/mha_shared/logits.npy：--batch-tokens 需要 1.0 版的 int32（'<i4'）.npy 文件，即 np.save(F, np.asarray(b, dtype=np.int32)) 写出的那种" ;;
        *) s1="$TMP/none13.bin: cannot open the checkpoint: No such file or directory"
            s2="$TMP/short13.bin: the file is 20 bytes, shorter than llama2.c's 28-byte header (seven int32)"
            s3="$TMP/short13.tok: the file ends at token 2, but the checkpoint's vocab_size is 11"
            s4="$TMP/none13.txt: cannot open: No such file or directory"
            s5="$F13/mha_shared/logits.npy: --batch-tokens needs a version 1.0 .npy of int32 ('<i4'), as np.save(F, np.asarray(b, dtype=np.int32)) writes" ;;
    esac
    err13 $l "chapter13: a missing checkpoint" "$s1" "$TMP/none13.bin" -- --checkpoint "$TMP/none13.bin" --tokens 1
    err13 $l "chapter13: a checkpoint cut in its header" "$s2" "$TMP/short13.bin" llama2.c int32 -- \
        --checkpoint "$TMP/short13.bin" --tokens 1
    err13 $l "chapter13: a tokenizer cut short" "$s3" "$TMP/short13.tok" vocab_size -- --checkpoint "$M13" \
        --tokenizer "$TMP/short13.tok" --tokens 1
    err13 $l "chapter13: a missing --corpus" "$s4" "$TMP/none13.txt" -- --corpus "$TMP/none13.txt" --train-steps 2 \
        --save "$TMP/x13.bin" --quiet
    err13 $l "chapter13: a --batch-tokens of floats" "$s5" "$F13/mha_shared/logits.npy" \
        "np.save(F, np.asarray(b, dtype=np.int32))" --batch-tokens int32 "'<i4'" .npy -- --checkpoint "$M13" --batch-tokens "$F13/mha_shared/logits.npy" \
        --grad-dump "$TMP/bg13" --quiet
done

# chapters 11 and 12: every sentence of their refusals in Chinese (flags, files, the backward's checks)
# (no_english_left passes a line with any Chinese character in it, and the program's name and 错误
# come first: so the sentence after the first colon must hold Chinese and differ from the English run's)
zh_refusal() { # CODE DESC ARGS...
    _code=$1 _desc=$2
    shift 2
    run "$@" --lang zh
    expect_status "$_code" "$_desc, in Chinese"
    expect_one_line "$_desc, in Chinese"
    no_english_left "$_desc, in Chinese" "$TMP/err"
    _zh=$(sed 's/^[^：]*：//; s/^错误：//' "$TMP/err")
    run "$@" --lang en
    _en=$(sed 's/^[^:]*: //; s/^error: //' "$TMP/err")
    if printf '%s' "$_zh" | LC_ALL=C grep -q "$(printf '[\343-\351]')" && [ "$_zh" != "$_en" ]; then _ok; else
        _bad "$_desc: the sentence is not translated: '$_zh' (English: '$_en')"; fi
}
F11=${FIXTURES:-tests/fixtures}/ch11/gqa F12=${FIXTURES:-tests/fixtures}/ch12 F8=${FIXTURES:-tests/fixtures}/ch08
for flags in "--n-kv-heads 3" "--n-heads 3" "--dim 12" "--dim 2" "--decode 7" "--prefill-chunk 7" "--prompt X" \
    "--tokens 8" "--generate tiny --seed 3" "--seq-len 40" "--bench --dim 8" "--input $F11/x.npy --weights $F11 --dim 32"; do
    # shellcheck disable=SC2086
    zh_refusal 2 "chapter11 $flags" "$B/chapter11" $flags
done
mkdir -p "$TMP/w11" && cp "$F11"/*.npy "$TMP/w11/" && cp "$F11/wq.npy" "$TMP/w11/wk.npy"
zh_refusal 1 "chapter11: a wk.npy of the wrong shape" "$B/chapter11" --input "$F11/x.npy" --weights "$TMP/w11" --n-heads 4
zh_refusal 1 "chapter11: --rope-theta beside the folder's tables" "$B/chapter11" --input "$F11/x.npy" --weights "$F11" \
    --n-heads 4 --rope-theta 500000
zh_refusal 1 "chapter11: --decode past the T of a file" "$B/chapter11" --input "$F11/x.npy" --weights "$F11" \
    --n-heads 4 --decode 9
cp "$F11/x.npy" "$TMP/x11nan.npy"
printf '\000\000\300\177' | dd of="$TMP/x11nan.npy" bs=1 conv=notrunc \
    seek=$((10 + $(od -An -tu2 -j8 -N2 "$TMP/x11nan.npy" | tr -d ' ') + 4)) 2>/dev/null  # x[0, 0, 1] = nan
zh_refusal 1 "chapter11: a file holding NaN" "$B/chapter11" --input "$TMP/x11nan.npy" --weights "$F11" --n-heads 4
zh_refusal 2 "chapter12 --q alone" "$B/chapter12" --q "$F12/prog_q.npy"
zh_refusal 2 "chapter12 --bench --seq-len" "$B/chapter12" --bench --seq-len 64
zh_refusal 1 "chapter12: NaN in k" "$B/chapter12" --q "$F8/nf_knan_q.npy" --k "$F8/nf_knan_k.npy" --v "$F8/nf_knan_v.npy"
"$B/randnpy" 1 "$TMP/do7.npy" 1 2 40 7 >/dev/null 2>&1
zh_refusal 1 "chapter12: a grad_output of the wrong shape" "$B/chapter12" --q "$F12/prog_q.npy" --k "$F12/prog_k.npy" \
    --v "$F12/prog_v.npy" --grad-output "$TMP/do7.npy"
zh_refusal 1 "chapter12: causal with T != S" "$B/chapter12" --q "$F12/ns_q.npy" --k "$F12/ns_k.npy" \
    --v "$F12/ns_v.npy" --causal

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
