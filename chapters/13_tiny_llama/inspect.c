/* inspect.c — chapter 13: generation through chapter 11's KV cache, and the roles of the heads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

/* ---- generation --------------------------------------------------------------------------------- */

ModelKV *model_kv_new(const Transformer *m) {
    ModelKV *kv = (ModelKV *)t_alloc(sizeof *kv);
    kv->caches = (KVCache **)t_alloc(sizeof *kv->caches * (size_t)m->args.n_layers);
    for (int64_t l = 0; l < m->args.n_layers; l++)
        kv->caches[l] = kv_cache_new(1, m->args.n_kv_heads, m->args.max_seq_len, m->head_dim);
    return kv;
}

Tensor *transformer_step(const Transformer *m, ModelKV *kv, const int32_t *tokens, int64_t n) {
    if (kv->pos + n > m->args.max_seq_len)
        t_error(t_tr("generation: %lld positions would pass the model's seq_len %lld"), (long long)(kv->pos + n),
                (long long)m->args.max_seq_len);
    double eps = m->args.norm_eps;
    Tensor *h = embedding(m->tok_embeddings, tokens, 1, n);   /* (1, n, dim) */
    for (int64_t l = 0; l < m->args.n_layers; l++) {
        const DecoderLayer *L = &m->layers[l];
        /* h = x + attention(attention_norm(x)), positions pos..pos + n - 1 against the cache (chapter 11) */
        h = t_add(h, llama_attention_step(L->attention, rms_norm(h, L->attention_norm, eps, NULL), &m->freqs,
                                          kv->caches[l]));
        Tensor *hn = rms_norm(h, L->ffn_norm, eps, NULL);
        h = t_add(h, nn_linear_forward(L->w2, swiglu(nn_linear_forward(L->w1, hn), nn_linear_forward(L->w3, hn))));
    }
    kv->pos += n;
    Tensor *last = t_slice(h, 1, n - 1, n);                  /* only the last position's logits */
    return t_reshape(nn_linear_forward(m->output, rms_norm(last, m->norm, eps, NULL)), SHAPE(m->args.vocab_size));
}

typedef struct {
    float p;
    int32_t id;
} Prob;

static int by_prob_desc(const void *a, const void *b) {
    const Prob *x = (const Prob *)a, *y = (const Prob *)b;
    if (x->p != y->p) return x->p < y->p ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}

int32_t sample_next(const Tensor *logits, double temperature, double top_p) {
    int64_t V = t_numel(logits);
    const float *z = t_data(t_contiguous(logits));
    int32_t best = 0;
    for (int64_t j = 1; j < V; j++)
        if (z[j] > z[best]) best = (int32_t)j;
    if (temperature <= 0) return best;                           /* greedy: torch.argmax */
    Prob *p = (Prob *)t_alloc(sizeof *p * (size_t)V);
    double sum = 0;
    for (int64_t j = 0; j < V; j++) {                            /* softmax(logits / temperature) */
        p[j].p = (float)exp((z[j] - z[best]) / temperature);
        p[j].id = (int32_t)j;
        sum += p[j].p;
    }
    for (int64_t j = 0; j < V; j++) p[j].p = (float)(p[j].p / sum);
    qsort(p, (size_t)V, sizeof *p, by_prob_desc);                /* torch.sort(probs, descending=True) */
    int64_t keep = 0;
    double cum = 0;
    while (keep < V && cum <= top_p) cum += p[keep++].p;         /* cumsum - probs_sort > top_p is cut */
    double r = (double)t_flat_get(t_rand(SHAPE(1)), 0) * cum, acc = 0;
    for (int64_t j = 0; j < keep; j++) {                         /* torch.multinomial over what is kept */
        acc += p[j].p;
        if (r < acc) return p[j].id;
    }
    return p[keep - 1].id;
}

void generate(const Transformer *m, const int32_t *prompt, int64_t n, int64_t n_new, double temperature,
              double top_p, int32_t *out) {
    ModelKV *kv = model_kv_new(m);
    Tensor *logits = transformer_step(m, kv, prompt, n);         /* prefill */
    for (int64_t i = 0; i < n_new; i++) {
        out[i] = sample_next(logits, temperature, top_p);
        if (i + 1 < n_new) logits = transformer_step(m, kv, &out[i], 1);   /* one position through the cache */
    }
}

/* ---- head roles ------------------------------------------------------------------------------- */

bool is_punct(int32_t cp) {
    static const int32_t marks[] = {0xff0c, 0x3002, 0xff1f, 0xff01, 0xff1b, 0xff1a, 0x3001, '\n', ',', '.', '?', '!',
                                    ';', ':'};
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
        if (cp == marks[i]) return true;
    return false;
}

