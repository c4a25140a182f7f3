#!/bin/sh
# test_similarity.sh — make similarity on a small class (level 2, chapter 2: the
# blanks scale, qk_variance, entropy). bob and carol answer independently, in
# different styles; dave hands in bob's answers with every name changed, the
# layout redone and the comments moved; a student whose folder is named
# "solution" (an ordinary name) pastes the teacher's code; erin hands the
# handout back. Asserts: dave-bob is listed and scores above every other pair of
# each blank (the teacher's pairs too), the pasted code shows as a copy of
# 'teacher/solution', the one-line blank 'scale' is marked trivial and not compared,
# erin and a folder whose name is not data are not compared, nothing is compiled
# or run (an answer that would print if run is only read), the CSV is well formed,
# and every bad input is one sentence with exit 2 and no report written.
# The answers are read as text only: they need not compile.
. tests/lib.sh
suite test_similarity

SIMT=$BUILD/similarity
[ -x "$SIMT" ] || { echo "FAIL: $SIMT is not built (make $SIMT)"; _failed=1; finish; exit 1; }
C=$TMP/class
mkdir -p "$C"
gen() { sh scripts/exercises/generate.sh "$1" "$2" 1,2 >/dev/null 2>&1 || { _failed=$((_failed + 1)); echo "FAIL: generate $1"; }; }
gen "$TMP/handout" 2
gen "$TMP/solution" 0
S2=chapters/02_scaling/scaling.c
S1=chapters/01_dot_product/dot_product.c
student() { cp -R "$TMP/$2" "$C/$1"; }
# put TEXT in place of the stub of blank NAME in FILE (a handout file)
fill() { # FILE NAME TEXT
    awk -v nm="$2" -v txt="$3" '
        index($0, "/* TODO exercise '\''" nm "'\''") { skip = 1; next }
        skip && index($0, "exercise_missing(\"" nm "\"") { print txt; skip = 0; next }
        skip { next }
        { print }' "$1" >"$1.new" && mv "$1.new" "$1"
}
SCALE='    scores = t_div_scalar(scores, sqrtf((float)t_size(query, -1)));'

student bob handout
fill "$C/bob/$S2" scale "$SCALE"
fill "$C/bob/$S2" qk_variance '    Tensor *a = t_randn(SHAPE(n_pairs, d_k));
    Tensor *b = t_randn(SHAPE(n_pairs, d_k));
    Tensor *prod = t_mul(a, b);           /* elementwise */
    Tensor *sums = t_sum_last(prod);      /* one dot product per pair */
    float root = sqrtf((float)d_k);
    s.var_unscaled = t_var_all(sums);
    Tensor *scaled = t_div_scalar(sums, root);
    s.var_scaled = t_var_all(scaled);'
fill "$C/bob/$S2" entropy '    float *dst = t_data(h);
    int64_t total = t_numel(weights), idx = 0;
    while (idx < total) {
        float w = t_flat_get(weights, idx);
        dst[idx] = w > 0.0f ? -w * logf(w) : (w == 0.0f ? 0.0f : (w < 0.0f ? -INFINITY : w));
        idx++;
    }'

# dave: bob's answers, renamed, reformatted, comments moved and added
student dave handout
fill "$C/dave/$S2" scale '    scores = t_div_scalar( scores,sqrtf( (float) t_size(query,-1) ) );'
fill "$C/dave/$S2" qk_variance '    // my own work
    Tensor *x1 = t_randn(SHAPE(n_pairs,d_k)); Tensor *x2 = t_randn(SHAPE(n_pairs,d_k));
    Tensor *pp =
        t_mul(x1, x2);
    Tensor *ss = t_sum_last(pp); /* dots */ float sq = sqrtf((float) d_k);
    s.var_unscaled = t_var_all(ss);
    Tensor *sc = t_div_scalar(ss, sq); s.var_scaled = t_var_all(sc);  // scaled'
fill "$C/dave/$S2" entropy '    /* entropy of every entry */
    float *o = t_data(h); int64_t N = t_numel(weights),
        j = 0;   // counter
    while (j < N)
    {
        float pr = t_flat_get(weights, j);  /* a weight */
        o[j] = pr > 0.0f ? -pr * logf(pr)
             : (pr == 0.0f ? 0.0f : (pr < 0.0f ? -INFINITY : pr));
        j++;
    }'

