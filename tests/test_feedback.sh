#!/bin/sh
# test_feedback.sh — feedback that names the mistake (scripts/exercises/mistakes.txt).
#
# Every known mistake of the catalogue that a blank's answer can hold is handed in as
# that answer (the level-3 handout of its chapter, its file the solution with the
# mistake in it: four students, so that no two mistakes share a file) and graded
# with make grade-class, in English and in Chinese: the feedback of its blank must
# name the first wrong result of the hidden checks (its label) and give the
# mistake's own sentence from the catalogue, in the run's language, and no other
# mistake's. The bugs of bugs.txt that no blank holds are handed in as a bug hunt
# left as it was (make grade-bugs): its notes name each. A correct answer (the
# solution's other blanks) gets no diagnosis. gradetool compare itself: a constant
# factor, a transpose, a shifted and a mirrored mask, rows that do not sum to 1,
# heads in another order, NaN where the expected has none, and the expected numbers
# in other places are each said; an unrelated difference gets none of those.
# The student's code runs, so this needs the grader's sandbox (bubblewrap):
# without one the grading checks are counted as skipped.
. tests/lib.sh
suite test_feedback
grader_suite_only_once
ok() { _ok; }
bad() { _failed=$((_failed + 1)); printf 'FAIL: %s\n' "$1"; [ -n "${2:-}" ] && printf '      %s\n' "$2"; }

E=scripts/exercises
# ---- the catalogue's sentences name the idea, never the solution's code ------------
_leaks=$(awk -f tests/mistakes_no_solution.awk $E/mistakes.txt)
[ -z "$_leaks" ] && ok || bad "a mistake's feedback gives the teacher's solution" "$_leaks"
printf 'mistake  x\nfind     y = t_div_scalar(y, sqrtf((float)d_k)); /* c */\nreplace  y = t_div_scalar(y, (float)d_k);\n%s\n' \
    'en       Divide by sqrtf((float)d_k).' >"$TMP/leaky.txt"
case $(awk -f tests/mistakes_no_solution.awk "$TMP/leaky.txt") in
    *"x: its sentence gives the solution's 'sqrtf((float)d_k)'"*) ok ;;
    *) bad "mistakes_no_solution.awk finds a sentence that gives the solution's sqrtf(" ;;
esac
# ---- gradetool compare's relations, on crafted results ---------------------------
GT=$TMP/gradetool
${CC:-cc} -std=c99 -O2 $E/gradetool.c -lm -o "$GT" 2>"$TMP/gt.err" && ok || bad "gradetool.c builds" "$(cat "$TMP/gt.err")"
# res LABEL SHAPE VALUES...: a probe output of one result
res() {
    _l=$1 _s=$2
    shift 2
    echo "$_l shape $_s"
    _i=0
    for v; do echo "$_l $_i $v"; _i=$((_i + 1)); done
    echo "probe done"
}
said() { # WHY WANT-TEXT WANT GOT [LANG]
    res $3 >"$TMP/w"
    res $4 >"$TMP/g"
    _o=$("$GT" compare "$TMP/w" "$TMP/g" ${5:+$5 /dev/null})
    case $_o in *"$2"*) ok ;; *) bad "gradetool compare: $1" "$_o" ;; esac
}
said "a constant factor, named" "Every value is 0.25 = 1/4 = 1/sqrt(16) times the expected one." \
    "s (1,2,2) 1 2 3 4" "s (1,2,2) 0.25 0.5 0.75 1"
said "a whole factor, named once" "Every value is 4 = sqrt(16) times the expected one." \
    "s (1,2,2) 1 2 3 4" "s (1,2,2) 4 8 12 16"
said "the factor in Chinese" "每个值都是应有值的 0.25 = 1/4 = 1/√16 倍。" \
    "s (1,2,2) 1 2 3 4" "s (1,2,2) 0.25 0.5 0.75 1" zh
said "the first wrong result, where, side by side" "s (1, 2, 2) first differs at row 1, col 0 (batch 0), yours 9 4, expected 3 4." \
    "s (1,2,2) 1 2 3 4" "s (1,2,2) 1 2 9 4"
