# doc_blocks.awk — cut the checkable blocks out of Markdown pages (tests/test_docs.sh).
#
#   awk -v out=DIR -f tests/doc_blocks.awk PAGE.md...
#
# Two kinds of fenced block are checked (the conventions are in README.md,
# "Contributing"):
#
#   ```console              a transcript: each "$ " line is a command, the lines
#   $ build/chapter2        after it (up to the next "$ " line or the fence) are
#   …                       what it prints, stdout and stderr together. A line
#      4   «4.25» ...       that is only "…" stands for any number of lines; a
#   ```                     «span» stands for any text on its line (a figure that
#                           depends on the machine; the span shows one run's).
#                           The comment <!-- console: runs in a copy of the
#                           repository --> right before it runs its commands in
#                           a throwaway copy of the repository (make, scripts/)
#                           instead of a clean folder.
#
#   <!-- measured: FILE --> before a console block: a run too long for the tests
#                           (make bench-torch): its lines are checked against
#                           FILE, the committed printout of that run, and the
#                           command is run only with DOCS_MEASURED=1.
#
#   ```python               a PyTorch snippet: a block that imports torch runs as
#   import torch            shown. The HTML comment right before it may say
#   ...                     <!-- pytorch: same numbers as build/chapter1 --seq-len 8 -->
#   ```                     (each tensor it prints must be printed by that command
#                           too) or <!-- pytorch: continues the block above -->
#                           (a fragment: it runs after the block before it).
#
# Writes, per command of a transcript, DIR/tN.cmd (the command) and DIR/tN.exp
# (the expected lines); per snippet, DIR/pN.py; and one line per item to
# DIR/index (and the commands of block B, in order, to DIR/bB.cmds), tab-separated: kind (t, m or p), N, PAGE:LINE, the block's number
# (commands of one block share a folder), for a snippet the command whose
# numbers it must print (for a measured block its FILE; for a command "repo"
# when its block runs in a copy of the repository; else "-"), and whether it imports torch (1 or 0). Problems with the markup itself (a console block with
# no "$ " line first, a fragment with nothing before it, a fence left open) go
# to DIR/errors, one sentence each.

function fail(msg) { printf "%s:%d: %s\n", FILENAME, FNR, msg >> (out "/errors") }

function close_block(   i, k, n, cmdline, printout) {
    if (kind == "console" && note ~ /measured: /) {
        # a measured run (minutes, one machine's figures): not run here; its lines
        # are checked against the printout it was copied from
        printout = note
        sub(/.*measured: /, "", printout)
        sub(/[ ,;].*/, "", printout)
        blocks++
        if (nl < 1 || L[1] !~ /^\$ / || nl < 2) {
            fail("a measured console block must be one \"$ \" command line and its output")
        } else {
            k = ++items
            printf "%s\n", substr(L[1], 3) > (out "/t" k ".cmd")
            close(out "/t" k ".cmd")
            printf "" > (out "/t" k ".exp")
            for (n = 2; n <= nl; n++) {
                if (L[n] ~ /^\$ /) fail("a measured console block has one command only (line " start + n ")")
                printf "%s\n", L[n] > (out "/t" k ".exp")
            }
            close(out "/t" k ".exp")
            printf "m\t%d\t%s:%d\t%d\t%s\t0\n", k, FILENAME, start + 1, blocks, printout > (out "/index")
        }
    } else if (kind == "console") {
        blocks++
        where = (note ~ /console: runs in a copy of the repository/) ? "repo" : "-"
        for (i = 1; i <= nl; i++) {
            if (L[i] ~ /^\$ /) {
                k = ++items
                cmdline = substr(L[i], 3)
                printf "%s\n", cmdline > (out "/t" k ".cmd")
                close(out "/t" k ".cmd")
                printf "%s\n", cmdline >> (out "/b" blocks ".cmds")
                close(out "/b" blocks ".cmds")
                printf "" > (out "/t" k ".exp")
                for (n = i + 1; n <= nl && L[n] !~ /^\$ /; n++)
                    printf "%s\n", L[n] > (out "/t" k ".exp")
                close(out "/t" k ".exp")
                printf "t\t%d\t%s:%d\t%d\t%s\t0\n", k, FILENAME, start + i, blocks, where > (out "/index")
            } else if (i == 1) {
                fail("a console block must start with a \"$ \" command line (line " start + 1 ")")
            }
        }
    } else if (kind == "python") {
        text = ""
        for (i = 1; i <= nl; i++) text = text L[i] "\n"
        if (note ~ /continues the block above/) {
            if (lastpy == "" || lastpyfile != FILENAME) {
                fail("a Python block marked 'continues the block above' has no Python block before it")
            } else {
                pytext[lastpy] = pytext[lastpy] text
                printf "%s", text >> (out "/p" lastpy ".py")
                close(out "/p" lastpy ".py")
            }
        } else {
            k = ++items
            lastpy = k
            lastpyfile = FILENAME
            pytext[k] = text
            printf "%s", text > (out "/p" k ".py")
            close(out "/p" k ".py")
            same = "-"
            if (note ~ /pytorch: same numbers as /) {
                same = note
                sub(/.*pytorch: same numbers as /, "", same)
                sub(/ *-->.*/, "", same)
            }
            imports = text ~ /(^|\n)(import|from)[^\n]*torch/
            printf "p\t%d\t%s:%d\t%d\t%s\t%d\n", k, FILENAME, start, ++blocks, same, imports > (out "/index")
        }
    }
    kind = ""
}

FNR == 1 {
    if (infence) printf "%s: a code block is still open at the end of the page\n", page >> (out "/errors")
    infence = 0; note = ""; lastpy = ""; page = FILENAME
}

infence {
    line = $0
    if (line ~ /^ *```+ *$/) { infence = 0; close_block(); note = ""; next }
    if (indent > 0 && substr(line, 1, indent) ~ /^ *$/) line = substr(line, indent + 1)
    L[++nl] = line
    next
}

/^ *```/ {
    infence = 1
    start = FNR
    nl = 0
    match($0, /^ */)
    indent = RLENGTH
    info = $0
    sub(/^ *```+ */, "", info)
    sub(/ .*/, "", info)
    kind = (info == "console" || info == "python") ? info : ""
    next
}

# the last non-blank line before a fence may be a note about it
/^[ \t]*$/ { next }
{ note = ($0 ~ /^ *<!-- .* -->$/) ? $0 : "" }

END { if (infence) fail("a code block is still open at the end of the page") }
