/* tensors.h — chapter 0: what a tensor is in memory (shape, strides, storage).
 *
 * The tensor itself lives in common/tensor.h (it plays torch.Tensor). This
 * chapter adds ways to *look* at a tensor's layout — the facts behind
 *
 *     xq = xq.view(bsz, seqlen, n_heads, head_dim)      # zero copy
 *     xq = xq.transpose(1, 2)                           # strides swap, not contiguous
 *     output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
 *
 * No later chapter calls them: chapter 5 splits and merges heads with the same
 * view / transpose / contiguous of common/tensor.h, and storage_offsets(heads)
 * there shows where each head lives, as step 7 of this chapter does.
 * (narrate_layout in common/program/narrate.h prints shape, strides, offset and
 * contiguity in one line; these functions explain what those numbers mean.)
 *
 * Element idx of x lives at storage position
 *     x.storage_offset() + idx[0] * x.stride(0) + ... + idx[n-1] * x.stride(n-1)
 */
#ifndef CH00_TENSORS_H
#define CH00_TENSORS_H

#include "common/torch.h"

/* Where element x[idx[0]][idx[1]]... lives in the storage (x->ndim indices,
 * each range-checked; negative indices count from the end, as in Python). */
int64_t element_offset(const Tensor *x, const int64_t *idx);

/* A new tensor of x's shape whose entries are the storage positions of x's
 * elements (element_offset of every index). x is contiguous exactly when it
 * reads offset, offset + 1, offset + 2, ... row by row. */
Tensor *storage_offsets(const Tensor *x);

/* The strides of a contiguous (row-major) tensor of this shape:
 * stride[i] = shape[i+1] * ... * shape[n-1], so (2, 3, 4) -> (12, 4, 1). */
Shape contiguous_strides(Shape shape);

/* Why x.view() refuses x: the first dim (from the left, ignoring dims of
 * size 1) whose stride is not the one contiguous_strides() gives, or -1 when
 * x is contiguous (x.is_contiguous() is True). */
int stride_mismatch_dim(const Tensor *x);

/* try: *out = x.view(shape)  except RuntimeError as e: err = str(e)
 * Returns true and sets *out when the view works; otherwise returns false,
 * leaves *out NULL and writes the error sentence into err (may be NULL). */
bool try_view(const Tensor *x, Shape shape, Tensor **out, char *err, size_t errlen);

#endif
