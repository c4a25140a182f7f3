#!/bin/sh
# generate.sh OUT [LEVEL] [CHAPTERS] — write a student's exercise tree.
#
# OUT gets a tree that builds on its own (Makefile, common/, tests/,
# chapters/) in which every blank of level <= LEVEL (default 1) of the
# chosen CHAPTERS (default: all with blanks) is a stub, plus
# README-EXERCISES.md for the student, .exercise-manifest (the level and the
# blanks: make hint reads it, the grader compares it with what it grades) and
# .github/workflows/classroom.yml (GitHub Classroom, classroom.sh). LEVEL=0
# writes the solution without markers. An OUT inside this repository other
# than exercises/ is added to git's local exclude list (.git/info/exclude),
# so that a handout never shows up as a change of the tutorial.
. scripts/exercises/lib.sh
ex_check_root

OUT=${1:-exercises}
LEVEL=${2:-1}
CHAPTERS=${3:-}

case $LEVEL in
    0 | 1 | 2 | 3) ;;
    *) die "LEVEL=$LEVEL: the level must be 1 (a line), 2 (a few lines) or 3 (a whole function), or 0 for the solution" ;;
esac
case $OUT in
    "" | . | ./ | / | .. | ../*) die "refusing to write the exercise tree into '$OUT'" ;;
esac
# files_sum DIR LIST: one checksum of DIR's files named in LIST (a manifest's third column:
# the files with blanks; only names of chapter files are read)
files_sum() {
    grep -v '^#' "$2" | cut -f3 | sort -u | while IFS= read -r _f; do
        case $_f in chapters/[0-9][0-9]_*/*.c) [ ! -L "$1/$_f" ] && cksum <"$1/$_f" 2>/dev/null || echo "$_f missing" ;; esac
    done | cksum | cut -d' ' -f1
}
if [ -e "$OUT" ]; then
    [ -f "$OUT/.exercise-manifest" ] || [ -z "$(ls -A "$OUT" 2>/dev/null)" ] ||
        die "$OUT exists and was not written by make exercises (no .exercise-manifest): remove it or choose another place"
    # a handout whose files with blanks changed since (a student's answers) is not overwritten
    _was=$(sed -n 's/^# files: //p' "$OUT/.exercise-manifest" 2>/dev/null | head -n 1)
    [ -z "$_was" ] || [ "$_was" = "$(files_sum "$OUT" "$OUT/.exercise-manifest")" ] ||
        die "$OUT holds changes to its files with blanks since make exercises wrote it (a student's answers?): remove it or choose another place"
fi

TMPL=$(mktemp) || exit 1
trap 'rm -f "$TMPL" "$TMPL.m"' EXIT INT TERM
list_blanks >"$TMPL" || die "exercises: fix the markers above first"
CHS=$(parse_chapters "$CHAPTERS" "$TMPL") || exit 2
rm -rf "$OUT"

: >"$TMPL.m"
write_tree "$OUT" "$LEVEL" "$CHS" "$TMPL.m"
B=$(grep -c '' "$TMPL.m")

{
    echo "# attention-in-c exercise manifest, written by make exercises (make hint reads it; the grader compares"
    echo "# its level and blanks with the LEVEL and blanks it grades: keep this file as it was handed out)."
    echo "# level: $LEVEL"
    echo "# chapters: $(num_list "$CHS")"
    echo "# blanks: $B"
    echo "# files: $(files_sum "$OUT" "$TMPL.m")"
    echo "# name	level	file	line-in-the-repository	line-here	hint	helpers	torch	points	hint_zh	helpers_zh"
    cat "$TMPL.m"
} >"$OUT/.exercise-manifest"

mkdir -p "$OUT/.github/workflows" && sh "$EX_DIR/classroom.sh" "$OUT/.exercise-manifest" >"$OUT/.github/workflows/classroom.yml" ||
    die "exercises: cannot write $OUT/.github/workflows/classroom.yml"

