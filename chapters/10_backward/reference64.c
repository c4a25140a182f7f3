/* reference64.c — chapter 10: the gradient check's float64 forward of chapter 7's module.
 *
 * mha64_forward() first, then the pieces it calls in their order: nn.Linear,
 * the split and merge of chapter 5 (applied to positions), softmax. Every
 * array is row-major, like a contiguous Tensor of the same shape.
 */
#include "reference64.h"

static double *linear64(const double *x, int64_t n, int64_t in, const double *w, const double *b, int64_t out);
static double *follow_positions(const double *x, const Tensor *moved);
static Tensor *positions(Shape s);
static void softmax_row64(double *s, int64_t n);
static double *zeros64(int64_t n);

void mha64_forward(const Mha64 *m, const double *x, int64_t bsz, int64_t seqlen, const double *attn_mask,
                   const double *resid_mask, double *y) {
    int64_t H = m->n_heads, hd = m->head_dim, n = bsz * seqlen, T = seqlen;
    /* xq, xk, xv = self.wq(x), self.wk(x), self.wv(x) */
    double *xq = linear64(x, n, m->d_in, m->wq, m->bq, m->d_out);   /* (bsz, seqlen, d_out) */
    double *xk = linear64(x, n, m->d_in, m->wk, m->bk, m->d_out);
    double *xv = linear64(x, n, m->d_in, m->wv, m->bv, m->d_out);
    /* xq = xq.view(bsz, seqlen, n_heads, head_dim).transpose(1, 2), the same for xk, xv:
     * chapter 5's split_heads says where each of the bsz * seqlen * d_out numbers goes */
    Tensor *split = split_heads(positions(SHAPE(bsz, T, m->d_out)), H);   /* (bsz, n_heads, seqlen, head_dim) */
    xq = follow_positions(xq, split);
    xk = follow_positions(xk, split);
    xv = follow_positions(xv, split);
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
    /* output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1): chapter 5's merge_heads */
    /* (bsz, seqlen, d_out) */
    double *merged = follow_positions(output, merge_heads(positions(SHAPE(bsz, H, T, hd))));
    /* output = self.resid_dropout(self.wo(output)) */
    double *projected = linear64(merged, n, m->d_out, m->wo, m->bo, m->d_out);   /* (bsz, seqlen, d_out) */
    for (int64_t i = 0; i < n * m->d_out; i++) y[i] = projected[i] * (resid_mask ? resid_mask[i] : 1.0);
}

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

/* The doubles, moved as chapter 5 moved their positions: y[i] = x[moved[i]], where `moved` is
 * split_heads or merge_heads of positions(...). A split or a merge only moves numbers, so what
 * it does to 0, 1, 2, ... is all it does; Tensor holds float32, so the doubles themselves cannot
 * go through it. */
static double *follow_positions(const double *x, const Tensor *moved) {
    int64_t n = t_numel(moved);
    double *y = zeros64(n);
    for (int64_t i = 0; i < n; i++) y[i] = x[(int64_t)t_flat_get(moved, i)];   /* row-major */
    return y;
}

/* 0, 1, ..., numel - 1 in shape s: the row-major position of every number of an array of that
 * shape. float32 holds every integer up to 2^24 exactly. */
static Tensor *positions(Shape s) {
    int64_t n = 1;
    for (int i = 0; i < s.ndim; i++) n *= s.dims[i];
    if (n > (int64_t)1 << 24)
        t_error("reference64: %lld numbers are more than float32 counts exactly (2^24); the gradient check is "
                "for small modules", (long long)n);
    return t_reshape(t_arange(n), s);
}

/* F.softmax(s, dim=-1) on one row of n, in place; -inf entries get weight 0. */
static void softmax_row64(double *s, int64_t n) {
    double mx = -INFINITY, sum = 0.0;
    for (int64_t j = 0; j < n; j++) mx = s[j] > mx ? s[j] : mx;
    for (int64_t j = 0; j < n; j++) sum += (s[j] = exp(s[j] - mx));
    for (int64_t j = 0; j < n; j++) s[j] /= sum;
}

static double *zeros64(int64_t n) { return (double *)t_alloc(sizeof(double) * (size_t)(n > 0 ? n : 1)); }

/* ---- the module and tensors in double ----------------------------------------------------- */

double *float64_copy(const Tensor *t) {
    if (!t) return NULL;   /* no such tensor (a bias or a mask the module does not have) */
    double *d = zeros64(t_numel(t));
    for (int64_t i = 0; i < t_numel(t); i++) d[i] = (double)t_flat_get(t, i);   /* row-major */
    return d;
}

Mha64 mha64_from(const MultiHeadAttention *m) {
    Mha64 r;
    r.d_in = m->args.d_in;
    r.d_out = m->args.d_out;
    r.n_heads = m->args.n_heads;
    r.head_dim = m->head_dim;
    r.causal = m->args.causal;
    r.wq = float64_copy(m->qkv->wq->weight);   /* (d_out, d_in)  */
    r.wk = float64_copy(m->qkv->wk->weight);
    r.wv = float64_copy(m->qkv->wv->weight);
    r.wo = float64_copy(m->wo->weight);        /* (d_out, d_out) */
    r.bq = float64_copy(m->qkv->wq->bias);   /* (d_out,) or NULL */
    r.bk = float64_copy(m->qkv->wk->bias);
    r.bv = float64_copy(m->qkv->wv->bias);
    r.bo = float64_copy(m->wo->bias);
    return r;
}
