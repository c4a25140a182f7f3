/* test_ch08.c — chapter 8, fast attention: each of the five versions against the
 * PyTorch fixtures in tests/fixtures/ch08 (scripts/golden/ch08.py) and against
 * chapters 2/4 (masked_attention) on random shapes, causal and not; the memory
 * each version allocates, the refusal of the score-storing versions, the cost
 * model, the vectorisable exp, flash's logsumexp (torch.logsumexp) and the merge
 * of two partial results by it, and every error sentence. No timing is asserted
 * here (make bench measures). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "common/program/program.h"
#include "chapters/08_fast_attention/fast_attention.h"

#define RTOL 1e-5
#define ATOL 1e-6

static Tensor *fx(const char *name, const char *part) {
    char rel[128];
    snprintf(rel, sizeof rel, "ch08/%s_%s.npy", name, part);
    return load_fixture(rel);
}

/* The reference: chapter 4's masked_attention (chapter 2's attention without the mask). */
static Tensor *reference(const Tensor *q, const Tensor *k, const Tensor *v, bool causal) {
    Tensor *mask = causal ? causal_mask(t_size(q, -2), 1) : NULL;
    return masked_attention(q, k, v, mask).output;
}

static void check_all_versions(const Tensor *q, const Tensor *k, const Tensor *v, bool causal, const Tensor *want,
                               const char *what) {
    for (int i = 0; i < ATTN_N_IMPLS; i++) {
        Tensor *out = fast_attention((AttnImpl)i, q, k, v, causal);
        CHECK_MSG(t_same_shape(out, want), "%s, %s: wrong output shape", what, attn_impl_name((AttnImpl)i));
        if (!t_same_shape(out, want)) continue;
        CHECK_MSG(t_allclose(out, want, RTOL, ATOL), "%s, %s%s: max |out - want| = %g", what,
                  attn_impl_name((AttnImpl)i), causal ? " (causal)" : "", t_max_abs_diff(out, want));
    }
}

/* ---- against PyTorch ------------------------------------------------------------ */

static const char *const CASES[] = {"t1", "dk1", "odd", "ns", "bcast", "many", "long", "d64"};
#define N_CASES (int)(sizeof CASES / sizeof CASES[0])

static void test_every_version_matches_pytorch_not_causal(void) {
    for (int c = 0; c < N_CASES; c++)
        check_all_versions(fx(CASES[c], "q"), fx(CASES[c], "k"), fx(CASES[c], "v"), false, fx(CASES[c], "out_nocausal"),
                           CASES[c]);
}

static void test_every_version_matches_pytorch_causal(void) {
    static const char *const causal_cases[] = {"t1", "dk1", "odd", "many", "long", "d64"};
    for (int c = 0; c < 6; c++)
        check_all_versions(fx(causal_cases[c], "q"), fx(causal_cases[c], "k"), fx(causal_cases[c], "v"), true,
                           fx(causal_cases[c], "out_causal"), causal_cases[c]);
}

static void test_fast_attention_by_name_matches_pytorch(void) {
    Tensor *q = fx("prog", "q"), *k = fx("prog", "k"), *v = fx("prog", "v");
    static const char *const names[] = {"naive", "reordered", "tiled", "online", "flash"};
    for (int i = 0; i < 5; i++) {
        AttnImpl impl = attn_impl_parse(names[i]);
        CHECK_EQ_INT(impl, i);
        CHECK(strcmp(attn_impl_name(impl), names[i]) == 0);
        CHECK_TENSOR_CLOSE(fast_attention(impl, q, k, v, true), load_fixture("ch08/prog_out_causal.npy"), RTOL, ATOL);
        CHECK_TENSOR_CLOSE(fast_attention(impl, q, k, v, false), load_fixture("ch08/prog_out_nocausal.npy"), RTOL, ATOL);
    }
}

/* ---- non-finite inputs: the additive mask and IEEE, as PyTorch ---------------------- */

/* NaN where want is NaN, the same infinity where it is infinite, close elsewhere. */
static bool same_nonfinite(const Tensor *out, const Tensor *want, int64_t *bad_at) {
    const float *o = t_data(out), *w = t_data(want);
    for (int64_t i = 0; i < t_numel(want); i++) {
        bool ok = isnan(w[i]) ? isnan(o[i])
                  : isinf(w[i]) ? o[i] == w[i]
                  : isfinite(o[i]) && fabs((double)o[i] - w[i]) <= ATOL + RTOL * fabs((double)w[i]);
        if (!ok) {
            *bad_at = i;
            return false;
        }
    }
    return true;
}

static void test_non_finite_inputs_follow_pytorch(void) {
    static const char *const cases[] = {"kneginf", "kposinf", "knan", "qinf", "vinf", "vnan", "rowneginf", "big"};
    for (int c = 0; c < 8; c++)
        for (int causal = 0; causal < 2; causal++) {
            char name[32];
            snprintf(name, sizeof name, "nf_%s", cases[c]);
            Tensor *q = fx(name, "q"), *k = fx(name, "k"), *v = fx(name, "v");
            Tensor *want = fx(name, causal ? "out_causal" : "out_nocausal");
            for (int i = 0; i < ATTN_N_IMPLS; i++) {
                Tensor *out = fast_attention((AttnImpl)i, q, k, v, causal);
                int64_t at = -1;
                bool ok = t_same_shape(out, want) && same_nonfinite(out, want, &at);
                CHECK_MSG(ok, "%s, %s%s: element %lld is %g, PyTorch gives %g", cases[c], attn_impl_name((AttnImpl)i),
                          causal ? " (causal)" : "", (long long)at, at >= 0 ? (double)t_data(out)[at] : 0.0,
                          at >= 0 ? (double)t_data(want)[at] : 0.0);
            }
        }
}

