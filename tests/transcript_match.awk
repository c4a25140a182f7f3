# transcript_match.awk — does a command's output match a transcript's lines?
#
#   awk -f tests/transcript_match.awk EXPECTED ACTUAL
#
# EXPECTED is the transcript (tests/doc_blocks.awk): a line that is only "…"
# matches any number of lines (none too); «span» matches any text within its
# line; every other character must be there as written. Exit 0 when ACTUAL
# matches, else 1 with one line saying which expected line found no match and
# what the output had there.

# glob LINE PATTERN: whether LINE matches PATTERN, whose «...» spans match any text
function glob(s, p,   n, parts, i, at, end, first, last) {
    if (index(p, "«") == 0) return s == p
    n = 0
    while ((at = index(p, "«")) > 0) {
        parts[++n] = substr(p, 1, at - 1)
        p = substr(p, at + length("«"))
        end = index(p, "»")
        if (end == 0) { p = ""; break }       # an open span runs to the end of the line
        p = substr(p, end + length("»"))
    }
    parts[++n] = p
    first = parts[1]
    last = parts[n]
    if (length(s) < length(first) + length(last)) return 0
    if (substr(s, 1, length(first)) != first) return 0
    if (substr(s, length(s) - length(last) + 1) != last) return 0
    s = substr(s, length(first) + 1, length(s) - length(first) - length(last))
    for (i = 2; i < n; i++) {
        at = index(s, parts[i])
        if (at == 0) return 0
        s = substr(s, at + length(parts[i]))
    }
    return 1
}

BEGIN { ne = 0; na = 0 }   # numbers from the start: a command may print nothing
FNR == NR && FILENAME == ARGV[1] { E[++ne] = $0; next }
{ A[++na] = $0 }

END {
    # R[i, j]: the first i expected lines match the first j output lines
    R[0, 0] = 1
    best = 0; bestj = 0
    for (i = 0; i <= ne; i++) {
        for (j = 0; j <= na; j++) {
            if (!((i, j) in R)) continue
            if (i > best || (i == best && j > bestj)) { best = i; bestj = j }
            if (i == ne) continue
            if (E[i + 1] == "…") {
                R[i + 1, j] = 1                  # stands for no line
                if (j < na) R[i, j + 1] = 1      # or for one more
            } else if (j < na && glob(A[j + 1], E[i + 1])) {
                R[i + 1, j + 1] = 1
            }
        }
    }
    if ((ne, na) in R) exit 0
    if (best == ne) {
        printf "the output goes on after the transcript ends: line %d is '%s'\n", bestj + 1, A[bestj + 1]
    } else if (best > 0 && E[best] == "…") {
        for (j = 0; !((best, j) in R); j++) ;
        printf "transcript line %d '%s' matches no output line after line %d\n", best + 1, E[best + 1], j
    } else {
        printf "transcript line %d '%s' does not match output line %d %s\n", best + 1, E[best + 1],
            bestj + 1, (bestj < na) ? "'" A[bestj + 1] "'" : "(the output has ended)"
    }
    exit 1
}
