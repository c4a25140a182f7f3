/* kv_cache.c — chapter 11: a KV cache and the attention step that reads it. The lesson
 * is llama_attention_step: project only the new positions, turn them, append, attend
 * (with chapter 8's online softmax, which folds keys in as they come). Built -O3
 * -march=native, as chapter 8 is (the Makefile's CH11_FAST). */
#include "kv_cache.h"
#include <math.h>

#include "chapters/08_fast_attention/fast_attention.h"

Tensor *llama_attention_step(const LlamaAttention *m, const Tensor *x, const FreqsCis *freqs, KVCache *c) {
    char xs[T_SHAPE_STR];
    if (x->ndim != 3 || x->shape[0] != c->bsz || x->shape[2] != m->args.dim)
        t_error("attention step: x %s must be (bsz, n, dim) = (%lld, n, %lld)", t_shape_str(x, xs),
                (long long)c->bsz, (long long)m->args.dim);
    int64_t bsz = x->shape[0], n = x->shape[1], pos = c->len, hd = m->head_dim;
    if (pos + n > t_size(freqs->cos, 0))
        t_error("attention step: positions %lld..%lld need rows of freqs_cos, which has %lld", (long long)pos,
                (long long)(pos + n - 1), (long long)t_size(freqs->cos, 0));
    /* BEGIN BLANK cache_step */
    /* xq, xk, xv = self.wq(x), self.wk(x), self.wv(x): the new positions only */
    Tensor *xq = t_view(nn_linear_forward(m->wq, x), SHAPE(bsz, n, m->n_local_heads, hd));
    Tensor *xk = t_view(nn_linear_forward(m->wk, x), SHAPE(bsz, n, m->n_local_kv_heads, hd));
    Tensor *xv = t_view(nn_linear_forward(m->wv, x), SHAPE(bsz, n, m->n_local_kv_heads, hd));
    /* xq, xk = apply_rotary_emb(xq, xk, freqs_cos[pos : pos + n], freqs_sin[pos : pos + n]) */
    Tensor *cos = t_slice(freqs->cos, 0, pos, pos + n), *sin = t_slice(freqs->sin, 0, pos, pos + n);
    xq = llama_rope(m, xq, cos, sin);  /* each new position turned by its own angle */
    xk = llama_rope(m, xk, cos, sin);
    /* cache_k[:, :, pos : pos + n] = xk; cache_v[:, :, pos : pos + n] = xv */
    kv_cache_append(c, xk, xv);
    /* softmax(xq @ cache_k[:, :, : pos + n]ᵀ / √head_dim + causal) @ cache_v[:, :, : pos + n], merged */
    Tensor *output = kv_cache_attend(c, xq);    /* (bsz, n, n_heads * head_dim) */
    /* output = self.wo(output) */
    return nn_linear_forward(m->wo, output);    /* (bsz, n, dim) */
    /* END BLANK */
}

Tensor *llama_cached_forward(const LlamaAttention *m, const Tensor *x, const FreqsCis *freqs, int64_t chunk,
                             int64_t n_decode) {
    char xs[T_SHAPE_STR];
    if (x->ndim != 3) t_error("cached forward: x %s must be (bsz, T, dim)", t_shape_str(x, xs));
    int64_t T = x->shape[1], prompt = T - n_decode;
    if (chunk < 1 || n_decode < 0 || n_decode > T)
        t_error("cached forward: chunks of %lld positions and %lld decode steps do not split a sequence of %lld "
                "(chunk >= 1, 0 <= n_decode <= T)", (long long)chunk, (long long)n_decode, (long long)T);
    KVCache *c = kv_cache_new(x->shape[0], m->n_local_kv_heads, m->args.max_seq_len, m->head_dim);
    Tensor *out = t_zeros(SHAPE(x->shape[0], T, m->args.dim));
    for (int64_t start = 0; start < T;) {  /* start_pos = c->len: the next chunk, or one decode step */
        int64_t n = start >= prompt ? 1 : (prompt - start < chunk ? prompt - start : chunk);
        t_copy_(t_slice(out, 1, start, start + n), llama_attention_step(m, t_slice(x, 1, start, start + n), freqs, c));
        start += n;
    }
    return out;
}

KVCache *kv_cache_new(int64_t bsz, int64_t n_kv_heads, int64_t max_seq_len, int64_t head_dim) {
    KVCache *c = (KVCache *)t_alloc(sizeof *c);
    *c = (KVCache){bsz, n_kv_heads, max_seq_len, head_dim, 0, NULL, NULL};
    t_check_fits("the KV cache's keys", SHAPE(bsz, n_kv_heads, max_seq_len, head_dim));
    c->k = t_zeros(SHAPE(bsz, n_kv_heads, max_seq_len, head_dim));  /* cache_k */
    c->v = t_zeros(SHAPE(bsz, n_kv_heads, max_seq_len, head_dim));  /* cache_v */
    return c;
}

