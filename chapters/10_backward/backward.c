/* backward.c — chapter 10: the backward of every piece of MultiHeadAttention.
 *
 * Chapter 7's forward, step by step, and what each step sends back:
 *
 *     xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)      linear_backward x 3, dx summed
 *     xq = xq.view(b, t, H, hd).transpose(1, 2)            split_heads_backward
 *     scores = torch.matmul(xq, xk.transpose(2, 3))        matmul_backward
 *              / math.sqrt(self.head_dim)                  scale_backward
 *     scores = scores + self.mask[:, :, :t, :t]            causal_mask_backward
 *     scores = F.softmax(scores.float(), dim=-1)           softmax_backward
 *     scores = self.attn_dropout(scores)                   dropout_backward
 *     output = torch.matmul(scores, xv)                    matmul_backward
 *     output = output.transpose(1, 2).contiguous().view(b, t, -1)   merge_heads_backward
 *     output = self.wo(output)                             linear_backward
 *     output = self.resid_dropout(output)                  dropout_backward
 *
 * mha_backward() runs them bottom to top, and this file reads the same way:
 * mha_backward() first, then each piece in the order it calls them, from
 * resid_dropout back to the three projections, and last the forward that
 * fills the cache. The forward is chapter 7's own mha_forward(): nothing here
 * computes a forward step again.
 */
#include "backward.h"

/* ---- the whole module, backwards ----------------------------------------------- */

MhaGrads mha_backward(const MultiHeadAttention *m, const MhaCache *c, const Tensor *dy) {
    char ys[T_SHAPE_STR], ds[T_SHAPE_STR];
    const MhaTrace *tr = &c->trace;
    if (!t_same_shape(dy, tr->projected))
        t_error("mha_backward: dy has shape %s but the output y has shape %s; dloss/dy must be y's shape",
                t_shape_str(dy, ds), t_shape_str(tr->projected, ys));
    int64_t n_heads = m->args.n_heads;
    MhaGrads g = {0};

    /* output = self.resid_dropout(output), Happy-LLM's class only: without it dy passes unchanged */
    Tensor *dprojected = tr->resid_mask ? dropout_backward(dy, tr->resid_mask) : t_clone(dy);   /* (B, T, d_out) */
    /* output = self.wo(output) */
    Tensor *dmerged;
    linear_backward(m->wo, tr->merged, dprojected, &dmerged, &g.dwo, &g.dbo);  /* (B, T, d_out) */
    /* output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1) */
    Tensor *doutput = merge_heads_backward(dmerged, n_heads);                 /* (B, H, T, hd) */
    /* output = torch.matmul(scores, xv) */
    Tensor *dattn_dropped, *dxv;
    matmul_backward(tr->attn_dropped, tr->xv, doutput, &dattn_dropped, &dxv);  /* (B, H, T, T), (B, H, T, hd) */
    /* scores = self.attn_dropout(scores) */
    Tensor *dattn = dropout_backward(dattn_dropped, tr->attn_mask);           /* (B, H, T, T) */
    /* scores = F.softmax(scores.float(), dim=-1) */
    Tensor *dscores = softmax_backward(tr->attn_weights, dattn);              /* (B, H, T, T) */
    /* scores = scores + self.mask[:, :, :seqlen, :seqlen] */
    if (m->args.causal) dscores = causal_mask_backward(dscores);              /* (B, H, T, T) */
    /* scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim) */
    Tensor *draw = scale_backward(dscores, m->head_dim);                      /* (B, H, T, T) */
    Tensor *dxq, *dxkT;
    matmul_backward(tr->xq, t_transpose(tr->xk, 2, 3), draw, &dxq, &dxkT);    /* (B, H, T, hd), (B, H, hd, T) */
    Tensor *dxk = t_transpose(dxkT, 2, 3);                                    /* the transpose's backward: transpose */
    /* xq = xq.view(bsz, seqlen, n_heads, head_dim).transpose(1, 2), the same for xk, xv */
    Tensor *dq = split_heads_backward(dxq);                                   /* (B, T, d_out) */
    Tensor *dk = split_heads_backward(dxk);
    Tensor *dv = split_heads_backward(dxv);
    /* xq, xk, xv = self.wq(x), self.wk(x), self.wv(x) */
    Tensor *dx_q, *dx_k, *dx_v;
    linear_backward(m->qkv->wq, c->x, dq, &dx_q, &g.dwq, &g.dbq);            /* (B, T, d_in) each */
    linear_backward(m->qkv->wk, c->x, dk, &dx_k, &g.dwk, &g.dbk);
    linear_backward(m->qkv->wv, c->x, dv, &dx_v, &g.dwv, &g.dbv);
    /* x feeds three layers: its gradient is the sum of the three */
    g.dx = t_add(t_add(dx_q, dx_k), dx_v);                                    /* (B, T, d_in) */
    g.dprojected = dprojected;
    g.dmerged = dmerged;
    g.doutput = doutput;
    g.dattn_dropped = dattn_dropped;
    g.dattn_weights = dattn;
    g.dscores = dscores;
    g.dxq = dxq;
    g.dxk = dxk;
    g.dxv = dxv;
    return g;
}

