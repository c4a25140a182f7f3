#!/bin/sh
# test_grade_lms.sh — what a course does around the points (docs/TEACHING.md,
# "Into an LMS" and "Regrading"): a class of level 1, chapters 2 and 6, graded
# into Gradescope's and PrairieLearn's results.json, read by a JSON parser and
# checked for their fields, one test per blank adding up to class.csv's row; an
# answer whose messages hold quotes, backslashes and control bytes, and
# gradetool fed every kind of byte, still give valid JSON; grading.json records
# the run, the recorded seed gives the same points and feedback, STUDENT=id
# regrades one row and leaves the rest; the class graded at LEVEL=2 and a tree
# without its manifest get 0 and the reason; every error path is one sentence,
# exit 2; make exercises writes the level, the blanks and a GitHub Classroom
# workflow whose commands exist, a handout inside the repository is git-ignored,
# and make gradescope-autograder writes its zip. Needs bubblewrap for the grading
# part (else those checks are counted as skipped).
. tests/lib.sh
suite test_grade_lms
grader_suite_only_once

AWKP=${AWK:-awk}
ok() { _ok; }
bad() { _failed=$((_failed + 1)); printf 'FAIL: %s\n' "$1"; [ -n "${2:-}" ] && printf '      %s\n' "$2"; }
PY=
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import json' 2>/dev/null; then PY=/usr/bin/python3
elif command -v python3 >/dev/null 2>&1 && python3 -c 'import json' 2>/dev/null; then PY=python3; fi
# json FILE KIND: parsed by a JSON parser and checked for KIND's fields (gradescope,
# prairielearn, grading); without Python, a check of the fields by name only
json() {
    if [ -n "$PY" ]; then
        "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
k = sys.argv[2]
def need(o, keys, types):
    for key, t in zip(keys, types):
        assert key in o, "missing " + key
        assert isinstance(o[key], t), key + " has type " + type(o[key]).__name__
if k == "gradescope":
    need(d, ["score", "execution_time", "output", "visibility", "stdout_visibility", "tests"], [int, int, str, str, str, list])
    # only the keys of Gradescope's specification (gradescope-autograders.readthedocs.io, "specs"): it has
    # no top-level max_score (the assignment's points are set on Gradescope's page)
    spec = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
            "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
    assert set(d) <= spec, "not in Gradescope's specification: " + " ".join(sorted(set(d) - spec))
    for t in d["tests"]:
        need(t, ["name", "number", "score", "max_score", "status", "output", "visibility"], [str, str, int, int, str, str, str])
        assert t["status"] in ("passed", "failed")
        assert (t["status"] == "passed") == (t["score"] == t["max_score"])
    assert d["score"] == sum(t["score"] for t in d["tests"])
    print(d["score"], " ".join(str(t["score"]) for t in d["tests"]), d["tests"][0]["visibility"] if d["tests"] else "-")
elif k == "prairielearn":
    need(d, ["gradable", "score", "message", "output", "tests"], [bool, (int, float), str, str, list])
    for t in d["tests"]:
        need(t, ["name", "description", "points", "max_points", "message", "output"], [str, str, int, int, str, str])
    tot = sum(t["max_points"] for t in d["tests"])
    got = sum(t["points"] for t in d["tests"])
    assert 0 <= d["score"] <= 1 and abs(d["score"] - (got / tot if tot else 0)) < 1e-6
    print(got, " ".join(str(t["points"]) for t in d["tests"]))
else:
    need(d, ["seed", "level", "chapters", "blanks", "version", "when", "students"], [int, int, list, list, str, str, list])
    print(d["seed"], d["level"], ",".join(map(str, d["chapters"])), " ".join(b["name"] + ":" + str(b["points"]) for b in d["blanks"]),
          " ".join(s["id"] + ":" + str(s["score"]) for s in d["students"]))
PYEOF
    else
        for f in $(case $2 in gradescope) echo score execution_time output visibility stdout_visibility tests max_score status ;;
                   prairielearn) echo gradable score message output tests points max_points ;; *) echo seed level chapters blanks version when students ;; esac); do
            grep -q "\"$f\": " "$1" || return 1
        done
        echo fields
    fi
}
[ -n "$PY" ] || skip 1 "no python3 with json here: the JSON files are checked for their fields by name only, not parsed"

# ---- make exercises: the level, the blanks, the Classroom workflow --------------------
sh scripts/exercises/generate.sh "$TMP/handout" 1 2,6 >/dev/null 2>&1 || bad "make exercises writes a handout"
M=$TMP/handout/.exercise-manifest
[ "$(sed -n 's/^# level: //p' "$M")" = 1 ] && [ "$(grep -v '^#' "$M" | cut -f1 | tr '\n' ' ')" = "scale dropout_scale dropout_keep " ] &&
    ok || bad "the handout's manifest holds its level and its blanks" "$(head -n 8 "$M")"
Y=$TMP/handout/.github/workflows/classroom.yml
grep -c '^    - name: chapter ' "$Y" | grep -qx 2 && grep -q 'max-score: 2' "$Y" && grep -q 'runners: chapter2,chapter6' "$Y" &&
    ok || bad "the handout's Classroom workflow has one step per chapter with its points" "$(cat "$Y")"
