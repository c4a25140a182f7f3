#!/bin/sh
# grade_class.sh SUBMISSIONS LEVEL [CHAPTERS] [JOBS] — make grade-class.
#
# Every immediate subfolder of SUBMISSIONS is one student: its name is the id
# when it is text without control characters (gradetool list), else the
# folder gets a made-up id, 0 points and the reason. Each is graded as make
# grade does (grade_lib.sh), JOBS at a time. Writes build/grade/class.csv
# (student,score,max,percent, then one column per blank, named by the blank,
# each cell the points earned; RFC 4180, cells guarded against formulas) and
# build/grade/feedback/<id>.txt; the last line is
# "graded: S students, mean P%". On a terminal a line "k/S students" shows
# the progress. Each run works in its own folder under build/grade/runs/, so
# two runs at once do not collide.
. scripts/exercises/lib.sh
. scripts/exercises/grade_lib.sh
ex_check_root
ex_jobs

SUBS=${1:-}
LEVEL=${2:-}
CHAPTERS=${3:-}
NJOBS=${4:-}
OUT=${GRADE_OUT:-build/grade}

[ -n "$SUBS" ] || die "make grade-class: give the folder of submissions, e.g. make grade-class SUBMISSIONS=submissions LEVEL=1"
[ -d "$SUBS" ] || die "make grade-class: SUBMISSIONS=$SUBS is not a folder"
[ -n "$LEVEL" ] || die "make grade-class: give the LEVEL=1|2|3 you handed out (the students' manifests are not trusted)"
case $LEVEL in 1 | 2 | 3) ;; *) die "make grade-class: LEVEL=$LEVEL: the level must be 1, 2 or 3" ;; esac
[ -n "$NJOBS" ] || NJOBS=1
case $NJOBS in *[!0-9]* | 0) die "make grade-class: JOBS=$NJOBS: give a number of students to grade at once (1, 2, ...)" ;; esac
GIVEN=$SUBS
SUBS=$(cd "$SUBS" && pwd)

trap 'g_cgroup_cleanup; rm -rf "${RUN:-/nonexistent}" "${G_STAGE:-/nonexistent}"' EXIT
trap 'exit 2' INT TERM
g_setup "$LEVEL" "$CHAPTERS" || exit 2

# the students: one row per folder, in name order (gradetool list: "id ok" or "id bad reason")
"$G_TOOL" list "$SUBS" >"$RUN/students.tsv" || exit 2
S=$(grep -c '' "$RUN/students.tsv")
[ "$S" -gt 0 ] || die "make grade-class: $SUBS has no subfolders (one per student)"
NB=$(grep -c . "$RUN/blanks.tsv")
echo "grade-class: $S students in $GIVEN, level $LEVEL, chapters $(num_list "$GCHS"), $NB blanks, $NJOBS at a time"

: >"$RUN/done"
j=0
while [ "$j" -lt "$NJOBS" ]; do
    (
        k=0
        while IFS='	' read -r id st why; do
            k=$((k + 1))
            [ $(((k - 1) % NJOBS)) -eq "$j" ] || continue
            if [ "$st" = ok ]; then
                g_grade_student "$SUBS/$id" "$k" "$id" </dev/null
            else
                g_grade_student "" "$k" "$id" "$why" </dev/null
            fi
            echo "$k" >>"$RUN/done"
        done <"$RUN/students.tsv"
    ) &
    j=$((j + 1))
done
if [ -t 1 ]; then
    while :; do
        k=$(grep -c . "$RUN/done")
        printf '\r%d/%d students' "$k" "$S"
        [ "$k" -ge "$S" ] && break
        sleep 1
    done
    printf '\n'
fi
wait

# class.csv (gradetool: quoting and formula guards) and the feedback files,
# written in the run folder and moved in place
mkdir -p "$OUT/feedback"
"$G_TOOL" csv "$RUN" "$RUN/class.csv" >"$RUN/mean" || exit 2
k=0
while IFS='	' read -r id st why; do
    k=$((k + 1))
    G_ID=$id
    export G_ID
    g_feedback "$id" "$RUN/s/$k/result.tsv" "$LEVEL" >"$RUN/fb" && mv "$RUN/fb" "$OUT/feedback/$id.txt" ||
        { echo "grade-class: cannot write the feedback of '$id' into $OUT/feedback/" >&2; exit 2; }
done <"$RUN/students.tsv"
cp "$RUN/class.csv" "$OUT/class.csv.$$" && mv "$OUT/class.csv.$$" "$OUT/class.csv"
echo "class: $OUT/class.csv, feedback: $OUT/feedback/"
cat "$RUN/mean"
