#!/usr/bin/env python3
"""bench_ch13.py -- chapter 13's training step and decode against PyTorch (make bench-chapter13).

Usage:
    python3 scripts/bench_ch13.py --chapter13 build/chapter13 [--quick] [--rounds N]
                                  [--steps N] [--dim D --vocab V --batch B --seq-len T]
                                  [--log FILE]

The model is chapter 13's default configuration (dim 64, 2 layers, 4 query
heads over 2 key/value heads, hidden_dim 192, vocab 2500, seq_len 64, a tied
head), Happy-LLM 5.1's Transformer as scripts/golden/ch13.py restates it, in
float32, initialised N(0, 0.02) after torch.manual_seed(13). It is written as
llama2.c's .bin and C reads that file, so both sides train the same weights on
the same batch of 16 x 64 random token ids:

  train   one training step: the forward, F.cross_entropy, loss.backward(),
          clip_grad_norm_(1.0), AdamW (lr 3e-3, betas 0.9, 0.95, weight
          decay 0.1 on the matrices) -- C: build/chapter13 --checkpoint M.bin
          --batch-tokens B.npy --bench N (train_step in train.c);
          PyTorch: the same lines, torch.optim.AdamW with two parameter groups
  decode  greedy decoding of 63 tokens after the batch's first token -- C:
          chapter 11's KV cache (generate in inspect.c); PyTorch: k_model.py's
          generate, the full forward of everything so far for each new token
          (the book's model has no cache)

One thread: torch.set_num_threads(1) and OPENBLAS_NUM_THREADS=1; the C program
is plain C99 on one thread. Each round runs the C program once (N steps and N
decodes, its best of each) and then PyTorch's N steps and N decodes in this
process; times are processor time (C: clock(); PyTorch: time.process_time()),
and each side's figure is its best over every step of every round (both at
their best). The table gives tokens per second and C's over PyTorch's.
--quick (or BENCH_QUICK=1): one round of 3 steps. Nothing here is asserted: the
test (tests/test_bench_ch13.sh) checks that it runs and that its rows parse.
"""

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden"))
from ch13 import Config, Transformer, legacy_export  # noqa: E402


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def vector_unit():
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((ln.split(":", 1)[1].split() for ln in f if ln.startswith("flags")), [])
    except OSError:
        flags = []
    for name, flag in (("AVX-512", "avx512f"), ("AVX2", "avx2"), ("AVX", "avx"), ("SSE2", "sse2")):
        if flag in flags:
            return name
    return "NEON" if platform.machine() in ("aarch64", "arm64") else "unknown"


