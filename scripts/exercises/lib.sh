# lib.sh — shared by the exercise scripts (sourced; POSIX sh).
#
# Blanks live in the chapters' concept code (chapters/NN_name/*.c except
# main.c), marked as DESIGN.md says, /* BEGIN BLANK name */ ... /* END BLANK */;
# their level, points, hints and refuse list are in the metadata file
# chapters/NN_name/blanks.txt beside the code (docs/TEACHING.md). blank.awk
# reads one concept file (and its folder's blanks.txt) at a time.

EX_DIR=scripts/exercises
AWK=${AWK:-awk}
MAKE=${MAKE:-make}
CC=${CC:-cc}

die() {
    echo "$*" >&2
    exit 2
}

# Run from the repository root (the scripts are called by make there).
ex_check_root() {
    [ -f "$EX_DIR/blank.awk" ] && [ -d chapters ] && [ -d common ] && [ -d tests ] ||
        die "run this from the root of the attention-in-c repository (make exercises, make check-exercises, ...)"
}

# Concept files of every chapter: chapters/NN_*/*.c without main.c.
concept_files() {
    for f in chapters/[0-9][0-9]_*/*.c; do
        [ -f "$f" ] || continue
        case $f in */main.c) continue ;; esac
        echo "$f"
    done
}

# chapters/04_causal_mask/causal_mask.c -> 04
chapter_nn() {
    echo "$1" | sed -n 's|^chapters/\([0-9][0-9]\)_.*|\1|p'
}

# 04 -> 4
chapter_num() {
    echo "$1" | sed 's/^0*\([0-9]\)/\1/'
}

# The folder of chapter N (a number): chapters/0N_name
chapter_dir() {
    for d in chapters/$(printf '%02d' "$1")_*; do
        [ -d "$d" ] && { echo "$d"; return 0; }
    done
    return 1
}

# Markers where they do not belong: narration (main.c), headers, tests.
stray_markers() {
    grep -n -E 'BEGIN BLANK|END BLANK' chapters/*/main.c chapters/*/*.h tests/*.c tests/*.h common/*.c common/*.h 2>/dev/null |
        grep -v '^common/exercise\.' | sed 's/^\([^:]*:[0-9]*\):.*/\1: exercise markers belong in concept code only (not in main.c, headers, tests or common)/'
}

# Every blank of the repository, one tab-separated line each:
#   name level path line outer hint points function helpers torch end refuse
# Fails (status 2, messages with path:line) on malformed markers or metadata,
# on a marker without an entry in its folder's blanks.txt and an entry
# without a marker, on blanks outside concept code and on a name used twice.
list_blanks() {
    _errs=$(stray_markers)
    if [ -n "$_errs" ]; then
        echo "$_errs" >&2
        return 2
    fi
    _lt=$(mktemp) || return 2
    _st=0
    _baddirs=
    for f in $(concept_files); do
        $AWK -f "$EX_DIR/blank.awk" -v mode=list -v path="$f" "$f" || { _st=2; _baddirs="$_baddirs ${f%/*}/"; }
    done >"$_lt" 2>"$_lt.e"
    # every entry of a blanks.txt needs a marker in the concept code of its folder
    for m in chapters/[0-9][0-9]_*/blanks.txt; do
        [ -f "$m" ] || continue
        _d=${m%blanks.txt}
        if ! $AWK -f "$EX_DIR/blank.awk" -v mode=meta -v path="$m" "$m" >"$_lt.m" 2>>"$_lt.e"; then
            _st=2
            continue
        fi
        case " $_baddirs " in *" $_d "*) continue ;; esac
        $AWK -F '\t' -v d="$_d" -v m="$m" '
            FILENAME == ARGV[1] { if (index($3, d) == 1) have[$1] = 1; next }
            !($1 in have) {
                printf "%s:%d: blank '\''%s'\'' has no /* BEGIN BLANK %s */ marker in the concept code of %s (its .c files but main.c): add the markers or remove the entry\n", m, $2, $1, $1, d
                bad = 1
            }
            END { exit bad ? 2 : 0 }' "$_lt" "$_lt.m" >>"$_lt.e" || _st=2
    done
    # a mistake in a blanks.txt is found once per concept file that reads it: say it once
    $AWK '!seen[$0]++' "$_lt.e" >&2
    _dups=$(cut -f1 "$_lt" | sort | uniq -d)
    if [ "$_st" -eq 0 ] && [ -n "$_dups" ]; then
        for d in $_dups; do
            $AWK -F '\t' -v d="$d" '$1 == d { printf "%s:%s: blank name '\''%s'\'' is used more than once (names must be unique: make hint BLANK=%s)\n", $3, $4, d, d }' \
                "$_lt" >&2
        done
        _st=2
    fi
    [ "$_st" -eq 0 ] && cat "$_lt"
    rm -f "$_lt" "$_lt.e" "$_lt.m"
    return "$_st"
}

