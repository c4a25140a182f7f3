# extract.awk — take a student's answers out of one chapter file and put
# each, alone, into a fresh copy of the teacher's file (make grade).
#
#   awk -f extract.awk -v ref=REF -v blanks="a b" -v outdir=DIR [-v shown=NAME] STUDENT_FILE
#
# -v check_all=1 writes answers equal to the teacher's code too (tests).
# -v answers=DIR2 also writes each non-empty answer's own text alone to
# DIR2/name.c, followed by every function the student added to the file that
# the answer calls, and those they call, in order of first use (make
# similarity reads it as text, after the preprocessor: it is never compiled).
#
# REF is the teacher's file with its BEGIN/END BLANK markers; blanks names
# the handed-out blanks of this file (outermost only); STUDENT_FILE is the
# student's version of the same file, already as the compiler reads it
# (gradetool normalize: no BOM, LF line ends). For each blank one line on
# stdout, tab-separated:
#   name  status  detail
# status is
#   same     the answer is the teacher's code, token for token
#   empty    nothing there, or the exercise_missing() stub is still there
#   nofunc   the function that holds the blank is not in the student's file
#   answer   DIR/name.c is the teacher's file with this one answer in it
# Both files first go through C's translation phases 1 and 2 (trigraphs,
# line splices), then are read as C tokens (digraphs are their punctuators;
# comments and layout do not matter): the
# student's copy of the function is matched against the teacher's from both
# ends, and what lies between the code around a blank is that blank's
# answer. So students may delete the TODO comments, reformat, rename nothing
# outside the blank and still be found; code they changed outside a blank
# in the same function travels with the nearest blank's answer. Functions,
# file-scope declarations and #include/#define lines the student added (new
# names) go along with every answer of the file. Every other blank keeps
# the teacher's code, so one wrong answer costs only its own blank.
# The answer and what the student added carry #line directives with the
# student's own line numbers (of file NAME), so that the compiler's messages
# point into the student's file. Nothing here judges what an answer says:
# what it may call is read from its compiled object (gradetool policy).
# Every string is built in time linear in its length. POSIX awk only.
# make grade reads only the status lines (the student's whole file is what it
# compiles: grade_lib.sh); make similarity reads -v answers=DIR2.

# The strings P[lo..hi] joined (with sep between), in O(n log n): awk's "s = s x"
# in a loop costs O(n^2) on a long line or answer.
function join(P, lo, hi, sep,    m) {
    if (lo > hi) return ""
    if (lo == hi) return P[lo]
    m = int((lo + hi) / 2)
    return join(P, lo, m, sep) sep join(P, m + 1, hi, sep)
}

