/* self_attention_setup.c — chapter 3's weights and input from and to .npy files:
 * a weights folder (wq.npy wk.npy wv.npy [bq.npy bk.npy bv.npy]) and --input x.npy. */
#include "self_attention_setup.h"

#include <string.h>

/* One weight matrix of the folder: 2-D, (d_out, d_in), the same shape as wq. */
static void check_weight(const char *dir, const char *name, const Tensor *w, const Tensor *wq, int64_t d_in) {
    char ws[T_SHAPE_STR], qs[T_SHAPE_STR];
    if (w->ndim != 2)
        t_error(t_tr("%s/%s.npy has shape %s: a weight must be 2-D (d_out, d_in), as nn.Linear stores it"), dir,
                name, t_shape_str(w, ws));
    if (w->shape[1] != d_in)
        t_error(t_tr("%s/%s.npy has shape %s but the input has d_in = %lld: expected (d_out, %lld)"), dir,
                name, t_shape_str(w, ws), (long long)d_in, (long long)d_in);
    if (w->shape[0] < 1)
        t_error(t_tr("%s/%s.npy has shape %s: d_out must be at least 1"), dir, name, t_shape_str(w, ws));
    if (w != wq && !t_same_shape(w, wq))
        t_error(t_tr("%s/%s.npy has shape %s but wq.npy has shape %s: wq, wk and wv must have the same shape "
                "(d_out, d_in)"), dir, name, t_shape_str(w, ws), t_shape_str(wq, qs));
}

/* One bias: 1-D of length d_out. */
static void check_bias(const char *dir, const char *name, const Tensor *b, int64_t d_out) {
    char bs[T_SHAPE_STR];
    if (b->ndim != 1 || b->shape[0] != d_out)
        t_error(t_tr("%s/%s.npy has shape %s but the weights have d_out = %lld: expected (%lld,)"), dir, name,
                t_shape_str(b, bs), (long long)d_out, (long long)d_out);
}

QKVProjection *qkv_load(const char *dir, int64_t d_in) {
    static const char *const w_names[3] = {"wq", "wk", "wv"};
    static const char *const b_names[3] = {"bq", "bk", "bv"};
    Tensor *w[3], *b[3];
    for (int i = 0; i < 3; i++) w[i] = state_load(dir, w_names[i]); /* a missing file is named */
    for (int i = 0; i < 3; i++) check_weight(dir, w_names[i], w[i], w[0], d_in);
    int64_t d_out = w[0]->shape[0];

    /* biases: all three or none */
    int n_bias = 0;
    for (int i = 0; i < 3; i++) n_bias += (b[i] = state_load_optional(dir, b_names[i])) != NULL;
    if (n_bias != 0 && n_bias != 3) {
        char have[32] = "", lack[32] = "";
        for (int i = 0; i < 3; i++) {
            char *list = b[i] ? have : lack;
            if (*list) strcat(list, ", ");
            strcat(list, b_names[i]);
            strcat(list, ".npy");
        }
        t_error(t_tr("weights folder '%s' has %s but not %s: give all three biases bq, bk, bv or none"), dir,
                have, lack);
    }
    if (n_bias == 3)
        for (int i = 0; i < 3; i++) check_bias(dir, b_names[i], b[i], d_out);

    QKVProjection *p = (QKVProjection *)t_alloc(sizeof *p);
    p->d_in = d_in;
    p->d_out = d_out;
    p->wq = nn_linear_from("wq", w[0], b[0]);
    p->wk = nn_linear_from("wk", w[1], b[1]);
    p->wv = nn_linear_from("wv", w[2], b[2]);
    return p;
}

void qkv_save(const QKVProjection *p, const char *dir) {
    npy_save_in(dir, "wq", p->wq->weight);  /* (d_out, d_in) */
    npy_save_in(dir, "wk", p->wk->weight);
    npy_save_in(dir, "wv", p->wv->weight);
    if (p->wq->bias) {
        npy_save_in(dir, "bq", p->wq->bias);  /* (d_out,) */
        npy_save_in(dir, "bk", p->wk->bias);
        npy_save_in(dir, "bv", p->wv->bias);
    }
}

Tensor *load_input(const char *path) {
    char xs[T_SHAPE_STR];
    Tensor *x = npy_load(path); /* (B, T, d_in) */
    if (x->ndim != 3) t_error(t_tr("%s has shape %s: expected (B, T, d_in), 3 dims"), path, t_shape_str(x, xs));
    if (t_numel(x) == 0)
        t_error(t_tr("%s has shape %s: B, T and d_in must each be at least 1"), path, t_shape_str(x, xs));
    return x;
}
