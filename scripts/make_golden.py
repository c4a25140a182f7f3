#!/usr/bin/env python3
"""make_golden.py -- write the PyTorch golden fixtures that the C tests compare with.

Usage:
    python3 scripts/make_golden.py [--out tests/fixtures] [--only NAME]

The fixtures are .npy files (float32, little-endian, C order) computed by
PyTorch. They are committed, so `make test` needs no Python; run this script
(or `make golden`) only to regenerate them after changing a golden module.

Interface of a golden module
----------------------------
Every file scripts/golden/<stem>.py (not starting with "_") is a golden
module; they run in sorted order of <stem>. A module defines:

    NAME = "common"          # subfolder of --out it writes into
    SEED = 1234              # optional; its own fixed seed (see below)

    def make(out_dir, save):
        torch.manual_seed(SEED)          # first line: fixed seed per module
        a = torch.randn(3, 4)
        save("matmul_2d_a", a)           # -> <out_dir>/matmul_2d_a.npy
        ...

* out_dir is the folder <--out>/<NAME>/ (already created). Write only there,
  and only through save.
* save(relpath, x) takes a torch.Tensor or anything numpy.asarray accepts
  (bool and integer tensors become 0.0/1.0/...), converts it with
  np.ascontiguousarray(x, dtype='<f4') and writes it with numpy.save.
  relpath is relative to out_dir, uses "/" and may name a subfolder;
  ".npy" is appended when missing. Each relpath may be saved once per run.
  Files are written to a temporary name and renamed into place.
* Determinism: call torch.manual_seed(<fixed number>) at the start of make
  and compute in torch.float32 (the default dtype, set by this script),
  so that the fixtures are what PyTorch float32 gives and a rerun produces
  byte-identical files. Draw new random inputs after the existing ones
  (append new fixtures at the end of make) so existing fixtures keep their
  values. Never use time, os.urandom or unseeded numpy.random.
* Keep each fixture small (under 20 KB); this script warns about bigger ones.
* --only NAME runs the modules whose NAME (or file stem) is NAME.

The script prints one line per module: its NAME, the number of files written
and the folder. Exit status: 0 ok, 1 runtime error (PyTorch missing, a
module failed), 2 usage error.
"""

import argparse
import importlib
import os
import sys

SCRIPTS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(SCRIPTS_DIR)
GOLDEN_DIR = os.path.join(SCRIPTS_DIR, "golden")
MAX_FIXTURE_BYTES = 20 * 1024


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="make_golden.py",
        description="Write the PyTorch golden fixtures (.npy float32) for the C tests.")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="fixtures folder (default: tests/fixtures of this repository)")
    p.add_argument("--only", default=None, metavar="NAME",
                   help="run only the golden module with this NAME (or file stem)")
    return p.parse_args(argv)


def discover():
    """Import scripts/golden/<stem>.py for every stem, sorted."""
    stems = sorted(f[:-3] for f in os.listdir(GOLDEN_DIR)
                   if f.endswith(".py") and not f.startswith("_"))
    sys.dont_write_bytecode = True          # no __pycache__ in scripts/golden/
    if SCRIPTS_DIR not in sys.path:
        sys.path.insert(0, SCRIPTS_DIR)
    modules = []
    for stem in stems:
        mod = importlib.import_module("golden." + stem)
        name = getattr(mod, "NAME", None)
        if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
            raise RuntimeError("golden/%s.py: NAME must be a folder name such as \"common\"" % stem)
        if not callable(getattr(mod, "make", None)):
            raise RuntimeError("golden/%s.py: it defines no make(out_dir, save)" % stem)
        modules.append((stem, mod))
    return modules


def make_saver(out_dir, np, torch, written):
    """Return save(relpath, x) writing into out_dir; records files in `written`."""

    def save(relpath, x):
        if not relpath.endswith(".npy"):
            relpath += ".npy"
        parts = relpath.split("/")
        if os.path.isabs(relpath) or any(p in ("", ".", "..") for p in parts):
            raise ValueError("save: %r is not a plain relative path" % relpath)
        if relpath in written:
            raise ValueError("save: %s is saved twice" % relpath)
        if isinstance(x, torch.Tensor):
            x = x.detach().cpu()
            if x.dtype == torch.bool:
                x = x.to(torch.float32)
            x = x.numpy()
        arr = np.ascontiguousarray(x, dtype="<f4")
        path = os.path.join(out_dir, *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = "%s.tmp.%d" % (path, os.getpid())
        try:
            with open(tmp, "wb") as f:
                np.save(f, arr, allow_pickle=False)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        size = os.path.getsize(path)
        if size > MAX_FIXTURE_BYTES:
            print("make_golden.py: warning: %s is %d bytes (keep fixtures under %d)"
                  % (relpath, size, MAX_FIXTURE_BYTES), file=sys.stderr)
        written[relpath] = size

    return save


def main(argv):
    args = parse_args(argv)
    try:
        import torch
    except ImportError:
        print("make_golden.py needs PyTorch: apt-get install python3-torch (Debian) "
              "or pip install torch", file=sys.stderr)
        return 1
    try:
        import numpy as np
    except ImportError:
        print("make_golden.py needs NumPy: apt-get install python3-numpy (Debian) "
              "or pip install numpy", file=sys.stderr)
        return 1

    out_root = args.out if args.out is not None else os.path.join(REPO_DIR, "tests", "fixtures")
    shown_root = args.out if args.out is not None else os.path.join("tests", "fixtures")

    try:
        modules = discover()
    except Exception as e:  # a broken module: one sentence, not a traceback
        print("make_golden.py: %s" % e, file=sys.stderr)
        return 1
    if args.only is not None:
        modules = [(s, m) for s, m in modules if args.only in (s, m.NAME)]
        if not modules:
            print("make_golden.py: no golden module named %r (see scripts/golden/)"
                  % args.only, file=sys.stderr)
            return 2

    # Same arithmetic on every run: float32, one thread, deterministic kernels.
    torch.set_default_dtype(torch.float32)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    for stem, mod in modules:
        out_dir = os.path.join(out_root, mod.NAME)
        os.makedirs(out_dir, exist_ok=True)
        written = {}
        torch.manual_seed(0)    # the module sets its own seed; this is a safety net
        try:
            mod.make(out_dir, make_saver(out_dir, np, torch, written))
        except Exception as e:
            print("make_golden.py: golden/%s.py failed: %s: %s"
                  % (stem, type(e).__name__, e), file=sys.stderr)
            return 1
        total = sum(written.values())
        print("%s: %d files (%d bytes) written to %s"
              % (mod.NAME, len(written), total, os.path.join(shown_root, mod.NAME)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
