#!/bin/sh
# test_grade_class.sh — make grade-class on a small class (level 1, chapters
# 2 and 6: the blanks scale, dropout_scale, dropout_keep) with honest and
# cheating students, one submission per attack class of the trust model
# (docs/TEACHING.md section 4): links and files left in the sandbox, #define
# renames, digraphs/trigraphs/splices, #include of devices, newlines in
# messages, folder names that are not data (newline, tab, formulas, '..'),
# reading the teacher's sources, and (chapters 9 and 10, level 2) forged
# verdicts; with the policy off (GRADE_POLICY=0), answers that look for a shell,
# a compiler, objdump, the kit and /proc, and a fork and memory bomb, show that
# the sandbox and the comparison hold alone; then the policy read from the
# object (calls hidden after a lone CR, behind a struct tag or a function
# pointer; system, fork, popen, open, syscall, dlopen, another chapter's
# function), a file near the size limit and one of 10 MB; the student's file as
# one translation unit (level 3, chapters 1, 4, 8: honest C habits, answers that
# call each other, macros that rewrite the teacher's code, an inline syscall, a
# stack scan for the seed, escape sequences in the manifest and in #error); an honest
# student on another editor (CR LF, BOM, comments after includes, assert,
# local enums, typedefs, function pointers). Asserts: the reference
# scores full marks (also with its comments deleted, reformatted and a helper
# added), the handout scores 0, a wrong blank costs its function's points, a
# syntax error its file's, every cheater gets no point it did not earn, nothing of
# the solution reaches a feedback file, class.csv parses (an RFC 4180 reader
# here) into exactly one row per folder, a canary file outside the grader's
# folder and the repository are unchanged; every reference answer compiles
# and passes the policy (levels 2 and 3); the teacher's tree reuses $BUILD only
# when it is up to date and built with the same flags. Needs bubblewrap:
# without a working sandbox these checks are counted as skipped.
. tests/lib.sh
suite test_grade_class
grader_suite_only_once

NCHECKS=128
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
# (a student who filled every blank: the solution, and the handout's manifest kept)
cp "$TMP/handout/.exercise-manifest" "$TMP/solution/.exercise-manifest"
S1=chapters/01_dot_product/dot_product.c
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
# 3. one wrong blank: dropout_scale multiplies by (1 - p): 1/3 (dropout_keep, in the same
# function, is judged with it)
student onewrong handout
fill "$C/onewrong/$S2" scale "$SCALE_OK"
fill "$C/onewrong/$S6" dropout_keep "$KEEP_OK"
fill "$C/onewrong/$S6" dropout_scale '        scale = (float)(1.0 - d->p);'
# 4. a syntax error in one blank: 2/3
student syntax handout
fill "$C/syntax/$S2" scale '    scores = t_div_scalar(scores, sqrtf((float)t_size(query, -1))'
fill "$C/syntax/$S6" dropout_keep "$KEEP_OK"
fill "$C/syntax/$S6" dropout_scale "$DSCALE_OK"
# 5. correct, written their own way: comments gone, reformatted, a helper, a debugging print: 3/3
student ownway handout
fill "$C/ownway/$S2" scale '    scores = t_mul_scalar(scores,
                          inv_sqrt_dk(query));'
$AWKP '/^Tensor \*scaled_scores/ { print "static float inv_sqrt_dk(const Tensor *q) { return 1.0f / sqrtf((float)t_size(q, -1)); }\n" } { print }' \
    "$C/ownway/$S2" | sed -e 's|/\*.*\*/||' >"$TMP/o.c" && mv "$TMP/o.c" "$C/ownway/$S2"
fill "$C/ownway/$S6" dropout_keep '        { double q = 1.0 - d->p; keep = rng_bernoulli(t_default_rng(), q); }'
fill "$C/ownway/$S6" dropout_scale '        scale = 1.0f / (float)(1.0 - d->p);
        t_print(x); /* a debugging print left in: it does not mix with the results */'
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
# 10. cheat: the manifest says only chapter 2 was handed out; scale answered: 0/3 (max stays 3),
# the graded blanks dropout_* are not in its manifest
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
$AWKP '/^Tensor \*scaled_scores/ { print "static volatile int early_ran;\n__attribute__((constructor)) static void early(void) { early_ran = 1; }" } { print }' \
    "$C/ctor/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C/ctor/$S2"
# 13. cheat: an endless loop in one blank (the time limit): 2/3
student loop handout
fill "$C/loop/$S2" scale '    for (volatile int spin = 1; spin;) { }'
fill "$C/loop/$S6" dropout_keep "$KEEP_OK"
fill "$C/loop/$S6" dropout_scale "$DSCALE_OK"
echo "not a student" >"$C/notes.txt"

# the canary: a file outside the grader's work folder that attacks aim at
CANARY=$TMP/canary/canary.txt
mkdir -p "$TMP/canary" && echo "canary" >"$CANARY"
# 14. (links and files in the sandbox's folder) the answer writes files by the names
# the old grader read back (passed, probe.out, result, ...) in every folder it can
# reach, and the canary; the answer is wrong: 0/3, and no other row moves
student links handout
fill "$C/links/$S2" scale "    { const char *p[] = {\"passed\", \"probe.out\", \"probe.err\", \"result\", \"build/result\", \"/w/passed\", \"/in/answer.o\", \"/tmp/passed\", \"$CANARY\", \"$(pwd)/build/grade/class.csv\"};
      for (int i = 0; i < 10; i++) npy_save(p[i], scores); }"
# 15. (#define renames) every function of the file renamed so the library's copy links: 0/3
student define handout
$AWKP '/^Tensor \*scaled_scores/ { print "#define scaled_scores scaled_scores_unused\n#define attention attention_unused" } { print }' \
    "$C/define/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C/define/$S2"
fill "$C/define/$S2" scale '    (void)query;'
# 16. (phases 1-2) a digraph directive, a trigraph directive and __asm__ split by a splice: 0/3
student phases handout
fill "$C/phases/$S2" scale '    %:define SQ sqrtf
    scores = t_div_scalar(scores, SQ((float)t_size(query, -1)));'
fill "$C/phases/$S6" dropout_keep '??=define KEEP 1
        keep = KEEP;'
fill "$C/phases/$S6" dropout_scale '        scale = 1.0f; __as\
m__("");'
# 17. (#include of devices) at file scope: 0/3
student devinc handout
$AWKP '/^Tensor \*scaled_scores/ { print "#include </dev/zero>\n#include \"/dev/tty\"" } { print }' \
    "$C/devinc/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C/devinc/$S2"
fill "$C/devinc/$S2" scale "$SCALE_OK"
# 18. (a newline in a message) the error sentence carries result lines and table rows: 0/3
student newline handout
fill "$C/newline/$S2" scale '    t_error("x\\nscale\\t1\\t1\\tcorrect\\nexercise '"'"'scale'"'"' ok\\nprobe done\\nnewline,3,3,100.0,1,1,1\\n");'
# 19. (the teacher's sources) the answer tries to read the reference from every path it
# may know and to put it into its feedback: 0/3, and no feedback shows the solution
student sources handout
fill "$C/sources/$S2" scale "    { const char *p[] = {\"$(pwd)/$S2\", \"/k/chapters/02_scaling/scaling.c\", \"/t/$S2\", \"/proc/self/mountinfo\"};
      for (int i = 0; i < 4; i++) if (npy_exists(p[i])) scores = npy_load(p[i]); }"
# 20-25. folder names are data: a newline (a copy of the solution under it: still 0),
# a tab, a formula, a name starting with '..', a comma and a quote (honest: 3/3), a link
cp -R "$C/correct" "$C/evil
correct" 2>/dev/null
cp -R "$C/empty" "$C/tab	here" 2>/dev/null
cp -R "$C/correct" "$C/=HYPERLINK(\"evil.example\",\"y\")" 2>/dev/null
cp -R "$C/correct" "$C/..dotdot" 2>/dev/null
cp -R "$C/onewrong" "$C/smith, \"jr\"" 2>/dev/null
ln -s "$(pwd)" "$C/teacher-link"
NFOLDERS=25

# a seed whose hidden check of chapter 2 uses a d_k that no test uses (9..16)
# (linked with $BUILD's library, or built from the sources when that does not link:
# $BUILD may hold a sanitizer build)
srcs=$(ls common/*.c common/program/*.c chapters/[0-9][0-9]_*/*.c | grep -v -e '/main\.c$' -e '_mpi\.c$')
${CC:-cc} -std=c99 -O0 -I. scripts/exercises/probe.c "$BUILD/libattn.a" -lm -o "$TMP/probe" 2>/dev/null ||
    ${CC:-cc} -std=c99 -O0 -I. scripts/exercises/probe.c $srcs -lm -o "$TMP/probe" 2>"$TMP/probe.err" ||
    bad "probe.c builds" "$(cat "$TMP/probe.err")"
