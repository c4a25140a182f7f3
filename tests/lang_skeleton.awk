# lang_skeleton.awk — a run's output with its words removed, to compare an
# English and a Chinese run (tests/test_lang.sh). Code lines stay whole: the
# PyTorch lines and their continuations, tensor printouts ("tensor(", their
# rows, "  shape (...)"), "name: shape ... strides ..." layouts. Every other
# line gives only its numbers, one per line, so a sentence may wrap
# differently in each language but must carry the same numbers in the same
# order.
# (chapter 0's "PyTorch: RuntimeError: ..." is a sentence quoting PyTorch, not a PyTorch line)
/^    PyTorch: / && !/^    PyTorch: RuntimeError/ { print; cont = 1; next }
cont && /^             [^ ]/ { print; next }
{ cont = 0 }
/tensor\(/ || /^  shape \(/ || /^ +\[/ { print; next }
{
    line = $0
    while (match(line, /[0-9]+(\.[0-9]+)*/)) {
        print "#" substr(line, RSTART, RLENGTH)
        line = substr(line, RSTART + RLENGTH)
    }
}
