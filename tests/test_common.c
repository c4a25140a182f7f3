/* test_common.c — tensor, ops, nn, rng and print against PyTorch fixtures
 * (tests/fixtures/common, written by scripts/make_golden.py) and their error
 * sentences. The .npy loader and the flag parser have their own files. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "common/program/program.h"

#define FX(name) load_fixture("common/" name ".npy")
#define RTOL 1e-5
#define ATOL 1e-6

/* ---- tensor: shapes, strides, views ------------------------------------ */

static void test_zeros_shape_strides(void) {
    Tensor *x = t_zeros(SHAPE(2, 3, 4));
    CHECK_EQ_INT(x->ndim, 3);
    CHECK_EQ_INT(t_numel(x), 24);
    CHECK_EQ_INT(x->strides[0], 12);
    CHECK_EQ_INT(x->strides[1], 4);
    CHECK_EQ_INT(x->strides[2], 1);
    CHECK(t_is_contiguous(x));
    CHECK_EQ_INT(t_size(x, -1), 4);
    CHECK_CLOSE(t_sum_all(x), 0.0, 0.0);
}

static void test_full_neg_inf_and_eye(void) {
    Tensor *m = t_full(SHAPE(1, 1, 3, 3), -INFINITY);
    CHECK(isinf(t_get(m, 0, 0, 2, 1)) && t_get(m, 0, 0, 2, 1) < 0);
    Tensor *e = t_eye(3);
    CHECK_CLOSE(t_get(e, 1, 1), 1.0, 0.0);
    CHECK_CLOSE(t_get(e, 1, 2), 0.0, 0.0);
    CHECK_CLOSE(t_sum_all(e), 3.0, 0.0);
}

static void test_from_array_get_set(void) {
    float v[] = {1, 2, 3, 4, 5, 6};
    Tensor *x = t_from_array(SHAPE(2, 3), v);
    CHECK_CLOSE(t_get(x, 1, 2), 6.0, 0.0);
    CHECK_CLOSE(t_get(x, -1, -3), 4.0, 0.0); /* negative indices, as in Python */
    t_set(x, 9.0f, 0, 1);
    CHECK_CLOSE(t_get(x, 0, 1), 9.0, 0.0);
    CHECK_CLOSE(v[1], 2.0, 0.0); /* from_array copies */
}

static void test_get_errors(void) {
    Tensor *x = t_zeros(SHAPE(2, 3));
    CHECK_ERROR(t_get(x, 0, 3), "index 3 is out of range for dim 1 of size 3");
    CHECK_ERROR(t_get(x, 0), "1 indices given for a 2-dim tensor (2, 3)");
    CHECK_ERROR(t_set(x, 1.0f, 2, 0), "index 2 is out of range for dim 0");
}

static void test_view_is_zero_copy(void) {
    Tensor *x = t_arange(24);
    Tensor *v = t_view(x, SHAPE(2, 3, 4));
    CHECK(t_shares_storage(x, v));
    t_set(v, 100.0f, 1, 2, 3);
    CHECK_CLOSE(t_get(x, 23), 100.0, 0.0);
    Tensor *w = t_view(x, SHAPE(4, -1));
    CHECK_EQ_INT(w->shape[1], 6);
}

static void test_view_errors(void) {
    Tensor *x = t_zeros(SHAPE(2, 3, 4));
    CHECK_ERROR(t_view(x, SHAPE(5, 5)), "view: shape (5, 5) is invalid for input (2, 3, 4) of 24 elements");
    CHECK_ERROR(t_view(x, SHAPE(-1, -1)), "only one dimension can be -1");
    CHECK_ERROR(t_view(x, SHAPE(5, -1)), "invalid for input (2, 3, 4)");
    Tensor *t = t_transpose(x, 1, 2);
    CHECK_ERROR(t_view(t, SHAPE(2, 12)), "view: input (2, 4, 3) with strides (12, 1, 4) is not contiguous");
}

