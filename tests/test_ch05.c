/* test_ch05.c — chapter 5: split heads, batched per-head attention, merge.
 *
 * Compared with PyTorch (tests/fixtures/ch05, scripts/golden/ch05.py) and
 * with the chapter's own claims: one big projection then a split equals
 * per-head projections then a concatenation, and a wrapper of single-head
 * attentions equals the split version given the same weights.
 */
#include "harness.h"
#include "common/program/program.h"
#include "chapters/03_self_attention/self_attention_setup.h"

#include "chapters/05_multi_head/multi_head.h"

typedef struct {
    const char *name;   /* folder under tests/fixtures/ch05 */
    int64_t heads;
    bool causal;
} Case;

/* The cases of scripts/golden/ch05.py. */
static const Case cases[] = {
    {"b1_t4_din6_dout4_h2_causal", 2, true},
    {"b2_t5_din10_dout8_h2_causal", 2, true},
    {"b1_t1_din3_dout4_h4_causal_bias", 4, true},
    {"b3_t3_din5_dout6_h3_full_bias", 3, false},
    {"b2_t6_din7_dout12_h4_full", 4, false},
    {"b1_t7_din8_dout3_h1_causal_bias", 1, true},
    {"b2_t4_din4_dout6_h2_full_bias", 2, false},
    {"b1_t3_din9_dout8_h4_causal", 4, true},
    {"b2_t2_din6_dout8_h4_full_bias", 4, false},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

static Tensor *fx(const Case *c, const char *file) {
    char rel[256];
    snprintf(rel, sizeof rel, "ch05/%s/%s", c->name, file);
    return load_fixture(rel);
}

static Tensor *fx_optional(const Case *c, const char *file) {
    char rel[256];
    snprintf(rel, sizeof rel, "ch05/%s/%s", c->name, file);
    return npy_exists(fixture_path(rel)) ? load_fixture(rel) : NULL;
}

/* The fixture's weights as a QKVProjection, built from common/ only (nn.Linear). */
static QKVProjection *fixture_qkv(const Case *c) {
    QKVProjection *p = (QKVProjection *)t_alloc(sizeof(QKVProjection));
    p->wq = nn_linear_from("wq", fx(c, "weights/wq.npy"), fx_optional(c, "weights/bq.npy"));
    p->wk = nn_linear_from("wk", fx(c, "weights/wk.npy"), fx_optional(c, "weights/bk.npy"));
    p->wv = nn_linear_from("wv", fx(c, "weights/wv.npy"), fx_optional(c, "weights/bv.npy"));
    p->d_in = p->wq->in_features;
    p->d_out = p->wq->out_features;
    return p;
}

/* xq, xk, xv = wq(x), wk(x), wv(x) with nn.Linear from common/. */
static void fixture_project(const Case *c, Tensor **x, Tensor **xq, Tensor **xk, Tensor **xv) {
    QKVProjection *p = fixture_qkv(c);
    *x = fx(c, "input.npy");
    *xq = nn_linear_forward(p->wq, *x);
    *xk = nn_linear_forward(p->wk, *x);
    *xv = nn_linear_forward(p->wv, *x);
}

static Tensor *mask_for(const Case *c, int64_t seqlen) {
    return c->causal ? causal_mask(seqlen, 1) : NULL;
}

#define RTOL 1e-5
#define ATOL 1e-6

/* ---- head_dim ------------------------------------------------------------ */

static void test_head_dim(void) {
    CHECK_EQ_INT(head_dim_of(8, 2), 4);
    CHECK_EQ_INT(head_dim_of(4, 4), 1);
    CHECK_EQ_INT(head_dim_of(6, 1), 6);
    CHECK_EQ_INT(head_dim_of(12, 4), 3);
    CHECK_EQ_INT(head_dim_of(512, 8), 64);
}

static void test_head_dim_errors(void) {
    CHECK_ERROR(head_dim_of(5, 2), "d_out 5 is not divisible by n_heads 2");
    CHECK_ERROR(head_dim_of(4, 3), "d_out 4 is not divisible by n_heads 3");
    CHECK_ERROR(head_dim_of(4, 0), "n_heads must be at least 1");
    CHECK_ERROR(head_dim_of(0, 2), "d_out must be at least 1");
}

/* ---- split ------------------------------------------------------------------ */

static void test_split_heads_layout(void) {
    /* x = arange(48).view(2, 3, 8); 2 heads of head_dim 4 */
    Tensor *x = t_view(t_arange(48), SHAPE(2, 3, 8));
    Tensor *s = split_heads(x, 2);
    char buf[T_SHAPE_STR];
    CHECK_STR_CONTAINS(t_shape_str(s, buf), "(2, 2, 3, 4)");
    /* view(2, 3, 2, 4) has strides (24, 8, 4, 1); transpose(1, 2) swaps two of them */
    CHECK_STR_CONTAINS(t_strides_str(s, buf), "(24, 4, 8, 1)");
    CHECK(!t_is_contiguous(s));
    CHECK(t_shares_storage(s, x));  /* a view: no data moved */
    for (int64_t b = 0; b < 2; b++)
        for (int64_t h = 0; h < 2; h++)
            for (int64_t t = 0; t < 3; t++)
                for (int64_t j = 0; j < 4; j++)
                    CHECK_CLOSE(t_get(s, b, h, t, j), t_get(x, b, t, h * 4 + j), 0.0);
}

static void test_split_heads_fixtures(void) {
    for (int i = 0; i < N_CASES; i++) {
        Tensor *x, *xq, *xk, *xv;
        fixture_project(&cases[i], &x, &xq, &xk, &xv);
        CHECK_TENSOR_CLOSE(split_heads(xq, cases[i].heads), fx(&cases[i], "xq.npy"), RTOL, ATOL);
        CHECK_TENSOR_CLOSE(split_heads(xk, cases[i].heads), fx(&cases[i], "xk.npy"), RTOL, ATOL);
        CHECK_TENSOR_CLOSE(split_heads(xv, cases[i].heads), fx(&cases[i], "xv.npy"), RTOL, ATOL);
    }
}

/* ---- merge ------------------------------------------------------------------ */

static void test_merge_heads(void) {
    Tensor *y = t_view(t_arange(2 * 3 * 5 * 2), SHAPE(2, 3, 5, 2));  /* (b, h, t, head_dim) */
    Tensor *m = merge_heads(y);
    char buf[T_SHAPE_STR];
    CHECK_STR_CONTAINS(t_shape_str(m, buf), "(2, 5, 6)");
    CHECK(t_is_contiguous(m));
    for (int64_t b = 0; b < 2; b++)
        for (int64_t t = 0; t < 5; t++)
            for (int64_t h = 0; h < 3; h++)
                for (int64_t j = 0; j < 2; j++)
                    CHECK_CLOSE(t_get(m, b, t, h * 2 + j), t_get(y, b, h, t, j), 0.0);
}

static void test_merge_undoes_split(void) {
    t_manual_seed(5);
    Tensor *x = t_randn(SHAPE(3, 4, 12));
    for (int64_t h = 1; h <= 12; h++) {
        if (12 % h) continue;
        Tensor *back = merge_heads(split_heads(x, h));
        CHECK(t_is_contiguous(back));
        CHECK_TENSOR_CLOSE(back, x, 0.0, 0.0);
    }
}

static void test_split_merge_errors(void) {
    Tensor *x2 = t_zeros(SHAPE(3, 4));
    Tensor *x5 = t_zeros(SHAPE(1, 3, 5));
    CHECK_ERROR(split_heads(x2, 2), "split_heads: x must be (bsz, seqlen, d_out), got (3, 4)");
    CHECK_ERROR(split_heads(x5, 2), "d_out 5 is not divisible by n_heads 2");
    CHECK_ERROR(merge_heads(x5), "merge_heads: x must be (bsz, n_heads, seqlen, head_dim), got (1, 3, 5)");
    /* view refuses a non-contiguous input, as PyTorch does */
    Tensor *xt = t_transpose(t_zeros(SHAPE(1, 4, 6)), 1, 2);
    CHECK_ERROR(split_heads(xt, 2), "view");
}

/* ---- batched per-head attention against PyTorch --------------------------- */

static void test_multi_head_attention_fixtures(void) {
    for (int i = 0; i < N_CASES; i++) {
        const Case *c = &cases[i];
        Tensor *x, *xq, *xk, *xv;
        fixture_project(c, &x, &xq, &xk, &xv);
        Attention a = multi_head_attention(xq, xk, xv, c->heads, mask_for(c, t_size(x, 1)));
        CHECK_TENSOR_CLOSE(a.scores, fx(c, "scores.npy"), RTOL, ATOL);
        CHECK_TENSOR_CLOSE(a.weights, fx(c, "attn_weights.npy"), RTOL, ATOL);
        CHECK_TENSOR_CLOSE(a.output, fx(c, "output.npy"), RTOL, ATOL);
    }
}

/* A mask buffer made for a longer max_seq_len is sliced to T (self.mask[:, :, :seqlen, :seqlen]). */
static void test_longer_mask_buffer(void) {
    const Case *c = &cases[1];  /* causal, T = 5 */
    Tensor *x, *xq, *xk, *xv;
    fixture_project(c, &x, &xq, &xk, &xv);
    Attention a = multi_head_attention(xq, xk, xv, c->heads, causal_mask(16, 1));
    CHECK_TENSOR_CLOSE(a.output, fx(c, "output.npy"), RTOL, ATOL);
}

/* ---- Happy-LLM's claims ------------------------------------------------------ */

/* 矩阵内积再拼接 = 拼接矩阵再内积: head h of split_heads(x @ Wqᵀ) is x @ Wq[h rows]ᵀ. */
static void test_one_projection_equals_per_head(void) {
    for (int i = 0; i < N_CASES; i++) {
        const Case *c = &cases[i];
        QKVProjection *p = fixture_qkv(c);
        Tensor *x = fx(c, "input.npy");
        Tensor *big = split_heads(nn_linear_forward(p->wq, x), c->heads);  /* (b, h, t, hd) */
        int64_t hd = p->d_out / c->heads;
        for (int64_t h = 0; h < c->heads; h++) {
            Tensor *w_h = t_slice(p->wq->weight, 0, h * hd, (h + 1) * hd);  /* (hd, d_in) */
            Tensor *small = t_matmul(x, t_transpose(w_h, 0, 1));             /* (b, t, hd)  */
            if (p->wq->bias) small = t_add(small, t_slice(p->wq->bias, 0, h * hd, (h + 1) * hd));
            CHECK_TENSOR_CLOSE(t_select(big, 1, h), small, RTOL, ATOL);
        }
    }
}

/* Raschka's MultiHeadAttentionWrapper == the split version, on the fixtures and at random. */
static void test_wrapper_equals_split(void) {
    for (int i = 0; i < N_CASES; i++) {
        const Case *c = &cases[i];
        QKVProjection *p = fixture_qkv(c);
        Tensor *x = fx(c, "input.npy");
        Tensor *wrapped = multi_head_wrapper(p, x, c->heads, mask_for(c, t_size(x, 1)));
        CHECK_TENSOR_CLOSE(wrapped, fx(c, "output.npy"), RTOL, ATOL);
    }
    t_manual_seed(55);
    QKVProjection *p = qkv_new(7, 12, true);
    Tensor *x = t_randn(SHAPE(2, 5, 7));
    for (int64_t h = 1; h <= 12; h++) {
        if (12 % h) continue;
        Tensor *xq, *xk, *xv;
        qkv_project(p, x, &xq, &xk, &xv);
        for (int causal = 0; causal <= 1; causal++) {
            Tensor *mask = causal ? causal_mask(5, 1) : NULL;
            Attention a = multi_head_attention(xq, xk, xv, h, mask);
            CHECK_TENSOR_CLOSE(multi_head_wrapper(p, x, h, mask), a.output, RTOL, ATOL);
        }
    }
}

/* Heads are independent (why model_parallel_size can spread them over workers):
 * changing head 0's rows of wq changes head 0's columns of the output only. */
static void test_heads_independent(void) {
    const Case *c = &cases[4];  /* 4 heads, head_dim 3 */
    Tensor *x, *xq, *xk, *xv;
    fixture_project(c, &x, &xq, &xk, &xv);
    Attention before = multi_head_attention(xq, xk, xv, c->heads, NULL);
    QKVProjection *p = fixture_qkv(c);
    Tensor *w = t_clone(p->wq->weight);
    for (int64_t r = 0; r < 3; r++)
        for (int64_t col = 0; col < p->d_in; col++) t_set(w, t_get(w, r, col) * 3.0f + 0.5f, r, col);
    Tensor *xq2 = nn_linear_forward(nn_linear_from("wq", w, NULL), x);
    Attention after = multi_head_attention(xq2, xk, xv, c->heads, NULL);
    CHECK_TENSOR_CLOSE(t_slice(after.output, 2, 3, 12), t_slice(before.output, 2, 3, 12), 0.0, 0.0);
    CHECK(t_max_abs_diff(t_slice(after.output, 2, 0, 3), t_slice(before.output, 2, 0, 3)) > 1e-3);
}

/* One head is chapter 4's attention on the whole d_out. */
static void test_one_head_is_chapter4(void) {
    const Case *c = &cases[5];  /* 1 head, causal */
    Tensor *x, *xq, *xk, *xv;
    fixture_project(c, &x, &xq, &xk, &xv);
    Tensor *mask = causal_mask(t_size(x, 1), 1);
    Attention one = masked_attention(xq, xk, xv, mask);
    Attention mh = multi_head_attention(xq, xk, xv, 1, mask);
    CHECK_TENSOR_CLOSE(mh.output, one.output, RTOL, ATOL);
}

/* Queries and keys of different lengths (no mask): each head is its own attention. */
static void test_per_head_cross_attention(void) {
    t_manual_seed(9);
    Tensor *xq = t_randn(SHAPE(2, 3, 6));
    Tensor *xk = t_randn(SHAPE(2, 5, 6));
    Tensor *xv = t_randn(SHAPE(2, 5, 6));
    Attention a = multi_head_attention(xq, xk, xv, 3, NULL);
    char buf[T_SHAPE_STR];
    CHECK_STR_CONTAINS(t_shape_str(a.weights, buf), "(2, 3, 3, 5)");
    for (int64_t h = 0; h < 3; h++) {
        Attention one = attention(t_slice(xq, 2, 2 * h, 2 * h + 2), t_slice(xk, 2, 2 * h, 2 * h + 2),
                                  t_slice(xv, 2, 2 * h, 2 * h + 2));
        CHECK_TENSOR_CLOSE(t_slice(a.output, 2, 2 * h, 2 * h + 2), one.output, RTOL, ATOL);
        CHECK_TENSOR_CLOSE(t_select(a.weights, 1, h), one.weights, RTOL, ATOL);
    }
}

/* The whole chapter pipeline with chapter 3's loader: folder -> output. */
static void test_pipeline_with_qkv_load(void) {
    for (int i = 0; i < N_CASES; i++) {
        const Case *c = &cases[i];
        char dir[256];
        snprintf(dir, sizeof dir, "%s", fixture_path("ch05/"));
        snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "%s/weights", c->name);
        Tensor *x = fx(c, "input.npy");
        QKVProjection *p = qkv_load(dir, t_size(x, -1));
        Tensor *xq, *xk, *xv;
        qkv_project(p, x, &xq, &xk, &xv);
        Attention a = multi_head_attention(xq, xk, xv, c->heads, mask_for(c, t_size(x, 1)));
        CHECK_TENSOR_CLOSE(a.output, fx(c, "output.npy"), RTOL, ATOL);
    }
}

