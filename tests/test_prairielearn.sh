#!/bin/sh
# test_prairielearn.sh — make prairielearn-kit's question run the way PrairieLearn runs
# it (its docs/externalGrading.md): info.json and question.html checked for what
# PrairieLearn reads; the grading image made as its Dockerfile says (source/ copied to
# /attention-in-c/source, the Dockerfile's RUN line run there); then per submission a
# fresh copy of the image, the uploaded files flat in /grade/student, no
# /grade/results, info.json's entrypoint run, and /grade/results/results.json read by
# a JSON parser and checked against PrairieLearn's format. Here a bubblewrap sandbox
# puts temporary folders at /attention-in-c and /grade. Uploads: the full solution's
# two files, a wrong one, only one file, an empty upload, files that are not the
# handout's (not gradable), and the whole handout tree. Chapters 2 and 6 at level 1.
. tests/lib.sh
suite test_prairielearn
grader_suite_only_once

NCHECKS=18
if ! command -v bwrap >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1 ||
    ! bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev /bin/true >/dev/null 2>&1; then
    skip $NCHECKS "the grading image's run needs bubblewrap (apt-get install bubblewrap)"
    finish
    exit $?
fi
PY=
for p in /usr/bin/python3 python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import json' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
    skip $NCHECKS "no python3 with json here: info.json and results.json cannot be read as JSON"
    finish
    exit $?
fi
bad() { _failed=$((_failed + 1)); printf 'FAIL: %s\n' "$1"; [ -n "${2:-}" ] && printf '      %s\n' "$2"; }

# ---- the question -----------------------------------------------------------------------
PL_TIMEOUT=601 sh scripts/exercises/prairielearn.sh 1 2,6 >/dev/null 2>"$TMP/err"; st=$?
[ "$st" -eq 2 ] && [ "$(grep -c '' "$TMP/err")" -eq 1 ] && grep -q 'from 1 to 600' "$TMP/err" && _ok ||
    bad "PL_TIMEOUT=601: one sentence, exit 2 (PrairieLearn's limit is 600 s)" "exit $st: $(cat "$TMP/err")"
PRAIRIELEARN_OUT=$TMP/kit PL_IMAGE=teacher/attention-grader:l1 GRADE_SEED=777 \
    sh scripts/exercises/prairielearn.sh 1 2,6 >"$TMP/kit.out" 2>&1 || bad "make prairielearn-kit LEVEL=1 CHAPTERS=2,6" "$(cat "$TMP/kit.out")"
Q=$TMP/kit/attention-in-c-level1-ch2-6
"$PY" - "$Q/info.json" >"$TMP/info.chk" 2>&1 <<'PYEOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", d["uuid"]), d["uuid"]
assert d["type"] == "v3" and d["gradingMethod"] == "External" and isinstance(d["title"], str) and isinstance(d["topic"], str)
e = d["externalGradingOptions"]
assert e["enabled"] is True and e["image"] == "teacher/attention-grader:l1"
assert e["entrypoint"].startswith("/") and isinstance(e["timeout"], int) and 0 < e["timeout"] <= 600
print(e["entrypoint"])
PYEOF
[ $? -eq 0 ] && _ok || bad "info.json: a v3 question, externally graded, image, entrypoint, timeout" "$(tail -n 2 "$TMP/info.chk")"
ENTRY=$(tail -n 1 "$TMP/info.chk")
grep -q '<pl-file-upload file-names="scaling.c, dropout.c"></pl-file-upload>' "$Q/question.html" &&
    grep -q '<pl-external-grader-results>' "$Q/question.html" && _ok ||
    bad "question.html uploads the files with blanks and shows the grader's results" "$(cat "$Q/question.html")"
grep -q '^FROM prairielearn/grader-c$' "$Q/image/Dockerfile" && grep -q '^COPY source /attention-in-c/source$' "$Q/image/Dockerfile" &&
    _ok || bad "the Dockerfile starts from PrairieLearn's C grader and copies source/"