static void test_transpose_strides_and_contiguous(void) {
    Tensor *x = FX("transpose_x"); /* (2, 3, 4) */
    Tensor *t = t_transpose(x, 1, 2);
    CHECK_EQ_INT(t->shape[1], 4);
    CHECK_EQ_INT(t->strides[1], 1);
    CHECK_EQ_INT(t->strides[2], 4);
    CHECK(!t_is_contiguous(t));
    CHECK(t_shares_storage(x, t));
    Tensor *c = t_contiguous(t);
    CHECK(t_is_contiguous(c));
    CHECK(!t_shares_storage(c, x));
    CHECK_TENSOR_CLOSE(c, FX("transpose_12_contig"), 0, 0);
    CHECK(t_contiguous(x) == x); /* already contiguous: no copy */
    Tensor *v = t_view(c, SHAPE(2, 12));
    CHECK_EQ_INT(v->shape[1], 12);
}

static void test_permute_matches_torch(void) {
    Tensor *x = FX("permute_x");
    Tensor *p = t_permute(x, SHAPE(0, 2, 1, 3));
    CHECK_TENSOR_CLOSE(t_contiguous(p), FX("permute_0213"), 0, 0);
    CHECK_ERROR(t_permute(x, SHAPE(0, 1, 1, 3)), "repeats dim 1");
    CHECK_ERROR(t_permute(x, SHAPE(0, 1)), "has 2 entries but the input (2, 3, 4, 5) has 4 dims");
}

static void test_transpose_bad_dim(void) {
    Tensor *x = t_zeros(SHAPE(2, 3));
    CHECK_ERROR(t_transpose(x, 0, 2), "transpose: dim 2 is out of range for a 2-dim tensor (expected -2 to 1)");
}

static void test_reshape_copies_when_needed(void) {
    Tensor *x = t_view(t_arange(6), SHAPE(2, 3));
    Tensor *t = t_transpose(x, 0, 1);
    Tensor *r = t_reshape(t, SHAPE(6));
    CHECK(!t_shares_storage(r, x));
    float want[] = {0, 3, 1, 4, 2, 5};
    CHECK_TENSOR_CLOSE(r, t_from_array(SHAPE(6), want), 0, 0);
    Tensor *r2 = t_reshape(x, SHAPE(3, 2));
    CHECK(t_shares_storage(r2, x));
}

static void test_slice_like_mask_slicing(void) {
    /* mask[:, :, :seqlen, :seqlen] on a (1, 1, 6, 6) buffer */
    Tensor *mask = t_triu(t_full(SHAPE(1, 1, 6, 6), -INFINITY), 1);
    Tensor *m = t_slice(t_slice(mask, 2, 0, 4), 3, 0, 4);
    CHECK_EQ_INT(m->shape[2], 4);
    CHECK_EQ_INT(m->shape[3], 4);
    CHECK(t_shares_storage(m, mask));
    CHECK(!t_is_contiguous(m));
    CHECK(isinf(t_get(m, 0, 0, 2, 3)));
    CHECK_CLOSE(t_get(m, 0, 0, 3, 2), 0.0, 0.0);
    Tensor *tail = t_slice(t_arange(10), 0, -3, 100); /* Python-style clamp */
    CHECK_EQ_INT(tail->shape[0], 3);
    CHECK_CLOSE(t_get(tail, 0), 7.0, 0.0);
}

static void test_select_unsqueeze_expand(void) {
    Tensor *x = t_view(t_arange(6), SHAPE(2, 3));
    Tensor *row = t_select(x, 0, 1);
    CHECK_EQ_INT(row->ndim, 1);
    CHECK_CLOSE(t_get(row, 2), 5.0, 0.0);
    Tensor *u = t_unsqueeze(x, 0);
    CHECK_EQ_INT(u->ndim, 3);
    CHECK_EQ_INT(u->shape[0], 1);
    Tensor *e = t_expand(t_view(t_arange(3), SHAPE(1, 3)), SHAPE(4, 3));
    CHECK_EQ_INT(e->strides[0], 0);
    CHECK_CLOSE(t_get(e, 3, 2), 2.0, 0.0);
    CHECK_ERROR(t_expand(x, SHAPE(4, 3)), "cannot be expanded to (4, 3)");
    CHECK_ERROR(t_select(x, 1, 3), "index 3 is out of range for dim 1 of size 3");
}

