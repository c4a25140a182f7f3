# mistakes.awk — read scripts/exercises/mistakes.txt (with bugs.txt, whose bugs a
# record may name). POSIX awk.
#
#   awk -f mistakes.awk -v mode=list bugs.txt mistakes.txt
#       id  chapter  blank  file  en  zh      (tab-separated, in file order)
#   awk -f mistakes.awk -v mode=bugs bugs.txt mistakes.txt
#       every record in the format of bugs.txt (bug, chapter, title, file,
#       find, replace, why), so that bugs.awk mode=apply injects it
# A malformed record: a sentence on stderr and exit status 2.

function fail(msg) {
    print msg > "/dev/stderr"
    bad = 1
    exit 2
}

function kv(line) {
    key = line
    sub(/[ \t].*$/, "", key)
    val = line
    sub(/^[^ \t]+/, "", val)
    sub(/^[ \t]+/, "", val)
}

# bugs.txt: what a record's "bug" line takes
FNR == NR {
    if ($0 ~ /^[ \t]*#/ || $0 ~ /^[ \t]*$/) next
    kv($0)
    if (key == "bug") { cur = val; bnp[cur] = 0; next }
    if (key == "chapter") bch[cur] = val
    else if (key == "file") bfile[cur] = val
    else if (key == "find") { p = ++bnp[cur]; bfind[cur, p] = val }
    else if (key == "replace") brepl[cur, bnp[cur]] = val
    next
}

{
    if ($0 ~ /^[ \t]*#/ || $0 ~ /^[ \t]*$/) next
    kv($0)
    if (key == "mistake") {
        if (val == "" || val !~ /^[a-z0-9-]+$/) fail(FILENAME ":" FNR ": a mistake's id is lower-case letters, digits and '-'")
        if (val in seen) fail(FILENAME ":" FNR ": mistake id '" val "' is used twice")
        seen[val] = 1
        n++
        id[n] = val
        np[n] = 0
        next
    }
    if (n == 0) fail(FILENAME ":" FNR ": '" key "' before the first 'mistake' line")
    if (key == "bug") {
        if (!(val in bnp)) fail(FILENAME ":" FNR ": mistake '" id[n] "' names bug '" val "', which bugs.txt does not have")
        ch[n] = bch[val]
        file[n] = bfile[val]
        for (p = 1; p <= bnp[val]; p++) { find[n, p] = bfind[val, p]; repl[n, p] = brepl[val, p] }
        np[n] = bnp[val]
    } else if (key == "chapter") ch[n] = val
    else if (key == "blank") blank[n] = val
    else if (key == "file") file[n] = val
    else if (key == "find") { p = ++np[n]; find[n, p] = val; repl[n, p] = "" }
    else if (key == "replace") {
        if (np[n] < 1) fail(FILENAME ":" FNR ": 'replace' without its 'find' line")
        repl[n, np[n]] = val
    } else if (key == "en") en[n] = val
    else if (key == "zh") zh[n] = val
    else fail(FILENAME ":" FNR ": unknown key '" key "' (mistake, bug, chapter, blank, file, find, replace, en, zh)")
}

END {
    if (bad) exit 2
    for (k = 1; k <= n; k++) {
        if (ch[k] !~ /^[0-9]+$/ || file[k] == "" || np[k] < 1 || blank[k] == "" || en[k] == "" || zh[k] == "")
            fail("mistakes.txt: mistake '" id[k] "' needs a chapter, a file and a find/replace (or a bug), a blank, en and zh")
        if (index(en[k], ": ") || index(zh[k], ": ") || index(zh[k], "："))
            fail("mistakes.txt: mistake '" id[k] "': its en and zh texts have no colon in prose (the feedback puts them after its own)")
        if (index(en[k], "\t") || index(zh[k], "\t")) fail("mistakes.txt: mistake '" id[k] "': no tab in its texts")
        if (en[k] ~ /[^ -~]/) fail("mistakes.txt: mistake '" id[k] "': its en text is printable ASCII (the feedback shows any other byte as \\xHH)")
    }
    for (k = 1; k <= n; k++) {
        if (mode == "list") printf "%s\t%s\t%s\t%s\t%s\t%s\n", id[k], ch[k], blank[k], file[k], en[k], zh[k]
        else if (mode == "bugs") {
            printf "bug %s\nchapter %s\ntitle %s\nfile %s\n", id[k], ch[k], id[k], file[k]
            for (p = 1; p <= np[k]; p++) printf "find %s\nreplace %s\n", find[k, p], repl[k, p]
            printf "why %s\n\n", en[k]
        } else fail("mistakes.awk: mode must be list or bugs")
    }
}