said "a transpose" "It is the transpose of the expected" "s (2,2) 1 2 3 4" "s (2,2) 1 3 2 4"
said "a transpose that changes the shape" "s has shape (1,3,2), expected (1,2,3). Its last two dims are swapped, as a transpose swaps them" \
    "s (1,2,3) 1 2 3 4 5 6" "s (1,3,2) 1 4 2 5 3 6"
said "a transpose that changes the shape, in Chinese" "。它的最后两维互换了，就像转置过一样" \
    "s (1,2,3) 1 2 3 4 5 6" "s (1,3,2) 1 4 2 5 3 6" zh
res s "(1,2,3)" 1 2 3 4 5 6 >"$TMP/w"
res s "(2,1,3)" 1 2 3 4 5 6 >"$TMP/g"
case $("$GT" compare "$TMP/w" "$TMP/g") in *swapped*) bad "gradetool compare: another shape is not called a transpose" ;; *) ok ;; esac
said "a mask shifted down" "Its mask is shifted 1 diagonal(s) down, so the diagonal is masked too." \
    "m (1,1,3,3) 0 -inf -inf 0 0 -inf 0 0 0" "m (1,1,3,3) -inf -inf -inf 0 -inf -inf 0 0 -inf"
said "a mirrored mask" "Its mask is mirrored, it hides the past instead of the future." \
    "m (1,1,3,3) 0 -inf -inf 0 0 -inf 0 0 0" "m (1,1,3,3) 0 0 0 -inf 0 0 -inf -inf 0"
said "columns that sum to 1" "Its columns sum to 1, not its rows" \
    "w (2,2) 0.25 0.75 0.5 0.5" "w (2,2) 0.333333 0.6 0.666667 0.4"
said "rows that do not sum to 1" "row 0 sums to 1.2" "w (2,3) 0.2 0.3 0.5 0.1 0.1 0.8" "w (2,3) 0.2 0.3 0.7 0.1 0.1 0.8"
said "heads in another order" "Its heads are in another order (head 0 holds the expected head 1)." \
    "o (1,2,1,2) 1 2 3 5" "o (1,2,1,2) 3 5 1 2"
said "NaN where the expected has none" "It holds NaN where the expected has none (1 of 4 values, first at row 0, col 0" \
    "w (1,2,2) 0.5 0.5 0.3 0.7" "w (1,2,2) nan 0.5 0.3 0.7"
said "the right numbers in other places" "It holds the expected numbers in other places" \
    "x (1,2,3) 1 2 3 4 5 6" "x (1,2,3) 1 4 2 5 3 6"
res x "(1,2,3)" 1 2 3 4 5 6 >"$TMP/w"
res x "(1,2,3)" 1 2 3 4 5 7.5 >"$TMP/g"
_o=$("$GT" compare "$TMP/w" "$TMP/g")
case $_o in *" It "* | *" Its "* | *"Every value"*) bad "gradetool compare: an unrelated difference gets no relation" "$_o" ;;
    *"first differs at row 1, col 2"*) ok ;; *) bad "gradetool compare: an unrelated difference is still placed" "$_o" ;; esac
