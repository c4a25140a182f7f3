/* self_attention.h — chapter 3: self-attention (Happy-LLM 2.1.4).
 *
 * Self-attention is attention(x, x, x): the sequence attends to itself.
 * Taken literally (Q = K = V = x) a token mostly matches itself and there is
 * nothing to learn, so real models first project x three ways with trainable
 * nn.Linear layers:
 *
 *     xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)     # (B, T, d_out) each
 *     output, p_attn = attention(xq, xk, xv)
 *
 * Q, K and V come from the same x but are three different tensors.
 * Naming: d_in is the width of x and d_out the width of q, k, v (Happy-LLM
 * 2.1.6 writes nn.Linear(args.n_embd, n_heads * head_dim) with head_dim =
 * args.dim // args.n_heads: args.n_embd and args.dim, equal in its models;
 * the 手撕 MHA class takes d_in and d_out apart). W_q, W_k, W_v map
 * d_in -> d_out and are stored as nn.Linear keeps them, (d_out, d_in).
 * Loading and saving them: self_attention_setup.h.
 */
#ifndef CH03_SELF_ATTENTION_H
#define CH03_SELF_ATTENTION_H

#include "chapters/02_scaling/scaling.h"

/* The three projections (self.wq, self.wk, self.wv). */
typedef struct {
    int64_t d_in, d_out;
    Linear *wq, *wk, *wv;
} QKVProjection;

/* nn.Linear(d_in, d_out, bias=bias) three times, PyTorch's default init. */
QKVProjection *qkv_new(int64_t d_in, int64_t d_out, bool bias);

/* xq, xk, xv = self.wq(x), self.wk(x), self.wv(x): (..., d_in) -> (..., d_out) */
void qkv_project(const QKVProjection *p, const Tensor *x, Tensor **xq, Tensor **xk, Tensor **xv);

/* attention(self.wq(x), self.wk(x), self.wv(x)). */
Attention self_attention(const QKVProjection *p, const Tensor *x);

/* attention(x, x, x): Q = K = V = x, no parameters. */
Attention self_attention_plain(const Tensor *x);

/* Parameters in the projections (3 · d_out · d_in, + 3 · d_out with bias). */
int64_t qkv_num_params(const QKVProjection *p);

#endif
