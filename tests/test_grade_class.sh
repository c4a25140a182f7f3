#!/bin/sh
# test_grade_class.sh — make grade-class on a small class (level 1, chapters
# 2 and 6: the blanks scale, dropout_scale, dropout_keep) with honest and
# cheating students. Asserts: the reference scores full marks (also with its
# comments deleted, reformatted and a helper added), the handout scores 0, a
# wrong blank or a syntax error costs exactly that blank's points, every
# cheater gets no point it did not earn, class.csv has one row per student,
# and nothing outside the grader's folders changes; the teacher's tree reuses
# $BUILD only when it is up to date and built with the same flags. Needs
# bubblewrap: without a working sandbox these checks are counted as skipped.
. tests/lib.sh
suite test_grade_class

NCHECKS=37
if ! command -v bwrap >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1 ||
    ! bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev /bin/true >/dev/null 2>&1; then
    skip $NCHECKS "grading runs student code in bubblewrap, which does not work here (apt-get install bubblewrap)"
    finish
    exit $?
fi

AWKP=${AWK:-awk}
ok() { _ok; }
bad() { _failed=$((_failed + 1)); printf 'FAIL: %s\n' "$1"; [ -n "${2:-}" ] && printf '      %s\n' "$2"; }

C=$TMP/class
mkdir -p "$C"
gen() { sh scripts/exercises/generate.sh "$1" "$2" 2,6 >/dev/null 2>&1 || bad "make exercises writes $1"; }
gen "$TMP/handout" 1
gen "$TMP/solution" 0
S2=chapters/02_scaling/scaling.c
S6=chapters/06_dropout/dropout.c
# a student's tree: a copy of the handout or solution, hard links where cp can make
# them (a plain copy of ~1700 files costs about half a second here, 13 times); so a
# file is only ever replaced (fill, mv), never written in place, unless own() first
student() { cp -Rl "$TMP/$2" "$C/$1" 2>/dev/null || { rm -rf "$C/$1" && cp -R "$TMP/$2" "$C/$1"; }; } # NAME FROM
own() { cp "$1" "$1.own" && mv "$1.own" "$1"; } # FILE: its own copy, to write in place

# put TEXT in place of the stub of blank NAME in FILE (a handout file)
fill() { # FILE NAME TEXT
    $AWKP -v nm="$2" -v txt="$3" '
        index($0, "/* TODO exercise '\''" nm "'\''") { skip = 1; next }
        skip && index($0, "exercise_missing(\"" nm "\"") { print txt; skip = 0; next }
        skip { next }
        { print }' "$1" >"$1.new" && mv "$1.new" "$1"
}
SCALE_OK='    scores = t_div_scalar(scores, sqrtf((float)t_size(query, -1)));'
KEEP_OK='        keep = rng_bernoulli(t_default_rng(), 1.0 - d->p);'
DSCALE_OK='        scale = (float)(1.0 / (1.0 - d->p));'

# 1. the teacher's solution: 3/3
student correct solution
# 2. the handout as it was: 0/3
student empty handout
# 3. one wrong blank: dropout_scale multiplies by (1 - p): 2/3
student onewrong handout
fill "$C/onewrong/$S2" scale "$SCALE_OK"
fill "$C/onewrong/$S6" dropout_keep "$KEEP_OK"
fill "$C/onewrong/$S6" dropout_scale '        scale = (float)(1.0 - d->p);'
# 4. a syntax error in one blank: 2/3
student syntax handout
fill "$C/syntax/$S2" scale '    scores = t_div_scalar(scores, sqrtf((float)t_size(query, -1))'
fill "$C/syntax/$S6" dropout_keep "$KEEP_OK"
fill "$C/syntax/$S6" dropout_scale "$DSCALE_OK"
# 5. correct, written their own way: comments gone, reformatted, a helper: 3/3
student ownway handout
fill "$C/ownway/$S2" scale '    scores = t_mul_scalar(scores,
                          inv_sqrt_dk(query));'
$AWKP '/^Tensor \*scaled_scores/ { print "static float inv_sqrt_dk(const Tensor *q) { return 1.0f / sqrtf((float)t_size(q, -1)); }\n" } { print }' \
    "$C/ownway/$S2" | sed -e 's|/\*.*\*/||' >"$TMP/o.c" && mv "$TMP/o.c" "$C/ownway/$S2"
