/* dropout.c — chapter 6: inverted dropout (nn.Dropout), written out.
 *
 *     self.attn_dropout = nn.Dropout(args.dropout)
 *     scores = F.softmax(scores.float(), dim=-1).type_as(xq)
 *     scores = self.attn_dropout(scores)           # training: zero some, scale the rest
 *     output = torch.matmul(scores, xv)
 *
 * In training every element is kept with probability 1 - p and then divided
 * by 1 - p, or set to 0 with probability p. PyTorch on CPU does it as
 *     noise = torch.empty_like(x).bernoulli_(1 - p); noise.div_(1 - p)
 *     return x * noise
 * and so does this file: one bernoulli draw per element, in row-major order,
 * from the generator t_manual_seed seeded (see common/rng.h). Its expectation is
 *     (1 - p) * x / (1 - p) + p * 0 = x,
 * so the layer that reads the result sees the same numbers on average in
 * training and in eval, where dropout does nothing. dropout_forward() also
 * hands back, when asked, the noise it multiplied by (the mask), so a
 * backward (chapter 10) reuses the very mask instead of drawing it again.
 *
 * In this file: dropout_forward(), then dropout_new() (the module) and
 * count_zeros() (what the programs count).
 */
#include "dropout.h"

Tensor *dropout_forward(const Dropout *d, const Tensor *x, Tensor **mask) {
    if (!(d->p >= 0.0 && d->p <= 1.0))
        t_error("dropout: p = %g is not a probability; it must be between 0 and 1", d->p);
    /* when mask is not NULL, *mask gets PyTorch's noise, what each element of x is multiplied by:
     * 0 or 1/(1-p) in training, all ones in eval or with p = 0, all zeros with p = 1 */
    /* BEGIN BLANK dropout_forward */
    Tensor *out = t_clone(x);  /* a fresh contiguous copy, same shape as x */
    /* model.eval(): dropout is the identity; p = 0 drops nothing: x * 1 */
    if (!d->training || d->p == 0.0) {
        if (mask) *mask = t_ones(t_shape(x));
        return out;
    }
    /* p = 1 keeps nothing; PyTorch returns zeros without drawing: x * 0 */
    if (d->p == 1.0) {
        if (mask) *mask = t_zeros(t_shape(x));
        return t_mul_scalar(out, 0.0f);
    }

    float scale = 0.0f;
    /* BEGIN BLANK dropout_scale */
    scale = 1.0f / (float)(1.0 - d->p);  /* noise.div_(1 - p), in float */
    /* END BLANK */
    float *o = t_data(out);
    float *noise = mask ? t_data(*mask = t_empty_like(out)) : NULL;  /* the mask, same shape as x */
    int64_t n = t_numel(out);
    for (int64_t i = 0; i < n; i++) {  /* row-major order: one draw per element */
        bool keep = false;
        /* BEGIN BLANK dropout_keep */
        keep = rng_bernoulli(t_default_rng(), 1.0 - d->p);  /* noise.bernoulli_(1 - p) */
        /* END BLANK */
        o[i] = keep ? o[i] * scale : 0.0f;     /* x * noise */
        if (noise) noise[i] = keep ? scale : 0.0f;
    }
    return out;
    /* END BLANK */
}

Dropout dropout_new(double p) {
    /* nn.Dropout: "dropout probability has to be between 0 and 1" (NaN fails both tests) */
    if (!(p >= 0.0 && p <= 1.0))
        t_error("nn.Dropout: p = %g is not a probability; it must be between 0 and 1", p);
    Dropout d;
    d.p = p;
    d.training = true;  /* a fresh module is in training mode */
    return d;
}

int64_t count_zeros(const Tensor *x) {
    int64_t n = 0;
    for (int64_t i = 0; i < t_numel(x); i++) n += t_flat_get(x, i) == 0.0f;
    return n;
}
