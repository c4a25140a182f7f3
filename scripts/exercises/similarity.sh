#!/bin/sh
# similarity.sh SUBMISSIONS LEVEL [CHAPTERS] — make similarity.
#
# Every immediate subfolder of SUBMISSIONS is one student, named as make
# grade-class names them (gradetool list: a folder whose name is not data is
# left out and said so). For each handed-out blank (level <= LEVEL in
# CHAPTERS, as make grade-class cuts them) each student's answer is cut out of
# the file as the grader does it (gradetool normalize, extract.awk), after
# the compiler's preprocessor on a safe copy (pp below: macros expanded, the
# #if's decided, nothing included), with the functions the student added that
# it calls appended (extract.awk -v answers), and
# compared as text with every other student's answer and with the teacher's
# code of the blank, the pseudo-student "teacher/solution", a name no folder can
# have (similarity.c: normalised
# C tokens, winnowed k-gram fingerprints, the Jaccard index of the sets).
# Nothing a student wrote is compiled or run. Folder names that differ only by
# trailing spaces or dots or look-alike letters are named (gradetool
# lookalike). Writes, beside the class's
# grades, OUT/similarity.csv (student_a,student_b,blank,score,kind: the pairs
# at or above the threshold, highest first; one "trivial" row per blank none of
# whose pairs could be compared, two answers both too short) and OUT/similarity.txt (how to read it); OUT is
# SIMILARITY_OUT, else GRADE_OUT, else build/grade/<name of SUBMISSIONS>.
# Knobs (docs/TEACHING.md): SIMILARITY_THRESHOLD (0.5), SIMILARITY_K (5
# tokens a k-gram), SIMILARITY_W (4 k-grams a window), SIMILARITY_MIN_TOKENS
# (30, about two lines of code: two answers both shorter are trivial, not compared).
. scripts/exercises/lib.sh
ex_check_root
LC_ALL=C
export LC_ALL

SUBS=${1:-}
LEVEL=${2:-}
CHAPTERS=${3:-}
THR=${SIMILARITY_THRESHOLD:-0.5}
K=${SIMILARITY_K:-5}
W=${SIMILARITY_W:-4}
MINTOK=${SIMILARITY_MIN_TOKENS:-30}
SIM=${SIM_TOOL:-${BUILD:-build}/similarity}

[ -n "$SUBS" ] || die "make similarity: give the folder of submissions, e.g. make similarity SUBMISSIONS=submissions LEVEL=1"
[ -d "$SUBS" ] || die "make similarity: SUBMISSIONS=$SUBS is not a folder"
[ -n "$LEVEL" ] || die "make similarity: give the LEVEL=1|2|3 you handed out"
case $LEVEL in 1 | 2 | 3) ;; *) die "make similarity: LEVEL=$LEVEL: the level must be 1, 2 or 3" ;; esac
case $THR in '' | *[!0-9.]* | *.*.*) die "make similarity: SIMILARITY_THRESHOLD=$THR: give a number from 0 to 1" ;; esac
for v in "SIMILARITY_K=$K" "SIMILARITY_W=$W" "SIMILARITY_MIN_TOKENS=$MINTOK"; do
    case ${v#*=} in '' | *[!0-9]*) die "make similarity: $v: give a whole number" ;; esac
done
# the largest student file read, as make grade reads them (else every file would be skipped)
SRC_BYTES=${GRADE_SOURCE_BYTES:-1048576}
case $SRC_BYTES in
    '' | *[!0-9]* | 0* | ?????????????*)
        die "make similarity: GRADE_SOURCE_BYTES=$SRC_BYTES: give a whole number from 1 (the largest student file read)" ;;
esac
[ "$K" -ge 1 ] && [ "$W" -ge 1 ] || die "make similarity: SIMILARITY_K and SIMILARITY_W must be at least 1"
[ -x "$SIM" ] || die "make similarity: $SIM is not built (run it as make similarity)"
GIVEN=$SUBS
SUBS=$(cd "$SUBS" && pwd)
if [ -n "${SIMILARITY_OUT:-}" ]; then OUT=$SIMILARITY_OUT
elif [ -n "${GRADE_OUT:-}" ]; then OUT=$GRADE_OUT
else OUT=build/grade/$(basename "$SUBS" | tr -c 'A-Za-z0-9._\n-' _)
fi
mkdir -p "$OUT" 2>/dev/null && [ -w "$OUT" ] || die "make similarity: cannot write into $OUT (SIMILARITY_OUT)"

