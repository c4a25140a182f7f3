/* gqa.c — chapter 11: repeat_kv as Happy-LLM 5.1.3.1 writes it, and the same without the copy. */
#include "gqa.h"

Tensor *repeat_kv(const Tensor *x, int64_t n_rep) {
    char xs[T_SHAPE_STR];
    if (x->ndim != 4 || n_rep < 1)
        t_error("repeat_kv: x %s must be (bs, slen, n_kv_heads, head_dim) and n_rep = %lld at least 1",
                t_shape_str(x, xs), (long long)n_rep);
    /* bs, slen, n_kv_heads, head_dim = x.shape */
    int64_t bs = x->shape[0], slen = x->shape[1], n_kv_heads = x->shape[2], head_dim = x->shape[3];
    /* if n_rep == 1: return x */
    if (n_rep == 1) return (Tensor *)x;
    /* BEGIN BLANK repeat_kv */
    Tensor *e = t_unsqueeze(x, 3);                                     /* x[:, :, :, None, :]: a new axis of 1 */
    e = t_expand(e, SHAPE(bs, slen, n_kv_heads, n_rep, head_dim));     /* .expand(...): stride 0, no copy yet */
    return t_reshape(e, SHAPE(bs, slen, n_kv_heads * n_rep, head_dim)); /* .reshape(...): the copy is made here */
    /* END BLANK */
}

int64_t kv_head_of(int64_t h, int64_t n_rep) {
    return h / n_rep;  /* heads h = g * n_rep .. g * n_rep + n_rep - 1 share kv head g */
}

int64_t n_rep_of(int64_t n_heads, int64_t n_kv_heads) {
    /* assert args.n_heads % self.n_kv_heads == 0 */
    if (n_kv_heads < 1 || n_heads < 1 || n_heads % n_kv_heads != 0)
        t_error(t_tr("n_kv_heads = %lld must divide n_heads = %lld: each key/value head serves a whole group of "
                "query heads"),
                (long long)n_kv_heads, (long long)n_heads);
    return n_heads / n_kv_heads;  /* self.n_rep = self.n_local_heads // self.n_local_kv_heads */
}

Tensor *grouped_attention(const Tensor *xq, const Tensor *xk, const Tensor *xv, const Tensor *mask) {
    char qs[T_SHAPE_STR], ks[T_SHAPE_STR], vs[T_SHAPE_STR];
    if (xq->ndim != 4 || xk->ndim != 4 || !t_same_shape(xk, xv) || xq->shape[0] != xk->shape[0] ||
        xq->shape[2] != xk->shape[2] || xq->shape[3] != xk->shape[3])
        t_error("grouped_attention: xq %s must be (bs, n_heads, seqlen, hd) and xk %s, xv %s "
                "(bs, n_kv_heads, seqlen, hd)",
                t_shape_str(xq, qs), t_shape_str(xk, ks), t_shape_str(xv, vs));
    int64_t bs = xq->shape[0], n_heads = xq->shape[1], seqlen = xq->shape[2], hd = xq->shape[3];
    int64_t n_rep = n_rep_of(n_heads, xk->shape[1]);
    Tensor *output = t_zeros(t_shape(xq));                          /* (bs, n_heads, seqlen, hd) */
    for (int64_t b = 0; b < bs; b++) {
        for (int64_t h = 0; h < n_heads; h++) {
            const Tensor *q = t_select(t_select(xq, 0, b), 0, h);   /* (seqlen, hd)                 */
            int64_t g = kv_head_of(h, n_rep);                        /* the kv head of this group    */
            Tensor *k = t_select(t_select(xk, 0, b), 0, g);         /* (seqlen, hd), a view: no copy */
            Tensor *v = t_select(t_select(xv, 0, b), 0, g);
            Attention a = masked_attention(q, k, v, mask);           /* chapter 4: softmax(qkᵀ/√hd + mask) v */
            t_copy_(t_select(t_select(output, 0, b), 0, h), t_view(a.output, SHAPE(seqlen, hd)));
        }
    }
    return output;
}
