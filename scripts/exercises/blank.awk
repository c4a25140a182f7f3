# blank.awk — read the exercise markers of one chapter file; list them or
# write the file with chosen blanks replaced by stubs.
#
#   awk -f blank.awk -v mode=list -v path=chapters/02_scaling/scaling.c FILE
#       one line per blank, tab-separated:
#       name  level  path  line  outer-blank-or-"-"  hint  points  function
#       helpers-or-"-"  torch-or-"-"  end-line  refuse-or-"-"
#   awk -f blank.awk -v mode=stub -v level=N [-v only=NAME] [-v manifest=F] -v path=P FILE
#       the file on stdout with every blank of level <= N (or only the blank
#       NAME) replaced by a stub; all marker lines removed, every other line
#       kept byte for byte. A blank inside a chosen blank of higher level is
#       swallowed by it. With manifest=F, appends one line per stub:
#       name  level  path  line-in-this-repo  line-in-the-output  hint
#       helpers-or-"-"  torch-or-"-"  points
#       With solutions=F, appends the stubbed code lines (comments and white
#       space removed) for readme.awk.
#
# Markers (DESIGN.md), each alone on its line:
#   /* BEGIN BLANK name level=1|2|3 hint="..." */
# optionally with points=N (default: the level) after level=, and after the
# hint the further hint tiers helpers="..." (which helpers) and torch="..."
# (the PyTorch line) for make hint TIER=2|3, and refuse="f g" naming the
# functions that compute the blank's own concept (make grade refuses an answer
# that calls them; scripts/exercises/refuse.txt adds to this list).
#   /* END BLANK */
# A blank may nest only inside one of strictly higher level. Mistakes are
# refused with path:line and exit status 2 (3: blank NAME not in this file).
#
# A stub is
#   /* TODO exercise 'name' (level N): hint */
#   (void)x; ...                       parameters, locals and file statics the
#                                      solution used and nothing else uses now
#   exercise_missing("name", "path:line", "hint");   (common/exercise.h, noreturn)
# To know which names need (void), the file is lexed (comments, strings,
# blocks, declarations): a name needs it when the blank's solution mentions
# it and nothing outside the stubbed regions of its function reads it.
# POSIX awk only.

function fail(line, msg) {
    printf "%s:%d: %s\n", path, line, msg > "/dev/stderr"
    nerr++
}

function trim(s) {
    sub(/^[ \t]+/, "", s)
    sub(/[ \t]+$/, "", s)
    return s
}

function isword(c) { return c ~ /^[A-Za-z0-9_]$/ }

# ---- markers ---------------------------------------------------------------

# Parse the attributes after "BEGIN BLANK name": level=N, optional points=N,
# hint="..." (tier 1) and optional helpers="..." (tier 2) and torch="..."
# (tier 3); a quoted value may hold \" and \\. Sets m_* globals; returns
# "" or what is wrong.
function parse_attrs(s,    key, val, c, j) {
    m_level = ""; m_points = ""; m_hint = ""; m_helpers = ""; m_torch = ""; m_refuse = ""; m_has_hint = 0
    while (1) {
        sub(/^[ \t]+/, "", s)
        if (s ~ /^\*\/[ \t]*$/) break
        if (!match(s, /^[a-z0-9]+=/)) return "expected key=value or the closing */ at '" substr(s, 1, 20) "'"
        key = substr(s, 1, RLENGTH - 1)
        s = substr(s, RLENGTH + 1)
        if (key == "level" || key == "points") {
            if (!match(s, /^[0-9]+/)) return key "= needs a number"
            val = substr(s, 1, RLENGTH)
            s = substr(s, RLENGTH + 1)
        } else if (key == "hint" || key == "helpers" || key == "torch" || key == "refuse") {
            if (substr(s, 1, 1) != "\"") return key "= needs a quoted text"
            val = ""
            for (j = 2; j <= length(s); j++) {
                c = substr(s, j, 1)
                if (c == "\\") { val = val c substr(s, j + 1, 1); j++; continue }
                if (c == "\"") break
                val = val c
            }
            if (j > length(s)) return key "= has no closing quote"
            s = substr(s, j + 1)
        } else return "unknown attribute '" key "' (known: level, points, hint, helpers, torch, refuse)"
        if (key == "level") m_level = val
        else if (key == "points") m_points = val
        else if (key == "hint") { m_hint = val; m_has_hint = 1 }
        else if (key == "helpers") m_helpers = val
        else if (key == "refuse") m_refuse = val
        else m_torch = val
    }
    if (m_level == "") return "no level="
    if (!m_has_hint) return "no hint=\"...\""
    return ""
}

