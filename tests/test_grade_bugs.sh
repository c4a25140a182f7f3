#!/bin/sh
# test_grade_bugs.sh — make grade-bugs on a small bug hunt (make bugs with the
# bugs scale-forgotten, chapter 2, and dropout-no-rescale, chapter 6): a student
# who fixes both with one line each, one who hands the tree back, one whose fix
# of chapter 6 takes five statements (more than the threshold), one whose
# chapter 2 does not compile, one who prints the harness's passing line and
# stops the program (exit), one who calls system(), one who pokes the test
# harness's memory, one who prints a passing line and ends the program by an
# inline system call, one whose fix rewrites attention() on one line and hides
# the old one under #if 0; a folder whose name is not data. A fix is judged like
# a blank (the hidden checks' probe, compared by the grader), and the lines
# changed are counted on what the compiler sees, one statement a line. Asserts
# each row of bugs.csv (fixed, lines changed, small), that no trick counts as a
# fix, the summary line, and the bad inputs (one sentence, exit 2, no bugs.csv).
# The student's code runs, so this needs the grader's sandbox (bubblewrap):
# without one the checks are counted as skipped.
. tests/lib.sh
suite test_grade_bugs
grader_suite_only_once

# what the compiler sees of a file (G_PREPROCESS, the "small" count's input), with gcc and with
# clang (which has no -fdirectives-only): comments and the code #if 0 leaves out gone, the
# #include line kept as a line, not read (no sandbox needed: the script alone, in a folder)
mkdir -p "$TMP/pp/in" "$TMP/pp/w"
printf '#include "no_such.h"\n#define A 1\nint f(void) { /* hidden */\n#if 0\n    gone;\n#endif\n    return A;\n}\n' >"$TMP/pp/in/f.c"
for pcc in gcc clang; do
    command -v $pcc >/dev/null 2>&1 || { skip 1 "G_PREPROCESS with $pcc: $pcc is not installed"; continue; }
    _o=$(. scripts/exercises/lib.sh; . scripts/exercises/grade_lib.sh; cd "$TMP/pp/w" && IN=$TMP/pp/in CC=$pcc sh -c "$G_PREPROCESS" sh -std=c99 . f.c)
    case $_o in
        error*) _bad "G_PREPROCESS with $pcc: $(printf '%s' "$_o" | head -c 300)" ;;
        *hidden* | *gone*) _bad "G_PREPROCESS with $pcc leaves a comment or #if 0 code: $_o" ;;
        *'__attn_include__ "no_such.h"'*'int f(void) {'*return*) _ok ;;
        *) _bad "G_PREPROCESS with $pcc: $(printf '%s' "$_o" | tail -c 300)" ;;
    esac
done

NCHECKS=37
if ! command -v bwrap >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1 ||
    ! bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev /bin/true >/dev/null 2>&1; then
    skip $NCHECKS "the chapters' tests run on student code in bubblewrap, which does not work here (apt-get install bubblewrap)"
    finish
    exit $?
fi
S2=chapters/02_scaling/scaling.c
S6=chapters/06_dropout/dropout.c
BUGS=scale-forgotten,dropout-no-rescale
sh scripts/exercises/bugs.sh "$TMP/tree" "$BUGS" >/dev/null || { _failed=1; echo "FAIL: make bugs"; }
C=$TMP/hunt
mkdir -p "$C"
student() { cp -R "$TMP/tree" "$C/$1"; }
# replace the line that holds TEXT in FILE by LINE
edit() { awk -v t="$2" -v l="$3" 'index($0, t) && !done { print l; done = 1; next } { print }' "$1" >"$1.new" && mv "$1.new" "$1"; }
FIX2='    a.scores = scaled_scores(query, key);'
FIX6='    scale = 1.0f / (float)(1.0 - d->p);'

