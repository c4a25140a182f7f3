#!/bin/sh
# check.sh — make check-exercises: prove that every blank is caught.
#
#   1. the solution tree (all markers stripped) builds and its chapter tests pass;
#   2. for each blank alone stubbed, the owning chapter's C tests fail (the
#      test binary reports failed > 0; a stub that does not compile under
#      the strict flags with $CC, or with the other of gcc/clang, is missed);
#   3. the trees of every level (1, 2, 3: every blank stubbed) build with
#      both compilers, each chapter with blanks fails its tests, and the
#      handout's make test ends (with failures) within HANDOUT_TEST_SECONDS
#      (default 900): nothing in it waits forever on a chapter that stops at
#      its blank;
#   and each bug of bugs.txt, injected alone, makes its chapter's tests fail;
#   5. per blank, the grader's own hidden checks (probe.c, compared by gradetool
#      as make grade does) change their verdict when the blank is stubbed and
#      when it is answered wrong in a plausible way (its code taken out: the
#      first of "(void)0;", "return NULL;", "return 0;", an empty Attention or
#      ScalingStats that compiles in place of the stub's exercise_missing());
#   6. each known mistake of mistakes.txt, injected alone, is recognised by
#      gradetool compare as itself and no other, in en and zh; the solution and a
#      random wrong answer are recognised as none.
# The last line is exactly "exercises: B blanks, C caught, M missed"; the
# exit status is non-zero when anything above fails.
# Work happens in build/exercise-check/ (kept between runs, so a second run
# rebuilds only what changed).
. scripts/exercises/lib.sh
ex_check_root
ex_jobs

W=build/exercise-check
T=$W/tree
HANDOUT_TEST_SECONDS=${HANDOUT_TEST_SECONDS:-900}
STAGE=$W/stage
LOG=$W/make.log
mkdir -p "$W"
: >"$LOG"
problems=0

if ! list_blanks >"$W/blanks.tsv"; then
    echo "exercises: 0 blanks, 0 caught, 0 missed"
    exit 2
fi
B=$(grep -c '' "$W/blanks.tsv")
CHS=$(chapters_with_blanks "$W/blanks.tsv")

# The other compiler: clang when CC is gcc, gcc when CC is clang.
if $CC --version 2>/dev/null | grep -qi clang; then OTHER=gcc; else OTHER=clang; fi
command -v "$OTHER" >/dev/null 2>&1 || OTHER=
STRICT="-std=c99 -Wall -Wextra -Wpedantic -Werror -Wvla -O2"

# ---- the solution tree -------------------------------------------------------
# a snapshot of the marked concept files and their metadata, so every step sees the same code
ORIG=$W/orig
rm -rf "$STAGE" "$ORIG"
for f in $(concept_files) chapters/[0-9][0-9]_*/blanks.txt; do
    [ -f "$f" ] || continue
    mkdir -p "$ORIG/$(dirname "$f")"
    cp "$f" "$ORIG/$f"
done
write_tree "$STAGE" 0 ""
mkdir -p "$T"
sync_tree "$STAGE" "$T"

echo "check-exercises: $B blanks in chapters $(num_list "$CHS"); compilers: $CC${OTHER:+ and $OTHER}"
echo "1. solution tree ($T)"
if tree_make "$T" BUILD=build CC="$CC" all; then
    set --
    for nn in $CHS; do
        set -- "$@" "build/tests/test_ch$nn"
        [ -f "$T/tests/test_ch${nn}_program.sh" ] && set -- "$@" "tests/test_ch${nn}_program.sh"
    done
    (cd "$T" && BUILD=build sh tests/run_tests.sh "$@") >"$W/solution.log" 2>&1
    st=$?
    echo "   tests of chapters $(num_list "$CHS"): $(tail -n 1 "$W/solution.log")"
    if [ "$st" -ne 0 ]; then
        grep -v ': [0-9]* passed, 0 failed$' "$W/solution.log" | head -n 20 | sed 's/^/   | /'
        echo "   FAIL: the solution does not pass its own tests"
        problems=$((problems + 1))
    fi
else
    echo "   FAIL: the solution tree does not build: $(first_error "$LOG")"
    problems=$((problems + 1))
fi