function parse_markers(    i, line, s, nm, lv, h, sp, stack, top, why) {
    nr = 0
    sp = 0
    for (i = 1; i <= n; i++) {
        line = L[i]
        ismarker[i] = 0
        if (index(line, "BEGIN BLANK")) {
            ismarker[i] = 1
            if (line !~ /^[ \t]*\/\* BEGIN BLANK [A-Za-z_][A-Za-z0-9_]* /) {
                fail(i, "malformed marker: expected /* BEGIN BLANK name level=1|2|3 hint=\"...\" */ alone on its line")
                continue
            }
            s = line
            sub(/^[ \t]*\/\* BEGIN BLANK /, "", s)
            nm = s
            sub(/ .*$/, "", nm)
            s = substr(s, length(nm) + 1)
            why = parse_attrs(s)
            if (why != "") {
                fail(i, "malformed marker: " why ": expected /* BEGIN BLANK name level=1|2|3 [points=N] hint=\"...\" [helpers=\"...\"] [torch=\"...\"] */ alone on its line")
                continue
            }
            lv = m_level
            h = m_hint
            if (lv !~ /^[123]$/) fail(i, "blank '" nm "' has level=" lv ": the level must be 1, 2 or 3")
            if (m_points != "" && m_points + 0 < 1) fail(i, "blank '" nm "' has points=" m_points ": give at least 1")
            if (trim(h) == "") fail(i, "blank '" nm "' has an empty hint")
            if (index(h m_helpers m_torch, "\t")) fail(i, "blank '" nm "': the hints must not contain a tab")
            if (nm in byname) fail(i, "blank '" nm "' is already defined at line " rb[byname[nm]])
            nr++
            rname[nr] = nm
            rlvl[nr] = lv + 0
            rhint[nr] = h
            rpoints[nr] = m_points != "" ? m_points + 0 : lv + 0
            rhelpers[nr] = m_helpers
            rtorch[nr] = m_torch
            rrefuse[nr] = m_refuse
            rb[nr] = i
            re[nr] = 0
            match(line, /^[ \t]*/)
            rind[nr] = substr(line, 1, RLENGTH)
            rparent[nr] = sp > 0 ? stack[sp] : 0
            byname[nm] = nr
            if (sp > 0) {
                top = stack[sp]
                if (rlvl[nr] >= rlvl[top])
                    fail(i, "blank '" nm "' (level " lv ") is inside blank '" rname[top] "' (level " rlvl[top] \
                         ", line " rb[top] "): a nested blank needs a strictly lower level")
            }
            stack[++sp] = nr
        } else if (index(line, "END BLANK")) {
            ismarker[i] = 1
            if (line !~ /^[ \t]*\/\* END BLANK \*\/[ \t]*$/) {
                fail(i, "malformed marker: expected /* END BLANK */ alone on its line")
                continue
            }
            if (sp == 0) {
                fail(i, "END BLANK without a BEGIN BLANK")
                continue
            }
            top = stack[sp--]
            re[top] = i
            if (i == rb[top] + 1) fail(rb[top], "blank '" rname[top] "' is empty")
        }
    }
    while (sp > 0) {
        top = stack[sp--]
        fail(rb[top], "blank '" rname[top] "' is never closed (no /* END BLANK */)")
    }
}

