/* multi_head.c — chapter 5: split d_out into heads, attend per head, merge.
 *
 * Mirrors the forward() of Happy-LLM 2.1.6's MultiHeadAttention:
 *
 *     xq = xq.view(bsz, seqlen, self.n_heads, self.head_dim)
 *     xq = xq.transpose(1, 2)                          # (bsz, n_heads, seqlen, head_dim)
 *     scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)
 *     if self.is_causal: scores = scores + self.mask[:, :, :seqlen, :seqlen]
 *     scores = F.softmax(scores.float(), dim=-1).type_as(xq)
 *     output = torch.matmul(scores, xv)                # (bsz, n_heads, seqlen, head_dim)
 *     output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
 *
 * The attention itself is chapter 4's masked_attention(): it already works on
 * any leading dims, so (bsz, n_heads) is just a batch of bsz * n_heads small
 * attentions, one per head, each over head_dim-wide vectors.
 *
 * In this file: multi_head_attention() (split, attend, merge), then the two
 * pieces it calls in that order, split_heads() and merge_heads(), then
 * head_dim_of(); multi_head_wrapper(), the same output as n_heads single-head
 * attentions; last the checks that turn wrong shapes or sizes into sentences.
 */
#include "multi_head.h"

static void check_projected(const Tensor *xq, const Tensor *xk, const Tensor *xv);  /* shapes, at the end */

Attention multi_head_attention(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t n_heads,
                               const Tensor *mask) {
    check_projected(xq, xk, xv);
    head_dim_of(xq->shape[2], n_heads);  /* d_out % n_heads == 0, or a sentence */
    check_scores_fit(xq->shape[0], n_heads, xq->shape[1], xk->shape[1]);
    if (mask) mask_slice(mask, xq->shape[1]);  /* seqlen <= max_seq_len, or chapter 4's sentence */
    /* BEGIN BLANK multi_head_attention_forward */
    /* xq, xk, xv = view(bsz, seqlen, n_heads, head_dim).transpose(1, 2) */
    Tensor *q = split_heads(xq, n_heads);  /* (bsz, n_heads, seqlen, head_dim) */
    Tensor *k = split_heads(xk, n_heads);  /* (bsz, n_heads, kvlen, head_dim)  */
    Tensor *v = split_heads(xv, n_heads);  /* (bsz, n_heads, kvlen, head_dim)  */
    /* scores = matmul(xq, xk.transpose(2, 3)) / sqrt(head_dim) [+ mask]; softmax; matmul(scores, xv) */
    Attention a = masked_attention(q, k, v, mask);  /* scores, weights (bsz, n_heads, seqlen, kvlen) */
    /* output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1) */
    a.output = merge_heads(a.output);               /* (bsz, seqlen, d_out) */
    return a;
    /* END BLANK */
}

Tensor *split_heads(const Tensor *x, int64_t n_heads) {
    char xs[T_SHAPE_STR];
    if (x->ndim != 3)
        t_error("split_heads: x must be (bsz, seqlen, d_out), got %s", t_shape_str(x, xs));
    int64_t bsz = x->shape[0], seqlen = x->shape[1], d_out = x->shape[2];
    int64_t head_dim = head_dim_of(d_out, n_heads);
    /* BEGIN BLANK split_heads */
    /* xq = xq.view(bsz, seqlen, self.n_heads, self.head_dim) */
    Tensor *xh = t_view(x, SHAPE(bsz, seqlen, n_heads, head_dim));  /* (bsz, seqlen, n_heads, head_dim) */
    /* xq = xq.transpose(1, 2) */
    xh = t_transpose(xh, 1, 2);                                      /* (bsz, n_heads, seqlen, head_dim) */
    return xh;
    /* END BLANK */
}

Tensor *merge_heads(const Tensor *x) {
    char xs[T_SHAPE_STR];
    if (x->ndim != 4)
        t_error("merge_heads: x must be (bsz, n_heads, seqlen, head_dim), got %s", t_shape_str(x, xs));
    int64_t bsz = x->shape[0], seqlen = x->shape[2];
    /* BEGIN BLANK merge_heads */
    /* output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1) */
    Tensor *out = t_transpose(x, 1, 2);          /* (bsz, seqlen, n_heads, head_dim), not contiguous */
    out = t_contiguous(out);                     /* same shape, a row-major copy                     */
    return t_view(out, SHAPE(bsz, seqlen, -1));  /* (bsz, seqlen, d_out)                             */
    /* END BLANK */
}