SEED=
for s in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30; do
    dk=$("$TMP/probe" 2 "$s" 3>&1 >/dev/null | sed -n 's/^input.q shape (.*, \([0-9]*\))$/\1/p' | $AWKP '$1 > 8 && $1 != 64' | head -n 1)
    [ -n "$dk" ] && [ "$dk" -gt 8 ] && [ "$dk" -ne 64 ] && { SEED=$s; break; }
done
[ -n "$SEED" ] && ok || bad "found a probe seed with d_k > 8"
# the hidden checks also run on the tests' own inputs (chapters 1-5)
"$TMP/probe" 2 1 tests/fixtures 3>&1 >/dev/null | grep -q '^fixture.basic shape' && ok || bad "the probe runs chapter 2 on the tests' inputs too"
"$TMP/probe" 5 1 tests/fixtures 3>&1 >/dev/null | grep -q '^fixture.b2_t4_din4_dout6_h2_full_bias shape' && ok || bad "the probe runs chapter 5 on the tests' inputs too"

# the state of everything the grader must not touch
snapshot() { (find . -path ./build -prune -o -type f -exec cksum {} +; find "$C" "$TMP/canary" -type f -exec cksum {} +) | LC_ALL=C sort; }
snapshot >"$TMP/before"
GRADE_RUNS=$TMP/runs   # its own run folders: other suites grade at the same time in build/grade/runs
export GRADE_RUNS
rm -f /tmp/pwned
OUT=$TMP/out
GRADE_OUT=$OUT GRADE_SEED=$SEED GRADE_TIME=3 sh scripts/exercises/grade_class.sh "$C" 1 2,6 2 >"$TMP/g.out" 2>"$TMP/g.err"
st=$?
snapshot >"$TMP/after"
[ "$st" -eq 0 ] && ok || bad "grade-class exits 0" "exit $st: $(tail -n 5 "$TMP/g.err")"
CSV=$OUT/class.csv
if [ "$(head -n 1 "$CSV")" = "student,score,max,percent,scale,dropout_scale,dropout_keep" ]; then ok; else
    bad "class.csv header names the blanks" "$(head -n 1 "$CSV")"; fi
# an RFC 4180 reader: one record per line of output, fields separated by a tab,
# a newline inside a field shown as \n; a malformed file prints "MALFORMED"
csv_read() {
    $AWKP 'BEGIN { RS = "\001" } {
        n = length($0); f = ""; rec = ""; q = 0; i = 1; start = 1
        while (i <= n) {
            c = substr($0, i, 1)
            if (q) {
                if (c == "\"") { if (substr($0, i + 1, 1) == "\"") { f = f "\""; i += 2; continue } q = 0; i++; continue }
                f = f (c == "\n" ? "\\n" : c); i++; continue
            }
            if (c == "\"" && start) { q = 1; start = 0; i++; continue }
            if (c == "\"") { print "MALFORMED"; exit 1 }
            if (c == ",") { rec = rec f "\t"; f = ""; start = 1; i++; continue }
            if (c == "\r" && substr($0, i + 1, 1) == "\n") { i++; continue }
            if (c == "\n") { print rec f; rec = ""; f = ""; start = 1; i++; continue }
            f = f c; start = 0; i++
        }
        if (q) { print "MALFORMED"; exit 1 }
        if (rec f != "") print rec f
    }' "$1"
}
csv_read "$CSV" >"$TMP/csv.tsv"
if grep -q MALFORMED "$TMP/csv.tsv"; then bad "class.csv is RFC 4180 CSV" "$(cat "$CSV")"; else ok; fi
rows=$(($(grep -c '' "$TMP/csv.tsv") - 1))
[ "$rows" -eq "$NFOLDERS" ] && ok || bad "class.csv has one row per folder ($NFOLDERS), got $rows" "$(cat "$CSV")"
[ "$($AWKP -F '\t' 'NF != 7' "$TMP/csv.tsv" | grep -c '')" -eq 0 ] && ok || bad "every row of class.csv has 7 cells" "$(cat "$TMP/csv.tsv")"
last=$(tail -n 1 "$TMP/g.out")
case $last in "graded: $NFOLDERS students, mean "*%) ok ;; *) bad "last line 'graded: S students, mean P%'" "$last" ;; esac
grep -q 'students$' "$TMP/g.out" && bad "no progress line when stdout is not a terminal" || ok

row() { $AWKP -F '\t' -v id="$1" '$1 == id { $1 = $1; print }' OFS=, "$TMP/csv.tsv"; }
expect_row() { # STUDENT ROW WHY
    if [ "$(row "$1")" = "$1,$2" ]; then ok; else
        bad "$1: $3" "got '$(row "$1")', want '$1,$2'; feedback: $(tr '\n' '|' <"$OUT/feedback/$1.txt" 2>/dev/null | head -c 700)"
    fi
}
expect_row correct "3,3,100.0,1,1,1" "the reference scores full marks"
expect_row empty "0,3,0.0,0,0,0" "the handout scores 0"
expect_row onewrong "1,3,33.3,1,0,0" "a wrong blank costs its points and those of the blanks in the same function (dropout_forward), no more"
expect_row syntax "2,3,66.7,0,1,1" "a syntax error costs only its blank"
expect_row ownway "3,3,100.0,1,1,1" "comments deleted, reformatted, a helper added: full marks"
expect_row atexit "0,3,0.0,0,0,0" "a forged summary (atexit, _Exit) earns nothing"
expect_row tests "0,3,0.0,0,0,0" "edited tests earn nothing"
expect_row header "0,3,0.0,0,0,0" "a header #define harness_finish earns nothing"
expect_row gradebook "0,3,0.0,0,0,0" "writing to the gradebook earns nothing"
expect_row manifest "0,3,0.0,0,0,0" "an edited manifest does not shrink the max: the tree gets 0 and the reason"
grep -q "^dropout_scale .*0/1  not graded: blank 'dropout_scale' is graded but was not a blank of this handout" "$OUT/feedback/manifest.txt" &&
    ok || bad "a manifest without a graded blank: the feedback says why" "$(head -n 4 "$OUT/feedback/manifest.txt")"
expect_row fixture "0,3,0.0,0,0,0" "an answer fitted to the tested shapes fails the hidden check"
expect_row ctor "0,3,0.0,0,0,0" "a constructor is not accepted (read from the object's sections)"
expect_row loop "2,3,66.7,0,1,1" "an endless loop costs its blank (time limit)"

# feedback in plain words
fb() { cat "$OUT/feedback/$1.txt" 2>/dev/null; }
fb onewrong | grep -q '^dropout_scale .*0/1 .*hidden check.*expected.*tests of chapter 6 fail too, first test_' && ok || bad "feedback names the first failing check" "$(fb onewrong)"
fb syntax | grep -q '^scale .*does not compile: .*error' && ok || bad "feedback quotes the compiler's first error" "$(fb syntax)"
fb fixture | grep -q 'hidden check.*expected' && ok || bad "feedback says the hidden check failed, expected vs got" "$(fb fixture)"
fb empty | grep -q 'not answered' && ok || bad "feedback says a blank is not answered" "$(fb empty)"
fb ctor | grep -q "not accepted: your scaling.c holds code that runs by itself before or after the checks (a constructor or destructor, section .init_array)" && ok ||
    bad "feedback says why an answer is not accepted" "$(fb ctor)"
fb loop | grep -q 'stopped after' && ok || bad "feedback says the tests were stopped" "$(fb loop)"
[ -f "$OUT/feedback/notes.txt.txt" ] && bad "a file in SUBMISSIONS is not a student" || ok
expect_row links "0,3,0.0,0,0,0" "files and links left in the sandbox earn nothing"
expect_row define "0,3,0.0,0,0,0" "#define renames earn nothing"
expect_row phases "1,3,33.3,1,0,0" "digraph, trigraph and spliced directives are read as the compiler reads them: a correct one earns its point"
expect_row devinc "0,3,0.0,0,0,0" "#include of a device earns nothing"
expect_row newline "0,3,0.0,0,0,0" "a newline in a message earns nothing"
expect_row sources "0,3,0.0,0,0,0" "reading the teacher's sources earns nothing"
expect_row "'=HYPERLINK(\"evil.example\",\"y\")" "3,3,100.0,1,1,1" "a formula-like folder name is graded and guarded"
expect_row "..dotdot" "3,3,100.0,1,1,1" "a folder name starting with .. is graded"
expect_row 'smith, "jr"' "1,3,33.3,1,0,0" "a comma and a quote in a folder name stay in one cell"
grep -q '^"'"'"'=HYPERLINK(""evil.example"",""y"")",3,' "$CSV" && ok || bad "the formula cell is quoted and starts with an apostrophe (OWASP)" "$(grep HYPER "$CSV")"
nbad=$($AWKP -F '\t' '$1 ~ /^folder-[0-9]+$/ && $2 == 0' "$TMP/csv.tsv" | grep -c '')
[ "$nbad" -eq 3 ] && ok || bad "the newline, tab and link folders get a made-up id and 0 points" "$(cat "$TMP/csv.tsv")"
grep -l 'control character' "$OUT"/feedback/folder-*.txt >/dev/null 2>&1 && grep -l 'symbolic link' "$OUT"/feedback/folder-*.txt >/dev/null 2>&1 &&
    ok || bad "their feedback says why" "$(cat "$OUT"/feedback/folder-*.txt 2>/dev/null | head -c 600)"