# ---- a small C lexer: statements, blocks, declarations ---------------------

# Split s at commas outside (), [] and {}; parts in arr[1..k]; returns k.
function split_top(s, arr,    i, c, d, k, cur) {
    k = 0
    d = 0
    cur = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "(" || c == "[" || c == "{") d++
        else if (c == ")" || c == "]" || c == "}") d--
        if (c == "," && d == 0) {
            arr[++k] = cur
            cur = ""
        } else cur = cur c
    }
    arr[++k] = cur
    return k
}

# The declarator part before an initializer or array size.
function decl_prefix(s,    a, b) {
    a = index(s, "=")
    b = index(s, "[")
    if (b && (!a || b < a)) a = b
    return a ? substr(s, 1, a - 1) : s
}

# Identifiers of s (qualifiers dropped), space-separated; count in ntok.
function idents(s,    t, k, i, out) {
    gsub(/\*/, " ", s)
    s = trim(s)
    ntok = 0
    out = ""
    if (s == "") return ""
    k = split(s, t, /[ \t]+/)
    for (i = 1; i <= k; i++) {
        if (t[i] ~ /^(const|volatile|restrict|register|auto|static|extern|inline)$/) continue
        ntok++
        firsttok = ntok == 1 ? t[i] : firsttok
        out = out (out == "" ? "" : " ") t[i]
    }
    return out
}

function last_word(s,    k, t) {
    k = split(s, t, / /)
    return t[k]
}

# Names declared by the statement s ("" if s is not a declaration).
function decl_names(s,    parts, k, i, pre, ids, res) {
    s = trim(s)
    if (s == "") return ""
    k = split_top(s, parts)
    pre = decl_prefix(parts[1])
    if (pre ~ /[^A-Za-z0-9_ \t*]/) return ""
    ids = idents(pre)
    if (ntok < 2) return ""
    if (firsttok ~ /^(return|goto|break|continue|case|default|else|do|sizeof|typedef|if|while|for|switch)$/) return ""
    res = last_word(ids)
    for (i = 2; i <= k; i++) {
        pre = decl_prefix(parts[i])
        if (pre ~ /[^A-Za-z0-9_ \t*]/) break
        ids = idents(pre)
        if (ntok < 1) break
        res = res " " last_word(ids)
    }
    return res
}

# Parameter names of a function signature, space-separated.
function param_names(sig,    p, i, c, d, inner, parts, k, res, s, j) {
    p = index(sig, "(")
    if (!p) return ""
    d = 0
    inner = ""
    for (i = p; i <= length(sig); i++) {
        c = substr(sig, i, 1)
        if (c == "(") { d++; if (d == 1) continue }
        if (c == ")") { d--; if (d == 0) break }
        inner = inner c
    }
    inner = trim(inner)
    if (inner == "" || inner == "void") return ""
    k = split_top(inner, parts)
    res = ""
    for (i = 1; i <= k; i++) {
        s = parts[i]
        gsub(/\[[^]]*\]/, "", s)
        if (trim(s) == "...") continue
        j = index(s, "(*")
        if (j) {
            s = substr(s, j + 2)
            sub(/[^A-Za-z0-9_].*$/, "", s)
        } else {
            s = trim(s)
            if (!match(s, /[A-Za-z_][A-Za-z0-9_]*$/)) continue
            s = substr(s, RSTART)
        }
        res = res (res == "" ? "" : " ") s
    }
    return res
}

function func_name(sig,    p, s) {
    p = index(sig, "(")
    s = trim(substr(sig, 1, p - 1))
    if (!match(s, /[A-Za-z_][A-Za-z0-9_]*$/)) return ""
    return substr(s, RSTART)
}

function add_decls(names, depth, from,    k, t, i) {
    k = split(names, t, / /)
    for (i = 1; i <= k; i++) {
        if (t[i] == "") continue
        nd++
        dn[nd] = t[i]
        dd[nd] = depth
        dfrom[nd] = from
    }
}