# the hidden checks of the solution (step 5): the probe and gradetool, built here
PSEED=20240601
AW=$(cd "$W" && pwd)   # (the probe runs in the tree)
PROBE_OK=0
if $CC $STRICT -I"$T" "$EX_DIR/probe.c" "$T/build/libattn.a" -lm -o "$W/probe" >"$W/probe.log" 2>&1 &&
    $CC -std=c99 -O2 "$EX_DIR/gradetool.c" -lm -o "$W/gradetool" >>"$W/probe.log" 2>&1; then
    PROBE_OK=1
    for nn in $CHS; do
        (cd "$T" && with_timeout 300 "$AW/probe" "$(chapter_num "$nn")" "$PSEED" tests/fixtures 3>"$AW/want$nn" >/dev/null 2>&1 </dev/null)
    done
fi
# probe_verdict NN: "caught" when the probe linked with the tree's current library
# disagrees with the solution's, "missed" when it agrees, else why not
probe_verdict() {
    [ "$PROBE_OK" = 1 ] || { echo "no probe (probe.c or gradetool.c does not build: $(first_error "$W/probe.log"))"; return; }
    tree_make "$T" BUILD=build CC="$CC" build/libattn.a || { echo "does not build"; return; }
    $CC $STRICT -I"$T" "$EX_DIR/probe.c" "$T/build/libattn.a" -lm -o "$W/probe.x" >"$W/probex.log" 2>&1 || { echo "probe does not link"; return; }
    (cd "$T" && with_timeout 300 "$AW/probe.x" "$(chapter_num "$1")" "$PSEED" tests/fixtures 3>"$AW/got" >/dev/null 2>&1 </dev/null)
    if "$W/gradetool" compare "$W/want$1" "$W/got" >/dev/null 2>&1; then echo missed; else echo caught; fi
}
# the blank NAME of FILE stubbed as the handout has it (with the stub's (void)
# lines for what only the answer used), TEXT in place of its exercise_missing()
wrong_answer() { # NAME TEXT FILE
    $AWK -f "$EX_DIR/blank.awk" -v mode=stub -v only="$1" -v path="$3" "$ORIG/$3" |
        $AWK -v nm="$1" -v txt="$2" 'index($0, "exercise_missing(\"" nm "\"") { match($0, /^[ \t]*/); print substr($0, 1, RLENGTH) txt; next } { print }'
}
pstub=0 pwrong=0 pnone=0

# ---- each blank alone ----------------------------------------------------------
echo "2. each blank alone"
: >"$W/probe.tsv"
caught=0
missed=0
prev=
while IFS='	' read -r name lvl file line outer hint; do
    nn=$(chapter_nn "$file")
    [ -n "$prev" ] && [ "$prev" != "$file" ] && cp "$STAGE/$prev" "$T/$prev"
    prev=$file
    $AWK -f "$EX_DIR/blank.awk" -v mode=stub -v only="$name" -v path="$file" "$ORIG/$file" >"$T/$file.new" &&
        mv "$T/$file.new" "$T/$file"
    : >"$LOG"
    what=
    if [ ! -f "$T/tests/test_ch$nn.c" ]; then
        what="missed: there is no tests/test_ch$nn.c to catch it"
    elif ! tree_make "$T" BUILD=build CC="$CC" "build/tests/test_ch$nn"; then
        what="missed (does not compile with $CC): $(first_error "$LOG")"
    elif [ -n "$OTHER" ] && ! $OTHER $STRICT -I"$T" -c "$T/$file" -o "$W/other.o" </dev/null >"$W/other.log" 2>&1; then
        what="missed (does not compile with $OTHER): $(first_error "$W/other.log")"
    else
        (cd "$T" && with_timeout 300 "build/tests/test_ch$nn") </dev/null >"$W/test.log" 2>&1
        counts=$(test_counts "$W/test.log")
        if [ -z "$counts" ]; then
            what="missed (test_ch$nn crashed before its summary line)"
        else
            set -- $counts
            if [ "$2" -gt 0 ]; then
                what="caught: test_ch$nn $1 passed, $2 failed"
                grep -q "exercise '$name'" "$W/test.log" || what="$what (the stub's sentence is not in the output)"
            else
                what="missed: every test of test_ch$nn still passes"
            fi
        fi
    fi
    case $what in
        caught*) caught=$((caught + 1)) ;;
        *) missed=$((missed + 1)) ;;
    esac
    printf '   %-30s ch%s level %s  %s\n' "$name" "$nn" "$lvl" "$what"
    # 5. the hidden checks, with this blank stubbed and with it answered wrong
    ps=$(probe_verdict "$nn")
    pw="no wrong answer compiles"
    for txt in '(void)0;' 'return NULL;' 'return 0;' 'return (Attention){0};' 'return (ScalingStats){0};'; do
        wrong_answer "$name" "$txt" "$file" >"$T/$file.new" && mv "$T/$file.new" "$T/$file"
        : >"$LOG"
        if tree_make "$T" BUILD=build CC="$CC" build/libattn.a; then pw="$(probe_verdict "$nn") ($txt)"; break; fi
    done
    [ "$ps" = caught ] && pstub=$((pstub + 1))
    case $pw in caught*) pwrong=$((pwrong + 1)) ;; "no wrong"*) pnone=$((pnone + 1)) ;; esac
    printf '%s\t%s\t%s\n' "$name" "$ps" "$pw" >>"$W/probe.tsv"
