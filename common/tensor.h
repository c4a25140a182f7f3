/* tensor.h — the Tensor of this project: what torch.Tensor is to Happy-LLM's code.
 *
 * A Tensor is float32 data seen through a shape, strides and an offset over
 * a Storage that several tensors may share. view / transpose / permute /
 * slice make new Tensor headers over the same Storage (zero copy), exactly
 * like PyTorch; contiguous() copies only when the strides are not the
 * row-major ones.
 *
 * Memory: every Tensor and Storage lives in the current *scope*. A chapter
 * never calls free(): it opens a scope at the start (t_scope_begin()) and
 * closes it at the end (t_scope_end()), and everything made in between is
 * released at once. Scopes nest, so a loop body can clean up after itself.
 * A tensor made inside a scope must not be used after that scope ends.
 *
 * Sizes are checked: a shape whose element count or byte size overflows, or
 * that is larger than t_max_bytes(), is an error sentence, not a crash.
 */
#ifndef COMMON_TENSOR_H
#define COMMON_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define T_MAX_DIMS 8

/* ---- shapes ------------------------------------------------------------ */

typedef struct {
    int ndim;
    int64_t dims[T_MAX_DIMS];
} Shape;

/* SHAPE(2, 3, 4) is the C spelling of PyTorch's (2, 3, 4). */
#define SHAPE(...)                                                        \
    shape_of((int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),  \
             (int64_t[]){__VA_ARGS__})
Shape shape_of(int ndim, const int64_t *dims);

/* "(2, 3, 4)" — written into buf (at least T_SHAPE_STR bytes); returns buf. */
#define T_SHAPE_STR 200
char *shape_str(Shape s, char *buf);

/* ---- tensors ----------------------------------------------------------- */

typedef struct {
    float *data;     /* owned by the current scope */
    int64_t numel;   /* number of floats in data   */
} Storage;

typedef struct {
    int ndim;                        /* 0 .. T_MAX_DIMS            */
    int64_t shape[T_MAX_DIMS];       /* x.shape                    */
    int64_t strides[T_MAX_DIMS];     /* x.stride(), in elements    */
    int64_t offset;                  /* x.storage_offset()         */
    Storage *storage;                /* shared by views            */
} Tensor;

/* ---- scopes (memory) ---------------------------------------------------- */

void t_scope_begin(void);
void t_scope_end(void);             /* frees everything since the matching begin */
int  t_scope_depth(void);           /* for tests that unwind after an error       */
void t_scope_end_to(int depth);     /* end scopes until depth is reached          */
void *t_alloc(size_t bytes);        /* zeroed, owned by the current scope         */
/* t_scope_end, except that the blocks' memory is kept, not given back to the system:
 * the next t_alloc of the same size takes one of them (zeroed again, as t_alloc's memory
 * always is) instead of fresh pages, each of which costs a page fault the first time it
 * is touched. For a loop whose every pass makes the same tensors (a training step). The
 * kept memory is not counted as held (t_live_bytes) and is freed by t_keep_release or at
 * exit. Under AddressSanitizer it is t_scope_end (freed blocks stay poisoned). */
void t_scope_end_keep(void);
void t_keep_release(void);          /* free what t_scope_end_keep kept           */
size_t t_kept_bytes(void);          /* bytes kept now, for tests                  */

/* Largest single allocation allowed: env ATTN_MAX_BYTES, else half of this
 * machine's memory (t_default_max_bytes). */
size_t t_max_bytes(void);
void   t_set_max_bytes(size_t bytes);
/* Half of the physical memory (or of a smaller cgroup limit); 4 GiB when the
 * system does not say. */
size_t t_default_max_bytes(void);
/* "2000000000", "1.5e9", "512M", "2G", "2GiB" -> bytes (a K, M, G or T suffix
 * counts 1024s). False for NULL, "" or anything else (*out untouched). */
bool   t_parse_bytes(const char *text, size_t *out);
/* digits [. digits] [e [+-] digits] and nothing else -> a finite number. */
bool   t_parse_number(const char *text, double *out);
/* 100 -> "100 bytes", 1536 -> "1.5 KiB": how every message says a size.
 * Returns buf. */
const char *t_format_bytes(double bytes, char *buf, size_t len);
/* A refusal's two sizes, need > limit, so that the comparison reads true: each in its own unit
 * when the units alone show it (91.6 MiB, 976.6 KiB), else both in need's unit with the
 * digits that tell them apart (1.02 GiB and 1.00 GiB, not 1.0 GiB and 1.0 GiB). */
void t_format_bytes_over(double need, double limit, char *need_buf, char *limit_buf, size_t len);
/* Bytes held now, and the most held at once so far, by t_alloc. */
size_t t_live_bytes(void);
size_t t_peak_bytes(void);
/* Put the peak back to a figure read before work that must not count in it. */
void   t_restore_peak_bytes(size_t bytes);
/* The floating-point operations done so far by the library's matmuls (a
 * progress count, nothing is timed), and a function called after each row of
 * a matmul's result (a program's progress line; NULL: none). */