static void test_copy_into_view(void) {
    Tensor *x = t_zeros(SHAPE(3, 3));
    Tensor *col = t_select(x, 1, 2);
    t_copy_(col, t_full(SHAPE(3), 7.0f));
    CHECK_CLOSE(t_get(x, 2, 2), 7.0, 0.0);
    CHECK_CLOSE(t_sum_all(x), 21.0, 0.0);
    CHECK_ERROR(t_copy_(col, t_zeros(SHAPE(2))), "copy_: destination (3,) and source (2,) differ in shape");
}

static void test_too_big_is_a_sentence(void) {
    CHECK_ERROR(t_zeros(SHAPE(100000, 100000, 100000)), "more than the");
    CHECK_ERROR(t_zeros(SHAPE(INT64_MAX, 4)), "more elements than memory can address");
    CHECK_ERROR(t_zeros(SHAPE(2, -3)), "negative size in dim 1");
    Tensor *empty = t_zeros(SHAPE(INT64_C(1) << 62, 8, 0)); /* no elements: fine, no overflow */
    CHECK_EQ_INT(t_numel(empty), 0);
    size_t old = t_max_bytes();
    t_set_max_bytes(1000);
    CHECK_ERROR(t_zeros(SHAPE(100, 100)), "zeros: shape (100, 100) needs 39.1 KiB of float32");
    t_set_max_bytes(old);
}

static void test_scopes_free_and_nest(void) {
    int d = t_scope_depth();
    t_scope_begin();
    CHECK_EQ_INT(t_scope_depth(), d + 1);
    for (int i = 0; i < 100; i++) {
        t_scope_begin();
        (void)t_randn(SHAPE(64, 64));
        t_scope_end();
    }
    t_scope_end();
    CHECK_EQ_INT(t_scope_depth(), d);
}

static void test_alloc_is_64_byte_aligned_and_zeroed(void) {
    /* chapter 8's vector loads rely on it: every t_alloc block, of any size, starts
     * on a cache line, and the live count is the bytes asked for */
    t_scope_begin();
    size_t live = t_live_bytes();
    size_t sizes[] = {1, 3, 16, 17, 63, 64, 65, 1000, 4096, 200000, 3 << 20};
    size_t total = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned char *p = (unsigned char *)t_alloc(sizes[i]);
        CHECK_EQ_INT((int64_t)((uintptr_t)p % 64), 0);
        CHECK(p[0] == 0 && p[sizes[i] - 1] == 0);
        p[sizes[i] - 1] = 0xff; /* the whole block is writable (ASan/valgrind check the end) */
        total += sizes[i];
    }
    CHECK_EQ_INT((int64_t)(t_live_bytes() - live), (int64_t)total);
    Tensor *x = t_zeros(SHAPE(3, 5));
    CHECK_EQ_INT((int64_t)((uintptr_t)t_data(x) % 64), 0);
    t_scope_end();
    CHECK_EQ_INT((int64_t)t_live_bytes(), (int64_t)live);
}

/* t_scope_end_keep: a second pass of the same sizes gets the first pass's blocks back,
 * zeroed, 64-byte aligned and whole, and counted as held again; t_keep_release frees
 * them. Under AddressSanitizer it is t_scope_end and nothing is kept. */
