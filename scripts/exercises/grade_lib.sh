# grade_lib.sh — the grading engine of make grade and make grade-class
# (sourced after lib.sh; POSIX sh + awk, plus bubblewrap for the sandbox).
#
# One grading run works in its own folder $RUN (build/grade/runs/<pid>-<random>):
#   $RUN/base      the teacher's tree (markers stripped), built once: library,
#                  test objects, harness, probe
#   $RUN/orig      the teacher's marked concept files (what answers are cut from)
#   $RUN/want      what the teacher's code gives: tests passed, probe output
#   $RUN/s/<id>    one folder per student: transplants, binaries, results
# Per blank: the student's answer alone goes into the teacher's file (extract.awk),
# is compiled with the teacher's headers, linked with the teacher's test object
# and harness and run in the sandbox; the verdict is read from a result file
# that only a line carrying the run's random token counts in, never from what
# the program prints. Then the probe (probe.c) runs the chapter on fresh random
# inputs and the grader compares its numbers with the teacher's.

LC_ALL=C
export LC_ALL
GRADE_TIME=${GRADE_TIME:-60}       # seconds for one test binary or probe run
GRADE_MEM_KB=${GRADE_MEM_KB:-2097152}  # address space of one run (ulimit -v)

# The flags of the Makefile (keep in step): strict C99, -O2; chapter 8 -O3.
G_STRICT="-std=c99 -Wall -Wextra -Wpedantic -Werror -Wvla"
g_cflags() { # CHAPTER_NN
    case $1 in
        08) echo "$G_STRICT -O3 -march=native" ;;
        *) echo "$G_STRICT -O2" ;;
    esac
}

# A fresh random number (decimal) from /dev/urandom.
g_random() {
    od -An -N6 -tu8 /dev/urandom 2>/dev/null | tr -d ' \n' || echo "$$$(date +%s)"
}

# A token no program can guess: 18 random bytes in hex (144 bits), one od.
g_token() {
    od -An -N18 -tx1 /dev/urandom | tr -d ' \n'
}

# Run a program of the scratch folder $1 in the sandbox: sandbox SCRATCH
# OUT ERR PROG [ARGS] (PROG relative to the scratch folder). Sets g_rc.
# The token file $1/token is read (and removed) by the harness.
g_sandbox() {
    _scr=$1 _out=$2 _err=$3 _prog=$4
    shift 4
    if [ "$G_UNSAFE" = 1 ]; then
        # no sandbox: the teacher asked for it (GRADE_UNSAFE=1)
        mkdir -p "$_scr/cwd"
        [ -e "$_scr/cwd/tests" ] || ln -s "$G_BASE/tests" "$_scr/cwd/tests"
        [ -e "$_scr/cwd/build" ] || ln -s "$_scr" "$_scr/cwd/build"
        (cd "$_scr/cwd" && ulimit -v "$GRADE_MEM_KB" 2>/dev/null
            HARNESS_TOKEN_FILE=build/token HARNESS_RESULT_FILE=build/result \
                exec timeout -k 2 "$GRADE_TIME" "./build/$_prog" "$@") </dev/null >"$_out" 2>"$_err"
        g_rc=$?
        return 0
    fi
    timeout -k 2 "$((GRADE_TIME + 5))" bwrap --unshare-all --die-with-parent --new-session --clearenv \
        --setenv PATH /usr/bin:/bin --setenv LC_ALL C \
        --setenv HARNESS_TOKEN_FILE /t/build/token --setenv HARNESS_RESULT_FILE /t/build/result \
        --proc /proc --dev /dev --tmpfs /tmp $G_SYSBINDS \
        --ro-bind "$G_BASE" /t --bind "$_scr" /t/build --chdir /t \
        /bin/sh -c 'ulimit -v "$1"; ulimit -f 200000; ulimit -c 0; shift; exec timeout "$@"' sh \
        "$GRADE_MEM_KB" "$GRADE_TIME" "./build/$_prog" "$@" </dev/null >"$_out" 2>"$_err"
    g_rc=$?
}

g_sysbinds() {
    G_SYSBINDS=
    for _d in /usr /bin /lib /lib32 /lib64 /sbin /etc/alternatives /etc/ld.so.cache; do
        if [ -L "$_d" ]; then
            G_SYSBINDS="$G_SYSBINDS --symlink $(readlink "$_d") $_d"
        elif [ -e "$_d" ]; then
            G_SYSBINDS="$G_SYSBINDS --ro-bind $_d $_d"
        fi
    done
}