static void test_online_row_update_non_finite(void) {
    /* the one-pass row update alone: -inf keys weigh 0 (but 0 · inf is NaN), a row of
     * only -inf ends as 0/0 = NaN, a NaN or +inf score makes the row NaN */
    float m, l, acc[2];
    const float v[3][2] = {{1.0f, 2.0f}, {3.0f, 4.0f}, {5.0f, 6.0f}};
    const float s1[3] = {-INFINITY, 0.0f, -INFINITY};
    online_row_init(&m, &l, acc, 2);
    online_row_update(&m, &l, acc, 2, s1, 3, &v[0][0], 2);
    online_row_finish(acc, 2, l);
    CHECK(acc[0] == 3.0f && acc[1] == 4.0f); /* only key 1 counts, weight 1 */
    const float s2[2] = {-INFINITY, -INFINITY};
    online_row_init(&m, &l, acc, 2);
    online_row_update(&m, &l, acc, 2, s2, 2, &v[0][0], 2);
    online_row_finish(acc, 2, l);
    CHECK(isnan(acc[0]) && isnan(acc[1]));
    const float s3[3] = {1.0f, NAN, 2.0f}, s4[3] = {1.0f, INFINITY, 2.0f};
    online_row_init(&m, &l, acc, 2);
    online_row_update(&m, &l, acc, 2, s3, 3, &v[0][0], 2);
    online_row_finish(acc, 2, l);
    CHECK(isnan(acc[0]) && isnan(acc[1]));
    online_row_init(&m, &l, acc, 2);
    online_row_update(&m, &l, acc, 2, s4, 3, &v[0][0], 2);
    online_row_finish(acc, 2, l);
    CHECK(isnan(acc[0]) && isnan(acc[1]));
    /* an inf value under a masked (-inf) key: 0 · inf = NaN, as p_attn · value gives */
    const float vi[2][2] = {{1.0f, 2.0f}, {INFINITY, 4.0f}}, s5[2] = {0.0f, -INFINITY};
    online_row_init(&m, &l, acc, 2);
    online_row_update(&m, &l, acc, 2, s5, 2, &vi[0][0], 2);
    online_row_finish(acc, 2, l);
    CHECK(isnan(acc[0]) && acc[1] == 2.0f);
    /* fed in two parts, the same result as in one */
    t_manual_seed(89);
    Tensor *sc = t_randn(SHAPE(40)), *val = t_randn(SHAPE(40, 5));
    float m1, l1, a1[5], m2, l2, a2[5];
    online_row_init(&m1, &l1, a1, 5);
    online_row_update(&m1, &l1, a1, 5, t_data(sc), 40, t_data(val), 5);
    online_row_finish(a1, 5, l1);
    online_row_init(&m2, &l2, a2, 5);
    online_row_update(&m2, &l2, a2, 5, t_data(sc), 17, t_data(val), 5);
    online_row_update(&m2, &l2, a2, 5, t_data(sc) + 17, 23, t_data(val) + 17 * 5, 5);
    online_row_finish(a2, 5, l2);
    for (int c = 0; c < 5; c++) CHECK_CLOSE(a1[c], a2[c], 1e-6);
}

/* ---- against chapters 2 and 4, random shapes ----------------------------------------- */

typedef struct {
    Shape q, k, v;
    bool causal_too; /* T == S */
} ShapeCase;

static void test_every_version_matches_chapters_2_and_4_on_random_shapes(void) {
    const ShapeCase cases[] = {
        {SHAPE(1, 1), SHAPE(1, 1), SHAPE(1, 1), true},                       /* T = S = d = 1 */
        {SHAPE(4, 1, 7), SHAPE(4, 1, 7), SHAPE(4, 1, 3), true},             /* T = 1, 4 batches */
        {SHAPE(3, 17, 5), SHAPE(3, 17, 5), SHAPE(3, 17, 11), true},         /* odd sizes */
        {SHAPE(2, 3, 65, 64), SHAPE(2, 3, 65, 64), SHAPE(2, 3, 65, 64), true}, /* one row past a query block */
        {SHAPE(1, 2, 129, 40), SHAPE(1, 2, 129, 40), SHAPE(1, 2, 129, 33), true},
        {SHAPE(1, 300, 64), SHAPE(1, 300, 64), SHAPE(1, 300, 64), true},    /* two key tiles, d = 64 */
        {SHAPE(1, 1, 520, 16), SHAPE(1, 1, 520, 16), SHAPE(1, 1, 520, 16), true}, /* three key tiles */
        {SHAPE(2, 2, 2, 9, 8), SHAPE(2, 2, 2, 9, 8), SHAPE(2, 2, 2, 9, 2), true}, /* three batch dims */
        {SHAPE(2, 777, 24), SHAPE(2, 777, 24), SHAPE(2, 777, 40), true},   /* flash: strips of 4 blocks, the last short */
        {SHAPE(1, 600, 16), SHAPE(1, 300, 16), SHAPE(1, 300, 16), false},  /* T > S over several strips */
        {SHAPE(2, 5, 16), SHAPE(2, 70, 16), SHAPE(2, 70, 9), false},        /* T < S */
        {SHAPE(1, 100, 8), SHAPE(1, 3, 8), SHAPE(1, 3, 32), false},         /* T > S */
        {SHAPE(2, 70, 64), SHAPE(2, 257, 64), SHAPE(2, 257, 64), false},    /* S one past a key tile */
        {SHAPE(2, 1, 5, 4), SHAPE(1, 3, 70, 4), SHAPE(70, 33), false},      /* broadcast batch dims */
        {SHAPE(3, 8, 6), SHAPE(8, 6), SHAPE(3, 1, 8, 5), false},            /* broadcast, different ranks */
    };
    t_manual_seed(808);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Tensor *q = t_randn(cases[c].q), *k = t_randn(cases[c].k), *v = t_randn(cases[c].v);
        char what[64];
        snprintf(what, sizeof what, "case %d", (int)c);
        check_all_versions(q, k, v, false, reference(q, k, v, false), what);
        if (cases[c].causal_too) check_all_versions(q, k, v, true, reference(q, k, v, true), what);
    }
}

