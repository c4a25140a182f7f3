/* generate.h — chapter 11: greedy generation with the KV cache, for chapter 10's tiny model.
 *
 * Happy-LLM's generate() (chapter 5) runs the model on the whole prefix for
 * every new token and keeps only the last row of logits:
 *
 *     logits = self(idx_cond).logits[:, -1, :]
 *     _, idx_next = torch.topk(logits, k=1, dim=-1)      # temperature 0: greedy
 *     idx = torch.cat((idx, idx_next), dim=1)
 *
 * With the KV cache the prompt runs once (prefill) and each new token is one
 * position: its embedding, its q, k, v, k and v appended, its query against
 * the cache, wo, the head. The same tokens come out (tested), with O(T) work
 * per token instead of O(T²). Chapter 10's model has learned position
 * embeddings and chapter 7's attention (no RoPE, one kv head per head, biases
 * on wo): the same kv_cache_append and kv_cache_attend serve it and LLaMA's.
 */
#ifndef CH11_GENERATE_H
#define CH11_GENERATE_H

#include "chapters/10_backward/train.h"
#include "kv_cache.h"

/* An empty cache for the model's attention: (1, n_heads, seq_len, head_dim). */
KVCache *tiny_cache_new(const TinyModel *model);
/* Feed n tokens at positions c->len .. c->len + n - 1 through the model with
 * the cache; returns the greedy next token (argmax of the last position's logits).
 * Past the model's seq_len the cache is full: one sentence. */
int32_t tiny_next_cached(const TinyModel *model, KVCache *c, const int32_t *tokens, int64_t n);
/* Without a cache: the whole prefix idx[0 .. n-1] through the model again
 * (chapter 7's forward), the greedy next token of its last position. */
int32_t tiny_next_recompute(const TinyModel *model, const int32_t *idx, int64_t n);

#endif