static void test_scope_end_keep_reuses_zeroed_blocks(void) {
    size_t sizes[] = {17, 4096, 200000, 3 << 20};
    enum { N = sizeof sizes / sizeof sizes[0] };
    unsigned char *first[N];
    size_t live = t_live_bytes(), total = 0;
    t_keep_release();
    t_scope_begin();
    for (int i = 0; i < N; i++) {
        first[i] = (unsigned char *)t_alloc(sizes[i]);
        memset(first[i], 0xab, sizes[i]);
        total += sizes[i];
    }
    t_scope_end_keep();
    CHECK_EQ_INT((int64_t)t_live_bytes(), (int64_t)live);
    bool kept = t_kept_bytes() != 0;
    CHECK(t_kept_bytes() == total || !kept);   /* all of them, or none (AddressSanitizer) */
    t_scope_begin();
    for (int i = 0; i < N; i++) {
        unsigned char *p = (unsigned char *)t_alloc(sizes[i]);
        if (kept) CHECK(p == first[i]);
        CHECK_EQ_INT((int64_t)((uintptr_t)p % 64), 0);
        size_t nonzero = 0;
        for (size_t j = 0; j < sizes[i]; j++) nonzero += p[j] != 0;
        CHECK_EQ_INT((int64_t)nonzero, 0);
        p[sizes[i] - 1] = 0xff;
    }
    CHECK_EQ_INT((int64_t)t_kept_bytes(), 0);
    CHECK_EQ_INT((int64_t)(t_live_bytes() - live), (int64_t)total);
    t_scope_end_keep();
    t_keep_release();
    CHECK_EQ_INT((int64_t)t_kept_bytes(), 0);
    CHECK_EQ_INT((int64_t)t_live_bytes(), (int64_t)live);
    t_scope_end_to(0);   /* the harness's scope too: t_scope_end_keep with none open is an error */
    CHECK_ERROR(t_scope_end_keep(), "no scope is open");
}

static void test_shape_str(void) {
    char b[T_SHAPE_STR];
    CHECK(strcmp(shape_str(SHAPE(3, 5, 10), b), "(3, 5, 10)") == 0);
    CHECK(strcmp(shape_str(SHAPE(3), b), "(3,)") == 0);
    CHECK(strcmp(shape_str(shape_of(0, NULL), b), "()") == 0);
}

/* ---- ops ----------------------------------------------------------------- */

static void test_matmul_2d(void) {
    CHECK_TENSOR_CLOSE(t_matmul(FX("matmul_2d_a"), FX("matmul_2d_b")), FX("matmul_2d_out"), RTOL, ATOL);
}