static void test_large_scores_do_not_overflow(void) {
    /* q and k scaled by 8 give scores up to about +-250: exp(250) is inf in float32, so a
     * softmax that did not subtract the (running) max would give inf/NaN. Each such score
     * carries a float32 rounding error of about 250 · 6e-8 = 1.5e-5, and exp turns that
     * into a relative error of the weights, so the agreement here is 1e-4, not 1e-5. */
    t_manual_seed(81);
    Tensor *q = t_mul_scalar(t_randn(SHAPE(2, 80, 16)), 8.0f), *k = t_mul_scalar(t_randn(SHAPE(2, 80, 16)), 8.0f);
    Tensor *v = t_randn(SHAPE(2, 80, 16));
    CHECK(t_max_abs_diff(t_max_last(scaled_scores(q, k)), t_zeros(SHAPE(2, 80))) > 100.0);
    for (int causal = 0; causal < 2; causal++) {
        Tensor *want = reference(q, k, v, causal);
        for (int i = 0; i < ATTN_N_IMPLS; i++) {
            Tensor *out = fast_attention((AttnImpl)i, q, k, v, causal);
            CHECK_MSG(isfinite(t_sum_all(out)), "%s: inf or NaN with large scores", attn_impl_name((AttnImpl)i));
            CHECK_MSG(t_allclose(out, want, 1e-4, 1e-4), "%s: max |out - want| = %g with large scores",
                      attn_impl_name((AttnImpl)i), t_max_abs_diff(out, want));
        }
    }
}

static void test_non_contiguous_inputs(void) {
    /* chapter 5's split_heads gives transposed views: (b, t, h, hd).transpose(1, 2) */
    t_manual_seed(82);
    Tensor *q = t_transpose(t_randn(SHAPE(2, 33, 3, 8)), 1, 2), *k = t_transpose(t_randn(SHAPE(2, 33, 3, 8)), 1, 2);
    Tensor *v = t_transpose(t_randn(SHAPE(2, 33, 3, 5)), 1, 2);
    CHECK(!t_is_contiguous(q));
    check_all_versions(q, k, v, true, reference(q, k, v, true), "transposed views");
    check_all_versions(q, k, v, false, reference(q, k, v, false), "transposed views");
}

/* ---- properties ------------------------------------------------------------------------ */

static void test_one_key_gives_its_value_exactly(void) {
    /* one key: its weight is exp(0) / exp(0) = 1, so the output is v itself, bit for bit */
    t_manual_seed(83);
    Tensor *q = t_randn(SHAPE(3, 4, 6)), *k = t_randn(SHAPE(3, 1, 6)), *v = t_randn(SHAPE(3, 1, 5));
    for (int i = 0; i < ATTN_N_IMPLS; i++) {
        Tensor *out = fast_attention((AttnImpl)i, q, k, v, false);
        for (int64_t t = 0; t < 4; t++) CHECK_TENSOR_CLOSE(t_select(out, 1, t), t_select(v, 1, 0), 0.0, 0.0);
    }
}

static void test_flash_tile_max_skips_padding_and_future_keys(void) {
    /* flash takes a tile's max from its register kernel only for groups of 8 keys that
     * every query sees. Two groups must not count, and both would push the max far above
     * the real scores, so exp(s - max) would underflow and the weights come out wrong:
     * the zero keys that pad S = 77 up to 80 (score 0, while every real score is below
     * -175), and, causal, the keys after a query (query 0 sees -283, key 76 scores
     * -175). Here score(i, j) = (2·j - 400) / √2 for every query i, so query i's
     * weights are the softmax over keys 0..i (causal) or 0..76 of √2·j. */
    int64_t T = 77;
    Tensor *q = t_zeros(SHAPE(1, T, 2)), *k = t_zeros(SHAPE(1, T, 2)), *v = t_zeros(SHAPE(1, T, 2));
    for (int64_t j = 0; j < T; j++) {
        t_set(q, 1.0f, 0, j, 0);
        t_set(k, 2.0f * (float)j - 400.0f, 0, j, 0);
        t_set(v, (float)j, 0, j, 0); /* output[i][0] = the weighted mean of key positions */
        t_set(v, 1.0f, 0, j, 1);     /* output[i][1] = the weights' sum, 1 */
    }
    for (int causal = 0; causal < 2; causal++) {
        Tensor *want = reference(q, k, v, causal), *out = attention_flash(q, k, v, causal);
        CHECK_MSG(t_allclose(out, want, 1e-4, 1e-4), "flash%s: max |out - want| = %g", causal ? " (causal)" : "",
                  t_max_abs_diff(out, want));
    }
}

static void test_causal_future_does_not_leak(void) {
    /* change key and value after position 40: causal outputs 0..40 stay the same, bit for bit */
    t_manual_seed(84);
    int64_t T = 300, cut = 40;
    Tensor *q = t_randn(SHAPE(1, T, 16)), *k = t_randn(SHAPE(1, T, 16)), *v = t_randn(SHAPE(1, T, 16));
    Tensor *k2 = t_clone(k), *v2 = t_clone(v);
    t_copy_(t_slice(k2, 1, cut + 1, T), t_randn(SHAPE(1, T - cut - 1, 16)));
    t_copy_(t_slice(v2, 1, cut + 1, T), t_mul_scalar(t_randn(SHAPE(1, T - cut - 1, 16)), 100.0f));
    for (int i = 0; i < ATTN_N_IMPLS; i++) {
        Tensor *a = fast_attention((AttnImpl)i, q, k, v, true), *b = fast_attention((AttnImpl)i, q, k2, v2, true);
        CHECK_TENSOR_CLOSE(t_slice(a, 1, 0, cut + 1), t_slice(b, 1, 0, cut + 1), 0.0, 0.0);
        CHECK(t_max_abs_diff(t_slice(a, 1, cut + 1, T), t_slice(b, 1, cut + 1, T)) > 0.1);
    }
}

/* flash decides per slice whether it takes the exact path, when a thread starts on
 * that slice, and then runs it strip by strip (256 queries; 384 with the AVX2 tile,
 * one strip here): 300 queries are two strips, with bad values in both, next to a
 * finite slice; on one and two threads */
