/* print.c — print(tensor) in PyTorch's layout: nested brackets, aligned, 4 decimals. */
#include "print.h"

#include <math.h>
#include <string.h>

#define PRINT_THRESHOLD 1000 /* torch.set_printoptions defaults */
#define EDGE_ITEMS 3
#define LINE_WIDTH 80

typedef struct {
    int mode; /* 0 fixed "%.4f", 1 integers "%.0f.", 2 scientific "%.4e" */
    int width;
    int summarize;
} Fmt;

static void format_one(const Fmt *f, float v, char *buf, size_t len) {
    if (isnan(v)) snprintf(buf, len, "nan");
    else if (isinf(v)) snprintf(buf, len, v > 0 ? "inf" : "-inf");
    else if (f->mode == 1) snprintf(buf, len, "%.0f.", (double)v);
    else if (f->mode == 2) snprintf(buf, len, "%.4e", (double)v);
    else snprintf(buf, len, "%.4f", (double)v);
}

char *t_format_float(float v, char *buf, size_t len) {
    Fmt f = {0, 0, 0};
    format_one(&f, v, buf, len);
    return buf;
}

/* Call fn on every element print() will show: all of them, or with summarize only
 * the first and last EDGE_ITEMS of each long dim (as PyTorch formats only those). */
typedef void (*visit_fn)(float v, void *ctx);

static void visit_shown(const Tensor *x, int summarize, int dim, int64_t offset, visit_fn fn, void *ctx) {
    if (dim == x->ndim) {
        fn(x->storage->data[offset], ctx);
        return;
    }
    int64_t size = x->shape[dim];
    for (int64_t i = 0; i < size; i++) {
        if (summarize && size > 2 * EDGE_ITEMS && i == EDGE_ITEMS) i = size - EDGE_ITEMS;
        visit_shown(x, summarize, dim + 1, offset + i * x->strides[dim], fn, ctx);
    }
}

typedef struct {
    int all_int, any_finite;
    double lo, hi;
} Range;

static void note_range(float v, void *ctx) {
    Range *r = (Range *)ctx;
    if (!isfinite(v)) return;
    r->any_finite = 1;
    if (v != floorf(v)) r->all_int = 0;
    double a = fabs((double)v);
    if (a > 0.0) {
        if (a < r->lo) r->lo = a;
        if (a > r->hi) r->hi = a;
    }
}

static void note_width(float v, void *ctx) {
    Fmt *f = (Fmt *)ctx;
    char buf[64];
    format_one(f, v, buf, sizeof buf);
    int w = (int)strlen(buf);
    if (w > f->width) f->width = w;
}

static Fmt choose_format(const Tensor *x, int summarize) {
    Fmt f = {0, 1, summarize};
    Range r = {1, 0, INFINITY, 0.0};
    visit_shown(x, summarize, 0, x->offset, note_range, &r);
    if (r.any_finite && r.all_int) f.mode = r.hi >= 1e8 ? 2 : 1;
    else if (r.any_finite && r.hi > 0.0 && (r.hi / r.lo > 1000.0 || r.hi > 1e8 || r.lo < 1e-4)) f.mode = 2;
    visit_shown(x, summarize, 0, x->offset, note_width, &f);
    return f;
}

static void print_rec(FILE *out, const Tensor *x, const Fmt *f, int dim, int64_t offset, int indent) {
    int64_t size = x->shape[dim];
    fputc('[', out);
    int last = dim == x->ndim - 1;
    int per_line = (LINE_WIDTH - indent - 1) / (f->width + 2);
    if (per_line < 1) per_line = 1;
    int on_line = 0;
    for (int64_t i = 0; i < size; i++) {
        if (f->summarize && size > 2 * EDGE_ITEMS && i == EDGE_ITEMS) {
            /* elide the middle */
            if (last) {
                fprintf(out, "...,");
                on_line++;
                if (on_line < per_line) fputc(' ', out);
            } else {
                fprintf(out, "...,");
                for (int k = 0; k < x->ndim - dim - 1; k++) fputc('\n', out);
                fprintf(out, "%*s", indent + 1, "");
            }
            i = size - EDGE_ITEMS;
        }
        int64_t off = offset + i * x->strides[dim];
        if (last) {
            char buf[64];
            format_one(f, x->storage->data[off], buf, sizeof buf);
            if (on_line == per_line) {
                fprintf(out, "\n%*s", indent + 1, "");
                on_line = 0;
            }
            fprintf(out, "%*s", f->width, buf);
            on_line++;
            if (i + 1 < size) fprintf(out, on_line == per_line ? "," : ", ");
        } else {
            print_rec(out, x, f, dim + 1, off, indent + 1);
            if (i + 1 < size) {
                fputc(',', out);
                for (int k = 0; k < x->ndim - dim - 1; k++) fputc('\n', out);
                fprintf(out, "%*s", indent + 1, "");
            }
        }
    }
    fputc(']', out);
}

void t_fprint(FILE *out, const Tensor *x) {
    char sb[T_SHAPE_STR];
    int summarize = t_numel(x) > PRINT_THRESHOLD;
    Fmt f = choose_format(x, summarize);
    fprintf(out, "tensor(");
    if (x->ndim == 0) {
        char buf[64];
        format_one(&f, x->storage->data[x->offset], buf, sizeof buf);
        fprintf(out, "%s", buf);
    } else if (t_numel(x) == 0) {
        fprintf(out, "[]");
    } else {
        print_rec(out, x, &f, 0, x->offset, (int)strlen("tensor("));
    }
    fprintf(out, ")\n  shape %s%s\n", t_shape_str(x, sb),
            summarize ? " (middle elided: more than 1000 elements)" : "");
}

void t_print(const Tensor *x) { t_fprint(stdout, x); }

/* Columns of the longest line t_fprint writes for x (its rows of numbers). */
static int widest_line(const Tensor *x) {
    if (x->ndim == 0 || t_numel(x) == 0) return 32;
    int summarize = t_numel(x) > PRINT_THRESHOLD;
    Fmt f = choose_format(x, summarize);
    int indent = (int)strlen("tensor(") + x->ndim - 1;
    int per_line = (LINE_WIDTH - indent - 1) / (f.width + 2);
    if (per_line < 1) per_line = 1;
    int64_t n = x->shape[x->ndim - 1];
    if (summarize && n > 2 * EDGE_ITEMS) n = 2 * EDGE_ITEMS + 1;
    if (n > per_line) n = per_line;
    return indent + 1 + (int)n * (f.width + 2);
}

void t_print_named(const char *name, const Tensor *x) {
    /* "name = tensor(..." when that fits in 80 columns, else "name =" on its own line */
    if (name) {
        int cols = (int)strlen(name) + 3 + widest_line(x);
        printf(cols > LINE_WIDTH ? "%s =\n" : "%s = ", name);
    }
    t_fprint(stdout, x);
}