# a handout inside this repository is never a change of the tutorial: git ignores it
# here (the local exclude list, not a .gitignore, so the handout's own git is untouched)
if command -v git >/dev/null 2>&1 && [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd)" ]; then
    _rel=$(cd "$OUT" && pwd)
    _rel=${_rel#"$(pwd)/"}
    case $_rel in
        /*) ;;   # outside the repository
        *) if ! git check-ignore -q "$_rel/" 2>/dev/null; then
               _ex=$(git rev-parse --git-path info/exclude) && mkdir -p "$(dirname "$_ex")" &&
                   printf '/%s/\n' "$_rel" >>"$_ex" && echo "exercises: $_rel/ added to git's local exclude list ($_ex)"
           fi ;;
    esac
fi

# ---- README-EXERCISES.md ---------------------------------------------------
# the commands and the message it shows are the handout's first blank's (chapter 2's
# 'scale' in a handout without blanks)
EX_NAME=scale EX_FILE=chapters/02_scaling/scaling.c EX_LINE=22
if [ "$B" -gt 0 ]; then
    EX_NAME=$(head -n 1 "$TMPL.m" | cut -f1) EX_FILE=$(head -n 1 "$TMPL.m" | cut -f3)
    EX_LINE=$(head -n 1 "$TMPL.m" | cut -f5)
fi
EX_CH=$(echo "$EX_FILE" | sed 's|^chapters/0*\([0-9][0-9]*\)_.*|\1|')
EX_CMD=$(printf '%-32s' "make test-chapter$EX_CH") EX_RUN=$(printf '%-32s' "make chapter$EX_CH")
EX_HINT=$(printf '%-32s' "make hint BLANK=$EX_NAME") EX_HINT2=$(printf '%-32s' "make hint BLANK=$EX_NAME TIER=2")
{
    cat <<EOF
# Exercises: fill in the blanks

中文：[README-EXERCISES.zh-CN.md](README-EXERCISES.zh-CN.md)

This is the attention-in-c tutorial with **$B blanks** cut out of its chapter
code (level $LEVEL: $(case $LEVEL in 0) echo "no blanks, the solution" ;; 1) echo "one expression or line each" ;; 2) echo "up to a few lines each" ;; 3) echo "up to a whole function each" ;; esac);
chapters $(num_list "$CHS")). Each blank is a TODO comment followed by a call
that stops the program, like chapter 2's:

\`\`\`c
/* TODO exercise 'scale' (level 1): Divide every score by math.sqrt(d_k), ... */
exercise_missing("scale", "chapters/02_scaling/scaling.c:22", "Divide every score by ...");
\`\`\`

Replace the \`exercise_missing(...)\` call (and a \`(void)name;\` line above it,
if there is one) with your own C code. The comments around each blank quote
the PyTorch line it mirrors and the shapes of the tensors; the chapter's
README.md explains the idea, and \`common/\` (the project's "torch") has every
operation you need: \`t_matmul\`, \`t_transpose\`, \`t_softmax\`, \`t_view\`, ...

## How to check your work

You need a C compiler and make, nothing else.

\`\`\`sh
$EX_CMD # the tests of chapter $EX_CH; the last line is "N passed, M failed"
$EX_RUN # run the chapter's narrated program
$EX_HINT # hint 1 of 3: the idea
$EX_HINT2 # hint 2: which helpers; TIER=3: the PyTorch line
make test                        # everything
\`\`\`

A blank you have not filled in yet makes its chapter's tests fail with

    exercise '$EX_NAME' ($EX_FILE:$EX_LINE) is not filled in: <hint>

A chapter is done when \`make test-chapterN\` ends in \`0 failed\`. Later
chapters call earlier ones (chapter 7 uses 3, 4, 5 and 6), so work in order;
\`make test-chapterN\` builds chapters 0 to N only, so a half-done later
chapter does not stop the tests of an earlier one.

## How you are graded

- Each blank is graded on its own: your answer goes into the teacher's
  copy of the project, where every other blank holds the teacher's code,
  and the chapter's tests run, plus hidden checks on random inputs you have
  not seen. A blank is worth its points only when all of them pass; a wrong
  or non-compiling answer costs that blank's points and nothing else.
- Only the code you write in the blanks counts (and helper functions or
  \`#include\` lines you add to the same file). \`main.c\`, headers,
  \`common/\`, \`tests/\` are the teacher's: edits there are ignored.
- Keep \`.exercise-manifest\` as it was handed out: it tells the grader
  which level and blanks you were given, and a tree without it, or whose
  manifest differs from what is graded, gets 0 points and the reason.
- Deleting the TODO comments or reformatting is fine; keep the code around
  each blank as it was handed out so that your answers can be told apart.
- The code must compile without warnings (\`-Wall -Wextra -Wpedantic -Werror\`).

## The blanks

| chapter | blank | level | points | where | hint |
|---|---|---|---|---|---|
EOF
    $AWK -F '\t' '{ n = $3; sub(/^chapters\//, "", n); sub(/_.*/, "", n); sub(/^0/, "", n);
        h = $6; gsub(/\|/, "\\|", h);
        printf "| %s | `%s` | %s | %s | %s:%s | %s |\n", n, $1, $2, $9, $3, $5, h }' "$TMPL.m"
} >"$OUT/README-EXERCISES.md"
sh "$EX_DIR/readme_zh.sh" "$OUT" "$LEVEL" "$B" "$(num_list "$CHS")" "$TMPL.m" \
    "$EX_NAME" "$EX_FILE" "$EX_LINE" "$EX_CH"   # README-EXERCISES.zh-CN.md

echo "exercises: wrote $OUT/ with $B blanks (level <= $LEVEL, chapters $(num_list "$CHS")); see $OUT/README-EXERCISES.md"
