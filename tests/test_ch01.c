/* test_ch01.c — chapter 1: unscaled dot-product attention against PyTorch
 * (tests/fixtures/ch01, written by scripts/golden/ch01.py), the numbers the
 * issue quotes for "Your journey starts with one step", softmax's row-max
 * trick, and every error sentence of check_qkv. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chapters/01_dot_product/dot_product.h"
#include "tests/harness.h"
#include "common/program/program.h"

#define FX(name) load_fixture("ch01/" name ".npy")
#define RTOL 1e-5
#define ATOL 1e-6

/* ---- Happy-LLM's soft dictionary ------------------------------------------ */

static void test_soft_dictionary_gives_8(void) {
    /* keys apple, banana, chair; values 10, 5, 2; weights 0.6, 0.4, 0 */
    Tensor *w = t_from_array(SHAPE(1, 3), (const float[]){0.6f, 0.4f, 0.0f});
    Tensor *v = t_from_array(SHAPE(3, 1), (const float[]){10.0f, 5.0f, 2.0f});
    Tensor *out = weighted_sum(w, v);
    CHECK_EQ_INT(out->ndim, 2);
    CHECK_CLOSE(t_get(out, 0, 0), 8.0, 1e-5);
}

/* ---- the sentence: the issue's numbers for "journey" --------------------------- */

static void test_journey_matches_the_issue(void) {
    Tensor *inputs = FX("sentence_inputs"); /* (6, 3) */
    const double scores_2[6] = {0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865};
    const double weights_2[6] = {0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581};
    const double context_2[3] = {0.4419, 0.6515, 0.5683};
    Tensor *query = t_slice(inputs, 0, 1, 2); /* journey, (1, 3) */
    Tensor *s = dot_scores(query, inputs);
    Tensor *w = softmax_stable(s);
    Tensor *c = weighted_sum(w, inputs);
    CHECK_EQ_INT(s->shape[1], 6);
    CHECK_EQ_INT(c->shape[1], 3);
    for (int j = 0; j < 6; j++) {
        CHECK_CLOSE(t_get(s, 0, j), scores_2[j], 6e-5); /* 4 decimals */
        CHECK_CLOSE(t_get(w, 0, j), weights_2[j], 6e-5);
    }
    for (int j = 0; j < 3; j++) CHECK_CLOSE(t_get(c, 0, j), context_2[j], 6e-5);
    /* the same row of the full attention */
    Attention a = dot_product_attention(inputs, inputs, inputs);
    for (int j = 0; j < 6; j++) CHECK_CLOSE(t_get(a.weights, 1, j), weights_2[j], 6e-5);
    for (int j = 0; j < 3; j++) CHECK_CLOSE(t_get(a.output, 1, j), context_2[j], 6e-5);
}