double kv_cache_bytes(double layers, double bsz, double n_kv_heads, double seq_len, double head_dim,
                      double bytes_per) {
    return 2.0 * layers * bsz * n_kv_heads * seq_len * head_dim * bytes_per;  /* 2: k and v */
}

double llama2_weight_bytes(double dim, double n_layers, double n_heads, double n_kv_heads, double hidden,
                           double vocab, double bytes_per) {
    double kv_dim = n_kv_heads * (dim / n_heads);                  /* n_kv_heads * head_dim */
    double attention = 2.0 * dim * dim + 2.0 * kv_dim * dim;        /* wq, wo; wk, wv         */
    double feed_forward = 3.0 * hidden * dim;                       /* w1, w2, w3             */
    double layer = attention + feed_forward + 2.0 * dim;            /* + two RMSNorm weights  */
    return (n_layers * layer + 2.0 * vocab * dim + dim) * bytes_per;  /* + embeddings, output, norm */
}

void kv_cache_append(KVCache *c, const Tensor *xk, const Tensor *xv) {
    char ks[T_SHAPE_STR], vs[T_SHAPE_STR];
    if (xk->ndim != 4 || !t_same_shape(xk, xv) || xk->shape[0] != c->bsz || xk->shape[2] != c->n_kv_heads ||
        xk->shape[3] != c->head_dim)
        t_error("kv_cache_append: xk %s and xv %s must both be (bsz, n, n_kv_heads, head_dim) = (%lld, n, %lld, "
                "%lld)",
                t_shape_str(xk, ks), t_shape_str(xv, vs), (long long)c->bsz, (long long)c->n_kv_heads,
                (long long)c->head_dim);
    int64_t n = xk->shape[1];
    if (c->len + n > c->max_seq_len)
        t_error("the KV cache is full: it holds max_seq_len = %lld positions, %lld are filled and %lld more "
                "do not fit",
                (long long)c->max_seq_len, (long long)c->len, (long long)n);
    /* BEGIN BLANK cache_append */
    t_copy_(t_slice(c->k, 2, c->len, c->len + n), t_transpose(xk, 1, 2));  /* (bsz, n_kv_heads, n, head_dim) */
    t_copy_(t_slice(c->v, 2, c->len, c->len + n), t_transpose(xv, 1, 2));
    /* END BLANK */
    c->len += n;
}

