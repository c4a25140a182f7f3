/* dot_product.h — chapter 1: attention as a soft dictionary lookup (Happy-LLM 2.1.1–2.1.3).
 *
 *   scores  = Q · Kᵀ              how well each query matches each key
 *   weights = softmax(scores)     each row sums to 1
 *   output  = weights · V         a weighted average of the values
 *
 * Shapes: query (..., T, d_k), key (..., S, d_k), value (..., S, d_v), any
 * number of leading batch dims (broadcast as torch.matmul does).
 * This chapter does not scale yet: chapter 2 divides by √d_k.
 */
#ifndef CH01_DOT_PRODUCT_H
#define CH01_DOT_PRODUCT_H

#include "common/torch.h"

/* What one attention call produces; 'scores' are before softmax, 'weights'
 * after it (Happy-LLM calls the weights p_attn). */
typedef struct {
    Tensor *scores;   /* (..., T, S) */
    Tensor *weights;  /* (..., T, S) */
    Tensor *output;   /* (..., T, d_v) */
} Attention;

/* The chapter in one call: the three steps below, unscaled: softmax_stable(dot_scores(q, k)) · v. */
Attention dot_product_attention(const Tensor *query, const Tensor *key, const Tensor *value);

/* torch.matmul(query, key.transpose(-2, -1)): (..., T, d_k) x (..., S, d_k) -> (..., T, S) */
Tensor *dot_scores(const Tensor *query, const Tensor *key);
/* torch.matmul(weights, value): (..., T, S) x (..., S, d_v) -> (..., T, d_v) */
Tensor *weighted_sum(const Tensor *weights, const Tensor *value);

/* softmax the way you would first write it: exp(x) / sum(exp(x)).
 * Overflows to inf/NaN once scores reach ~89 (expf(89) > FLT_MAX). */
Tensor *softmax_naive(const Tensor *scores);
/* softmax the way F.softmax does it: exp(x - max) / sum(exp(x - max)),
 * over the last dim; the same numbers for any shift of a row, and no overflow. */
Tensor *softmax_stable(const Tensor *scores);

/* Check that query, key, value fit together; errors name `op` and the shapes:
 * d_k of query and key must match, key and value must have the same length
 * S >= 1, each needs at least 2 dims, their batch dims must broadcast, and the
 * scores (..., T, S) must fit in memory (t_max_bytes(), env ATTN_MAX_BYTES). */
void check_qkv(const char *op, const Tensor *query, const Tensor *key, const Tensor *value);
/* The same rules without the memory one (for chapter 8's versions that never
 * store the scores); returns the broadcast batch dims of the result. */
Shape check_qkv_shapes(const char *op, const Tensor *query, const Tensor *key, const Tensor *value);

/* The running example of chapters 1, 2 and 4: "Your journey starts with one
 * step", six tokens embedded in 3 dims (the numbers of Raschka's chapter 3). */
enum { SENTENCE_TOKENS = 6, SENTENCE_DIM = 3 };
extern const char *const SENTENCE_WORDS[SENTENCE_TOKENS];
/* inputs = torch.tensor([[0.43, 0.15, 0.89], ...]): a fresh (6, 3) tensor. */
Tensor *sentence_inputs(void);

#endif