done <"$W/blanks.tsv"
[ -n "$prev" ] && cp "$STAGE/$prev" "$T/$prev"

# ---- whole trees, every level ------------------------------------------------
echo "3. every level stubbed"
for lv in 1 2 3; do
    : >"$W/level.tsv"
    for f in $(concept_files); do
        $AWK -f "$EX_DIR/blank.awk" -v mode=stub -v level="$lv" -v path="$f" -v manifest="$W/level.tsv" "$ORIG/$f" >"$T/$f.new" &&
            mv "$T/$f.new" "$T/$f"
    done
    nb=$(grep -c '' "$W/level.tsv")
    : >"$LOG"
    msg=
    if ! tree_make "$T" BUILD=build CC="$CC" all; then
        msg="FAIL: does not build with $CC: $(first_error "$LOG")"
    elif [ -n "$OTHER" ] && ! tree_make "$T" BUILD=build/other CC="$OTHER" all; then
        msg="FAIL: does not build with $OTHER: $(first_error "$LOG")"
    else
        bad=
        for nn in $(cut -f3 "$W/level.tsv" | sed -n 's|^chapters/\([0-9][0-9]\)_.*|\1|p' | sort -u); do
            if [ ! -f "$T/tests/test_ch$nn.c" ]; then
                bad="$bad $(chapter_num "$nn") (no tests/test_ch$nn.c)"
                continue
            fi
            (cd "$T" && with_timeout 300 "build/tests/test_ch$nn") </dev/null >"$W/test.log" 2>&1
            counts=$(test_counts "$W/test.log")
            set -- ${counts:-0 0}
            [ -n "$counts" ] && [ "$2" -gt 0 ] || bad="$bad $(chapter_num "$nn")"
        done
        if [ -n "$bad" ]; then
            msg="FAIL: the tests of chapter(s)$bad do not fail (or crash)"
        else
            msg="builds with $CC${OTHER:+ and $OTHER}; every chapter's tests fail"
            # what every student runs first: the handout's make test ends, with failures
            _t0=$(date +%s)
            (cd "$T" && with_timeout "$HANDOUT_TEST_SECONDS" $MAKE --no-print-directory -s BUILD=build CC="$CC" test) </dev/null >"$W/mt.log" 2>&1
            _rc=$?
            _last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$W/mt.log" | tail -n 1)
            case $_rc:$_last in
                124:* | 137:*) msg="FAIL: make test in the handout did not end within $HANDOUT_TEST_SECONDS s" ;;
                0:*) msg="FAIL: make test in the handout passes although its blanks are empty" ;;
                *:*" passed, "[1-9]*" failed"*) msg="$msg; make test ends in $(($(date +%s) - _t0)) s: $_last" ;;
                *) msg="FAIL: make test in the handout ended without its summary line: $(tail -n 1 "$W/mt.log")" ;;
            esac
        fi
    fi
    case $msg in FAIL*) problems=$((problems + 1)) ;; esac
    printf '   level %s: %2d blanks  %s\n' "$lv" "$nb" "$msg"
done
for f in $(concept_files); do cp "$STAGE/$f" "$T/$f"; done

