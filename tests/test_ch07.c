/* test_ch07.c — chapter 7, the complete MultiHeadAttention, against PyTorch
 * (tests/fixtures/ch07, written by scripts/golden/ch07.py): Happy-LLM's class
 * (causal, and cross-attention with S != T), the 手撕 MHA class of the README,
 * torch.nn.MultiheadAttention itself, and a sweep of random configurations
 * (B, T = 1, d_in != d_out, 1-8 heads, every bias mode, causal on and off).
 * Then the properties PyTorch cannot check for us (its dropout draws differ
 * from ours): eval == dropout 0, training repeats with the same seed, where
 * the two dropouts act; the parameter counts; and every error sentence. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "common/program/program.h"
#include "chapters/07_output_projection/mha_setup.h"

#define RTOL 1e-5
#define ATOL 1e-6
#define TMP_DIR "build/tmp_ch07_test"

/* ---- fixture groups --------------------------------------------------------- */

/* A fixture group G: inputs, weights folder, config [n_heads, causal, max_seq_len]. */
typedef struct {
    const Tensor *q, *k, *v;   /* k == v == q for self-attention (x.npy) */
    int64_t n_heads, max_seq_len;
    bool causal;
    char weights[256];         /* the folder for mha_load */
} Group;

static Tensor *fx(const char *group, const char *name) {
    char rel[256];
    snprintf(rel, sizeof rel, "ch07/%s/%s.npy", group, name);
    return load_fixture(rel);
}

static bool fx_exists(const char *group, const char *name) {
    char rel[256];
    snprintf(rel, sizeof rel, "ch07/%s/%s.npy", group, name);
    return npy_exists(fixture_path(rel));
}

static Group load_group(const char *group) {
    Group g;
    Tensor *config = fx(group, "config");
    g.n_heads = (int64_t)t_get(config, 0);
    g.causal = t_get(config, 1) != 0.0f;
    g.max_seq_len = (int64_t)t_get(config, 2);
    if (fx_exists(group, "x")) {
        g.q = g.k = g.v = fx(group, "x");   /* self-attention: forward(x, x, x) */
    } else {
        g.q = fx(group, "q");
        g.k = fx(group, "k");
        g.v = fx(group, "v");
    }
    char rel[200];
    snprintf(rel, sizeof rel, "ch07/%s/weights", group);
    snprintf(g.weights, sizeof g.weights, "%s", fixture_path(rel));
    return g;
}

/* The module of a group, loaded from its weights folder, in eval mode (as the fixtures). */
static MultiHeadAttention *load_model(const Group *g, double dropout) {
    ModelArgs a = {0};
    a.d_in = t_size(g->q, -1);
    a.n_heads = g->n_heads;
    a.max_seq_len = g->max_seq_len;
    a.dropout = dropout;
    a.causal = g->causal;
    MultiHeadAttention *m = mha_load(a, g->weights);
    mha_eval(m);
    return m;
}

/* mha_forward filled every field of the trace (a failed check otherwise). */
static bool trace_filled(const MhaTrace *tr) {
    bool ok = tr->xq && tr->xk && tr->xv && tr->scores && tr->attn_weights && tr->attn_dropped && tr->merged &&
              tr->projected && tr->attn_mask;
    CHECK_MSG(ok, "mha_forward left a field of the trace empty");
    return ok;
}

