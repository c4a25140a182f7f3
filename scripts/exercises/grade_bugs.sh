#!/bin/sh
# grade_bugs.sh SUBMISSIONS [BUGS] — make grade-bugs: a bug hunt graded.
#
# Every immediate subfolder of SUBMISSIONS is one student's copy of the tree
# that make bugs wrote (named as make grade-class names them: gradetool list).
# BUGS names the bugs handed out, as make bugs took them (default: the first
# bug of each chapter in scripts/exercises/bugs.txt). For each student and
# each bug, the student's copy of the bug's file is
#   fixed   when it is judged like a blank (grade_lib.sh: the whole file compiled
#           in the compile sandbox, policy and instructions from the object,
#           linked with the teacher's other code and the hidden checks' probe,
#           run in the run sandbox): the grader compares the probe's numbers on
#           fresh random inputs with the teacher's, here, outside the sandbox.
#           The chapter's tests run only for the note of a file that is not
#           fixed (what they print never counts);
#   small   (for a fix; "-" otherwise) when at most GRADE_BUGS_MAX_LINES (default
#           3) lines differ between what the compiler sees of the handout's file
#           and of the student's (each in the compile sandbox: comments and what
#           an #if leaves out gone, macros not expanded, #include lines not read;
#           then one statement or brace a line; diff -b -B: layout inside a line
#           and blank lines do not count; a replaced line counts once:
#           max(lines removed, lines added)).
# Writes OUT/bugs.csv (student,chapter,bug,fixed,lines_changed,small,note; one
# row per student and bug; RFC 4180, cells guarded against formulas); OUT is
# GRADE_OUT, else build/grade/<name of SUBMISSIONS>. The last line is
# "bugs: S students, F of B fixes, M of them small".
. scripts/exercises/lib.sh
. scripts/exercises/grade_lib.sh
ex_check_root

SUBS=${1:-}
SEL=$(echo "${2:-}" | tr ',' ' ')
MAXL=${GRADE_BUGS_MAX_LINES:-3}
BT=$EX_DIR/bugs.txt

[ -n "$SUBS" ] || die "make grade-bugs: give the folder of submissions, e.g. make grade-bugs SUBMISSIONS=hunts"
[ -d "$SUBS" ] || die "make grade-bugs: SUBMISSIONS=$SUBS is not a folder"
case $MAXL in '' | *[!0-9]*) die "make grade-bugs: GRADE_BUGS_MAX_LINES=$MAXL: give a whole number of lines" ;; esac
g_check_limits "make grade-bugs"
GIVEN=$SUBS
SUBS=$(cd "$SUBS" && pwd)
OUT=${GRADE_OUT:-build/grade/$(basename "$SUBS" | tr -c 'A-Za-z0-9._\n-' _)}
mkdir -p "$OUT" 2>/dev/null && [ -w "$OUT" ] || die "make grade-bugs: cannot write into $OUT (GRADE_OUT)"

BL=$(mktemp) || exit 1
trap 'g_cgroup_cleanup; rm -rf "$BL" "${RUN:-/nonexistent}" "${G_STAGE:-/nonexistent}"' EXIT
trap 'exit 2' INT TERM
$AWK -f "$EX_DIR/bugs.awk" -v mode=list "$BT" >"$BL" || exit 2
if [ -z "$SEL" ]; then
    SEL=$($AWK -F '\t' '!($2 in seen) { seen[$2] = 1; print $1 }' "$BL")
else
    for id in $SEL; do
        cut -f1 "$BL" | grep -qx -- "$id" || die "make grade-bugs: BUGS: no bug named '$id' in $BT (known: $(cut -f1 "$BL" | tr '\n' ' '))"
    done
fi
CHL=
for id in $SEL; do
    ch=$($AWK -F '\t' -v id="$id" '$1 == id { print $2 }' "$BL")
    case " $CHL " in *" $ch "*) die "make grade-bugs: BUGS: two bugs of chapter $ch; a bug hunt has one per chapter" ;; esac
    CHL="$CHL $ch"
