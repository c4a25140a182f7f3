/* test_ch13.c — chapter 13, a tiny LLaMA2: the forward (the book's manual path and the flash
 * path) and every gradient against PyTorch (tests/fixtures/ch13, scripts/golden/ch13.py: MHA
 * with a tied head, GQA with an unshared head, MQA), a finite-difference check of the
 * hand-written backward, llama2.c's .bin written byte for byte as its export.py writes it,
 * k_model.py's hidden_dim rule, the row kernels of fast_train.c against the plain loops they
 * replace, and the error sentences of the pieces. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "chapters/13_tiny_llama/checkpoint.h"
#include "chapters/13_tiny_llama/fast_train.h"
#include "chapters/13_tiny_llama/inspect.h"
#include "chapters/13_tiny_llama/train.h"

static const char *const CASES[3] = {"mha_shared", "gqa_unshared", "mqa_shared"};

static Tensor *fx(const char *c, const char *name) {
    char rel[200];
    snprintf(rel, sizeof rel, "ch13/%s/%s.npy", c, name);
    return load_fixture(rel);
}

static Transformer *model_of(const char *c) {
    char rel[200];
    snprintf(rel, sizeof rel, "ch13/%s/model.bin", c);
    return llama2c_load(fixture_path(rel));
}

/* max |a - b| / max |b|. */
static double rel_err(const Tensor *a, const Tensor *b) {
    double m = 0;
    for (int64_t i = 0; i < t_numel(b); i++) m = fmax(m, fabs((double)t_flat_get(b, i)));
    return t_max_abs_diff(a, b) / (m > 0 ? m : 1);
}

static int32_t *ids_of(const Tensor *t) {
    int32_t *ids = (int32_t *)t_alloc(sizeof *ids * (size_t)t_numel(t));
    for (int64_t i = 0; i < t_numel(t); i++) ids[i] = (int32_t)t_flat_get(t, i);
    return ids;
}

/* The fixture's int32 batch (B, T + 1): its bytes after the .npy header. */
static int32_t *batch_of(const char *c, int64_t *B, int64_t *cols) {
    char rel[200];
    snprintf(rel, sizeof rel, "ch13/%s/batch.npy", c);
    FILE *f = fopen(fixture_path(rel), "rb");
    CHECK(f != NULL);
    if (!f) return NULL;
    static unsigned char buf[8192];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    size_t hl = 10 + ((size_t)buf[8] | (size_t)buf[9] << 8);
    char *shape = strstr((char *)buf + 10, "'shape': (");
    CHECK(shape != NULL && strstr((char *)buf + 10, "<i4") != NULL);
    if (!shape) return NULL;
    *B = strtoll(shape + 10, &shape, 10);
    *cols = strtoll(shape + 1, NULL, 10);
    int32_t *ids = (int32_t *)t_alloc(sizeof *ids * (size_t)(*B * *cols));
    CHECK(n == hl + 4 * (size_t)(*B * *cols));
    memcpy(ids, buf + hl, 4 * (size_t)(*B * *cols));   /* little-endian int32 (the test machines are) */
    return ids;
}

#define RTOL 1e-4

static void test_forward_matches_pytorch(void) {
    for (int ci = 0; ci < 3; ci++) {
        const char *c = CASES[ci];
        Transformer *m = model_of(c);
        Tensor *tok = fx(c, "tokens");
        int64_t T = t_numel(tok);
        Tensor **attn = (Tensor **)t_alloc(sizeof *attn * (size_t)m->args.n_layers);
        Tensor *logits = t_select(transformer_forward(m, ids_of(tok), 1, T, attn), 0, 0);
        Tensor *want = fx(c, "logits");
        CHECK_MSG(t_same_shape(logits, want), "%s: logits shape", c);
        CHECK_MSG(rel_err(logits, want) < RTOL, "%s: logits differ from PyTorch by %g", c, rel_err(logits, want));
        for (int64_t l = 0; l < m->args.n_layers; l++) {
            char name[32];
            snprintf(name, sizeof name, "attn_%lld", (long long)l);
            Tensor *a = t_select(attn[l], 0, 0), *w = fx(c, name);
            CHECK_MSG(t_same_shape(a, w) && t_max_abs_diff(a, w) < RTOL, "%s: %s differs from PyTorch", c, name);
        }
        /* the flash path (k_model.py's F.scaled_dot_product_attention) gives the same logits */
        ModelCache cache;
        Tensor *lt = t_select(transformer_forward_train(m, ids_of(tok), 1, T, &cache), 0, 0);
        CHECK_MSG(rel_err(lt, want) < RTOL, "%s: flash-path logits differ from PyTorch by %g", c, rel_err(lt, want));
    }
}

