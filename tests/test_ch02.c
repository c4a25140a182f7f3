/* test_ch02.c — chapter 2, scaled dot-product attention, against PyTorch
 * fixtures (tests/fixtures/ch02, written by scripts/golden/ch02.py with
 * Happy-LLM's attention function), plus the statistics of the √d_k
 * experiment and the error sentences. */
#include <math.h>

#include "tests/harness.h"
#include "common/program/program.h"
#include "chapters/02_scaling/scaling.h"

#define FX(name) load_fixture("ch02/" name ".npy")
#define RTOL 1e-5
#define ATOL 1e-6

/* An Attention whose fields were never filled (e.g. a blank left empty) fails here, not in a crash. */
static bool filled(Attention a) {
    CHECK_MSG(a.scores && a.weights && a.output, "attention() left scores, weights or output unset");
    return a.scores && a.weights && a.output;
}

/* attention(q, k, v) against the PyTorch case <name>_*: scores, p_attn and the output. */
static void check_case_tol(const char *name, double atol) {
    char path[128];
#define CASE(role) (snprintf(path, sizeof path, "ch02/%s_" role ".npy", name), load_fixture(path))
    Tensor *q = CASE("q"), *k = CASE("k"), *v = CASE("v");
    Tensor *scores = CASE("scores"), *p_attn = CASE("p_attn"), *output = CASE("output");
#undef CASE
    CHECK_TENSOR_CLOSE(scaled_scores(q, k), scores, RTOL, atol);
    Attention a = attention(q, k, v);
    if (!filled(a)) return;
    CHECK_TENSOR_CLOSE(a.scores, scores, RTOL, atol);
    CHECK_TENSOR_CLOSE(a.weights, p_attn, RTOL, atol);
    CHECK_TENSOR_CLOSE(a.output, output, RTOL, atol);
}

static void check_case(const char *name) { check_case_tol(name, ATOL); }

/* ---- attention() against PyTorch ---------------------------------------- */

static void test_basic(void) { check_case("basic"); }
static void test_t_neq_s(void) { check_case("rect"); }          /* T = 3, S = 7, d_v = 5 */
static void test_two_batch_dims(void) { check_case("batch"); }  /* (2, 3, T, .) */
static void test_broadcast_batch(void) { check_case("bcast"); } /* (2, 1, ..) with (3, ..) */
static void test_t1(void) { check_case("t1"); }                 /* one query */
static void test_dk1(void) { check_case("dk1"); }               /* √1 = 1: the scale is a no-op */
static void test_s1(void) { check_case("s1"); }                 /* one key: every weight is 1 */
static void test_wide_dk(void) { check_case("wide"); }          /* d_k = 256 */
/* q * 8: scores up to ~30, so the stable softmax matters. PyTorch rounds each
 * score to float32 (a few 1e-6 at that size, we sum in double), which moves
 * the weights by that much relative and the output, a sum of ~1-sized values
 * with cancellations, by ~1e-5 absolute. */
static void test_large_scores(void) { check_case_tol("large", 2e-5); }

static void test_sentence(void) {
    check_case("sentence");
    /* and chapter 1's unscaled weights are the flatter ones' sharper twin */
    Tensor *x = FX("sentence_q");
    Attention plain = dot_product_attention(x, x, x);
    CHECK_TENSOR_CLOSE(plain.weights, FX("sentence_p_attn_unscaled"), RTOL, ATOL);
    Attention a = attention(x, x, x);
    if (!filled(a)) return;
    /* scaling by 1/√3 < 1 flattens every row: its largest weight drops, its entropy rises */
    Tensor *mu = t_max_last(plain.weights), *ms = t_max_last(a.weights);
    Tensor *eu = attention_entropy(plain.weights), *es = attention_entropy(a.weights);
    for (int64_t i = 0; i < 6; i++) {
        CHECK(t_get(ms, i) < t_get(mu, i));
        CHECK(t_get(es, i) > t_get(eu, i));
    }
}

/* ---- properties ------------------------------------------------------------ */

static void test_scores_are_unscaled_over_sqrt_dk(void) {
    Tensor *q = FX("wide_q"), *k = FX("wide_k"); /* d_k = 256: the scale is exactly 16 */
    Tensor *unscaled = dot_scores(q, k);
    CHECK_TENSOR_CLOSE(t_mul_scalar(scaled_scores(q, k), 16.0f), unscaled, RTOL, 1e-5);
}

static void test_scaling_q_by_sqrt_dk_gives_chapter1(void) {
    /* attention(√d_k · q, k, v) == chapter 1's unscaled attention(q, k, v) */
    Tensor *q = FX("batch_q"), *k = FX("batch_k"), *v = FX("batch_v"); /* d_k = 6 */
    Attention a = attention(t_mul_scalar(q, sqrtf(6.0f)), k, v);
    Attention b = dot_product_attention(q, k, v);
    if (!filled(a)) return;
    CHECK_TENSOR_CLOSE(a.weights, b.weights, 1e-5, 1e-6);
    CHECK_TENSOR_CLOSE(a.output, b.output, 1e-5, 1e-6);
}

