/* test_ch03.c — chapter 3, self-attention, against PyTorch fixtures
 * (tests/fixtures/ch03, written by scripts/golden/ch03.py: F.linear with the
 * nn.Linear weight layout, then Happy-LLM's attention function), the
 * symmetry of attention(x, x, x), and every sentence qkv_load refuses with. */
#include <math.h>

#include "tests/harness.h"
#include "common/program/program.h"
#include "chapters/03_self_attention/self_attention_setup.h"

#define RTOL 1e-5
#define ATOL 1e-6

static char path_buf[256];
/* fixture ch03/<case>_<role>.npy */
static Tensor *fx(const char *c, const char *role) {
    snprintf(path_buf, sizeof path_buf, "ch03/%s_%s.npy", c, role);
    return load_fixture(path_buf);
}
/* fixtures folder ch03/<name> as a path for qkv_load */
static const char *fx_dir(const char *name) {
    snprintf(path_buf, sizeof path_buf, "ch03/%s", name);
    return fixture_path(path_buf);
}

static bool filled(Attention a) {
    CHECK_MSG(a.scores && a.weights && a.output, "attention left scores, weights or output unset");
    return a.scores && a.weights && a.output;
}

/* A projection from the fixture weights of case c (with its biases when it has them). */
static QKVProjection *fx_projection(const char *c, bool bias) {
    QKVProjection *p = (QKVProjection *)t_alloc(sizeof *p);
    p->wq = nn_linear_from("wq", fx(c, "wq"), bias ? fx(c, "bq") : NULL);
    p->wk = nn_linear_from("wk", fx(c, "wk"), bias ? fx(c, "bk") : NULL);
    p->wv = nn_linear_from("wv", fx(c, "wv"), bias ? fx(c, "bv") : NULL);
    p->d_in = p->wq->in_features;
    p->d_out = p->wq->out_features;
    return p;
}