static void test_non_finite_slices_over_several_strips(void) {
    Tensor *q = fx("nf_strips", "q"), *k = fx("nf_strips", "k"), *v = fx("nf_strips", "v");
    for (int causal = 0; causal < 2; causal++) {
        Tensor *want = fx("nf_strips", causal ? "out_causal" : "out_nocausal");
        for (int threads = 1; threads <= 2; threads++) {
            attention_set_threads(threads);
            Tensor *out = attention_flash(q, k, v, causal);
            int64_t at = -1;
            bool ok = t_same_shape(out, want) && same_nonfinite(out, want, &at);
            CHECK_MSG(ok, "flash%s, %d thread(s): element %lld is %g, PyTorch gives %g", causal ? " (causal)" : "",
                      threads, (long long)at, at >= 0 ? (double)t_data(out)[at] : 0.0,
                      at >= 0 ? (double)t_data(want)[at] : 0.0);
        }
    }
    attention_set_threads(1);
}

static void test_same_result_every_call(void) {
    t_manual_seed(85);
    Tensor *q = t_randn(SHAPE(2, 100, 64)), *k = t_randn(SHAPE(2, 100, 64)), *v = t_randn(SHAPE(2, 100, 64));
    for (int i = 0; i < ATTN_N_IMPLS; i++)
        CHECK_TENSOR_CLOSE(fast_attention((AttnImpl)i, q, k, v, true), fast_attention((AttnImpl)i, q, k, v, true),
                           0.0, 0.0);
}

static void test_flash_same_bits_on_one_and_two_threads(void) {
    /* make OMP=1 test-chapter8: threads take (slice, strip of query blocks) items; each item's
     * arithmetic is the same on any thread, so the output is bit for bit the same
     * (without OpenMP both calls run on one thread) */
    t_manual_seed(90);
    Tensor *q = t_randn(SHAPE(2, 3, 300, 32)), *k = t_randn(SHAPE(2, 3, 300, 32)), *v = t_randn(SHAPE(2, 3, 300, 32));
    for (int causal = 0; causal < 2; causal++) {
        attention_set_threads(1);
        Tensor *one = attention_flash(q, k, v, causal);
        attention_set_threads(2);
        Tensor *two = attention_flash(q, k, v, causal);
        CHECK_TENSOR_CLOSE(one, two, 0.0, 0.0);
    }
    attention_set_threads(1);
}

static void test_empty_query_gives_empty_output(void) {
    Tensor *q = t_zeros(SHAPE(2, 0, 4)), *k = t_randn(SHAPE(2, 3, 4)), *v = t_randn(SHAPE(2, 3, 5));
    for (int i = 0; i < ATTN_N_IMPLS; i++) {
        Tensor *out = fast_attention((AttnImpl)i, q, k, v, false);
        CHECK_EQ_INT(out->ndim, 3);
        CHECK_EQ_INT(t_size(out, 1), 0);
        CHECK_EQ_INT(t_size(out, 2), 5);
    }
}


/* ---- flash's logsumexp, and merging two halves by it ------------------------------ */

/* Same bits: the lse is extra, the output must not move. */
static bool same_bits(const Tensor *a, const Tensor *b) {
    return t_same_shape(a, b) && (t_numel(a) == 0 || memcmp(t_data(a), t_data(b), (size_t)t_numel(a) * 4) == 0);
}

static void test_flash_lse_matches_pytorch(void) {
    /* lse = torch.logsumexp(scores, dim=-1) of the scaled (and masked) scores, (..., T) */
    static const char *const causal_cases[] = {"t1", "dk1", "odd", "many", "long", "d64"};
    for (int c = 0; c < N_CASES + 6; c++) {
        bool causal = c >= N_CASES;
        const char *name = causal ? causal_cases[c - N_CASES] : CASES[c];
        Tensor *q = fx(name, "q"), *k = fx(name, "k"), *v = fx(name, "v"), *lse = NULL;
        Tensor *out = attention_flash_lse(q, k, v, causal, &lse);
        Tensor *want = fx(name, causal ? "lse_causal" : "lse_nocausal");
        CHECK_MSG(t_same_shape(lse, want), "%s: lse has the wrong shape", name);
        if (t_same_shape(lse, want))
            CHECK_MSG(t_allclose(lse, want, RTOL, 1e-5), "%s%s: max |lse - torch.logsumexp| = %g", name,
                      causal ? " (causal)" : "", t_max_abs_diff(lse, want));
        CHECK_MSG(same_bits(out, attention_flash(q, k, v, causal)), "%s: attention_flash_lse's output is not "
                  "attention_flash's, bit for bit", name);
        CHECK_TENSOR_CLOSE(out, fx(name, causal ? "out_causal" : "out_nocausal"), RTOL, ATOL);
    }
    Tensor *lse = NULL;
    attention_flash_lse(fx("prog", "q"), fx("prog", "k"), fx("prog", "v"), true, &lse);
    CHECK_TENSOR_CLOSE(lse, fx("prog", "lse_causal"), RTOL, 1e-5);
}