static void test_grads_match_autograd(void) {
    for (int ci = 0; ci < 3; ci++) {
        const char *c = CASES[ci];
        Transformer *m = model_of(c);
        int64_t B = 0, cols = 0;
        int32_t *batch = batch_of(c, &B, &cols);
        if (!batch) continue;
        int64_t T = cols - 1;
        int32_t *in = (int32_t *)t_alloc(sizeof *in * (size_t)(B * T)), *tg = (int32_t *)t_alloc(sizeof *tg * (size_t)(B * T));
        for (int64_t b = 0; b < B; b++)
            for (int64_t t = 0; t < T; t++) in[b * T + t] = batch[b * cols + t], tg[b * T + t] = batch[b * cols + t + 1];
        ModelCache cache;
        Tensor *dlogits;
        double loss = cross_entropy(transformer_forward_train(m, in, B, T, &cache), tg, &dlogits);
        CHECK_CLOSE(loss, t_flat_get(fx(c, "loss"), 0), 1e-4);
        Tensor **g = transformer_backward(m, &cache, dlogits);
        CHECK_EQ_INT(m->n_params, 2 + 9 * (int)m->args.n_layers + (m->args.shared ? 0 : 1));
        for (int i = 0; i < m->n_params; i++) {
            char name[100];
            snprintf(name, sizeof name, "grads/%s", m->params[i].name);
            Tensor *want = fx(c, name);
            CHECK_MSG(t_same_shape(g[i], want), "%s: %s shape", c, m->params[i].name);
            CHECK_MSG(rel_err(g[i], want) < RTOL, "%s: %s differs from autograd by %g", c, m->params[i].name,
                      rel_err(g[i], want));
        }
    }
}

/* Central differences of the loss against the hand-written gradient, at the entry of largest
 * gradient of every parameter of the GQA model (float32 forward: eps 1e-2, 3% tolerance). */
static void test_finite_differences(void) {
    Transformer *m = model_of("gqa_unshared");
    int64_t B = 0, cols = 0;
    int32_t *batch = batch_of("gqa_unshared", &B, &cols);
    if (!batch) return;
    int64_t T = cols - 1;
    int32_t *in = (int32_t *)t_alloc(sizeof *in * (size_t)(B * T)), *tg = (int32_t *)t_alloc(sizeof *tg * (size_t)(B * T));
    for (int64_t b = 0; b < B; b++)
        for (int64_t t = 0; t < T; t++) in[b * T + t] = batch[b * cols + t], tg[b * T + t] = batch[b * cols + t + 1];
    ModelCache cache;
    Tensor *dl;
    cross_entropy(transformer_forward_train(m, in, B, T, &cache), tg, &dl);
    Tensor **g = transformer_backward(m, &cache, dl);
    for (int i = 0; i < m->n_params; i++) {
        float *p = t_data(m->params[i].p), *gd = t_data(g[i]);
        int64_t best = 0;
        for (int64_t j = 1; j < t_numel(g[i]); j++)
            if (fabsf(gd[j]) > fabsf(gd[best])) best = j;
        float keep = p[best], eps = 1e-2f;
        p[best] = keep + eps;
        double lp = cross_entropy(transformer_forward(m, in, B, T, NULL), tg, NULL);
        p[best] = keep - eps;
        double lm = cross_entropy(transformer_forward(m, in, B, T, NULL), tg, NULL);
        p[best] = keep;
        double fd = (lp - lm) / (2.0 * eps);
        CHECK_MSG(fabs(fd - gd[best]) <= 0.03 * fabs(fd) + 1e-4, "%s[%lld]: finite difference %g, backward %g",
                  m->params[i].name, (long long)best, fd, (double)gd[best]);
    }
}

