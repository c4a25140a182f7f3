/* train.c — chapter 13: characters as tokens, the Tang poems (or a generated corpus of
 * their shape), and the training loop: AdamW, warmup and cosine decay, gradient clipping. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"
#include "fast_train.h"

/* ---- UTF-8 ----------------------------------------------------------------------------------- */

int32_t *utf8_decode(const char *what, const unsigned char *s, size_t len, int64_t *n) {
    int32_t *out = (int32_t *)t_alloc(sizeof *out * (len + 1));
    int64_t k = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        int extra = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
        int32_t cp = extra == 0 ? c : extra == 1 ? c & 0x1f : extra == 2 ? c & 0x0f : c & 0x07;
        bool ok = extra >= 0 && i + (size_t)extra < len;
        for (int j = 1; ok && j <= extra; j++) {
            ok = (s[i + (size_t)j] & 0xc0) == 0x80;
            cp = cp << 6 | (s[i + (size_t)j] & 0x3f);
        }
        /* shortest form only, no surrogates, at most U+10FFFF */
        static const int32_t least[4] = {0, 0x80, 0x800, 0x10000};
        ok = ok && cp >= least[extra < 0 ? 0 : extra] && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
        if (!ok) t_error(t_tr("%s: byte %zu is not valid UTF-8 (the chapter reads text as UTF-8 characters)"), what, i);
        out[k++] = cp;
        i += (size_t)extra + 1;
    }
    *n = k;
    return out;
}

int utf8_encode(int32_t cp, char *o) {
    if (cp < 0x80) return o[0] = (char)cp, 1;
    if (cp < 0x800) return o[0] = (char)(0xc0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3f)), 2;
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12), o[1] = (char)(0x80 | (cp >> 6 & 0x3f)), o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18), o[1] = (char)(0x80 | (cp >> 12 & 0x3f)), o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* ---- the texts ---------------------------------------------------------------------------------- */

char *clean_fortunes(const char *text, size_t len, size_t *out_len) {
    char *out = (char *)t_alloc(len + 2);
    size_t k = 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n') e++;
        const char *line = text + i;
        size_t n = e - i;
        while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ')) n--;
        bool colour = memchr(line, 0x1b, n) != NULL;          /* ESC[32m title ESC[m, ESC[33m author ESC[m */
        bool separator = n == 1 && line[0] == '%';            /* between poems */
        if (!colour && !separator && n > 0) {
            memcpy(out + k, line, n);
            k += n;
            out[k++] = '\n';
        }
        i = e + 1;
    }
    *out_len = k;
    return out;
}

/* A small generator for the made-up poems (xorshift64*), seeded, independent of the torch one. */
static uint64_t xs_state;
static uint32_t xs_next(uint32_t n) {
    xs_state ^= xs_state >> 12, xs_state ^= xs_state << 25, xs_state ^= xs_state >> 27;
    return (uint32_t)((xs_state * 2685821657736338717ULL) >> 33) % n;
}