static void test_flash_lse_non_finite(void) {
    /* the exact path keeps m and l too: a row with no visible key has lse -inf, a NaN
     * makes it NaN; where torch.logsumexp says +inf (a +inf score) the row's output is
     * NaN and so is its lse here */
    static const char *const cases[] = {"kneginf", "kposinf", "knan", "qinf", "vinf", "vnan", "rowneginf", "big"};
    int neg_inf_rows = 0;
    for (int c = 0; c < 8; c++)
        for (int causal = 0; causal < 2; causal++) {
            char name[32];
            snprintf(name, sizeof name, "nf_%s", cases[c]);
            Tensor *lse = NULL;
            attention_flash_lse(fx(name, "q"), fx(name, "k"), fx(name, "v"), causal, &lse);
            Tensor *want = fx(name, causal ? "lse_causal" : "lse_nocausal");
            CHECK(t_same_shape(lse, want));
            if (!t_same_shape(lse, want)) continue;
            const float *o = t_data(lse), *w = t_data(want);
            for (int64_t i = 0; i < t_numel(want); i++) {
                bool ok = isnan(w[i]) || w[i] == INFINITY ? isnan(o[i])
                          : w[i] == -INFINITY ? o[i] == -INFINITY
                          : fabs((double)o[i] - w[i]) <= 1e-5 + RTOL * fabs((double)w[i]);
                if (w[i] == -INFINITY) neg_inf_rows++;
                CHECK_MSG(ok, "%s%s: lse[%lld] = %g, torch.logsumexp gives %g", cases[c], causal ? " (causal)" : "",
                          (long long)i, (double)o[i], (double)w[i]);
                if (!ok) break;
            }
        }
    CHECK_MSG(neg_inf_rows >= 1, "no fixture row had lse = -inf (rowneginf, causal, row 0)");
}

static void test_flash_lse_adds_no_scratch(void) {
    t_manual_seed(88);
    Tensor *q = t_randn(SHAPE(2, 300, 16)), *k = t_randn(SHAPE(2, 300, 16)), *v = t_randn(SHAPE(2, 300, 16)), *lse;
    attention_flash(q, k, v, true);
    size_t plain = attention_scratch_bytes();
    attention_flash_lse(q, k, v, true, &lse);
    CHECK_EQ_INT(attention_scratch_bytes(), plain);
    CHECK_ERROR(attention_flash_lse(q, k, v, true, NULL), "attention_flash_lse: lse is NULL");
}

static void test_merge_lse_of_two_halves_is_the_whole(void) {
    /* keys 0..s-1 and s..S-1 on their own, merged by their lse: the attention over all S */
    t_manual_seed(89);
    int64_t S = 301;
    Tensor *q = t_randn(SHAPE(2, 3, 70, 16)), *k = t_randn(SHAPE(2, 3, S, 16)), *v = t_randn(SHAPE(2, 3, S, 12));
    for (int64_t s = 1; s < S; s += 150) {
        Tensor *lse_a, *lse_b, *lse_all, *lse;
        Tensor *a = attention_flash_lse(q, t_slice(k, -2, 0, s), t_slice(v, -2, 0, s), false, &lse_a);
        Tensor *b = attention_flash_lse(q, t_slice(k, -2, s, S), t_slice(v, -2, s, S), false, &lse_b);
        Tensor *all = attention_flash_lse(q, k, v, false, &lse_all);
        Tensor *out = attention_merge_lse(a, lse_a, b, lse_b, &lse);
        CHECK_TENSOR_CLOSE(out, all, 1e-5, 1e-6);
        CHECK_TENSOR_CLOSE(lse, lse_all, 1e-6, 1e-5);
        CHECK_TENSOR_CLOSE(attention_merge_lse(b, lse_b, a, lse_a, NULL), all, 1e-5, 1e-6); /* either order */
    }
    /* lse far apart (1e4): the naive e^{lse} would overflow; the stable form does not */
    float oa[2] = {1, 2}, ob[2] = {3, 5}, la[1] = {10000.0f}, lb[1] = {9990.0f};
    Tensor *lse;
    Tensor *out = attention_merge_lse(t_from_array(SHAPE(1, 2), oa), t_from_array(SHAPE(1), la),
                                      t_from_array(SHAPE(1, 2), ob), t_from_array(SHAPE(1), lb), &lse);
    double wb = exp(-10.0) / (1.0 + exp(-10.0));
    CHECK_CLOSE(t_get(out, 0, 0), 1.0 + 2.0 * wb, 1e-6);
    CHECK_CLOSE(t_get(out, 0, 1), 2.0 + 3.0 * wb, 1e-6);
    CHECK_CLOSE(t_get(lse, 0), 10000.0 + log1p(exp(-10.0)), 1e-2);
}

static void test_merge_lse_rows_that_saw_no_key(void) {
    /* row 0: part a saw nothing (lse -inf, output NaN): the result is part b exactly;
     * row 1: part b saw nothing; row 2: neither: NaN, lse -inf; row 3: a NaN lse */
    float oa[8] = {NAN, NAN, 1, 2, NAN, NAN, 1, 1}, ob[8] = {3, 4, NAN, NAN, NAN, NAN, 1, 1};
    float la[4] = {-INFINITY, 0.5f, -INFINITY, NAN}, lb[4] = {2.0f, -INFINITY, -INFINITY, 0.0f};
    Tensor *lse;
    Tensor *out = attention_merge_lse(t_from_array(SHAPE(4, 2), oa), t_from_array(SHAPE(4), la),
                                      t_from_array(SHAPE(4, 2), ob), t_from_array(SHAPE(4), lb), &lse);
    CHECK(t_get(out, 0, 0) == 3.0f && t_get(out, 0, 1) == 4.0f && t_get(lse, 0) == 2.0f);
    CHECK(t_get(out, 1, 0) == 1.0f && t_get(out, 1, 1) == 2.0f && t_get(lse, 1) == 0.5f);
    CHECK(isnan(t_get(out, 2, 0)) && isnan(t_get(out, 2, 1)) && t_get(lse, 2) == -INFINITY);
    CHECK(isnan(t_get(out, 3, 0)) && isnan(t_get(lse, 3)));
    CHECK_ERROR(attention_merge_lse(t_zeros(SHAPE(4, 2)), t_zeros(SHAPE(4)), t_zeros(SHAPE(4, 3)), t_zeros(SHAPE(4)),
                                    NULL),
                "attention_merge_lse: out_a (4, 2), lse_a (4,), out_b (4, 3), lse_b (4,): the outputs must share one "
                "shape (..., T, d_v) and the lse its (..., T)");
    CHECK_ERROR(attention_merge_lse(t_zeros(SHAPE(4, 2)), t_zeros(SHAPE(3)), t_zeros(SHAPE(4, 2)), t_zeros(SHAPE(3)),
                                    NULL),
                "attention_merge_lse: out_a (4, 2), lse_a (3,)");
}

