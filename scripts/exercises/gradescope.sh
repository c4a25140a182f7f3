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

LEVEL=${1:-1}
CHAPTERS=${2:-}
case $LEVEL in 1 | 2 | 3) ;; *) die "make gradescope-autograder: LEVEL=$LEVEL: the level must be 1, 2 or 3" ;; esac
g_check_env "make gradescope-autograder"
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
SEED=${GRADE_SEED:-$(g_random)}
SEED=$(echo "$SEED" | sed 's/^0*//')
SEED=${SEED:-0}

OUTD=${GRADESCOPE_OUT:-build/gradescope}   # (a test gives its own)
W=$OUTD/work.$$
rm -rf "$W" && mkdir -p "$W" || die "make gradescope-autograder: cannot write $OUTD"
OUTD=$(cd "$OUTD" && pwd) && W=$OUTD/work.$$ || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 2' INT TERM
if command -v git >/dev/null 2>&1 && [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd)" ]; then
    git ls-files -z --cached | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | (cd "$W" && tar xf -) ||
        die "make gradescope-autograder: cannot copy the repository's files"
    git describe --always --dirty >"$W/.grader-version" 2>/dev/null
else
    cp -R Makefile common chapters tests scripts docs "$W/" || die "make gradescope-autograder: cannot copy the repository"
fi
[ -f "$W/scripts/exercises/grade.sh" ] || die "make gradescope-autograder: the copy of the repository lacks the grader"

# the handout, as make exercises writes it (run_autograder rebuilds a tree from it and
# the student's chapter files), and the seed of the hidden checks
sh scripts/exercises/generate.sh "$W/handout" "$LEVEL" "$(num_list "$CHS")" >/dev/null ||
    die "make gradescope-autograder: cannot write the handout"
echo "$SEED" >"$W/.grader-seed"

