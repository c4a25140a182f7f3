#!/usr/bin/env python3
"""bench_torch.py -- chapter 8 against PyTorch, in one process (make bench-torch).

Usage:
    python3 scripts/bench_torch.py --lib build/libattn_bench.so [--chapter8 build/chapter8]
                                   [--quick] [--rounds N] [--csv FILE] [--log FILE]

Loads chapter 8's five versions from the shared library (ctypes) and races them
against PyTorch on the same inputs, in this one process, round by round: every
round times each contender once, so a busy moment of the machine hits all of
them alike. For T in 256, 512, ..., 16384 (--quick or BENCH_QUICK=1: 256, 1024
and 4096), B = 1, d = 64, H = 8 up to T = 4096 and fewer above (2 at 8192, 1 at
16384: heads_for), causal and not:

  C        naive, reordered, tiled, online, flash (one thread), and flash on two
           threads (OpenMP over (batch, head, query block), wall time)
  PyTorch  "torch eager": chapters 2/4's lines, torch.matmul / math.sqrt(d) (+ mask),
           softmax, torch.matmul; "torch bmm": baddbmm into a preallocated buffer
           (scale and mask folded in), softmax into another, bmm into a third: no
           allocation in the call; "torch sdpa": F.scaled_dot_product_attention
           (PyTorch >= 2.0) or F._scaled_dot_product_attention (1.13), when present.
           One thread: torch.set_num_threads(1), OPENBLAS_NUM_THREADS=1.

Each contender runs under two settings of glibc's allocator, switched with
mallopt() in this process between the two halves of a round:
  default  mmap for big blocks, returned to the system when freed; glibc's dynamic
           thresholds at their ceiling (M_MMAP_THRESHOLD 32 MiB, M_TRIM_THRESHOLD
           64 MiB), after malloc_trim(0)
  tuned    M_MMAP_MAX = 0 and M_TRIM_THRESHOLD = 1 GiB: freed memory stays in the
           heap and the next call does not page-fault it in again (what the
           environment variables MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=... do
           at process start)
Times are this thread's CPU time (time.thread_time, CLOCK_THREAD_CPUTIME_ID in C)
and wall time; the figures are medians over the rounds. In the same rounds: this
core's FMA ceiling (the best run of an FMA loop, CPU time) and the sgemm rate
(numpy float32 1024 x 1024 matmul, one thread: the best of three calls in a row
each round, median over the rounds, with the allocator tuned). flash is timed the
same way right after sgemm in each round at T = 1024, 4096 and 16384, and the
sgemm target is the median over the rounds of the two rates' ratio. Every output is checked
against torch eager's in the same run, and numpy's and torch's sgemm against a
float64 product.

The opponent at its best: OpenBLAS picks its kernels once, when it loads, from
the CPU's model, and a CPU newer than the OpenBLAS build is unknown to it (it
falls back to old kernels; Debian's 0.3.21 runs Prescott's on a Xeon of family
6, model 207). So before numpy and torch load here, each kernel set this CPU
runs (/proc/cpuinfo's flags) is probed in a child process of its own (this
script with --probe): the automatic choice (OPENBLAS_CORETYPE unset), Haswell
(avx2, fma), SkylakeX (avx512f, avx512vl: OpenBLAS's own test) and Cooperlake
(avx512_bf16 too). Each times numpy's float32 1024^3 sgemm on one thread (the
best of 5 calls, 2 rounds; --quick: 3 calls, 1 round) and checks its products
against float64; the fastest right one is set in this process's environment
(OPENBLAS_L2_SIZE unset), numpy and torch load it, and the printout says which
and why. BENCH_KEEP_OPENBLAS_ENV=1 skips the race and keeps OPENBLAS_CORETYPE
and OPENBLAS_L2_SIZE as the environment has them. An sgemm under half the FMA
ceiling is a weak baseline: the targets against sgemm and torch then say
"weak" where they would say "met". It prints the OpenBLAS core it runs
(openblas_get_corename) and the OPENBLAS_* environment.
build/chapter8 runs as a child: first at T = 16384 and 65536 (H = 1, causal,
flash, the default limits) for its peak resident memory, before numpy and torch
load; at the end 5 times as a user runs it, q, k, v (1, 8, 4096, 64) from .npy
files to an --output file, for its printed kernel time against flash's rate in
the table and its whole process against its kernel.
Every line printed fits 80 columns.

Writes --csv (impl,causal,T,median_ms,gflops,peak_bytes plus the other figures,
for scripts/plot_ch08.py) and --log (everything printed). Exit status: 0 ok,
1 a missing module, library or program, or a wrong result, 2 usage error.
"""

import os

# Before numpy and torch load their BLAS: one thread. (OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE are set in main, by the race of kernel sets, before numpy loads.)
os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import ctypes  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402

FULL_TS = [256, 512, 1024, 2048, 4096, 8192, 16384]
QUICK_TS = [256, 1024, 4096]
TARGET_TS = (1024, 4096, 16384)  # where the sgemm target is checked
HEADS, HEAD_DIM = 8, 64
FULL_H_UP_TO = 4096  # above it, fewer heads: heads_for
HEADER = "%5s %-6s %-11s %8s %8s %8s %7s %9s %8s" % (
    "T", "causal", "version", "cpu ms", "tuned ms", "wall ms", "GFLOP/s", "extra mem", "max|diff|")