# a catalogue entry equal to GOT is named; one that is not is not
printf 'known\t%s\tYou did the known thing.\t你做了那件事。\n' "$TMP/g" >"$TMP/cat.tsv"
_o=$("$GT" compare "$TMP/w" "$TMP/g" en "$TMP/cat.tsv")
case $_o in *"first differs"*" You did the known thing.") ok ;; *) bad "gradetool compare: a result equal to a known mistake's names it" "$_o" ;; esac
_o=$("$GT" compare "$TMP/w" "$TMP/g" zh "$TMP/cat.tsv")
case $_o in *"你做了那件事。") ok ;; *) bad "gradetool compare: and in Chinese" "$_o" ;; esac
res x "(1,2,3)" 1 2 3 4 5 6 >"$TMP/g2"
"$GT" compare "$TMP/w" "$TMP/g2" en "$TMP/cat.tsv" >"$TMP/o" && [ ! -s "$TMP/o" ] && ok || bad "gradetool compare: a correct result is correct, with a catalogue given" "$(cat "$TMP/o")"
res x "(1,2,3)" 1 2 3 4 5 9 >"$TMP/g3"
_o=$("$GT" compare "$TMP/w" "$TMP/g3" en "$TMP/cat.tsv")
case $_o in *"known"*) bad "gradetool compare: another wrong result is not the known mistake" "$_o" ;; *) ok ;; esac
"$GT" compare "$TMP/w" "$TMP/g3" fr "$TMP/cat.tsv" >/dev/null 2>"$TMP/err"; st=$?
[ "$st" -eq 2 ] && [ "$(grep -c '' "$TMP/err")" -eq 1 ] && ok || bad "gradetool compare: a language other than en or zh is one sentence, exit 2" "exit $st: $(cat "$TMP/err")"
# the catalogue itself is well formed (each record is checked against the code by make check-exercises)
awk -f $E/mistakes.awk -v mode=list $E/bugs.txt $E/mistakes.txt >"$TMP/mist.tsv" 2>"$TMP/err" && ok || bad "mistakes.txt reads" "$(cat "$TMP/err")"
_miss=$(for b in $(awk -f $E/bugs.awk -v mode=list $E/bugs.txt | cut -f1); do grep -q "^$b	" "$TMP/mist.tsv" || echo "$b"; done)
[ -z "$_miss" ] && ok || bad "every bug of bugs.txt is in mistakes.txt" "missing: $_miss"
# the mistakes docs/TEACHING.md promises to name: a forgotten 1/sqrt(d_k) in the level-1 blank
# 'scale', and chapter 4's Common mistake "Masking after softmax"
for m in scale-missing:scale mask-after-softmax:masked_attention_forward; do
    awk -F '\t' -v id="${m%%:*}" -v b="${m#*:}" '$1 == id && $3 == b { f = 1 } END { exit !f }' "$TMP/mist.tsv" ||
        echo "${m%%:*}"
done >"$TMP/o"
[ ! -s "$TMP/o" ] && ok || bad "mistakes.txt names the mistakes the teaching docs promise" "missing: $(cat "$TMP/o")"
printf 'mistake x\nbug no-such-bug\nblank -\nen a\nzh b\n' >"$TMP/badcat.txt"
awk -f $E/mistakes.awk -v mode=list $E/bugs.txt "$TMP/badcat.txt" >/dev/null 2>"$TMP/err"; st=$?
[ "$st" -eq 2 ] && grep -q "names bug 'no-such-bug'" "$TMP/err" && ok || bad "mistakes.awk: a record naming an unknown bug is one sentence, exit 2" "exit $st: $(cat "$TMP/err")"

# "Your line is ...": the first line of the answer that the solution does not have, never a
# comment, a brace or a no-op such as `(void)x;` (they name no mistake)
mkdir -p "$TMP/yl/orig" "$TMP/yl/s/x"
printf 'int f(void) {\n    return a * b;\n}\n' >"$TMP/yl/orig/f.c"
printf 'int f(void) {\n    /* mine */\n    (void)x;\n    {\n    ;\n    return a / b;\n}\n' >"$TMP/yl/s/x/blank.c"
_o=$(. $E/lib.sh; . $E/grade_lib.sh; RUN=$TMP/yl _s=$TMP/yl/s g_your_line blank f.c)
[ "$_o" = "return a / b;" ] && ok || bad "the student's line quoted is the first one that is not a comment, brace or no-op" "$_o"
printf 'int f(void) {\n    (void)x;\n    return a * b;\n}\n' >"$TMP/yl/s/x/blank.c"
_o=$(. $E/lib.sh; . $E/grade_lib.sh; RUN=$TMP/yl _s=$TMP/yl/s g_your_line blank f.c)
[ -z "$_o" ] && ok || bad "an answer whose only new line is a no-op quotes no line" "$_o"

