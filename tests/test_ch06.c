/* test_ch06.c — chapter 6: inverted dropout on the attention weights.
 *
 * PyTorch's dropout mask comes from its own generator, so the random case is
 * tested here by its statistics; the deterministic cases (eval, p = 0,
 * p = 1) are compared with PyTorch (tests/fixtures/ch06, scripts/golden/ch06.py).
 */
#include <string.h>

#include "harness.h"
#include "common/program/program.h"

#include "chapters/05_multi_head/multi_head.h"
#include "chapters/06_dropout/dropout.h"

/* ---- the module ------------------------------------------------------------ */

static void test_dropout_new(void) {
    Dropout d = dropout_new(0.1);
    CHECK_CLOSE(d.p, 0.1, 0.0);
    CHECK(d.training);  /* a fresh module trains */
    CHECK(dropout_new(0.0).training);
    CHECK_CLOSE(dropout_new(1.0).p, 1.0, 0.0);
}

static void test_p_outside_0_1_is_an_error(void) {
    CHECK_ERROR(dropout_new(-0.1), "p = -0.1 is not a probability");
    CHECK_ERROR(dropout_new(1.5), "must be between 0 and 1");
    CHECK_ERROR(dropout_new(NAN), "must be between 0 and 1");
    Dropout bad = {2.0, true};
    Tensor *x = t_ones(SHAPE(3));
    CHECK_ERROR(dropout_forward(&bad, x, NULL), "p = 2 is not a probability");
}

/* ---- training mode ------------------------------------------------------------ */

/* Every element is either 0 or exactly x / (1 - p) (to float rounding). */
static void test_kept_values_are_scaled(void) {
    const double ps[] = {0.1, 0.25, 0.5, 0.9};
    for (int k = 0; k < 4; k++) {
        double p = ps[k];
        Dropout d = dropout_new(p);
        t_manual_seed(61 + (uint64_t)k);
        Tensor *x = t_add_scalar(t_rand(SHAPE(40, 50)), 0.5f);  /* no zeros in x */
        Tensor *y = dropout_forward(&d, x, NULL);
        char buf[T_SHAPE_STR];
        CHECK_STR_CONTAINS(t_shape_str(y, buf), "(40, 50)");
        int64_t kept = 0, dropped = 0;
        for (int64_t i = 0; i < t_numel(x); i++) {
            float xi = t_flat_get(x, i), yi = t_flat_get(y, i);
            if (yi == 0.0f) {
                dropped++;
            } else {
                kept++;
                double want = (double)xi / (1.0 - p);
                CHECK_MSG(fabs(yi - want) <= 1e-6 * fabs(want), "p = %g: kept %.9g, expected %.9g", p,
                          (double)yi, want);
            }
        }
        CHECK(kept > 0);
        CHECK(dropped > 0);
    }
}

/* The dropped fraction is p within 5 standard deviations of a binomial. */
static void test_dropped_fraction(void) {
    const double ps[] = {0.1, 0.5, 0.9, 0.01};
    const int64_t n = 100000;
    for (int k = 0; k < 4; k++) {
        double p = ps[k];
        Dropout d = dropout_new(p);
        t_manual_seed(600 + (uint64_t)k);
        Tensor *y = dropout_forward(&d, t_ones(SHAPE(n)), NULL);
        int64_t zeros = 0;
        for (int64_t i = 0; i < n; i++) zeros += t_flat_get(y, i) == 0.0f;
        double frac = (double)zeros / (double)n;
        double bound = 5.0 * sqrt(p * (1.0 - p) / (double)n);
        CHECK_MSG(fabs(frac - p) < bound, "p = %g: dropped fraction %.5f, |frac - p| >= %.5f", p, frac, bound);
    }
}

/* E[dropout(x)] = x: the mean of dropout(ones) stays 1 (within 5 standard errors). */
static void test_expectation_kept(void) {
    const double p = 0.3;
    const int64_t n = 100000;
    Dropout d = dropout_new(p);
    t_manual_seed(606);
    Tensor *y = dropout_forward(&d, t_ones(SHAPE(n)), NULL);
    double se = sqrt(p / (1.0 - p) / (double)n);  /* each element: variance p / (1 - p) */
    CHECK_CLOSE(t_mean_all(y), 1.0, 5.0 * se);
}

/* Softmax rows sum to 1; after dropout in training they no longer do. */
static void test_rows_no_longer_sum_to_one(void) {
    t_manual_seed(62);
    Tensor *w = t_softmax(t_randn(SHAPE(2, 2, 6, 6)), -1);
    Dropout d = dropout_new(0.5);
    Tensor *dropped = dropout_forward(&d, w, NULL);
    Tensor *sums = t_sum_last(dropped);  /* (2, 2, 6) */
    int off = 0;
    for (int64_t i = 0; i < t_numel(sums); i++) off += fabs(t_flat_get(sums, i) - 1.0f) > 1e-3;
    CHECK(off > 0);
    CHECK_CLOSE(t_sum_all(t_sum_last(w)), 24.0, 1e-4);  /* before: every row sums to 1 */
}

