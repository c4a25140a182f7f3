#!/bin/sh
# test_layout.sh — the house rules of the source tree (README "Layout"), checked:
#   1. common/torch.h reaches only the torch: no header of common/program/;
#   2. no file of common/ (the torch) includes common/program/ (the furniture);
#   3. no include circle between the modules (x.c + x.h) of common/ and common/program/;
#   4. concept code (chapters/NN_x/*.c|h but main.c, zh.c, *_setup.*, *_bench.*, *_mpi.*) reaches
#      no header of common/program/: flags, narration, files and timing live in main.c,
#      *_setup.c, *_bench.c and zh.c (the narration in Chinese);
#   5. no code under common/ knows a chapter (a comment may say where a concept is taught);
#   6. no function under common/ and chapters/ is 150 lines or more, no main 120 or more;
#   7. no line of chapter code is longer than 120 columns outside its string literals;
#   8. no exercise marker line (BEGIN BLANK / END BLANK) under chapters/ is longer than
#      80 columns: a blank's level, hints and the rest live in its chapter's blanks.txt.
# Each check runs on a tree given as its argument; the last part plants a tree that
# breaks each rule and expects the check to say so (the checks can fail).
. tests/lib.sh
suite test_layout

LAYOUT=tests/layout
MAX_FUNCTION=150
MAX_MAIN=120
MAX_COLUMNS=120
MAX_MARKER=80

# include lines of the C files of ROOT's FOLDERS... (paths relative to ROOT)
include_lines() { # ROOT FOLDERS...
    (cd "$1" && shift && find "$@" -name '*.[ch]' 2>/dev/null | sort | xargs grep -H '^[ 	]*#[ 	]*include[ 	]*"' 2>/dev/null)
}

# prints what is wrong with ROOT, one line per problem, for check N
problems() { # N ROOT
    _root=$2
    case $1 in
    1)  include_lines "$_root" common chapters >"$TMP/inc"
        (cd "$_root" && awk -v from=common/torch.h -f "$OLDPWD/$LAYOUT/includes.awk" "$TMP/inc") |
            grep '^common/program/' | sed 's/^/torch.h reaches /' ;;
    2)  (cd "$_root" && grep -l '^[ 	]*#[ 	]*include[ 	]*"\(common/\)\?program/' common/*.[ch] 2>/dev/null) |
            sed 's/$/ includes common\/program\//' ;;
    3)  include_lines "$_root" common >"$TMP/inc"
        (cd "$_root" && awk -v cycles=1 -v modules=1 -f "$OLDPWD/$LAYOUT/includes.awk" "$TMP/inc") |
            sed 's/^/include circle: /' ;;
    4)  include_lines "$_root" common chapters >"$TMP/inc"
        for _f in $(cd "$_root" && ls chapters/[0-9][0-9]_*/*.[ch] 2>/dev/null); do
            case $_f in */main.c | */zh.c | *_setup.[ch] | *_bench.[ch] | *_mpi.[ch]) continue ;; esac
            _r=$(cd "$_root" && awk -v from="$_f" -f "$OLDPWD/$LAYOUT/includes.awk" "$TMP/inc" | grep '^common/program/' | head -n 1)
            [ -n "$_r" ] && echo "$_f reaches $_r"
        done ;;
    5)  (cd "$_root" && find common -name '*.[ch]' | sort | xargs awk -v nostrings=1 -f "$OLDPWD/$LAYOUT/code_only.awk") |
            grep -E '\b(chapters?|ch[0-9]+)\b' | sed 's/^/knows a chapter: /'
        (cd "$_root" && find common -name '*.[ch]' | sort | xargs awk -f "$OLDPWD/$LAYOUT/code_only.awk") |
            grep -E 'chapters/' | sed 's/^/names a chapter folder: /' ;;
    6)  (cd "$_root" && find common chapters -name '*.c' | sort | xargs awk -f "$OLDPWD/$LAYOUT/funclen.awk") |
            awk -v f="$MAX_FUNCTION" -v m="$MAX_MAIN" '$1 >= f || ($3 == "main" && $1 >= m) { print $2 " " $3 ": " $1 " lines" }' ;;
    7)  (cd "$_root" && find chapters -name '*.[ch]' | sort | xargs awk -v max="$MAX_COLUMNS" -f "$OLDPWD/$LAYOUT/long_lines.awk") ;;
    8)  (cd "$_root" && find chapters -type f -name '*.[ch]' | sort | xargs awk -v max="$MAX_MARKER" '
            /BEGIN BLANK|END BLANK/ {
                w = 0   # columns, a tab to the next multiple of 8
                for (i = 1; i <= length($0); i++) w = substr($0, i, 1) == "\t" ? w - w % 8 + 8 : w + 1
                if (w > max) print FILENAME ":" FNR ": a marker line of " w " columns (at most " max ")"
            }' /dev/null) ;;
    esac
}

