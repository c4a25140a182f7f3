# code_only.awk — C source without its comments (/* ... */ and //), one
# output line per input line, prefixed "FILE:LINE:". Strings are kept, or with
# -v nostrings=1 emptied ("..." stays as ""). For checks on what code says,
# not what comments say.
FNR == 1 { incomment = 0 }
{
    out = ""; s = $0; instr = 0
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1); c2 = substr(s, i, 2)
        if (incomment) { if (c2 == "*/") { incomment = 0; i++ } ; continue }
        if (instr) {
            if (c == instr) { out = out c; instr = 0; continue }
            if (!nostrings) out = out c (c == "\\" ? substr(s, i + 1, 1) : "")
            if (c == "\\") i++
            continue
        }
        if (c == "\"" || c == "'") { instr = c; out = out c; continue }
        if (c2 == "/*") { incomment = 1; i++; continue }
        if (c2 == "//") break
        out = out c
    }
    print FILENAME ":" FNR ":" out
}