def heads_for(T):
    """H = 8 up to T = 4096; above, H * T^2 stays at most twice 8 * 4096^2 (2 at 8192, 1 at
    16384): each call does about the work of T = 4096, and torch's (H, T, T) score and weight
    buffers stay at 1 GiB each or less, so the big rows fit in memory and in the run's time."""
    if T <= FULL_H_UP_TO:
        return HEADS
    return max(1, HEADS * FULL_H_UP_TO * FULL_H_UP_TO // (T * T))
C_IMPLS = ["naive", "reordered", "tiled", "online", "flash"]
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_MMAP_MAX = -1, -3, -4
PROG = "bench_torch.py"

LOG = []


def say(line=""):
    print(line, flush=True)
    LOG.append(line + "\n")


def die(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(1)


# ---- the allocator ------------------------------------------------------------

class Allocator:
    def __init__(self):
        self.libc = ctypes.CDLL("libc.so.6")
        self.state = None

    def set(self, tuned):
        if tuned == self.state:
            return
        m = self.libc.mallopt
        if tuned:
            ok = m(M_MMAP_MAX, 0) and m(M_TRIM_THRESHOLD, 1 << 30)
        else:
            ok = m(M_MMAP_MAX, 65536) and m(M_MMAP_THRESHOLD, 32 << 20) and m(M_TRIM_THRESHOLD, 64 << 20)
            self.libc.malloc_trim(0)
        if not ok:
            die("mallopt() refused a setting: this glibc cannot be tuned from inside the process")
        self.state = tuned


# ---- machine facts ----------------------------------------------------------------

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def loaded_blas():
    """Shared libraries with blas/lapack in their name mapped into this process."""
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                base = os.path.basename(path).lower()
                if "blas" in base or "lapack" in base or "mkl" in base:
                    libs.add(path)
    except OSError:
        return ["(no /proc/self/maps)"]
    return sorted(libs)


def openblas_cores():
    """What each OpenBLAS mapped in this process says it runs: (library, its core (the
    kernels it chose, or was told to use by OPENBLAS_CORETYPE), its build configuration)."""
    out = []
    for path in loaded_blas():
        if "openblas" not in os.path.basename(path).lower():
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        facts = []
        for fn in ("openblas_get_corename", "openblas_get_config"):
            f = getattr(lib, fn, None)
            if f is not None:
                f.restype = ctypes.c_char_p
                facts.append((f() or b"?").decode(errors="replace"))
        if facts:
            out.append((os.path.basename(path), facts[0], "; ".join(facts[1:])))
    return out


SGEMM_SHAPES = ((257, 65, 129), (1, 1000, 3), (33, 1000, 17), (4096, 64, 64))


def sgemm_products(np, matmuls, a, b):
    """Each float32 matmul (name, f(x, y)) on (a, b) and on SGEMM_SHAPES against a float64
    product: [(name, "MxK @ KxN", max |diff|, allowed)], one per product."""
    rng = np.random.default_rng(10)
    cases = [(a, b)] + [(rng.standard_normal((m, k), dtype=np.float32),
                         rng.standard_normal((k, n), dtype=np.float32)) for m, k, n in SGEMM_SHAPES]
    out = []
    for x, y in cases:
        want = x.astype(np.float64) @ y.astype(np.float64)
        tol = 1e-5 * max(1.0, float(np.max(np.abs(want)))) * math.sqrt(x.shape[1])
        for who, f in matmuls:
            err = float(np.max(np.abs(f(x, y).astype(np.float64) - want)))
            out.append((who, "%dx%d @ %dx%d" % (x.shape[0], x.shape[1], y.shape[0], y.shape[1]), err, tol))
    return out


def check_sgemm(np, torch, a, b):
    """numpy's and torch's float32 matmul against a float64 product: the BLAS kernels the
    bench times must also be right. Returns a list of failures (empty when right)."""
    products = sgemm_products(np, (("numpy", lambda x, y: x @ y),
                                   ("torch", lambda x, y: torch.mm(torch.from_numpy(x), torch.from_numpy(y)).numpy())),
                              a, b)
    return ["%s sgemm %s: max |diff| %.3g from the float64 product (allowed %.3g)" % (who, shape, err, tol)
            for who, shape, err, tol in products if not err <= tol]


# ---- the opponent's kernels: OPENBLAS_CORETYPE raced in child processes ----------

# (OPENBLAS_CORETYPE, the /proc/cpuinfo flags it needs): OpenBLAS's own tests are
# AVX2 for Haswell, AVX512VL (with the OS saving zmm) for SkylakeX, AVX512_BF16 for Cooperlake
CORETYPES = (("Haswell", ("avx2", "fma")),
             ("SkylakeX", ("avx2", "fma", "avx512f", "avx512vl")),
             ("Cooperlake", ("avx2", "fma", "avx512f", "avx512vl", "avx512_bf16")))
AUTO = "(unset)"  # the automatic choice's name in the printout


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def coretype_candidates(flags):
    """The kernel sets to race on a CPU with these flags: None (OPENBLAS_CORETYPE unset,
    OpenBLAS's automatic choice) first, then every CORETYPES entry whose flags are all there."""
    return [None] + [name for name, need in CORETYPES if all(f in flags for f in need)]


def choose_coretype(probes):
    """probes: one dict per candidate (name: OPENBLAS_CORETYPE or None; core: what OpenBLAS
    said it runs, or None without OpenBLAS; gflops; right: its products match float64;
    error: why the child failed, or None). Returns (the OPENBLAS_CORETYPE to set, None for
    the automatic choice; why, as a few words). A name OpenBLAS did not take (it ran
    another core) is not that kernel set; between equal cores the automatic choice stays."""
    def took(p):
        return p["name"] is None or (p["core"] or "").lower() == p["name"].lower()
    auto = next((p for p in probes if p["name"] is None), None)
    if auto is not None and auto["error"] is None and auto["core"] is None:
        return None, "numpy loads no OpenBLAS: no kernel set to choose"
    ok = [p for p in probes if p["error"] is None and p["right"] and took(p)]
    if not ok:
        return None, "no kernel set gave a right sgemm: the automatic choice runs"
    best = max(ok, key=lambda p: p["gflops"])
    if auto in ok and auto["core"].lower() == best["core"].lower():
        return None, "the automatic choice: it runs %s, the fastest right sgemm" % auto["core"]
    why = "the fastest right sgemm"
    if auto is not None and auto["error"] is None and auto["gflops"] > 0:
        why += " (%.1fx the automatic choice, %s)" % (best["gflops"] / auto["gflops"], auto["core"])
    return best["name"], why


PROBE_N = 1024


def probe_main(calls):
    """The child of one candidate (this script with --probe CALLS; OPENBLAS_CORETYPE is in
    its environment when numpy loads): prints "CORE GFLOPS WORST", the core OpenBLAS runs
    ("-" without OpenBLAS), numpy's best sgemm rate over CALLS calls (1024^3, one thread,
    this thread's CPU time) and the worst product's max |diff| / allowed (right when <= 1)."""
    import numpy as np
    core = "-"
    for name, c, _ in openblas_cores():
        core = c
        break
    a = np.random.default_rng(8).standard_normal((PROBE_N, PROBE_N), dtype=np.float32)
    b = np.random.default_rng(9).standard_normal((PROBE_N, PROBE_N), dtype=np.float32)
    worst = max(err / tol for _, _, err, tol in sgemm_products(np, (("numpy", lambda x, y: x @ y),), a, b))
    best = 0.0
    for _ in range(calls):
        c0 = time.thread_time()
        a @ b
        best = max(best, 2.0 * PROBE_N ** 3 / max(time.thread_time() - c0, 1e-9) / 1e9)
    print("%s %.6g %.6g" % (core.replace(" ", "_"), best, worst))
    return 0


def probe(name, calls, env):
    """One candidate in a child process: the dict choose_coretype reads."""
    import subprocess
    env = dict(env)
    env.pop("OPENBLAS_CORETYPE", None)
    if name is not None:
        env["OPENBLAS_CORETYPE"] = name
    res = {"name": name, "core": None, "gflops": 0.0, "right": False, "error": None}
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--probe", str(calls)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        res["error"] = "did not run (%s)" % e.__class__.__name__
        return res
    words = r.stdout.decode(errors="replace").split()
    if r.returncode != 0 or len(words) != 3:
        res["error"] = ("killed by signal %d" % -r.returncode) if r.returncode < 0 else "exit %d" % r.returncode
        return res
    try:
        res["gflops"], worst = float(words[1]), float(words[2])
    except ValueError:
        res["error"] = "printed %r" % " ".join(words)[:30]
        return res
    res["core"] = None if words[0] == "-" else words[0]
    res["right"] = worst <= 1.0
    return res


def wrapped(text):
    """text as lines of at most 78 columns, the later ones indented by two."""
    return textwrap.wrap(text, 78, subsequent_indent="  ", break_on_hyphens=False)


def race_coretypes(quick, keep):
    """Before numpy loads here: choose OPENBLAS_CORETYPE (os.environ, which numpy and torch
    then load with). Returns (the lines that say how, for the printout; the kernel set
    numpy and torch should run, None for OpenBLAS's automatic choice)."""
    if keep:
        kept = ", ".join("%s=%s" % (k, os.environ[k]) for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
                         if k in os.environ) or "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset"
        return (wrapped("OpenBLAS kernel set: not raced, the environment's (BENCH_KEEP_OPENBLAS_ENV=1): %s"
                        % kept), os.environ.get("OPENBLAS_CORETYPE"))
    lines = []
    env_core = os.environ.pop("OPENBLAS_CORETYPE", None)
    os.environ.pop("OPENBLAS_L2_SIZE", None)
    flags = cpu_flags()
    names = coretype_candidates(flags)
    calls, rounds = (3, 1) if quick else (5, 2)
    runs = {n: [] for n in names}
    for _ in range(rounds):  # interleaved: a busy moment of the machine hits every candidate
        for n in names:
            runs[n].append(probe(n, calls, os.environ))
            if n is None and runs[n][-1]["error"] is None and runs[n][-1]["core"] is None:
                break  # no OpenBLAS: nothing to race
    probes = []
    for n in names:
        if not runs[n]:
            continue
        rs = runs[n]
        bad = [r["error"] for r in rs if r["error"]]
        probes.append({"name": n, "core": rs[0]["core"], "gflops": max(r["gflops"] for r in rs),
                       "right": all(r["right"] for r in rs), "error": bad[0] if bad else None})
    chosen, why = choose_coretype(probes)
    shown = [f for f in ("avx2", "fma", "avx512f", "avx512vl", "avx512_bf16") if f in flags]
    lines += wrapped("OpenBLAS kernel sets this CPU runs (/proc/cpuinfo: %s), raced before numpy and "
                     "torch load here, each in a child process: numpy sgemm 1024^3, one thread, the best "
                     "of %d calls, %d round%s, its products against float64 (%d shapes):"
                     % (" ".join(shown) or "none of avx2 avx512f", calls, rounds, "" if rounds == 1 else "s",
                        1 + len(SGEMM_SHAPES)))
    lines.append("  %-18s %-14s %8s  %s" % ("OPENBLAS_CORETYPE", "runs core", "GFLOP/s", "sgemm"))
    for p in probes:
        if p["error"]:
            verdict = p["error"]
        elif p["core"] is None:
            verdict = "no OpenBLAS"
        elif p["name"] is not None and p["core"].lower() != p["name"].lower():
            verdict = "not in this build"
        else:
            verdict = "right" if p["right"] else "WRONG"
        lines.append("  %-18s %-14s %8.1f  %s" % (p["name"] or AUTO, (p["core"] or "-")[:14], p["gflops"], verdict))
    if chosen is not None:
        os.environ["OPENBLAS_CORETYPE"] = chosen
    lines += wrapped("chosen: %s, %s" % ("OPENBLAS_CORETYPE=" + chosen if chosen else "OPENBLAS_CORETYPE unset",
                                         why))
    if env_core is not None and env_core != chosen:
        lines += wrapped("  (it replaces the environment's OPENBLAS_CORETYPE=%s for this run; "
                         "BENCH_KEEP_OPENBLAS_ENV=1 keeps that)" % env_core)
    return lines, chosen


def load_avg():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "?"


# ---- the C library ------------------------------------------------------------------

def load_lib(path):
    try:
        lib = ctypes.CDLL(os.path.abspath(path))
    except OSError as e:
        die("cannot load %s (make bench-torch builds it): %s" % (path, e))
    f32p = ctypes.POINTER(ctypes.c_float)
    dp = ctypes.POINTER(ctypes.c_double)
    lib.bench_set_inputs.argtypes = [ctypes.c_int64] * 4 + [f32p] * 3
    lib.bench_call.argtypes = [ctypes.c_int, ctypes.c_int, f32p, dp, dp, dp]
    lib.bench_fma_peak.argtypes = [ctypes.c_double]
    lib.bench_fma_peak.restype = ctypes.c_double
    lib.bench_scores_budget.restype = ctypes.c_double
    lib.bench_last_error.restype = ctypes.c_char_p
    lib.bench_impl_name.restype = ctypes.c_char_p
    lib.bench_set_threads.argtypes = [ctypes.c_int]
    lib.attn_register_tile.restype = ctypes.c_char_p
    return lib


def fptr(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_float))


class CVersion:
    def __init__(self, lib, impl, name, threads=1):
        self.lib, self.impl, self.name, self.threads = lib, impl, name, threads
        self.extra = 0.0

    def run(self, causal, out):
        cpu, wall, extra = ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
        if self.threads != 1:
            self.lib.bench_set_threads(self.threads)
        st = self.lib.bench_call(self.impl, int(causal), fptr(out) if out is not None else None,
                                 ctypes.byref(cpu), ctypes.byref(wall), ctypes.byref(extra))
        if self.threads != 1:
            self.lib.bench_set_threads(1)
        if st != 0:
            die("%s: %s" % (self.name, self.lib.bench_last_error().decode()))
        self.extra = extra.value
        return cpu.value, wall.value


class TorchVersion:
    def __init__(self, name, fn):
        self.name, self.fn = name, fn
        self.extra = None

    def run(self, causal, out):
        c0, w0 = time.thread_time(), time.perf_counter()
        o = self.fn()
        wall, cpu = time.perf_counter() - w0, time.thread_time() - c0
        if out is not None:
            out[...] = o.numpy()
        return cpu, wall


# ---- one table cell: (T, causal) --------------------------------------------------

def main():
    if sys.argv[1:2] == ["--probe"]:  # one candidate's child (race_coretypes)
        return probe_main(int(sys.argv[2]) if len(sys.argv) > 2 else 3)
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[1])
    p.add_argument("--lib", required=True, metavar="SO", help="build/libattn_bench.so")
    p.add_argument("--chapter8", metavar="PATH", help="build/chapter8, for the peak-memory runs")
    p.add_argument("--quick", action="store_true", help="T = 256, 1024 and 4096 only (also BENCH_QUICK=1)")
    p.add_argument("--ts", metavar="T,T,...", help="these sequence lengths instead")
    p.add_argument("--rounds", type=int, default=0, help="rounds per cell (default 7, 5 from T = 2048)")
    p.add_argument("--csv", metavar="FILE", help="the table for scripts/plot_ch08.py")
    p.add_argument("--log", metavar="FILE", help="a copy of everything printed")
    args = p.parse_args()
    if args.rounds < 0:
        p.error("--rounds must be >= 0")
    rss = memory_runs(args.chapter8) if args.chapter8 else []
    quick = args.quick or os.environ.get("BENCH_QUICK", "") not in ("", "0")
    import importlib.util
    for m in ("numpy", "torch"):
        if importlib.util.find_spec(m) is None:
            die("No module named '%s' for %s (PYTHON=... to choose another interpreter)" % (m, sys.executable))
    # OPENBLAS_CORETYPE is read once, when OpenBLAS loads: chosen before numpy and torch load
    race, chosen = race_coretypes(quick, os.environ.get("BENCH_KEEP_OPENBLAS_ENV", "") not in ("", "0"))
    try:
        import numpy as np
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        die("%s for %s (PYTHON=... to choose another interpreter)" % (e, sys.executable))
    max_seconds = float(os.environ.get("BENCH_MAX_SECONDS", "20") or 20)
    lib = load_lib(args.lib)
    lib.bench_set_threads(1)
    torch.set_num_threads(1)
    alloc = Allocator()
    sdpa_name, sdpa = None, None
    if hasattr(F, "scaled_dot_product_attention"):
        sdpa_name, sdpa = "F.scaled_dot_product_attention", lambda q, k, v, c: F.scaled_dot_product_attention(
            q, k, v, is_causal=c)
    elif hasattr(F, "_scaled_dot_product_attention"):
        sdpa_name, sdpa = "F._scaled_dot_product_attention", lambda q, k, v, c: F._scaled_dot_product_attention(
            q, k, v, None, 0.0, False, c)[0]

    # warm both BLAS up, then see which libraries they loaded
    a = np.random.default_rng(8).standard_normal((1024, 1024), dtype=np.float32)
    b = np.random.default_rng(9).standard_normal((1024, 1024), dtype=np.float32)
    a @ b
    torch.mm(torch.from_numpy(a), torch.from_numpy(b))
    say("Chapter 8 against PyTorch, one process (make bench-torch)")
    say("machine: %s, %d cores (os.cpu_count)" % (cpu_model()[:50], os.cpu_count()))
    say("load average at the start: %s" % load_avg())
    say("python %s, numpy %s, torch %s, %s" % (platform.python_version(), np.__version__,
                                               torch.__version__.split("+")[0], " ".join(platform.libc_ver())))
    for line in race:
        say(line)
    blas = loaded_blas()
    say("BLAS mapped in this process (numpy and torch):")
    say("  " + ", ".join(os.path.basename(p) for p in blas))
    cores = openblas_cores()
    for name, core, config in cores:
        say("OpenBLAS runs: core %s (%s)" % (core, name))
        for line in textwrap.wrap(config, 76):
            say("  " + line)
    if not cores:
        say("no OpenBLAS mapped: no core name to print")
    for name, core, _ in cores:
        if chosen and core.lower() != chosen.lower():
            say("NOTE: %s runs %s, not the %s chosen" % (name[:24], core[:12], chosen[:12]))
    if not any(("openblas" in os.path.basename(p).lower() or "mkl" in os.path.basename(p).lower())
               for p in blas):
        say("NOTE: no OpenBLAS or MKL: numpy and torch call the reference BLAS, a")
        say("  slow opponent (Debian: apt-get install libopenblas0-pthread)")
    ob = sorted("%s=%s" % (k, v) for k, v in os.environ.items() if k.startswith(("OPENBLAS_", "MALLOC_")))
    unset = [k for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k not in os.environ]
    for line in wrapped("environment: %s" % " ".join(ob)):  # 80 columns with both OPENBLAS_* set
        say(line)
    if unset:
        say("  unset: %s" % " ".join(unset))
    failures = check_sgemm(np, torch, a, b)
    say("sgemm checked against a float64 product (numpy and torch, 5 shapes): %s"
        % ("right" if not failures else "WRONG"))
    say("torch threads %d; C flash threads: 1 (2 for flash x2)" % torch.get_num_threads())
    say("C register tile: %s (the compiler's vector unit, chosen when built)"
        % lib.attn_register_tile().decode())
    say("torch's fastest paths here: bmm%s"
        % ((" and " + sdpa_name) if sdpa_name else " (no scaled_dot_product_attention)"))
    say("allocator: 'default' and 'tuned' (mallopt M_MMAP_MAX=0,")
    say("  M_TRIM_THRESHOLD=1 GiB) in this process, switched every half round")
    say()

    ceiling = [lib.bench_fma_peak(1.0)]
    sgemm, sgemm_first = [], []
    flash3 = {}  # T -> per round: (flash's fastest of three calls in a row, not causal, tuned; sgemm's rate)

    def measure_sgemm():
        # three calls back to back; the round's sample is the fastest (the first call after
        # the other contenders runs cold, ~20 % slower here): the opponent at its best
        rates = []
        for _ in range(3):
            c0 = time.thread_time()
            a @ b
            rates.append(2.0 * 1024 ** 3 / (time.thread_time() - c0) / 1e9)
        sgemm.append(max(rates))
        sgemm_first.append(rates[0])

    Ts = QUICK_TS if quick else FULL_TS
    if args.ts:
        try:
            Ts = [int(t) for t in args.ts.split(",")]
        except ValueError:
            p.error("--ts wants numbers like 256,1024")
        if any(t < 1 for t in Ts):
            p.error("--ts wants numbers >= 1")
    results = {}   # (name, causal, T) -> dict
    last_ms = {}   # (name, causal) -> (flops, cpu ms) for the time prediction
    say("cpu ms: median of this thread's CPU time per call, default allocator;")
    say("tuned ms: the same with the tuned allocator; wall ms: median wall time,")
    say("default allocator (flash x2: two threads, wall is its time).")
    say("GFLOP/s = the cost model 4*H*T*S*d (halved when causal) / cpu ms (wall ms")
    say("for flash x2). B = 1, d = 64; H = %d up to T = %d, fewer above (H*T^2 at" % (HEADS, FULL_H_UP_TO))
    say("most twice the one at T = %d), so torch's (H, T, T) buffers stay small." % FULL_H_UP_TO)
    for T in Ts:
        rounds = args.rounds or (7 if T < 2048 else 5)
        H = heads_for(T)
        say()
        say("T = %d, H = %d, %d round%s" % (T, H, rounds, "" if rounds == 1 else "s"))
        say(HEADER)
        for causal in (False, True):
            gen = torch.Generator().manual_seed(T * 2 + int(causal))
            q, k, v = (torch.randn(1, H, T, HEAD_DIM, generator=gen) for _ in range(3))
            qn, kn, vn = (np.ascontiguousarray(x.numpy()) for x in (q, k, v))
            lib.bench_set_inputs(1, H, T, HEAD_DIM, fptr(qn), fptr(kn), fptr(vn))
            mask = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
            scale = 1.0 / math.sqrt(HEAD_DIM)
            q3, k3t, v3 = q.view(H, T, HEAD_DIM), k.view(H, T, HEAD_DIM).transpose(1, 2), v.view(H, T, HEAD_DIM)
            sbuf, pbuf, obuf = torch.empty(H, T, T), torch.empty(H, T, T), torch.empty(H, T, HEAD_DIM)

            def eager():
                scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(HEAD_DIM)
                if causal:
                    scores = scores + mask
                return torch.matmul(scores.softmax(dim=-1), v)

            def bmm():
                if causal:
                    torch.baddbmm(mask, q3, k3t, beta=1.0, alpha=scale, out=sbuf)
                else:
                    torch.baddbmm(sbuf, q3, k3t, beta=0.0, alpha=scale, out=sbuf)
                torch.ops.aten._softmax.out(sbuf, -1, False, out=pbuf)
                torch.bmm(pbuf, v3, out=obuf)
                return obuf.view(1, H, T, HEAD_DIM)

            contenders = [CVersion(lib, i, n) for i, n in enumerate(C_IMPLS)]
            contenders.append(CVersion(lib, C_IMPLS.index("flash"), "flash x2", threads=2))
            contenders += [TorchVersion("torch eager", eager), TorchVersion("torch bmm", bmm)]
            if sdpa:
                contenders.append(TorchVersion("torch sdpa", lambda: sdpa(q, k, v, causal)))
            flops = 4.0 * H * T * T * HEAD_DIM * (0.5 if causal else 1.0)
            score_bytes = 4.0 * H * T * T
            run = []
            with torch.no_grad():
                want = eager().numpy().copy()
                for c in contenders:
                    if isinstance(c, CVersion) and lib.bench_stores_scores(c.impl) and \
                            score_bytes > lib.bench_scores_budget():
                        results[(c.name, causal, T)] = {"skipped": "scores > 512 MiB"}
                        continue
                    if isinstance(c, CVersion) and lib.bench_stores_scores(c.impl) and H < HEADS:
                        # its memory is H*T*T: with fewer heads it would not be comparable
                        results[(c.name, causal, T)] = {"skipped": "stores its scores; H < %d" % HEADS}
                        continue
                    prev = last_ms.get((c.name, causal))
                    if prev:
                        predicted = prev[1] * 1e-3 * flops / prev[0]
                        if predicted * 2 * rounds > max_seconds:
                            results[(c.name, causal, T)] = {"skipped": "~%.0f s a call" % predicted}
                            continue
                    out = np.empty_like(want)
                    alloc.set(False)
                    c.run(causal, out)  # warm-up, and the check against torch eager
                    diff = float(np.max(np.abs(out - want))) if out.size else 0.0
                    ok = np.allclose(out, want, rtol=1e-4, atol=1e-5)
                    if not ok:
                        failures.append("%s T=%d causal=%d: max |diff| %.3g" % (c.name, T, causal, diff))
                    run.append(c)
                    results[(c.name, causal, T)] = {"cpu": [], "wall": [], "cpu_t": [], "wall_t": [],
                                                    "diff": diff, "ok": ok, "heads": H}
                flash = next((c for c in run if c.name == "flash"), None)
                for r in range(rounds):
                    alloc.set(True)
                    measure_sgemm()
                    if flash and not causal and T in TARGET_TS:
                        # flash timed the way sgemm is, right after it: three calls in a row, the
                        # fastest counts. The single calls below are timed like every contender.
                        best = min(flash.run(False, None)[0] for _ in range(3))
                        flash3.setdefault(T, []).append((flops / best / 1e9, sgemm[-1]))
                    ceiling.append(lib.bench_fma_peak(0.1))
                    for tuned in (False, True):
                        alloc.set(tuned)
                        for c in run:
                            cpu, wall = c.run(causal, None)
                            res = results[(c.name, causal, T)]
                            res["cpu_t" if tuned else "cpu"].append(cpu)
                            res["wall_t" if tuned else "wall"].append(wall)
            del sbuf, pbuf, obuf
            alloc.set(False)
            for c in contenders:
                res = results[(c.name, causal, T)]
                if "skipped" in res:
                    say("%5d %-6s %-11s  skipped (%s)" % (T, "yes" if causal else "no", c.name, res["skipped"]))
                    continue
                for key in ("cpu", "wall", "cpu_t", "wall_t"):
                    res[key + "_ms"] = 1e3 * statistics.median(res[key])
                two = c.name == "flash x2"
                res["ms"] = res["wall_ms"] if two else res["cpu_ms"]
                res["ms_t"] = res["wall_t_ms"] if two else res["cpu_t_ms"]
                res["gflops"] = flops / (res["ms"] * 1e-3) / 1e9
                res["gflops_t"] = flops / (res["ms_t"] * 1e-3) / 1e9
                res["extra"] = c.extra
                res["rounds"] = len(res["cpu"])
                last_ms[(c.name, causal)] = (flops, res["cpu_ms"])
                say("%5d %-6s %-11s %8.2f %8.2f %8.2f %7.1f %9s %8.2g%s" % (
                    T, "yes" if causal else "no", c.name, res["cpu_ms"], res["cpu_t_ms"], res["wall_ms"],
                    res["gflops"], mib(c.extra), res["diff"], "" if res["ok"] else " WRONG"))
    peak = max(ceiling)
    sg = statistics.median(sgemm)
    say()
    say("ceiling: %.1f GFLOP/s (the best FMA-loop run, CPU time, %d runs)" % (peak, len(ceiling)))
    say("sgemm: %.1f GFLOP/s = %.0f%% of the ceiling (numpy 1024^3, one thread, the" % (sg, pct(sg, peak)))
    say("  median over %d rounds of the best of 3 calls in a row; the first call" % len(sgemm))
    say("  of each round alone: %.1f)" % statistics.median(sgemm_first))
    weak = sg < 0.5 * peak
    if weak:
        say("WEAK BASELINE: sgemm is under half the ceiling, so beating it shows")
        say("  little: the targets against sgemm and torch below say 'weak' where")
        say("  they would say 'met'")
    else:
        say("baseline: sgemm is at least half the ceiling, a strong opponent")
    over = [(n, c, T, r["gflops"]) for (n, c, T), r in results.items() if "gflops" in r and n != "flash x2"
            and r["gflops"] > peak]
    for n, c, T, g in over:
        say("NOTE: %s T=%d causal=%d ran at %.1f GFLOP/s, above the measured" % (n, T, c, g))
        say("  ceiling: the ceiling is wrong")

    procs = process_runs(args.chapter8, np) if args.chapter8 and 4096 in Ts else []
    summary(results, Ts, peak, sg, rss, flash3, procs, weak)
    say("load average at the end: %s" % load_avg())
    if args.csv:
        write_csv(args.csv, results, Ts)
        say("wrote %s" % args.csv)
    if failures:
        for f in failures:
            say("WRONG RESULT: " + f)
    if args.log:
        with open(args.log + ".tmp", "w") as f:
            f.writelines(LOG)
        os.replace(args.log + ".tmp", args.log)
    return 1 if failures else 0


