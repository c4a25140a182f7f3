# translate.awk — the grader's feedback in the language of a table (make grade with
# GRADE_LANG=zh): reads result.tsv (blank, points, max, message) and writes it with
# each message translated. The table (-v table=FILE, e.g. feedback_zh.txt) holds one
# sentence a line: the English, a tab, the translation, %s for text kept as it is.
# A message is matched against the sentences with the most fixed text first; each
# %s part is itself translated when it is one of the sentences (a verdict around a
# reason), and anything else (a compiler's message, a check's numbers) stays as it
# came. A second table (-v exact=FILE, the student's own sentences from gradetool
# compare, zh.tsv) is applied first, wherever its English occurs whole: a pattern
# ending in %s ("%s has shape %s, expected %s") would otherwise take the sentence and
# the verdict after it as one part. Nothing here runs or parses what it reads as
# anything but text.
BEGIN {
    FS = OFS = "\t"
    n = 0
    while ((getline line < table) > 0) {
        if (line ~ /^#/ || line !~ /\t/) continue
        split(line, f, "\t")
        n++
        EN[n] = f[1]
        TR[n] = f[2]
        FIXED[n] = length(f[1]) - 2 * gsub(/%s/, "", f[1])
    }
    close(table)
    ne = 0
    if (exact != "")
        while ((getline line < exact) > 0) {
            if (line !~ /\t/) continue
            split(line, f, "\t")
            if (f[1] == "") continue
            ne++
            XEN[ne] = f[1]
            XTR[ne] = f[2]
        }
    for (i = 2; i <= ne; i++)   # the longest first
        for (j = i; j > 1 && length(XEN[j]) > length(XEN[j - 1]); j--) {
            t = XEN[j]; XEN[j] = XEN[j - 1]; XEN[j - 1] = t
            t = XTR[j]; XTR[j] = XTR[j - 1]; XTR[j - 1] = t
        }
    for (i = 2; i <= n; i++)   # the most fixed text first (insertion sort)
        for (j = i; j > 1 && FIXED[j] > FIXED[j - 1]; j--) {
            t = EN[j]; EN[j] = EN[j - 1]; EN[j - 1] = t
            t = TR[j]; TR[j] = TR[j - 1]; TR[j - 1] = t
            t = FIXED[j]; FIXED[j] = FIXED[j - 1]; FIXED[j - 1] = t
        }
}

# say(S, DEPTH): S translated, or S itself
function say(s, depth,   i, r) {
    if (depth > 4) return s
    for (i = 1; i <= n; i++)
        if ((r = try_one(s, i, depth)) != "\001") return r
    return s
}

# try_one(S, I, DEPTH): S as sentence I, its parts translated; "\001" when it is not
function try_one(s, i, depth,   np, p, nz, z, k, cap, rest, at, out) {
    np = split(EN[i], p, "%s")
    if (substr(s, 1, length(p[1])) != p[1]) return "\001"
    rest = substr(s, length(p[1]) + 1)
    if (np == 1) return rest == "" ? TR[i] : "\001"
    for (k = 2; k <= np; k++) {
        if (k == np) {   # the last fixed text ends the message
            if (length(rest) < length(p[k]) || substr(rest, length(rest) - length(p[k]) + 1) != p[k]) return "\001"
            cap[k - 1] = substr(rest, 1, length(rest) - length(p[k]))
        } else {
            if (p[k] == "" || (at = index(rest, p[k])) == 0) return "\001"
            cap[k - 1] = substr(rest, 1, at - 1)
            rest = substr(rest, at + length(p[k]))
        }
    }
    nz = split(TR[i], z, "%s")
    if (nz != np) return "\001"
    out = z[1]
    for (k = 2; k <= nz; k++) out = out say(cap[k - 1], depth + 1) z[k]
    return out
}

# exact_first(S): S with each sentence of the exact table in it translated (text only)
function exact_first(s,   i, at, out) {
    for (i = 1; i <= ne; i++) {
        out = ""
        while ((at = index(s, XEN[i])) > 0) {
            out = out substr(s, 1, at - 1) XTR[i]
            s = substr(s, at + length(XEN[i]))
        }
        s = out s
    }
    return s
}

NF >= 4 { $4 = say(exact_first($4), 0) }
{ print }