fb define | grep -q "not accepted: your scaling.c does not define scaled_scores() itself" && ok || bad "a #define rename leaves the blank's function undefined, and the feedback says so" "$(fb define)"
fb phases | grep -q "^dropout_keep .*0/1  your dropout.c does not compile: .*trigraph" && fb phases | grep -q "^dropout_scale .*0/1  your dropout.c does not compile" && ok ||
    bad "a trigraph directive is compiled as the student wrote it (-Werror=trigraphs)" "$(fb phases)"
fb devinc | grep -q "^scale .*does not compile: .*/dev/zero" && ok || bad "an #include of a device does not compile (no /dev in the sandbox)" "$(fb devinc)"
fb newline | grep -q '^scale .*0/1 .*hidden check' && [ "$(grep -c '' "$OUT/feedback/newline.txt")" -eq 5 ] && ok ||
    bad "a newline in a message stays inside one feedback line" "$(fb newline)"
grep -rq 'sqrtf((float)d_k)' "$OUT/feedback/" && bad "the teacher's solution reached a feedback file" || ok
[ "$(cat "$CANARY")" = canary ] && ok || bad "the canary outside the grader's folder is unchanged" "$(head -c 200 "$CANARY")"

# nothing outside the grader's folders changed
if cmp -s "$TMP/before" "$TMP/after"; then ok; else bad "the repository and the submissions are unchanged" "$(diff "$TMP/before" "$TMP/after" | head -n 5)"; fi
[ -e /tmp/pwned ] && bad "student code wrote /tmp/pwned outside the sandbox" || ok
grep -q '^gradebook,3' "$CSV" && bad "forged rows reached class.csv" || ok
[ -d "$TMP/runs" ] && [ "$(ls "$TMP/runs" | grep -c .)" -eq 0 ] && ok || bad "the run folder is removed at the end" "$(ls "$TMP/runs" 2>&1)"

# ---- chapters 9 and 10 (level 2): every blank judged outside the sandbox -------------
C2=$TMP/class910
mkdir -p "$C2"
gen910() { sh scripts/exercises/generate.sh "$1" "$2" 9,10 >/dev/null 2>&1 || bad "make exercises writes $1"; }
gen910 "$TMP/h910" 2
S9=chapters/09_parallel_attention/parallel_attention.c
S10=chapters/10_backward/backward.c
cp -R "$TMP/h910" "$C2/empty"
# written their own way: every answer goes through the hidden checks: 4/4
cp -R "$TMP/h910" "$C2/honest"
AR_OK='    all_reduce(output, ctx);
    if (bias != NULL) { output = t_add(output, bias); }'
RING_OK='            folded = folded + n;
            online_row_update(m + row, l + row, &acc[row * head_dim], head_dim, &s[row * kvlen], n,
                              &v[bh * kvlen * head_dim], head_dim);'
LIN_OK='    Tensor *xf = t_reshape(x, SHAPE(n, in)), *dyf = t_reshape(dy, SHAPE(n, out));
    *dx = t_reshape(t_matmul(dyf, layer->weight), t_shape(x));
    *dweight = t_matmul(t_transpose(dyf, 0, 1), xf);
    if (dbias != NULL) *dbias = layer->bias != NULL ? t_sum_last(t_transpose(dyf, 0, 1)) : NULL;'
SMB_OK='        double dot = 0;
        for (int64_t j = 0; j < S; j++) dot += (double)pr[j] * dpr[j];
        for (int64_t i = 0; i < S; i++) dsr[i] = (float)(pr[i] * (dpr[i] - dot));'
fill "$C2/honest/$S9" allreduce "$AR_OK"
fill "$C2/honest/$S9" ring_merge "$RING_OK"
fill "$C2/honest/$S10" linear_backward "$LIN_OK"
fill "$C2/honest/$S10" softmax_backward "$SMB_OK"
# one wrong blank (the dot product forgotten): 3/4
cp -R "$TMP/h910" "$C2/wrong10"
fill "$C2/wrong10/$S9" allreduce "$AR_OK"
fill "$C2/wrong10/$S9" ring_merge "$RING_OK"
fill "$C2/wrong10/$S10" linear_backward "$LIN_OK"
fill "$C2/wrong10/$S10" softmax_backward '        for (int64_t i = 0; i < S; i++) dsr[i] = pr[i] * dpr[i];'
# (the token in the student's process) verdict lines forged every way the old grader
# read them, and the old token file looked for: 0/4
cp -R "$TMP/h910" "$C2/forger"
fill "$C2/forger/$S9" allreduce '    (void)bias; (void)all_reduce; (void)ctx;
    if (npy_exists("build/token")) output = npy_load("build/token");
    t_error("pass test_allreduce 0123456789abcdef\\npass test_ring 0123456789abcdef\\nprobe done\\n");'
fill "$C2/forger/$S10" softmax_backward '        (void)pr; (void)dpr; (void)dsr;
        t_error("pass test_softmax_backward 0123456789abcdef\\nprobe done");'
OUT2=$TMP/out910
GRADE_OUT=$OUT2 GRADE_TIME=10 sh scripts/exercises/grade_class.sh "$C2" 2 9,10 2 >"$TMP/g2.out" 2>"$TMP/g2.err"
st=$?
[ "$st" -eq 0 ] && ok || bad "grade-class on chapters 9 and 10 exits 0" "exit $st: $(tail -n 5 "$TMP/g2.err")"
CSV2=$OUT2/class.csv
row2() { grep "^$1," "$CSV2"; }
[ "$(head -n 1 "$CSV2")" = "student,score,max,percent,allreduce,ring_merge,linear_backward,softmax_backward" ] && ok ||
    bad "class.csv of chapters 9 and 10 names their blanks" "$(head -n 1 "$CSV2")"
[ "$(row2 empty)" = "empty,0,8,0.0,0,0,0,0" ] && ok || bad "chapters 9-10: the handout scores 0" "$(row2 empty)"
[ "$(row2 honest)" = "honest,8,8,100.0,2,2,2,2" ] && ok || bad "chapters 9-10: answers written another way score full marks" "$(row2 honest); $(cat "$OUT2/feedback/honest.txt" 2>/dev/null)"
[ "$(row2 wrong10)" = "wrong10,6,8,75.0,2,2,2,0" ] && ok || bad "chapters 9-10: a wrong softmax_backward costs its points only" "$(row2 wrong10)"
[ "$(row2 forger)" = "forger,0,8,0.0,0,0,0,0" ] && ok || bad "chapters 9-10: forged verdict lines earn nothing" "$(row2 forger)"
grep -q '^allreduce .*0/2 .*hidden check' "$OUT2/feedback/forger.txt" && grep -q '^ring_merge .*2/2 .*hidden checks' "$OUT2/feedback/honest.txt" &&
    ok || bad "chapters 9 and 10 are judged by the hidden checks" "$(cat "$OUT2/feedback/forger.txt" "$OUT2/feedback/honest.txt")"