# ---- make test-chapterN's failure message (tests/harness.c) ---------------------------
cat >"$TMP/h.c" <<'EOF'
#include "tests/harness.h"
static Tensor *want(void) { t_manual_seed(7); return t_randn(SHAPE(2, 3, 4)); }
static void test_factor(void) { CHECK_TENSOR_CLOSE(t_mul_scalar(want(), 0.25f), want(), 1e-5, 1e-6); }
static void test_transpose(void) {
    Tensor *w = t_randn(SHAPE(1, 2, 3, 3));
    CHECK_TENSOR_CLOSE(t_contiguous(t_transpose(w, -2, -1)), w, 1e-5, 1e-6);
}
static void test_nan(void) {
    Tensor *g = t_contiguous(want());
    t_data(g)[5] = NAN;
    CHECK_TENSOR_CLOSE(g, want(), 1e-5, 1e-6);
}
static void test_heads(void) {   /* (1, 2, 2, 2): the two heads swapped */
    Tensor *w = t_randn(SHAPE(1, 2, 2, 2)), *g = t_mul_scalar(w, 1.0f);
    float *d = t_data(g);
    for (int i = 0; i < 4; i++) { float x = d[i]; d[i] = d[i + 4]; d[i + 4] = x; }
    CHECK_TENSOR_CLOSE(g, w, 1e-5, 1e-6);
}
static void test_mask(void) {    /* a causal mask with the diagonal masked too */
    CHECK_TENSOR_CLOSE(t_triu(t_full(SHAPE(4, 4), -INFINITY), 0), t_triu(t_full(SHAPE(4, 4), -INFINITY), 1), 1e-5, 1e-6);
}
int main(void) {
    RUN(test_factor); RUN(test_transpose); RUN(test_nan); RUN(test_heads); RUN(test_mask);
    return harness_finish("h");
}
EOF
B=${BUILD:-build}
if ${CC:-cc} -std=c99 -I. "$TMP/h.c" "$B/obj/tests/harness.o" "$B/libattn.a" -lm -o "$TMP/h" 2>"$TMP/h.err"; then
    "$TMP/h" >"$TMP/h.out" 2>&1
    for want in "test_factor: t_mul_scalar(want(), 0.25f) (2, 3, 4) first differs at row 0, col 0 (batch 0), yours " \
        "(rtol 1e-05, atol 1e-06). Every value is 0.25 = 1/4 = 1/sqrt(16) times the expected one." \
        "test_transpose: t_contiguous(t_transpose(w, -2, -1)) (1, 2, 3, 3) first differs at row 0, col 1 (batch 0, head 0)" \
        "It is the transpose of the expected (rows and columns swapped)." \
        "test_nan: g (2, 3, 4) first differs at row 1, col 1 (batch 0), yours " "It holds NaN where the expected has none (1 of 24 values, first at row 1, col 1 (batch 0))." \
        "where it differs (. agrees, # differs, N is NaN):" "    ...." "    .N.." \
        "Its heads are in another order (head 0 holds the expected head 1)." \
        "test_mask: t_triu(t_full(SHAPE(4, 4), -INFINITY), 0) (4, 4) first differs at row 0, col 0, yours -inf -inf -inf, expected 0 -inf -inf" \
        "Its mask is shifted 1 diagonal(s) down, so the diagonal is masked too." "h: 0 passed, 5 failed"; do
        grep -qF -- "$want" "$TMP/h.out" && ok || bad "the tests' failure message says: $want" "$(cat "$TMP/h.out")"
    done
else
    bad "a test of the harness builds" "$(cat "$TMP/h.err")"
fi

