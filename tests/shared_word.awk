# shared_word.awk — whether a step's heading (line 1) and the sentence citing it
# (line 2, its paragraph) share a word: letters, digits and _, three or more, lower-cased, not
# one of the words every sentence has; or, for a Chinese run's heading, three Chinese
# characters in a row (Chinese has no spaces between words: "未来不会泄漏" shares 未来不).
# Run with LC_ALL=C (a character of U+4000..U+9FFF is 3 bytes, the first \344 to \351).
# Exit 0 when they do (tests/test_docs.sh).
function words(text, set,    n, i, w, parts, t) {
    t = text
    while (match(t, /[\344-\351][\200-\277][\200-\277][\344-\351][\200-\277][\200-\277][\344-\351][\200-\277][\200-\277]/)) {
        set[substr(t, RSTART, 9)] = 1
        t = substr(t, RSTART + 3)
    }
    text = tolower(text)
    gsub(/[^a-z0-9_]+/, " ", text)
    n = split(text, parts, " ")
    for (i = 1; i <= n; i++) {
        w = parts[i]
        if (length(w) < 3 || w ~ /^[0-9]+$/ || (w in stop)) continue
        set[w] = 1
    }
}
BEGIN {
    split("the and for with from that this are its not one all but has have what when each how into out per " \
          "step steps run runs read look see shows show tells you your here there then than", s, " ")
    for (i in s) stop[s[i]] = 1
}
NR == 1 { sub(/^\[[0-9]+\] /, ""); words($0, head) }
NR == 2 { words($0, ctx) }
END {
    for (w in ctx) if (w in head) exit 0
    exit 1
}
