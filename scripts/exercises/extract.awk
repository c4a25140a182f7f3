# extract.awk — take a student's answers out of one chapter file and put
# each, alone, into a fresh copy of the teacher's file (make grade).
#
#   awk -f extract.awk -v ref=REF -v blanks="a b" -v outdir=DIR \
#       -v allow=ALLOW -v info=BLANKS_TSV STUDENT_FILE
#   awk -f extract.awk -v mode=harvest -v api=LIST -v chh=LIST /dev/null
#
# -v check_all=1 puts answers equal to the teacher's code through the
# allow-list too (tests); -v allowlist=0 turns the allow-list off (to test
# the sandbox alone: GRADE_ALLOWLIST=0, never for a class).
#
# (harvest: the allow-list ALLOW from the headers named in the two lists, run
# in the folder that holds them: every name of the library's headers (api), and
# of the chapters' headers (chh) their types, macros and constants but not
# their functions; "a name" per allowed name, "t name" per type name.)
#
# REF is the teacher's file with its BEGIN/END BLANK markers; blanks names
# the handed-out blanks of this file (outermost only); STUDENT_FILE is the
# student's version of the same file ("/dev/null" when it is missing). For
# each blank one line on stdout, tab-separated:
#   name  status  detail
# status is
#   same     the answer is the teacher's code, token for token
#   empty    nothing there, or the exercise_missing() stub is still there
#   nofunc   the function that holds the blank is not in the student's file
#   denied   the answer uses something a graded answer may not (detail
#            names the token)
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
# The allow-list: an answer (and all the student added) holds no preprocessor
# directive and no '#' (an added file-scope #include of a standard or project
# header is fine) and names only C keywords, standard types and macros, libm,
# the names of the headers (ALLOW), the names of the teacher's function that
# holds the blank and the file's own types, macros and constants, the helpers
# listed in the blank's entry of blanks.txt, the functions the student added, the members
# after . and ->, and the names the answer itself declares; never a function
# of the blank's refuse list (its own concept, e.g. t_softmax for a softmax).
# POSIX awk only.

# Translation phases 1-2 on the lines X[1..xn]: trigraphs replaced, lines
# ending in a backslash joined with the next. Returns the new count.
function phase12(X, xn,    i, o, line, k, c, m, out) {
    for (i = 1; i <= xn; i++) {
        line = X[i]
        if (index(line, "??")) {
            out = ""
            while ((k = index(line, "??")) > 0) {
                c = substr(line, k + 2, 1)
                m = index("=/'()!<>-", c)
                if (m && c != "") {
                    out = out substr(line, 1, k - 1) substr("#\\^[]|{}~", m, 1)
                    line = substr(line, k + 3)
                } else {
                    out = out substr(line, 1, k)
                    line = substr(line, k + 1)
                }
            }
            X[i] = out line
        }
    }
    o = 0
    for (i = 1; i <= xn; i++) {
        line = X[i]
        while (line ~ /\\$/ && i < xn) {
            i++
            line = substr(line, 1, length(line) - 1) X[i]
        }
        Y[++o] = line
    }
    for (i = 1; i <= o; i++) X[i] = Y[i]
    for (i = o + 1; i <= xn; i++) delete X[i]
    return o
}

