/* test_ch13.c — chapter 13, a tiny LLaMA2: the forward (the book's manual path and the flash
 * path) and every gradient against PyTorch (tests/fixtures/ch13, scripts/golden/ch13.py: MHA
 * with a tied head, GQA with an unshared head, MQA), a finite-difference check of the
 * hand-written backward, llama2.c's .bin written byte for byte as its export.py writes it,
 * k_model.py's hidden_dim rule, and the error sentences of the pieces. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "chapters/13_tiny_llama/checkpoint.h"

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

int main(void) {
    RUN(test_forward_matches_pytorch);
    RUN(test_grads_match_autograd);
    RUN(test_finite_differences);
    RUN(test_bin_round_trip);
    RUN(test_hidden_dim_rule);
    RUN(test_errors);
    return harness_finish("test_ch13");
}
