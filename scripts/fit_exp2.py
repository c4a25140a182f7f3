"""fit_exp2.py -- the coefficients of chapter 8's 2^f polynomial (exp2_le0).

Usage: PY=$(sh scripts/find_python.sh numpy) && $PY scripts/fit_exp2.py [DEGREE]

flash computes 2^x = 2^n * 2^f with n = round(x) and |f| <= 1/2, and 2^f as
1 + f*(c1 + f*(c2 + ... + f*cD)). This fits c1..cD (default D = 5) to make the
largest *relative* error over [-1/2, 1/2] as small as it goes (a minimax fit,
by least squares reweighted toward the worst points), then prints them as the
float literals fast_attention.c uses, with the fit's error in exact arithmetic.
The error of the C code itself, with float rounding, is what test_ch08 checks
over floats in [-126, 0] through attn_exp2 (under 1.75e-7 for D = 5).
"""
import sys

import numpy as np


def fit(degree, points=20001, rounds=200):
    f = np.linspace(-0.5, 0.5, points)
    y = np.exp2(f)
    a = np.stack([f ** k for k in range(1, degree + 1)], 1) / y[:, None]
    b = (y - 1.0) / y  # relative error of 1 + sum c_k f^k is |a @ c - b|
    w = np.ones_like(f)
    for _ in range(rounds):
        sw = np.sqrt(w)
        c, *_ = np.linalg.lstsq(a * sw[:, None], b * sw, rcond=None)
        err = np.abs(a @ c - b)
        w = w * ((err / err.max()) ** 0.3 + 1e-12)
        w /= w.sum()
    return c, err.max()


def main():
    try:
        degree = int(sys.argv[1]) if len(sys.argv) > 1 else 5
        if not 2 <= degree <= 9 or len(sys.argv) > 2:
            raise ValueError
    except ValueError:
        print(f"usage: {sys.argv[0]} [DEGREE]  (DEGREE: a whole number from 2 to 9, default 5)", file=sys.stderr)
        sys.exit(2)
    c, worst = fit(degree)
    c32 = c.astype(np.float32)
    print(f"2^f on [-1/2, 1/2], degree {degree}: largest relative error of the fit {worst:.3g}")
    print("Horner order, highest first (as float literals in fast_attention.c):")
    for k in range(degree - 1, -1, -1):
        print(f"  c{k + 1} = {float(c32[k])!r}f")


if __name__ == "__main__":
    main()
