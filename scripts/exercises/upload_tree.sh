# upload_tree.sh — sourced by the LMS autograders (Gradescope's run_autograder,
# PrairieLearn's entrypoint; scripts/exercises/gradescope.sh and prairielearn.sh write
# them): upload_tree UPLOAD HANDOUT TREE turns what a student uploaded into the tree
# make grade grades.
#   - The handout tree itself (the one folder, at most three down and never inside a
#     __MACOSX/ folder, holding a .exercise-manifest as a plain file): copied as it is
#     (symbolic links stay links) into TREE.
#   - Else the chapter files with blanks: HANDOUT (the handout the autograder carries)
#     copied into TREE, and each of its files with blanks (its manifest's, the
#     teacher's) replaced by the upload's file at the same path, else by the upload's
#     only file of that name.
# No path or name in the upload is ever read as text: find hands the files it matched
# straight to cp, and never follows a symbolic link. Sets UP_MSG (what was found, one
# sentence) and returns 0, or sets UP_FAIL (what is wrong with the upload, one
# sentence) and returns 1. Needs `set -f` (find's patterns are never expanded here).

# up_count UPLOAD ARGS...: how many files find matches
up_count() {
    _u=$1
    shift
    find -P "$_u" "$@" -exec printf x \; 2>/dev/null | wc -c | tr -d ' '
}

upload_tree() {
    _up=$1 _ho=$2 _tree=$3
    UP_MSG= UP_FAIL=
    if [ ! -d "$_up" ]; then UP_FAIL="There is no upload to grade."; return 1; fi
    _trees="-maxdepth 4 -name .exercise-manifest -type f ! -path */__MACOSX/*"
    _n=$(up_count "$_up" $_trees)
    if [ "$_n" -gt 1 ]; then
        UP_FAIL="The upload holds $_n handouts (folders with a .exercise-manifest): upload one."
        return 1
    elif [ "$_n" = 1 ]; then
        find -P "$_up" $_trees -exec sh -c 'cp -RP "$(dirname "$1")" "$2"' sh {} "$_tree" \; -quit
        if [ ! -f "$_tree/.exercise-manifest" ]; then UP_FAIL="The uploaded handout could not be copied."; return 1; fi
        UP_MSG="The upload is the handout tree (with its .exercise-manifest)."
        return 0
    fi
    cp -R "$_ho" "$_tree" || { UP_FAIL="The autograder's handout could not be copied."; return 1; }
    _found= _missing= _all=
    for _f in $(grep -v '^#' "$_ho/.exercise-manifest" | cut -f3 | sort -u); do
        _b=$(basename "$_f")
        _all="$_all $_b"
        _m="-maxdepth 6 -type f -name $_b ! -path */__MACOSX/*"
        if [ "$(up_count "$_up" $_m -path "*/$_f")" -ge 1 ]; then
            find -P "$_up" $_m -path "*/$_f" -exec cp {} "$_tree/$_f" \; -quit
        elif [ "$(up_count "$_up" $_m)" = 1 ]; then
            find -P "$_up" $_m -exec cp {} "$_tree/$_f" \; -quit
        else
            _missing="$_missing $_b"
            continue
        fi
        _found="$_found $_b"
    done
    if [ -z "$_found" ]; then
        UP_FAIL="No file with blanks is in this upload: upload$_all (or the handout folder as it was handed out)."
        return 1
    fi
    UP_MSG="The upload holds$_found, graded in the handout.${_missing:+ Not in the upload, so graded as handed out:$_missing.}"
    return 0
}