cat >"$W/setup.sh" <<'SETUP'
#!/bin/sh
# Gradescope runs this once, as root, when it builds the autograder's image
# (Ubuntu; this zip is in /autograder/source): it installs what grading needs
# and is missing (a C compiler with the static C library, make, binutils,
# awk, bubblewrap, timeout and setpriv), builds the repository, and grades the
# blank handout once, so that every submission finds the grader's cache built
# (the teacher's tree, the kit, the teacher's hidden-check outputs).
set -e
need=
command -v cc >/dev/null 2>&1 || need="$need build-essential"
command -v make >/dev/null 2>&1 || need="$need make"
command -v nm >/dev/null 2>&1 || need="$need binutils"
command -v awk >/dev/null 2>&1 || need="$need gawk"
command -v bwrap >/dev/null 2>&1 || need="$need bubblewrap"
command -v timeout >/dev/null 2>&1 || need="$need coreutils"
command -v setpriv >/dev/null 2>&1 || need="$need util-linux"
[ -f /usr/lib/x86_64-linux-gnu/libc.a ] || [ -f /usr/lib/aarch64-linux-gnu/libc.a ] || need="$need libc6-dev"
if [ -n "$need" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends $need
fi
cd /autograder/source
make -j"$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" all >/dev/null
cc -std=c99 -O2 scripts/exercises/gradetool.c -lm -o build/gradescope-gradetool
. ./gradescope-env.sh
gs_sandbox
rm -rf /autograder/setup-grading
GRADE_OUT=/autograder/setup-grading GRADE_SEED=$(cat .grader-seed) \
    make --no-print-directory grade DIR=handout LEVEL="$LEVEL" CHAPTERS="$CHAPTERS" STUDENT=handout >/dev/null
rm -rf /autograder/setup-grading
echo "setup: built and graded the blank handout once (level $LEVEL, chapters $CHAPTERS)"
SETUP

# what both scripts share: the level, the chapters, the visibility and the sandbox
cat >"$W/gradescope-env.sh" <<ENV
# gradescope-env.sh — read by setup.sh and run_autograder (written by make gradescope-autograder)
LEVEL=$LEVEL
CHAPTERS=$(num_list "$CHS")
GRADE_VISIBILITY=$G_VIS
GRADE_LANG=$G_LANG
export GRADE_VISIBILITY GRADE_LANG
ENV
cat >>"$W/gradescope-env.sh" <<'ENV'
# gs_sandbox: bubblewrap's sandboxes when they work in this container; else the
# container is the boundary and student code runs as the user nobody (GRADE_UNSAFE=1),
# who must not read the teacher's files (the grader stages what it may see)
gs_sandbox() {
    if bwrap --unshare-all --unshare-user --uid 65534 --gid 65534 --ro-bind / / /bin/true 2>/dev/null ||
        setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all bwrap --unshare-all --unshare-user --ro-bind / / /bin/true 2>/dev/null; then
        unset GRADE_UNSAFE
        echo "autograder: student code runs in bubblewrap sandboxes"
    else
        GRADE_UNSAFE=1
        export GRADE_UNSAFE
        chmod 0700 /autograder/source
        echo "autograder: bubblewrap cannot run in this container: the container is the boundary, student code runs as the user nobody"
    fi
}
ENV

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
# compiles. No path or name in the upload is ever read as text: find hands the
# files it matched straight to cp.
START=$(date +%s)
set -f   # (no pattern below is ever expanded against file names)
cd /autograder/source || exit 1
. ./gradescope-env.sh
SEED=$(cat .grader-seed)
TOOL=/autograder/source/build/gradescope-gradetool
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
# count ARGS...: how many files find matches
count() { find -P "$SUB" "$@" -exec printf x \; 2>/dev/null | wc -c | tr -d ' '; }

[ -d "$SUB" ] || fail "There is no upload to grade."
# the student's tree: the one folder (at most three down, never in __MACOSX/) holding a
# .exercise-manifest as a plain file, copied as it is (symbolic links stay links)
TREES="-maxdepth 4 -name .exercise-manifest -type f ! -path */__MACOSX/*"
n=$(count $TREES)
if [ "$n" -gt 1 ]; then
    fail "The upload holds $n handouts (folders with a .exercise-manifest): upload one."
elif [ "$n" = 1 ]; then
    find -P "$SUB" $TREES -exec sh -c 'cp -RP "$(dirname "$1")" "$2"' sh {} "$W/tree" \; -quit
    [ -f "$W/tree/.exercise-manifest" ] || fail "The autograder could not copy the uploaded handout."
    WELL="The upload is the handout tree (with its .exercise-manifest), graded at level $LEVEL, chapters $CHAPTERS."
else
    # only files: each file with blanks (the carried manifest's, the teacher's) taken by its
    # path in the handout, else by its name when one file has it
    cp -R handout "$W/tree" || exit 1
    grep -v '^#' handout/.exercise-manifest | cut -f3 | sort -u >"$W/files"
    found= missing=
    while IFS= read -r f; do
        b=$(basename "$f")
        m="-maxdepth 6 -type f -name $b ! -path */__MACOSX/*"
        if [ "$(count $m -path "*/$f")" -ge 1 ]; then
            find -P "$SUB" $m -path "*/$f" -exec cp {} "$W/tree/$f" \; -quit
        elif [ "$(count $m)" = 1 ]; then
            find -P "$SUB" $m -exec cp {} "$W/tree/$f" \; -quit
        else
            missing="$missing $b"
            continue
        fi
        found="$found $b"
    done <"$W/files"
    [ -n "$found" ] || fail "No file with blanks is in this upload: upload$(sed 's|.*/| |' "$W/files" | tr -d '\n') (or the handout folder as it was handed out)."
    WELL="The upload holds$found, graded in the handout of level $LEVEL.${missing:+ Not in the upload, so graded as handed out:$missing.}"
fi
gs_sandbox
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
