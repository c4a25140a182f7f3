/* fast_decode.h — chapter 11: the decode step made fast, as chapter 8 makes attention fast.
 *
 * At batch 1 a decode step is matrix-vector products: wq, wk, wv and wo times one row
 * each, every weight read once per token (dim 768, 16 heads, 8 kv heads: 7 MiB of
 * float32), then one query row per head against the cache. llama_attention_step does
 * it through nn.Linear's general matmul; here the projections go through a blocked
 * matrix-vector kernel (sixteen independent sums per weight row, for as many rows at a
 * time as the vector unit's registers hold: 8 with AVX-512, 4 with AVX2, 6 with NEON;
 * a block of weight rows serves every row of the batch while it is in the L1 cache),
 * and the attention is the cache's own (kv_cache_attend: the n_rep query heads of a
 * group read each cached key and value once, in one pass, chapter 8's online
 * softmax). This file and kv_cache.c are built like chapter 8, -O3 -march=native.
 * The numbers are llama_attention_step's to rounding: the sums run in another order
 * (tested within 1e-6).
 *
 * make bench-chapter11 times it against a PyTorch decode loop (scripts/bench_ch11.py).
 */
#ifndef CH11_FAST_DECODE_H
#define CH11_FAST_DECODE_H

#include "kv_cache.h"

/* y[r, o] = Σ_i w[o, i] · x[r, i] for rows r < rows, o < out, i < in: x (rows, in)
 * and y (rows, out) row-major, w (out, in) as nn.Linear keeps it (y = x @ w.T). */
void linear_rows(const float *w, int64_t out, int64_t in, const float *x, int64_t rows, float *y);
/* llama_attention_step with the projections through linear_rows: the same contract
 * (x (bsz, n, dim) at positions c->len .., eval mode; returns (bsz, n, dim)). */
Tensor *llama_decode_step(const LlamaAttention *m, const Tensor *x, const FreqsCis *freqs, KVCache *c);

#endif