# Translation phases 1-2 on the lines X[1..xn]: trigraphs replaced, lines
# ending in a backslash joined with the next. Returns the new count; LINE0[o]
# is the first original line of the new line o.
function phase12(X, xn,    i, o, line, np, PC) {
    for (i = 1; i <= xn; i++) {
        line = X[i]
        if (index(line, "??")) {
            # each trigraph by one gsub, in time linear in the line: the same as C's one
            # scan from the left, since a replacement is never a '?' (so it cannot make
            # a new "??") and two trigraphs cannot overlap (each ends in a non-'?')
            gsub(/\?\?=/, "#", line); gsub(/\?\?\//, "\\\\", line); gsub(/\?\?'/, "^", line)
            gsub(/\?\?\(/, "[", line); gsub(/\?\?\)/, "]", line); gsub(/\?\?!/, "|", line)
            gsub(/\?\?</, "{", line); gsub(/\?\?>/, "}", line); gsub(/\?\?-/, "~", line)
            X[i] = line
        }
    }
    o = 0
    for (i = 1; i <= xn; i++) {
        LINE0[o + 1] = i
        np = 0
        line = X[i]
        while (line ~ /\\$/ && i < xn) {
            PC[++np] = substr(line, 1, length(line) - 1)
            i++
            line = X[i]
        }
        PC[++np] = line
        Y[++o] = np == 1 ? line : join(PC, 1, np, "")
        split("", PC)
    }
    for (i = 1; i <= o; i++) X[i] = Y[i]
    for (i = o + 1; i <= xn; i++) delete X[i]
    split("", Y)
    return o
}

function addtok(t, kind, sl, sc, el, ec) {
    nt++
    T[nt] = t
    K[nt] = kind
    TSL[nt] = sl
    TSC[nt] = sc
    TEL[nt] = el
    TEC[nt] = ec
}

# Tokens of the lines X[1..xn] into T/K/TSL/TSC/TEL/TEC[base+1..]; returns the count.
function tokenize(X, xn,    i, line, j, c, c2, q, s, st, in_com, sl, len, k) {
    in_com = 0
    for (i = 1; i <= xn; i++) {
        line = X[i]
        len = length(line)
        j = 1
        if (!in_com && line ~ /^[ \t]*(#|%:)/) {
            sl = i
            match(line, /^[ \t]*/)
            s = substr(line, RLENGTH + 1)
            st = RLENGTH + 1
            while (line ~ /\\$/ && i < xn) {
                i++
                line = X[i]
                s = s "\n" line
            }
            gsub(/[ \t]+/, " ", s)
            addtok(s, "pp", sl, st, i, length(line))
            continue
        }
        while (j <= len) {
            c = substr(line, j, 1)
            c2 = substr(line, j, 2)
            if (in_com) {
                if (c2 == "*/") { in_com = 0; j += 2 } else j++
                continue
            }
            if (c2 == "/*") { in_com = 1; j += 2; continue }
            if (c2 == "//") break
            if (c == " " || c == "\t" || c == "\r" || c == "\f") { j++; continue }
            if (c == "\"" || c == "'") {
                q = c
                k = j + 1
                while (k <= len) {
                    c = substr(line, k, 1)
                    if (c == "\\") { k += 2; continue }
                    if (c == q) break
                    k++
                }
                addtok(substr(line, j, k - j + 1), "str", i, j, i, k)
                j = k + 1
                continue
            }
            if (c ~ /[A-Za-z_0-9]/ || (c == "." && substr(line, j + 1, 1) ~ /[0-9]/)) {
                k = j
                if (c ~ /[0-9.]/) {
                    while (k <= len) {
                        c = substr(line, k, 1)
                        if (c ~ /[A-Za-z0-9_.]/) { k++; continue }
                        if ((c == "+" || c == "-") && substr(line, k - 1, 1) ~ /[eEpP]/) { k++; continue }
                        break
                    }
                    addtok(substr(line, j, k - j), "num", i, j, i, k - 1)
                } else {
                    while (k <= len && substr(line, k, 1) ~ /[A-Za-z_0-9]/) k++
                    addtok(substr(line, j, k - j), "id", i, j, i, k - 1)
                }
                j = k
                continue
            }
            if (substr(line, j, 4) == "%:%:") { addtok("##", "op", i, j, i, j + 3); j += 4; continue }
            if (c2 == "<:" || c2 == ":>" || c2 == "<%" || c2 == "%>" || c2 == "%:") {
                addtok(c2 == "<:" ? "[" : c2 == ":>" ? "]" : c2 == "<%" ? "{" : c2 == "%>" ? "}" : "#", "op", i, j, i, j + 1)
                j += 2
                continue
            }
            addtok(c, "op", i, j, i, j)
            j++
        }
    }
}

# Top-level items of tokens [from, to]: into the arrays with prefix p
# (I_s, I_e, I_kind, I_name, I_text) of side `side` (1 = ref, 2 = student).
function items(side, from, to,    i, d, pd, start, fnlike, name, m, prev, t) {
    m = 0
    i = from
    while (i <= to) {
        start = i
        if (K[i] == "pp") {
            m++
            IS[side, m] = i; IE[side, m] = i; IK[side, m] = "pp"; IN[side, m] = T[i]
            i++
            continue
        }
        d = 0; pd = 0; name = ""; fnlike = 0; prev = ""
        for (; i <= to; i++) {
            t = T[i]
            if (K[i] == "pp") continue
            if (t == "(") {
                if (pd == 0 && d == 0 && name == "" && K[i - 1] == "id") name = T[i - 1]
                pd++
            } else if (t == ")") pd--
            else if (t == "{") {
                if (d == 0 && pd == 0 && prev == ")" && name != "") fnlike = 1
                d++
            } else if (t == "}") {
                d--
                if (d == 0 && fnlike) break
            } else if (t == ";" && d == 0 && pd == 0) break
            prev = t
        }
        if (i > to) i = to
        m++
        IS[side, m] = start; IE[side, m] = i
        IK[side, m] = fnlike ? "fn" : "decl"
        IN[side, m] = fnlike ? name : span_tokens(start, i)
        i++
    }
    NI[side] = m
}

function span_tokens(a, b,    s, i, m) {
    if (b - a > 32) {
        m = int((a + b) / 2)
        return span_tokens(a, m) " " span_tokens(m + 1, b)
    }
    s = ""
    for (i = a; i <= b; i++) s = s (i > a ? " " : "") T[i]
    return s
}

# The text of lines X from (l1, c1) up to and without (l2, c2); marker lines
# of the teacher's file (side 1) are left out.
function ref_text(l1, c1, l2, c2,    s, i, a, b) {
    s = ""
    for (i = l1; i <= l2 && i <= rn; i++) {
        if (RM[i]) continue
        a = i == l1 ? c1 : 1
        if (i == l2) {
            s = s substr(R[i], a, c2 - a)
            break
        }
        s = s substr(R[i], a) "\n"
    }
    return s
}

# Print the student's text of tokens [a, b] to out, after a #line directive with
# the student's own line number.
function stu_print(a, b, out,    i, l1, l2, c1, c2) {
    if (a > b) return
    l1 = TSL[a]; c1 = TSC[a]; l2 = TEL[b]; c2 = TEC[b]
    printf "\n#line %d \"%s\"\n", SLINE[l1], shown > out
    if (c1 > 1 && substr(S[l1], 1, c1 - 1) ~ /^[ \t]*$/) printf "%s", substr(S[l1], 1, c1 - 1) > out
    for (i = l1; i <= l2; i++) {
        if (i == l1 && i == l2) printf "%s", substr(S[i], c1, c2 - c1 + 1) > out
        else if (i == l1) printf "%s\n", substr(S[i], c1) > out
        else if (i == l2) printf "%s", substr(S[i], 1, c2) > out
        else printf "%s\n", S[i] > out
    }
    printf "\n" > out
}

# The student's text of tokens [a, b] alone, to the file out (-v answers=DIR).
function stu_raw(a, b, out,    i, l1, l2, c1, c2) {
    l1 = TSL[a]; c1 = TSC[a]; l2 = TEL[b]; c2 = TEC[b]
    for (i = l1; i <= l2; i++) {
        if (i == l1 && i == l2) printf "%s\n", substr(S[i], c1, c2 - c1 + 1) > out
        else if (i == l1) printf "%s\n", substr(S[i], c1) > out
        else if (i == l2) printf "%s\n", substr(S[i], 1, c2) > out
        else printf "%s\n", S[i] > out
    }
}

# After the answer's text in out: the functions the student added (ADDFN) that the
# tokens [a, b] name, then those their bodies name, each once (-v answers=DIR).
function helpers(a, b, out,    q, nq, h, i, m, SEEN, Q) {
    nq = 0
    for (i = a; i <= b; i++)
        if (K[i] == "id" && (T[i] in ADDFN) && !(T[i] in SEEN)) { SEEN[T[i]] = 1; Q[++nq] = ADDFN[T[i]] }
    for (h = 1; h <= nq; h++) {
        m = Q[h]
        stu_raw(IS[2, m], IE[2, m], out)
        for (i = IS[2, m]; i <= IE[2, m]; i++)
            if (K[i] == "id" && (T[i] in ADDFN) && !(T[i] in SEEN)) { SEEN[T[i]] = 1; Q[++nq] = ADDFN[T[i]] }
    }
}

BEGIN {
    rn = 0
    while ((getline line < ref) > 0) R[++rn] = line
    close(ref)
    rn = phase12(R, rn)
    nb = split(blanks, BL, / /)
    if (shown == "") shown = "answer.c"
}

{ S[NR] = $0 }

END {
    sn = phase12(S, NR)
    for (i = 1; i <= sn; i++) SLINE[i] = LINE0[i]
    # markers of the teacher's file
    for (i = 1; i <= rn; i++) {
        RM[i] = R[i] ~ /^[ \t]*\/\* (BEGIN BLANK|END BLANK)/
        if (R[i] ~ /^[ \t]*\/\* BEGIN BLANK /) {
            nm = R[i]
            sub(/^[ \t]*\/\* BEGIN BLANK /, "", nm)
            sub(/ .*$/, "", nm)
            BEG[nm] = i
            stackn++
            STK[stackn] = nm
        } else if (R[i] ~ /^[ \t]*\/\* END BLANK/) {
            END_[STK[stackn]] = i
            stackn--
        }
    }
    nt = 0
    tokenize(R, rn)
    rt = nt
    for (i = 1; i <= sn; i++) X2[i] = S[i]
    tokenize(X2, sn)
    items(1, 1, rt)
    items(2, rt + 1, nt)

    # the teacher's functions, declarations and lines
    for (m = 1; m <= NI[1]; m++) {
        if (IK[1, m] == "fn") refname[IN[1, m]] = m
        else refitem[IN[1, m]] = 1
    }
    # what the student added: new functions, declarations, #lines
    npp = 0; ndecl = 0
    for (m = 1; m <= NI[2]; m++) {
        if (IK[2, m] == "fn") {
            stufn[IN[2, m]] = m
            if (IN[2, m] in refname) continue
            ADDFN[IN[2, m]] = m
        } else if (IN[2, m] in refitem) continue
        if (IK[2, m] == "pp") { npp++; PPS[npp] = IS[2, m]; PPE[npp] = IE[2, m] }
        else { ndecl++; DCS[ndecl] = IS[2, m]; DCE[ndecl] = IE[2, m] }
    }
    # group the chosen blanks by their function in the teacher's file
    for (b = 1; b <= nb; b++) {
        nm = BL[b]
        if (nm == "") continue
        if (!(nm in BEG)) { printf "%s\tnofunc\tthe teacher's file has no blank of this name\n", nm; continue }
        fi = 0
        for (m = 1; m <= NI[1]; m++)
            if (IK[1, m] == "fn" && TSL[IS[1, m]] < BEG[nm] && TEL[IE[1, m]] > END_[nm]) fi = m
        if (!fi) { printf "%s\tnofunc\tthe blank is not inside a function\n", nm; continue }
        FN[nm] = fi
        cnt[fi]++
        GRP[fi, cnt[fi]] = nm
    }
    for (fi = 1; fi <= NI[1]; fi++) {
        k = cnt[fi]
        if (!k) continue
        # sort the group by line
        for (x = 1; x <= k; x++)
            for (y = x + 1; y <= k; y++)
                if (BEG[GRP[fi, y]] < BEG[GRP[fi, x]]) { tmp = GRP[fi, x]; GRP[fi, x] = GRP[fi, y]; GRP[fi, y] = tmp }
        fname = IN[1, fi]
        fs = IS[1, fi]; fe = IE[1, fi]
        # region token ranges
        for (x = 1; x <= k; x++) {
            nm = GRP[fi, x]
            rs[x] = 0; ren[x] = -1
            for (i = fs; i <= fe; i++) {
                if (TSL[i] > BEG[nm] && TSL[i] < END_[nm]) {
                    if (!rs[x]) rs[x] = i
                    ren[x] = i
                }
            }
            if (!rs[x]) { rs[x] = fe + 1; ren[x] = fe }
        }
        if (!(fname in stufn)) {
            for (x = 1; x <= k; x++) printf "%s\tnofunc\tthe function %s() is not in your file\n", GRP[fi, x], fname
            continue
        }
        sm = stufn[fname]
        us = IS[2, sm]; ue = IE[2, sm]
        # P0 = [fs, rs1-1], P_k = [ren_k + 1, fe]
        a = 0
        while (fs + a < rs[1] && us + a <= ue && T[us + a] == T[fs + a]) a++
        bb = 0
        while (fe - bb > ren[k] && ue - bb >= us + a && T[ue - bb] == T[fe - bb]) bb++
        pos = us + a
        lim = ue - bb
        for (x = 1; x <= k; x++) {
            gs[x] = pos
            span[x] = x
            if (x == k) { ge[x] = lim; continue }
            # the teacher's code between blank x and x+1, found in the student's
            plen = rs[x + 1] - ren[x] - 1
            found = 0
            if (plen < 1) lim2 = -1; else lim2 = lim
            for (j = pos; j + plen - 1 <= lim2; j++) {
                ok = 1
                for (q = 0; q < plen; q++) if (T[j + q] != T[ren[x] + 1 + q]) { ok = 0; break }
                if (ok) { found = j; break }
            }
            if (!found) {
                # cannot tell the answers apart: each of them gets the rest
                for (y = x; y <= k; y++) { gs[y] = pos; ge[y] = lim; span[y] = k; first[y] = x }
                break
            }
            ge[x] = found - 1
            pos = found + plen
        }
        for (x = 1; x <= k; x++) {
            nm = GRP[fi, x]
            lo = (span[x] != x) ? first[x] : x
            hi = span[x]
            # the teacher's code that the answer replaces: regions lo..hi and what lies between
            refs = rs[lo]; refe = ren[hi]
            if (lo == 1 && a < rs[1] - fs) refs = fs + a
            if (hi == k && bb < fe - ren[k]) refe = fe - bb
            # compare with the teacher's tokens
            same = (ge[x] - gs[x] == refe - refs)
            if (same) for (q = 0; q <= ge[x] - gs[x]; q++) if (T[gs[x] + q] != T[refs + q]) { same = 0; break }
            note = hi > lo ? "your answers to the blanks of " fname "() could not be told apart (keep the code between them as it was handed out); this one is graded with all of them" : ""
            if (same && !check_all) { printf "%s\tsame\t%s\n", nm, note; continue }
            if (gs[x] > ge[x]) { printf "%s\tempty\tno code in the blank\n", nm; continue }
            miss = 0
            for (q = gs[x]; q <= ge[x]; q++) if (T[q] == "exercise_missing") miss = 1
            if (miss) { printf "%s\tempty\tthe exercise_missing() stub is still there\n", nm; continue }
            # (make similarity: the answer's own text alone, to compare, never to compile)
            if (answers != "") { raw = answers "/" nm ".c"; stu_raw(gs[x], ge[x], raw); helpers(gs[x], ge[x], raw); close(raw) }
            if (same) { printf "%s\tsame\t%s\n", nm, note; continue }
            # splice: the teacher's file up to the answer, the answer, the rest
            if (lo == 1 && a < rs[1] - fs) {
                if (a == 0) { l1 = TSL[fs]; c1 = TSC[fs] }
                else { l1 = TEL[fs + a - 1]; c1 = TEC[fs + a - 1] + 1 }
            } else { l1 = BEG[GRP[fi, lo]] + 1; c1 = 1 }
            if (hi == k && bb < fe - ren[k]) {
                if (bb == 0) { l2 = TEL[fe]; c2 = TEC[fe] + 1 }
                else { l2 = TSL[fe - bb + 1]; c2 = TSC[fe - bb + 1] }
            } else { l2 = END_[GRP[fi, hi]]; c2 = 1 }
            fsl = TSL[fs]
            out = outdir "/" nm ".c"
            # (the student's parts carry the student's line numbers; the function around
            # the answer those of the student's copy of it)
            for (q = 1; q <= npp; q++) stu_print(PPS[q], PPE[q], out)
            printf "#line 1 \"%s (the teacher's copy)\"\n%s", shown, ref_text(1, 1, fsl, 1) > out
            for (q = 1; q <= ndecl; q++) stu_print(DCS[q], DCE[q], out)
            printf "#line %d \"%s\"\n%s", SLINE[TSL[us]], shown, ref_text(fsl, 1, l1, c1) > out
            stu_print(gs[x], ge[x], out)
            if (ge[x] < ue) printf "#line %d \"%s\"\n", SLINE[TSL[ge[x] + 1]], shown > out
            printf "%s", ref_text(l2, c2, rn + 1, 1) > out
            close(out)
            printf "%s\tanswer\t%s\n", nm, note
        }
    }
}
