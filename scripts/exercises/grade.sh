#!/bin/sh
# grade.sh DIR [LEVEL] [CHAPTERS] [STUDENT] — make grade: score a student's tree.
#
# Each handed-out chapter N is built from the student's chapters/NN_*/
# concept files (everything in that folder but main.c) together with this
# repository's solution for every other chapter and its own common/, tests/
# and harness, so edited tests do not count and one broken chapter does not
# sink the others. Then the chapter's tests run (tests/test_chNN and
# tests/test_chNN_program.sh).
#
# Per chapter, with b blanks handed out, f of them filled (no
# exercise_missing() call left for them), P tests passed and F failed:
#   all tests pass            -> b points
#   otherwise                 -> floor(f * P / (P + F))
#   does not compile          -> 0 (the first compiler error is shown)
# Prints a table, a CSV row per chapter into $GRADE_CSV (default
# build/grade.csv; rows of the same student are replaced), and last
# "score: X/Y". Exit status 0 when the tree could be graded, 2 when not.
. scripts/exercises/lib.sh
ex_check_root
ex_jobs

DIR=${1:-}
LEVEL=${2:-}
CHAPTERS=${3:-}
STUDENT=${4:-}
CSV=${GRADE_CSV:-build/grade.csv}

[ -n "$DIR" ] || die "make grade: give the student's tree, e.g. make grade DIR=submissions/alice"
[ -d "$DIR/chapters" ] || die "make grade: $DIR has no chapters/ folder: is it a tree made by make exercises?"
DIR=$(cd "$DIR" && pwd)
ROOT=$(pwd)
case "$DIR/" in
    "$ROOT/") die "make grade: DIR is this repository itself; give the student's tree" ;;
esac
[ -n "$STUDENT" ] || STUDENT=$(basename "$DIR")
STUDENT=$(echo "$STUDENT" | tr ',"' '__')

# What was handed out: the manifest of the tree, unless LEVEL/CHAPTERS say.
MAN=$DIR/.exercise-manifest
if [ -f "$MAN" ]; then
    [ -n "$LEVEL" ] || LEVEL=$(sed -n 's/^# level: *//p' "$MAN" | head -n 1)
    [ -n "$CHAPTERS" ] || CHAPTERS=$(sed -n 's/^# chapters: *//p' "$MAN" | head -n 1)
elif [ -z "$LEVEL" ]; then
    die "make grade: $DIR has no .exercise-manifest; give the LEVEL= (and CHAPTERS=) of the exercises you handed out"
fi
case $LEVEL in 1 | 2 | 3) ;; *) die "make grade: LEVEL=$LEVEL: the level must be 1, 2 or 3" ;; esac

W=build/grade
LOG=$W/make.log
mkdir -p "$W"
: >"$LOG"
list_blanks >"$W/blanks.tsv" || die "make grade: fix the markers of this repository first"
CHS=$(parse_chapters "$CHAPTERS" "$W/blanks.tsv") || exit 2

# The blanks handed out, recomputed from this repository's markers.
: >"$W/expected.tsv"
for f in $(concept_files); do
    in_list "$(chapter_nn "$f")" "$CHS" || continue
    $AWK -f "$EX_DIR/blank.awk" -v mode=stub -v level="$LEVEL" -v path="$f" -v manifest="$W/expected.tsv" "$f" >/dev/null ||
        die "make grade: $f: cannot read its blanks"
done
Y=$(grep -c '' "$W/expected.tsv")
if [ -f "$MAN" ] && [ -z "${2:-}" ] && [ -z "${3:-}" ]; then
    m=$(grep -vc '^#' "$MAN")
    [ "$m" -eq "$Y" ] || echo "grade: note: $MAN lists $m blanks, this repository's markers give $Y at level $LEVEL; grading with $Y" >&2
fi

# The solution tree, built once (kept in build/grade/base between runs).
rm -rf "$W/stage"
write_tree "$W/stage" 0 ""
mkdir -p "$W/base"
sync_tree "$W/stage" "$W/base"
rm -rf "$W/stage"
if ! tree_make "$W/base" BUILD=build CC="$CC" all; then
    echo "grade: this repository's own solution does not build: $(first_error "$LOG")" >&2
    exit 2
fi

