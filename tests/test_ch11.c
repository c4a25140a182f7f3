/* test_ch11.c — chapter 11, LLaMA2's attention, against PyTorch (tests/fixtures/ch11,
 * written by scripts/golden/ch11.py from Happy-LLM 5.1.3): precompute_freqs_cis (also
 * at theta 1e6 and 500000), apply_rotary_emb (neighbouring pairs) and Meta's complex
 * form, repeat_kv, the Attention class for MHA, GQA,
 * MQA, dim % n_heads != 0 and a longer sequence; the rotate_half trap (other numbers
 * with the same weights, PyTorch's numbers after the row permutation); the no-copy
 * h / n_rep indexing; the KV cache: a prefill and token-by-token decode equal to
 * PyTorch's full forward at every step, for every prompt length, and a prefill in chunks
 * of every size (up to max_seq_len, batch 3, GQA) then decode; the book's own run
 * (dim 768, 16 heads, 8 kv heads, 50 tokens); the fast decode step (blocked projections)
 * against the reference step, within 1e-6, on shapes no fixture has; and every error sentence. */
#include <math.h>
#include <stdio.h>

#include "tests/harness.h"
#include "chapters/11_llama_attention/generate.h"
#include "chapters/11_llama_attention/fast_decode.h"

#define RTOL 1e-5
#define ATOL 1e-5

static Tensor *fx(const char *group, const char *name) {
    char rel[256];
    snprintf(rel, sizeof rel, "ch11/%s/%s.npy", group, name);
    return load_fixture(rel);
}

/* The module of a fixture group, in eval mode, with its freqs tables. */
static LlamaAttention *load_group(const char *group, FreqsCis *freqs) {
    Tensor *config = fx(group, "config");   /* [dim, n_heads, n_kv_heads, max_seq_len] */
    ModelConfig a = {(int64_t)t_get(config, 0), (int64_t)t_get(config, 1), (int64_t)t_get(config, 2),
                     (int64_t)t_get(config, 3), 0.1};
    LlamaAttention *m = llama_attention_from(a, fx(group, "wq"), fx(group, "wk"), fx(group, "wv"), fx(group, "wo"));
    llama_attention_eval(m);
    freqs->cos = fx(group, "freqs_cos");
    freqs->sin = fx(group, "freqs_sin");
    return m;
}

/* ---- RoPE ------------------------------------------------------------------------- */