function clean(s) {
    gsub(/[\t\r\n]/, " ", s)
    gsub(/[^ -~]/, "?", s)
    return substr(s, 1, 200)
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

function span_tokens(a, b,    s, i) {
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

function stu_text(a, b,    s, i, l1, l2, c1, c2) {
    if (a > b) return ""
    l1 = TSL[a]; c1 = TSC[a]; l2 = TEL[b]; c2 = TEC[b]
    s = ""
    for (i = l1; i <= l2; i++) {
        if (i == l1 && i == l2) s = s substr(S[i], c1, c2 - c1 + 1)
        else if (i == l1) s = s substr(S[i], c1) "\n"
        else if (i == l2) s = s substr(S[i], 1, c2)
        else s = s S[i] "\n"
    }
    return s
}

# The names of the text s (identifiers only) into the array A.
function names_of(s, A,    n, i, W) {
    n = split(s, W, /[^A-Za-z0-9_]+/)
    for (i = 1; i <= n; i++) if (W[i] ~ /^[A-Za-z_]/) A[W[i]] = 1
}

function typeish(t) {
    return (t in CTYPE) || (t in TYPE) || (t in STUTYPE)
}

# Mark in DECL the names the student's tokens [a, b] declare: a name right
# after a type (or after the *s that follow one), and after a comma in a
# declaration so begun.
function declared(a, b,    i, j, t, pd, indecl) {
    pd = 0
    for (i = a; i <= b; i++) {
        t = T[i]
        if (t == "(" || t == "[") pd++
        else if (t == ")" || t == "]") { pd--; delete indecl[pd + 1] }
        else if (t == ";" || t == "{" || t == "}") { delete indecl; pd = 0 }
        if (K[i] != "id" || typeish(t) && T[i - 1] != "struct") {
            if (K[i] == "id" && (T[i - 1] == "struct" || T[i - 1] == "union" || T[i - 1] == "enum")) STUTYPE[t] = 1
            continue
        }
        if (T[i - 1] == "." || T[i - 1] == "->") continue
        j = i - 1
        while (j >= a && (T[j] == "*" || T[j] == "const" || T[j] == "volatile" || T[j] == "restrict")) j--
        if ((j >= a && K[j] == "id" && typeish(T[j])) || (j >= a && T[j] == "," && indecl[pd])) {
            # a function declared but not defined here (a prototype of something outside) is not a local
            if (T[i + 1] != "(" || (t in STUFN)) DECL[t] = 1
            indecl[pd] = 1
        }
        if (j >= a && (T[j] == "struct" || T[j] == "union" || T[j] == "enum")) STUTYPE[t] = 1
    }
}

# Is the student's token range [a, b] allowed in the answer to blank nm? "" or why.
# Uses OK (the names allowed for this blank), REF (refused), DECL (declared).
function denied(a, b, nm, toplevel,    i, t) {
    for (i = a; i <= b; i++) {
        t = T[i]
        if (K[i] == "pp") {
            if (toplevel && t ~ /^(#|%:) ?include ?(<[A-Za-z0-9_]+\.h>|"(common|chapters)\/[A-Za-z0-9_\/.]+\.h")$/ && t !~ /\.\./)
                continue
            return "the preprocessor line '" clean(t) "' is not accepted: an answer holds no preprocessor directive (only a file-scope #include <header.h> may be added)"
        }
        if (K[i] == "op") {
            if (t == "#" || t == "##") return "'" t "' is not accepted in an answer (it belongs to the preprocessor)"
            if (t !~ /^[-+*\/%=<>!&|^~?:;,.(){}\[\]]$/) return "the character '" clean(t) "' is not accepted in an answer"
            continue
        }
        if (K[i] != "id") continue
        if (T[i - 1] == "." || T[i - 1] == "->") continue
        if (t in REF) return "'" t "' computes this blank's own concept, so the answer may not call it; write it with the helpers the hint names (make hint BLANK=" nm " TIER=2)"
        if ((t in OK) || (t in DECL) || (t in STUTYPE)) continue
        return "'" t "' is not a name this answer may use (allowed: its own locals and parameters, C keywords and libm, the tensor library, the helpers of make hint BLANK=" nm " TIER=2, and functions you add)"
    }
    return ""
}

BEGIN {
    nkw = split("auto break case char const continue default do double else enum float for goto if inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while _Bool _Complex _Imaginary", KW, " ")
    for (i = 1; i <= nkw; i++) STD[KW[i]] = 1
    nkw = split("void char short int long float double signed unsigned _Bool const volatile static register restrict struct union enum bool size_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t float_t double_t", KW, " ")
    for (i = 1; i <= nkw; i++) { CTYPE[KW[i]] = 1; STD[KW[i]] = 1 }
    nkw = split("true false NULL INFINITY NAN HUGE_VAL HUGE_VALF FLT_MAX FLT_MIN FLT_EPSILON DBL_MAX DBL_MIN DBL_EPSILON INT_MAX INT_MIN LONG_MAX INT64_MAX INT64_MIN INT32_MAX SIZE_MAX M_PI memcpy memset memmove isnan isinf isfinite signbit fpclassify", KW, " ")
    for (i = 1; i <= nkw; i++) STD[KW[i]] = 1
    # libm (C99 <math.h>), each with its f and l forms
    nkw = split("acos asin atan atan2 cos sin tan acosh asinh atanh cosh sinh tanh exp exp2 expm1 frexp ilogb ldexp log log10 log1p log2 logb modf scalbn scalbln cbrt fabs hypot pow sqrt erf erfc lgamma tgamma ceil floor nearbyint rint lrint llrint round lround llround trunc fmod remainder remquo copysign nan nextafter nexttoward fdim fmax fmin fma", KW, " ")
    for (i = 1; i <= nkw; i++) { STD[KW[i]] = 1; STD[KW[i] "f"] = 1; STD[KW[i] "l"] = 1 }
    if (mode == "harvest") { harvest(); exit 0 }
    if (allow != "") {
        while ((getline line < allow) > 0) {
            if (line ~ /^a /) STD[substr(line, 3)] = 1
            else if (line ~ /^t /) { TYPE[substr(line, 3)] = 1; STD[substr(line, 3)] = 1 }
        }
        close(allow)
    }
    if (info != "") {
        while ((getline line < info) > 0) {
            split(line, F, "\t")
            HELP[F[1]] = F[7]
            REFUSE[F[1]] = F[8]
        }
        close(info)
    }
    rn = 0
    while ((getline line < ref) > 0) R[++rn] = line
    close(ref)
    rn = phase12(R, rn)
    nb = split(blanks, BL, / /)
}

# harvest: the allow-list from the headers (see the top of this file)
function harvest(    f, n, X, line, i, t, d, pd, intd, lastid, k) {
    while ((getline f < api) > 0) {
        n = 0; nt = 0
        while ((getline line < f) > 0) X[++n] = line
        close(f)
        n = phase12(X, n)
        tokenize(X, n)
        harvest_tokens(1)
    }
    while ((getline f < chh) > 0) {
        n = 0; nt = 0
        while ((getline line < f) > 0) X[++n] = line
        close(f)
        n = phase12(X, n)
        tokenize(X, n)
        harvest_tokens(0)
    }
}

function harvest_tokens(all,    i, t, d, intd, w, pd) {
    d = 0; intd = 0
    for (i = 1; i <= nt; i++) {
        t = T[i]
        if (K[i] == "pp") {
            if (match(t, /^(#|%:) ?define [A-Za-z_][A-Za-z0-9_]*/)) {
                w = substr(t, RSTART, RLENGTH)
                sub(/^(#|%:) ?define /, "", w)
                if (all || substr(t, RSTART + RLENGTH, 1) != "(") print "a " w
            }
            continue
        }
        if (t ~ /^__attribute(__)?$/ && T[i + 1] == "(") {   # its words are not names
            pd = 0
            for (i++; i <= nt; i++) { if (T[i] == "(") pd++; else if (T[i] == ")" && --pd == 0) break }
            continue
        }
        if (t == "{") d++
        else if (t == "}") d--
        else if (t == "typedef" && d == 0) intd = 1
        else if (t == ";" && d == 0) {
            if (intd && K[i - 1] == "id") print "t " T[i - 1]
            intd = 0
        }
        if (K[i] != "id" || t ~ /^_[_A-Z]/ || t == "asm") continue   # reserved names: never allowed
        if (intd && T[i - 1] == "*" && T[i - 2] == "(") print "t " t
        if (!all && T[i + 1] == "(" && d == 0 && !intd) continue   # a chapter's function
        print "a " t
    }
}

{ S[NR] = $0 }

END {
    if (mode == "harvest") exit 0
    sn = phase12(S, NR)
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
    addpp = ""; adddecl = ""; adda_n = 0
    for (m = 1; m <= NI[2]; m++) {
        if (IK[2, m] == "fn") {
            stufn[IN[2, m]] = m
            if (IN[2, m] in refname) continue
        } else if (IN[2, m] in refitem) continue
        adda_n++
        ADS[adda_n] = IS[2, m]; ADE[adda_n] = IE[2, m]
        if (IK[2, m] == "pp") addpp = addpp stu_text(IS[2, m], IE[2, m]) "\n"
        else adddecl = adddecl stu_text(IS[2, m], IE[2, m]) "\n"
    }
    # the functions the student added, and the teacher's file's own names that are
    # not functions (types, macros, constants, file-scope variables)
    for (m = 1; m <= NI[2]; m++) if (IK[2, m] == "fn" && !(IN[2, m] in refname) && IN[2, m] !~ /^_[_A-Z]/) STUFN[IN[2, m]] = 1
    for (i = 1; i <= rt; i++) {
        if (K[i] == "id" && !(T[i] in refname)) FILEID[T[i]] = 1
        if (K[i] == "pp" && match(T[i], /^(#|%:) ?define [A-Za-z_][A-Za-z0-9_]*/)) {
            w = substr(T[i], RSTART, RLENGTH); sub(/^(#|%:) ?define /, "", w); FILEID[w] = 1
        }
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
            # the names this answer may use
            delete OK; delete REF; delete DECL; delete STUTYPE
            for (t in STD) OK[t] = 1
            for (t in FILEID) OK[t] = 1
            for (t in STUFN) OK[t] = 1
            names_of(HELP[nm], OK)
            for (i = fs; i <= fe; i++) if (K[i] == "id") OK[T[i]] = 1
            names_of(REFUSE[nm], REF)
            declared(gs[x], ge[x])
            for (a2 = 1; a2 <= adda_n; a2++) declared(ADS[a2], ADE[a2])
            w = denied(gs[x], ge[x], nm, 0)
            for (a2 = 1; a2 <= adda_n && w == ""; a2++) w = denied(ADS[a2], ADE[a2], nm, 1)
            if (allowlist == "0") w = ""
            if (w != "") { printf "%s\tdenied\t%s\n", nm, clean(w); continue }
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
            printf "%s", addpp ref_text(1, 1, fsl, 1) adddecl ref_text(fsl, 1, l1, c1) > out
            ind = ""
            if (c1 == 1) { ind = substr(S[TSL[gs[x]]], 1, TSC[gs[x]] - 1); if (ind !~ /^[ \t]*$/) ind = "" }
            printf "%s", ind stu_text(gs[x], ge[x]) > out
            printf "%s", (l2 == END_[GRP[fi, hi]] && c2 == 1 ? "\n" : "") ref_text(l2, c2, rn + 1, 1) > out
            close(out)
            printf "%s\tanswer\t%s\n", nm, note
        }
    }
}
