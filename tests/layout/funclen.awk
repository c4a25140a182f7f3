# funclen.awk — the length of every function definition in C files, one line each:
#     LINES FILE:LINE NAME
# A definition starts at a line in column 0 that names a function (an
# identifier followed by "(") and ends at the "}" in column 0 that closes it;
# its body opens with "{" at the end of the signature or on a line of its own.
# Good enough for this project's style (tests/test_layout.sh checks it finds
# a planted long function, and mains).
FNR == 1 { sig = 0; inbody = 0 }
inbody {
    if ($0 ~ /^}/) { printf "%d %s:%d %s\n", FNR - sig + 1, FILENAME, sig, name; inbody = 0 }
    next
}
/^[A-Za-z_][A-Za-z0-9_ \t*]*[A-Za-z0-9_]+[ \t]*\(/ && $0 !~ /;[ \t]*$/ && $0 !~ /^(typedef|struct|enum|union|return|else|static_assert)\b/ {
    sig = FNR
    name = $0
    sub(/[ \t]*\(.*/, "", name)
    sub(/.*[ \t*]/, "", name)
}
sig && /^\{/ { inbody = 1; next }
sig == FNR && /\{[ \t]*$/ { inbody = 1; next }
/;[ \t]*$/ && !inbody { sig = 0 }
