/* grad_check.c — chapter 10: the gradient check, central differences in float64.
 *
 * First a float64 copy of chapter 7's forward (the reference, as
 * torch.autograd.gradcheck runs its module in double), then the check: nudge
 * one number of x or of a parameter by +h and -h, run the reference forward
 * twice, and compare (loss(v + h) - loss(v - h)) / 2h with what the float32
 * backward of backward.c said.
 */
#include "grad_check.h"

/* ---- the float64 reference forward ------------------------------------------ */

double *t_to_double(const Tensor *t) {
    double *d = (double *)t_alloc(sizeof(double) * (size_t)(t_numel(t) > 0 ? t_numel(t) : 1));
    for (int64_t i = 0; i < t_numel(t); i++) d[i] = (double)t_flat_get(t, i);   /* row-major */
    return d;
}

static double *to_double_or_null(const Tensor *t) { return t ? t_to_double(t) : NULL; }

Mha64 mha64_from(const MultiHeadAttention *m) {
    Mha64 r;
    r.d_in = m->args.d_in;
    r.d_out = m->args.d_out;
    r.n_heads = m->args.n_heads;
    r.head_dim = m->head_dim;
    r.causal = m->args.causal;
    r.wq = t_to_double(m->qkv->wq->weight);   /* (d_out, d_in)  */
    r.wk = t_to_double(m->qkv->wk->weight);
    r.wv = t_to_double(m->qkv->wv->weight);
    r.wo = t_to_double(m->wo->weight);        /* (d_out, d_out) */
    r.bq = to_double_or_null(m->qkv->wq->bias);   /* (d_out,) or NULL */
    r.bk = to_double_or_null(m->qkv->wk->bias);
    r.bv = to_double_or_null(m->qkv->wv->bias);
    r.bo = to_double_or_null(m->wo->bias);
    return r;
}

static double *zeros64(int64_t n) { return (double *)t_alloc(sizeof(double) * (size_t)(n > 0 ? n : 1)); }

/* nn.Linear: y = x @ w.T + b, x (n, in), w (out, in), b (out,) or NULL, y (n, out). */
static double *linear64(const double *x, int64_t n, int64_t in, const double *w, const double *b, int64_t out) {
    double *y = zeros64(n * out);
    for (int64_t r = 0; r < n; r++)
        for (int64_t o = 0; o < out; o++) {
            double s = b ? b[o] : 0.0;
            for (int64_t i = 0; i < in; i++) s += x[r * in + i] * w[o * in + i];
            y[r * out + o] = s;
        }
    return y;
}

/* x.view(bsz, seqlen, H, hd).transpose(1, 2).contiguous(): (bsz, seqlen, H*hd) -> (bsz, H, seqlen, hd). */
static double *split_heads64(const double *x, int64_t bsz, int64_t seqlen, int64_t H, int64_t hd) {
    double *y = zeros64(bsz * H * seqlen * hd);
    for (int64_t b = 0; b < bsz; b++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t t = 0; t < seqlen; t++)
                for (int64_t d = 0; d < hd; d++)
                    y[((b * H + h) * seqlen + t) * hd + d] = x[(b * seqlen + t) * (H * hd) + h * hd + d];
    return y;
}

/* x.transpose(1, 2).contiguous().view(bsz, seqlen, -1): (bsz, H, seqlen, hd) -> (bsz, seqlen, H*hd). */
static double *merge_heads64(const double *x, int64_t bsz, int64_t seqlen, int64_t H, int64_t hd) {
    double *y = zeros64(bsz * seqlen * H * hd);
    for (int64_t b = 0; b < bsz; b++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t t = 0; t < seqlen; t++)
                for (int64_t d = 0; d < hd; d++)
                    y[(b * seqlen + t) * (H * hd) + h * hd + d] = x[((b * H + h) * seqlen + t) * hd + d];
    return y;
}

/* F.softmax(s, dim=-1) on one row of n, in place; -inf entries get weight 0. */
static void softmax_row64(double *s, int64_t n) {
    double mx = -INFINITY, sum = 0.0;
    for (int64_t j = 0; j < n; j++) mx = s[j] > mx ? s[j] : mx;
    for (int64_t j = 0; j < n; j++) sum += (s[j] = exp(s[j] - mx));
    for (int64_t j = 0; j < n; j++) s[j] /= sum;
}

