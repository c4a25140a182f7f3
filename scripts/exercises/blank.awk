# blank.awk — read the exercise markers of one chapter file; list them or
# write the file with chosen blanks replaced by stubs.
#
#   awk -f blank.awk -v mode=list -v path=chapters/02_scaling/scaling.c FILE
#       one line per blank, tab-separated:
#       name  level  path  line  outer-blank-or-"-"  hint  points  function
#       helpers-or-"-"  torch-or-"-"  end-line  refuse-or-"-"  hint_zh-or-"-"
#       helpers_zh-or-"-"
#   awk -f blank.awk -v mode=stub -v level=N [-v only=NAME] [-v manifest=F] -v path=P FILE
#       the file on stdout with every blank of level <= N (or only the blank
#       NAME) replaced by a stub; all marker lines removed, every other line
#       kept byte for byte. A blank inside a chosen blank of higher level is
#       swallowed by it. With manifest=F, appends one line per stub:
#       name  level  path  line-in-this-repo  line-in-the-output  hint
#       helpers-or-"-"  torch-or-"-"  points  hint_zh-or-"-"  helpers_zh-or-"-"
#       With solutions=F, appends the stubbed code lines (comments and white
#       space removed) for readme.awk.
#
#   awk -f blank.awk -v mode=meta -v path=chapters/02_scaling/blanks.txt FILE
#       checks a metadata file alone; one line per entry: name  line
#
# Markers (DESIGN.md), each alone on its line, around the solution lines:
#   /* BEGIN BLANK name */
#   /* END BLANK */
# Everything else about a blank is in the metadata file blanks.txt of the
# same folder (-v meta=F reads another file; messages still name the
# folder's blanks.txt), one stanza per blank (docs/TEACHING.md):
#   [name]
#   level = 1|2|3      required
#   points = N         optional; default: the level
#   hint = ...         tier 1 of make hint (the idea), required
#   helpers = ...      tier 2 (which helpers)
#   torch = ...        tier 3 (the PyTorch line)
#   refuse = f g       the functions that compute the blank's own concept
#                      (make grade refuses an answer that calls them;
#                      scripts/exercises/refuse.txt adds to this list)
# A marker needs an entry; an entry without a marker in any concept file of
# its folder is refused by list_blanks (lib.sh), which sees the whole folder.
# A blank may nest only inside one of strictly higher level. Mistakes are
# refused with path:line and exit status 2 (3: blank NAME not in this file).
#
# A stub is
#   /* TODO exercise 'name' (level N): hint / 待完成的练习 'name'（第 N 级）：hint_zh */
#   (void)x; ...                       parameters, locals and file statics the
#                                      solution used and nothing else uses now
#   exercise_missing("name", "path:line", "hint\037hint_zh");   (common/exercise.h, noreturn;
#                                      without a hint_zh just "hint")
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

# Read the blanks' metadata file FILE (shown as SHOWN in messages): stanzas
#   [name]
#   level = 1|2|3          required
#   points = N             optional, default the level
#   hint = ...             tier 1, required
#   helpers = ...          tier 2 (optional)
#   torch = ...            tier 3 (optional)
#   refuse = f g           optional
#   hint_zh = ...          tier 1 in Chinese (make hint in a zh locale)
#   helpers_zh = ...       tier 2 in Chinese (tier 3, the PyTorch line, is the same)
# one key per line; a line that starts with a space or a tab continues the
# value above it (joined with one space, or with none where a Chinese character
# meets the break: Chinese has no spaces between words); lines that start with # are
# comments, empty lines are ignored. Values are taken as written (no quotes,
# no escapes). Sets M_*[name] and M_line[name]; mistakes go through fail().
function meta_fail(line, msg) {
    printf "%s:%d: %s\n", metashown, line, msg > "/dev/stderr"
    nerr++
}

