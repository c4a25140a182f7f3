/* test_ch04.c — chapter 4, the causal mask: the mask buffer, its slice, the two
 * spellings (additive -inf and masked_fill) and masked attention, against the
 * PyTorch fixtures in tests/fixtures/ch04 (scripts/golden/ch04.py), plus the
 * properties of a causal mask and every error sentence. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "common/program/program.h"
#include "chapters/04_causal_mask/causal_mask.h"

#define FX(name) load_fixture("ch04/" name ".npy")
#define RTOL 1e-5
#define ATOL 1e-6

/* The random cases of the golden module (each has _q _k _v _scores _weights _output ...). */
static const char *const CASES[] = {"plain2d", "t1", "dk1", "heads", "bcast", "full8"};
#define N_CASES (int)(sizeof CASES / sizeof CASES[0])

static Tensor *fx_case(const char *name, const char *part) {
    char rel[128];
    snprintf(rel, sizeof rel, "ch04/%s_%s.npy", name, part);
    return load_fixture(rel);
}

static bool is_neg_inf(float x) { return isinf(x) && x < 0; }

/* ---- the mask buffer ----------------------------------------------------- */

static void test_mask_buffer_matches_pytorch(void) {
    Tensor *mask = causal_mask(8, 1);
    CHECK_EQ_INT(mask->ndim, 4);
    CHECK_TENSOR_CLOSE(mask, FX("mask_8"), 0.0, 0.0);
}

static void test_mask_is_neg_inf_above_diagonal_zero_elsewhere(void) {
    for (int64_t L = 1; L <= 7; L += 3) {
        Tensor *mask = causal_mask(L, 1);
        CHECK_EQ_INT(t_size(mask, 0), 1);
        CHECK_EQ_INT(t_size(mask, 1), 1);
        CHECK_EQ_INT(t_size(mask, 2), L);
        CHECK_EQ_INT(t_size(mask, 3), L);
        for (int64_t i = 0; i < L; i++)
            for (int64_t j = 0; j < L; j++) {
                float m = t_get(mask, 0, 0, i, j);
                if (j > i) CHECK_MSG(is_neg_inf(m), "mask[%lld][%lld] = %g, expected -inf", (long long)i, (long long)j, (double)m);
                else CHECK_MSG(m == 0.0f, "mask[%lld][%lld] = %g, expected 0", (long long)i, (long long)j, (double)m);
            }
    }
}

static void test_mask_diagonal0_matches_pytorch(void) {
    /* the mistake the chapter shows: the diagonal is masked too */
    Tensor *mask0 = causal_mask(8, 0);
    CHECK_TENSOR_CLOSE(mask0, FX("diag0_mask_8"), 0.0, 0.0);
    CHECK(is_neg_inf(t_get(mask0, 0, 0, 0, 0)));
}

static void test_mask_bool_matches_pytorch(void) {
    Tensor *mb = causal_mask_bool(8);
    CHECK_EQ_INT(mb->ndim, 2);
    CHECK_TENSOR_CLOSE(mb, FX("mask_bool_8"), 0.0, 0.0);
}

static void test_mask_errors(void) {
    CHECK_ERROR(causal_mask(0, 1), "causal_mask: max_seq_len must be at least 1, got 0");
    CHECK_ERROR(causal_mask_bool(-3), "causal_mask_bool: max_seq_len must be at least 1, got -3");
    size_t old = t_max_bytes();
    t_set_max_bytes(1000);
    CHECK_ERROR(causal_mask(100, 1), "causal mask: the max_seq_len x max_seq_len buffer (1, 1, 100, 100) needs");
    CHECK_ERROR(check_mask_fits(100), "(1, 1, 100, 100) needs 39.1 KiB of float32, more than the 1000 bytes limit");
    CHECK_ERROR(causal_mask_bool(100), "causal mask: shape (100, 100) needs");
    t_set_max_bytes(old);
}

/* ---- slicing the buffer to the sequence length --------------------------- */

