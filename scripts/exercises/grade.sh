#!/bin/sh
# grade.sh DIR [LEVEL] [CHAPTERS] [STUDENT] — make grade: score one student's tree.
#
# Blank by blank (grade_lib.sh): the student's answer alone goes into the
# teacher's code, is built with the teacher's headers, tests and harness,
# runs sandboxed, and earns the blank's points only when every test of its
# chapter passes and the hidden checks on fresh random inputs agree with the
# teacher's code. LEVEL and CHAPTERS are the teacher's (default: level 1,
# the default chapters of make exercises); the tree's own manifest is never
# read except to compare: a tree whose handout manifest says another level or
# lacks a graded blank gets 0 and the reason. Prints one line per blank,
# writes, in OUT (GRADE_OUT, default build/grade), feedback/STUDENT.txt,
# gradescope/STUDENT.json and prairielearn/STUDENT.json (each LMS's
# results.json), and ends with "score: X/Y". Exit status 0 when graded, 2 when not.
. scripts/exercises/lib.sh
. scripts/exercises/grade_lib.sh
ex_check_root
ex_jobs

DIR=${1:-}
LEVEL=${2:-1}
CHAPTERS=${3:-}
STUDENT=${4:-}
OUT=${GRADE_OUT:-build/grade}

[ -n "$DIR" ] || die "make grade: give the student's tree, e.g. make grade DIR=submissions/alice"
[ -d "$DIR" ] || die "make grade: $DIR is not a folder"
DIR=$(cd "$DIR" && pwd)
ROOT=$(pwd)
case "$DIR/" in
    "$ROOT/") die "make grade: DIR is this repository itself; give the student's tree" ;;
esac
case $LEVEL in 1 | 2 | 3) ;; *) die "make grade: LEVEL=$LEVEL: the level must be 1, 2 or 3" ;; esac
[ -n "$STUDENT" ] || STUDENT=$(basename "$DIR")
STUDENT=$(echo "$STUDENT" | tr -c 'A-Za-z0-9_.@+-' '_' | sed 's/_*$//' | cut -c1-200)
[ -n "$STUDENT" ] || STUDENT=student
g_check_env "make grade"
mkdir -p "$OUT" 2>/dev/null && [ -w "$OUT" ] || die "make grade: cannot write into $OUT (GRADE_OUT)"

trap 'g_cgroup_cleanup; rm -rf "${RUN:-/nonexistent}" "${G_STAGE:-/nonexistent}"' EXIT
trap 'exit 2' INT TERM
g_setup "$LEVEL" "$CHAPTERS" || exit 2
echo "grade: $DIR (student '$STUDENT'), level $LEVEL, chapters $(num_list "$GCHS"); $(grep -c . "$RUN/blanks.tsv") blanks"
g_grade_student "$DIR" 1 "$STUDENT"
mkdir -p "$OUT/feedback"
G_ID=$STUDENT
export G_ID
g_feedback "$STUDENT" "$RUN/s/1/result.tsv" "$LEVEL" >"$RUN/fb" && mv "$RUN/fb" "$OUT/feedback/$STUDENT.txt" &&
    g_results "$STUDENT" 1 || die "make grade: cannot write the feedback of '$STUDENT' into $OUT/"
tail -n +3 "$OUT/feedback/$STUDENT.txt"
echo "feedback: $OUT/feedback/$STUDENT.txt"
echo "LMS: gradescope/$STUDENT.json, prairielearn/$STUDENT.json (in $OUT/)"
$AWK -F '\t' '{ x += $2; y += $3 } END { printf "score: %d/%d\n", x, y }' "$RUN/s/1/result.tsv"
