# grade_lib.sh — the grading engine of make grade and make grade-class
# (sourced after lib.sh; POSIX sh + awk, bubblewrap for the sandbox, and
# gradetool.c for what must not be done on text the students control).
#
# Trust model (docs/TEACHING.md, section 4):
#   - The sandbox returns data, the grader decides. Points come only from
#     gradetool compare, run here, on the numbers the probe (probe.c) prints
#     for the student's build and for the teacher's build, on inputs drawn
#     from a seed chosen here, fresh for every run. The chapter's tests run
#     too, but only for the feedback text.
#   - One way in, one way out. A sandbox gets read-only: the system, the kit
#     (headers, the teacher's objects and libraries, fixtures; no teacher
#     source, no expected output) and one input folder written here. It
#     writes only into its own tmpfs; what it prints comes back through a
#     pipe, cut at GRADE_OUTPUT_BYTES, into a file that only the grader opens.
#   - Compiling is in the sandbox too, with the same limits and no /dev.
#   - An answer is checked against an allow-list (extract.awk) and linked
#     with libraries from which the object of its own file was removed, so
#     the blank's function can only come from the student's object (nm
#     checks it as well).
#
# One grading run works in its own folder $RUN (build/grade/runs/<pid>-<random>):
#   $RUN/orig      the teacher's marked concept files (what answers are cut from)
#   $RUN/want      the teacher's probe output per chapter
#   $RUN/s/<k>     one folder per student (k = its row): answers, results
# The teacher's tree and the kit are built once and kept in build/grade/cache/.

LC_ALL=C
export LC_ALL
GRADE_TIME=${GRADE_TIME:-60}       # seconds for one compile, link or run in the sandbox
GRADE_MEM_KB=${GRADE_MEM_KB:-2097152}  # address space of one sandboxed process (ulimit -v)
GRADE_OUTPUT_BYTES=${GRADE_OUTPUT_BYTES:-16777216}  # what one sandbox may print

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

# Text that came out of a sandbox, made fit for one feedback line: printable
# ASCII only, no tab, at most 300 characters.
g_clean() {
    printf '%s' "$1" | tr '\t\r\n' '   ' | tr -c '[:print:]' '?' | cut -c1-300
}

# make, run without what the calling make passed down (make sanitize's
# EXTRA_CFLAGS, OPT, ...): the grader builds the teacher's tree with its own flags.
g_make() {
    (unset MAKEFLAGS MAKEOVERRIDES MFLAGS EXTRA_CFLAGS EXTRA_LDFLAGS OPT FAST_OPT CFLAGS RUNNER OMP BUILD
        exec $MAKE --no-print-directory "$@")
}

# The limits every sandboxed command runs under, then the command ($1 is the
# script, $2.. its arguments). Scripts see $K (the kit), $IN (the input folder,
# read-only), $W (their scratch folder) and $T (seconds).
G_PRELUDE='ulimit -v "$MEMKB" && ulimit -f 65536 && ulimit -c 0 && ulimit -t "$((T + 5))" && cd "$W" || exit 1'

# g_box OUT IN SCRIPT [ARGS]: run SCRIPT in a fresh sandbox; its standard output
# (at most GRADE_OUTPUT_BYTES) goes to OUT, the exit status of the sandbox (124:
# stopped by the time limit) to OUT.rc. Standard error is dropped. The sandbox
# sees the kit, or only its part G_KIT_PART (e.g. /inc: what a compile needs).
G_KIT_PART=
g_box() {
    _bo=$1 _bi=$2 _bs=$3
    shift 3
    if [ "$G_UNSAFE" = 1 ]; then
        _bw=$(mktemp -d "$RUN/unsafe.XXXXXX") || return 1
        { (K=$G_KIT IN=$_bi W=$_bw T=$GRADE_TIME MEMKB=$GRADE_MEM_KB CC=$CC \
            timeout -k 2 "$((GRADE_TIME * 3 + 10))" /bin/sh -c "$G_PRELUDE; $_bs" sh "$@" </dev/null 2>/dev/null)
            echo $? >"$_bo.rc"; } | head -c "$GRADE_OUTPUT_BYTES" >"$_bo"
        rm -rf "$_bw"
        return 0
    fi
    { timeout -k 2 "$((GRADE_TIME * 3 + 10))" bwrap --unshare-all --die-with-parent --new-session --clearenv \
        --setenv PATH /usr/bin:/bin --setenv LC_ALL C --setenv HOME /w \
        --setenv K /k --setenv IN /in --setenv W /w --setenv T "$GRADE_TIME" --setenv MEMKB "$GRADE_MEM_KB" \
        --setenv CC "$CC" \
        --proc /proc --size 268435456 --tmpfs /tmp --size 268435456 --tmpfs /w $G_SYSBINDS \
        --ro-bind "$G_KIT$G_KIT_PART" "/k$G_KIT_PART" --ro-bind "$_bi" /in --chdir /w \
        /bin/sh -c "$G_PRELUDE; $_bs" sh "$@" </dev/null 2>/dev/null
        echo $? >"$_bo.rc"; } | head -c "$GRADE_OUTPUT_BYTES" >"$_bo"
}