student fixer
edit "$C/fixer/$S2" 'a.scores = dot_scores(query, key);' "$FIX2"
edit "$C/fixer/$S6" 'scale = 1.0f;' "$FIX6"
student none
student rewriter
edit "$C/rewriter/$S6" 'scale = 1.0f;' "    /* a comment (not counted) */ {
        float s = 1.0f;
        s = s / (float)(1.0 - d->p);
        scale = s;
    }"
student broken
printf 'int oops(\n' >>"$C/broken/$S2"
student forger
edit "$C/forger/$S2" 'a.scores = dot_scores(query, key);' '    a.scores = dot_scores(query, key); printf("test_ch02: 99 passed, 0 failed\\n"); exit(0);'
printf '#include <stdlib.h>\n' | cat - "$C/forger/$S2" >"$TMP/f.c" && mv "$TMP/f.c" "$C/forger/$S2"
student caller
edit "$C/caller/$S2" 'a.scores = dot_scores(query, key);' '    a.scores = scaled_scores(query, key); (void)system("true");'
printf '#include <stdlib.h>\n' | cat - "$C/caller/$S2" >"$TMP/f.c" && mv "$TMP/f.c" "$C/caller/$S2"
# the harness's counters, reached through a global of harness.o beside them (the bug left)
student poke
edit "$C/poke/$S2" 'a.scores = dot_scores(query, key);' '    a.scores = dot_scores(query, key); { extern void *harness_expect_jmp; int *volatile hp = (int *)(void *)&harness_expect_jmp; int *h = hp; for (int i = -16; i < 16; i++) if (i < 0 || i > 1) h[i] = 0; }'
# a passing line, then exit_group(0) by an inline system call (the symbol policy alone cannot see it)
student asm
edit "$C/asm/$S2" 'a.scores = dot_scores(query, key);' '    a.scores = dot_scores(query, key); printf("test_ch02: 99 passed, 0 failed\\n"); fflush(stdout); __asm__ volatile ("mov $231, %%eax\\n\\txor %%edi, %%edi\\n\\tsyscall" ::: "rax", "rdi", "memory");'
printf '#include <stdio.h>\n' | cat - "$C/asm/$S2" >"$TMP/f.c" && mv "$TMP/f.c" "$C/asm/$S2"
# the old attention() under #if 0 and a rewrite on one line after it: fixed; its 6
# statements that differ from the handout's 5 count (not its one line): not small
student ifzero
awk '/^Attention attention\(/ { print "#if 0"; inside = 1 } { print } inside && /^}/ { print "#endif"; print "Attention attention(const Tensor *query, const Tensor *key, const Tensor *value) { Attention r = {NULL, NULL, NULL}; check_qkv(\"attention\", query, key, value); Tensor *s = t_matmul(query, t_transpose(key, -2, -1)); r.scores = t_div_scalar(s, sqrtf((float)t_size(query, -1))); r.weights = t_softmax(r.scores, -1); r.output = t_matmul(r.weights, value); return r; }"; inside = 0 }' \
    "$C/ifzero/$S2" >"$TMP/f.c" && mv "$TMP/f.c" "$C/ifzero/$S2"
nl='
'
mkdir -p "$C/bad${nl}name"

