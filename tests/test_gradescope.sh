#!/bin/sh
# test_gradescope.sh — make gradescope-autograder's zip run the way Gradescope runs it
# (Gradescope's autograder_samples: docs/specs.md and manual_docker/Dockerfile): the
# zip extracted into /autograder/source, run_autograder copied to
# /autograder/run_autograder, `bash /autograder/source/setup.sh` once (the image), then
# per submission a fresh copy of that image with the upload in /autograder/submission,
# /autograder/run_autograder run from /autograder, and /autograder/results/results.json
# read by a JSON parser and checked field by field against the specification. Here a
# bubblewrap sandbox puts a temporary folder at /autograder. Uploads: the full solution
# as the handout tree, a wrong one (d_k, not sqrt(d_k)) one folder down, a broken one
# (a syntax error in chapter 2's blank) beside a __MACOSX/ folder, an empty one, the chapter files alone,
# and one file with a symbolic link where the other should be (it is not followed).
# Chapters 2 and 6 at level 1: 3 blanks of 1 point.
. tests/lib.sh
suite test_gradescope
grader_suite_only_once

NCHECKS=23
if ! command -v bwrap >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1 ||
    ! bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev /bin/true >/dev/null 2>&1; then
    skip $NCHECKS "the autograder's run needs bubblewrap (apt-get install bubblewrap)"
    finish
    exit $?
fi
PY=
for p in /usr/bin/python3 python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import json, zipfile' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
    skip $NCHECKS "no python3 with json here: results.json cannot be read as JSON"
    finish
    exit $?
fi
bad() { _failed=$((_failed + 1)); printf 'FAIL: %s\n' "$1"; [ -n "${2:-}" ] && printf '      %s\n' "$2"; }

# ---- the zip: what Gradescope finds at its root ----------------------------------------
GRADESCOPE_OUT=$TMP/zip GRADE_SEED=4242 GRADE_VISIBILITY=after_due_date \
    sh scripts/exercises/gradescope.sh 1 2,6 >"$TMP/gs.out" 2>&1 || bad "make gradescope-autograder LEVEL=1 CHAPTERS=2,6" "$(cat "$TMP/gs.out")"
Z=$TMP/zip/autograder.zip
"$PY" -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$Z" >"$TMP/zl" 2>&1
for f in setup.sh run_autograder Makefile scripts/exercises/grade.sh handout/.exercise-manifest; do
    grep -qx "$f" "$TMP/zl" && _ok || bad "the zip's root holds $f (Gradescope extracts the zip into /autograder/source)"
done
grep -q '^source/' "$TMP/zl" && bad "nothing in the zip is under source/ (it would land in /autograder/source/source)" || _ok
# (a folder beside the files would be one level too deep: the old zip's layout)

# ---- the image: extracted, run_autograder copied, setup.sh run once ---------------------
mkdir -p "$TMP/tmp" "$TMP/img/source"
(cd "$TMP/img/source" && "$PY" -m zipfile -e "$Z" .) || bad "the zip extracts"
chmod +x "$TMP/img/source/setup.sh" "$TMP/img/source/run_autograder"
cp "$TMP/img/source/run_autograder" "$TMP/img/run_autograder"
# gs IMAGE CMD...: CMD in a container whose /autograder is IMAGE (the rest of the machine
# read-only, its own /tmp) and whose environment is a fresh one, as on Gradescope: none of
# this run's variables (BUILD, MAKEFLAGS from a make BUILD=... test) reaches setup.sh's make
gs() {
    _img=$1
    shift
    bwrap --dev-bind /dev /dev --proc /proc --bind /sys /sys --ro-bind /usr /usr --ro-bind /etc /etc \
        --symlink usr/bin /bin --symlink usr/sbin /sbin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
        --bind "$TMP/tmp" /tmp --bind "$_img" /autograder --chdir /autograder --clearenv \
        --setenv HOME /tmp --setenv PATH /usr/local/bin:/usr/bin:/bin \
        --die-with-parent "$@"
}
gs "$TMP/img" bash /autograder/source/setup.sh >"$TMP/setup.log" 2>&1 &&
    _ok || bad "setup.sh runs (as Gradescope's image build runs it)" "$(tail -n 5 "$TMP/setup.log")"
[ -x "$TMP/img/source/build/chapter2" ] && _ok || bad "setup.sh builds the repository in /autograder/source"

# ---- the submissions -------------------------------------------------------------------
H=$TMP/img/source/handout
sol() { grep -v 'BEGIN BLANK\|END BLANK' "$1"; }   # the teacher's file, markers out
S2=chapters/02_scaling/scaling.c
S6=chapters/06_dropout/dropout.c
mkdir -p "$TMP/up/full" "$TMP/up/wrong/attention-in-c" "$TMP/up/broken/handout" "$TMP/up/broken/__MACOSX/handout" \
    "$TMP/up/empty" "$TMP/up/files" "$TMP/up/link"
