# grade_lib.sh — the grading engine of make grade and make grade-class
# (sourced after lib.sh; POSIX sh + awk, bubblewrap for the sandbox, and
# gradetool.c for what must not be done on text the students control).
#
# Trust model (docs/TEACHING.md, section 4):
#   - The sandbox returns data, the grader decides. Points come only from
#     gradetool compare, run here, on the numbers the probe (probe.c) prints
#     for the student's build and for the teacher's build, on inputs drawn
#     from a seed chosen here, fresh for every run (the probe gets a number
#     derived from it, never the seed). The chapter's tests run too, but only
#     for the feedback text.
#   - The student's file is one translation unit: compiled as written, then cut
#     down to one blank's function and what it reaches there (G_REDUCE), linked
#     with the teacher's rest of that file compiled apart without the function
#     (g_kit's rest-FUNC.o). Nothing the student defines changes the teacher's
#     code; the student's function calls the student's own everything else.
#   - Safe by absence. Three kinds of sandbox (see "The sandboxes" below): the
#     compiler sees the headers and the student's file; the linker sees the probe
#     and test objects, the teacher's rest of the file without the graded
#     function and the libraries WITHOUT any object of that file;
#     the student's program runs where nothing else exists but it and the
#     tests' input files. What a sandbox prints comes back through a pipe, cut
#     at GRADE_OUTPUT_BYTES, into a file that only the grader opens.
#   - Policy from the object. What an answer may call is read from its
#     object's symbols (gradetool policy), never from its spelling, and its code
#     holds no system-call instruction (objdump); the text is only read to find
#     the blanks' functions and untouched stubs (extract.awk), as the compiler
#     reads it (gradetool normalize).
#   - Nothing raw out: what came from a student reaches a terminal or a file
#     only through g_clean (\xHH for any byte that is not printable ASCII).
#   - Limits the kernel enforces: an unprivileged user, RLIMIT_NPROC/AS/CPU/
#     FSIZE set inside each sandbox (gradetool limit), a cgroup per sandbox
#     when one can be made, a wall time per step and per submission.
#
# One grading run works in its own folder $RUN (build/grade/runs/<pid>-<random>):
#   $RUN/orig      the teacher's marked concept files (what answers are cut from)
#   $RUN/want      the teacher's probe output per chapter
#   $RUN/s/<k>     one folder per student (k = its row): answers, results
# The teacher's tree and the kit are built once and kept in build/grade/cache/.

G_USER_LOCALE=${LC_ALL:-${LC_MESSAGES:-${LANG:-}}}   # (the feedback's language, before C)
LC_ALL=C
export LC_ALL
GRADE_TIME=${GRADE_TIME:-60}       # seconds for one compile, link or run in the sandbox
GRADE_MEM_KB=${GRADE_MEM_KB:-2097152}  # address space of one sandboxed process (ulimit -v)
GRADE_OUTPUT_BYTES=${GRADE_OUTPUT_BYTES:-16777216}  # what one sandbox may print
GRADE_SOURCE_BYTES=${GRADE_SOURCE_BYTES:-1048576}  # the largest chapter file of a student read (1 MB)
GRADE_STUDENT_SECONDS=${GRADE_STUDENT_SECONDS:-900}  # one submission's wall time: later answers are not graded
GRADE_CACHE_KEEP=${GRADE_CACHE_KEEP:-3}  # the kits build/grade/cache/ keeps (the one in use always)

# The flags of the Makefile (keep in step): strict C99, -O2; chapter 8 -O3.
G_STRICT="-std=c99 -Wall -Wextra -Wpedantic -Werror -Wvla"
g_cflags() { # CHAPTER_NN
    case $1 in
        08) echo "$G_STRICT -O3 -march=native" ;;
        *) echo "$G_STRICT -O2" ;;
    esac
}

# The flags the student's file is compiled with besides the Makefile's (G_SECTIONS):
# each function and datum in a section of its own (so that a blank's function can be
# cut out with what it reaches) and its static functions kept whole, with their
# signatures (a blank in one: chapter 8's flash_tile): gcc's -fkeep-static-functions
# and no interprocedural changes of parameters. A compiler without those flags (clang)
# inlines a static function into its callers and drops it, or changes its parameters;
# a file that holds a blank in a static function is compiled at -O0 there
# (G_KEEP_STATIC, added after the Makefile's -O), which keeps every static function
# that is called, as written. SCRATCH: a path for a trial object file.
g_sections() { # SCRATCH
    G_SECTIONS="-ffunction-sections -fdata-sections"
    G_KEEP_STATIC=
    if $CC -fkeep-static-functions -fno-ipa-sra -fno-ipa-cp -x c -c /dev/null -o "$1" >/dev/null 2>&1; then
        G_SECTIONS="$G_SECTIONS -fkeep-static-functions -fno-ipa-sra -fno-ipa-cp"
    else
        G_KEEP_STATIC=-O0
    fi
    rm -f "$1"
}

# A fresh random number (decimal) from /dev/urandom.
g_random() {
    od -An -N6 -tu8 /dev/urandom 2>/dev/null | tr -d ' \n' || echo "$$$(date +%s)"
}

# The number the probe of chapter NN draws its inputs from: the first 48 bits of
# SHA-256 of the run's seed and the chapter, so that what a sandbox holds (the probe's
# arguments and memory) does not give the seed away, which the record keeps for a regrade.
g_probe_seed() { # NN
    printf '%d' "0x$(printf 'attention-in-c probe %s %s' "$G_SEED" "$1" | sha256sum | cut -c1-12)"
}

# Text that came out of a sandbox or a student's files, made fit for one feedback
# line or a terminal: tab, CR and LF become spaces, every other byte that is not
# printable ASCII is shown as \xHH (an escape sequence is text, never acted on);
# at most 300 characters (or MAX) before that; a longer text is cut after its last whole
# word that fits, and ends in "[cut]".
g_clean() { # TEXT [MAX]
    printf '%s' "$1" | tr '\t\r\n' '   ' | head -c 100000 | $AWK -v max="${2:-300}" '
        BEGIN { for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i }
        function esc(t,    o, i, c, n) {
            n = length(t)
            for (i = 1; i <= n; i++) { c = substr(t, i, 1); o = o ((c >= " " && c <= "~") ? c : sprintf("\\x%02x", ord[c])) }
            return o
        }
        { s = s $0 } END { if (length(s) <= max) { printf "%s", esc(s); exit }
          t = substr(s, 1, max - 6); if (substr(s, max - 5, 1) != " " && match(t, / [^ ]*$/)) t = substr(t, 1, RSTART - 1)
          printf "%s [cut]", esc(t) }'
}

# make, run without what the calling make passed down (make sanitize's
# EXTRA_CFLAGS, OPT, ...): the grader builds the teacher's tree with its own flags.
g_make() {
    (unset MAKEFLAGS MAKEOVERRIDES MFLAGS EXTRA_CFLAGS EXTRA_LDFLAGS OPT FAST_OPT CFLAGS RUNNER OMP BUILD
        exec $MAKE --no-print-directory "$@")
}

# The sandboxes. Each step of an answer runs in a fresh bubblewrap sandbox of its
# own kind, as uid 65534 of a new user namespace (no capabilities, no further
# namespaces), with new PID, network, IPC and mount namespaces, no /dev and no
# /proc, a private /tmp and /w (tmpfs, 256 MB each), and under the limits that
# gradetool limit sets inside it (processes, address space, file size, CPU):
#   compile  the system (compiler), the kit's headers (/k/inc) and the answer (/in)
#   link     the system (linker), the probe and test objects (/k/obj), the kit's
#            libraries WITHOUT any object of the answer's file (/k/lib) and the
#            answer's object (/in)
#   run      nothing but the statically linked program (/p) and the tests' input
#            files (/k/tests/fixtures): no shell, compiler, tool or library
# What a step prints on standard output (the probe: its descriptor 3) comes back
# through a pipe, cut at GRADE_OUTPUT_BYTES, into a file that only the grader opens.
GRADE_NPROC=${GRADE_NPROC:-16}   # processes in one sandbox (RLIMIT_NPROC there)
# When the grader runs as root, bwrap itself runs as the user nobody (setpriv), so
# that the sandbox is an unprivileged user of the machine, not root mapped to 65534
# (the kernel exempts root from the process cap); G_AS is that prefix.
G_AS=
G_BWRAP='--unshare-all --unshare-user --uid 65534 --gid 65534 --disable-userns --die-with-parent --new-session --clearenv'

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

