/* print.h — print(tensor) the way PyTorch does.
 *
 *     tensor([[ 0.1385,  0.2379, -inf],
 *             [ 0.1240,  0.1082,  0.1581]])   shape (2, 3)
 *
 * Nested brackets, 4 decimals, columns aligned; tensors with more than 1000
 * elements show the first and last 3 entries of each dim with "..." between
 * (PyTorch's threshold and edgeitems).
 */
#ifndef COMMON_PRINT_H
#define COMMON_PRINT_H

#include <stdio.h>
#include "tensor.h"

/* print(x) to stdout, then "  shape (..)" on the last line. */
void t_print(const Tensor *x);
/* name = tensor(...) with shape; name may be NULL. */
void t_print_named(const char *name, const Tensor *x);
void t_fprint(FILE *f, const Tensor *x);
/* One float as PyTorch's 4-decimal format ("-inf", "nan", "0.1385"). */
char *t_format_float(float v, char *buf, size_t len);

#endif
