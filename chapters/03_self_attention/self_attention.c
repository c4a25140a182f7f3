/* self_attention.c — chapter 3: attention(x, x, x), then with W_q, W_k, W_v. */
#include "self_attention.h"

#include <string.h>

QKVProjection *qkv_new(int64_t d_in, int64_t d_out, bool bias) {
    QKVProjection *p = (QKVProjection *)t_alloc(sizeof *p);
    p->d_in = d_in;
    p->d_out = d_out;
    p->wq = nn_linear(d_in, d_out, bias); /* self.wq = nn.Linear(d_in, d_out, bias=bias) */
    p->wk = nn_linear(d_in, d_out, bias); /* self.wk: weight (d_out, d_in) */
    p->wv = nn_linear(d_in, d_out, bias); /* self.wv */
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

/* One weight matrix of the folder: 2-D, (d_out, d_in), the same shape as wq. */
static void check_weight(const char *dir, const char *name, const Tensor *w, const Tensor *wq, int64_t d_in) {
    char ws[T_SHAPE_STR], qs[T_SHAPE_STR];
    if (w->ndim != 2)
        t_error("%s/%s.npy has shape %s: a weight must be 2-D (d_out, d_in), as nn.Linear stores it", dir,
                name, t_shape_str(w, ws));
    if (w->shape[1] != d_in)
        t_error("%s/%s.npy has shape %s but the input has d_in = %lld: expected (d_out, %lld)", dir,
                name, t_shape_str(w, ws), (long long)d_in, (long long)d_in);
    if (w->shape[0] < 1)
        t_error("%s/%s.npy has shape %s: d_out must be at least 1", dir, name, t_shape_str(w, ws));
    if (w != wq && !t_same_shape(w, wq))
        t_error("%s/%s.npy has shape %s but wq.npy has shape %s: wq, wk and wv must have the same shape "
                "(d_out, d_in)", dir, name, t_shape_str(w, ws), t_shape_str(wq, qs));
}

/* One bias: 1-D of length d_out. */
static void check_bias(const char *dir, const char *name, const Tensor *b, int64_t d_out) {
    char bs[T_SHAPE_STR];
    if (b->ndim != 1 || b->shape[0] != d_out)
        t_error("%s/%s.npy has shape %s but the weights have d_out = %lld: expected (%lld,)", dir, name,
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
        t_error("weights folder '%s' has %s but not %s: give all three biases bq, bk, bv or none", dir,
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

void qkv_project(const QKVProjection *p, const Tensor *x, Tensor **xq, Tensor **xk, Tensor **xv) {
    char xs[T_SHAPE_STR];
    if (x->ndim < 1 || t_size(x, -1) != p->d_in)
        t_error("self-attention: input %s must end in d_in = %lld, the width W_q, W_k, W_v take", t_shape_str(x, xs),
                (long long)p->d_in);
    /* BEGIN BLANK project_qkv level=2 hint="Self-attention with weights: the same x goes through three different linear layers to become query, key and value." helpers="nn_linear_forward, once for each of p->wq, p->wk, p->wv." torch="xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)" */
    *xq = nn_linear_forward(p->wq, x); /* xq = self.wq(x): (..., T, d_out) */
    *xk = nn_linear_forward(p->wk, x); /* xk = self.wk(x): (..., T, d_out) */
    *xv = nn_linear_forward(p->wv, x); /* xv = self.wv(x): (..., T, d_out) */
    /* END BLANK */
}

Attention self_attention_plain(const Tensor *x) {
    Attention a = {NULL, NULL, NULL};
    /* BEGIN BLANK plain_self_attention level=1 hint="In its plainest form self-attention lets the sequence attend to itself: one tensor plays every role (Happy-LLM 2.1.4)." helpers="chapter 2's attention." torch="attention(x, x, x)" */
    a = attention(x, x, x); /* Q = K = V = x: (..., T, d_in) */
    /* END BLANK */
    return a;
}

Attention self_attention(const QKVProjection *p, const Tensor *x) {
    Attention a = {NULL, NULL, NULL};
    /* BEGIN BLANK self_attention_forward level=3 hint="Self-attention with trainable weights: project first, then run the attention of chapter 2." helpers="qkv_project, attention." torch="xq, xk, xv = self.wq(x), self.wk(x), self.wv(x); output, p_attn = attention(xq, xk, xv)" */
    Tensor *xq = NULL, *xk = NULL, *xv = NULL;
    qkv_project(p, x, &xq, &xk, &xv); /* xq, xk, xv = self.wq(x), self.wk(x), self.wv(x) */
    a = attention(xq, xk, xv);        /* output, p_attn = attention(xq, xk, xv): (..., T, d_out), (..., T, T) */
    /* END BLANK */
    return a;
}

int64_t qkv_num_params(const QKVProjection *p) {
    return nn_linear_num_params(p->wq) + nn_linear_num_params(p->wk) + nn_linear_num_params(p->wv);
}

Tensor *input_load(const char *path) {
    char xs[T_SHAPE_STR];
    Tensor *x = npy_load(path); /* (B, T, d_in) */
    if (x->ndim != 3) t_error("%s has shape %s: expected (B, T, d_in), 3 dims", path, t_shape_str(x, xs));
    if (t_numel(x) == 0)
        t_error("%s has shape %s: B, T and d_in must each be at least 1", path, t_shape_str(x, xs));
    return x;
}