# the committed workflow is the one of make exercises at level 1, all default chapters
sh scripts/exercises/generate.sh "$TMP/h1" 1 >/dev/null 2>&1
cmp -s "$TMP/h1/.github/workflows/classroom.yml" scripts/exercises/classroom.yml && ok ||
    bad "scripts/exercises/classroom.yml is what make exercises writes at level 1 (sh scripts/exercises/classroom.sh MANIFEST)"
# its commands run in a handout: each is a target of the handout's Makefile
cmds=$(sed -n 's/^        command: //p' scripts/exercises/classroom.yml)
n=0
for c in $(echo "$cmds" | sed -n 's/^make //p'); do
    n=$((n + 1))
    make -n -C "$TMP/h1" "$c" >/dev/null 2>&1 || bad "the workflow's command 'make $c' is a target of the handout"
done
[ "$n" -eq "$(grep -c '^    - name: chapter ' scripts/exercises/classroom.yml)" ] && [ "$n" -gt 0 ] && ok ||
    bad "every step of the workflow runs 'make test-chapterN'" "$cmds"

# the level-0 handout (the solution, no blanks): a valid workflow, no reporter with no runners
sh scripts/exercises/generate.sh "$TMP/h0" 0 2 >/dev/null 2>&1
Y0=$TMP/h0/.github/workflows/classroom.yml
! grep -q 'runners:' "$Y0" && grep -q '^      run: make test$' "$Y0" && ok ||
    bad "the level-0 handout's workflow runs make test and has no reporter without runners" "$(tail -n 4 "$Y0")"
# a step is its chapter's: a syntax error in chapter 6 does not stop make test-chapter1
# (chapters 0..1 and the tools only)
cp -R "$TMP/handout" "$TMP/hc"
printf 'this is not C\n' >>"$TMP/hc/chapters/06_dropout/dropout.c"
make -s -C "$TMP/hc" test-chapter1 >"$TMP/c1.log" 2>&1 && grep -q ' 0 failed' "$TMP/c1.log" && ok ||
    bad "make test-chapter1 passes in a handout whose chapter 6 does not compile" "$(tail -n 3 "$TMP/c1.log")"

# a handout written inside a repository (not exercises/) is git-ignored there, locally
if command -v git >/dev/null 2>&1; then
    R=$TMP/repo
    mkdir -p "$R" && git ls-files -z | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | (cd "$R" && tar xf -)
    (cd "$R" && git init -q && git add -A >/dev/null 2>&1 && git -c user.email=t@t -c user.name=t commit -qm t >/dev/null 2>&1 &&
        sh scripts/exercises/generate.sh class/carol 1 2 >/dev/null 2>&1 && git status --porcelain) >"$TMP/st" 2>&1
    [ -f "$R/class/carol/.exercise-manifest" ] && [ ! -s "$TMP/st" ] && ok ||
        bad "a handout in class/carol/ is not a change of the repository" "$(head -n 5 "$TMP/st")"
else
    skip 1 "no git here: the handout's local exclude is not checked"
fi

# ---- gradetool gradescope: the first test says which blanks do not compile, in both languages
cc -std=c99 -O2 scripts/exercises/gradetool.c -lm -o "$TMP/gt" 2>"$TMP/gt.err" || bad "gradetool builds" "$(head -n 3 "$TMP/gt.err")"
printf 'the upload\n' >"$TMP/wf.txt"
for lang in en zh; do
    case $lang in
        en) m1='your scaling.c does not compile: error: expected ; (\"does not compile\" said the student)' m2='correct' ;;
        zh) m1='你的 scaling.c 无法编译：error' m2='正确：does not compile' ;;
    esac
    printf '{\n  "score": 1,\n  "execution_time": 0,\n  "output": "x",\n  "tests": [\n    {"name": "a", "score": 0, "max_score": 1, "status": "failed", "output": "%s"},\n    {"name": "b", "score": 1, "max_score": 1, "status": "passed", "output": "%s"}\n  ]\n}\n' \
        "$m1" "$m2" >"$TMP/gs_in.json"
    "$TMP/gt" gradescope "$lang" "$TMP/wf.txt" 7 "$TMP/gs_out.json" "$TMP/gs_in.json" 2>"$TMP/gt.err"
    first=$(grep '"number": "0"' "$TMP/gs_out.json")
    case $lang in en) want='1 of 2 blanks do not compile' ;; zh) want='1/2 个空没有编译通过' ;; esac
    case $first in *'"status": "failed"'*"$want"*) ok ;; *) bad "gradetool gradescope ($lang): the first test counts the blanks that do not compile" "$first $(cat "$TMP/gt.err")" ;; esac
    grep -q '^  "execution_time": 7,$' "$TMP/gs_out.json" && ok || bad "gradetool gradescope ($lang): execution_time is the run's"
done