/* Reading a fixture and writing it again gives PyTorch's export byte for byte (but the RoPE tables). */
static void test_bin_round_trip(void) {
    for (int ci = 0; ci < 3; ci++) {
        char rel[200];
        snprintf(rel, sizeof rel, "ch13/%s/model.bin", CASES[ci]);
        FILE *in = fopen(fixture_path(rel), "rb");
        CHECK(in != NULL);
        if (!in) continue;
        static unsigned char want[200000], got[200000];
        size_t nw = fread(want, 1, sizeof want, in);
        fclose(in);
        Transformer *m = llama2c_load(fixture_path(rel));
        CHECK_CLOSE(llama2c_file_bytes(&m->args), (double)nw, 0);
        FILE *f = tmpfile();
        CHECK(f != NULL);
        if (!f) continue;
        CHECK_EQ_INT(llama2c_write(f, m), 0);
        rewind(f);
        size_t ng = fread(got, 1, sizeof got, f);
        fclose(f);
        /* every byte is export.py's, but the two RoPE tables (run.c skips them): libm's cosf and sinf
         * may differ from torch.cos and torch.sin in the last bit */
        size_t fq = (size_t)(m->args.max_seq_len * m->head_dim) * 4;   /* both tables' bytes */
        size_t at = nw - fq - (m->args.shared ? 0 : (size_t)(m->args.vocab_size * m->args.dim) * 4);
        CHECK_MSG(ng == nw && memcmp(got, want, at) == 0 && memcmp(got + at + fq, want + at + fq, nw - at - fq) == 0,
                  "%s: written .bin differs from export.py's (%zu vs %zu bytes)", CASES[ci], ng, nw);
        double worst = 0;
        for (size_t i = at; i + 4 <= at + fq && ng == nw; i += 4) {
            float a, b;
            memcpy(&a, got + i, 4), memcpy(&b, want + i, 4);
            worst = fmax(worst, fabs((double)a - (double)b));
        }
        CHECK_MSG(worst < 1e-6, "%s: RoPE tables differ by %g", CASES[ci], worst);
    }
    /* the tokenizer too */
    Tokenizer *t = tokenizer_load(fixture_path("ch13/mha_shared/tokenizer.bin"), 11);
    CHECK_EQ_INT(t->max_token_length, 5);
    CHECK(strcmp(t->vocab[4], "\xe6\x98\xa5") == 0);   /* 春 */
    CHECK_EQ_INT(tokenizer_lookup(t, "\n", 1), 1);
    CHECK_ERROR(tokenizer_load(fixture_path("ch13/mha_shared/tokenizer.bin"), 12), "the file ends at token 11");
    CHECK_ERROR(tokenizer_load(fixture_path("ch13/mha_shared/tokenizer.bin"), 10), "bytes after its 10 tokens");
}

static void test_hidden_dim_rule(void) {
    CHECK_EQ_INT(llama_hidden_dim(16, 8), 48);       /* int(2 * 64 / 3) = 42 -> 48 */
    CHECK_EQ_INT(llama_hidden_dim(768, 64), 2048);   /* ModelConfig's defaults     */
    CHECK_EQ_INT(llama_hidden_dim(288, 32), 768);    /* stories15M's dim and hidden_dim */
}

static void test_errors(void) {
    LlamaConfig c = {16, 48, 1, 4, 3, 10, 8, true, 1e-5};
    CHECK_ERROR(transformer_new(c), "n_kv_heads 3 does not divide n_heads 4");
    c.n_kv_heads = 2, c.dim = 18;
    CHECK_ERROR(transformer_new(c), "dim 18 is not a multiple of n_heads 4");
    c.dim = 12;
    CHECK_ERROR(transformer_new(c), "head_dim = dim / n_heads = 3 is odd");
    c.dim = 16, c.vocab_size = 0;
    CHECK_ERROR(transformer_new(c), "must all be at least 1");
    c.vocab_size = 10;
    Transformer *m = transformer_new(c);
    int32_t bad[2] = {3, 10};
    CHECK_ERROR(transformer_forward(m, bad, 1, 2, NULL), "token 1 is 10, outside the vocabulary 0..9");
    int32_t ok[9] = {0};
    CHECK_ERROR(transformer_forward(m, ok, 1, 9, NULL), "1 to seq_len = 8 tokens at once, not 9");
    CHECK_ERROR(llama2c_load(fixture_path("ch13/mha_shared/tokens.npy")), "");
    CHECK_ERROR(llama2c_load(fixture_path("ch13/no_such.bin")), "cannot open the checkpoint");
}

