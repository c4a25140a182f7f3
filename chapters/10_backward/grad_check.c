/* grad_check.c — chapter 10: the gradient check, central differences in float64.
 *
 * Nudge one number of x or of a parameter by +h and -h, run the float64
 * reference forward (reference64.c, as torch.autograd.gradcheck runs its
 * module in double) twice, and compare (loss(v + h) - loss(v - h)) / 2h with
 * what the float32 backward of backward.c said.
 */
#include "grad_check.h"

/* ---- the check ---------------------------------------------------------------- */

/* Everything one loss evaluation needs, in double. */
typedef struct {
    const Mha64 *m;
    const double *x, *dy, *attn_mask, *resid_mask;
    int64_t bsz, seqlen;
    double *y;
} LossCase;

static GradCheckRow check_tensor(const char *name, double *v, int64_t n, const Tensor *g, double h,
                                 const LossCase *c);
static double loss64(const LossCase *c);

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
    double *x = float64_copy(cache->x);               /* (bsz, seqlen, d_in) */
    c.x = x;
    c.dy = float64_copy(dy);                          /* (bsz, seqlen, d_out) */
    c.attn_mask = float64_copy(cache->trace.attn_mask);     /* (bsz, H, seqlen, seqlen): ones in eval mode */
    c.resid_mask = float64_copy(cache->trace.resid_mask);   /* (bsz, seqlen, d_out), NULL: no resid_dropout */
    c.y = (double *)t_alloc(sizeof(double) * (size_t)t_numel(dy));   /* (bsz, seqlen, d_out): the forward's y */
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

/* loss = (y * dy).sum(), y = the float64 forward. */
static double loss64(const LossCase *c) {
    t_scope_begin();   /* the forward's scratch */
    mha64_forward(c->m, c->x, c->bsz, c->seqlen, c->attn_mask, c->resid_mask, c->y);
    t_scope_end();
    double loss = 0.0;
    for (int64_t i = 0; i < c->bsz * c->seqlen * c->m->d_out; i++) loss += c->y[i] * c->dy[i];
    return loss;
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