char *generated_poems(uint64_t seed, int poems, size_t *out_len) {
    /* pairs of words that face each other in parallel lines (对仗): the first half takes one
     * side, the second half the other side at the same position */
    static const char *const left = "天山风花春日云江月青白高孤长明";
    static const char *const right = "地水雨叶秋星雾海霜红黑低双短暗";
    static const char *const filler = "我君人心不无有何时去来见思行远近归望梦酒歌声落飞照流生";
    /* rhyme groups: each poem ends its couplets in one group */
    static const char *const rhymes[5] = {"东中空同钟", "山间还闲关", "来开台哀回", "天年前边烟", "花家霞沙涯"};
    int32_t lc[64], rc[64], fc[64], rh[5][8];
    int64_t nl, nr, nf, nrh[5];
    int32_t *p = utf8_decode("poems", (const unsigned char *)left, strlen(left), &nl);
    memcpy(lc, p, sizeof *p * (size_t)nl);
    p = utf8_decode("poems", (const unsigned char *)right, strlen(right), &nr);
    memcpy(rc, p, sizeof *p * (size_t)nr);
    p = utf8_decode("poems", (const unsigned char *)filler, strlen(filler), &nf);
    memcpy(fc, p, sizeof *p * (size_t)nf);
    for (int g = 0; g < 5; g++) {
        p = utf8_decode("poems", (const unsigned char *)rhymes[g], strlen(rhymes[g]), &nrh[g]);
        memcpy(rh[g], p, sizeof *p * (size_t)nrh[g]);
    }
    xs_state = seed * 0x9E3779B97F4A7C15ULL + 1;
    size_t cap = (size_t)poems * 4 * 2 * 8 * 4 + 16, k = 0;
    char *out = (char *)t_alloc(cap);
    for (int q = 0; q < poems; q++) {
        int L = xs_next(2) ? 7 : 5, g = (int)xs_next(5), lines = xs_next(2) ? 4 : 2;
        for (int ln = 0; ln < lines; ln++) {
            int32_t first[7], second[7];
            for (int i = 0; i < L; i++) {
                if (xs_next(3) == 0) {                      /* a plain word, the same in both halves' place */
                    first[i] = fc[xs_next((uint32_t)nf)];
                    second[i] = fc[xs_next((uint32_t)nf)];
                } else {                                    /* a facing pair */
                    uint32_t j = xs_next((uint32_t)nl);
                    bool swap = xs_next(2);
                    first[i] = swap ? rc[j] : lc[j];
                    second[i] = swap ? lc[j] : rc[j];
                }
            }
            second[L - 1] = rh[g][xs_next((uint32_t)nrh[g])];   /* the rhyme */
            for (int i = 0; i < L; i++) k += (size_t)utf8_encode(first[i], out + k);
            k += (size_t)utf8_encode(0xff0c, out + k);            /* ， */
            for (int i = 0; i < L; i++) k += (size_t)utf8_encode(second[i], out + k);
            k += (size_t)utf8_encode(0x3002, out + k);            /* 。 */
            out[k++] = '\n';
        }
    }
    *out_len = k;
    return out;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int64_t find_cp(const int32_t *vocab, int64_t n, int32_t cp) {
    int64_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        int64_t mid = (lo + hi) / 2;
        if (vocab[mid] == cp) return mid;
        if (vocab[mid] < cp) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

Corpus corpus_of(const char *what, const char *text, size_t len) {
    Corpus c;
    c.cps = utf8_decode(what, (const unsigned char *)text, len, &c.n);
    if (c.n < 2) t_error(t_tr("%s: the text has %lld characters; training needs at least 2"), what, (long long)c.n);
    int32_t *sorted = (int32_t *)t_alloc(sizeof *sorted * (size_t)c.n);
    memcpy(sorted, c.cps, sizeof *sorted * (size_t)c.n);
    qsort(sorted, (size_t)c.n, sizeof *sorted, cmp_i32);
    c.vocab = (int32_t *)t_alloc(sizeof *c.vocab * (size_t)c.n);
    c.vocab_size = 0;
    for (int64_t i = 0; i < c.n; i++)
        if (i == 0 || sorted[i] != sorted[i - 1]) c.vocab[c.vocab_size++] = sorted[i];
    c.ids = (int32_t *)t_alloc(sizeof *c.ids * (size_t)c.n);
    for (int64_t i = 0; i < c.n; i++) c.ids[i] = (int32_t)find_cp(c.vocab, c.vocab_size, c.cps[i]);
    return c;
}

int32_t *corpus_encode(const Corpus *c, const char *what, const char *text, size_t len, int64_t *n) {
    int32_t *cps = utf8_decode(what, (const unsigned char *)text, len, n);
    int32_t *ids = (int32_t *)t_alloc(sizeof *ids * (size_t)(*n > 0 ? *n : 1));
    for (int64_t i = 0; i < *n; i++) {
        int64_t id = find_cp(c->vocab, c->vocab_size, cps[i]);
        if (id < 0) {
            char u[5] = {0};
            utf8_encode(cps[i], u);
            t_error(t_tr("%s: character %lld, '%s' (U+%04X), is not in the model's vocabulary of %lld characters"),
                    what, (long long)i, cps[i] >= 0x20 ? u : "?", (unsigned)cps[i], (long long)c->vocab_size);
        }
        ids[i] = (int32_t)id;
    }
    return ids;
}

Corpus corpus_from_tokenizer(const char *what, const Tokenizer *t) {
    Corpus c = {0};
    c.vocab_size = t->vocab_size;
    c.vocab = (int32_t *)t_alloc(sizeof *c.vocab * (size_t)t->vocab_size);
    for (int32_t i = 0; i < t->vocab_size; i++) {
        int64_t n = 0;
        int32_t *cp = utf8_decode(what, (const unsigned char *)t->vocab[i], (size_t)t->lens[i], &n);
        if (n != 1 || (i > 0 && cp[0] <= c.vocab[i - 1]))
            t_error(t_tr("%s: token %d is not one character in code point order: this is not a character tokenizer "
                    "(the chapter's .tok)"), what, i);
        c.vocab[i] = cp[0];
    }
    return c;
}

Tokenizer *char_tokenizer(const Corpus *c) {
    Tokenizer *t = (Tokenizer *)t_alloc(sizeof *t);
    t->vocab_size = (int32_t)c->vocab_size;
    t->vocab = (char **)t_alloc(sizeof *t->vocab * (size_t)c->vocab_size);
    t->lens = (int32_t *)t_alloc(sizeof *t->lens * (size_t)c->vocab_size);
    t->scores = (float *)t_alloc(sizeof *t->scores * (size_t)c->vocab_size);
    t->max_token_length = 1;
    for (int64_t i = 0; i < c->vocab_size; i++) {
        t->vocab[i] = (char *)t_alloc(5);
        t->lens[i] = utf8_encode(c->vocab[i], t->vocab[i]);
        if (t->lens[i] > t->max_token_length) t->max_token_length = t->lens[i];
    }
    return t;
}

double unigram_entropy(const int32_t *ids, int64_t n, int64_t vocab_size) {
    int64_t *count = (int64_t *)t_alloc(sizeof *count * (size_t)vocab_size);
    for (int64_t i = 0; i < n; i++) count[ids[i]]++;
    double h = 0;
    for (int64_t v = 0; v < vocab_size; v++)
        if (count[v]) {
            double p = (double)count[v] / (double)n;
            h -= p * log(p);
        }
    return h;
}

/* ---- the optimizer ----------------------------------------------------------------------------- */

AdamW *adamw_new(const Transformer *model) {
    AdamW *o = (AdamW *)t_alloc(sizeof *o);
    o->m = (Tensor **)t_alloc(sizeof *o->m * (size_t)model->n_params);
    o->v = (Tensor **)t_alloc(sizeof *o->v * (size_t)model->n_params);
    for (int i = 0; i < model->n_params; i++) {
        o->m[i] = t_zeros(t_shape(model->params[i].p));
        o->v[i] = t_zeros(t_shape(model->params[i].p));
    }
    return o;
}

double lr_at(const TrainConfig *tc, int64_t it) {
    if (it < tc->warmup) return tc->lr * (double)(it + 1) / (double)tc->warmup;   /* linear warmup */
    if (tc->steps <= tc->warmup) return tc->lr;
    double ratio = (double)(it - tc->warmup) / (double)(tc->steps - tc->warmup);
    if (ratio > 1) ratio = 1;
    double coeff = 0.5 * (1.0 + cos(3.14159265358979323846 * ratio));          /* 1 -> 0 */
    return tc->min_lr + coeff * (tc->lr - tc->min_lr);
}

double clip_grad_norm(Tensor **grads, int n, double clip) {
    double ss = 0;
    for (int i = 0; i < n; i++) {
        const float *g = t_data(grads[i]);
        for (int64_t j = 0, n_i = t_numel(grads[i]); j < n_i; j++) ss += (double)g[j] * g[j];
    }
    double norm = sqrt(ss);
    /* clip_coef = max_norm / (total_norm + 1e-6); grads *= clamp(clip_coef, max=1.0) */
    double coef = clip / (norm + 1e-6);
    if (coef < 1)
        for (int i = 0; i < n; i++) {
            float *g = t_data(grads[i]);
            for (int64_t j = 0, n_i = t_numel(grads[i]); j < n_i; j++) g[j] = (float)(g[j] * coef);
        }
    return norm;
}

void adamw_step(AdamW *o, Transformer *model, Tensor **grads, const TrainConfig *tc, double lr) {
    o->step++;
    double bc1 = 1 - pow(tc->beta1, (double)o->step), bc2 = 1 - pow(tc->beta2, (double)o->step);
    for (int i = 0; i < model->n_params; i++) {
        Tensor *p = model->params[i].p;
        float *w = t_data(p), *m = t_data(o->m[i]), *v = t_data(o->v[i]);
        const float *g = t_data(grads[i]);
        double wd = p->ndim == 2 ? tc->weight_decay : 0;   /* decay the matrices only */
        /* per element: w *= 1 - lr wd; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g²;
         * w -= lr (m / bc1) / (sqrt(v / bc2) + eps)   (fast_train.c, eight at a time) */
        adamw_update(w, m, v, g, t_numel(p), lr, wd, tc->beta1, tc->beta2, bc1, bc2, tc->eps);
    }
}

double train_step(Transformer *model, AdamW *opt, const TrainConfig *tc, const int32_t *inputs,
                  const int32_t *targets, double lr) {
    t_scope_begin();   /* the step's activations and gradients: their memory is kept at its end */
    ModelCache cache;
    Tensor *dlogits;
    double loss = cross_entropy(transformer_forward_train(model, inputs, tc->batch, tc->seq_len, &cache), targets,
                                &dlogits);
    Tensor **grads = transformer_backward(model, &cache, dlogits);   /* loss.backward() */
    clip_grad_norm(grads, model->n_params, tc->grad_clip);
    adamw_step(opt, model, grads, tc, lr);
    /* every step makes the same tensors: the next one reuses this one's memory (zeroed) instead of
     * fresh pages, a page fault for each 4 KiB (the caller frees it: t_keep_release) */
    t_scope_end_keep();
    return loss;
}

void get_batch(const int32_t *ids, int64_t n, int64_t B, int64_t T, int32_t line_break, int32_t *inputs,
               int32_t *targets) {
    t_scope_begin();
    /* ix = torch.randint(len(data) - block_size, (batch_size,)) */
    Tensor *ix = t_randint(0, n - T, SHAPE(B));
    for (int64_t b = 0; b < B; b++) {
        int64_t s = (int64_t)t_flat_get(ix, b), back = s;
        /* back to the start of its line, when one is at most T characters before: then every window's
         * positions count places in the lines the same way */
        while (line_break >= 0 && back > 0 && back > s - T && ids[back - 1] != line_break) back--;
        if (line_break >= 0 && (back == 0 || ids[back - 1] == line_break)) s = back;
        for (int64_t t = 0; t < T; t++) inputs[b * T + t] = ids[s + t], targets[b * T + t] = ids[s + t + 1];
    }
    t_scope_end();
}

double evaluate(const Transformer *model, const int32_t *ids, int64_t n, int64_t seq_len, int64_t max_windows) {
    double total = 0;
    int64_t count = 0;
    for (int64_t s = 0, w = 0; s + 1 < n && w < max_windows; s += seq_len, w++) {
        int64_t T = n - 1 - s < seq_len ? n - 1 - s : seq_len;
        t_scope_begin();
        Tensor *logits = transformer_forward(model, ids + s, 1, T, NULL);
        total += cross_entropy(logits, ids + s + 1, NULL) * (double)T;
        count += T;
        t_scope_end();
    }
    return count ? total / (double)count : 0;
}
