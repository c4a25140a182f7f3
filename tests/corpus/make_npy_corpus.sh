#!/bin/sh
# make_npy_corpus.sh — write the seed corpus of small .npy files, valid and broken.
#
#     sh tests/corpus/make_npy_corpus.sh [DIR]     (DIR defaults to tests/corpus/npy)
#
# The files are built byte by byte with printf, the way NumPy lays them out:
#     "\x93NUMPY" major minor HEADER_LEN HEADER DATA
# valid_*.npy must load; every other file must be refused with a sentence.
# They seed the fuzzer (tests/fuzz/fuzz_npy.c) and tests/test_npyinfo.sh.
# Floats are written as their little-endian bytes in octal (1.0f = 00 00 80 3f).
set -eu
LC_ALL=C
export LC_ALL

dir=${1:-$(dirname "$0")/npy}
mkdir -p "$dir"

# one byte, value $1 (0..255), as a printf octal escape
oct() { printf '\\%03o' "$1"; }

# preamble MAJOR HEADER_LEN [VERSION_BYTE]: magic, version MAJOR.0 (or
# VERSION_BYTE.0), header length in 2 bytes for version 1, else 4
preamble() {
    printf '\223NUMPY'
    printf "$(oct "${3:-$1}")\\000"
    printf "$(oct $(($2 % 256)))$(oct $(($2 / 256 % 256)))"
    if [ "$1" != 1 ]; then
        printf "$(oct $(($2 / 65536 % 256)))$(oct $(($2 / 16777216 % 256)))"
    fi
}

# header MAJOR DICT ALIGN [VERSION_BYTE]: preamble, DICT, spaces and '\n' so
# the data that follows starts at a multiple of ALIGN (NumPy uses 64)
header() {
    if [ "$1" = 1 ]; then start=10; else start=12; fi
    total=$((start + ${#2} + 1))
    pad=$((($3 - total % $3) % $3))
    preamble "$1" $((total - start + pad)) "${4:-$1}"
    printf '%s' "$2"
    i=0
    while [ $i -lt $pad ]; do printf ' '; i=$((i + 1)); done
    printf '\n'
}

# float32, little-endian
F1='\000\000\200\077'   # 1.0
F2='\000\000\000\100'   # 2.0
F3='\000\000\100\100'   # 3.0
F4='\000\000\200\100'   # 4.0
F5='\000\000\240\100'   # 5.0
F6='\000\000\300\100'   # 6.0
FH='\000\000\000\077'   # 0.5
# float32, big-endian
B1='\077\200\000\000'   # 1.0
B2='\100\000\000\000'   # 2.0
# float64, little-endian
D1='\000\000\000\000\000\000\360\077'   # 1.0
D2='\000\000\000\000\000\000\000\100'   # 2.0
DH='\000\000\000\000\000\000\340\077'   # 0.5
DM='\000\000\000\000\000\000\370\277'   # -1.5

C="{'descr': '<f4', 'fortran_order': False, 'shape': "

# ---- valid -----------------------------------------------------------------

{ header 1 "$C(2, 3), }" 64; printf "$F1$F2$F3$F4$F5$F6"; } > "$dir/valid_f4_2x3.npy"
{ header 2 "$C(3,), }" 64; printf "$F1$F2$F3"; } > "$dir/valid_v2.npy"
{ header 1 "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }" 64
  printf "$D1$D2$DH$DM"; } > "$dir/valid_f8.npy"
# [[1, 2, 3], [4, 5, 6]] stored column by column
{ header 1 "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }" 64
  printf "$F1$F4$F2$F5$F3$F6"; } > "$dir/valid_fortran.npy"
{ header 1 "$C(), }" 64; printf "$FH"; } > "$dir/valid_scalar.npy"
{ header 1 "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }" 64
  printf "$B1$B2"; } > "$dir/valid_big_endian.npy"
{ header 1 "$C(0, 3), }" 64; } > "$dir/valid_empty.npy"
{ header 1 '{ "shape" : (1,2,) , "fortran_order":False,"descr":"<f4" }' 16
  printf "$F1$F2"; } > "$dir/valid_reordered.npy"

# ---- broken ----------------------------------------------------------------

{ printf '\223NUMPZ\001\000\000\000'; } > "$dir/bad_magic.npy"
{ header 1 "$C(2,), }" 64 9; printf "$F1$F2"; } > "$dir/bad_version.npy"
{ preamble 1 118; printf '%s' "{'descr': '<f4', 'fortr"; } > "$dir/bad_truncated_header.npy"
{ header 1 "['descr', '<f4']" 64; } > "$dir/bad_not_dict.npy"
{ header 1 "$C(2, 3), }" 64; printf "$F1$F2$F3$F4$F5"; } > "$dir/bad_truncated_data.npy"
{ header 1 "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }" 64
  printf '\001\000\000\000\000\000\000\000\002\000\000\000\000\000\000\000'; } > "$dir/bad_dtype_i8.npy"
{ header 1 "$C(2, -3), }" 64; } > "$dir/bad_negative_dim.npy"
{ header 1 "$C(100000000000, 100000), }" 64; printf "$F1"; } > "$dir/bad_huge_shape.npy"
{ header 1 "$C(4294967296, 4294967296), }" 64; } > "$dir/bad_overflow.npy"
{ header 1 "$C(1, 1, 1, 1, 1, 1, 1, 1, 1), }" 64; printf "$F1"; } > "$dir/bad_too_many_dims.npy"
{ header 1 "$C(2,), }" 64; printf "$F1$F2$F3"; } > "$dir/bad_trailing_bytes.npy"
{ header 1 "{'descr': '<f4', 'fortran_order': False}" 64; } > "$dir/bad_missing_shape.npy"

# ---- the headers of tests/fixtures/npy_headers.txt ---------------------------
# (scripts/npy_header_cases.py: numpy's own headers, and crafted ones with
# numpy.load's verdict): valid_hdr_* must load (verdict accept) and bad_hdr_*
# must be refused (reject: numpy refuses it; refuse: numpy reads it but no
# writer writes it). Data: zeros.
cases=$(dirname "$0")/../fixtures/npy_headers.txt
if [ -f "$cases" ]; then
    while read -r verdict version nbytes hex name data; do
        if [ "$verdict" = accept ]; then out="$dir/valid_hdr_${name}_v$version.npy"
        else out="$dir/bad_hdr_${name}_v$version.npy"; fi
        hl=$((${#hex} / 2))
        {
            preamble "$version" "$hl"
            echo "$hex" | awk 'BEGIN { for (i = 0; i < 16; i++) v[sprintf("%x", i)] = i }
                { for (i = 1; i < length($0); i += 2) printf "%c", v[substr($0, i, 1)] * 16 + v[substr($0, i + 1, 1)] }'
            head -c "$nbytes" /dev/zero
        } > "$out"
    done < "$cases"
fi
