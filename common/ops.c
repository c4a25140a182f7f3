/* ops.c — matmul, broadcasting element-wise ops, softmax, triu/tril, masks, reductions. */
#include "ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* ------------------------------------------------------------------------ */
/* broadcasting                                                              */

Shape t_broadcast_shapes(const char *op, Shape a, Shape b) {
    char as[T_SHAPE_STR], bs[T_SHAPE_STR];
    Shape out;
    memset(&out, 0, sizeof out);
    out.ndim = a.ndim > b.ndim ? a.ndim : b.ndim;
    for (int i = 0; i < out.ndim; i++) {
        int ia = a.ndim - out.ndim + i, ib = b.ndim - out.ndim + i;
        int64_t da = ia >= 0 ? a.dims[ia] : 1, db = ib >= 0 ? b.dims[ib] : 1;
        if (da == db || db == 1) out.dims[i] = da;
        else if (da == 1) out.dims[i] = db;
        else
            t_error("%s: shapes %s and %s do not broadcast: dim %d is %lld vs %lld (each pair must be "
                    "equal or one of them 1)", op, shape_str(a, as), shape_str(b, bs), i - out.ndim,
                    (long long)da, (long long)db);
    }
    return out;
}

/* Iterate an output of shape `s` (contiguous) and two strided inputs expanded to s. */
typedef float (*binary_fn)(float, float);

static Tensor *binary(const char *op, const Tensor *a, const Tensor *b, binary_fn fn) {
    Shape s = t_broadcast_shapes(op, t_shape(a), t_shape(b));
    Tensor *out = t_zeros(s);
    Tensor *ea = t_expand(a, s), *eb = t_expand(b, s);
    int64_t n = t_numel(out);
    int64_t idx[T_MAX_DIMS] = {0};
    int64_t oa = ea->offset, ob = eb->offset;
    float *o = out->storage->data;
    const float *pa = ea->storage->data, *pb = eb->storage->data;
    for (int64_t k = 0; k < n; k++) {
        o[k] = fn(pa[oa], pb[ob]);
        for (int d = s.ndim - 1; d >= 0; d--) {
            if (++idx[d] < s.dims[d]) {
                oa += ea->strides[d];
                ob += eb->strides[d];
                break;
            }
            oa -= (s.dims[d] - 1) * ea->strides[d];
            ob -= (s.dims[d] - 1) * eb->strides[d];
            idx[d] = 0;
        }
    }
    return out;
}

static float f_add(float x, float y) { return x + y; }
static float f_sub(float x, float y) { return x - y; }
static float f_mul(float x, float y) { return x * y; }
static float f_div(float x, float y) { return x / y; }

Tensor *t_add(const Tensor *a, const Tensor *b) { return binary("add", a, b, f_add); }
Tensor *t_sub(const Tensor *a, const Tensor *b) { return binary("sub", a, b, f_sub); }
Tensor *t_mul(const Tensor *a, const Tensor *b) { return binary("mul", a, b, f_mul); }
Tensor *t_div(const Tensor *a, const Tensor *b) { return binary("div", a, b, f_div); }

Tensor *t_mul_scalar(const Tensor *x, float s) {
    Tensor *out = t_clone(x);
    for (int64_t i = 0; i < out->storage->numel; i++) out->storage->data[i] *= s;
    return out;
}

Tensor *t_div_scalar(const Tensor *x, float s) {
    Tensor *out = t_clone(x);
    for (int64_t i = 0; i < out->storage->numel; i++) out->storage->data[i] /= s;
    return out;
}

Tensor *t_add_scalar(const Tensor *x, float s) {
    Tensor *out = t_clone(x);
    for (int64_t i = 0; i < out->storage->numel; i++) out->storage->data[i] += s;
    return out;
}

Tensor *t_exp(const Tensor *x) {
    Tensor *out = t_clone(x);
    for (int64_t i = 0; i < out->storage->numel; i++) out->storage->data[i] = expf(out->storage->data[i]);
    return out;
}

/* ------------------------------------------------------------------------ */
/* matmul                                                                    */

