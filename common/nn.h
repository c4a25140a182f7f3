/* nn.h — nn.Linear, laid out exactly like PyTorch's.
 *
 * weight has shape (out_features, in_features) and y = x · weightᵀ + bias,
 * so a weight matrix saved from PyTorch (`layer.weight`) loads unchanged.
 * Default init mirrors nn.Linear.reset_parameters(): weight and bias are
 * uniform in [-1/√in_features, 1/√in_features) from the seeded generator.
 */
#ifndef COMMON_NN_H
#define COMMON_NN_H

#include "tensor.h"

typedef struct {
    int64_t in_features;
    int64_t out_features;
    Tensor *weight;   /* (out_features, in_features) */
    Tensor *bias;     /* (out_features,) or NULL     */
} Linear;

/* nn.Linear(in_features, out_features, bias=...) */
Linear *nn_linear(int64_t in_features, int64_t out_features, bool bias);
/* From given tensors (bias may be NULL); shapes are checked, `name` (e.g.
 * "wq") is used in the error sentence. */
Linear *nn_linear_from(const char *name, Tensor *weight, Tensor *bias);
/* layer(x): (..., in_features) -> (..., out_features). */
Tensor *nn_linear_forward(const Linear *layer, const Tensor *x);
/* Number of trainable numbers: out*in (+ out with bias). */
int64_t nn_linear_num_params(const Linear *layer);

#endif