# Control groups, when this machine lets the grader make them (as root): each
# sandbox then runs in a group of its own with a process cap (pids.max) and a
# memory limit for all its processes together (memory.max, v1 memory.limit_in_bytes)
# of GRADE_MEM_KB. cgroup v2 is used when its root offers the pids and memory
# controllers, else v1's pids and memory hierarchies. G_CG: the run's parent groups
# (empty: none could be made, and the per-process limits are all there is).
G_CG=
g_cgroup_setup() {
    G_CG= G_CGV=
    [ "$G_UNSAFE" = 1 ] && return 0
    [ "${GRADE_CGROUP:-1}" = 0 ] && return 0
    _cn=attn-grade-$$-$(g_random)
    _v2=$($AWK '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts 2>/dev/null)
    if [ -n "$_v2" ] && grep -qw pids "$_v2/cgroup.controllers" 2>/dev/null && grep -qw memory "$_v2/cgroup.controllers" 2>/dev/null &&
        { echo "+pids +memory" >"$_v2/cgroup.subtree_control"; } 2>/dev/null && mkdir "$_v2/$_cn" 2>/dev/null; then
        if { echo "+pids +memory" >"$_v2/$_cn/cgroup.subtree_control"; } 2>/dev/null; then
            G_CG=$_v2/$_cn G_CGV=2
        else
            rmdir "$_v2/$_cn"
        fi
    fi
    if [ -z "$G_CG" ] && [ -d /sys/fs/cgroup/pids ] && [ -d /sys/fs/cgroup/memory ] &&
        mkdir /sys/fs/cgroup/pids/$_cn 2>/dev/null; then
        if mkdir /sys/fs/cgroup/memory/$_cn 2>/dev/null; then
            G_CG="/sys/fs/cgroup/pids/$_cn /sys/fs/cgroup/memory/$_cn" G_CGV=1
        else
            rmdir /sys/fs/cgroup/pids/$_cn
        fi
    fi
    if [ -n "$G_CG" ]; then
        echo "grade: each sandbox in a cgroup (v$G_CGV) of its own under $G_CG" >>"$LOG"
    else
        echo "grade: no cgroup could be made here (not root, or no pids and memory controllers): the process cap and the memory limit are per sandbox (RLIMIT_NPROC) and per process (RLIMIT_AS)" >>"$LOG"
    fi
}
# g_cg_new: a group for one sandbox; sets G_CGD (its folders, one per hierarchy)
g_cg_new() {
    G_CGD=
    [ -n "$G_CG" ] || return 0
    _id=$(g_random)
    for _p in $G_CG; do
        mkdir "$_p/$_id" 2>/dev/null || continue
        G_CGD="$G_CGD $_p/$_id"
        case $G_CGV:$_p in
            2:*) echo $((GRADE_NPROC + 4)) >"$_p/$_id/pids.max"; echo $((GRADE_MEM_KB * 1024)) >"$_p/$_id/memory.max"
                 echo 0 >"$_p/$_id/memory.swap.max" 2>/dev/null ;;
            1:*/pids/*) echo $((GRADE_NPROC + 4)) >"$_p/$_id/pids.max" ;;
            1:*) echo $((GRADE_MEM_KB * 1024)) >"$_p/$_id/memory.limit_in_bytes" ;;
        esac
    done 2>/dev/null
}
g_cg_done() { for _d in $G_CGD; do rmdir "$_d" 2>/dev/null; done; G_CGD=; }
# (the whole run's groups, at the end: a sandbox's last processes may take a moment to go)
g_cgroup_cleanup() {
    for _p in $G_CG; do
        [ -d "$_p" ] || continue
        _i=0
        while [ "$_i" -lt 50 ]; do
            for _d in "$_p"/*/; do [ -d "$_d" ] && rmdir "$_d" 2>/dev/null; done
            rmdir "$_p" 2>/dev/null && break
            _i=$((_i + 1))
            sleep 0.1
        done
    done
}
# the command, entered into the group G_CGD first
G_CG_ENTER='while [ "$1" != -- ]; do echo $$ >"$1/cgroup.procs" 2>/dev/null || :; shift; done; shift; exec "$@"'

# g_tool OUT KIND IN SCRIPT [ARGS]: a compile or link step (KIND compile, or link:STEM),
# SCRIPT run by /bin/sh in the sandbox with $K (the kit's part), $IN (the input
# folder, read-only) and $W (scratch); its standard output (at most
# GRADE_OUTPUT_BYTES) goes to OUT, the exit status to OUT.rc (124: the time limit).
g_tool() {
    _bo=$1 _bk=$2 _bi=$3 _bs=$4
    shift 4
    _tl=$((GRADE_TIME * 3 + 10))
    if [ "$G_UNSAFE" = 1 ]; then
        _bw=$(mktemp -d "$G_SBX/unsafe.XXXXXX") || return 1
        [ -z "$G_AS" ] || chown 65534:65534 "$_bw" || return 1
        case $_bk in
            compile) _kk=$G_KIT ;;
            *) _kk=$_bw/k && mkdir -p "$_kk" && ln -s "$G_KIT/obj" "$_kk/obj" && ln -s "$G_KIT/lib/${_bk#link:}" "$_kk/lib" ;;
        esac
        { (cd "$_bw" && K=$_kk IN=$_bi W=$_bw CC=$CC timeout -k 2 "$_tl" $G_AS \
            "$G_TOOL" limit - "$GRADE_MEM_KB" 65536 "$_tl" /bin/sh -c "$_bs" sh "$@" </dev/null 2>/dev/null)
            echo $? >"$_bo.rc"; } | head -c "$GRADE_OUTPUT_BYTES" >"$_bo"
        rm -rf "$_bw"
        return 0
    fi
    set -- /g limit "$GRADE_NPROC" "$GRADE_MEM_KB" 65536 "$_tl" /bin/sh -c "$_bs" sh "$@"
    case $_bk in
        compile) set -- --ro-bind "$G_KIT/inc" /k/inc "$@" ;;
        link:*) set -- --ro-bind "$G_KIT/obj" /k/obj --ro-bind "$G_KIT/lib/${_bk#link:}" /k/lib "$@" ;;
    esac
    g_cg_new
    { /bin/sh -c "$G_CG_ENTER" sh $G_CGD -- timeout -k 2 "$_tl" $G_AS bwrap $G_BWRAP \
        --setenv PATH /usr/bin:/bin --setenv LC_ALL C --setenv HOME /w \
        --setenv K /k --setenv IN /in --setenv W /w --setenv CC "$CC" \
        --size 268435456 --tmpfs /tmp --size 268435456 --tmpfs /w $G_SYSBINDS \
        --ro-bind "$_bi" /in --ro-bind "$G_TOOL" /g --chdir /w "$@" </dev/null 2>/dev/null
        echo $? >"$_bo.rc"; } | head -c "$GRADE_OUTPUT_BYTES" >"$_bo"
    g_cg_done
}