# ---- make gradescope-autograder ---------------------------------------------------------
sh scripts/exercises/gradescope.sh 4 >/dev/null 2>"$TMP/gs.err"; st=$?
[ "$st" -eq 2 ] && [ "$(grep -c '' "$TMP/gs.err")" -eq 1 ] && ok || bad "gradescope-autograder LEVEL=4: one sentence, exit 2" "exit $st: $(cat "$TMP/gs.err")"
if command -v zip >/dev/null 2>&1 || { [ -n "$PY" ] && "$PY" -c 'import zipfile'; }; then
    GRADESCOPE_OUT=$TMP/gsz sh scripts/exercises/gradescope.sh 1 2,6 >"$TMP/gs.out" 2>&1
    Z=$TMP/gsz/autograder.zip
    if [ -n "$PY" ]; then
        "$PY" -c 'import sys, zipfile; n = zipfile.ZipFile(sys.argv[1]).namelist(); print("\n".join(n))' "$Z" >"$TMP/zl" 2>&1
    else unzip -Z1 "$Z" >"$TMP/zl" 2>&1; fi
    grep -qx setup.sh "$TMP/zl" && grep -qx run_autograder "$TMP/zl" && grep -qx scripts/exercises/grade.sh "$TMP/zl" &&
        grep -qx Makefile "$TMP/zl" && ! grep -q '^source/' "$TMP/zl" && ok ||
        bad "autograder.zip holds setup.sh, run_autograder and the repository at its root" "$(cat "$TMP/gs.out"; head -n 3 "$TMP/zl")"
    mkdir -p "$TMP/ag" && (cd "$TMP/ag" && if [ -n "$PY" ]; then "$PY" -m zipfile -e "$Z" . ; else unzip -q "$Z"; fi) >/dev/null 2>&1
    sh -n "$TMP/ag/run_autograder" && sh -n "$TMP/ag/setup.sh" && grep -q '^LEVEL=1$' "$TMP/ag/lms-env.sh" &&
        grep -q '^CHAPTERS=2,6$' "$TMP/ag/lms-env.sh" && grep -q 'results/results.json' "$TMP/ag/run_autograder" &&
        grep -q 'need="$need bubblewrap"' "$TMP/ag/setup.sh" && ok || bad "run_autograder grades at LEVEL=1 CHAPTERS=2,6 into results.json; setup.sh installs bubblewrap"
    # (tests/test_gradescope.sh runs the zip as Gradescope does)
else
    skip 2 "neither zip nor python3's zipfile here: make gradescope-autograder cannot write its zip"
fi

# ---- gradetool results: any byte in a message gives valid JSON -------------------------
GT=$TMP/gradetool
${CC:-cc} -std=c99 -O2 scripts/exercises/gradetool.c -lm -o "$GT" 2>"$TMP/gt.err" || bad "gradetool.c builds" "$(cat "$TMP/gt.err")"
mkdir -p "$TMP/r/s/1"
printf 'scale\t1\t02\nkeep\t2\t06\n' >"$TMP/r/blanks.tsv"
printf 'we"ird\\\001\033\177 \377\300\200\355\240\200\364\220\200\200 \342\200\250 é\tok\n' >"$TMP/r/students.tsv"
printf 'scale\t1\t1\tcorrect "q" \\ \\" \001\002\033[31m \177 \377 \300\257 \355\240\200 \360\237\230\200 \342\200\251 end\\\nkeep\t0\t2\t\\u0000 "}]\n' >"$TMP/r/s/1/result.tsv"
"$GT" results "$TMP/r/blanks.tsv" "$TMP/r/s/1/result.tsv" "$(cut -f1 "$TMP/r/students.tsv")" 1 0 after_published "$TMP/r/gs.json" "$TMP/r/pl.json" &&
    "$GT" record "$TMP/r" "$TMP/r/g.json" 42 1 2,6 "v" "now" visible 2>"$TMP/gt.err" || bad "gradetool results and record run" "$(cat "$TMP/gt.err")"
for k in gs:gradescope pl:prairielearn g:grading; do
    got=$(json "$TMP/r/${k%%:*}.json" "${k#*:}" 2>&1) && ok || bad "a message with any byte: ${k#*:} JSON is valid" "$got"
done
if [ -n "$PY" ]; then
    out=$("$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(repr(d["tests"][0]["output"]))' "$TMP/r/gs.json")
    case $out in *'\x01\x02\x1b[31m \x7f'*'"q" \\ \\"'*|*'"q" \\ \\"'*'\x01\x02\x1b[31m \x7f'*) ok ;; *) bad "quotes, backslashes and control bytes come back as they were" "$out" ;; esac
fi
"$GT" results "$TMP/r/blanks.tsv" "$TMP/r/s/1/result.tsv" x 1 0 sometimes "$TMP/r/a" "$TMP/r/b" 2>"$TMP/gt.err"; st=$?
[ "$st" -eq 2 ] && [ ! -e "$TMP/r/a" ] && grep -q 'visibility must be' "$TMP/gt.err" && ok || bad "gradetool results with a bad visibility: exit 2, nothing written"