# What each blank's answer may call beyond the common list, and what it may not:
# one line per blank, "name<TAB>helpers<TAB>refused" (space-separated function
# names), from a list_blanks output file ($1: the marker's helpers= and refuse=)
# and scripts/exercises/refuse.txt. The one place the grader reads them (make
# grade's policy, gradetool policy).
blank_policy() {
    $AWK -F '\t' 'FILENAME == ARGV[1] { if ($0 !~ /^#/ && NF >= 2) extra[$1] = extra[$1] " " $2; next }
        { h = ($9 == "-") ? "" : $9; r = ($12 == "-") ? "" : $12
          r = r extra[$1]; gsub(/^ +| +$/, "", r)
          printf "%s\t%s\t%s\n", $1, h, r }' "$EX_DIR/refuse.txt" "$1"
}

# Chapters (two digits) that have blanks, from a list_blanks output file.
chapters_with_blanks() {
    cut -f3 "$1" | sed -n 's|^chapters/\([0-9][0-9]\)_.*|\1|p' | sort -u
}

# "01 02 05" -> "1,2,5"
num_list() {
    _l=
    for c in $1; do _l="$_l${_l:+,}$(chapter_num "$c")"; done
    echo "$_l"
}

# Chapters up to this number are handed out by default; later ones
# (chapter 8 on speed and whatever follows) only when CHAPTERS names them.
DEFAULT_LAST_CHAPTER=7

# Turn CHAPTERS ("3,4", "3 4", "", "all") into two-digit numbers, checked
# against the chapters that have blanks (list file $2). "" means the core
# chapters (1..DEFAULT_LAST_CHAPTER), "all" every chapter with blanks.
parse_chapters() {
    _have=$(chapters_with_blanks "$2")
    case "$1" in
        all) echo "$_have"; return 0 ;;
        "")
            for nn in $_have; do
                [ "$(chapter_num "$nn")" -le "$DEFAULT_LAST_CHAPTER" ] && echo "$nn"
            done
            return 0 ;;
    esac
    _sel=
    for c in $(echo "$1" | tr ',' ' '); do
        case $c in
            *[!0-9]*) die "CHAPTERS=$1: '$c' is not a chapter number (give e.g. CHAPTERS=3,4)" ;;
        esac
        nn=$(printf '%02d' "$(chapter_num "$c")")
        echo "$_have" | grep -qx "$nn" ||
            die "CHAPTERS=$1: chapter $c has no exercise blanks (chapters with blanks: $(num_list "$_have"))"
        _sel="$_sel $nn"
    done
    [ -n "$_sel" ] || die "CHAPTERS=$1: no chapter numbers given"
    for nn in $_sel; do echo "$nn"; done | sort -u
}

# Is the two-digit chapter $1 in the space-separated list $2?
in_list() {
    case " $(echo $2) " in *" $1 "*) return 0 ;; esac
    return 1
}

