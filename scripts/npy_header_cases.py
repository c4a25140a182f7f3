#!/usr/bin/env python3
"""npy_header_cases.py — what numpy.load accepts in a .npy header, recorded for the C tests.

    python3 scripts/npy_header_cases.py > tests/fixtures/npy_headers.txt

Each case is a header (the text between the preamble and the data) that a
hostile or unusual writer could produce. numpy.lib.format reads it with its
own rules (latin-1 or UTF-8, at most 10000 characters, Python's literal
parser, then its checks of the three keys); the verdict and, for accepted
headers, the data size come from numpy.load itself. tests/test_common_npy.c
feeds the same bytes to npy_parse and expects the same verdict. Only float32
and float64 headers are listed: other dtypes are refused by this project on
purpose (it reads only floats). One known difference is left out: numpy's
dtype parser ignores whitespace inside a type string ('<f\t4', '<f 4' are
float32), which this project refuses as an unknown dtype.

Output lines: VERDICT VERSION DATA_BYTES HEADER_HEX NAME
"""
import io
import struct
import sys

import numpy as np

BASE = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"

CASES = [
    ("plain", BASE + "\n"),
    ("plain_no_newline", BASE),
    ("nul_in_descr", "{'descr': '<f4\x00', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("nul_in_padding", BASE + " \x00 \n"),
    ("nul_at_start", "\x00" + BASE + "\n"),
    ("ctrl_01_between_tokens", "{'descr': '<f4',\x01 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("ctrl_1b_in_padding", BASE + "\x1b\n"),
    ("ctrl_7f_in_padding", BASE + "\x7f\n"),
    ("formfeed_whitespace", "{'descr':\x0c'<f4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("vtab_whitespace", "{'descr':\x0b'<f4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("tab_whitespace", "{'descr':\t'<f4',\t'fortran_order': False, 'shape': (2, 3), }\n"),
    ("crlf_inside", "{'descr': '<f4',\r\n 'fortran_order': False, 'shape': (2, 3), }\r\n"),
    ("newlines_inside", "{\n'descr': '<f4',\n'fortran_order': False,\n'shape': (2, 3),\n}\n"),
    ("leading_space", "  " + BASE + "\n"),
    ("comment_at_end", BASE + "  # a comment\n"),
    ("comment_inside", "{'descr': '<f4', # the dtype\n 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("duplicate_key", "{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("shape_L_suffix", "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }\n"),
    ("shape_hex", "{'descr': '<f4', 'fortran_order': False, 'shape': (0x2, 3), }\n"),
    ("shape_underscore", "{'descr': '<f4', 'fortran_order': False, 'shape': (1_0, 3), }\n"),
    ("shape_plus", "{'descr': '<f4', 'fortran_order': False, 'shape': (+2, 3), }\n"),
    ("shape_parenthesised_int", "{'descr': '<f4', 'fortran_order': False, 'shape': ((2), 3), }\n"),
    ("shape_true", "{'descr': '<f4', 'fortran_order': False, 'shape': (True, 3), }\n"),
    ("shape_nested_tuple", "{'descr': '<f4', 'fortran_order': False, 'shape': ((2, 3),), }\n"),
    ("shape_list", "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }\n"),
    ("shape_float", "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0, 3), }\n"),
    ("shape_negative", "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }\n"),
    ("shape_int_not_tuple", "{'descr': '<f4', 'fortran_order': False, 'shape': 6, }\n"),
    ("shape_one_no_comma", "{'descr': '<f4', 'fortran_order': False, 'shape': (6), }\n"),
    ("shape_leading_zero", "{'descr': '<f4', 'fortran_order': False, 'shape': (02, 3), }\n"),
    ("shape_zero_zero", "{'descr': '<f4', 'fortran_order': False, 'shape': (00, 3), }\n"),
    ("shape_space_in_number", "{'descr': '<f4', 'fortran_order': False, 'shape': (2 0, 3), }\n"),
    ("fortran_int", "{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }\n"),
    ("fortran_lowercase", "{'descr': '<f4', 'fortran_order': false, 'shape': (2, 3), }\n"),
    ("fortran_none", "{'descr': '<f4', 'fortran_order': None, 'shape': (2, 3), }\n"),
    ("double_quotes", '{"descr": "<f4", "fortran_order": False, "shape": (2, 3), }\n'),
    ("u_prefix", "{u'descr': u'<f4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("b_prefix_key", "{b'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("escape_x3c", "{'descr': '\\x3cf4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("escape_quote", "{'descr': '<f4\\'', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("string_concat", "{'descr': '<' 'f4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("triple_quoted", "{'''descr''': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("no_trailing_comma", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}\n"),
    ("two_trailing_commas", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3),, }\n"),
    ("empty_dict", "{}\n"),
    ("set_not_dict", "{'descr', 'fortran_order', 'shape'}\n"),
    ("extra_key", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1, }\n"),
    ("missing_key", "{'descr': '<f4', 'shape': (2, 3), }\n"),
    ("unclosed", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), \n"),
    ("text_after", BASE + " x\n"),
    ("line_continuation", "{'descr': '<f4', \\\n'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_f4_native", "{'descr': 'f4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_eq_f4", "{'descr': '=f4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_pipe_f4", "{'descr': '|f4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_big_f4", "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_f8", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_float32", "{'descr': 'float32', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_f", "{'descr': 'f', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_d", "{'descr': '<d', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_space", "{'descr': ' <f4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_f4_space_after", "{'descr': '<f4 ', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_ctrl_inside", "{'descr': '<f4\x01', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("latin1_in_padding", BASE + " \xe9\n"),
    ("nbsp_in_padding", BASE + "\xa0\n"),
    ("latin1_in_comment", BASE + " # caf\xe9\n"),
    ("long_header_10000", BASE + " " * (10000 - len(BASE) - 1) + "\n"),
    ("long_header_10001", BASE + " " * (10001 - len(BASE) - 1) + "\n"),
]


def numpy_verdict(version, header_bytes):
    """('accept', data_bytes) or ('reject', 0), as numpy.load decides."""
    def preamble(n):
        if version == 1:
            return b"\x93NUMPY\x01\x00" + struct.pack("<H", n)
        return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", n)
    pre = preamble(len(header_bytes))
    try:
        fp = io.BytesIO(pre + header_bytes)
        np.lib.format.read_magic(fp)
        read = {1: np.lib.format.read_array_header_1_0, 2: np.lib.format.read_array_header_2_0}.get(version)
        if read is not None:
            shape, fortran, dtype = read(fp)
        else:
            shape, fortran, dtype = np.lib.format._read_array_header(fp, (3, 0))
        n = 1
        for d in shape:
            n *= d
        data = bytes(max(n, 0) * dtype.itemsize)
        np.load(io.BytesIO(pre + header_bytes + data), allow_pickle=False)
        if dtype.kind != "f" or dtype.itemsize not in (4, 8):
            return "reject", 0
        return "accept", len(data)
    except Exception:
        return "reject", 0


def main():
    out = sys.stdout
    for name, text in CASES:
        for version in (1, 2, 3):
            enc = "utf-8" if version == 3 else "latin-1"
            header = text.encode(enc)
            if version == 1 and len(header) > 65535:
                continue
            verdict, nbytes = numpy_verdict(version, header)
            out.write(f"{verdict} {version} {nbytes} {header.hex()} {name}\n")
    # bytes that are not UTF-8, in a version 3.0 header
    for name, raw in [("v3_bad_utf8_padding", BASE.encode() + b" \xff\n"),
                      ("v3_overlong_utf8", BASE.encode() + b" \xc0\xa0\n"),
                      ("v3_surrogate_utf8", BASE.encode() + b" \xed\xa0\x80\n")]:
        verdict, nbytes = numpy_verdict(3, raw)
        out.write(f"{verdict} 3 {nbytes} {raw.hex()} {name}\n")


if __name__ == "__main__":
    main()
