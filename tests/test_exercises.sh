#!/bin/sh
# test_exercises.sh — the exercise generator (scripts/exercises/): marker
# mistakes refused with file:line, nesting (the outer blank wins), the
# solution reproduced byte for byte, stubs that compile under the strict
# flags and fail with their sentence, the generated tree, the bug list, and
# the blank counts the classroom needs (>= 20 blanks, >= 3 in each of
# chapters 1-7, all three levels). Fast; `make check-exercises` is the full
# proof that every blank and bug is caught by the tests.
. tests/lib.sh
suite test_exercises

AWKP=${AWK:-awk}
BA=scripts/exercises/blank.awk
CCX=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -Wpedantic -Werror -Wvla -O2 -I."

ok() { _ok; }
bad() { # DESC DETAILS
    _failed=$((_failed + 1))
    printf 'FAIL: %s\n' "$1"
    [ -n "${2:-}" ] && printf '      %s\n' "$2"
}
check() { # DESC COMMAND...   (passes when the command succeeds)
    _d=$1
    shift
    if "$@" >"$TMP/c.out" 2>&1; then ok; else bad "$_d" "$(head -c 400 "$TMP/c.out")"; fi
}
stub() { # FILE LEVEL [ONLY]  -> stdout
    $AWKP -f "$BA" -v mode=stub -v level="$2" -v only="${3:-}" -v path="$1" "$1"
}
# the lines of file LINES that occur in standard input (as grep -F would find them,
# but one pass over the text for all of them), each printed after PREFIX
shows_lines() { # PREFIX LINES  <text
    $AWKP -v pre="$1" -v lines="$2" '
        BEGIN { while ((getline l < lines) > 0) if (l != "") want[++n] = l }
        { text = text $0 "\n" }
        END { for (i = 1; i <= n; i++) if (index(text, want[i])) print pre want[i] }'
}
# expect blank.awk to refuse FILE with status 2 and a message containing TEXT
refuse() { # FILE TEXT DESC
    $AWKP -f "$BA" -v mode=list -v path="$1" "$1" >"$TMP/r.out" 2>"$TMP/r.err"
    st=$?
    if [ "$st" -eq 2 ] && grep -qF -- "$2" "$TMP/r.err"; then ok; else bad "$3" "exit $st; stderr: $(cat "$TMP/r.err")"; fi
}

mkdir -p "$TMP/m"
# case NAME: a folder $TMP/m/NAME for one planted file x.c and its blanks.txt
case_dir() { mkdir -p "$TMP/m/$1" && C=$TMP/m/$1; }
# a planted metadata entry: NAME LEVEL [KEY = VALUE lines...]
entry() { # NAME LEVEL [LINES...]
    printf '[%s]\nlevel = %s\nhint = h\n' "$1" "$2"
    shift 2
    for l; do printf '%s\n' "$l"; done
}

# ---- marker and metadata mistakes ------------------------------------------------
case_dir same
cat >"$C/x.c" <<'EOF'
int f(int x) {
    /* BEGIN BLANK outer */
    /* BEGIN BLANK inner */
    return x;
    /* END BLANK */
    /* END BLANK */
}
EOF
{ entry outer 2; entry inner 2; } >"$C/blanks.txt"
refuse "$C/x.c" "$C/x.c:3: blank 'inner' (level 2) is inside blank 'outer' (level 2, line 2): a nested blank needs a strictly lower level ($C/blanks.txt gives the levels)" \
    "same-level nesting (levels from blanks.txt) is refused with file:line"
{ entry outer 2; entry inner 3; } >"$C/blanks.txt"
refuse "$C/x.c" "$C/x.c:3: blank 'inner' (level 3) is inside blank 'outer' (level 2, line 2)" "a higher level inside a lower one is refused"
{ entry outer 3; entry inner 2; } >"$C/blanks.txt"
check "a lower level inside a higher one is fine" $AWKP -f "$BA" -v mode=list -v path="$C/x.c" "$C/x.c"

case_dir open
printf 'int f(int x) {\n    /* BEGIN BLANK lonely */\n    return x;\n}\n' >"$C/x.c"
entry lonely 1 >"$C/blanks.txt"
refuse "$C/x.c" "$C/x.c:2: blank 'lonely' is never closed" "an unclosed marker is refused with file:line"

case_dir end
printf 'int f(int x) {\n    return x;\n    /* END BLANK */\n}\n' >"$C/x.c"
refuse "$C/x.c" "$C/x.c:3: END BLANK without a BEGIN BLANK" "END without BEGIN is refused"