# ---- grading a class ---------------------------------------------------------------------
NGRADE=22
if ! command -v bwrap >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1 ||
    ! bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev /bin/true >/dev/null 2>&1; then
    skip $NGRADE "grading runs student code in bubblewrap, which does not work here (apt-get install bubblewrap)"
    finish
    exit $?
fi
C=$TMP/cls
mkdir -p "$C"
sh scripts/exercises/generate.sh "$TMP/sol" 0 2,6 >/dev/null 2>&1
S2=chapters/02_scaling/scaling.c
S6=chapters/06_dropout/dropout.c
fill() { # FILE NAME TEXT (as it is: no escapes read)
    TXT=$3 $AWKP -v nm="$2" '
        index($0, "/* TODO exercise '\''" nm "'\''") { skip = 1; next }
        skip && index($0, "exercise_missing(\"" nm "\"") { print ENVIRON["TXT"]; skip = 0; next }
        skip { next }
        { print }' "$1" >"$1.new" && mv "$1.new" "$1"
}
cp -R "$TMP/sol" "$C/alice" && cp "$M" "$C/alice/"                 # the solution, handout manifest kept: 3/3
cp -R "$TMP/handout" "$C/bob"                                         # scale by d_k, dropout_keep right beside dropout_scale's stub (one function): 0/3
fill "$C/bob/$S2" scale '    scores = t_div_scalar(scores, (float)t_size(query, -1));'
fill "$C/bob/$S6" dropout_keep '        keep = rng_bernoulli(t_default_rng(), 1.0 - d->p);'
cp -R "$TMP/handout" "$C/carol"                                       # messages with quotes, backslashes, control bytes: 0/3
fill "$C/carol/$S2" scale '    t_error("say \"hi\" \\ back\\slash \001 \033[2J \377\300 tab\there");'
fill "$C/carol/$S6" dropout_scale '        scale = 1.0f; printf("\"}]} \\u0000 \377\n"); t_error("\"%s\\", "\033");'
cp -R "$TMP/sol" "$C/dave" && rm "$C/dave/.exercise-manifest"          # no manifest: 0, and why
GRADE_SEED=77 GRADE_OUT=$TMP/o1 GRADE_TIME=5 sh scripts/exercises/grade_class.sh "$C" 1 2,6 2 >"$TMP/g1.out" 2>"$TMP/g1.err"
[ "$(tail -n 1 "$TMP/g1.out")" = "graded: 4 students, mean 25.0%" ] && ok || bad "the class is graded" "$(tail -n 3 "$TMP/g1.out"; tail -n 5 "$TMP/g1.err")"
row() { grep "^$1," "$TMP/o1/class.csv"; }
[ "$(row alice)" = "alice,3,3,100.0,1,1,1" ] && [ "$(row bob)" = "bob,0,3,0.0,0,0,0" ] && [ "$(row carol)" = "carol,0,3,0.0,0,0,0" ] &&
    [ "$(row dave)" = "dave,0,3,0.0,0,0,0" ] && ok || bad "class.csv rows" "$(cat "$TMP/o1/class.csv")"
# GitHub Classroom, as its command grader scores a step (max-score when the command exits 0),
# in a clone of alice's and bob's repositories: each chapter's points when all its blanks
# are right in make grade-class, else 0 (TEACHING, "GitHub Classroom")
for id in alice bob; do
    rm -rf "$TMP/clone" && cp -R "$C/$id" "$TMP/clone"
    got=0 want=0
    for st in $(sed -n 's/^        command: make test-chapter\([0-9]*\)$/\1/p' "$TMP/clone/.github/workflows/classroom.yml"); do
        pts=$(sed -n "/command: make test-chapter$st\$/,/max-score/s/^        max-score: //p" "$TMP/clone/.github/workflows/classroom.yml")
        make -s -C "$TMP/clone" "test-chapter$st" >/dev/null 2>&1 && got=$((got + pts))
        # grade-class's cells of that chapter's blanks, from the manifest's file column
        full=$("$AWKP" -F '\t' -v n="$(printf %02d "$st")" '!/^#/ && index($3, "chapters/" n "_") == 1 { print $1, $9 }' "$C/$id/.exercise-manifest" |
            while read -r b p; do
                col=$(head -n 1 "$TMP/o1/class.csv" | tr ',' '\n' | grep -nx "$b" | cut -d: -f1)
                [ "$(row "$id" | cut -d, -f"$col")" = "$p" ] || echo short
            done | grep -c short)
        [ "$full" -eq 0 ] && want=$((want + pts))
    done
    [ "$got" -eq "$want" ] && ok || bad "$id: the Classroom score ($got) is what TEACHING says of make grade-class's row ($want)" "$(row "$id")"
done
grep -q "not graded: the handout's .exercise-manifest is not in this tree" "$TMP/o1/feedback/dave.txt" && grep -q "'dave' got 0" "$TMP/g1.err" &&
    ok || bad "a tree without its manifest: 0, the feedback and the run say why" "$(cat "$TMP/o1/feedback/dave.txt")"