/* ---- dropout ------------------------------------------------------------------------ */

Tensor *dropout_backward(const Tensor *dy, const Tensor *mask) {
    char ds[T_SHAPE_STR], ms[T_SHAPE_STR];
    if (!t_same_shape(dy, mask))
        t_error("dropout_backward: dy %s and the dropout mask %s must have the same shape", t_shape_str(dy, ds),
                t_shape_str(mask, ms));
    /* y = x * mask: a dropped element passed nothing forward and gets nothing back;
     * a kept one was scaled by 1/(1-p) and its gradient is scaled the same */
    return t_mul(dy, mask);   /* same shape */
}

/* ---- nn.Linear -------------------------------------------------------------- */

void linear_backward(const Linear *layer, const Tensor *x, const Tensor *dy, Tensor **dx, Tensor **dweight,
                     Tensor **dbias) {
    char xs[T_SHAPE_STR], ds[T_SHAPE_STR];
    int64_t in = layer->in_features, out = layer->out_features;
    if (x->ndim < 1 || dy->ndim != x->ndim || x->shape[x->ndim - 1] != in || dy->shape[dy->ndim - 1] != out)
        t_error("linear_backward: x %s and dy %s must be (..., %lld) and (..., %lld) with the same leading dims",
                t_shape_str(x, xs), t_shape_str(dy, ds), (long long)in, (long long)out);
    for (int i = 0; i + 1 < x->ndim; i++)
        if (x->shape[i] != dy->shape[i])
            t_error("linear_backward: x %s and dy %s must have the same leading dims", t_shape_str(x, xs),
                    t_shape_str(dy, ds));
    int64_t n = t_numel(x) / in;                          /* every leading dim is one more row */
    /* BEGIN BLANK linear_backward */
    Tensor *x2 = t_reshape(x, SHAPE(n, in));              /* (n, in)  */
    Tensor *dy2 = t_reshape(dy, SHAPE(n, out));           /* (n, out) */
    /* x.grad = dy @ W: each input feature collects from every output it fed */
    *dx = t_reshape(t_matmul(dy2, layer->weight), t_shape(x));   /* (..., in) */
    /* W.grad = dy.T @ x: summed over every row (token) that used W */
    *dweight = t_matmul(t_transpose(dy2, 0, 1), x2);            /* (out, in) */
    /* b.grad = dy.sum(0): the bias is added to every row */
    if (dbias) *dbias = layer->bias ? t_sum_last(t_transpose(dy2, 0, 1)) : NULL;   /* (out,) */
    /* END BLANK */
}

/* ---- merge heads ----------------------------------------------------------------- */

Tensor *merge_heads_backward(const Tensor *dy, int64_t n_heads) {
    /* the backward of transpose(1, 2).contiguous().view(b, t, -1) is view + transpose: chapter 5's split */
    return split_heads(dy, n_heads);   /* (b, t, d_out) -> (b, H, t, hd) */
}

/* ---- torch.matmul --------------------------------------------------------------- */

