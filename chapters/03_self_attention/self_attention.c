/* self_attention.c — chapter 3: attention(x, x, x), then with W_q, W_k, W_v.
 *
 * The module first: its three projections (qkv_new), the projection of x
 * (qkv_project) and the attention on it (self_attention); then the plain
 * attention(x, x, x) it is compared with. Loading and saving the weights are
 * in self_attention_setup.c. */
#include "self_attention.h"

QKVProjection *qkv_new(int64_t d_in, int64_t d_out, bool bias) {
    QKVProjection *p = (QKVProjection *)t_alloc(sizeof *p);
    p->d_in = d_in;
    p->d_out = d_out;
    p->wq = nn_linear(d_in, d_out, bias); /* self.wq = nn.Linear(d_in, d_out, bias=bias) */
    p->wk = nn_linear(d_in, d_out, bias); /* self.wk: weight (d_out, d_in) */
    p->wv = nn_linear(d_in, d_out, bias); /* self.wv */
    return p;
}

void qkv_project(const QKVProjection *p, const Tensor *x, Tensor **xq, Tensor **xk, Tensor **xv) {
    char xs[T_SHAPE_STR];
    if (x->ndim < 1 || t_size(x, -1) != p->d_in)
        t_error("self-attention: input %s must end in d_in = %lld, the width W_q, W_k, W_v take", t_shape_str(x, xs),
                (long long)p->d_in);
    /* BEGIN BLANK project_qkv */
    *xq = nn_linear_forward(p->wq, x); /* xq = self.wq(x): (..., T, d_out) */
    *xk = nn_linear_forward(p->wk, x); /* xk = self.wk(x): (..., T, d_out) */
    *xv = nn_linear_forward(p->wv, x); /* xv = self.wv(x): (..., T, d_out) */
    /* END BLANK */
}

Attention self_attention(const QKVProjection *p, const Tensor *x) {
    Attention a = {NULL, NULL, NULL};
    /* BEGIN BLANK self_attention_forward */
    Tensor *xq = NULL, *xk = NULL, *xv = NULL;
    qkv_project(p, x, &xq, &xk, &xv); /* xq, xk, xv = self.wq(x), self.wk(x), self.wv(x) */
    a = attention(xq, xk, xv);        /* output, p_attn = attention(xq, xk, xv): (..., T, d_out), (..., T, T) */
    /* END BLANK */
    return a;
}

Attention self_attention_plain(const Tensor *x) {
    Attention a = {NULL, NULL, NULL};
    /* BEGIN BLANK plain_self_attention */
    a = attention(x, x, x); /* Q = K = V = x: (..., T, d_in) */
    /* END BLANK */
    return a;
}

int64_t qkv_num_params(const QKVProjection *p) {
    return nn_linear_num_params(p->wq) + nn_linear_num_params(p->wk) + nn_linear_num_params(p->wv);
}