# Copy what a tree needs to build and test into $1 (which must not exist):
# Makefile, READMEs, common/, chapters/, tests/, scripts/, docs/, without
# the exercise machinery (scripts/exercises/ but its hint.sh for make hint,
# tests/test_exercises.sh, tests/test_grade*.sh, tests/test_similarity*, docs/TEACHING*, the blanks'
# metadata chapters/*/blanks.txt). Concept files get blanks of level <= $2 in the chapters $3
# (two-digit list) and lose every marker; stub lines are appended to $4
# (a manifest) when given. Fenced code blocks of the READMEs that show the
# code of a stubbed blank are left out (readme.awk).
write_tree() {
    _out=$1 _level=$2 _chs=$3 _man=${4:-}
    mkdir -p "$_out" || die "cannot create $_out"
    for f in Makefile README.md README.zh-CN.md LICENSE LICENSE.md .gitignore; do
        [ -f "$f" ] && cp "$f" "$_out/"
    done
    cp -R common chapters tests "$_out/" || die "cannot copy into $_out"
    for d in scripts docs; do
        [ -d "$d" ] && cp -R "$d" "$_out/"
    done
    # the teacher's side stays here: generator, grader, bug list, teaching notes,
    # the blanks' metadata; make hint keeps its script (it reads .exercise-manifest)
    rm -rf "$_out/$EX_DIR" "$_out/tests/test_exercises.sh" "$_out"/tests/test_grade*.sh "$_out"/docs/TEACHING*.md \
        "$_out"/tests/test_similarity* "$_out"/chapters/*/blanks.txt
    mkdir -p "$_out/$EX_DIR" && cp "$EX_DIR/hint.sh" "$_out/$EX_DIR/" || die "cannot copy into $_out"
    find "$_out" -name __pycache__ -type d -prune -exec rm -rf {} + 2>/dev/null
    _sol=$_out/.solutions.tmp
    : >"$_sol"
    for f in $(concept_files); do
        nn=$(chapter_nn "$f")
        lv=0
        in_list "$nn" "$_chs" && lv=$_level
        $AWK -f "$EX_DIR/blank.awk" -v mode=stub -v level="$lv" -v path="$f" -v manifest="${_man:-}" \
            -v solutions="$_sol" "$f" >"$_out/$f" || die "$f: could not write its exercise version"
    done
    # the READMEs must not show the code of a blank that was handed out
    if [ -s "$_sol" ]; then
        for f in "$_out"/README*.md "$_out"/chapters/*/README*.md; do
            [ -f "$f" ] || continue
            $AWK -f "$EX_DIR/readme.awk" "$_sol" "$f" >"$f.new" && mv "$f.new" "$f"
        done
    fi
    rm -f "$_sol"
}

# Make $2 hold exactly the files of $1 (build/ of $2 is left alone); files
# whose content did not change keep their time stamps, so make rebuilds
# only what changed.
sync_tree() {
    (cd "$1" && find . -type f) | while IFS= read -r f; do
        if [ ! -f "$2/$f" ] || ! cmp -s "$1/$f" "$2/$f"; then
            mkdir -p "$2/$(dirname "$f")"
            cp "$1/$f" "$2/$f"
        fi
    done
    (cd "$2" && find . -path ./build -prune -o -type f -print) | while IFS= read -r f; do
        [ -f "$1/$f" ] || rm -f "$2/$f"
    done
}

# A make run in tree $1 (extra arguments follow); output to the log $LOG.
tree_make() {
    _t=$1
    shift
    $MAKE --no-print-directory -C "$_t" $JOBS "$@" >>"$LOG" 2>&1 </dev/null
}

# -jN unless the calling make already shares its job slots.
ex_jobs() {
    case " ${MAKEFLAGS:-} " in
        *jobserver* | *" -j"* | *" j"*) JOBS= ;;
        *) JOBS=-j$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2) ;;
    esac
}

# The first compiler error of a build log (or its last lines).
first_error() {
    _e=$(grep -m1 -E '(^|: )(fatal )?error:|undefined reference|No rule to make' "$1")
    [ -n "$_e" ] || _e=$(tail -n 3 "$1" | tr '\n' ' ')
    echo "$_e"
}

# "name: N passed, M failed" of a test log -> "N M" (empty if absent).
test_counts() {
    grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1 |
        sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/'
}

# Run a command under a time limit when `timeout` exists.
with_timeout() {
    _secs=$1
    shift
    if command -v timeout >/dev/null 2>&1; then timeout "$_secs" "$@"; else "$@"; fi
}
