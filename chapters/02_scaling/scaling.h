/* scaling.h — chapter 2: scaled dot-product attention (Happy-LLM 2.1.3).
 *
 *   def attention(query, key, value, dropout=None):
 *       d_k = query.size(-1)
 *       scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
 *       p_attn = scores.softmax(dim=-1)
 *       return torch.matmul(p_attn, value), p_attn
 *
 * Why √d_k: for q, k with independent unit-variance entries, q·k is a sum of
 * d_k unit-variance products, so its variance is d_k; dividing by √d_k brings
 * it back to 1, and softmax no longer saturates (one weight ~1, the rest ~0).
 */
#ifndef CH02_SCALING_H
#define CH02_SCALING_H

#include "chapters/01_dot_product/dot_product.h"

/* Happy-LLM's attention(query, key, value) (dropout comes in chapter 6):
 * .output is the first return value, .weights is p_attn. */
Attention attention(const Tensor *query, const Tensor *key, const Tensor *value);

/* torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k), d_k = query.size(-1) */
Tensor *scaled_scores(const Tensor *query, const Tensor *key);

/* The experiment of this chapter, for one d_k: draw n pairs of q, k with
 * standard-normal entries and measure the variance of q·k (unscaled and
 * divided by √d_k); then draw `rows` rows of seq_len scores and measure the
 * mean largest softmax weight and the mean entropy (in nats), unscaled and
 * scaled. Uses the global generator (t_manual_seed first for repeatability). */
typedef struct {
    int64_t d_k;
    double var_unscaled, var_scaled;          /* ≈ d_k and ≈ 1           */
    double max_weight_unscaled, max_weight_scaled;
    double entropy_unscaled, entropy_scaled;  /* log(seq_len) = uniform   */
} ScalingStats;

ScalingStats measure_scaling(int64_t d_k, int64_t n_pairs, int64_t rows, int64_t seq_len);

/* The entropy of each row of attention weights, in nats:
 * torch.special.entr(p_attn).sum(dim=-1) = -(p · log p).sum(dim=-1), with
 * 0 · log 0 = 0. (..., S) -> (...). log(S) for a uniform row, 0 for one-hot. */
Tensor *attention_entropy(const Tensor *weights);

#endif