# Is the sandbox usable? Sets G_UNSAFE; dies loudly when there is none and
# the teacher did not set GRADE_UNSAFE=1.
g_need_sandbox() {
    g_sysbinds
    G_UNSAFE=0
    if command -v bwrap >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1 &&
        bwrap --unshare-all --die-with-parent --new-session --clearenv --proc /proc --dev /dev \
            --tmpfs /tmp $G_SYSBINDS /bin/sh -c 'exit 0' </dev/null >/dev/null 2>"$RUN/bwrap.err"; then
        return 0
    fi
    if [ "${GRADE_UNSAFE:-}" = 1 ]; then
        echo "grade: WARNING: no working sandbox (bubblewrap: $(head -n 1 "$RUN/bwrap.err" 2>/dev/null || echo 'bwrap not found')); GRADE_UNSAFE=1: student code runs with YOUR rights, unconfined" >&2
        G_UNSAFE=1
        return 0
    fi
    echo "grade: REFUSED: student code must run in a sandbox and bubblewrap does not work here" >&2
    echo "grade:   ($(head -n 1 "$RUN/bwrap.err" 2>/dev/null || echo 'bwrap not found'); install it with: apt-get install bubblewrap)" >&2
    echo "grade:   GRADE_UNSAFE=1 grades without one: the students' code then runs with your rights" >&2
    return 1
}

# g_reuse_build BASE TARGET...: the teacher's tree BASE is this repository with the
# markers (comments) taken out, so when ${BUILD:-build} holds an up-to-date build
# of the repository made with the same compiler and flags (the Makefile's stamp
# .flags), its TARGETs (paths under build/) are copied into BASE instead of
# compiling everything again. Fails (and the caller builds) otherwise.
g_reuse_build() {
    _base=$1 _from=${BUILD:-build}
    shift
    [ -f "$_from/.flags" ] || return 1
    # any make run in BASE writes its stamp first, the line of flags it would build with
    $MAKE --no-print-directory -C "$_base" BUILD=build CC="$CC" -q build/.flags >/dev/null 2>&1 </dev/null
    cmp -s "$_from/.flags" "$_base/build/.flags" || return 1
    _t=
    for t; do _t="$_t $_from/${t#build/}"; done
    $MAKE --no-print-directory -q BUILD="$_from" CC="$CC" $_t >/dev/null 2>&1 </dev/null || return 1
    for t; do
        mkdir -p "$_base/$(dirname "$t")" && cp "$_from/${t#build/}" "$_base/$t" || return 1
    done
    echo "grade: the teacher's tree: reused $_from (up to date, same flags)" >>"$LOG"
}