function read_meta(file,    line, ml, cur, key, val, st, k, skip) {
    meta_read = 1
    meta_missing = 0
    cur = ""      # the blank of the current [name] ("" before the first or after a bad one)
    key = ""      # the key an indented line continues
    skip = 0      # after a line already refused: its stanza or its continued lines say nothing more
    ml = 0
    while ((st = (getline line < file)) > 0) {
        ml++
        sub(/\r$/, "", line)
        if (line ~ /^#/ || line ~ /^[ \t]*$/) continue
        if (line ~ /^\[/) {
            key = ""
            skip = 0
            cur = ""
            if (line !~ /^\[[A-Za-z_][A-Za-z0-9_]*\][ \t]*$/) {
                meta_fail(ml, "expected [name], the name of a blank (letters, digits and _), alone on its line")
                skip = 1
                continue
            }
            k = line
            sub(/^\[/, "", k)
            sub(/\].*$/, "", k)
            if (k in M_line) {
                meta_fail(ml, "blank '" k "' has a second entry (the first is at line " M_line[k] "): give each blank one [" k "]")
                skip = 1
                continue
            }
            cur = k
            M_line[cur] = ml
            M_order[++M_n] = cur
            continue
        }
        if (line ~ /^[ \t]/) {
            if (skip) continue
            if (key == "") {
                meta_fail(ml, "an indented line continues the value of the key = value line above it, but there is none" \
                          (cur == "" ? "" : " in [" cur "]"))
                skip = 1
                continue
            }
            val = line
            sub(/^[ \t]+/, "", val)
            sub(/[ \t]+$/, "", val)
            M_val[cur, key] = M_val[cur, key] == "" ? val : \
                M_val[cur, key] (M_val[cur, key] ~ /[^\001-\177]$/ || val ~ /^[^\001-\177]/ ? "" : " ") val
            continue
        }
        key = ""
        if (cur == "" && skip) continue
        skip = 0
        if (!match(line, /^[A-Za-z_][A-Za-z0-9_]*[ \t]*=/)) {
            meta_fail(ml, "expected [name], key = value, an indented line that continues a value, or a # comment")
            skip = 1
            continue
        }
        k = substr(line, 1, RLENGTH - 1)
        sub(/[ \t]+$/, "", k)
        val = substr(line, RLENGTH + 1)
        sub(/^[ \t]+/, "", val)
        sub(/[ \t]+$/, "", val)
        if (cur == "") {
            meta_fail(ml, "'" k " = ...' comes before the first [name]: every key belongs to a blank")
            skip = 1
            continue
        }
        if (k !~ /^(level|points|hint|helpers|torch|refuse|hint_zh|helpers_zh)$/) {
            meta_fail(ml, "blank '" cur "': unknown key '" k "' (known: level, points, hint, helpers, torch, refuse, " \
                      "hint_zh, helpers_zh)")
            skip = 1
            continue
        }
        if ((cur, k) in M_kline) {
            meta_fail(ml, "blank '" cur "': '" k "' is given twice (also at line " M_kline[cur, k] ")")
            skip = 1
            continue
        }
        M_kline[cur, k] = ml
        M_val[cur, k] = val
        key = k
    }
    if (st < 0) meta_missing = 1
    close(file)
    for (k = 1; k <= M_n; k++) check_entry(M_order[k])
}

function check_entry(nm,    lv, pts, h, t) {
    M_ok[nm] = 0
    if (!((nm, "level") in M_kline)) {
        meta_fail(M_line[nm], "blank '" nm "' has no 'level = 1|2|3' line")
        return
    }
    lv = M_val[nm, "level"]
    if (lv !~ /^[123]$/) {
        meta_fail(M_kline[nm, "level"], "blank '" nm "' has level = " lv ": the level must be 1, 2 or 3")
        return
    }
    if ((nm, "points") in M_kline) {
        pts = M_val[nm, "points"]
        if (pts !~ /^[0-9]+$/ || pts + 0 < 1) {
            meta_fail(M_kline[nm, "points"], "blank '" nm "' has points = " pts ": give a whole number of at least 1")
            return
        }
    } else pts = lv
    if (!((nm, "hint") in M_kline)) {
        meta_fail(M_line[nm], "blank '" nm "' has no 'hint = ...' line (tier 1 of make hint)")
        return
    }
    h = M_val[nm, "hint"]
    if (h == "") {
        meta_fail(M_kline[nm, "hint"], "blank '" nm "' has an empty hint")
        return
    }
    if (index(h, "*/")) {
        meta_fail(M_kline[nm, "hint"], "blank '" nm "': the hint must not contain '*/' (it goes into a C comment of the student's copy)")
        return
    }
    t = h M_val[nm, "helpers"] M_val[nm, "torch"] M_val[nm, "refuse"] M_val[nm, "hint_zh"] M_val[nm, "helpers_zh"]
    if (index(t, "\t")) {
        meta_fail(M_line[nm], "blank '" nm "': the values must not contain a tab")
        return
    }
    M_level[nm] = lv + 0
    M_points[nm] = pts + 0
    M_ok[nm] = 1
}

function dirname(p) {
    if (p !~ /\//) return "."
    sub(/\/[^\/]*$/, "", p)
    return p
}

function parse_markers(    i, line, s, nm, sp, stack, top) {
    nr = 0
    sp = 0
    for (i = 1; i <= n; i++) {
        line = L[i]
        ismarker[i] = 0
        if (index(line, "BEGIN BLANK")) {
            ismarker[i] = 1
            if (line !~ /^[ \t]*\/\* BEGIN BLANK [A-Za-z_][A-Za-z0-9_]* \*\/[ \t]*$/) {
                fail(i, "malformed marker: expected /* BEGIN BLANK name */ alone on its line (level, hint and the other keys go in " metashown ")")
                continue
            }
            if (!meta_read) read_meta(metafile)
            nm = line
            sub(/^[ \t]*\/\* BEGIN BLANK /, "", nm)
            sub(/ .*$/, "", nm)
            if (nm in byname) fail(i, "blank '" nm "' is already defined at line " rb[byname[nm]])
            if (!(nm in M_line))
                fail(i, "blank '" nm "' has no entry [" nm "] in " metashown (meta_missing ? " (there is no such file)" : ""))
            nr++
            rname[nr] = nm
            rok[nr] = M_ok[nm]
            rlvl[nr] = M_level[nm]
            rhint[nr] = M_val[nm, "hint"]
            rpoints[nr] = M_points[nm]
            rhelpers[nr] = M_val[nm, "helpers"]
            rtorch[nr] = M_val[nm, "torch"]
            rrefuse[nr] = M_val[nm, "refuse"]
            rhint_zh[nr] = M_val[nm, "hint_zh"]
            rhelpers_zh[nr] = M_val[nm, "helpers_zh"]
            rb[nr] = i
            re[nr] = 0
            match(line, /^[ \t]*/)
            rind[nr] = substr(line, 1, RLENGTH)
            rparent[nr] = sp > 0 ? stack[sp] : 0
            byname[nm] = nr
            if (sp > 0) {
                top = stack[sp]
                if (rok[nr] && rok[top] && rlvl[nr] >= rlvl[top])
                    fail(i, "blank '" nm "' (level " rlvl[nr] ") is inside blank '" rname[top] "' (level " rlvl[top] \
                         ", line " rb[top] "): a nested blank needs a strictly lower level (" metashown " gives the levels)")
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

FNR == 1 { srcfile = FILENAME }
{ L[NR] = $0 }

END {
    n = NR
    nerr = 0
    if (mode == "") mode = "stub"
    if (srcfile == "") srcfile = FILENAME
    if (path == "") path = srcfile
    if (mode == "meta") {
        # check a metadata file; its blanks, one line each: name  line
        metashown = path
        read_meta(srcfile)
        if (nerr) exit 2
        for (k = 1; k <= M_n; k++) printf "%s\t%d\n", M_order[k], M_line[M_order[k]]
        exit 0
    }
    metashown = dirname(path) "/blanks.txt"
    metafile = meta != "" ? meta : dirname(srcfile) "/blanks.txt"
    parse_markers()
    if (nerr) exit 2
    for (r = 1; r <= nr; r++) byname_line[rb[r]] = r
    lex()
    if (nerr) exit 2

    if (mode == "list") {
        for (r = 1; r <= nr; r++)
            printf "%s\t%d\t%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", rname[r], rlvl[r], path, rb[r],
                   (rparent[r] ? rname[rparent[r]] : "-"), rhint[r], rpoints[r], fname[rfn[r]],
                   (rhelpers[r] == "" ? "-" : rhelpers[r]), (rtorch[r] == "" ? "-" : rtorch[r]), re[r],
                   (rrefuse[r] == "" ? "-" : rrefuse[r]), (rhint_zh[r] == "" ? "-" : rhint_zh[r]),
                   (rhelpers_zh[r] == "" ? "-" : rhelpers_zh[r])
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
            print ind "/* TODO exercise '" rname[r] "' (level " rlvl[r] "): " rhint[r] \
                (rhint_zh[r] == "" ? "" : " / 待完成的练习 '" rname[r] "'（第 " rlvl[r] " 级）：" rhint_zh[r]) " */"
            outn++
            where = path ":" outn
            if (voids[r] != "") {
                print ind voids[r]
                outn++
            }
            print ind "exercise_missing(\"" rname[r] "\", \"" where "\", \"" c_string(rhint[r]) \
                (rhint_zh[r] == "" ? "" : "\\037" c_string(rhint_zh[r])) "\");"
            outn++
            if (manifest != "")
                printf "%s\t%d\t%s\t%d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\n", rname[r], rlvl[r], path, rb[r], outn - (voids[r] != "" ? 2 : 1),
                       rhint[r], (rhelpers[r] == "" ? "-" : rhelpers[r]), (rtorch[r] == "" ? "-" : rtorch[r]), rpoints[r],
                       (rhint_zh[r] == "" ? "-" : rhint_zh[r]), (rhelpers_zh[r] == "" ? "-" : rhelpers_zh[r]) >> manifest
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