echo "grade: $DIR (student '$STUDENT'), level $LEVEL, chapters $(num_list "$CHS")"
printf '%-8s %6s %5s %7s %7s %7s  %s\n' chapter blanks left passed failed score ""
mkdir -p "$(dirname "$CSV")"
ROWS=$W/rows.csv
: >"$ROWS"
X=0
for nn in $CHS; do
    n=$(chapter_num "$nn")
    b=$($AWK -F '\t' -v nn="$nn" 'index($3, "chapters/" nn "_") == 1 { c++ } END { print c + 0 }' "$W/expected.tsv")
    sdir=
    for d in "$DIR"/chapters/${nn}_*; do [ -d "$d" ] && sdir=$d; done
    note=
    left=-
    passed=-
    failed=-
    cpassed=
    cfailed=
    score=0
    compiles=no
    if [ ! -f "tests/test_ch$nn.c" ]; then
        # a gap of this repository (make check-exercises reports it), not the student's
        printf '%-8s %6s %5s %7s %7s %7s  %s\n' "$n" "$b" - - - - "not graded: this repository has no tests/test_ch$nn.c"
        Y=$((Y - b))
        continue
    elif [ -z "$sdir" ]; then
        note="no chapters/${nn}_* folder in the student's tree"
    else
        work=$W/work
        rm -rf "$work"
        cp -Rp "$W/base" "$work"
        rel=$(chapter_dir "$n")  # the folder as this repository names it
        # the chapter's concept files are the student's (main.c stays the original)
        for f in "$work/$rel"/*.c "$work/$rel"/*.h; do
            [ -f "$f" ] && [ "$(basename "$f")" != main.c ] && [ ! -f "$sdir/$(basename "$f")" ] && rm -f "$f"
        done
        left=0
        for f in "$sdir"/*.c "$sdir"/*.h; do
            [ -f "$f" ] || continue
            [ "$(basename "$f")" = main.c ] && continue
            k=$(grep -c 'exercise_missing *(' "$f")
            left=$((left + k))
            cmp -s "$f" "$work/$rel/$(basename "$f")" || cp "$f" "$work/$rel/"
        done
        [ "$left" -gt "$b" ] && left=$b
        : >"$LOG"
        if ! tree_make "$work" BUILD=build CC="$CC" "build/tests/test_ch$nn" "build/chapter$n" build/npyinfo; then
            note="does not compile: $(first_error "$LOG")"
        else
            compiles=yes
            set -- "build/tests/test_ch$nn"
            [ -f "$work/tests/test_ch${nn}_program.sh" ] && set -- "$@" "tests/test_ch${nn}_program.sh"
            (cd "$work" && BUILD=build with_timeout 600 sh tests/run_tests.sh "$@") </dev/null >"$W/test.log" 2>&1
            last=$(tail -n 1 "$W/test.log")
            case $last in
                *" passed, "*" failed")
                    passed=${last%% passed*}
                    failed=${last#* passed, }
                    failed=${failed%% failed}
                    ;;
                *)
                    passed=0 failed=1
                    note="the tests did not finish (time limit?)"
                    ;;
            esac
            if [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]; then
                score=$b
            elif [ $((passed + failed)) -eq 0 ]; then
                score=0
            else
                score=$(((b - left) * passed / (passed + failed)))
                [ -n "$note" ] || note="first failure: $(grep -m1 -E "exercise '|FAIL|: [0-9]+ passed, [1-9]" "$W/test.log" | sed -e "s/^tests\/harness.c:[0-9]*: //" -e "s/ is not filled in:.*/ is not filled in/" | cut -c1-100)"
            fi
        fi
    fi
    X=$((X + score))
    printf '%-8s %6s %5s %7s %7s %7s  %s\n' "$n" "$b" "$left" "$passed" "$failed" "$score/$b" "$note"
    [ "$compiles" = yes ] && cpassed=$passed cfailed=$failed
    echo "$STUDENT,$n,$b,$left,$cpassed,$cfailed,$compiles,$score" >>"$ROWS"
done
rm -rf "$W/work"

# The gradebook: header once, this student's rows replaced.
HEADER="student,chapter,blanks,blanks_left,tests_passed,tests_failed,compiles,score"
{
    echo "$HEADER"
    if [ -f "$CSV" ]; then
        $AWK -F ',' -v s="$STUDENT" 'NR > 1 && $1 != s' "$CSV"
    fi
    cat "$ROWS"
} >"$CSV.new" && mv "$CSV.new" "$CSV"
echo "gradebook: $CSV"
echo "score: $X/$Y"