# every student's two results.json: parsed, their fields, per-blank points = class.csv's cells
for id in alice bob carol dave; do
    cells=$(row $id | cut -d, -f2,5- | tr ',' ' ')
    g=$(json "$TMP/o1/gradescope/$id.json" gradescope 2>&1)
    p=$(json "$TMP/o1/prairielearn/$id.json" prairielearn 2>&1)
    if [ -n "$PY" ]; then
        [ "$g" = "$cells after_published" ] && [ "$p" = "$cells" ] && ok ||
            bad "$id: Gradescope and PrairieLearn results add up to class.csv's row" "csv: $cells; gradescope: $g; prairielearn: $p"
    else
        [ "$g" = fields ] && [ "$p" = fields ] && ok || bad "$id: the LMS results hold their fields"
    fi
done
grep -q 'say \\"hi\\" \\\\' "$TMP/o1/gradescope/carol.json" && ok ||
    bad "carol's quotes and backslashes reach her Gradescope output, escaped" "$(grep -m1 output "$TMP/o1/gradescope/carol.json" | tail -c 300)"
rec=$(json "$TMP/o1/grading.json" grading 2>&1)
if [ -n "$PY" ]; then
    case $rec in "77 1 2,6 scale:1 dropout_scale:1 dropout_keep:1 alice:3 bob:0 carol:0 dave:0") ok ;;
        *) bad "grading.json records seed, level, chapters, blanks and scores" "$rec" ;; esac
else [ "$rec" = fields ] && ok || bad "grading.json holds its fields"; fi

# no GRADE_OUT: the class's own folder, named after SUBMISSIONS, and the contract's copy of the
# last class graded in build/grade/class.csv and build/grade/feedback/ (here under GRADE_ROOT)
GRADE_SEED=77 GRADE_ROOT=$TMP/root GRADE_TIME=5 sh scripts/exercises/grade_class.sh "$C" 1 2,6 2 >"$TMP/g0.out" 2>&1
cls=$(basename "$C")
cmp -s "$TMP/o1/class.csv" "$TMP/root/$cls/class.csv" && cmp -s "$TMP/o1/class.csv" "$TMP/root/class.csv" &&
    diff -r "$TMP/o1/feedback" "$TMP/root/feedback" >/dev/null && [ -f "$TMP/root/$cls/grading.json" ] && ok ||
    bad "without GRADE_OUT: <root>/<class>/ and the contract's <root>/class.csv and <root>/feedback/" "$(ls "$TMP/root"; tail -n 3 "$TMP/g0.out")"

# the recorded seed again: the same points and feedback
seed=$(sed -n 's/^  "seed": \([0-9]*\),$/\1/p' "$TMP/o1/grading.json")
GRADE_SEED=$seed GRADE_OUT=$TMP/o2 GRADE_TIME=5 sh scripts/exercises/grade_class.sh "$C" 1 2,6 2 >/dev/null 2>&1
cmp -s "$TMP/o1/class.csv" "$TMP/o2/class.csv" && diff -r "$TMP/o1/feedback" "$TMP/o2/feedback" >/dev/null && ok ||
    bad "GRADE_SEED=<the recorded seed> gives the same points and feedback" "$(diff -r "$TMP/o1/feedback" "$TMP/o2/feedback" | head -n 5)"

# STUDENT=bob: regraded with the recorded seed, level and chapters; unchanged, equal to the first run
cp -R "$TMP/o1" "$TMP/o1.first"
GRADE_OUT=$TMP/o1 GRADE_TIME=5 sh scripts/exercises/grade_class.sh "$C" "" "" "" bob >"$TMP/rg.out" 2>&1
cmp -s "$TMP/o1.first/class.csv" "$TMP/o1/class.csv" && diff -r "$TMP/o1.first/feedback" "$TMP/o1/feedback" >/dev/null &&
    grep -q "regrading 'bob'.*the recorded seed" "$TMP/rg.out" && ok || bad "a regrade with the recorded seed equals the first run" "$(tail -n 4 "$TMP/rg.out")"
# bob fixes scale: his row and files change, nobody else's
fill_fix() { sed 's|scores = t_div_scalar(scores, (float)t_size(query, -1));|scores = t_div_scalar(scores, sqrtf((float)t_size(query, -1)));|' "$1" >"$1.n" && mv "$1.n" "$1"; }
fill_fix "$C/bob/$S2"
GRADE_OUT=$TMP/o1 GRADE_TIME=5 sh scripts/exercises/grade_class.sh "$C" 1 "" "" bob >"$TMP/rg2.out" 2>&1
[ "$(row bob)" = "bob,1,3,33.3,1,0,0" ] && [ "$(grep -v '^bob,' "$TMP/o1/class.csv")" = "$(grep -v '^bob,' "$TMP/o1.first/class.csv")" ] &&
    cmp -s "$TMP/o1/feedback/alice.txt" "$TMP/o1.first/feedback/alice.txt" && cmp -s "$TMP/o1/gradescope/carol.json" "$TMP/o1.first/gradescope/carol.json" &&
    [ "$(json "$TMP/o1/gradescope/bob.json" gradescope | cut -d' ' -f1)" = 1 ] && ok ||
    bad "STUDENT=bob replaces his row and results only" "$(cat "$TMP/o1/class.csv"; tail -n 3 "$TMP/rg2.out")"