OUTD=$TMP/out_bugs
run env GRADE_OUT="$OUTD" MAKE="${MAKE:-make}" sh scripts/exercises/grade_bugs.sh "$C" "$BUGS"
expect_status 0 "make grade-bugs on the hunt"
expect_out_contains "bugs: 10 students, 4 of 20 fixes, 2 of them small" "the summary line"
CSV=$OUTD/bugs.csv
expect_file "$CSV" "writes bugs.csv"
[ -f "$CSV" ] || : >"$CSV"
row() { # STUDENT BUG -> fixed,lines,small
    awk -F, -v s="$1" -v b="$2" '$1 == s && $3 == b { print $4 "," $5 "," $6 }' "$CSV"
}
want() { # STUDENT BUG EXPECTED DESC
    got=$(row "$1" "$2")
    if [ "$got" = "$3" ]; then _ok; else _failed=$((_failed + 1)); echo "FAIL: $4: $1 $2 is '$got', want '$3'"; fi
}
want fixer scale-forgotten "yes,1,yes" "a one-line fix"
want fixer dropout-no-rescale "yes,1,yes" "a one-line fix"
want none scale-forgotten "no,0,-" "the handout is not a fix"
want none dropout-no-rescale "no,0,-" "the handout is not a fix"
want rewriter dropout-no-rescale "yes,5,no" "a fix of 5 statements is not small (its comment does not count)"
want rewriter scale-forgotten "no,0,-" "the bug left in place"
want broken scale-forgotten "no,1,-" "a file that does not compile"
want broken dropout-no-rescale "no,0,-" "another chapter is graded alone"
want forger scale-forgotten "no,3,-" "printing the passing line and exiting is not a fix"
want caller scale-forgotten "no,3,-" "a fix that calls system() is not accepted"
want poke scale-forgotten "no,8,-" "poking the harness's counters is not a fix"
want asm scale-forgotten "no,4,-" "a passing line and an inline exit_group is not a fix"
want ifzero scale-forgotten "yes,6,no" "a rewrite on one line beside the old code under #if 0 counts its statements"
if grep -q '^forger,2,.*not accepted' "$CSV" && grep -q '^caller,2,.*not accepted' "$CSV" &&
    grep -q '^asm,2,.*not accepted: your code holds the instruction syscall' "$CSV" && grep -q '^poke,2,.*\(not accepted\|does not link\)' "$CSV"; then _ok
else _failed=$((_failed + 1)); echo "FAIL: the notes of the tricks do not say 'not accepted': $(grep -e forger -e caller "$CSV" | tr '\n' ' ')"; fi
if [ "$(grep -c 'not graded' "$CSV")" = 2 ]; then _ok; else _failed=$((_failed + 1)); echo "FAIL: the folder whose name is not data has no 2 'not graded' rows"; fi
if [ "$(head -n 1 "$CSV")" = "student,chapter,bug,fixed,lines_changed,small,note" ] && [ "$(grep -c '' "$CSV")" = 21 ]; then _ok
else _failed=$((_failed + 1)); echo "FAIL: bugs.csv: header or not 20 rows"; fi
if grep -q '^fixer,2,.*hidden checks on fresh random inputs agree' "$CSV" && grep -q '^none,2,.*a hidden check on fresh random inputs fails' "$CSV"; then _ok
else _failed=$((_failed + 1)); echo "FAIL: a fix is judged by the hidden checks: $(grep -e '^fixer,2' -e '^none,2' "$CSV" | tr '\n' ' ')"; fi
# a bug left as it was: the note names it, from mistakes.txt (test_feedback.sh: all of them)
if grep -q '^none,2,scale-forgotten,no,.*The scores are not scaled, so they are sqrt(d_k) times the expected ones' "$CSV" &&
    grep -q '^none,6,dropout-no-rescale,no,.*The kept values are not rescaled' "$CSV"; then _ok
else _failed=$((_failed + 1)); echo "FAIL: a bug left as it was is named in its note: $(grep '^none,' "$CSV" | tr '\n' ' ')"; fi

# bad input: one sentence, exit 2, no bugs.csv
for case in "give the folder|" "is not a folder|$TMP/missing" "no bug named|$C nosuchbug" \
    "two bugs of chapter 4|$C triu-diagonal-0,mask-not-sliced"; do
    want_t=${case%%|*}
    args=${case#*|}
    rm -rf "$TMP/o2"
    # shellcheck disable=SC2086
    run env GRADE_OUT="$TMP/o2" sh scripts/exercises/grade_bugs.sh $args
    expect_usage_error "$want_t" "refuses: $want_t"
done
run env GRADE_OUT="$TMP/o2" GRADE_BUGS_MAX_LINES=x sh scripts/exercises/grade_bugs.sh "$C"
expect_usage_error "GRADE_BUGS_MAX_LINES" "refuses a threshold that is not a number"
expect_no_file "$TMP/o2/bugs.csv" "no bugs.csv after a refusal"
finish