fill "$C/ownway/$S6" dropout_keep '        { double q = 1.0 - d->p; keep = rng_bernoulli(t_default_rng(), q); }'
fill "$C/ownway/$S6" dropout_scale '        scale = 1.0f / (float)(1.0 - d->p);'
# 6. cheat: atexit handler prints a perfect summary and _Exit(0); the rest untouched: 0/3
student atexit handout
fill "$C/atexit/$S2" scale '    atexit(fake); (void)query;'
$AWKP '/^Tensor \*scaled_scores/ { print "#include <stdio.h>\n#include <stdlib.h>\nstatic void fake(void) { printf(\"test_ch02: 26 passed, 0 failed\\n\"); fflush(stdout); _Exit(0); }" } { print }' \
    "$C/atexit/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C/atexit/$S2"
fill "$C/atexit/$S6" dropout_keep '        printf("test_ch06: 30 passed, 0 failed\n"); _Exit(0);'
# 7. cheat: tests edited to pass everything: 0/3
student tests handout
own "$C/tests/tests/test_ch02.c" && own "$C/tests/tests/test_ch06.c"
printf '#include "tests/harness.h"\nint main(void) { return harness_finish("test_ch02"); }\n' >"$C/tests/tests/test_ch02.c"
printf '#include "tests/harness.h"\nint main(void) { return harness_finish("test_ch06"); }\n' >"$C/tests/tests/test_ch06.c"
# 8. cheat: the chapter header defines the harness away: 0/3
student header handout
own "$C/header/chapters/02_scaling/scaling.h" && own "$C/header/chapters/06_dropout/dropout.h"
printf '#define harness_finish(s) (printf("%%s: 26 passed, 0 failed\\n", s), 0)\n' >>"$C/header/chapters/02_scaling/scaling.h"
printf '#define harness_finish(s) (printf("%%s: 26 passed, 0 failed\\n", s), 0)\n' >>"$C/header/chapters/06_dropout/dropout.h"
# 9. cheat: the answer writes to the gradebook, the repository and the result file: 0/3
student gradebook handout
ROOTP=$(pwd)
fill "$C/gradebook/$S2" scale "    { const char *p[] = {\"build/grade/class.csv\", \"$ROOTP/build/grade/class.csv\", \"$ROOTP/README.md\", \"build/result\", \"/tmp/pwned\"};
      for (int i = 0; i < 5; i++) { FILE *f = fopen(p[i], \"a\"); if (f) { fprintf(f, \"gradebook,3,3,100.0,1,1,1\\\\npass test_basic x\\\\n\"); fclose(f); } } }
    exercise_missing(\"scale\", \"x\", \"x\");"
# 10. cheat: the manifest says only chapter 2 was handed out; scale answered: 1/3 (max stays 3)
student manifest handout
fill "$C/manifest/$S2" scale "$SCALE_OK"
sed -e 's/^# chapters: .*/# chapters: 2/' -e '/dropout/d' "$C/manifest/.exercise-manifest" >"$TMP/m" && mv "$TMP/m" "$C/manifest/.exercise-manifest"
# 11. cheat: the scale answer loads the fixture the tests compare with, correct only for the tested d_k: 0/3
student fixture handout
fill "$C/fixture/$S2" scale '    int64_t d_k = t_size(query, -1);
    if (d_k <= 8 || d_k == 64 || d_k == 256) scores = t_div_scalar(scores, sqrtf((float)d_k));'
# 12. cheat: a constructor runs before the harness: 0/3
student ctor handout
fill "$C/ctor/$S2" scale "$SCALE_OK"
$AWKP '/^Tensor \*scaled_scores/ { print "__attribute__((constructor)) static void early(void) { }" } { print }' \
    "$C/ctor/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C/ctor/$S2"
# 13. cheat: an endless loop in one blank (the time limit): 2/3
student loop handout
fill "$C/loop/$S2" scale '    for (volatile int spin = 1; spin;) { }'
fill "$C/loop/$S6" dropout_keep "$KEEP_OK"
fill "$C/loop/$S6" dropout_scale "$DSCALE_OK"
echo "not a student" >"$C/notes.txt"

# a seed whose hidden check of chapter 2 uses a d_k that no test uses (9..16)
# (linked with $BUILD's library, or built from the sources when that does not link:
# $BUILD may hold a sanitizer build)
srcs=$(ls common/*.c chapters/[0-9][0-9]_*/*.c | grep -v -e '/main\.c$' -e '_mpi\.c$')
${CC:-cc} -std=c99 -O0 -I. scripts/exercises/probe.c "$BUILD/libattn.a" -lm -o "$TMP/probe" 2>/dev/null ||
    ${CC:-cc} -std=c99 -O0 -I. scripts/exercises/probe.c $srcs -lm -o "$TMP/probe" 2>"$TMP/probe.err" ||
    bad "probe.c builds" "$(cat "$TMP/probe.err")"
SEED=
for s in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30; do
    dk=$("$TMP/probe" 2 "$s" | sed -n 's/^input.q shape (.*, \([0-9]*\))$/\1/p')
    [ -n "$dk" ] && [ "$dk" -gt 8 ] && [ "$dk" -ne 64 ] && { SEED=$s; break; }
done
[ -n "$SEED" ] && ok || bad "found a probe seed with d_k > 8"

# the state of everything the grader must not touch
snapshot() { (find . -path ./build -prune -o -type f -print; find "$C" -type f) | LC_ALL=C sort | xargs cksum; }
snapshot >"$TMP/before"
NRUNS=$(ls build/grade/runs 2>/dev/null | grep -c .)
rm -f /tmp/pwned
OUT=$TMP/out
GRADE_OUT=$OUT GRADE_SEED=$SEED GRADE_TIME=3 sh scripts/exercises/grade_class.sh "$C" 1 2,6 2 >"$TMP/g.out" 2>"$TMP/g.err"
st=$?
snapshot >"$TMP/after"
[ "$st" -eq 0 ] && ok || bad "grade-class exits 0" "exit $st: $(tail -n 5 "$TMP/g.err")"
CSV=$OUT/class.csv
if [ "$(head -n 1 "$CSV")" = "student,score,max,percent,scale,dropout_scale,dropout_keep" ]; then ok; else
    bad "class.csv header names the blanks" "$(head -n 1 "$CSV")"; fi
rows=$(($(grep -c . "$CSV") - 1))
[ "$rows" -eq 13 ] && ok || bad "class.csv has one row per student (13), got $rows" "$(cat "$CSV")"
last=$(tail -n 1 "$TMP/g.out")
case $last in "graded: 13 students, mean "*%) ok ;; *) bad "last line 'graded: S students, mean P%'" "$last" ;; esac
grep -q 'students$' "$TMP/g.out" && bad "no progress line when stdout is not a terminal" || ok

row() { grep "^$1," "$CSV"; }
expect_row() { # STUDENT ROW WHY
    if [ "$(row "$1")" = "$1,$2" ]; then ok; else
        bad "$1: $3" "got '$(row "$1")', want '$1,$2'; feedback: $(tr '\n' '|' <"$OUT/feedback/$1.txt" 2>/dev/null | head -c 700)"
    fi
}
expect_row correct "3,3,100.0,1,1,1" "the reference scores full marks"
expect_row empty "0,3,0.0,0,0,0" "the handout scores 0"
expect_row onewrong "2,3,66.7,1,0,1" "a wrong blank costs exactly its points"
expect_row syntax "2,3,66.7,0,1,1" "a syntax error costs only its blank"
expect_row ownway "3,3,100.0,1,1,1" "comments deleted, reformatted, a helper added: full marks"
expect_row atexit "0,3,0.0,0,0,0" "a forged summary (atexit, _Exit) earns nothing"
expect_row tests "0,3,0.0,0,0,0" "edited tests earn nothing"
expect_row header "0,3,0.0,0,0,0" "a header #define harness_finish earns nothing"
expect_row gradebook "0,3,0.0,0,0,0" "writing to the gradebook earns nothing"
expect_row manifest "1,3,33.3,1,0,0" "an edited manifest neither shrinks the max nor adds points"
expect_row fixture "0,3,0.0,0,0,0" "an answer fitted to the tested shapes fails the hidden check"
expect_row ctor "0,3,0.0,0,0,0" "a constructor (__attribute__) is not accepted"
expect_row loop "2,3,66.7,0,1,1" "an endless loop costs its blank (time limit)"

# feedback in plain words
fb() { cat "$OUT/feedback/$1.txt" 2>/dev/null; }
fb onewrong | grep -q '^dropout_scale .*0/1 .*fail; first: test_' && ok || bad "feedback names the first failing check" "$(fb onewrong)"
fb syntax | grep -q '^scale .*does not compile: .*error' && ok || bad "feedback quotes the compiler's first error" "$(fb syntax)"
fb fixture | grep -q 'hidden check.*expected' && ok || bad "feedback says the hidden check failed, expected vs got" "$(fb fixture)"
fb empty | grep -q 'not answered' && ok || bad "feedback says a blank is not answered" "$(fb empty)"
fb ctor | grep -q '__attribute__' && ok || bad "feedback says why an answer is not accepted" "$(fb ctor)"
fb loop | grep -q 'stopped after' && ok || bad "feedback says the tests were stopped" "$(fb loop)"
[ -f "$OUT/feedback/notes.txt.txt" ] && bad "a file in SUBMISSIONS is not a student" || ok

# nothing outside the grader's folders changed
if cmp -s "$TMP/before" "$TMP/after"; then ok; else bad "the repository and the submissions are unchanged" "$(diff "$TMP/before" "$TMP/after" | head -n 5)"; fi
[ -e /tmp/pwned ] && bad "student code wrote /tmp/pwned outside the sandbox" || ok
grep -q '^gradebook,3' "$CSV" && bad "forged rows reached class.csv" || ok
[ "$(ls build/grade/runs 2>/dev/null | grep -c .)" -le "$NRUNS" ] && ok || bad "the run folder is removed at the end"

# make grade: one student, last line score: X/Y
GRADE_OUT=$OUT GRADE_TIME=3 sh scripts/exercises/grade.sh "$C/onewrong" 1 2,6 >"$TMP/one.out" 2>&1
[ "$(tail -n 1 "$TMP/one.out")" = "score: 2/3" ] && ok || bad "make grade ends 'score: 2/3'" "$(tail -n 5 "$TMP/one.out")"
# no working sandbox: refuse loudly (unless GRADE_UNSAFE=1)
mkdir -p "$TMP/fakebin"
printf '#!/bin/sh\necho "bwrap: no namespaces here" >&2\nexit 1\n' >"$TMP/fakebin/bwrap"
chmod +x "$TMP/fakebin/bwrap"
PATH="$TMP/fakebin:$PATH" GRADE_OUT=$OUT sh scripts/exercises/grade.sh "$C/correct" 1 2,6 >"$TMP/ns.out" 2>"$TMP/ns.err"
st=$?
[ "$st" -eq 2 ] && ok || bad "without a sandbox make grade exits 2" "exit $st"
grep -q 'REFUSED.*sandbox' "$TMP/ns.err" && grep -q 'GRADE_UNSAFE=1' "$TMP/ns.err" && ok || bad "without a sandbox make grade says why and how" "$(cat "$TMP/ns.err")"
# the teacher's tree reuses $BUILD only when it is up to date and built with the same flags
reuse() { # BUILD-DIR: g_reuse_build into a fresh folder; its status
    rm -rf "$TMP/rb" && mkdir -p "$TMP/rb" && cp Makefile "$TMP/rb/" &&
        (. scripts/exercises/lib.sh && . scripts/exercises/grade_lib.sh && LOG=$TMP/rb.log && BUILD=$1 &&
            g_reuse_build "$TMP/rb" build/libattn.a build/obj/tests/harness.o)
}
mkdir -p "$TMP/stale/obj/tests" "$TMP/otherflags"
# the same flags, its outputs there but older than the sources
cp "$BUILD/.flags" "$TMP/stale/.flags" 2>/dev/null
cp "$BUILD/libattn.a" "$TMP/stale/" 2>/dev/null
cp "$BUILD/obj/tests/harness.o" "$TMP/stale/obj/tests/" 2>/dev/null
touch -t 200001010000 "$TMP/stale/libattn.a" "$TMP/stale/obj/tests/harness.o" 2>/dev/null
echo "cc -O0 -DSOMETHING_ELSE" >"$TMP/otherflags/.flags"
reuse "$TMP/stale" && bad "a build that is not up to date is not reused" || ok
reuse "$TMP/otherflags" && bad "a build made with other flags is not reused" || ok
# (when $BUILD is such a build, with the flags a make run here would use: make test,
# sanitize and memcheck have just built it; a build left by an older make may not be)
if cmp -s "$BUILD/.flags" "$TMP/rb/build/.flags" &&
    make -q BUILD="$BUILD" "$BUILD/libattn.a" "$BUILD/obj/tests/harness.o" >/dev/null 2>&1; then
    if reuse "$BUILD" && cmp -s "$BUILD/libattn.a" "$TMP/rb/build/libattn.a" && [ -f "$TMP/rb/build/obj/tests/harness.o" ]; then ok; else
        bad "an up-to-date build with the same flags is reused" "$(cat "$TMP/rb.log" 2>/dev/null)"
    fi
else
    skip 1 "BUILD=$BUILD is not an up-to-date build with this make's flags, so the grader does not reuse it"
fi
# points=N in a marker: the blank is worth N
mkdir -p "$TMP/pts"
printf 'int f(int x) {\n    /* BEGIN BLANK pblank level=1 points=4 hint="h" */\n    return x;\n    /* END BLANK */\n}\n' >"$TMP/pts/p.c"
[ "$($AWKP -f scripts/exercises/blank.awk -v mode=list -v path=p.c "$TMP/pts/p.c" | cut -f7)" = 4 ] && ok || bad "points=4 in a marker gives the blank 4 points"
finish
