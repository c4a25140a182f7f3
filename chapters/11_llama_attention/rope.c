/* rope.c — chapter 11: RoPE as Happy-LLM 5.1.3.2 writes it, and the rotate_half trap.
 * The lesson is apply_rotary_emb: neighbouring pairs, each turned by its own angle. */
#include <complex.h>

#include "rope.h"

void check_rope_dim(int64_t head_dim) {
    if (head_dim < 2 || head_dim % 2 != 0)
        t_error(t_tr("RoPE rotates pairs of numbers, so head_dim must be even and at least 2, but it is %lld"),
                (long long)head_dim);
}

/* x (bsz, seqlen, heads, head_dim) and the tables (seqlen, head_dim / 2) fit. */
static void check_rotary(const char *op, const Tensor *x, const Tensor *cos, const Tensor *sin) {
    char xs[T_SHAPE_STR], cs[T_SHAPE_STR], ss[T_SHAPE_STR];
    if (x->ndim != 4)
        t_error("%s: x %s must be 4-D (bsz, seqlen, heads, head_dim)", op, t_shape_str(x, xs));
    check_rope_dim(x->shape[3]);
    /* reshape_for_broadcast: assert freqs_cis.shape == (x.shape[1], x.shape[-1]) */
    if (!t_same_shape(cos, sin) || cos->ndim != 2 || cos->shape[0] != x->shape[1] ||
        cos->shape[1] != x->shape[3] / 2)
        t_error("%s: freqs_cos %s and freqs_sin %s must both be (seqlen, head_dim / 2) = (%lld, %lld) for x %s", op,
                t_shape_str(cos, cs), t_shape_str(sin, ss), (long long)x->shape[1], (long long)(x->shape[3] / 2),
                t_shape_str(x, xs));
}

Tensor *rotary_emb(const Tensor *x, const Tensor *freqs_cos, const Tensor *freqs_sin) {
    check_rotary("apply_rotary_emb", x, freqs_cos, freqs_sin);
    int64_t bsz = x->shape[0], seqlen = x->shape[1], heads = x->shape[2], half = x->shape[3] / 2;
    /* BEGIN BLANK apply_rotary_emb */
    /* x_r, x_i = x.float().reshape(x.shape[:-1] + (-1, 2)).unbind(-1) */
    Tensor *pairs = t_reshape(x, SHAPE(bsz, seqlen, heads, half, 2));  /* (bsz, seqlen, heads, head_dim/2, 2) */
    Tensor *x_r = t_select(pairs, 4, 0);                                /* x[..., 0::2]: (bsz, seqlen, heads, half) */
    Tensor *x_i = t_select(pairs, 4, 1);                                /* x[..., 1::2]                             */
    /* freqs_cos = reshape_for_broadcast(freqs_cos, x_r): (seqlen, half) -> (1, seqlen, 1, half) */
    Tensor *cos = t_view(t_contiguous(freqs_cos), SHAPE(1, seqlen, 1, half));
    Tensor *sin = t_view(t_contiguous(freqs_sin), SHAPE(1, seqlen, 1, half));
    /* x_out_r = x_r * freqs_cos - x_i * freqs_sin */
    Tensor *out_r = t_sub(t_mul(x_r, cos), t_mul(x_i, sin));
    /* x_out_i = x_r * freqs_sin + x_i * freqs_cos */
    Tensor *out_i = t_add(t_mul(x_r, sin), t_mul(x_i, cos));
    /* x_out = torch.stack([x_out_r, x_out_i], dim=-1).flatten(3): each pair back in its place */
    Tensor *out = t_zeros(SHAPE(bsz, seqlen, heads, half, 2));
    t_copy_(t_select(out, 4, 0), out_r);
    t_copy_(t_select(out, 4, 1), out_i);
    return t_view(out, SHAPE(bsz, seqlen, heads, 2 * half));            /* (bsz, seqlen, heads, head_dim) */
    /* END BLANK */
}

void apply_rotary_emb(const Tensor *xq, const Tensor *xk, const Tensor *freqs_cos, const Tensor *freqs_sin,
                      Tensor **xq_out, Tensor **xk_out) {
    *xq_out = rotary_emb(xq, freqs_cos, freqs_sin);  /* (bsz, seqlen, n_heads, head_dim)    */
    *xk_out = rotary_emb(xk, freqs_cos, freqs_sin);  /* (bsz, seqlen, n_kv_heads, head_dim) */
}