done

# the sandbox and the teacher's kit of make grade, for the chapters of the bugs
g_setup 3 "$(echo $CHL | tr ' ' ',')" || exit 2
"$G_TOOL" list "$SUBS" >"$RUN/students.tsv" || exit 2
S=$(grep -c '' "$RUN/students.tsv")
[ "$S" -gt 0 ] || die "make grade-bugs: $GIVEN has no subfolders (one per student)"
echo "grade-bugs: $S students in $GIVEN, bugs $(echo $SEL | tr ' ' ',')"

# what the compiler sees of a file (G_PREPROCESS), one statement or brace a line: so a
# rewrite written on one line counts its statements (linear in the text)
bug_stmts() { # FILE
    $AWK '{ gsub(/[;{}]/, "&\n"); print }' "$1" | $AWK '{ sub(/^[ \t]+/, ""); sub(/[ \t]+$/, "") } $0 != ""'
}

# the handout's file of each bug: the teacher's file without markers, the bug applied;
# and what the compiler sees of it (for the count of lines changed)
mkdir -p "$RUN/handout"
for id in $SEL; do
    f=$($AWK -F '\t' -v id="$id" '$1 == id { print $3 }' "$BL")
    $AWK -f "$EX_DIR/blank.awk" -v mode=stub -v level=0 -v path="$f" "$f" >"$RUN/handout/$id.sol" &&
        $AWK -f "$EX_DIR/bugs.awk" -v mode=apply -v id="$id" "$BT" "$RUN/handout/$id.sol" >"$RUN/handout/$id.c" ||
        die "make grade-bugs: bug '$id' does not apply to $f"
    # what the file may call: the tensor library, the short libc list, and what the teacher's object of it calls
    _stem=$(basename "$f" .c)
    { cat "$RUN/api.txt" "$EX_DIR/callable.txt" | grep -v '^#'
      $AWK -v m=":$_stem.o:" 'index($1, m) && $2 == "U" { print $3 }' "$RUN/full.nm"; } |
        grep '^[A-Za-z_]' | sort -u >"$RUN/allow/bug-$id.txt"
    _nn=$(printf '%02d' "$($AWK -F '\t' -v id="$id" '$1 == id { print $2 }' "$BL")")
    mkdir -p "$RUN/handout/$id.d"
    cp "$RUN/handout/$id.c" "$RUN/handout/$id.d/$_stem.c"
    g_tool "$RUN/handout/$id.i" compile "$RUN/handout/$id.d" "$G_PREPROCESS" "$(g_cflags "$_nn")" "$(dirname "$f")" "$_stem.c"
    [ "$(cat "$RUN/handout/$id.i.rc")" = 0 ] && [ "$(head -n 1 "$RUN/handout/$id.i")" != error ] ||
        die "make grade-bugs: the handout's file of bug '$id' does not preprocess: $(head -c 300 "$RUN/handout/$id.i")"
    bug_stmts "$RUN/handout/$id.i" >"$RUN/handout/$id.lines"
    # the hidden checks of its chapter, with the teacher's code (g_setup made those of
    # the chapters with blanks)
    if [ ! -s "$RUN/want/probe$_nn" ]; then
        g_run "$RUN/want/probe$_nn" "$G_TPROBE" probe "$(chapter_num "$_nn")" "$(g_probe_seed "$_nn")"
        [ "$(tail -n 1 "$RUN/want/probe$_nn")" = "probe done" ] ||
            die "make grade-bugs: bug '$id': chapter $(chapter_num "$_nn") has no hidden checks that run (scripts/exercises/probe.c)"
    fi
done

csvq() { # a cell as gradetool csv writes it (quotes; a leading = + - @ guarded)
    case $1 in [=+@-]*) _c="'$1" ;; *) _c=$1 ;; esac
    case $_c in *[,\"]* | "'"*) printf '"%s"' "$(printf '%s' "$_c" | sed 's/"/""/g')" ;; *) printf '%s' "$_c" ;; esac
}