static void test_mask_slice_matches_pytorch(void) {
    Tensor *mask = causal_mask(8, 1);
    Tensor *m = mask_slice(mask, 5);
    CHECK_TENSOR_CLOSE(m, FX("mask_8_slice_5"), 0.0, 0.0);
    CHECK(t_shares_storage(m, mask)); /* a view of the buffer, no copy */
    CHECK_TENSOR_CLOSE(mask_slice(mask, 8), mask, 0.0, 0.0);
    Tensor *m0 = mask_slice(mask, 0);
    CHECK_EQ_INT(t_numel(m0), 0);
}

static void test_slice_of_buffer_is_the_mask_of_that_length(void) {
    /* why one buffer of max_seq_len is enough: its top-left T x T corner is the causal mask of T */
    Tensor *mask = causal_mask(8, 1);
    for (int64_t T = 1; T <= 8; T++) CHECK_TENSOR_CLOSE(mask_slice(mask, T), causal_mask(T, 1), 0.0, 0.0);
}

/* One check, one sentence, for every chapter that slices a mask buffer. */
static void test_check_seq_len(void) {
    check_seq_len(8, 8);  /* T == max_seq_len: the whole buffer */
    check_seq_len(0, 8);
    CHECK_ERROR(check_seq_len(9, 8),
                "sequence length 9 is longer than max_seq_len 8, the size of the causal mask buffer");
}

static void test_mask_slice_errors(void) {
    Tensor *mask = causal_mask(8, 1);
    CHECK_ERROR(mask_slice(mask, 9),
                "sequence length 9 is longer than max_seq_len 8, the size of the causal mask buffer");
    CHECK_ERROR(mask_slice(mask, -1), "mask_slice: sequence length -1 is negative");
    CHECK_ERROR(mask_slice(causal_mask_bool(8), 4), "must have shape (1, 1, L, L), got (8, 8)");
    CHECK_ERROR(mask_slice(t_zeros(SHAPE(2, 1, 4, 4)), 4), "got (2, 1, 4, 4)");
    CHECK_ERROR(mask_slice(t_zeros(SHAPE(1, 1, 4, 5)), 4), "got (1, 1, 4, 5)");
}

/* ---- scores + mask ------------------------------------------------------- */

static void test_apply_causal_mask_matches_pytorch(void) {
    Tensor *mask = causal_mask(8, 1);
    for (int c = 0; c < N_CASES; c++) {
        Tensor *q = fx_case(CASES[c], "q"), *k = fx_case(CASES[c], "k");
        Tensor *scores = scaled_scores(q, k);
        Tensor *masked = apply_causal_mask(scores, mask);
        CHECK_TENSOR_CLOSE(masked, fx_case(CASES[c], "scores"), RTOL, ATOL);
    }
}

static void test_apply_causal_mask_keeps_scores_shape(void) {
    Tensor *mask = causal_mask(4, 1);
    Tensor *s2 = apply_causal_mask(t_zeros(SHAPE(3, 3)), mask);
    CHECK_EQ_INT(s2->ndim, 2); /* not (1, 1, 3, 3) */
    Tensor *s5 = apply_causal_mask(t_zeros(SHAPE(2, 2, 2, 3, 3)), mask);
    CHECK_EQ_INT(s5->ndim, 5);
    CHECK(is_neg_inf(t_get(s5, 1, 1, 1, 0, 2)));
    CHECK(t_get(s5, 1, 1, 1, 2, 0) == 0.0f);
    /* adding, not replacing: the kept scores are unchanged */
    Tensor *x = t_randn(SHAPE(2, 4, 4));
    Tensor *m = apply_causal_mask(x, mask);
    CHECK(t_get(m, 1, 3, 1) == t_get(x, 1, 3, 1));
    CHECK(t_get(m, 1, 2, 2) == t_get(x, 1, 2, 2));
    CHECK(is_neg_inf(t_get(m, 1, 2, 3)));
}