# ---- in Chinese: the student's own sentence whole, then the verdict around it ------------
# (a shape message has the form "%s has shape %s, expected %s", whose last part could take
# the mistake's sentence and the verdict after it: the exact sentence is translated first)
_en='self_attention.output has shape (1, 1, 5), expected (1, 1, 4). Q, K and V were taken to be x itself, so the projections W_q, W_k, W_v are computed but never used. Pass xq, xk and xv to attention().'
_zh='self_attention.output 的形状是 (1, 1, 5)，应当是 (1, 1, 4)。你把 Q、K、V 都当成了 x 本身，W_q、W_k、W_v 的投影算了却没有用上。请把 xq、xk、xv 传给 attention()。'
printf '%s\t%s\n' "$_en" "$_zh" >"$TMP/zh.tsv"
printf 'self_attention_forward\t0\t3\ta hidden check on fresh random inputs fails: %s Your line is `a = attention(x, x, x);`. The tests of chapter 3 fail too, first test_projected_small.\n' "$_en" >"$TMP/result.tsv"
${AWK:-awk} -v table=$E/feedback_zh.txt -v exact="$TMP/zh.tsv" -f $E/translate.awk "$TMP/result.tsv" >"$TMP/result.zh" 2>&1
_want="self_attention_forward	0	3	在新的随机输入上，有一项隐藏检查没有通过：$_zh你写的这一行是 \`a = attention(x, x, x);\`。第 3 章的测试也没有通过，第一个是 test_projected_small。"
[ "$(cat "$TMP/result.zh")" = "$_want" ] && ok || bad "a shape message with the mistake's sentence, in Chinese, is Chinese throughout" "$(cat "$TMP/result.zh")"

# ---- graded as answers ---------------------------------------------------------------
NCHECKS=$(($(awk -F '\t' '$3 != "-"' "$TMP/mist.tsv" | grep -c '') + $(awk -F '\t' '$3 != "-" && !seen[$4]++' "$TMP/mist.tsv" | grep -c '') +
    $(awk -F '\t' '$3 == "-"' "$TMP/mist.tsv" | grep -c '') + 2))
if ! command -v bwrap >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1 ||
    ! bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev /bin/true >/dev/null 2>&1; then
    skip $NCHECKS "the answers run in the grader's sandbox, bubblewrap, which does not work here (apt-get install bubblewrap)"
    finish
    exit $?
fi
CHS=$(awk -F '\t' '$3 != "-" { print $2 }' "$TMP/mist.tsv" | sort -un | tr '\n' ',' | sed 's/,$//')
sh $E/generate.sh "$TMP/hand" 3 "$CHS" >/dev/null 2>"$TMP/err" || bad "the level-3 handout of chapters $CHS" "$(cat "$TMP/err")"
sh $E/generate.sh "$TMP/sol" 0 "$CHS" >/dev/null 2>"$TMP/err" || bad "the solution of chapters $CHS" "$(cat "$TMP/err")"
awk -f $E/mistakes.awk -v mode=bugs $E/bugs.txt $E/mistakes.txt >"$TMP/records.txt"
C=$TMP/class
mkdir -p "$C"
# student sK holds the K-th mistake of each file (so no two of one student share a file)
awk -F '\t' '$3 != "-" { k = ++n[$4]; print "s" k "\t" $0 }' "$TMP/mist.tsv" >"$TMP/plan.tsv"
while IFS='	' read -r s id ch bl file en zh; do
    [ -d "$C/$s" ] || cp -R "$TMP/hand" "$C/$s"
    awk -f $E/bugs.awk -v mode=apply -v id="$id" "$TMP/records.txt" "$TMP/sol/$file" >"$C/$s/$file" ||
        bad "mistake $id applies to the solution's $file" ""