void matmul_backward(const Tensor *a, const Tensor *b, const Tensor *dc, Tensor **da, Tensor **db) {
    char as[T_SHAPE_STR], bs[T_SHAPE_STR], cs[T_SHAPE_STR];
    int nd = a->ndim;
    bool ok = nd >= 2 && b->ndim == nd && dc->ndim == nd && a->shape[nd - 1] == b->shape[nd - 2] &&
              dc->shape[nd - 2] == a->shape[nd - 2] && dc->shape[nd - 1] == b->shape[nd - 1];
    for (int i = 0; ok && i < nd - 2; i++) ok = a->shape[i] == b->shape[i] && a->shape[i] == dc->shape[i];
    if (!ok)
        t_error("matmul_backward: a %s @ b %s cannot give dc %s: expected (..., n, k) @ (..., k, m) -> (..., n, m) "
                "with the same leading dims",
                t_shape_str(a, as), t_shape_str(b, bs), t_shape_str(dc, cs));
    /* c[i, j] = sum_k a[i, k] b[k, j], so dc[i, j] reaches a[i, k] through b[k, j] and b[k, j] through a[i, k] */
    *da = t_matmul(dc, t_transpose(b, -2, -1));   /* (..., n, m) @ (..., m, k) -> (..., n, k) */
    *db = t_matmul(t_transpose(a, -2, -1), dc);   /* (..., k, n) @ (..., n, m) -> (..., k, m) */
}

/* ---- softmax ---------------------------------------------------------------------- */

Tensor *softmax_backward(const Tensor *p, const Tensor *dp) {
    char ps[T_SHAPE_STR], ds[T_SHAPE_STR];
    if (!t_same_shape(p, dp) || p->ndim < 1)
        t_error("softmax_backward: the weights p %s and their gradient dp %s must have the same shape",
                t_shape_str(p, ps), t_shape_str(dp, ds));
    Tensor *pc = t_contiguous(p), *dpc = t_contiguous(dp);
    Tensor *ds_ = t_empty_like(p);                  /* (..., S) */
    int64_t S = p->shape[p->ndim - 1];
    int64_t rows = S ? t_numel(p) / S : 0;
    const float *P = t_data(pc), *dP = t_data(dpc);
    float *dS = t_data(ds_);
    for (int64_t r = 0; r < rows; r++) {
        const float *pr = P + r * S, *dpr = dP + r * S;
        float *dsr = dS + r * S;
        /* BEGIN BLANK softmax_backward */
        double dot = 0.0;                            /* (dp * p).sum(dim=-1, keepdim=True) */
        for (int64_t j = 0; j < S; j++) dot += (double)dpr[j] * (double)pr[j];
        for (int64_t i = 0; i < S; i++) dsr[i] = (float)((double)pr[i] * ((double)dpr[i] - dot));   /* p * (dp - dot) */
        /* END BLANK */
    }
    return ds_;
}

/* ---- the additive causal mask ---------------------------------------------------- */

Tensor *causal_mask_backward(const Tensor *dscores) {
    /* scores + mask: d(scores + mask)/d scores = 1, and the mask (a buffer) needs no gradient.
     * Where the mask put -inf the softmax weight is 0, so softmax_backward already sent 0 there. */
    return t_clone(dscores);   /* same shape */
}

/* ---- the 1/sqrt(d_k) scale ---------------------------------------------------------- */

Tensor *scale_backward(const Tensor *dscores, int64_t d_k) {
    if (d_k < 1) t_error("scale_backward: d_k must be at least 1, got %lld", (long long)d_k);
    /* scores = raw / math.sqrt(d_k) is a constant factor: the gradient gets the same factor */
    return t_div_scalar(dscores, (float)sqrt((double)d_k));   /* same shape */
}

/* ---- split heads ------------------------------------------------------------------ */

Tensor *split_heads_backward(const Tensor *dxh) {
    /* the backward of view + transpose(1, 2) is transpose(1, 2) + view: chapter 5's merge */
    return merge_heads(dxh);   /* (b, H, t, hd) -> (b, t, H * hd) */
}

/* ---- the forward that fills the cache ------------------------------------------ */

Tensor *mha_forward_cached(const MultiHeadAttention *m, const Tensor *x, MhaCache *cache) {
    /* chapter 7's forward; the trace keeps its activations and the dropout masks it applied */
    Tensor *y = mha_forward(m, x, x, x, &cache->trace);   /* (B, T, d_out) */
    cache->x = x;
    return y;
}
