/* flash_backward.c — chapter 12: attention's backward, first on the full matrices
 * (chapter 10), then tile by tile in O(T) memory (FlashAttention-2's backward).
 *
 * Reading order: the shape checks; the reference, which is chapter 10's pieces
 * put in the order of the forward's lines, bottom to top; D, the one number per
 * row that replaces softmax's row sum; then the tiles. The tile loop is
 * FlashAttention-2's Algorithm 2 on one core: keys outside (each K_j, V_j tile
 * meets every query block once, so dK_j and dV_j are finished when it moves on),
 * queries inside (dQ_i gathers a piece from every key tile). The matmuls are
 * chapter 8's register kernel (attn_matmul), the exp is chapter 8's (attn_exp_row).
 */
#include "flash_backward.h"

#include <math.h>
#include <string.h>

#define BQ ATTN_BLOCK_Q /* queries per block, chapter 8's: 64 */
#define BK ATTN_BLOCK_K /* keys per tile, chapter 8's: 256    */

/* ---- shapes ---------------------------------------------------------------------- */

void flash_backward_check_finite(const char *op, const char *name, const Tensor *x) {
    const Tensor *c = t_contiguous(x); /* a copy only when x is a strided view */
    int64_t n = t_numel(c);
    const float *d = n > 0 ? t_data(c) : NULL;
    for (int64_t i = 0; i < n; i++) {
        float f = d[i];
        if (!isfinite(f))
            t_error(t_tr("%s: %s holds %s at flat index %lld: the backward needs finite numbers"), op, t_tr(name),
                    f != f ? "NaN" : f > 0 ? "inf" : "-inf", (long long)i);
    }
}

/* Chapter 1's rules (check_qkv_shapes), then this chapter's: the same leading dims
 * everywhere, T == S when causal, grad_output (..., T, d_v); finite numbers. */
static void check_inputs(const char *op, const Tensor *q, const Tensor *k, const Tensor *v, const Tensor *dout,
                         bool causal) {
    char qs[T_SHAPE_STR], ks[T_SHAPE_STR], vs[T_SHAPE_STR], ds[T_SHAPE_STR];
    check_qkv_shapes(op, q, k, v);
    bool same = q->ndim == k->ndim && k->ndim == v->ndim;
    for (int i = 0; same && i < q->ndim - 2; i++) same = q->shape[i] == k->shape[i] && k->shape[i] == v->shape[i];
    if (!same)
        t_error(t_tr("%s: query %s, key %s and value %s must have the same leading dims (the backward of a broadcast "
                "is left out: expand them first)"),
                op, t_shape_str(q, qs), t_shape_str(k, ks), t_shape_str(v, vs));
    int64_t T = t_size(q, -2), S = t_size(k, -2);
    if (causal && T != S)
        t_error(t_tr("%s: query %s and key %s have T %lld != S %lld, but a causal mask needs T == S"), op,
                t_shape_str(q, qs), t_shape_str(k, ks), (long long)T, (long long)S);
    bool ok = dout->ndim == q->ndim && t_size(dout, -2) == T && t_size(dout, -1) == t_size(v, -1);
    for (int i = 0; ok && i < q->ndim - 2; i++) ok = dout->shape[i] == q->shape[i];
    if (!ok) {
        Shape want = t_shape(q);
        want.dims[want.ndim - 1] = t_size(v, -1);
        t_error(t_tr("%s: grad_output %s must have the output's shape %s (..., T, d_v)"), op, t_shape_str(dout, ds),
                shape_str(want, qs));
    }
    flash_backward_check_finite(op, "query", q);
    flash_backward_check_finite(op, "key", k);
    flash_backward_check_finite(op, "value", v);
    flash_backward_check_finite(op, "grad_output", dout);
}

void attention_backward_check(const Tensor *query, const Tensor *key, const Tensor *value,
                              const Tensor *grad_output, bool is_causal) {
    check_inputs("attention_backward_flash", query, key, value, grad_output, is_causal);
}

/* ---- the forward that keeps O and lse ------------------------------------------- */

Tensor *flash_forward(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal, Tensor **lse) {
    /* output = F.scaled_dot_product_attention(q, k, v, is_causal=causal), and
     * lse = torch.logsumexp(scores, dim=-1) from the same pass (chapter 8) */
    return attention_flash_lse(query, key, value, is_causal, lse);
}