# the scripts run in the sandbox (arguments after the script)
# compile: CFLAGS CHAPTER-DIR SOURCE -> the object on stdout, or "error" and the messages
G_COMPILE='$CC $1 -I"$K/inc" -I"$K/inc/$2" -c "$IN/$3" -o a.o >cc.log 2>&1 && exec cat a.o
echo "error"; head -c 4000 cc.log'
# probe: HOLE CHAPTER SEED -> "link ok" then the probe's results (its descriptor 3; what
# the code under test prints on its standard output goes to a file nobody reads),
# or "link failed" and the messages
G_PROBE_RUN='set -- "$@" "$IN"/*.o; h=$1 ch=$2 seed=$3; shift 3; [ -f "$1" ] || shift
$CC -o p "$K/obj/probe.o" "$@" -Wl,--start-group "$K/lib/$h"/*.a -Wl,--end-group -lm >ld.log 2>&1 ||
    { echo "link failed"; head -c 4000 ld.log; exit 0; }
echo "link ok"; exec timeout -k 1 "$T" ./p "$ch" "$seed" "$K/tests/fixtures" 3>&1 >out 2>err'
# tests: HOLE NN -> "link ok" then what the test program prints (for the feedback only)
G_TEST_RUN='set -- "$@" "$IN"/*.o; h=$1 nn=$2; shift 2; [ -f "$1" ] || shift
$CC -o t "$K/obj/test_ch$nn.o" "$K/obj/harness.o" "$@" -Wl,--start-group "$K/lib/$h"/*.a -Wl,--end-group -lm >ld.log 2>&1 ||
    { echo "link failed"; head -c 4000 ld.log; exit 0; }
echo "link ok"; cd "$K" && exec timeout -k 1 "$T" "$W/t" 2>&1'

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
        bwrap --unshare-all --die-with-parent --new-session --clearenv --proc /proc \
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
# of the repository made with the flags the grader builds with (the Makefile's
# stamp .flags), its TARGETs (paths under build/) are copied into BASE instead of
# compiling everything again. Fails (and the caller builds) otherwise.
g_reuse_build() {
    _base=$1 _from=${BUILD:-build}
    shift
    [ -f "$_from/.flags" ] || return 1
    # any make run in BASE writes its stamp first, the line of flags it would build with
    g_make -C "$_base" BUILD=build CC="$CC" -q build/.flags >/dev/null 2>&1 </dev/null
    cmp -s "$_from/.flags" "$_base/build/.flags" || return 1
    _t=
    for t; do _t="$_t $_from/${t#build/}"; done
    g_make -q BUILD="$_from" CC="$CC" $_t >/dev/null 2>&1 </dev/null || return 1
    for t; do
        mkdir -p "$_base/$(dirname "$t")" && cp "$_from/${t#build/}" "$_base/$t" || return 1
    done
    echo "grade: the teacher's tree: reused $_from (up to date, same flags)" >>"$LOG"
}

# g_kit BASE: BASE/kit, what a sandbox may see: the headers, the teacher's test
# objects, harness and probe, and per concept file the libraries of the build
# (BASE/.libs) without that file's object (lib/<stem>/; lib/full/ keeps all).
g_kit() {
    _k=$1/kit
    rm -rf "$_k"
    mkdir -p "$_k/inc" "$_k/obj" "$_k/lib/full" "$_k/tests/fixtures" || return 1
    (cd "$1" && find common chapters tests -name '*.h' -type f) | while IFS= read -r h; do
        mkdir -p "$_k/inc/$(dirname "$h")" && cp "$1/$h" "$_k/inc/$h"
    done
    cp -R "$1/tests/fixtures/." "$_k/tests/fixtures/" 2>/dev/null
    for o in "$1"/build/obj/tests/*.o; do
        [ -f "$o" ] && cp "$o" "$_k/obj/"
    done
    $CC $(g_cflags 00) -I"$1" -c "$EX_DIR/probe.c" -o "$_k/obj/probe.o" >>"$LOG" 2>&1 || {
        echo "grade: the hidden checks (probe.c) do not build against the teacher's tree: $(first_error "$LOG")" >&2
        return 1
    }
    _libs=
    for a in $(cat "$1/.libs"); do _libs="$_libs $1/$a"; done
    [ -n "$_libs" ] || { echo "grade: the teacher's build has no library" >&2; return 1; }
    cp $_libs "$_k/lib/full/" || return 1
    for f in $(cd "$1" && concept_files); do
        _stem=$(basename "$f" .c)
        mkdir -p "$_k/lib/$_stem"
        for a in $_libs; do
            cp "$a" "$_k/lib/$_stem/" && ${AR:-ar} d "$_k/lib/$_stem/$(basename "$a")" "$_stem.o" 2>>"$LOG"
        done
    done
}

# g_setup LEVEL CHAPTERS: the run folder, the teacher's tree and kit built, the
# blanks handed out ($RUN/blanks.tsv: name points chapter file function symbol
# helpers refuse) and the teacher's probe output per chapter.
g_setup() {
    _level=$1 _chapters=$2
    mkdir -p build/grade/runs || die "grade: cannot create build/grade/runs"
    RUN=build/grade/runs/$$-$(g_random)
    mkdir -p "$RUN" || die "grade: cannot create $RUN"
    RUN=$(cd "$RUN" && pwd)
    LOG=$RUN/make.log
    : >"$LOG"
    g_need_sandbox || return 1
    [ "${GRADE_ALLOWLIST:-1}" = 0 ] &&
        echo "grade: WARNING: GRADE_ALLOWLIST=0: answers are not checked against the allow-list (a test of the sandbox alone; never grade a class so)" >&2
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
    [ -s "$RUN/stubs.tsv" ] || { echo "grade: no blanks of level <= $_level in chapters $(num_list "$CHS")" >&2; return 1; }

    # the trusted side's own program
    G_TOOL=$RUN/gradetool
    $CC -std=c99 -O2 "$EX_DIR/gradetool.c" -lm -o "$G_TOOL" >>"$LOG" 2>&1 ||
        { echo "grade: scripts/exercises/gradetool.c does not build: $(first_error "$LOG")" >&2; return 1; }

    # the teacher's tree and kit, built once and kept in build/grade/cache/<checksum>
    _nns=$(cut -f3 "$RUN/stubs.tsv" | sed -n 's|^chapters/\([0-9][0-9]\)_.*|\1|p' | sort -u)
    set -- build/obj/tests/harness.o
    for nn in $_nns; do
        [ -f "tests/test_ch$nn.c" ] && set -- "$@" "build/obj/tests/test_ch$nn.o"
    done
    _key=$( (echo "$CC $(g_cflags 00) $*"; find Makefile common chapters tests scripts/exercises/probe.c -type f ! -name '*.pyc' |
        LC_ALL=C sort | xargs cksum) | cksum | tr -c '0-9\n' _ | tr -d '\n')
    G_BASE=$(pwd)/build/grade/cache/$_key
    if [ ! -f "$G_BASE/.ready" ]; then
        write_tree "$RUN/base" 0 ""
        # the libraries: libattn.a (the probe calls every chapter) and those the
        # Makefile links the tests with (asked of make, not written here)
        _libs=build/libattn.a
        for nn in $_nns; do
            _libs="$_libs $(g_make -C "$RUN/base" -n -B BUILD=build CC="$CC" "build/tests/test_ch$nn" 2>/dev/null |
                grep -e "-o build/tests/test_ch$nn " | tr ' ' '\n' | grep '^build/.*\.a$')"
        done
        _libs=$(echo $_libs | tr ' ' '\n' | $AWK '!seen[$0]++' | tr '\n' ' ')
        echo "$_libs" >"$RUN/base/.libs"
        g_reuse_build "$RUN/base" $_libs "$@" || tree_make_clean "$RUN/base" BUILD=build CC="$CC" $_libs "$@" ||
            { echo "grade: the teacher's tree does not build: $(first_error "$LOG")" >&2; return 1; }
        g_kit "$RUN/base" || return 1
        : >"$RUN/base/.ready"
        mkdir -p build/grade/cache
        [ -e "$G_BASE" ] || mv "$RUN/base" "$G_BASE" 2>/dev/null || [ -f "$G_BASE/.ready" ] ||
            { echo "grade: cannot keep the teacher's tree in $G_BASE" >&2; return 1; }
        [ -d "$RUN/base" ] && G_BASE=$RUN/base  # another run was first: use ours
    fi
    G_KIT=$G_BASE/kit

    # name points chapter-nn file function symbol helpers refuse, in the order of the
    # repository; symbol: 1 when the teacher's object defines the function (nm), so
    # the student's must too; refuse: the list in blanks.txt and refuse.txt's
    $AWK -F '\t' 'FILENAME == ARGV[1] { if ($0 !~ /^#/ && NF >= 2) extra[$1] = extra[$1] " " $2; next }
        FILENAME == ARGV[2] { chosen[$1] = 1; next }
        ($1 in chosen) { nn = $3; sub(/^chapters\//, "", nn); sub(/_.*/, "", nn)
                         r = ($12 == "-" || $12 == "") ? "" : $12
                         printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", $1, $7, nn, $3, $8, $9, r extra[$1] }' \
        "$EX_DIR/refuse.txt" "$RUN/stubs.tsv" "$RUN/all.tsv" >"$RUN/b0.tsv"
    : >"$RUN/blanks.tsv"
    while IFS='	' read -r name pts nn file func helpers refuse; do
        sym=0
        nm -A "$G_KIT/lib/full/"*.a 2>/dev/null | $AWK -v m=":$(basename "$file" .c).o:" -v f="$func" \
            'index($1, m) && $3 == f && ($2 == "T" || $2 == "t") { found = 1 } END { exit !found }' && sym=1
        if [ "$sym" = 1 ] && nm -A "$G_KIT/lib/$(basename "$file" .c)"/*.a 2>/dev/null | $AWK -v f="$func" '$3 == f && $2 == "T" { found = 1 } END { exit !found }'; then
            echo "grade: the kit's libraries for $file still define $func(); cannot grade it alone" >&2
            return 1
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$pts" "$nn" "$file" "$func" "$sym" "$helpers" "$refuse" >>"$RUN/blanks.tsv"
    done <"$RUN/b0.tsv"
    GCHS=$(cut -f3 "$RUN/blanks.tsv" | sort -u)

    # the names every answer may use (extract.awk's allow-list): keywords, the
    # standard and libm names it lists itself, and what the headers declare
    # (of a chapter's header: its types, macros and constants, not its functions)
    (cd "$G_KIT/inc" && find common -maxdepth 1 -name '*.h' -type f | LC_ALL=C sort) >"$RUN/api.list"
    (cd "$G_KIT/inc" && find chapters -name '*.h' -type f | LC_ALL=C sort) >"$RUN/chh.list"
    _ex=$(pwd)/$EX_DIR
    (cd "$G_KIT/inc" && $AWK -f "$_ex/extract.awk" -v mode=harvest -v api="$RUN/api.list" -v chh="$RUN/chh.list" /dev/null) >"$RUN/allow.txt" ||
        { echo "grade: cannot read the headers for the allow-list" >&2; return 1; }

    G_SEED=${GRADE_SEED:-$(g_random)}  # GRADE_SEED=N repeats a run's hidden inputs
    mkdir -p "$RUN/want/in"
    # the teacher's code on the same inputs, in the same kind of sandbox
    for nn in $GCHS; do
        g_box "$RUN/want/raw$nn" "$RUN/want/in" "$G_PROBE_RUN" full "$(chapter_num "$nn")" "$G_SEED"
        if [ "$(sed -n 2p "$RUN/want/raw$nn")" = "no probe for chapter $(chapter_num "$nn")" ]; then
            echo "grade: chapter $(chapter_num "$nn") has blanks but no hidden checks in scripts/exercises/probe.c; its answers cannot be graded until it has them" >&2
            return 1
        fi
        if [ "$(head -n 1 "$RUN/want/raw$nn")" != "link ok" ] || [ "$(tail -n 1 "$RUN/want/raw$nn")" != "probe done" ]; then
            echo "grade: the teacher's hidden checks of chapter $(chapter_num "$nn") do not run in the sandbox (exit $(cat "$RUN/want/raw$nn.rc")):" >&2
            head -c 600 "$RUN/want/raw$nn" >&2
            return 1
        fi
        tail -n +2 "$RUN/want/raw$nn" >"$RUN/want/probe$nn"
    done
    return 0
}

# A make run in tree $1 with the grader's own flags (see g_make); output to $LOG.
tree_make_clean() {
    _t=$1
    shift
    g_make -C "$_t" $JOBS "$@" >>"$LOG" 2>&1 </dev/null
}

# The first failing check, in words, from what a test program printed (feedback only).
g_first_failure() { # OUT
    _f=$($AWK '/: test_[A-Za-z0-9_]*: / && match($0, /: test_[A-Za-z0-9_]*: /) { print substr($0, RSTART + 2); exit }' "$1" 2>/dev/null)
    [ -n "$_f" ] || _f=$(grep -a -m1 "exercise '" "$1" 2>/dev/null | sed 's/^[^:]*: //')
    g_clean "$_f"
}

# g_grade_student DIR K ID [BAD-REASON]: grade one tree into $RUN/s/K/result.tsv
# (blank points max message). A folder whose name is not data (BAD-REASON) gets 0.
g_grade_student() {
    _dir=$1 _s=$RUN/s/$2 _id=$3
    rm -rf "$_s"
    mkdir -p "$_s/x"
    : >"$_s/status.tsv"
    : >"$_s/result.tsv"
    if [ -n "${4:-}" ]; then
        while IFS='	' read -r name pts _; do
            printf '%s\t0\t%s\t%s\n' "$name" "$pts" "not graded: $4" >>"$_s/result.tsv"
        done <"$RUN/blanks.tsv"
        return 0
    fi
    # every concept file that holds a graded blank: cut the answers out
    for f in $(cut -f4 "$RUN/blanks.tsv" | $AWK '!seen[$0]++'); do
        names=$($AWK -F '\t' -v f="$f" '$4 == f { printf "%s ", $1 }' "$RUN/blanks.tsv")
        src=$_dir/$f
        # the file and every folder on its way must be what they seem: no links, no FIFOs, not huge
        _why=
        _p=$_dir
        for _c in $(echo "$f" | tr '/' ' '); do
            _p=$_p/$_c
            [ -L "$_p" ] && { _why="$f is reached through a link in your tree; links are not followed"; break; }
        done
        if [ -z "$_why" ]; then
            if [ ! -f "$src" ]; then _why="$f is not in your tree"
            elif [ -n "$(find "$src" -prune -size +1024k)" ]; then _why="your $f is larger than 1 MB"
            fi
        fi
        if [ -n "$_why" ]; then
            for nm in $names; do printf '%s\tnofunc\t%s\n' "$nm" "$_why"; done >>"$_s/status.tsv"
            continue
        fi
        $AWK -f "$EX_DIR/extract.awk" -v ref="$RUN/orig/$f" -v blanks="$names" -v outdir="$_s/x" \
            -v allow="$RUN/allow.txt" -v info="$RUN/blanks.tsv" -v allowlist="${GRADE_ALLOWLIST:-1}" "$src" >>"$_s/status.tsv" 2>"$_s/extract.err" ||
            for nm in $names; do printf '%s\tnofunc\tyour %s could not be read\n' "$nm" "$f"; done >>"$_s/status.tsv"
    done
    while IFS='	' read -r name pts nn file func sym _; do
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
            answer) g_grade_answer "$name" "$nn" "$file" "$func" "$sym" && got=$pts
                    msg=$g_msg${det:+ ($det)} ;;
            *) msg="not found: the blank is missing from your tree" ;;
        esac
        printf '%s\t%s\t%s\t%s\n' "$name" "$got" "$pts" "$(g_clean "$msg")" >>"$_s/result.tsv"
    done <"$RUN/blanks.tsv"
    rm -rf "$_s/x" "$_s/w"
}

# One answer: compiled in the sandbox, its object checked (nm), linked in the
# sandbox with the kit's libraries that lack the teacher's copy of its file, the
# probe run there; the grader compares the probe's numbers with the teacher's.
# Sets g_msg; status 0 when the blank earns its points.
g_grade_answer() { # NAME NN FILE FUNC SYMBOL
    _nm=$1 _nn=$2 _file=$3 _fn=$4 _sym=$5
    _w=$_s/w/$_nm
    _hole=$(basename "$_file" .c)
    mkdir -p "$_w/src" "$_w/obj"
    cp "$_s/x/$_nm.c" "$_w/src/$_hole.c"
    G_KIT_PART=/inc  # the compiler sees the headers and the answer, nothing else
    g_box "$_w/cc.out" "$_w/src" "$G_COMPILE" "$(g_cflags "$_nn")" "$(dirname "$_file")" "$_hole.c"
    G_KIT_PART=
    if [ "$(head -c 4 "$_w/cc.out" | od -An -c | tr -d ' \n')" != '177ELF' ]; then
        case $(cat "$_w/cc.out.rc") in
            0) g_msg="does not compile: $(g_clean "$(tail -n +2 "$_w/cc.out" >"$_w/cc.log"; first_error "$_w/cc.log" | sed 's|/in/||g')")" ;;
            *) g_msg="does not compile: the compiler was stopped (time limit ${GRADE_TIME} s, memory or output limit)" ;;
        esac
        return 1
    fi
    mv "$_w/cc.out" "$_w/obj/answer.o"
    if [ "$_sym" = 1 ] && ! nm --defined-only "$_w/obj/answer.o" 2>/dev/null |
        $AWK -v f="$_fn" '$3 == f && ($2 == "T" || $2 == "t") { found = 1 } END { exit !found }'; then
        g_msg="not accepted: your $(basename "$_file") does not define $_fn() itself (the function that holds the blank)"
        return 1
    fi
    g_box "$_w/probe.out" "$_w/obj" "$G_PROBE_RUN" "$_hole" "$(chapter_num "$_nn")" "$G_SEED"
    _l1=$(head -n 1 "$_w/probe.out")
    if [ "$_l1" = "link failed" ]; then
        tail -n +2 "$_w/probe.out" >"$_w/ld.log"
        g_msg="does not link: $(first_error "$_w/ld.log" | sed -e 's|/in/||g' -e 's|/k/||g' -e 's|/w/||g')"
        return 1
    elif [ "$_l1" != "link ok" ]; then
        g_msg="could not be linked in the sandbox (time or memory limit)"
        return 1
    fi
    tail -n +2 "$_w/probe.out" >"$_w/probe.txt"
    _d=$("$G_TOOL" compare "$RUN/want/probe$_nn" "$_w/probe.txt")
    _st=$?
    [ "$_st" -le 1 ] || { g_msg="not graded: the grader could not compare the hidden checks"; return 1; }
    if [ "$_st" -eq 0 ]; then
        g_msg="correct (hidden checks on fresh random inputs agree with the teacher's code)"
        return 0
    fi
    case $(cat "$_w/probe.out.rc") in
        124 | 137) _d="$_d (stopped after ${GRADE_TIME} s)" ;;
    esac
    g_msg="a hidden check on fresh random inputs fails: $_d"
    # the chapter's tests, for the feedback only: the first failing check in words
    if [ -f "$G_KIT/obj/test_ch$_nn.o" ]; then
        g_box "$_w/test.out" "$_w/obj" "$G_TEST_RUN" "$_hole" "$_nn"
        _f=$(g_first_failure "$_w/test.out")
        case $(cat "$_w/test.out.rc") in
            124 | 137) _f="${_f:-did not finish} (the tests were stopped after ${GRADE_TIME} s)" ;;
        esac
        if [ -n "$_f" ]; then
            g_msg="$g_msg; the tests of chapter $(chapter_num "$_nn") fail too, first: $_f"
        fi
    fi
    return 1
}

# Feedback for a student, from result.tsv.
g_feedback() { # ID RESULT LEVEL
    $AWK -F '\t' -v lv="$3" '
        { n++; nm[n] = $1; got[n] = $2; max[n] = $3; msg[n] = $4; X += $2; Y += $3 }
        END {
            printf "student %s: %d/%d points (level %s)\n\n", ENVIRON["G_ID"], X, Y, lv
            for (i = 1; i <= n; i++) printf "%-30s %d/%d  %s\n", nm[i], got[i], max[i], msg[i]
        }' "$2"
}