case_dir top
printf '/* BEGIN BLANK whole */\nint f(int x) { return x; }\n/* END BLANK */\n' >"$C/x.c"
entry whole 3 >"$C/blanks.txt"
refuse "$C/x.c" "$C/x.c:1: blank 'whole' is outside a function body" "a blank at file scope is refused"

# the marker is the name alone: the old attributes on the marker line are refused
case_dir old
printf 'int f(int x) {\n    /* BEGIN BLANK old level=1 hint="h" */\n    return x;\n    /* END BLANK */\n}\n' >"$C/x.c"
entry old 1 >"$C/blanks.txt"
refuse "$C/x.c" "$C/x.c:2: malformed marker: expected /* BEGIN BLANK name */ alone on its line (level, hint and the other keys go in $C/blanks.txt)" \
    "a marker with attributes is refused, pointing to blanks.txt"

# a marker without an entry (and without any blanks.txt)
case_dir noentry
printf 'int f(int x) {\n    /* BEGIN BLANK lost */\n    return x;\n    /* END BLANK */\n}\n' >"$C/x.c"
refuse "$C/x.c" "$C/x.c:2: blank 'lost' has no entry [lost] in $C/blanks.txt (there is no such file)" "a marker in a folder without blanks.txt is refused"
entry other 1 >"$C/blanks.txt"
refuse "$C/x.c" "$C/x.c:2: blank 'lost' has no entry [lost] in $C/blanks.txt" "a marker without a metadata entry is refused, naming file and blank"

# the metadata's own mistakes, each with the file, its line and the blank
case_dir meta
printf 'int f(int x) {\n    /* BEGIN BLANK four */\n    return x;\n    /* END BLANK */\n}\n' >"$C/x.c"
entry four 4 >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:2: blank 'four' has level = 4: the level must be 1, 2 or 3" "level 4 is refused"
entry four x >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:2: blank 'four' has level = x: the level must be 1, 2 or 3" "a level that is not a number is refused"
printf '[four]\nhint = h\n' >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:1: blank 'four' has no 'level = 1|2|3' line" "an entry without a level is refused"
entry four 1 'hnit = typo' >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:4: blank 'four': unknown key 'hnit' (known: level, points, hint, helpers, torch, refuse, hint_zh, helpers_zh)" "an unknown key is refused"
printf '[four]\nlevel = 1\n' >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:1: blank 'four' has no 'hint = ...' line" "an entry without a hint is refused"
printf '[four]\nlevel = 1\nhint =\n' >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:3: blank 'four' has an empty hint" "an empty hint is refused"
entry four 1 'points = 0' >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:4: blank 'four' has points = 0: give a whole number of at least 1" "points = 0 is refused"
entry four 1 'level = 2' >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:4: blank 'four': 'level' is given twice (also at line 2)" "a key given twice is refused"
{ entry four 1; entry four 2; } >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:4: blank 'four' has a second entry (the first is at line 1)" "a second entry for a blank is refused"
{ echo 'level = 1'; entry four 1; } >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:1: 'level = ...' comes before the first [name]" "a key outside an entry is refused"
{ echo '[four five]'; entry four 1; } >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:1: expected [name], the name of a blank" "a malformed [name] is refused"
{ entry four 1; echo 'just words'; } >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:4: expected [name], key = value" "a line that is no key = value is refused"
printf '[four]\n    continued\nlevel = 1\nhint = h\n' >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:2: an indented line continues the value of the key = value line above it, but there is none in [four]" \
    "an indented line with nothing to continue is refused"
entry four 1 'torch = a	b' >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:1: blank 'four': the values must not contain a tab" "a tab in a value is refused"
printf '[four]\nlevel = 1\nhint = a */ b\n' >"$C/blanks.txt"
refuse "$C/x.c" "$C/blanks.txt:3: blank 'four': the hint must not contain '*/'" "a hint that would end the stub's comment is refused"
# a value continued on indented lines is one line with single spaces; comments and
# empty lines are skipped, CR LF line ends read as LF
printf '# a comment\n\n[four]\r\nlevel = 2\r\npoints = 5\nhint = one\n    two\n\tthree   \nhelpers =\n  h1, h2\ntorch = x = y  # two spaces stay\nrefuse = t_a t_b\n' >"$C/blanks.txt"
$AWKP -f "$BA" -v mode=list -v path="$C/x.c" "$C/x.c" >"$TMP/m/l.out" 2>&1
[ "$(cut -f1,2,6,7,9,10,12 "$TMP/m/l.out")" = "four	2	one two three	5	h1, h2	x = y  # two spaces stay	t_a t_b" ] && ok ||
    bad "blanks.txt: level, points, a folded hint, helpers, torch and refuse are read" "$(cat "$TMP/m/l.out")"