double t_work_done(void);
void   t_set_work_hook(void (*hook)(void));
void   t_work_add(double flops); /* for code that does its own loops */
/* A program's memory budget for everything it holds at once (0 = none, the
 * default): an allocation past it is an error sentence (a program's budget,
 * common/program/budget.h, sets it). */
void   t_set_run_budget(size_t bytes);
/* Error unless a tensor of this shape fits: "what: shape (..) needs X, ...". */
void   t_check_fits(const char *what, Shape s);

/* ---- creation (torch.zeros, torch.full, torch.tensor, torch.eye) -------- */

Tensor *t_zeros(Shape s);
Tensor *t_ones(Shape s);
Tensor *t_full(Shape s, float value);               /* value may be -INFINITY */
Tensor *t_from_array(Shape s, const float *values); /* copies numel values    */
Tensor *t_eye(int64_t n);
Tensor *t_arange(int64_t n);                        /* 0, 1, ..., n-1         */
Tensor *t_empty_like(const Tensor *x);              /* zeros, same shape      */
/* torch.rand / torch.randn: see rng.h for the generator and t_manual_seed. */
Tensor *t_rand(Shape s);
Tensor *t_randn(Shape s);
/* torch.randint(low, high, size): integers in [low, high) drawn as PyTorch
 * draws them, stored as floats (exact while |value| < 2^24). */
Tensor *t_randint(int64_t low, int64_t high, Shape s);

/* ---- facts --------------------------------------------------------------- */

Shape   t_shape(const Tensor *x);
int64_t t_size(const Tensor *x, int dim);   /* x.size(dim), dim may be negative */
int64_t t_numel(const Tensor *x);
bool    t_is_contiguous(const Tensor *x);
bool    t_same_shape(const Tensor *a, const Tensor *b);
bool    t_shares_storage(const Tensor *a, const Tensor *b);
/* "x" -> "(2, 3)" into buf, like shape_str(t_shape(x), buf). */
char   *t_shape_str(const Tensor *x, char *buf);
/* "(3, 1)" strides into buf. */
char   *t_strides_str(const Tensor *x, char *buf);

/* ---- views (zero copy, share storage) ------------------------------------ */

/* x.view(shape): one dim may be -1; refuses a non-contiguous x, as PyTorch. */
Tensor *t_view(const Tensor *x, Shape s);
/* Would x.view(shape) work? false with t_view's sentence in err (may be NULL). */
bool    t_view_ok(const Tensor *x, Shape s, char *err, size_t errlen);
/* x.reshape(shape): a view when possible, else a contiguous copy. */
Tensor *t_reshape(const Tensor *x, Shape s);
Tensor *t_transpose(const Tensor *x, int dim0, int dim1);  /* negative dims ok */
Tensor *t_permute(const Tensor *x, Shape order);
/* x[..., start:end, ...] along one dim (torch.narrow(x, dim, start, end-start)). */
Tensor *t_slice(const Tensor *x, int dim, int64_t start, int64_t end);
/* x[i] along dim 0 with that dim removed. */
Tensor *t_select(const Tensor *x, int dim, int64_t index);
Tensor *t_unsqueeze(const Tensor *x, int dim);
/* x.expand(shape): size-1 dims get stride 0 (no copy). */
Tensor *t_expand(const Tensor *x, Shape s);

/* ---- copies -------------------------------------------------------------- */

Tensor *t_contiguous(const Tensor *x);  /* returns x itself when already contiguous */
Tensor *t_clone(const Tensor *x);       /* always a fresh contiguous copy           */
void    t_copy_(Tensor *dst, const Tensor *src);  /* same shape, any strides       */

/* ---- elements -------------------------------------------------------------- */

/* t_get(x, i, j, ...) == x[i][j]...; all indices required, range-checked. */
#define t_get(x, ...) \
    t_get_n((x), (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__})
#define t_set(x, value, ...) \
    t_set_n((x), (value), (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__})
float t_get_n(const Tensor *x, int n, const int64_t *idx);
void  t_set_n(Tensor *x, float value, int n, const int64_t *idx);
/* Pointer to the element at idx (no checks; for loops in hot paths). */
float *t_ptr(const Tensor *x, const int64_t *idx);
/* Data pointer of a contiguous tensor (error if not contiguous). */
float *t_data(const Tensor *x);
/* Element number i in row-major order, whatever the strides. */
float t_flat_get(const Tensor *x, int64_t i);

/* Normalise a possibly negative dim for an ndim-tensor; error names `op`. */
int t_wrap_dim(const char *op, int dim, int ndim);

#endif
