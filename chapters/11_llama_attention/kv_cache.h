/* kv_cache.h — chapter 11: the KV cache, token-by-token decoding without recomputing the prefix.
 *
 * Happy-LLM's generate() says it has no k/v cache: for every new token it runs
 * the model on the whole prefix again, T positions of work per token where one
 * suffices. The keys and values of past positions never change (causal
 * attention: position t sees only 0..t, and RoPE turned each k by its own
 * position already), so keep them:
 *
 *     xq, xk, xv = xq.transpose(1, 2), xk.transpose(1, 2), xv.transpose(1, 2)  # (bsz, heads, n, hd)
 *     cache_k[:, :, pos : pos + n] = xk        # after RoPE, at its position
 *     cache_v[:, :, pos : pos + n] = xv
 *     keys, values = cache_k[:, :, : pos + n], cache_v[:, :, : pos + n]
 *     scores = xq @ keys.transpose(2, 3) / math.sqrt(head_dim)   # query i sees 0..pos+i
 *
 * Prefill runs the prompt's n positions at once; each decode step is n = 1:
 * one query row against the cache, O(T) work instead of O(T²). The step's
 * output row equals the full forward's row for that position (tested).
 *
 * The cache is (bsz, n_kv_heads, max_seq_len, head_dim) for k and for v, so a
 * key/value head's positions are one contiguous stream, read once per step by
 * the n_rep query heads of its group (h / n_rep, no repeat_kv copy): GQA keeps
 * n_heads / n_kv_heads times fewer bytes, and reads that many fewer. Its size,
 * per layer: 2 (k and v) x bsz x n_kv_heads x T x head_dim x bytes per number.
 * The step's softmax is chapter 8's online one, which folds keys in any number of
 * calls: the cache's keys go in a block at a time (kv_cache.c's fold_block, at most
 * one rescale per block, the block's exponentials through chapter 8's attn_exp_row).
 * kv_cache.c is built -O3 -march=native, as chapter 8 is; fast_decode.h has the step
 * with fast projections.
 */
#ifndef CH11_KV_CACHE_H
#define CH11_KV_CACHE_H

#include "llama_attention.h"

typedef struct {
    int64_t bsz, n_kv_heads, max_seq_len, head_dim;
    int64_t len;   /* positions filled: the next one goes at len */
    Tensor *k;     /* (bsz, n_kv_heads, max_seq_len, head_dim)  */
    Tensor *v;     /* (bsz, n_kv_heads, max_seq_len, head_dim)  */
} KVCache;

/* An empty cache (zeros, len 0); the sizes must fit in memory. */
KVCache *kv_cache_new(int64_t bsz, int64_t n_kv_heads, int64_t max_seq_len, int64_t head_dim);
/* Bytes of k and v for layers x bsz x n_kv_heads x seq_len x head_dim numbers
 * of bytes_per bytes each. */
double kv_cache_bytes(double layers, double bsz, double n_kv_heads, double seq_len, double head_dim,
                      double bytes_per);
/* Bytes of a whole LLaMA2 model's weights (Meta's model.py, bytes_per each):
 * tok_embeddings and output (vocab x dim each); per layer wq and wo (dim x dim), wk and
 * wv (n_kv_heads * head_dim x dim), w1, w2, w3 (hidden x dim), attention_norm and
 * ffn_norm (dim); the final norm (dim). A decode step reads them all once, whatever
 * the batch. */
double llama2_weight_bytes(double dim, double n_layers, double n_heads, double n_kv_heads, double hidden,
                           double vocab, double bytes_per);
/* cache_k[:, :, len : len + n] = xk; the same for v; len += n. xk, xv are
 * (bsz, n, n_kv_heads, head_dim). Past max_seq_len: one sentence, nothing written. */
void kv_cache_append(KVCache *c, const Tensor *xk, const Tensor *xv);
/* Causal attention of xq (bsz, n, n_heads, head_dim), the queries of positions
 * len - n .. len - 1, over the cache's first len positions, query head h
 * reading kv head h / n_rep. Returns (bsz, n, n_heads * head_dim), the merged
 * heads before wo. Eval mode: no dropout. */
Tensor *kv_cache_attend(const KVCache *c, const Tensor *xq);
/* One step of LLaMA's attention with the cache, eval mode: x (bsz, n, dim)
 * holds positions c->len .. c->len + n - 1 (n > 1 is a prefill), freqs the
 * tables of precompute_freqs_cis with at least c->len + n rows. Returns the
 * attention's output for those positions, (bsz, n, dim). */
Tensor *llama_attention_step(const LlamaAttention *m, const Tensor *x, const FreqsCis *freqs, KVCache *c);
/* The whole of x (bsz, T, dim) through a fresh cache of max_seq_len positions, eval
 * mode: the first T - n_decode positions prefilled in chunks of `chunk` (the last one
 * may be shorter; each chunk's queries see the cache and their own causal triangle,
 * the mask offset by the chunk's start), then the last n_decode one at a time.
 * Returns all T rows, (bsz, T, dim): row for row the full forward's. */
Tensor *llama_cached_forward(const LlamaAttention *m, const Tensor *x, const FreqsCis *freqs, int64_t chunk,
                             int64_t n_decode);

#endif
