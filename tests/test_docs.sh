#!/bin/sh
# test_docs.sh — the docs are transcripts (make test-docs, part of make test).
#
# Every ```console block of README.md, README.zh-CN.md, chapters/*/README*.md
# and docs/*.md is run: each "$ " line from a clean folder of its own (shared
# by the commands of one block) where build/ is the built programs, and what
# it prints, stdout and stderr together, must match the lines under it ("…"
# for any lines, «span» for a machine's figure: tests/transcript_match.awk).
# Every ```python block that imports torch runs as shown (fragments marked
# "continues the block above" run after their block), and one marked
# "same numbers as CMD" must print only tensors that CMD prints too
# (tests/tensor_numbers.awk); without a Python that imports torch and numpy
# these count as skipped. A console block marked <!-- measured: FILE --> (a run
# of minutes: make bench-torch) is checked against FILE, the committed printout
# of that run, and run again only with DOCS_MEASURED=1 (else counted as skipped).
# A console block marked <!-- console: runs in a copy of the repository -->
# (docs/TEACHING.md grades a class with make) runs instead in a throwaway copy
# of the repository, whose build/ links to the built programs but keeps its
# own build/grade/ (the real build is never written), without the make
# variables of the make test around it; when a command of it runs make grade
# or make grade-class, the block needs a working bubblewrap, as the grader
# does: without one its commands count as skipped.
# Every "step N", "第 N 步" or "[N]" in a chapter README's prose names a step [N]
# of the run its paragraph names (the `build/chapterN ...` before it, with the
# flags its sentence names; else the chapter's default run), and that step's
# heading shares a word with the paragraph (tests/step_citations.awk,
# tests/shared_word.awk).
# An English page with a Chinese page beside it has no paragraph in Chinese
# but its one-line summary (tests/chinese_paragraphs.awk).
# The conventions are in README.md, "Contributing".
# What a transcript's command prints, and chapters 0-7's --help, fit 80
# terminal columns (tests/columns.awk).
# The checks check themselves at the end: a planted page with one printed digit
# changed, a line missing, a broken snippet, a wrong step number, a Chinese paragraph on an English
# page must fail; a block marked to run
# in a copy sees the repository (and unmarked, it does not) and leaves the
# repository as it was; a grading block without bubblewrap is skipped.
#
# DOCS_PAGES="a.md b.md" checks those pages instead (one at a time while writing).
. tests/lib.sh
suite test_docs

# The docs' commands run the programs as a reader types them, never under RUNNER:
# under make memcheck this suite would check valgrind's -O1 build without valgrind
# (five minutes). make test runs it, and make sanitize with its instrumented programs.
if [ -n "${RUNNER:-}" ]; then
    skip 1 "the whole suite: the docs' commands run the programs as a reader types them, not under RUNNER (make test and make sanitize run them)"
    finish
    exit $?
fi