/* Through the KV cache, the logits of every step equal the full forward's last row; greedy
 * decoding gives PyTorch's tokens (each from a full forward of everything so far). */
static void test_generation(void) {
    for (int ci = 0; ci < 3; ci++) {
        const char *c = CASES[ci];
        Transformer *m = model_of(c);
        Tensor *prompt = fx(c, "prompt"), *want = fx(c, "greedy");
        int64_t P = t_numel(prompt), N = t_numel(want);
        int32_t *seq = (int32_t *)t_alloc(sizeof *seq * (size_t)(P + N));
        memcpy(seq, ids_of(prompt), sizeof *seq * (size_t)P);
        int32_t *out = (int32_t *)t_alloc(sizeof *out * (size_t)N);
        generate(m, seq, P, N, 0.0, 1.0, out);
        for (int64_t i = 0; i < N; i++)
            CHECK_MSG(out[i] == (int32_t)t_flat_get(want, i), "%s: greedy token %lld is %d, PyTorch's %d", c,
                      (long long)i, out[i], (int)t_flat_get(want, i));
        memcpy(seq + P, out, sizeof *seq * (size_t)N);
        ModelKV *kv = model_kv_new(m);
        Tensor *step = transformer_step(m, kv, seq, P);
        for (int64_t t = P; t <= P + N - 1; t++) {
            Tensor *full = transformer_forward(m, seq, 1, t, NULL);   /* (1, t, V) */
            Tensor *last = t_select(t_select(full, 0, 0), 0, t - 1);
            CHECK_MSG(t_max_abs_diff(step, last) < 1e-4, "%s: cached logits at %lld differ by %g", c, (long long)t,
                      t_max_abs_diff(step, last));
            if (t < P + N - 1) step = transformer_step(m, kv, &seq[t], 1);
        }
    }
}

/* Sampling: temperature 0 is the argmax; top_p keeps only the most likely tokens; the same
 * seed draws the same tokens. */
static void test_sampling(void) {
    float z[5] = {1.0f, 3.0f, 2.9f, -1.0f, 0.5f};
    Tensor *l = t_from_array(SHAPE(5), z);
    CHECK_EQ_INT(sample_next(l, 0.0, 1.0), 1);
    /* p(1) + p(2) > 0.5 with p(1) < 0.5: top_p 0.5 keeps tokens 1 and 2 only */
    for (int i = 0; i < 50; i++) {
        int32_t s = sample_next(l, 1.0, 0.5);
        CHECK(s == 1 || s == 2);
    }
    /* a tiny top_p keeps one token: the argmax */
    CHECK_EQ_INT(sample_next(l, 1.0, 1e-6), 1);
    t_manual_seed(7);
    int32_t a[20], b[20];
    for (int i = 0; i < 20; i++) a[i] = sample_next(l, 1.5, 0.95);
    t_manual_seed(7);
    for (int i = 0; i < 20; i++) b[i] = sample_next(l, 1.5, 0.95);
    CHECK(memcmp(a, b, sizeof a) == 0);
}