/* self_attention(p, x) and qkv_project against F.linear + Happy-LLM attention. */
static void check_projected(const char *c, bool bias) {
    QKVProjection *p = fx_projection(c, bias);
    Tensor *x = fx(c, "x");
    Tensor *xq = NULL, *xk = NULL, *xv = NULL;
    qkv_project(p, x, &xq, &xk, &xv);
    CHECK_MSG(xq && xk && xv, "qkv_project left xq, xk or xv unset");
    if (!(xq && xk && xv)) return;
    CHECK_TENSOR_CLOSE(xq, fx(c, "xq"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(xk, fx(c, "xk"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(xv, fx(c, "xv"), RTOL, ATOL);
    Attention a = self_attention(p, x);
    if (!filled(a)) return;
    CHECK_TENSOR_CLOSE(a.scores, fx(c, "scores"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(a.weights, fx(c, "p_attn"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(a.output, fx(c, "output"), RTOL, ATOL);
}

/* self_attention_plain(x) against attention(x, x, x) in PyTorch. */
static void check_plain(const char *c) {
    Attention a = self_attention_plain(fx(c, "x"));
    if (!filled(a)) return;
    CHECK_TENSOR_CLOSE(a.scores, fx(c, "scores"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(a.weights, fx(c, "p_attn"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(a.output, fx(c, "output"), RTOL, ATOL);
}

/* ---- against PyTorch ------------------------------------------------------- */

static void test_projected_small(void) { check_projected("small", false); }   /* (1, 6, 3) -> d_out 2 */
static void test_projected_bias(void) { check_projected("bias", true); }      /* B = 2, with biases */
static void test_projected_t1(void) { check_projected("t1", true); }          /* T = 1 */
static void test_projected_din1(void) { check_projected("din1", false); }     /* d_in = 1 */
static void test_projected_dout1(void) { check_projected("dout1", true); }    /* d_out = 1 */
static void test_projected_square(void) { check_projected("square", false); } /* d_out == d_in = 16 */
static void test_plain_small(void) { check_plain("plain_small"); }
static void test_plain_batch(void) { check_plain("plain_batch"); }
static void test_plain_t1(void) { check_plain("plain_t1"); }

/* ---- Q, K, V: the same or not ------------------------------------------------ */

static void test_plain_scores_symmetric(void) {
    Tensor *x = fx("plain_batch", "x"); /* (2, 5, 4) */
    Attention a = self_attention_plain(x);
    if (!filled(a)) return;
    CHECK_CLOSE(t_max_abs_diff(a.scores, t_transpose(a.scores, -2, -1)), 0.0, 0.0);
    /* and it is attention with the same tensor three times: scores = x·xᵀ/√d_in */
    CHECK_TENSOR_CLOSE(a.scores, t_div_scalar(t_matmul(x, t_transpose(x, -2, -1)), 2.0f), RTOL, ATOL);
}

static void test_plain_self_is_max_with_many_features(void) {
    /* random x with d_in = 256: x_i·x_i ≈ 256, x_i·x_j ≈ ±16, so every row's largest score is its own */
    t_manual_seed(11);
    Tensor *x = t_randn(SHAPE(2, 8, 256));
    Attention a = self_attention_plain(x);
    if (!filled(a)) return;
    for (int64_t b = 0; b < 2; b++)
        for (int64_t i = 0; i < 8; i++)
            for (int64_t j = 0; j < 8; j++)
                if (j != i) CHECK(t_get(a.scores, b, i, i) > t_get(a.scores, b, i, j));
}

static void test_projected_scores_not_symmetric(void) {
    QKVProjection *p = fx_projection("bias", true);
    Attention a = self_attention(p, fx("bias", "x"));
    if (!filled(a)) return;
    CHECK(t_max_abs_diff(a.scores, t_transpose(a.scores, -2, -1)) > 1e-2);
}

static void test_projections_are_three_different_tensors(void) {
    t_manual_seed(3);
    QKVProjection *p = qkv_new(5, 4, false);
    Tensor *x = t_randn(SHAPE(2, 3, 5));
    Tensor *xq = NULL, *xk = NULL, *xv = NULL;
    qkv_project(p, x, &xq, &xk, &xv);
    if (!(xq && xk && xv)) {
        CHECK_MSG(false, "qkv_project left xq, xk or xv unset");
        return;
    }
    CHECK_EQ_INT(t_size(xq, -1), 4);
    CHECK(t_max_abs_diff(xq, xk) > 1e-3 && t_max_abs_diff(xk, xv) > 1e-3 && t_max_abs_diff(xq, xv) > 1e-3);
    /* with W_q = W_k the scores are symmetric again: the projections are what breaks the symmetry */
    p->wk = p->wq;
    Attention a = self_attention(p, x);
    if (!filled(a)) return;
    CHECK_CLOSE(t_max_abs_diff(a.scores, t_transpose(a.scores, -2, -1)), 0.0, 1e-6);
}

/* ---- qkv_new --------------------------------------------------------------------- */

static void test_qkv_new_shapes_and_params(void) {
    t_manual_seed(1);
    QKVProjection *p = qkv_new(10, 8, false);
    CHECK_EQ_INT(p->d_in, 10);
    CHECK_EQ_INT(p->d_out, 8);
    CHECK_EQ_INT(p->wk->weight->shape[0], 8); /* (d_out, d_in), nn.Linear's layout */
    CHECK_EQ_INT(p->wk->weight->shape[1], 10);
    CHECK(p->wq->bias == NULL && p->wv->bias == NULL);
    CHECK_EQ_INT(qkv_num_params(p), 3 * 8 * 10);
    QKVProjection *b = qkv_new(10, 8, true);
    CHECK(b->wq->bias && b->wk->bias && b->wv->bias);
    CHECK_EQ_INT(qkv_num_params(b), 3 * 8 * 10 + 3 * 8);
    /* nn.Linear's default init: U(-1/√d_in, 1/√d_in) */
    double bound = 1.0 / sqrt(10.0), lo = 1.0, hi = -1.0;
    for (int64_t i = 0; i < 80; i++) {
        double w = t_flat_get(b->wv->weight, i);
        lo = w < lo ? w : lo;
        hi = w > hi ? w : hi;
    }
    CHECK(lo >= -bound && hi < bound && hi - lo > bound); /* spread over the range */
    CHECK(t_max_abs_diff(b->wq->weight, b->wk->weight) > 1e-3);
}

static void test_qkv_new_errors(void) {
    CHECK_ERROR(qkv_new(0, 4, false), "in_features (0)");
    CHECK_ERROR(qkv_new(4, 0, true), "out_features (0)");
}

/* ---- qkv_load ---------------------------------------------------------------------- */

static void test_qkv_load_with_bias(void) {
    QKVProjection *p = qkv_load(fx_dir("weights_a"), 10);
    CHECK_EQ_INT(p->d_in, 10);
    CHECK_EQ_INT(p->d_out, 8);
    CHECK(p->wq->bias && p->wk->bias && p->wv->bias);
    Attention a = self_attention(p, load_fixture("ch03/input_a.npy"));
    if (!filled(a)) return;
    CHECK_TENSOR_CLOSE(a.output, load_fixture("ch03/output_a.npy"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(a.weights, load_fixture("ch03/attn_weights_a.npy"), RTOL, ATOL);
}

static void test_qkv_load_without_bias(void) {
    QKVProjection *p = qkv_load(fx_dir("weights_b"), 10);
    CHECK_EQ_INT(p->d_out, 4);
    CHECK(p->wq->bias == NULL);
    Attention a = self_attention(p, load_fixture("ch03/input_b.npy"));
    if (!filled(a)) return;
    CHECK_TENSOR_CLOSE(a.output, load_fixture("ch03/output_b.npy"), RTOL, ATOL);
    Attention c = self_attention(qkv_load(fx_dir("weights_c"), 9), load_fixture("ch03/input_c.npy"));
    if (!filled(c)) return;
    CHECK_TENSOR_CLOSE(c.output, load_fixture("ch03/output_c.npy"), RTOL, ATOL); /* T = 1 */
}

static void test_qkv_load_errors(void) {
    CHECK_ERROR(qkv_load(fx_dir("bad_missing_wk"), 10), "has no wk.npy");
    CHECK_ERROR(qkv_load(fx_dir("bad_d_in"), 10),
                "wk.npy has shape (8, 9) but the input has d_in = 10: expected (d_out, 10)");
    CHECK_ERROR(qkv_load(fx_dir("weights_a"), 9),
                "wq.npy has shape (8, 10) but the input has d_in = 9: expected (d_out, 9)");
    CHECK_ERROR(qkv_load(fx_dir("bad_shapes"), 10),
                "wk.npy has shape (4, 10) but wq.npy has shape (8, 10): wq, wk and wv must have the same shape");
    CHECK_ERROR(qkv_load(fx_dir("bad_1d"), 10), "wq.npy has shape (8,): a weight must be 2-D (d_out, d_in)");
    CHECK_ERROR(qkv_load(fx_dir("bad_3d"), 10), "wv.npy has shape (2, 4, 10): a weight must be 2-D (d_out, d_in)");
    CHECK_ERROR(qkv_load(fx_dir("bad_some_bias"), 10),
                "has bq.npy, bv.npy but not bk.npy: give all three biases bq, bk, bv or none");
    CHECK_ERROR(qkv_load(fx_dir("bad_bias_len"), 10),
                "bk.npy has shape (7,) but the weights have d_out = 8: expected (8,)");
    CHECK_ERROR(qkv_load(fx_dir("no_such_folder"), 10), "has no wq.npy");
}

/* ---- errors of the forward pass ---------------------------------------------------- */

static void test_forward_errors(void) {
    QKVProjection *p = qkv_new(4, 3, false);
    Tensor *xq, *xk, *xv;
    CHECK_ERROR(qkv_project(p, t_zeros(SHAPE(2, 5, 6)), &xq, &xk, &xv),
                "self-attention: input (2, 5, 6) must end in d_in = 4");
    CHECK_ERROR(self_attention(p, t_zeros(SHAPE(1, 5, 3))), "input (1, 5, 3) must end in d_in = 4");
    CHECK_ERROR(self_attention_plain(t_zeros(SHAPE(4))), "attention: query (4,), key (4,) and value (4,) each need at least 2 dims");
}

int main(void) {
    RUN(test_projected_small);
    RUN(test_projected_bias);
    RUN(test_projected_t1);
    RUN(test_projected_din1);
    RUN(test_projected_dout1);
    RUN(test_projected_square);
    RUN(test_plain_small);
    RUN(test_plain_batch);
    RUN(test_plain_t1);
    RUN(test_plain_scores_symmetric);
    RUN(test_plain_self_is_max_with_many_features);
    RUN(test_projected_scores_not_symmetric);
    RUN(test_projections_are_three_different_tensors);
    RUN(test_qkv_new_shapes_and_params);
    RUN(test_qkv_new_errors);
    RUN(test_qkv_load_with_bias);
    RUN(test_qkv_load_without_bias);
    RUN(test_qkv_load_errors);
    RUN(test_forward_errors);
    return harness_finish("test_ch03");
}