# g_setup LEVEL CHAPTERS: the run folder, the teacher's tree built, the blanks
# handed out ($RUN/blanks.tsv: name points chapter file function) and what
# the teacher's code gives.
g_setup() {
    _level=$1 _chapters=$2
    mkdir -p build/grade/runs || die "grade: cannot create build/grade/runs"
    RUN=build/grade/runs/$$-$(g_random)
    mkdir -p "$RUN" || die "grade: cannot create $RUN"
    RUN=$(cd "$RUN" && pwd)
    LOG=$RUN/make.log
    : >"$LOG"
    g_need_sandbox || return 1
    list_blanks >"$RUN/all.tsv" || die "grade: fix the markers of this repository first"
    CHS=$(parse_chapters "$_chapters" "$RUN/all.tsv") || return 1
    : >"$RUN/stubs.tsv"
    mkdir -p "$RUN/orig"
    for f in $(concept_files); do
        mkdir -p "$RUN/orig/$(dirname "$f")"
        cp "$f" "$RUN/orig/$f"
        in_list "$(chapter_nn "$f")" "$CHS" || continue
        $AWK -f "$EX_DIR/blank.awk" -v mode=stub -v level="$_level" -v path="$f" -v manifest="$RUN/stubs.tsv" "$f" >/dev/null ||
            die "grade: $f: cannot read its blanks"
    done
    # name points chapter-nn file function, in the order of the repository
    $AWK -F '\t' 'NR == FNR { chosen[$1] = 1; next }
        ($1 in chosen) { nn = $3; sub(/^chapters\//, "", nn); sub(/_.*/, "", nn)
                         printf "%s\t%s\t%s\t%s\t%s\n", $1, $7, nn, $3, $8 }' "$RUN/stubs.tsv" "$RUN/all.tsv" >"$RUN/blanks.tsv"
    [ -s "$RUN/blanks.tsv" ] || { echo "grade: no blanks of level <= $_level in chapters $(num_list "$CHS")" >&2; return 1; }
    GCHS=$(cut -f3 "$RUN/blanks.tsv" | sort -u)

    # the teacher's tree, built once and kept in build/grade/cache/<checksum>
    # (read-only from then on; a run that finds it ready uses it as it is)
    set -- build/libattn.a build/obj/tests/harness.o
    for nn in $GCHS; do
        [ -f "tests/test_ch$nn.c" ] && set -- "$@" "build/obj/tests/test_ch$nn.o" "build/tests/test_ch$nn"
    done
    _key=$( (echo "$CC $(g_cflags 00) $*"; find Makefile common chapters tests scripts/exercises/probe.c -type f ! -name '*.pyc' |
        LC_ALL=C sort | xargs cksum) | cksum | tr -c '0-9\n' _ | tr -d '\n')
    G_BASE=$(pwd)/build/grade/cache/$_key
    if [ ! -f "$G_BASE/.ready" ]; then
        write_tree "$RUN/base" 0 ""
        g_reuse_build "$RUN/base" "$@" || tree_make "$RUN/base" BUILD=build CC="$CC" "$@" ||
            { echo "grade: the teacher's tree does not build: $(first_error "$LOG")" >&2; return 1; }
        : >"$RUN/base/.ready"
        mkdir -p build/grade/cache
        [ -e "$G_BASE" ] || mv "$RUN/base" "$G_BASE" 2>/dev/null || [ -f "$G_BASE/.ready" ] ||
            { echo "grade: cannot keep the teacher's tree in $G_BASE" >&2; return 1; }
        [ -d "$RUN/base" ] && G_BASE=$RUN/base  # another run was first: use ours
    fi
    G_PROBE=
    if $CC $(g_cflags 00) -I"$G_BASE" -c "$EX_DIR/probe.c" -o "$RUN/probe.o" >>"$LOG" 2>&1; then
        G_PROBE=$RUN/probe.o
    else
        echo "grade: note: the hidden checks (probe.c) do not build against this tree; grading without them: $(first_error "$LOG")" >&2
    fi
    G_SEED=${GRADE_SEED:-$(g_random)}  # GRADE_SEED=N repeats a run's hidden inputs
    mkdir -p "$RUN/want"
    # the teacher's code in the sandbox: which tests pass, what the probe prints
    for nn in $GCHS; do
        scr=$RUN/want/ch$nn
        mkdir -p "$scr"
        if [ ! -f "$G_BASE/tests/test_ch$nn.c" ]; then
            echo "grade: note: chapter $(chapter_num "$nn") has no tests/test_ch$nn.c; its blanks are graded by the hidden checks only" >&2
            : >"$RUN/want/tests$nn"
        else
            cp "$G_BASE/build/tests/test_ch$nn" "$scr/test"
            tok=$(g_token)
            echo "$tok" >"$scr/token"
            : >"$scr/result"
            g_sandbox "$scr" "$scr/out" "$scr/err" test
            $AWK -v tok="$tok" '$1 == "pass" && $3 == tok { print $2 }' "$scr/result" | sort -u >"$RUN/want/tests$nn"
            if [ "$g_rc" -eq 0 ] && [ ! -s "$RUN/want/tests$nn" ]; then
                echo "grade: WARNING: no test of chapter $(chapter_num "$nn") passes in the sandbox (all skipped?); its blanks rest on the hidden checks" >&2
            elif [ "$g_rc" -ne 0 ] || [ ! -s "$RUN/want/tests$nn" ]; then
                echo "grade: the teacher's tests of chapter $(chapter_num "$nn") do not pass in the sandbox (exit $g_rc):" >&2
                tail -n 5 "$scr/err" "$scr/out" >&2
                return 1
            fi
        fi
        : >"$RUN/want/probe$nn"
        if [ -n "$G_PROBE" ] &&
            $CC -o "$scr/probe" "$G_PROBE" "$G_BASE/build/libattn.a" -lm >>"$LOG" 2>&1; then
            g_sandbox "$scr" "$RUN/want/probe$nn" "$scr/perr" probe "$(chapter_num "$nn")" "$G_SEED"
            [ "$g_rc" -eq 0 ] || : >"$RUN/want/probe$nn" # no probe for this chapter (exit 3)
        fi
    done
    return 0
}

# The first check that failed, in words, from a test run's output and result.
g_first_failure() { # ERR OUT PASSED WANT
    _f=$($AWK -v okf="$3" 'BEGIN { while ((getline l < okf) > 0) ok[l] = 1 }
        /: test_[A-Za-z0-9_]*: / && match($0, /: test_[A-Za-z0-9_]*: /) {
            t = substr($0, RSTART + 2, RLENGTH - 4)
            if (!(t in ok)) { print t ": " substr($0, RSTART + RLENGTH); exit }
        }' "$1" 2>/dev/null)
    [ -n "$_f" ] || _f=$(grep -m1 "exercise '" "$1" "$2" 2>/dev/null | sed 's/^[^:]*: //')
    [ -n "$_f" ] || _f="$(comm -13 "$3" "$4" | head -n 1): did not finish"
    echo "$_f" | cut -c1-300
}

# Compare the probe output of the student's ($1) with the teacher's ($2):
# "" when equal (within float tolerance), else the first difference in words.
g_probe_diff() {
    $AWK -v wf="$2" '
        function num(s) { return s ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ }
        BEGIN { n = 0; while ((getline l < wf) > 0) w[++n] = l; m = 0 }
        { g[++m] = $0 }
        END {
            for (i = 1; i <= n; i++) {
                split(w[i], a, " "); split(g[i], b, " ")
                if (i > m) { printf "%s: your code stopped before this (expected %s)\n", a[1], w[i]; exit }
                if (w[i] == g[i]) continue
                if (a[2] == "error" && b[1] == a[1] && b[2] == "error") continue
                if (a[1] == b[1] && a[2] == b[2] && num(a[3]) && num(b[3])) {
                    x = a[3] + 0; y = b[3] + 0; d = x - y; if (d < 0) d = -d
                    ax = x < 0 ? -x : x
                    if (d <= 1e-4 + 1e-3 * ax) continue
                }
                if (b[2] == "error") { sub(/^[^ ]* error /, "", g[i]); printf "%s: raised the error \"%s\"\n", a[1], g[i]; exit }
                if (a[2] == "shape" || b[2] == "shape") { printf "%s has shape %s, expected %s\n", a[1], b[3], a[3]; exit }
                printf "%s: element %s is %s, expected %s\n", a[1], a[2], (b[1] == a[1] ? b[3] : "\"" g[i] "\""), a[3]
                exit
            }
            if (m > n) { printf "printed more than the teacher'"'"'s code: \"%s\"\n", substr(g[n + 1], 1, 80); exit }
        }' "$1"
}

# g_grade_student DIR ID: grade one tree into $RUN/s/ID/result.tsv
# (blank points max message) and $RUN/s/ID/feedback.txt.
g_grade_student() {
    _dir=$1 _id=$2
    _s=$RUN/s/$_id
    rm -rf "$_s"
    mkdir -p "$_s/x"
    : >"$_s/status.tsv"
    # every concept file that holds a graded blank: cut the answers out
    for f in $(cut -f4 "$RUN/blanks.tsv" | $AWK '!seen[$0]++'); do
        names=$($AWK -F '\t' -v f="$f" '$4 == f { printf "%s ", $1 }' "$RUN/blanks.tsv")
        src=$_dir/$f
        if [ ! -f "$src" ] || [ -L "$src" ]; then
            for nm in $names; do printf '%s\tnofunc\t%s is not in your tree\n' "$nm" "$f"; done >>"$_s/status.tsv"
            continue
        fi
        $AWK -f "$EX_DIR/extract.awk" -v ref="$RUN/orig/$f" -v blanks="$names" -v outdir="$_s/x" "$src" >>"$_s/status.tsv" 2>"$_s/extract.err" ||
            for nm in $names; do printf '%s\tnofunc\tyour %s could not be read\n' "$nm" "$f"; done >>"$_s/status.tsv"
    done
    : >"$_s/result.tsv"
    while IFS='	' read -r name pts nn file func; do
        st= det=
        while IFS='	' read -r _b _st _det; do
            [ "$_b" = "$name" ] && { st=$_st det=$_det && break; }
        done <"$_s/status.tsv"
        got=0
        msg=
        case $st in
            same) got=$pts msg="correct${det:+ ($det)}" ;;
            empty) msg="not answered: $det" ;;
            nofunc) msg="not found: $det" ;;
            denied) msg="not accepted: $det" ;;
            answer) g_grade_answer "$name" "$nn" "$file" && got=$pts
                    msg=$g_msg${det:+ ($det)} ;;
            *) msg="not found: the blank is missing from your tree" ;;
        esac
        printf '%s\t%s\t%s\t%s\n' "$name" "$got" "$pts" "$msg" >>"$_s/result.tsv"
    done <"$RUN/blanks.tsv"
    rm -rf "$_s/x" "$_s/w"
}

