/* qkv_files.c — --q, --k and --v loaded and checked, in the run's language (qkv_files.h). */
#include "common/program/qkv_files.h"

#include <math.h>

#include "common/error.h"
#include "common/npy.h"
#include "common/program/lang.h"

static void check_loaded_shapes(const Args *args, const Tensor *q, const Tensor *k, const Tensor *v) {
    const char *flag[3] = {"--q", "--k", "--v"}, *path[3] = {args->q, args->k, args->v};
    const char *want[3] = {"(..., T, d_k)", "(..., S, d_k)", "(..., S, d_v)"};
    const Tensor *x[3] = {q, k, v};
    char s0[T_SHAPE_STR], s1[T_SHAPE_STR], s2[T_SHAPE_STR];
    for (int i = 0; i < 3; i++)
        if (x[i]->ndim < 2)
            t_error(tr("%s %s has shape %s: it needs at least 2 dims, %s"), flag[i], path[i], t_shape_str(x[i], s0),
                    want[i]);
    if (t_size(q, -1) != t_size(k, -1))
        t_error(tr("--q %s %s and --k %s %s must share the last dim d_k: %lld != %lld"), args->q, t_shape_str(q, s0),
                args->k, t_shape_str(k, s1), (long long)t_size(q, -1), (long long)t_size(k, -1));
    if (t_size(k, -2) != t_size(v, -2))
        t_error(tr("--k %s %s and --v %s %s must have the same length S (dim -2): %lld != %lld"), args->k,
                t_shape_str(k, s0), args->v, t_shape_str(v, s1), (long long)t_size(k, -2), (long long)t_size(v, -2));
    if (t_size(k, -2) == 0)
        t_error(tr("--k %s %s has no positions (S = 0): there is nothing to attend to"), args->k, t_shape_str(k, s0));
    if (args->causal && t_size(q, -2) != t_size(k, -2))
        t_error(tr("--q %s %s and --k %s %s have T %lld != S %lld, but a causal mask needs T == S (queries and keys "
                   "from the same sequence)"),
                args->q, t_shape_str(q, s0), args->k, t_shape_str(k, s1), (long long)t_size(q, -2),
                (long long)t_size(k, -2));
    /* the batch dims (all but the last two), aligned from the right: equal, or 1 (torch.matmul) */
    int lead = 0;
    for (int i = 0; i < 3; i++) lead = x[i]->ndim - 2 > lead ? x[i]->ndim - 2 : lead;
    for (int d = 1; d <= lead; d++) {
        int64_t size = 1;
        for (int i = 0; i < 3; i++) {
            int at = x[i]->ndim - 2 - d;
            int64_t n = at >= 0 ? x[i]->shape[at] : 1;
            if (n != 1 && size != 1 && n != size)
                t_error(tr("the batch dims of --q %s %s, --k %s %s and --v %s %s do not broadcast: each must be the "
                           "same or 1, counted from the right, as in torch.matmul"),
                        args->q, t_shape_str(q, s0), args->k, t_shape_str(k, s1), args->v, t_shape_str(v, s2));
            if (n != 1) size = n;
        }
    }
}

void load_qkv_files(const Args *args, Tensor **query, Tensor **key, Tensor **value) {
    *query = npy_load(args->q); /* (..., T, d_k) */
    *key = npy_load(args->k);   /* (..., S, d_k) */
    *value = npy_load(args->v); /* (..., S, d_v) */
    check_loaded_shapes(args, *query, *key, *value);
}

void require_finite_file(const char *file, const Tensor *x, const char *reason) {
    const Tensor *c = t_contiguous(x); /* a copy only when x is a strided view */
    const float *d = t_numel(c) > 0 ? t_data(c) : NULL;
    for (int64_t i = 0; i < t_numel(c); i++)
        if (!isfinite(d[i]))
            t_error(tr("%s holds %s at flat index %lld: %s"), file, d[i] != d[i] ? "NaN" : d[i] > 0 ? "inf" : "-inf",
                    (long long)i, tr(reason));
}