function add_static(names, line,    k, t, i) {
    k = split(names, t, / /)
    for (i = 1; i <= k; i++) {
        if (t[i] == "") continue
        if (!(t[i] in sdecls)) {
            ns++
            sname[ns] = t[i]
            sfirst[t[i]] = line
            sdecls[t[i]] = 0
        }
        sdecls[t[i]]++
    }
}

function append(c) {
    if (st ~ /^[ \t]*$/ && c !~ /[ \t]/) st_line = cur_line
    st = st c
}

# A statement ended with ';' at the top level of a block.
function end_statement(    t, nm) {
    t = trim(st)
    if (bd >= 1) {
        add_decls(decl_names(t), bd, cur_line + 1)
        pend_for = ""
    } else if (t ~ /^static[ \t]/) {
        if (index(t, "(") && (!index(t, "=") || index(t, "(") < index(t, "="))) add_static(func_name(t), cur_line)
        else add_static(decl_names(t), cur_line)
    }
    st = ""
}

function open_brace(    t, sig) {
    t = trim(st)
    if (bd == 0) {
        if (index(t, "(") && !index(t, "=") && t !~ /^(typedef|struct|union|enum)[ \t]/) {
            nf++
            fstart[nf] = st_line
            fbody[nf] = cur_line
            fparams[nf] = param_names(t)
            fname[nf] = func_name(t)
            if (t ~ /^static[ \t]/) add_static(func_name(t), st_line)
            curf = nf
            bd = 1
            st = ""
            return
        }
        ibd = 1
        append("{")
        return
    }
    if (t == "" || t ~ /(^|[^A-Za-z0-9_])(else|do)$/ || t ~ /:$/) {
        bd++
        if (pend_for != "") add_decls(pend_for, bd, pend_line)
        pend_for = ""
        st = ""
        return
    }
    ibd = 1
    append("{")
}

function close_brace(    k, j) {
    # drop the declarations of the closing block
    j = 0
    for (k = 1; k <= nd; k++) {
        if (dd[k] >= bd) continue
        j++
        dn[j] = dn[k]
        dd[j] = dd[k]
        dfrom[j] = dfrom[k]
    }
    nd = j
    bd--
    if (bd == 0 && curf) {
        fend[curf] = cur_line
        curf = 0
    }
    st = ""
}