static void test_same_seed_repeats(void) {
    Dropout d = dropout_new(0.1);
    Tensor *x = t_ones(SHAPE(8, 16));
    t_manual_seed(123);
    Tensor *a = dropout_forward(&d, x, NULL);
    t_manual_seed(123);
    Tensor *b = dropout_forward(&d, x, NULL);
    CHECK_TENSOR_CLOSE(a, b, 0.0, 0.0);
    Tensor *c = dropout_forward(&d, x, NULL);  /* the generator moved on: another mask */
    CHECK(t_max_abs_diff(a, c) > 0.5);
    t_manual_seed(124);
    Tensor *e = dropout_forward(&d, x, NULL);
    CHECK(t_max_abs_diff(a, e) > 0.5);
}

/* A non-contiguous input (a transposed view) is dropped element by element in its own shape. */
static void test_non_contiguous_input(void) {
    t_manual_seed(63);
    Tensor *x = t_transpose(t_add_scalar(t_rand(SHAPE(5, 7)), 1.0f), 0, 1);  /* (7, 5) view */
    Dropout d = dropout_new(0.5);
    Tensor *y = dropout_forward(&d, x, NULL);
    char buf[T_SHAPE_STR];
    CHECK_STR_CONTAINS(t_shape_str(y, buf), "(7, 5)");
    for (int64_t i = 0; i < 7; i++)
        for (int64_t j = 0; j < 5; j++) {
            float yi = t_get(y, i, j);
            CHECK(yi == 0.0f || fabsf(yi - 2.0f * t_get(x, i, j)) <= 1e-6f * fabsf(yi));
        }
}

/* ---- the mask it applied --------------------------------------------------------- */

/* *mask is what x was multiplied by: the output is x * mask exactly, every
 * entry 0 or 1/(1-p). A mask drawn again would drop other elements and fail
 * that; asking for it draws nothing more (same seed, same output, the
 * generator left where it is without the mask). */
static void test_mask_is_the_one_applied(void) {
    const double ps[] = {0.1, 0.5, 0.9};
    for (int k = 0; k < 3; k++) {
        Dropout d = dropout_new(ps[k]);
        const float scale = 1.0f / (float)(1.0 - ps[k]);
        t_manual_seed(70 + (uint64_t)k);
        Tensor *x = t_transpose(t_randn(SHAPE(30, 20)), 0, 1);   /* (20, 30), non-contiguous, signs mixed */
        Rng start = *t_default_rng();
        Tensor *mask = NULL;
        Tensor *y = dropout_forward(&d, x, &mask);
        Rng after = *t_default_rng();
        CHECK(mask != NULL);
        if (!mask) return;
        CHECK(t_same_shape(mask, x));
        CHECK_TENSOR_CLOSE(y, t_mul(x, mask), 0.0, 0.0);
        int64_t zeros = 0, kept = 0;
        for (int64_t i = 0; i < t_numel(mask); i++) {
            zeros += t_flat_get(mask, i) == 0.0f;
            kept += t_flat_get(mask, i) == scale;
        }
        CHECK_EQ_INT(zeros + kept, t_numel(mask));
        CHECK(zeros > 0 && kept > 0);
        /* a second draw is another mask: the one returned is not redrawn */
        Tensor *again = NULL;
        dropout_forward(&d, x, &again);
        CHECK(t_max_abs_diff(again, mask) > 0.5);
        /* without the mask: the same output, the same draws */
        *t_default_rng() = start;
        CHECK_TENSOR_CLOSE(dropout_forward(&d, x, NULL), y, 0.0, 0.0);
        CHECK(!memcmp(t_default_rng()->state, after.state, sizeof after.state) && t_default_rng()->next == after.next);
    }
}