def torch_train_steps(model, opt, X, Y, steps):
    best = float("inf")
    V = model.args.vocab_size
    for _ in range(steps):
        t0 = time.process_time()
        logits = model(X)
        loss = F.cross_entropy(logits.view(-1, V), Y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        best = min(best, time.process_time() - t0)
    return best


@torch.no_grad()
def torch_decode(model, first, n_new, steps):
    best = float("inf")
    for _ in range(steps):
        t0 = time.process_time()
        idx = first.clone()
        for _ in range(n_new):   # k_model.py's generate: the whole sequence again for each token
            logits = model(idx)[:, -1, :]
            idx = torch.cat((idx, logits.argmax(dim=-1, keepdim=True)), dim=1)
        best = min(best, time.process_time() - t0)
    return best


def run_c(chapter13, model_bin, batch_npy, steps):
    r = subprocess.run([chapter13, "--checkpoint", model_bin, "--batch-tokens", batch_npy, "--bench", str(steps),
                        "--quiet"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s --bench failed (exit %d): %s" % (chapter13, r.returncode, r.stderr.strip()))
    train = decode = None
    for line in r.stdout.splitlines():
        if line.startswith("train step: best "):
            train = float(line.split()[3]) / 1e3
        elif line.startswith("decode: best "):
            decode = float(line.split()[2]) / 1e3
    if train is None or decode is None:
        raise RuntimeError("%s --bench printed no 'train step:' and 'decode:' lines: %r" % (chapter13, r.stdout))
    return train, decode


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chapter13", required=True, help="build/chapter13")
    ap.add_argument("--quick", action="store_true", help="one round of 3 steps")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=10, help="training steps and decodes per side per round")
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--vocab", type=int, default=2500)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seq-len", type=int, default=64)
    ap.add_argument("--log", help="also write the table to FILE")
    a = ap.parse_args()
    if a.quick or os.environ.get("BENCH_QUICK"):
        a.rounds, a.steps = 1, 3
    for name in ("rounds", "steps", "dim", "vocab", "batch", "seq_len"):
        if getattr(a, name) < 1:
            ap.error("--%s must be >= 1" % name.replace("_", "-"))
    if a.dim % 4:
        ap.error("--dim must be a multiple of 4 (4 query heads)")
    if not os.access(a.chapter13, os.X_OK):
        print("bench_ch13.py: %s is not a program (make build/chapter13)" % a.chapter13, file=sys.stderr)
        return 1
    torch.set_num_threads(1)
    torch.manual_seed(13)
    cfg = Config(a.dim, 2, 4, 2, a.vocab, a.seq_len, multiple_of=32)
    model = Transformer(cfg)
    with torch.no_grad():
        for p in model.parameters():
            if p.ndim == 2:
                p.normal_(0.0, 0.02)
    batch = torch.randint(0, a.vocab, (a.batch, a.seq_len + 1), dtype=torch.int64)
    with tempfile.TemporaryDirectory() as d:
        model_bin, batch_npy = os.path.join(d, "model.bin"), os.path.join(d, "batch.npy")
        with open(model_bin, "wb") as f:
            f.write(legacy_export(model))
        np.save(batch_npy, batch.numpy().astype("<i4"))
        X, Y = batch[:, :-1].contiguous(), batch[:, 1:].contiguous()
        decay = [p for p in model.parameters() if p.ndim == 2]
        no_decay = [p for p in model.parameters() if p.ndim < 2]
        opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                                lr=3e-3, betas=(0.9, 0.95), eps=1e-8)
        best = {"c_train": float("inf"), "c_decode": float("inf"), "t_train": float("inf"), "t_decode": float("inf")}
        for _ in range(a.rounds):
            try:
                ct, cd = run_c(a.chapter13, model_bin, batch_npy, a.steps)
            except RuntimeError as e:
                print("bench_ch13.py: %s" % e, file=sys.stderr)
                return 1
            best["c_train"], best["c_decode"] = min(best["c_train"], ct), min(best["c_decode"], cd)
            best["t_train"] = min(best["t_train"], torch_train_steps(model, opt, X, Y, a.steps))
            best["t_decode"] = min(best["t_decode"], torch_decode(model, X[:1, :1], a.seq_len - 1, a.steps))
    n_train, n_dec = a.batch * a.seq_len, a.seq_len - 1
    lines = [
        "chapter 13: a training step and a decode, C and PyTorch %s, one thread" % torch.__version__,
        "CPU: %s, vector unit %s; %d round(s) of %d steps, each side's best" % (cpu_name(), vector_unit(),
                                                                                  a.rounds, a.steps),
        "model: dim %d, 2 layers, 4 heads over 2 kv heads, vocab %d; batch %d x %d" % (a.dim, a.vocab, a.batch,
                                                                                     a.seq_len),
        "",
        "%-8s %14s %14s %8s" % ("what", "C tokens/s", "torch tok/s", "C/torch"),
        "%-8s %14.0f %14.0f %8.2f" % ("train", n_train / best["c_train"], n_train / best["t_train"],
                                      best["t_train"] / best["c_train"]),
        "%-8s %14.0f %14.0f %8.2f" % ("decode", n_dec / best["c_decode"], n_dec / best["t_decode"],
                                      best["t_decode"] / best["c_decode"]),
        "",
        "train: forward, cross-entropy, backward, clip and AdamW on %d tokens" % n_train,
        "decode: %d greedy tokens; C through the KV cache, PyTorch as k_model.py's" % n_dec,
        "generate does it (a full forward of everything so far per token)",
    ]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.log:
        tmp = a.log + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, a.log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