/* ---- 1. the reference: chapter 10's backward on the full matrices ---------------- */

AttnGrads attention_backward_reference(const Tensor *query, const Tensor *key, const Tensor *value,
                                       const Tensor *grad_output, bool is_causal) {
    check_inputs("attention_backward_reference", query, key, value, grad_output, is_causal);
    AttnGrads g;
    /* the forward again, keeping what chapter 10's backward reads: p_attn (..., T, S) */
    Tensor *mask = is_causal ? causal_mask(t_size(query, -2), 1) : NULL;
    Attention fwd = masked_attention(query, key, value, mask);
    /* output = torch.matmul(p_attn, value) */
    Tensor *dp_attn;
    matmul_backward(fwd.weights, value, grad_output, &dp_attn, &g.grad_v);      /* (..., T, S), (..., S, d_v) */
    /* p_attn = scores.softmax(dim=-1): ds = p * (dp - (dp * p).sum(-1, keepdim=True)) */
    Tensor *dscores = softmax_backward(fwd.weights, dp_attn);                     /* (..., T, S) */
    /* scores = scores + mask */
    if (is_causal) dscores = causal_mask_backward(dscores);                       /* (..., T, S) */
    /* scores = raw / math.sqrt(d_k) */
    Tensor *draw = scale_backward(dscores, t_size(query, -1));                    /* (..., T, S) */
    /* raw = torch.matmul(query, key.transpose(-2, -1)) */
    Tensor *dkT;
    matmul_backward(query, t_transpose(key, -2, -1), draw, &g.grad_q, &dkT);      /* (..., T, d_k), (..., d_k, S) */
    g.grad_k = t_contiguous(t_transpose(dkT, -2, -1));                            /* (..., S, d_k) */
    return g;
}

/* ---- 2. D: the row sum of softmax's backward, from the output alone --------------- */

/* Chapter 10's softmax_backward needs, for each row i, Σ_j p_ij dp_ij: the whole row
 * of p and of dp. But dp_ij = dO_i · v_j, so
 *     Σ_j p_ij dp_ij = Σ_j p_ij (dO_i · v_j) = dO_i · (Σ_j p_ij v_j) = dO_i · O_i:
 * the same number, from two rows of d_v floats that the backward has anyway. */
Tensor *attention_backward_delta(const Tensor *grad_output, const Tensor *output) {
    char gs[T_SHAPE_STR], os[T_SHAPE_STR];
    if (!t_same_shape(grad_output, output) || output->ndim < 1)
        t_error("attention_backward_delta: grad_output %s and output %s must have the same shape (..., T, d_v)",
                t_shape_str(grad_output, gs), t_shape_str(output, os));
    /* D = (grad_output * output).sum(dim=-1) */
    return t_sum_last(t_mul(grad_output, output));   /* (..., T) */
}

/* ---- 3. the tiles ------------------------------------------------------------------ */

static size_t scratch_bytes;
static int64_t tiles_done, tiles_skipped;

size_t flash_backward_scratch_bytes(void) { return scratch_bytes; }

int64_t flash_backward_tiles(int64_t *skipped) {
    if (skipped) *skipped = tiles_skipped;
    return tiles_done;
}

static float *scratch_floats(int64_t n) {
    scratch_bytes += (size_t)(n > 0 ? n : 1) * sizeof(float);
    return (float *)t_alloc((size_t)(n > 0 ? n : 1) * sizeof(float));
}

/* A contiguous copy only when x is not contiguous already (counted as scratch). */
static const float *data_of(const Tensor *x) {
    Tensor *c = t_contiguous(x);
    if (c != x) scratch_bytes += (size_t)t_numel(c) * sizeof(float);
    return t_numel(c) > 0 ? t_data(c) : NULL;
}