def pct(x, of):
    """x as a percentage of `of`, never printed above 100 (the caller says why)."""
    return min(100.0, 100.0 * x / of) if of > 0 else 0.0


def mib(b):
    if b is None:
        return "-"
    return "%.0f KiB" % (b / 1024) if b < 1 << 20 else "%.1f MiB" % (b / (1 << 20))


def memory_runs(chapter8):
    """Peak resident memory of build/chapter8 --impl flash --causal, H = 1, d = 64, as a child.

    Run first, before numpy and torch are imported: Linux keeps a process's peak RSS
    across exec, so a child started from a big process would report the parent's."""
    import resource
    import subprocess
    out = []
    for T in (16384, 65536):
        argv = [chapter8, "--quiet", "--impl", "flash", "--causal", "--heads", "1", "--d-k", "64",
                "--seq-len", str(T)]
        t0 = time.perf_counter()
        try:
            # with the default limits: the chapter's time budget must let T = 65536 run
            child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        except OSError as e:
            die("cannot run %s: %s" % (chapter8, e))
        _, status, ru = os.wait4(child.pid, 0)
        secs = time.perf_counter() - t0
        err = child.stderr.read().decode(errors="replace").strip().splitlines()
        child.stderr.close()
        code = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0
        out.append((T, ru.ru_maxrss * 1024.0, secs, code, ru.ru_utime + ru.ru_stime, own, err[:1]))
    return out