# carol: her own answers, another style
student carol handout
fill "$C/carol/$S2" scale '    scores = t_mul_scalar(scores, 1.0f / sqrtf((float)t_size(query, -1)));'
fill "$C/carol/$S2" qk_variance '    Tensor *dots = t_zeros(SHAPE(n_pairs));
    Tensor *q = t_randn(SHAPE(n_pairs, d_k));
    Tensor *k = t_randn(SHAPE(n_pairs, d_k));
    for (int64_t i = 0; i < n_pairs; i++) {
        float acc = 0.0f;
        for (int64_t j = 0; j < d_k; j++) acc += t_get2(q, i, j) * t_get2(k, i, j);
        t_data(dots)[i] = acc;
    }
    s.var_unscaled = t_var_all(dots);
    s.var_scaled = s.var_unscaled / (double)d_k;
    if (0) printf("carol-ran\n");'
fill "$C/carol/$S2" entropy '    int64_t count = t_numel(weights);
    for (int64_t j = count - 1; j >= 0; --j) {
        double v = (double)t_flat_get(weights, j);
        double r;
        if (v != v) r = v;
        else if (v < 0.0) r = -INFINITY;
        else if (v == 0.0) r = 0.0;
        else r = -v * log(v);
        t_data(h)[j] = (float)r;
    }'

student solution solution
student erin handout
nl='
'
mkdir -p "$C/bad${nl}name"

OUTD=$TMP/report
run env SIMILARITY_OUT="$OUTD" BUILD="$BUILD" sh scripts/exercises/similarity.sh "$C" 2 2
expect_status 0 "make similarity on the class"
expect_out_contains "similarity: " "prints a summary"
expect_out_contains "not compared: " "the folder whose name is not data is said to be left out"
CSV=$OUTD/similarity.csv
expect_file "$CSV" "writes similarity.csv"
expect_file "$OUTD/similarity.txt" "writes similarity.txt beside it"
[ -f "$CSV" ] || : >"$CSV"
if [ "$(head -n 1 "$CSV")" = "student_a,student_b,blank,score,kind" ]; then _ok; else _bad "similarity.csv header"; fi
# every row: 5 fields, a score in 0..1 or (trivial) none
if awk -F, 'NR > 1 && !(NF == 5 && (($5 == "pair" && $4 ~ /^[01]\.[0-9][0-9][0-9]$/ && $4 <= 1) || ($5 == "trivial" && $4 == ""))) { bad = 1 }
    END { exit bad }' "$CSV"; then _ok; else _bad "similarity.csv rows are well formed"; fi