# ---- the sandbox alone: the same attacks, and more, with the policy off --------------
C3=$TMP/class-noallow
mkdir -p "$C3"
student3() { cp -R "$TMP/$2" "$C3/$1"; }
student3 honest solution
own "$C3/honest/$S2" 2>/dev/null
fill "$C3/honest/$S2" scale "$SCALE_OK"
# links and writes everywhere, with libc: symlinks by the old result names, the canary
student3 symlinks handout
$AWKP 'NR == 1 { print "#define _POSIX_C_SOURCE 200809L" } /^Tensor \*scaled_scores/ { print "#include <stdio.h>\n#include <unistd.h>" } { print }' "$C3/symlinks/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C3/symlinks/$S2"
fill "$C3/symlinks/$S2" scale "    { const char *n[] = {\"passed\", \"probe.out\", \"probe.err\", \"result\", \"/w/a.o\", \"/tmp/x\", \"/in/answer.o\"};
      for (int i = 0; i < 7; i++) { unlink(n[i]); if (symlink(\"$CANARY\", n[i]) != 0) { FILE *f = fopen(n[i], \"w\"); if (f) fclose(f); } }
      FILE *c = fopen(\"$CANARY\", \"w\"); if (c) { fputs(\"owned\", c); fclose(c); }
      FILE *g = fopen(\"$(pwd)/build/grade/x\", \"w\"); if (g) fclose(g); }"
# #define renames: the library has no copy of this file to fall back on
student3 rename handout
$AWKP '/^Tensor \*scaled_scores/ { print "#define scaled_scores scaled_scores_x\n#define attention attention_x" } { print }' "$C3/rename/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C3/rename/$S2"
fill "$C3/rename/$S2" scale '    (void)query;'
# compiling a device: no /dev in the sandbox, and the limits
student3 devzero handout
$AWKP '/^Tensor \*scaled_scores/ { print "#include </dev/zero>" } { print }' "$C3/devzero/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C3/devzero/$S2"
fill "$C3/devzero/$S2" scale "$SCALE_OK"
student3 devtty handout
$AWKP '/^Tensor \*scaled_scores/ { print "#include \"/dev/tty\"" } { print }' "$C3/devtty/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C3/devtty/$S2"
fill "$C3/devtty/$S2" scale "$SCALE_OK"
# the teacher's sources, every path the sandbox could show: printed into the feedback
student3 reader handout
$AWKP '/^Tensor \*scaled_scores/ { print "#include <stdio.h>" } { print }' "$C3/reader/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C3/reader/$S2"
fill "$C3/reader/$S2" scale "    { const char *p[] = {\"$(pwd)/$S2\", \"/k/$S2\", \"/k/inc/$S2\", \"/in/scaling.c\", \"/t/$S2\"}; char buf[4096] = \"\";
      for (int i = 0; i < 5; i++) { FILE *f = fopen(p[i], \"r\"); if (f) { size_t k = fread(buf, 1, sizeof buf - 1, f); buf[k] = 0; fclose(f); } }
      for (char *c = buf; *c; c++) if (*c == '\\\\n') *c = ' ';
      t_error(\"%s\", buf); }"
# (safe by absence) the answer looks for a shell, a compiler, objdump, the linker, the
# kit's objects and libraries, /proc (the probe's arguments) and libc's archive, and
# tries to run each tool to re-link the probe against the teacher's library: it
# finds nothing and runs nothing, and says so in its error, which the feedback shows
student3 escape handout
$AWKP 'NR == 1 { print "#define _POSIX_C_SOURCE 200809L" } /^Tensor \*scaled_scores/ { print "#include <stdio.h>\n#include <string.h>\n#include <unistd.h>\n#include <sys/wait.h>" } { print }' "$C3/escape/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C3/escape/$S2"
fill "$C3/escape/$S2" scale '    { const char *p[] = {"/bin/sh", "/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/objdump", "/usr/bin/ld", "/k/obj/probe.o", "/k/lib", "/k/inc",
                         "/k/lib/full", "/proc/1/cmdline", "/proc/self/exe", "/usr/lib/x86_64-linux-gnu/libc.a", "/in/answer.o", "/k/kit"};
      const char *x[] = {"/bin/sh", "/usr/bin/cc", "/usr/bin/objdump"};
      char got[1024] = "found:";
      for (int i = 0; i < 14; i++) { FILE *f = fopen(p[i], "rb"); if (f) { strcat(got, " "); strcat(got, p[i]); fclose(f); } }
      for (int i = 0; i < 3; i++) {
          pid_t c = fork();
          if (c == 0) { execl(x[i], x[i], "-c", "cc -static -o /tmp/p /k/obj/probe.o /k/lib/full/*.a -lm && exec /tmp/p", (char *)0); _exit(127); }
          int st = 0;
          if (c > 0 && waitpid(c, &st, 0) == c && !(WIFEXITED(st) && WEXITSTATUS(st) == 127)) { strcat(got, " ran "); strcat(got, x[i]); }
      }
      t_error("%s.", got); }'
# (the machine's resources) a fork bomb of sleepers and six blocks of 1.5 GB: the
# sandbox's process cap and memory limit hold; the answer reports what it got
student3 bomb handout
$AWKP 'NR == 1 { print "#define _POSIX_C_SOURCE 200809L" } /^Tensor \*scaled_scores/ { print "#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>" } { print }' "$C3/bomb/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C3/bomb/$S2"
fill "$C3/bomb/$S2" scale '    { int n = 0, m = 0;
      for (int i = 0; i < 500; i++) { pid_t c = fork(); if (c == 0) { for (;;) pause(); } if (c > 0) n++; }
      for (int i = 0; i < 6; i++) { char *b = malloc((size_t)1536 << 20); if (b) { memset(b, 1, (size_t)1536 << 20); m++; } }
      t_error("forked %d, allocated %d.", n, m); }'
# with the policy off, what an answer calls is not checked: the sandbox alone holds
OUT3=$TMP/outna
GRADE_OUT=$OUT3 GRADE_POLICY=0 GRADE_TIME=5 GRADE_MEM_KB=1048576 sh scripts/exercises/grade_class.sh "$C3" 1 2 2 >"$TMP/g3.out" 2>"$TMP/g3.err"
st=$?
[ "$st" -eq 0 ] && ok || bad "grade-class with the policy off exits 0" "exit $st: $(tail -n 5 "$TMP/g3.err")"
grep -q 'GRADE_POLICY=0' "$TMP/g3.err" && ok || bad "the policy turned off is said loudly" "$(cat "$TMP/g3.err")"
CSV3=$OUT3/class.csv
for r in "honest,1,1,100.0,1" "symlinks,0,1,0.0,0" "rename,0,1,0.0,0" "devzero,0,1,0.0,0" "devtty,0,1,0.0,0" "reader,0,1,0.0,0" \
    "escape,0,1,0.0,0" "bomb,0,1,0.0,0"; do
    grep -qx "$r" "$CSV3" && ok || bad "with the policy off: $r" "$(cat "$CSV3"); $(cat "$OUT3/feedback/${r%%,*}.txt" 2>/dev/null)"
done
# nothing of the kit, no tool and no /proc in the run sandbox, and nothing ran
grep -q '^scale .*raised the error "found:\."' "$OUT3/feedback/escape.txt" && ok ||
    bad "the run sandbox holds no shell, compiler, objdump, kit file or /proc, and nothing can be run" "$(cat "$OUT3/feedback/escape.txt")"
# the process cap ($GRADE_NPROC, 16) and the address-space limit (1 GB here) hold
_n=$(sed -n 's/.*raised the error "forked \([0-9]*\), allocated \([0-9]*\)\.".*/\1 \2/p' "$OUT3/feedback/bomb.txt")
set -- $_n x x
if [ "$1" != x ] && [ "$1" -lt 16 ] && [ "$2" = 0 ]; then ok; else
    bad "a fork and memory bomb gets fewer than 16 processes and no 1.5 GB block" "$(cat "$OUT3/feedback/bomb.txt")"
fi
[ "$(cat "$CANARY")" = canary ] && ok || bad "the canary is unchanged with libc in the answer" "$(head -c 200 "$CANARY")"
[ -e build/grade/x ] && bad "an answer created a file in the grader's folder" || ok
grep -q 'does not compile' "$OUT3/feedback/devzero.txt" && grep -q 'does not compile' "$OUT3/feedback/devtty.txt" && ok ||
    bad "#include of /dev/zero and /dev/tty: does not compile (no /dev in the sandbox)" "$(cat "$OUT3/feedback/devzero.txt" "$OUT3/feedback/devtty.txt")"
grep -q 'not accepted: your scaling.c does not define scaled_scores() itself' "$OUT3/feedback/rename.txt" && ok || bad "a renamed function is missing from the student's object" "$(cat "$OUT3/feedback/rename.txt")"
grep -q 'sqrtf((float)d_k)' "$OUT3/feedback/reader.txt" && bad "the teacher's source reached the feedback" "$(cat "$OUT3/feedback/reader.txt")" || ok

# ---- the student's file is one translation unit (level 3, chapters 1, 4 and 8) -------
# Every blank runs the student's whole file as they wrote it, cut down to the blank's
# function and what it reaches there; the rest of the file is the teacher's, compiled
# apart. Honest C habits score full marks; answers that call each other, macros that
# rewrite the teacher's code and an inline system call earn nothing.
C5=$TMP/class-tu
mkdir -p "$C5"
gen148() { sh scripts/exercises/generate.sh "$1" "$2" 1,4,8 >/dev/null 2>&1 || bad "make exercises writes $1"; }
gen148 "$TMP/h148" 3
gen148 "$TMP/s148" 0
cp "$TMP/h148/.exercise-manifest" "$TMP/s148/.exercise-manifest"
S4=chapters/04_causal_mask/causal_mask.c
S8=chapters/08_fast_attention/fast_attention.c
# honest (21/21): the solution with, in chapter 1, a static helper used by one answer only,
# an old version of it kept under #if 0, a debugging helper under #ifdef ATTN_DEBUG that
# calls fopen, and a correct return written above the untouched stub; in chapter 4 a
# helper placed after the file's own static function it calls (declared first)
cp -R "$TMP/s148" "$C5/honest"
cp "$TMP/h148/$S1" "$C5/honest/$S1"
$AWKP '/^Tensor \*dot_scores/ { print "#if 0\nstatic Tensor *keys_t(const Tensor *key) { return t_transpose(key, 0, 1); }\n#endif\nstatic Tensor *keys_t(const Tensor *key) { return t_transpose(key, -2, -1); }\n#ifdef ATTN_DEBUG\n#include <stdio.h>\nstatic void dump(const Tensor *t) { FILE *f = fopen(\"d.txt\", \"w\"); if (f) { fprintf(f, \"%d\\n\", (int)t->ndim); fclose(f); } }\n#endif" } { print }' \
    "$C5/honest/$S1" >"$TMP/o.c" && mv "$TMP/o.c" "$C5/honest/$S1"
fill "$C5/honest/$S1" dot_scores '    return t_matmul(query, keys_t(key));'
$AWKP '/TODO exercise .weighted_sum/ { print "    return t_matmul(weights, value);" } { print }' "$C5/honest/$S1" >"$TMP/o.c" && mv "$TMP/o.c" "$C5/honest/$S1"
fill "$C5/honest/$S1" naive_softmax '    Tensor *e = t_exp(scores);
    return t_div(e, t_unsqueeze(t_sum_last(e), -1));'
fill "$C5/honest/$S1" stable_softmax '    Tensor *e = t_exp(t_sub(scores, t_unsqueeze(t_max_last(scores), -1)));
    return t_div(e, t_unsqueeze(t_sum_last(e), -1));'
own "$C5/honest/$S4"
$AWKP '/^Tensor \*mask_slice/ { print "static Tensor *add_checked(const Tensor *scores, const Tensor *m) { check_square(\"add\", scores); return t_view(t_add(scores, m), t_shape(scores)); }" }
       /^Tensor \*apply_causal_mask\(/ { print "static Tensor *add_checked(const Tensor *scores, const Tensor *m);" } { print }' \
    "$C5/honest/$S4" | sed 's|^    return t_view(t_add(scores, m), t_shape(scores));|    return add_checked(scores, m);|' >"$TMP/o.c" && mv "$TMP/o.c" "$C5/honest/$S4"
# circular (0): dot_scores and weighted_sum call each other (level 1), so do naive_softmax
# and stable_softmax (levels 2 and 3), and chapter 4's add_mask and causal_masked_fill
# (mask_diagonal is right, so only the pair is wrong); each alone would be right if the
# other were the teacher's
cp -R "$TMP/h148" "$C5/circular"
fill "$C5/circular/$S1" dot_scores '    return weighted_sum(query, t_transpose(key, -2, -1));'
fill "$C5/circular/$S1" weighted_sum '    return dot_scores(weights, t_transpose(value, -2, -1));'
fill "$C5/circular/$S1" naive_softmax '    return softmax_stable(t_mul_scalar(scores, 1.0f));'
fill "$C5/circular/$S1" stable_softmax '    return softmax_naive(t_mul_scalar(scores, 1.0f));'
fill "$C5/circular/$S4" mask_diagonal '    return t_triu(mask, diagonal);'
fill "$C5/circular/$S4" add_mask '    (void)m; return apply_causal_mask_fill(scores, causal_mask_bool(seqlen));'
fill "$C5/circular/$S4" causal_masked_fill '    (void)m; return apply_causal_mask(scores, causal_mask(seq_len, 1));'
# macro (0): chapter 8's blanks left as (void)0 and the file's own attention_online and
# attention_flash renamed by macros (token pasting) and written again, at the end,
# as calls to attention_tiled: the teacher's code the probe calls never sees it
cp -R "$TMP/h148" "$C5/macro"
sed 's/^\( *\)exercise_missing(".*/\1(void)0;/' "$TMP/h148/$S8" | $AWKP '/^static Problem make_problem/ && !d {
    print "#define ATTN_PASTE(a, b) a##b\n#define attention_online ATTN_PASTE(attention_online, _teacher)\n#define attention_flash ATTN_PASTE(attention_flash, _teacher)"; d = 1 } { print }' >"$TMP/o.c" &&
    cat >>"$TMP/o.c" <<'EOC' && mv "$TMP/o.c" "$C5/macro/$S8"
#undef attention_online
#undef attention_flash
Tensor *attention_online(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal) { return attention_tiled(query, key, value, is_causal); }
Tensor *attention_flash(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal) { return attention_tiled(query, key, value, is_causal); }
EOC
# syscall (0): the right dot_scores after an inline exit_group(0) (the raw system call
# that the symbol policy alone could not see)
cp -R "$TMP/h148" "$C5/syscall"
fill "$C5/syscall/$S1" dot_scores '    __asm__ volatile ("mov $231, %%eax\\n\\txor %%edi, %%edi\\n\\tsyscall" ::: "rax", "rdi", "memory");
    return t_matmul(query, t_transpose(key, -2, -1));'
# seedscan (0): dot_scores scans the stack above it for the probe's arguments and puts the
# longest number it finds into its error, which the feedback shows: the probe was given
# a number derived from the seed (SHA-256), never the seed itself
cp -R "$TMP/h148" "$C5/seedscan"
fill "$C5/seedscan/$S1" dot_scores '    { volatile char here = 0; const char *volatile vp = (const char *)&here; const char *p = vp, *found = 0;
      for (long i = 1; i < 262144 && !found; i++) {
          int n = 0;
          while (n < 20 && p[i + n] >= 0x30 && p[i + n] <= 0x39) n++;
          if (n >= 10 && p[i + n] == 0 && p[i - 1] == 0) found = p + i;
      }
      (void)query; (void)key;
      t_error("found %s", found ? found : "nothing"); }'
# escapes (0): terminal escape sequences (window title, erased line, a forged summary, an
# OSC 52 clipboard write) in the manifest's level line, and HTML and escapes in an #error
ESC=$(printf '\033') BEL=$(printf '\007')
cp -R "$TMP/h148" "$C5/escapes"
sed "s/^# level: .*/# level: 3${ESC}]0;pwned${BEL}${ESC}[2K\\rgraded: 9 students, mean 100.0%${ESC}]52;c;cHduZWQ=${BEL}/" "$TMP/h148/.exercise-manifest" >"$TMP/m" &&
    mv "$TMP/m" "$C5/escapes/.exercise-manifest"
cp -R "$TMP/h148" "$C5/escapes2"
printf '#error "<b>bold</b> %s]0;pwned%s"\n' "$ESC" "$BEL" >>"$C5/escapes2/$S1"
OUT5=$TMP/out-tu
TU_SEED=987654321012
GRADE_SEED=$TU_SEED GRADE_OUT=$OUT5 GRADE_TIME=3 sh scripts/exercises/grade_class.sh "$C5" 3 1,4,8 2 >"$TMP/g5.out" 2>"$TMP/g5.err"
st=$?
[ "$st" -eq 0 ] && ok || bad "grade-class at level 3 on chapters 1, 4 and 8 exits 0" "exit $st: $(tail -n 5 "$TMP/g5.err")"
row5() { grep "^$1," "$OUT5/class.csv"; }
fb5() { tr '\n' '|' <"$OUT5/feedback/$1.txt" 2>/dev/null | head -c 900; }
[ "$(row5 honest | cut -d, -f2,3)" = "21,21" ] && ok || bad "honest C habits (static helper, #if 0, #ifdef ATTN_DEBUG with fopen, a helper after the static function it calls, a return above the stub) score full marks" "$(row5 honest); $(fb5 honest)"
[ "$(grep -c -e '^dot_scores .* 0/1  a hidden check' -e '^weighted_sum .* 0/1  a hidden check' -e '^naive_softmax .* 0/2  a hidden check' \
    -e '^stable_softmax .* 0/3  a hidden check' -e '^add_mask .* 0/1  a hidden check' -e '^causal_masked_fill .* 0/1  a hidden check' "$OUT5/feedback/circular.txt")" = 6 ] &&
    ok || bad "answers that call each other (levels 1 to 3, chapters 1 and 4) run into each other and earn nothing" "$(row5 circular); $(fb5 circular)"
grep -q '^mask_diagonal .*1/1' "$OUT5/feedback/circular.txt" && ok || bad "beside a circular pair, a right answer of the same file earns its point" "$(fb5 circular)"
[ "$(row5 macro | cut -d, -f2)" = 0 ] && ok || bad "macros that rewrite the teacher's code of the file earn nothing" "$(row5 macro); $(fb5 macro)"
[ "$(row5 syscall | cut -d, -f2)" = 0 ] && grep -q '^dot_scores .*not accepted: your code holds the instruction syscall' "$OUT5/feedback/syscall.txt" && ok ||
    bad "an inline system call is refused, with a sentence" "$(row5 syscall); $(fb5 syscall)"
D1=$(printf '%d' "0x$(printf 'attention-in-c probe %s %s' "$TU_SEED" 01 | sha256sum | cut -c1-12)")
[ "$(row5 seedscan | cut -d, -f2)" = 0 ] && grep -q "found $D1" "$OUT5/feedback/seedscan.txt" && ! grep -rq "$TU_SEED" "$OUT5/feedback" "$OUT5/gradescope" "$OUT5/prairielearn" && ok ||
    bad "a stack scan finds the probe's derived number, never the seed" "$(fb5 seedscan)"
[ "$(row5 escapes | cut -d, -f2)" = 0 ] && [ "$(row5 escapes2 | cut -d, -f2)" = 0 ] && grep -q 'level 3\\x1b\]0;pwned' "$OUT5/feedback/escapes.txt" &&
    grep -q 'x1b' "$OUT5/feedback/escapes2.txt" && ok || bad "escapes in the manifest and in a compiler message are shown as text in the feedback" "$(fb5 escapes) $(fb5 escapes2)"
if cat "$TMP/g5.out" "$TMP/g5.err" "$OUT5/class.csv" "$OUT5"/feedback/* "$OUT5"/gradescope/* "$OUT5"/prairielearn/* | grep -q "[$ESC$BEL]"; then
    bad "no raw escape byte reaches the terminal, class.csv, a feedback file or an LMS file" "$(grep -l "[$ESC$BEL]" "$TMP/g5.out" "$TMP/g5.err" "$OUT5/class.csv" "$OUT5"/feedback/* "$OUT5"/gradescope/* "$OUT5"/prairielearn/*)"
else ok; fi
grep -q '"test_output_format": "text"' "$OUT5/gradescope/escapes2.json" && ok || bad "Gradescope is told the output is text, not HTML" "$(head -c 400 "$OUT5/gradescope/escapes2.json")"
# a 10 MB comment of '?' is read in time linear in its size (extract.awk's trigraphs),
# well inside the grader's own limit for reading a file (GRADE_TIME, 60 s by default)
{ cat "$TMP/h148/$S1"; printf '/* '; head -c 10000000 /dev/zero | tr '\0' '?'; printf ' */\n'; } >"$TMP/q.c"
timeout 60 $AWKP -f scripts/exercises/extract.awk -v ref="$S1" -v blanks="dot_scores weighted_sum" -v outdir="$TMP" "$TMP/q.c" >"$TMP/q.out" 2>&1
[ "$(cut -f2 "$TMP/q.out" | tr '\n' ' ')" = "empty empty " ] && ok || bad "a 10 MB comment of '?' is read within the grader's time limit" "$(head -c 300 "$TMP/q.out")"

# ---- the policy, read from the compiled object; honest spellings all pass ------------
C4=$TMP/class-policy
mkdir -p "$C4"
student4() { cp -R "$TMP/$2" "$C4/$1"; }
top() { # FILE TEXT: TEXT at the top of the file (what a student adds at file scope)
    printf '%s\n' "$2" | cat - "$1" >"$TMP/o.c" && mv "$TMP/o.c" "$1"
}
# honest, on another editor: CRLF line ends and a UTF-8 BOM, comments after the
# includes, a trailing space, assert, INT64_C, a local enum, a typedef'd struct,
# a function-pointer local, a vertical tab, a debugging printf: 3/3
student4 honest handout
top "$C4/honest/$S2" '#include <assert.h>  
#include <math.h> /* sqrtf */
#include <stdint.h> // INT64_C'
fill "$C4/honest/$S2" scale "    typedef struct { float d; } Dk;
    enum { TWO = 2 };
    float (*root)(float) = sqrtf;
    Dk dk = { (float)t_size(query, -1) };
    assert(dk.d > 0 && TWO == 2);
    scores = t_div_scalar(scores,$(printf '\v')root(dk.d) * (float)INT64_C(1));"
top "$C4/honest/$S6" '#include <stdio.h> /* printf */'
fill "$C4/honest/$S6" dropout_keep '        { enum { KEEP, DROP } kind = KEEP; double q = 1.0 - d->p; keep = kind == KEEP ? rng_bernoulli(t_default_rng(), q) : 0; }'
fill "$C4/honest/$S6" dropout_scale '        { typedef double real; real (*inv)(real) = NULL; (void)inv; scale = (float)(1.0 / (1.0 - d->p)); printf("scale %g\\n", (double)scale); }'
for f in "$C4/honest/$S2" "$C4/honest/$S6"; do
    $AWKP '{ printf "%s\r\n", $0 }' "$f" >"$TMP/o.c" && mv "$TMP/o.c" "$f"
done
printf '\357\273\277' | cat - "$C4/honest/$S2" >"$TMP/o.c" && mv "$TMP/o.c" "$C4/honest/$S2"
# a call hidden after a lone CR (gcc ends the // comment there), one behind a struct
# tag of the same name and one through a block-scope function pointer: each refused by
# the symbol its object calls, named
student4 hidden handout
top "$C4/hidden/$S2" '#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>'
fill "$C4/hidden/$S2" scale "    scores = t_div_scalar(scores, sqrtf((float)t_size(query, -1))); // just a comment$(printf '\r')    if (system(\"true\") != 0) scores = NULL;"
top "$C4/hidden/$S6" '#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <unistd.h>
struct popen { int x; };'
fill "$C4/hidden/$S6" dropout_keep '        { struct popen tag = {0}; FILE *(*pp)(const char *, const char *) = popen; keep = rng_bernoulli(t_default_rng(), 1.0 - d->p); if (d->p > 2.0 + tag.x) (void)pp("true", "r"); }'
fill "$C4/hidden/$S6" dropout_scale '        { pid_t c = fork(); if (c == 0) execl("/bin/sh", "sh", (char *)0); scale = (float)(1.0 / (1.0 - d->p)); }'
# what the run sandbox's kernel could be asked directly, and a function of another
# chapter: open, syscall, dlopen, causal_mask
student4 direct handout
top "$C4/direct/$S2" '#include "chapters/04_causal_mask/causal_mask.h"'
fill "$C4/direct/$S2" scale '    scores = t_div_scalar(scores, sqrtf((float)t_size(query, -1))); (void)causal_mask(2, 1);'
top "$C4/direct/$S6" 'int open(const char *path, int flags, ...);
long syscall(long number, ...);
void *dlopen(const char *file, int mode);'
fill "$C4/direct/$S6" dropout_keep '        keep = rng_bernoulli(t_default_rng(), 1.0 - d->p); (void)syscall(39);'
fill "$C4/direct/$S6" dropout_scale '        scale = (float)(1.0 / (1.0 - d->p)); if (open("/k", 0) < 0 && dlopen("x", 1)) scale = 0;'
# a file near the size limit (a 480 KB constant array beside a correct answer): read in
# linear time, 1/3; one of 10 MB: refused by its size at once, 0/3
student4 big handout
fill "$C4/big/$S2" scale "$SCALE_OK"
{ printf 'static const float big_table[] = {'; $AWKP 'BEGIN { for (i = 0; i < 240000; i++) printf "0,"; print "0};" }'; } >>"$C4/big/$S2"
printf 'float big_first(void) { return big_table[0]; }\n' >>"$C4/big/$S2"
top "$C4/big/$S2" 'float big_first(void);'
student4 huge handout
fill "$C4/huge/$S2" scale "$SCALE_OK"
$AWKP 'BEGIN { for (i = 0; i < 190000; i++) printf "/* padding padding padding padding padding padding */\n" }' >>"$C4/huge/$S2"
OUT4=$TMP/outpolicy
GRADE_OUT=$OUT4 GRADE_TIME=20 sh scripts/exercises/grade_class.sh "$C4" 1 2,6 2 >"$TMP/g4.out" 2>"$TMP/g4.err"
st=$?
[ "$st" -eq 0 ] && ok || bad "grade-class of the policy class exits 0" "exit $st: $(tail -n 5 "$TMP/g4.err")"
CSV4=$OUT4/class.csv
fb4() { cat "$OUT4/feedback/$1.txt" 2>/dev/null; }
for r in "honest,3,3,100.0,1,1,1" "hidden,0,3,0.0,0,0,0" "direct,0,3,0.0,0,0,0" "big,1,3,33.3,1,0,0" "huge,0,3,0.0,0,0,0"; do
    grep -qx "$r" "$CSV4" && ok || bad "the policy class: $r" "$(cat "$CSV4"); $(fb4 "${r%%,*}")"
done
fb4 hidden | grep -q "^scale .*not accepted: your answer calls 'system', which runs a shell command" && ok ||
    bad "a call after a lone CR is read as the compiler reads it, and refused by its symbol" "$(fb4 hidden)"
fb4 hidden | grep -q "^dropout_keep .*not accepted: your answer calls 'popen', which runs a shell command" && ok ||
    bad "a struct tag and a function pointer do not hide popen" "$(fb4 hidden)"
fb4 hidden | grep -q "^dropout_scale .*not accepted: your answer calls '\(popen\|fork\|execl\)', which" && ok || bad "fork and execl are refused by name (dropout_scale is judged with dropout_keep, in the same function)" "$(fb4 hidden)"
fb4 direct | grep -q "^scale .*not accepted: your answer calls 'causal_mask', which is not a function an answer may call" && ok ||
    bad "another chapter's function is refused by its symbol" "$(fb4 direct)"
fb4 direct | grep -q "^dropout_keep .*'syscall', which makes system calls itself" && fb4 direct | grep -q "^dropout_scale .*'\(open\|dlopen\|syscall\)', which" && ok ||
    bad "syscall, open and dlopen are refused by name" "$(fb4 direct)"
fb4 huge | grep -q "^scale .*larger than 1048576 bytes" && ok || bad "a 10 MB file is refused by its size" "$(fb4 huge)"
# the feedback of every student holds nothing of the teacher's solution
grep -rq 'sqrtf((float)d_k)' "$OUT4/feedback/" "$OUT3/feedback/" && bad "the teacher's solution reached a feedback file" || ok

# ---- every blank of every chapter goes through its hidden checks ----------------------
# the solution with a no-op statement in every blank (so none is the teacher's code
# token for token): full marks at levels 2 and 3, chapters 1-10, every answer compared
for lv in 2 3; do
    CA=$TMP/class-all$lv
    mkdir -p "$CA"
    sh scripts/exercises/generate.sh "$CA/noop" 0 >/dev/null 2>&1 || bad "make exercises LEVEL=0 writes a solution tree"
    sh scripts/exercises/generate.sh "$TMP/hall$lv" "$lv" all >/dev/null 2>&1 || bad "make exercises LEVEL=$lv CHAPTERS=all"
    cp "$TMP/hall$lv/.exercise-manifest" "$CA/noop/"
    (. scripts/exercises/lib.sh && list_blanks) >"$CA/blanks.tsv"
    for f in $(. scripts/exercises/lib.sh && concept_files); do
        grep -q 'BEGIN BLANK' "$f" || continue
        # after the BEGIN line of each blank of level <= lv (list_blanks: name level path line ...)
        $AWKP -v lv="$lv" -v f="$f" 'FILENAME == ARGV[1] { split($0, b, "\t"); if (b[3] == f && b[2] <= lv) noop[b[4]] = 1; next }
            FNR in noop { print; print "    (void)0;"; next }
            /BEGIN BLANK/ || /END BLANK/ { next } { print }' "$CA/blanks.tsv" "$f" >"$CA/noop/$f"
    done
    if [ "$lv" = 3 ]; then
        # (policy) stable_softmax answered with the library's own softmax: refused, 0/3; the rest full marks
        sh scripts/exercises/generate.sh "$CA/policy" 0 >/dev/null 2>&1
        cp "$TMP/hall$lv/.exercise-manifest" "$CA/policy/"
        $AWKP '/^Tensor \*softmax_stable/ { print; print "    return t_softmax(scores, -1);"; skip = 1; next }
            skip && /^}/ { skip = 0 } skip { next } { print }' "$S1" >"$CA/policy/$S1"
    fi
    GRADE_OUT=$TMP/outall$lv GRADE_TIME=20 sh scripts/exercises/grade_class.sh "$CA" "$lv" all 2 >"$TMP/ga.out" 2>"$TMP/ga.err"
    fa=$TMP/outall$lv/feedback/noop.txt
    nb=$(tail -n +3 "$fa" 2>/dev/null | grep -c '')
    nh=$(grep -c 'hidden checks on fresh random inputs agree' "$fa" 2>/dev/null)
    if [ "$(tail -n 1 "$TMP/ga.out" | cut -d, -f1)" = "graded: $((lv - 1)) students" ] && [ "$nb" -gt 10 ] && [ "$nh" -eq "$nb" ]; then ok; else
        bad "level $lv, chapters 1-10: every blank's honest variant passes its hidden checks ($nh of $nb compared)" "$(tail -n 3 "$TMP/ga.err"; grep -v 'agree' "$fa" 2>/dev/null | head -n 5)"
    fi
done
fp=$TMP/outall3/feedback/policy.txt
set -- $(head -n 1 "$fp" 2>/dev/null | sed -n 's/.*: \([0-9]*\)\/\([0-9]*\) points.*/\1 \2/p') x x
if grep -q "^stable_softmax .* 0/3  not accepted: your answer calls 't_softmax', which computes this blank's own concept" "$fp" &&
    [ "$2" != x ] && [ "$(($2 - $1))" -eq 3 ]; then ok; else
    bad "level 3: stable_softmax answered with t_softmax is refused and costs exactly its 3 points" "$(head -n 5 "$fp" 2>/dev/null)"
fi

# ---- gradetool: the trusted side's own error paths and strict comparison -------------
GT=$TMP/gradetool
${CC:-cc} -std=c99 -O2 scripts/exercises/gradetool.c -lm -o "$GT" 2>"$TMP/gt.err" && ok || bad "gradetool.c builds" "$(cat "$TMP/gt.err")"
"$GT" >/dev/null 2>"$TMP/gt.err"; st=$?
[ "$st" -eq 2 ] && [ "$(grep -c '' "$TMP/gt.err")" -eq 1 ] && ok || bad "gradetool without arguments: one line, exit 2" "exit $st: $(cat "$TMP/gt.err")"
"$GT" list "$TMP/no-such-folder" >/dev/null 2>"$TMP/gt.err"; st=$?
[ "$st" -eq 2 ] && grep -q 'cannot read the folder of submissions' "$TMP/gt.err" && ok || bad "gradetool list of a missing folder: a sentence, exit 2" "exit $st: $(cat "$TMP/gt.err")"
# folder names a reader cannot tell apart, and one too long for its feedback file: folder-N and the reason
mkdir -p "$TMP/names/alice" "$TMP/names/ali$(printf '\342\201\240')ce" "$TMP/names/a$(printf '\302\255')lice" \
    "$TMP/names/$(printf 'x%.0s' $(seq 1 252))"
"$GT" list "$TMP/names" >"$TMP/names.tsv"
if [ "$(grep -c '	ok$' "$TMP/names.tsv")" -eq 1 ] && grep -qx 'alice	ok' "$TMP/names.tsv" &&
    [ "$(grep -c '^folder-[0-9]*	bad	.*invisible or format character' "$TMP/names.tsv")" -eq 2 ] &&
    grep -q '^folder-[0-9]*	bad	.*longer than 251 bytes' "$TMP/names.tsv"; then ok; else
    bad "a word joiner, a soft hyphen and a 252-byte name get folder-N and the reason" "$(cat "$TMP/names.tsv")"
fi
printf 'a shape (2)\na 0 1.5\na 1 nan\nb error no\nprobe done\n' >"$TMP/want"
cmpw() { # GOT-TEXT WANT-STATUS WANT-TEXT WHY
    printf "$1" >"$TMP/got"
    _o=$("$GT" compare "$TMP/want" "$TMP/got")
    _s=$?
    if [ "$_s" -eq "$2" ] && case $_o in *"$3"*) true ;; *) false ;; esac; then ok; else bad "gradetool compare: $4" "exit $_s: $_o"; fi
}
cmpw 'a shape (2)\na 0 1.50001\na 1 nan\nb error other words\nprobe done\n' 0 "" "equal within tolerance, NaN equals NaN, any error where the teacher's errs"
cmpw 'a shape (2)\na 0 1.6\na 1 nan\nb error x\nprobe done\n' 1 "a (2,) first differs at element 0, yours 1.6 nan, expected 1.5 nan." "a different value is named, with its shape, where and the numbers side by side"
cmpw 'a shape (3)\n' 1 "a has shape (3), expected (2)" "a different shape is named"
cmpw 'a shape (2)\na 0 1.5\n' 1 "a: your code stopped before this check" "output that stops early"
cmpw 'a shape (2)\na 0 1.5\na 1 n' 1 "a: your code stopped before this check" "a last line cut without its newline (a crash) is not a result"
cmpw 'a shape (2)\na 0 1.4' 1 "a: your code stopped before this check" "a number cut short by a crash is not a wrong value"
cmpw 'a shape (2)\na 0 1.5\na 1 nan\nb error x\nprobe done\nprobe done\n' 1 "printed more than the teacher" "output after the end"
cmpw 'a shape (2)\na 0 1.5\nscale\t1\t1\tcorrect\n' 1 "printed something else" "a forged line is just a difference"
cmpw 'a shape (2)\na 0 1.5\na 1 nan\nb 0 1\nprobe done\n' 1 "refuses these inputs" "no error where the teacher's code raises one"
head -c 70000000 /dev/zero | tr '\0' 'x' >"$TMP/got"
_o=$("$GT" compare "$TMP/want" "$TMP/got"); st=$?
[ "$st" -eq 1 ] && case $_o in *"printed more than"*) true ;; *) false ;; esac && ok || bad "gradetool compare: output past the cap is a difference" "exit $st: $_o"
printf 'broken\n' >"$TMP/badwant"
"$GT" compare "$TMP/badwant" "$TMP/got" >/dev/null 2>"$TMP/gt.err"; st=$?
[ "$st" -eq 2 ] && [ "$(grep -c '' "$TMP/gt.err")" -eq 1 ] && ok || bad "gradetool compare: a malformed teacher's output is one sentence, exit 2" "exit $st: $(cat "$TMP/gt.err")"
mkdir -p "$TMP/gtrun/s/1"
printf 'b1\t1\t01\tx\t-\t1\t-\t-\n' >"$TMP/gtrun/blanks.tsv"
printf 'id\tok\n' >"$TMP/gtrun/students.tsv"
printf 'b1\t5\t1\tforged\n' >"$TMP/gtrun/s/1/result.tsv"
"$GT" csv "$TMP/gtrun" "$TMP/gtrun/c.csv" >/dev/null 2>"$TMP/gt.err"; st=$?
[ "$st" -eq 2 ] && grep -q 'malformed' "$TMP/gt.err" && ok || bad "gradetool csv: points above the maximum are refused" "exit $st: $(cat "$TMP/gt.err")"
# gradetool csv: folder names that differ only by a trailing dot or a look-alike letter
# (Cyrillic a) get a last column, notes, naming the others escaped; the others' cells stay empty
mkdir -p "$TMP/gtla"
printf 'b1\t1\t01\tx\t-\t1\t-\t-\n' >"$TMP/gtla/blanks.tsv"
printf 'alice\tok\nalice.\tok\nbob\tok\n\320\260lice\tok\n' >"$TMP/gtla/students.tsv"
for k in 1 2 3 4; do mkdir -p "$TMP/gtla/s/$k" && printf 'b1\t1\t1\tcorrect\n' >"$TMP/gtla/s/$k/result.tsv"; done
"$GT" csv "$TMP/gtla" "$TMP/gtla/c.csv" >"$TMP/gtla.out" 2>"$TMP/gt.err"
la="look-alike folder name: 'alice' differs from 'alice.', '\\xd0\\xb0lice' only by trailing spaces or dots or letters that look alike; check that they are different students"
if [ "$(head -n 1 "$TMP/gtla/c.csv")" = "student,score,max,percent,b1,notes" ] && grep -qxF "alice,1,1,100.0,1,\"$la\"" "$TMP/gtla/c.csv" &&
    grep -qx 'bob,1,1,100.0,1,' "$TMP/gtla/c.csv" && [ "$(grep -c "^look-alike folder name: .* (class.csv, notes)$" "$TMP/gtla.out")" = 3 ] &&
    [ "$(tail -n 1 "$TMP/gtla.out")" = "graded: 4 students, mean 100.0%" ]; then ok; else
    bad "gradetool csv: look-alike folder names are flagged in class.csv's notes and before the last line" "$(cat "$TMP/gtla/c.csv" "$TMP/gtla.out" "$TMP/gt.err")"
