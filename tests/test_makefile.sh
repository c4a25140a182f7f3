#!/bin/sh
# test_makefile.sh — the Makefile keeps to GNU Make 3.81, the make that macOS's command
# line tools install as /usr/bin/make. Two checks:
#
# 1. None of the features later versions added appears in it outside comments (their
#    version from GNU Make's NEWS): undefine, private, define with an operator,
#    .ONESHELL, .RECIPEPREFIX, .SHELLFLAGS, --eval (3.82); VAR != cmd, ::=, $(file ...),
#    $(guile ...), --output-sync, --trace (4.0); MAKE_TERMOUT and MAKE_TERMERR (4.1);
#    .SHELLSTATUS (4.2); grouped targets a b &: c, .EXTRA_PREREQS (4.3); $(let ...),
#    $(intcmp ...), :::=, .NOTINTERMEDIATE, .WAIT, --shuffle (4.4). The scan is run on a
#    file holding each of them too, so it is known to find them.
# 2. With GNU Make 3.81 at hand (MAKE_381=its path, or make-3.81 on PATH), the plan it
#    makes for a whole build (make -n -B all, in a fresh build folder) is the plan of
#    $MAKE (default: make), command for command (sorted: -j may order them otherwise).
#    3.81 picks the first pattern rule that matches where later versions pick the one
#    with the shortest stem, and sorts $(wildcard): a different plan shows either.
#    Skipped by name without it: no system ships 3.81 but macOS.
. tests/lib.sh
suite test_makefile
: >"$TMP/err" # (no program runs here: a failure names what was compared)
status=0

# scan FILE: one line per later feature found in FILE outside comments, "VERSION: what"
scan() {
    # the lines as make reads them: comments and recipe lines (a tab first) apart, as
    # their shell may say != or &: (recipes are checked for make's own options only)
    awk '
        function found(v, what) { print v ": " what " (line " NR ")" }
        { line = $0; sub(/(^|[^\\])#.*/, "", line) }
        /^\t/ {
            if (line ~ /\$[({]MAKE[)}]/ && line ~ /--eval/) found("3.82", "make --eval")
            if (line ~ /\$[({]MAKE[)}]/ && line ~ /--output-sync|--trace/) found("4.0", "make --output-sync or --trace")
            if (line ~ /\$[({]MAKE[)}]/ && line ~ /--shuffle/) found("4.4", "make --shuffle")
        }
        !/^\t/ {
            if (line ~ /^[ \t]*((override|export)[ \t]+)*undefine[ \t]/) found("3.82", "undefine")
            if (line ~ /(^|[ \t:])private[ \t]/) found("3.82", "private")
            if (line ~ /^[ \t]*((override|export)[ \t]+)*define[ \t]+[^ \t]+[ \t]*(:?:?=|\+=|\?=|!=)/) found("3.82", "define with an operator")
            if (line ~ /\.ONESHELL|\.RECIPEPREFIX|\.SHELLFLAGS/) found("3.82", ".ONESHELL, .RECIPEPREFIX or .SHELLFLAGS")
            if (line ~ /^[ \t]*((override|export)[ \t]+)*[A-Za-z_.][A-Za-z0-9_.-]*[ \t]*!=/) found("4.0", "VAR != command")
            if (line ~ /:::=/) found("4.4", ":::=")
            else if (line ~ /::=/) found("4.0", "::=")
            if (line ~ /&:/) found("4.3", "grouped targets (&:)")
            if (line ~ /\.EXTRA_PREREQS/) found("4.3", ".EXTRA_PREREQS")
            if (line ~ /\.NOTINTERMEDIATE|\.WAIT/) found("4.4", ".NOTINTERMEDIATE or .WAIT")
        }
        {
            if (line ~ /\$[({](file|guile)[ \t]/) found("4.0", "$(file ...) or $(guile ...)")
            if (line ~ /MAKE_TERMOUT|MAKE_TERMERR/) found("4.1", "MAKE_TERMOUT or MAKE_TERMERR")
            if (line ~ /\.SHELLSTATUS/) found("4.2", ".SHELLSTATUS")
            if (line ~ /\$[({](let|intcmp)[ \t]/) found("4.4", "$(let ...) or $(intcmp ...)")
        }' "$1"
}

_cmd="scan Makefile"
later=$(scan Makefile)
if [ -z "$later" ]; then _ok; else _bad "the Makefile uses what GNU Make 3.81 does not have: $later"; fi

# the scan finds each feature (one per line), and not its look-alikes in a recipe
# or a comment, nor the 3.81 features next to them
tab=$(printf '\t')
cat >"$TMP/later.mk" <<EOF
undefine X
a: private Y = 1
define Z :=
endef
.ONESHELL:
V != date
W ::= 1
U :::= 1
x \$(file >out,text)
a b &: c
x.o: .WAIT y.o
all:
${tab}\$(MAKE) --output-sync=target all
EOF
cat >"$TMP/fine.mk" <<EOF
# undefine X, V != date, a b &: c, \$(file >x)
define CHAPTER_RULES
endef
V := \$(lastword \$(abspath a b))
ifeq (\$(V),)
else ifeq (\$(V),a)
endif
all: | order-only
${tab}[ "\$\$x" != y ] && echo a &: ; cmd ::= x
EOF
_cmd="scan later.mk, then fine.mk"
n=$(scan "$TMP/later.mk" | wc -l)
if [ "$n" -eq 11 ]; then _ok; else _bad "the scan found $n of the 11 later features in a file of them: $(scan "$TMP/later.mk")"; fi
fine=$(scan "$TMP/fine.mk")
if [ -z "$fine" ]; then _ok; else _bad "the scan flags what GNU Make 3.81 has, or what a recipe or comment says: $fine"; fi

# 2. the real make 3.81, when there is one
m381=${MAKE_381:-$(command -v make-3.81 2>/dev/null)}
if [ -n "$m381" ] && "$m381" --version 2>/dev/null | head -n 1 | grep -q '^GNU Make 3\.81$'; then
    plan() { # MAKE: its plan for a whole build in a fresh folder, sorted
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$1" -n -B --no-print-directory BUILD="$TMP/plan" all 2>&1 | sed "s|$TMP/plan|BUILD|g" | LC_ALL=C sort
    }
    _cmd="${MAKE:-make} and $m381: -n -B all"
    plan "${MAKE:-make}" >"$TMP/plan.now"
    plan "$m381" >"$TMP/plan.381"
    if [ -s "$TMP/plan.now" ] && cmp -s "$TMP/plan.now" "$TMP/plan.381"; then
        _ok
    else
        _bad "GNU Make 3.81's plan for make all is not this make's: $(diff "$TMP/plan.now" "$TMP/plan.381" | head -n 8)"
    fi
else
    skip 1 "GNU Make 3.81 is not on this machine (MAKE_381=its path runs the check)"
fi
finish