# One answer: compile, link, tests in the sandbox, hidden checks. Sets g_msg.
g_grade_answer() { # NAME NN FILE
    _nm=$1 _nn=$2 _file=$3
    _w=$_s/w/$_nm
    mkdir -p "$_w"
    _src=$_w/$(basename "$_file")
    cp "$_s/x/$_nm.c" "$_src"
    if ! $CC $(g_cflags "$_nn") -I"$G_BASE" -I"$G_BASE/$(dirname "$_file")" -c "$_src" -o "$_w/answer.o" >"$_w/cc.log" 2>&1; then
        g_msg="does not compile: $(first_error "$_w/cc.log" | sed "s|$_w/||g")"
        return 1
    fi
    if [ -f "$G_BASE/build/obj/tests/test_ch$_nn.o" ]; then
        if ! $CC -o "$_w/test" "$G_BASE/build/obj/tests/test_ch$_nn.o" "$G_BASE/build/obj/tests/harness.o" \
            "$_w/answer.o" "$G_BASE/build/libattn.a" -lm >"$_w/ld.log" 2>&1; then
            g_msg="does not link: $(first_error "$_w/ld.log" | sed -e "s|$_w/||g" -e "s|$G_BASE/||g")"
            return 1
        fi
        _tok=$(g_token)
        echo "$_tok" >"$_w/token"
        : >"$_w/result"
        g_sandbox "$_w" "$_w/out" "$_w/err" test
        $AWK -v tok="$_tok" '$1 == "pass" && $3 == tok { print $2 }' "$_w/result" | sort -u >"$_w/passed"
        _lost=$(comm -13 "$_w/passed" "$RUN/want/tests$_nn" | grep -c .)
        if [ "$_lost" -gt 0 ]; then
            _why=$(g_first_failure "$_w/err" "$_w/out" "$_w/passed" "$RUN/want/tests$_nn")
            case $g_rc in
                124 | 137) _why="$_why (the tests were stopped after ${GRADE_TIME} s)" ;;
            esac
            g_msg="$_lost of $(grep -c . "$RUN/want/tests$_nn") tests of chapter $(chapter_num "$_nn") fail; first: $_why"
            return 1
        fi
    fi
    if [ -s "$RUN/want/probe$_nn" ]; then
        if ! $CC -o "$_w/probe" "$G_PROBE" "$_w/answer.o" "$G_BASE/build/libattn.a" -lm >"$_w/ld.log" 2>&1; then
            g_msg="does not link: $(first_error "$_w/ld.log" | sed -e "s|$_w/||g" -e "s|$G_BASE/||g")"
            return 1
        fi
        g_sandbox "$_w" "$_w/probe.out" "$_w/probe.err" probe "$(chapter_num "$_nn")" "$G_SEED"
        _d=$(g_probe_diff "$_w/probe.out" "$RUN/want/probe$_nn")
        if [ -n "$_d" ]; then
            g_msg="the tests pass, but a hidden check on fresh random inputs fails: $_d"
            return 1
        fi
        g_msg="correct (tests and hidden checks pass)"
        return 0
    fi
    if [ ! -s "$RUN/want/tests$_nn" ]; then
        # nothing checked this answer: fail closed rather than give free points
        g_msg="not graded: no test of chapter $(chapter_num "$_nn") runs here and it has no hidden check; grade it by hand"
        return 1
    fi
    g_msg="correct (tests pass; no hidden check for this chapter)"
    return 0
}

# Feedback for a student, from result.tsv.
g_feedback() { # ID RESULT LEVEL
    $AWK -F '\t' -v id="$1" -v lv="$3" '
        { n++; nm[n] = $1; got[n] = $2; max[n] = $3; msg[n] = $4; X += $2; Y += $3 }
        END {
            printf "student %s: %d/%d points (level %s)\n\n", id, X, Y, lv
            for (i = 1; i <= n; i++) printf "%-30s %d/%d  %s\n", nm[i], got[i], max[i], msg[i]
        }' "$2"
}
