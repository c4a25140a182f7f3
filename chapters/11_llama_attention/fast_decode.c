/* fast_decode.c — chapter 11: the decode step with blocked, vectorised projections
 * (fast_decode.h). Built with -O3 -march=native, as chapter 8 is. */
#include "fast_decode.h"

/* LANES sums per weight row (sixteen floats: one AVX-512 vector, two AVX ones, four
 * NEON or SSE ones), added up at the end in one fixed order. ROWS weight rows per
 * block: as many as the vector unit the compiler targets holds sums for in its
 * registers, chosen from the compiler's own macros (a block of ROWS rows, 3 KiB a row
 * at dim 768, stays in the L1 cache while every row of x passes it):
 *   AVX-512       8 rows: 8 sums in 8 of the 32 zmm registers, 8 chains of adds
 *   AVX2          4 rows: 8 sums in 8 of the 16 ymm registers
 *   NEON (ARM64)  6 rows: 24 sums in 24 of the 32 q registers
 *   anything else 4 rows: with x86-64's SSE, 16 sums in its 16 xmm registers (gcc 12
 *                 vectorises this block; at 2 rows it leaves the loop scalar, 6x slower)
 * A row's sums are added in the same order whatever ROWS is. */
#define LANES 16
#if defined(__AVX512F__)
#define ROWS 8
#elif defined(__AVX2__)
#define ROWS 4
#elif defined(__ARM_NEON) && defined(__aarch64__)
#define ROWS 6
#else
#define ROWS 4
#endif

/* Σ of LANES partial sums, in a fixed order (the same on every call). */
static float sum_lanes(const float *acc) {
    float s[LANES / 2];
    for (int l = 0; l < LANES / 2; l++) s[l] = acc[l] + acc[l + LANES / 2];
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

/* y[o0 .. o0 + nr - 1] for one row x: nr <= ROWS rows of w read side by side. */
static void block_dot(const float *restrict w, int64_t nr, int64_t in, const float *restrict x,
                      float *restrict y) {
    float acc[ROWS][LANES] = {{0}};
    const float *restrict wr[ROWS];
    for (int r = 0; r < ROWS; r++) wr[r] = w + (r < nr ? r : 0) * in;  /* rows past nr: w's first again */
    int64_t i = 0;
    for (; i + LANES <= in; i += LANES)
        for (int l = 0; l < LANES; l++) {
            float xi = x[i + l];
            for (int r = 0; r < ROWS; r++) acc[r][l] += wr[r][i + l] * xi;
        }
    for (; i < in; i++)  /* the tail of a width that is not a multiple of LANES */
        for (int r = 0; r < ROWS; r++) acc[r][0] += wr[r][i] * x[i];
    for (int64_t r = 0; r < nr; r++) y[r] = sum_lanes(acc[r]);  /* rows past nr: dropped */
}

void linear_rows(const float *w, int64_t out, int64_t in, const float *x, int64_t rows, float *y) {
    for (int64_t o = 0; o < out; o += ROWS) {          /* a block of weight rows ...        */
        int64_t nr = out - o < ROWS ? out - o : ROWS;
        for (int64_t r = 0; r < rows; r++)              /* ... serves every row of the batch */
            block_dot(w + o * in, nr, in, x + r * in, y + r * out + o);
    }
    t_work_add(2.0 * (double)rows * (double)out * (double)in);
}

/* x @ layer.weight.T for x (rows, in) contiguous: (rows, out). */
static Tensor *project(const Linear *layer, const Tensor *x, Shape s) {
    Tensor *y = t_zeros(s);
    linear_rows(t_data(t_contiguous(layer->weight)), layer->out_features, layer->in_features, t_data(x),
                t_numel(x) / layer->in_features, t_data(y));
    return y;
}

Tensor *llama_decode_step(const LlamaAttention *m, const Tensor *x, const FreqsCis *freqs, KVCache *c) {
    char xs[T_SHAPE_STR];
    if (x->ndim != 3 || x->shape[0] != c->bsz || x->shape[2] != m->args.dim)
        t_error("decode step: x %s must be (bsz, n, dim) = (%lld, n, %lld)", t_shape_str(x, xs), (long long)c->bsz,
                (long long)m->args.dim);
    int64_t bsz = x->shape[0], n = x->shape[1], pos = c->len, hd = m->head_dim;
    if (pos + n > t_size(freqs->cos, 0))
        t_error("decode step: positions %lld..%lld need rows of freqs_cos, which has %lld", (long long)pos,
                (long long)(pos + n - 1), (long long)t_size(freqs->cos, 0));
    x = t_contiguous(x);
    /* xq, xk, xv = self.wq(x), self.wk(x), self.wv(x): each weight read once for the whole batch */
    Tensor *xq = project(m->wq, x, SHAPE(bsz, n, m->n_local_heads, hd));
    Tensor *xk = project(m->wk, x, SHAPE(bsz, n, m->n_local_kv_heads, hd));
    Tensor *xv = project(m->wv, x, SHAPE(bsz, n, m->n_local_kv_heads, hd));
    /* xq, xk = apply_rotary_emb(xq, xk, freqs_cos[pos : pos + n], freqs_sin[pos : pos + n]) */
    Tensor *cos = t_slice(freqs->cos, 0, pos, pos + n), *sin = t_slice(freqs->sin, 0, pos, pos + n);
    xq = llama_rope(m, xq, cos, sin);
    xk = llama_rope(m, xk, cos, sin);
    /* cache_k[:, :, pos : pos + n] = xk; cache_v[:, :, pos : pos + n] = xv */
    kv_cache_append(c, xk, xv);
    /* the group's n_rep query heads against each cached key and value, once */
    Tensor *output = kv_cache_attend(c, xq);           /* (bsz, n, n_heads * head_dim) */
    /* output = self.wo(output) */
    return project(m->wo, output, SHAPE(bsz, n, m->args.dim));
}
