/* causal_mask.c — chapter 4: the causal mask, added to the scores before softmax.
 *
 * Mirrors Happy-LLM 2.1.5, in the 4-D form of 2.1.6's MultiHeadAttention:
 *
 *     if is_causal:
 *         mask = torch.full((1, 1, args.max_seq_len, args.max_seq_len), float("-inf"))
 *         mask = torch.triu(mask, diagonal=1)
 *         self.register_buffer("mask", mask)
 *     ...
 *     scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)
 *     if self.is_causal:
 *         scores = scores + self.mask[:, :, :seqlen, :seqlen]
 *     scores = F.softmax(scores.float(), dim=-1).type_as(xq)   (float32 here throughout)
 *     output = torch.matmul(scores, xv)
 *
 * masked_attention first (the forward above), then the buffer it is given
 * (causal_mask) and how it is added (apply_causal_mask, mask_slice); last the
 * other spelling, a boolean mask and masked_fill.
 */
#include "causal_mask.h"

Attention masked_attention(const Tensor *query, const Tensor *key, const Tensor *value, const Tensor *mask) {
    /* BEGIN BLANK masked_attention_forward */
    check_qkv("masked_attention", query, key, value);
    Attention a;
    /* scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim) */
    a.scores = scaled_scores(query, key);                        /* (..., T, S) */
    /* if self.is_causal: scores = scores + self.mask[:, :, :seqlen, :seqlen] */
    if (mask) a.scores = apply_causal_mask(a.scores, mask);      /* (..., T, T), -inf above the diagonal */
    /* scores = F.softmax(scores.float(), dim=-1) */
    a.weights = t_softmax(a.scores, -1);                         /* (..., T, S), 0 above the diagonal */
    /* output = torch.matmul(scores, xv) */
    a.output = weighted_sum(a.weights, value);                   /* (..., T, d_v) */
    return a;
    /* END BLANK */
}

Tensor *causal_mask(int64_t max_seq_len, int diagonal) {
    if (max_seq_len < 1)
        t_error("causal_mask: max_seq_len must be at least 1, got %lld", (long long)max_seq_len);
    check_mask_fits(max_seq_len);
    /* mask = torch.full((1, 1, args.max_seq_len, args.max_seq_len), float("-inf")) */
    Tensor *mask = t_full(SHAPE(1, 1, max_seq_len, max_seq_len), -INFINITY);  /* (1, 1, L, L) */
    /* BEGIN BLANK mask_diagonal */
    return t_triu(mask, diagonal);  /* mask = torch.triu(mask, diagonal=1)   (1, 1, L, L) */
    /* END BLANK */
}

/* The checks both spellings share: scores (..., T, S) with T == S. */
static void check_square(const char *op, const Tensor *scores) {
    char ss[T_SHAPE_STR];
    if (scores->ndim < 2)
        t_error("%s: scores %s need at least 2 dims (..., T, S)", op, t_shape_str(scores, ss));
    int64_t T = t_size(scores, -2), S = t_size(scores, -1);
    if (T != S)
        t_error("%s: scores %s have T %lld != S %lld, but a causal mask needs T == S "
                "(queries and keys from the same sequence)",
                op, t_shape_str(scores, ss), (long long)T, (long long)S);
}

Tensor *apply_causal_mask(const Tensor *scores, const Tensor *mask) {
    check_square("apply_causal_mask", scores);
    int64_t seqlen = t_size(scores, -1);
    Tensor *m = mask_slice(mask, seqlen);  /* self.mask[:, :, :seqlen, :seqlen]  (1, 1, T, T) */
    /* scores = scores + self.mask[:, :, :seqlen, :seqlen]:  (..., T, T) + (1, 1, T, T).
     * For scores with fewer than 4 dims the mask's (1, 1) in front would add two dims of
     * size 1, so the sum is viewed back to the shape of the scores, (..., T, T). */
    /* BEGIN BLANK add_mask */
    return t_view(t_add(scores, m), t_shape(scores));
    /* END BLANK */
}

Tensor *mask_slice(const Tensor *mask, int64_t seqlen) {
    char ms[T_SHAPE_STR];
    if (mask->ndim != 4 || mask->shape[0] != 1 || mask->shape[1] != 1 || mask->shape[2] != mask->shape[3])
        t_error("mask_slice: the mask buffer must have shape (1, 1, L, L), got %s", t_shape_str(mask, ms));
    int64_t max_seq_len = mask->shape[2];
    if (seqlen < 0)
        t_error("mask_slice: sequence length %lld is negative", (long long)seqlen);
    /* PyTorch's slice would quietly stop at L here and the addition would fail later with a
     * broadcast error; say what is really wrong instead. */
    check_seq_len(seqlen, max_seq_len);
    /* BEGIN BLANK mask_slice */
    Tensor *m = t_slice(mask, 2, 0, seqlen);  /* mask[:, :, :seqlen, :]        (1, 1, T, L) */
    m = t_slice(m, 3, 0, seqlen);             /* mask[:, :, :seqlen, :seqlen]  (1, 1, T, T) */
    return m;
    /* END BLANK */
}

void check_seq_len(int64_t seq_len, int64_t max_seq_len) {
    if (seq_len > max_seq_len)
        t_error(t_tr("sequence length %lld is longer than max_seq_len %lld, the size of the causal mask buffer"),
                (long long)seq_len, (long long)max_seq_len);
}

void check_mask_fits(int64_t max_seq_len) {
    /* In double: a large max_seq_len squared overflows int64 but not a double. */
    double bytes = 4.0 * (double)max_seq_len * (double)max_seq_len;
    if (bytes > (double)t_max_bytes()) {
        char want[32], limit[32];
        t_format_bytes_over(bytes, (double)t_max_bytes(), want, limit, sizeof want);
        t_error(t_tr("causal mask: the max_seq_len x max_seq_len buffer (1, 1, %lld, %lld) needs %s of float32, "
                     "more than the %s limit (ATTN_MAX_BYTES)"),
                (long long)max_seq_len, (long long)max_seq_len, want, limit);
    }
}

/* ---- the other spelling: a boolean mask and masked_fill (Raschka) ----------- */

Tensor *causal_mask_bool(int64_t max_seq_len) {
    if (max_seq_len < 1)
        t_error("causal_mask_bool: max_seq_len must be at least 1, got %lld", (long long)max_seq_len);
    t_check_fits("causal mask", SHAPE(max_seq_len, max_seq_len));
    /* torch.triu(torch.ones(seq_len, seq_len), diagonal=1): 1 = masked (the future), 0 = kept */
    return t_triu(t_ones(SHAPE(max_seq_len, max_seq_len)), 1);  /* (L, L) */
}

Tensor *apply_causal_mask_fill(const Tensor *scores, const Tensor *mask_bool) {
    char ms[T_SHAPE_STR];
    check_square("apply_causal_mask_fill", scores);
    if (mask_bool->ndim != 2 || mask_bool->shape[0] != mask_bool->shape[1])
        t_error("apply_causal_mask_fill: the boolean mask must have shape (L, L), got %s",
                t_shape_str(mask_bool, ms));
    int64_t seq_len = t_size(scores, -1), max_seq_len = mask_bool->shape[0];
    check_seq_len(seq_len, max_seq_len);
    /* mask_bool = self.mask.bool()[:seq_len, :seq_len] */
    Tensor *m = t_slice(t_slice(mask_bool, 0, 0, seq_len), 1, 0, seq_len);  /* (T, T) */
    /* BEGIN BLANK causal_masked_fill */
    return t_masked_fill(scores, m, -INFINITY);  /* (..., T, T) */
    /* END BLANK */
}