ROOT=$(pwd)
case $BUILD in
    /*) ABS_BUILD=$BUILD ;;
    *) ABS_BUILD=$ROOT/$BUILD ;;
esac
PAGES=${DOCS_PAGES:-"README.md README.zh-CN.md chapters/*/README*.md docs/*.md"}

# chapter 9's transcripts run under mpirun, with the flags the Makefile uses
if [ -z "${HAVE_MPI:-}" ] && command -v mpicc >/dev/null 2>&1 && [ -x "$BUILD/chapter9" ]; then
    HAVE_MPI=yes
fi
MPIRUN=${MPIRUN:-mpirun}
if [ -z "${MPIRUN_FLAGS+set}" ] && "$MPIRUN" --version 2>/dev/null | grep -q 'Open MPI'; then
    MPIRUN_FLAGS='-q --oversubscribe --mca pml ob1'
    [ "$(id -u)" = 0 ] && MPIRUN_FLAGS="$MPIRUN_FLAGS --allow-run-as-root"
fi
export MPIRUN MPIRUN_FLAGS
# what every command starts with: mpirun is the Makefile's mpirun and flags
PRELUDE='mpirun() { $MPIRUN $MPIRUN_FLAGS "$@"; }
'

# a block that grades needs the grader's sandbox (as tests/test_grade_class.sh does)
if [ -z "${HAVE_BWRAP:-}" ]; then
    HAVE_BWRAP=no
    if command -v bwrap >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1 &&
        bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev /bin/true >/dev/null 2>&1; then
        HAVE_BWRAP=yes
    fi
fi
# the first folder of the path to the programs, when it lies in the repository
case $ABS_BUILD in "$ROOT"/*) BUILD_TOP=${ABS_BUILD#"$ROOT"/} BUILD_TOP=${BUILD_TOP%%/*} ;; *) BUILD_TOP=build ;; esac

PY=$(sh scripts/find_python.sh torch numpy 2>/dev/null) || PY=
# outputs of the blocks run so far, by their commands (tests/doc_blocks.awk's bB.cmds)
CACHE=$TMP/ran

# repo_copy FOLDER: a throwaway copy of the repository (no .git, no build, no
# generated trees) whose build/ links to each entry of the built programs'
# folder except grade/, so a grading writes its class.csv in the copy
repo_copy() {
    mkdir -p "$1/build" || return 1
    for e in "$ROOT"/* "$ROOT"/.[!.]*; do
        [ -e "$e" ] || continue
        case ${e##*/} in build | "$BUILD_TOP" | .git | exercises | bugs | bugs.ANSWERS.md) continue ;; esac
        cp -Rp "$e" "$1/" || return 1
    done
    for e in "$ABS_BUILD"/* "$ABS_BUILD"/.[!.]*; do
        [ -e "$e" ] && [ "${e##*/}" != grade ] || continue
        ln -s "$e" "$1/build/" || return 1
    done
}

# run_doc_command FOLDER CMDFILE OUTFILE [repo]: run the command in FOLDER (made on
# first use, with build/ linking to the programs; with "repo", a copy of the
# repository, where make runs as from a shell); status in $status
run_doc_command() {
    if [ "${4:-}" = repo ]; then
        [ -d "$1" ] || repo_copy "$1"
        (cd "$1" && unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES BUILD GRADE_OUT GRADE_SEED &&
            sh -c "$PRELUDE$(cat "$2")") >"$3" 2>&1 </dev/null
        status=$?
        return
    fi
    if [ ! -d "$1" ]; then
        mkdir -p "$1" && ln -s "$ABS_BUILD" "$1/build"
    fi
    (cd "$1" && sh -c "$PRELUDE$(cat "$2")") >"$3" 2>&1 </dev/null
    status=$?
}

