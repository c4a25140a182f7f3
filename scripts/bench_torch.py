#!/usr/bin/env python3
"""bench_torch.py -- PyTorch eager attention timed like chapter 8's make bench.

Usage:
    python3 scripts/bench_torch.py [--quick] [--out FILE]

For T in 256, 512, 1024, 2048, 4096 (--quick or BENCH_QUICK=1: 256 and 1024),
B = 1, H = 8, d = 64, causal and not, times PyTorch eager on ONE thread
(torch.set_num_threads(1)) doing what chapters 2 and 4 do:

    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d)
    scores = scores + mask            # causal only: triu(full(-inf), diagonal=1)
    out = torch.matmul(scores.softmax(dim=-1), v)

(F.scaled_dot_product_attention came with PyTorch 2.0; it is used instead when
present and --sdpa is given.) Compute only: the inputs and the mask are made
before the clock starts. One warm-up call, then the median of at least 5 calls.
A size whose 5 calls would take more than BENCH_MAX_SECONDS (default 60, from the
previous T and T^2 growth) is skipped.

Prints a table, and writes "T causal ms" lines to --out (make bench-torch passes
them to build/bench_attention --torch, which prints the ratios). Exit status: 0
ok, 1 PyTorch missing, 2 usage error.
"""

import argparse
import math
import os
import statistics
import sys
import time

FULL_TS = [256, 512, 1024, 2048, 4096]
QUICK_TS = [256, 1024]
HEADS, HEAD_DIM, MIN_RUNS = 8, 64, 5


def main():
    p = argparse.ArgumentParser(prog="bench_torch.py", description=__doc__.splitlines()[1])
    p.add_argument("--quick", action="store_true", help="T = 256 and 1024 only (also BENCH_QUICK=1)")
    p.add_argument("--out", metavar="FILE", help="write 'T causal ms' lines here")
    p.add_argument("--sdpa", action="store_true",
                   help="time F.scaled_dot_product_attention instead (PyTorch >= 2.0)")
    args = p.parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("bench_torch.py: PyTorch is not installed for %s (pip install torch, or PYTHON=...)"
              % sys.executable, file=sys.stderr)
        return 1
    quick = args.quick or os.environ.get("BENCH_QUICK", "") not in ("", "0")
    max_seconds = float(os.environ.get("BENCH_MAX_SECONDS", "60") or 60)
    use_sdpa = args.sdpa and hasattr(F, "scaled_dot_product_attention")
    torch.set_num_threads(1)
    torch.manual_seed(8)
    print("PyTorch %s eager, %d thread, B = 1, H = %d, d = %d; median of >= %d calls; %s"
          % (torch.__version__, torch.get_num_threads(), HEADS, HEAD_DIM, MIN_RUNS,
             "F.scaled_dot_product_attention" if use_sdpa else "matmul + softmax + matmul"))
    print("%6s %-6s %10s %9s" % ("T", "causal", "median ms", "GFLOP/s"))
    lines = []
    last = {}
    for T in (QUICK_TS if quick else FULL_TS):
        for causal in (False, True):
            if causal in last:
                T0, ms0 = last[causal]
                if ms0 * 1e-3 * (T / T0) ** 2 * MIN_RUNS > max_seconds:
                    print("%6d %-6s %10s   (~%.0f s/call)" % (T, "yes" if causal else "no", "skipped",
                                                            ms0 * 1e-3 * (T / T0) ** 2))
                    continue
            q, k, v = (torch.randn(1, HEADS, T, HEAD_DIM) for _ in range(3))
            mask = torch.triu(torch.full((1, 1, T, T), float("-inf")), diagonal=1)

            def attention():
                if use_sdpa:
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(HEAD_DIM)
                if causal:
                    scores = scores + mask
                return torch.matmul(scores.softmax(dim=-1), v)

            with torch.no_grad():
                attention()  # warm-up
                times = []
                while len(times) < MIN_RUNS or (sum(times) < 0.25 and len(times) < 64):
                    t0 = time.perf_counter()
                    attention()
                    times.append(time.perf_counter() - t0)
            ms = 1e3 * statistics.median(times)
            flops = 4.0 * HEADS * T * T * HEAD_DIM * (0.5 if causal else 1.0)
            print("%6d %-6s %10.2f %9.1f" % (T, "yes" if causal else "no", ms, flops / (ms * 1e-3) / 1e9))
            lines.append("%d %d %.4f\n" % (T, int(causal), ms))
            last[causal] = (T, ms)
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            f.writelines(lines)
        os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
