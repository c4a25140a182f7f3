# step_citations.awk — the steps a chapter README cites, for tests/test_docs.sh.
#
#   awk -v chapter=N -f tests/step_citations.awk README.md
#
# In the prose of a page (not in code blocks or inline code), every "step N",
# "steps N and M", "第 N 步" and "[N]" is a citation of step [N] of a run. The
# run is the command of the paragraph or list item: the last `build/chapterN
# ...` (or `make chapterN ARGS="..."`, `mpirun ... build/chapterN ...`) inline
# code before the citation, with the flag spans (`--resid-dropout`) that follow
# it up to the citation in the citation's sentence; without one, the first command after the citation in
# its sentence; without that, the page's own chapter, build/chapter<chapter>,
# with the flags its sentence names before the citation. Prints one line per
# citation:
#   LINE <tab> COMMAND <tab> N <tab> CONTEXT
# CONTEXT is the citation's paragraph or list item without its commands, the
# words the step's heading must share one of.

function flush(    text, n, i, code, rest, out, pieces, p, span, cmd, first, pos, tail, s, e, sent, ctx, nums, k, num, m, before, flags) {
    if (unit == "") return
    text = unit
    # inline code spans: commands are kept apart, other spans stay as words
    n = 0
    out = ""
    while (match(text, /`[^`]*`/)) {
        span = substr(text, RSTART + 1, RLENGTH - 2)
        out = out substr(text, 1, RSTART - 1)
        cmd = command_of(span)
        n++
        spanpos[n] = length(out) + 1
        spancmd[n] = cmd
        spanflag[n] = (cmd == "" && span ~ /^--[a-z]/) ? span : ""
        if (cmd != "") out = out " \001" n "\001 "
        else { gsub(/[][]/, " ", span); out = out " " span " " }   # x[0] in code is no citation
        text = substr(text, RSTART + RLENGTH)
    }
    out = out text
    nspans = n
    # citations in the text without code
    rest = out
    base = 0
    while (match(rest, /(^|[^-[:alnum:]_])[Ss]teps? [0-9]+(([,–-]| and | or | to |, and ) ?[0-9]+)*|第 ?[0-9]+(–[0-9]+)? ?步|\[[0-9]+\]/)) {
        s = base + RSTART
        e = s + RLENGTH
        hit = substr(rest, RSTART, RLENGTH)
        base += RSTART + RLENGTH - 1
        rest = substr(rest, RSTART + RLENGTH)
        # [N] right after a word or followed by ( is an index or a link, not a step
        if (hit ~ /^\[/ && (substr(out, s - 1, 1) ~ /[[:alnum:]_\]]/ || substr(out, e, 1) == "(")) continue
        # a number with decimals ("its step 2.4 times faster") is a figure, not a step
        if (substr(out, e, 1) == "." && substr(out, e + 1, 1) ~ /[0-9]/) continue
        sent = sentence_at(out, s)
        ctx = out
        gsub(/\001[0-9]+\001/, " ", ctx)
        gsub(/\t/, " ", ctx)
        cmd = ""
        for (k = 1; k <= nspans; k++)
            if (spancmd[k] != "" && index(out, "\001" k "\001") < s) { cmd = spancmd[k]; m = k }
        if (cmd != "") {
            for (k = m + 1; k <= nspans; k++)
                if (spanflag[k] != "" && spanpos[k] < s && index(sent, spanflag[k])) cmd = cmd " " spanflag[k]
        } else {
            for (k = 1; k <= nspans && cmd == ""; k++)
                if (spancmd[k] != "" && index(sent, "\001" k "\001")) cmd = spancmd[k]
            if (cmd == "") {
                cmd = "build/chapter" chapter
                before = substr(out, 1, s - 1)
                for (k = 1; k <= nspans; k++)
                    if (spanflag[k] != "" && spanpos[k] < s && index(sent, spanflag[k]) && index(before, spanflag[k]))
                        cmd = cmd " " spanflag[k]
            }
        }
        # every number of the citation
        nums = hit
        gsub(/[^0-9]+/, " ", nums)
        k = split(nums, num, " ")
        for (i = 1; i <= k; i++) printf "%d\t%s\t%s\t%s\n", unitline, cmd, num[i], ctx
    }
    unit = ""
}

# the command a code span names, as a shell line; "" when it is none
function command_of(span,    c) {
    c = span
    if (c ~ /^make chapter[0-9]+( ARGS="[^"]*")?$/) {
        sub(/^make /, "build/", c)
        sub(/ ARGS="/, " ", c)
        sub(/"$/, "", c)
        return c
    }
    if (c ~ /(^|[ ;|&])build\/chapter[0-9]+( |$)/ && c !~ /[<>]/) return c
    return ""
}

# the sentence of text around position p
function sentence_at(text, p,    a, b, c, i) {
    a = 1
    for (i = p - 1; i > 1; i--) {
        c = substr(text, i, 1)
        if (c == "。" || c == "；" || ((c == "." || c == ":" || c == ";") && substr(text, i + 1, 1) == " ")) { a = i + 1; break }
        if (substr(text, i, 3) == "。" || substr(text, i, 3) == "；" || substr(text, i, 3) == "：") { a = i + 3; break }
    }
    b = length(text)
    for (i = p; i <= length(text); i++) {
        if (substr(text, i, 3) == "。" || substr(text, i, 3) == "；") { b = i - 1; break }
        c = substr(text, i, 1)
        if ((c == "." || c == ";") && (i == length(text) || substr(text, i + 1, 1) == " ")) { b = i; break }
    }
    return substr(text, a, b - a + 1)
}

/^```/ { flush(); fence = !fence; next }
fence { next }
/^[ \t]*$/ { flush(); indented = 0; next }
# an indented code block: a paragraph that starts with 4 spaces (not a list's continuation)
unit == "" && /^    / && !inlist { indented = 1 }
indented { next }
/^#/ { flush(); inlist = 0; next }
/^ *([0-9]+\.|[-*]) / { flush(); inlist = 1 }
/^[^ ]/ && !/^([0-9]+\.|[-*]) / { inlist = 0 }
{
    line = $0
    sub(/^ +/, "", line)
    if (unit == "") { unit = line; unitline = NR } else unit = unit " " line
}
END { flush() }