# one bug of one student: sets b_fixed, b_lines, b_note
grade_bug() { # DIR K ID
    gb_d=$1 gb_k=$2 gb_id=$3
    gb_f=$($AWK -F '\t' -v id="$gb_id" '$1 == id { print $3 }' "$BL")
    _ch=$($AWK -F '\t' -v id="$gb_id" '$1 == id { print $2 }' "$BL")
    _nn=$(printf '%02d' "$_ch")
    b_fixed=no b_lines= b_note=
    _p=$gb_d
    for _c in $(echo "$gb_f" | tr '/' ' '); do
        _p=$_p/$_c
        [ -L "$_p" ] && { b_note="$gb_f is reached through a link; links are not followed"; return; }
    done
    [ -f "$gb_d/$gb_f" ] || { b_note="$gb_f is not in the tree"; return; }
    _w=$G_SBX/w/$gb_k/$gb_id
    mkdir -p "$_w/src" "$_w/obj"
    _stem=$(basename "$gb_f" .c)
    _why=$("$G_TOOL" normalize "$gb_d/$gb_f" "$_w/src/$_stem.c" "$GRADE_SOURCE_BYTES" 2>&1) ||
        { b_note="$gb_f could not be read (${_why:-unreadable})"; return; }
    # what the compiler sees, against the handout's (comments and #if 0 gone)
    g_tool "$_w/pp.out" compile "$_w/src" "$G_PREPROCESS" "$(g_cflags "$_nn")" "$(dirname "$gb_f")" "$_stem.c"
    if [ "$(cat "$_w/pp.out.rc")" = 0 ] && [ "$(head -n 1 "$_w/pp.out")" != error ]; then
        bug_stmts "$_w/pp.out" >"$_w/pp.lines"
        b_lines=$(diff -b -B "$RUN/handout/$gb_id.lines" "$_w/pp.lines" | $AWK '/^</ { r++ } /^>/ { a++ } END { print (r > a ? r : a) + 0 }')
    else
        b_lines=$(diff -b -B "$RUN/handout/$gb_id.c" "$_w/src/$_stem.c" | $AWK '/^</ { r++ } /^>/ { a++ } END { print (r > a ? r : a) + 0 }')
    fi
    g_tool "$_w/cc.out" compile "$_w/src" "$G_COMPILE" "$(g_cflags "$_nn")" "$(dirname "$gb_f")" "$_stem.c"
    if [ "$(head -c 4 "$_w/cc.out" | od -An -c | tr -d ' \n')" != '177ELF' ]; then
        b_note="does not compile: $(tail -n +2 "$_w/cc.out" >"$_w/cc.log"; g_clean "$(first_error "$_w/cc.log" | sed 's|/in/||g')")"
        return
    fi
    mv "$_w/cc.out" "$_w/obj/answer.o"
    _pol=$("$G_TOOL" policy "$_w/obj/answer.o" "$RUN/allow/bug-$gb_id.txt" "$(basename "$gb_f")" - "$gb_id" 2>&1)
    [ -n "$_pol" ] || _pol=$(g_insn_check "$_w/obj/answer.o")
    [ -z "$_pol" ] || { b_note="not accepted: $_pol"; return; }
    # judged like a blank: the probe, with the student's whole file in place of the teacher's
    g_tool "$_w/link.out" "link:$_stem" "$_w/obj" "$G_LINK" probe.o
    if [ "$(head -c 4 "$_w/link.out" | od -An -c | tr -d ' \n')" != '177ELF' ]; then
        if [ "$(head -n 1 "$_w/link.out")" = "link failed" ]; then
            tail -n +2 "$_w/link.out" >"$_w/ld.log"
            b_note="does not link: $(g_clean "$(first_error "$_w/ld.log" | sed -e 's|/in/||g' -e 's|/k/||g' -e 's|/w/||g')")"
        else
            b_note="could not be linked in the sandbox (time or memory limit)"
        fi
        return
    fi
    mv "$_w/link.out" "$_w/probe"
    chmod 0555 "$_w/probe"
    g_run "$_w/probe.txt" "$_w/probe" probe "$_ch" "$(g_probe_seed "$_nn")"
    # (and the known mistake of mistakes.txt it is, when the grader ran those: g_setup)
    if [ -f "$RUN/mist/cat$_nn.tsv" ]; then
        _d=$("$G_TOOL" compare "$RUN/want/probe$_nn" "$_w/probe.txt" en "$RUN/mist/cat$_nn.tsv")
    else
        _d=$("$G_TOOL" compare "$RUN/want/probe$_nn" "$_w/probe.txt")
    fi
    _st=$?
    [ "$_st" -le 1 ] || { b_note="not graded: the grader could not compare the hidden checks"; return; }
    if [ "$_st" -eq 0 ]; then
        b_fixed=yes b_note="hidden checks on fresh random inputs agree with the teacher's code"
        return
    fi
    case $(cat "$_w/probe.txt.rc") in 124 | 137) _d="$_d (stopped after ${GRADE_TIME} s)" ;; esac
    case $_d in *.) ;; *) _d="$_d." ;; esac
    b_note="a hidden check on fresh random inputs fails: $_d"
    # the chapter's tests, for the note only: the first failing check in words
    g_tool "$_w/tlink.out" "link:$_stem" "$_w/obj" "$G_LINK" "test_ch$_nn.o" harness.o
    [ "$(head -c 4 "$_w/tlink.out" | od -An -c | tr -d ' \n')" = '177ELF' ] || return
    mv "$_w/tlink.out" "$_w/tests"
    chmod 0555 "$_w/tests"
    g_run "$_w/test.out" "$_w/tests" tests
    _first=$(g_first_failure "$_w/test.out" | sed 's/:.*//')
    case $(cat "$_w/test.out.rc") in 124 | 137) _first="${_first:-did not finish} (stopped after ${GRADE_TIME} s)" ;; esac
    [ -z "$_first" ] || b_note="$b_note The tests of chapter $_ch fail too, first $_first."
}

