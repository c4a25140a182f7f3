/* ops.h — the torch functions Happy-LLM 2.1's code calls: matmul, softmax, triu, ...
 *
 * Every op returns a new contiguous tensor in the current scope (t_*_ ops
 * with a trailing underscore work in place, as in PyTorch) and checks its
 * shapes, ending in one sentence when they do not fit, e.g.
 *     matmul: (3, 5, 10) @ (8, 8): inner dims 10 != 8
 * Broadcasting follows PyTorch: shapes are aligned from the right and a dim
 * of size 1 stretches to the other size.
 */
#ifndef COMMON_OPS_H
#define COMMON_OPS_H

#include "tensor.h"

/* Broadcast two shapes (error names `op` when they do not broadcast). */
Shape t_broadcast_shapes(const char *op, Shape a, Shape b);

/* torch.matmul(a, b) for a, b of >= 2 dims: (..., n, k) @ (..., k, m) ->
 * (..., n, m), leading dims broadcast. 1-D operands are refused with a
 * sentence (use t_unsqueeze). Sums are accumulated in double. */
Tensor *t_matmul(const Tensor *a, const Tensor *b);

/* Element-wise with broadcasting: a + b, a - b, a * b, a / b. */
Tensor *t_add(const Tensor *a, const Tensor *b);
Tensor *t_sub(const Tensor *a, const Tensor *b);
Tensor *t_mul(const Tensor *a, const Tensor *b);
Tensor *t_div(const Tensor *a, const Tensor *b);
/* With a scalar: x * s, x / s, x + s. */
Tensor *t_mul_scalar(const Tensor *x, float s);
Tensor *t_div_scalar(const Tensor *x, float s);
Tensor *t_add_scalar(const Tensor *x, float s);
Tensor *t_exp(const Tensor *x);

/* F.softmax(x, dim=-1), numerically stable: exp(x - rowmax) / sum.
 * A row that is all -inf has no finite maximum; like PyTorch the result is
 * NaN for every entry of that row (0/0) — chapter 4 shows when this bites.
 * +inf entries also give NaN, as in PyTorch. */
Tensor *t_softmax(const Tensor *x, int dim);   /* dim must be the last (-1) */

/* torch.triu / torch.tril on the last two dims: keep the elements with
 * j - i >= diagonal (triu) or j - i <= diagonal (tril), zero the rest. */
Tensor *t_triu(const Tensor *x, int diagonal);
Tensor *t_tril(const Tensor *x, int diagonal);

/* x.masked_fill(mask, value): mask != 0 (broadcast to x) takes value. */
Tensor *t_masked_fill(const Tensor *x, const Tensor *mask, float value);

/* Reductions over the last dim, keepdim=False: (..., n) -> (...). */
Tensor *t_sum_last(const Tensor *x);
Tensor *t_max_last(const Tensor *x);
/* Over every element. */
double t_sum_all(const Tensor *x);
double t_mean_all(const Tensor *x);
double t_var_all(const Tensor *x);   /* unbiased (n-1), like torch.var */

/* Largest |a - b| (same shape required; NaN anywhere gives NaN, matching
 * NaN or matching infinities count as equal). */
double t_max_abs_diff(const Tensor *a, const Tensor *b);
/* torch.allclose: |a - b| <= atol + rtol * |b| everywhere; equal infinities
 * match; NaN never matches (equal_nan=False). Shapes must be equal. */
bool t_allclose(const Tensor *a, const Tensor *b, double rtol, double atol);

#endif
