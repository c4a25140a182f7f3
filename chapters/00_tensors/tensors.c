/* tensors.c — chapter 0: shape, strides and storage, looked at directly.
 *
 * In the order the chapter shows them: where an element lives (element_offset)
 * and where all of them live (storage_offsets); what contiguous means
 * (contiguous_strides, stride_mismatch_dim); and view's error, caught (try_view). */
#include "tensors.h"

#include <stdio.h>
#include <string.h>

int64_t element_offset(const Tensor *x, const int64_t *idx) {
    char xs[T_SHAPE_STR];
    int64_t pos = x->offset;                  /* x.storage_offset() */
    for (int i = 0; i < x->ndim; i++) {
        int64_t k = idx[i];
        if (k < -x->shape[i] || k >= x->shape[i])
            t_error("element_offset: index %lld is out of range for dim %d of size %lld in %s",
                    (long long)k, i, (long long)x->shape[i], t_shape_str(x, xs));
        if (k < 0) k += x->shape[i];
        pos += k * x->strides[i];              /* idx[i] * x.stride(i) */
    }
    return pos;
}

Tensor *storage_offsets(const Tensor *x) {
    Tensor *out = t_zeros(t_shape(x));        /* torch.zeros(x.shape) */
    float *o = t_data(out);
    int64_t idx[T_MAX_DIMS] = {0};
    int64_t n = t_numel(x);
    for (int64_t i = 0; i < n; i++) {         /* every index, row by row */
        o[i] = (float)element_offset(x, idx);
        for (int d = x->ndim - 1; d >= 0; d--) {  /* idx += 1, like an odometer */
            if (++idx[d] < x->shape[d]) break;
            idx[d] = 0;
        }
    }
    return out;
}

Shape contiguous_strides(Shape shape) {
    /* PyTorch: a fresh tensor of this shape has x.stride() == these */
    Shape strides = shape;
    int64_t step = 1;                          /* one step in the last dim moves 1 float */
    for (int i = shape.ndim - 1; i >= 0; i--) {
        strides.dims[i] = step;
        step *= shape.dims[i] > 0 ? shape.dims[i] : 1;  /* a whole row of dim i */
    }
    return strides;
}

int stride_mismatch_dim(const Tensor *x) {
    Shape want = contiguous_strides(t_shape(x));
    for (int i = 0; i < x->ndim; i++) {
        if (x->shape[i] == 0) return -1;       /* an empty tensor is contiguous */
    }
    for (int i = 0; i < x->ndim; i++) {
        if (x->shape[i] != 1 && x->strides[i] != want.dims[i]) return i;
    }
    return -1;
}

/* try / except around t_view: t_view_ok() asks first what t_view would refuse,
 * and gives the sentence t_view's error would have (so the program goes on;
 * and WebAssembly, which has no longjmp, runs it too). */
bool try_view(const Tensor *x, Shape shape, Tensor **out, char *err, size_t errlen) {
    Tensor *result = NULL;
    if (t_view_ok(x, shape, err, errlen))      /* try: */
        result = t_view(x, shape);             /*     y = x.view(shape) */
    /* except RuntimeError as e: err holds e */
    if (out) *out = result;
    return result != NULL;
}
