# bench_rows.awk — is a make bench-torch table (CSV) the one its printout shows?
#
#   awk -f tests/bench_rows.awk TABLE.csv PRINTOUT.txt
#
# Every row of the printout's table ("%5d %-6s %-11s" then cpu ms, tuned ms, wall
# ms, GFLOP/s, ...; scripts/bench_torch.py) must be in the CSV (impl, causal, T)
# with the same wall ms and, but for "flash x2" (whose median_ms is its wall
# time), the same cpu ms (median_ms) and tuned ms, to the printout's 2 decimals
# (give or take 0.01: the CSV's 4 decimals rounded again).
# Exit 0 when all are, else 1 with one line naming the first that is not.

# the CSV keeps 4 decimals, the printout 2: rounded twice, they may differ in the last
function near(a, b) { d = a - b; return d <= 0.0100001 && d >= -0.0100001 }

FNR == NR {
    n = split($0, c, ",")
    if (FNR == 1) { for (i = 1; i <= n; i++) col[c[i]] = i; next }
    key = c[col["impl"]] SUBSEP c[col["causal"]] SUBSEP c[col["T"]]
    med[key] = sprintf("%.2f", c[col["median_ms"]])
    tuned[key] = sprintf("%.2f", c[col["tuned_ms"]])
    wall[key] = sprintf("%.2f", c[col["wall_ms"]])
    next
}

# a table row: T, causal, version in fixed columns, then the numbers
/^ *[0-9]+ (no |yes)    [a-z]/ && substr($0, 26) ~ /^ *[0-9]+\.[0-9][0-9] / {
    T = substr($0, 1, 5) + 0
    causal = substr($0, 7, 6)
    gsub(/ /, "", causal)
    impl = substr($0, 14, 11)
    sub(/ +$/, "", impl)
    split(substr($0, 26), f, " ")
    key = impl SUBSEP (causal == "yes" ? 1 : 0) SUBSEP T
    rows++
    if (!(key in wall)) { printf "row '%s' is not in the table\n", $0; bad = 1; exit 1 }
    if (!near(wall[key], f[3]) || (impl != "flash x2" && (!near(med[key], f[1]) || !near(tuned[key], f[2])))) {
        printf "row '%s': the table has %s, %s, %s ms\n", $0, med[key], tuned[key], wall[key]
        bad = 1
        exit 1
    }
}

END {
    if (bad) exit 1
    if (rows == 0) { print "the printout shows no table rows"; exit 1 }
}
