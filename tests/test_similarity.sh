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
gen() { sh scripts/exercises/generate.sh "$1" "$2" 2 >/dev/null 2>&1 || { _failed=$((_failed + 1)); echo "FAIL: generate $1"; }; }
gen "$TMP/handout" 2
gen "$TMP/solution" 0
S2=chapters/02_scaling/scaling.c
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
finish