mkdir -p build/grade/runs || die "make similarity: cannot create build/grade/runs"
W0=$(mktemp -d build/grade/runs/similarity.XXXXXX) || die "make similarity: cannot create a work folder in build/grade/runs"
W0=$(cd "$W0" && pwd)
trap 'rm -rf "$W0"' EXIT
trap 'exit 2' INT TERM

# the handed-out blanks: outermost of level <= LEVEL in the chapters (as make grade cuts them)
list_blanks >"$W0/all.tsv" || die "make similarity: fix the markers of this repository first"
CHS=$(parse_chapters "$CHAPTERS" "$W0/all.tsv") || exit 2
: >"$W0/stubs.tsv"
for f in $(concept_files); do
    in_list "$(chapter_nn "$f")" "$CHS" || continue
    $AWK -f "$EX_DIR/blank.awk" -v mode=stub -v level="$LEVEL" -v path="$f" -v manifest="$W0/stubs.tsv" "$f" >/dev/null ||
        die "make similarity: $f: cannot read its blanks"
done
[ -s "$W0/stubs.tsv" ] || die "make similarity: no blanks of level <= $LEVEL in chapters $(num_list "$CHS")"

# What the compiler sees of a file, for comparing: IN made safe (similarity ppsafe:
# macros and conditionals only, no #include, #pragma, _Pragma, __has_include or
# '##', so the preprocessor opens no file a student named), then the compiler's own
# preprocessor (-E, no system headers, no line markers) in an empty folder, under a
# time, memory and output-size limit; the file as written when that fails.
# pp IN OUT [-C]   (-C: comments kept, for the teacher's markers)
mkdir -p "$W0/ppd"
pp() {
    "$SIM" ppsafe "$1" "$W0/pp.c" 2>/dev/null &&
        (ulimit -v 2097152 2>/dev/null; ulimit -f 8192 2>/dev/null; cd "$W0/ppd" &&
            exec env -u DEPENDENCIES_OUTPUT -u SUNPRO_DEPENDENCIES timeout -k 1 10 $CC -E -P -nostdinc -std=c99 -w ${3:-} -x c - \
                -o "$W0/pp.i" <"$W0/pp.c" >/dev/null 2>&1) && mv "$W0/pp.i" "$2" && return 0
    rm -f "$W0/pp.i"
    cp "$1" "$2"
    return 1
}

# the teacher's files through the same preprocessor (markers kept), and the reference
# answers: the teacher's lines between the markers there (inner markers dropped)
mkdir -p "$W0/ref" "$W0/orig"
for f in $(cut -f3 "$W0/stubs.tsv" | $AWK '!seen[$0]++'); do
    mkdir -p "$W0/orig/$(dirname "$f")"
    pp "$f" "$W0/orig/$f" -C || die "make similarity: $f: the preprocessor ($CC -E) cannot read it"
done
while IFS='	' read -r name _ path _; do
    $AWK -v n="$name" '$0 ~ "^[ \t]*/[*] BEGIN BLANK " n "( |$)" { on = 1; d = 0; next }
        on && /^[ \t]*\/\* BEGIN BLANK / { d++; next }
        on && /^[ \t]*\/\* END BLANK/ { if (d-- == 0) exit; next }
        on' "$W0/orig/$path" >"$W0/ref/$name.c"
done <"$W0/stubs.tsv"

# the trusted side's own tool for names and text (make grade's)
$CC -std=c99 -O2 "$EX_DIR/gradetool.c" -lm -o "$W0/gradetool" >"$W0/cc.log" 2>&1 ||
    { echo "make similarity: scripts/exercises/gradetool.c does not build: $(first_error "$W0/cc.log")" >&2; exit 1; }
"$W0/gradetool" list "$SUBS" >"$W0/students.tsv" || exit 2
[ -s "$W0/students.tsv" ] || die "make similarity: $GIVEN has no subfolders (one per student)"
# folder names that differ only by trailing spaces or dots or look-alike letters (one
# student twice, or one posing as another): said in the report, names escaped
"$W0/gradetool" lookalike "$W0/students.tsv" >"$W0/lookalike" || exit 2