static void test_sentence_matches_torch(void) {
    Tensor *inputs = FX("sentence_inputs");
    Attention a = dot_product_attention(inputs, inputs, inputs);
    CHECK_TENSOR_CLOSE(a.scores, FX("sentence_scores"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(a.weights, FX("sentence_weights"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(a.output, FX("sentence_output"), RTOL, ATOL);
}

/* ---- random cases: T = 1, d_k = 1, batch dims, broadcasting, T != S, S = 1 ----- */

static void check_case(const char *file, int line, const char *name) {
    char rel[128];
#define LOAD(role) (snprintf(rel, sizeof rel, "ch01/%s_%s.npy", name, role), load_fixture(rel))
    Tensor *q = LOAD("q"), *k = LOAD("k"), *v = LOAD("v");
    Tensor *scores = LOAD("scores"), *weights = LOAD("weights"), *output = LOAD("output");
#undef LOAD
    /* each step on its own, fed with PyTorch's previous step */
    harness_check_tensor_close(file, line, "dot_scores", dot_scores(q, k), scores, RTOL, ATOL);
    harness_check_tensor_close(file, line, "softmax_stable", softmax_stable(scores), weights, RTOL, ATOL);
    harness_check_tensor_close(file, line, "weighted_sum", weighted_sum(weights, v), output, RTOL, ATOL);
    /* and all three together */
    Attention a = dot_product_attention(q, k, v);
    harness_check_tensor_close(file, line, "a.scores", a.scores, scores, RTOL, ATOL);
    harness_check_tensor_close(file, line, "a.weights", a.weights, weights, RTOL, ATOL);
    harness_check_tensor_close(file, line, "a.output", a.output, output, RTOL, ATOL);
}
#define CHECK_CASE(name) check_case(__FILE__, __LINE__, name)

static void test_t1_dk1(void) { CHECK_CASE("t1_dk1"); }
static void test_two_batch_dims(void) { CHECK_CASE("batch23"); }
static void test_broadcast_batch_dims(void) { CHECK_CASE("bcast"); }
static void test_t_differs_from_s(void) { CHECK_CASE("cross"); }
static void test_one_key(void) {
    CHECK_CASE("one_key");
    /* one key: every query gives it all its attention */
    Attention a = dot_product_attention(FX("one_key_q"), FX("one_key_k"), FX("one_key_v"));
    CHECK_TENSOR_CLOSE(a.weights, t_ones(SHAPE(3, 1)), 0.0, 1e-6);
}

static void test_shapes(void) {
    Attention a = dot_product_attention(FX("bcast_q"), FX("bcast_k"), FX("bcast_v"));
    /* q (2, 3, 4, 5), k (3, 6, 5), v (2, 1, 6, 3) */
    char s[T_SHAPE_STR];
    CHECK_STR_CONTAINS(t_shape_str(a.scores, s), "(2, 3, 4, 6)");
    CHECK_STR_CONTAINS(t_shape_str(a.weights, s), "(2, 3, 4, 6)");
    CHECK_STR_CONTAINS(t_shape_str(a.output, s), "(2, 3, 4, 3)");
}

static void test_no_queries(void) {
    /* T = 0 is allowed, as in PyTorch: no rows */
    Attention a = dot_product_attention(t_zeros(SHAPE(0, 3)), t_randn(SHAPE(4, 3)), t_randn(SHAPE(4, 2)));
    CHECK_EQ_INT(a.weights->shape[0], 0);
    CHECK_EQ_INT(a.weights->shape[1], 4);
    CHECK_EQ_INT(a.output->shape[0], 0);
    CHECK_EQ_INT(a.output->shape[1], 2);
}

/* ---- softmax: naive and stable ---------------------------------------------- */

static void test_softmax_naive_small_scores(void) {
    CHECK_TENSOR_CLOSE(softmax_naive(FX("softmax_small_x")), FX("softmax_small_out"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(softmax_naive(FX("sentence_scores")), FX("sentence_weights"), RTOL, ATOL);
}

static void test_softmax_stable_large_scores(void) {
    CHECK_TENSOR_CLOSE(softmax_stable(FX("softmax_small_x")), FX("softmax_small_out"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(softmax_stable(FX("softmax_large_x")), FX("softmax_large_out"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(softmax_stable(FX("sentence10_scores")), FX("sentence10_weights"), RTOL, ATOL);
}

static void test_naive_overflows_where_stable_does_not(void) {
    /* the chapter's claim: journey's row of 100x scores reaches 149.5 */
    Tensor *scores = FX("sentence10_scores");
    Tensor *naive = softmax_naive(scores), *stable = softmax_stable(scores);
    CHECK(isnan(t_get(naive, 1, 1)));
    CHECK(!isnan(t_get(stable, 1, 1)));
    CHECK_CLOSE(t_get(stable, 1, 1), t_get(FX("sentence10_weights"), 1, 1), 1e-5);
    Tensor *sums = t_sum_last(stable);
    for (int64_t i = 0; i < 6; i++) CHECK_CLOSE(t_get(sums, i), 1.0, 1e-5);
}

static void test_softmax_ignores_a_shift(void) {
    /* softmax(x + c) == softmax(x): the max subtraction relies on it */
    Tensor *x = FX("softmax_small_x");
    CHECK_TENSOR_CLOSE(softmax_stable(t_add_scalar(x, 1000.0f)), FX("softmax_small_out"), 1e-4, 1e-6);
    CHECK_TENSOR_CLOSE(softmax_stable(t_add_scalar(x, -1000.0f)), FX("softmax_small_out"), 1e-4, 1e-6);
}

static void test_weights_are_a_distribution(void) {
    Attention a = dot_product_attention(FX("batch23_q"), FX("batch23_k"), FX("batch23_v"));
    Tensor *sums = t_sum_last(a.weights); /* (2, 3, 4) */
    for (int64_t i = 0; i < t_numel(sums); i++) CHECK_CLOSE(t_flat_get(sums, i), 1.0, 1e-5);
    for (int64_t i = 0; i < t_numel(a.weights); i++) {
        float w = t_flat_get(a.weights, i);
        CHECK(w >= 0.0f && w <= 1.0f);
    }
    /* scores are not weights: they do not sum to 1 */
    CHECK(fabs(t_sum_all(a.scores) - t_sum_all(a.weights)) > 1e-3);
}

static void test_softmax_over_last_dim_of_batches(void) {
    /* softmax works on every (T, S) matrix of a batch the same way */
    Tensor *w = FX("batch23_weights");
    Tensor *s = FX("batch23_scores");
    Tensor *one = softmax_stable(t_select(t_select(s, 0, 1), 0, 2)); /* batch [1][2], (4, 6) */
    CHECK_TENSOR_CLOSE(one, t_select(t_select(w, 0, 1), 0, 2), RTOL, ATOL);
}

/* ---- errors ------------------------------------------------------------------- */

static void test_check_qkv_errors(void) {
    Tensor *q = FX("batch23_q"), *k = FX("batch23_k"), *v = FX("batch23_v"); /* (2,3,4,5) (2,3,6,5) (2,3,6,3) */
    CHECK_ERROR(check_qkv("op", t_zeros(SHAPE(5)), k, v),
                "op: query (5,), key (2, 3, 6, 5) and value (2, 3, 6, 3) each need at least 2 dims");
    CHECK_ERROR(check_qkv("op", q, FX("t1_dk1_k"), v),
                "op: query (2, 3, 4, 5) and key (4, 1) must share the last dim d_k: 5 != 1");
    CHECK_ERROR(check_qkv("op", q, k, FX("t1_dk1_v")),
                "op: key (2, 3, 6, 5) and value (4, 2) must have the same length S (dim -2): 6 != 4");
    CHECK_ERROR(check_qkv("op", q, t_zeros(SHAPE(0, 5)), t_zeros(SHAPE(0, 3))),
                "op: key (0, 5) has no positions (S = 0)");
    CHECK_ERROR(check_qkv("op", q, FX("bad_k_batch"), v),
                "op: batch dims of query (2, 3, 4, 5) and key (4, 6, 5): shapes (2, 3) and (4,) do not broadcast");
    CHECK_ERROR(check_qkv("op", q, k, t_zeros(SHAPE(4, 6, 3))),
                "op: batch dims of the scores and value (4, 6, 3): shapes (2, 3) and (4,) do not broadcast");
    /* dot_product_attention checks before it computes */
    CHECK_ERROR(dot_product_attention(q, FX("t1_dk1_k"), v), "dot_product_attention: query (2, 3, 4, 5) and key");
}

static void test_scores_that_do_not_fit(void) {
    size_t before = t_max_bytes();
    t_set_max_bytes(1000000); /* like ATTN_MAX_BYTES=1000000 */
    Tensor *q = FX("long_q"); /* (1, 1000, 1): the scores would be (1, 1000, 1000), 4 MB */
    CHECK_ERROR(check_qkv("dot_product_attention", q, q, q),
                "dot_product_attention: the scores: shape (1, 1000, 1000) needs 3.8 MiB of float32");
    CHECK_ERROR(dot_product_attention(q, q, q), "more than the 976.6 KiB limit (ATTN_MAX_BYTES)");
    t_set_max_bytes(before);
    /* within the limit it works */
    Attention a = dot_product_attention(q, q, q);
    CHECK_CLOSE(t_get(a.weights, 0, 999, 0), 1.0 / 1000.0, 1e-7); /* equal scores: uniform */
}

int main(void) {
    RUN(test_soft_dictionary_gives_8);
    RUN(test_journey_matches_the_issue);
    RUN(test_sentence_matches_torch);
    RUN(test_t1_dk1);
    RUN(test_two_batch_dims);
    RUN(test_broadcast_batch_dims);
    RUN(test_t_differs_from_s);
    RUN(test_one_key);
    RUN(test_shapes);
    RUN(test_no_queries);
    RUN(test_softmax_naive_small_scores);
    RUN(test_softmax_stable_large_scores);
    RUN(test_naive_overflows_where_stable_does_not);
    RUN(test_softmax_ignores_a_shift);
    RUN(test_weights_are_a_distribution);
    RUN(test_softmax_over_last_dim_of_batches);
    RUN(test_check_qkv_errors);
    RUN(test_scores_that_do_not_fit);
    return harness_finish("test_ch01");
}