/* ---- errors ---------------------------------------------------------------- */

static void test_mha_errors(void) {
    Tensor *q = t_zeros(SHAPE(1, 4, 4));
    Tensor *k6 = t_zeros(SHAPE(1, 4, 6));
    Tensor *k5 = t_zeros(SHAPE(1, 5, 4));
    Tensor *v4 = t_zeros(SHAPE(1, 4, 4));
    Tensor *q2 = t_zeros(SHAPE(4, 4));
    CHECK_ERROR(multi_head_attention(q, k6, v4, 2, NULL), "must share bsz and d_out");
    CHECK_ERROR(multi_head_attention(q, k5, v4, 2, NULL), "must share bsz and d_out");
    CHECK_ERROR(multi_head_attention(q2, q2, q2, 2, NULL), "must each be (bsz, seqlen, d_out)");
    CHECK_ERROR(multi_head_attention(q, q, q, 3, NULL), "d_out 4 is not divisible by n_heads 3");
    /* a causal mask needs T == S (chapter 4 says so) */
    CHECK_ERROR(multi_head_attention(q, k5, k5, 2, causal_mask(8, 1)), "T == S");
    /* the mask buffer is shorter than the sequence */
    CHECK_ERROR(multi_head_attention(q, q, q, 2, causal_mask(3, 1)), "longer than max_seq_len");
}

