# lms_kit.sh — what make gradescope-autograder and make prairielearn-kit share
# (sourced by gradescope.sh and prairielearn.sh after lib.sh and grade_lib.sh).
#
# kit_args WHO LEVEL CHAPTERS: checks the level, GRADE_* and the chapters (exit 2 on a
# bad one); sets LEVEL, CHS (the chapters' NN) and SEED (GRADE_SEED, else drawn now).
kit_args() {
    _who=$1
    LEVEL=${2:-1}
    case $LEVEL in 1 | 2 | 3) ;; *) die "$_who: LEVEL=$LEVEL: the level must be 1, 2 or 3" ;; esac
    g_check_env "$_who"
    # the chapters are checked now, as grading will read them
    _tmpl=$(mktemp) || exit 1
    list_blanks >"$_tmpl" || { rm -f "$_tmpl"; die "$_who: fix the markers of this repository first"; }
    CHS=$(parse_chapters "${3:-}" "$_tmpl") || { rm -f "$_tmpl"; exit 2; }
    rm -f "$_tmpl"
    SEED=${GRADE_SEED:-$(g_random)}
    SEED=$(echo "$SEED" | sed 's/^0*//')
    SEED=${SEED:-0}
}

# kit_tree WHO DIR: DIR gets this repository's files (under git; or Makefile, common,
# chapters, tests, scripts and docs when there is no git), handout/ (the tree make
# exercises hands out at LEVEL and CHS: the autograder rebuilds a student's tree from it
# when the upload is only the chapter files), .grader-seed (every grading and regrade of
# this kit uses it) and lms-env.sh (the level, chapters, visibility, language, and
# kit_sandbox).
kit_tree() {
    _who=$1 _d=$2
    if command -v git >/dev/null 2>&1 && [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd)" ]; then
        git ls-files -z --cached | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | (cd "$_d" && tar xf -) ||
            die "$_who: cannot copy the repository's files"
        git describe --always --dirty >"$_d/.grader-version" 2>/dev/null
    else
        cp -R Makefile common chapters tests scripts docs "$_d/" || die "$_who: cannot copy the repository"
    fi
    [ -f "$_d/scripts/exercises/grade.sh" ] || die "$_who: the copy of the repository lacks the grader"
    sh scripts/exercises/generate.sh "$_d/handout" "$LEVEL" "$(num_list "$CHS")" >/dev/null ||
        die "$_who: cannot write the handout"
    echo "$SEED" >"$_d/.grader-seed"
    cat >"$_d/lms-env.sh" <<ENV
# lms-env.sh — read by the autograder's scripts (written by $_who)
LEVEL=$LEVEL
CHAPTERS=$(num_list "$CHS")
GRADE_VISIBILITY=$G_VIS
GRADE_LANG=$G_LANG
export GRADE_VISIBILITY GRADE_LANG
ENV
    cat >>"$_d/lms-env.sh" <<'ENV'
# kit_sandbox: bubblewrap's sandboxes when they work in this container; else the
# container is the boundary and student code runs as the user nobody (GRADE_UNSAFE=1),
# who must not read the teacher's files (the grader stages what it may see)
kit_sandbox() {
    if bwrap --unshare-all --unshare-user --uid 65534 --gid 65534 --ro-bind / / /bin/true 2>/dev/null ||
        setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all bwrap --unshare-all --unshare-user --ro-bind / / /bin/true 2>/dev/null; then
        unset GRADE_UNSAFE
        echo "autograder: student code runs in bubblewrap sandboxes"
    else
        GRADE_UNSAFE=1
        export GRADE_UNSAFE
        chmod 0700 "$1"
        echo "autograder: bubblewrap cannot run in this container: the container is the boundary, student code runs as the user nobody"
    fi
}
# kit_prepare: built once with the image: the repository, the tool that writes the
# LMS's results, and the blank handout graded once (the grader's cache)
kit_prepare() {
    make -j"$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" all >/dev/null &&
        cc -std=c99 -O2 scripts/exercises/gradetool.c -lm -o build/lms-gradetool &&
        kit_sandbox "$(pwd)" &&
        GRADE_OUT=build/lms-setup GRADE_SEED=$(cat .grader-seed) \
            make --no-print-directory grade DIR=handout LEVEL="$LEVEL" CHAPTERS="$CHAPTERS" STUDENT=handout >/dev/null &&
        rm -rf build/lms-setup &&
        echo "setup: built and graded the blank handout once (level $LEVEL, chapters $CHAPTERS)"
}
ENV
    cat >"$_d/setup.sh" <<'SETUP'
#!/bin/sh
# Run once, as root, when the autograder's image is built (Gradescope runs it from
# /autograder/source, PrairieLearn's Dockerfile from /attention-in-c/source; Ubuntu
# or Debian): it installs what grading needs
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
cd "$(dirname "$0")"
. ./lms-env.sh
kit_prepare
SETUP
    chmod 0755 "$_d/setup.sh"
}
