#!/bin/sh
# sample_class.sh OUT [N] — a made-up class of N (default 20) level-1
# submissions of chapters 1-7, to try make grade-class and time it:
#
#     sh scripts/exercises/sample_class.sh build/sample-class 20
#     time make grade-class SUBMISSIONS=build/sample-class LEVEL=1 JOBS=2
#
# Every answer is the solution plus a no-op statement, so none is identical
# to the teacher's code and every one is compiled and tested (the slow
# case). Every 4th student divides the scores by d_k instead of sqrt(d_k)
# (loses 'scale'); every 5th hands chapter 6 back untouched (loses
# 'dropout_scale' and 'dropout_keep').
. scripts/exercises/lib.sh
ex_check_root
OUT=${1:-}
N=${2:-20}
case $OUT in "" | . | / | ..) die "sample_class.sh: give a new folder, e.g. build/sample-class" ;; esac
rm -rf "$OUT"
mkdir -p "$OUT" || exit 1
sh "$EX_DIR/generate.sh" "$OUT/.handout" 1 >/dev/null || exit 1
list_blanks >"$OUT/.blanks.tsv" || exit 1
i=1
while [ "$i" -le "$N" ]; do
    d=$OUT/s$(printf %02d "$i")
    cp -R "$OUT/.handout" "$d"
    for f in $(concept_files); do
        [ "$(chapter_num "$(chapter_nn "$f")")" -le "$DEFAULT_LAST_CHAPTER" ] || continue
        $AWK -F '\t' -v f="$f" '$3 == f && $2 == 1 { found = 1 } END { exit !found }' "$OUT/.blanks.tsv" || continue
        # the BEGIN line of each level-1 blank (list_blanks: name level path line ...) becomes the no-op
        $AWK -v f="$f" 'FILENAME == ARGV[1] { split($0, b, "\t"); if (b[3] == f && b[2] == 1) noop[b[4]] = 1; next }
              FNR in noop { print "    (void)0;"; next }
              /BEGIN BLANK/ || /END BLANK/ { next }
              { print }' "$OUT/.blanks.tsv" "$f" >"$d/$f"
    done
    if [ $((i % 4)) -eq 0 ]; then
        sed 's|scores = t_div_scalar(scores, sqrtf((float)d_k));|scores = t_div_scalar(scores, (float)d_k);|' \
            "$d/chapters/02_scaling/scaling.c" >"$d/x.c" && mv "$d/x.c" "$d/chapters/02_scaling/scaling.c"
    fi
    [ $((i % 5)) -eq 0 ] && cp "$OUT/.handout/chapters/06_dropout/dropout.c" "$d/chapters/06_dropout/dropout.c"
    i=$((i + 1))
done
rm -rf "$OUT/.handout" "$OUT/.blanks.tsv"
echo "sample class: $N students in $OUT"