cp -R "$H/." "$TMP/up/full/"
sol "$S2" >"$TMP/up/full/$S2"
sol "$S6" >"$TMP/up/full/$S6"
cp -R "$TMP/up/full/." "$TMP/up/wrong/attention-in-c/"
sed 's|sqrtf((float)d_k)|(float)d_k|' "$S2" | grep -v 'BEGIN BLANK\|END BLANK' >"$TMP/up/wrong/attention-in-c/$S2"
grep -q '(float)d_k))' "$TMP/up/wrong/attention-in-c/$S2" || bad "the wrong answer divides by d_k (the test's own edit took)"
cp -R "$TMP/up/full/." "$TMP/up/broken/handout/"
sed 's|sqrtf((float)d_k));|sqrtf((float)d_k);|' "$S2" | grep -v 'BEGIN BLANK\|END BLANK' >"$TMP/up/broken/handout/$S2"
grep -q 'sqrtf((float)d_k);' "$TMP/up/broken/handout/$S2" || bad "the broken answer lacks a parenthesis (the test's own edit took)"
printf 'Mac resource fork\n' >"$TMP/up/broken/__MACOSX/handout/._scaling.c"
printf 'x\n' >"$TMP/up/broken/__MACOSX/handout/._.exercise-manifest"
cp "$TMP/up/full/$S2" "$TMP/up/files/scaling.c"
cp "$TMP/up/full/$S6" "$TMP/up/files/dropout.c"
cp "$TMP/up/full/$S2" "$TMP/up/link/scaling.c"
ln -s /autograder/source/$S6 "$TMP/up/link/dropout.c"   # the teacher's file: never followed

# run NAME: a fresh container of the image, the upload NAME in /autograder/submission
run() {
    rm -rf "$TMP/c"
    cp -a "$TMP/img" "$TMP/c" && cp -R "$TMP/up/$1" "$TMP/c/submission" || return 1
    _t0=$(date +%s)
    gs "$TMP/c" /autograder/run_autograder >"$TMP/$1.log" 2>&1
    _st=$?
    SECS=$(($(date +%s) - _t0))
    [ "$_st" -eq 0 ] && _ok || bad "$1: run_autograder exits 0 (exit $_st)" "$(tail -n 5 "$TMP/$1.log")"
    cp "$TMP/c/results/results.json" "$TMP/$1.json" 2>/dev/null
}
# check NAME SCORE STATUSES WORDS: results.json per the specification; SCORE points,
# the tests' statuses in order (well-formed first), its output holding WORDS
check() {
    "$PY" - "$TMP/$1.json" "$2" "$3" "$4" "$SECS" >"$TMP/$1.chk" 2>&1 <<'PYEOF'
import json, sys
path, score, statuses, words, secs = sys.argv[1], float(sys.argv[2]), sys.argv[3].split(","), sys.argv[4], int(sys.argv[5])
d = json.load(open(path, encoding="utf-8"))
VIS = ("hidden", "after_due_date", "after_published", "visible")
def kind(o, k, t):
    assert k in o, "missing " + k
    assert isinstance(o[k], t) and not isinstance(o[k], bool), k + " is a " + type(o[k]).__name__
kind(d, "score", (int, float)); kind(d, "execution_time", int); kind(d, "output", str); kind(d, "tests", list)
assert d.get("visibility", "visible") in VIS and d.get("stdout_visibility", "hidden") in VIS
assert d.get("output_format", "simple_format") in ("text", "html", "simple_format", "md", "ansi")
assert 0 <= d["execution_time"] <= secs + 1 and d["execution_time"] >= secs - 2, "execution_time %d, the run took %d s" % (d["execution_time"], secs)
assert d["score"] == score, "score %s, not %s" % (d["score"], score)
t = d["tests"]
assert [x.get("status") for x in t] == statuses, "statuses %s" % [x.get("status") for x in t]
for x in t:
    kind(x, "name", str); kind(x, "output", str)
    assert x.get("visibility", "visible") in VIS
    assert x.get("output_format", "text") in ("text", "html", "simple_format", "md", "ansi")
    if "score" in x:
        kind(x, "score", (int, float)); kind(x, "max_score", (int, float))
        assert (x["status"] == "passed") == (x["score"] == x["max_score"])
        assert x["visibility"] == "after_due_date", "a blank's test is shown as the zip was made: " + x["visibility"]
w = t[0]
assert w["name"] == "submission well-formed and compiles" and "score" not in w and w["visibility"] == "visible"
assert words in w["output"], "the well-formed test says: " + w["output"]
assert sum(x.get("score", 0) for x in t) == d["score"]
PYEOF
    [ $? -eq 0 ] && _ok || bad "$1: results.json as Gradescope's specification has it, score $2, tests $3" "$(tail -n 2 "$TMP/$1.chk")"
}

run full && check full 3 passed,passed,passed,passed "the handout tree"
grep -q 'hidden-check seed 4242' "$TMP/full.log" && _ok || bad "the log (stdout: the teacher's) names the seed"
run wrong && check wrong 2 passed,failed,passed,passed "All 3 blanks compile"
cp "$TMP/wrong.json" "$TMP/wrong1.json"
run wrong && "$PY" -c 'import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["tests"] == b["tests"] and a["score"] == b["score"]' "$TMP/wrong1.json" "$TMP/wrong.json" && _ok ||
    bad "a regrade of the same upload gives the same points and feedback (the seed is the zip's)"
run broken && check broken 2 failed,failed,passed,passed "1 of 3 blanks do not compile"
run empty && check empty 0 failed "No file with blanks is in this upload: upload scaling.c dropout.c"
run files && check files 3 passed,passed,passed,passed "The upload holds scaling.c dropout.c"
run link && check link 1 passed,passed,failed,failed "Not in the upload, so graded as handed out: dropout.c"
finish