# g_run OUT EXE MODE [ARGS]: run a linked program in the run sandbox, which holds
# the program and the tests' inputs, nothing else. MODE probe: the program gets
# ARGS and the fixtures' folder, its results (descriptor 3) go to OUT, what it
# prints is dropped; MODE tests: it runs in /k (where tests/fixtures is) and its
# standard output and error go to OUT. At most GRADE_OUTPUT_BYTES; the exit
# status to OUT.rc (124 or 137: the time limit).
g_run() {
    _ro=$1 _re=$2 _rm=$3
    shift 3
    _lim="$GRADE_NPROC $GRADE_MEM_KB 65536 $((GRADE_TIME + 5))"
    if [ "$G_UNSAFE" = 1 ]; then
        _bw=$(mktemp -d "$G_SBX/unsafe.XXXXXX") || return 1
        mkdir -p "$_bw/k/tests" "$_bw/w" && ln -s "$G_KIT/fixtures" "$_bw/k/tests/fixtures"
        [ -z "$G_AS" ] || chown -R 65534:65534 "$_bw" || return 1
        _lim="- $GRADE_MEM_KB 65536 $((GRADE_TIME + 5))"
        if [ "$_rm" = tests ]; then
            { (cd "$_bw/k" && timeout -k 1 "$GRADE_TIME" $G_AS "$G_TOOL" limit $_lim "$_re" </dev/null 2>&1)
                echo $? >"$_ro.rc"; } | head -c "$GRADE_OUTPUT_BYTES" >"$_ro"
        else
            { (cd "$_bw/w" && timeout -k 1 "$GRADE_TIME" $G_AS "$G_TOOL" limit $_lim "$_re" "$@" "$_bw/k/tests/fixtures" \
                3>&1 >/dev/null 2>&1 </dev/null)
                echo $? >"$_ro.rc"; } | head -c "$GRADE_OUTPUT_BYTES" >"$_ro"
        fi
        rm -rf "$_bw"
        return 0
    fi
    g_cg_new
    if [ "$_rm" = tests ]; then
        { /bin/sh -c "$G_CG_ENTER" sh $G_CGD -- timeout -k 1 "$GRADE_TIME" $G_AS bwrap $G_BWRAP --size 268435456 --tmpfs /tmp --size 268435456 --tmpfs /w \
            --ro-bind "$_re" /p --ro-bind "$G_TOOL" /g --ro-bind "$G_KIT/fixtures" /k/tests/fixtures --chdir /k \
            /g limit $_lim /p </dev/null 2>&1
            echo $? >"$_ro.rc"; } | head -c "$GRADE_OUTPUT_BYTES" >"$_ro"
    else
        { /bin/sh -c "$G_CG_ENTER" sh $G_CGD -- timeout -k 1 "$GRADE_TIME" $G_AS bwrap $G_BWRAP --size 268435456 --tmpfs /tmp --size 268435456 --tmpfs /w \
            --ro-bind "$_re" /p --ro-bind "$G_TOOL" /g --ro-bind "$G_KIT/fixtures" /k/tests/fixtures --chdir /w \
            /g limit $_lim /p "$@" /k/tests/fixtures 3>&1 >/dev/null 2>&1 </dev/null
            echo $? >"$_ro.rc"; } | head -c "$GRADE_OUTPUT_BYTES" >"$_ro"
    fi
    g_cg_done
}

# the scripts of the compile and link sandboxes ($1.. their arguments; "/g limit" first)
# compile: CFLAGS CHAPTER-DIR SOURCE -> the object on stdout, or "error" and the messages
G_COMPILE='$CC $1 -I"$K/inc" -I"$K/inc/$2" -c "$IN/$3" -o a.o >cc.log 2>&1 && exec cat a.o
echo "error"; head -c 4000 cc.log'
# link: MAIN-OBJECTS... -> the static program on stdout, or "link failed" and the messages
# (a blank's program also links the teacher's rest of its file, rest-FUNC.o: see g_kit)
G_LINK='o=; for x in "$@"; do o="$o $K/obj/$x"; done
r=; [ -f "$IN/with-rest" ] && r=$K/lib/rest-$(cat "$IN/with-rest").o
$CC -static -o p $o "$IN/answer.o" $r -Wl,--start-group "$K/lib"/*.a -Wl,--end-group -lm >ld.log 2>&1 ||
    { echo "link failed"; head -c 4000 ld.log; exit 0; }
exec cat p'
# reduce: FUNC STATIC -> on stdout, the student's object of the whole file cut down to
# FUNC and what it reaches (its other functions and data, local), or "reduce failed":
# FUNC alone stays global (made global first when the file has it static), so the
# student's FUNC replaces the teacher's and every other function of the student's
# file is the student's own, seen only by the student's code
G_REDUCE='f=$1
cp "$IN/student.o" a.o || exit 0
if [ "$2" = 1 ]; then objcopy --globalize-symbol="$f" a.o b.o >cc.log 2>&1 && mv b.o a.o || { echo "reduce failed"; exit 0; }; fi
objcopy --keep-global-symbol="$f" a.o b.o >cc.log 2>&1 && ld -r --gc-sections -e "$f" b.o -o c.o >>cc.log 2>&1 &&
    objcopy --strip-unneeded c.o d.o >>cc.log 2>&1 && exec cat d.o
echo "reduce failed"; head -c 2000 cc.log'

# Is the sandbox usable? Sets G_UNSAFE (and G_AS); dies loudly when there is none
# and the teacher did not set GRADE_UNSAFE=1.
g_need_sandbox() {
    g_sysbinds
    G_UNSAFE=0
    G_AS=
    G_SBX=$RUN
    if [ "$(id -u)" = 0 ]; then
        _as="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
        if ! command -v setpriv >/dev/null 2>&1; then
            :
        elif $_as test -x "$RUN" 2>/dev/null; then
            G_AS=$_as
        else
            # the repository is not reachable by nobody (a private home, say): what the
            # sandboxes see is staged in a folder of /tmp that nobody can enter but not list
            G_STAGE=$(mktemp -d /tmp/attn-grade.XXXXXX 2>/dev/null) && chmod 0711 "$G_STAGE" &&
                $_as test -x "$G_STAGE" 2>/dev/null && G_AS=$_as G_SBX=$G_STAGE
        fi
        [ -n "$G_AS" ] ||
            echo "grade: WARNING: grading as root, and the user nobody cannot reach $RUN nor a folder of /tmp (or there is no setpriv): the sandboxes run as root mapped to an unprivileged user, which the kernel does not hold to the process cap" >&2
    fi
    if command -v bwrap >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1 &&
        $G_AS bwrap $G_BWRAP --tmpfs /tmp $G_SYSBINDS /bin/sh -c 'exit 0' </dev/null >/dev/null 2>"$RUN/bwrap.err"; then
        return 0
    fi
    if [ "${GRADE_UNSAFE:-}" = 1 ] && [ -n "$G_AS" ]; then
        # as root (a grading container): the student's code runs as the user nobody,
        # which cannot write the grader's files; the container is the boundary
        echo "grade: WARNING: no working sandbox (bubblewrap: $(head -n 1 "$RUN/bwrap.err" 2>/dev/null || echo 'bwrap not found')); GRADE_UNSAFE=1: student code runs unconfined but as the user nobody, inside this machine or container" >&2
        G_UNSAFE=1
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

# GRADE_SEED and GRADE_VISIBILITY, checked before any work (exit 2 on a bad one).
# A seed is a whole number of at most 15 digits (exact in JSON); the visibility
# is Gradescope's word for when a student sees the hidden checks' lines.
g_check_env() { # WHO
    case ${GRADE_SEED:-} in
        "") ;;
        *[!0-9]* | ????????????????*) die "$1: GRADE_SEED=$GRADE_SEED: the seed must be a whole number of at most 15 digits, e.g. GRADE_SEED=12345" ;;
    esac
    # the feedback's language: GRADE_LANG, else the environment as the programs read it
    # (LC_ALL, then LC_MESSAGES, then LANG: zh... is Chinese)
    G_LANG=${GRADE_LANG:-}
    if [ -z "$G_LANG" ]; then
        case $G_USER_LOCALE in zh*) G_LANG=zh ;; *) G_LANG=en ;; esac
    fi
    case $G_LANG in
        en | zh) ;;
        *) die "$1: GRADE_LANG=$G_LANG: the feedback's language is en or zh" ;;
    esac
    G_VIS=${GRADE_VISIBILITY:-after_published}
    case $G_VIS in
        hidden | after_due_date | after_published | visible) ;;
        *) die "$1: GRADE_VISIBILITY=$G_VIS: say when students see the hidden checks: hidden, after_due_date, after_published (the default) or visible" ;;
    esac
    g_check_limits "$1"
}

# g_check_limits WHO: the sandbox's limits, GRADE_SOURCE_BYTES and GRADE_CACHE_KEEP are whole numbers from 1,
# GRADE_STUDENT_SECONDS from 0 (one sentence, exit 2)
g_check_limits() {
    for _k in GRADE_TIME GRADE_MEM_KB GRADE_OUTPUT_BYTES GRADE_STUDENT_SECONDS GRADE_NPROC GRADE_SOURCE_BYTES; do
        eval "_v=\$$_k"
        case $_k:$_v in
            GRADE_STUDENT_SECONDS:0) ;;   # (no time at all: no answer is graded, each says so)
            *: | *:*[!0-9]* | *:0* | *:?????????????*) die "$1: $_k=$_v: give a whole number from 1 (docs/TEACHING.md, The sandbox)" ;;
        esac
    done
    case $GRADE_CACHE_KEEP in
        *[!0-9]* | 0* | ?????????????*)
            die "$1: GRADE_CACHE_KEEP=$GRADE_CACHE_KEEP: give a whole number from 1, how many kits build/grade/cache/ keeps (the one in use is always kept)" ;;
    esac
}

# The grader's version, for the record: git describe of this repository (or
# "unknown") and the checksum of the sources the kit was built from.
g_version() {
    _v=$(git describe --always --dirty 2>/dev/null) || _v=
    echo "${_v:-unknown}, sources ${G_KEY:-unknown}"
}

# g_handout_check DIR: does the tree's handout (.exercise-manifest, written by make
# exercises) match what is graded, the level G_LEVEL and every blank of blanks.tsv?
# Prints the reason when it does not, nothing when it does. The manifest is only
# ever compared: it can take a student's points away (0, with the reason), never
# give any, since the blanks graded and their points are the teacher's.
g_handout_check() {
    _m=$1/.exercise-manifest
    if [ -z "$(ls -A "$1" 2>/dev/null | head -n 1)" ]; then
        echo "this folder is empty: nothing was handed in"
        return 0
    fi
    if [ -L "$_m" ] || [ ! -f "$_m" ]; then
        echo "the handout's .exercise-manifest is not in this tree (it says which level and blanks were handed out); put it back as it was handed out"
        return 0
    fi
    head -c 1048576 "$_m" | $AWK -F '\t' -v lv="$G_LEVEL" -v blanks="$RUN/blanks.tsv" '
        /^# level: / && level == "" { level = substr($0, 10) }
        /^#/ { next }
        { have[$1] = 1 }
        END {
            if (level != lv) {
                printf "this tree was handed out at level %s and is graded at LEVEL=%s; grade it at the level handed out\n", (level == "" ? "(none)" : level), lv
                exit
            }
            while ((getline l < blanks) > 0) {
                split(l, f, "\t")
                if (!(f[1] in have)) {
                    printf "blank '\''%s'\'' is graded but was not a blank of this handout (its .exercise-manifest); grade it with the LEVEL and CHAPTERS handed out\n", f[1]
                    exit
                }
            }
        }'
}

# g_results ID K: the LMS results of student K (Gradescope and PrairieLearn), in OUT
g_results() {
    mkdir -p "$OUT/gradescope" "$OUT/prairielearn" &&
        "$G_TOOL" results "$RUN/blanks.tsv" "$RUN/s/$2/result.tsv.shown" "$1" "$G_LEVEL" "$(cat "$RUN/s/$2/seconds" 2>/dev/null || echo 0)" \
            "$G_VIS" "$OUT/gradescope/$1.json" "$OUT/prairielearn/$1.json" "${G_LANG:-en}"
}

# The kit cache keeps the GRADE_CACHE_KEEP (3) kits used most recently.
g_cache_prune() {
    touch "$G_BASE/.ready" 2>/dev/null
    ls -t build/grade/cache/*/.ready 2>/dev/null | tail -n +$((GRADE_CACHE_KEEP + 1)) | while IFS= read -r r; do
        _d=$(dirname "$r")
        [ "$(cd "$_d" && pwd)" = "$G_BASE" ] || rm -rf "$_d"
    done
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

