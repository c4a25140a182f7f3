/* test_ch10.c — chapter 10, the backward pass by hand, against torch.autograd
 * (tests/fixtures/ch10, written by scripts/golden/ch10.py): every backward
 * piece on its own (nn.Linear with and without bias, matmul, the scale, the
 * causal mask, softmax plain and masked, dropout, split and merge heads), the
 * whole module over random shapes with biases on and off and causal on and
 * off (every gradient within 1e-4), the dropout mask replay, the finite-
 * difference check, the training pieces (cross-entropy, Adam, embeddings)
 * and every error sentence. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/harness.h"
#include "chapters/10_backward/train.h"

#define TOL 1e-4   /* "within 1e-4": |c - torch| <= 1e-4 + 1e-4 |torch| */

static Tensor *fx(const char *rel) {
    char path[256];
    snprintf(path, sizeof path, "ch10/%s.npy", rel);
    return load_fixture(path);
}

/* ---- the pieces ------------------------------------------------------------------------ */

static void test_linear_backward_matches_autograd(void) {
    Tensor *x = fx("linear/x"), *dy = fx("linear/dy");
    Linear *lin = nn_linear_from("w", fx("linear/weight"), fx("linear/bias"));
    Tensor *dx, *dw, *db;
    linear_backward(lin, x, dy, &dx, &dw, &db);
    CHECK_TENSOR_CLOSE(dx, fx("linear/dx"), TOL, TOL);
    CHECK_TENSOR_CLOSE(dw, fx("linear/dweight"), TOL, TOL);
    CHECK(db != NULL);
    if (db) CHECK_TENSOR_CLOSE(db, fx("linear/dbias"), TOL, TOL);
    /* without a bias: the same dx and dW, and no dbias */
    Linear *nob = nn_linear_from("w", fx("linear/weight"), NULL);
    Tensor *dx2, *dw2, *db2 = x;
    linear_backward(nob, x, dy, &dx2, &dw2, &db2);
    CHECK_TENSOR_CLOSE(dx2, fx("linear/dx"), TOL, TOL);
    CHECK_TENSOR_CLOSE(dw2, fx("linear/dweight"), TOL, TOL);
    CHECK(db2 == NULL);
}

static void test_matmul_backward_matches_autograd(void) {
    Tensor *da, *db;
    matmul_backward(fx("matmul/a"), fx("matmul/b"), fx("matmul/dc"), &da, &db);
    CHECK_TENSOR_CLOSE(da, fx("matmul/da"), TOL, TOL);
    CHECK_TENSOR_CLOSE(db, fx("matmul/db"), TOL, TOL);
}

static void test_scale_and_mask_backward_match_autograd(void) {
    CHECK_TENSOR_CLOSE(scale_backward(fx("scale/ds"), 4), fx("scale/draw"), TOL, TOL);
    CHECK_TENSOR_CLOSE(causal_mask_backward(fx("mask/ds")), fx("mask/draw"), TOL, TOL);
}

static void test_softmax_backward_matches_autograd(void) {
    /* p from our own softmax of the large scores: the max subtraction happens forward only */
    Tensor *p = t_softmax(fx("softmax/s"), -1);
    CHECK_TENSOR_CLOSE(p, fx("softmax/p"), 1e-5, 1e-6);
    CHECK_TENSOR_CLOSE(softmax_backward(p, fx("softmax/dp")), fx("softmax/ds"), TOL, TOL);
    /* masked: -inf scores, weight 0, gradient 0 */
    Tensor *pm = fx("softmax_masked/p");
    Tensor *dsm = softmax_backward(pm, fx("softmax_masked/dp"));
    CHECK_TENSOR_CLOSE(dsm, fx("softmax_masked/ds"), TOL, TOL);
    CHECK(t_get(dsm, 0, 0, 0, 1) == 0.0f);
}

static void test_softmax_backward_ignores_a_row_shift(void) {
    /* softmax(s - c) = softmax(s): each row of ds sums to 0, so a shift of the row gets no gradient */
    Tensor *p = t_softmax(fx("softmax/s"), -1);
    Tensor *ds = softmax_backward(p, fx("softmax/dp"));
    Tensor *rows = t_sum_last(ds);
    for (int64_t i = 0; i < t_numel(rows); i++) CHECK_CLOSE(t_flat_get(rows, i), 0.0, 1e-5);
}

static void test_dropout_backward_matches_autograd(void) {
    CHECK_TENSOR_CLOSE(dropout_backward(fx("dropout/dy"), fx("dropout/mask")), fx("dropout/dx"), TOL, TOL);
}