static void test_attn_matmul_is_a_matmul(void) {
    /* the exported register-kernel matmul on odd sizes, plain and accumulating */
    t_manual_seed(91);
    int64_t m = 19, n = 45, kd = 13;
    Tensor *a = t_randn(SHAPE(m, kd)), *b = t_randn(SHAPE(kd, n)), *c = t_zeros(SHAPE(m, n));
    float *packed = (float *)t_alloc(ATTN_MATMUL_PACKED(kd) * sizeof(float));
    attn_matmul(m, n, kd, t_data(a), kd, t_data(b), n, t_data(c), n, false, packed);
    CHECK_TENSOR_CLOSE(c, t_matmul(a, b), 1e-5, 1e-5);
    attn_matmul(m, n, kd, t_data(a), kd, t_data(b), n, t_data(c), n, true, packed);
    CHECK_TENSOR_CLOSE(c, t_mul_scalar(t_matmul(a, b), 2.0f), 1e-5, 1e-5);
    /* aᵀ · b from a (kd, m) as it is: 19 = 2 groups of 8 + 3 edge rows, 45 = 32 + 13 columns */
    Tensor *at = t_contiguous(t_transpose(a, 0, 1)); /* (kd, m) */
    attn_matmul_at(m, n, kd, t_data(at), m, t_data(b), n, t_data(c), n, false);
    CHECK_TENSOR_CLOSE(c, t_matmul(a, b), 1e-5, 1e-5);
    attn_matmul_at(m, n, kd, t_data(at), m, t_data(b), n, t_data(c), n, true);
    CHECK_TENSOR_CLOSE(c, t_mul_scalar(t_matmul(a, b), 2.0f), 1e-5, 1e-5);
}

/* What the narration says of this build (main.c prints these): the tile's rows and
 * columns are those in its name, the max keeps four vectors of partial results and the
 * sum one, and flash's block of queries is whole groups of the tile's rows. */
static void test_the_build_figures_agree(void) {
    char name[64];
    snprintf(name, sizeof name, " %d x %d", attn_tile_rows(), attn_tile_cols());
    const char *tile = attn_register_tile();
    CHECK_MSG(strlen(tile) > strlen(name) && strcmp(tile + strlen(tile) - strlen(name), name) == 0,
              "the tile %s is not%s", tile, name);
    CHECK(attn_max_partials() == 4 * attn_sum_partials());
    CHECK(attn_flash_block_q() % attn_tile_rows() == 0);
    CHECK(attn_vector_floats() >= 1 && attn_vector_floats() <= 16);
    CHECK(fma_peak_accumulators() >= 64);
}

#ifdef CH08_TILE_AVX2
static void test_the_avx2_tile_ran(void) {
    /* this copy of the tests (test_ch08_avx2, the Makefile) is linked with chapter 8
     * built without AVX-512: every check above ran the AVX2 tile */
    CHECK_MSG(strcmp(attn_register_tile(), "AVX2 6 x 16") == 0, "the register tile is %s", attn_register_tile());
    CHECK(attn_tile_rows() == 6 && attn_tile_cols() == 16 && attn_flash_block_q() == 96);
    CHECK(attn_vector_floats() == 8); /* ymm: 8 floats */
}
#endif

/* ---- memory ------------------------------------------------------------------------------ */

static void test_extra_memory_of_each_version(void) {
    /* one head, T = S = 1024, d = 16: the score-storing versions hold T·S floats (4 MiB),
     * online one row plus the transposed keys, flash the key panels plus tiles: O(S·d) */
    t_manual_seed(86);
    int64_t T = 1024, d = 16;
    Tensor *q = t_randn(SHAPE(1, T, d)), *k = t_randn(SHAPE(1, T, d)), *v = t_randn(SHAPE(1, T, d));
    size_t scores = (size_t)T * T * sizeof(float), bytes[ATTN_N_IMPLS];
    for (int i = 0; i < ATTN_N_IMPLS; i++) {
        t_scope_begin();
        fast_attention((AttnImpl)i, q, k, v, true);
        bytes[i] = attention_scratch_bytes();
        t_scope_end();
    }
    for (int i = ATTN_NAIVE; i <= ATTN_TILED; i++) {
        CHECK_MSG(bytes[i] >= scores, "%s allocated %zu bytes, less than its scores", attn_impl_name((AttnImpl)i), bytes[i]);
        CHECK_MSG(bytes[i] < scores + scores / 8, "%s allocated %zu bytes", attn_impl_name((AttnImpl)i), bytes[i]);
    }
    CHECK_MSG(bytes[ATTN_ONLINE] < (size_t)(T * d + T) * 4 + 4096, "online allocated %zu bytes", bytes[ATTN_ONLINE]);
    /* the packed keys, and per thread (make OMP=1 gives each its own) ~100 KB of tiles */
    size_t per_thread = (size_t)(T * d) * 4 + 200000;
    CHECK_MSG(bytes[ATTN_FLASH] < (size_t)attention_threads() * per_thread, "flash allocated %zu bytes",
              bytes[ATTN_FLASH]);
    CHECK(attention_threads() >= 1);
}

static void test_flash_memory_grows_linearly_with_T(void) {
    /* doubling T doubles the packed keys and nothing else: O(S·d), not O(T²) */
    t_manual_seed(87);
    size_t bytes[2];
    for (int r = 0; r < 2; r++) {
        int64_t T = r ? 4096 : 2048;
        t_scope_begin();
        Tensor *q = t_randn(SHAPE(1, T, 8)), *k = t_randn(SHAPE(1, T, 8)), *v = t_randn(SHAPE(1, T, 8));
        attention_flash(q, k, v, true);
        bytes[r] = attention_scratch_bytes();
        t_scope_end();
    }
    CHECK_MSG(bytes[1] < 2 * bytes[0], "flash: %zu bytes at T = 2048, %zu at T = 4096", bytes[0], bytes[1]);
    CHECK_MSG(bytes[1] > bytes[0] + 2048 * 8 * 4 - 1, "flash: %zu bytes at T = 2048, %zu at T = 4096", bytes[0],
              bytes[1]);
}

