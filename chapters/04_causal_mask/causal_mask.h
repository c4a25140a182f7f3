/* causal_mask.h — chapter 4: masked (causal) self-attention (Happy-LLM 2.1.5).
 *
 *     mask = torch.full((1, 1, args.max_seq_len, args.max_seq_len), float("-inf"))
 *     mask = torch.triu(mask, diagonal=1)          # -inf above the diagonal, 0 elsewhere
 *     ...
 *     scores = scores + self.mask[:, :, :seqlen, :seqlen]
 *     scores = F.softmax(scores.float(), dim=-1)   # future positions get weight 0
 *
 * Token t may look at tokens 0..t, never at t+1.. (the future). The other
 * spelling, in the 手撕 MHA class of the README (Raschka's), is a boolean
 * mask and masked_fill:
 *
 *     mask_bool = torch.triu(torch.ones(T, T), diagonal=1).bool()
 *     attn_scores.masked_fill_(mask_bool, -torch.inf)
 *
 * Both give the same weights (tested).
 */
#ifndef CH04_CAUSAL_MASK_H
#define CH04_CAUSAL_MASK_H

#include "chapters/02_scaling/scaling.h"

/* Scaled attention with the causal mask added before softmax:
 * softmax(q·kᵀ/√d_k + mask[:T, :T]) · v. mask is a buffer from causal_mask();
 * NULL means no mask (then it is chapter 2's attention()). */
Attention masked_attention(const Tensor *query, const Tensor *key, const Tensor *value, const Tensor *mask);

/* The additive mask buffer: triu(full((1, 1, L, L), -inf), diagonal=1).
 * `diagonal` is a parameter only so the chapter can show the diagonal=0
 * mistake; the right value is 1. */
Tensor *causal_mask(int64_t max_seq_len, int diagonal);

/* scores + mask[:, :, :T, :T] for scores (..., T, T). T != S is an error: a
 * causal mask needs queries and keys from the same sequence. */
Tensor *apply_causal_mask(const Tensor *scores, const Tensor *mask);

/* mask[:, :, :seqlen, :seqlen] of a (1, 1, L, L) buffer; seqlen > L is
 * check_seq_len's error. */
Tensor *mask_slice(const Tensor *mask, int64_t seqlen);

/* A mask buffer built for max_seq_len serves sequences up to that length. Longer is an
 * error, in the one sentence every chapter gives: "sequence length 9 is longer than
 * max_seq_len 8, the size of the causal mask buffer". */
void check_seq_len(int64_t seq_len, int64_t max_seq_len);

/* The (1, 1, L, L) buffer for max_seq_len L must fit in memory (t_max_bytes): else one
 * sentence naming max_seq_len, which programs say before any work. */
void check_mask_fits(int64_t max_seq_len);

/* The boolean spelling: triu(ones(L, L), diagonal=1) as 0/1 floats, (L, L). */
Tensor *causal_mask_bool(int64_t max_seq_len);

/* scores.masked_fill(mask_bool[:T, :T], -inf), the second spelling. */
Tensor *apply_causal_mask_fill(const Tensor *scores, const Tensor *mask_bool);

#endif