/* Characters as tokens, the poems' cleaning, the unigram entropy, AdamW's schedule. */
static void test_text_and_training_pieces(void) {
    const char *raw = "\x1b[32m\xe3\x80\x8a\xe9\x9d\x99\xe5\xa4\x9c\xe6\x80\x9d\xe3\x80\x8b\x1b[m\n"
                      "\x1b[33m\xe4\xbd\x9c\xe8\x80\x85\x1b[m\n"
                      "\xe5\xba\x8a\xe5\x89\x8d\xef\xbc\x8c\xe6\x9c\x88\xe5\x85\x89\xe3\x80\x82\n%\n";
    size_t n;
    char *clean = clean_fortunes(raw, strlen(raw), &n);
    CHECK(n == 19 && memcmp(clean, "\xe5\xba\x8a\xe5\x89\x8d\xef\xbc\x8c\xe6\x9c\x88\xe5\x85\x89\xe3\x80\x82\n", 19) == 0);
    Corpus c = corpus_of("text", clean, n);            /* 床前，月光。\n: 7 characters, all distinct */
    CHECK_EQ_INT(c.n, 7);
    CHECK_EQ_INT(c.vocab_size, 7);
    CHECK_CLOSE(unigram_entropy(c.ids, c.n, c.vocab_size), log(7.0), 1e-12);
    int32_t ab[4] = {0, 0, 1, 1};
    CHECK_CLOSE(unigram_entropy(ab, 4, 2), log(2.0), 1e-12);
    Corpus back = corpus_from_tokenizer("tok", char_tokenizer(&c));
    CHECK(memcmp(back.vocab, c.vocab, sizeof *c.vocab * 7) == 0);
    int64_t k;
    CHECK_ERROR(corpus_encode(&c, "prompt", "\xe5\xba\x8aX", 4, &k), "character 1, 'X' (U+0058), is not in the model's vocabulary of 7");
    CHECK_ERROR(corpus_of("bad", "\xe5\xba", 2), "bad: byte 0 is not valid UTF-8");
    CHECK_ERROR(corpus_of("bad", "\xc0\xaf", 2), "bad: byte 0 is not valid UTF-8");   /* overlong '/' */
    size_t gl;
    char *g1 = generated_poems(5, 10, &gl), *g2;
    size_t gl2;
    g2 = generated_poems(5, 10, &gl2);
    CHECK(gl == gl2 && memcmp(g1, g2, gl) == 0);
    TrainConfig tc = {.steps = 100, .warmup = 10, .lr = 1e-3, .min_lr = 1e-4};
    CHECK_CLOSE(lr_at(&tc, 0), 1e-4, 1e-15);
    CHECK_CLOSE(lr_at(&tc, 9), 1e-3, 1e-15);
    CHECK_CLOSE(lr_at(&tc, 55), 5.5e-4, 1e-12);       /* half way down the cosine */
    CHECK_CLOSE(lr_at(&tc, 100), 1e-4, 1e-15);
    float g3[3] = {3, 4, 0};
    Tensor *gt = t_from_array(SHAPE(3), g3);
    CHECK_CLOSE(clip_grad_norm(&gt, 1, 1.0), 5.0, 1e-12);
    CHECK_CLOSE(t_flat_get(gt, 0), 0.6, 1e-6);
}

/* fast_train.c's kernels equal the plain loops they replace, at lengths that leave every
 * tail of their 16 and 64 partial results (1, 37, 2,500), and past exp's clamp (±100). */
