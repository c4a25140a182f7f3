# bugs.awk — read scripts/exercises/bugs.txt; list the bugs, inject one, or
# write its entry of the teacher's key. POSIX awk.
#
#   awk -f bugs.awk -v mode=list bugs.txt
#       id  chapter  file  title      (tab-separated, in file order)
#   awk -f bugs.awk -v mode=apply -v id=ID [-v report=F] bugs.txt FILE
#       FILE with the bug injected, on stdout; each find text must occur
#       exactly once in FILE. With report=F, appends "ID<tab>line,line".
#   awk -f bugs.awk -v mode=answer -v id=ID -v lines=L bugs.txt
#       the markdown entry of the teacher's key (bugs.ANSWERS.md)
# Mistakes in bugs.txt or a find text that no longer matches: a sentence on
# stderr and exit status 2.

function fail(msg) {
    print msg > "/dev/stderr"
    bad = 1
    exit 2
}

function trim(s) {
    sub(/^[ \t]+/, "", s)
    sub(/[ \t]+$/, "", s)
    return s
}

function check_record(k) {
    if (k < 1) return
    if (chap[k] !~ /^[0-9]+$/) fail(src ": bug '" id_[k] "' needs a chapter number")
    if (file[k] == "") fail(src ": bug '" id_[k] "' needs a file")
    if (title[k] == "") fail(src ": bug '" id_[k] "' needs a title")
    if (npairs[k] < 1) fail(src ": bug '" id_[k] "' needs at least one find/replace pair")
    if (why[k] == "") fail(src ": bug '" id_[k] "' needs a why")
}

FNR == NR {
    src = FILENAME
    line = $0
    if (line ~ /^[ \t]*#/ || line ~ /^[ \t]*$/) next
    key = line
    sub(/[ \t].*$/, "", key)
    val = line
    sub(/^[^ \t]+/, "", val)
    sub(/^[ \t]+/, "", val)
    if (key == "bug") {
        check_record(nb)
        nb++
        if (val in byid) fail(src ":" FNR ": bug id '" val "' is used twice")
        byid[val] = nb
        id_[nb] = val
        npairs[nb] = 0
        why[nb] = ""
        next
    }
    if (nb == 0) fail(src ":" FNR ": '" key "' before the first 'bug' line")
    if (key == "chapter") chap[nb] = val
    else if (key == "title") title[nb] = val
    else if (key == "file") file[nb] = val
    else if (key == "find") {
        if (val == "") fail(src ":" FNR ": empty find text")
        p = ++npairs[nb]
        find[nb, p] = val
        repl[nb, p] = "\001"
    } else if (key == "replace") {
        p = npairs[nb]
        if (p < 1 || repl[nb, p] != "\001") fail(src ":" FNR ": 'replace' without its 'find' line")
        repl[nb, p] = val
    } else if (key == "why") why[nb] = why[nb] (why[nb] == "" ? "" : " ") val
    else fail(src ":" FNR ": unknown key '" key "' (bug, chapter, title, file, find, replace, why)")
    next
}

{ T[FNR] = $0; nt = FNR }

END {
    if (bad) exit 2
    check_record(nb)
    for (k = 1; k <= nb; k++)
        for (p = 1; p <= npairs[k]; p++)
            if (repl[k, p] == "\001") fail(src ": bug '" id_[k] "': 'find' without its 'replace' line")
    if (mode == "list") {
        for (k = 1; k <= nb; k++) printf "%s\t%s\t%s\t%s\n", id_[k], chap[k], file[k], title[k]
        exit 0
    }
    if (!(id in byid)) fail(src ": no bug named '" id "'")
    k = byid[id]
    if (mode == "answer") {
        printf "## Chapter %s: %s\n\n", chap[k], title[k]
        printf "- where: `%s`, %s %s (bug `%s`)\n", file[k], index(lines, ",") ? "lines" : "line", lines, id
        for (p = 1; p <= npairs[k]; p++) {
            printf "- correct: `%s`\n", find[k, p]
            printf "- injected: `%s`\n", repl[k, p] == "" ? "(the line's code removed)" : repl[k, p]
        }
        printf "- why: %s\n\n", why[k]
        exit 0
    }
    if (mode != "apply") fail("bugs.awk: mode must be list, apply or answer")
    # locate every find text: exactly once in the file, each on its own line
    for (p = 1; p <= npairs[k]; p++) {
        count = 0
        for (i = 1; i <= nt; i++) {
            s = T[i]
            while ((q = index(s, find[k, p])) > 0) {
                count++
                at[p] = i
                s = substr(s, q + length(find[k, p]))
            }
        }
        if (count != 1)
            fail(FILENAME ": bug '" id "' (" src "): the text `" find[k, p] "` occurs " count \
                 " times, expected exactly once; update bugs.txt to the code")
        for (r = 1; r < p; r++)
            if (at[r] == at[p]) fail(src ": bug '" id "': two find texts on line " at[p] " of " FILENAME)
    }
    where = ""
    for (p = 1; p <= npairs[k]; p++) {
        i = at[p]
        q = index(T[i], find[k, p])
        after = substr(T[i], q + length(find[k, p]))
        r = repl[k, p]
        # keep the column of a trailing comment: pad or eat spaces after the text
        d = length(find[k, p]) - length(r)
        if (after ~ /^  *\/\*/) {
            if (d > 0) r = r sprintf("%" d "s", "")
            while (d < 0 && after ~ /^  /) { after = substr(after, 2); d++ }
        }
        newline[i] = substr(T[i], 1, q - 1) r after
        changed[i] = 1
        where = where (where == "" ? "" : ",") i
    }
    for (i = 1; i <= nt; i++) print (i in changed) ? newline[i] : T[i]
    if (report != "") printf "%s\t%s\n", id, where >> report
}
