# lang_skeleton.awk — a run's output with its words removed, to compare an
# English and a Chinese run (tests/test_lang.sh). Code lines stay whole: the
# PyTorch lines and their continuations, tensor printouts ("tensor(", their
# rows, "  shape (...)"), "name: shape ... strides ..." layouts. Every other
# line gives only its numbers, one per line (a line of a Chinese sentence that begins
# with a list, "[1, 0, 0]。", is a sentence, not a tensor's row), so a sentence may wrap
# differently in each language but must carry the same numbers in the same
# order.
# -v timed=1 (chapters 8 and 12, which time themselves): the numbers a clock
# gives differ run to run, so those are left out in both languages: a number
# followed by "ms", "GFLOP/s", "%" or "x" (a ratio of times), even when the line
# wraps between the number and its unit, chapter 12's "backward / forward = R"
# and the rows of chapter 8's table.
# A PyTorch line's comment ("# ...", to the end of the line) is words: it is left out.
# (chapter 0's "PyTorch: RuntimeError: ..." is a sentence quoting PyTorch, not a PyTorch line)
function flush(   line) {
    line = text
    text = ""
    if (timed) gsub(/[0-9]+(\.[0-9]+)*( *(ms|GFLOP\/s)|%|x)|backward \/ forward = [0-9.]+/, " ", line)
    while (match(line, /[0-9]+(\.[0-9]+)*/)) {
        print "#" substr(line, RSTART, RLENGTH)
        line = substr(line, RSTART + RLENGTH)
    }
}
/^    PyTorch: / && !/^    PyTorch: RuntimeError/ { flush(); sub(/ +#.*$/, ""); print; cont = 1; next }
cont && /^             [^ ]/ { sub(/ *#.*$/, ""); if ($0 !~ /^ *$/) print; next }
{ cont = 0 }
/tensor\(/ || /^  shape \(/ || /^ +\[/ && !/[\343-\351]/ { flush(); print; next }   # a row has no Chinese
timed && /^    (reference|naive|reordered|tiled|online|flash) +[0-9]/ { next }
{ text = text " " $0 }
END { flush() }
