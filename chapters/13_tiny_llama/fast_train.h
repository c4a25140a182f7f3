/* fast_train.h — chapter 13: the row kernels a training step spends its time in, made fast.
 *
 * At vocab 2,500 the loss takes the softmax of 1,024 rows of 2,500 logits per step, and
 * the SwiGLU takes a sigmoid of every hidden activation twice (forward and backward).
 * libm's expf is a call per number and a running max or sum is one long chain, so the
 * loss alone took a quarter of a step in plain loops (perf record). These helpers take the
 * exp from chapter 8 (attn_exp_row: its polynomial, 16 numbers at a time with AVX-512, 8
 * with AVX2) and keep 16 or 64 partial maxima and sums, so the compiler uses every lane;
 * this file is built like chapter 8, -O3 -march=native. RoPE (one loop instead of chapter
 * 11's tensor operations) and AdamW's update are here for the same reason. Same numbers as
 * expf, a sum in order and the plain loops, to float rounding (tested; the loss and
 * gradients are tested against PyTorch's). */
#ifndef CH13_FAST_TRAIN_H
#define CH13_FAST_TRAIN_H

#include <stdint.h>

/* max(x[0..n)), n >= 1. */
float row_max(const float *x, int64_t n);

/* e[j] = exp(z[j] - shift) for j < n; returns Σ e[j] (16 partial sums, in a fixed order). */
float row_exp_sum(const float *z, float *e, int64_t n, float shift);

/* s[j] = sigmoid(x[j]) = 1 / (1 + exp(-x[j])) for j < n (s may be x). */
void sigmoid_row(const float *x, float *s, int64_t n);

/* RoPE on neighbouring pairs, as chapter 11's rotary_emb turns them, in one loop over
 * contiguous rows instead of its tensor operations (the same products and sums: the same
 * numbers to float rounding, tested): x and y (bsz, seqlen, heads, head_dim), cos and sin
 * (seqlen, head_dim / 2); sin_sign -1 turns by -θ (the backward). */
void rope_pairs(const float *x, float *y, int64_t bsz, int64_t seqlen, int64_t heads, int64_t head_dim,
                const float *cos, const float *sin, float sin_sign);

/* AdamW's update of one parameter tensor of n numbers, in place (train.c's adamw_step says
 * which PyTorch lines): w, the moments m and v, the gradient g; the arithmetic in double
 * as adamw_step wrote it element by element, eight at a time here (the same numbers to
 * rounding, tested). */
void adamw_update(float *w, float *m, float *v, const float *g, int64_t n, double lr, double weight_decay,
                  double beta1, double beta2, double bias_correction1, double bias_correction2, double eps);

#endif