int64_t head_dim_of(int64_t d_out, int64_t n_heads) {
    if (n_heads < 1)
        t_error("multi-head attention: n_heads must be at least 1, got %lld", (long long)n_heads);
    if (d_out < 1)
        t_error("multi-head attention: d_out must be at least 1, got %lld", (long long)d_out);
    /* assert args.dim % args.n_heads == 0 */
    if (d_out % n_heads != 0)
        t_error("multi-head attention: d_out %lld is not divisible by n_heads %lld "
                "(%lld %% %lld = %lld), so the heads cannot each get head_dim = d_out / n_heads columns",
                (long long)d_out, (long long)n_heads, (long long)d_out, (long long)n_heads,
                (long long)(d_out % n_heads));
    /* BEGIN BLANK head_dim */
    return d_out / n_heads;
    /* END BLANK */
}

Tensor *multi_head_wrapper(const QKVProjection *p, const Tensor *x, int64_t n_heads, const Tensor *mask) {
    char xs[T_SHAPE_STR];
    int64_t head_dim = head_dim_of(p->d_out, n_heads);
    if (x->ndim != 3)
        t_error("multi_head_wrapper: x must be (bsz, seqlen, d_in), got %s", t_shape_str(x, xs));
    int64_t bsz = x->shape[0], seqlen = x->shape[1];
    check_scores_fit(bsz, n_heads, seqlen, seqlen);
    /* torch.cat([head(x) for head in self.heads], dim=-1) */
    Tensor *context = t_zeros(SHAPE(bsz, seqlen, p->d_out));  /* (bsz, seqlen, d_out) */
    for (int64_t h = 0; h < n_heads; h++) {
        QKVProjection head = {p->d_in, head_dim, NULL, NULL, NULL};
        int64_t lo = h * head_dim, hi = (h + 1) * head_dim;
        /* BEGIN BLANK wrapper_head_weights */
        head.wq = nn_linear_from("wq", t_slice(p->wq->weight, 0, lo, hi),
                                 p->wq->bias ? t_slice(p->wq->bias, 0, lo, hi) : NULL);  /* (head_dim, d_in) */
        head.wk = nn_linear_from("wk", t_slice(p->wk->weight, 0, lo, hi),
                                 p->wk->bias ? t_slice(p->wk->bias, 0, lo, hi) : NULL);
        head.wv = nn_linear_from("wv", t_slice(p->wv->weight, 0, lo, hi),
                                 p->wv->bias ? t_slice(p->wv->bias, 0, lo, hi) : NULL);
        /* END BLANK */
        /* one single-head self-attention: CausalAttention(d_in, head_dim) in Raschka's wrapper */
        Tensor *q, *k, *v;
        qkv_project(&head, x, &q, &k, &v);                  /* (bsz, seqlen, head_dim) each */
        Attention a = masked_attention(q, k, v, mask);      /* output (bsz, seqlen, head_dim) */
        /* its columns of the concatenation: context[..., lo:hi] = head output */
        t_copy_(t_slice(context, 2, lo, hi), a.output);
    }
    return context;
}

/* xq (b, t, d), xk and xv (b, s, d): the shapes the split needs. */
static void check_projected(const Tensor *xq, const Tensor *xk, const Tensor *xv) {
    char qs[T_SHAPE_STR], ks[T_SHAPE_STR], vs[T_SHAPE_STR];
    if (xq->ndim != 3 || xk->ndim != 3 || xv->ndim != 3)
        t_error("multi_head_attention: xq %s, xk %s and xv %s must each be (bsz, seqlen, d_out)",
                t_shape_str(xq, qs), t_shape_str(xk, ks), t_shape_str(xv, vs));
    if (xk->shape[0] != xq->shape[0] || xv->shape[0] != xq->shape[0] || xk->shape[1] != xv->shape[1] ||
        xk->shape[2] != xq->shape[2] || xv->shape[2] != xq->shape[2])
        t_error("multi_head_attention: xq %s, xk %s and xv %s must share bsz and d_out, "
                "and xk and xv the length S",
                t_shape_str(xq, qs), t_shape_str(xk, ks), t_shape_str(xv, vs));
}

void check_scores_fit(int64_t bsz, int64_t n_heads, int64_t seqlen, int64_t kvlen) {
    /* In double: 1e6^4 floats overflow int64 but not a double. */
    double bytes = 4.0 * (double)bsz * (double)n_heads * (double)seqlen * (double)kvlen;
    if (bytes > (double)t_max_bytes()) {
        char want[32], limit[32];
        t_format_bytes_over(bytes, (double)t_max_bytes(), want, limit, sizeof want);
        t_error(t_tr("multi-head attention: the scores (%lld, %lld, %lld, %lld) need %s of float32, more than "
                     "the %s limit (ATTN_MAX_BYTES), because naive attention stores every query-key score at "
                     "once; chapter 8 (fast attention) computes the same output without storing them"),
                (long long)bsz, (long long)n_heads, (long long)seqlen, (long long)kvlen, want, limit);
    }
}