# check_measured N WHERE LOG: measured block N (doc_blocks.awk: a run of minutes,
# shown as it printed) against LOG, the committed printout of that run: the lines
# as shown (words exact, «spans» any text), the figures inside the «spans» exactly
# LOG's, and LOG within 80 columns. Its command runs again only with
# DOCS_MEASURED=1 (then the run's fresh printout, the file LOG was copied from,
# must match the block, «spans» as any text); otherwise that counts as skipped.
check_measured() {
    _cmd="$2: \$ $(cat "$dir/t$1.cmd")"
    status=0
    : >"$TMP/err"
    if [ ! -f "$3" ]; then _bad "$2: the printout $3 of this measured run is missing"; return; fi
    if awk -f tests/transcript_match.awk "$dir/t$1.exp" "$3" >"$TMP/err"; then _ok; else
        _bad "$2: the block is not what its printout $3 says"
    fi
    sed 's/«//g; s/»//g' "$dir/t$1.exp" >"$dir/t$1.lit"
    if awk -f tests/transcript_match.awk "$dir/t$1.lit" "$3" >"$TMP/err"; then _ok; else
        _bad "$2: a figure in «» is not the one in its printout $3"
    fi
    # shellcheck disable=SC2046  # two numbers
    set -- "$1" "$2" "$3" $(od -An -v -tu1 "$3" | awk -f tests/columns.awk)
    if [ "$4" -le 80 ]; then _ok; else sed -n "$5p" "$3" >"$TMP/err"; _bad "$2: line $5 of $3 is $4 columns wide (at most 80)"; fi
    if [ "${DOCS_MEASURED:-}" != 1 ]; then
        skip 1 "$2: a measured run of minutes (its printout is $3); DOCS_MEASURED=1 runs it again"
        return
    fi
    (sh -c "$(cat "$dir/t$1.cmd")") >"$dir/t$1.out" 2>&1 </dev/null
    status=$?
    fresh=$(awk '/^wrote .*\.csv$/ { sub(/\.csv$/, ".txt", $2); f = $2 } END { print f }' "$dir/t$1.out")
    if [ "$status" -eq 0 ] && [ -f "$fresh" ] && awk -f tests/transcript_match.awk "$dir/t$1.exp" "$fresh" >"$TMP/err"; then
        _ok
    else
        [ -s "$TMP/err" ] || tail -n 5 "$dir/t$1.out" >"$TMP/err"
        _bad "$2: run again, the command no longer prints what the block shows"
    fi
}

# check_pages DIR PAGE...: cut the blocks of the pages into DIR and check each
check_pages() {
    dir=$1
    shift
    mkdir -p "$dir"
    # a PyTorch snippet runs as from the repository's root: scripts/ is there
    # (chapter 11's shows Happy-LLM's class through scripts/golden)
    [ -e "$dir/scripts" ] || ln -s "$PWD/scripts" "$dir/scripts"
    : >"$dir/index"
    lastblock=
    awk -v out="$dir" -f tests/doc_blocks.awk "$@"
    if [ -f "$dir/errors" ]; then
        while IFS= read -r e; do
            _cmd="(the page's markup)"
            status=0
            : >"$TMP/err"
            _bad "$e"
        done <"$dir/errors"
    fi
    snippets=
    while IFS='	' read -r kind n where block same imports; do
        if [ "$kind" = p ] && [ "$imports" = 1 ]; then snippets="$snippets $n"; fi
    done <"$dir/index"
    if [ -n "$snippets" ] && [ -n "$PY" ]; then
        # shellcheck disable=SC2086  # a list of numbers
        PYTHONDONTWRITEBYTECODE=1 "$PY" "$ROOT/tests/torch_snippets.py" "$dir" $snippets
    fi
    while IFS='	' read -r kind n where block same imports; do
        if [ "$kind" = m ]; then
            check_measured "$n" "$where" "$same"
        elif [ "$kind" = t ]; then
            cmd=$(cat "$dir/t$n.cmd")
            case $cmd in
                *mpirun*)
                    if [ "$HAVE_MPI" != yes ]; then skip 1 "$where: needs MPI"; continue; fi ;;
            esac
            # a block whose commands ran already (the same in English and
            # Chinese) is not run again: its outputs are kept by position
            if [ "$block" != "$lastblock" ]; then
                lastblock=$block pos=0
                key=$(cksum <"$dir/b$block.cmds")
                key=$CACHE/$same${key%% *}
                if [ -d "$key" ]; then fresh=no; else fresh=yes; mkdir -p "$key"; fi
                nobwrap=no
                if [ "$same" = repo ] && [ "$HAVE_BWRAP" != yes ] && grep -q 'make grade' "$dir/b$block.cmds"; then
                    nobwrap=yes
                fi
            fi
            pos=$((pos + 1))
            if [ "$nobwrap" = yes ]; then
                skip 1 "$where: grading needs a working bubblewrap (apt-get install bubblewrap)"
                continue
            fi
            if [ "$fresh" = yes ]; then
                run_doc_command "$dir/work$block" "$dir/t$n.cmd" "$dir/t$n.out" "$same"
                cp "$dir/t$n.out" "$key/$pos"
                echo "$status" >"$key/$pos.rc"
            else
                cp "$key/$pos" "$dir/t$n.out"
                read -r status <"$key/$pos.rc"
            fi
            _cmd="$where: \$ $cmd"
            if awk -f tests/transcript_match.awk "$dir/t$n.exp" "$dir/t$n.out" >"$TMP/err"; then
                _ok
            else
                _bad "$where: the output no longer matches the transcript"
            fi
            # a run the docs show fits a terminal: 80 columns (an error is one
            # sentence on one line, so only runs that succeed)
            [ "$status" -eq 0 ] || continue
            set -- $(od -An -v -tu1 "$dir/t$n.out" | awk -f tests/columns.awk)
            if [ "$1" -le 80 ]; then _ok; else
                sed -n "$2p" "$dir/t$n.out" >"$TMP/err"
                _bad "$where: line $2 of the output is $1 columns wide (at most 80)"
            fi
        elif [ "$imports" = 1 ]; then
            if [ -z "$PY" ]; then skip 1 "$where: needs a Python with torch and numpy"; continue; fi
            _cmd="$where: the PyTorch snippet"
            status=0
            if [ -f "$dir/p$n.err" ] || [ ! -f "$dir/p$n.out" ]; then
                cp "$dir/p$n.err" "$TMP/err" 2>/dev/null || echo "it did not run" >"$TMP/err"
                _bad "$where: the PyTorch snippet does not run as shown"
                continue
            fi
            _ok
            [ "$same" != - ] || continue
            printf '%s\n' "$same" >"$dir/s$n.cmd"
            run_doc_command "$dir/same$n" "$dir/s$n.cmd" "$dir/s$n.out"
            _cmd="$where: $same"
            if [ "$status" -ne 0 ]; then
                cp "$dir/s$n.out" "$TMP/err"
                _bad "$where: the command the snippet is compared with failed"
            elif awk -f tests/tensor_numbers.awk "$dir/p$n.out" "$dir/s$n.out" >"$TMP/err"; then
                _ok
            else
                _bad "$where: the snippet's numbers are not the program's"
            fi
        fi
    done <"$dir/index"
}