static void test_weights_rows_sum_to_one(void) {
    Attention a = attention(FX("rect_q"), FX("rect_k"), FX("rect_v"));
    if (!filled(a)) return;
    Tensor *sums = t_sum_last(a.weights); /* (3,) */
    for (int64_t i = 0; i < 3; i++) CHECK_CLOSE(t_get(sums, i), 1.0, 1e-6);
    CHECK_EQ_INT(t_size(a.weights, -1), 7);
    CHECK_EQ_INT(t_size(a.output, -1), 5);
}

static void test_attention_errors(void) {
    Tensor *q = t_zeros(SHAPE(2, 4, 8)), *k = t_zeros(SHAPE(2, 5, 6)), *v = t_zeros(SHAPE(2, 5, 3));
    CHECK_ERROR(attention(q, k, v), "attention: query (2, 4, 8) and key (2, 5, 6) must share the last dim d_k");
    Tensor *k2 = t_zeros(SHAPE(2, 5, 8)), *v2 = t_zeros(SHAPE(2, 6, 3));
    CHECK_ERROR(attention(q, k2, v2), "attention: key (2, 5, 8) and value (2, 6, 3) must have the same length S");
    CHECK_ERROR(attention(t_zeros(SHAPE(8)), k2, v), "attention: query (8,), key (2, 5, 8)");
    CHECK_ERROR(attention(q, t_zeros(SHAPE(3, 5, 8)), t_zeros(SHAPE(3, 5, 3))), "attention");
}

/* ---- entropy ----------------------------------------------------------------- */

static void test_entropy_against_torch(void) {
    /* torch.special.entr(p).sum(-1), with masked (exactly 0) weights and a one-hot row */
    CHECK_TENSOR_CLOSE(attention_entropy(FX("entropy_p")), FX("entropy_out"), RTOL, ATOL);
    Tensor *u = t_full(SHAPE(2, 5), 0.2f);
    CHECK_TENSOR_CLOSE(attention_entropy(u), FX("entropy_uniform_out"), RTOL, ATOL);
    Tensor *h = attention_entropy(u);
    CHECK_CLOSE(t_get(h, 1), log(5.0), 1e-6); /* uniform over 5 keys: log 5 nats */
}

static void test_entropy_one_hot_is_zero(void) {
    float row[4] = {0.0f, 1.0f, 0.0f, 0.0f};
    Tensor *h = attention_entropy(t_from_array(SHAPE(1, 4), row));
    CHECK_CLOSE(t_get(h, 0), 0.0, 0.0);
    CHECK(!isnan(t_get(h, 0)));
}

static void test_entropy_errors(void) {
    Tensor *scalar = t_zeros(shape_of(0, NULL)); /* a 0-dim tensor has no rows */
    CHECK_ERROR(attention_entropy(scalar), "attention_entropy: weights () need at least 1 dim");
}

/* ---- the √d_k experiment --------------------------------------------------------
 * q·k for q, k with independent N(0, 1) entries is a sum of d_k products of
 * variance 1 and fourth moment 9, so Var(q·k) = d_k and its kurtosis is
 * 3 + 6/d_k. The sample variance of n such values then has a relative
 * standard deviation of sqrt((2 + 6/d_k) / n) (sqrt(2/n) for large d_k).
 * The bounds below are 5 of those standard deviations: a correct
 * measure_scaling fails them with probability ~1e-6, a missing scale or a
 * wrong variance fails them always. */

static void check_variance(int64_t d_k, int64_t n) {
    t_manual_seed(1000 + (uint64_t)d_k);
    ScalingStats s = measure_scaling(d_k, n, 10, 4);
    double rel_sd = sqrt((2.0 + 6.0 / (double)d_k) / (double)n);
    CHECK_EQ_INT(s.d_k, d_k);
    CHECK_MSG(fabs(s.var_unscaled / (double)d_k - 1.0) <= 5.0 * rel_sd,
              "d_k = %lld: var(q·k) = %g, expected %lld within 5 sd (%g)", (long long)d_k, s.var_unscaled,
              (long long)d_k, 5.0 * rel_sd * (double)d_k);
    CHECK_MSG(fabs(s.var_scaled - 1.0) <= 5.0 * rel_sd, "d_k = %lld: var(q·k/√d_k) = %g, expected 1 within %g",
              (long long)d_k, s.var_scaled, 5.0 * rel_sd);
    CHECK_CLOSE(s.var_scaled * (double)d_k, s.var_unscaled, 1e-3 * s.var_unscaled);
}