/* the weight row[key] on role k of query t, beside a uniform head's u */
static void add_role(HeadRole *r, int k, double w, double u) {
    r->mass[k] += w, r->uniform[k] += u, r->queries[k]++;
}

/* Does the line before the one starting at `start` (it started at prev) end in a comma? */
static bool after_comma(const int32_t *c, int64_t prev, int64_t start) {
    for (int64_t j = start - 1; j > prev && is_punct(c[j]); j--)
        if (c[j] == 0xff0c || c[j] == ',') return true;
    return false;
}

double head_role_ratio(const HeadRole *r, int k) { return r->uniform[k] > 0 ? r->mass[k] / r->uniform[k] : 0; }

void head_roles(const Transformer *m, const int32_t *ids, const int32_t *cps, int64_t n, int64_t seq_len,
                int64_t max_windows, HeadRole *roles) {
    int64_t H = m->args.n_heads, NL = m->args.n_layers;
    memset(roles, 0, sizeof *roles * (size_t)(H * NL));
    int64_t *line_start = (int64_t *)t_alloc(sizeof *line_start * (size_t)seq_len);
    int64_t *prev_start = (int64_t *)t_alloc(sizeof *prev_start * (size_t)seq_len);
    for (int64_t s = 0, w = 0; s + seq_len <= n && w < max_windows; s += seq_len, w++) {
        const int32_t *c = cps + s;
        /* where each position's line (句) starts, and where the line before it started (-1: not in the
         * window); a window that starts inside a line has that line's start outside it (-1 too) */
        int64_t cur = !is_punct(c[0]) && (s == 0 || is_punct(c[-1])) ? 0 : -1, prev = -1;
        for (int64_t t = 0; t < seq_len; t++) {
            if (t > 0 && is_punct(c[t - 1]) && !is_punct(c[t])) prev = cur, cur = t;
            line_start[t] = cur, prev_start[t] = prev;
        }
        t_scope_begin();
        Tensor **attn = (Tensor **)t_alloc(sizeof *attn * (size_t)NL);
        transformer_forward(m, ids + s, 1, seq_len, attn);
        for (int64_t l = 0; l < NL; l++) {
            const float *a = t_data(t_contiguous(attn[l]));    /* (1, H, T, T) */
            for (int64_t h = 0; h < H; h++) {
                HeadRole *r = &roles[l * H + h];
                for (int64_t t = 1; t < seq_len; t++) {
                    const float *row = a + (h * seq_len + t) * seq_len;
                    double u = 1.0 / (double)(t + 1);           /* a uniform causal head: 1 / (t + 1) per key */
                    add_role(r, ROLE_PREV, row[t - 1], u);
                    if (is_punct(c[t]) || line_start[t] < 0) continue;   /* the line roles: characters, not marks */
                    int64_t k = t - line_start[t];              /* place in the line */
                    bool in = prev_start[t] >= 0 && after_comma(c, prev_start[t], line_start[t]); /* in a couplet */
                    if (prev_start[t] >= 0 && prev_start[t] + k < line_start[t] && !is_punct(c[prev_start[t] + k])) {
                        add_role(r, ROLE_SAME_POS, row[prev_start[t] + k], u);
                        add_role(r, in ? ROLE_SAME_IN : ROLE_SAME_ACROSS, row[prev_start[t] + k], u);
                    }
                    int64_t nx = prev_start[t] + k + 1;        /* the previous line's character facing t + 1 */
                    if (prev_start[t] >= 0 && nx < line_start[t] && !is_punct(c[nx]) && t + 1 < seq_len &&
                        !is_punct(c[t + 1])) {
                        add_role(r, ROLE_NEXT_POS, row[nx], u);
                        add_role(r, in ? ROLE_NEXT_IN : ROLE_NEXT_ACROSS, row[nx], u);
                    }
                    if (k > 0) add_role(r, ROLE_LINE_START, row[line_start[t]], u);
                    double pm = 0, pk = 0;
                    for (int64_t j = 0; j <= t; j++)
                        if (is_punct(c[j])) pm += row[j], pk += 1;
                    add_role(r, ROLE_PUNCT, pm, pk * u);
                }
            }
        }
        t_scope_end();
    }
    for (int64_t i = 0; i < H * NL; i++)
        for (int k = 0; k < N_ROLES; k++)
            if (roles[i].queries[k]) roles[i].mass[k] /= (double)roles[i].queries[k],
                                     roles[i].uniform[k] /= (double)roles[i].queries[k];
}