FreqsCis precompute_freqs_cis(int64_t dim, int64_t end, double theta) {
    check_rope_dim(dim);
    if (end < 1) t_error("precompute_freqs_cis: end = %lld must be at least 1 (one row per position)", (long long)end);
    int64_t half = dim / 2;
    FreqsCis f = {t_zeros(SHAPE(end, half)), t_zeros(SHAPE(end, half))};  /* (end, dim // 2) each */
    float *cos = t_data(f.cos), *sin = t_data(f.sin);
    for (int64_t i = 0; i < half; i++) {
        /* freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim)), in float32 */
        float exponent = (float)(2 * i) / (float)dim;
        float freq = 1.0f / powf((float)theta, exponent);
        for (int64_t m = 0; m < end; m++) {
            /* freqs = torch.outer(t, freqs).float(): the angle of pair i at position m */
            float angle = (float)m * freq;
            cos[m * half + i] = cosf(angle);  /* freqs_cos = torch.cos(freqs) */
            sin[m * half + i] = sinf(angle);  /* freqs_sin = torch.sin(freqs) */
        }
    }
    return f;
}

/* ---- the same turn as a complex product (Meta's form) ----------------------------------- */

Tensor *rotary_emb_complex(const Tensor *x, const Tensor *freqs_cos, const Tensor *freqs_sin) {
    check_rotary("rotary_emb_complex", x, freqs_cos, freqs_sin);
    int64_t seqlen = x->shape[1], heads = x->shape[2], half = x->shape[3] / 2;
    const float *in = t_data(t_contiguous(x));
    const float *cos = t_data(t_contiguous(freqs_cos)), *sin = t_data(t_contiguous(freqs_sin));
    Tensor *out = t_zeros(t_shape(x));                     /* (bsz, seqlen, heads, head_dim) */
    float *o = t_data(out);
    for (int64_t p = 0; p < t_numel(x) / 2; p++) {        /* pair p of the flat tensor */
        int64_t i = p % half, m = p / half / heads % seqlen;   /* its pair index and position */
        /* xq_ = torch.view_as_complex(...): the pair (a, b) is a + ib */
        float complex z = in[2 * p] + in[2 * p + 1] * I;
        /* freqs_cis = torch.polar(1, m * theta_i) = cos + i sin */
        float complex w = cos[m * half + i] + sin[m * half + i] * I;
        /* xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3) */
        float complex turned = z * w;
        o[2 * p] = crealf(turned), o[2 * p + 1] = cimagf(turned);
    }
    return out;
}

/* ---- the trap: Hugging Face's layout --------------------------------------------------- */

Tensor *rotary_emb_half(const Tensor *x, const Tensor *freqs_cos, const Tensor *freqs_sin) {
    check_rotary("rotary_emb_half", x, freqs_cos, freqs_sin);
    int64_t seqlen = x->shape[1], half = x->shape[3] / 2;
    /* cos = torch.cat((freqs_cos, freqs_cos), dim=-1)[None, :, None, :]: (1, seqlen, 1, head_dim) */
    Tensor *cos = t_view(t_contiguous(freqs_cos), SHAPE(1, seqlen, 1, half));
    Tensor *sin = t_view(t_contiguous(freqs_sin), SHAPE(1, seqlen, 1, half));
    /* x1, x2 = x[..., :head_dim // 2], x[..., head_dim // 2:]: the two halves, not neighbours */
    Tensor *x1 = t_slice(x, 3, 0, half), *x2 = t_slice(x, 3, half, 2 * half);
    /* x * cos + rotate_half(x) * sin, rotate_half(x) = cat(-x2, x1): half by half */
    Tensor *out = t_zeros(t_shape(x));
    t_copy_(t_slice(out, 3, 0, half), t_sub(t_mul(x1, cos), t_mul(x2, sin)));
    t_copy_(t_slice(out, 3, half, 2 * half), t_add(t_mul(x2, cos), t_mul(x1, sin)));
    return out;  /* (bsz, seqlen, heads, head_dim) */
}

Tensor *permute_for_rotate_half(const Tensor *w, int64_t n_heads) {
    char ws[T_SHAPE_STR];
    if (w->ndim != 2 || n_heads < 1 || w->shape[0] % (2 * n_heads) != 0)
        t_error("permute_for_rotate_half: w %s must be (n_heads * head_dim, dim) with an even head_dim for "
                "n_heads = %lld", t_shape_str(w, ws), (long long)n_heads);
    int64_t dim1 = w->shape[0], dim2 = w->shape[1];
    /* w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2) */
    Tensor *v = t_view(t_contiguous(w), SHAPE(n_heads, dim1 / n_heads / 2, 2, dim2));
    return t_reshape(t_transpose(v, 1, 2), SHAPE(dim1, dim2));  /* each head: rows 0, 2, 4, ..., 1, 3, 5, ... */
}