done <"$TMP/plan.tsv"
# in English every student; in Chinese s1 (one mistake of each file: the Chinese of every
# record is also checked by make check-exercises, through gradetool compare)
mkdir -p "$TMP/class_zh" && cp -R "$C/s1" "$TMP/class_zh/s1"
for lang in en zh; do
    rm -rf "$TMP/out_$lang"
    if [ $lang = en ]; then _c=$C; else _c=$TMP/class_zh; fi
    # (a fixed seed for each language, so that the hidden inputs are the same on every run:
    # in Chinese, qkv-are-x's first wrong result is a shape and scale-by-dk's a number)
    if [ $lang = en ]; then _seed=20261206; else _seed=20261216; fi
    GRADE_SEED=$_seed GRADE_LANG=$lang GRADE_OUT=$TMP/out_$lang JOBS=2 sh $E/grade_class.sh "$_c" 3 "$CHS" >"$TMP/grade_$lang.log" 2>&1 ||
        bad "make grade-class of the mistakes ($lang)" "$(tail -n 5 "$TMP/grade_$lang.log")"
    while IFS='	' read -r s id ch bl file en zh; do
        [ $lang = en ] || [ "$s" = s1 ] || continue
        if [ $lang = en ]; then text=$en; else text=$zh; fi
        # (the row of its blank, or of the level-3 blank around it)
        row=$(grep -F -- "$text" "$TMP/out_$lang/feedback/$s.txt" 2>/dev/null)
        others=$(awk -F '\t' -v id="$id" -v lang=$lang '$1 != id { print (lang == "en" ? $5 : $6) }' "$TMP/mist.tsv" |
            while IFS= read -r t; do case $row in *"$t"*) echo "$t" ;; esac; done)
        if [ -z "$row" ]; then bad "$id ($lang): the feedback names the mistake" "$(cat "$TMP/out_$lang/feedback/$s.txt" 2>/dev/null)"
        elif [ -n "$others" ]; then bad "$id ($lang): named as another mistake too" "$row"
        elif printf '%s\n' "$row" | grep -q -e '[a-z_][.a-z_0-9]* \(([0-9, ]*) \)\{0,1\}first differs at' -e '[a-z_][.a-z_0-9]* \(([0-9, ]*) \)\{0,1\}最先在' \
            -e '[a-z_][.a-z_0-9]*: raised the error "' -e '[a-z_][.a-z_0-9]*：报错 "' \
            -e '[a-z_][.a-z_0-9]* has shape ([0-9, ]*), expected ([0-9, ]*)\. ' -e '[a-z_][.a-z_0-9]* 的形状是 ([0-9, ]*)，应当是 ([0-9, ]*)。'; then ok
        else bad "$id ($lang): the first wrong result is named" "$row"; fi
    done <"$TMP/plan.tsv"
done
# the solution's own answers in a file beside a mistake: correct, with no diagnosis
for b in dot_scores naive_softmax weighted_sum; do
    grep -q "^$b .* correct (hidden checks on fresh random inputs agree with the teacher's code)\$" "$TMP/out_en/feedback/s1.txt" || echo "$b"
done >"$TMP/o"
[ ! -s "$TMP/o" ] && ok || bad "a correct answer beside a mistake: correct, no diagnosis" "$(cat "$TMP/out_en/feedback/s1.txt")"
# the LMS's results carry the same text
_en=$(awk -F '\t' '$1 == "scale-by-dk" { print $5 }' "$TMP/mist.tsv")
_s=$(awk -F '\t' '$2 == "scale-by-dk" { print $1 }' "$TMP/plan.tsv")
grep -qF "$_en" "$TMP/out_en/gradescope/$_s.json" && grep -qF "$_en" "$TMP/out_en/prairielearn/$_s.json" && ok ||
    bad "Gradescope's and PrairieLearn's results.json carry the mistake's sentence" "$(head -c 600 "$TMP/out_en/gradescope/$_s.json")"

# the bugs no blank holds: a bug hunt handed back as it was names each
BUGS=$(awk -F '\t' '$3 == "-" { printf "%s%s", s, $1; s = "," }' "$TMP/mist.tsv")
sh $E/bugs.sh "$TMP/hunt_tree" "$BUGS" >/dev/null 2>"$TMP/err" || bad "make bugs BUGS=$BUGS" "$(cat "$TMP/err")"
mkdir -p "$TMP/hunt" && cp -R "$TMP/hunt_tree" "$TMP/hunt/left"
GRADE_SEED=20261206 GRADE_OUT=$TMP/out_bugs sh $E/grade_bugs.sh "$TMP/hunt" "$BUGS" >"$TMP/bugs.log" 2>&1 || bad "make grade-bugs of the left bugs" "$(tail -n 5 "$TMP/bugs.log")"
for id in $(echo "$BUGS" | tr ',' ' '); do
    _en=$(awk -F '\t' -v id="$id" '$1 == id { print $5 }' "$TMP/mist.tsv")
    grep "^left,[0-9]*,$id,no," "$TMP/out_bugs/bugs.csv" 2>/dev/null | grep -qF "$_en" && ok ||
        bad "a bug left in a hunt: its note names it ($id)" "$(grep ",$id," "$TMP/out_bugs/bugs.csv" 2>/dev/null)"
done
finish
