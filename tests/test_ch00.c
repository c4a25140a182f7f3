/* test_ch00.c — chapter 0: the layout facts of views, compared with what
 * PyTorch reports (tests/fixtures/ch00, written by scripts/golden/ch00.py).
 *
 * Every case is built from arange, so PyTorch's values of a view are the
 * storage positions of its elements: storage_offsets() must reproduce them,
 * and the strides, storage offset and is_contiguous() must match. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chapters/00_tensors/tensors.h"
#include "tests/harness.h"
#include "common/program/program.h"

#define FX(name) load_fixture("ch00/" name ".npy")

/* Compare one tensor with PyTorch's <name>_values, _strides and _facts. For a
 * view of the arange storage (is_view) the values are also the storage positions. */
static void check_layout(const char *file, int line, const char *name, const Tensor *t, bool is_view) {
    char rel[128];
    snprintf(rel, sizeof rel, "ch00/%s_strides.npy", name);
    Tensor *strides = load_fixture(rel);
    snprintf(rel, sizeof rel, "ch00/%s_facts.npy", name);
    Tensor *facts = load_fixture(rel);
    snprintf(rel, sizeof rel, "ch00/%s_values.npy", name);
    Tensor *values = load_fixture(rel);

    if (t->ndim != t_numel(strides)) {
        harness_fail(file, line, "%s: %d dims, PyTorch has %lld", name, t->ndim, (long long)t_numel(strides));
        return;
    }
    for (int i = 0; i < t->ndim; i++)
        if (t->strides[i] != (int64_t)t_flat_get(strides, i))
            harness_fail(file, line, "%s: stride(%d) is %lld, PyTorch says %lld", name, i,
                         (long long)t->strides[i], (long long)t_flat_get(strides, i));
    if (t->offset != (int64_t)t_flat_get(facts, 0))
        harness_fail(file, line, "%s: storage_offset is %lld, PyTorch says %lld", name, (long long)t->offset,
                     (long long)t_flat_get(facts, 0));
    bool contiguous = t_flat_get(facts, 1) != 0.0f;
    if (t_is_contiguous(t) != contiguous)
        harness_fail(file, line, "%s: is_contiguous disagrees with PyTorch", name);
    if ((stride_mismatch_dim(t) < 0) != contiguous)
        harness_fail(file, line, "%s: stride_mismatch_dim is %d, but PyTorch's is_contiguous() is %s", name,
                     stride_mismatch_dim(t), contiguous ? "True" : "False");
    /* values of an arange view == storage positions */
    if (is_view) harness_check_tensor_close(file, line, name, storage_offsets(t), values, 0.0, 0.0);
    harness_check_tensor_close(file, line, name, t_contiguous(t), values, 0.0, 0.0);
}
#define CHECK_LAYOUT(name, t) check_layout(__FILE__, __LINE__, name, t, true)

static Tensor *a6(void) { return t_view(t_arange(6), SHAPE(2, 3)); }
static Tensor *a24(void) { return t_view(t_arange(24), SHAPE(2, 3, 4)); }
/* Happy-LLM's split: view(b, t, n_heads, head_dim).transpose(1, 2) */
static Tensor *split(void) { return t_transpose(t_view(a24(), SHAPE(2, 3, 2, 2)), 1, 2); }

/* ---- contiguous_strides ------------------------------------------------- */

static void test_contiguous_strides(void) {
    Shape s = contiguous_strides(SHAPE(2, 3, 4));
    CHECK_EQ_INT(s.ndim, 3);
    CHECK_EQ_INT(s.dims[0], 12);
    CHECK_EQ_INT(s.dims[1], 4);
    CHECK_EQ_INT(s.dims[2], 1);
    s = contiguous_strides(SHAPE(5));
    CHECK_EQ_INT(s.dims[0], 1);
    s = contiguous_strides(shape_of(0, NULL)); /* a 0-dim tensor has no strides */
    CHECK_EQ_INT(s.ndim, 0);
    /* what a fresh tensor gets, and what PyTorch reports for a fresh one */
    Tensor *x = t_zeros(SHAPE(2, 3, 2, 2));
    s = contiguous_strides(t_shape(x));
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(s.dims[i], x->strides[i]);
    Tensor *rows = FX("rows_strides");
    s = contiguous_strides(SHAPE(2, 3));
    CHECK_EQ_INT(s.dims[0], (int64_t)t_flat_get(rows, 0));
    CHECK_EQ_INT(s.dims[1], (int64_t)t_flat_get(rows, 1));
}

/* ---- the views of the chapter, against PyTorch ------------------------------- */