static void test_matmul_broadcast(void) {
    CHECK_TENSOR_CLOSE(t_matmul(FX("matmul_bcast_a"), FX("matmul_bcast_b")), FX("matmul_bcast_out"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(t_matmul(FX("matmul_2d3d_a"), FX("matmul_2d3d_b")), FX("matmul_2d3d_out"), RTOL, ATOL);
}

static void test_matmul_batched(void) {
    CHECK_TENSOR_CLOSE(t_matmul(FX("matmul_batch_a"), FX("matmul_batch_b")), FX("matmul_batch_out"), RTOL, ATOL);
}

static void test_matmul_with_transposed_key(void) {
    /* torch.matmul(query, key.transpose(-2, -1)): a strided operand */
    Tensor *q = FX("matmul_kt_a"), *k = FX("matmul_kt_b");
    CHECK_TENSOR_CLOSE(t_matmul(q, t_transpose(k, -2, -1)), FX("matmul_kt_out"), RTOL, ATOL);
}

static void test_matmul_errors(void) {
    CHECK_ERROR(t_matmul(t_zeros(SHAPE(3, 5, 10)), t_zeros(SHAPE(8, 8))), "matmul: (3, 5, 10) @ (8, 8): inner dims 10 != 8");
    CHECK_ERROR(t_matmul(t_zeros(SHAPE(2, 3, 4)), t_zeros(SHAPE(3, 4, 2))), "do not broadcast");
    CHECK_ERROR(t_matmul(t_zeros(SHAPE(4)), t_zeros(SHAPE(4, 2))), "need at least 2 dims");
}

static void test_matmul_identity(void) {
    Tensor *x = t_randn(SHAPE(2, 5, 5));
    CHECK_TENSOR_CLOSE(t_matmul(x, t_eye(5)), x, 0, 0);
}

static void test_add_mul_broadcast(void) {
    CHECK_TENSOR_CLOSE(t_add(FX("add_bcast_a"), FX("add_bcast_b")), FX("add_bcast_out"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(t_mul(FX("mul_bcast_a"), FX("mul_bcast_b")), FX("mul_bcast_out"), RTOL, ATOL);
    CHECK_ERROR(t_add(t_zeros(SHAPE(2, 3)), t_zeros(SHAPE(4))), "add: shapes (2, 3) and (4,) do not broadcast");
}

static void test_scalar_ops(void) {
    Tensor *x = t_view(t_arange(4), SHAPE(2, 2));
    CHECK_CLOSE(t_get(t_div_scalar(x, 2.0f), 1, 1), 1.5, 1e-7);
    CHECK_CLOSE(t_get(t_mul_scalar(x, 3.0f), 1, 0), 6.0, 0);
    CHECK_CLOSE(t_get(t_add_scalar(x, 1.0f), 0, 0), 1.0, 0);
    CHECK_CLOSE(t_get(t_sub(x, t_ones(SHAPE(1))), 0, 1), 0.0, 0);
    CHECK_CLOSE(t_get(t_div(x, t_full(SHAPE(2, 1), 2.0f)), 1, 1), 1.5, 1e-7);
    CHECK_CLOSE(t_get(t_exp(x), 0, 1), exp(1.0), 1e-6);
}

static void test_softmax_matches_torch(void) {
    CHECK_TENSOR_CLOSE(t_softmax(FX("softmax_x"), -1), FX("softmax_out"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(t_softmax(FX("softmax_4d_x"), -1), FX("softmax_4d_out"), RTOL, ATOL);
}

static void test_softmax_large_values_stable(void) {
    Tensor *w = t_softmax(FX("softmax_large_x"), -1);
    for (int64_t i = 0; i < t_numel(w); i++) CHECK(isfinite(t_flat_get(w, i)));
    CHECK_TENSOR_CLOSE(w, FX("softmax_large_out"), RTOL, 1e-6);
}

static void test_softmax_neg_inf_entries(void) {
    Tensor *w = t_softmax(FX("softmax_neginf_x"), -1);
    CHECK_TENSOR_CLOSE(w, FX("softmax_neginf_out"), RTOL, ATOL);
    CHECK_CLOSE(t_get(w, 0, 0), 1.0, 1e-6); /* row 0 sees only itself */
    CHECK_CLOSE(t_get(w, 0, 1), 0.0, 0.0);
}

static void test_softmax_all_neg_inf_row_is_nan(void) {
    Tensor *x = t_full(SHAPE(2, 3), -INFINITY);
    t_set(x, 0.0f, 1, 0);
    Tensor *w = t_softmax(x, -1);
    CHECK(isnan(t_get(w, 0, 0)) && isnan(t_get(w, 0, 2))); /* as PyTorch: nan */
    CHECK_CLOSE(t_get(w, 1, 0), 1.0, 0.0);
}

static void test_softmax_other_dim(void) {
    Tensor *x = FX("softmax_x");
    Tensor *w = t_softmax(x, 0); /* columns sum to 1 */
    for (int j = 0; j < 5; j++) {
        double s = 0;
        for (int i = 0; i < 3; i++) s += t_get(w, i, j);
        CHECK_CLOSE(s, 1.0, 1e-6);
    }
    CHECK_TENSOR_CLOSE(t_transpose(t_softmax(t_transpose(x, 0, 1), -1), 0, 1), w, RTOL, ATOL);
    CHECK_ERROR(t_softmax(x, 2), "softmax: dim 2 is out of range for a 2-dim tensor");
}

static void test_triu_tril_match_torch(void) {
    Tensor *x = FX("triu_x");
    CHECK_TENSOR_CLOSE(t_triu(x, 1), FX("triu_d1"), 0, 0);
    CHECK_TENSOR_CLOSE(t_triu(x, 0), FX("triu_d0"), 0, 0);
    CHECK_TENSOR_CLOSE(t_triu(x, -1), FX("triu_dm1"), 0, 0);
    CHECK_TENSOR_CLOSE(t_tril(x, 0), FX("tril_d0"), 0, 0);
    CHECK_TENSOR_CLOSE(t_tril(x, 1), FX("tril_d1"), 0, 0);
    CHECK_TENSOR_CLOSE(t_tril(x, -1), FX("tril_dm1"), 0, 0);
    Tensor *r = FX("triu_rect_x");
    CHECK_TENSOR_CLOSE(t_triu(r, 1), FX("triu_rect_d1"), 0, 0);
    CHECK_TENSOR_CLOSE(t_tril(r, 0), FX("tril_rect_d0"), 0, 0);
    CHECK_ERROR(t_triu(t_zeros(SHAPE(4)), 1), "triu: input (4,) needs at least 2 dims");
}

static void test_causal_mask_full_triu(void) {
    /* torch.triu(torch.full((1,1,6,6), float('-inf')), diagonal=1): 0 on and below, -inf above */
    Tensor *m = t_triu(t_full(SHAPE(1, 1, 6, 6), -INFINITY), 1);
    CHECK_TENSOR_CLOSE(m, FX("causal_mask_6"), 0, 0);
}

static void test_masked_fill_matches_torch(void) {
    Tensor *out = t_masked_fill(FX("masked_fill_x"), FX("masked_fill_mask"), -INFINITY);
    CHECK_TENSOR_CLOSE(out, FX("masked_fill_out"), 0, 0);
    CHECK_ERROR(t_masked_fill(t_zeros(SHAPE(4, 4)), t_zeros(SHAPE(3, 4, 4)), 0.0f),
                "masked_fill: mask (3, 4, 4) must broadcast to the input (4, 4)");
}

static void test_reductions_match_torch(void) {
    Tensor *x = FX("reduce_x");
    CHECK_TENSOR_CLOSE(t_sum_last(x), FX("sum_last"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(t_max_last(x), FX("max_last"), 0, 0);
    CHECK_CLOSE(t_var_all(FX("var_x")), t_flat_get(FX("var_out"), 0), 1e-5);
    CHECK_ERROR(t_max_last(t_zeros(SHAPE(2, 0))), "cannot take the max of an empty last dim");
}

static void test_allclose_and_max_abs_diff(void) {
    float a[] = {1.0f, 2.0f, -INFINITY}, b[] = {1.0f, 2.00001f, -INFINITY}, c[] = {1.0f, NAN, 0.0f};
    Tensor *ta = t_from_array(SHAPE(3), a), *tb = t_from_array(SHAPE(3), b), *tc = t_from_array(SHAPE(3), c);
    CHECK(t_allclose(ta, tb, 1e-4, 0));
    CHECK(!t_allclose(ta, tb, 1e-7, 0));
    CHECK_CLOSE(t_max_abs_diff(ta, tb), 1.0e-5, 1e-6);
    CHECK(!t_allclose(ta, tc, 1, 1));
    CHECK(isnan(t_max_abs_diff(ta, tc)));
    CHECK_ERROR(t_allclose(ta, t_zeros(SHAPE(2)), 0, 0), "allclose: shapes (3,) and (2,) differ");
}

/* ---- nn.Linear ----------------------------------------------------------- */

static void test_linear_matches_torch(void) {
    Tensor *x = FX("linear_x"), *w = FX("linear_w"), *b = FX("linear_b");
    CHECK_TENSOR_CLOSE(nn_linear_forward(nn_linear_from("lin", w, b), x), FX("linear_out"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(nn_linear_forward(nn_linear_from("lin", w, NULL), x), FX("linear_out_nobias"), RTOL, ATOL);
}

static void test_linear_errors(void) {
    Tensor *w = t_zeros(SHAPE(5, 4));
    CHECK_ERROR(nn_linear_from("wq", w, t_zeros(SHAPE(4))), "wq: bias (4,) must have shape (5,) to match weight (5, 4)");
    CHECK_ERROR(nn_linear_from("wk", t_zeros(SHAPE(5)), NULL), "wk: weight (5,) must be 2-D");
    Linear *l = nn_linear_from("wv", w, NULL);
    CHECK_ERROR(nn_linear_forward(l, t_zeros(SHAPE(2, 3))), "input (2, 3) does not end in in_features = 4");
}

static void test_linear_default_init(void) {
    t_manual_seed(7);
    Linear *l = nn_linear(16, 32, true);
    double bound = 1.0 / sqrt(16.0), lo = 1, hi = -1;
    for (int64_t i = 0; i < t_numel(l->weight); i++) {
        double v = t_flat_get(l->weight, i);
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    CHECK(lo >= -bound && hi < bound);
    CHECK(lo < -0.9 * bound && hi > 0.9 * bound); /* really spread over the range */
    CHECK_EQ_INT(nn_linear_num_params(l), 16 * 32 + 32);
    CHECK_EQ_INT(nn_linear_num_params(nn_linear(768, 768, false)), 768 * 768);
}

/* ---- rng ----------------------------------------------------------------- */

static void test_manual_seed_repeats(void) {
    t_manual_seed(123);
    Tensor *a = t_randn(SHAPE(50));
    t_manual_seed(123);
    Tensor *b = t_randn(SHAPE(50));
    CHECK_TENSOR_CLOSE(a, b, 0, 0);
    t_manual_seed(124);
    Tensor *c = t_randn(SHAPE(50));
    CHECK(t_max_abs_diff(a, c) > 0.1);
}

static void test_randn_moments(void) {
    t_manual_seed(1);
    Tensor *x = t_randn(SHAPE(100000));
    /* mean has std 1/sqrt(n) = 0.0032; var has std ~ sqrt(2/n) = 0.0045 */
    CHECK_CLOSE(t_mean_all(x), 0.0, 0.02);
    CHECK_CLOSE(t_var_all(x), 1.0, 0.03);
    Tensor *u = t_rand(SHAPE(100000));
    CHECK_CLOSE(t_mean_all(u), 0.5, 0.01);
    CHECK_CLOSE(t_var_all(u), 1.0 / 12.0, 0.005);
}

/* ---- print --------------------------------------------------------------- */

static char *print_to_string(const Tensor *x) {
    static char buf[8192];
    FILE *f = tmpfile();
    if (!f) return NULL;
    t_fprint(f, x);
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_print_like_pytorch(void) {
    float v[] = {0.1385f, -0.2379f, -INFINITY, 0.124f, 0.1082f, 0.1581f};
    char *s = print_to_string(t_from_array(SHAPE(2, 3), v));
    CHECK_STR_CONTAINS(s, "tensor([[ 0.1385, -0.2379,    -inf],\n        [ 0.1240,  0.1082,  0.1581]])");
    CHECK_STR_CONTAINS(s, "shape (2, 3)");
    float ints[] = {1, 2, 3};
    CHECK_STR_CONTAINS(print_to_string(t_from_array(SHAPE(3), ints)), "tensor([1., 2., 3.])");
}

static void test_print_elides_large(void) {
    char *s = print_to_string(t_zeros(SHAPE(40, 40)));
    CHECK_STR_CONTAINS(s, "...");
    CHECK_STR_CONTAINS(s, "middle elided");
    CHECK(strlen(s) < 2000);
}

/* A refusal's sizes read as the comparison they state (need > limit). */
static void test_format_bytes_over(void) {
    char a[32], b[32];
    const double GiB = 1024.0 * 1024.0 * 1024.0;
    t_format_bytes_over(1.02 * GiB, 1.0 * GiB, a, b, sizeof a);       /* 1.0 and 1.0 at one digit */
    CHECK_MSG(strcmp(a, "1.02 GiB") == 0, "t_format_bytes_over: a is '%s', not '%s'", a, "1.02 GiB");
    CHECK_MSG(strcmp(b, "1.00 GiB") == 0, "t_format_bytes_over: b is '%s', not '%s'", b, "1.00 GiB");
    t_format_bytes_over(3.27 * GiB, 3.25 * GiB, a, b, sizeof a);      /* 3.3 and 3.2: apart already */
    CHECK_MSG(strcmp(a, "3.3 GiB") == 0, "t_format_bytes_over: a is '%s', not '%s'", a, "3.3 GiB");
    CHECK_MSG(strcmp(b, "3.2 GiB") == 0, "t_format_bytes_over: b is '%s', not '%s'", b, "3.2 GiB");
    t_format_bytes_over(96045465.6, 1000000, a, b, sizeof a);         /* units apart: each its own */
    CHECK_MSG(strcmp(a, "91.6 MiB") == 0, "t_format_bytes_over: a is '%s', not '%s'", a, "91.6 MiB");
    CHECK_MSG(strcmp(b, "976.6 KiB") == 0, "t_format_bytes_over: b is '%s', not '%s'", b, "976.6 KiB");
    t_format_bytes_over(1.0 * GiB, GiB - 1024.0, a, b, sizeof a);     /* 1.0 GiB and 1024.0 MiB */
    CHECK_MSG(strcmp(a, "1.000000 GiB") == 0, "t_format_bytes_over: a is '%s', not '%s'", a, "1.000000 GiB");
    CHECK_MSG(strcmp(b, "0.999999 GiB") == 0, "t_format_bytes_over: b is '%s', not '%s'", b, "0.999999 GiB");
    t_format_bytes_over(GiB + 1, GiB, a, b, sizeof a);                /* one byte apart */
    CHECK_MSG(strcmp(a, "1073741825 bytes") == 0, "t_format_bytes_over: a is '%s', not '%s'", a, "1073741825 bytes");
    CHECK_MSG(strcmp(b, "1073741824 bytes") == 0, "t_format_bytes_over: b is '%s', not '%s'", b, "1073741824 bytes");
    t_format_bytes_over(1200, 1000, a, b, sizeof a);
    CHECK_MSG(strcmp(a, "1.2 KiB") == 0, "t_format_bytes_over: a is '%s', not '%s'", a, "1.2 KiB");
    CHECK_MSG(strcmp(b, "1000 bytes") == 0, "t_format_bytes_over: b is '%s', not '%s'", b, "1000 bytes");
}

int main(void) {
    RUN(test_format_bytes_over);
    RUN(test_zeros_shape_strides);
    RUN(test_full_neg_inf_and_eye);
    RUN(test_from_array_get_set);
    RUN(test_get_errors);
    RUN(test_view_is_zero_copy);
    RUN(test_view_errors);
    RUN(test_transpose_strides_and_contiguous);
    RUN(test_permute_matches_torch);
    RUN(test_transpose_bad_dim);
    RUN(test_reshape_copies_when_needed);
    RUN(test_slice_like_mask_slicing);
    RUN(test_select_unsqueeze_expand);
    RUN(test_copy_into_view);
    RUN(test_too_big_is_a_sentence);
    RUN(test_scopes_free_and_nest);
    RUN(test_alloc_is_64_byte_aligned_and_zeroed);
    RUN(test_scope_end_keep_reuses_zeroed_blocks);
    RUN(test_shape_str);
    RUN(test_matmul_2d);
    RUN(test_matmul_broadcast);
    RUN(test_matmul_batched);
    RUN(test_matmul_with_transposed_key);
    RUN(test_matmul_errors);
    RUN(test_matmul_identity);
    RUN(test_add_mul_broadcast);
    RUN(test_scalar_ops);
    RUN(test_softmax_matches_torch);
    RUN(test_softmax_large_values_stable);
    RUN(test_softmax_neg_inf_entries);
    RUN(test_softmax_all_neg_inf_row_is_nan);
    RUN(test_softmax_other_dim);
    RUN(test_triu_tril_match_torch);
    RUN(test_causal_mask_full_triu);
    RUN(test_masked_fill_matches_torch);
    RUN(test_reductions_match_torch);
    RUN(test_allclose_and_max_abs_diff);
    RUN(test_linear_matches_torch);
    RUN(test_linear_errors);
    RUN(test_linear_default_init);
    RUN(test_manual_seed_repeats);
    RUN(test_randn_moments);
    RUN(test_print_like_pytorch);
    RUN(test_print_elides_large);
    return harness_finish("test_common");
}