static void test_precompute_freqs_cis_matches_pytorch(void) {
    FreqsCis f = precompute_freqs_cis(16, 12, 10000.0);   /* (12, 8) */
    CHECK_TENSOR_CLOSE(f.cos, load_fixture("ch11/rope/table/freqs_cos.npy"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(f.sin, load_fixture("ch11/rope/table/freqs_sin.npy"), RTOL, ATOL);
    f = precompute_freqs_cis(8, 5, 10000.0);
    CHECK_TENSOR_CLOSE(f.cos, fx("rope", "freqs_cos"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(f.sin, fx("rope", "freqs_sin"), RTOL, ATOL);
    /* position 0 is not turned at all: cos 1, sin 0 */
    CHECK_CLOSE(t_get(f.cos, 0, 3), 1.0, 0.0);
    CHECK_CLOSE(t_get(f.sin, 0, 3), 0.0, 0.0);
}

static void test_apply_rotary_emb_matches_pytorch(void) {
    Tensor *xq_out, *xk_out;   /* xq has 3 heads, xk 1: the same tables serve both */
    apply_rotary_emb(fx("rope", "xq"), fx("rope", "xk"), fx("rope", "freqs_cos"), fx("rope", "freqs_sin"), &xq_out,
                     &xk_out);
    CHECK_TENSOR_CLOSE(xq_out, fx("rope", "xq_out"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(xk_out, fx("rope", "xk_out"), RTOL, ATOL);
}

/* --rope-theta: the tables at Code Llama's 1e6 and Llama 3's 500000, as PyTorch computes them. */
static void test_precompute_freqs_cis_other_theta(void) {
    FreqsCis f = precompute_freqs_cis(16, 12, 1e6);
    CHECK_TENSOR_CLOSE(f.cos, load_fixture("ch11/rope_theta/table_1e6/freqs_cos.npy"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(f.sin, load_fixture("ch11/rope_theta/table_1e6/freqs_sin.npy"), RTOL, ATOL);
    f = precompute_freqs_cis(16, 12, 500000.0);
    CHECK_TENSOR_CLOSE(f.cos, load_fixture("ch11/rope_theta/table_5e5/freqs_cos.npy"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(f.sin, load_fixture("ch11/rope_theta/table_5e5/freqs_sin.npy"), RTOL, ATOL);
    /* a larger theta turns the last pairs more slowly: position 11, pair 7 */
    CHECK(t_get(f.cos, 11, 7) > t_get(precompute_freqs_cis(16, 12, 10000.0).cos, 11, 7));
}

/* Meta's form: each pair a complex number times cos + i sin; PyTorch's view_as_complex
 * numbers at theta 500000, and the book's rotary_emb's at the book's theta. */
static void test_rotary_emb_complex_is_meta_and_the_book(void) {
    FreqsCis f = precompute_freqs_cis(16, 12, 500000.0);
    CHECK_TENSOR_CLOSE(rotary_emb_complex(fx("rope_theta", "xq"), f.cos, f.sin), fx("rope_theta", "xq_out_meta"), RTOL,
                       ATOL);
    CHECK_TENSOR_CLOSE(rotary_emb_complex(fx("rope", "xq"), fx("rope", "freqs_cos"), fx("rope", "freqs_sin")),
                       fx("rope", "xq_out"), RTOL, ATOL);
    CHECK_ERROR(rotary_emb_complex(fx("rope", "xq"), f.cos, f.sin), "rotary_emb_complex: freqs_cos (12, 8)");
}

static void test_rope_turns_pairs_and_keeps_lengths(void) {
    /* each pair (x[2i], x[2i+1]) keeps its length: a rotation */
    Tensor *x = fx("rope", "xq");
    Tensor *y = rotary_emb(x, fx("rope", "freqs_cos"), fx("rope", "freqs_sin"));
    for (int64_t t = 0; t < 5; t++)
        for (int64_t i = 0; i < 4; i++) {
            double a = t_get(x, 1, t, 2, 2 * i), b = t_get(x, 1, t, 2, 2 * i + 1);
            double c = t_get(y, 1, t, 2, 2 * i), d = t_get(y, 1, t, 2, 2 * i + 1);
            CHECK_CLOSE(a * a + b * b, c * c + d * d, 1e-5);
        }
    /* the halves layout is another function: different numbers on the same x */
    Tensor *z = rotary_emb_half(x, fx("rope", "freqs_cos"), fx("rope", "freqs_sin"));
    CHECK(t_max_abs_diff(y, z) > 1e-2);
}

/* q·k after RoPE depends on the offset m - n only. */
static void test_rope_scores_depend_on_the_offset(void) {
    FreqsCis f = precompute_freqs_cis(8, 20, 10000.0);
    t_manual_seed(3);
    Tensor *q = t_randn(SHAPE(1, 1, 1, 8)), *k = t_randn(SHAPE(1, 1, 1, 8));
    double dots[2];
    int64_t pos[2][2] = {{5, 2}, {17, 14}};   /* the same offset, 3 */
    for (int p = 0; p < 2; p++) {
        int64_t m = pos[p][0], n = pos[p][1];
        Tensor *qm = rotary_emb(q, t_slice(f.cos, 0, m, m + 1), t_slice(f.sin, 0, m, m + 1));
        Tensor *kn = rotary_emb(k, t_slice(f.cos, 0, n, n + 1), t_slice(f.sin, 0, n, n + 1));
        dots[p] = t_sum_all(t_mul(qm, kn));
    }
    CHECK_CLOSE(dots[0], dots[1], 1e-4);
}

/* ---- repeat_kv -------------------------------------------------------------------- */

static void test_repeat_kv_matches_pytorch(void) {
    Tensor *x = fx("repeat_kv", "x");
    CHECK_TENSOR_CLOSE(repeat_kv(x, 3), fx("repeat_kv", "out"), 0.0, 0.0);
    CHECK(repeat_kv(x, 1) == x);   /* if n_rep == 1: return x */
    CHECK_EQ_INT(kv_head_of(5, 3), 1);
    CHECK_EQ_INT(kv_head_of(2, 3), 0);
    CHECK_EQ_INT(n_rep_of(8, 2), 4);
}

/* ---- the Attention class ------------------------------------------------------------ */

static void check_group(const char *group) {
    FreqsCis f;
    LlamaAttention *m = load_group(group, &f);
    LlamaTrace tr = {0};
    Tensor *out = llama_attention_forward(m, fx(group, "x"), f.cos, f.sin, &tr);
    harness_check_tensor_close(__FILE__, __LINE__, group, out, fx(group, "output"), RTOL, ATOL);
    /* the no-copy path: head h reads kv head h / n_rep in place */
    Tensor *xq = t_transpose(tr.xq, 1, 2), *xk = t_transpose(tr.xk, 1, 2), *xv = t_transpose(tr.xv, 1, 2);
    Tensor *grouped = grouped_attention(xq, xk, xv, m->mask);            /* (bsz, n_heads, T, hd) */
    Tensor *merged = t_reshape(t_transpose(grouped, 1, 2), SHAPE(t_size(out, 0), t_size(out, 1), -1));
    Tensor *out2 = nn_linear_forward(m->wo, merged);
    harness_check_tensor_close(__FILE__, __LINE__, group, out2, fx(group, "output"), RTOL, ATOL);
}

static void test_attention_mha_gqa_mqa_match_pytorch(void) {
    check_group("mha");    /* n_kv_heads = n_heads = 4   */
    check_group("gqa");    /* n_kv_heads = 2, n_rep = 2 */
    check_group("mqa");    /* n_kv_heads = 1, batch 3   */
    check_group("odd");    /* dim 10, 4 heads of 2      */
    check_group("long");   /* 12 tokens, 6 heads, 3 kv  */
}

static void test_attention_shapes_and_params(void) {
    FreqsCis f;
    LlamaAttention *m = load_group("gqa", &f);
    CHECK_EQ_INT(m->n_rep, 2);
    CHECK_EQ_INT(m->head_dim, 4);
    CHECK(t_same_shape(m->wk->weight, t_zeros(SHAPE(8, 16))));   /* n_kv_heads * head_dim = 8 */
    CHECK_EQ_INT(llama_attention_num_params(m), 16 * 16 + 8 * 16 * 2 + 16 * 16);
    m = load_group("odd", &f);
    CHECK(t_same_shape(m->wo->weight, t_zeros(SHAPE(10, 8))));   /* dim 10, n_heads * head_dim 8 */
}

/* ---- the trap: Hugging Face's rotate_half --------------------------------------------- */

static Tensor *forward_half(LlamaAttention *m, const Tensor *x, const FreqsCis *f) {
    m->rotate_half = true;   /* Hugging Face's layout */
    return llama_attention_forward(m, x, f->cos, f->sin, NULL);
}

static void test_rotate_half_trap(void) {
    FreqsCis f;
    LlamaAttention *m = load_group("gqa", &f);
    Tensor *x = fx("gqa", "x");
    /* the book's weights in Hugging Face's layout: PyTorch's wrong numbers */
    CHECK_TENSOR_CLOSE(forward_half(m, x, &f), fx("trap", "out_hf_unpermuted"), RTOL, ATOL);
    CHECK(t_max_abs_diff(forward_half(m, x, &f), fx("gqa", "output")) > 1e-3);
    m->rotate_half = false;
    /* the conversion script's permutation of wq and wk rows */
    Tensor *wq_hf = permute_for_rotate_half(m->wq->weight, m->n_local_heads);
    Tensor *wk_hf = permute_for_rotate_half(m->wk->weight, m->n_local_kv_heads);
    CHECK_TENSOR_CLOSE(wq_hf, fx("trap", "wq_hf"), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(wk_hf, fx("trap", "wk_hf"), 0.0, 0.0);
    ModelConfig a = m->args;
    LlamaAttention *hf = llama_attention_from(a, wq_hf, wk_hf, m->wv->weight, m->wo->weight);
    llama_attention_eval(hf);
    CHECK_TENSOR_CLOSE(forward_half(hf, x, &f), fx("gqa", "output"), RTOL, ATOL);
    /* the cache serves either layout: a decode of the HF module is PyTorch's output too */
    KVCache *c = kv_cache_new(2, 2, 10, 4);
    CHECK_TENSOR_CLOSE(llama_attention_step(hf, t_slice(x, 1, 0, 3), &f, c), t_slice(fx("gqa", "output"), 1, 0, 3),
                       RTOL, ATOL);
    for (int64_t t = 3; t < 7; t++)
        CHECK_TENSOR_CLOSE(llama_attention_step(hf, t_slice(x, 1, t, t + 1), &f, c),
                           t_slice(fx("gqa", "output"), 1, t, t + 1), RTOL, ATOL);
}

/* ---- the KV cache ----------------------------------------------------------------------- */

/* Prefill T - n_decode positions, then one at a time; every step against PyTorch's full forward. */
static void check_decode(const char *group, int64_t n_decode) {
    FreqsCis f;
    LlamaAttention *m = load_group(group, &f);
    Tensor *x = fx(group, "x"), *want = fx(group, "output");
    int64_t B = t_size(x, 0), T = t_size(x, 1);
    KVCache *c = kv_cache_new(B, m->n_local_kv_heads, m->args.max_seq_len, m->head_dim);
    int64_t prompt = T - n_decode;
    if (prompt > 0) {
        Tensor *out = llama_attention_step(m, t_slice(x, 1, 0, prompt), &f, c);
        harness_check_tensor_close(__FILE__, __LINE__, group, out, t_slice(want, 1, 0, prompt), RTOL, ATOL);
    }
    for (int64_t t = prompt; t < T; t++) {
        Tensor *out = llama_attention_step(m, t_slice(x, 1, t, t + 1), &f, c);   /* (B, 1, dim) */
        harness_check_tensor_close(__FILE__, __LINE__, group, out, t_slice(want, 1, t, t + 1), RTOL, ATOL);
    }
    CHECK_EQ_INT(c->len, T);
}

static void test_decode_equals_full_forward_at_every_step(void) {
    const char *groups[] = {"mha", "gqa", "mqa", "odd", "long"};
    for (int i = 0; i < 5; i++) {
        int64_t T = t_size(fx(groups[i], "x"), 1);
        for (int64_t n = 0; n <= T; n++) check_decode(groups[i], n);   /* n = T - 1: a prompt of one token */
    }
}

/* --prefill-chunk: the first T - n_decode positions in chunks of every size (past the prompt:
 * one chunk), then one at a time, against PyTorch's full forward; chunked/ is T == max_seq_len. */
static void test_prefill_in_chunks_equals_full_forward(void) {
    const char *groups[] = {"mha", "gqa", "mqa", "odd", "long", "chunked"};
    for (int i = 0; i < 6; i++) {
        FreqsCis f;
        LlamaAttention *m = load_group(groups[i], &f);
        Tensor *x = fx(groups[i], "x"), *want = fx(groups[i], "output");
        int64_t T = t_size(x, 1);
        for (int64_t chunk = 1; chunk <= T + 1; chunk++)
            for (int64_t n = 0; n <= T; n++)
                harness_check_tensor_close(__FILE__, __LINE__, groups[i], llama_cached_forward(m, x, &f, chunk, n),
                                           want, RTOL, ATOL);
    }
    CHECK_EQ_INT(t_size(fx("chunked", "x"), 1), (int64_t)t_get(fx("chunked", "config"), 3));  /* T == max_seq_len */
}

/* Shapes no fixture has: batch 1 to 4, MHA, GQA and MQA, T up to max_seq_len, every chunk
 * size, against this chapter's full forward (which the fixtures check). */
static void test_prefill_in_chunks_random_shapes(void) {
    static const int64_t shapes[][6] = {/* B, dim, n_heads, n_kv_heads, T, max_seq_len */
                                        {4, 16, 4, 1, 9, 9},  {1, 24, 6, 3, 13, 13}, {2, 12, 2, 2, 5, 8},
                                        {3, 32, 8, 2, 10, 10}, {2, 20, 5, 5, 7, 7},  {1, 8, 1, 1, 6, 6}};
    for (int s = 0; s < 6; s++) {
        const int64_t *d = shapes[s];
        t_manual_seed(100 + (uint64_t)s);
        LlamaAttention *m = llama_attention_new((ModelConfig){d[1], d[2], d[3], d[5], 0.0});
        llama_attention_eval(m);
        Tensor *x = t_rand(SHAPE(d[0], d[4], d[1]));
        FreqsCis f = precompute_freqs_cis(m->head_dim, d[4], 10000.0);
        Tensor *full = llama_attention_forward(m, x, f.cos, f.sin, NULL);
        for (int64_t chunk = 1; chunk <= d[4]; chunk++)
            for (int64_t n = 0; n < d[4]; n += 2)
                harness_check_tensor_close(__FILE__, __LINE__, "random shape", llama_cached_forward(m, x, &f, chunk, n),
                                           full, RTOL, ATOL);
    }
}

static void test_prefill_in_chunks_errors(void) {
    FreqsCis f;
    LlamaAttention *m = load_group("gqa", &f);
    Tensor *x = fx("gqa", "x");   /* T = 7 */
    CHECK_ERROR(llama_cached_forward(m, x, &f, 0, 2), "chunks of 0 positions and 2 decode steps do not split a "
                                                      "sequence of 7 (chunk >= 1, 0 <= n_decode <= T)");
    CHECK_ERROR(llama_cached_forward(m, x, &f, 2, 8), "chunks of 2 positions and 8 decode steps");
    CHECK_ERROR(llama_cached_forward(m, t_zeros(SHAPE(7, 16)), &f, 2, 0), "x (7, 16) must be (bsz, T, dim)");
}

static void test_cache_full_is_an_error(void) {
    KVCache *c = kv_cache_new(1, 2, 3, 4);
    Tensor *k = t_zeros(SHAPE(1, 2, 2, 4));
    kv_cache_append(c, k, k);
    float before = t_get(c->k, 0, 0, 2, 0);
    CHECK_ERROR(kv_cache_append(c, k, k), "the KV cache is full: it holds max_seq_len = 3 positions, 2 are filled");
    CHECK_EQ_INT(c->len, 2);
    CHECK_CLOSE(t_get(c->k, 0, 0, 2, 0), before, 0.0);
    CHECK_ERROR(kv_cache_append(c, t_zeros(SHAPE(1, 1, 3, 4)), t_zeros(SHAPE(1, 1, 3, 4))),
                "must both be (bsz, n, n_kv_heads, head_dim)");
}

/* A whole LLaMA2's weights: with 1 byte per number, the parameter counts of Llama-2-7b and
 * Llama-2-70b (the sum of numel over their state dicts: 6,738,415,616 and 68,976,648,192). */
static void test_llama2_weight_bytes(void) {
    CHECK_CLOSE(llama2_weight_bytes(4096, 32, 32, 32, 11008, 32000, 1), 6738415616.0, 0.0);
    CHECK_CLOSE(llama2_weight_bytes(8192, 80, 64, 8, 28672, 32000, 1), 68976648192.0, 0.0);
    /* fp16: 7B's 12.6 GiB (13.5 GB) read once per decode step */
    CHECK_CLOSE(llama2_weight_bytes(4096, 32, 32, 32, 11008, 32000, 2), 2.0 * 6738415616.0, 0.0);
    /* one layer of this chapter's module, no MLP, no vocabulary: its four weights and two norms */
    CHECK_CLOSE(llama2_weight_bytes(16, 1, 4, 2, 0, 0, 1), 16.0 * 16 * 2 + 8.0 * 16 * 2 + 2 * 16 + 16, 0.0);
}

static void test_cache_bytes(void) {
    /* LLaMA2-7B: 32 layers, 32 kv heads of 128, fp16: 0.5 MiB per token; 70B: 80 layers, 8 kv heads */
    CHECK_CLOSE(kv_cache_bytes(32, 1, 32, 1, 128, 2), 524288.0, 0.0);
    CHECK_CLOSE(kv_cache_bytes(80, 1, 8, 4096, 128, 2), 1.25 * 1024 * 1024 * 1024, 0.0);
    CHECK_CLOSE(kv_cache_bytes(1, 2, 2, 6, 4, 4), 2.0 * 2 * 2 * 6 * 4 * 4, 0.0);
}

/* ---- the fast decode step (fast_decode.c) ------------------------------------------------ */

/* The largest |a - b| over two tensors of one shape. */
static double max_abs_diff(const Tensor *a, const Tensor *b) {
    Tensor *ca = t_contiguous(a), *cb = t_contiguous(b);
    double worst = 0.0;
    for (int64_t i = 0; i < t_numel(ca); i++) {
        double d = fabs((double)t_data(ca)[i] - (double)t_data(cb)[i]);
        worst = d > worst || d != d ? d : worst;
    }
    return worst;
}

/* linear_rows is x @ w.T: widths that are not multiples of its 16 lanes, row counts that
 * are not multiples of its blocks of rows (4, 6 or 8 by vector unit), several rows of x. */
static void test_linear_rows_is_linear(void) {
    static const int64_t sizes[][3] = {{1, 1, 1}, {3, 5, 17}, {2, 16, 16}, {4, 33, 7}, {1, 768, 384}, {5, 40, 9}};
    for (int s = 0; s < 6; s++) {
        int64_t rows = sizes[s][0], in = sizes[s][1], out = sizes[s][2];
        t_manual_seed(300 + (uint64_t)s);
        Tensor *w = t_randn(SHAPE(out, in)), *x = t_randn(SHAPE(rows, in)), *y = t_zeros(SHAPE(rows, out));
        linear_rows(t_data(w), out, in, t_data(x), rows, t_data(y));
        Tensor *want = t_matmul(x, t_transpose(w, 0, 1));
        CHECK_MSG(max_abs_diff(y, want) <= 1e-6 * sqrt((double)in) * 4, "linear_rows %lld x %lld x %lld: %g",
                  (long long)rows, (long long)in, (long long)out, max_abs_diff(y, want));
    }
}

/* Shapes no fixture has (batch 1 to 3, MHA, GQA, MQA, odd widths, Hugging Face's halves):
 * a prompt prefilled through the fast step in chunks, then token by token; every output row
 * within 1e-6 of the reference step's (llama_attention_step, through llama_cached_forward),
 * and within the fixtures' tolerance of the full forward. */
static void test_fast_step_equals_reference_step(void) {
    static const int64_t shapes[][7] = {/* B, dim, n_heads, n_kv_heads, T, chunk, rotate_half */
                                        {1, 96, 16, 8, 40, 7, 0}, {3, 48, 6, 2, 21, 5, 0}, {2, 40, 4, 1, 17, 17, 0},
                                        {2, 36, 3, 3, 12, 1, 1},  {1, 20, 5, 5, 9, 4, 0},  {3, 64, 8, 4, 33, 3, 1}};
    for (int s = 0; s < 6; s++) {
        const int64_t *d = shapes[s];
        t_manual_seed(200 + (uint64_t)s);
        LlamaAttention *m = llama_attention_new((ModelConfig){d[1], d[2], d[3], d[4], 0.0});
        llama_attention_eval(m);
        m->rotate_half = d[6] != 0;
        Tensor *x = t_rand(SHAPE(d[0], d[4], d[1]));
        FreqsCis f = precompute_freqs_cis(m->head_dim, d[4], 10000.0);
        int64_t T = d[4], prompt = T / 2;
        Tensor *want = llama_cached_forward(m, x, &f, d[5], T - prompt);
        KVCache *c = kv_cache_new(d[0], m->n_local_kv_heads, T, m->head_dim);
        Tensor *got = t_zeros(t_shape(x));
        for (int64_t start = 0; start < T;) {
            int64_t n = start >= prompt ? 1 : (prompt - start < d[5] ? prompt - start : d[5]);
            t_copy_(t_slice(got, 1, start, start + n), llama_decode_step(m, t_slice(x, 1, start, start + n), &f, c));
            start += n;
        }
        CHECK_EQ_INT(c->len, T);
        CHECK_MSG(max_abs_diff(got, want) <= 1e-6, "shape %d: fast step %g from the reference step", s,
                  max_abs_diff(got, want));
        harness_check_tensor_close(__FILE__, __LINE__, "fast step", got, llama_attention_forward(m, x, f.cos, f.sin, NULL),
                                   RTOL, ATOL);
    }
}

/* The book's shape (dim 768, 16 heads, 8 kv heads) decoded from an empty cache, batch 2. */
static void test_fast_step_book_shape(void) {
    t_manual_seed(7);
    LlamaAttention *m = llama_attention_new((ModelConfig){768, 16, 8, 24, 0.0});
    llama_attention_eval(m);
    Tensor *x = t_rand(SHAPE(2, 24, 768));
    FreqsCis f = precompute_freqs_cis(m->head_dim, 24, 10000.0);
    Tensor *want = llama_cached_forward(m, x, &f, 1, 24);
    KVCache *c = kv_cache_new(2, 8, 24, m->head_dim);
    Tensor *got = t_zeros(t_shape(x));
    for (int64_t t = 0; t < 24; t++) t_copy_(t_slice(got, 1, t, t + 1), llama_decode_step(m, t_slice(x, 1, t, t + 1), &f, c));
    CHECK_MSG(max_abs_diff(got, want) <= 1e-6, "dim 768: fast step %g from the reference step", max_abs_diff(got, want));
}

static void test_fast_step_errors(void) {
    FreqsCis f;
    LlamaAttention *m = load_group("gqa", &f);   /* dim 16, freqs for 7 positions */
    KVCache *c = kv_cache_new(2, m->n_local_kv_heads, 16, m->head_dim);
    CHECK_ERROR(llama_decode_step(m, t_zeros(SHAPE(2, 1, 12)), &f, c), "decode step: x (2, 1, 12) must be (bsz, n, "
                                                                        "dim) = (2, n, 16)");
    CHECK_ERROR(llama_decode_step(m, t_zeros(SHAPE(1, 1, 16)), &f, c), "must be (bsz, n, dim) = (2, n, 16)");
    CHECK_ERROR(llama_decode_step(m, t_zeros(SHAPE(2, 8, 16)), &f, c), "positions 0..7 need rows of freqs_cos, which "
                                                                        "has 7");
    CHECK_EQ_INT(c->len, 0);
}

/* ---- generation: chapter 10's tiny model, with and without the cache ----------------------------- */

static void test_generate_cached_equals_recompute(void) {
    t_manual_seed(5);
    TinyModel *model = tiny_model_new(8, 8, 32, 2);   /* untrained: any weights must agree */
    for (int prompt_len = 1; prompt_len <= 3; prompt_len++) {
        int32_t a[8] = {3, 0, 6}, b[8] = {3, 0, 6};
        KVCache *c = tiny_cache_new(model);
        for (int64_t len = prompt_len; len < 8; len++) {
            a[len] = len == prompt_len ? tiny_next_cached(model, c, a, len)
                                       : tiny_next_cached(model, c, a + len - 1, 1);
            b[len] = tiny_next_recompute(model, b, len);
            CHECK_EQ_INT(a[len], b[len]);
        }
        CHECK_EQ_INT(c->len, 7);
        int32_t extra = a[7];
        tiny_next_cached(model, c, &extra, 1);            /* position 7, the last one */
        CHECK_EQ_INT(c->len, 8);
        CHECK_ERROR(tiny_next_cached(model, c, &extra, 1), "the KV cache is full");
        CHECK_ERROR(tiny_next_cached(model, c, &extra, 1), "position 8 is past them");
        CHECK_EQ_INT(c->len, 8);
    }
}

/* ---- the book's own run -------------------------------------------------------------------- */

static void test_book_run_matches_pytorch(void) {
    /* torch.manual_seed(123); Attention(ModelConfig()); x = torch.rand(1, 50, 768) */
    t_manual_seed(123);
    ModelConfig a = {768, 16, 8, 512, 0.0};
    LlamaAttention *m = llama_attention_new(a);
    Tensor *x = t_rand(SHAPE(1, 50, 768));
    FreqsCis f = precompute_freqs_cis(768 / 16, 50, 10000.0);
    Tensor *out = llama_attention_forward(m, x, f.cos, f.sin, NULL);
    CHECK(t_same_shape(out, t_zeros(SHAPE(1, 50, 768))));
    CHECK_TENSOR_CLOSE(t_slice(t_slice(t_select(out, 0, 0), 0, 0, 4), 1, 0, 8), fx("book", "out_head"), RTOL, ATOL);
    CHECK_TENSOR_CLOSE(t_slice(t_slice(t_select(out, 0, 0), 0, 46, 50), 1, 760, 768), fx("book", "out_tail"), RTOL,
                       ATOL);
    Tensor *sums = fx("book", "out_sum");
    CHECK_CLOSE(t_sum_all(out), t_get(sums, 0), 1e-3);
    double abs_sum = 0.0;
    for (int64_t i = 0; i < t_numel(out); i++) abs_sum += fabs(t_flat_get(out, i));
    CHECK_CLOSE(abs_sum, t_get(sums, 1), 1e-2);
}

/* ---- errors ---------------------------------------------------------------------------------- */

static void test_config_errors(void) {
    ModelConfig a = {16, 4, 3, 8, 0.0};
    CHECK_ERROR(llama_attention_new(a), "n_kv_heads = 3 must divide n_heads = 4");
    a = (ModelConfig){12, 4, 2, 8, 0.0};
    CHECK_ERROR(llama_attention_new(a), "head_dim must be even and at least 2, but it is 3");
    a = (ModelConfig){2, 4, 2, 8, 0.0};
    CHECK_ERROR(llama_attention_new(a), "dim = 2 is smaller than n_heads = 4");
    a = (ModelConfig){16, 4, 2, 8, 1.5};
    CHECK_ERROR(llama_attention_new(a), "dropout = 1.5 is not a probability");
    CHECK_ERROR(precompute_freqs_cis(7, 4, 10000.0), "head_dim must be even");
}

static void test_forward_errors(void) {
    FreqsCis f;
    LlamaAttention *m = load_group("gqa", &f);   /* max_seq_len 10 */
    CHECK_ERROR(llama_attention_forward(m, t_zeros(SHAPE(1, 11, 16)), f.cos, f.sin, NULL),
                "sequence length 11 is longer than max_seq_len 10, the size of the causal mask buffer");
    CHECK_ERROR(llama_attention_forward(m, t_zeros(SHAPE(1, 3, 12)), f.cos, f.sin, NULL), "must be (bsz, seqlen, dim)");
    CHECK_ERROR(llama_attention_forward(m, t_zeros(SHAPE(1, 3, 16)), f.cos, f.sin, NULL),
                "must both be (seqlen, head_dim / 2) = (3, 2)");
    ModelConfig a = m->args;
    CHECK_ERROR(llama_attention_from(a, m->wq->weight, m->wq->weight, m->wv->weight, m->wo->weight),
                "wk.npy has shape (16, 16) but must be (n_kv_heads * head_dim, dim) = (8, 16)");
    CHECK_ERROR(llama_attention_from(a, m->wq->weight, m->wk->weight, m->wv->weight, m->wk->weight),
                "wo.npy has shape (8, 16) but must be (dim, n_heads * head_dim) = (16, 16)");
}

int main(void) {
    RUN(test_precompute_freqs_cis_matches_pytorch);
    RUN(test_apply_rotary_emb_matches_pytorch);
    RUN(test_precompute_freqs_cis_other_theta);
    RUN(test_rotary_emb_complex_is_meta_and_the_book);
    RUN(test_rope_turns_pairs_and_keeps_lengths);
    RUN(test_rope_scores_depend_on_the_offset);
    RUN(test_repeat_kv_matches_pytorch);
    RUN(test_attention_mha_gqa_mqa_match_pytorch);
    RUN(test_attention_shapes_and_params);
    RUN(test_rotate_half_trap);
    RUN(test_decode_equals_full_forward_at_every_step);
    RUN(test_prefill_in_chunks_equals_full_forward);
    RUN(test_prefill_in_chunks_random_shapes);
    RUN(test_prefill_in_chunks_errors);
    RUN(test_cache_full_is_an_error);
    RUN(test_cache_bytes);
    RUN(test_llama2_weight_bytes);
    RUN(test_linear_rows_is_linear);
    RUN(test_fast_step_equals_reference_step);
    RUN(test_fast_step_book_shape);
    RUN(test_fast_step_errors);
    RUN(test_generate_cached_equals_recompute);
    RUN(test_book_run_matches_pytorch);
    RUN(test_config_errors);
    RUN(test_forward_errors);
    return harness_finish("test_ch11");
}
