#!/usr/bin/env python3
"""bench_ch12.py -- chapter 12's flash backward against PyTorch's autograd (make bench-chapter12-torch).

Usage:
    python3 scripts/bench_ch12.py --lib build/libattn_bench.so [--quick] [--ts T,T,...]
                                  [--heads H] [--rounds N] [--no-memory] [--log FILE]

Loads chapter 12's flash backward and chapter 8's forward from the shared
library (ctypes; chapters/12_flash_backward/bench/bench_lib.c) and races them
against PyTorch's autograd on the same inputs, in this one process, round by
round (each round times every contender once, the order alternating), at
T = 1024 and 4096 (--quick or BENCH_QUICK=1: 256 and 1024, H = 2, fewer
rounds), B = 1, H = 4, d = 64, causal and not:

  torch fwd  eager attention with autograd on (torch 1.13 has no
             F.scaled_dot_product_attention):
                 scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d)
                 scores = scores + mask              # causal only
                 output = torch.matmul(scores.softmax(dim=-1), v)
  torch bwd  loss.backward() for loss = (output * grad_output).sum(), run as
             output.backward(grad_output) (the same gradients, without the
             product and the sum)
  ch8 fwd    chapter 8's flash with its logsumexp (flash_forward)
  flash bwd  attention_backward_flash, from that forward's output and lse

One thread: torch.set_num_threads(1), OPENBLAS_NUM_THREADS=1, the C library's
OpenMP at 1. Times are this process's CPU time per call (time.process_time:
every thread of the process, so autograd's work counts wherever it runs),
medians over the rounds, with glibc's allocator tuned (mallopt M_MMAP_MAX = 0,
M_TRIM_THRESHOLD = 1 GiB, as bench_torch.py's 'tuned': torch's (H, T, T)
buffers are not page-faulted in again on every call). The opponent runs on the
fastest right OpenBLAS kernel set, raced before numpy and torch load
(bench_torch.py's race_coretypes; BENCH_KEEP_OPENBLAS_ENV=1 keeps the
environment's). Every gradient is checked against torch's in the same run
(max |diff| / max |torch|, at most 1e-4).

Peak memory (--no-memory skips it): PyTorch on CPU keeps no allocator
statistics, so each case runs one forward and backward in a child process of
its own (this script with --mem-child), after a warm-up at T = 16, and the
figure is the growth of its resident memory beyond the inputs: VmHWM (the peak,
reset by writing 5 to /proc/self/clear_refs just before the call) minus VmRSS
just before it; for torch also the growth once the forward has run (what
autograd keeps for the backward). Beside it, chapter 12's own count of the
flash backward: the most it held at once beyond what was live before it (the
three gradients and its scratch, t_peak_bytes) and its scratch alone
(flash_backward_scratch_bytes).

Every line printed fits 80 columns. Writes --log (everything printed). Exit
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
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

PROG = "bench_ch12.py"
bt.PROG = PROG  # bt.die's messages name this script
FULL_TS, QUICK_TS = [1024, 4096], [256, 1024]
FULL_H, QUICK_H = 4, 2
HEAD_DIM = 64
WARM_T = 16  # the memory children's warm-up
TOL = 1e-4   # max |diff| / max |torch|, every gradient
HEADER = "%5s %-6s %9s %9s %8s %9s %9s %7s %8s" % (
    "T", "causal", "torch fwd", "torch bwd", "ch8 fwd", "flash bwd", "bwd/torch", "bwd/fwd", "max diff")
MEM_HEADER = "%5s %-6s %10s %10s %10s %11s %9s %9s" % (
    "T", "causal", "torch kept", "torch peak", "flash peak", "torch/flash", "flash bwd", "scratch")
say = bt.say


def usage_error(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(2)


# ---- the C library: chapter 8's entry points (bench_torch.load_lib) and chapter 12's ---------

def load_lib(path):
    lib = bt.load_lib(path)
    f32p = ctypes.POINTER(ctypes.c_float)
    dp = ctypes.POINTER(ctypes.c_double)
    try:
        lib.bench12_set_inputs.argtypes = [ctypes.c_int64] * 4 + [f32p] * 4
        lib.bench12_forward.argtypes = [ctypes.c_int, dp, dp]
        lib.bench12_backward.argtypes = [ctypes.c_int, f32p, f32p, f32p, dp, dp, dp, dp]
        lib.bench12_last_error.restype = ctypes.c_char_p
    except AttributeError as e:
        bt.die("%s has no chapter 12 entry points (make bench-chapter12-torch rebuilds it): %s" % (path, e))
    lib.bench_set_threads(1)
    return lib


def fptr(a):
    return None if a is None else bt.fptr(a)


class Flash:
    """Chapter 8's forward and chapter 12's backward on the inputs of set_inputs."""

    def __init__(self, lib):
        self.lib = lib

    def set_inputs(self, q, k, v, dout):
        B, H, T, d = q.shape
        st = self.lib.bench12_set_inputs(B, H, T, d, fptr(q), fptr(k), fptr(v), fptr(dout))
        if st != 0:
            bt.die("bench12_set_inputs: %s" % self.lib.bench12_last_error().decode())

    def forward(self, causal):
        cpu, wall = ctypes.c_double(), ctypes.c_double()
        c0 = time.process_time()
        st = self.lib.bench12_forward(int(causal), ctypes.byref(cpu), ctypes.byref(wall))
        c1 = time.process_time()
        if st != 0:
            bt.die("chapter 8's forward: %s" % self.lib.bench12_last_error().decode())
        return c1 - c0

    def backward(self, causal, grads=(None, None, None)):
        """One call: (this process's CPU seconds, the bytes it held at once, its scratch)."""
        cpu, wall, peak, scratch = (ctypes.c_double() for _ in range(4))
        c0 = time.process_time()
        st = self.lib.bench12_backward(int(causal), *(fptr(g) for g in grads), ctypes.byref(cpu),
                                       ctypes.byref(wall), ctypes.byref(peak), ctypes.byref(scratch))
        c1 = time.process_time()
        if st != 0:
            bt.die("the flash backward: %s" % self.lib.bench12_last_error().decode())
        return c1 - c0, peak.value, scratch.value


def eager(torch, q, k, v, mask):
    """Happy-LLM 2.1's attention, eager, the graph kept for the backward."""
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores + mask
    return torch.matmul(scores.softmax(dim=-1), v)


def causal_mask(torch, T):
    return torch.triu(torch.full((T, T), float("-inf")), diagonal=1)


# ---- peak memory: a child process per case ---------------------------------------------------

def status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError("no %s in /proc/self/status" % field)


def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # VmHWM := VmRSS (Linux 4.0 and later)


def mem_child(argv):
    """--mem-child WHO LIB T H D CAUSAL: one forward and backward of WHO (torch or flash);
    prints "KEPT PEAK" in bytes beyond the inputs (KEPT -1 for flash), or "error WHY"."""
    who, lib_path, T, H, d, causal = argv[0], argv[1], int(argv[2]), int(argv[3]), int(argv[4]), argv[5] == "1"
    try:
        if who == "torch":
            import torch
            torch.set_num_threads(1)

            def inputs(t):
                q, k, v = (torch.randn(1, H, t, d, requires_grad=True) for _ in range(3))
                return q, k, v, torch.randn(1, H, t, d), causal_mask(torch, t) if causal else None

            q, k, v, dout, mask = inputs(WARM_T)
            eager(torch, q, k, v, mask).backward(dout)
            q, k, v, dout, mask = inputs(T)
            base = status_kib("VmRSS")
            reset_peak()
            out = eager(torch, q, k, v, mask)
            kept = status_kib("VmRSS") - base
            out.backward(dout)
            peak = status_kib("VmHWM") - base
            print("%d %d" % (kept * 1024, peak * 1024))
        else:
            import numpy as np
            flash = Flash(load_lib(lib_path))
            rng = np.random.default_rng(1)
            for t in (WARM_T, T):
                x = [rng.standard_normal((1, H, t, d), dtype=np.float32) for _ in range(4)]
                flash.set_inputs(*x)
                if t == WARM_T:
                    flash.backward(causal)
            base = status_kib("VmRSS")
            reset_peak()
            flash.backward(causal)  # the forward it reads, then the backward
            peak = status_kib("VmHWM") - base
            print("%d %d" % (-1, peak * 1024))
    except (OSError, ValueError) as e:
        print("error %s" % str(e).replace("\n", " ")[:60])
    return 0


def memory_runs(lib_path, Ts, H):
    """{(who, causal, T): (kept, peak) bytes, or a str: why not} from a child per case."""
    out = {}
    for T in Ts:
        for causal in (False, True):
            for who in ("torch", "flash"):
                argv = [sys.executable, os.path.abspath(__file__), "--mem-child", who, lib_path, str(T), str(H),
                        str(HEAD_DIM), "1" if causal else "0"]
                try:
                    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
                except (OSError, subprocess.TimeoutExpired) as e:
                    out[(who, causal, T)] = "did not run (%s)" % e.__class__.__name__
                    continue
                words = r.stdout.decode(errors="replace").split()
                if r.returncode != 0 or len(words) < 2:
                    out[(who, causal, T)] = "exit %d" % r.returncode
                elif words[0] == "error":
                    out[(who, causal, T)] = " ".join(words[1:])
                else:
                    out[(who, causal, T)] = (float(words[0]), float(words[1]))
    return out


def mib(b):
    return "%.1f" % (b / 1048576.0)


# ---- the race --------------------------------------------------------------------------------

def main():
    if sys.argv[1:2] == ["--mem-child"]:
        return mem_child(sys.argv[2:])
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[1])
    p.add_argument("--lib", required=True, metavar="SO", help="build/libattn_bench.so")
    p.add_argument("--quick", action="store_true", help="T = 256 and 1024, H = 2, 3 rounds (also BENCH_QUICK=1)")
    p.add_argument("--ts", metavar="T,T,...", help="these sequence lengths instead")
    p.add_argument("--heads", type=int, default=0, help="heads (default 4; 2 with --quick)")
    p.add_argument("--rounds", type=int, default=0, help="rounds per case (default 7, 5 from T = 2048; 3 quick)")
    p.add_argument("--no-memory", action="store_true", help="no peak-memory children")
    p.add_argument("--log", metavar="FILE", help="a copy of everything printed")
    args = p.parse_args()
    quick = args.quick or os.environ.get("BENCH_QUICK", "") not in ("", "0")
    if args.rounds < 0:
        usage_error("--rounds must be >= 0")
    if args.heads < 0:
        usage_error("--heads must be >= 1")
    H = args.heads or (QUICK_H if quick else FULL_H)
    Ts = QUICK_TS if quick else FULL_TS
    if args.ts:
        try:
            Ts = [int(t) for t in args.ts.split(",")]
        except ValueError:
            usage_error("--ts wants numbers like 1024,4096")
        if any(t < 1 for t in Ts):
            usage_error("--ts wants numbers >= 1")
    import importlib.util
    for m in ("numpy", "torch"):
        if importlib.util.find_spec(m) is None:
            bt.die("No module named '%s' for %s (PYTHON=... to choose another interpreter)" % (m, sys.executable))
    lib = load_lib(args.lib)
    # OPENBLAS_CORETYPE is read once, when OpenBLAS loads: chosen before numpy and torch load
    # here (and inherited by the memory children)
    race, chosen = bt.race_coretypes(quick, os.environ.get("BENCH_KEEP_OPENBLAS_ENV", "") not in ("", "0"))
    mem = {} if args.no_memory else memory_runs(args.lib, Ts, H)
    try:
        import numpy as np
        import torch
    except ImportError as e:
        bt.die("%s for %s (PYTHON=... to choose another interpreter)" % (e, sys.executable))
    torch.set_num_threads(1)
    torch.mm(torch.ones(64, 64), torch.ones(64, 64))  # OpenBLAS loaded, for the lines below

    say("Chapter 12's flash backward against PyTorch's autograd, one process")
    say("(make bench-chapter12-torch)")
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
    say("torch threads %d, C threads 1; allocator tuned (mallopt M_MMAP_MAX=0," % torch.get_num_threads())
    say("  M_TRIM_THRESHOLD=1 GiB)")
    say()
    alloc = bt.Allocator()
    alloc.set(True)
    flash = Flash(lib)
    failures = []
    say("ms: median of this process's CPU time per call. B = 1, H = %d, d = %d." % (H, HEAD_DIM))
    say("torch: eager attention with autograd, output.backward(grad_output);")
    say("ch8 fwd: chapter 8's flash with its lse; flash bwd: chapter 12's backward.")
    say("bwd/torch = flash bwd / torch bwd; bwd/fwd = flash bwd / ch8 fwd;")
    say("max diff: the worst gradient's max |flash - torch| / max |torch|.")
    for T in Ts:
        rounds = args.rounds or (3 if quick else (7 if T < 2048 else 5))
        say()
        say("T = %d, %d round%s" % (T, rounds, "" if rounds == 1 else "s"))
        say(HEADER)
        for causal in (False, True):
            gen = torch.Generator().manual_seed(T * 2 + int(causal))
            q, k, v, dout = (torch.randn(1, H, T, HEAD_DIM, generator=gen) for _ in range(4))
            flash.set_inputs(*(np.ascontiguousarray(x.numpy()) for x in (q, k, v, dout)))
            for x in (q, k, v):
                x.requires_grad_(True)
            mask = causal_mask(torch, T) if causal else None

            def torch_round():
                for x in (q, k, v):
                    x.grad = None
                c0 = time.process_time()
                out = eager(torch, q, k, v, mask)
                c1 = time.process_time()
                out.backward(dout)
                c2 = time.process_time()
                return c1 - c0, c2 - c1

            # warm-up of both, and the check: every gradient against torch's
            torch_round()
            grads = [np.empty((1, H, T, HEAD_DIM), dtype=np.float32) for _ in range(3)]
            flash.forward(causal)
            counted = flash.backward(causal, grads)[1:]  # (peak, scratch): bytes, counted
            worst = 0.0
            for name, g, x in zip(("grad_q", "grad_k", "grad_v"), grads, (q, k, v)):
                want = x.grad.numpy()
                rel = float(np.max(np.abs(g - want))) / max(float(np.max(np.abs(want))), 1e-30)
                worst = max(worst, rel)
                if not rel <= TOL:
                    failures.append("%s T=%d causal=%d: max |diff| / max |torch| %.3g" % (name, T, causal, rel))
            times = {"tf": [], "tb": [], "cf": [], "cb": []}
            for r in range(rounds):
                order = (0, 1) if r % 2 == 0 else (1, 0)  # who goes first alternates
                for who in order:
                    if who == 0:
                        tf, tb = torch_round()
                        times["tf"].append(tf)
                        times["tb"].append(tb)
                    else:
                        times["cf"].append(flash.forward(causal))
                        times["cb"].append(flash.backward(causal)[0])
            for x in (q, k, v):
                x.grad = None
            ms = {key: 1e3 * statistics.median(val) for key, val in times.items()}
            say("%5d %-6s %9.2f %9.2f %8.2f %9.2f %8.2fx %6.2fx %8.2g%s" % (
                T, "yes" if causal else "no", ms["tf"], ms["tb"], ms["cf"], ms["cb"], ms["cb"] / ms["tb"],
                ms["cb"] / ms["cf"], worst, "" if worst <= TOL else " WRONG"))
            mem[("count", causal, T)] = counted
    alloc.set(False)
    if not args.no_memory:
        memory_table(mem, Ts, H)
    say()
    say("load average at the end: %s" % bt.load_avg())
    for f in failures:
        say("WRONG RESULT: " + f)
    if args.log:
        with open(args.log + ".tmp", "w") as f:
            f.writelines(bt.LOG)
        os.replace(args.log + ".tmp", args.log)
    return 1 if failures else 0