# across a folder (list_blanks, which every tool calls first): an entry that no marker
# of the folder's concept code uses, in a planted repository root
R=$TMP/root
mkdir -p "$R/chapters/01_x" "$R/common" "$R/tests" "$R/scripts"
ln -s "$(pwd)/scripts/exercises" "$R/scripts/exercises"
printf 'int f(int x) {\n    /* BEGIN BLANK here */\n    return x;\n    /* END BLANK */\n}\n' >"$R/chapters/01_x/x.c"
printf 'int g(int x) {\n    return x;\n}\n' >"$R/chapters/01_x/y.c"
printf 'int main(void) { return 0; }\n' >"$R/chapters/01_x/main.c"
{ entry here 1; echo; entry ghost 2; } >"$R/chapters/01_x/blanks.txt"
in_root() { (cd "$R" && "$@") >"$TMP/root.out" 2>"$TMP/root.err"; }
in_root sh scripts/exercises/hint.sh
st=$?
if [ "$st" -eq 2 ] && grep -qxF "chapters/01_x/blanks.txt:5: blank 'ghost' has no /* BEGIN BLANK ghost */ marker in the concept code of chapters/01_x/ (its .c files but main.c): add the markers or remove the entry" "$TMP/root.err"; then ok; else
    bad "make hint refuses a metadata entry without a marker, naming file and blank" "exit $st: $(cat "$TMP/root.err")"
fi
in_root sh scripts/exercises/generate.sh out 1 all
st=$?
if [ "$st" -eq 2 ] && grep -q "blank 'ghost' has no /\* BEGIN BLANK ghost \*/ marker" "$TMP/root.err" && [ ! -e "$R/out" ]; then ok; else
    bad "make exercises refuses it too and writes nothing" "exit $st: $(cat "$TMP/root.err")"
fi
# a marker in another file of the folder uses the entry: accepted
printf 'int g(int x) {\n    /* BEGIN BLANK ghost */\n    return x;\n    /* END BLANK */\n}\n' >"$R/chapters/01_x/y.c"
if in_root sh scripts/exercises/hint.sh && grep -q '^ghost .*chapters/01_x/y.c:2$' "$TMP/root.out"; then ok; else
    bad "one blanks.txt serves every concept file of its folder" "$(cat "$TMP/root.out" "$TMP/root.err")"
fi
# a mistake in blanks.txt is said once, not once per concept file that reads it
entry ghost 2 >>"$R/chapters/01_x/blanks.txt"
in_root sh scripts/exercises/hint.sh
if [ "$(grep -c "has a second entry" "$TMP/root.err")" = 1 ]; then ok; else bad "a metadata mistake is said once" "$(cat "$TMP/root.err")"; fi
# a marker of chapter 2 whose entry is in chapter 1's file: both sides are named
{ entry here 1; echo; entry ghost 2; } >"$R/chapters/01_x/blanks.txt"
mkdir -p "$R/chapters/02_y"
mv "$R/chapters/01_x/y.c" "$R/chapters/02_y/y.c"
in_root sh scripts/exercises/hint.sh
if grep -q "^chapters/02_y/y.c:2: blank 'ghost' has no entry \[ghost\] in chapters/02_y/blanks.txt" "$TMP/root.err"; then ok; else
    bad "a marker whose entry is in another folder's blanks.txt is refused" "$(cat "$TMP/root.err")"
fi

# ---- nesting, stubs, unused names, escaping ---------------------------------
cat >"$TMP/m/nest.c" <<'EOF'
#include <stdio.h>

static int helper(int v) { return v * 2; }

