/* dot_product.c — chapter 1: scores, softmax and the weighted sum, unscaled.
 *
 *     scores = torch.matmul(query, key.transpose(-2, -1))   # (..., T, S)
 *     p_attn = scores.softmax(dim=-1)                        # (..., T, S), rows sum to 1
 *     return torch.matmul(p_attn, value), p_attn             # (..., T, d_v)
 *
 * (Happy-LLM 2.1.3 also divides the scores by math.sqrt(d_k); chapter 2 adds that.)
 *
 * The file reads in that order: dot_product_attention, then its three steps
 * (dot_scores, softmax, weighted_sum), then the checks it runs on its inputs,
 * then the running example of chapters 1, 2 and 4.
 */
#include "dot_product.h"

#include <stdio.h>

Attention dot_product_attention(const Tensor *query, const Tensor *key, const Tensor *value) {
    check_qkv("dot_product_attention", query, key, value);
    Attention a;
    a.scores = dot_scores(query, key);         /* scores = torch.matmul(query, key.transpose(-2, -1)) */
    a.weights = softmax_stable(a.scores);      /* p_attn = scores.softmax(dim=-1)                    */
    a.output = weighted_sum(a.weights, value); /* torch.matmul(p_attn, value)                        */
    return a;
}

Tensor *dot_scores(const Tensor *query, const Tensor *key) {
    /* BEGIN BLANK dot_scores */
    return t_matmul(query, t_transpose(key, -2, -1)); /* (..., T, d_k) @ (..., d_k, S) -> (..., T, S) */
    /* END BLANK */
}

/* softmax as first written, straight from its definition (overflows past scores of ~89)... */
Tensor *softmax_naive(const Tensor *scores) {
    /* BEGIN BLANK naive_softmax */
    Tensor *e = t_exp(scores);                         /* torch.exp(x), (..., T, S)      */
    return t_div(e, t_unsqueeze(t_sum_last(e), -1));   /* / e.sum(dim=-1, keepdim=True)  */
    /* END BLANK */
}

/* ...and as F.softmax computes it: the row max subtracted first, so exp never overflows. */
Tensor *softmax_stable(const Tensor *scores) {
    /* BEGIN BLANK stable_softmax */
    Tensor *row_max = t_unsqueeze(t_max_last(scores), -1);  /* x.max(dim=-1, keepdim=True), (..., T, 1) */
    Tensor *e = t_exp(t_sub(scores, row_max));               /* every entry in (0, 1]                    */
    return t_div(e, t_unsqueeze(t_sum_last(e), -1));         /* each row sums to 1                       */
    /* END BLANK */
}

Tensor *weighted_sum(const Tensor *weights, const Tensor *value) {
    /* BEGIN BLANK weighted_sum */
    return t_matmul(weights, value); /* (..., T, S) @ (..., S, d_v) -> (..., T, d_v) */
    /* END BLANK */
}

/* ---- the checks: what query, key and value must satisfy --------------------- */

void check_qkv(const char *op, const Tensor *query, const Tensor *key, const Tensor *value) {
    char what[160];
    Shape batch = check_qkv_shapes(op, query, key, value);
    /* and the scores (..., T, S) must fit in memory */
    batch.dims[batch.ndim++] = t_size(query, -2);
    batch.dims[batch.ndim++] = t_size(key, -2);
    snprintf(what, sizeof what, "%s: the scores", op);
    t_check_fits(what, batch);
}

Shape check_qkv_shapes(const char *op, const Tensor *query, const Tensor *key, const Tensor *value) {
    char qs[T_SHAPE_STR], ks[T_SHAPE_STR], vs[T_SHAPE_STR], what[160];
    if (query->ndim < 2 || key->ndim < 2 || value->ndim < 2)
        t_error("%s: query %s, key %s and value %s each need at least 2 dims (..., length, features)", op,
                t_shape_str(query, qs), t_shape_str(key, ks), t_shape_str(value, vs));
    int64_t d_q = t_size(query, -1), d_k = t_size(key, -1);
    if (d_q != d_k)
        t_error("%s: query %s and key %s must share the last dim d_k: %lld != %lld", op,
                t_shape_str(query, qs), t_shape_str(key, ks), (long long)d_q, (long long)d_k);
    int64_t s_k = t_size(key, -2), s_v = t_size(value, -2);
    if (s_k != s_v)
        t_error("%s: key %s and value %s must have the same length S (dim -2): %lld != %lld", op,
                t_shape_str(key, ks), t_shape_str(value, vs), (long long)s_k, (long long)s_v);
    if (s_k == 0)
        t_error("%s: key %s has no positions (S = 0): there is nothing to attend to", op, t_shape_str(key, ks));
    /* the batch dims (all but the last two) must broadcast, as in torch.matmul */
    snprintf(what, sizeof what, "%s: batch dims of query %s and key %s", op, t_shape_str(query, qs),
             t_shape_str(key, ks));
    Shape batch = t_broadcast_shapes(what, shape_of(query->ndim - 2, query->shape),
                                     shape_of(key->ndim - 2, key->shape));
    snprintf(what, sizeof what, "%s: batch dims of the scores and value %s", op, t_shape_str(value, vs));
    batch = t_broadcast_shapes(what, batch, shape_of(value->ndim - 2, value->shape));
    if (batch.ndim + 2 > T_MAX_DIMS) t_error("%s: the scores would have more than %d dims", op, T_MAX_DIMS);
    return batch;
}

/* ---- the running example: "Your journey starts with one step" -------------- */

const char *const SENTENCE_WORDS[SENTENCE_TOKENS] = {"Your", "journey", "starts", "with", "one", "step"};

Tensor *sentence_inputs(void) {
    static const float embeddings[SENTENCE_TOKENS * SENTENCE_DIM] = {
        0.43f, 0.15f, 0.89f, /* Your    (x^1) */
        0.55f, 0.87f, 0.66f, /* journey (x^2) */
        0.57f, 0.85f, 0.64f, /* starts  (x^3) */
        0.22f, 0.58f, 0.33f, /* with    (x^4) */
        0.77f, 0.25f, 0.10f, /* one     (x^5) */
        0.05f, 0.80f, 0.55f, /* step    (x^6) */
    };
    return t_from_array(SHAPE(SENTENCE_TOKENS, SENTENCE_DIM), embeddings); /* (6, 3) */
}