# shellcheck disable=SC2086  # PAGES is a list of globs
check_pages "$TMP/docs" $PAGES

# ---- every step a chapter README cites is in the run it names ----
# check_steps DIR PAGE...: each "step N", "第 N 步" or "[N]" of a chapter README's prose
# (tests/step_citations.awk) names a step [N] that the run of its sentence prints (the
# command it names, with the flags it names, or the chapter's default run), under a
# heading that shares a word with the citing paragraph or list item (tests/shared_word.awk);
# a README.zh-CN's citations name the Chinese run (LC_ALL=zh_CN.UTF-8), so they share Chinese words.
check_steps() {
    sdir=$1
    shift
    mkdir -p "$sdir"
    for page in "$@"; do
        nn=$(printf '%s\n' "$page" | sed -n 's|.*chapters/\([0-9][0-9]*\)_[^/]*/README[^/]*\.md$|\1|p')
        [ -n "$nn" ] || continue
        awk -v chapter="$(expr "$nn" + 0)" -f tests/step_citations.awk "$page" >"$sdir/cites"
        while IFS='	' read -r line cmd step ctx; do
            case $cmd in
                *mpirun*) if [ "$HAVE_MPI" != yes ]; then skip 1 "$page:$line: needs MPI"; continue; fi ;;
            esac
            # a README.zh-CN cites the Chinese run: its steps' headings are the Chinese ones
            case $page in *.zh-CN.md) cmd="export LC_ALL=zh_CN.UTF-8; $cmd" ;; esac
            key=$(printf '%s\n' "$cmd" | cksum)
            key=${key%% *}
            if [ ! -f "$sdir/rc$key" ]; then
                printf '%s\n' "$cmd" >"$sdir/cmd$key"
                run_doc_command "$sdir/work" "$sdir/cmd$key" "$sdir/out$key"
                echo "$status" >"$sdir/rc$key"
            fi
            read -r status <"$sdir/rc$key"
            _cmd="$page:$line: \$ $cmd"
            : >"$TMP/err"
            heading=$(grep "^\[$step\] " "$sdir/out$key" | head -n 1)
            if [ "$status" -ne 0 ]; then
                tail -n 3 "$sdir/out$key" >"$TMP/err"
                _bad "$page:$line: the run step $step is cited from fails"
            elif [ -z "$heading" ]; then
                grep '^\[[0-9]*\] ' "$sdir/out$key" >"$TMP/err"
                _bad "$page:$line: step $step is cited, but this run has no step [$step]"
            elif printf '%s\n%s\n' "$heading" "$ctx" | awk -f tests/shared_word.awk; then
                _ok
            else
                printf 'heading: %s\nparagraph: %s\n' "$heading" "$ctx" >"$TMP/err"
                _bad "$page:$line: step $step's heading shares no word with the paragraph citing it"
            fi
        done <"$sdir/cites"
    done
}
# shellcheck disable=SC2086  # PAGES is a list of globs
check_steps "$TMP/steps" $PAGES