int g(int a, int b, const char *unused_but_named) {
    int local = a + 1;
    int kept = 0;
    (void)unused_but_named;
    /* BEGIN BLANK whole */
    for (int i = 0; i < b; i++) {
        /* BEGIN BLANK step */
        kept += local * i + helper(i);
        /* END BLANK */
    }
    return kept;
    /* END BLANK */
}
EOF
cat >"$TMP/m/blanks.txt" <<'EOF'
[whole]
level = 3
hint = Say "hi" ??( with a back\slash and 100% of it.

[step]
level = 1
hint = kept += local * i
EOF
n3=$(stub "$TMP/m/nest.c" 3 | grep -c 'exercise_missing(')
n2=$(stub "$TMP/m/nest.c" 2 | grep -c 'exercise_missing(')
n0=$(stub "$TMP/m/nest.c" 0 | grep -c 'exercise_missing(')
if [ "$n3" -eq 1 ] && stub "$TMP/m/nest.c" 3 | grep -q "exercise_missing(\"whole\""; then ok; else bad "LEVEL=3: the outer blank swallows the inner one" "$n3 stubs"; fi
if [ "$n2" -eq 1 ] && stub "$TMP/m/nest.c" 2 | grep -q "exercise_missing(\"step\""; then ok; else bad "LEVEL=2: only the inner level-1 blank is stubbed" "$n2 stubs"; fi
if [ "$n0" -eq 0 ]; then ok; else bad "LEVEL=0: no stubs"; fi
for lv in 0 1 3; do
    if stub "$TMP/m/nest.c" $lv | grep -q 'BEGIN BLANK\|END BLANK'; then bad "LEVEL=$lv output still has markers"; else ok; fi
done
for lv in 1 3; do
    stub "$TMP/m/nest.c" $lv >"$TMP/m/nest_$lv.c"
    check "the level-$lv stub of nest.c compiles under the strict flags" $CCX $STRICT -c "$TMP/m/nest_$lv.c" -o "$TMP/m/nest_$lv.o"
done
stub "$TMP/m/nest.c" 0 "step" >"$TMP/m/nest_step.c"
check "the inner blank alone compiles" $CCX $STRICT -c "$TMP/m/nest_step.c" -o "$TMP/m/nest_step.o"
if grep -q '(void)helper;' "$TMP/m/nest_1.c" && grep -q '(void)b; (void)local; (void)kept; (void)helper;' "$TMP/m/nest_3.c"; then ok; else
    bad "stubs (void) what only the solution used (static helper, parameters)" "$(grep -h 'void' "$TMP/m/nest_1.c" "$TMP/m/nest_3.c")"
fi
if grep -qF 'exercise_missing("whole", "'"$TMP"'/m/nest.c:10", "Say \"hi\" \?\?( with a back\\slash and 100% of it.");' "$TMP/m/nest_3.c"; then ok; else
    bad "the hint is escaped for a C string" "$(grep exercise_missing "$TMP/m/nest_3.c")"
fi

# The stub at run time: one sentence through t_error, exit 1.
cat >"$TMP/m/run.c" <<'EOF'
#include "common/error.h"
#include "common/exercise.h"
int main(void) {
    t_set_program_name("demo");
    exercise_missing("scale", "chapters/02_scaling/scaling.c:8", "Divide by sqrt(d_k).");
}
EOF
if $CCX $STRICT "$TMP/m/run.c" common/exercise.c common/error.c -o "$TMP/m/run" 2>"$TMP/m/run.err"; then
    run "$TMP/m/run"
    expect_runtime_error "demo: error: exercise 'scale' (chapters/02_scaling/scaling.c:8) is not filled in: Divide by sqrt(d_k)." \
        "exercise_missing prints the sentence and exits 1"
else
    bad "exercise_missing compiles" "$(head -c 400 "$TMP/m/run.err")"
fi
# a blank with hint_zh: the stub carries both hints; a Chinese run says the Chinese one, in Chinese
cat >"$TMP/m/run_zh.c" <<'EOF'
#include <string.h>
#include "common/error.h"
#include "common/exercise.h"
static const char *zh(const char *en) {
    if (strcmp(en, "exercise '%s' (%s) is not filled in: %s") == 0) return "练习 '%s'（%s）还没有填：%s";
    if (strcmp(en, "%s: %s: %s\n") == 0) return "%s：%s：%s\n";
    return en;
}
int main(int argc, char **argv) {
    (void)argv;
    t_set_program_name("demo");
    if (argc > 1) t_set_translator(zh), t_set_error_label("错误");
    exercise_missing("scale", "s.c:8", "Divide by sqrt(d_k).\037除以 sqrt(d_k)。");
}
EOF
if $CCX $STRICT "$TMP/m/run_zh.c" common/exercise.c common/error.c -o "$TMP/m/run_zh" 2>"$TMP/m/run.err"; then
    run "$TMP/m/run_zh" zh
    expect_runtime_error "demo：错误：练习 'scale'（s.c:8）还没有填：除以 sqrt(d_k)。" "a Chinese run: the Chinese hint"
    run "$TMP/m/run_zh"
    expect_runtime_error "demo: error: exercise 'scale' (s.c:8) is not filled in: Divide by sqrt(d_k)." \
        "an English run: the English hint only"
else
    bad "exercise_missing (two hints) compiles" "$(head -c 400 "$TMP/m/run.err")"
fi

# ---- the chapters' blanks ------------------------------------------------------
for f in chapters/[0-9][0-9]_*/*.c; do
    case $f in */main.c) continue ;; esac
    $AWKP -f "$BA" -v mode=list -v path="$f" "$f"