check() { # N DESC
    _said=$(problems "$1" .)
    if [ -z "$_said" ]; then _ok; else status=1; _cmd="layout check $1"; : >"$TMP/err"; _bad "$2: $_said"; fi
}

status=0
check 1 "torch.h includes only the torch"
check 2 "common/ never includes common/program/"
check 3 "no include circle in common/"
check 4 "concept code includes no program furniture"
check 5 "common/ knows no chapter"
check 6 "functions under $MAX_FUNCTION lines, mains under $MAX_MAIN"
check 7 "chapter lines within $MAX_COLUMNS columns outside string literals"

# the .npy reader and writer stays small: it reads what numpy writes, not all of Python
npy_lines=$(grep -c '' common/npy.c)
if [ "$npy_lines" -lt 500 ]; then _ok; else _cmd="wc -l common/npy.c"; : >"$TMP/err"
    _bad "common/npy.c has $npy_lines lines; it must stay under 500 (read what numpy writes, refuse the rest)"; fi
check 8 "exercise marker lines of at most $MAX_MARKER columns"

# ---- each check finds a planted break -----------------------------------------------
P=$TMP/planted
mkdir -p "$P/common/program" "$P/chapters/01_x"
printf '#include "error.h"\n#include "tensor.h"\n' >"$P/common/torch.h"
printf '#include "common/program/cli.h"\n' >"$P/common/error.h"                    # 1 and 2
printf '#include "common/tensor.h"\n' >"$P/common/program/cli.h"
printf '#include "budget.h"\n' >"$P/common/tensor.c"                               # 3: tensor <-> budget
printf '#include "tensor.h"\n' >"$P/common/budget.c"
printf '' >"$P/common/tensor.h"
printf '' >"$P/common/budget.h"
printf '#include "common/torch.h"\n' >"$P/chapters/01_x/x.h"                       # 4: through error.h
printf '#include "x.h"\n' >"$P/chapters/01_x/x.c"
printf '#include "common/program/cli.h"\n' >"$P/chapters/01_x/x_setup.h"           # allowed
printf 'void budget_check(int chapter) {\n    if (chapter == 4) return;\n}\n' >>"$P/common/budget.c"   # 5
{
    echo 'int main(void)'; echo '{'; i=0; while [ $i -lt 125 ]; do echo '    ;'; i=$((i + 1)); done; echo '}'
    echo 'static int long_one(int a) {'; i=0; while [ $i -lt 150 ]; do echo '    a++;'; i=$((i + 1)); done; echo '    return a;'; echo '}'
} >"$P/chapters/01_x/main.c"                                                         # 6
{
    printf '    puts("%s");\n' "$(printf '%0130d' 0)"                                   # 7: a long string is fine
    printf '    int x = 1; /* %s */\n' "$(printf '%0115d' 0)"                           # a long comment is not
} >"$P/chapters/01_x/y.c"
{                                                                                    # 8
    echo 'int f(int x) {'
    echo '    /* BEGIN BLANK short */'
    echo '        /* BEGIN BLANK the_name_of_a_blank_that_goes_on_and_on_well_past_the_edge */'
    echo '    return x;'
    printf '\t\t\t\t\t\t\t\t\t/* END BLANK */\n'
    echo '    /* END BLANK */'
    echo '}'
} >"$P/chapters/01_x/blanks.c"
for n in 1 2 3 4 5 6 7 8; do
    _said=$(problems "$n" "$P")
    if [ -n "$_said" ]; then _ok; else _cmd="layout check $n on a planted tree"; : >"$TMP/err"; _bad "check $n misses its planted break"; fi
done
_said=$(problems 4 "$P")
case $_said in *x_setup*) _cmd="layout check 4"; : >"$TMP/err"; _bad "a *_setup.h may include the furniture" ;; *) _ok ;; esac
_said=$(problems 6 "$P")
case $_said in *"main: 128 lines"*"long_one: 153 lines"* | *"long_one: 153 lines"*"main: 128 lines"*) _ok ;;
*) _cmd="layout check 6"; : >"$TMP/err"; _bad "check 6 measures the planted main (128) and long_one (153): $_said" ;; esac
_said=$(problems 7 "$P")
case $_said in "chapters/01_x/y.c:2: 136 columns") _ok ;;
*) _cmd="layout check 7"; : >"$TMP/err"; _bad "check 7 finds only the long comment (line 2, 136 columns): $_said" ;; esac
_said=$(problems 8 "$P")
case $_said in "chapters/01_x/blanks.c:3: a marker line of 84 columns (at most 80)
chapters/01_x/blanks.c:5: a marker line of 87 columns (at most 80)") _ok ;;
*) _cmd="layout check 8"; echo "$_said" >"$TMP/err"; _bad "check 8 measures the planted marker lines (84 columns; 9 tabs and 15 characters: 87)" ;; esac
finish
