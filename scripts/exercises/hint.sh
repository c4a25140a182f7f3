#!/bin/sh
# hint.sh [NAME] [TIER] — make hint BLANK=NAME [TIER=1|2|3]: a blank's hint
# and where it is (every blank when NAME is empty). Tier 1 (the default) is
# a nudge: what the concept is; tier 2 names the helpers to use; tier 3 is
# the PyTorch line the blank mirrors. No tier gives the C answer.
# In this repository the hints come from the blanks' metadata
# (chapters/NN_name/blanks.txt, through list_blanks); in a tree written by
# make exercises, which has this script but no other of scripts/exercises/,
# from its .exercise-manifest (the blanks handed out, where they are there).
# In Chinese when the first of LC_ALL, LC_MESSAGES and LANG that is set begins
# with zh (as the chapter programs choose): tiers 1 and 2 from hint_zh and
# helpers_zh, tier 3's PyTorch line as it is.
NAME=${1:-}
TIER=${2:-1}
ZH=0
for _v in "${LC_ALL:-}" "${LC_MESSAGES:-}" "${LANG:-}"; do
    [ -n "$_v" ] || continue
    case $_v in zh*) ZH=1 ;; esac
    break
done
case $TIER in
    1 | 2 | 3) ;;
    *)
        if [ "$ZH" = 1 ]; then
            echo "make hint：TIER=$TIER：提示的层级必须是 1（思路）、2（用哪些函数）或 3（对应的 PyTorch 代码）" >&2
        else
            echo "make hint: TIER=$TIER: the tier must be 1 (a nudge), 2 (which helpers) or 3 (the PyTorch line)" >&2
        fi
        exit 2 ;;
esac

if [ ! -f scripts/exercises/blank.awk ]; then
    if [ ! -f .exercise-manifest ]; then
        if [ "$ZH" = 1 ]; then echo "make hint：这里没有练习的空" >&2; else echo "make hint: no exercise blanks here" >&2; fi
        exit 1
    fi
    exec ${AWK:-awk} -F '\t' -v b="$NAME" -v tier="$TIER" -v zh="$ZH" '
        /^#/ { next }
        b == "" { printf (zh ? "%s（第 %s 级）：%s:%s\n" : "%s (level %s): %s:%s\n"), $1, $2, $3, $5; n++; next }
        $1 == b {
            h = tier == 2 ? $7 : tier == 3 ? $8 : $6
            if (zh && tier == 1 && $10 != "" && $10 != "-") h = $10
            if (zh && tier == 2 && $11 != "" && $11 != "-") h = $11
            if (h == "" || h == "-") h = zh ? "（没有第 " tier " 层的提示）" : "(no tier-" tier " hint)"
            if (zh)
                printf "%s（第 %s 级）：%s:%s\n    提示 %s/3（%s）：%s\n", $1, $2, $3, $5, tier,
                       (tier == 2 ? "用哪些函数" : tier == 3 ? "对应的 PyTorch 代码" : "思路"), h
            else
                printf "%s (level %s): %s:%s\n    hint %s of 3 (%s): %s\n", $1, $2, $3, $5, tier,
                       (tier == 2 ? "which helpers" : tier == 3 ? "the PyTorch line" : "the idea"), h
            if (tier < 3) printf (zh ? "    更多：make hint BLANK=%s TIER=%d\n" : "    more: make hint BLANK=%s TIER=%d\n"), $1, tier + 1
            n++
        }
        END { if (!n) { print (zh ? "make hint：没有名为 " b " 的空（make hint 会列出所有的空）" : "make hint: no blank named " b " (make hint lists them all)") > "/dev/stderr"; exit 1 } }' .exercise-manifest
fi

. scripts/exercises/lib.sh
ex_check_root
TMPL=$(mktemp) || exit 1
trap 'rm -f "$TMPL"' EXIT INT TERM
list_blanks >"$TMPL" || exit 2
if [ -z "$NAME" ]; then
    if [ "$ZH" = 1 ]; then
        $AWK -F '\t' '{ printf "%-30s 第 %s 级  %s:%s\n", $1, $2, $3, $4 }' "$TMPL"
        echo "make hint BLANK=名字 [TIER=1|2|3] 打印一个空的提示"
    else
        $AWK -F '\t' '{ printf "%-30s level %s  %s:%s\n", $1, $2, $3, $4 }' "$TMPL"
        echo "make hint BLANK=name [TIER=1|2|3] prints one blank's hint"
    fi
    exit 0
fi
$AWK -F '\t' -v b="$NAME" -v tier="$TIER" -v zh="$ZH" '
    $1 == b {
        n = $3; sub(/^chapters\//, "", n); sub(/_.*/, "", n); sub(/^0/, "", n)
        h = tier == 1 ? $6 : tier == 2 ? $9 : $10
        if (zh && tier == 1 && $13 != "" && $13 != "-") h = $13
        if (zh && tier == 2 && $14 != "" && $14 != "-") h = $14
        if (zh) {
            what = tier == 1 ? "思路" : tier == 2 ? "用哪些函数" : "对应的 PyTorch 代码"
            if (h == "-" || h == "") h = "（这个空没有第 " tier " 层的提示）"
            printf "%s（第 %s 级，%s 分，第 %s 章）：%s:%s%s\n    提示 %s/3（%s）：%s\n", $1, $2, $7, n, $3, $4,
                   ($5 == "-" ? "" : "，在空 " $5 " 之内"), tier, what, h
            if (tier < 3) printf "    更多：make hint BLANK=%s TIER=%d\n", $1, tier + 1
        } else {
            what = tier == 1 ? "the idea" : tier == 2 ? "which helpers" : "the PyTorch line"
            if (h == "-" || h == "") h = "(this blank has no tier-" tier " hint)"
            printf "%s (level %s, %s point%s, chapter %s): %s:%s%s\n    hint %s of 3 (%s): %s\n", $1, $2, $7,
                   ($7 == 1 ? "" : "s"), n, $3, $4,
                   ($5 == "-" ? "" : ", inside blank " $5), tier, what, h
            if (tier < 3) printf "    more: make hint BLANK=%s TIER=%d\n", $1, tier + 1
        }
        found = 1
    }
    END { exit found ? 0 : 1 }' "$TMPL" && exit 0
if [ "$ZH" = 1 ]; then echo "make hint：没有名为 '$NAME' 的空；所有的空是：" >&2
else echo "make hint: no blank named '$NAME'; the blanks are:" >&2; fi
cut -f1 "$TMPL" | tr '\n' ' ' | fold -s -w 78 | sed 's/^/    /' >&2
echo >&2
exit 1
