/* backward.h — chapter 10: the backward pass of MultiHeadAttention, by hand.
 *
 * What `loss.backward()` does for chapter 7's module, one piece at a time.
 * Every forward piece of chapters 1-7 gets its backward here, beside the
 * PyTorch line it undoes. A backward takes the gradient of the piece's
 * output (dy, the same shape as y) and what the forward cached, and returns
 * the gradients of the piece's inputs (and parameters):
 *
 *     forward (chapters 1-7)                       backward (here)
 *     y = x @ W.T + b            nn.Linear         dx = dy @ W, dW = dy.T @ x, db = dy.sum(0)
 *     c = a @ b                  torch.matmul      da = dc @ b.T, db = a.T @ dc
 *     s = raw / math.sqrt(d_k)   the scale         draw = ds / math.sqrt(d_k)
 *     s = raw + mask             causal mask       draw = ds (the mask is a buffer)
 *     p = F.softmax(s, dim=-1)   softmax           ds = p * (dp - (dp * p).sum(-1, keepdim=True))
 *     y = dropout(x)             nn.Dropout        dx = dy * mask / (1 - p), the same mask
 *     x.view(...).transpose(1, 2)  split heads     transpose(1, 2) + view back: merge
 *     x.transpose(1, 2).contiguous().view(...)     view + transpose back: split
 *
 * Like llm.c's train_gpt2.c, the forward keeps what the backward needs (the
 * activations of MhaTrace, chapter 7) and the backward walks the same steps
 * in reverse order. Unlike llm.c, whose backward functions add (+=) into
 * gradient buffers, each function here returns fresh tensors, as
 * torch.autograd.grad(..., inputs) does; mha_backward() adds up what flows
 * into x from its three uses (wq, wk and wv all read x).
 */
#ifndef CH10_BACKWARD_H
#define CH10_BACKWARD_H

#include "chapters/07_output_projection/mha.h"

/* ---- the whole module ------------------------------------------------------ */

/* What mha_forward_cached() keeps for mha_backward(): the input and chapter
 * 7's trace, that is the activations (xq, xk, xv, scores, attn_weights,
 * attn_dropped, merged, projected) and the two dropout masks the forward
 * applied (trace.attn_mask, all ones in eval mode; trace.resid_mask, NULL
 * when the module has no resid_dropout). */
typedef struct {
    const Tensor *x;          /* (B, T, d_in)                                   */
    MhaTrace trace;           /* chapter 7's activations and dropout masks      */
} MhaCache;

/* Chapter 7's mha_forward(m, x, x, x) (self-attention), keeping its trace:
 * chapter 6's dropout hands back the mask it applied, so the backward reuses
 * the very masks of this forward. Draws what mha_forward draws, no more.
 * Returns (B, T, d_out). */
Tensor *mha_forward_cached(const MultiHeadAttention *m, const Tensor *x, MhaCache *cache);

/* Gradients of every parameter and of the input; the b* are NULL when the
 * module has no such bias. Shapes are those of the tensors they belong to. */
typedef struct {
    Tensor *dx;                     /* (B, T, d_in)   */
    Tensor *dwq, *dwk, *dwv, *dwo;  /* (d_out, d_in) x 3, (d_out, d_out) */
    Tensor *dbq, *dbk, *dbv, *dbo;  /* (d_out,) or NULL */
    /* the gradients on the way, for the narration (names of MhaTrace) */
    Tensor *dprojected, *dmerged;   /* (B, T, d_out)                  */
    Tensor *doutput;                /* (B, H, T, hd) before the merge */
    Tensor *dattn_dropped, *dattn_weights, *dscores;   /* (B, H, T, T) */
    Tensor *dxq, *dxk, *dxv;        /* (B, H, T, hd)                  */
} MhaGrads;

/* The backward of the whole forward for dy = dloss/dy (B, T, d_out), in
 * reverse order of chapter 7's steps. A dy of another shape is an error
 * sentence naming both shapes. */
MhaGrads mha_backward(const MultiHeadAttention *m, const MhaCache *cache, const Tensor *dy);

/* ---- one function per forward piece, in the order mha_backward() calls them ---- */

/* y = dropout(x) = x * mask: dx = dy * mask, the same mask and the same 1/(1-p)
 * (the mask chapter 6's dropout_forward handed back, kept in MhaTrace). */
Tensor *dropout_backward(const Tensor *dy, const Tensor *mask);

/* nn.Linear: y = x @ weight.T + bias, x (..., in), dy (..., out).
 * dx (..., in); dweight (out, in); dbias (out,), or NULL when the layer has
 * no bias (dbias may be NULL then). Any leading dims: they are summed over. */
void linear_backward(const Linear *layer, const Tensor *x, const Tensor *dy, Tensor **dx, Tensor **dweight,
                     Tensor **dbias);

/* y = x.transpose(1, 2).contiguous().view(b, t, -1): dx = dy.view(b, t, H, hd).transpose(1, 2).
 * (b, t, d_out) -> (b, H, t, hd). */
Tensor *merge_heads_backward(const Tensor *dy, int64_t n_heads);

/* torch.matmul(a, b) with a (..., n, k), b (..., k, m) of the same leading
 * dims: da = dc @ b.T (..., n, k), db = a.T @ dc (..., k, m). */
void matmul_backward(const Tensor *a, const Tensor *b, const Tensor *dc, Tensor **da, Tensor **db);

/* p = F.softmax(s, dim=-1), p and dp (..., S):
 * ds = p * (dp - (dp * p).sum(dim=-1, keepdim=True)), (..., S). */
Tensor *softmax_backward(const Tensor *p, const Tensor *dp);

/* scores = raw + mask[:, :, :T, :T]: draw = dscores. The mask is a constant
 * (register_buffer, requires_grad False), so it gets no gradient. */
Tensor *causal_mask_backward(const Tensor *dscores);

/* scores = raw / math.sqrt(d_k): draw = dscores / math.sqrt(d_k). */
Tensor *scale_backward(const Tensor *dscores, int64_t d_k);

/* xh = x.view(b, t, H, hd).transpose(1, 2): dx = dxh.transpose(1, 2).contiguous().view(b, t, H * hd).
 * (b, H, t, hd) -> (b, t, d_out). */
Tensor *split_heads_backward(const Tensor *dxh);

#endif
