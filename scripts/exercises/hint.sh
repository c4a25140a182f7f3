#!/bin/sh
# hint.sh [NAME] [TIER] — make hint BLANK=NAME [TIER=1|2|3]: a blank's hint
# and where it is (every blank when NAME is empty). Tier 1 (the default) is
# a nudge: what the concept is; tier 2 names the helpers to use; tier 3 is
# the PyTorch line the blank mirrors. No tier gives the C answer.
. scripts/exercises/lib.sh
ex_check_root

NAME=${1:-}
TIER=${2:-1}
case $TIER in 1 | 2 | 3) ;; *) die "make hint: TIER=$TIER: the tier must be 1 (a nudge), 2 (which helpers) or 3 (the PyTorch line)" ;; esac
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
               $5 == "-" ? "" : ", inside blank " $5, tier, what, h
        if (tier < 3) printf "    more: make hint BLANK=%s TIER=%d\n", $1, tier + 1
        found = 1
    }
    END { exit found ? 0 : 1 }' "$TMPL" && exit 0
echo "make hint: no blank named '$NAME'; the blanks are:" >&2
cut -f1 "$TMPL" | tr '\n' ' ' | fold -s -w 78 | sed 's/^/    /' >&2
echo >&2
exit 1