# ---- bug hunts -----------------------------------------------------------------
echo "4. bug hunts (scripts/exercises/bugs.txt)"
nbugs=0
bcaught=0
if ! $AWK -f "$EX_DIR/bugs.awk" -v mode=list "$EX_DIR/bugs.txt" >"$W/bugs.tsv"; then
    problems=$((problems + 1))
    : >"$W/bugs.tsv"
fi
while IFS='	' read -r id ch file title; do
    nbugs=$((nbugs + 1))
    nn=$(printf '%02d' "$ch")
    : >"$LOG"
    what=
    if ! $AWK -f "$EX_DIR/bugs.awk" -v mode=apply -v id="$id" "$EX_DIR/bugs.txt" "$STAGE/$file" >"$T/$file.new"; then
        what="FAIL: bugs.txt no longer matches $file"
    else
        mv "$T/$file.new" "$T/$file"
        if ! tree_make "$T" BUILD=build CC="$CC" "build/tests/test_ch$nn"; then
            what="FAIL: does not compile: $(first_error "$LOG")"
        else
            (cd "$T" && with_timeout 300 "build/tests/test_ch$nn") </dev/null >"$W/test.log" 2>&1
            counts=$(test_counts "$W/test.log")
            set -- ${counts:-0 0}
            if [ -z "$counts" ]; then
                what="caught: test_ch$nn crashed"
            elif [ "$2" -gt 0 ]; then
                what="caught: test_ch$nn $1 passed, $2 failed"
            else
                what="FAIL: not caught, every test of test_ch$nn passes"
            fi
        fi
    fi
    cp "$STAGE/$file" "$T/$file"
    case $what in caught*) bcaught=$((bcaught + 1)) ;; *) problems=$((problems + 1)) ;; esac
    printf '   %-28s ch%s  %s\n' "$id" "$nn" "$what"
done <"$W/bugs.tsv"
# the tree `make bugs` writes: the first bug of each chapter, all at once
defaults=$($AWK -F '\t' '!($2 in seen) { seen[$2] = 1; print $1 }' "$W/bugs.tsv")
if [ -n "$defaults" ]; then
    msg=
    for id in $defaults; do
        file=$($AWK -F '\t' -v id="$id" '$1 == id { print $3 }' "$W/bugs.tsv")
        $AWK -f "$EX_DIR/bugs.awk" -v mode=apply -v id="$id" "$EX_DIR/bugs.txt" "$T/$file" >"$T/$file.new" &&
            mv "$T/$file.new" "$T/$file" || msg="FAIL: bug $id does not apply together with the others"
    done
    : >"$LOG"
    if [ -z "$msg" ] && ! tree_make "$T" BUILD=build CC="$CC" all; then
        msg="FAIL: does not build: $(first_error "$LOG")"
    fi
    if [ -z "$msg" ]; then
        bad=
        for ch in $($AWK -F '\t' '!($2 in seen) { seen[$2] = 1; print $2 }' "$W/bugs.tsv"); do
            nn=$(printf '%02d' "$ch")
            (cd "$T" && with_timeout 300 "build/tests/test_ch$nn") </dev/null >"$W/test.log" 2>&1
            counts=$(test_counts "$W/test.log")
            set -- ${counts:-0 1}
            [ "$2" -gt 0 ] || bad="$bad $ch"
        done
        if [ -n "$bad" ]; then msg="FAIL: the tests of chapter(s)$bad pass"; else msg="builds; every chapter's tests fail"; fi
    fi
    case $msg in FAIL*) problems=$((problems + 1)) ;; esac
    echo "   the make bugs tree ($(echo $defaults | wc -w | tr -d ' ') bugs): $msg"
    for f in $(concept_files); do cp "$STAGE/$f" "$T/$f"; done
fi
echo "bugs: $nbugs injected, $bcaught caught"

# ---- 5. the grader's hidden checks, per blank ---------------------------------------
echo "5. hidden checks (scripts/exercises/probe.c, seed $PSEED), per blank: stubbed; answered wrong"
while IFS='	' read -r name ps pw; do
    printf '   %-30s stub: %-8s wrong answer: %s\n' "$name" "$ps" "$pw"
    [ "$ps" = caught ] || problems=$((problems + 1))
    case $pw in caught* | "no wrong"*) ;; *) problems=$((problems + 1)) ;; esac
done <"$W/probe.tsv"
echo "hidden checks: $B blanks, $pstub stubs caught, $pwrong wrong answers caught, $pnone without a wrong answer that compiles"

