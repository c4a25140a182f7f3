/* multi_head.h — chapter 5: multi-head attention, split and merge (Happy-LLM 2.1.6).
 *
 *     xq = xq.view(bsz, seqlen, self.n_heads, self.head_dim)   # split d_out into heads
 *     xq = xq.transpose(1, 2)                    # (bsz, n_heads, seqlen, head_dim)
 *     scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)
 *     ... (+ mask when causal), softmax ...
 *     output = torch.matmul(scores, xv)          # (bsz, n_heads, seqlen, head_dim)
 *     output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)  # merge
 *
 * Each head attends in its own head_dim-wide slice of d_out; one big
 * projection then a split equals n_heads small projections then a
 * concatenation (矩阵内积再拼接 = 拼接矩阵再内积), which the tests prove.
 */
#ifndef CH05_MULTI_HEAD_H
#define CH05_MULTI_HEAD_H

#include "chapters/03_self_attention/self_attention.h"
#include "chapters/04_causal_mask/causal_mask.h"

/* Attention over already projected xq (b, t, d_out), xk, xv (b, s, d_out):
 * split, scaled attention per head (with the causal mask buffer when mask is
 * not NULL), merge. .weights is (b, n_heads, t, s); .output (b, t, d_out). */
Attention multi_head_attention(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t n_heads,
                               const Tensor *mask);

/* x.view(b, t, n_heads, head_dim).transpose(1, 2): (b, t, d_out) -> (b, n_heads, t, head_dim).
 * A view: no data moves, the result is not contiguous. */
Tensor *split_heads(const Tensor *x, int64_t n_heads);

/* x.transpose(1, 2).contiguous().view(b, t, -1): (b, n_heads, t, head_dim) -> (b, t, d_out). */
Tensor *merge_heads(const Tensor *x);

/* d_out % n_heads must be 0; the error names both numbers. Returns head_dim. */
int64_t head_dim_of(int64_t d_out, int64_t n_heads);

/* Raschka's MultiHeadAttentionWrapper: n_heads separate single-head
 * self-attentions, head h using rows h*head_dim .. (h+1)*head_dim-1 of each
 * weight matrix, outputs concatenated along the last dim. Equal to
 * multi_head_attention() on the big projections (tested). */
Tensor *multi_head_wrapper(const QKVProjection *p, const Tensor *x, int64_t n_heads, const Tensor *mask);

/* The (bsz, n_heads, seqlen, kvlen) scores (and weights) of naive attention
 * must fit in memory (t_max_bytes(), env ATTN_MAX_BYTES); the error says how
 * much they need and points to chapter 8, which never stores them. */
void check_scores_fit(int64_t bsz, int64_t n_heads, int64_t seqlen, int64_t kvlen);

#endif
