/* nn.c — nn.Linear: y = x · Wᵀ + b with PyTorch's layout and default init. */
#include "nn.h"

#include <math.h>

#include "error.h"
#include "ops.h"
#include "rng.h"

Linear *nn_linear(int64_t in_features, int64_t out_features, bool bias) {
    if (in_features < 1 || out_features < 1)
        t_error("Linear: in_features (%lld) and out_features (%lld) must be at least 1",
                (long long)in_features, (long long)out_features);
    Linear *layer = (Linear *)t_alloc(sizeof(Linear));
    layer->in_features = in_features;
    layer->out_features = out_features;
    /* nn.Linear.reset_parameters(), in its order:
     *   init.kaiming_uniform_(self.weight, a=math.sqrt(5))
     *   bound = 1 / math.sqrt(fan_in); init.uniform_(self.bias, -bound, bound)
     * Both bounds are about 1/sqrt(in_features) but are computed differently,
     * in double, then rounded to float as uniform_ does. */
    Rng *r = t_default_rng();
    double wbound = rng_kaiming_uniform_bound(in_features);
    layer->weight = t_zeros(SHAPE(out_features, in_features));
    rng_uniform_fill(r, t_data(layer->weight), out_features * in_features, (float)-wbound, (float)wbound);
    layer->bias = NULL;
    if (bias) {
        double bbound = 1.0 / sqrt((double)in_features);
        layer->bias = t_zeros(SHAPE(out_features));
        rng_uniform_fill(r, t_data(layer->bias), out_features, (float)-bbound, (float)bbound);
    }
    return layer;
}

Linear *nn_linear_from(const char *name, Tensor *weight, Tensor *bias) {
    char ws[T_SHAPE_STR], bs[T_SHAPE_STR];
    if (weight->ndim != 2)
        t_error("%s: weight %s must be 2-D (out_features, in_features), as in nn.Linear", name,
                t_shape_str(weight, ws));
    if (weight->shape[0] < 1 || weight->shape[1] < 1)
        t_error("%s: weight %s has an empty dim", name, t_shape_str(weight, ws));
    if (bias && (bias->ndim != 1 || bias->shape[0] != weight->shape[0]))
        t_error("%s: bias %s must have shape (%lld,) to match weight %s", name, t_shape_str(bias, bs),
                (long long)weight->shape[0], t_shape_str(weight, ws));
    Linear *layer = (Linear *)t_alloc(sizeof(Linear));
    layer->out_features = weight->shape[0];
    layer->in_features = weight->shape[1];
    layer->weight = weight;
    layer->bias = bias;
    return layer;
}

Tensor *nn_linear_forward(const Linear *layer, const Tensor *x) {
    char xs[T_SHAPE_STR], ws[T_SHAPE_STR];
    if (x->ndim < 1 || x->shape[x->ndim - 1] != layer->in_features)
        t_error("Linear: input %s does not end in in_features = %lld (weight %s is (out, in))",
                t_shape_str(x, xs), (long long)layer->in_features, t_shape_str(layer->weight, ws));
    /* y = x @ W.T (+ b): a 1-D x is treated as one row */
    const Tensor *x2 = x->ndim == 1 ? t_unsqueeze(x, 0) : x;
    Tensor *y = t_matmul(x2, t_transpose(layer->weight, 0, 1));
    if (layer->bias) y = t_add(y, layer->bias);
    if (x->ndim == 1) y = t_select(y, 0, 0);
    return y;
}

int64_t nn_linear_num_params(const Linear *layer) {
    return layer->out_features * layer->in_features + (layer->bias ? layer->out_features : 0);
}