done >"$TMP/blanks.tsv" 2>"$TMP/blanks.err"
if [ -s "$TMP/blanks.err" ]; then bad "the chapters' markers are well formed" "$(head -c 600 "$TMP/blanks.err")"; else ok; fi
# the whole repository as every tool reads it: every marker has its entry and every entry its marker
if (. scripts/exercises/lib.sh && list_blanks) >"$TMP/all.tsv" 2>"$TMP/all.err" && cmp -s "$TMP/all.tsv" "$TMP/blanks.tsv"; then ok; else
    bad "the chapters' blanks.txt files and markers agree (list_blanks)" "$(head -c 600 "$TMP/all.err")"
fi
B=$(grep -c '' "$TMP/blanks.tsv")
if [ "$B" -ge 20 ]; then ok; else bad "at least 20 blanks in all (found $B)"; fi
for nn in 01 02 03 04 05 06 07; do
    k=$(grep -c "	chapters/${nn}_" "$TMP/blanks.tsv")
    if [ "$k" -ge 3 ]; then ok; else bad "chapter $nn has at least 3 blanks (found $k)"; fi
done
for lv in 1 2 3; do
    if cut -f2 "$TMP/blanks.tsv" | grep -qx "$lv"; then ok; else bad "some blank has level $lv"; fi
done
if [ -z "$(cut -f1 "$TMP/blanks.tsv" | sort | uniq -d)" ]; then ok; else bad "blank names are unique" "$(cut -f1 "$TMP/blanks.tsv" | sort | uniq -d)"; fi
if grep -n -E 'BEGIN BLANK|END BLANK' chapters/*/main.c chapters/*/*.h tests/*.c tests/*.h >"$TMP/stray" 2>/dev/null; then
    bad "no markers in narration (main.c), headers or tests" "$(head -n 3 "$TMP/stray")"
else ok; fi

for f in chapters/[0-9][0-9]_*/*.c; do
    case $f in */main.c) continue ;; esac
    grep -q 'BEGIN BLANK' "$f" || continue
    # the solution, byte for byte: only the marker lines go
    grep -v -E '^[ \t]*/\* (BEGIN|END) BLANK' "$f" >"$TMP/want.c"
    stub "$f" 0 >"$TMP/got.c"
    if cmp -s "$TMP/want.c" "$TMP/got.c"; then ok; else bad "$f at LEVEL=0 is the solution without its marker lines"; fi
    # every level compiles
    for lv in 1 3; do
        stub "$f" $lv >"$TMP/lv_$lv.c" 2>/dev/null || true
        if [ -s "$TMP/lv_$lv.c" ] &&
            $CCX $STRICT -I"$(dirname "$f")" -c "$TMP/lv_$lv.c" -o "$TMP/lv.o" >"$TMP/lv.err" 2>&1; then ok; else
            bad "$f with every blank of level <= $lv stubbed compiles" "$(head -c 400 "$TMP/lv.err")"
        fi
    done
done

# ---- bugs.txt matches the code --------------------------------------------------
if $AWKP -f scripts/exercises/bugs.awk -v mode=list scripts/exercises/bugs.txt >"$TMP/bugs.tsv" 2>"$TMP/bugs.err"; then ok; else
    bad "bugs.txt is well formed" "$(cat "$TMP/bugs.err")"
fi
for ch in 1 2 3 4 5 6 7; do
    if cut -f2 "$TMP/bugs.tsv" | grep -qx "$ch"; then ok; else bad "bugs.txt has a bug for chapter $ch"; fi
done
while IFS='	' read -r id ch file title; do
    grep -v -E '^[ \t]*/\* (BEGIN|END) BLANK' "$file" >"$TMP/sol.c"
    if $AWKP -f scripts/exercises/bugs.awk -v mode=apply -v id="$id" scripts/exercises/bugs.txt "$TMP/sol.c" >"$TMP/bug.c" 2>"$TMP/bug.err" &&
        ! cmp -s "$TMP/sol.c" "$TMP/bug.c"; then ok; else
        bad "bug $id applies to $file" "$(cat "$TMP/bug.err")"
    fi