/* q . k over hd numbers, in 8 independent sums (so the compiler can keep them in one vector). */
static float dot(const float *q, const float *k, int64_t hd) {
    float acc[8] = {0};
    int64_t d = 0;
    for (; d + 8 <= hd; d += 8)
        for (int l = 0; l < 8; l++) acc[l] += q[d + l] * k[d + l];
    for (; d < hd; d++) acc[0] += q[d] * k[d];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

/* Keys scored per fold_block: a block of key and value rows (32 KiB each at head_dim 128)
 * that stays in the L1 and L2 caches while every query head of the group reads it. */
#define KEY_BLOCK 64

/* Folds nk scored keys s[0 .. nk) (overwritten) and their value rows into one head's running
 * max m, sum l and output acc (hd,): chapter 8's online softmax a block at a time, the way its
 * flash folds a tile. The max grows at most once per block, so acc is rescaled at most once;
 * the block's exponentials are one vectorised pass (chapter 8's attn_exp_row); then each value
 * row is added with its weight, four rows per pass over acc, in key order. A block of nothing
 * but -inf weighs 0 and is skipped; a NaN makes the row NaN (as softmax does). */
static void fold_block(float *m, float *l, float *restrict acc, int64_t hd, float *restrict s, int64_t nk,
                       const float *restrict values) {
    float part[8] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
    int64_t j = 0;
    for (; j + 8 <= nk; j += 8)        /* eight running maxima, one vector: no chain of compares */
        for (int c = 0; c < 8; c++) part[c] = s[j + c] > part[c] ? s[j + c] : part[c];
    for (; j < nk; j++) part[0] = s[j] > part[0] ? s[j] : part[0];
    float bm = part[0];
    for (int c = 1; c < 8; c++) bm = part[c] > bm ? part[c] : bm;
    if (bm == -INFINITY) return;
    if (bm > *m) {                     /* a new max: shrink what was summed against the old one, once */
        float alpha = attn_exp(*m - bm);   /* exp(m_old - m_new); 0 for the first block */
        *l *= alpha;
        for (int64_t c = 0; c < hd; c++) acc[c] *= alpha;
        *m = bm;
    }
    attn_exp_row(s, nk, 1.0f, *m);     /* s[j] = exp(s[j] - m) */
    float sums[8] = {0};               /* eight running sums, one vector, added in a fixed order */
    for (j = 0; j + 8 <= nk; j += 8)
        for (int c = 0; c < 8; c++) sums[c] += s[j + c];
    for (; j < nk; j++) sums[0] += s[j];
    *l += ((sums[0] + sums[1]) + (sums[2] + sums[3])) + ((sums[4] + sums[5]) + (sums[6] + sums[7]));
    j = 0;
    for (; j + 4 <= nk; j += 4) {      /* acc += s[j] * v_j, four rows per pass: acc stays in registers */
        const float *v0 = values + j * hd, *v1 = v0 + hd, *v2 = v1 + hd, *v3 = v2 + hd;
        for (int64_t c = 0; c < hd; c++)
            acc[c] = fmaf(s[j + 3], v3[c], fmaf(s[j + 2], v2[c], fmaf(s[j + 1], v1[c], fmaf(s[j], v0[c], acc[c]))));
    }
    for (; j < nk; j++)
        for (int64_t c = 0; c < hd; c++) acc[c] = fmaf(s[j], values[j * hd + c], acc[c]);
}

/* The group of n_rep query heads that share kv head g, for the n new queries of one
 * sequence. The keys stream past in blocks and each head folds them into its running max
 * m, sum l and output with chapter 8's online softmax, so a block is read from memory once
 * for the whole group. scores holds n_rep x KEY_BLOCK floats, m and l n_rep each. */
static void attend_group(const KVCache *c, int64_t b, int64_t g, int64_t n_rep, const float *xq, int64_t n,
                         float *out, float *scores, float *m, float *l) {
    int64_t hd = c->head_dim, first = c->len - n, H = c->n_kv_heads * n_rep;
    const float *keys = t_data(c->k) + (b * c->n_kv_heads + g) * c->max_seq_len * hd;  /* (len, hd) */
    const float *values = t_data(c->v) + (b * c->n_kv_heads + g) * c->max_seq_len * hd;
    float scale = (float)sqrt((double)hd);
    for (int64_t i = 0; i < n; i++) {
        int64_t seen = first + i + 1;            /* the query at position first + i sees keys 0 .. first + i */
        const float *q = xq + (i * H + g * n_rep) * hd;   /* heads g * n_rep .. g * n_rep + n_rep - 1 */
        float *o = out + (i * H + g * n_rep) * hd;        /* each head's output row is its running sum */
        for (int64_t r = 0; r < n_rep; r++) online_row_init(&m[r], &l[r], o + r * hd, hd);
        for (int64_t j0 = 0; j0 < seen; j0 += KEY_BLOCK) {
            int64_t nk = seen - j0 < KEY_BLOCK ? seen - j0 : KEY_BLOCK;
            /* scores = xq @ keys.transpose(2, 3) / math.sqrt(head_dim): keys j0 .. j0 + nk - 1 */
            for (int64_t r = 0; r < n_rep; r++)
                for (int64_t j = 0; j < nk; j++)
                    scores[r * KEY_BLOCK + j] = dot(q + r * hd, keys + (j0 + j) * hd, hd) / scale;
            /* output = F.softmax(scores, dim=-1) @ values, one block at a time (chapter 8) */
            for (int64_t r = 0; r < n_rep; r++)
                fold_block(&m[r], &l[r], o + r * hd, hd, scores + r * KEY_BLOCK, nk, values + j0 * hd);
        }
        for (int64_t r = 0; r < n_rep; r++) online_row_finish(o + r * hd, hd, l[r]);
    }
}

Tensor *kv_cache_attend(const KVCache *c, const Tensor *xq) {
    char qs[T_SHAPE_STR];
    if (xq->ndim != 4 || xq->shape[0] != c->bsz || xq->shape[3] != c->head_dim || xq->shape[1] > c->len ||
        xq->shape[2] % c->n_kv_heads != 0)
        t_error("kv_cache_attend: xq %s must be (bsz, n, n_heads, head_dim) = (%lld, n, n_heads, %lld) with n <= "
                "%lld cached positions and n_heads a multiple of n_kv_heads = %lld",
                t_shape_str(xq, qs), (long long)c->bsz, (long long)c->head_dim, (long long)c->len,
                (long long)c->n_kv_heads);
    int64_t bsz = c->bsz, n = xq->shape[1], n_heads = xq->shape[2], hd = c->head_dim;
    int64_t n_rep = n_heads / c->n_kv_heads;
    const float *q = t_data(t_contiguous(xq));                       /* (bsz, n, n_heads, hd) */
    Tensor *output = t_zeros(SHAPE(bsz, n, n_heads * hd));           /* merged heads          */
    float *scores = (float *)t_alloc(sizeof(float) * (size_t)(n_rep * KEY_BLOCK));
    float *m = (float *)t_alloc(sizeof(float) * (size_t)n_rep), *l = (float *)t_alloc(sizeof(float) * (size_t)n_rep);
    for (int64_t b = 0; b < bsz; b++)
        for (int64_t g = 0; g < c->n_kv_heads; g++)
            attend_group(c, b, g, n_rep, q + b * n * n_heads * hd, n, t_data(output) + b * n * n_heads * hd,
                         scores, m, l);
    return output;
}