fi
# make grade-class: a folder without student folders is one sentence, exit 2
mkdir -p "$TMP/nobody" && echo x >"$TMP/nobody/file.txt"
GRADE_OUT=$TMP/outnb sh scripts/exercises/grade_class.sh "$TMP/nobody" 1 2 >/dev/null 2>"$TMP/nb.err"; st=$?
[ "$st" -eq 2 ] && grep -q 'has no subfolders' "$TMP/nb.err" && ok || bad "grade-class of a folder without students: exit 2, a sentence" "exit $st: $(cat "$TMP/nb.err")"

# make grade: one student, last line score: X/Y
GRADE_OUT=$OUT GRADE_TIME=3 sh scripts/exercises/grade.sh "$C/onewrong" 1 2,6 >"$TMP/one.out" 2>&1
[ "$(tail -n 1 "$TMP/one.out")" = "score: 1/3" ] && ok || bad "make grade ends 'score: 1/3'" "$(tail -n 5 "$TMP/one.out")"
# a submission's wall budget: with none left, an answer that must be compiled is not graded, and says so
GRADE_OUT=$OUT GRADE_STUDENT_SECONDS=0 sh scripts/exercises/grade.sh "$C/onewrong" 1 2,6 >"$TMP/bud.out" 2>&1
grep -q '^dropout_scale .*0/1  not graded: this submission used up its time budget (GRADE_STUDENT_SECONDS=0 s)' "$TMP/bud.out" && ok ||
    bad "an answer past the submission's wall budget is not graded, and its feedback says so" "$(tail -n 6 "$TMP/bud.out")"