# ---- an English page is in English ----
# check_english PAGE...: each page that has a README.zh-CN.md (or NAME.zh-CN.md) beside it
# has no paragraph in Chinese but its one-line summary (tests/chinese_paragraphs.awk):
# such a paragraph belongs in the Chinese page
check_english() {
    for page in "$@"; do
        case $page in *.zh-CN.md) continue ;; esac
        [ -f "${page%.md}.zh-CN.md" ] || continue
        _cmd="awk -f tests/chinese_paragraphs.awk $page"
        status=0
        if LC_ALL=C awk -f tests/chinese_paragraphs.awk "$page" >"$TMP/err" && [ ! -s "$TMP/err" ]; then _ok; else
            _bad "$page: a paragraph in Chinese (it belongs in ${page%.md}.zh-CN.md; write it in English here)"
        fi
    done
}
# shellcheck disable=SC2086  # PAGES is a list of globs
check_english $PAGES

# ---- --help fits 80 columns ----
for n in 0 1 2 3 4 5 6 7 8 9 10 11; do
    if [ "$n" = 9 ] && [ ! -x "$BUILD/chapter9" ]; then
        skip 2 "chapter9 --help: build/chapter9 was not built (MPI is not installed)"
        continue
    elif [ "$n" = 9 ]; then
        # an MPI program: Open MPI keeps memory until exit in modules it has unloaded,
        # so LeakSanitizer and valgrind report it (test_ch09_program.sh does the same)
        _runner=$RUNNER _asan=${ASAN_OPTIONS-}
        RUNNER=
        export ASAN_OPTIONS="detect_leaks=0${_asan:+:$_asan}"
        run "$BUILD/chapter$n" --help
        RUNNER=$_runner ASAN_OPTIONS=$_asan
    else
        run "$BUILD/chapter$n" --help
    fi
    expect_status 0 "chapter$n --help"
    set -- $(od -An -v -tu1 "$TMP/out" | awk -f tests/columns.awk)
    if [ "$1" -le 80 ]; then _ok; else _bad "chapter$n --help: line $2 is $1 columns wide (at most 80)"; fi
done
printf '%081d\n注意力注意力注意力注意力注意力注意力注意力注意力注意力注意力注意力注意力注意力注意\n' 0 >"$TMP/wide"
set -- $(od -An -v -tu1 "$TMP/wide" | awk -f tests/columns.awk)
if [ "$1 $2" = "82 2" ]; then _ok; else _bad "columns.awk counts 81 ASCII and 41 ideographs as '$1 $2', not '82 2'"; fi

