# chinese_paragraphs.awk — the paragraphs of an English page that are in Chinese:
# more CJK characters than ASCII letters, not counting code (fenced blocks and
# `spans`), headings, HTML comments or a Happy-LLM section title (bold, after
# its number: **2.1.5 掩码自注意力**). The one-line summary (一句话：...) near
# the top is the one Chinese paragraph an English page keeps; the rest belongs
# in its README.zh-CN.md. Run with LC_ALL=C: a CJK ideograph starts with a byte
# from \344 to \351. Prints "FILE:LINE: first line" for each.
function flush() {
    if (para != "" && cjk > letters && para !~ /^一句话：/)
        printf "%s:%d: %s\n", file, start, para
    para = ""; cjk = 0; letters = 0
}
FNR == 1 { flush(); fence = 0; comment = 0; file = FILENAME }
/^ ? ? ?(```|~~~)/ { flush(); fence = !fence; next }
fence { next }
comment { if (/-->/) comment = 0; next }
/^ *<!--/ { flush(); if (!/-->/) comment = 1; next }
/^[ \t]*$/ || /^#/ { flush(); next }
{
    if (para == "") { start = FNR; para = $0 }
    line = $0
    gsub(/`[^`]*`/, "", line)
    gsub(/\*\*[0-9]+(\.[0-9]+)+ [^*]*\*\*/, "", line)
    t = line; cjk += gsub(/[\344-\351]/, "", t)
    t = line; letters += gsub(/[A-Za-z]/, "", t)
}
END { flush() }
