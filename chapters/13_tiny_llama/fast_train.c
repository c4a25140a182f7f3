/* fast_train.c — chapter 13: the loss's softmax and the SwiGLU's sigmoid over whole rows,
 * vectorised (fast_train.h says why). Built with -O3 -march=native like chapter 8. */
#include <math.h>
#include <string.h>

#include "fast_train.h"
#include "chapters/08_fast_attention/fast_attention.h"

#define PARTS 16   /* partial sums: one AVX-512 vector, two AVX2 or four NEON ones */

float row_max(const float *x, int64_t n) {
    float part[4 * PARTS];   /* four vectors of maxima: four compares in flight */
    for (int c = 0; c < 4 * PARTS; c++) part[c] = x[0];
    int64_t j = 0;
    for (; j + 4 * PARTS <= n; j += 4 * PARTS)
        for (int c = 0; c < 4 * PARTS; c++) part[c] = x[j + c] > part[c] ? x[j + c] : part[c];
    for (; j < n; j++) part[0] = x[j] > part[0] ? x[j] : part[0];
    float m = part[0];
    for (int c = 1; c < 4 * PARTS; c++) m = part[c] > m ? part[c] : m;
    return m;
}

float row_exp_sum(const float *z, float *e, int64_t n, float shift) {
    if (e != z) memcpy(e, z, sizeof *e * (size_t)n);
    attn_exp_row(e, n, 1.0f, shift);                 /* chapter 8: e = exp(z - shift) */
    float part[PARTS] = {0};
    int64_t j = 0;
    for (; j + PARTS <= n; j += PARTS)
        for (int c = 0; c < PARTS; c++) part[c] += e[j + c];
    for (; j < n; j++) part[0] += e[j];
    for (int w = PARTS / 2; w > 0; w /= 2)
        for (int c = 0; c < w; c++) part[c] += part[c + w];
    return part[0];
}

void sigmoid_row(const float *x, float *s, int64_t n) {
    if (s != x) memcpy(s, x, sizeof *s * (size_t)n);
    attn_exp_row(s, n, -1.0f, 0.0f);                 /* chapter 8: exp(-x), kept finite (x >= -88) */
    for (int64_t j = 0; j < n; j++) s[j] = 1.0f / (1.0f + s[j]);
}

void rope_pairs(const float *x, float *y, int64_t bsz, int64_t seqlen, int64_t heads, int64_t head_dim,
                const float *cos, const float *sin, float sin_sign) {
    int64_t half = head_dim / 2;
    for (int64_t b = 0; b < bsz; b++)
        for (int64_t t = 0; t < seqlen; t++) {
            const float *c = cos + t * half, *s = sin + t * half;
            for (int64_t h = 0; h < heads; h++) {
                const float *xp = x + ((b * seqlen + t) * heads + h) * head_dim;
                float *yp = y + ((b * seqlen + t) * heads + h) * head_dim;
                for (int64_t i = 0; i < half; i++) {
                    float xr = xp[2 * i], xi = xp[2 * i + 1], si = sin_sign * s[i];
                    yp[2 * i] = xr * c[i] - xi * si;       /* x_out_r = x_r * freqs_cos - x_i * freqs_sin */
                    yp[2 * i + 1] = xr * si + xi * c[i];   /* x_out_i = x_r * freqs_sin + x_i * freqs_cos */
                }
            }
        }
}

void adamw_update(float *w, float *m, float *v, const float *g, int64_t n, double lr, double weight_decay,
                  double beta1, double beta2, double bias_correction1, double bias_correction2, double eps) {
    for (int64_t j = 0; j < n; j++) {
        w[j] = (float)(w[j] * (1 - lr * weight_decay));            /* p.mul_(1 - lr * weight_decay) */
        m[j] = (float)(beta1 * m[j] + (1 - beta1) * g[j]);         /* exp_avg.lerp_(grad, 1 - beta1) */
        v[j] = (float)(beta2 * v[j] + (1 - beta2) * (double)g[j] * g[j]);   /* exp_avg_sq */
        double mhat = m[j] / bias_correction1, vhat = v[j] / bias_correction2;
        w[j] = (float)(w[j] - lr * mhat / (sqrt(vhat) + eps));     /* p -= lr * mhat / (sqrt(vhat) + eps) */
    }
}