[ -n "$PY" ] && { json "$TMP/o1/grading.json" grading | grep -q ' bob:1 carol:0' && ok || bad "grading.json has bob's new score"; }

# ROSTER=FILE: Canvas's and Moodle's import files, folders mapped to the roster's ids (a
# spreadsheet's BOM, quoted fields, any column order and case); dave has no roster row and
# erin no folder: each is named on stderr, neither is in the files
printf '\357\273\277Email,Folder,Name,ID,SIS_Login_ID,Section\n"a@x.edu",alice,"Liddell, Alice",101,al1,S1\nb@x.edu,bob,Bob,102,bo2,S1\n' >"$TMP/roster.csv"
printf 'c@x.edu,carol,"Carol ""CJ"" Jones",103,ca3,S2\ne@x.edu,erin,Erin,105,er5,S2\n' >>"$TMP/roster.csv"
ROSTER=$TMP/roster.csv GRADE_OUT=$TMP/o1 GRADE_TIME=5 sh scripts/exercises/grade_class.sh "$C" "" "" "" bob >"$TMP/rs.out" 2>"$TMP/rs.err"
pts() { row "$1" | cut -d, -f2; }   # (class.csv's score)
printf '%s\n' 'Student,ID,SIS User ID,SIS Login ID,Section,attention-in-c level 1' "\"Liddell, Alice\",101,,al1,S1,$(pts alice)" \
    "Bob,102,,bo2,S1,$(pts bob)" "\"Carol \"\"CJ\"\" Jones\",103,,ca3,S2,$(pts carol)" >"$TMP/canvas.want"
printf '%s\n' 'Email address,ID number,Username,attention-in-c level 1' "a@x.edu,,,$(pts alice)" "b@x.edu,,,$(pts bob)" \
    "c@x.edu,,,$(pts carol)" >"$TMP/moodle.want"
cmp -s "$TMP/canvas.want" "$TMP/o1/canvas.csv" && cmp -s "$TMP/moodle.want" "$TMP/o1/moodle.csv" && ok ||
    bad "ROSTER: canvas.csv and moodle.csv hold the roster's students and their points" "$(cat "$TMP/o1/canvas.csv" "$TMP/o1/moodle.csv" "$TMP/rs.err")"
grep -q "the folder 'dave' is not in the roster" "$TMP/rs.err" && grep -q "'erin' has no folder among the submissions" "$TMP/rs.err" &&
    ok || bad "ROSTER: a folder without a row and a row without a folder are named" "$(cat "$TMP/rs.err")"
printf 'name,id\nAlice,101\n' >"$TMP/roster.bad"

# the error paths: one sentence each, exit 2, nothing changed
cp "$TMP/o1/class.csv" "$TMP/keep.csv"
err() { # WHAT PATTERN ENV... -- ARGS...
    _w=$1 _p=$2
    shift 2
    env "$@" >"$TMP/e.out" 2>"$TMP/e.err"; _st=$?
    [ "$_st" -eq 2 ] && [ "$(grep -c '' "$TMP/e.err")" -eq 1 ] && grep -q "$_p" "$TMP/e.err" && cmp -s "$TMP/keep.csv" "$TMP/o1/class.csv" && ok ||
        bad "$_w: one sentence, exit 2" "exit $_st: $(cat "$TMP/e.err")"
}
GC=scripts/exercises/grade_class.sh
err "a ROSTER without a folder column" "ROSTER: the header row has no 'folder' column" ROSTER="$TMP/roster.bad" GRADE_OUT="$TMP/o1" sh $GC "$C" "" "" "" bob
err "a ROSTER that is not there" "ROSTER: cannot read" ROSTER="$TMP/nope.csv" GRADE_OUT="$TMP/o1" sh $GC "$C" "" "" "" bob
err "STUDENT=nobody" "STUDENT=nobody is not a graded student" GRADE_OUT="$TMP/o1" sh $GC "$C" "" "" "" nobody
err "a regrade without grading.json" "has no record of a graded class" GRADE_OUT="$TMP/none" sh $GC "$C" "" "" "" bob
err "GRADE_SEED=12x" "GRADE_SEED=12x: the seed must be a whole number" GRADE_SEED=12x GRADE_OUT="$TMP/o3" sh $GC "$C" 1 2,6
err "a regrade with another GRADE_SEED" "recorded seed $seed" GRADE_SEED=5 GRADE_OUT="$TMP/o1" sh $GC "$C" "" "" "" bob
err "a regrade at another LEVEL" "graded at level 1, not LEVEL=2" GRADE_OUT="$TMP/o1" sh $GC "$C" 2 "" "" bob
err "GRADE_VISIBILITY=sometimes" "GRADE_VISIBILITY=sometimes" GRADE_VISIBILITY=sometimes GRADE_OUT="$TMP/o3" sh $GC "$C" 1 2,6
err "make grade with GRADE_SEED=-1" "GRADE_SEED=-1" GRADE_SEED=-1 GRADE_OUT="$TMP/o3" sh scripts/exercises/grade.sh "$C/bob" 1 2,6
err "GRADE_TIME=abc" "GRADE_TIME=abc: give a whole number from 1" GRADE_TIME=abc GRADE_OUT="$TMP/o3" sh $GC "$C" 1 2,6
err "GRADE_MEM_KB=0 (make grade)" "GRADE_MEM_KB=0: give a whole number from 1" GRADE_MEM_KB=0 GRADE_OUT="$TMP/o3" sh scripts/exercises/grade.sh "$C/bob" 1 2,6
err "GRADE_NPROC=-1 (make grade-bugs)" "GRADE_NPROC=-1: give a whole number from 1" GRADE_NPROC=-1 sh scripts/exercises/grade_bugs.sh "$C"
err "GRADE_SOURCE_BYTES=1MB" "GRADE_SOURCE_BYTES=1MB: give a whole number from 1" GRADE_SOURCE_BYTES=1MB GRADE_OUT="$TMP/o3" \
    sh $GC "$C" 1 2,6