# ---- 6. the catalogue of known mistakes ----------------------------------------------
# each record of mistakes.txt injected alone into the solution (as make grade does on its
# side), its hidden checks run with the seed of step 5: gradetool compare must name it and
# no other record; the solution's own results and a random wrong answer (every number of
# the solution's results moved at random) must be named as none
echo "6. known mistakes (scripts/exercises/mistakes.txt), each injected alone"
nmist=0 mok=0
mkdir -p "$W/mist"
if ! $AWK -f "$EX_DIR/mistakes.awk" -v mode=bugs "$EX_DIR/bugs.txt" "$EX_DIR/mistakes.txt" >"$W/mist/records.txt" ||
    ! $AWK -f "$EX_DIR/mistakes.awk" -v mode=list "$EX_DIR/bugs.txt" "$EX_DIR/mistakes.txt" >"$W/mist/list.tsv"; then
    problems=$((problems + 1))
    : >"$W/mist/list.tsv"
fi
for nn in $CHS; do : >"$W/mist/cat$nn.tsv"; done
while IFS='	' read -r id ch bl file en zh; do
    nn=$(printf '%02d' "$ch")
    what=
    if [ "$PROBE_OK" != 1 ] || [ ! -f "$W/mist/cat$nn.tsv" ]; then
        what="FAIL: no hidden checks for chapter $ch to run it with"
    elif [ "$bl" != - ] && ! $AWK -F '\t' -v b="$bl" -v f="$file" '$1 == b && $3 == f { ok = 1 } END { exit !ok }' "$W/blanks.tsv"; then
        what="FAIL: its blank '$bl' is not a blank of $file"
    elif ! $AWK -f "$EX_DIR/bugs.awk" -v mode=apply -v id="$id" "$W/mist/records.txt" "$STAGE/$file" >"$T/$file.new"; then
        what="FAIL: mistakes.txt no longer matches $file"
    else
        mv "$T/$file.new" "$T/$file"
        : >"$LOG"
        if tree_make "$T" BUILD=build CC="$CC" build/libattn.a &&
            $CC $STRICT -I"$T" "$EX_DIR/probe.c" "$T/build/libattn.a" -lm -o "$W/probe.x" >"$W/probex.log" 2>&1; then
            (cd "$T" && with_timeout 300 "$AW/probe.x" "$ch" "$PSEED" tests/fixtures 3>"$AW/mist/$id" >/dev/null 2>&1 </dev/null)
            if [ "$(tail -n 1 "$W/mist/$id")" != "probe done" ]; then what="FAIL: its hidden checks do not finish"
            elif "$W/gradetool" compare "$W/want$nn" "$W/mist/$id" >/dev/null 2>&1; then what="FAIL: the hidden checks do not tell it from the solution"
            else printf '%s\t%s\t%s\t%s\n' "$id" "$AW/mist/$id" "$en" "$zh" >>"$W/mist/cat$nn.tsv"
                cp "$W/probe.x" "$W/mist/$id.x"
            fi
        else
            what="FAIL: does not build: $(first_error "$LOG")"
        fi
    fi
    cp "$STAGE/$file" "$T/$file"
    nmist=$((nmist + 1))
    [ -z "$what" ] || { problems=$((problems + 1)); printf '   %-28s ch%s  %s\n' "$id" "$nn" "$what"; }
done <"$W/mist/list.tsv"
: >"$LOG"
tree_make "$T" BUILD=build CC="$CC" build/libattn.a || problems=$((problems + 1))
# recognised: as itself, in both languages, and as no other
while IFS='	' read -r id ch bl file en zh; do
    nn=$(printf '%02d' "$ch")
    [ -f "$W/mist/$id" ] && grep -q "^$id	" "$W/mist/cat$nn.tsv" || continue
    o=$("$W/gradetool" compare "$W/want$nn" "$W/mist/$id" en "$W/mist/cat$nn.tsv")
    oz=$("$W/gradetool" compare "$W/want$nn" "$W/mist/$id" zh "$W/mist/cat$nn.tsv")
    grep -v "^$id	" "$W/mist/cat$nn.tsv" >"$W/mist/others.tsv"
    oo=$("$W/gradetool" compare "$W/want$nn" "$W/mist/$id" en "$W/mist/others.tsv")
    base=$("$W/gradetool" compare "$W/want$nn" "$W/mist/$id")
    case $base in *.) full="$base $en" ;; *) full="$base. $en" ;; esac
    if [ "$o" != "$full" ]; then what="FAIL: not named as itself: $o"
    elif [ "$oz" = "${oz%"$zh"}" ]; then what="FAIL: not named as itself in Chinese: $oz"
    elif [ "$oo" != "$base" ]; then what="FAIL: also recognised as another mistake: $oo"
    else what="recognised as itself, and as no other"; mok=$((mok + 1))
    fi
    case $what in FAIL*) problems=$((problems + 1)) ;; esac
    printf '   %-28s ch%s  %s\n' "$id" "$nn" "$what"