/* forward in eval mode must give PyTorch's output and per-head weights. */
static void check_group(const char *group) {
    Group g = load_group(group);
    MultiHeadAttention *m = load_model(&g, 0.1);
    MhaTrace tr = {0};
    Tensor *out = mha_forward(m, g.q, g.k, g.v, &tr);
    harness_check_tensor_close(__FILE__, __LINE__, group, out, fx(group, "out"), RTOL, ATOL);
    if (!trace_filled(&tr)) return;
    harness_check_tensor_close(__FILE__, __LINE__, group, tr.attn_weights, fx(group, "attn_weights"), RTOL, ATOL);
    /* the trace: split heads (B, H, T, hd), scores (B, H, T, S), merged and projected (B, T, d_out) */
    int64_t B = t_size(g.q, 0), T = t_size(g.q, 1), S = t_size(g.k, 1), H = g.n_heads;
    int64_t d_out = m->args.d_out, hd = m->head_dim;
    CHECK_EQ_INT(hd * H, d_out);
    CHECK(t_same_shape(tr.xq, t_zeros(SHAPE(B, H, T, hd))));
    CHECK(t_same_shape(tr.xk, t_zeros(SHAPE(B, H, S, hd))));
    CHECK(t_same_shape(tr.xv, t_zeros(SHAPE(B, H, S, hd))));
    CHECK(t_same_shape(tr.scores, t_zeros(SHAPE(B, H, T, S))));
    CHECK(t_same_shape(tr.merged, t_zeros(SHAPE(B, T, d_out))));
    /* eval: attn_dropout and resid_dropout are the identity, their masks all ones */
    CHECK_TENSOR_CLOSE(tr.attn_dropped, tr.attn_weights, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(out, tr.projected, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(tr.attn_mask, t_ones(SHAPE(B, H, T, S)), 0.0, 0.0);
    if (m->args.resid_dropout) CHECK_TENSOR_CLOSE(tr.resid_mask, t_ones(SHAPE(B, T, d_out)), 0.0, 0.0);
    else CHECK(tr.resid_mask == NULL);
}

/* ---- (a) Happy-LLM's class ------------------------------------------------- */

static void test_happy_llm_causal_matches_pytorch(void) {
    Group g = load_group("happy");
    /* ModelArgs(dim=12, n_heads=3, max_seq_len=8), is_causal=True: no biases anywhere */
    MultiHeadAttention *m = mha_load(happy_llm_args(12, 3, 8, 0.1, true), g.weights);
    CHECK(!m->args.qkv_bias);
    CHECK(!m->args.out_bias);
    CHECK(m->wo->bias == NULL);
    CHECK_EQ_INT(m->head_dim, 4);
    CHECK(t_same_shape(m->mask, t_zeros(SHAPE(1, 1, 8, 8))));  /* max_seq_len 8, sliced to seqlen 6 */
    mha_eval(m);
    MhaTrace tr = {0};
    Tensor *out = mha_forward(m, g.q, g.q, g.q, &tr);
    CHECK_TENSOR_CLOSE(out, fx("happy", "out"), RTOL, ATOL);
    if (!trace_filled(&tr)) return;
    CHECK_TENSOR_CLOSE(tr.attn_weights, fx("happy", "attn_weights"), RTOL, ATOL);
    check_group("happy");
}

static void test_happy_llm_cross_attention_matches_pytorch(void) {
    /* forward(q, k, v) with three different inputs, S = 7 != T = 4, not causal */
    Group g = load_group("happy_cross");
    CHECK(!g.causal);
    CHECK(t_size(g.k, 1) != t_size(g.q, 1));
    check_group("happy_cross");
}

/* ---- (b) the 手撕 MHA class of the README -------------------------------------------- */

static void test_seed_class_matches_pytorch_in_eval(void) {
    Group g = load_group("seed");
    /* MultiHeadAttention(d_in=10, d_out=8, seq_len=5, dropout=0.1, num_heads=2) */
    MultiHeadAttention *m = mha_load(handwritten_mha_args(10, 8, 5, 0.1, 2), g.weights);
    CHECK(!m->args.qkv_bias);   /* qkv_bias=False        */
    CHECK(m->args.out_bias);    /* out_proj has its bias */
    CHECK(m->args.causal);
    CHECK_EQ_INT(m->args.d_in, 10);
    CHECK_EQ_INT(m->args.d_out, 8);
    mha_eval(m);                /* model.eval() */
    MhaTrace tr = {0};
    Tensor *out = mha_forward(m, g.q, g.q, g.q, &tr);
    CHECK_TENSOR_CLOSE(out, fx("seed", "out"), RTOL, ATOL);
    if (!trace_filled(&tr)) return;
    CHECK_TENSOR_CLOSE(tr.attn_weights, fx("seed", "attn_weights"), RTOL, ATOL);
    /* the same weights without the mask */
    ModelArgs a = handwritten_mha_args(10, 8, 5, 0.1, 2);
    a.causal = false;
    MultiHeadAttention *full = mha_load(a, g.weights);
    mha_eval(full);
    CHECK(full->mask == NULL);
    CHECK_TENSOR_CLOSE(mha_forward(full, g.q, g.q, g.q, NULL), fx("seed", "out_no_causal"), RTOL, ATOL);
}

/* ---- (c) torch.nn.MultiheadAttention -------------------------------------------- */

static void test_torch_nn_multihead_attention(void) {
    check_group("torch_mha");         /* causal self-attention, all biases */
    check_group("torch_mha_cross");   /* cross-attention S = 6 != T = 3    */
    check_group("torch_mha_nobias");  /* bias=False                        */
    check_group("torch_mha_t1");      /* T = 1, head_dim = 1               */
    Group g = load_group("torch_mha");
    MultiHeadAttention *m = load_model(&g, 0.0);
    CHECK(m->args.qkv_bias && m->args.out_bias);
    g = load_group("torch_mha_nobias");
    m = load_model(&g, 0.0);
    CHECK(!m->args.qkv_bias && !m->args.out_bias);
}

/* ---- random configurations ------------------------------------------------------ */

static void test_random_sweep_matches_pytorch(void) {
    int n = (int)t_get(load_fixture("ch07/sweep_count.npy"), 0);
    CHECK(n >= 12);
    int causal = 0, cross = 0, t1 = 0, wide = 0, modes[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        char group[32];
        snprintf(group, sizeof group, "rand_%02d", i);
        t_scope_begin();
        check_group(group);
        Group g = load_group(group);
        MultiHeadAttention *m = load_model(&g, 0.0);
        causal += g.causal;
        cross += g.k != g.q;
        t1 += t_size(g.q, 1) == 1;
        wide += m->args.d_in != m->args.d_out;
        modes[2 * m->args.qkv_bias + m->args.out_bias]++;
        t_scope_end();
    }
    /* the sweep covers what it claims to */
    CHECK(causal > 0 && causal < n);
    CHECK(cross > 0);
    CHECK(t1 > 0);
    CHECK(wide > n / 2);
    for (int i = 0; i < 4; i++) CHECK_MSG(modes[i] > 0, "bias mode %d is not in the sweep", i);
}

/* ---- modules made here ----------------------------------------------------------- */

static void test_mha_new_shapes_and_modes(void) {
    t_manual_seed(123);
    MultiHeadAttention *m = mha_new(handwritten_mha_args(10, 8, 5, 0.1, 2));
    CHECK_EQ_INT(m->head_dim, 4);
    CHECK(t_same_shape(m->qkv->wq->weight, t_zeros(SHAPE(8, 10))));  /* (d_out, d_in) */
    CHECK(t_same_shape(m->qkv->wv->weight, t_zeros(SHAPE(8, 10))));
    CHECK(m->qkv->wq->bias == NULL);
    CHECK(t_same_shape(m->wo->weight, t_zeros(SHAPE(8, 8))));         /* (d_out, d_out) */
    CHECK(t_same_shape(m->wo->bias, t_zeros(SHAPE(8))));
    CHECK(t_same_shape(m->mask, t_zeros(SHAPE(1, 1, 5, 5))));
    CHECK(m->attn_dropout.training && m->resid_dropout.training);    /* a fresh module trains */
    CHECK_CLOSE(m->attn_dropout.p, 0.1, 0.0);
    CHECK(!m->args.resid_dropout);  /* the 手撕 class has one dropout, on the weights */
    CHECK(happy_llm_args(8, 2, 4, 0.1, true).resid_dropout);  /* Happy-LLM's has two */
    mha_eval(m);
    CHECK(!m->attn_dropout.training && !m->resid_dropout.training);
    mha_train(m);
    CHECK(m->attn_dropout.training && m->resid_dropout.training);
    /* PyTorch's init bound 1/sqrt(in_features): wq from d_in = 10, wo from d_out = 8 */
    CHECK(t_max_abs_diff(m->qkv->wq->weight, t_zeros(SHAPE(8, 10))) <= 1.0 / sqrt(10.0));
    CHECK(t_max_abs_diff(m->wo->weight, t_zeros(SHAPE(8, 8))) <= 1.0 / sqrt(8.0));
    Tensor *x = t_randn(SHAPE(3, 5, 10));
    Tensor *out = mha_forward(m, x, x, x, NULL);
    CHECK(t_same_shape(out, t_zeros(SHAPE(3, 5, 8))));                /* (B, T, d_out) */
    /* Happy-LLM's args: no biases, no mask unless causal */
    MultiHeadAttention *h = mha_new(happy_llm_args(12, 4, 6, 0.0, false));
    CHECK(h->qkv->wq->bias == NULL && h->wo->bias == NULL && h->mask == NULL);
    CHECK_EQ_INT(h->args.d_in, 12);
    CHECK_EQ_INT(h->args.d_out, 12);
}

/* Causal: position t of the output depends only on positions 0..t of the input. */
static void test_causal_output_ignores_the_future(void) {
    t_manual_seed(7);
    MultiHeadAttention *m = mha_new(handwritten_mha_args(6, 4, 5, 0.0, 2));
    Tensor *x = t_randn(SHAPE(1, 5, 6));
    Tensor *y = t_clone(x);
    for (int64_t j = 0; j < 6; j++) t_set(y, 9.0f, 0, 4, j);   /* change the last token only */
    Tensor *a = mha_forward(m, x, x, x, NULL), *b = mha_forward(m, y, y, y, NULL);
    CHECK_TENSOR_CLOSE(t_slice(a, 1, 0, 4), t_slice(b, 1, 0, 4), 0.0, 0.0);
    CHECK(t_max_abs_diff(t_slice(a, 1, 4, 5), t_slice(b, 1, 4, 5)) > 1e-4);
}

/* ---- dropout: eval, p = 0, training ---------------------------------------------- */

static void test_eval_equals_dropout_zero(void) {
    Group g = load_group("seed");
    ModelArgs a = handwritten_mha_args(10, 8, 5, 0.0, 2);
    MultiHeadAttention *p0 = mha_load(a, g.weights);   /* dropout 0, training mode */
    CHECK(p0->attn_dropout.training);
    Tensor *train0 = mha_forward(p0, g.q, g.q, g.q, NULL);
    a.dropout = 0.1;
    MultiHeadAttention *ev = mha_load(a, g.weights);
    mha_eval(ev);                                       /* dropout 0.1, eval mode */
    Tensor *eval = mha_forward(ev, g.q, g.q, g.q, NULL);
    CHECK_TENSOR_CLOSE(train0, eval, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(eval, fx("seed", "out"), RTOL, ATOL);
    /* and training with p = 0.1 is something else */
    mha_train(ev);
    t_manual_seed(123);
    CHECK(t_max_abs_diff(mha_forward(ev, g.q, g.q, g.q, NULL), eval) > 1e-4);
}

static void test_training_same_seed_repeats(void) {
    t_manual_seed(123);
    MultiHeadAttention *m = mha_new(handwritten_mha_args(10, 8, 5, 0.1, 2));
    Tensor *x = t_randn(SHAPE(3, 5, 10));
    t_manual_seed(42);
    Tensor *a = mha_forward(m, x, x, x, NULL);
    t_manual_seed(42);
    Tensor *b = mha_forward(m, x, x, x, NULL);
    CHECK_TENSOR_CLOSE(a, b, 0.0, 0.0);
    t_manual_seed(43);
    Tensor *c = mha_forward(m, x, x, x, NULL);
    CHECK(t_max_abs_diff(a, c) > 1e-6);
}

/* Where the two dropouts act: attn_dropout on the weights (after softmax,
 * before @ xv), resid_dropout on the output of wo. Each element is 0 or
 * scaled by 1/(1-p). */
static void test_dropouts_act_where_the_seed_puts_them(void) {
    const double p = 0.5;
    t_manual_seed(5);
    ModelArgs a = handwritten_mha_args(8, 12, 6, p, 3);
    a.causal = false;   /* no masked zeros among the weights */
    a.resid_dropout = true;  /* Happy-LLM's second dropout, on the output */
    MultiHeadAttention *m = mha_new(a);
    Tensor *x = t_randn(SHAPE(4, 6, 8));
    MhaTrace tr = {0};
    Tensor *out = mha_forward(m, x, x, x, &tr);
    if (!trace_filled(&tr)) return;
    /* attn_dropout: weights -> 0 or weights / (1 - p) */
    int64_t n = t_numel(tr.attn_weights), zeros = 0, bad = 0;
    for (int64_t i = 0; i < n; i++) {
        float w = t_flat_get(tr.attn_weights, i), d = t_flat_get(tr.attn_dropped, i);
        if (d == 0.0f) zeros++;
        else if (fabs(d - w / (1.0 - p)) > 1e-6 * (1.0 + fabs(d))) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(zeros > n / 4 && zeros < 3 * n / 4);
    /* output of the heads = dropped weights @ xv, merged */
    CHECK_TENSOR_CLOSE(tr.merged, merge_heads(weighted_sum(tr.attn_dropped, tr.xv)), RTOL, ATOL);
    /* output_projection: projected = self.wo(merged) */
    CHECK_TENSOR_CLOSE(tr.projected, nn_linear_forward(m->wo, tr.merged), RTOL, ATOL);
    /* resid_dropout: output -> 0 or projected / (1 - p) */
    n = t_numel(out);
    zeros = bad = 0;
    for (int64_t i = 0; i < n; i++) {
        float y = t_flat_get(tr.projected, i), o = t_flat_get(out, i);
        if (o == 0.0f) zeros++;
        else if (fabs(o - y / (1.0 - p)) > 1e-6 * (1.0 + fabs(o))) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(zeros > n / 4 && zeros < 3 * n / 4);
    /* p = 1 drops everything, as nn.Dropout(1.0) */
    a = handwritten_mha_args(8, 12, 6, 1.0, 3);
    a.resid_dropout = true;
    m = mha_new(a);
    CHECK_CLOSE(t_max_abs_diff(mha_forward(m, x, x, x, NULL), t_zeros(SHAPE(4, 6, 12))), 0.0, 0.0);
    /* without resid_dropout (the 手撕 class) the output is wo(merged) */
    a.resid_dropout = false;
    m = mha_new(a);
    out = mha_forward(m, x, x, x, &tr);
    if (!trace_filled(&tr)) return;
    CHECK_TENSOR_CLOSE(out, tr.projected, 0.0, 0.0);
}

/* The trace keeps the very masks the forward applied: attn_dropped is
 * attn_weights * attn_mask and the output projected * resid_mask, exactly.
 * A mask drawn again (from the generator where the forward left it) would
 * drop other elements and fail both; asking for the trace draws nothing
 * more (the same seed gives the same output with or without it). */
static void test_trace_keeps_the_masks_it_applied(void) {
    const double p = 0.5;
    const float scale = 1.0f / (float)(1.0 - p);
    ModelArgs a = handwritten_mha_args(8, 12, 6, p, 3);
    a.causal = false;
    a.resid_dropout = true;
    t_manual_seed(9);
    MultiHeadAttention *m = mha_new(a);
    Tensor *x = t_randn(SHAPE(2, 6, 8));
    Rng start = *t_default_rng();
    MhaTrace tr = {0};
    Tensor *out = mha_forward(m, x, x, x, &tr);
    if (!trace_filled(&tr)) return;
    Rng after = *t_default_rng();
    CHECK(tr.resid_mask != NULL);
    if (!tr.resid_mask) return;
    CHECK(t_same_shape(tr.attn_mask, tr.attn_weights));   /* (B, H, T, S) */
    CHECK(t_same_shape(tr.resid_mask, out));              /* (B, T, d_out) */
    CHECK_TENSOR_CLOSE(tr.attn_dropped, t_mul(tr.attn_weights, tr.attn_mask), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(out, t_mul(tr.projected, tr.resid_mask), 0.0, 0.0);
    /* every entry 0 or 1/(1-p), and both kinds present */
    const Tensor *masks[2] = {tr.attn_mask, tr.resid_mask};
    for (int k = 0; k < 2; k++) {
        int64_t zeros = 0, kept = 0, n = t_numel(masks[k]);
        for (int64_t i = 0; i < n; i++) {
            float v = t_flat_get(masks[k], i);
            zeros += v == 0.0f;
            kept += v == scale;
        }
        CHECK_EQ_INT(zeros + kept, n);
        CHECK(zeros > 0 && kept > 0);
    }
    /* a redraw from where the forward left the generator is another mask */
    Tensor *redrawn = NULL;
    dropout_forward(&m->attn_dropout, tr.attn_weights, &redrawn);
    CHECK(t_max_abs_diff(redrawn, tr.attn_mask) > 0.5);
    /* the same seed without a trace: the same output, the generator in the same place */
    *t_default_rng() = start;
    CHECK_TENSOR_CLOSE(mha_forward(m, x, x, x, NULL), out, 0.0, 0.0);
    CHECK(!memcmp(t_default_rng()->state, after.state, sizeof after.state) && t_default_rng()->next == after.next);
    /* the 手撕 class has no resid_dropout: no resid_mask */
    a.resid_dropout = false;
    m = mha_new(a);
    mha_forward(m, x, x, x, &tr);
    CHECK(tr.resid_mask == NULL);
    CHECK_TENSOR_CLOSE(tr.attn_dropped, t_mul(tr.attn_weights, tr.attn_mask), 0.0, 0.0);
}

/* ---- parameter counts ------------------------------------------------------------ */

static void test_parameter_counts(void) {
    Tensor *counts = load_fixture("ch07/param_counts.npy");   /* sum(p.numel()) in PyTorch */
    /* the 手撕 script: 3 * 8 * 10 + 8 * 8 + 8 */
    MultiHeadAttention *m = mha_new(handwritten_mha_args(10, 8, 5, 0.1, 2));
    CHECK_EQ_INT(mha_num_params(m), 312);
    CHECK_EQ_INT(mha_num_params(m), (int64_t)t_get(counts, 0));
    /* GPT-2 size, as the 手撕 class builds it: 768 wide, 12 heads, qkv_bias=False, out bias */
    m = mha_new(handwritten_mha_args(768, 768, 16, 0.0, 12));
    CHECK_EQ_INT(mha_num_params(m), 2360064);
    CHECK_EQ_INT(mha_num_params(m), (int64_t)t_get(counts, 1));
    /* Happy-LLM's class at dim 768: no biases at all */
    m = mha_new(happy_llm_args(768, 12, 16, 0.0, true));
    CHECK_EQ_INT(mha_num_params(m), (int64_t)t_get(counts, 2));
    /* nn.MultiheadAttention(768, 12): every bias */
    ModelArgs a = happy_llm_args(768, 12, 16, 0.0, false);
    a.qkv_bias = a.out_bias = true;
    m = mha_new(a);
    CHECK_EQ_INT(mha_num_params(m), (int64_t)t_get(counts, 3));
    /* d_in != d_out: wq, wk, wv are (d_out, d_in), wo (d_out, d_out) */
    a = handwritten_mha_args(5, 6, 4, 0.0, 3);
    a.qkv_bias = true;
    CHECK_EQ_INT(mha_num_params(mha_new(a)), 3 * (6 * 5 + 6) + 6 * 6 + 6);
    /* the mask is a buffer, not a parameter: max_seq_len does not count */
    CHECK_EQ_INT(mha_num_params(mha_new(handwritten_mha_args(5, 6, 40, 0.0, 3))), 3 * 6 * 5 + 6 * 6 + 6);
}

/* ---- the residual: why a Transformer block needs d_out == d_in ----------------------- */

static void test_residual_needs_d_out_equal_d_in(void) {
    t_manual_seed(1);
    Tensor *x = t_randn(SHAPE(2, 4, 8));
    MultiHeadAttention *same = mha_new(handwritten_mha_args(8, 8, 4, 0.0, 2));
    Tensor *h = t_add(x, mha_forward(same, x, x, x, NULL));   /* h = x + self.attention(x) */
    CHECK(t_same_shape(h, x));
    MultiHeadAttention *other = mha_new(handwritten_mha_args(8, 6, 4, 0.0, 2));
    CHECK_ERROR(t_add(x, mha_forward(other, x, x, x, NULL)), "do not broadcast");
}

/* ---- errors ------------------------------------------------------------------------ */

/* TMP_DIR/name holding the 手撕 script's weights except `skip` (may be NULL). */
static const char *seed_weights_copy(const char *name, const char *skip) {
    static char dir[256];
    static const char *const files[] = {"wq", "wk", "wv", "wo", "bo", "bq", "bk", "bv"};
    snprintf(dir, sizeof dir, "%s/%s", TMP_DIR, name);
    npy_make_dir(dir);
    for (int i = 0; i < 8; i++) {
        char path[300], rel[64];
        snprintf(path, sizeof path, "%s/%s.npy", dir, files[i]);
        remove(path);   /* left from an earlier run */
        if (i >= 5 || (skip && strcmp(skip, files[i]) == 0)) continue;
        snprintf(rel, sizeof rel, "weights/%s", files[i]);
        npy_save_in(dir, files[i], fx("seed", rel));
    }
    return dir;
}

static void test_weights_folder_errors(void) {
    ModelArgs a = handwritten_mha_args(10, 0, 5, 0.1, 2);   /* d_out comes from the files */
    const char *dir;
    dir = seed_weights_copy("no_wo", "wo");
    CHECK_ERROR(mha_load(a, dir), "has no wo.npy");
    dir = seed_weights_copy("no_wk", "wk");
    CHECK_ERROR(mha_load(a, dir), "has no wk.npy");
    /* without bo.npy it is Happy-LLM's out projection (no bias): fine */
    dir = seed_weights_copy("no_bo", "bo");
    MultiHeadAttention *m = mha_load(a, dir);
    CHECK(!m->args.out_bias && m->wo->bias == NULL);
    CHECK_EQ_INT(mha_num_params(m), 304);

    /* matrices that do not fit d_in / d_out */
    dir = seed_weights_copy("ok", NULL);
    ModelArgs wide = a;
    wide.d_in = 12;
    CHECK_ERROR(mha_load(wide, dir), "wq.npy has shape (8, 10) but the input has d_in = 12");
    ModelArgs asked = a;
    asked.d_out = 6;
    CHECK_ERROR(mha_load(asked, dir), "wq.npy has d_out = 8 but d_out = 6 was asked for");
    dir = seed_weights_copy("wo_wrong", NULL);
    npy_save_in(dir, "wo", t_zeros(SHAPE(8, 10)));
    CHECK_ERROR(mha_load(a, dir), "wo.npy has shape (8, 10) but wq.npy has d_out = 8: wo must be (d_out, d_out) = (8, 8)");
    npy_save_in(dir, "wo", t_zeros(SHAPE(64)));
    CHECK_ERROR(mha_load(a, dir), "wo.npy has shape (64,)");
    dir = seed_weights_copy("wk_wrong", NULL);
    npy_save_in(dir, "wk", t_zeros(SHAPE(6, 10)));
    CHECK_ERROR(mha_load(a, dir), "wk.npy has shape (6, 10) but wq.npy has shape (8, 10)");

    /* biases of the wrong length, and bq without bk, bv */
    dir = seed_weights_copy("bo_wrong", NULL);
    npy_save_in(dir, "bo", t_zeros(SHAPE(7)));
    CHECK_ERROR(mha_load(a, dir), "bo.npy has shape (7,) but the weights have d_out = 8: expected (8,)");
    dir = seed_weights_copy("bq_wrong", NULL);
    npy_save_in(dir, "bq", t_zeros(SHAPE(7)));
    npy_save_in(dir, "bk", t_zeros(SHAPE(8)));
    npy_save_in(dir, "bv", t_zeros(SHAPE(8)));
    CHECK_ERROR(mha_load(a, dir), "bq.npy has shape (7,)");
    dir = seed_weights_copy("bq_only", NULL);
    npy_save_in(dir, "bq", t_zeros(SHAPE(8)));
    CHECK_ERROR(mha_load(a, dir), "give all three biases bq, bk, bv or none");

    /* heads that do not divide the d_out of the files */
    dir = seed_weights_copy("ok", NULL);
    ModelArgs three = a;
    three.n_heads = 3;
    CHECK_ERROR(mha_load(three, dir), "d_out 8 is not divisible by n_heads 3");
    ModelArgs none = a;
    none.d_in = 0;
    CHECK_ERROR(mha_load(none, dir), "d_in must be the width of the input");
}

static void test_module_errors(void) {
    CHECK_ERROR(mha_new(handwritten_mha_args(10, 8, 5, 0.1, 3)), "d_out 8 is not divisible by n_heads 3");
    CHECK_ERROR(mha_new(handwritten_mha_args(10, 8, 5, 1.5, 2)), "dropout = 1.5 is not a probability");
    CHECK_ERROR(mha_new(handwritten_mha_args(10, 8, 5, -0.1, 2)), "dropout = -0.1 is not a probability");
    CHECK_ERROR(mha_new(handwritten_mha_args(0, 8, 5, 0.1, 2)), "d_in = 0 and d_out = 8 must both be at least 1");
    CHECK_ERROR(mha_new(handwritten_mha_args(10, 8, 0, 0.1, 2)), "max_seq_len must be at least 1");
    CHECK_ERROR(mha_new(handwritten_mha_args(10, 8, 5, 0.1, 0)), "n_heads must be at least 1");
}

static void test_forward_errors(void) {
    t_manual_seed(3);
    MultiHeadAttention *m = mha_new(handwritten_mha_args(10, 8, 5, 0.1, 2));   /* causal, max_seq_len 5 */
    Tensor *x = t_randn(SHAPE(3, 5, 10));
    CHECK_ERROR(mha_forward(m, t_randn(SHAPE(5, 10)), x, x, NULL), "must each be 3-D (bsz, seqlen, d_in)");
    Tensor *x12 = t_randn(SHAPE(3, 5, 12));
    CHECK_ERROR(mha_forward(m, x12, x12, x12, NULL), "must all end in d_in = 10");
    CHECK_ERROR(mha_forward(m, x, t_randn(SHAPE(2, 5, 10)), t_randn(SHAPE(2, 5, 10)), NULL),
                "must have the same batch size");
    CHECK_ERROR(mha_forward(m, x, x, t_randn(SHAPE(3, 4, 10)), NULL), "must have the same length S");
    Tensor *kv = t_randn(SHAPE(3, 4, 10));
    CHECK_ERROR(mha_forward(m, x, kv, kv, NULL), "causal attention needs k and v as long as q, but S = 4 != T = 5");
    Tensor *x6 = t_randn(SHAPE(3, 6, 10));
    CHECK_ERROR(mha_forward(m, x6, x6, x6, NULL), "sequence length 6 is longer than max_seq_len 5");
    /* not causal: no buffer, any length, and cross-attention is fine */
    ModelArgs a = handwritten_mha_args(10, 8, 5, 0.0, 2);
    a.causal = false;
    MultiHeadAttention *full = mha_new(a);
    CHECK(t_same_shape(mha_forward(full, x6, kv, kv, NULL), t_zeros(SHAPE(3, 6, 8))));
    /* scores that do not fit: say so, and point to chapter 8 */
    size_t old = t_max_bytes();
    t_set_max_bytes(500);   /* the (3, 2, 5, 5) scores need 600 bytes */
    CHECK_ERROR(mha_forward(m, x, x, x, NULL), "chapter 8");
    CHECK_ERROR(mha_forward(m, x, x, x, NULL), "the scores (3, 2, 5, 5) need 600 bytes");
    t_set_max_bytes(old);
}

int main(void) {
    RUN(test_happy_llm_causal_matches_pytorch);
    RUN(test_happy_llm_cross_attention_matches_pytorch);
    RUN(test_seed_class_matches_pytorch_in_eval);
    RUN(test_torch_nn_multihead_attention);
    RUN(test_random_sweep_matches_pytorch);
    RUN(test_mha_new_shapes_and_modes);
    RUN(test_causal_output_ignores_the_future);
    RUN(test_eval_equals_dropout_zero);
    RUN(test_training_same_seed_repeats);
    RUN(test_dropouts_act_where_the_seed_puts_them);
    RUN(test_trace_keeps_the_masks_it_applied);
    RUN(test_parameter_counts);
    RUN(test_residual_needs_d_out_equal_d_in);
    RUN(test_weights_folder_errors);
    RUN(test_module_errors);
    RUN(test_forward_errors);
    return harness_finish("test_ch07");
}