# g_kit BASE: BASE/kit, what the sandboxes may see: the headers (inc/: the compile
# step), the probe, harness and test objects (obj/) and per concept file the
# libraries of the build (BASE/.libs) without any object of that file (lib/<stem>/:
# the link step), the tests' input files (fixtures/: the run step). The full
# libraries stay outside the kit: the teacher's probe (BASE/teacher/probe) is
# linked with them here, on the trusted side, and only ever runs alone.
g_kit() {
    _k=$1/kit
    rm -rf "$_k" "$1/teacher"
    mkdir -p "$_k/inc" "$_k/obj" "$_k/lib" "$_k/fixtures" "$1/teacher" || return 1
    (cd "$1" && find common chapters tests -name '*.h' -type f) | while IFS= read -r h; do
        mkdir -p "$_k/inc/$(dirname "$h")" && cp "$1/$h" "$_k/inc/$h"
    done
    cp -R "$1/tests/fixtures/." "$_k/fixtures/" 2>/dev/null
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
    $CC -static -o "$1/teacher/probe" "$_k/obj/probe.o" -Wl,--start-group $_libs -Wl,--end-group -lm >>"$LOG" 2>&1 || {
        echo "grade: the teacher's probe does not link statically: $(first_error "$LOG") (the C library's static archive libc.a is needed: Debian's libc6-dev)" >&2
        return 1
    }
    for f in $(cd "$1" && concept_files); do
        _stem=$(basename "$f" .c)
        mkdir -p "$_k/lib/$_stem"
        for a in $_libs; do
            cp "$a" "$_k/lib/$_stem/" || return 1
            # every member of that name (an archive may hold two)
            while ${AR:-ar} t "$_k/lib/$_stem/$(basename "$a")" | grep -qx "$_stem.o"; do
                ${AR:-ar} d "$_k/lib/$_stem/$(basename "$a")" "$_stem.o" 2>>"$LOG" || return 1
            done
        done
        # the teacher's rest of the file, one per function that holds a blank:
        # rest-FUNC.o is the teacher's file compiled with FUNC's definition taken out
        # (a plain declaration left, not static), so that the teacher's code reaches the
        # student's FUNC through its symbol and the teacher's FUNC is nowhere in the
        # program; nothing of the student's file changes this object
        for _fn in $($AWK -F '\t' -v f="$f" '$3 == f { print $8 }' "$RUN/all.tsv" | sort -u); do
            mkdir -p "$1/build/rest"
            $AWK -v fn="$_fn" '
                !body && /^[A-Za-z_]/ && match($0, "(^|[ *])" fn "[(]") { head = 1; sub(/^static /, "") }
                head { l = $0; if (sub(/[{][ \t]*$/, ";", l)) { head = 0; body = 1 } print l; next }
                body { if ($0 == "}") body = 0; next }
                { print }' "$1/$f" >"$1/build/rest/$_stem-$_fn.c" &&
                $CC $(g_cflags "$(chapter_nn "$f")" | sed 's/-Werror//') -I"$1" -I"$1/$(dirname "$f")" \
                    -c "$1/build/rest/$_stem-$_fn.c" -o "$_k/lib/$_stem/rest-$_fn.o" >>"$LOG" 2>&1 &&
                nm "$_k/lib/$_stem/rest-$_fn.o" | $AWK -v fn="$_fn" '$NF == fn && $1 != "U" { exit 1 }' || {
                echo "grade: the teacher's $f does not build without $_fn(): $(first_error "$LOG")" >&2
                return 1
            }
        done
    done
}

# g_mistake_probes BASE NNS: the catalogue of known mistakes (mistakes.txt), each
# injected into the teacher's file (as make bugs does), compiled apart and linked
# with the probe and the kit's libraries without that file: BASE/mistakes/ID, and
# BASE/mistakes/list.tsv (id chapter-nn blank file en zh) for those of chapters NNS.
# A record that no longer applies or builds is left out and said in the log
# (make check-exercises fails on it).
g_mistake_probes() {
    _md=$1/mistakes
    rm -rf "$_md"
    mkdir -p "$_md" || return 1
    : >"$_md/list.tsv"
    $AWK -f "$EX_DIR/mistakes.awk" -v mode=bugs "$EX_DIR/bugs.txt" "$EX_DIR/mistakes.txt" >"$_md/records.txt" &&
        $AWK -f "$EX_DIR/mistakes.awk" -v mode=list "$EX_DIR/bugs.txt" "$EX_DIR/mistakes.txt" >"$_md/all.tsv" || {
        echo "grade: scripts/exercises/mistakes.txt cannot be read (see above); no mistake is named in the feedback" >&2
        return 0
    }
    while IFS='	' read -r _id _ch _bl _f _en _zh; do
        _mnn=$(printf '%02d' "$_ch")
        in_list "$_mnn" "$2" || continue
        _stem=$(basename "$_f" .c)
        [ -d "$1/kit/lib/$_stem" ] || continue
        if $AWK -f "$EX_DIR/bugs.awk" -v mode=apply -v id="$_id" "$_md/records.txt" "$1/$_f" >"$_md/$_id.c" 2>>"$LOG" &&
            $CC $(g_cflags "$_mnn" | sed 's/-Werror//') -I"$1" -I"$1/$(dirname "$_f")" -c "$_md/$_id.c" -o "$_md/$_id.o" >>"$LOG" 2>&1 &&
            $CC -static -o "$_md/$_id" "$1/kit/obj/probe.o" "$_md/$_id.o" -Wl,--start-group "$1/kit/lib/$_stem"/*.a -Wl,--end-group -lm >>"$LOG" 2>&1; then
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$_id" "$_mnn" "$_bl" "$_f" "$_en" "$_zh" >>"$_md/list.tsv"
        else
            echo "grade: the known mistake '$_id' of scripts/exercises/mistakes.txt does not apply to or build with $_f; it is left out" >>"$LOG"
        fi
        rm -f "$_md/$_id.c" "$_md/$_id.o"
    done <"$_md/all.tsv"
}

# g_mistake_runs: each known mistake of a graded chapter run on the chapter's hidden
# inputs, in the run sandbox as the teacher's code is; RUN/mist/catNN.tsv lists them for
# gradetool compare (id, its output, en, zh), in the order of mistakes.txt. One that does
# not finish is left out. They run JOBS at a time (make grade-class's JOBS, else 1).
g_mistake_runs() {
    mkdir -p "$RUN/mist"
    for nn in $GCHS; do : >"$RUN/mist/cat$nn.tsv"; done
    [ -f "$G_MIST/list.tsv" ] || return 0
    _n=0
    while IFS='	' read -r _mid _mch _mbl _mf _men _mzh; do
        in_list "$_mch" "$GCHS" || continue
        g_run "$RUN/mist/$_mid" "$G_MIST/$_mid" probe "$(chapter_num "$_mch")" "$(g_probe_seed "$_mch")" &
        _n=$((_n + 1))
        [ $((_n % ${NJOBS:-1})) -ne 0 ] || wait
    done <"$G_MIST/list.tsv"
    wait
    while IFS='	' read -r _mid _mch _mbl _mf _men _mzh; do
        in_list "$_mch" "$GCHS" && [ "$(tail -n 1 "$RUN/mist/$_mid" 2>/dev/null)" = "probe done" ] &&
            printf '%s\t%s\t%s\t%s\n' "$_mid" "$RUN/mist/$_mid" "$_men" "$_mzh" >>"$RUN/mist/cat$_mch.tsv"
    done <"$G_MIST/list.tsv"
    return 0
}

# g_setup LEVEL CHAPTERS: the run folder, the teacher's tree and kit built, the
# blanks handed out ($RUN/blanks.tsv: name points chapter file function symbol
# helpers refuse) and the teacher's probe output per chapter.
g_setup() {
    _level=$1 _chapters=$2
    G_LEVEL=$1
    umask 022   # (what the sandboxes read must be readable by the user they run as)
    _runs=${GRADE_RUNS:-build/grade/runs}   # (a test gives its own, to see its run folder go)
    mkdir -p "$_runs" || die "grade: cannot create $_runs"
    RUN=$_runs/$$-$(g_random)
    mkdir -p "$RUN" || die "grade: cannot create $RUN"
    RUN=$(cd "$RUN" && pwd)
    LOG=$RUN/make.log
    : >"$LOG"
    g_need_sandbox || return 1
    g_cgroup_setup
    [ "${GRADE_POLICY:-1}" = 0 ] &&
        echo "grade: WARNING: GRADE_POLICY=0: the answers' objects are not checked for what they call (a test of the sandbox alone; never grade a class so)" >&2
    list_blanks >"$RUN/all.tsv" || die "grade: fix the markers of this repository first"
    CHS=$(parse_chapters "$_chapters" "$RUN/all.tsv") || return 1
    : >"$RUN/stubs.tsv"
    mkdir -p "$RUN/orig"
    for f in $(concept_files); do
        mkdir -p "$RUN/orig/$(dirname "$f")"
        cp "$f" "$RUN/orig/$f"
        in_list "$(chapter_nn "$f")" "$CHS" || continue
        # (the handout's file: a student's file equal to it has no answer to run)
        mkdir -p "$RUN/hand/$(dirname "$f")"
        $AWK -f "$EX_DIR/blank.awk" -v mode=stub -v level="$_level" -v path="$f" -v manifest="$RUN/stubs.tsv" "$f" >"$RUN/hand/$f" ||
            die "grade: $f: cannot read its blanks"
    done
    [ -s "$RUN/stubs.tsv" ] || { echo "grade: no blanks of level <= $_level in chapters $(num_list "$CHS")" >&2; return 1; }

    # the student's file is compiled with each function and datum in a section of its
    # own (so that a blank's function can be cut out with what it reaches) and, where
    # the compiler has the flags, its static functions kept whole (a blank in one)
    g_sections "$RUN/flags.o"

    # the trusted side's own program
    G_TOOL=$G_SBX/gradetool
    # (linked statically: it also sets the limits inside the run sandbox, where there is no library)
    $CC -std=c99 -O2 -static "$EX_DIR/gradetool.c" -lm -o "$G_TOOL" >>"$LOG" 2>&1 ||
        { echo "grade: scripts/exercises/gradetool.c does not build as a static program: $(first_error "$LOG") (the C library's static archive libc.a is needed: Debian's libc6-dev)" >&2; return 1; }

    # the teacher's tree and kit, built once and kept in build/grade/cache/<checksum>
    _nns=$(cut -f3 "$RUN/stubs.tsv" | sed -n 's|^chapters/\([0-9][0-9]\)_.*|\1|p' | sort -u)
    set -- build/obj/tests/harness.o
    for nn in $_nns; do
        [ -f "tests/test_ch$nn.c" ] && set -- "$@" "build/obj/tests/test_ch$nn.o"
    done
    _key=$( (echo "$CC $(g_cflags 00) $*"; find Makefile common chapters tests scripts/exercises/probe.c scripts/exercises/grade_lib.sh scripts/exercises/mistakes.txt scripts/exercises/mistakes.awk scripts/exercises/bugs.txt -type f ! -name '*.pyc' |
        LC_ALL=C sort | xargs cksum) | cksum | tr -c '0-9\n' _ | tr -d '\n')
    G_BASE=$(pwd)/build/grade/cache/$_key
    G_KEY=$_key
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
        g_mistake_probes "$RUN/base" "$_nns" || return 1
        : >"$RUN/base/.ready"
        mkdir -p build/grade/cache
        [ -e "$G_BASE" ] || mv "$RUN/base" "$G_BASE" 2>/dev/null || [ -f "$G_BASE/.ready" ] ||
            { echo "grade: cannot keep the teacher's tree in $G_BASE" >&2; return 1; }
        [ -d "$RUN/base" ] && G_BASE=$RUN/base  # another run was first: use ours
    fi
    g_cache_prune
    G_KIT=$G_BASE/kit
    G_TPROBE=$G_BASE/teacher/probe
    G_MIST=$G_BASE/mistakes
    if [ "$G_SBX" != "$RUN" ]; then   # (staged: see g_need_sandbox)
        cp -Rl "$G_KIT" "$G_SBX/kit" 2>/dev/null || { rm -rf "$G_SBX/kit"; cp -R "$G_KIT" "$G_SBX/kit"; } ||
            { echo "grade: cannot stage the kit in $G_SBX" >&2; return 1; }
        cp "$G_TPROBE" "$G_SBX/tprobe" || return 1
        cp -R "$G_MIST" "$G_SBX/mistakes" 2>/dev/null && G_MIST=$G_SBX/mistakes
        G_KIT=$G_SBX/kit G_TPROBE=$G_SBX/tprobe
    fi

    # name points chapter-nn file function symbol helpers refuse, in the order of the
    # repository; symbol: 1 when the teacher's object defines the function, so the
    # student's must too; helpers and refuse: blank_policy (lib.sh)
    blank_policy "$RUN/all.tsv" >"$RUN/policy.tsv" || return 1
    $AWK -F '\t' 'FILENAME == ARGV[1] { help[$1] = $2; ref[$1] = $3; next }
        FILENAME == ARGV[2] { chosen[$1] = 1; next }
        ($1 in chosen) { nn = $3; sub(/^chapters\//, "", nn); sub(/_.*/, "", nn)
                         printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", $1, $7, nn, $3, $8, help[$1], ref[$1] }' \
        "$RUN/policy.tsv" "$RUN/stubs.tsv" "$RUN/all.tsv" >"$RUN/b0.tsv"
    _full=
    for a in $(cat "$G_BASE/.libs"); do _full="$_full $G_BASE/$a"; done
    nm -A $_full >"$RUN/full.nm" 2>/dev/null || { echo "grade: cannot read the teacher's libraries (nm)" >&2; return 1; }
    # what every answer may call: the tensor library (what common/'s objects define),
    # libm and a short list of libc (memory, string, printf); per file, also what the
    # teacher's own object of that file calls; per blank, its helpers
    _common=$(for c in common/*.c; do basename "$c" .c; done | tr '\n' ' ')
    $AWK -v c=" $_common " '{ m = $1; sub(/:[^:]*$/, "", m); sub(/.*:/, "", m); sub(/\.o$/, "", m) }
        index(c, " " m " ") && NF == 3 && $2 ~ /^[TDRBCVW]$/ { print $3 }' "$RUN/full.nm" >"$RUN/api.txt"
    mkdir -p "$RUN/allow"
    : >"$RUN/blanks.tsv"
    while IFS='	' read -r name pts nn file func helpers refuse; do
        _stem=$(basename "$file" .c)
        # sym: 1 when the teacher's file has the function static (the student's is made
        # global to be graded; see G_REDUCE)
        sym=0
        $AWK -v f="$func" '/^[A-Za-z_]/ && match($0, "(^|[ *])" f "[(]") { if ($0 ~ /^static /) s = 1; exit }
            END { exit !s }' "$RUN/orig/$file" && sym=1
        # the kit's libraries for this file must define nothing that the teacher's object of it defines
        _left=$($AWK -v m=":$_stem.o:" 'index($1, m) && NF == 3 && $2 ~ /^[TDRBW]$/ { print $3 }' "$RUN/full.nm" | sort -u |
            comm -12 - "$(nm -g --defined-only "$G_KIT/lib/$_stem"/*.a 2>/dev/null | $AWK 'NF == 3 { print $3 }' | sort -u >"$RUN/left.txt"; echo "$RUN/left.txt")" | head -n 1)
        if [ -n "$_left" ]; then
            echo "grade: the kit's libraries for $file still define $_left(); cannot grade its answers alone" >&2
            return 1
        fi
        # a refused function that the teacher's own file calls elsewhere cannot be told
        # apart in the object: say so rather than grade without the refusal
        for r in $refuse; do
            if $AWK -v m=":$_stem.o:" -v r="$r" 'index($1, m) && $2 == "U" && $3 == r { f = 1 } END { exit !f }' "$RUN/full.nm"; then
                echo "grade: blank '$name' refuses $r(), which the teacher's $file calls elsewhere, so the refusal cannot be read from an answer's object; take $r out of its refuse list or out of the rest of $file" >&2
                return 1
            fi
        done
        { cat "$RUN/api.txt" "$EX_DIR/callable.txt" | grep -v '^#'
          $AWK -v m=":$_stem.o:" 'index($1, m) && $2 == "U" { print $3 }' "$RUN/full.nm"
          printf '%s\n' "$helpers" | tr -c 'A-Za-z0-9_' '\n'; } | grep '^[A-Za-z_]' | sort -u >"$RUN/allow/$name.txt"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$pts" "$nn" "$file" "$func" "$sym" "$helpers" "$refuse" >>"$RUN/blanks.tsv"
    done <"$RUN/b0.tsv"
    GCHS=$(cut -f3 "$RUN/blanks.tsv" | sort -u)

    G_SEED=${GRADE_SEED:-$(g_random)}  # GRADE_SEED=N repeats a run's hidden inputs
    # (the seed itself never enters a sandbox: each chapter's probe gets g_probe_seed)
    mkdir -p "$RUN/want"
    # the teacher's code on the same inputs, in the same kind of sandbox
    _n=0
    for nn in $GCHS; do
        g_run "$RUN/want/probe$nn" "$G_TPROBE" probe "$(chapter_num "$nn")" "$(g_probe_seed "$nn")" &
        _n=$((_n + 1))
        [ $((_n % ${NJOBS:-1})) -ne 0 ] || wait
    done
    wait
    for nn in $GCHS; do
        if [ "$(head -n 1 "$RUN/want/probe$nn")" = "no probe for chapter $(chapter_num "$nn")" ]; then
            echo "grade: chapter $(chapter_num "$nn") has blanks but no hidden checks in scripts/exercises/probe.c; its answers cannot be graded until it has them" >&2
            return 1
        fi
        if [ "$(tail -n 1 "$RUN/want/probe$nn")" != "probe done" ]; then
            echo "grade: the teacher's hidden checks of chapter $(chapter_num "$nn") do not run in the sandbox (exit $(cat "$RUN/want/probe$nn.rc")):" >&2
            head -c 600 "$RUN/want/probe$nn" >&2
            return 1
        fi
    done
    # the known mistakes on the same inputs (for the feedback only)
    g_mistake_runs
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
    _dir=$1 _s=$RUN/s/$2 _id=$3 _sw=$G_SBX/w/$2
    rm -rf "$_s" "$_sw"
    mkdir -p "$_s/x"
    : >"$_s/status.tsv"
    : >"$_s/result.tsv"
    echo 0 >"$_s/seconds"
    _bad=${4:-}
    if [ -z "$_bad" ]; then
        _bad=$(g_handout_check "$_dir")
        [ -n "$_bad" ] && echo "$_bad" >"$_s/mismatch"
    fi
    if [ -n "$_bad" ]; then
        while IFS='	' read -r name pts _; do
            printf '%s\t0\t%s\t%s\n' "$name" "$pts" "$(g_clean "not graded: $_bad")" >>"$_s/result.tsv"
        done <"$RUN/blanks.tsv"
        return 0
    fi
    _tstart=$(date +%s)
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
            else
                # as the compiler reads it: BOM, CR LF and lone CR handled (gradetool normalize)
                mkdir -p "$_s/n/$(dirname "$f")"
                _big=$("$G_TOOL" normalize "$src" "$_s/n/$f" "$GRADE_SOURCE_BYTES" 2>&1) || _why="your $f could not be read (${_big:-unreadable})"
            fi
        fi
        if [ -n "$_why" ]; then
            for nm in $names; do printf '%s\tnofunc\t%s\n' "$nm" "$_why"; done >>"$_s/status.tsv"
            continue
        fi
        # a file as it was handed out: every blank of it unanswered, nothing to compile
        if cmp -s "$_s/n/$f" "$RUN/hand/$f"; then
            for nm in $names; do printf '%s\tempty\tthe exercise_missing() stub is still there\tuntouched\n' "$nm"; done >>"$_s/status.tsv"
            continue
        fi
        # (linear in the file's size, and under its own time limit)
        timeout -k 1 "$GRADE_TIME" $AWK -f "$EX_DIR/extract.awk" -v ref="$RUN/orig/$f" -v blanks="$names" -v outdir="$_s/x" \
            -v shown="$(basename "$f")" "$_s/n/$f" >"$_s/status.$$" 2>"$_s/extract.err"
        _rc=$?
        if [ "$_rc" -eq 0 ]; then cat "$_s/status.$$" >>"$_s/status.tsv"
        elif [ "$_rc" -eq 124 ] || [ "$_rc" -eq 137 ]; then
            for nm in $names; do printf '%s\tnofunc\treading your %s took longer than %s s\n' "$nm" "$f" "$GRADE_TIME"; done >>"$_s/status.tsv"
        else
            for nm in $names; do printf '%s\tnofunc\tyour %s could not be read\n' "$nm" "$f"; done >>"$_s/status.tsv"
        fi
        rm -f "$_s/status.$$"
    done
    _t0=$(date +%s)
    while IFS='	' read -r name pts nn file func sym _; do
        st= det= _un=
        while IFS='	' read -r _b _st _det _un; do
            [ "$_b" = "$name" ] && { st=$_st det=$_det && break; }
        done <"$_s/status.tsv"
        got=0
        msg=
        # every answer is judged by running the student's file as it is, even one whose
        # text is the teacher's (the rest of the file may change what it means) or whose
        # stub is still there (code above it may return first)
        case $st in
            nofunc) msg="not found: $det" ;;
            denied) msg="not accepted: $det" ;;
            empty | same | answer)
                if [ "$_un" = untouched ]; then
                    msg="not answered: $det"
                elif [ $(($(date +%s) - _t0)) -ge "$GRADE_STUDENT_SECONDS" ]; then
                    msg="not graded: this submission used up its time budget (GRADE_STUDENT_SECONDS=$GRADE_STUDENT_SECONDS s) before this answer"
                elif G_EMPTY=$([ "$st" != empty ] || echo 1) && g_grade_answer "$name" "$nn" "$file" "$func" "$sym"; then
                    got=$pts msg=$g_msg
                elif [ "$st" = empty ] && case $g_msg in "your "*" does not compile"*) false ;; *) true ;; esac; then
                    msg="not answered: $det"
                else
                    msg=$g_msg${det:+ ($det)}
                fi ;;
            *) msg="not found: the blank is missing from your tree" ;;
        esac
        # (what came from the student's process is cut to 300 characters where it is quoted;
        # the whole message, with the grader's own sentences, to 900)
        printf '%s\t%s\t%s\t%s\n' "$name" "$got" "$pts" "$(g_clean "$msg" 900)" >>"$_s/result.tsv"
    done <"$RUN/blanks.tsv"
    echo $(($(date +%s) - _tstart)) >"$_s/seconds"
    rm -rf "$_s/x" "$_sw"
}

# g_insn_check OBJ: a sentence when the object's code holds an instruction that asks
# the kernel (or the CPU's exception path) itself: inline assembly, which the symbol
# policy cannot see. Read by the disassembler (objdump, of binutils, beside nm).
g_insn_check() {
    objdump -d --no-show-raw-insn "$1" 2>/dev/null |
        $AWK -F '\t' 'NF >= 2 { split($2, w, " "); if (w[1] ~ /^(syscall|sysenter|sysexit|sysret|sysretq|int|int1|int3|into|svc|hvc|smc|ecall)$/) {
            printf "your code holds the instruction %s (inline assembly that calls the kernel itself); it may not use it\n", w[1]; exit } }'
}

# the compile sandbox's script for what the compiler sees of a file: CFLAGS
# CHAPTER-DIR SOURCE -> the file with its comments and the code its #if's leave out
# gone, each #define on one line, macros not expanded and #include lines kept as
# lines (not read), no line markers (gcc's -fdirectives-only, then -fpreprocessed;
# clang has neither, and its -E expands the file's own macros too, in the handout's
# file as in the student's); or "error" and the messages
G_PREPROCESS='if sed "s/^[ 	]*#[ 	]*include/__attn_include__/" "$IN/$3" >a.c; then
    if $CC $1 -nostdinc -E -P -fdirectives-only -dD a.c -o a.d >cc.log 2>&1; then
        $CC $1 -fpreprocessed -dD -E -P -x c a.d -o a.i >>cc.log 2>&1 && exec cat a.i
    else
        case $(cat cc.log) in
        *directives-only*) $CC $1 -nostdinc -E -P -dD a.c -o a.i >cc.log 2>&1 && exec cat a.i ;;
        esac
    fi
fi
echo "error"; head -c 4000 cc.log'

# One answer, as the student's file has it: the student's whole file compiled as
# they wrote it, once, in the compile sandbox (G_COMPILE, with each function and
# datum in a section of its own); that object cut down to the blank's function and
# what it reaches (G_REDUCE, in a sandbox too): the student's function replaces the
# teacher's, and everything else it calls in its own file is the student's own, so
# an answer that calls another blank of the file runs the student's version of it.
# Checked here: what it calls (gradetool policy: allowed functions, the blank's
# function defined, no constructor) and no system-call instruction (objdump);
# linked in the link sandbox with the teacher's rest of the file (rest-FUNC.o:
# every function but this one is the teacher's, compiled apart from the student's
# text, and the teacher's FUNC is not in it) and the kit's libraries without the file's object; the static program run
# in the run sandbox; the grader compares the probe's numbers with the teacher's.
# Blanks in one function are judged together (the function is what runs).
# Sets g_msg; status 0 when the blank earns its points.
g_grade_answer() { # NAME NN FILE FUNC STATIC
    _nm=$1 _nn=$2 _file=$3 _fn=$4 _sym=$5
    _hole=$(basename "$_file" .c)
    _fw=$_sw/file-$_hole
    if [ ! -d "$_fw" ]; then
        mkdir -p "$_fw/src" "$_fw/in"
        cp "$_s/n/$_file" "$_fw/src/$_hole.c"
        # (a file with a blank in a static function: G_KEEP_STATIC, see g_sections)
        _ks=
        $AWK -F '\t' -v f="$_file" '$4 == f && $6 == 1 { s = 1 } END { exit !s }' "$RUN/blanks.tsv" && _ks=$G_KEEP_STATIC
        g_tool "$_fw/cc.out" compile "$_fw/src" "$G_COMPILE" "$(g_cflags "$_nn") $G_SECTIONS $_ks" "$(dirname "$_file")" "$_hole.c"
        if [ "$(head -c 4 "$_fw/cc.out" | od -An -c | tr -d ' \n')" = '177ELF' ]; then
            mv "$_fw/cc.out" "$_fw/in/student.o"
        else
            case $(cat "$_fw/cc.out.rc") in
                0) echo "your $(basename "$_file") does not compile: $(tail -n +2 "$_fw/cc.out" >"$_fw/cc.log"; g_clean "$(first_error "$_fw/cc.log" | sed 's|/in/||g')")" ;;
                *) echo "your $(basename "$_file") does not compile: the compiler was stopped (time limit ${GRADE_TIME} s, memory or output limit)" ;;
            esac >"$_fw/msg"
            rm -f "$_fw/cc.out"
        fi
    fi
    if [ -f "$_fw/msg" ]; then
        g_msg=$(cat "$_fw/msg")
        return 1
    fi
    _w=$_sw/fn-$_hole-$_fn
    if [ -f "$_w/res" ]; then
        g_msg=$(cat "$_w/msg")
        return "$(cat "$_w/res")"
    fi
    mkdir -p "$_w/obj"
    g_grade_function
    _r=$?
    printf '%s' "$g_msg" >"$_w/msg"
    echo "$_r" >"$_w/res"
    [ ! -f "$_w/zh.tsv" ] || cat "$_w/zh.tsv" >>"$_s/zh.tsv"
    return "$_r"
}

# g_your_line NAME FILE: the first line of the student's answer to blank NAME that is
# not a line of the teacher's FILE (spaces aside), at most 100 characters, escaped; comments,
# braces and no-ops such as `(void)x;` are left out (they name no mistake)
g_your_line() {
    [ -f "$_s/x/$1.c" ] || return 0
    g_clean "$($AWK 'FNR == NR { t = $0; gsub(/[ \t]/, "", t); have[t] = 1; next }
        { t = $0; gsub(/[ \t]/, "", t); if (t == "" || t ~ /^(\/\*|\*|\/\/|#)/ || t ~ /^[{};]*$/ || t ~ /^\(void\)[^;]*;$/ || (t in have)) next
          sub(/^[ \t]+/, ""); print substr($0, 1, 100); exit }' "$RUN/orig/$2" "$_s/x/$1.c" 2>/dev/null)"
}

g_grade_function() {
    g_tool "$_w/red.out" compile "$_fw/in" "$G_REDUCE" "$_fn" "$_sym"
    if [ "$(head -c 4 "$_w/red.out" | od -An -c | tr -d ' \n')" != '177ELF' ]; then
        if grep -q 'entry symbol\|undefined symbol\|no root' "$_w/red.out" 2>/dev/null || [ "$(head -n 1 "$_w/red.out")" = "reduce failed" ]; then
            g_msg="not accepted: your $(basename "$_file") does not define $_fn() itself (the function that holds the blank)"
        else
            g_msg="not graded: your compiled $(basename "$_file") could not be read (time or memory limit)"
        fi
        return 1
    fi
    mv "$_w/red.out" "$_w/obj/answer.o"
    printf '%s' "$_fn" >"$_w/obj/with-rest"
    # the policy, from the object: what it calls (never what its text spells)
    if [ "${GRADE_POLICY:-1}" = 0 ]; then
        _pol=$("$G_TOOL" policy "$_w/obj/answer.o" "$RUN/allow/$_nm.txt" "$(basename "$_file")" "$_fn" "$_nm" 2>&1)
        case $_pol in "your answer calls"*) _pol= ;; esac   # (only the check of its function stays)
    else
        _pol=$("$G_TOOL" policy "$_w/obj/answer.o" "$RUN/allow/$_nm.txt" "$(basename "$_file")" "$_fn" "$_nm" \
            $($AWK -F '\t' -v fn="$_fn" -v f="$_file" '$4 == f && $5 == fn { print $8 }' "$RUN/blanks.tsv") 2>&1)
        [ -n "$_pol" ] || _pol=$(g_insn_check "$_w/obj/answer.o")
    fi
    if [ -n "$_pol" ]; then
        g_msg="not accepted: $_pol"
        return 1
    fi
    g_tool "$_w/link.out" "link:$_hole" "$_w/obj" "$G_LINK" probe.o
    if [ "$(head -c 4 "$_w/link.out" | od -An -c | tr -d ' \n')" != '177ELF' ]; then
        if [ "$(head -n 1 "$_w/link.out")" = "link failed" ]; then
            tail -n +2 "$_w/link.out" >"$_w/ld.log"
            g_msg="does not link: $(g_clean "$(first_error "$_w/ld.log" | sed -e 's|/in/||g' -e 's|/k/||g' -e 's|/w/||g')")"
        else
            g_msg="could not be linked in the sandbox (time or memory limit)"
        fi
        return 1
    fi
    mv "$_w/link.out" "$_w/probe"
    chmod 0555 "$_w/probe"
    g_run "$_w/probe.txt" "$_w/probe" probe "$(chapter_num "$_nn")" "$(g_probe_seed "$_nn")"
    # (the first wrong result, where, and the known mistake it is, if any: gradetool compare)
    _d=$("$G_TOOL" compare "$RUN/want/probe$_nn" "$_w/probe.txt" en "$RUN/mist/cat$_nn.tsv")
    _st=$?
    [ "$_st" -le 1 ] || { g_msg="not graded: the grader could not compare the hidden checks"; return 1; }
    if [ "$_st" -eq 0 ]; then
        g_msg="correct (hidden checks on fresh random inputs agree with the teacher's code)"
        return 0
    fi
    # in Chinese: the same sentences from gradetool, kept for translate.awk (zh.tsv)
    if [ "${G_LANG:-en}" = zh ]; then
        _dz=$("$G_TOOL" compare "$RUN/want/probe$_nn" "$_w/probe.txt" zh "$RUN/mist/cat$_nn.tsv")
        [ "$_dz" = "$_d" ] ||
            printf '%s\t%s\n' "$(g_clean "$_d" 900)" "$(printf '%s' "$_dz" | tr '\t\r\n' '   ' | tr -d '\000-\037\177')" >"$_w/zh.tsv"
    fi
    case $(cat "$_w/probe.txt.rc") in
        124 | 137) _d="$_d (stopped after ${GRADE_TIME} s)" ;;
        139) _d="$_d (it crashed: segmentation fault, a bad pointer such as NULL or an index out of range)" ;;
        136) _d="$_d (it crashed: arithmetic exception, such as an integer division by zero)" ;;
        134) _d="$_d (it aborted: SIGABRT, such as a failed assert)" ;;
    esac
    case $_d in *.) ;; *) _d="$_d." ;; esac
    g_msg="a hidden check on fresh random inputs fails: $_d"
    _line=$(g_your_line "$_nm" "$_file")
    [ -z "$_line" ] || g_msg="$g_msg Your line is \`$_line\`."
    # the chapter's tests, for the feedback only: the first failing check in words
    # (not for a stub left as it was: the feedback says "not answered")
    if [ -z "${G_EMPTY:-}" ] && [ -f "$G_KIT/obj/test_ch$_nn.o" ]; then
        g_tool "$_w/tlink.out" "link:$_hole" "$_w/obj" "$G_LINK" "test_ch$_nn.o" harness.o
        [ "$(head -c 4 "$_w/tlink.out" | od -An -c | tr -d ' \n')" = '177ELF' ] || return 1
        mv "$_w/tlink.out" "$_w/tests"
        chmod 0555 "$_w/tests"
        g_run "$_w/test.out" "$_w/tests" tests
        _f=$(g_first_failure "$_w/test.out" | sed 's/:.*//')
        case $(cat "$_w/test.out.rc") in
            124 | 137) _f="${_f:-did not finish} (the tests were stopped after ${GRADE_TIME} s)" ;;
        esac
        if [ -n "$_f" ]; then
            g_msg="$g_msg The tests of chapter $(chapter_num "$_nn") fail too, first $_f."
        fi
    fi
    return 1
}

