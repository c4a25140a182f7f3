/* grad_check.h — chapter 10: the gradient check, against a float64 reference.
 *
 * mha_backward() runs in float32, like everything in chapters 1-7. To check
 * it we need gradients we trust more than float32: central finite
 * differences of a forward in float64 (reference64.h, chapter 7's forward on
 * double arrays), as torch.autograd.gradcheck runs its module in double.
 * In eval mode the dropout masks are all ones. In training mode the check
 * passes the masks the float32 forward applied (kept in the cache's trace),
 * so the function it differentiates is deterministic and the dropout
 * backward is checked too.
 */
#ifndef CH10_GRAD_CHECK_H
#define CH10_GRAD_CHECK_H

#include "backward.h"
#include "reference64.h"

/* ---- the check ---------------------------------------------------------------- */

/* One row of the table: a tensor, and how far its float32 backward gradient
 * is from the float64 central differences. max_rel_err =
 * max |g_bw - g_fd| / max(1, max |g_fd|) over the tensor: relative to the
 * tensor's largest gradient, and absolute when every gradient is below 1
 * (bk's gradient is exactly 0: adding one vector to every key adds the same
 * number to a whole row of scores, which softmax ignores; so a near-0
 * gradient is never divided by). */
typedef struct {
    const char *name;   /* "x", "wq", ..., "bo" */
    int64_t numel;
    double max_abs_grad;
    double max_abs_err;
    double max_rel_err;
} GradCheckRow;

/* h and the tolerance of the table. h = 1e-6 is gradcheck's default eps.
 * The differences are in float64: truncation ~h^2, rounding ~1e-16 |loss| / h,
 * together below 1e-9 on the chapter's small cases. What is left is the
 * float32 backward's own rounding, a few units of float32's 6e-8 (the
 * chapter's cases show 1e-8..2e-7). It grows with the length of the sums, so
 * 1e-4 leaves room for bigger modules, and a gradient that is 1% off (1e-2
 * of its largest entry) is still 100 times outside it. */
#define GRAD_CHECK_STEP 1e-6   /* h */
#define GRAD_CHECK_TOL 1e-4

/* Compares the gradients g (from mha_backward, or from anywhere: a test
 * hands in a deliberately wrong one) with central finite differences of
 * loss = (y * dy).sum() in float64, y = mha64_forward(x) with the module's
 * parameters and the dropout masks of the cache's trace: for every entry v
 * of x and of every parameter, (loss(v + h) - loss(v - h)) / 2h. rows must
 * hold 9 entries; returns how many were filled (5 + the biases present). */
int grad_check_grads(const MultiHeadAttention *m, const MhaCache *cache, const Tensor *dy, const MhaGrads *g,
                     double h, GradCheckRow *rows);

/* The whole check: mha_forward_cached + mha_backward (float32, drawing the
 * dropout masks from the generator as it is now) and grad_check_grads.
 * Leaves the generator where it was. */
int grad_check(const MultiHeadAttention *m, const Tensor *x, const Tensor *dy, double h, GradCheckRow *rows);

/* The largest max_rel_err of the rows; NaN if any row is NaN. */
double grad_check_worst(const GradCheckRow *rows, int n);

#endif
