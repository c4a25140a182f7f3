# cross_same.awk — is a program's printout on another system the same as here?
#
#     awk -f tests/cross_same.awk HERE THERE
#
# The words must be the same, word for word (line breaks aside: the narration
# wraps where a number's width says). Each number must agree within
# |a - b| <= 1e-4 + 1e-3 * |b|: another compiler rounds differently (fused
# multiply-adds, the order of a sum), as the tests' own tolerances allow, and
# the printout shows 4 to 5 digits. Timings differ on every machine and are not
# compared: a number followed by "ms" (毫秒) or "GFLOP/s", or with "%" or "x" after it;
# with -v words_only=1 (a timing report, chapter 8's) no number is.
# Prints the first difference and exits 1; silent and 0 when the same.
function tokens(file, arr,    n, line, i, k, parts) {
    n = 0
    while ((getline line < file) > 0) {
        sub(/\r$/, "", line)
        k = split(line, parts, /[ \t]+/)
        for (i = 1; i <= k; i++) if (parts[i] != "") arr[++n] = parts[i]
    }
    close(file)
    return n
}
function skeleton(t) { gsub(/-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/, "#", t); return t }
function numbers(t, out,    n) {
    n = 0
    while (match(t, /-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) {
        out[++n] = substr(t, RSTART, RLENGTH) + 0
        t = substr(t, RSTART + RLENGTH)
    }
    return n
}
function timing(arr, i, n) {
    if (arr[i] ~ /[0-9](%|x)[^0-9]*$/) return 1
    return i < n && arr[i + 1] ~ /^(ms|毫秒|GFLOP\/s)/
}
function abs(x) { return x < 0 ? -x : x }
BEGIN {
    na = tokens(ARGV[1], a)
    nb = tokens(ARGV[2], b)
    for (i = 1; i <= na && i <= nb; i++) {
        if (skeleton(a[i]) != skeleton(b[i])) {
            printf "word %d: \"%s\" here, \"%s\" there\n", i, a[i], b[i]
            exit 1
        }
        if (words_only || timing(a, i, na) || timing(b, i, nb)) continue
        k = numbers(a[i], x)
        numbers(b[i], y)
        for (j = 1; j <= k; j++)
            if (abs(x[j] - y[j]) > 1e-4 + 1e-3 * abs(x[j])) {
                printf "word %d: %s here, %s there (beyond 1e-4 + 1e-3 |x|)\n", i, a[i], b[i]
                exit 1
            }
    }
    if (na != nb) {
        printf "%d words here, %d there\n", na, nb
        exit 1
    }
    exit 0
}
