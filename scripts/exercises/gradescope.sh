#!/bin/sh
# gradescope.sh [LEVEL] [CHAPTERS] — make gradescope-autograder: write
# build/gradescope/autograder.zip, the autograder Gradescope asks for: at its
# root setup.sh (run once as root when the image is built: installs what grading
# needs on Gradescope's Ubuntu image) and run_autograder (run for every
# submission: grades /autograder/submission as make grade does, at LEVEL and
# CHAPTERS, and writes /autograder/results/results.json), and source/, this
# repository (its files under git, or Makefile, common, chapters, tests and
# scripts when there is no git). Needs zip, or python3's zipfile; else one
# sentence and exit 1.
. scripts/exercises/lib.sh
ex_check_root

LEVEL=${1:-1}
CHAPTERS=${2:-}
case $LEVEL in 1 | 2 | 3) ;; *) die "make gradescope-autograder: LEVEL=$LEVEL: the level must be 1, 2 or 3" ;; esac
# the chapters are checked now, as grading will read them
TMPL=$(mktemp) || exit 1
list_blanks >"$TMPL" || die "make gradescope-autograder: fix the markers of this repository first"
CHS=$(parse_chapters "$CHAPTERS" "$TMPL") || { rm -f "$TMPL"; exit 2; }
rm -f "$TMPL"
ZIPPER=
if command -v zip >/dev/null 2>&1; then ZIPPER=zip
elif PY=$(command -v python3) && "$PY" -c 'import zipfile' 2>/dev/null; then ZIPPER=python
else die "make gradescope-autograder: needs zip (apt-get install zip) or python3 to write the .zip"
fi

OUTD=build/gradescope
W=$OUTD/work.$$
rm -rf "$W" && mkdir -p "$W/source" || die "make gradescope-autograder: cannot write $OUTD"
trap 'rm -rf "$W"' EXIT
trap 'exit 2' INT TERM
if command -v git >/dev/null 2>&1 && [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd)" ]; then
    git ls-files -z --cached | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | (cd "$W/source" && tar xf -) ||
        die "make gradescope-autograder: cannot copy the repository's files"
    git describe --always --dirty >"$W/source/.grader-version" 2>/dev/null
else
    cp -R Makefile common chapters tests scripts "$W/source/" || die "make gradescope-autograder: cannot copy the repository"
fi
[ -f "$W/source/scripts/exercises/grade.sh" ] || die "make gradescope-autograder: the copy of the repository lacks the grader"

cat >"$W/setup.sh" <<'SETUP'
#!/bin/sh
# Gradescope runs this once, as root, when it builds the autograder's image
# (Ubuntu): what grading needs, a C compiler with the static C library, make,
# binutils (nm, ar), bubblewrap (the sandbox), timeout and setpriv.
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends build-essential libc6-dev binutils make gawk bubblewrap coreutils util-linux
cd /autograder/source
# the teacher's build, so that the first submission does not build it again
make -j"$(nproc)" >/dev/null
SETUP

cat >"$W/run_autograder" <<RUN
#!/bin/sh
# Gradescope runs this for every submission, as root, in a fresh container:
# /autograder/submission is the student's tree (the handout, filled in), graded
# at level $LEVEL, chapters $(num_list "$CHS"), as make grade does; the results go to
# /autograder/results/results.json (Gradescope's format, written by gradetool).
LEVEL=$LEVEL
CHAPTERS=$(num_list "$CHS")
RUN
cat >>"$W/run_autograder" <<'RUN'
cd /autograder/source || exit 1
mkdir -p /autograder/results
SUB=/autograder/submission
# a submission uploaded as a folder, or a repository with the tree one level down
if [ ! -f "$SUB/.exercise-manifest" ] && [ "$(ls -A "$SUB" | grep -c .)" = 1 ] && [ -f "$SUB/$(ls -A "$SUB")/.exercise-manifest" ]; then
    SUB=$SUB/$(ls -A "$SUB")
fi
# the sandbox when bubblewrap works in this container; else the container is the
# boundary and the student's code runs as the user nobody (GRADE_UNSAFE=1)
if bwrap --unshare-all --unshare-user --uid 65534 --gid 65534 --ro-bind / / /bin/true 2>/dev/null ||
    setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all bwrap --unshare-all --unshare-user --ro-bind / / /bin/true 2>/dev/null; then
    unset GRADE_UNSAFE
    echo "autograder: student code runs in bubblewrap sandboxes"
else
    GRADE_UNSAFE=1
    export GRADE_UNSAFE
    # (nobody must not reach the teacher's files: the grader stages what it may see)
    chmod 0700 /autograder/source
    echo "autograder: bubblewrap cannot run in this container: the container is the boundary, student code runs as the user nobody"
fi
OUT=/autograder/grading
rm -rf "$OUT"
GRADE_OUT=$OUT make --no-print-directory grade DIR="$SUB" LEVEL="$LEVEL" CHAPTERS="$CHAPTERS" STUDENT=submission
st=$?
if [ "$st" -eq 0 ] && [ -f "$OUT/gradescope/submission.json" ]; then
    cp "$OUT/gradescope/submission.json" /autograder/results/results.json
else
    printf '%s\n' '{"score": 0, "output": "The autograder could not grade this submission; your teacher sees why in the autograder log.", "visibility": "visible", "stdout_visibility": "hidden", "tests": []}' >/autograder/results/results.json
fi
RUN
chmod 0755 "$W/setup.sh" "$W/run_autograder"

rm -f "$OUTD/autograder.zip.$$"
if [ "$ZIPPER" = zip ]; then
    (cd "$W" && zip -qr -X "../autograder.zip.$$" setup.sh run_autograder source) || die "make gradescope-autograder: zip failed"
else
    "$PY" - "$W" "$OUTD/autograder.zip.$$" <<'PY' || die "make gradescope-autograder: python3 could not write the zip"
import os, sys, zipfile
root, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for top in ("setup.sh", "run_autograder", "source"):
        p = os.path.join(root, top)
        if os.path.isfile(p):
            z.write(p, top)
        for d, _, files in os.walk(p):
            for f in files:
                full = os.path.join(d, f)
                z.write(full, os.path.relpath(full, root))
PY
fi
mv "$OUTD/autograder.zip.$$" "$OUTD/autograder.zip" || die "make gradescope-autograder: cannot write $OUTD/autograder.zip"
echo "gradescope: $OUTD/autograder.zip (level $LEVEL, chapters $(num_list "$CHS")); upload it as the assignment's autograder (docs/TEACHING.md)"