err "GRADE_SOURCE_BYTES=0 (make grade)" "GRADE_SOURCE_BYTES=0: give a whole number from 1" GRADE_SOURCE_BYTES=0 GRADE_OUT="$TMP/o3" \
    sh scripts/exercises/grade.sh "$C/bob" 1 2,6
err "GRADE_CACHE_KEEP=x" "GRADE_CACHE_KEEP=x: give a whole number from 1" GRADE_CACHE_KEEP=x GRADE_OUT="$TMP/o3" sh $GC "$C" 1 2,6
err "GRADE_CACHE_KEEP=0 (make grade)" "GRADE_CACHE_KEEP=0: give a whole number from 1" GRADE_CACHE_KEEP=0 GRADE_OUT="$TMP/o3" \
    sh scripts/exercises/grade.sh "$C/bob" 1 2,6
err "GRADE_CACHE_KEEP=-1 (make grade-bugs)" "GRADE_CACHE_KEEP=-1: give a whole number from 1" GRADE_CACHE_KEEP=-1 \
    sh scripts/exercises/grade_bugs.sh "$C"
# an output folder that cannot be written: refused before any student is graded (nothing on stdout)
: >"$TMP/afile"
err "GRADE_OUT under a file (grade-class)" "cannot write into $TMP/afile/out" GRADE_OUT="$TMP/afile/out" sh $GC "$C" 1 2,6
[ ! -s "$TMP/e.out" ] && ok || bad "GRADE_OUT that cannot be written: refused before grading" "$(cat "$TMP/e.out")"
err "GRADE_OUT under a file (grade)" "cannot write into $TMP/afile/out" GRADE_OUT="$TMP/afile/out" sh scripts/exercises/grade.sh "$C/bob" 1 2,6
[ ! -s "$TMP/e.out" ] && ok || bad "make grade: GRADE_OUT that cannot be written: refused before grading" "$(cat "$TMP/e.out")"

# the level-1 class graded at LEVEL=2: nobody gets the level-2 points, every row says why
GRADE_OUT=$TMP/o4 GRADE_TIME=5 sh scripts/exercises/grade_class.sh "$C" 2 2,6 2 >"$TMP/g4.out" 2>"$TMP/g4.err"
a4=$(grep '^alice,' "$TMP/o4/class.csv")
[ "${a4#alice,0,}" != "$a4" ] && [ "$(grep -c "handed out at level 1 and is graded at LEVEL=2" "$TMP/o4/feedback/alice.txt")" -ge 3 ] &&
    [ "$(grep -c "got 0: this tree was handed out at level 1" "$TMP/g4.err")" -eq 3 ] && ok ||
    bad "a level-1 class graded at LEVEL=2 gets 0 and the reason" "$(cat "$TMP/o4/class.csv"; head -n 4 "$TMP/o4/feedback/alice.txt"; cat "$TMP/g4.err")"

# an empty folder among the submissions: 0 points and a sentence that says so (not a missing manifest)
# and an answer that dereferences NULL: 0 points, the crash named (a signal, not a time limit)
mkdir -p "$TMP/ce/nobody"
cp -R "$TMP/handout" "$TMP/ce/crash"
sed 's|exercise_missing("scale".*|scores = NULL; scores = t_div_scalar(scores, 2.0f);|' "$TMP/handout/chapters/02_scaling/scaling.c" \
    >"$TMP/ce/crash/chapters/02_scaling/scaling.c"
GRADE_OUT=$TMP/o8 sh scripts/exercises/grade_class.sh "$TMP/ce" 1 2,6 >"$TMP/g8.out" 2>"$TMP/g8.err"
# (the check it stopped in is named: scale runs first in scaled_scores; what the probe printed
# before it reached the file, and was not lost with stdio's buffer in the crash)
grep -q '^crash,0,3,' "$TMP/o8/class.csv" &&
    grep -q '^scale .* 0/1  .*fails: scaled_scores: your code stopped before this check (it crashed: segmentation fault' \
        "$TMP/o8/feedback/crash.txt" && ok ||
    bad "an answer that crashes: 0, the crash and the check it stopped in named" "$(cat "$TMP/o8/feedback/crash.txt")"
