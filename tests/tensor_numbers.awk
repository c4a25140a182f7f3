# tensor_numbers.awk — are the tensors a PyTorch snippet printed also printed by our program?
#
#   awk -f tests/tensor_numbers.awk SNIPPET_OUTPUT PROGRAM_OUTPUT
#
# Both outputs are read for printed tensors, "tensor(" up to its closing
# bracket (PyTorch's print format, which t_print follows), and each becomes
# its list of numbers; a tensor whose middle is elided ("...") is left out.
# Every tensor of SNIPPET_OUTPUT must equal one of PROGRAM_OUTPUT: as many
# numbers, each within one unit of the fourth printed digit
# (|a - b| <= 1.01e-4 * max(1, |a|)), nan matching nan. Exit 0 when they do;
# else 1 with one line naming the first tensor that is not there.

function flush(   k) {
    if (elided) { in_t = 0; return }
    k = ++nt[file]
    T[file, k] = nums
    C[file, k] = count
    in_t = 0
}

# scan TEXT for numbers and brackets of the open tensor
function scan(text,   c, tok) {
    rest = ""
    while (text != "") {
        if (match(text, /^-?(nan|inf)/) || match(text, /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?/)) {
            tok = substr(text, 1, RLENGTH)
            nums = nums " " tok
            count++
            text = substr(text, RLENGTH + 1)
            if (!depth && !brackets) { flush(); rest = text; return }  # tensor(0.5): a scalar
            continue
        }
        c = substr(text, 1, 1)
        text = substr(text, 2)
        if (c == "[") { depth++; brackets = 1 }
        else if (c == "]") { depth--; if (depth == 0) { flush(); rest = text; return } }
        else if (c == "." && substr(text, 1, 2) == "..") { elided = 1; text = substr(text, 3) }
        else if (c == ")" && !brackets) { flush(); rest = text; return }
        else if (c ~ /[A-Za-z_]/ && match(text, /^[A-Za-z_0-9]*/)) text = substr(text, RLENGTH + 1)
    }
}

FNR == 1 { file++; in_t = 0 }
{
    line = $0
    while (1) {
        if (!in_t) {
            at = index(line, "tensor(")
            if (at == 0) break
            line = substr(line, at + 7)
            in_t = 1; depth = 0; brackets = 0; elided = 0; nums = ""; count = 0
        }
        scan(line)
        if (in_t) break          # the tensor goes on, next line
        line = rest              # the rest of the line may hold another tensor
    }
}

function same(a, b,   n, x, y, i, d, m) {
    n = split(a, x, " ")
    if (n != split(b, y, " ")) return 0
    for (i = 1; i <= n; i++) {
        if (x[i] ~ /nan/ || y[i] ~ /nan/) { if (!(x[i] ~ /nan/ && y[i] ~ /nan/)) return 0; continue }
        if (x[i] ~ /inf/ || y[i] ~ /inf/) { if (x[i] != y[i]) return 0; continue }
        d = x[i] - y[i]; if (d < 0) d = -d
        m = x[i] + 0; if (m < 0) m = -m; if (m < 1) m = 1
        if (d > 1.01e-4 * m) return 0
    }
    return 1
}

END {
    if (nt[1] + 0 == 0) { print "the snippet printed no tensor to compare"; exit 1 }
    for (i = 1; i <= nt[1]; i++) {
        found = 0
        for (j = 1; j <= nt[2] && !found; j++) found = same(T[1, i], T[2, j])
        if (!found) {
            s = T[1, i]
            if (length(s) > 70) s = substr(s, 1, 70) " ..."
            printf "tensor %d of the snippet (%d numbers:%s) is not in the program's output (%d tensors)\n", i, C[1, i], s, nt[2] + 0
            exit 1
        }
    }
}
