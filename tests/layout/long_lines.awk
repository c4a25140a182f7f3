# long_lines.awk — lines longer than max columns once their string literals are
# emptied ("a long sentence" counts as ""): prints FILE:LINE: N columns.
# A sentence may run long; code and comments may not.
{
    line = $0
    out = ""
    while ((i = index(line, "\"")) > 0) {
        out = out substr(line, 1, i)
        line = substr(line, i + 1)
        # skip to the closing quote, past escaped characters
        while (length(line) > 0) {
            c = substr(line, 1, 1)
            if (c == "\\") { line = substr(line, 3); continue }
            line = substr(line, 2)
            if (c == "\"") { out = out "\""; break }
        }
    }
    out = out line
    if (length(out) > max) print FILENAME ":" FNR ": " length(out) " columns"
}
