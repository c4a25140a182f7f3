#!/bin/sh
# grade_class.sh SUBMISSIONS LEVEL [CHAPTERS] [JOBS] — make grade-class.
#
# Every immediate subfolder of SUBMISSIONS is one student (the folder name is
# the id). Each is graded as make grade does (grade_lib.sh), JOBS at a time.
# Writes build/grade/class.csv (student,score,max,percent, then one column
# per blank, named by the blank, each cell the points earned) and
# build/grade/feedback/<student>.txt; the last line is
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
SUBS=$(cd "$SUBS" && pwd)

trap 'rm -rf "${RUN:-/nonexistent}"' EXIT
trap 'exit 2' INT TERM
g_setup "$LEVEL" "$CHAPTERS" || exit 2

# the students: immediate subfolders, ids made safe for a file name and a CSV cell
: >"$RUN/students.tsv"
for d in "$SUBS"/*/; do
    [ -d "$d" ] || continue
    d=${d%/}
    [ -L "$d" ] && continue
    id=$(basename "$d" | tr -c 'A-Za-z0-9_.@+-' '_' | sed 's/_*$//')
    [ -n "$id" ] || id=student
    while grep -q "	$id\$" "$RUN/students.tsv"; do id=${id}_; done
    printf '%s\t%s\n' "$d" "$id" >>"$RUN/students.tsv"
done
S=$(grep -c . "$RUN/students.tsv")
[ "$S" -gt 0 ] || die "make grade-class: $SUBS has no subfolders (one per student)"
NB=$(grep -c . "$RUN/blanks.tsv")
echo "grade-class: $S students in $SUBS, level $LEVEL, chapters $(num_list "$GCHS"), $NB blanks, $NJOBS at a time"

: >"$RUN/done"
j=0
while [ "$j" -lt "$NJOBS" ]; do
    (
        k=0
        while IFS='	' read -r d id; do
            k=$((k + 1))
            [ $(((k - 1) % NJOBS)) -eq "$j" ] || continue
            g_grade_student "$d" "$id" </dev/null
            echo "$id" >>"$RUN/done"
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

# class.csv and the feedback files, written in the run folder and moved in place
mkdir -p "$OUT/feedback"
CSV=$RUN/class.csv
{
    printf 'student,score,max,percent'
    cut -f1 "$RUN/blanks.tsv" | $AWK '{ printf ",%s", $1 } END { printf "\n" }'
    while IFS='	' read -r d id; do
        r=$RUN/s/$id/result.tsv
        [ -f "$r" ] || { echo "grade-class: $id was not graded" >&2; continue; }
        $AWK -F '\t' -v id="$id" '{ x += $2; y += $3; c = c "," $2 }
            END { printf "%s,%d,%d,%.1f%s\n", id, x, y, y ? 100 * x / y : 0, c }' "$r"
        g_feedback "$id" "$r" "$LEVEL" >"$OUT/feedback/$id.txt.$$" && mv "$OUT/feedback/$id.txt.$$" "$OUT/feedback/$id.txt"
    done <"$RUN/students.tsv"
} >"$CSV"
cp "$CSV" "$OUT/class.csv.$$" && mv "$OUT/class.csv.$$" "$OUT/class.csv"
echo "class: $OUT/class.csv, feedback: $OUT/feedback/"
$AWK -F ',' 'NR > 1 { n++; p += $4 } END { printf "graded: %d students, mean %.1f%%\n", n, n ? p / n : 0 }' "$CSV"
