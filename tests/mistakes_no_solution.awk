# mistakes_no_solution.awk — every mistake of scripts/exercises/mistakes.txt names the idea in
# its sentences (en, zh), never the solution's code: the part of its find line that its
# replace takes out (their common start and end aside; 4 bytes or more). Prints one line per
# sentence that gives it (tests/test_feedback.sh).
function code(s) { sub(/[ \t]*\/\*.*$/, "", s); sub(/^[ \t]+/, "", s); return s }
function check(   a, b, i, j, mid) {
    if (find == "" || repl == "") return
    a = code(find); b = code(repl)
    for (i = 1; i <= length(a) && i <= length(b) && substr(a, i, 1) == substr(b, i, 1); i++) ;
    for (j = 0; j < length(a) - i + 1 && j < length(b) - i + 1 && substr(a, length(a) - j, 1) == substr(b, length(b) - j, 1); j++) ;
    mid = substr(a, i, length(a) - j - i + 1)
    if (length(mid) < 4) return
    if (index(en, mid) || index(zh, mid)) printf "%s: its sentence gives the solution's '%s'\n", name, mid
}
/^mistake / { check(); name = $2; find = repl = en = zh = ""; next }
/^find / { find = substr($0, 10); next }
/^replace / { repl = substr($0, 10); next }
/^en / { en = $0; next }
/^zh / { zh = $0; next }
END { check() }