done <"$W/mist/list.tsv"
# no false diagnosis: the solution itself, and a random wrong answer
for nn in $CHS; do
    [ -s "$W/mist/cat$nn.tsv" ] || continue
    "$W/gradetool" compare "$W/want$nn" "$W/want$nn" en "$W/mist/cat$nn.tsv" >/dev/null ||
        { problems=$((problems + 1)); echo "   FAIL: the solution of chapter $((1$nn - 100)) is not correct with the catalogue given"; }
    $AWK -v seed="$PSEED$nn" 'BEGIN { srand(seed) } $2 ~ /^[0-9]+$/ && $3 ~ /^-?[0-9.]/ { $3 = $3 * (0.5 + rand()) + rand() - 0.5 } { print }' \
        "$W/want$nn" >"$W/mist/random$nn"
    o=$("$W/gradetool" compare "$W/want$nn" "$W/mist/random$nn" en "$W/mist/cat$nn.tsv")
    base=$("$W/gradetool" compare "$W/want$nn" "$W/mist/random$nn")
    if [ "$o" != "$base" ]; then
        problems=$((problems + 1))
        echo "   FAIL: a random wrong answer of chapter $((1$nn - 100)) is named as a known mistake: $o"
    fi
done
# and with other seeds: a draw of sizes must not hide a mistake (one head, head_dim 2, one
# position: then it would be graded correct, or named as another mistake). Each is told
# from the solution and from every other mistake of its chapter on CHECK_SEEDS more seeds.
nseeds=${CHECK_SEEDS:-40} hidden=0
case $nseeds in '' | *[!0-9]*) echo "check: CHECK_SEEDS=$nseeds: a whole number" >&2; exit 2 ;; esac
k=1
while [ "$k" -le "$nseeds" ] && [ "$PROBE_OK" = 1 ]; do
    sd=$((PSEED + k))
    for nn in $CHS; do
        [ -s "$W/mist/cat$nn.tsv" ] || continue
        (cd "$T" && with_timeout 300 "$AW/probe" "$(chapter_num "$nn")" "$sd" tests/fixtures 3>"$AW/mist/w" >/dev/null 2>&1 </dev/null)
        ids=$(cut -f 1 "$W/mist/cat$nn.tsv")
        for id in $ids; do
            (cd "$T" && with_timeout 300 "$AW/mist/$id.x" "$(chapter_num "$nn")" "$sd" tests/fixtures 3>"$AW/mist/o.$id" >/dev/null 2>&1 </dev/null)
            if "$W/gradetool" compare "$AW/mist/w" "$AW/mist/o.$id" >/dev/null 2>&1; then
                hidden=$((hidden + 1)) problems=$((problems + 1))
                printf '   %-28s ch%s  FAIL: seed %s hides it (the hidden checks agree with the solution)\n' "$id" "$nn" "$sd"
            fi
        done
        for id in $ids; do
            for id2 in $ids; do
                [ "$id" != "$id2" ] || continue
                if "$W/gradetool" compare "$AW/mist/o.$id" "$AW/mist/o.$id2" >/dev/null 2>&1; then
                    hidden=$((hidden + 1)) problems=$((problems + 1))
                    printf '   %-28s ch%s  FAIL: seed %s gives it the hidden results of %s\n' "$id" "$nn" "$sd" "$id2"
                fi
            done
        done
    done
    k=$((k + 1))
done
echo "mistakes: $nmist injected, $mok recognised as themselves only; on $nseeds more seeds, $hidden hidden"

echo "exercises: $B blanks, $caught caught, $missed missed"
[ "$missed" -eq 0 ] && [ "$problems" -eq 0 ]