static void test_score_storing_versions_refuse_over_the_budget(void) {
    /* with a 1 MiB limit, (2, 512, 512) scores need 2 MiB: naive, reordered and tiled refuse
     * with one sentence; online and flash, which never store them, still give the answer */
    size_t old = t_max_bytes();
    t_manual_seed(88);
    Tensor *q = t_randn(SHAPE(2, 512, 8)), *k = t_randn(SHAPE(2, 512, 8)), *v = t_randn(SHAPE(2, 512, 8));
    Tensor *want = reference(q, k, v, true);
    t_set_max_bytes((size_t)1 << 20);
    CHECK_EQ_INT(attention_scores_budget(), (size_t)1 << 20);
    CHECK_ERROR(attention_naive(q, k, v, true),
                "attention_naive: the scores (2, 512, 512) would take 2.0 MiB, more than the 1.0 MiB this chapter "
                "allows for them; attention_flash (--impl flash) never stores them");
    CHECK_ERROR(attention_reordered(q, k, v, false), "attention_reordered: the scores (2, 512, 512) would take 2.0 MiB");
    CHECK_ERROR(attention_tiled(q, k, v, true), "attention_tiled: the scores (2, 512, 512) would take 2.0 MiB");
    CHECK_TENSOR_CLOSE(attention_online(q, k, v, true), want, RTOL, ATOL);
    CHECK_TENSOR_CLOSE(attention_flash(q, k, v, true), want, RTOL, ATOL);
    t_set_max_bytes(old);
    CHECK_EQ_INT(attention_scores_budget(), (size_t)512 << 20);
}

/* ---- cost model, exp ------------------------------------------------------------------------ */

static void test_cost_model(void) {
    Tensor *q = t_zeros(SHAPE(2, 3, 5, 4)), *k = t_zeros(SHAPE(2, 3, 7, 4)), *v = t_zeros(SHAPE(2, 3, 7, 2));
    /* 6 slices x T·S = 35 scores x (2·d_k + 2·d_v) = 12 FLOPs */
    CHECK_CLOSE(attention_flops(q, k, v, false), 6.0 * 35 * 12, 0.0);
    CHECK_CLOSE(attention_flops(q, k, v, true), 3.0 * 35 * 12, 0.0);
    CHECK_CLOSE(attention_score_bytes(q, k), 6.0 * 35 * 4, 0.0);
    /* with d_k = d_v = d it is the 4·B·H·T·S·d of the chapter */
    Tensor *qd = t_expand(t_zeros(SHAPE(1, 1, 1, 1)), SHAPE(1, 8, 1024, 64)); /* no memory: a view */
    CHECK_CLOSE(attention_flops(qd, qd, qd, false), 4.0 * 8 * 1024 * 1024 * 64, 0.0);
    /* broadcast batch dims count once per slice of the broadcast shape */
    CHECK_CLOSE(attention_score_bytes(t_zeros(SHAPE(2, 1, 5, 4)), t_zeros(SHAPE(1, 3, 7, 4))), 6.0 * 35 * 4, 0.0);
}

static void test_attn_exp_is_expf_to_2_ulp(void) {
    double worst = 0.0;
    for (int i = 0; i <= 200000; i++) {
        float x = -87.0f + 175.0f * (float)i / 200000.0f;
        double want = exp((double)x), got = attn_exp(x);
        double rel = fabs(got - want) / want;
        if (rel > worst) worst = rel;
    }
    CHECK_MSG(worst < 2.4e-7, "attn_exp: worst relative error %g (2 ulp = 2.4e-7)", worst);
    CHECK(attn_exp(0.0f) == 1.0f);
    CHECK(attn_exp(-INFINITY) == 0.0f); /* a masked score gets weight exactly 0 */
    CHECK(attn_exp(-100.0f) == 0.0f);
    CHECK(isnan(attn_exp(NAN)));
    CHECK_CLOSE(attn_exp(1.0f), 2.718281828, 3e-7);
}

/* attn_exp_row, in the loop the compiler vectorises (16 or 8 lanes, then the tail one
 * at a time), gives the same bits as attn_exp one number at a time, at the edges too:
 * NaN, ±inf, the clamps at -87 and 88 and just past them, -0, a subnormal; with a scale
 * and a shift as chapter 12 passes them. (When its clamp and its zero were float
 * compares, GCC kept the AVX2 loop scalar; as integer masks it vectorises.) */
static void test_attn_exp_row_is_attn_exp_bit_for_bit(void) {
    const float edge[] = {NAN, INFINITY, -INFINITY, -87.0f, -87.00001f, -86.99999f, 88.0f, 88.00001f, 87.99999f,
                          -0.0f, 0.0f, 1e-40f, -1e-40f, 100.0f, -100.0f, 0.5f, -0.34657359f, 3e38f, -3e38f};
    int ne = (int)(sizeof edge / sizeof edge[0]);
    float x[103], y[103];
    for (int i = 0; i < 103; i++) x[i] = i < ne ? edge[i] : -90.0f + 180.0f * (float)i / 103.0f;
    const float scale[2] = {1.0f, 0.125f}, shift[2] = {0.0f, -2.5f};
    for (int s = 0; s < 2; s++) {
        memcpy(y, x, sizeof y);
        attn_exp_row(y, 103, scale[s], shift[s]);
        int same = 1;
        for (int i = 0; i < 103; i++) {
            float want = attn_exp(fmaf(x[i], scale[s], -shift[s]));
            if (memcmp(&want, &y[i], sizeof want) != 0) {
                CHECK_MSG(0, "attn_exp_row[%d] of %g (scale %g, shift %g): %g, attn_exp gives %g", i, (double)x[i],
                          (double)scale[s], (double)shift[s], (double)y[i], (double)want);
                same = 0;
                break;
            }
        }
        CHECK(same);
    }
}

