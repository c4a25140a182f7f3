/* gqa.h — chapter 11: grouped-query heads, repeat_kv (Happy-LLM 5.1.3.1).
 *
 *     self.n_rep = self.n_local_heads // self.n_local_kv_heads
 *     self.wk = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
 *     ...
 *     xk = repeat_kv(xk, self.n_rep)     # (bs, slen, n_kv_heads, hd) -> (bs, slen, n_heads, hd)
 *
 *     def repeat_kv(x, n_rep):
 *         bs, slen, n_kv_heads, head_dim = x.shape
 *         if n_rep == 1:
 *             return x
 *         return (x[:, :, :, None, :]
 *                 .expand(bs, slen, n_kv_heads, n_rep, head_dim)
 *                 .reshape(bs, slen, n_kv_heads * n_rep, head_dim))
 *
 * n_kv_heads key/value heads serve n_heads query heads: query head h reads
 * key/value head h / n_rep (a group of n_rep neighbouring query heads shares
 * one). n_kv_heads = n_heads is multi-head attention (MHA), 1 < n_kv_heads <
 * n_heads grouped-query (GQA), n_kv_heads = 1 multi-query (MQA): one code
 * path for all three. repeat_kv copies; reading head h / n_rep in place
 * gives the same numbers with no copy (kv_head_of, used by the KV cache).
 */
#ifndef CH11_GQA_H
#define CH11_GQA_H

#include "chapters/04_causal_mask/causal_mask.h"

/* assert n_heads % n_kv_heads == 0 (one sentence naming both); returns n_rep. */
int64_t n_rep_of(int64_t n_heads, int64_t n_kv_heads);
/* repeat_kv(x, n_rep): (bs, slen, n_kv_heads, head_dim) -> (bs, slen, n_kv_heads * n_rep, head_dim).
 * n_rep == 1 returns x itself, as the book does. */
Tensor *repeat_kv(const Tensor *x, int64_t n_rep);
/* The key/value head that query head h reads: h / n_rep (what repeat_kv's
 * head h holds, without the copy). */
int64_t kv_head_of(int64_t h, int64_t n_rep);
/* Causal attention of n_heads query heads over n_kv_heads key/value heads,
 * head h reading kv head h / n_rep in place (no repeat_kv copy), eval mode:
 * xq (bs, n_heads, seqlen, hd), xk and xv (bs, n_kv_heads, seqlen, hd), mask the
 * (1, 1, L, L) buffer of chapter 4. Returns (bs, n_heads, seqlen, hd), equal to
 * softmax(xq @ repeat_kv(xk)ᵀ / √hd + mask) @ repeat_kv(xv) (tested). */
Tensor *grouped_attention(const Tensor *xq, const Tensor *xk, const Tensor *xv, const Tensor *mask);

#endif