static void test_row_kernels(void) {
    static const int64_t lens[3] = {1, 37, 2500};
    for (int k = 0; k < 3; k++) {
        int64_t n = lens[k];
        Tensor *x = t_mul_scalar(t_randn(SHAPE(n)), 4.0f);
        float *xd = t_data(x), *e = (float *)t_alloc(sizeof(float) * (size_t)n);
        if (n > 1) xd[n - 1] = 9.5f, xd[0] = -100.0f;
        float mx = xd[0];
        double sum = 0;
        for (int64_t j = 1; j < n; j++) mx = xd[j] > mx ? xd[j] : mx;
        CHECK(row_max(xd, n) == mx);
        for (int64_t j = 0; j < n; j++) sum += expf(xd[j] - mx);
        float got = row_exp_sum(xd, e, n, mx);
        CHECK_MSG(fabs(got - sum) <= 1e-6 * sum, "row_exp_sum of %lld: %.9g, expf's %.9g", (long long)n, got, sum);
        for (int64_t j = 0; j < n; j++)
            CHECK_MSG(fabsf(e[j] - expf(xd[j] - mx)) <= 2.5e-7f * expf(xd[j] - mx) + 1e-38f, "exp %lld", (long long)j);
        sigmoid_row(xd, e, n);
        for (int64_t j = 0; j < n; j++) {
            float want = 1.0f / (1.0f + expf(-xd[j]));
            CHECK_MSG(fabsf(e[j] - want) <= 3e-7f * want + 1e-30f, "sigmoid(%g): %.9g, not %.9g", xd[j], e[j], want);
        }
    }
    float big[2] = {100.0f, -100.0f}, s2[2];
    sigmoid_row(big, s2, 2);
    CHECK(s2[0] == 1.0f && s2[1] >= 0.0f && s2[1] < 1e-37f);
    /* RoPE's turn by -θ: chapter 11's rotary_emb with -sin (itself tested against PyTorch) */
    FreqsCis f = precompute_freqs_cis(8, 5, 10000.0);
    Tensor *dy = t_randn(SHAPE(2, 5, 3, 8));
    CHECK_TENSOR_CLOSE(rope_backward(dy, f.cos, f.sin), rotary_emb(dy, f.cos, t_mul_scalar(f.sin, -1.0f)), 1e-6, 1e-7);
    Tensor *dyt = t_transpose(t_randn(SHAPE(2, 3, 5, 8)), 1, 2);      /* strided, as the backward passes it */
    CHECK_TENSOR_CLOSE(rope_backward(dyt, f.cos, f.sin), rotary_emb(dyt, f.cos, t_mul_scalar(f.sin, -1.0f)), 1e-6,
                       1e-7);
    CHECK_ERROR(rope_backward(t_randn(SHAPE(2, 4, 3, 8)), f.cos, f.sin),
                "rope: x must be (bsz, seqlen, heads, head_dim) and freqs_cos, freqs_sin (seqlen, head_dim / 2)");
    /* AdamW's update, element by element as adamw_step wrote it */
    float w[19], m[19], v[19], g[19], w2[19], m2[19], v2[19];
    for (int j = 0; j < 19; j++) w[j] = w2[j] = 0.1f * (float)j - 0.9f, m[j] = m2[j] = 0.01f * (float)(j % 5),
                                 v[j] = v2[j] = 0.001f * (float)j, g[j] = 0.3f - 0.05f * (float)j;
    adamw_update(w, m, v, g, 19, 3e-3, 0.1, 0.9, 0.95, 1 - 0.9 * 0.9, 1 - 0.95 * 0.95, 1e-8);
    for (int j = 0; j < 19; j++) {
        w2[j] = (float)(w2[j] * (1 - 3e-3 * 0.1));
        m2[j] = (float)(0.9 * m2[j] + (1 - 0.9) * g[j]);
        v2[j] = (float)(0.95 * v2[j] + (1 - 0.95) * (double)g[j] * g[j]);
        w2[j] = (float)(w2[j] - 3e-3 * (m2[j] / (1 - 0.9 * 0.9)) / (sqrt(v2[j] / (1 - 0.95 * 0.95)) + 1e-8));
        CHECK_MSG(fabsf(w[j] - w2[j]) <= 1e-7f && fabsf(m[j] - m2[j]) <= 1e-9f && fabsf(v[j] - v2[j]) <= 1e-10f,
                  "adamw_update %d: w %.9g m %.9g v %.9g, not %.9g %.9g %.9g", j, w[j], m[j], v[j], w2[j], m2[j], v2[j]);
    }
}

/* A few steps on a tiny model lower the loss of the batch they train on, and the same seed
 * gives the same weights. */
static void test_training_steps(void) {
    float w[2];
    for (int run = 0; run < 2; run++) {
        t_manual_seed(3);
        LlamaConfig lc = {16, 32, 1, 2, 1, 11, 12, true, 1e-5};
        Transformer *m = transformer_new(lc);
        transformer_init(m);
        AdamW *opt = adamw_new(m);
        TrainConfig tc = {.steps = 8, .warmup = 1, .batch = 2, .seq_len = 8, .lr = 1e-2, .min_lr = 1e-3,
                          .weight_decay = 0.1, .beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8, .grad_clip = 1.0};
        int32_t ids[40];
        for (int i = 0; i < 40; i++) ids[i] = (i * 7) % 11;
        int32_t in[16], tg[16];
        get_batch(ids, 40, 2, 8, -1, in, tg);
        double first = 0, last = 0;
        for (int64_t it = 0; it < tc.steps; it++) {
            double l = train_step(m, opt, &tc, in, tg, lr_at(&tc, it));
            if (it == 0) first = l;
            last = l;
        }
        t_keep_release();   /* the steps' kept memory: the second run's steps start from fresh blocks */
        CHECK_MSG(last < first - 0.5, "training did not lower the loss: %g -> %g", first, last);
        w[run] = t_flat_get(m->tok_embeddings, 5);
    }
    CHECK(w[0] == w[1]);
}

