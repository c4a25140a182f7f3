#!/usr/bin/env python3
"""test_bench_torch.py -- the kernel-set race of scripts/bench_torch.py, without timing.

Usage:
    python3 scripts/test_bench_torch.py          the choice on made-up probes (no numpy)
    python3 scripts/test_bench_torch.py --live   also probe this machine's kernel sets
                                                 (needs numpy; prints the race, asserts
                                                 only what does not depend on speed)

Which kernel sets a CPU's flags allow, and which one the race chooses from its
probes: the fastest right sgemm; never a wrong one, a failed child or a name
OpenBLAS did not take; the automatic choice when it runs the winner's core.
Exit 0 when every check holds, else 1 naming the first that does not.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_torch as bt  # noqa: E402

FAILED = []


def check(what, got, want):
    if got != want:
        FAILED.append("%s: got %r, want %r" % (what, got, want))


def p(name, core, gflops, right=True, error=None):
    return {"name": name, "core": core, "gflops": gflops, "right": right, "error": error}


def main():
    # the candidates from /proc/cpuinfo's flags
    check("no AVX2", bt.coretype_candidates({"sse2", "avx"}), [None])
    check("AVX2 without FMA", bt.coretype_candidates({"avx", "avx2"}), [None])
    check("AVX2", bt.coretype_candidates({"avx", "avx2", "fma"}), [None, "Haswell"])
    check("AVX-512F without VL", bt.coretype_candidates({"avx2", "fma", "avx512f"}), [None, "Haswell"])
    check("AVX-512", bt.coretype_candidates({"avx2", "fma", "avx512f", "avx512vl"}), [None, "Haswell", "SkylakeX"])
    check("AVX-512 BF16", bt.coretype_candidates({"avx2", "fma", "avx512f", "avx512vl", "avx512_bf16"}),
          [None, "Haswell", "SkylakeX", "Cooperlake"])
    check("BF16 without AVX-512F", bt.coretype_candidates({"avx2", "fma", "avx512_bf16"}), [None, "Haswell"])

    # the choice
    newer = [p(None, "Prescott", 21.0), p("Haswell", "Haswell", 70.0), p("SkylakeX", "SkylakeX", 120.0),
             p("Cooperlake", "Cooperlake", 140.0)]
    check("a CPU newer than the build: the fastest", bt.choose_coretype(newer)[0], "Cooperlake")
    check("... and why", bt.choose_coretype(newer)[1],
          "the fastest right sgemm (6.7x the automatic choice, Prescott)")
    known = [p(None, "Cooperlake", 139.0), p("Haswell", "Haswell", 70.0), p("SkylakeX", "SkylakeX", 120.0),
             p("Cooperlake", "Cooperlake", 141.0)]
    check("the automatic choice runs the winner's core: left unset", bt.choose_coretype(known)[0], None)
    wrong = [p(None, "Prescott", 21.0), p("Haswell", "Haswell", 70.0), p("SkylakeX", "SkylakeX", 120.0, right=False)]
    check("a wrong sgemm is never chosen", bt.choose_coretype(wrong)[0], "Haswell")
    crashed = [p(None, "Prescott", 21.0), p("SkylakeX", None, 0.0, right=False, error="killed by signal 4")]
    check("a child that died is never chosen", bt.choose_coretype(crashed)[0], None)
    untaken = [p(None, "Prescott", 21.0), p("Cooperlake", "SkylakeX", 130.0)]
    check("a name OpenBLAS did not take is not chosen", bt.choose_coretype(untaken)[0], None)
    check("case of the core's name", bt.choose_coretype([p(None, "Prescott", 1.0), p("SkylakeX", "SKYLAKEX", 9.0)])[0],
          "SkylakeX")
    allbad = [p(None, "Prescott", 21.0, right=False), p("Haswell", "Haswell", 70.0, right=False)]
    check("none right: automatic, said", bt.choose_coretype(allbad),
          (None, "no kernel set gave a right sgemm: the automatic choice runs"))
    check("no OpenBLAS", bt.choose_coretype([p(None, None, 5.0)]),
          (None, "numpy loads no OpenBLAS: no kernel set to choose"))
    check("the automatic choice's child failed, another right", bt.choose_coretype(
        [p(None, None, 0.0, right=False, error="exit 1"), p("Haswell", "Haswell", 70.0)])[0], "Haswell")

    # every line the race prints fits 80 columns, the longest names included
    lines = bt.wrapped("chosen: OPENBLAS_CORETYPE=Cooperlake, " + bt.choose_coretype(newer)[1])
    check("wrapped lines fit 80 columns", [x for x in lines if len(x) > 80], [])

    if "--live" in sys.argv[1:]:
        saved = dict(os.environ)
        try:
            lines, chosen = bt.race_coretypes(True, False)
            for line in lines:
                print(line)
            check("live: every line fits 80 columns", [x for x in lines if len(x) > 80], [])
            check("live: the environment says the choice", os.environ.get("OPENBLAS_CORETYPE"), chosen)
            # which set wins depends on the machine's speed at that moment: not checked
            check("live: the choice is one of the candidates",
                  chosen in bt.coretype_candidates(bt.cpu_flags()), True)
            # a child that fails (here: a numpy that will not import) is a failed candidate
            import tempfile
            with tempfile.TemporaryDirectory() as d:
                with open(os.path.join(d, "numpy.py"), "w") as f:
                    f.write("raise ImportError('planted')\n")
                r = bt.probe("Haswell", 1, dict(saved, PYTHONPATH=d))
            check("live: a child that fails", (r["error"], r["right"]), ("exit 1", False))
            check("live: ... is not chosen", bt.choose_coretype([p(None, "Prescott", 1.0), r])[0], None)
            os.environ.clear()
            os.environ.update(saved)
            os.environ["BENCH_KEEP_OPENBLAS_ENV"] = "1"
            os.environ["OPENBLAS_CORETYPE"] = "Haswell"
            lines, chosen = bt.race_coretypes(True, True)
            check("live: kept, not raced", chosen, "Haswell")
            check("live: kept says so", "not raced" in " ".join(lines), True)
        finally:
            os.environ.clear()
            os.environ.update(saved)

    for f in FAILED:
        print("FAILED: " + f, file=sys.stderr)
    print("test_bench_torch: %d failed" % len(FAILED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