/* eval and p = 0: a mask of ones; p = 1: a mask of zeros (and nothing drawn). */
static void test_mask_of_the_identities(void) {
    t_manual_seed(73);
    Tensor *x = t_randn(SHAPE(3, 4)), *mask = NULL;
    Dropout d = dropout_new(0.5);
    d.training = false;
    CHECK_TENSOR_CLOSE(dropout_forward(&d, x, &mask), x, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(mask, t_ones(SHAPE(3, 4)), 0.0, 0.0);
    d = dropout_new(0.0);
    mask = NULL;
    CHECK_TENSOR_CLOSE(dropout_forward(&d, x, &mask), x, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(mask, t_ones(SHAPE(3, 4)), 0.0, 0.0);
    d = dropout_new(1.0);
    mask = NULL;
    CHECK_TENSOR_CLOSE(dropout_forward(&d, x, &mask), t_zeros(SHAPE(3, 4)), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(mask, t_zeros(SHAPE(3, 4)), 0.0, 0.0);
}

/* ---- the identities --------------------------------------------------------- */

static void test_eval_is_identity(void) {
    t_manual_seed(64);
    Tensor *x = t_randn(SHAPE(3, 4, 5));
    const double ps[] = {0.1, 0.5, 1.0};
    for (int k = 0; k < 3; k++) {
        Dropout d = dropout_new(ps[k]);
        d.training = false;  /* model.eval() */
        Tensor *y = dropout_forward(&d, x, NULL);
        CHECK_TENSOR_CLOSE(y, x, 0.0, 0.0);
        CHECK(!t_shares_storage(y, x));  /* a new tensor, as the header says */
    }
}

static void test_p0_is_identity(void) {
    t_manual_seed(65);
    Tensor *x = t_randn(SHAPE(4, 6));
    Dropout d = dropout_new(0.0);
    CHECK_TENSOR_CLOSE(dropout_forward(&d, x, NULL), x, 0.0, 0.0);
}

static void test_p1_zeroes_everything(void) {
    t_manual_seed(66);
    Tensor *x = t_randn(SHAPE(4, 6));
    Dropout d = dropout_new(1.0);
    Tensor *y = dropout_forward(&d, x, NULL);
    CHECK_TENSOR_CLOSE(y, t_zeros(SHAPE(4, 6)), 0.0, 0.0);
}

/* ---- in the multi-head attention of chapter 5, against PyTorch ------------- */

typedef struct {
    const char *name;
    int64_t heads;
    bool causal;
} Case;

static const Case cases[] = {
    {"b1_t4_din6_dout4_h2_causal", 2, true},
    {"b2_t5_din10_dout8_h2_full_bias", 2, false},
    {"b1_t1_din3_dout4_h4_causal_bias", 4, true},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

static Tensor *fx(const Case *c, const char *file) {
    char rel[256];
    snprintf(rel, sizeof rel, "ch06/%s/%s", c->name, file);
    return load_fixture(rel);
}

/* split, softmax(scores [+ mask]), attn_dropout, @ xv, merge — as the chapter program does it. */
static Tensor *mha_with_dropout(const Case *c, const Dropout *d, Tensor **weights) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s/weights", fixture_path("ch06"), c->name);
    Tensor *x = fx(c, "input.npy");
    QKVProjection *p = qkv_load(dir, t_size(x, -1));
    Tensor *xq, *xk, *xv;
    qkv_project(p, x, &xq, &xk, &xv);
    Attention a = multi_head_attention(xq, xk, xv, c->heads, c->causal ? causal_mask(t_size(x, 1), 1) : NULL);
    *weights = a.weights;
    Tensor *dropped = dropout_forward(d, a.weights, NULL);              /* (b, h, t, t) */
    return merge_heads(weighted_sum(dropped, split_heads(xv, c->heads)));  /* (b, t, d_out) */
}

static void test_mha_fixtures(void) {
    for (int i = 0; i < N_CASES; i++) {
        const Case *c = &cases[i];
        Tensor *w;
        Dropout d = dropout_new(0.1);
        d.training = false;
        CHECK_TENSOR_CLOSE(mha_with_dropout(c, &d, &w), fx(c, "output_eval.npy"), 1e-5, 1e-6);
        CHECK_TENSOR_CLOSE(w, fx(c, "attn_weights.npy"), 1e-5, 1e-6);
        d = dropout_new(0.0);
        CHECK_TENSOR_CLOSE(mha_with_dropout(c, &d, &w), fx(c, "output_p0.npy"), 1e-5, 1e-6);
        d = dropout_new(1.0);
        CHECK_TENSOR_CLOSE(mha_with_dropout(c, &d, &w), fx(c, "output_p1.npy"), 0.0, 0.0);
        /* training with p = 0.5 is something else: the output moves */
        d = dropout_new(0.5);
        t_manual_seed(67);
        CHECK(t_max_abs_diff(mha_with_dropout(c, &d, &w), fx(c, "output_eval.npy")) > 1e-4);
    }
}

static void test_count_zeros(void) {
    float v[] = {0.0f, 0.5f, -0.0f, 1.0f, 0.0f, -INFINITY};
    Tensor *x = t_from_array(SHAPE(2, 3), v);
    CHECK_EQ_INT(count_zeros(x), 3);                 /* -0.0 == 0.0 too */
    CHECK_EQ_INT(count_zeros(t_transpose(x, 0, 1)), 3); /* any strides */
}

int main(void) {
    RUN(test_count_zeros);
    RUN(test_dropout_new);
    RUN(test_p_outside_0_1_is_an_error);
    RUN(test_kept_values_are_scaled);
    RUN(test_dropped_fraction);
    RUN(test_expectation_kept);
    RUN(test_rows_no_longer_sum_to_one);
    RUN(test_same_seed_repeats);
    RUN(test_non_contiguous_input);
    RUN(test_mask_is_the_one_applied);
    RUN(test_mask_of_the_identities);
    RUN(test_eval_is_identity);
    RUN(test_p0_is_identity);
    RUN(test_p1_zeroes_everything);
    RUN(test_mha_fixtures);
    return harness_finish("test_ch06");
}
