/* nn.h — nn.Linear, laid out exactly like PyTorch's.
 *
 * weight has shape (out_features, in_features) and y = x · weightᵀ + bias,
 * so a weight matrix saved from PyTorch (`layer.weight`) loads unchanged.
 * Default init is nn.Linear.reset_parameters(): the weight from
 * kaiming_uniform_(a=sqrt(5)), then the bias from uniform_(-1/sqrt(in),
 * 1/sqrt(in)), drawn from the seeded generator exactly as PyTorch draws them
 * (see rng.h): torch.manual_seed(s); nn.Linear(i, o) gives the same numbers.
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
