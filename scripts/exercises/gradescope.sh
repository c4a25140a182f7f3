#!/bin/sh
# gradescope.sh [LEVEL] [CHAPTERS] — make gradescope-autograder: write
# build/gradescope/autograder.zip, the autograder Gradescope asks for. Gradescope's
# specification (autograder_samples, docs/specs.md): the zip's ROOT holds setup.sh
# and run_autograder; it is extracted into /autograder/source, run_autograder is
# copied to /autograder/run_autograder, setup.sh runs once as root when the image
# is built, then every submission runs in a fresh container with the student's
# files in /autograder/submission and the working folder /autograder, and must
# leave /autograder/results/results.json. So the zip's root holds setup.sh,
# run_autograder and this repository's files (under git; or Makefile, common,
# chapters, tests, scripts and docs when there is no git), plus handout/ (the
# tree make exercises hands out at LEVEL and CHAPTERS: run_autograder rebuilds a
# student's tree from it when the upload is only the chapter files) and
# .grader-seed (the hidden checks' seed, GRADE_SEED or drawn now: every grading
# and every "Regrade all" of this autograder uses it). GRADE_VISIBILITY (when a
# student sees the hidden checks' lines) is fixed in the zip too.
# Needs zip, or python3's zipfile; else one sentence and exit 1.
. scripts/exercises/lib.sh
. scripts/exercises/grade_lib.sh
ex_check_root

. scripts/exercises/lms_kit.sh
kit_args "make gradescope-autograder" "${1:-}" "${2:-}"
ZIPPER=
if command -v zip >/dev/null 2>&1; then ZIPPER=zip
elif PY=$(command -v python3) && "$PY" -c 'import zipfile' 2>/dev/null; then ZIPPER=python
else die "make gradescope-autograder: needs zip (apt-get install zip) or python3 to write the .zip"
fi

OUTD=${GRADESCOPE_OUT:-build/gradescope}   # (a test gives its own)
W=$OUTD/work.$$
rm -rf "$W" && mkdir -p "$W" || die "make gradescope-autograder: cannot write $OUTD"
OUTD=$(cd "$OUTD" && pwd) && W=$OUTD/work.$$ || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 2' INT TERM
kit_tree "make gradescope-autograder" "$W"


cat >"$W/run_autograder" <<'RUN'
#!/bin/sh
# Gradescope runs this (copied to /autograder/run_autograder) for every submission,
# as root, in a fresh container whose working folder is /autograder. The student's
# upload is in /autograder/submission: the handout tree (at its root, one folder
# down, beside a __MACOSX/ folder, or a GitHub repository), or only the chapter
# files with blanks (e.g. scaling.c), which are then put into the handout this
# autograder carries. The tree is graded as make grade does; the results go to
# /autograder/results/results.json (Gradescope's format, written by gradetool),
# with a first, always visible test saying whether the upload was well formed and
# compiles. The upload becomes a tree as scripts/exercises/upload_tree.sh says (no
# path or name in it is ever read as text, no link in it followed).
START=$(date +%s)
set -f   # (no pattern below is ever expanded against file names)
cd /autograder/source || exit 1
. ./lms-env.sh
SEED=$(cat .grader-seed)
TOOL=/autograder/source/build/lms-gradetool
RES=/autograder/results
mkdir -p "$RES"
SUB=/autograder/submission
W=/autograder/work
rm -rf "$W" && mkdir -m 0700 -p "$W" || exit 1
echo "autograder: level $LEVEL, chapters $CHAPTERS, hidden-check seed $SEED (fixed in this autograder: a regrade gives the same points)"

# fail MESSAGE: results.json with 0 points and MESSAGE, shown to the student
fail() {
    echo "autograder: $1"
    printf '%s\n' "$1" >"$W/msg.txt"
    "$TOOL" gradescope "$GRADE_LANG" "$W/msg.txt" "$(($(date +%s) - START))" "$RES/results.json"
    exit 0
}
. scripts/exercises/upload_tree.sh
upload_tree "$SUB" handout "$W/tree" || fail "$UP_FAIL"
WELL="$UP_MSG Graded at level $LEVEL, chapters $CHAPTERS."
kit_sandbox /autograder/source
GRADE_OUT=$W/grading GRADE_SEED=$SEED make --no-print-directory grade DIR="$W/tree" LEVEL="$LEVEL" CHAPTERS="$CHAPTERS" STUDENT=submission
st=$?
[ "$st" -eq 0 ] && [ -f "$W/grading/gradescope/submission.json" ] ||
    fail "The autograder could not grade this upload (exit $st); your teacher sees why in the autograder's log."
printf '%s\n' "$WELL" >"$W/msg.txt"
"$TOOL" gradescope "$GRADE_LANG" "$W/msg.txt" "$(($(date +%s) - START))" "$RES/results.json" "$W/grading/gradescope/submission.json"
RUN
chmod 0755 "$W/setup.sh" "$W/run_autograder"

rm -f "$OUTD/autograder.zip.$$"
if [ "$ZIPPER" = zip ]; then
    (cd "$W" && zip -qr -X "$OUTD/autograder.zip.$$" .) || die "make gradescope-autograder: zip failed"
else
    "$PY" - "$W" "$OUTD/autograder.zip.$$" <<'PY' || die "make gradescope-autograder: python3 could not write the zip"
import os, sys, zipfile
root, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            full = os.path.join(d, f)
            info = zipfile.ZipInfo.from_file(full, os.path.relpath(full, root))
            with open(full, "rb") as fh:
                z.writestr(info, fh.read(), zipfile.ZIP_DEFLATED)
PY
fi
mv "$OUTD/autograder.zip.$$" "$OUTD/autograder.zip" || die "make gradescope-autograder: cannot write $OUTD/autograder.zip"
echo "gradescope: $OUTD/autograder.zip (level $LEVEL, chapters $(num_list "$CHS"), seed in the zip, visibility $G_VIS); upload it as the assignment's autograder (docs/TEACHING.md)"
