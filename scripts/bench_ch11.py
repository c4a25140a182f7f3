#!/usr/bin/env python3
"""bench_ch11.py -- chapter 11's decode step against a PyTorch decode loop (make bench-chapter11).

Usage:
    python3 scripts/bench_ch11.py --lib build/libattn_bench.so [--quick] [--steps N,N,...]
                                  [--dim D] [--heads H] [--kv-heads K] [--rounds N]
                                  [--triad-mib M] [--csv FILE] [--log FILE]

Decodes N tokens one at a time from an empty cache (N = 64, 512 and 4096;
--quick or BENCH_QUICK=1: 64 and 512), batch 1, with Happy-LLM 5.1.3's
attention at dim 768, 16 query heads and 8 kv heads (the weights of
nn.Linear's init after torch.manual_seed(0), the tokens torch.rand), three
ways, in this one process, round by round (the order rotating):

  C          chapter 11's llama_decode_step (fast_decode.c: the projections
             through a blocked matrix-vector kernel, the n_rep query heads of a
             group reading each cached key and value once), from the shared
             library (ctypes; chapters/11_llama_attention/bench/bench_lib.c)
  repeat_kv  the book's Attention.forward for one new position, with a cache
             preallocated as (1, max_seq_len, n_kv_heads, head_dim) (Meta's
             cache_k), written at pos and read as repeat_kv(cache_k[:, :pos+1])
             the way k_model.py's forward reads xk: a copy of the cache, every
             step
  index      the same step with the cache as (1, n_kv_heads, max_seq_len,
             head_dim) and the queries viewed as (1, n_kv_heads, n_rep,
             head_dim): each kv head serves its group by indexing, no copy

PyTorch: one thread (torch.set_num_threads(1), OPENBLAS_NUM_THREADS=1),
torch.inference_mode(), on the fastest right OpenBLAS kernel set, raced before
numpy and torch load (bench_torch.py's race_coretypes; BENCH_KEEP_OPENBLAS_ENV=1
keeps the environment's). A figure is the best of the rounds' wall times for
the whole loop (a busy machine only makes a run slower), as tokens per second.
Every loop's outputs are checked against the C step's in the same run (max
|diff| / max |C|, at most 1e-4).

Bandwidth: the bytes one loop must read (each step the four weights and the
cache's k and v up to its position, float32) over its time, against a
STREAM-like triad a = b + s * c measured in the same run, in C, twice: on
arrays of the loop's working set (what the caches deliver) and on 3 arrays of
--triad-mib MiB (default 256: past a last-level cache up to 3/4 of that, main
memory).

Every line printed fits 80 columns. Writes --csv (the table) and --log
(everything printed; with both, the last line says "wrote" the csv). Exit
status: 0 ok, 1 a missing module or library or a wrong result, 2 usage error.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Importing it sets OPENBLAS_NUM_THREADS=1 and OMP_NUM_THREADS=1 before numpy and torch load.
import bench_torch as bt  # noqa: E402

import argparse  # noqa: E402
import ctypes  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

PROG = "bench_ch11.py"
bt.PROG = PROG  # bt.die's messages name this script
FULL_STEPS, QUICK_STEPS = [64, 512, 4096], [64, 512]
TOL = 1e-4  # max |diff| / max |C|
HEADER = "%6s %9s %10s %9s %7s %7s %7s %7s" % (
    "steps", "C tok/s", "repeat_kv", "index", "C/best", "C GB/s", "%cache", "%DRAM")
say = bt.say


def usage_error(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(2)


def load_lib(path):
    try:
        lib = ctypes.CDLL(os.path.abspath(path))
    except OSError as e:
        bt.die("cannot load %s (make bench-chapter11 builds it): %s" % (path, e))
    f32p = ctypes.POINTER(ctypes.c_float)
    try:
        lib.bench11_setup.argtypes = [ctypes.c_int64] * 4 + [f32p] * 4
        lib.bench11_decode.argtypes = [ctypes.c_int64, f32p, f32p, ctypes.POINTER(ctypes.c_double)]
        lib.bench11_triad.argtypes = [ctypes.c_int64]
        lib.bench11_triad.restype = ctypes.c_double
        lib.bench11_last_error.restype = ctypes.c_char_p
    except AttributeError as e:
        bt.die("%s has no chapter 11 entry points (make bench-chapter11 rebuilds it): %s" % (path, e))
    return lib


class CDecode:
    """llama_decode_step over the steps, through the library."""

    def __init__(self, lib, np, ws, dim, H, K, L):
        self.lib, self.np = lib, np
        self.ws = [np.ascontiguousarray(w) for w in ws]  # kept alive: the library copies them
        st = lib.bench11_setup(dim, H, K, L, *(bt.fptr(w) for w in self.ws))
        if st != 0:
            bt.die("bench11_setup: %s" % lib.bench11_last_error().decode())

    def run(self, x, out=None):
        wall = ctypes.c_double()
        st = self.lib.bench11_decode(x.shape[0], bt.fptr(x), bt.fptr(out) if out is not None else None,
                                     ctypes.byref(wall))
        if st != 0:
            bt.die("llama_decode_step: %s" % self.lib.bench11_last_error().decode())
        return wall.value


def torch_loops(torch, k_model, ws, dim, H, K, L):
    """The two PyTorch decode loops: {name: fn(x, out) -> wall seconds}."""
    F = torch.nn.functional
    wq, wk, wv, wo = ws
    hd, n_rep = dim // H, H // K
    cos, sin = k_model.precompute_freqs_cis(hd, L)
    cache_k = torch.zeros(1, L, K, hd)  # Meta's layout: (bsz, max_seq_len, n_kv_heads, head_dim)
    cache_v = torch.zeros(1, L, K, hd)
    cache_k2 = torch.zeros(1, K, L, hd)  # a kv head's positions contiguous
    cache_v2 = torch.zeros(1, K, L, hd)
    scale = math.sqrt(hd)

    def project(x1, pos):
        xq = F.linear(x1, wq).view(1, 1, H, hd)
        xk = F.linear(x1, wk).view(1, 1, K, hd)
        xv = F.linear(x1, wv).view(1, 1, K, hd)
        xq, xk = k_model.apply_rotary_emb(xq, xk, cos[pos:pos + 1], sin[pos:pos + 1])
        return xq, xk, xv

    def repeat_step(x1, pos):
        xq, xk, xv = project(x1, pos)
        cache_k[:, pos:pos + 1] = xk
        cache_v[:, pos:pos + 1] = xv
        keys = k_model.repeat_kv(cache_k[:, :pos + 1], n_rep).transpose(1, 2)  # (1, H, pos+1, hd): a copy
        values = k_model.repeat_kv(cache_v[:, :pos + 1], n_rep).transpose(1, 2)
        scores = torch.matmul(xq.transpose(1, 2), keys.transpose(2, 3)) / scale
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        output = torch.matmul(scores, values).transpose(1, 2).contiguous().view(1, 1, -1)
        return F.linear(output, wo)

    def index_step(x1, pos):
        xq, xk, xv = project(x1, pos)
        cache_k2[:, :, pos] = xk[:, 0]
        cache_v2[:, :, pos] = xv[:, 0]
        q = xq.view(1, K, n_rep, hd)  # heads g * n_rep .. g * n_rep + n_rep - 1 share kv head g
        scores = torch.matmul(q, cache_k2[:, :, :pos + 1].transpose(2, 3)) / scale  # (1, K, n_rep, pos+1)
        scores = F.softmax(scores, dim=-1)
        output = torch.matmul(scores, cache_v2[:, :, :pos + 1])  # (1, K, n_rep, hd)
        return F.linear(output.reshape(1, 1, -1), wo)

    def loop(step):
        def run(x, out=None):
            with torch.inference_mode():
                t0 = time.perf_counter()
                for pos in range(x.shape[0]):
                    y = step(x[pos].view(1, 1, dim), pos)
                    if out is not None:
                        out[pos] = y.view(dim)
                return time.perf_counter() - t0
        return run

    return {"repeat_kv": loop(repeat_step), "index": loop(index_step)}


def main():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[1])
    p.add_argument("--lib", required=True, metavar="SO", help="build/libattn_bench.so")
    p.add_argument("--quick", action="store_true", help="64 and 512 steps only (also BENCH_QUICK=1)")
    p.add_argument("--steps", metavar="N,N,...", help="these decode lengths instead")
    p.add_argument("--dim", type=int, default=768)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--rounds", type=int, default=0, help="rounds per length (default 5, 3 from 1024 steps)")
    p.add_argument("--triad-mib", type=int, default=256, help="MiB per array of the main-memory triad")
    p.add_argument("--csv", metavar="FILE", help="the table, one row per length")
    p.add_argument("--log", metavar="FILE", help="a copy of everything printed")
    args = p.parse_args()
    quick = args.quick or os.environ.get("BENCH_QUICK", "") not in ("", "0")
    if args.rounds < 0:
        usage_error("--rounds must be >= 0")
    if args.triad_mib < 1:
        usage_error("--triad-mib must be >= 1")
    dim, H, K = args.dim, args.heads, args.kv_heads
    if min(dim, H, K) < 1 or H % K != 0 or dim % H != 0 or (dim // H) % 2 != 0:
        usage_error("--dim %d, --heads %d, --kv-heads %d: each >= 1, kv heads dividing heads, "
                    "head_dim = dim / heads whole and even" % (dim, H, K))
    steps = QUICK_STEPS if quick else FULL_STEPS
    if args.steps:
        try:
            steps = [int(n) for n in args.steps.split(",")]
        except ValueError:
            usage_error("--steps wants numbers like 64,512")
        if any(n < 1 for n in steps):
            usage_error("--steps wants numbers >= 1")
    import importlib.util
    for m in ("numpy", "torch"):
        if importlib.util.find_spec(m) is None:
            bt.die("No module named '%s' for %s (PYTHON=... to choose another interpreter)" % (m, sys.executable))
    lib = load_lib(args.lib)
    # OPENBLAS_CORETYPE is read once, when OpenBLAS loads: chosen before numpy and torch load here
    race, chosen = bt.race_coretypes(quick, os.environ.get("BENCH_KEEP_OPENBLAS_ENV", "") not in ("", "0"))
    try:
        import numpy as np
        import torch
        from golden import ch11 as k_model  # Happy-LLM's k_model.py functions, restated
    except ImportError as e:
        bt.die("%s for %s (PYTHON=... to choose another interpreter)" % (e, sys.executable))
    torch.set_num_threads(1)
    torch.mm(torch.ones(64, 64), torch.ones(64, 64))  # OpenBLAS loaded, for the lines below

    say("Chapter 11's decode step against a PyTorch decode loop, one process")
    say("(make bench-chapter11)")
    say("machine: %s, %d cores (os.cpu_count)" % (bt.cpu_model()[:50], os.cpu_count()))
    say("load average at the start: %s" % bt.load_avg())
    say("python %s, numpy %s, torch %s" % (platform.python_version(), np.__version__,
                                          torch.__version__.split("+")[0]))
    for line in race:
        say(line)
    cores = bt.openblas_cores()
    for name, core, _ in cores:
        say("OpenBLAS runs: core %s (%s)" % (core[:20], name[:40]))
    if not cores:
        say("no OpenBLAS mapped: no core name to print")
    for name, core, _ in cores:
        if chosen and core.lower() != chosen.lower():
            say("NOTE: %s runs %s, not the %s chosen" % (name[:24], core[:12], chosen[:12]))
    say("torch threads %d, C threads 1" % torch.get_num_threads())

    L = max(steps)
    hd = dim // H
    torch.manual_seed(0)
    ws = [torch.nn.Linear(dim, H * hd, bias=False).weight.detach(), torch.nn.Linear(dim, K * hd, bias=False)
          .weight.detach(), torch.nn.Linear(dim, K * hd, bias=False).weight.detach(),
          torch.nn.Linear(H * hd, dim, bias=False).weight.detach()]
    c = CDecode(lib, np, [w.numpy() for w in ws], dim, H, K, L)
    loops = torch_loops(torch, k_model, ws, dim, H, K, L)
    weight_bytes = 4.0 * sum(w.numel() for w in ws)
    failures = []
    say()
    say("dim %d, %d query heads, %d kv heads (head_dim %d), batch 1, float32;" % (dim, H, K, hd))
    say("weights %.1f MiB, read once per token. tok/s: steps / the best round's" % (weight_bytes / 1048576))
    say("wall time; C/best: C against the better PyTorch loop; C GB/s: the bytes the")
    say("loop reads (weights each step, the cache up to each position) per second;")
    say("%cache, %DRAM: of the triad on the loop's working set / on main memory.")
    rows = []
    for n in steps:
        rounds = args.rounds or (5 if n < 1024 else 3)
        gen = torch.Generator().manual_seed(n)
        x = torch.rand(n, dim, generator=gen)
        xn = np.ascontiguousarray(x.numpy())
        # warm-up of each, and the check: every loop's outputs against the C step's
        want = np.zeros((n, dim), dtype=np.float32)
        c.run(xn, want)
        worst = 0.0
        for name, run in loops.items():
            got = torch.zeros(n, dim)
            run(x, got)
            rel = float(np.max(np.abs(got.numpy() - want))) / max(float(np.max(np.abs(want))), 1e-30)
            worst = max(worst, rel)
            if not rel <= TOL:
                failures.append("%s, %d steps: max |diff| / max |C| %.3g" % (name, n, rel))
        best = {"C": 1e30, "repeat_kv": 1e30, "index": 1e30}
        names = list(best)
        for r in range(rounds):
            for i in range(len(names)):
                who = names[(i + r) % len(names)]  # who goes first rotates
                t = c.run(xn) if who == "C" else loops[who](x)
                best[who] = min(best[who], t)
        cache_bytes = 2.0 * K * hd * 4.0 * n * (n + 1) / 2.0  # k and v up to each position
        rows.append((n, best, (n * weight_bytes + cache_bytes) / best["C"], weight_bytes + 2.0 * K * hd * 4.0 * n,
                     worst))
    # the triads after the loops (their arrays are not in the caches the loops found)
    dram = lib.bench11_triad(args.triad_mib * 1048576 // 4)
    say()
    say(HEADER)
    ratios = []
    for n, best, c_bw, working_set, worst in rows:
        near = lib.bench11_triad(max(int(working_set / 4 / 3), 1024))
        tok = {k: n / v for k, v in best.items()}
        ratio = tok["C"] / max(tok["repeat_kv"], tok["index"])
        ratios.append(ratio)
        say("%6d %9.0f %10.0f %9.0f %6.2fx %7.1f %6.0f%% %6.0f%%%s" % (
            n, tok["C"], tok["repeat_kv"], tok["index"], ratio, c_bw / 1e9, 100.0 * c_bw / near,
            100.0 * c_bw / dram, "" if worst <= TOL else " WRONG"))
    say()
    say("triad on main memory (3 arrays of %d MiB): %.1f GB/s" % (args.triad_mib, dram / 1e9))
    say("C/best at %s steps: %s" % (", ".join(str(r[0]) for r in rows), ", ".join("%.2fx" % x for x in ratios)))
    say("load average at the end: %s" % bt.load_avg())
    for f in failures:
        say("WRONG RESULT: " + f)
    if args.csv:
        with open(args.csv + ".tmp", "w") as f:
            f.write("steps,c_tok_s,repeat_kv_tok_s,index_tok_s,c_over_best,c_gb_s,triad_dram_gb_s\n")
            for (n, best, c_bw, _, _), ratio in zip(rows, ratios):
                f.write("%d,%.1f,%.1f,%.1f,%.3f,%.2f,%.2f\n" % (n, n / best["C"], n / best["repeat_kv"],
                                                               n / best["index"], ratio, c_bw / 1e9, dram / 1e9))
        os.replace(args.csv + ".tmp", args.csv)
        say("wrote %s" % args.csv)
    if args.log:
        with open(args.log + ".tmp", "w") as f:
            f.writelines(bt.LOG)
        os.replace(args.log + ".tmp", args.log)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