static void test_apply_causal_mask_errors(void) {
    Tensor *mask = causal_mask(8, 1);
    CHECK_ERROR(apply_causal_mask(t_zeros(SHAPE(2, 3, 5)), mask),
                "apply_causal_mask: scores (2, 3, 5) have T 3 != S 5, but a causal mask needs T == S");
    CHECK_ERROR(apply_causal_mask(t_zeros(SHAPE(9, 9)), mask),
                "sequence length 9 is longer than max_seq_len 8");
    CHECK_ERROR(apply_causal_mask(t_zeros(SHAPE(4)), mask), "scores (4,) need at least 2 dims");
}

/* ---- the second spelling: boolean mask + masked_fill --------------------- */

static void test_masked_fill_matches_pytorch_and_agrees(void) {
    Tensor *mask = causal_mask(8, 1), *mask_bool = causal_mask_bool(8);
    for (int c = 0; c < N_CASES; c++) {
        Tensor *q = fx_case(CASES[c], "q"), *k = fx_case(CASES[c], "k");
        Tensor *scores = scaled_scores(q, k);
        Tensor *w_fill = t_softmax(apply_causal_mask_fill(scores, mask_bool), -1);
        Tensor *w_add = t_softmax(apply_causal_mask(scores, mask), -1);
        CHECK_TENSOR_CLOSE(w_fill, fx_case(CASES[c], "weights_fill"), RTOL, ATOL);
        /* the two ways give the same masked scores, so the same weights, bit for bit */
        CHECK_TENSOR_CLOSE(apply_causal_mask_fill(scores, mask_bool), apply_causal_mask(scores, mask), 0.0, 0.0);
        CHECK_TENSOR_CLOSE(w_fill, w_add, 0.0, 0.0);
    }
}

static void test_masked_fill_errors(void) {
    Tensor *mask_bool = causal_mask_bool(8);
    CHECK_ERROR(apply_causal_mask_fill(t_zeros(SHAPE(4, 6)), mask_bool),
                "apply_causal_mask_fill: scores (4, 6) have T 4 != S 6");
    CHECK_ERROR(apply_causal_mask_fill(t_zeros(SHAPE(9, 9)), mask_bool),
                "sequence length 9 is longer than max_seq_len 8, the size of the causal mask buffer");
    CHECK_ERROR(apply_causal_mask_fill(t_zeros(SHAPE(4, 4)), causal_mask(8, 1)),
                "the boolean mask must have shape (L, L), got (1, 1, 8, 8)");
}

/* ---- masked attention ------------------------------------------------------ */

static void test_masked_attention_matches_pytorch(void) {
    Tensor *mask = causal_mask(8, 1);
    for (int c = 0; c < N_CASES; c++) {
        Tensor *q = fx_case(CASES[c], "q"), *k = fx_case(CASES[c], "k"), *v = fx_case(CASES[c], "v");
        Attention a = masked_attention(q, k, v, mask);
        CHECK_MSG(t_same_shape(a.output, fx_case(CASES[c], "output")), "case %s: output shape", CASES[c]);
        CHECK_TENSOR_CLOSE(a.scores, fx_case(CASES[c], "scores"), RTOL, ATOL);
        CHECK_TENSOR_CLOSE(a.weights, fx_case(CASES[c], "weights"), RTOL, ATOL);
        CHECK_TENSOR_CLOSE(a.output, fx_case(CASES[c], "output"), RTOL, ATOL);
    }
}