# ---- the checks check themselves: a planted page, right and then wrong ----
# planted_fails DESC: the page $TMP/plant/page.md must fail the checks
planted_fails() {
    rm -rf "$TMP/plant/cut"
    if (_failed=0; check_pages "$TMP/plant/cut" "$TMP/plant/page.md" >"$TMP/plant/log" 2>&1; [ "$_failed" -gt 0 ]); then _ok; else
        _cmd="check_pages $TMP/plant/page.md"; status=0; : >"$TMP/err"; _bad "$1"
    fi
}
planted_passes() {
    rm -rf "$TMP/plant/cut"
    if (_failed=0; check_pages "$TMP/plant/cut" "$TMP/plant/page.md" >"$TMP/plant/log" 2>&1; [ "$_failed" -eq 0 ]); then _ok; else
        _cmd="check_pages $TMP/plant/page.md"; status=0; cp "$TMP/plant/log" "$TMP/err"; _bad "$1"
    fi
}
mkdir -p "$TMP/plant"
"$BUILD/chapter1" --seq-len 4 --d-k 3 --quiet >"$TMP/plant/real" 2>&1
# plant TRANSFORM: the page shows chapter 1's output through the sed TRANSFORM
plant() {
    { printf 'Text.\n\n```console\n$ build/chapter1 --seq-len 4 --d-k 3 --quiet\n'
      sed "$1" "$TMP/plant/real"
      printf '```\n'; } >"$TMP/plant/page.md"
}
plant 's/^//'
planted_passes "a page showing the real output passes"
plant '1s/[0-9]/«&»/'
planted_passes "a «span» matches any text"
plant '2,3c\
…'
planted_passes "a … line stands for lines"
plant '0,/[1-8]/s/[1-8]/9/'
planted_fails "one printed digit changed fails"
plant '2d'
planted_fails "a line missing fails"
plant '$a\
one more line'
planted_fails "a line the program does not print fails"
printf 'Text.\n\n```console\nbuild/chapter1\n```\n' >"$TMP/plant/page.md"
planted_fails "a console block without a \"\$ \" line fails"
# a measured block against its printout (the command is not run without DOCS_MEASURED=1)
printf 'run: 12.5 ms\nrate: 80.1 GFLOP/s  met\n' >"$TMP/plant/measured.txt"
# plant_measured LINE2: the page shows the printout with LINE2 as its second line
plant_measured() {
    printf 'Text.\n\n<!-- measured: %s -->\n```console\n$ make nothing-here\nrun: «12.5» ms\n%s\n```\n' \
        "$TMP/plant/measured.txt" "$1" >"$TMP/plant/page.md"
}
_measured=${DOCS_MEASURED:-}
DOCS_MEASURED=
plant_measured 'rate: «80.1» GFLOP/s  met'
planted_passes "a measured block equal to its printout passes"
plant_measured 'rate: «80.2» GFLOP/s  met'
planted_fails "a measured figure in «» that is not its printout's fails"
plant_measured 'rate: «80.1» GFLOP/s  NOT MET'
planted_fails "a measured block whose words are not its printout's fails"
DOCS_MEASURED=$_measured
# a snippet's numbers, without torch: tensor_numbers.awk on our own print
awk -f tests/tensor_numbers.awk "$TMP/plant/real" "$TMP/plant/real" >/dev/null 2>&1 && _ok ||
    { _cmd="tensor_numbers.awk"; status=1; : >"$TMP/err"; _bad "a program's tensors equal themselves"; }
sed '0,/[1-8]/s/[1-8]/9/' "$TMP/plant/real" >"$TMP/plant/mutated"
if awk -f tests/tensor_numbers.awk "$TMP/plant/mutated" "$TMP/plant/real" >/dev/null 2>&1; then
    _cmd="tensor_numbers.awk"; status=0; : >"$TMP/err"; _bad "a tensor with one digit changed is not the program's"