done <"$TMP/bugs.tsv"

# ---- a generated tree ---------------------------------------------------------
if sh scripts/exercises/generate.sh "$TMP/tree" 2 3,4 >"$TMP/gen.out" 2>&1; then ok; else bad "make exercises LEVEL=2 CHAPTERS=3,4 runs" "$(cat "$TMP/gen.out")"; fi
: >"$TMP/want.tsv"
for f in chapters/03_*/*.c chapters/04_*/*.c; do
    case $f in */main.c) continue ;; esac
    $AWKP -f "$BA" -v mode=stub -v level=2 -v path="$f" -v manifest="$TMP/want.tsv" "$f" >/dev/null
done
want=$(grep -c '' "$TMP/want.tsv")
got=$(grep -c '^[^#]' "$TMP/tree/.exercise-manifest" 2>/dev/null)
if [ "$got" = "$want" ] && grep -q '^# level: 2$' "$TMP/tree/.exercise-manifest"; then ok; else bad "the manifest lists the $want blanks handed out (got $got)"; fi
nstub=$(cat "$TMP"/tree/chapters/*/*.c | grep -c 'exercise_missing(')
if [ "$nstub" = "$want" ]; then ok; else bad "the tree has one stub per blank ($nstub stubs, $want blanks)"; fi
if grep -q 'exercise_missing(' "$TMP"/tree/chapters/0[1256]_*/*.c "$TMP"/tree/chapters/07_*/*.c; then bad "chapters not chosen keep their code"; else ok; fi
if grep -rq -E 'BEGIN BLANK|END BLANK' "$TMP/tree/chapters"; then bad "the student's tree carries no markers"; else ok; fi
for p in Makefile common/exercise.c common/exercise.h tests/harness.c tests/test_ch03.c README-EXERCISES.md; do
    if [ -f "$TMP/tree/$p" ]; then ok; else bad "the tree has $p"; fi
done
if [ -f "$TMP/tree/tests/test_exercises.sh" ]; then bad "the tree leaves out the generator's own test"; else ok; fi
if ls "$TMP"/tree/chapters/*/blanks.txt >/dev/null 2>&1; then bad "the tree leaves out the blanks' metadata (the manifest has what it hands out)"; else ok; fi
if [ "$(cd "$TMP/tree" && find scripts/exercises -type f)" = scripts/exercises/hint.sh ]; then ok; else
    bad "of scripts/exercises/ the tree gets hint.sh alone" "$(cd "$TMP/tree" && find scripts/exercises -type f | tr '\n' ' ')"
fi
# make hint in the tree: hint.sh reads the manifest (the line of the stub in this tree)
_ml=$($AWKP -F '\t' '$1 == "mask_slice" { print $3 ":" $5 }' "$TMP/tree/.exercise-manifest")
(cd "$TMP/tree" && make -s hint BLANK=mask_slice TIER=2) >"$TMP/th.out" 2>&1
if [ -n "$_ml" ] && [ "$(head -n 2 "$TMP/th.out")" = "mask_slice (level 2): $_ml
    hint 2 of 3 (which helpers): t_slice, once for dim 2 and once for dim 3." ]; then ok; else
    bad "make hint BLANK=mask_slice TIER=2 in the tree reads its manifest" "$(cat "$TMP/th.out")"
fi
(cd "$TMP/tree" && make -s hint) >"$TMP/th.out" 2>&1
[ "$(grep -c '' "$TMP/th.out")" = "$want" ] && ok || bad "make hint in the tree lists its $want blanks" "$(cat "$TMP/th.out")"
(cd "$TMP/tree" && make -s hint BLANK=scale) >"$TMP/th.out" 2>&1 && bad "make hint in the tree knows only the blanks handed out" || ok
if grep -q 'make test-chapter' "$TMP/tree/README-EXERCISES.md"; then ok; else bad "README-EXERCISES.md says how to check"; fi
# its commands are the handout's (chapters 3 and 4 here): the first blank's chapter and name,
# in both languages; every make hint it shows names a blank handed out
_b1=$(grep -v '^#' "$TMP/tree/.exercise-manifest" | head -n 1 | cut -f1)
_c1=$(grep -v '^#' "$TMP/tree/.exercise-manifest" | head -n 1 | cut -f3 | sed 's|^chapters/0*\([0-9]*\)_.*|\1|')
for r in README-EXERCISES.md README-EXERCISES.zh-CN.md; do
    if grep -q "^make test-chapter$_c1 " "$TMP/tree/$r" && grep -q "^make hint BLANK=$_b1 " "$TMP/tree/$r"; then ok; else
        bad "$r shows make test-chapter$_c1 and make hint BLANK=$_b1, the handout's first blank"
    fi
    for n in $(sed -n 's/^make hint BLANK=\([a-z_0-9]*\).*/\1/p' "$TMP/tree/$r"); do
        cut -f1 "$TMP/tree/.exercise-manifest" | grep -qx "$n" && ok || bad "$r: make hint BLANK=$n is not a blank of the handout"
    done
done
if [ -f chapters/04_causal_mask/README.md ]; then
    if grep -q 'left out of this copy' "$TMP"/tree/chapters/04_*/README.md; then ok; else
        bad "a chapter README code block that shows a handed-out solution is left out"
    fi
fi
for f in chapters/01_*/README.md; do
    [ -f "$f" ] || continue
    if cmp -s "$f" "$TMP/tree/$f"; then ok; else bad "the README of a chapter that was not chosen is unchanged"; fi
done
mkdir -p "$TMP/notmine" && echo keep >"$TMP/notmine/file"
if sh scripts/exercises/generate.sh "$TMP/notmine" 1 >/dev/null 2>&1 || [ ! -f "$TMP/notmine/file" ]; then
    bad "make exercises refuses to overwrite a folder it did not write"
else ok; fi
# a handout a student filled in (its files with blanks changed) is not overwritten either;
# the same handout untouched is written again
sh scripts/exercises/generate.sh "$TMP/filled" 1 2 >/dev/null 2>&1 && sh scripts/exercises/generate.sh "$TMP/filled" 1 2 >/dev/null 2>&1 &&
    ok || bad "make exercises writes an untouched handout again"
echo '/* an answer */' >>"$TMP/filled/chapters/02_scaling/scaling.c"
sh scripts/exercises/generate.sh "$TMP/filled" 1 2 >/dev/null 2>"$TMP/filled.err"; st=$?
[ "$st" -eq 2 ] && [ "$(grep -c '' "$TMP/filled.err")" -eq 1 ] && grep -q "a student's answers" "$TMP/filled.err" &&
    [ "$(tail -n 1 "$TMP/filled/chapters/02_scaling/scaling.c")" = '/* an answer */' ] && ok ||
    bad "make exercises refuses to overwrite a handout whose files with blanks changed" "exit $st: $(cat "$TMP/filled.err")"

# make hint, in three tiers
if sh scripts/exercises/hint.sh scale 2>&1 | grep -q 'chapters/02_scaling/scaling.c:[0-9]'; then ok; else bad "make hint BLANK=scale says where the blank lives"; fi
if sh scripts/exercises/hint.sh no_such_blank >/dev/null 2>&1; then bad "make hint with an unknown name fails"; else ok; fi
# a blank of 1 point says "1 point", of 2 "2 points"
sh scripts/exercises/hint.sh scale 2>&1 | grep -q '^scale (level 1, 1 point, chapter 2): ' && ok ||
    bad "make hint BLANK=scale: '1 point'" "$(sh scripts/exercises/hint.sh scale 2>&1 | head -n 1)"
sh scripts/exercises/hint.sh naive_softmax 2>&1 | grep -q '^naive_softmax (level 2, 2 points, chapter 1): ' && ok ||
    bad "make hint BLANK=naive_softmax: '2 points'" "$(sh scripts/exercises/hint.sh naive_softmax 2>&1 | head -n 1)"
for t in 1 2 3; do
    sh scripts/exercises/hint.sh scale $t >"$TMP/h$t" 2>&1 && grep -q "hint $t of 3" "$TMP/h$t" && ok || bad "make hint TIER=$t works" "$(cat "$TMP/h$t")"
done
grep -q 't_div_scalar' "$TMP/h2" && ok || bad "tier 2 names the helpers"
grep -q 'math.sqrt' "$TMP/h3" && ok || bad "tier 3 is the PyTorch line"
sh scripts/exercises/hint.sh scale 4 >/dev/null 2>&1 && bad "TIER=4 is refused" || ok
# every blank has all three tiers, and no tier holds a line of the C answer
$AWKP -F '\t' '$9 == "-" || $10 == "-" { print $1 }' "$TMP/blanks.tsv" >"$TMP/notiers"
[ -s "$TMP/notiers" ] && bad "every blank has helpers = and torch = hints in its blanks.txt" "$(tr '\n' ' ' <"$TMP/notiers")" || ok
: >"$TMP/sol.txt"
for f in chapters/[0-9][0-9]_*/*.c; do
    case $f in */main.c) continue ;; esac
    $AWKP -f "$BA" -v mode=stub -v level=3 -v path="$f" -v solutions="$TMP/sol.txt" "$f" >/dev/null
    for b in $(grep -F "	$f	" "$TMP/blanks.tsv" | cut -f1); do
        $AWKP -f "$BA" -v mode=stub -v only="$b" -v path="$f" -v solutions="$TMP/sol.txt" "$f" >/dev/null
    done
done
sort -u "$TMP/sol.txt" >"$TMP/sol.u"
cut -f6,9,10 "$TMP/blanks.tsv" | tr -d ' \t' >"$TMP/hints.norm"
leak=$(shows_lines "" "$TMP/sol.u" <"$TMP/hints.norm")
[ -z "$leak" ] && ok || bad "no hint contains a line of a C answer" "$leak"

# the default handout is chapters 1-7 (chapter 8 only when asked for)
sh scripts/exercises/generate.sh "$TMP/def" 1 >/dev/null 2>&1
grep -q '^# chapters: 1,2,3,4,5,6,7$' "$TMP/def/.exercise-manifest" && ok || bad "make exercises defaults to chapters 1-7" "$(grep chapters "$TMP/def/.exercise-manifest")"
grep -q 'exercise_missing(' "$TMP"/def/chapters/08_*/*.c && bad "chapter 8 is opt-in" || ok
# no line of a handed-out answer in the handout's READMEs and narration (levels 1, 2;
# `int64_t d_k = t_size(query, -1);` of chapter 2's narration only reads a size,
# and a bare loop header such as `for (int64_t i = 0; i < n; i++) {` gives nothing away)
# (level 1: the default handout just written, $TMP/def)
for lv in 1 2; do
    lk=$TMP/def
    [ $lv = 1 ] || { lk=$TMP/lk && sh scripts/exercises/generate.sh "$lk" $lv >/dev/null 2>&1; }
    : >"$TMP/sol.txt"
    for f in chapters/0[1-7]_*/*.c; do
        case $f in */main.c) continue ;; esac
        $AWKP -f "$BA" -v mode=stub -v level=$lv -v path="$f" -v solutions="$TMP/sol.txt" "$f" >/dev/null
    done
    grep -v -x -e 'int64_td_k=t_size(query,-1);' -e 'for(int64_t[a-z]*=0;[a-z]*<[a-z_]*;[a-z]*++){*' "$TMP/sol.txt" | sort -u >"$TMP/sol.u"
    leak=$(find "$lk" -type f \( -name 'main.c' -o -name '*.md' \) | while IFS= read -r f; do
        tr -d ' \t' <"$f" | shows_lines "${f#"$lk/"}: " "$TMP/sol.u"
    done)
    [ -z "$leak" ] && ok || bad "the level-$lv handout shows no line of its answers" "$(echo "$leak" | head -n 5)"