# ---- the image: source/ copied, the Dockerfile's RUN line run there -----------------------
mkdir -p "$TMP/tmp" "$TMP/img/attention-in-c"
cp -R "$Q/image/source" "$TMP/img/attention-in-c/source"
RUNLINE=$(sed -n '/^RUN /,/[^\\]$/p' "$Q/image/Dockerfile" | sed 's/^RUN //; s/\\$//' | tr '\n' ' ')
# pl IMAGE GRADE CMD...: CMD in a container of IMAGE (/attention-in-c) with GRADE at /grade
pl() {
    _img=$1 _g=$2
    shift 2
    bwrap --dev-bind /dev /dev --proc /proc --bind /sys /sys --ro-bind /usr /usr --ro-bind /etc /etc \
        --symlink usr/bin /bin --symlink usr/sbin /sbin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
        --bind "$TMP/tmp" /tmp --bind "$_img/attention-in-c" /attention-in-c --bind "$_g" /grade --chdir / \
        --setenv HOME /tmp --die-with-parent "$@"
}
mkdir -p "$TMP/g0"
pl "$TMP/img" "$TMP/g0" sh -c "$RUNLINE" >"$TMP/setup.log" 2>&1 && _ok ||
    bad "the Dockerfile's RUN line prepares the image" "$(tail -n 5 "$TMP/setup.log")"

# ---- the submissions --------------------------------------------------------------------
sol() { grep -v 'BEGIN BLANK\|END BLANK' "$1"; }
S2=chapters/02_scaling/scaling.c
S6=chapters/06_dropout/dropout.c
mkdir -p "$TMP/up/full" "$TMP/up/wrong" "$TMP/up/one" "$TMP/up/empty" "$TMP/up/other" "$TMP/up/tree"
sol "$S2" >"$TMP/up/full/scaling.c"
sol "$S6" >"$TMP/up/full/dropout.c"
sed 's|sqrtf((float)d_k)|(float)d_k|' "$TMP/up/full/scaling.c" >"$TMP/up/wrong/scaling.c"
cp "$TMP/up/full/dropout.c" "$TMP/up/wrong/"
cp "$TMP/up/full/scaling.c" "$TMP/up/one/"
printf 'int main(void) { return 0; }\n' >"$TMP/up/other/main.c"
cp -R "$Q/image/source/handout/." "$TMP/up/tree/"
cp "$TMP/up/full/scaling.c" "$TMP/up/tree/$S2"
cp "$TMP/up/full/dropout.c" "$TMP/up/tree/$S6"

# run NAME: a fresh container, the upload NAME in /grade/student, the entrypoint
run() {
    rm -rf "$TMP/c" "$TMP/g"
    mkdir -p "$TMP/g" && cp -a "$TMP/img" "$TMP/c" && cp -R "$TMP/up/$1" "$TMP/g/student" || return 1
    pl "$TMP/c" "$TMP/g" "$ENTRY" >"$TMP/$1.log" 2>&1
    _st=$?
    [ "$_st" -eq 0 ] && _ok || bad "$1: the entrypoint exits 0 (exit $_st)" "$(tail -n 5 "$TMP/$1.log")"
    cp "$TMP/g/results/results.json" "$TMP/$1.json" 2>/dev/null
}
# check NAME GRADABLE POINTS WORDS: results.json as PrairieLearn reads it
check() {
    "$PY" - "$TMP/$1.json" "$2" "$3" "$4" >"$TMP/$1.chk" 2>&1 <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
gradable, points, words = sys.argv[2] == "yes", sys.argv[3], sys.argv[4]
assert d.get("gradable", True) is gradable, "gradable is %s" % d.get("gradable")
if gradable:
    assert isinstance(d["score"], float) and 0.0 <= d["score"] <= 1.0
    got = [t["points"] for t in d["tests"]]
    for t in d["tests"]:
        for k, ty in (("name", str), ("points", int), ("max_points", int), ("message", str), ("output", str)):
            assert isinstance(t[k], ty), k
    assert ",".join(map(str, got)) == points, "points %s" % got
    tot = sum(t["max_points"] for t in d["tests"])
    assert abs(d["score"] - sum(got) / tot) < 1e-6
else:
    fe = d["format_errors"]
    assert isinstance(fe, (str, list)) and words in (fe if isinstance(fe, str) else " ".join(fe)), fe
    assert "score" not in d or d["score"] == 0
PYEOF
    [ $? -eq 0 ] && _ok || bad "$1: results.json as PrairieLearn reads it (gradable $2, points $3)" "$(tail -n 2 "$TMP/$1.chk")"
}
run full && check full yes 1,1,1 ""
run wrong && check wrong yes 0,1,1 ""
run one && check one yes 1,0,0 ""
run empty && check empty no "" "No file with blanks is in this upload: upload scaling.c dropout.c"
run other && check other no "" "No file with blanks is in this upload"
run tree && check tree yes 1,1,1 ""
grep -q 'hidden-check seed 777' "$TMP/full.log" && _ok || bad "the grading log names the seed"
finish