def process_runs(chapter8, np, runs=5):
    """build/chapter8 as a user runs it: q, k, v (1, 8, 4096, 64) from .npy files, --output
    FILE --quiet, flash, one thread, `runs` times. Returns (its printed kernel ms, its printed
    whole-process ms, the wall time this process saw from fork to exit) per run; [] when it
    fails (said)."""
    import subprocess
    import tempfile
    out = []
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, name in enumerate(("q", "k", "v")):
            x = np.random.default_rng(20 + i).standard_normal((1, HEADS, 4096, HEAD_DIM), dtype=np.float32)
            paths.append(os.path.join(d, name + ".npy"))
            np.save(paths[-1], x)
        argv = [chapter8, "--q", paths[0], "--k", paths[1], "--v", paths[2], "--output",
                os.path.join(d, "out.npy"), "--quiet"]
        env = dict(os.environ, OMP_NUM_THREADS="1")
        for _ in range(runs):
            t0 = time.perf_counter()
            try:
                r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            except OSError as e:
                say("cannot run %s: %s" % (chapter8, e))
                return []
            wall = time.perf_counter() - t0
            # the program's own last line (ours, trusted): "kernel: X ms (Y GFLOP/s); whole process so far: Z ms"
            last = r.stdout.decode(errors="replace").strip().splitlines()[-1:] or [""]
            words = last[0].replace("(", " ").replace(";", " ").split()
            if r.returncode != 0 or len(words) < 9 or words[0] != "kernel:":
                say("%s did not run as expected (exit %d): %s" % (chapter8, r.returncode,
                                                                 r.stderr.decode(errors="replace")[:200]))
                return []
            out.append((float(words[1]), float(words[-2]), 1e3 * wall))
    return out