void mha64_forward(const Mha64 *m, const double *x, int64_t bsz, int64_t seqlen, const double *attn_mask,
                   const double *resid_mask, double *y) {
    int64_t H = m->n_heads, hd = m->head_dim, n = bsz * seqlen, T = seqlen;
    /* xq, xk, xv = self.wq(x), self.wk(x), self.wv(x) */
    double *xq = linear64(x, n, m->d_in, m->wq, m->bq, m->d_out);   /* (bsz, seqlen, d_out) */
    double *xk = linear64(x, n, m->d_in, m->wk, m->bk, m->d_out);
    double *xv = linear64(x, n, m->d_in, m->wv, m->bv, m->d_out);
    /* xq = xq.view(bsz, seqlen, n_heads, head_dim).transpose(1, 2), the same for xk, xv */
    xq = split_heads64(xq, bsz, T, H, hd);   /* (bsz, n_heads, seqlen, head_dim) */
    xk = split_heads64(xk, bsz, T, H, hd);
    xv = split_heads64(xv, bsz, T, H, hd);
    /* scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim) */
    double *scores = zeros64(bsz * H * T * T);   /* (bsz, n_heads, seqlen, seqlen) */
    for (int64_t bh = 0; bh < bsz * H; bh++)
        for (int64_t i = 0; i < T; i++)
            for (int64_t j = 0; j < T; j++) {
                double s = 0.0;
                for (int64_t d = 0; d < hd; d++) s += xq[(bh * T + i) * hd + d] * xk[(bh * T + j) * hd + d];
                scores[(bh * T + i) * T + j] = s / sqrt((double)hd);
            }
    /* scores = scores + self.mask[:, :, :seqlen, :seqlen]: -inf above the diagonal */
    if (m->causal)
        for (int64_t bh = 0; bh < bsz * H; bh++)
            for (int64_t i = 0; i < T; i++)
                for (int64_t j = i + 1; j < T; j++) scores[(bh * T + i) * T + j] = -INFINITY;
    /* scores = F.softmax(scores, dim=-1) */
    for (int64_t r = 0; r < bsz * H * T; r++) softmax_row64(scores + r * T, T);
    /* scores = self.attn_dropout(scores): the mask the float32 forward drew, fixed */
    if (attn_mask)
        for (int64_t i = 0; i < bsz * H * T * T; i++) scores[i] *= attn_mask[i];
    /* output = torch.matmul(scores, xv) */
    double *output = zeros64(bsz * H * T * hd);   /* (bsz, n_heads, seqlen, head_dim) */
    for (int64_t bh = 0; bh < bsz * H; bh++)
        for (int64_t i = 0; i < T; i++)
            for (int64_t d = 0; d < hd; d++) {
                double s = 0.0;
                for (int64_t j = 0; j < T; j++) s += scores[(bh * T + i) * T + j] * xv[(bh * T + j) * hd + d];
                output[(bh * T + i) * hd + d] = s;
            }
    /* output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1) */
    double *merged = merge_heads64(output, bsz, T, H, hd);   /* (bsz, seqlen, d_out) */
    /* output = self.resid_dropout(self.wo(output)) */
    double *projected = linear64(merged, n, m->d_out, m->wo, m->bo, m->d_out);   /* (bsz, seqlen, d_out) */
    for (int64_t i = 0; i < n * m->d_out; i++) y[i] = projected[i] * (resid_mask ? resid_mask[i] : 1.0);
}

/* ---- the check ---------------------------------------------------------------- */

/* Everything one loss evaluation needs, in double. */
typedef struct {
    const Mha64 *m;
    const double *x, *dy, *attn_mask, *resid_mask;
    int64_t bsz, seqlen;
    double *y;
} LossCase;

/* loss = (y * dy).sum(), y = the float64 forward. */
static double loss64(const LossCase *c) {
    t_scope_begin();   /* the forward's scratch */
    mha64_forward(c->m, c->x, c->bsz, c->seqlen, c->attn_mask, c->resid_mask, c->y);
    t_scope_end();
    double loss = 0.0;
    for (int64_t i = 0; i < c->bsz * c->seqlen * c->m->d_out; i++) loss += c->y[i] * c->dy[i];
    return loss;
}

