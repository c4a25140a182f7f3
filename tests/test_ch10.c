/* test_ch10.c — chapter 10, the backward pass by hand, against torch.autograd
 * (tests/fixtures/ch10, written by scripts/golden/ch10.py): every backward
 * piece on its own (nn.Linear with and without bias, matmul, the scale, the
 * causal mask, softmax plain and masked, dropout, split and merge heads), the
 * whole module over random shapes with biases on and off and causal on and
 * off (every gradient within 1e-4), the dropout masks the forward keeps (and
 * a backward that reads a redrawn one fails the check), the float64
 * reference forward against chapter 7's, the gradient check (it passes, and
 * it catches a gradient 1% off), the training pieces (cross-entropy, Adam, embeddings)
 * and every error sentence. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/harness.h"
#include "common/program/program.h"
#include "chapters/10_backward/grad_check.h"
#include "chapters/10_backward/train.h"
#include "chapters/07_output_projection/mha_setup.h"

#define TOL 1e-4   /* "within 1e-4": |c - torch| <= 1e-4 + 1e-4 |torch| */

static Tensor *fx(const char *rel) {
    char path[256];
    snprintf(path, sizeof path, "ch10/%s.npy", rel);
    return load_fixture(path);
}

/* ---- the pieces ------------------------------------------------------------------------ */

/* Two generators at the same point of their streams (mt19937 words, position, cached normal). */
static bool same_rng(const Rng *a, const Rng *b) {
    return !memcmp(a->state, b->state, sizeof a->state) && a->next == b->next &&
           a->has_next_normal == b->has_next_normal && (!a->has_next_normal || a->next_normal == b->next_normal);
}

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

/* (a * b).sum() in double, a and b of the same shape */
static double dot64(const Tensor *a, const Tensor *b) {
    double s = 0.0;
    for (int64_t i = 0; i < t_numel(a); i++) s += (double)t_flat_get(a, i) * (double)t_flat_get(b, i);
    return s;
}