grep -q '^nobody,0,3,' "$TMP/o8/class.csv" && grep -q '^scale .* 0/1  not graded: this folder is empty: nothing was handed in$' \
    "$TMP/o8/feedback/nobody.txt" && grep -q "'nobody' got 0: this folder is empty" "$TMP/g8.err" && ok ||
    bad "an empty folder gets 0 and the sentence 'this folder is empty'" "$(cat "$TMP/o8/feedback/nobody.txt" "$TMP/g8.err")"

# make grade: one student, both LMS files, the visibility as asked; the default folder is the class's name
GRADE_VISIBILITY=visible GRADE_OUT=$TMP/o5 GRADE_TIME=5 sh scripts/exercises/grade.sh "$C/bob" 1 2,6 >"$TMP/g5.out" 2>&1
[ "$(tail -n 1 "$TMP/g5.out")" = "score: 1/3" ] && [ "$(json "$TMP/o5/gradescope/bob.json" gradescope)" = "1 1 0 0 visible" ] && json "$TMP/o5/prairielearn/bob.json" prairielearn >/dev/null &&
    ok || bad "make grade writes both results.json, visibility as GRADE_VISIBILITY says" "$(tail -n 3 "$TMP/g5.out")"

# the feedback in Chinese: GRADE_LANG=zh, or LANG=zh_CN.UTF-8 alone; the same points and LMS
# fields, the grader's sentences translated, what they quote kept
GRADE_VISIBILITY=visible GRADE_LANG=zh GRADE_OUT=$TMP/o6 GRADE_TIME=5 sh scripts/exercises/grade.sh "$C/bob" 1 2,6 >"$TMP/g6.out" 2>&1
env -u LC_ALL -u LC_MESSAGES LANG=zh_CN.UTF-8 GRADE_VISIBILITY=visible GRADE_OUT=$TMP/o7 GRADE_TIME=5 \
    sh scripts/exercises/grade.sh "$C/bob" 1 2,6 >"$TMP/g7.out" 2>&1
fb6=$TMP/o6/feedback/bob.txt
[ "$(tail -n 1 "$TMP/g6.out")" = "score: 1/3" ] && [ "$(head -n 1 "$fb6")" = "学生 bob：1/3 分（第 1 级）" ] && ok ||
    bad "GRADE_LANG=zh: the same score, the feedback's first line in Chinese" "$(tail -n 2 "$TMP/g6.out"; head -n 1 "$fb6")"
grep -q "^dropout_scale .* 0/1  未作答：exercise_missing() 占位代码还在\$" "$fb6" &&
    grep -q "正确（在新的随机输入上，隐藏检查与教师的代码一致）" "$fb6" && ok ||
    bad "GRADE_LANG=zh: the grader's sentences in Chinese, what they quote kept" "$(cat "$fb6")"
[ "$(json "$TMP/o6/gradescope/bob.json" gradescope)" = "1 1 0 0 visible" ] && json "$TMP/o6/prairielearn/bob.json" prairielearn >/dev/null &&
    grep -q '在新的随机输入上' "$TMP/o6/gradescope/bob.json" && grep -q '"message": "1/3 分（第 1 级）"' "$TMP/o6/prairielearn/bob.json" && ok ||
    bad "GRADE_LANG=zh: the LMS files parse, hold the same points, and speak Chinese" "$(head -c 400 "$TMP/o6/gradescope/bob.json")"
cmp -s "$fb6" "$TMP/o7/feedback/bob.txt" && ok ||
    bad "LANG=zh_CN.UTF-8 alone gives the Chinese feedback too" "$(head -n 3 "$TMP/o7/feedback/bob.txt")"
# the English feedback of the same run, words aside, says the same: its lines' points are the same
[ "$(cut -c1-36 "$TMP/o5/feedback/bob.txt" | tail -n +3)" = "$(cut -c1-36 "$fb6" | tail -n +3)" ] && ok ||
    bad "the Chinese feedback's blanks and points are the English one's" "$(cat "$TMP/o5/feedback/bob.txt")"
err "GRADE_LANG=fr" "GRADE_LANG=fr: the feedback's language is en or zh" GRADE_LANG=fr GRADE_OUT="$TMP/o3" sh scripts/exercises/grade.sh "$C/bob" 1 2,6
# the table: every line English, a tab, Chinese, the same %s on both sides
LC_ALL=C awk -F '\t' '/^#/ || $0 == "" { next }
    NF != 2 { print FILENAME ":" FNR ": not two columns"; next }
    { a = $1; b = $2; na = gsub(/%s/, "", a); nb = gsub(/%s/, "", b)
      if (na != nb) print FILENAME ":" FNR ": " na " %s in English, " nb " in Chinese"
      if ($2 !~ /[\343-\351]/) print FILENAME ":" FNR ": no Chinese" }' scripts/exercises/feedback_zh.txt >"$TMP/table"
[ ! -s "$TMP/table" ] && ok || bad "feedback_zh.txt: English, tab, Chinese, the same %s" "$(head -n 3 "$TMP/table")"
finish