static void test_dropout_mask_is_chapter_6s_draw(void) {
    Dropout d = nn_dropout(0.3);
    Tensor *x = t_randn(SHAPE(3, 5, 7));
    t_manual_seed(42);
    Tensor *y = dropout_forward(&d, x);
    t_manual_seed(42);
    Tensor *mask = dropout_mask(&d, t_shape(x));
    CHECK_TENSOR_CLOSE(t_mul(x, mask), y, 0.0, 0.0);   /* the same elements, the same 1/(1-p) */
    CHECK(count_zeros(mask) > 0);
    CHECK_CLOSE(t_max_last(t_reshape(mask, SHAPE(-1)))->storage->data[0], 1.0 / 0.7, 1e-6);
    d.training = false;
    CHECK_TENSOR_CLOSE(dropout_mask(&d, SHAPE(2, 2)), t_ones(SHAPE(2, 2)), 0.0, 0.0);
}

static void test_split_and_merge_backward_match_autograd(void) {
    CHECK_TENSOR_CLOSE(split_heads_backward(fx("split/dxh")), fx("split/dx"), TOL, TOL);
    CHECK_TENSOR_CLOSE(merge_heads_backward(fx("merge/dy"), 2), fx("merge/dxh"), TOL, TOL);
}

/* ---- the whole module -------------------------------------------------------------- */

static MultiHeadAttention *load_group(const char *group, Tensor **x) {
    char rel[128];
    snprintf(rel, sizeof rel, "%s/config", group);
    Tensor *config = fx(rel);
    snprintf(rel, sizeof rel, "%s/x", group);
    *x = fx(rel);
    char wrel[128];
    snprintf(wrel, sizeof wrel, "ch10/%s/weights", group);
    ModelArgs a = {0};
    a.d_in = t_size(*x, -1);
    a.n_heads = (int64_t)t_get(config, 0);
    a.causal = t_get(config, 1) != 0.0f;
    a.max_seq_len = (int64_t)t_get(config, 2);
    MultiHeadAttention *m = mha_load(a, fixture_path(wrel));
    mha_eval(m);
    return m;
}

static void check_grad(const char *group, const char *name, const Tensor *mine) {
    char rel[128];
    snprintf(rel, sizeof rel, "ch10/%s/grad_%s.npy", group, name);
    bool want = npy_exists(fixture_path(rel));
    CHECK_MSG((mine != NULL) == want, "%s: grad_%s is %s but autograd %s it", group, name,
              mine ? "computed" : "missing", want ? "has" : "does not have");
    if (mine && want) {
        Tensor *ref = load_fixture(rel);
        double diff = t_max_abs_diff(mine, ref);
        CHECK_MSG(t_allclose(mine, ref, TOL, TOL), "%s: grad_%s differs from autograd by %g", group, name, diff);
    }
}

static void test_module_gradients_match_autograd(void) {
    int n = (int)t_get(fx("sweep_count"), 0);
    CHECK(n >= 8);
    for (int i = 0; i < n; i++) {
        t_scope_begin();
        char group[32], rel[64];
        snprintf(group, sizeof group, "rand_%02d", i);
        Tensor *x;
        MultiHeadAttention *m = load_group(group, &x);
        snprintf(rel, sizeof rel, "%s/dy", group);
        Tensor *dy = fx(rel);
        MhaCache c;
        Tensor *y = mha_forward_cached(m, x, &c);
        snprintf(rel, sizeof rel, "%s/out", group);
        CHECK_TENSOR_CLOSE(y, fx(rel), 1e-5, 1e-5);
        MhaGrads g = mha_backward(m, &c, dy);
        check_grad(group, "x", g.dx);
        check_grad(group, "wq", g.dwq);
        check_grad(group, "wk", g.dwk);
        check_grad(group, "wv", g.dwv);
        check_grad(group, "wo", g.dwo);
        check_grad(group, "bq", g.dbq);
        check_grad(group, "bk", g.dbk);
        check_grad(group, "bv", g.dbv);
        check_grad(group, "bo", g.dbo);
        t_scope_end();
    }
}