# each student's answers, cut out as the grader does it; read as text only
: >"$W0/skipped"
k=0
while IFS='	' read -r id st why; do
    k=$((k + 1))
    if [ "$st" != ok ]; then
        echo "not compared: $why" >>"$W0/skipped"
        continue
    fi
    mkdir -p "$W0/s/$k/a" "$W0/s/$k/x"
    for f in $(cut -f3 "$W0/stubs.tsv" | $AWK '!seen[$0]++'); do
        names=$($AWK -F '\t' -v f="$f" '$3 == f { printf "%s ", $1 }' "$W0/stubs.tsv")
        src=$SUBS/$id/$f
        _p=$SUBS/$id _link=
        for _c in $(echo "$f" | tr '/' ' '); do
            _p=$_p/$_c
            [ -L "$_p" ] && _link=1
        done
        [ -z "$_link" ] && [ -f "$src" ] || continue
        mkdir -p "$W0/s/$k/n/$(dirname "$f")"
        "$W0/gradetool" normalize "$src" "$W0/s/$k/n/$f" "$SRC_BYTES" >/dev/null 2>&1 || continue
        pp "$W0/s/$k/n/$f" "$W0/s/$k/n/$f.i" ||
            echo "compared as written, not preprocessed: $id's $f (the preprocessor refused it or hit its limits)" >>"$W0/skipped"
        timeout -k 1 "${GRADE_TIME:-60}" $AWK -f "$EX_DIR/extract.awk" -v ref="$W0/orig/$f" -v blanks="$names" -v check_all=1 \
            -v outdir="$W0/s/$k/x" -v answers="$W0/s/$k/a" "$W0/s/$k/n/$f.i" >/dev/null 2>&1
    done
done <"$W0/students.tsv"

# the list the comparison reads: per blank, the solution first, then the students by name
: >"$W0/list.tsv"
while IFS='	' read -r name _; do
    printf '%s\tteacher/solution\t%s\n' "$name" "$W0/ref/$name.c" >>"$W0/list.tsv"
    k=0
    while IFS='	' read -r id st _; do
        k=$((k + 1))
        [ "$st" = ok ] && [ -f "$W0/s/$k/a/$name.c" ] && printf '%s\t%s\t%s\n' "$name" "$id" "$W0/s/$k/a/$name.c" >>"$W0/list.tsv"
    done <"$W0/students.tsv"
done <"$W0/stubs.tsv"

"$SIM" compare "$W0/list.tsv" "$W0/similarity.csv" "$K" "$W" "$THR" "$MINTOK" >"$W0/summary" || exit $?
S=$(grep -c '	ok$' "$W0/students.tsv")
{
    if [ "$S" = 1 ]; then students="1 student"; else students="$S students"; fi
    echo "similarity report of $GIVEN, level $LEVEL, chapters $(num_list "$CHS"): $students"
    echo "settings: k = $K tokens, window w = $W, threshold $THR, trivial below $MINTOK tokens"
    echo
    echo "A score is the share of fingerprints two answers to one blank have in common"
    echo "(Jaccard index, 0..1), after comments, layout, names and literals are set aside."
    echo "Each answer is read after the preprocessor (its macros expanded), followed by"
    echo "the functions the student added to the file that it calls."
    echo "A high score is a reason to look at both answers side by side, never proof"
    echo "of copying: short blanks, the hints and the tutorial itself lead honest"
    echo "students to the same code. 'teacher/solution' is the teacher's code of the"
    echo "blank (the published tutorial). Two answers both shorter than the trivial"
    echo "size are too short to tell a copy from independent correct answers and are"
    echo "not compared; a blank none of whose pairs could be compared is listed as"
    echo "trivial. A low score proves nothing either: an answer rewritten by hand, or"
    echo "by a tool, scores low."
    echo
    $AWK -F, 'NR > 1 && $5 == "trivial" { print "trivial, not compared: " $3 }' "$W0/similarity.csv"
    cat "$W0/lookalike" "$W0/skipped"
} >"$W0/similarity.txt"
mv "$W0/similarity.csv" "$OUT/similarity.csv.$$" && mv "$OUT/similarity.csv.$$" "$OUT/similarity.csv" &&
    mv "$W0/similarity.txt" "$OUT/similarity.txt.$$" && mv "$OUT/similarity.txt.$$" "$OUT/similarity.txt" ||
    { echo "make similarity: cannot write into $OUT" >&2; exit 1; }
cat "$W0/lookalike" "$W0/skipped"
echo "similarity: $OUT/similarity.csv, how to read it: $OUT/similarity.txt"
cat "$W0/summary"