/* Windows drawn to start at a line's start: each begins right after the line break (or at the
 * text's start), unless no line starts within seq_len characters before the draw. */
static void test_line_start_windows(void) {
    int32_t ids[60];
    for (int i = 0; i < 60; i++) ids[i] = i % 6 == 5 ? 9 : 10 + i;   /* a line break (id 9) every 6 */
    int32_t in[32 * 6], tg[32 * 6];   /* seq_len 6: a line start at most 6 before every draw */
    t_manual_seed(1);
    get_batch(ids, 60, 32, 6, 9, in, tg);
    for (int b = 0; b < 32; b++) {
        int64_t s = 0;
        while (s < 60 && memcmp(ids + s, in + b * 6, sizeof *in * 6) != 0) s++;   /* the window's start */
        CHECK_MSG(s < 60 && (s == 0 || ids[s - 1] == 9), "window %d starts at %lld, not at a line's start", b,
                  (long long)s);
        CHECK(tg[b * 6] == ids[s + 1]);
    }
    /* one line break, at 2: a draw at 1..2 goes back to the text's start, at 4..6 to 3; a line
     * start more than seq_len (3) before, or none, leaves the window where it was drawn */
    int32_t flat[20], in2[8 * 3], tg2[8 * 3], in3[8 * 3], tg3[8 * 3];
    for (int i = 0; i < 20; i++) flat[i] = i == 2 ? 9 : 10 + i;
    t_manual_seed(2);
    get_batch(flat, 20, 8, 3, -1, in2, tg2);
    t_manual_seed(2);
    get_batch(flat, 20, 8, 3, 9, in3, tg3);
    for (int b = 0; b < 8; b++) {
        int64_t s = 0;
        while (s < 20 && memcmp(flat + s, in2 + b * 3, sizeof *in2 * 3) != 0) s++;
        int64_t want = s <= 2 ? 0 : s <= 6 ? 3 : s;
        CHECK_MSG(memcmp(in3 + b * 3, flat + want, sizeof *in3 * 3) == 0, "window %d drawn at %lld", b, (long long)s);
    }
}

/* The head roles of heads that spread their weight evenly (wq = 0: every score 0) are exactly
 * uniform: each mass equals its uniform share, over the keys the query sees. A window that
 * starts inside a line does not know where that line started: no place in it is counted. */