function lex(    i, line, j, c, c2, code, q, t, init, p, r) {
    bd = 0; pd = 0; ibd = 0; st = ""; in_com = 0; in_pp = 0
    hdr = 0; pend_for = ""; nd = 0; nf = 0; curf = 0; ns = 0
    for (i = 1; i <= n; i++) {
        cur_line = i
        line = L[i]
        code = ""
        if (ismarker[i]) {
            if (index(line, "BEGIN BLANK") && byname_line[i]) {
                r = byname_line[i]
                rfn[r] = curf
                rctx[r] = ""
                for (p = 1; p <= nd; p++) rctx[r] = rctx[r] " " dn[p] "@" dfrom[p]
                if (curf == 0 || bd < 1) fail(i, "blank '" rname[r] "' is outside a function body: put the markers inside the braces")
            }
            codeline[i] = ""
            continue
        }
        if (!in_com && (in_pp || line ~ /^[ \t]*#/)) {
            in_pp = line ~ /\\$/
            codeline[i] = ""
            continue
        }
        j = 1
        while (j <= length(line)) {
            c = substr(line, j, 1)
            c2 = substr(line, j, 2)
            if (in_com) {
                if (c2 == "*/") { in_com = 0; j += 2; code = code " "; continue }
                j++
                continue
            }
            if (c2 == "/*") { in_com = 1; j += 2; continue }
            if (c2 == "//") break
            if (c == "\"" || c == "'") {
                q = c
                j++
                while (j <= length(line)) {
                    c = substr(line, j, 1)
                    if (c == "\\") { j += 2; continue }
                    j++
                    if (c == q) break
                }
                code = code q q
                append(q q)
                continue
            }
            code = code c
            j++
            if (c == "(") {
                if (pd == 0 && !hdr && ibd == 0) {
                    t = trim(st)
                    if (t ~ /(^|[^A-Za-z0-9_])(if|for|while|switch)$/) {
                        hdr = 1
                        hfor = t ~ /(^|[^A-Za-z0-9_])for$/
                    }
                }
                pd++
                append(c)
            } else if (c == ")") {
                pd--
                append(c)
                if (hdr && pd == 0) {
                    hdr = 0
                    if (hfor) {
                        init = st
                        sub(/^[^(]*\(/, "", init)
                        sub(/;.*$/, "", init)
                        pend_for = decl_names(init)
                        pend_line = i
                    }
                    st = ""
                }
            } else if (c == ";") {
                if (pd > 0 || ibd > 0) append(c)
                else end_statement()
            } else if (c == "{") {
                if (pd > 0) append(c)
                else if (ibd > 0) { ibd++; append(c) }
                else open_brace()
            } else if (c == "}") {
                if (pd > 0) append(c)
                else if (ibd > 0) { ibd--; append(c) }
                else close_brace()
            } else append(c)
        }
        codeline[i] = code
        append(" ")
    }
}

# ---- which names a stub must (void) ----------------------------------------

# Occurrences of the word w in code line s: reads (not `w =`, not a member
# `.w` / `->w`) go to occ_read, all to occ_all.
function count_word(s, w,    p, off, before, after, rest, b2, lw) {
    occ_read = 0
    occ_all = 0
    lw = length(w)
    off = 0
    while ((p = index(substr(s, off + 1), w)) > 0) {
        p += off
        off = p
        before = p > 1 ? substr(s, p - 1, 1) : ""
        b2 = p > 2 ? substr(s, p - 2, 2) : ""
        after = substr(s, p + lw, 1)
        rest = substr(s, p + lw)
        if (isword(before) || isword(after)) continue
        occ_all++
        if (before == "." || b2 == "->") continue
        if (rest ~ /^[ \t]*=([^=]|$)/) continue
        occ_read++
    }
}

function mentioned(w, from, to,    i) {
    for (i = from; i <= to; i++) {
        count_word(codeline[i], w)
        if (occ_all > 0) return 1
    }
    return 0
}

function reads_outside(w, from, to,    i, total) {
    total = 0
    for (i = from; i <= to; i++) {
        if (inreg[i]) continue
        count_word(codeline[i], w)
        total += occ_read
    }
    return total
}

function all_outside(w,    i, total) {
    total = 0
    for (i = 1; i <= n; i++) {
        if (inreg[i]) continue
        count_word(codeline[i], w)
        total += occ_all
    }
    return total
}

function voids_for(r,    f, list, seen, k, t, i, nm, from, res, w) {
    f = rfn[r]
    res = ""
    list = ""
    k = split(fparams[f], t, / /)
    for (i = 1; i <= k; i++) list = list " " t[i] "@" (fbody[f] + 1)
    list = list rctx[r]
    k = split(trim(list), t, / /)
    for (i = 1; i <= k; i++) {
        nm = t[i]
        from = nm
        sub(/@.*$/, "", nm)
        sub(/^.*@/, "", from)
        if (nm == "" || (nm in seen)) continue
        seen[nm] = 1
        if (!mentioned(nm, rb[r], re[r])) continue
        if (reads_outside(nm, from + 0, fend[f]) > 0) continue
        res = res "(void)" nm "; "
    }
    for (i = 1; i <= ns; i++) {
        w = sname[i]
        if (sfirst[w] >= rb[r] || (w in seen)) continue
        if (!mentioned(w, rb[r], re[r])) continue
        if (all_outside(w) > sdecls[w]) continue
        seen[w] = 1
        res = res "(void)" w "; "
    }
    sub(/ $/, "", res)
    return res
}

function c_string(s,    i, c, out) {
    out = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\\" || c == "\"") out = out "\\" c
        else if (c == "?") out = out "\\?"
        else out = out c
    }
    return out
}

# ---- main --------------------------------------------------------------------

{ L[NR] = $0 }

END {
    n = NR
    nerr = 0
    if (mode == "") mode = "stub"
    if (path == "") path = FILENAME
    parse_markers()
    if (nerr) exit 2
    for (r = 1; r <= nr; r++) byname_line[rb[r]] = r
    lex()
    if (nerr) exit 2

    if (mode == "list") {
        for (r = 1; r <= nr; r++)
            printf "%s\t%d\t%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%d\t%s\n", rname[r], rlvl[r], path, rb[r],
                   rparent[r] ? rname[rparent[r]] : "-", rhint[r], rpoints[r], fname[rfn[r]],
                   rhelpers[r] == "" ? "-" : rhelpers[r], rtorch[r] == "" ? "-" : rtorch[r], re[r],
                   rrefuse[r] == "" ? "-" : rrefuse[r]
        exit 0
    }

    # choose: every blank of level <= level, or just `only`; an outer chosen blank swallows inner ones
    found = 0
    for (r = 1; r <= nr; r++) {
        chosen[r] = only != "" ? (rname[r] == only) : (rlvl[r] <= level + 0)
        if (rname[r] == only) found = 1
    }
    if (only != "" && !found) {
        printf "%s: no blank named '%s'\n", path, only > "/dev/stderr"
        exit 3
    }
    nemit = 0
    for (r = 1; r <= nr; r++) {
        emit[r] = 0
        if (!chosen[r]) continue
        p = rparent[r]
        while (p && !chosen[p]) p = rparent[p]
        if (p) continue
        emit[r] = 1
        nemit++
        estart[rb[r]] = r
        for (i = rb[r]; i <= re[r]; i++) inreg[i] = 1
    }
    for (r = 1; r <= nr; r++) if (emit[r]) voids[r] = voids_for(r)
    # with solutions=F: the solution's code lines (no comments, no blanks) of
    # each stub, so that copies of them elsewhere (chapter READMEs) can go too
    if (solutions != "")
        for (r = 1; r <= nr; r++) {
            if (!emit[r]) continue
            for (i = rb[r] + 1; i < re[r]; i++) {
                s = codeline[i]
                gsub(/[ \t]+/, "", s)
                if (length(s) >= 12) print s >> solutions
            }
        }

    has_include = 0
    for (i = 1; i <= n; i++) if (!ismarker[i] && L[i] ~ /^[ \t]*#[ \t]*include/) { has_include = 1; break }
    inc_done = nemit == 0
    outn = 0
    if (!inc_done && !has_include) {
        print "#include \"common/exercise.h\""
        outn++
        inc_done = 1
    }
    for (i = 1; i <= n; i++) {
        if (i in estart) {
            r = estart[i]
            ind = rind[r]
            print ind "/* TODO exercise '" rname[r] "' (level " rlvl[r] "): " rhint[r] " */"
            outn++
            where = path ":" outn
            if (voids[r] != "") {
                print ind voids[r]
                outn++
            }
            print ind "exercise_missing(\"" rname[r] "\", \"" where "\", \"" c_string(rhint[r]) "\");"
            outn++
            if (manifest != "")
                printf "%s\t%d\t%s\t%d\t%d\t%s\t%s\t%s\t%d\n", rname[r], rlvl[r], path, rb[r], outn - (voids[r] != "" ? 2 : 1),
                       rhint[r], rhelpers[r] == "" ? "-" : rhelpers[r], rtorch[r] == "" ? "-" : rtorch[r], rpoints[r] >> manifest
            i = re[r]
            continue
        }
        if (ismarker[i]) continue
        print L[i]
        outn++
        if (!inc_done && L[i] ~ /^[ \t]*#[ \t]*include/) {
            print "#include \"common/exercise.h\""
            outn++
            inc_done = 1
        }
    }
}
