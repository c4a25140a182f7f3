#!/bin/sh
# bugs.sh OUT [BUGS] — make bugs: a bug-hunt tree (易错点).
#
# OUT gets the solution tree (no blanks, no markers) with one realistic
# mistake injected into each chapter's concept code, from
# scripts/exercises/bugs.txt: the first bug listed for each chapter, or the
# ids given in BUGS (comma-separated). The teacher's key is written beside
# the tree, OUT.ANSWERS.md (never inside what is handed out); README code
# blocks that show a correct line the student must find are left out;
# OUT/README-BUGS.md tells the student what to do.
. scripts/exercises/lib.sh
ex_check_root

OUT=${1:-bugs}
SEL=$(echo "${2:-}" | tr ',' ' ')
BT=$EX_DIR/bugs.txt

case $OUT in
    "" | . | ./ | / | .. | ../*) die "refusing to write the bug-hunt tree into '$OUT'" ;;
esac
if [ -e "$OUT" ]; then
    [ -f "$OUT/README-BUGS.md" ] || [ -z "$(ls -A "$OUT" 2>/dev/null)" ] ||
        die "$OUT exists and was not written by make bugs (no README-BUGS.md): remove it or choose another place"
fi

TMPL=$(mktemp) || exit 1
trap 'rm -f "$TMPL" "$TMPL.r" "$TMPL.new"' EXIT INT TERM
$AWK -f "$EX_DIR/bugs.awk" -v mode=list "$BT" >"$TMPL" || exit 2
if [ -z "$SEL" ]; then
    SEL=$($AWK -F '\t' '!($2 in seen) { seen[$2] = 1; print $1 }' "$TMPL")
else
    for id in $SEL; do
        cut -f1 "$TMPL" | grep -qx "$id" || die "BUGS: no bug named '$id' in $BT (known: $(cut -f1 "$TMPL" | tr '\n' ' '))"
    done
fi

OUT=${OUT%/}
KEY=$OUT.ANSWERS.md
rm -rf "$OUT"
write_tree "$OUT" 0 ""
: >"$TMPL.r"
n=0
chs=
for id in $SEL; do
    file=$($AWK -F '\t' -v id="$id" '$1 == id { print $3 }' "$TMPL")
    ch=$($AWK -F '\t' -v id="$id" '$1 == id { print $2 }' "$TMPL")
    $AWK -f "$EX_DIR/bugs.awk" -v mode=apply -v id="$id" -v report="$TMPL.r" "$BT" "$OUT/$file" >"$TMPL.new" ||
        die "make bugs: bug '$id' does not apply to $file (see above)"
    cp "$TMPL.new" "$OUT/$file"
    n=$((n + 1))
    chs="$chs${chs:+, }$ch"
done

{
    cat <<EOF2
# Bug hunt: the teacher's key

Do not hand this file out (it is written beside the tree, not in it).

The tree has $n mistakes, one per chapter ($chs), injected by \`make bugs\`
from \`scripts/exercises/bugs.txt\`. Each one makes \`make test-chapterN\` of
its chapter fail (\`make check-exercises\` proves it).

EOF2
    for id in $SEL; do
        lines=$($AWK -F '\t' -v id="$id" '$1 == id { print $2 }' "$TMPL.r")
        $AWK -f "$EX_DIR/bugs.awk" -v mode=answer -v id="$id" -v lines="$lines" "$BT"
    done
} >"$KEY"

# the READMEs must not show the correct lines the student hunts for
$AWK -v sel=" $(echo $SEL) " '
    $1 == "bug" { cur = $2; next }
    $1 == "find" && index(sel, " " cur " ") {
        s = $0; sub(/^find[ \t]+/, "", s)
        gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", s)   # comments, as readme.awk drops them from the README
        gsub(/[ \t]+/, "", s); if (length(s) >= 8) print s }' "$BT" >"$TMPL.sol"
for f in "$OUT"/README*.md "$OUT"/chapters/*/README*.md; do
    [ -f "$f" ] || continue
    $AWK -v for_=bugs -f "$EX_DIR/readme.awk" "$TMPL.sol" "$f" >"$TMPL.new" && cp "$TMPL.new" "$f"
done
rm -f "$TMPL.sol"

cat >"$OUT/README-BUGS.md" <<EOF2
# Bug hunt (易错点)

Each of the chapters $chs has **one** mistake in its concept code (the .c file
beside main.c): a mistake that people really make when they write attention
in PyTorch, carried over to C. The code compiles; the tests of the chapter
fail.

1. \`make test-chapterN\` shows which tests fail and how (a wrong value, NaN,
   a shape error).
2. \`make chapterN\` narrates the chapter; \`build/chapterN --help\` lists the
   flags (\`--dump DIR\` writes the intermediate tensors).
3. Read the chapter's code next to the PyTorch line quoted in its comments.
   Find the line that does not do what the comment says, and fix it with
   the smallest change.

Work in chapter order, starting with the lowest: later chapters call the
earlier ones (chapter 7 uses 3, 4, 5 and 6), so a bug in chapter 3 also
makes the tests of chapters 4 to 7 fail. \`make test-chapterN\` builds and
tests chapters 0 to N only, so once chapters 1..N are fixed it ends in
\`0 failed\` whatever is still wrong in later chapters. Write down, for
each bug, what the symptom was and why the fix is right.
EOF2

echo "bugs: wrote $OUT/ with $n bugs (chapters $chs); the teacher's key is $KEY (outside the tree)"