/* What one (batch..., head) slice needs: its pointers and the tile buffers. */
typedef struct {
    int64_t T, S, d_k, d_v;
    float scale;                       /* 1 / math.sqrt(d_k)                         */
    bool causal;
    const float *q, *k, *v, *o, *dout; /* (T, d_k), (S, d_k), (S, d_v), (T, d_v) x 2  */
    const float *lse;                  /* (T,)                                       */
    float *dq, *dk, *dv;               /* (T, d_k), (S, d_k), (S, d_v), summed into  */
    float *D;                          /* (T,)                                       */
    float *kt, *vt;                    /* (d_k, BK), (d_v, BK): K_jᵀ and V_jᵀ         */
    float *p;                          /* (BQ, BK): P                                */
    float *ds;                         /* (BQ, BK): dP, then dS                      */
    float *packed;                     /* attn_matmul's scratch                      */
} Slice;

/* rows x cols of a (leading dim lda) into at (cols, rows): at[c][r] = a[r][c]. */
static void transpose_tile(const float *a, int64_t rows, int64_t cols, int64_t lda, float *at) {
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) at[c * rows + r] = a[r * lda + c];
}

/* One tile: queries i0 .. i0 + rows - 1 against keys j0 .. j0 + cols - 1 (K_jᵀ and
 * V_jᵀ already in kt and vt). */
static void backward_tile(const Slice *s, int64_t i0, int64_t rows, int64_t j0, int64_t cols) {
    int64_t d_k = s->d_k, d_v = s->d_v;
    /* S = Q_i K_jᵀ                                                   (rows, cols) */
    attn_matmul(rows, cols, d_k, s->q + i0 * d_k, d_k, s->kt, cols, s->p, cols, false, s->packed);
    /* P = exp(S / √d_k - lse_i): p_attn of this tile, recomputed; 0 where the causal
     * mask hides key j0 + c from query i0 + r (it was -inf before softmax) */
    for (int64_t r = 0; r < rows; r++) {
        float *pr = s->p + r * cols;
        int64_t visible = s->causal ? i0 + r - j0 + 1 : cols; /* keys j0 .. i0 + r */
        visible = visible < 0 ? 0 : visible > cols ? cols : visible;
        attn_exp_row(pr, visible, s->scale, s->lse[i0 + r]); /* exp(s / √d_k - lse_i) */
        for (int64_t c = visible; c < cols; c++) pr[c] = 0.0f;
    }
    /* dV_j += Pᵀ dO_i                                                (cols, d_v)  */
    attn_matmul_at(cols, d_v, rows, s->p, cols, s->dout + i0 * d_v, d_v, s->dv + j0 * d_v, d_v, true);
    /* dP = dO_i V_jᵀ                                                 (rows, cols) */
    attn_matmul(rows, cols, d_v, s->dout + i0 * d_v, d_v, s->vt, cols, s->ds, cols, false, s->packed);
    /* dS = P * (dP - D_i), and the 1/√d_k of S = Q Kᵀ / √d_k, once  (rows, cols) */
    for (int64_t r = 0; r < rows; r++) {
        float D = s->D[i0 + r], *dsr = s->ds + r * cols;
        const float *pr = s->p + r * cols;
        for (int64_t c = 0; c < cols; c++) dsr[c] = pr[c] * (dsr[c] - D) * s->scale;
    }
    /* dQ_i += dS K_j / √d_k                                          (rows, d_k)  */
    attn_matmul(rows, d_k, cols, s->ds, cols, s->k + j0 * d_k, d_k, s->dq + i0 * d_k, d_k, true, s->packed);
    /* dK_j += dSᵀ Q_i / √d_k                                         (cols, d_k)  */
    attn_matmul_at(cols, d_k, rows, s->ds, cols, s->q + i0 * d_k, d_k, s->dk + j0 * d_k, d_k, true);
}

/* One slice: D first, then every key tile against every query block that sees it. */
static void backward_slice(Slice *s) {
    int64_t T = s->T, S = s->S, d_k = s->d_k, d_v = s->d_v;
    /* D = (dO * O).sum(-1)                                            (T,) */
    for (int64_t i = 0; i < T; i++) {
        double dot = 0.0;
        for (int64_t c = 0; c < d_v; c++) dot += (double)s->dout[i * d_v + c] * (double)s->o[i * d_v + c];
        s->D[i] = (float)dot;
    }
    for (int64_t j0 = 0; j0 < S; j0 += BK) { /* keys outside: dK_j, dV_j are done after this loop */
        int64_t cols = S - j0 < BK ? S - j0 : BK;
        transpose_tile(s->k + j0 * d_k, cols, d_k, d_k, s->kt); /* K_jᵀ (d_k, cols) */
        transpose_tile(s->v + j0 * d_v, cols, d_v, d_v, s->vt); /* V_jᵀ (d_v, cols) */
        /* causal: the query blocks that end before key j0 see none of this tile */
        int64_t first = s->causal ? j0 / BQ * BQ : 0;
        tiles_skipped += first / BQ;
        for (int64_t i0 = first; i0 < T; i0 += BQ) {
            backward_tile(s, i0, T - i0 < BQ ? T - i0 : BQ, j0, cols);
            tiles_done++;
        }
    }
}

