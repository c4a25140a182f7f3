# readme.awk — leave the solutions of the handed-out blanks out of a README.
#
#   awk -f readme.awk [-v for=bugs] SOLUTIONS README.md > README.md.new
# SOLUTIONS holds code lines of the stubbed blanks (blank.awk solutions=F),
# comments and white space removed. A fenced code block (```) of the README
# that contains one of them is replaced by a note, so the chapter's text
# does not hand out what the student is asked to write. POSIX awk.

function norm(s) {
    gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", s)   # /* comments */ on the line
    sub(/\/\/.*$/, "", s)
    gsub(/"([^"\\]|\\.)*"/, "\"\"", s)           # strings as blank.awk sees them
    gsub(/'([^'\\]|\\.)*'/, "''", s)
    gsub(/[ \t]+/, "", s)
    return s
}

FNR == NR { if ($0 != "") sol[++ns] = $0; next }

function flush(    i, j, hit, s) {
    hit = 0
    for (i = 1; i <= nb && !hit; i++) {
        s = norm(blk[i])
        if (s == "") continue
        for (j = 1; j <= ns; j++) if (index(s, sol[j])) { hit = 1; break }
    }
    if (hit && for_ == "bugs") {
        print "> *(A code block is left out of this copy: it shows the correct code of a line"
        print "> you are hunting a bug in. See README-BUGS.md.)*"
        dropped++
    } else if (hit) {
        print "> *(A code block is left out of this copy: it is the solution of one of your"
        print "> exercise blanks. See README-EXERCISES.md.)*"
        dropped++
    } else for (i = 1; i <= nb; i++) print blk[i]
    nb = 0
}

{
    if (!infence && $0 ~ /^[ \t]*```/) { infence = 1; nb = 0; blk[++nb] = $0; next }
    if (infence) {
        blk[++nb] = $0
        if ($0 ~ /^[ \t]*```[ \t]*$/) { infence = 0; flush() }
        next
    }
    print
}

END { if (infence) for (i = 1; i <= nb; i++) print blk[i] }