def summary(results, Ts, peak, sg, rss, flash3, procs, weak):
    def get(name, causal, T, key="ms"):
        r = results.get((name, causal, T), {})
        return r.get(key)

    def met(ok):
        return "met" if ok else "NOT MET"

    def met_vs_baseline(ok):
        # a target against sgemm or torch (OpenBLAS's sgemm inside): beating a weak one is no proof
        return ("weak" if weak else "met") if ok else "NOT MET"

    say()
    say("Targets (one thread unless said; medians of this run):")
    rows = [T for T in TARGET_TS if T in Ts and flash3.get(T)]
    if rows:
        say("flash / sgemm, not causal, tuned allocator: flash's fastest of 3 calls")
        say("right after sgemm's 3, the median over the rounds of the round's ratio")
        say("(target >= 0.85x):")
        for T in rows:
            # Like with like: sgemm's rate is the fastest of three calls in a row, with the
            # allocator tuned; flash is timed the same way right after it, in the same round,
            # and the target is the median over the rounds of flash's rate / sgemm's rate of
            # that round (a neighbour that slows the machine for a while slows both).
            ratio = statistics.median(f / s for f, s in flash3[T])
            g3 = statistics.median(f for f, _ in flash3[T])
            say("  T = %5d: %.2fx  %-7s (%.1f vs sgemm %.1f GFLOP/s, %d round%s)"
                % (T, ratio, met_vs_baseline(ratio >= 0.85), g3, sg, len(flash3[T]),
                   "" if len(flash3[T]) == 1 else "s"))
        say("  flash's one call a round (after the other contenders), against the")
        say("  median sgemm: " + ", ".join("T = %d %.2fx" % (T, get("flash", False, T, "gflops_t") / sg)
                                          for T in rows if get("flash", False, T, "gflops_t")))
    lines = []
    for T in TARGET_TS:
        for causal in (False, True):
            need = 3.0 if causal else 1.5
            f_t, f_d = get("flash", causal, T, "ms_t"), get("flash", causal, T, "ms")
            if not f_t:
                continue
            best = min(((get(n, causal, T, "ms_t"), n) for n in ("torch eager", "torch bmm", "torch sdpa")
                        if get(n, causal, T, "ms_t")), default=None)
            best_d = min((get(n, causal, T, "ms") for n in ("torch eager", "torch bmm", "torch sdpa")
                          if get(n, causal, T, "ms")), default=None)
            if best:
                lines.append((T, causal, f_t, best, need, best_d / f_d if best_d else 0.0))
    if lines:
        say("flash against torch's fastest path, tuned allocator (target >= 1.5x,")
        say("causal >= 3x; in brackets: with glibc's default allocator):")
        for T, causal, f_t, best, need, dflt in lines:
            r = best[0] / f_t
            say("  T = %5d %-10s %8.2f vs %8.2f ms (%s) = %5.2fx %s (%.2fx)" % (
                T, "causal:" if causal else "not causal:", f_t, best[0], best[1].replace("torch ", ""), r,
                met_vs_baseline(r >= need), dflt))
    if 4096 in Ts:
        one, two = get("flash", False, 4096, "wall_ms"), get("flash x2", False, 4096, "wall_ms")
        if one and two:
            say("two threads, flash at T = 4096, not causal, wall time (target >= 1.8x):")
            say("  %.1f ms on one, %.1f ms on two = %.2fx  %s" % (one, two, one / two, met(one / two >= 1.8)))
    if procs:
        kernel = statistics.median(k for k, _, _ in procs)
        whole = statistics.median(w for _, w, _ in procs)
        outside = statistics.median(o for _, _, o in procs)
        g = 4.0 * HEADS * 4096 * 4096 * HEAD_DIM / (kernel * 1e-3) / 1e9
        ref = get("flash", False, 4096, "gflops")
        say("build/chapter8 as a user runs it: --q --k --v (1, 8, 4096, 64) .npy")
        say("files, --output FILE --quiet, %d runs (medians):" % len(procs))
        if ref:
            say("  its kernel: %.2f ms, %.1f GFLOP/s = %.2fx flash's rate in the table" % (kernel, g, g / ref))
            say("    (target: within 10%%)  %s" % met(abs(g / ref - 1) <= 0.10 or g > ref))
        say("  its whole process: %.2f ms = %.2fx its kernel (target <= 1.25x)  %s"
            % (whole, whole / kernel, met(whole / kernel <= 1.25)))
        say("  seen from outside (start to exit): %.2f ms" % outside)
    if rss:
        say("peak RSS, build/chapter8 --quiet --impl flash --causal --heads 1, d = 64,")
        say("default limits, run before numpy and torch were loaded:")
    for T, rss_b, secs, code, cpu, own, err in rss:
        limit = 32 if T == 16384 else 96
        say("  T = %5d: %.1f MiB (target < %d MiB)  %s; exit %d, %.1f s wall%s" % (
            T, rss_b / 1048576.0, limit, met(rss_b < limit * 1048576.0 and code == 0), code, secs,
            (": " + err[0][:60]) if err and code else ""))


def write_csv(path, results, Ts):
    cols = ["impl", "causal", "T", "median_ms", "gflops", "peak_bytes", "tuned_ms", "wall_ms", "max_abs_diff",
            "heads"]
    lines = [",".join(cols) + "\n"]
    names = []
    for (n, c, T) in results:
        if n not in names:
            names.append(n)
    for n in names:
        for causal in (False, True):
            for T in Ts:
                r = results.get((n, causal, T), {})
                if "ms" not in r:
                    continue
                extra = "" if r.get("extra") is None else "%d" % r["extra"]
                lines.append("%s,%d,%d,%.4f,%.3f,%s,%.4f,%.4f,%.3g,%d\n" % (
                    n, int(causal), T, r["ms"], r["gflops"], extra, r["ms_t"], r["wall_ms"], r["diff"], r["heads"]))
    with open(path + ".tmp", "w") as f:
        f.writelines(lines)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
