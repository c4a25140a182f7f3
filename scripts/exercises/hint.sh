#!/bin/sh
# hint.sh [NAME] [TIER] — make hint BLANK=NAME [TIER=1|2|3]: a blank's hint
# and where it is (every blank when NAME is empty). Tier 1 (the default) is
# a nudge: what the concept is; tier 2 names the helpers to use; tier 3 is
# the PyTorch line the blank mirrors. No tier gives the C answer.
# In this repository the hints come from the blanks' metadata
# (chapters/NN_name/blanks.txt, through list_blanks); in a tree written by
# make exercises, which has this script but no other of scripts/exercises/,
# from its .exercise-manifest (the blanks handed out, where they are there).
NAME=${1:-}
TIER=${2:-1}
case $TIER in
    1 | 2 | 3) ;;
    *)
        echo "make hint: TIER=$TIER: the tier must be 1 (a nudge), 2 (which helpers) or 3 (the PyTorch line)" >&2
        exit 2 ;;
esac

if [ ! -f scripts/exercises/blank.awk ]; then
    [ -f .exercise-manifest ] || { echo "make hint: no exercise blanks here" >&2; exit 1; }
    exec ${AWK:-awk} -F '\t' -v b="$NAME" -v tier="$TIER" '
        /^#/ { next }
        b == "" { printf "%s (level %s): %s:%s\n", $1, $2, $3, $5; n++; next }
        $1 == b {
            h = tier == 2 ? $7 : tier == 3 ? $8 : $6
            if (h == "" || h == "-") h = "(no tier-" tier " hint)"
            printf "%s (level %s): %s:%s\n    hint %s of 3 (%s): %s\n", $1, $2, $3, $5, tier,
                   (tier == 2 ? "which helpers" : tier == 3 ? "the PyTorch line" : "the idea"), h
            if (tier < 3) printf "    more: make hint BLANK=%s TIER=%d\n", $1, tier + 1
            n++
        }
        END { if (!n) { print "make hint: no blank named " b " (make hint lists them all)" > "/dev/stderr"; exit 1 } }' .exercise-manifest
fi

. scripts/exercises/lib.sh
ex_check_root
TMPL=$(mktemp) || exit 1
trap 'rm -f "$TMPL"' EXIT INT TERM
list_blanks >"$TMPL" || exit 2
if [ -z "$NAME" ]; then
    $AWK -F '\t' '{ printf "%-30s level %s  %s:%s\n", $1, $2, $3, $4 }' "$TMPL"
    echo "make hint BLANK=name [TIER=1|2|3] prints one blank's hint"
    exit 0
fi
$AWK -F '\t' -v b="$NAME" -v tier="$TIER" '
    $1 == b {
        n = $3; sub(/^chapters\//, "", n); sub(/_.*/, "", n); sub(/^0/, "", n)
        h = tier == 1 ? $6 : tier == 2 ? $9 : $10
        what = tier == 1 ? "the idea" : tier == 2 ? "which helpers" : "the PyTorch line"
        if (h == "-" || h == "") h = "(this blank has no tier-" tier " hint)"
        printf "%s (level %s, %s points, chapter %s): %s:%s%s\n    hint %s of 3 (%s): %s\n", $1, $2, $7, n, $3, $4,
               ($5 == "-" ? "" : ", inside blank " $5), tier, what, h
        if (tier < 3) printf "    more: make hint BLANK=%s TIER=%d\n", $1, tier + 1
        found = 1
    }
    END { exit found ? 0 : 1 }' "$TMPL" && exit 0
echo "make hint: no blank named '$NAME'; the blanks are:" >&2
cut -f1 "$TMPL" | tr '\n' ' ' | fold -s -w 78 | sed 's/^/    /' >&2
echo >&2
exit 1
