/* scaling.c — chapter 2: divide the scores by √d_k, and measure why.
 *
 * attention() first (Happy-LLM 2.1.3's function), then the scaled scores it
 * uses; then the experiment that shows why √d_k (measure_scaling) and the
 * entropy it measures with. */
#include "scaling.h"

Attention attention(const Tensor *query, const Tensor *key, const Tensor *value) {
    Attention a = {NULL, NULL, NULL};
    /* BEGIN BLANK attention_forward */
    check_qkv("attention", query, key, value);
    /* scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k): (..., T, S) */
    a.scores = scaled_scores(query, key);
    a.weights = t_softmax(a.scores, -1);       /* p_attn = scores.softmax(dim=-1), rows sum to 1 */
    a.output = weighted_sum(a.weights, value); /* torch.matmul(p_attn, value): (..., T, d_v) */
    /* END BLANK */
    return a; /* return torch.matmul(p_attn, value), p_attn */
}

Tensor *scaled_scores(const Tensor *query, const Tensor *key) {
    /* torch.matmul(query, key.transpose(-2, -1)): chapter 1 */
    Tensor *scores = dot_scores(query, key); /* (..., T, S) */
    /* BEGIN BLANK scale */
    int64_t d_k = t_size(query, -1);                  /* d_k = query.size(-1) */
    scores = t_div_scalar(scores, sqrtf((float)d_k)); /* / math.sqrt(d_k) */
    /* END BLANK */
    return scores;
}

/* ---- why √d_k: the experiment ------------------------------------------------ */

ScalingStats measure_scaling(int64_t d_k, int64_t n_pairs, int64_t rows, int64_t seq_len) {
    if (d_k < 1 || n_pairs < 2 || rows < 1 || seq_len < 1)
        t_error("measure_scaling: d_k = %lld, n_pairs = %lld, rows = %lld, seq_len = %lld: "
                "need d_k >= 1, n_pairs >= 2 (a variance needs two values), rows >= 1 and seq_len >= 1",
                (long long)d_k, (long long)n_pairs, (long long)rows, (long long)seq_len);
    ScalingStats s;
    s.d_k = d_k;
    s.var_unscaled = s.var_scaled = 0.0;
    s.max_weight_unscaled = s.max_weight_scaled = 0.0;
    s.entropy_unscaled = s.entropy_scaled = 0.0;
    t_scope_begin(); /* the samples are freed before returning */

    /* 1. The variance of q·k over n_pairs independent pairs. */
    /* BEGIN BLANK qk_variance */
    Tensor *q = t_randn(SHAPE(n_pairs, d_k));                         /* q = torch.randn(n_pairs, d_k) */
    Tensor *k = t_randn(SHAPE(n_pairs, d_k));                         /* k = torch.randn(n_pairs, d_k) */
    Tensor *dots = t_sum_last(t_mul(q, k));                           /* (q * k).sum(dim=-1): (n_pairs,) */
    s.var_unscaled = t_var_all(dots);                                 /* dots.var()  ≈ d_k */
    s.var_scaled = t_var_all(t_div_scalar(dots, sqrtf((float)d_k))); /* (dots / math.sqrt(d_k)).var()  ≈ 1 */
    /* END BLANK */

    /* 2. Softmax over seq_len keys: one fresh query and seq_len fresh keys per row. */
    Tensor *query = t_randn(SHAPE(rows, 1, d_k));                    /* (rows, 1, d_k)       */
    Tensor *key = t_randn(SHAPE(rows, seq_len, d_k));                /* (rows, seq_len, d_k) */
    Tensor *p_unscaled = t_softmax(dot_scores(query, key), -1);      /* chapter 1: no √d_k   */
    Tensor *p_scaled = t_softmax(scaled_scores(query, key), -1);     /* (rows, 1, seq_len)   */
    s.max_weight_unscaled = t_mean_all(t_max_last(p_unscaled));      /* p.max(dim=-1).mean() */
    s.max_weight_scaled = t_mean_all(t_max_last(p_scaled));
    s.entropy_unscaled = t_mean_all(attention_entropy(p_unscaled));  /* log(seq_len) = uniform */
    s.entropy_scaled = t_mean_all(attention_entropy(p_scaled));

    t_scope_end();
    return s;
}

Tensor *attention_entropy(const Tensor *weights) {
    char ws[T_SHAPE_STR];
    if (weights->ndim < 1)
        t_error("attention_entropy: weights %s need at least 1 dim (..., S)", t_shape_str(weights, ws));
    Tensor *h = t_empty_like(weights); /* torch.special.entr(p_attn): -p·log p per entry */
    /* BEGIN BLANK entropy */
    float *out = t_data(h);
    int64_t n = t_numel(weights);
    for (int64_t i = 0; i < n; i++) {
        float p = t_flat_get(weights, i);
        if (p > 0.0f) out[i] = -p * logf(p);
        else if (p == 0.0f) out[i] = 0.0f;  /* a weight of exactly 0 adds nothing */
        else out[i] = p < 0.0f ? -INFINITY : p; /* not a probability: -inf (as entr), NaN stays NaN */
    }
    /* END BLANK */
    return t_sum_last(h); /* .sum(dim=-1): (..., S) -> (...) */
}
