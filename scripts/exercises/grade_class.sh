#!/bin/sh
# grade_class.sh SUBMISSIONS LEVEL [CHAPTERS] [JOBS] [STUDENT] — make grade-class.
#
# Every immediate subfolder of SUBMISSIONS is one student: its name is the id
# when it is text without control characters (gradetool list), else the
# folder gets a made-up id, 0 points and the reason. Each is graded as make
# grade does (grade_lib.sh), JOBS at a time; a tree whose handout manifest
# says another level or lacks a graded blank gets 0 and the reason. Writes,
# in the class's folder OUT (GRADE_OUT, default build/grade/<name of
# SUBMISSIONS>): class.csv (student,score,max,percent, then one column per
# blank, named by the blank, each cell the points earned, and a last column
# notes when some folder names differ only by trailing spaces or dots or
# look-alike letters (gradetool lookalike); RFC 4180, cells guarded against
# formulas), feedback/<id>.txt, gradescope/<id>.json and
# prairielearn/<id>.json (each LMS's results.json), grading.json (the run's
# record: seed, level, chapters, blanks, version, when, scores) and record/
# (what a regrade needs); without GRADE_OUT, build/grade/class.csv and
# build/grade/feedback/ (GRADE_ROOT: build/grade) are also a copy of the last
# class graded; the last line is "graded: S students, mean P%".
# STUDENT=id regrades that one folder with the recorded seed, level and
# chapters and replaces its row and files, leaving the rest. On a terminal a
# line "k/S students" shows the progress. Each run works in its own folder
# under build/grade/runs/, so two runs at once do not collide.
. scripts/exercises/lib.sh
. scripts/exercises/grade_lib.sh
ex_check_root
ex_jobs

SUBS=${1:-}
LEVEL=${2:-}
CHAPTERS=${3:-}
NJOBS=${4:-}
ONE=${5:-}

[ -n "$SUBS" ] || die "make grade-class: give the folder of submissions, e.g. make grade-class SUBMISSIONS=submissions LEVEL=1"
[ -d "$SUBS" ] || die "make grade-class: SUBMISSIONS=$SUBS is not a folder"
GIVEN=$SUBS
SUBS=$(cd "$SUBS" && pwd)
# each class in its own folder, named after SUBMISSIONS
_cls=$(basename "$SUBS" | tr -c 'A-Za-z0-9_.@+-' '_' | sed 's/_*$//' | cut -c1-200)
case $_cls in "" | . | ..) _cls=class ;; cache | runs | feedback | class.csv) _cls=class-$_cls ;; esac   # (the grader's own)
GROOT=${GRADE_ROOT:-build/grade}   # where classes get their default folder
OUT=${GRADE_OUT:-$GROOT/$_cls}
g_check_env "make grade-class"
# (the output folder first: a class is not graded for nothing)
mkdir -p "$OUT" 2>/dev/null && [ -w "$OUT" ] || die "make grade-class: cannot write into $OUT (GRADE_OUT)"
[ -n "$NJOBS" ] || NJOBS=1
case $NJOBS in *[!0-9]* | 0) die "make grade-class: JOBS=$NJOBS: give a number of students to grade at once (1, 2, ...)" ;; esac

# a regrade: the record of the class's run gives the seed, the level and the chapters
if [ -n "$ONE" ]; then
    REC=$OUT/grading.json
    [ -f "$REC" ] && [ -f "$OUT/record/students.tsv" ] ||
        die "make grade-class: STUDENT=$ONE: $OUT has no record of a graded class (grading.json); grade the class first, or give its GRADE_OUT"
    # (the record's top-level keys, one a line, written by gradetool record)
    r_seed=$(sed -n 's/^  "seed": \([0-9]*\),$/\1/p' "$REC" | head -n 1)
    r_level=$(sed -n 's/^  "level": \([0-9]*\),$/\1/p' "$REC" | head -n 1)
    r_chs=$(sed -n 's/^  "chapters": \[\([0-9, ]*\)\],$/\1/p' "$REC" | head -n 1 | tr -d ' ')
    [ -n "$r_seed" ] && [ -n "$r_level" ] && [ -n "$r_chs" ] ||
        die "make grade-class: STUDENT=$ONE: $REC is not a record written by make grade-class"
    [ -z "${GRADE_SEED:-}" ] || [ "$GRADE_SEED" = "$r_seed" ] ||
        die "make grade-class: STUDENT=$ONE regrades with the class's recorded seed $r_seed; leave GRADE_SEED=$GRADE_SEED out"
    [ -z "$LEVEL" ] || [ "$LEVEL" = "$r_level" ] ||
        die "make grade-class: STUDENT=$ONE: the class was graded at level $r_level, not LEVEL=$LEVEL; leave LEVEL out to regrade at $r_level"
    [ -z "$CHAPTERS" ] || [ "$CHAPTERS" = "$r_chs" ] ||
        die "make grade-class: STUDENT=$ONE: the class was graded with CHAPTERS=$r_chs, not $CHAPTERS; leave CHAPTERS out"
    k1=$($AWK -F '\t' -v id="$ONE" '$1 == id && $2 == "ok" { print NR; exit }' "$OUT/record/students.tsv")
    [ -n "$k1" ] ||
        die "make grade-class: STUDENT=$ONE is not a graded student of $OUT (see the first column of $OUT/class.csv)"
    [ -d "$SUBS/$ONE" ] && [ ! -L "$SUBS/$ONE" ] || die "make grade-class: STUDENT=$ONE: $GIVEN/$ONE is not a folder"
    GRADE_SEED=$r_seed LEVEL=$r_level CHAPTERS=$r_chs
    export GRADE_SEED
