/* reference64.h — chapter 10: the gradient check's float64 forward of chapter 7's module.
 *
 * mha_backward() runs in float32, like everything in chapters 1-7. To check
 * it we need gradients we trust more than float32: central finite
 * differences of a forward in float64 (grad_check.h). torch.autograd.gradcheck
 * is built the same way: it is meant for double inputs (in float32, its docs
 * say, the check will likely fail: the differences drown in rounding). Tensor
 * holds float32 only, so the reference is a small forward of chapter 7's
 * module on plain double arrays, written step by step like the PyTorch, and
 * used ONLY by the check (the float32 Tensor code stays the one forward):
 *
 *     xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)           # + biases if any
 *     xq = xq.view(bsz, seqlen, n_heads, head_dim).transpose(1, 2)   # xk, xv too
 *     scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(head_dim)
 *     scores = scores + self.mask[:, :, :seqlen, :seqlen]       # if causal
 *     scores = F.softmax(scores, dim=-1)
 *     scores = scores * attn_mask          # attn_dropout with its mask fixed
 *     output = torch.matmul(scores, xv)
 *     output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
 *     output = self.wo(output) * resid_mask   # resid_dropout, mask fixed
 *
 * The split and the merge are chapter 5's own split_heads and merge_heads:
 * they move numbers without computing any, so chapter 5 moves the positions
 * of the doubles (a float32 Tensor of 0, 1, 2, ...) and each double follows
 * its position. In eval mode the two masks are all ones (or NULL).
 */
#ifndef CH10_REFERENCE64_H
#define CH10_REFERENCE64_H

#include "chapters/07_output_projection/mha.h"

/* Chapter 7's module with its parameters copied to double. */
typedef struct {
    int64_t d_in, d_out, n_heads, head_dim;
    bool causal;
    double *wq, *wk, *wv;   /* (d_out, d_in)          */
    double *wo;             /* (d_out, d_out)         */
    double *bq, *bk, *bv;   /* (d_out,) or NULL       */
    double *bo;             /* (d_out,) or NULL       */
} Mha64;

/* A contiguous double copy of any tensor (row-major), owned by the scope;
 * NULL for NULL (a bias or a dropout mask the module does not have). */
double *float64_copy(const Tensor *t);

/* The module's parameters in double (owned by the current scope). */
Mha64 mha64_from(const MultiHeadAttention *m);

/* y = model(x) in double: x (bsz, seqlen, d_in), y (bsz, seqlen, d_out),
 * both row-major. attn_mask (bsz, H, seqlen, seqlen) and resid_mask
 * (bsz, seqlen, d_out) are dropout masks (0 or 1/(1-p)) applied as fixed
 * factors, or NULL for none (eval mode). Scratch is owned by the scope. */
void mha64_forward(const Mha64 *m, const double *x, int64_t bsz, int64_t seqlen, const double *attn_mask,
                   const double *resid_mask, double *y);

#endif