# no working sandbox: refuse loudly (unless GRADE_UNSAFE=1)
mkdir -p "$TMP/fakebin"
printf '#!/bin/sh\necho "bwrap: no namespaces here" >&2\nexit 1\n' >"$TMP/fakebin/bwrap"
chmod +x "$TMP/fakebin/bwrap"
PATH="$TMP/fakebin:$PATH" GRADE_OUT=$OUT sh scripts/exercises/grade.sh "$C/correct" 1 2,6 >"$TMP/ns.out" 2>"$TMP/ns.err"
st=$?
[ "$st" -eq 2 ] && ok || bad "without a sandbox make grade exits 2" "exit $st"
grep -q 'REFUSED.*sandbox' "$TMP/ns.err" && grep -q 'GRADE_UNSAFE=1' "$TMP/ns.err" && ok || bad "without a sandbox make grade says why and how" "$(cat "$TMP/ns.err")"
# GRADE_UNSAFE=1: grades the same (an honest student only), with a loud warning
PATH="$TMP/fakebin:$PATH" GRADE_UNSAFE=1 GRADE_OUT=$OUT GRADE_TIME=5 sh scripts/exercises/grade.sh "$C/onewrong" 1 2,6 >"$TMP/us.out" 2>"$TMP/us.err"
[ "$(tail -n 1 "$TMP/us.out")" = "score: 1/3" ] && grep -q 'WARNING: no working sandbox' "$TMP/us.err" && ok ||
    bad "GRADE_UNSAFE=1 grades without the sandbox and warns" "$(tail -n 3 "$TMP/us.out"; cat "$TMP/us.err")"
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
# a blank in a static function (chapter 8's flash_tile, flash_softmax_tile) survives the
# grader's compile flags under gcc and clang (g_sections; clang has no
# -fkeep-static-functions and inlined them away: such a file is compiled at -O0)
for cc in gcc clang; do
    command -v "$cc" >/dev/null 2>&1 || { skip 1 "$cc is not installed"; continue; }
    _fl=$(. scripts/exercises/lib.sh && . scripts/exercises/grade_lib.sh && CC=$cc && g_sections "$TMP/flags.o" &&
        echo "$(g_cflags 08) $G_SECTIONS $G_KEEP_STATIC")
    # shellcheck disable=SC2086
    if $cc $_fl -I. -c chapters/08_fast_attention/fast_attention.c -o "$TMP/fa.o" 2>"$TMP/fa.err" &&
        [ "$(nm "$TMP/fa.o" | grep -c ' t \(flash_tile\|flash_softmax_tile\)$')" = 2 ]; then ok; else
        bad "$cc: the grader's flags keep chapter 8's static blank functions ($_fl)" "$(cat "$TMP/fa.err"; nm "$TMP/fa.o" 2>/dev/null | grep flash)"
    fi
done
# points = N in a blank's metadata: the blank is worth N
mkdir -p "$TMP/pts"
printf 'int f(int x) {\n    /* BEGIN BLANK pblank */\n    return x;\n    /* END BLANK */\n}\n' >"$TMP/pts/p.c"
printf '[pblank]\nlevel = 1\npoints = 4\nhint = h\n' >"$TMP/pts/blanks.txt"
[ "$($AWKP -f scripts/exercises/blank.awk -v mode=list -v path=p.c "$TMP/pts/p.c" | cut -f7)" = 4 ] && ok || bad "points = 4 in blanks.txt gives the blank 4 points"
finish