fi
[ -n "$LEVEL" ] || die "make grade-class: give the LEVEL=1|2|3 you handed out"
case $LEVEL in 1 | 2 | 3) ;; *) die "make grade-class: LEVEL=$LEVEL: the level must be 1, 2 or 3" ;; esac

trap 'g_cgroup_cleanup; rm -rf "${RUN:-/nonexistent}" "${G_STAGE:-/nonexistent}"' EXIT
trap 'exit 2' INT TERM
g_setup "$LEVEL" "$CHAPTERS" || exit 2
# ROSTER=FILE: the gradebook files for Canvas and Moodle; the roster is checked first
if [ -n "${ROSTER:-}" ]; then
    "$G_TOOL" gradebook "$ROSTER" >/dev/null 2>"$RUN/roster.err" ||
        die "make grade-class: $(sed 's/^gradetool: //' "$RUN/roster.err" | head -n 1)"
fi

NB=$(grep -c . "$RUN/blanks.tsv")
if [ -n "$ONE" ]; then
    # the class as recorded; only student k1 is graded again, on the same blanks
    cmp -s "$RUN/blanks.tsv" "$OUT/record/blanks.tsv" ||
        die "make grade-class: STUDENT=$ONE: the blanks or their points changed since the class was graded; grade the whole class again"
    cp "$OUT/record/students.tsv" "$RUN/students.tsv" && cp -R "$OUT/record/s" "$RUN/s" || die "make grade-class: cannot read $OUT/record"
    S=$(grep -c '' "$RUN/students.tsv")
    echo "grade-class: regrading '$ONE' of $GIVEN, level $LEVEL, chapters $(num_list "$GCHS"), $NB blanks, the recorded seed"
    g_grade_student "$SUBS/$ONE" "$k1" "$ONE" </dev/null
else
# the students: one row per folder, in name order (gradetool list: "id ok" or "id bad reason")
"$G_TOOL" list "$SUBS" >"$RUN/students.tsv" || exit 2
S=$(grep -c '' "$RUN/students.tsv")
[ "$S" -gt 0 ] || die "make grade-class: $SUBS has no subfolders (one per student)"
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
fi

# class.csv (gradetool: quoting and formula guards), the feedback and LMS files
# and the record, written in the run folder or beside their place and moved in place
mkdir -p "$OUT/feedback" "$RUN/record" || die "make grade-class: cannot write into $OUT"
"$G_TOOL" csv "$RUN" "$RUN/class.csv" >"$RUN/mean" || exit 2
if [ -n "${ROSTER:-}" ]; then
    "$G_TOOL" gradebook "$ROSTER" "$RUN" "${GRADE_ASSIGNMENT:-attention-in-c level $LEVEL}" "$OUT/canvas.csv" "$OUT/moodle.csv" ||
        exit 2
    echo "gradebook: $OUT/canvas.csv (Canvas), $OUT/moodle.csv (Moodle), from ROSTER=$ROSTER"
fi
k=0
while IFS='	' read -r id st why; do
    k=$((k + 1))
    [ -z "$ONE" ] || [ "$k" = "$k1" ] || continue
    G_ID=$id
    export G_ID
    g_feedback "$id" "$RUN/s/$k/result.tsv" "$LEVEL" >"$RUN/fb" && mv "$RUN/fb" "$OUT/feedback/$id.txt" && g_results "$id" "$k" ||
        { echo "grade-class: cannot write the feedback of '$id' into $OUT/" >&2; exit 2; }
    [ -f "$RUN/s/$k/mismatch" ] && echo "grade-class: '$id' got 0: $(g_clean "$(cat "$RUN/s/$k/mismatch")")" >&2
done <"$RUN/students.tsv"
"$G_TOOL" record "$RUN" "$RUN/grading.json" "$G_SEED" "$LEVEL" "$(num_list "$GCHS")" "$(g_version)" \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$G_VIS" || exit 2
cp "$RUN/blanks.tsv" "$RUN/students.tsv" "$RUN/record/" &&
    for d in "$RUN"/s/*/; do
        k=$(basename "$d")
        mkdir -p "$RUN/record/s/$k" && cp "$d/result.tsv" "$d/seconds" "$RUN/record/s/$k/" || exit 2
    done || die "make grade-class: cannot keep the record"
rm -rf "$OUT/record.$$" && mv "$RUN/record" "$OUT/record.$$" && rm -rf "$OUT/record" && mv "$OUT/record.$$" "$OUT/record" &&
    cp "$RUN/grading.json" "$OUT/grading.json.$$" && mv "$OUT/grading.json.$$" "$OUT/grading.json" &&
    cp "$RUN/class.csv" "$OUT/class.csv.$$" && mv "$OUT/class.csv.$$" "$OUT/class.csv" ||
    die "make grade-class: cannot write into $OUT"
# the contract: build/grade/class.csv and build/grade/feedback/ hold the last class graded
# into its default folder (a copy; the class's own folder is the record)
if [ -z "${GRADE_OUT:-}" ]; then
    rm -rf "$GROOT/feedback.$$" && cp -R "$OUT/feedback" "$GROOT/feedback.$$" &&
        rm -rf "$GROOT/feedback" && mv "$GROOT/feedback.$$" "$GROOT/feedback" &&
        cp "$OUT/class.csv" "$GROOT/class.csv.$$" && mv "$GROOT/class.csv.$$" "$GROOT/class.csv" ||
        die "make grade-class: cannot copy the class to $GROOT/class.csv and $GROOT/feedback/"
fi
echo "class: $OUT/class.csv, feedback: $OUT/feedback/"
echo "LMS: gradescope/, prairielearn/; record: grading.json (in $OUT/)"
cat "$RUN/mean"