static void test_head_roles_uniform(void) {
    const char *text = "ab,cd.\nef,gh.\nij,kl.\n";
    Corpus c = corpus_of("text", text, strlen(text));
    LlamaConfig lc = {8, 16, 1, 2, 1, c.vocab_size, 4, true, 1e-5};
    t_manual_seed(4);
    Transformer *m = transformer_new(lc);
    transformer_init(m);
    float *q = t_data(m->layers[0].attention->wq->weight);
    for (int64_t i = 0; i < t_numel(m->layers[0].attention->wq->weight); i++) q[i] = 0;
    HeadRole r[2];
    head_roles(m, c.ids, c.cps, c.n, 4, 100, r);
    for (int h = 0; h < 2; h++)
        for (int k = 0; k < N_ROLES; k++)
            CHECK_MSG(fabs(r[h].mass[k] - r[h].uniform[k]) < 1e-6, "head %d, role %d: %g, uniform %g", h, k,
                      r[h].mass[k], r[h].uniform[k]);
    /* windows ab,c  d.\ne  f,gh  .\nij  ,kl.: only c looks back to the same place (a), and
     * f,gh starts inside the line ef: g is not counted against f */
    CHECK_MSG(r[0].queries[ROLE_SAME_POS] == 1, "%lld queries on the same place, want 1",
              (long long)r[0].queries[ROLE_SAME_POS]);
    CHECK_CLOSE(r[0].uniform[ROLE_SAME_POS], 1.0 / 4.0, 1e-12);   /* c is at t = 3: 4 keys */
    CHECK(r[0].queries[ROLE_PREV] == 15);                         /* t = 1..3 of 5 windows */
    CHECK(r[0].queries[ROLE_LINE_START] == 4);                     /* b, h, j, l: after their line's start */
    CHECK(r[0].queries[ROLE_SAME_IN] == 1 && r[0].queries[ROLE_SAME_ACROSS] == 0); /* a's line ends in , */
    /* after a line that ends in . and a line break: c and d look back across, c's next place is b */
    Corpus c2 = corpus_of("text", "ab.\ncd", 6);
    LlamaConfig lc2 = {8, 16, 1, 2, 1, c2.vocab_size, 6, true, 1e-5};
    Transformer *m2 = transformer_new(lc2);
    transformer_init(m2);
    q = t_data(m2->layers[0].attention->wq->weight);
    for (int64_t i = 0; i < t_numel(m2->layers[0].attention->wq->weight); i++) q[i] = 0;
    head_roles(m2, c2.ids, c2.cps, c2.n, 6, 100, r);
    CHECK_MSG(r[0].queries[ROLE_SAME_ACROSS] == 2 && r[0].queries[ROLE_SAME_IN] == 0, "%lld across, %lld within",
              (long long)r[0].queries[ROLE_SAME_ACROSS], (long long)r[0].queries[ROLE_SAME_IN]);
    CHECK(r[0].queries[ROLE_NEXT_ACROSS] == 1 && r[0].queries[ROLE_NEXT_IN] == 0);
    CHECK(r[0].queries[ROLE_SAME_POS] == 2 && r[0].queries[ROLE_NEXT_POS] == 1);
    CHECK_CLOSE(head_role_ratio(&r[0], ROLE_SAME_ACROSS), 1.0, 1e-6);
    CHECK_CLOSE(head_role_ratio(&r[0], ROLE_SAME_IN), 0.0, 0);     /* no query: 0 */
}

/* llama2.c's BPE encode against run.c's (restated in scripts/golden/ch13.py), byte fallback and
 * merges by score; decode of byte pieces and of the space after BOS. */
static void test_bpe(void) {
    static const char *const texts[6] = {"abc", "ab c", "cab", "\xe6\x98\xa5\xe7\x9c\xa0\xe4\xb8\x8d\xe8\xa7\x89\xe6\x99\x93",
                                         "a\xc3\xa9\x62", "bcab abc"};
    Tokenizer *t = tokenizer_load(fixture_path("ch13/bpe/tokenizer.bin"), 275);
    for (int k = 0; k < 6; k++) {
        char name[32];
        snprintf(name, sizeof name, "ids_%d", k);
        Tensor *want = fx("bpe", name);
        int64_t n;
        int32_t *ids = bpe_encode(t, texts[k], true, &n);
        CHECK_MSG(n == t_numel(want), "bpe %d: %lld ids, run.c's encode gives %lld", k, (long long)n,
                  (long long)t_numel(want));
        for (int64_t i = 0; i < n && i < t_numel(want); i++)
            CHECK_MSG(ids[i] == (int32_t)t_flat_get(want, i), "bpe %d: id %lld is %d, run.c's %d", k, (long long)i,
                      ids[i], (int)t_flat_get(want, i));
    }
    CHECK(strcmp(bpe_decode(t, 5, 3 + 0x41), "A") == 0);   /* <0x41> */
    CHECK(strcmp(bpe_decode(t, 1, 268), "abc") == 0);     /* " abc" after BOS */
    CHECK(strcmp(bpe_decode(t, 7, 268), " abc") == 0);
}

int main(void) {
    RUN(test_forward_matches_pytorch);
    RUN(test_grads_match_autograd);
    RUN(test_finite_differences);
    RUN(test_bin_round_trip);
    RUN(test_hidden_dim_rule);
    RUN(test_errors);
    RUN(test_generation);
    RUN(test_sampling);
    RUN(test_text_and_training_pieces);
    RUN(test_row_kernels);
    RUN(test_training_steps);
    RUN(test_line_start_windows);
    RUN(test_head_roles_uniform);
    RUN(test_bpe);
    return harness_finish("test_ch13");
}