printf 'student,chapter,bug,fixed,lines_changed,small,note\n' >"$RUN/bugs.csv"
NF=0 NS=0 NB=0 k=0
while IFS='	' read -r id st why; do
    k=$((k + 1))
    for bid in $SEL; do
        ch=$($AWK -F '\t' -v i="$bid" '$1 == i { print $2 }' "$BL")
        NB=$((NB + 1))
        if [ "$st" = ok ]; then
            grade_bug "$SUBS/$id" "$k" "$bid" </dev/null
        else
            b_fixed=no b_lines= b_note="not graded: $why"
        fi
        # (small says something only about a fix)
        small=-
        [ "$b_fixed" = yes ] && { small=no; [ "$b_lines" -le "$MAXL" ] && small=yes; }
        [ "$b_fixed" = yes ] && NF=$((NF + 1)) && [ "$small" = yes ] && NS=$((NS + 1))
        { csvq "$id"; printf ',%s,%s,%s,%s,%s,' "$ch" "$bid" "$b_fixed" "$b_lines" "$small"; csvq "$(g_clean "$b_note" 900)"; printf '\n'; } >>"$RUN/bugs.csv"
    done
done <"$RUN/students.tsv"
cp "$RUN/bugs.csv" "$OUT/bugs.csv.$$" && mv "$OUT/bugs.csv.$$" "$OUT/bugs.csv" ||
    { echo "make grade-bugs: cannot write $OUT/bugs.csv" >&2; exit 1; }
echo "bugs: $OUT/bugs.csv (small: at most $MAXL lines changed)"
echo "bugs: $S students, $NF of $NB fixes, $NS of them small"