Tensor *t_matmul(const Tensor *a, const Tensor *b) {
    char as[T_SHAPE_STR], bs[T_SHAPE_STR];
    if (a->ndim < 2 || b->ndim < 2)
        t_error("matmul: %s @ %s: both operands need at least 2 dims (unsqueeze a vector first)",
                t_shape_str(a, as), t_shape_str(b, bs));
    int64_t n = a->shape[a->ndim - 2], k = a->shape[a->ndim - 1];
    int64_t k2 = b->shape[b->ndim - 2], m = b->shape[b->ndim - 1];
    if (k != k2)
        t_error("matmul: %s @ %s: inner dims %lld != %lld", t_shape_str(a, as), t_shape_str(b, bs),
                (long long)k, (long long)k2);
    Shape ba = shape_of(a->ndim - 2, a->shape), bb = shape_of(b->ndim - 2, b->shape);
    Shape batch = t_broadcast_shapes("matmul", ba, bb);
    Shape outs = batch;
    if (outs.ndim + 2 > T_MAX_DIMS) t_error("matmul: result would have more than %d dims", T_MAX_DIMS);
    outs.dims[outs.ndim++] = n;
    outs.dims[outs.ndim++] = m;
    t_check_fits("matmul", outs);
    Tensor *out = t_zeros(outs);

    Shape sa = batch, sb = batch;
    sa.dims[sa.ndim++] = n;
    sa.dims[sa.ndim++] = k;
    sb.dims[sb.ndim++] = k;
    sb.dims[sb.ndim++] = m;
    Tensor *ea = t_expand(a, sa), *eb = t_expand(b, sb);

    int64_t nbatch = 1;
    for (int i = 0; i < batch.ndim; i++) nbatch *= batch.dims[i];
    int nb = batch.ndim;
    const float *pa = ea->storage->data, *pb = eb->storage->data;
    int64_t as0 = ea->strides[nb], as1 = ea->strides[nb + 1];
    int64_t bs0 = eb->strides[nb], bs1 = eb->strides[nb + 1];
    float *po = out->storage->data;
    double *row = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof(double));
    if (!row) t_error("matmul: out of memory");
    for (int64_t bi = 0; bi < nbatch; bi++) {
        /* offsets of this batch entry in a and b */
        int64_t oa = ea->offset, ob = eb->offset, rem = bi;
        for (int d = nb - 1; d >= 0; d--) {
            int64_t ix = rem % batch.dims[d];
            rem /= batch.dims[d];
            oa += ix * ea->strides[d];
            ob += ix * eb->strides[d];
        }
        for (int64_t i = 0; i < n; i++) {
            /* row i of the result: sum over p of a[i, p] * b[p, :], in double */
            for (int64_t j = 0; j < m; j++) row[j] = 0.0;
            for (int64_t p = 0; p < k; p++) {
                double av = pa[oa + i * as0 + p * as1];
                const float *brow = pb + ob + p * bs0;
                for (int64_t j = 0; j < m; j++) row[j] += av * brow[j * bs1];
            }
            float *orow = po + (bi * n + i) * m;
            for (int64_t j = 0; j < m; j++) orow[j] = (float)row[j];
            t_work_add(2.0 * (double)k * (double)m);
        }
    }
    free(row);
    return out;
}

/* ------------------------------------------------------------------------ */
/* softmax                                                                   */

/* softmax over the last dim of a contiguous tensor, in place */
static void softmax_rows(float *x, int64_t rows, int64_t n) {
    for (int64_t r = 0; r < rows; r++) {
        float *row = x + r * n;
        float mx = -INFINITY;
        for (int64_t j = 0; j < n; j++)
            if (row[j] > mx || isnan(row[j])) mx = row[j];
        double sum = 0.0;
        for (int64_t j = 0; j < n; j++) {
            row[j] = expf(row[j] - mx); /* all -inf row: -inf - -inf = NaN */
            sum += row[j];
        }
        for (int64_t j = 0; j < n; j++) row[j] = (float)(row[j] / sum);
    }
}

Tensor *t_softmax(const Tensor *x, int dim) {
    if (x->ndim == 0) t_error("softmax: needs at least 1 dim, got a 0-dim tensor");
    int d = t_wrap_dim("softmax", dim, x->ndim);
    int last = x->ndim - 1;
    if (d == last) {
        Tensor *out = t_clone(x);
        int64_t n = x->shape[last];
        if (n > 0) softmax_rows(out->storage->data, t_numel(x) / n, n);
        return out;
    }
    /* another dim: move it last, softmax, move it back */
    Tensor *moved = t_clone(t_transpose(x, d, last));
    int64_t n = moved->shape[last];
    if (n > 0) softmax_rows(moved->storage->data, t_numel(moved) / n, n);
    return t_contiguous(t_transpose(moved, d, last));
}

/* ------------------------------------------------------------------------ */
/* triangles and masks                                                       */

static Tensor *triangle(const char *op, const Tensor *x, int diagonal, int upper) {
    char xs[T_SHAPE_STR];
    if (x->ndim < 2) t_error("%s: input %s needs at least 2 dims", op, t_shape_str(x, xs));
    Tensor *out = t_clone(x);
    int64_t rows = x->shape[x->ndim - 2], cols = x->shape[x->ndim - 1];
    int64_t mats = (rows * cols != 0) ? t_numel(x) / (rows * cols) : 0;
    float *p = out->storage->data;
    for (int64_t b = 0; b < mats; b++)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                int keep = upper ? (j - i >= diagonal) : (j - i <= diagonal);
                if (!keep) p[(b * rows + i) * cols + j] = 0.0f;
            }
    return out;
}