/* Central differences for every entry of v (n numbers that c's forward reads), compared with g. */
static GradCheckRow check_tensor(const char *name, double *v, int64_t n, const Tensor *g, double h,
                                 const LossCase *c) {
    if (!g || t_numel(g) != n)
        t_error("grad_check: the gradient of %s must have %lld numbers, like %s itself", name, (long long)n, name);
    GradCheckRow row = {name, n, 0.0, 0.0, 0.0};
    for (int64_t i = 0; i < n; i++) {
        double keep = v[i];
        v[i] = keep + h;
        double l_up = loss64(c);
        v[i] = keep - h;
        double l_down = loss64(c);
        v[i] = keep;
        double fd = (l_up - l_down) / (2.0 * h);   /* float64 all the way */
        double bw = (double)t_flat_get(g, i);      /* the float32 backward */
        if (fabs(fd) > row.max_abs_grad) row.max_abs_grad = fabs(fd);
        if (isnan(bw) || isnan(fd)) row.max_abs_err = NAN;
        else if (!isnan(row.max_abs_err) && fabs(fd - bw) > row.max_abs_err) row.max_abs_err = fabs(fd - bw);
    }
    /* relative to the largest gradient, or absolute when every gradient is below 1 (bk's are all 0) */
    row.max_rel_err = row.max_abs_err / (row.max_abs_grad > 1.0 ? row.max_abs_grad : 1.0);
    return row;
}

int grad_check_grads(const MultiHeadAttention *m, const MhaCache *cache, const Tensor *dy, const MhaGrads *g,
                     double h, GradCheckRow *rows) {
    char ys[T_SHAPE_STR], ds[T_SHAPE_STR];
    if (!(h > 0.0)) t_error("grad_check: the step h must be positive, got %g", h);
    if (!t_same_shape(dy, cache->trace.projected))
        t_error("grad_check: dy has shape %s but the output y has shape %s", t_shape_str(dy, ds),
                t_shape_str(cache->trace.projected, ys));
    Mha64 m64 = mha64_from(m);
    LossCase c;
    c.m = &m64;
    c.bsz = t_size(cache->x, 0);
    c.seqlen = t_size(cache->x, 1);
    double *x = t_to_double(cache->x);                /* (bsz, seqlen, d_in) */
    c.x = x;
    c.dy = t_to_double(dy);                           /* (bsz, seqlen, d_out) */
    c.attn_mask = t_to_double(cache->attn_mask);      /* (bsz, H, seqlen, seqlen): ones in eval mode */
    c.resid_mask = t_to_double(cache->resid_mask);    /* (bsz, seqlen, d_out) */
    c.y = zeros64(c.bsz * c.seqlen * m64.d_out);
    int64_t din = m64.d_in, dout = m64.d_out;
    int n = 0;
    rows[n++] = check_tensor("x", x, t_numel(cache->x), g->dx, h, &c);
    rows[n++] = check_tensor("wq", m64.wq, dout * din, g->dwq, h, &c);
    rows[n++] = check_tensor("wk", m64.wk, dout * din, g->dwk, h, &c);
    rows[n++] = check_tensor("wv", m64.wv, dout * din, g->dwv, h, &c);
    rows[n++] = check_tensor("wo", m64.wo, dout * dout, g->dwo, h, &c);
    if (m64.bq) rows[n++] = check_tensor("bq", m64.bq, dout, g->dbq, h, &c);
    if (m64.bk) rows[n++] = check_tensor("bk", m64.bk, dout, g->dbk, h, &c);
    if (m64.bv) rows[n++] = check_tensor("bv", m64.bv, dout, g->dbv, h, &c);
    if (m64.bo) rows[n++] = check_tensor("bo", m64.bo, dout, g->dbo, h, &c);
    return n;
}

int grad_check(const MultiHeadAttention *m, const Tensor *x, const Tensor *dy, double h, GradCheckRow *rows) {
    Rng state = *t_default_rng();
    MhaCache cache;
    mha_forward_cached(m, x, &cache);          /* float32, chapter 7 */
    MhaGrads g = mha_backward(m, &cache, dy);  /* float32, by hand   */
    *t_default_rng() = state;
    return grad_check_grads(m, &cache, dy, &g, h, rows);
}

double grad_check_worst(const GradCheckRow *rows, int n) {
    double worst = 0.0;
    for (int i = 0; i < n; i++)
        if (isnan(rows[i].max_rel_err) || rows[i].max_rel_err > worst) worst = rows[i].max_rel_err;
    return worst;
}