static void test_variance_dk1(void) { check_variance(1, 20000); }
static void test_variance_dk4(void) { check_variance(4, 20000); }
static void test_variance_dk64(void) { check_variance(64, 4000); }
static void test_variance_dk256(void) { check_variance(256, 2000); }

/* Mean largest weight and entropy against a PyTorch Monte-Carlo reference of
 * 200000 rows (stats_dk*: [mean, sd] of max w unscaled, scaled, entropy
 * unscaled, scaled; rows), 5 standard errors of both estimates. */
static void check_softmax_stats(int64_t d_k, const char *fixture) {
    const int64_t rows = 3000, seq_len = 6;
    Tensor *ref = load_fixture(fixture);
    double n_ref = t_get(ref, 8);
    double got[4];
    t_manual_seed(2000 + (uint64_t)d_k);
    ScalingStats s = measure_scaling(d_k, 2, rows, seq_len);
    got[0] = s.max_weight_unscaled;
    got[1] = s.max_weight_scaled;
    got[2] = s.entropy_unscaled;
    got[3] = s.entropy_scaled;
    for (int i = 0; i < 4; i++) {
        double mean = t_get(ref, 2 * i), sd = t_get(ref, 2 * i + 1);
        double tol = 5.0 * sd * sqrt(1.0 / (double)rows + 1.0 / n_ref);
        CHECK_MSG(fabs(got[i] - mean) <= tol, "d_k = %lld, statistic %d: %g, PyTorch %g (tol %g)", (long long)d_k, i,
                  got[i], mean, tol);
    }
    /* and the direction of the effect */
    CHECK(s.max_weight_unscaled > s.max_weight_scaled);
    CHECK(s.entropy_unscaled < s.entropy_scaled);
    CHECK(s.entropy_scaled <= log((double)seq_len) + 1e-9);
}

static void test_softmax_stats_dk4(void) { check_softmax_stats(4, "ch02/stats_dk4.npy"); }
static void test_softmax_stats_dk64(void) { check_softmax_stats(64, "ch02/stats_dk64.npy"); }

static void test_saturation_grows_with_dk(void) {
    /* unscaled: the larger d_k, the closer to one-hot; scaled: about the same for every d_k */
    t_manual_seed(7);
    ScalingStats a = measure_scaling(4, 200, 2000, 8);
    ScalingStats b = measure_scaling(256, 200, 2000, 8);
    CHECK(b.max_weight_unscaled > a.max_weight_unscaled + 0.2);
    CHECK(b.entropy_unscaled < a.entropy_unscaled - 0.5);
    CHECK(fabs(b.max_weight_scaled - a.max_weight_scaled) < 0.1);
    CHECK(fabs(b.entropy_scaled - a.entropy_scaled) < 0.2);
}

static void test_measure_scaling_repeatable(void) {
    t_manual_seed(5);
    ScalingStats a = measure_scaling(16, 100, 50, 5);
    t_manual_seed(5);
    ScalingStats b = measure_scaling(16, 100, 50, 5);
    CHECK(a.var_unscaled == b.var_unscaled && a.entropy_scaled == b.entropy_scaled);
    CHECK(a.var_unscaled > 0.0);
}

static void test_measure_scaling_errors(void) {
    CHECK_ERROR(measure_scaling(0, 10, 10, 4), "measure_scaling: d_k = 0, n_pairs = 10, rows = 10, seq_len = 4: need");
    CHECK_ERROR(measure_scaling(4, 1, 10, 4), "n_pairs >= 2 (a variance needs two values)");
    CHECK_ERROR(measure_scaling(4, 10, 0, 4), "rows = 0");
    CHECK_ERROR(measure_scaling(4, 10, 10, 0), "seq_len = 0");
}

int main(void) {
    RUN(test_basic);
    RUN(test_t_neq_s);
    RUN(test_two_batch_dims);
    RUN(test_broadcast_batch);
    RUN(test_t1);
    RUN(test_dk1);
    RUN(test_s1);
    RUN(test_wide_dk);
    RUN(test_large_scores);
    RUN(test_sentence);
    RUN(test_scores_are_unscaled_over_sqrt_dk);
    RUN(test_scaling_q_by_sqrt_dk_gives_chapter1);
    RUN(test_weights_rows_sum_to_one);
    RUN(test_attention_errors);
    RUN(test_entropy_against_torch);
    RUN(test_entropy_one_hot_is_zero);
    RUN(test_entropy_errors);
    RUN(test_variance_dk1);
    RUN(test_variance_dk4);
    RUN(test_variance_dk64);
    RUN(test_variance_dk256);
    RUN(test_softmax_stats_dk4);
    RUN(test_softmax_stats_dk64);
    RUN(test_saturation_grows_with_dk);
    RUN(test_measure_scaling_repeatable);
    RUN(test_measure_scaling_errors);
    return harness_finish("test_ch02");
}