static void test_wrapper_errors(void) {
    t_manual_seed(1);
    QKVProjection *p = qkv_new(6, 4, false);
    Tensor *x = t_zeros(SHAPE(1, 3, 6));
    CHECK_ERROR(multi_head_wrapper(p, x, 3, NULL), "d_out 4 is not divisible by n_heads 3");
    CHECK_ERROR(multi_head_wrapper(p, t_zeros(SHAPE(3, 6)), 2, NULL), "multi_head_wrapper: x must be");
}

static void test_scores_memory_limit(void) {
    size_t old = t_max_bytes();
    Tensor *q = t_zeros(SHAPE(1, 40, 4));  /* scores (1, 2, 40, 40): 12.5 KiB */
    t_set_max_bytes(8 * 1024);
    CHECK_ERROR(check_scores_fit(1, 2, 40, 40), "scores (1, 2, 40, 40) need 12.5 KiB");
    CHECK_ERROR(check_scores_fit(1, 2, 40, 40), "chapter 8");
    CHECK_ERROR(multi_head_attention(q, q, q, 2, NULL), "chapter 8");
    t_set_max_bytes(old);
    /* sizes whose product overflows 64 bits are still a sentence, not a wrap-around */
    CHECK_ERROR(check_scores_fit(1000000, 1000000, 1000000, 1000000), "ATTN_MAX_BYTES");
    check_scores_fit(1, 2, 40, 40);  /* fits under the normal limit: no error */
    CHECK(t_numel(multi_head_attention(q, q, q, 2, NULL).weights) == 2 * 40 * 40);
}

int main(void) {
    RUN(test_head_dim);
    RUN(test_head_dim_errors);
    RUN(test_split_heads_layout);
    RUN(test_split_heads_fixtures);
    RUN(test_merge_heads);
    RUN(test_merge_undoes_split);
    RUN(test_split_merge_errors);
    RUN(test_multi_head_attention_fixtures);
    RUN(test_longer_mask_buffer);
    RUN(test_one_projection_equals_per_head);
    RUN(test_wrapper_equals_split);
    RUN(test_heads_independent);
    RUN(test_one_head_is_chapter4);
    RUN(test_per_head_cross_attention);
    RUN(test_pipeline_with_qkv_load);
    RUN(test_mha_errors);
    RUN(test_wrapper_errors);
    RUN(test_scores_memory_limit);
    return harness_finish("test_ch05");
}