static void test_layouts_match_torch(void) {
    Tensor *x = a6();
    CHECK_LAYOUT("rows", x);
    CHECK_LAYOUT("view32", t_view(x, SHAPE(3, 2)));
    CHECK_LAYOUT("t01", t_transpose(x, 0, 1));
    Tensor *c = t_contiguous(t_transpose(x, 0, 1)); /* a copy: fresh storage 0..5 */
    check_layout(__FILE__, __LINE__, "t01c", c, false);
    CHECK_TENSOR_CLOSE(storage_offsets(c), t_view(t_arange(6), SHAPE(3, 2)), 0.0, 0.0);
    CHECK_LAYOUT("split", split());
    CHECK_LAYOUT("slice", t_slice(t_slice(a24(), 1, 1, 3), 2, 2, 4));
    CHECK_LAYOUT("select", t_select(a24(), 0, 1));
    CHECK_LAYOUT("permute", t_permute(a24(), SHAPE(2, 0, 1)));
    CHECK_LAYOUT("expand", t_expand(t_view(t_arange(3), SHAPE(1, 3)), SHAPE(4, 3)));
    CHECK_LAYOUT("unsqueeze", t_unsqueeze(t_transpose(x, 0, 1), 1));
}

static void test_view_and_transpose_share_storage(void) {
    Tensor *x = a6();
    Tensor *y = t_view(x, SHAPE(3, 2));
    Tensor *t = t_transpose(x, 0, 1);
    CHECK(t_shares_storage(x, y));
    CHECK(t_shares_storage(x, t));
    t_set(y, 100.0f, 0, 1); /* y[0][1] is x[0][1] */
    CHECK_CLOSE(t_get(x, 0, 1), 100.0, 0.0);
    CHECK_CLOSE(t_get(t, 1, 0), 100.0, 0.0);
    Tensor *c = t_contiguous(t); /* a copy */
    CHECK(!t_shares_storage(c, t));
    CHECK(t_contiguous(x) == x);  /* already contiguous: no copy */
}

/* ---- element_offset ------------------------------------------------------- */

static void test_element_offset(void) {
    Tensor *x = a6();
    CHECK_EQ_INT(element_offset(x, (int64_t[]){1, 2}), 5); /* 1*3 + 2*1 */
    CHECK_EQ_INT(element_offset(t_transpose(x, 0, 1), (int64_t[]){2, 1}), 5);
    CHECK_EQ_INT(element_offset(x, (int64_t[]){-1, -1}), 5); /* negative = from the end */
    /* the split heads: element [b][h][t][d] against PyTorch's value there */
    Tensor *s = split(), *values = FX("split_values");
    for (int64_t b = 0; b < 2; b++)
        for (int64_t h = 0; h < 2; h++)
            for (int64_t t = 0; t < 3; t++)
                for (int64_t d = 0; d < 2; d++)
                    CHECK_EQ_INT(element_offset(s, (int64_t[]){b, h, t, d}), (int64_t)t_get(values, b, h, t, d));
    /* a slice starts at its storage offset */
    Tensor *sl = t_slice(t_slice(a24(), 1, 1, 3), 2, 2, 4);
    CHECK_EQ_INT(element_offset(sl, (int64_t[]){0, 0, 0}), (int64_t)t_flat_get(FX("slice_facts"), 0));
    /* a 0-dim tensor: its one element is at the offset */
    CHECK_EQ_INT(element_offset(t_select(t_arange(4), 0, 3), NULL), 3);
}

static void test_element_offset_errors(void) {
    Tensor *x = a6();
    CHECK_ERROR(element_offset(x, (int64_t[]){2, 0}), "element_offset: index 2 is out of range for dim 0 of size 2 in (2, 3)");
    CHECK_ERROR(element_offset(x, (int64_t[]){0, -4}), "index -4 is out of range for dim 1 of size 3");
}

/* ---- storage_offsets and stride_mismatch_dim -------------------------------- */

static void test_storage_offsets_of_random_values(void) {
    /* storage_offsets depends on the layout, not on the values */
    Tensor *x = t_view(t_randn(SHAPE(24)), SHAPE(2, 3, 4));
    Tensor *s = t_transpose(t_view(x, SHAPE(2, 3, 2, 2)), 1, 2);
    CHECK_TENSOR_CLOSE(storage_offsets(s), FX("split_values"), 0.0, 0.0);
    Tensor *off = storage_offsets(x);
    CHECK(t_is_contiguous(off));
    CHECK_TENSOR_CLOSE(off, t_view(t_arange(24), SHAPE(2, 3, 4)), 0.0, 0.0);
    CHECK(!t_shares_storage(off, x));
}

static void test_stride_mismatch_dim(void) {
    Tensor *x = a6();
    CHECK_EQ_INT(stride_mismatch_dim(x), -1);
    CHECK_EQ_INT(stride_mismatch_dim(t_transpose(x, 0, 1)), 0);    /* (1, 3) vs (2, 1) */
    CHECK_EQ_INT(stride_mismatch_dim(split()), 1);                 /* (12, 2, 4, 1) vs (12, 6, 2, 1) */
    CHECK_EQ_INT(stride_mismatch_dim(t_slice(a24(), 2, 1, 3)), 0); /* rows of 2 inside rows of 4 */
    CHECK_EQ_INT(stride_mismatch_dim(t_expand(t_view(t_arange(3), SHAPE(1, 3)), SHAPE(4, 3))), 0); /* stride 0 */
    CHECK_EQ_INT(stride_mismatch_dim(t_slice(a24(), 0, 1, 2)), -1);  /* one batch: size-1 dim, offset 12 */
    CHECK_EQ_INT(stride_mismatch_dim(t_zeros(SHAPE(3, 0, 2))), -1);  /* empty */
}

