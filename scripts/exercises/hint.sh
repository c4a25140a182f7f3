#!/bin/sh
# hint.sh [NAME] — make hint BLANK=NAME: the hint of a blank and where it is
# (every blank when NAME is empty).
. scripts/exercises/lib.sh
ex_check_root

NAME=${1:-}
TMPL=$(mktemp) || exit 1
trap 'rm -f "$TMPL"' EXIT INT TERM
list_blanks >"$TMPL" || exit 2
if [ -z "$NAME" ]; then
    $AWK -F '\t' '{ printf "%-30s level %s  %s:%s\n", $1, $2, $3, $4 }' "$TMPL"
    echo "make hint BLANK=name prints one blank's hint"
    exit 0
fi
$AWK -F '\t' -v b="$NAME" '
    $1 == b {
        n = $3; sub(/^chapters\//, "", n); sub(/_.*/, "", n); sub(/^0/, "", n)
        printf "%s (level %s, chapter %s): %s:%s%s\n    %s\n", $1, $2, n, $3, $4,
               $5 == "-" ? "" : ", inside blank " $5, $6
        found = 1
    }
    END { exit found ? 0 : 1 }' "$TMPL" && exit 0
echo "make hint: no blank named '$NAME'; the blanks are:" >&2
cut -f1 "$TMPL" | tr '\n' ' ' | fold -s -w 78 | sed 's/^/    /' >&2
echo >&2
exit 1