Tensor *t_triu(const Tensor *x, int diagonal) { return triangle("triu", x, diagonal, 1); }
Tensor *t_tril(const Tensor *x, int diagonal) { return triangle("tril", x, diagonal, 0); }

Tensor *t_masked_fill(const Tensor *x, const Tensor *mask, float value) {
    char xs[T_SHAPE_STR], ms[T_SHAPE_STR], bs[T_SHAPE_STR];
    Shape s = t_broadcast_shapes("masked_fill", t_shape(x), t_shape(mask));
    if (s.ndim != x->ndim || memcmp(s.dims, x->shape, sizeof(int64_t) * (size_t)x->ndim) != 0)
        t_error("masked_fill: mask %s must broadcast to the input %s, but together they make %s",
                t_shape_str(mask, ms), t_shape_str(x, xs), shape_str(s, bs));
    Tensor *out = t_clone(x);
    Tensor *m = t_contiguous(t_clone(t_expand(mask, s)));
    for (int64_t i = 0; i < out->storage->numel; i++)
        if (m->storage->data[i] != 0.0f) out->storage->data[i] = value;
    return out;
}

/* ------------------------------------------------------------------------ */
/* reductions                                                                */

static Tensor *reduce_last(const char *op, const Tensor *x, int is_max) {
    if (x->ndim == 0) t_error("%s: needs at least 1 dim, got a 0-dim tensor", op);
    int64_t n = x->shape[x->ndim - 1];
    if (is_max && n == 0) t_error("%s: cannot take the max of an empty last dim", op);
    Tensor *c = t_contiguous(x);
    Tensor *out = t_zeros(shape_of(x->ndim - 1, x->shape));
    int64_t rows = t_numel(out);
    const float *p = t_data(c);
    for (int64_t r = 0; r < rows; r++) {
        double acc = is_max ? -INFINITY : 0.0;
        for (int64_t j = 0; j < n; j++) {
            float v = p[r * n + j];
            if (is_max) {
                if (v > acc || isnan(v)) acc = v;
            } else {
                acc += v;
            }
        }
        out->storage->data[r] = (float)acc;
    }
    return out;
}

Tensor *t_sum_last(const Tensor *x) { return reduce_last("sum", x, 0); }
Tensor *t_max_last(const Tensor *x) { return reduce_last("max", x, 1); }

double t_sum_all(const Tensor *x) {
    double s = 0.0;
    int64_t n = t_numel(x);
    for (int64_t i = 0; i < n; i++) s += t_flat_get(x, i);
    return s;
}

double t_mean_all(const Tensor *x) {
    int64_t n = t_numel(x);
    return n ? t_sum_all(x) / (double)n : NAN;
}

double t_var_all(const Tensor *x) {
    int64_t n = t_numel(x);
    if (n < 2) return NAN;
    double mean = t_mean_all(x), s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double d = t_flat_get(x, i) - mean;
        s += d * d;
    }
    return s / (double)(n - 1);
}

/* ------------------------------------------------------------------------ */
/* comparison                                                                */

static void require_same_shape(const char *op, const Tensor *a, const Tensor *b) {
    char as[T_SHAPE_STR], bs[T_SHAPE_STR];
    if (!t_same_shape(a, b))
        t_error("%s: shapes %s and %s differ", op, t_shape_str(a, as), t_shape_str(b, bs));
}

double t_max_abs_diff(const Tensor *a, const Tensor *b) {
    require_same_shape("max_abs_diff", a, b);
    int64_t n = t_numel(a);
    Tensor *ca = t_contiguous(a), *cb = t_contiguous(b);
    const float *pa = t_data(ca), *pb = t_data(cb);
    double worst = 0.0;
    for (int64_t i = 0; i < n; i++) {
        float x = pa[i], y = pb[i];
        if (isnan(x) && isnan(y)) continue;
        if (isnan(x) || isnan(y)) return NAN;
        if (x == y) continue; /* also equal infinities */
        double d = fabs((double)x - (double)y);
        if (d > worst) worst = d;
    }
    return worst;
}

bool t_allclose(const Tensor *a, const Tensor *b, double rtol, double atol) {
    require_same_shape("allclose", a, b);
    int64_t n = t_numel(a);
    Tensor *ca = t_contiguous(a), *cb = t_contiguous(b);
    const float *pa = t_data(ca), *pb = t_data(cb);
    for (int64_t i = 0; i < n; i++) {
        float x = pa[i], y = pb[i];
        if (x == y) continue;
        if (isnan(x) || isnan(y) || isinf(x) || isinf(y)) return false;
        if (!(fabs((double)x - (double)y) <= atol + rtol * fabs((double)y))) return false;
    }
    return true;
}