done

# make bugs: the key beside the tree, READMEs without the hunted lines
rm -rf "$TMP/bg" "$TMP/bg.ANSWERS.md"
sh scripts/exercises/bugs.sh "$TMP/bg" >/dev/null 2>&1
[ -s "$TMP/bg.ANSWERS.md" ] && [ ! -e "$TMP/bg/ANSWERS.md" ] && ok || bad "make bugs writes the key beside the tree, not in it"
grep -q 'chapter order' "$TMP/bg/README-BUGS.md" && ok || bad "README-BUGS says to work in chapter order"
$AWKP -F '\t' '!($2 in seen) { seen[$2] = 1; print $1 }' "$TMP/bugs.tsv" | while read -r id; do
    $AWKP -v id="$id" '$1 == "bug" { cur = $2 } $1 == "find" && cur == id { s = $0; sub(/^find[ \t]+/, "", s); gsub(/[ \t]+/, "", s); print s }' scripts/exercises/bugs.txt
done >"$TMP/found.txt"
leak=$(for f in "$TMP"/bg/chapters/*/README*.md; do tr -d ' \t' <"$f" | shows_lines "${f#"$TMP/bg/"}: " "$TMP/found.txt"; done)
[ -z "$leak" ] && ok || bad "the bug tree's READMEs do not show the correct lines" "$(echo "$leak" | head -n 3)"

finish