score() { awk -F, -v a="$1" -v b="$2" -v bl="$3" '$5 == "pair" && $3 == bl && (($1 == a && $2 == b) || ($1 == b && $2 == a)) { print $4; f = 1 }
    END { if (!f) print "none" }' "$CSV"; }
# the planted copy ranks above every other pair, blank by blank (but the pasted solution, a copy too)
for bl in qk_variance entropy; do
    cp=$(score bob dave $bl)
    if [ "$cp" != none ] && awk -F, -v bl="$bl" -v cp="$cp" '$1 == "solution" && $2 == "teacher/solution" { next }
        $5 == "pair" && $3 == bl && !(($1 == "bob" && $2 == "dave") || ($1 == "dave" && $2 == "bob")) && $4 + 0 >= cp + 0 { bad = 1 }
        END { exit bad }' "$CSV"; then _ok
    else _bad "$bl: bob-dave ($cp) is not above every other pair: $(grep ",$bl," "$CSV" | tr '\n' ' ')"; fi
done
# ... also with the threshold at 0 (every pair listed): above every pair but the pasted solution's
run env SIMILARITY_OUT="$OUTD/all" SIMILARITY_THRESHOLD=0 BUILD="$BUILD" sh scripts/exercises/similarity.sh "$C" 2 2
expect_status 0 "threshold 0"
for bl in qk_variance entropy; do
    if awk -F, -v bl="$bl" '$5 == "pair" && $3 == bl { n++; if ($1 $2 == "bobdave" || $1 $2 == "davebob") cp = $4; else if ($1 $2 != "solutionteacher/solution") o[n] = $4 }
        END { if (cp == "" || n < 10) exit 1; for (i in o) if (o[i] + 0 >= cp + 0) exit 1 }' "$OUTD/all/similarity.csv"; then _ok
    else _bad "$bl with every pair: bob-dave not first: $(grep ",$bl," "$OUTD/all/similarity.csv" | tr '\n' ' ')"; fi
done
# independent answers written differently score low
for bl in qk_variance entropy; do
    sc=$(awk -F, -v bl="$bl" '$3 == bl && (($1 == "bob" && $2 == "carol") || ($1 == "carol" && $2 == "bob")) { print $4 }' "$OUTD/all/similarity.csv")
    if [ -n "$sc" ] && awk -v s="$sc" 'BEGIN { exit !(s < 0.3) }'; then _ok; else _bad "$bl: bob-carol scores $sc (want < 0.3)"; fi
done
# the pasted solution
for bl in qk_variance entropy; do
    if [ "$(score solution teacher/solution $bl)" = 1.000 ] && grep -q "^solution,teacher/solution,$bl,1.000,pair$" "$CSV"; then _ok
    else _bad "$bl: the pasted answer of the student 'solution' is not shown as solution,teacher/solution,1.000"; fi
done
# the trivial blank
if grep -q '^,,scale,,trivial$' "$CSV" && ! grep -q ',scale,[0-9]' "$CSV"; then _ok; else _bad "scale is not marked trivial"; fi
# erin (handout) and the bad folder are in no pair
if ! grep -q 'erin' "$OUTD/all/similarity.csv" && ! grep -q 'bad' "$OUTD/all/similarity.csv"; then _ok; else _bad "empty answers or a bad folder are compared"; fi
# the report says what a score does not mean
if grep -q 'never proof' "$OUTD/similarity.txt" && grep -q '^trivial, not compared: scale$' "$OUTD/similarity.txt"; then _ok
else _bad "similarity.txt lacks the reading notes or the trivial blank"; fi
# nothing was run
if ! grep -rq 'carol-ran' "$TMP/out" "$TMP/err"; then _ok; else _bad "a student's code ran"; fi

# ---- after the preprocessor: copies hidden in a helper or a macro (chapters 1 and 2) ----
# frank hands in bob's entropy moved into a static helper of his own (declared
# first, defined after the function, padded with ';' and parentheses), gina bob's
# qk_variance inside a macro of hers; hugo and ivan answer naive_softmax (a 2-line
# reference) in 12 lines, ivan's a copy of hugo's with the names changed; carol
# writes her own naive_softmax. Each copy must score as a plain copy does:
# listed, and above every pair of independent answers of its blank.
C2=$TMP/class2
mkdir -p "$C2"
cp -R "$C/bob" "$C/carol" "$C2/"
student2() { cp -R "$TMP/$2" "$C2/$1"; }
student2 frank handout
fill "$C2/frank/$S2" entropy '    ent_fill(h, weights);;'
awk '/^Tensor \*attention_entropy/ && !d { print "static void ent_fill(Tensor *h, const Tensor *weights);"; d = 1 } { print }' \
    "$C2/frank/$S2" >"$C2/frank/$S2.new" && mv "$C2/frank/$S2.new" "$C2/frank/$S2"
cat >>"$C2/frank/$S2" <<'EOF2'

static void ent_fill(Tensor *h, const Tensor *weights) {
    float *dst = t_data(h);;
    int64_t total = (t_numel(weights)), idx = (0);
    while ((idx < total)) {
        float w = (t_flat_get(weights, idx));
        dst[idx] = ((w > 0.0f) ? (-w * logf(w)) : (w == 0.0f ? 0.0f : (w < 0.0f ? -INFINITY : w)));;
        idx++;
    }
}
EOF2
student2 gina handout
fill "$C2/gina/$S2" qk_variance '    QK_SAMPLE(s, n_pairs, d_k)'
awk '/^ScalingStats measure_scaling/ && !d { print "#define QK_SAMPLE(st, n, d) \\\n    Tensor *a = t_randn(SHAPE(n, d)); \\\n    Tensor *b = t_randn(SHAPE(n, d)); \\\n    Tensor *prod = t_mul(a, b); \\\n    Tensor *sums = t_sum_last(prod); \\\n    float root = sqrtf((float)d); \\\n    st.var_unscaled = t_var_all(sums); \\\n    Tensor *scaled = t_div_scalar(sums, root); \\\n    st.var_scaled = t_var_all(scaled);"; d = 1 } { print }' \
    "$C2/gina/$S2" >"$C2/gina/$S2.new" && mv "$C2/gina/$S2.new" "$C2/gina/$S2"
NAIVE='    Tensor *out = t_zeros(t_shape(scores));
    int64_t cols = t_size(scores, -1);
    int64_t rows = t_numel(scores) / cols;
    for (int64_t r = 0; r < rows; r++) {
        double total = 0.0;
        for (int64_t c = 0; c < cols; c++) total += exp((double)t_flat_get(scores, r * cols + c));
        for (int64_t c = 0; c < cols; c++) {
            double v = exp((double)t_flat_get(scores, r * cols + c)) / total;
            t_data(out)[r * cols + c] = (float)v;
        }
    }
    return out;'
student2 hugo handout
fill "$C2/hugo/$S1" naive_softmax "$NAIVE"
student2 ivan handout
fill "$C2/ivan/$S1" naive_softmax "$(printf '%s\n' "$NAIVE" | sed -e 's/\bout\b/res/g' -e 's/\bcols\b/n/g' -e 's/\brows\b/m/g' -e 's/\btotal\b/z/g')"
fill "$C2/carol/$S1" naive_softmax '    Tensor *e = t_exp(scores);
    Tensor *sums = t_sum_last(e);
    Tensor *denominators = t_unsqueeze(sums, -1);
    Tensor *w = t_div(e, denominators);
    return w;'
# folders named like another: "bob " (a trailing space), "hugo." and "hug\xd0\xbe" (a Cyrillic o)
student2 "bob " handout
student2 hugo. handout
student2 "hug$(printf '\320\276')" handout
# jack's file holds a macro that doubles forty times: the preprocessor stops at its
# output limit and his file is compared as written, said so
student2 jack handout
{ echo '#define A0 x x'; i=1; while [ $i -le 40 ]; do echo "#define A$i A$((i - 1)) A$((i - 1))"; i=$((i + 1)); done
  echo 'int bomb = A40;'; } >>"$C2/jack/$S1"
run env SIMILARITY_OUT="$TMP/report2" SIMILARITY_THRESHOLD=0 BUILD="$BUILD" sh scripts/exercises/similarity.sh "$C2" 2 1,2
expect_status 0 "make similarity on the class of hidden copies"
[ -n "${SIM_SHOW:-}" ] && cat "$TMP/report2/similarity.csv" "$TMP/report2/similarity.txt" >&2
CSV2=$TMP/report2/similarity.csv
[ -f "$CSV2" ] || : >"$CSV2"
score2() { awk -F, -v a="$1" -v b="$2" -v bl="$3" '$5 == "pair" && $3 == bl && (($1 == a && $2 == b) || ($1 == b && $2 == a)) { print $4; f = 1 }
    END { if (!f) print "none" }' "$CSV2"; }
# COPY-A COPY-B BLANK WHY: the pair is scored at least 0.5 and above every other pair of the blank
above_all() {
    cp=$(score2 "$1" "$2" "$3")
    if [ "$cp" != none ] && awk -v c="$cp" 'BEGIN { exit !(c >= 0.5) }' && awk -F, -v a="$1" -v b="$2" -v bl="$3" -v cp="$cp" '
        $5 == "pair" && $3 == bl && !(($1 == a && $2 == b) || ($1 == b && $2 == a)) && $4 + 0 >= cp + 0 { bad = 1 } END { exit bad }' "$CSV2"
    then _ok; else _bad "$4: $1-$2 ($cp) is not a copy above every other pair: $(grep ",$3," "$CSV2" | tr '\n' ' ')"; fi
}
above_all bob frank entropy "a copy moved into a static helper"
above_all bob gina qk_variance "a copy inside a macro"
above_all hugo ivan naive_softmax "a 12-line answer to a 2-line blank, copied"
if grep -qx "look-alike folder name: 'bob ' differs from 'bob' only by trailing spaces or dots or letters that look alike; check that they are different students" "$TMP/report2/similarity.txt" &&
    grep -q "^look-alike folder name: 'hugo' differs from 'hugo.', 'hug\\\\xd0\\\\xbe' only by" "$TMP/report2/similarity.txt" &&
    [ "$(grep -c '^look-alike folder name' "$TMP/report2/similarity.txt")" = 5 ] && grep -q "^look-alike folder name: 'bob '" "$TMP/out"; then _ok
else _bad "look-alike folder names are flagged, escaped, in the report and on the terminal" "$(cat "$TMP/report2/similarity.txt")"; fi
grep -q "^compared as written, not preprocessed: jack's $S1" "$TMP/report2/similarity.txt" && _ok ||
    _bad "a macro bomb stops the preprocessor at its limit and is said so" "$(cat "$TMP/report2/similarity.txt")"
# an independent pair stays low
for p in "bob carol entropy" "bob carol qk_variance" "carol frank entropy" "carol gina qk_variance" "carol hugo naive_softmax"; do
    set -- $p
    sc=$(score2 "$1" "$2" "$3")
    if [ "$sc" != none ] && awk -v s="$sc" 'BEGIN { exit !(s < 0.3) }'; then _ok; else _bad "$3: independent $1-$2 scores $sc (want < 0.3)"; fi
done
# naive_softmax is not trivial when the answers are long; listed at the default threshold
run env SIMILARITY_OUT="$TMP/report3" BUILD="$BUILD" sh scripts/exercises/similarity.sh "$C2" 2 1,2
if grep -q '^hugo,ivan,naive_softmax,[01]\.[0-9]*,pair$' "$TMP/report3/similarity.csv" && ! grep -q ',naive_softmax,,trivial' "$TMP/report3/similarity.csv"; then _ok
else _bad "the copied 12-line naive_softmax is reported (not trivial)" "$(cat "$TMP/report3/similarity.csv")"; fi

# the preprocessor opens no file a student names: similarity ppsafe keeps macros and
# conditionals only, takes '##' out and every way to spell a directive or a file test
cat >"$TMP/hostile.c" <<'EOF2'
#include "/etc/passwd"
  # include <stdio.h>
%:include "x.h"
??=include "y.h"
#\
include "z.h"
# /* c */ include "w.h"
/* lead */ #include "v.h"
#import "u.h"
#include_next "t.h"
#pragma GCC dependency "/etc/shadow"
#line 5 "f"
# 7 "g"
#error no /* open
comment */ int after_it;
#define P(a,b) a ## b
#define Q(a,b) a %:%: b
#if __has_include("/etc/passwd") || __has_include_next(<x.h>)
#endif
_Pragma("GCC dependency \"/etc/shadow\"")
int x = P(_Pra, gma)("message");
#define KEEP 1
#if KEEP
char *s = "## _Pragma";
#endif
EOF2
"$SIMT" ppsafe "$TMP/hostile.c" "$TMP/safe.c"
if [ "$(grep -c '' "$TMP/safe.c")" = "$(grep -c '' "$TMP/hostile.c")" ] &&
    [ "$(grep -Ec '^[[:space:]]*(#|%:)' "$TMP/safe.c")" = 7 ] &&
    ! grep -Ev -e '^[[:space:]]*#[[:space:]]*(define|if|endif)' -e '^char \*s = ' "$TMP/safe.c" | grep -Eq '#|%:|_Pragma|__has_include|include|import|pragma|line|error' &&
    grep -q '^comment \*/ int after_it;$' "$TMP/safe.c" && grep -q '^#define P(a,b) a   b$' "$TMP/safe.c" &&
    grep -qF 'char *s = "## _Pragma";' "$TMP/safe.c"; then _ok
else _bad "similarity ppsafe leaves a directive, a paste or a file test, or loses a line" "$(cat "$TMP/safe.c")"; fi

# counts in the singular for 1: one student, and the tool on one blank with one pair
mkdir -p "$TMP/one"
cp -R "$C/bob" "$TMP/one/bob"
run env SIMILARITY_OUT="$TMP/rep1" BUILD="$BUILD" sh scripts/exercises/similarity.sh "$TMP/one" 2 2
expect_status 0 "make similarity on a class of one"
if grep -q ': 1 student$' "$TMP/rep1/similarity.txt" 2>/dev/null; then _ok; else
    _bad "a class of one: the report says '$(head -n 1 "$TMP/rep1/similarity.txt" 2>&1)', not ': 1 student'"; fi
printf 'entropy\tteacher/solution\t%s\nentropy\tbob\t%s\n' "$TMP/solution/$S2" "$C/bob/$S2" >"$TMP/list1.tsv"
run "$SIMT" compare "$TMP/list1.tsv" "$TMP/o1.csv" 5 4 0 1
expect_status 0 "the tool on one blank and two answers"
if [ "$(cat "$TMP/out")" = "similarity: 1 pair at or above 0.00, 1 blank, 0 trivial" ]; then _ok; else
    _bad "one pair of one blank: '$(cat "$TMP/out")', not 'similarity: 1 pair at or above 0.00, 1 blank, 0 trivial'"; fi
printf 'entropy\tteacher/solution\t%s\nentropy\tbob\t%s\nscale\tteacher/solution\t%s\n' \
    "$TMP/solution/$S2" "$C/bob/$S2" "$TMP/solution/$S2" >"$TMP/list2.tsv"
run "$SIMT" compare "$TMP/list2.tsv" "$TMP/o2.csv" 5 4 0 1
if [ "$(cat "$TMP/out")" = "similarity: 1 pair at or above 0.00, 2 blanks, 0 trivial" ]; then _ok; else
    _bad "one pair of two blanks: '$(cat "$TMP/out")', not 'similarity: 1 pair at or above 0.00, 2 blanks, 0 trivial'"; fi

# bad input: one sentence, exit 2, no report
mkdir -p "$TMP/none"
for case in "give the folder|" "is not a folder|$TMP/missing 2" "LEVEL=4|$C 4" "give the LEVEL|$C" "no subfolders|$TMP/none 2" \
    "not a chapter number|$C 2 x"; do
    want=${case%%|*}
    args=${case#*|}
    rm -rf "$TMP/rep2"
    # shellcheck disable=SC2086
    run env SIMILARITY_OUT="$TMP/rep2" BUILD="$BUILD" sh scripts/exercises/similarity.sh $args
    expect_usage_error "$want" "refuses: $want"
    expect_no_file "$TMP/rep2/similarity.csv" "no report for: $want"
done
run env SIMILARITY_OUT="$TMP/rep2" SIMILARITY_THRESHOLD=2 BUILD="$BUILD" sh scripts/exercises/similarity.sh "$C" 2 2
expect_usage_error "SIMILARITY_THRESHOLD" "refuses a threshold above 1"
run env SIMILARITY_OUT="$TMP/rep2" SIMILARITY_K=x BUILD="$BUILD" sh scripts/exercises/similarity.sh "$C" 2 2
expect_usage_error "SIMILARITY_K" "refuses a k that is not a number"
run env SIMILARITY_OUT="$TMP/rep2" GRADE_SOURCE_BYTES=0 BUILD="$BUILD" sh scripts/exercises/similarity.sh "$C" 2 2
expect_usage_error "GRADE_SOURCE_BYTES=0: give a whole number from 1" "refuses a largest file of 0 bytes"
expect_no_file "$TMP/rep2/similarity.csv" "no report for a bad knob"
# the tool alone: usage, a list it cannot read, a bad k, a list line without its three fields
run "$SIMT" nonsense
expect_usage_error "usage: similarity" "the tool's usage"
run "$SIMT" compare "$TMP/nolist" "$TMP/o.csv" 5 4 0.5 30
expect_runtime_error "cannot read" "a list that cannot be read"
printf 'a\tb\t%s\n' "$TMP/nolist" >"$TMP/list.tsv"
run "$SIMT" compare "$TMP/list.tsv" "$TMP/o.csv" 0 4 0.5 30
expect_usage_error "SIMILARITY_K=0" "a k of 0"
run "$SIMT" compare "$TMP/list.tsv" "$TMP/o.csv" 5 4 1.5 30
expect_usage_error "SIMILARITY_THRESHOLD=1.5" "a threshold above 1"
printf 'only one field\n' >"$TMP/list.tsv"
run "$SIMT" compare "$TMP/list.tsv" "$TMP/o.csv" 5 4 0.5 30
expect_runtime_error "is not blank<TAB>student<TAB>file" "a malformed list line"
expect_no_file "$TMP/o.csv" "no CSV after a failure"
run "$SIMT" ppsafe "$TMP/nolist" "$TMP/o.c"
expect_runtime_error "cannot read" "ppsafe: a file that cannot be read"
run "$SIMT" ppsafe "$TMP/hostile.c" "$TMP/no-such-folder/o.c"
expect_runtime_error "cannot write" "ppsafe: an output that cannot be written"
finish