static void test_weights_are_lower_triangular(void) {
    Tensor *mask = causal_mask(8, 1);
    for (int c = 0; c < N_CASES; c++) {
        Attention a = masked_attention(fx_case(CASES[c], "q"), fx_case(CASES[c], "k"), fx_case(CASES[c], "v"), mask);
        int64_t T = t_size(a.weights, -2), n = t_numel(a.weights);
        for (int64_t e = 0; e < n; e++) {
            int64_t j = e % T, i = (e / T) % T;
            float w = t_flat_get(a.weights, e);
            if (j > i) CHECK_MSG(w == 0.0f, "case %s: weight [%lld][%lld] = %g above the diagonal", CASES[c], (long long)i, (long long)j, (double)w);
            else CHECK_MSG(w > 0.0f, "case %s: weight [%lld][%lld] = %g on/below the diagonal", CASES[c], (long long)i, (long long)j, (double)w);
            if (i == 0 && j == 0) CHECK_CLOSE(w, 1.0, 0.0); /* row 0 attends only to itself */
        }
        Tensor *sums = t_sum_last(a.weights);
        for (int64_t r = 0; r < t_numel(sums); r++) CHECK_CLOSE(t_flat_get(sums, r), 1.0, 1e-5);
    }
}

static void test_sentence_row0_attends_only_to_itself(void) {
    Tensor *x = FX("sentence_x");
    Attention a = masked_attention(x, x, x, causal_mask(8, 1));
    float row0[6] = {1, 0, 0, 0, 0, 0};
    CHECK_TENSOR_CLOSE(t_select(a.weights, 0, 0), t_from_array(SHAPE(6), row0), 0.0, 0.0);
    /* and row 0 of the output is token 0's value itself */
    CHECK_TENSOR_CLOSE(t_select(a.output, 0, 0), t_select(x, 0, 0), 1e-6, 1e-7);
    CHECK_TENSOR_CLOSE(a.scores, FX("sentence_scores_causal"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(a.weights, FX("sentence_weights_causal"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(a.output, FX("sentence_output_causal"), RTOL, ATOL);
    /* without the mask row 0 looks at the future */
    Attention b = masked_attention(x, x, x, NULL);
    CHECK_TENSOR_CLOSE(b.weights, FX("sentence_weights_nocausal"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(b.output, FX("sentence_output_nocausal"), RTOL, ATOL);
    CHECK(t_get(b.weights, 0, 5) > 0.1f);
}

static void test_no_mask_is_chapter2_attention(void) {
    for (int c = 0; c < N_CASES; c++) {
        Tensor *q = fx_case(CASES[c], "q"), *k = fx_case(CASES[c], "k"), *v = fx_case(CASES[c], "v");
        Attention a = masked_attention(q, k, v, NULL);
        Attention b = attention(q, k, v);
        CHECK_TENSOR_CLOSE(a.weights, fx_case(CASES[c], "weights_nomask"), RTOL, ATOL);
        CHECK_TENSOR_CLOSE(a.output, fx_case(CASES[c], "output_nomask"), RTOL, ATOL);
        CHECK_TENSOR_CLOSE(a.output, b.output, RTOL, ATOL);
    }
}

static void test_future_does_not_leak(void) {
    /* change the last token's key and value: causal rows 0..T-2 must not move at all */
    Tensor *q = FX("heads_q"), *k = FX("heads_k"), *v = FX("heads_v");
    int64_t T = t_size(q, -2);
    Tensor *k2 = t_clone(k), *v2 = t_clone(v);
    Tensor *k_last = t_slice(k2, -2, T - 1, T), *v_last = t_slice(v2, -2, T - 1, T);
    t_copy_(k_last, t_add_scalar(k_last, 3.0f));
    t_copy_(v_last, t_add_scalar(v_last, -2.0f));
    Tensor *mask = causal_mask(8, 1);
    Attention a = masked_attention(q, k, v, mask), b = masked_attention(q, k2, v2, mask);
    Tensor *past_a = t_slice(a.output, -2, 0, T - 1), *past_b = t_slice(b.output, -2, 0, T - 1);
    CHECK_TENSOR_CLOSE(past_b, past_a, 0.0, 0.0);
    CHECK(t_max_abs_diff(t_slice(a.output, -2, T - 1, T), t_slice(b.output, -2, T - 1, T)) > 0.1);
    /* without the mask every row sees the change */
    Attention c = masked_attention(q, k, v, NULL), d = masked_attention(q, k2, v2, NULL);
    CHECK(t_max_abs_diff(t_slice(c.output, -2, 0, 1), t_slice(d.output, -2, 0, 1)) > 1e-3);
}

static void test_diagonal0_gives_nan_row0(void) {
    Tensor *x = FX("sentence_x");
    Attention a = masked_attention(x, x, x, causal_mask(8, 0));
    CHECK_TENSOR_CLOSE(a.scores, FX("diag0_scores"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(a.weights, FX("diag0_weights"), RTOL, ATOL); /* NaN where PyTorch has NaN */
    for (int64_t j = 0; j < 6; j++) CHECK(isnan(t_get(a.weights, 0, j)));
    for (int64_t i = 1; i < 6; i++) {
        CHECK(!isnan(t_get(a.weights, i, 0)));
        CHECK(t_get(a.weights, i, i) == 0.0f); /* no token sees itself */
    }
}

static void test_masked_attention_errors(void) {
    Tensor *mask = causal_mask(8, 1);
    Tensor *q = t_zeros(SHAPE(2, 5, 4)), *k = t_zeros(SHAPE(2, 5, 4)), *v = t_zeros(SHAPE(2, 5, 3));
    CHECK_ERROR(masked_attention(q, t_zeros(SHAPE(2, 5, 3)), v, mask),
                "masked_attention: query (2, 5, 4) and key (2, 5, 3) must share the last dim d_k: 4 != 3");
    CHECK_ERROR(masked_attention(q, k, t_zeros(SHAPE(2, 6, 3)), mask),
                "masked_attention: key (2, 5, 4) and value (2, 6, 3) must have the same length S");
    CHECK_ERROR(masked_attention(t_zeros(SHAPE(2, 3, 4)), k, v, mask), "T 3 != S 5, but a causal mask needs T == S");
    CHECK_ERROR(masked_attention(t_zeros(SHAPE(9, 4)), t_zeros(SHAPE(9, 4)), t_zeros(SHAPE(9, 2)), mask),
                "sequence length 9 is longer than max_seq_len 8");
    /* T != S is fine without a mask (cross-attention) */
    Attention a = masked_attention(t_zeros(SHAPE(2, 3, 4)), k, v, NULL);
    CHECK_EQ_INT(t_size(a.output, -2), 3);
    size_t old = t_max_bytes();
    t_set_max_bytes(4096);
    CHECK_ERROR(masked_attention(t_zeros(SHAPE(64, 1)), t_zeros(SHAPE(64, 1)), t_zeros(SHAPE(64, 1)), mask),
                "scores: shape (64, 64) needs");
    t_set_max_bytes(old);
}

int main(void) {
    RUN(test_mask_buffer_matches_pytorch);
    RUN(test_mask_is_neg_inf_above_diagonal_zero_elsewhere);
    RUN(test_mask_diagonal0_matches_pytorch);
    RUN(test_mask_bool_matches_pytorch);
    RUN(test_mask_errors);
    RUN(test_mask_slice_matches_pytorch);
    RUN(test_slice_of_buffer_is_the_mask_of_that_length);
    RUN(test_check_seq_len);
    RUN(test_mask_slice_errors);
    RUN(test_apply_causal_mask_matches_pytorch);
    RUN(test_apply_causal_mask_keeps_scores_shape);
    RUN(test_apply_causal_mask_errors);
    RUN(test_masked_fill_matches_pytorch_and_agrees);
    RUN(test_masked_fill_errors);
    RUN(test_masked_attention_matches_pytorch);
    RUN(test_weights_are_lower_triangular);
    RUN(test_sentence_row0_attends_only_to_itself);
    RUN(test_no_mask_is_chapter2_attention);
    RUN(test_future_does_not_leak);
    RUN(test_diagonal0_gives_nan_row0);
    RUN(test_masked_attention_errors);
    return harness_finish("test_ch04");
}
