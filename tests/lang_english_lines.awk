# lang_english_lines.awk — the lines of a Chinese run that are still English:
# no CJK character and two or more words of three or more ASCII letters. Code
# lines (PyTorch lines and their continuations, tensor printouts) and heatmap
# grids (their rows of shades and the header line above them) are not
# sentences. Run with LC_ALL=C: a CJK character is a byte from \343 to \351.
# Prints "LINE: text" for each. -v allow=REGEX exempts the lines it matches
# (chapter 0 quotes PyTorch's and the library's error sentences, which stay
# English: a message keeps its operation, shapes and rule). A why's label (说明：)
# does not count as Chinese: the sentence after it must be.
/^    PyTorch: / { cont = 1; next }
cont && /^             [^ ]/ { next }
{ cont = 0 }
allow != "" && $0 ~ allow { next }
/tensor\(/ || /^  shape \(/ || /^ +\[/ || /^[^ ].* =$/ { next }   # "name =" above a long tensor
/\342\226[\221-\223\210]/ { held = ""; next }   # a heatmap row: ░ ▒ ▓ █
{
    if (held != "") print held
    held = ""
    line = $0
    sub(/^    说明：/, "", line)   # a why's label is Chinese whatever follows it
    if (line ~ /[\343-\351]/) next
    n = 0
    while (match(line, /[A-Za-z][A-Za-z][A-Za-z]+/)) {
        n++
        line = substr(line, RSTART + RLENGTH)
    }
    # a line of words right above a heatmap row is its header: held until the next line
    if (n >= 2) held = NR ": " $0
}
END { if (held != "") print held }