static void test_cached_forward_keeps_the_dropout_masks(void) {
    t_manual_seed(7);
    ModelArgs a = seed_args(6, 4, 5, 0.4, 2);
    MultiHeadAttention *m = mha_new(a);   /* training mode */
    Tensor *x = t_randn(SHAPE(2, 5, 6));
    Rng start = *t_default_rng();
    Tensor *y_plain = mha_forward(m, x, x, x, NULL);
    Rng end = *t_default_rng();
    *t_default_rng() = start;
    MhaCache c;
    Tensor *y = mha_forward_cached(m, x, &c);
    CHECK_TENSOR_CLOSE(y, y_plain, 0.0, 0.0);                      /* the same draws as a plain forward */
    CHECK(t_default_rng()->state == end.state);                    /* and the generator ends where it did */
    CHECK_TENSOR_CLOSE(t_mul(c.trace.attn_weights, c.attn_mask), c.trace.attn_dropped, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(t_mul(c.trace.projected, c.resid_mask), y, 0.0, 0.0);
    CHECK(count_zeros(c.attn_mask) > 0);
}

static void test_gradient_check_with_dropout_and_biases(void) {
    /* training mode with dropout: the finite differences see the same masks as the backward */
    t_manual_seed(11);
    ModelArgs a = seed_args(5, 4, 4, 0.2, 2);
    a.qkv_bias = true;
    MultiHeadAttention *m = mha_new(a);
    Tensor *x = t_randn(SHAPE(2, 4, 5));
    Tensor *dy = t_randn(SHAPE(2, 4, 4));
    GradCheckRow rows[9];
    int n = grad_check(m, x, dy, 1e-2, rows);
    CHECK_EQ_INT(n, 9);
    CHECK_STR_CONTAINS(rows[6].name, "bk");
    CHECK(rows[6].max_abs_grad < 1e-3);   /* dloss/dbk = 0: softmax ignores a shift of a whole row */
    for (int i = 0; i < n; i++)
        CHECK_MSG(rows[i].max_rel_err <= 1e-3 && (rows[i].max_abs_grad > 1e-2 || !strcmp(rows[i].name, "bk")),
                  "%s: relative error %g, largest gradient %g", rows[i].name, rows[i].max_rel_err,
                  rows[i].max_abs_grad);
    /* not causal, no biases */
    t_manual_seed(12);
    ModelArgs b = happy_llm_args(4, 2, 3, 0.0, false);
    MultiHeadAttention *m2 = mha_new(b);
    Tensor *x2 = t_randn(SHAPE(1, 3, 4));
    n = grad_check(m2, x2, t_randn(SHAPE(1, 3, 4)), 1e-2, rows);
    CHECK_EQ_INT(n, 5);
    for (int i = 0; i < n; i++)
        CHECK_MSG(rows[i].max_rel_err <= 1e-3, "%s: relative error %g", rows[i].name, rows[i].max_rel_err);
}

/* ---- the training pieces -------------------------------------------------------------- */

static void test_lag_loss_matches_cross_entropy(void) {
    Tensor *logits = fx("ce/logits"), *idxf = fx("ce/idx");
    int32_t idx[12];
    for (int i = 0; i < 12; i++) idx[i] = (int32_t)t_flat_get(idxf, i);
    Tensor *dlogits;
    double loss = lag_loss(logits, idx, &dlogits);
    CHECK_CLOSE(loss, t_get(fx("ce/loss"), 0), 1e-5);
    CHECK_TENSOR_CLOSE(dlogits, fx("ce/dlogits"), TOL, 1e-6);
    CHECK(t_get(dlogits, 0, 0, 0) == 0.0f);   /* the first LAG positions predict nothing */
}

static void test_adam_matches_torch(void) {
    Tensor *p = t_clone(fx("adam/p0")), *gs = fx("adam/grads"), *after = fx("adam/after");
    ParamList pl = {0};
    pl.n = 1;
    pl.names[0] = "p";
    pl.params[0] = p;
    Adam *opt = adam_new(&pl, 0.01);
    for (int k = 0; k < 4; k++) {
        pl.grads[0] = t_select(gs, 0, k);
        adam_step(opt, &pl);
        CHECK_TENSOR_CLOSE(p, t_select(after, 0, k), 1e-5, 1e-6);
    }
}

static void test_tiny_model_gradients_are_finite_differences(void) {
    t_manual_seed(3);
    TinyModel *model = tiny_model_new(5, 6, 8, 2);
    int32_t idx[2 * 6] = {0, 1, 2, 3, 4, 0, 4, 4, 1, 2, 0, 3};
    TinyCache c;
    Tensor *logits = tiny_forward(model, idx, 2, &c);
    Tensor *dlogits;
    lag_loss(logits, idx, &dlogits);
    ParamList g = tiny_backward(model, &c, dlogits);
    CHECK_EQ_INT(g.n, 9);
    for (int i = 0; i < g.n; i++) {
        CHECK(t_same_shape(g.params[i], g.grads[i]));
        float *d = t_data(g.params[i]);
        double worst = 0.0, scale = 0.0;
        for (int64_t j = 0; j < t_numel(g.params[i]); j += 3) {   /* every third entry keeps it quick */
            float keep = d[j];
            float up = keep + 1e-2f, down = keep - 1e-2f;
            TinyCache c2;
            d[j] = up;
            double lu = lag_loss(tiny_forward(model, idx, 2, &c2), idx, NULL);
            d[j] = down;
            double ld = lag_loss(tiny_forward(model, idx, 2, &c2), idx, NULL);
            d[j] = keep;
            double fd = (lu - ld) / ((double)up - (double)down);
            double bw = t_flat_get(g.grads[i], j);
            if (fabs(fd - bw) > worst) worst = fabs(fd - bw);
            if (fabs(fd) > scale) scale = fabs(fd);
        }
        CHECK_MSG(worst <= 1e-3 * (scale > 1e-3 ? scale : 1e-3) + 1e-5, "%s: backward differs from finite "
                  "differences by %g (largest gradient %g)", g.names[i], worst, scale);
    }
}

static void test_lag_attention_reads_the_stripe(void) {
    /* a (1, 2, 4, 4) weight tensor with all mass on t - 2 in head 0 and uniform causal rows in head 1 */
    Tensor *w = t_zeros(SHAPE(1, 2, 4, 4));
    for (int64_t t = 0; t < 4; t++) {
        t_set(w, 1.0f, 0, 0, t, t >= 2 ? t - 2 : 0);
        for (int64_t s = 0; s <= t; s++) t_set(w, 1.0f / (float)(t + 1), 0, 1, t, s);
    }
    double out[2];
    lag_attention(w, out);
    CHECK_CLOSE(out[0], 1.0, 1e-9);
    CHECK_CLOSE(out[1], (1.0 / 3 + 1.0 / 4) / 2, 1e-6);
}

/* ---- errors ---------------------------------------------------------------------------- */

static void test_errors_are_sentences(void) {
    Linear *lin = nn_linear_from("w", fx("linear/weight"), NULL);
    Tensor *a, *b, *c;
    CHECK_ERROR(linear_backward(lin, fx("linear/x"), t_zeros(SHAPE(2, 3, 5)), &a, &b, &c),
                "linear_backward: x (2, 3, 5) and dy (2, 3, 5)");
    CHECK_ERROR(linear_backward(lin, fx("linear/x"), t_zeros(SHAPE(3, 3, 4)), &a, &b, &c), "same leading dims");
    CHECK_ERROR(matmul_backward(t_zeros(SHAPE(2, 3)), t_zeros(SHAPE(3, 4)), t_zeros(SHAPE(2, 5)), &a, &b),
                "matmul_backward: a (2, 3) @ b (3, 4) cannot give dc (2, 5)");
    CHECK_ERROR(softmax_backward(t_zeros(SHAPE(2, 3)), t_zeros(SHAPE(3, 2))),
                "softmax_backward: the weights p (2, 3) and their gradient dp (3, 2)");
    CHECK_ERROR(dropout_backward(t_zeros(SHAPE(2, 3)), t_zeros(SHAPE(2, 4))),
                "dropout_backward: dy (2, 3) and the dropout mask (2, 4)");
    CHECK_ERROR(scale_backward(t_zeros(SHAPE(2)), 0), "d_k must be at least 1");
    t_manual_seed(1);
    MultiHeadAttention *m = mha_new(seed_args(6, 4, 5, 0.0, 2));
    Tensor *x = t_randn(SHAPE(2, 5, 6));
    MhaCache cache;
    mha_forward_cached(m, x, &cache);
    CHECK_ERROR(mha_backward(m, &cache, t_zeros(SHAPE(2, 5, 6))),
                "mha_backward: dy has shape (2, 5, 6) but the output y has shape (2, 5, 4)");
    TinyModel *tm = tiny_model_new(4, 3, 4, 2);
    int32_t bad[3] = {0, 4, 1};
    TinyCache tc;
    CHECK_ERROR(tiny_forward(tm, bad, 1, &tc), "token id 4 at (0, 1) is outside the vocabulary 0..3");
}

int main(void) {
    RUN(test_linear_backward_matches_autograd);
    RUN(test_matmul_backward_matches_autograd);
    RUN(test_scale_and_mask_backward_match_autograd);
    RUN(test_softmax_backward_matches_autograd);
    RUN(test_softmax_backward_ignores_a_row_shift);
    RUN(test_dropout_backward_matches_autograd);
    RUN(test_dropout_mask_is_chapter_6s_draw);
    RUN(test_split_and_merge_backward_match_autograd);
    RUN(test_module_gradients_match_autograd);
    RUN(test_cached_forward_keeps_the_dropout_masks);
    RUN(test_gradient_check_with_dropout_and_biases);
    RUN(test_lag_loss_matches_cross_entropy);
    RUN(test_adam_matches_torch);
    RUN(test_tiny_model_gradients_are_finite_differences);
    RUN(test_lag_attention_reads_the_stripe);
    RUN(test_errors_are_sentences);
    return harness_finish("test_ch10");
}