AttnGrads attention_backward_flash(const Tensor *query, const Tensor *key, const Tensor *value,
                                   const Tensor *output, const Tensor *lse, const Tensor *grad_output,
                                   bool is_causal) {
    const char *op = "attention_backward_flash";
    char os[T_SHAPE_STR], ls[T_SHAPE_STR], ws[T_SHAPE_STR];
    check_inputs(op, query, key, value, grad_output, is_causal);
    if (!t_same_shape(output, grad_output))
        t_error("%s: output %s must have grad_output's shape %s (the forward's output)", op,
                t_shape_str(output, os), t_shape_str(grad_output, ws));
    Shape want = t_shape(output);
    want.ndim--;
    bool lse_ok = lse->ndim == want.ndim;
    for (int i = 0; lse_ok && i < want.ndim; i++) lse_ok = lse->shape[i] == want.dims[i];
    if (!lse_ok)
        t_error("%s: lse %s must be (..., T) = %s, one number per row of the output", op, t_shape_str(lse, ls),
                shape_str(want, ws));
    flash_backward_check_finite(op, "output", output);
    flash_backward_check_finite(op, "lse (a score overflowed in the forward)", lse);

    scratch_bytes = 0;
    tiles_done = tiles_skipped = 0;
    AttnGrads g = {t_zeros(t_shape(query)), t_zeros(t_shape(key)), t_zeros(t_shape(value))};
    Slice s;
    s.T = t_size(query, -2), s.S = t_size(key, -2), s.d_k = t_size(query, -1), s.d_v = t_size(value, -1);
    s.scale = 1.0f / sqrtf((float)s.d_k); /* / math.sqrt(d_k) */
    s.causal = is_causal;
    int64_t n = 1, big = s.d_k > s.d_v ? s.d_k : s.d_v;
    for (int i = 0; i < query->ndim - 2; i++) n *= query->shape[i];
    const float *q = data_of(query), *k = data_of(key), *v = data_of(value);
    const float *o = data_of(output), *dout = data_of(grad_output), *L = data_of(lse);
    /* every buffer once, before the loops: D and the tiles, O(T + tile) */
    s.D = scratch_floats(s.T);
    s.kt = scratch_floats(s.d_k * BK), s.vt = scratch_floats(s.d_v * BK);
    s.p = scratch_floats(BQ * BK), s.ds = scratch_floats(BQ * BK);
    s.packed = scratch_floats(ATTN_MATMUL_PACKED(big > BK ? big : BK));
    for (int64_t b = 0; b < n && s.T > 0; b++) {
        s.q = q + b * s.T * s.d_k, s.k = k + b * s.S * s.d_k, s.v = v + b * s.S * s.d_v;
        s.o = o + b * s.T * s.d_v, s.dout = dout + b * s.T * s.d_v, s.lse = L + b * s.T;
        s.dq = t_data(g.grad_q) + b * s.T * s.d_k;
        s.dk = t_data(g.grad_k) + b * s.S * s.d_k;
        s.dv = t_data(g.grad_v) + b * s.S * s.d_v;
        backward_slice(&s);
    }
    return g;
}

/* ---- the cost model ------------------------------------------------------------------ */

double attention_backward_flops(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal) {
    double n = 1;
    for (int i = 0; i < query->ndim - 2; i++) n *= (double)query->shape[i];
    double T = (double)t_size(query, -2), S = (double)t_size(key, -2);
    double d_k = (double)t_size(query, -1), d_v = (double)t_size(value, -1);
    return n * 2.0 * T * S * (3.0 * d_k + 2.0 * d_v) * (is_causal ? 0.5 : 1.0);
}