# Feedback for a student, from result.tsv.
g_feedback() { # ID RESULT LEVEL
    # in Chinese (G_LANG=zh) the messages go through feedback_zh.txt first, into RESULT.shown,
    # which g_results reads too; the record keeps RESULT as graded
    if [ "${G_LANG:-en}" = zh ]; then
        # (with the student's own sentences from gradetool in Chinese, zh.tsv beside RESULT)
        _x=$(dirname "$2")/zh.tsv
        [ -f "$_x" ] || _x=
        $AWK -v table="$EX_DIR/feedback_zh.txt" -v exact="$_x" -f "$EX_DIR/translate.awk" "$2" >"$2.shown" || return 1
    else
        cp "$2" "$2.shown" || return 1
    fi
    $AWK -F '\t' -v lv="$3" -v zh="${G_LANG:-en}" '
        { n++; nm[n] = $1; got[n] = $2; max[n] = $3; msg[n] = $4; X += $2; Y += $3 }
        END {
            if (zh == "zh") printf "学生 %s：%d/%d 分（第 %s 级）\n\n", ENVIRON["G_ID"], X, Y, lv
            else printf "student %s: %d/%d points (level %s)\n\n", ENVIRON["G_ID"], X, Y, lv
            for (i = 1; i <= n; i++) printf "%-30s %d/%d  %s\n", nm[i], got[i], max[i], msg[i]
        }' "$2.shown"
}
