# columns.awk — the widest line of a text, in terminal columns.
#
#   od -An -v -tu1 FILE | awk -f tests/columns.awk
#
# Prints "COLUMNS LINE": the width of the widest line and its number. The
# bytes come from od, since POSIX awk counts bytes: UTF-8 is decoded by hand,
# and CJK ideographs and fullwidth forms count 2 columns.
function flush() { if (col > max) { max = col; line = n } }
BEGIN { col = 0; max = 0; n = 1; need = 0 }
{
    for (i = 1; i <= NF; i++) {
        b = $i + 0
        if (b == 10) { flush(); col = 0; n++; need = 0; continue }
        if (need > 0) {            # continuation byte
            cp = cp * 64 + (b % 64); need--
            if (need == 0) col += (cp >= 4352 && (cp <= 4447 || (cp >= 11904 && cp <= 42191) || (cp >= 44032 && cp <= 55203) || (cp >= 63744 && cp <= 64255) || (cp >= 65040 && cp <= 65049) || (cp >= 65072 && cp <= 65135) || (cp >= 65280 && cp <= 65376) || (cp >= 65504 && cp <= 65510))) ? 2 : 1
            continue
        }
        if (b < 128) { col++ }
        else if (b >= 240) { cp = b % 8; need = 3 }
        else if (b >= 224) { cp = b % 16; need = 2 }
        else if (b >= 192) { cp = b % 32; need = 1 }
    }
}
END { flush(); print max, line }
