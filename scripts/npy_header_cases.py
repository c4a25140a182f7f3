#!/usr/bin/env python3
"""npy_header_cases.py — .npy headers as numpy writes them, and as a hostile writer could.

    python3 scripts/npy_header_cases.py > tests/fixtures/npy_headers.txt

Two kinds of case, each a header (the text between the preamble and the data):

- written_*: the header and data numpy itself writes (np.save, and
  numpy.lib.format.write_array for versions 2.0 and 3.0) for float32 and
  float64 arrays of several shapes, byte orders and orders. Their data are
  the numbers -1, -0.5, 0, 0.5, ... in C order (for a Fortran-order array
  numpy stores them column first), so a reader can check what it loaded.
- the crafted cases below, which numpy.lib.format reads with its own rules
  (latin-1 or UTF-8, at most 10000 characters, Python's literal parser, then
  its checks of the three keys); the verdict comes from numpy.load itself.

This project reads the dict as numpy and other writers spell it (any key
order, ' or ", whitespace between tokens, a trailing comma or none, Python
2's 3L in versions 1.0 and 2.0, the dtypes '<f4' '>f4' '=f4' '<f8' '>f8'
'=f8') and refuses the rest of Python's syntax that numpy.load takes. So the
verdict is "accept" (numpy.load reads it and so must npy_parse), "reject"
(numpy.load refuses it: so must npy_parse) or "refuse" (numpy.load reads it
but no writer writes it: npy_parse refuses it on purpose; the names are in
NOT_WRITTEN, or a dtype other than float32 and float64, which this project
does not read).

Output lines: VERDICT VERSION DATA_BYTES HEADER_HEX NAME [DATA_HEX]
(DATA_HEX only for written_* cases; the crafted ones get DATA_BYTES zeros.)
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
    ("keys_shape_first", "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}\n"),
    ("keys_fortran_first", "{'fortran_order': False, 'shape': (2, 3), 'descr': '<f4', }\n"),
    ("mixed_quotes", "{\"descr\": '<f4', 'fortran_order': False, \"shape\": (2, 3), }\n"),
    ("no_spaces", "{'descr':'<f4','fortran_order':False,'shape':(2,3)}\n"),
    ("shape_trailing_comma", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3,), }\n"),
    ("shape_spaces_inside", "{'descr': '<f4', 'fortran_order': False, 'shape': ( 2 , 3 ), }\n"),
    ("descr_i4", "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_f2", "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_object", "{'descr': '|O', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("descr_eq_f8", "{'descr': '=f8', 'fortran_order': False, 'shape': (2, 3), }\n"),
    ("shape_L_suffix_one", "{'descr': '<f4', 'fortran_order': False, 'shape': (6L,), }\n"),
    ("shape_L_lowercase", "{'descr': '<f4', 'fortran_order': False, 'shape': (2l, 3l), }\n"),
    ("shape_comma_only", "{'descr': '<f4', 'fortran_order': False, 'shape': (,), }\n"),
    ("unclosed_string", "{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3), }\n"),
]

# Read by numpy.load but written by no writer: refused here on purpose.
NOT_WRITTEN = {
    "comment_at_end", "comment_inside", "duplicate_key", "shape_hex",
    "shape_underscore", "shape_plus", "shape_parenthesised_int", "shape_zero_zero", "formfeed_whitespace",
    "u_prefix", "escape_x3c", "string_concat", "triple_quoted", "line_continuation", "descr_f4_native",
    "descr_pipe_f4", "descr_float32", "descr_f", "descr_d", "latin1_in_comment",
}

# (name, dtype, shape, fortran, version): arrays numpy writes
WRITTEN = [
    ("f4_2x3", "<f4", (2, 3), False, None),
    ("f8_2x3", "<f8", (2, 3), False, None),
    ("big_f4_2x3", ">f4", (2, 3), False, None),
    ("big_f8_3", ">f8", (3,), False, None),
    ("f4_scalar", "<f4", (), False, None),
    ("f4_1d", "<f4", (5,), False, None),
    ("f4_empty", "<f4", (0, 3), False, None),
    ("f4_fortran_2x3", "<f4", (2, 3), True, None),
    ("f8_fortran_2x3x4", "<f8", (2, 3, 4), True, None),
    ("big_f4_fortran_3x2", ">f4", (3, 2), True, None),
    ("f4_8dims", "<f4", (1, 2, 1, 2, 1, 2, 1, 2), False, None),
    ("f4_v2", "<f4", (2, 3), False, (2, 0)),
    ("f8_fortran_v2", "<f8", (3, 2), True, (2, 0)),
    ("f4_v3", "<f4", (4,), False, (3, 0)),
    ("big_f8_v3", ">f8", (2, 2), False, (3, 0)),
]


def numpy_verdict(version, header_bytes):
    """('accept', data_bytes) or ('reject', 0), as numpy.load decides; 'refuse' for a dtype it reads but not a float."""
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
            return "refuse", len(data)   # numpy reads it; this project reads only floats
        return "accept", len(data)
    except Exception:
        return "reject", 0


def ours(name, verdict):
    """The verdict this project must give: numpy's, but 'refuse' for what no writer writes."""
    return "refuse" if verdict == "accept" and name in NOT_WRITTEN else verdict


def written(out):
    """Headers and data exactly as numpy writes them, read back by numpy to check."""
    for name, dtype, shape, fortran, version in WRITTEN:
        n = int(np.prod(shape)) if shape else 1
        a = (np.arange(n, dtype=np.float64) * 0.5 - 1.0).reshape(shape).astype(dtype)
        if fortran:
            a = np.asfortranarray(a)
        fp = io.BytesIO()
        if version is None:
            np.save(fp, a)
        else:
            np.lib.format.write_array(fp, a, version=version)
        raw = fp.getvalue()
        major = raw[6]
        start = 10 if major == 1 else 12
        hl = int.from_bytes(raw[8:start], "little")
        header, data = raw[start:start + hl], raw[start + hl:]
        back = np.load(io.BytesIO(raw))
        assert back.dtype == np.dtype(dtype) and back.shape == shape and np.array_equal(back, a)
        assert (b"'fortran_order': True" in header) == fortran, name
        out.write(f"accept {major} {len(data)} {header.hex()} written_{name} {data.hex() or '-'}\n")


def main():
    out = sys.stdout
    written(out)
    for name, text in CASES:
        for version in (1, 2, 3):
            enc = "utf-8" if version == 3 else "latin-1"
            header = text.encode(enc)
            if version == 1 and len(header) > 65535:
                continue
            verdict, nbytes = numpy_verdict(version, header)
            out.write(f"{ours(name, verdict)} {version} {nbytes} {header.hex()} {name}\n")
    # bytes that are not UTF-8, in a version 3.0 header
    for name, raw in [("v3_bad_utf8_padding", BASE.encode() + b" \xff\n"),
                      ("v3_overlong_utf8", BASE.encode() + b" \xc0\xa0\n"),
                      ("v3_surrogate_utf8", BASE.encode() + b" \xed\xa0\x80\n")]:
        verdict, nbytes = numpy_verdict(3, raw)
        out.write(f"{verdict} 3 {nbytes} {raw.hex()} {name}\n")


if __name__ == "__main__":
    main()