/* ---- try_view: the view error, caught ------------------------------------------ */

static void test_try_view_catches_the_error(void) {
    char err[256];
    Tensor *t = t_transpose(a6(), 0, 1), *out = t; /* set, to see it cleared */
    CHECK(!try_view(t, SHAPE(6), &out, err, sizeof err));
    CHECK(out == NULL);
    CHECK_STR_CONTAINS(err, "view: input (3, 2) with strides (1, 3) is not contiguous; call contiguous() first");
    /* the fix: contiguous() first */
    CHECK(try_view(t_contiguous(t), SHAPE(6), &out, err, sizeof err));
    CHECK(out != NULL && out->ndim == 1 && out->shape[0] == 6);
    CHECK_EQ_INT(err[0], '\0');
    CHECK_CLOSE(t_get(out, 1), 3.0, 0.0); /* 0, 3, 1, 4, 2, 5 */
    /* a wrong element count is caught too */
    CHECK(!try_view(a6(), SHAPE(4), &out, err, sizeof err));
    CHECK_STR_CONTAINS(err, "view: shape (4,) is invalid for input (2, 3) of 6 elements");
    /* err and out may be NULL */
    CHECK(!try_view(t, SHAPE(6), NULL, NULL, 0));
    CHECK(try_view(a6(), SHAPE(3, -1), NULL, NULL, 0));
    /* afterwards errors go to the previous hook again */
    CHECK_ERROR(t_view(t, SHAPE(6)), "not contiguous");
    /* and try_view works inside an outer catch */
    CHECK_ERROR((try_view(t, SHAPE(6), NULL, NULL, 0), t_view(t, SHAPE(6))), "not contiguous");
}

static void test_merge_needs_contiguous(void) {
    /* output = matmul(p_attn, xv) is a fresh (b, h, t, hd) tensor: here split().contiguous() */
    Tensor *output = t_contiguous(split());
    Tensor *back = t_transpose(output, 1, 2); /* (b, t, h, hd) */
    CHECK(!t_is_contiguous(back));
    CHECK(!try_view(back, SHAPE(2, 3, -1), NULL, NULL, 0));
    CHECK_ERROR(t_view(back, SHAPE(2, 3, -1)), "is not contiguous");
    Tensor *merged = t_view(t_contiguous(back), SHAPE(2, 3, -1));
    CHECK_TENSOR_CLOSE(merged, FX("merge_values"), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(merged, a24(), 0.0, 0.0); /* split then merge is the identity */
    /* transposing the split *view* back is contiguous again: the chapter's remark */
    CHECK(t_is_contiguous(t_transpose(split(), 1, 2)));
}

/* ---- nn.Linear and the mask, as the chapter states them ------------------------- */

static void test_linear_is_x_wt_plus_b(void) {
    Tensor *x = load_fixture("common/linear_x.npy"); /* (2, 3, 4) */
    Tensor *w = load_fixture("common/linear_w.npy"); /* (5, 4) = (out_features, in_features) */
    Tensor *b = load_fixture("common/linear_b.npy"); /* (5,) */
    Tensor *want = load_fixture("common/linear_out.npy");
    Tensor *wt = t_transpose(w, 0, 1);
    CHECK(t_shares_storage(wt, w) && !t_is_contiguous(wt));
    CHECK_TENSOR_CLOSE(t_add(t_matmul(x, wt), b), want, 1e-5, 1e-6);
    CHECK_TENSOR_CLOSE(nn_linear_forward(nn_linear_from("wq", w, b), x), want, 1e-5, 1e-6);
}

static void test_full_triu_mask(void) {
    Tensor *mask = t_triu(t_full(SHAPE(1, 1, 6, 6), -INFINITY), 1);
    CHECK_TENSOR_CLOSE(mask, load_fixture("common/causal_mask_6.npy"), 0.0, 0.0);
    CHECK(t_is_contiguous(mask));
    CHECK_EQ_INT(mask->strides[0], 36);
    CHECK_EQ_INT(mask->strides[1], 36);
}

int main(void) {
    RUN(test_contiguous_strides);
    RUN(test_layouts_match_torch);
    RUN(test_view_and_transpose_share_storage);
    RUN(test_element_offset);
    RUN(test_element_offset_errors);
    RUN(test_storage_offsets_of_random_values);
    RUN(test_stride_mismatch_dim);
    RUN(test_try_view_catches_the_error);
    RUN(test_merge_needs_contiguous);
    RUN(test_linear_is_x_wt_plus_b);
    RUN(test_full_triu_mask);
    return harness_finish("test_ch00");
}