/* flash's 2^x for x <= 0: every 1021st float of [-126, 0], and every float of
 * [-0.5, -0.49], where the reduced argument f is near -1/2 and the polynomial is
 * furthest from 2^f. */
static void test_attn_exp2_is_exp2_to_1_75e_7(void) {
    double worst = 0.0;
    float worst_x = 0.0f;
    union { float f; uint32_t u; } x;
    for (uint32_t u = 0x80000000u; u <= 0xC2FC0000u; u += 1021u) { /* -0 .. -126 */
        x.u = u;
        double want = exp2((double)x.f), rel = fabs(attn_exp2(x.f) - want) / want;
        if (rel > worst) worst = rel, worst_x = x.f;
    }
    for (x.f = -0.49f; x.f >= -0.5f; x.u++) {
        double want = exp2((double)x.f), rel = fabs(attn_exp2(x.f) - want) / want;
        if (rel > worst) worst = rel, worst_x = x.f;
    }
    CHECK_MSG(worst < 1.75e-7, "attn_exp2: worst relative error %g at x = %g", worst, (double)worst_x);
    CHECK(attn_exp2(0.0f) == 1.0f);
    CHECK(attn_exp2(-1.0f) == 0.5f && attn_exp2(-20.0f) == 0x1p-20f); /* whole powers exactly */
    CHECK(attn_exp2(-INFINITY) == 0x1p-126f); /* the first tile's alpha: nothing next to a sum >= 1 */
    CHECK(attn_exp2(-1000.0f) == 0x1p-126f);
}

/* ---- errors ------------------------------------------------------------------------------ */

static void test_errors(void) {
    Tensor *q = t_zeros(SHAPE(2, 3, 4)), *k = t_zeros(SHAPE(2, 7, 4)), *v = t_zeros(SHAPE(2, 7, 3));
    CHECK_ERROR(attention_flash(q, k, v, true),
                "attention_flash: query (2, 3, 4) and key (2, 7, 4) have T 3 != S 7, but a causal mask needs T == S");
    CHECK_ERROR(attention_naive(q, k, v, true), "attention_naive: query (2, 3, 4) and key (2, 7, 4) have T 3 != S 7");
    CHECK_ERROR(attention_online(q, t_zeros(SHAPE(2, 7, 5)), v, false),
                "attention_online: query (2, 3, 4) and key (2, 7, 5) must share the last dim d_k: 4 != 5");
    CHECK_ERROR(attention_tiled(q, k, t_zeros(SHAPE(2, 6, 3)), false),
                "attention_tiled: key (2, 7, 4) and value (2, 6, 3) must have the same length S (dim -2): 7 != 6");
    CHECK_ERROR(attention_reordered(q, t_zeros(SHAPE(2, 0, 4)), t_zeros(SHAPE(2, 0, 3)), false),
                "attention_reordered: key (2, 0, 4) has no positions (S = 0)");
    CHECK_ERROR(attention_flash(t_zeros(SHAPE(4)), k, v, false), "attention_flash: query (4,), key (2, 7, 4) and value "
                                                                 "(2, 7, 3) each need at least 2 dims");
    CHECK_ERROR(attention_flash(t_zeros(SHAPE(3, 3, 4)), k, v, false), "attention_flash: batch dims of query (3, 3, 4)");
    CHECK_ERROR(attention_flash(q, k, t_zeros(SHAPE(5, 7, 3)), false), "attention_flash: batch dims of the scores and value");
    CHECK_ERROR(attn_impl_parse("fast"),
                "attn_impl_parse: unknown implementation 'fast': use naive, reordered, tiled, online or flash");
    CHECK_ERROR(fast_attention((AttnImpl)7, q, k, v, false), "fast_attention: unknown implementation 7");
    CHECK(strcmp(attn_impl_name((AttnImpl)9), "unknown") == 0);
    CHECK(attn_impl_stores_scores(ATTN_TILED) && !attn_impl_stores_scores(ATTN_ONLINE) &&
          !attn_impl_stores_scores(ATTN_FLASH));
}

int main(void) {
    RUN(test_every_version_matches_pytorch_not_causal);
    RUN(test_every_version_matches_pytorch_causal);
    RUN(test_fast_attention_by_name_matches_pytorch);
    RUN(test_every_version_matches_chapters_2_and_4_on_random_shapes);
    RUN(test_large_scores_do_not_overflow);
    RUN(test_non_contiguous_inputs);
    RUN(test_non_finite_inputs_follow_pytorch);
    RUN(test_non_finite_slices_over_several_strips);
    RUN(test_online_row_update_non_finite);
    RUN(test_one_key_gives_its_value_exactly);
    RUN(test_attn_exp_row_is_attn_exp_bit_for_bit);
    RUN(test_flash_tile_max_skips_padding_and_future_keys);
    RUN(test_causal_future_does_not_leak);
    RUN(test_same_result_every_call);
    RUN(test_flash_same_bits_on_one_and_two_threads);
    RUN(test_empty_query_gives_empty_output);
    RUN(test_extra_memory_of_each_version);
    RUN(test_flash_memory_grows_linearly_with_T);
    RUN(test_cost_model);
    RUN(test_attn_exp_is_expf_to_2_ulp);
    RUN(test_attn_exp2_is_exp2_to_1_75e_7);
    RUN(test_errors);
    RUN(test_flash_lse_matches_pytorch);
    RUN(test_flash_lse_non_finite);
    RUN(test_flash_lse_adds_no_scratch);
    RUN(test_merge_lse_of_two_halves_is_the_whole);
    RUN(test_merge_lse_rows_that_saw_no_key);
    RUN(test_attn_matmul_is_a_matmul);
    RUN(test_the_build_figures_agree);
    RUN(test_score_storing_versions_refuse_over_the_budget); /* last: it lowers t_max_bytes() */
#ifdef CH08_TILE_AVX2
    RUN(test_the_avx2_tile_ran);
    return harness_finish("test_ch08_avx2");
#else
    return harness_finish("test_ch08");
#endif
}