else _ok; fi
# a block marked to run in a copy of the repository sees it, writes only in
# the copy, and keeps its own build/grade/; unmarked, the same block fails
printf 'Text.\n\n<!-- console: runs in a copy of the repository -->\n```console\n$ ls Makefile scripts/exercises/grade.sh && touch planted-by-test-docs\nMakefile\nscripts/exercises/grade.sh\n$ mkdir -p build/grade && ls build/chapter1 && test ! -h build/grade && echo own grade folder\nbuild/chapter1\nown grade folder\n```\n' >"$TMP/plant/page.md"
planted_passes "a block marked to run in a copy of the repository sees its files"
if [ -e "$ROOT/planted-by-test-docs" ]; then
    rm -f "$ROOT/planted-by-test-docs"
    _cmd="check_pages $TMP/plant/page.md"; status=0; : >"$TMP/err"
    _bad "a block marked to run in a copy of the repository wrote into the repository"
else _ok; fi
sed '/console: runs in a copy/d' "$TMP/plant/page.md" >"$TMP/plant/unmarked" && mv "$TMP/plant/unmarked" "$TMP/plant/page.md"
planted_fails "an unmarked block does not see the repository"
# without bubblewrap a grading block is skipped: neither passed nor failed
printf 'Text.\n\n<!-- console: runs in a copy of the repository -->\n```console\n$ make grade-class SUBMISSIONS=nobody LEVEL=1\nnot what it prints\n```\n' >"$TMP/plant/page.md"
rm -rf "$TMP/plant/cut"
if (_failed=0 _passed=0 _skipped=0 HAVE_BWRAP=no; check_pages "$TMP/plant/cut" "$TMP/plant/page.md" >"$TMP/plant/log" 2>&1
    [ "$_failed $_passed $_skipped" = "0 0 1" ]); then _ok; else
    _cmd="HAVE_BWRAP=no check_pages $TMP/plant/page.md"; status=0; cp "$TMP/plant/log" "$TMP/err"
    _bad "without bubblewrap a grading block counts as skipped"
fi

# an English page: its summary line, headings, code and Happy-LLM's titles may be
# Chinese, a paragraph may not
mkdir -p "$TMP/plant/en"
EP=$TMP/plant/en/README.md
: >"$TMP/plant/en/README.zh-CN.md"
# english_gives WANT DESC TEXT: check_english on a page of TEXT ends with "failed passed" = WANT
english_gives() {
    printf '%s\n' "$3" >"$EP"
    got=$(_failed=0 _passed=0; check_english "$EP" >"$TMP/plant/log" 2>&1; echo "$_failed $_passed")
    if [ "$got" = "$1" ]; then _ok; else
        _cmd="check_english $EP"; status=0; { cat "$EP"; cat "$TMP/plant/log"; } >"$TMP/err"
        _bad "$2: failed, passed = $got, not $1"
    fi
}
EN_PAGE='# Chapter 4 · Causal mask · 掩码自注意力

Happy-LLM section **2.1.5 掩码自注意力 (Mask Self-Attention)**.

## The idea · 思路

Before softmax, add minus infinity to every score of a later key.

一句话：在 softmax 之前，把“未来位置”的分数加上负无穷，
softmax 之后这些位置的权重就是 0。

```console
$ build/chapter4 --lang zh
[1] 句子：固定的六个词元，每个词元一个三维向量
```

The sentence is fixed; `x2[-1]` is the one random draw.'
english_gives "0 1" "Chinese only in its headings, titles, summary and code passes" "$EN_PAGE"
english_gives "1 0" "a paragraph in Chinese on an English page fails" "$EN_PAGE