def memory_table(mem, Ts, H):
    say()
    say("Peak memory, MiB, beyond q, k, v and grad_output (B = 1, H = %d, d = %d):" % (H, HEAD_DIM))
    say("torch kept / peak: resident growth once the forward ran / at most, over one")
    say("forward and backward, a child process per case (PyTorch keeps no allocator")
    say("statistics on CPU); flash peak: the same for chapter 8's forward and the")
    say("flash backward; flash bwd / scratch: chapter 12's count of its backward")
    say("(the three gradients and its scratch / the scratch alone).")
    say(MEM_HEADER)
    why = []
    for T in Ts:
        for causal in (False, True):
            t, f = mem.get(("torch", causal, T)), mem.get(("flash", causal, T))
            count = mem.get(("count", causal, T))
            for who, x in (("torch", t), ("flash", f)):
                if isinstance(x, str):
                    why.append("%s T=%d causal=%d: %s" % (who, T, causal, x))
            tk = mib(t[0]) if isinstance(t, tuple) else "-"
            tp = mib(t[1]) if isinstance(t, tuple) else "-"
            fp = mib(f[1]) if isinstance(f, tuple) else "-"
            ratio = "%.1fx" % (t[1] / f[1]) if isinstance(t, tuple) and isinstance(f, tuple) and f[1] > 0 else "-"
            cb = mib(count[0]) if count else "-"
            cs = mib(count[1]) if count else "-"
            say("%5d %-6s %10s %10s %10s %11s %9s %9s" % (T, "yes" if causal else "no", tk, tp, fp, ratio, cb, cs))
    for w in why:
        for line in bt.wrapped("no figure: " + w):
            say(line)


if __name__ == "__main__":
    sys.exit(main())