static void test_dropout_backward_reuses_the_applied_mask(void) {
    /* chapter 6 hands back the mask it applied; the backward of y = x * mask is dy * mask */
    Dropout d = dropout_new(0.3);
    t_manual_seed(42);
    Tensor *x = t_randn(SHAPE(3, 5, 7)), *dy = t_randn(SHAPE(3, 5, 7));
    Tensor *mask;
    Tensor *y = dropout_forward(&d, x, &mask);
    CHECK_TENSOR_CLOSE(t_mul(x, mask), y, 0.0, 0.0);   /* the same elements, the same 1/(1-p) */
    CHECK(count_zeros(mask) > 0);
    CHECK_CLOSE(t_max_last(t_reshape(mask, SHAPE(-1)))->storage->data[0], 1.0 / 0.7, 1e-6);
    Tensor *dx = dropout_backward(dy, mask);
    /* y is linear in x, so loss = (y * dy).sum() is (x * dx).sum() exactly when dx is its gradient */
    CHECK_CLOSE(dot64(x, dx), dot64(y, dy), 1e-5);
    for (int64_t i = 0; i < t_numel(mask); i++)   /* a dropped element gets no gradient */
        if (t_flat_get(mask, i) == 0.0f) CHECK(t_flat_get(dx, i) == 0.0f);
    /* a redrawn mask is another function: its dx is not this forward's gradient */
    Tensor *other;
    dropout_forward(&d, x, &other);
    CHECK(!(fabs(dot64(x, dropout_backward(dy, other)) - dot64(y, dy)) <= 1e-5));
    /* eval mode: the mask is all ones and the gradient passes unchanged */
    d.training = false;
    Tensor *ones;
    dropout_forward(&d, x, &ones);
    CHECK_TENSOR_CLOSE(ones, t_ones(t_shape(x)), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(dropout_backward(dy, ones), dy, 0.0, 0.0);
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
    /* the 手撕 class (attn_dropout only) and Happy-LLM's (attn_dropout and resid_dropout), in training mode */
    for (int happy = 0; happy < 2; happy++) {
        t_manual_seed(7);
        ModelArgs a = happy ? happy_llm_args(6, 2, 5, 0.4, true) : handwritten_mha_args(6, 4, 5, 0.4, 2);
        MultiHeadAttention *m = mha_new(a);   /* training mode */
        Tensor *x = t_randn(SHAPE(2, 5, 6));
        Rng start = *t_default_rng();
        Tensor *y_plain = mha_forward(m, x, x, x, NULL);
        Rng end = *t_default_rng();
        *t_default_rng() = start;
        MhaCache c;
        Tensor *y = mha_forward_cached(m, x, &c);
        CHECK_TENSOR_CLOSE(y, y_plain, 0.0, 0.0);                  /* the same draws as a plain forward */
        CHECK(same_rng(t_default_rng(), &end));                    /* and not one draw more */
        CHECK(c.x == x);
        /* the masks the forward multiplied by, kept: no generator replay */
        CHECK_TENSOR_CLOSE(t_mul(c.trace.attn_weights, c.trace.attn_mask), c.trace.attn_dropped, 0.0, 0.0);
        CHECK(count_zeros(c.trace.attn_mask) > 0);
        if (happy) {
            CHECK(c.trace.resid_mask != NULL);
            if (c.trace.resid_mask) {
                CHECK_TENSOR_CLOSE(t_mul(c.trace.projected, c.trace.resid_mask), y, 0.0, 0.0);
                CHECK(count_zeros(c.trace.resid_mask) > 0);
            }
        } else {
            CHECK(c.trace.resid_mask == NULL);                     /* no resid_dropout: y is the projection */
            CHECK_TENSOR_CLOSE(c.trace.projected, y, 0.0, 0.0);
        }
    }
}

/* ---- the float64 reference and the gradient check ------------------------------------ */

/* max |y32 - y64| over the output */
static double max_diff_64(const Tensor *y32, const double *y64) {
    double d = 0.0;
    for (int64_t i = 0; i < t_numel(y32); i++) {
        double e = fabs((double)t_flat_get(y32, i) - y64[i]);
        if (!(e <= d)) d = e;   /* NaN sticks */
    }
    return d;
}

static void test_double_forward_matches_chapter_7(void) {
    /* the autograd groups: random shapes, biases and causal on and off, eval mode */
    int n = (int)t_get(fx("sweep_count"), 0);
    for (int i = 0; i < n; i++) {
        t_scope_begin();
        char group[32], rel[64];
        snprintf(group, sizeof group, "rand_%02d", i);
        Tensor *x;
        MultiHeadAttention *m = load_group(group, &x);
        Tensor *y32 = mha_forward(m, x, x, x, NULL);   /* chapter 7, float32 */
        Mha64 m64 = mha64_from(m);
        double *y64 = (double *)t_alloc(sizeof(double) * (size_t)t_numel(y32));
        mha64_forward(&m64, float64_copy(x), t_size(x, 0), t_size(x, 1), NULL, NULL, y64);
        double d = max_diff_64(y32, y64);
        CHECK_MSG(d <= 1e-5, "%s: the float64 forward differs from chapter 7's by %g", group, d);
        snprintf(rel, sizeof rel, "%s/out", group);
        d = max_diff_64(fx(rel), y64);
        CHECK_MSG(d <= 1e-5, "%s: the float64 forward differs from PyTorch's by %g", group, d);
        t_scope_end();
    }
    /* random modules: every combination of qkv_bias, out_bias and causal, eval and training mode */
    for (int k = 0; k < 16; k++) {
        t_scope_begin();
        t_manual_seed(100 + (uint64_t)k);
        int64_t heads = 1 + k % 3, T = 2 + k % 5;
        ModelArgs a = handwritten_mha_args(3 + k % 4, 2 * heads * (1 + k % 2), T, (k & 8) ? 0.3 : 0.0, heads);
        a.qkv_bias = k & 1;
        a.out_bias = (k & 2) != 0;
        a.causal = (k & 4) != 0;
        MultiHeadAttention *m = mha_new(a);   /* training mode: dropout 0.3 when k & 8 */
        Tensor *x = t_randn(SHAPE(1 + k % 2, T, a.d_in));
        MhaCache c;
        Tensor *y32 = mha_forward_cached(m, x, &c);
        Mha64 m64 = mha64_from(m);
        double *y64 = (double *)t_alloc(sizeof(double) * (size_t)t_numel(y32));
        mha64_forward(&m64, float64_copy(x), t_size(x, 0), T, float64_copy(c.trace.attn_mask),
                      float64_copy(c.trace.resid_mask), y64);
        double d = max_diff_64(y32, y64);
        CHECK_MSG(d <= 1e-5, "case %d (qkv_bias %d, out_bias %d, causal %d, dropout %g): float64 forward "
                  "differs by %g", k, a.qkv_bias, a.out_bias, a.causal, a.dropout, d);
        if (k & 8) CHECK(count_zeros(c.trace.attn_mask) > 0);   /* the 手撕 class: no resid_dropout */
        CHECK(c.trace.resid_mask == NULL);
        t_scope_end();
    }
}

static void test_float64_differences_barely_move_with_h(void) {
    /* the reference itself: between h = 1e-6 and h = 1e-4 every difference moves by far less than
     * the float32 rounding the table measures (truncation ~h^2, rounding ~1e-16 |loss| / h) */
    t_manual_seed(5);
    ModelArgs a = handwritten_mha_args(6, 4, 4, 0.0, 2);
    a.qkv_bias = true;
    MultiHeadAttention *m = mha_new(a);
    Mha64 m64 = mha64_from(m);
    Tensor *x = t_randn(SHAPE(2, 4, 6));
    double *x64 = float64_copy(x), *dy64 = float64_copy(t_randn(SHAPE(2, 4, 4)));
    double y[2 * 4 * 4], worst = 0.0;
    for (int64_t i = 0; i < t_numel(x); i++) {
        double fd[2], hs[2] = {1e-6, 1e-4};
        for (int k = 0; k < 2; k++) {
            double keep = x64[i], l[2] = {0.0, 0.0};
            for (int s = 0; s < 2; s++) {
                x64[i] = keep + (s ? -hs[k] : hs[k]);
                mha64_forward(&m64, x64, 2, 4, NULL, NULL, y);
                for (int j = 0; j < 2 * 4 * 4; j++) l[s] += y[j] * dy64[j];
            }
            x64[i] = keep;
            fd[k] = (l[0] - l[1]) / (2.0 * hs[k]);
        }
        if (fabs(fd[0] - fd[1]) > worst) worst = fabs(fd[0] - fd[1]);
    }
    CHECK_MSG(worst < 1e-8, "the float64 differences moved by %g between h = 1e-6 and 1e-4", worst);
}

static void check_table_passes(const char *what, const GradCheckRow *rows, int n) {
    for (int i = 0; i < n; i++)
        CHECK_MSG(rows[i].max_rel_err <= GRAD_CHECK_TOL, "%s: %s has relative error %g (tolerance %g)", what,
                  rows[i].name, rows[i].max_rel_err, GRAD_CHECK_TOL);
    CHECK(grad_check_worst(rows, n) <= GRAD_CHECK_TOL);
}

static void test_gradient_check_table_passes(void) {
    /* training mode with dropout and every bias: the float64 forward holds the same masks */
    t_manual_seed(11);
    ModelArgs a = handwritten_mha_args(5, 4, 4, 0.2, 2);
    a.qkv_bias = true;
    MultiHeadAttention *m = mha_new(a);
    Tensor *x = t_randn(SHAPE(2, 4, 5));
    Tensor *dy = t_randn(SHAPE(2, 4, 4));
    Rng before = *t_default_rng();
    GradCheckRow rows[9];
    int n = grad_check(m, x, dy, GRAD_CHECK_STEP, rows);
    CHECK(same_rng(t_default_rng(), &before));   /* the generator is left where it was */
    CHECK_EQ_INT(n, 9);
    const char *names[9] = {"x", "wq", "wk", "wv", "wo", "bq", "bk", "bv", "bo"};
    for (int i = 0; i < n; i++) CHECK_STR_CONTAINS(rows[i].name, names[i]);
    CHECK(rows[6].max_abs_grad < 1e-6);   /* dloss/dbk = 0: softmax ignores a shift of a whole row */
    for (int i = 0; i < n; i++)
        CHECK_MSG(rows[i].max_abs_grad > 1e-2 || i == 6, "%s: largest gradient %g is too small to test anything",
                  rows[i].name, rows[i].max_abs_grad);
    check_table_passes("dropout and biases", rows, n);
    /* not causal, no biases, eval mode (Happy-LLM's class) */
    t_manual_seed(12);
    MultiHeadAttention *m2 = mha_new(happy_llm_args(4, 2, 3, 0.0, false));
    mha_eval(m2);
    n = grad_check(m2, t_randn(SHAPE(1, 3, 4)), t_randn(SHAPE(1, 3, 4)), GRAD_CHECK_STEP, rows);
    CHECK_EQ_INT(n, 5);
    check_table_passes("no bias, not causal", rows, n);
    /* a wider causal one with 4 heads and the out bias only */
    t_manual_seed(13);
    MultiHeadAttention *m3 = mha_new(handwritten_mha_args(8, 8, 6, 0.0, 4));
    n = grad_check(m3, t_randn(SHAPE(2, 6, 8)), t_randn(SHAPE(2, 6, 8)), GRAD_CHECK_STEP, rows);
    CHECK_EQ_INT(n, 6);
    check_table_passes("4 heads, causal", rows, n);
}

static void test_gradient_check_catches_a_wrong_backward(void) {
    t_manual_seed(21);
    ModelArgs a = handwritten_mha_args(5, 4, 4, 0.2, 2);
    a.qkv_bias = true;
    MultiHeadAttention *m = mha_new(a);
    Tensor *x = t_randn(SHAPE(2, 4, 5));
    Tensor *dy = t_randn(SHAPE(2, 4, 4));
    MhaCache c;
    mha_forward_cached(m, x, &c);
    MhaGrads good = mha_backward(m, &c, dy);
    GradCheckRow rows[9];
    int n = grad_check_grads(m, &c, dy, &good, GRAD_CHECK_STEP, rows);
    CHECK_EQ_INT(n, 9);
    check_table_passes("the right backward", rows, n);
    /* one gradient at a time 1% too large (bk is 0, so 1% of 0 is still right: skip it) */
    for (int k = 0; k < 9; k++) {
        if (k == 6) continue;
        MhaGrads bad = good;
        Tensor **slots[9] = {&bad.dx, &bad.dwq, &bad.dwk, &bad.dwv, &bad.dwo, &bad.dbq, &bad.dbk, &bad.dbv, &bad.dbo};
        *slots[k] = t_mul_scalar(*slots[k], 1.01f);
        n = grad_check_grads(m, &c, dy, &bad, GRAD_CHECK_STEP, rows);
        CHECK_MSG(rows[k].max_rel_err > GRAD_CHECK_TOL, "%s scaled by 1.01 was not caught (relative error %g)",
                  rows[k].name, rows[k].max_rel_err);
        CHECK(!(grad_check_worst(rows, n) <= GRAD_CHECK_TOL));
        for (int i = 0; i < n; i++)
            if (i != k) CHECK_MSG(rows[i].max_rel_err <= GRAD_CHECK_TOL, "%s flagged when %s was wrong", rows[i].name,
                                  rows[k].name);
    }
    /* the classic bug: x.grad from wq and wk only, wv's share forgotten */
    MhaGrads forgot = good;
    Tensor *dx_v, *dwv;
    linear_backward(m->qkv->wv, x, split_heads_backward(good.dxv), &dx_v, &dwv, NULL);
    forgot.dx = t_sub(good.dx, dx_v);
    grad_check_grads(m, &c, dy, &forgot, GRAD_CHECK_STEP, rows);
    CHECK(rows[0].max_rel_err > 100 * GRAD_CHECK_TOL);
    /* a NaN gradient never passes */
    MhaGrads nan_g = good;
    nan_g.dwo = t_clone(good.dwo);
    t_set(nan_g.dwo, NAN, 1, 2);
    n = grad_check_grads(m, &c, dy, &nan_g, GRAD_CHECK_STEP, rows);
    CHECK(isnan(rows[4].max_rel_err));
    CHECK(!(grad_check_worst(rows, n) <= GRAD_CHECK_TOL));
    /* a gradient of the wrong size or a missing one is a sentence, not a read past the end */
    MhaGrads small = good;
    small.dwq = t_zeros(SHAPE(2, 2));
    CHECK_ERROR(grad_check_grads(m, &c, dy, &small, GRAD_CHECK_STEP, rows), "the gradient of wq must have 20 numbers");
    MhaGrads missing = good;
    missing.dbq = NULL;
    CHECK_ERROR(grad_check_grads(m, &c, dy, &missing, GRAD_CHECK_STEP, rows), "the gradient of bq");
    CHECK_ERROR(grad_check_grads(m, &c, t_zeros(SHAPE(2, 4, 5)), &good, GRAD_CHECK_STEP, rows),
                "grad_check: dy has shape (2, 4, 5) but the output y has shape (2, 4, 4)");
    CHECK_ERROR(grad_check_grads(m, &c, dy, &good, 0.0, rows), "the step h must be positive");
}

/* The cache with one mask swapped for a fresh draw of the same dropout: the backward
 * that reads it is the gradient of another function. */
static MhaCache with_redrawn_mask(const MultiHeadAttention *m, const MhaCache *c, bool resid) {
    MhaCache wrong = *c;
    Tensor **slot = resid ? &wrong.trace.resid_mask : &wrong.trace.attn_mask;
    dropout_forward(resid ? &m->resid_dropout : &m->attn_dropout, t_ones(t_shape(*slot)), slot);
    CHECK(!t_allclose(*slot, resid ? c->trace.resid_mask : c->trace.attn_mask, 0.0, 0.0));
    return wrong;
}

static void test_backward_uses_the_forward_masks(void) {
    /* Happy-LLM's class in training mode, dropout 0.5 on the weights and on the output: the
     * backward reads the masks of the trace and the float64 differences hold the same masks */
    t_manual_seed(31);
    MultiHeadAttention *m = mha_new(happy_llm_args(4, 2, 4, 0.5, true));
    Tensor *x = t_randn(SHAPE(2, 4, 4));
    Tensor *dy = t_randn(SHAPE(2, 4, 4));
    MhaCache c;
    mha_forward_cached(m, x, &c);
    CHECK(count_zeros(c.trace.attn_mask) > 0 && c.trace.resid_mask && count_zeros(c.trace.resid_mask) > 0);
    MhaGrads g = mha_backward(m, &c, dy);
    GradCheckRow rows[9];
    int n = grad_check_grads(m, &c, dy, &g, GRAD_CHECK_STEP, rows);
    CHECK_EQ_INT(n, 5);
    check_table_passes("both dropouts, the forward's masks", rows, n);
    /* a backward that read another mask (a redraw, as a replay from the wrong state would give) fails */
    for (int resid = 0; resid < 2; resid++) {
        MhaCache wrong = with_redrawn_mask(m, &c, resid);
        MhaGrads bad = mha_backward(m, &wrong, dy);
        n = grad_check_grads(m, &c, dy, &bad, GRAD_CHECK_STEP, rows);   /* the differences use the right masks */
        CHECK_MSG(!(grad_check_worst(rows, n) <= GRAD_CHECK_TOL), "a redrawn %s was not caught (worst %g)",
                  resid ? "resid_mask" : "attn_mask", grad_check_worst(rows, n));
    }
}

/* ---- the training pieces -------------------------------------------------------------- */

static void test_task_loss_matches_cross_entropy(void) {
    Tensor *logits = fx("ce/logits"), *idxf = fx("ce/idx");
    int32_t idx[12];
    for (int i = 0; i < 12; i++) idx[i] = (int32_t)t_flat_get(idxf, i);
    Tensor *dlogits;
    double loss = task_loss(logits, idx, &dlogits);
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
    task_loss(logits, idx, &dlogits);
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
            double lu = task_loss(tiny_forward(model, idx, 2, &c2), idx, NULL);
            d[j] = down;
            double ld = task_loss(tiny_forward(model, idx, 2, &c2), idx, NULL);
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

static void test_task_attention_on_target_reads_the_stripe(void) {
    /* a (1, 2, 4, 4) weight tensor with all mass on t - 2 in head 0 and uniform causal rows in head 1 */
    Tensor *w = t_zeros(SHAPE(1, 2, 4, 4));
    for (int64_t t = 0; t < 4; t++) {
        t_set(w, 1.0f, 0, 0, t, t >= 2 ? t - 2 : 0);
        for (int64_t s = 0; s <= t; s++) t_set(w, 1.0f / (float)(t + 1), 0, 1, t, s);
    }
    double out[2];
    task_attention_on_target(w, out);
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
    MultiHeadAttention *m = mha_new(handwritten_mha_args(6, 4, 5, 0.0, 2));
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
    RUN(test_dropout_backward_reuses_the_applied_mask);
    RUN(test_split_and_merge_backward_match_autograd);
    RUN(test_module_gradients_match_autograd);
    RUN(test_cached_forward_keeps_the_dropout_masks);
    RUN(test_double_forward_matches_chapter_7);
    RUN(test_float64_differences_barely_move_with_h);
    RUN(test_gradient_check_table_passes);
    RUN(test_gradient_check_catches_a_wrong_backward);
    RUN(test_backward_uses_the_forward_masks);
    RUN(test_task_loss_matches_cross_entropy);
    RUN(test_adam_matches_torch);
    RUN(test_tiny_model_gradients_are_finite_differences);
    RUN(test_task_attention_on_target_reads_the_stripe);
    RUN(test_errors_are_sentences);
    return harness_finish("test_ch10");
}