句子是固定的；\`build/chapter4\` 唯一用到的随机数，是第 10 步新换上的最后一个
词元 \`x2[-1] = torch.randn(3)\`，所以程序打印的 \`x2[-1]\` 和这段 PyTorch 打印的一样。"
english_gives "1 0" "a Chinese paragraph that opens with a bold sentence fails" "$EN_PAGE

**哪些 PyTorch 版本丢掉的是同样的权重。** PyTorch 1.13 在 CPU 上对标量 p 的
\`bernoulli_(p)\` 有两条路径。"
rm -f "$TMP/plant/en/README.zh-CN.md"
english_gives "0 0" "a page without a Chinese page beside it is not checked" "$EN_PAGE

这个页面旁边没有中文版，所以这一段中文不算错。"

# the step citations: a planted chapter 7 README, right and then with the step wrong
mkdir -p "$TMP/plant/chapters/07_output_projection"
SP=$TMP/plant/chapters/07_output_projection/README.md
# steps_give WANT DESC TEXT: check_steps on a page of TEXT ends with "failed passed" = WANT
steps_give() {
    printf 'Text.\n\n%s\n' "$3" >"$SP"
    rm -rf "$TMP/plant/steps"
    got=$(_failed=0 _passed=0; check_steps "$TMP/plant/steps" "$SP" >"$TMP/plant/log" 2>&1; echo "$_failed $_passed")
    if [ "$got" = "$1" ]; then _ok; else
        _cmd="check_steps $SP"; status=0; { printf '%s\n' "$3"; cat "$TMP/plant/log"; } >"$TMP/err"
        _bad "$2: failed, passed = $got, not $1"
    fi
}
steps_give "0 1" "a step the named run prints, under a heading that shares a word" \
    '1. Run `build/chapter7 --resid-dropout` and look at step 9: resid_dropout zeroes some outputs.'
steps_give "1 0" "a step number the run does not have" \
    '1. Run `build/chapter7 --resid-dropout` and look at step 12: resid_dropout zeroes some outputs.'
steps_give "1 0" "the default run's step 9 is another step (the flag that adds it is not named)" \
    '1. Run `build/chapter7` and look at step 9: resid_dropout zeroes some outputs.'
steps_give "0 1" "a flag the sentence names is run with the command" \
    '1. In `build/chapter7` with `--resid-dropout`, step 9 shows what resid_dropout zeroes.'
steps_give "1 0" "第 N 步 is a citation too" \
    '1. 运行 `build/chapter7 --resid-dropout`，看第 11 步（resid_dropout）。'
steps_give "1 0" "[N] in prose is a citation too" \
    '1. `build/chapter7` prints [10] after the residual check of the block.'
steps_give "1 0" "a failing run is no citation's run" \
    '1. `build/chapter7 --heads 3` shows step 5, the softmax.'
steps_give "0 0" "a figure with decimals is no step: a step 2.4 times faster cites nothing" \
    'Three changes made its step 2.4 times faster than `build/chapter7` was.'
steps_give "0 0" "code is not prose: x[9] and a transcript's [12] cite nothing" \
    "$(printf 'Index `x[9]` here.\n\n```console\n$ build/chapter7\n[12] none\n```')"

if [ -n "$PY" ]; then
    # two snippets on one page (torch is imported once): both must fail
    printf 'Text.\n\n<!-- pytorch: same numbers as build/chapter1 --seq-len 4 --d-k 3 --quiet -->\n```python\nimport torch\nprint(torch.tensor([[0.5, 2.0]]))\n```\n\n```python\nimport torch\nprint(torch.tensor([1.0]) @ torch.ones(2, 2))\n```\n' >"$TMP/plant/page.md"
    rm -rf "$TMP/plant/cut"
    (_failed=0; check_pages "$TMP/plant/cut" "$TMP/plant/page.md") >"$TMP/plant/log" 2>&1
    for what in "numbers are not the program's" "does not run as shown"; do
        if grep -q "FAIL: .*$what" "$TMP/plant/log"; then _ok; else
            _cmd="check_pages $TMP/plant/page.md"; status=0; cp "$TMP/plant/log" "$TMP/err"
            _bad "a planted snippet was not caught: expected '$what'"
        fi
    done
else
    skip 2 "the planted snippets need a Python with torch and numpy"
fi

finish
