/* tensor.c — shapes, strides, views and the scope allocator behind Tensor. */
#include "tensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "platform.h" /* p_map: large blocks straight from the system's pages */
#include "rng.h"

/* ------------------------------------------------------------------------ */
/* scopes: every allocation is a block on one list; a scope remembers the    */
/* list head at its start and frees back to it at its end.                   */

/* The payload starts on a multiple of T_ALIGN = 64 bytes, a cache line and one
 * 16-float vector: a vector load of a row that starts there never straddles two
 * lines. malloc alone guarantees 16, and chapter 8's flash ran fast or slow
 * depending on where malloc happened to put its inputs. The block's
 * header sits just before the payload and remembers where its memory starts. */
#define T_ALIGN 64
typedef struct Block {
    struct Block *next;
    void *raw;     /* what calloc or p_map returned, for free or p_unmap */
    size_t mapped; /* bytes mapped for a large block (p_unmap), 0 for calloc's */
    size_t bytes;  /* payload size, for the live/peak count */
} Block;

#define MAX_SCOPES 256
static Block *alloc_head = NULL;
static Block *scope_marks[MAX_SCOPES];
static int scope_count = 0;
static int atexit_registered = 0;
static size_t max_bytes = 0;
static size_t live_bytes = 0, peak_bytes = 0, run_budget = 0;

/* Large blocks and the memory system. Fresh memory costs a page fault the
 * first time each 4 KiB page is touched: an 8 MiB tensor is 2048 faults, a
 * good share of a whole run. A block of at least a huge page (2 MiB) gets its
 * own mapping, aligned to 2 MiB and marked MADV_HUGEPAGE: where the system
 * has transparent huge pages on request, the first touch then maps 2 MiB at
 * once (512 times fewer faults). Elsewhere, and under AddressSanitizer (whose
 * red zones catch overflows of calloc's blocks), blocks come from calloc. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define T_ASAN 1
#endif
#if !defined(T_ASAN)
#define T_HUGE ((size_t)2 << 20)
#endif

static void free_block(Block *b) {
#ifdef T_HUGE
    if (b->mapped) {
        p_unmap(b->raw, b->mapped);
        return;
    }
#endif
    free(b->raw);
}

static void free_until(Block *mark) {
    while (alloc_head && alloc_head != mark) {
        Block *next = alloc_head->next;
        live_bytes -= alloc_head->bytes;
        free_block(alloc_head);
        alloc_head = next;
    }
}

/* t_scope_end_keep's blocks, oldest allocation first: a loop's next pass asks for the
 * same sizes in the same order, so the block it wants is nearly always the first. */
static Block *kept_head = NULL;
static size_t kept_bytes = 0;

void t_keep_release(void) {
    while (kept_head) {
        Block *next = kept_head->next;
        kept_bytes -= kept_head->bytes;
        free_block(kept_head);
        kept_head = next;
    }
}

size_t t_kept_bytes(void) { return kept_bytes; }

/* A kept block of exactly `bytes`, unlinked and zeroed, or NULL. */
static Block *take_kept(size_t bytes) {
    for (Block **at = &kept_head; *at; at = &(*at)->next)
        if ((*at)->bytes == bytes) {
            Block *b = *at;
            *at = b->next;
            kept_bytes -= bytes;
            memset(b + 1, 0, bytes);   /* the payload starts right after its header */
            return b;
        }
    return NULL;
}

static void free_everything(void) {
    free_until(NULL);
    t_keep_release();
    scope_count = 0;
}

void t_scope_begin(void) {
    if (scope_count >= MAX_SCOPES)
        t_error("t_scope_begin: more than %d nested scopes (a missing t_scope_end?)", MAX_SCOPES);
    scope_marks[scope_count++] = alloc_head;
}

void t_scope_end(void) {
    if (scope_count == 0) t_error("t_scope_end: no scope is open (t_scope_end without t_scope_begin)");
    free_until(scope_marks[--scope_count]);
}

void t_scope_end_keep(void) {
#ifdef T_ASAN
    t_scope_end();
#else
    if (scope_count == 0) t_error("t_scope_end_keep: no scope is open (t_scope_end_keep without t_scope_begin)");
    Block *mark = scope_marks[--scope_count];
    while (alloc_head && alloc_head != mark) {   /* newest first: each goes in front, the oldest ends first */
        Block *b = alloc_head;
        alloc_head = b->next;
        live_bytes -= b->bytes;
        kept_bytes += b->bytes;
        b->next = kept_head;
        kept_head = b;
    }
#endif
}

int t_scope_depth(void) { return scope_count; }

void t_scope_end_to(int depth) {
    if (depth < 0) depth = 0;
    while (scope_count > depth) t_scope_end();
}

/* ---- the memory limit: ATTN_MAX_BYTES, or half of this machine's memory ---- */

/* digits [. digits] [e [+-] digits], nothing else; then strtod */
static bool parse_number(const char *s, const char **end, double *out) {
    const char *p = s;
    size_t mant = 0;
    char buf[64];
    while (*p >= '0' && *p <= '9') p++, mant++;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') p++, mant++;
    }
    if (mant == 0) return false;
    if (*p == 'e' || *p == 'E') {
        size_t ed = 0;
        p++;
        if (*p == '+' || *p == '-') p++;
        while (*p >= '0' && *p <= '9') p++, ed++;
        if (ed == 0) return false;
    }
    if ((size_t)(p - s) >= sizeof buf) return false;
    memcpy(buf, s, (size_t)(p - s));
    buf[p - s] = '\0';
    *out = strtod(buf, NULL);
    *end = p;
    return isfinite(*out);
}

bool t_parse_number(const char *text, double *out) {
    const char *p;
    double v;
    if (!text || !*text || !parse_number(text, &p, &v) || *p) return false;
    *out = v;
    return true;
}

bool t_parse_bytes(const char *text, size_t *out) {
    const char *p;
    double v, mult = 1.0;
    if (!text || !*text || !parse_number(text, &p, &v)) return false;
    if (*p) {
        const char *units = "KMGT";
        const char *u = strchr(units, *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        if (!u || !*u) return false;
        mult = pow(1024.0, (double)(u - units + 1));
        p++;
        if (strcmp(p, "iB") == 0 || strcmp(p, "B") == 0 || strcmp(p, "b") == 0) p += strlen(p);
        if (*p) return false;
    }
    v *= mult;
    if (!(v >= 1.0) || v >= 9.2e18 || v > (double)SIZE_MAX) return false;
    *out = (size_t)v;
    return true;
}

/* A cgroup (v2 or v1) memory limit smaller than the machine, or 0. */
static double cgroup_limit(void) {
    static const char *const files[] = {"/sys/fs/cgroup/memory.max",
                                        "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
    size_t i;
    for (i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        char line[64];
        if (!f) continue;
        if (fgets(line, sizeof line, f)) {
            char *end;
            double v = strtod(line, &end);
            fclose(f);
            if (end != line && v > 0 && v < 1e18) return v;
            continue;
        }
        fclose(f);
    }
    return 0;
}

size_t t_default_max_bytes(void) {
    double total = 0;
    total = p_physical_bytes();
    {
        double cg = cgroup_limit();
        if (cg > 0 && (total <= 0 || cg < total)) total = cg;
    }
    if (total <= 0) return (size_t)4 << 30;
    if (total / 2 > (double)SIZE_MAX) return SIZE_MAX;
    return (size_t)(total / 2);
}

size_t t_max_bytes(void) {
    if (max_bytes == 0) {
        /* a bad ATTN_MAX_BYTES is refused by the programs before they get here */
        if (!t_parse_bytes(getenv("ATTN_MAX_BYTES"), &max_bytes)) max_bytes = t_default_max_bytes();
    }
    return max_bytes;
}

size_t t_live_bytes(void) { return live_bytes; }
size_t t_peak_bytes(void) { return peak_bytes; }
void t_restore_peak_bytes(size_t bytes) { peak_bytes = bytes > live_bytes ? bytes : live_bytes; }
void t_set_run_budget(size_t bytes) { run_budget = bytes; }

static double work_done = 0;
static void (*work_hook)(void) = NULL;
double t_work_done(void) { return work_done; }
void t_set_work_hook(void (*hook)(void)) { work_hook = hook; }
void t_work_add(double flops)
{
    work_done += flops;
    if (work_hook) work_hook();
}

void t_set_max_bytes(size_t bytes) { max_bytes = bytes; }

const char *t_format_bytes(double bytes, char *buf, size_t len) {
    const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 6) {
        bytes /= 1024.0;
        u++;
    }
    if (u == 0) snprintf(buf, len, "%.0f bytes", bytes);
    else snprintf(buf, len, "%.1f %s", bytes, units[u]);
    return buf;
}

/* The unit t_format_bytes picks for bytes: 0 bytes, 1 KiB, 2 MiB, ... */
static int bytes_unit(double bytes) {
    int u = 0;
    while (bytes >= 1024.0 && u < 6) bytes /= 1024.0, u++;
    return u;
}

void t_format_bytes_over(double need, double limit, char *need_buf, char *limit_buf, size_t len) {
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int un = bytes_unit(need), ul = bytes_unit(limit);
    t_format_bytes(need, need_buf, len);
    t_format_bytes(limit, limit_buf, len);
    /* a bigger unit reads bigger while the limit shows below 1024 of its own */
    if (un > ul && strtod(limit_buf, NULL) < 1024.0) return;
    if (un == ul && strtod(need_buf, NULL) > strtod(limit_buf, NULL)) return;
    if (un == 0) return;  /* whole bytes: always apart */
    double scale = 1.0;
    for (int i = 0; i < un; i++) scale *= 1024.0;
    for (int digits = 2; digits <= 6; digits++) {
        snprintf(need_buf, len, "%.*f %s", digits, need / scale, units[un]);
        snprintf(limit_buf, len, "%.*f %s", digits, limit / scale, units[un]);
        if (strtod(need_buf, NULL) > strtod(limit_buf, NULL)) return;
    }
    /* closer than a millionth of the unit: the bytes themselves */
    snprintf(need_buf, len, "%.0f bytes", need);
    snprintf(limit_buf, len, "%.0f bytes", limit);
}

void *t_alloc(size_t bytes) {
    if (bytes > t_max_bytes()) {
        char want[32], limit[32];
        t_format_bytes_over((double)bytes, (double)t_max_bytes(), want, limit, sizeof want);
        t_error("allocation of %s is more than the %s limit (ATTN_MAX_BYTES)", want, limit);
    }
    if (run_budget && bytes > run_budget - (live_bytes < run_budget ? live_bytes : run_budget)) {
        /* the chapter's estimate (budget.h) was too low: a sentence, not the OOM killer */
        char want[32], held[32], limit[32];
        char total[32];
        t_format_bytes((double)bytes, want, sizeof want);
        t_format_bytes((double)live_bytes, held, sizeof held);
        t_format_bytes_over((double)bytes + (double)live_bytes, (double)run_budget, total, limit, sizeof total);
        t_error("allocating %s more (this run already holds %s) would bring it to %s, past the memory budget "
                "of %s (ATTN_MAX_BYTES)", want, held, total, limit);
    }
    if (!atexit_registered) {
        atexit(free_everything);
        atexit_registered = 1;
    }
    Block *kept = take_kept(bytes);
    if (kept) {
        kept->next = alloc_head;
        alloc_head = kept;
        live_bytes += bytes;
        if (live_bytes > peak_bytes) peak_bytes = live_bytes;
        return (void *)(kept + 1);
    }
    size_t mapped = 0;
    char *raw = NULL;
#ifdef T_HUGE
    if (bytes >= T_HUGE && bytes <= SIZE_MAX - T_ALIGN) raw = p_map(T_ALIGN + bytes, &mapped);
#endif
    if (!raw) raw = (char *)calloc(1, sizeof(Block) + (T_ALIGN - 1) + bytes);
    if (!raw) {
        char want[32];
        t_format_bytes((double)bytes, want, sizeof want);
        t_error("out of memory: could not allocate %s", want);
    }
    uintptr_t at = ((uintptr_t)(raw + sizeof(Block)) + (T_ALIGN - 1)) & ~(uintptr_t)(T_ALIGN - 1);
    Block *b = (Block *)(at - sizeof(Block));
    b->next = alloc_head;
    b->raw = raw;
    b->mapped = mapped;
    b->bytes = bytes;
    alloc_head = b;
    live_bytes += bytes;
    if (live_bytes > peak_bytes) peak_bytes = live_bytes;
    return (void *)at;
}

/* ------------------------------------------------------------------------ */
/* shapes                                                                    */

Shape shape_of(int ndim, const int64_t *dims) {
    Shape s;
    memset(&s, 0, sizeof s);
    if (ndim < 0 || ndim > T_MAX_DIMS)
        t_error("shape: %d dims given, a tensor has 0 to %d", ndim, T_MAX_DIMS);
    s.ndim = ndim;
    for (int i = 0; i < ndim; i++) s.dims[i] = dims[i];
    return s;
}

char *shape_str(Shape s, char *buf) {
    size_t n = 0;
    n += (size_t)snprintf(buf + n, T_SHAPE_STR - n, "(");
    for (int i = 0; i < s.ndim && n < T_SHAPE_STR; i++)
        n += (size_t)snprintf(buf + n, T_SHAPE_STR - n, "%s%lld", i ? ", " : "", (long long)s.dims[i]);
    if (n < T_SHAPE_STR)
        snprintf(buf + n, T_SHAPE_STR - n, s.ndim == 1 ? ",)" : ")");
    return buf;
}

/* numel with overflow check; -1 when it does not fit in int64 */
static int64_t shape_numel_checked(Shape s) {
    int64_t n = 1;
    for (int i = 0; i < s.ndim; i++) {
        if (s.dims[i] == 0) return 0;
    }
    for (int i = 0; i < s.ndim; i++) {
        if (s.dims[i] > INT64_MAX / n) return -1;
        n *= s.dims[i];
    }
    return n;
}

void t_check_fits(const char *what, Shape s) {
    char sb[T_SHAPE_STR];
    if (s.ndim < 0 || s.ndim > T_MAX_DIMS)
        t_error("%s: %d dims, a tensor has 0 to %d", what, s.ndim, T_MAX_DIMS);
    for (int i = 0; i < s.ndim; i++)
        if (s.dims[i] < 0)
            t_error("%s: shape %s has a negative size in dim %d", what, shape_str(s, sb), i);
    int64_t n = shape_numel_checked(s);
    if (n < 0 || (uint64_t)n > (uint64_t)SIZE_MAX / sizeof(float))
        t_error("%s: shape %s has more elements than memory can address", what, shape_str(s, sb));
    size_t bytes = (size_t)n * sizeof(float);
    if (bytes > t_max_bytes()) {
        char want[32], limit[32];
        t_format_bytes_over((double)bytes, (double)t_max_bytes(), want, limit, sizeof want);
        t_error(t_tr("%s: shape %s needs %s of float32, more than the %s limit (ATTN_MAX_BYTES)"),
                what, shape_str(s, sb), want, limit);
    }
}

static void row_major_strides(int ndim, const int64_t *shape, int64_t *strides) {
    int64_t st = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = st;
        /* an empty tensor may have huge other dims: saturate, strides are unused then */
        if (shape[i] > 1 && st > INT64_MAX / shape[i]) st = INT64_MAX;
        else st *= shape[i] > 0 ? shape[i] : 1;
    }
}

/* A fresh contiguous tensor of shape s in the current scope. */
static Tensor *new_tensor(const char *op, Shape s) {
    t_check_fits(op, s);
    int64_t n = shape_numel_checked(s);
    Tensor *t = (Tensor *)t_alloc(sizeof(Tensor));
    Storage *st = (Storage *)t_alloc(sizeof(Storage));
    st->data = (float *)t_alloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    st->numel = n;
    t->ndim = s.ndim;
    for (int i = 0; i < s.ndim; i++) t->shape[i] = s.dims[i];
    row_major_strides(s.ndim, t->shape, t->strides);
    t->offset = 0;
    t->storage = st;
    return t;
}

/* A new header over x's storage. */
static Tensor *new_view(const Tensor *x) {
    Tensor *t = (Tensor *)t_alloc(sizeof(Tensor));
    *t = *x;
    return t;
}

/* ------------------------------------------------------------------------ */
/* creation                                                                  */

Tensor *t_zeros(Shape s) { return new_tensor("zeros", s); }

Tensor *t_full(Shape s, float value) {
    Tensor *t = new_tensor("full", s);
    for (int64_t i = 0; i < t->storage->numel; i++) t->storage->data[i] = value;
    return t;
}

Tensor *t_ones(Shape s) { return t_full(s, 1.0f); }

Tensor *t_from_array(Shape s, const float *values) {
    Tensor *t = new_tensor("from_array", s);
    if (t->storage->numel > 0) memcpy(t->storage->data, values, (size_t)t->storage->numel * sizeof(float));
    return t;
}

Tensor *t_eye(int64_t n) {
    Tensor *t = new_tensor("eye", SHAPE(n, n));
    for (int64_t i = 0; i < n; i++) t->storage->data[i * n + i] = 1.0f;
    return t;
}

Tensor *t_arange(int64_t n) {
    Tensor *t = new_tensor("arange", SHAPE(n));
    for (int64_t i = 0; i < n; i++) t->storage->data[i] = (float)i;
    return t;
}

Tensor *t_empty_like(const Tensor *x) { return new_tensor("empty_like", t_shape(x)); }

Tensor *t_rand(Shape s) {
    Tensor *t = new_tensor("rand", s);
    rng_uniform_fill(t_default_rng(), t->storage->data, t->storage->numel, 0.0f, 1.0f);
    return t;
}

Tensor *t_randn(Shape s) {
    Tensor *t = new_tensor("randn", s);
    rng_normal_fill(t_default_rng(), t->storage->data, t->storage->numel);
    return t;
}

Tensor *t_randint(int64_t low, int64_t high, Shape s) {
    if (high <= low)
        t_error("randint: high (%lld) must be greater than low (%lld)", (long long)high, (long long)low);
    Tensor *t = new_tensor("randint", s);
    Rng *r = t_default_rng();
    for (int64_t i = 0; i < t->storage->numel; i++) t->storage->data[i] = (float)rng_randint(r, low, high);
    return t;
}

/* ------------------------------------------------------------------------ */
/* facts                                                                     */

Shape t_shape(const Tensor *x) { return shape_of(x->ndim, x->shape); }

int t_wrap_dim(const char *op, int dim, int ndim) {
    int lo = ndim > 0 ? -ndim : -1, hi = ndim > 0 ? ndim - 1 : 0;
    if (dim < lo || dim > hi)
        t_error("%s: dim %d is out of range for a %d-dim tensor (expected %d to %d)", op, dim, ndim, lo, hi);
    return dim < 0 ? dim + (ndim > 0 ? ndim : 1) : dim;
}

int64_t t_size(const Tensor *x, int dim) { return x->shape[t_wrap_dim("size", dim, x->ndim)]; }

int64_t t_numel(const Tensor *x) {
    int64_t n = 1;
    for (int i = 0; i < x->ndim; i++)
        if (x->shape[i] == 0) return 0; /* before multiplying: other dims may be huge */
    for (int i = 0; i < x->ndim; i++) n *= x->shape[i];
    return n;
}

bool t_is_contiguous(const Tensor *x) {
    int64_t expected = 1;
    for (int i = x->ndim - 1; i >= 0; i--) {
        if (x->shape[i] == 0) return true;
        if (x->shape[i] != 1 && x->strides[i] != expected) return false;
        expected *= x->shape[i];
    }
    return true;
}

bool t_same_shape(const Tensor *a, const Tensor *b) {
    if (a->ndim != b->ndim) return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return false;
    return true;
}

bool t_shares_storage(const Tensor *a, const Tensor *b) { return a->storage == b->storage; }

char *t_shape_str(const Tensor *x, char *buf) { return shape_str(t_shape(x), buf); }

char *t_strides_str(const Tensor *x, char *buf) { return shape_str(shape_of(x->ndim, x->strides), buf); }

/* ------------------------------------------------------------------------ */
/* views                                                                     */

/* Resolve a -1 in s against numel. What view (or reshape) would refuse, as the
 * sentence naming `op` and x's shape, goes into msg (1 returned); 0 when fine.
 * need_contiguous: view's rule too (reshape copies instead). */
static int view_problem(const char *op, const Tensor *x, Shape *sp, bool need_contiguous, char *msg, size_t len) {
    char xs[T_SHAPE_STR], ss[T_SHAPE_STR], st[T_SHAPE_STR];
    Shape s = *sp;
    int infer = -1;
    int64_t known = 1;
    for (int i = 0; i < s.ndim; i++) {
        if (s.dims[i] == -1) {
            if (infer >= 0)
                return snprintf(msg, len, "%s: only one dimension can be -1, got %s", op, shape_str(s, ss)), 1;
            infer = i;
        } else if (s.dims[i] < 0) {
            return snprintf(msg, len, "%s: invalid size %lld in shape %s", op, (long long)s.dims[i], shape_str(s, ss)), 1;
        } else {
            if (s.dims[i] != 0 && known > INT64_MAX / s.dims[i])
                return snprintf(msg, len, "%s: shape %s is too large", op, shape_str(s, ss)), 1;
            known *= s.dims[i];
        }
    }
    int64_t n = t_numel(x);
    if (infer >= 0) {
        if (known == 0 || n % known != 0)
            return snprintf(msg, len, "%s: shape %s is invalid for input %s of %lld elements", op, shape_str(s, ss),
                            t_shape_str(x, xs), (long long)n), 1;
        s.dims[infer] = n / known;
    } else if (known != n) {
        return snprintf(msg, len, "%s: shape %s is invalid for input %s of %lld elements (%lld != %lld)", op,
                        shape_str(s, ss), t_shape_str(x, xs), (long long)n, (long long)known, (long long)n), 1;
    }
    if (need_contiguous && !t_is_contiguous(x))
        return snprintf(msg, len, "view: input %s with strides %s is not contiguous; call contiguous() first "
                        "(or reshape(), which copies)", t_shape_str(x, xs), t_strides_str(x, st)), 1;
    *sp = s;
    return 0;
}

/* Resolve a -1 in s against numel; errors name `op` and x's shape. */
static Shape infer_shape(const char *op, const Tensor *x, Shape s) {
    char msg[1024];
    if (view_problem(op, x, &s, false, msg, sizeof msg)) t_error("%s", msg);
    return s;
}

bool t_view_ok(const Tensor *x, Shape s, char *err, size_t errlen) {
    char msg[1024];
    if (!view_problem("view", x, &s, true, msg, sizeof msg)) {
        if (err && errlen > 0) err[0] = '\0';
        return true;
    }
    if (err && errlen > 0) t_escape(err, errlen, msg);
    return false;
}

Tensor *t_view(const Tensor *x, Shape s) {
    char msg[1024];
    if (view_problem("view", x, &s, true, msg, sizeof msg)) t_error("%s", msg);
    Tensor *t = new_view(x);
    t->ndim = s.ndim;
    for (int i = 0; i < s.ndim; i++) t->shape[i] = s.dims[i];
    row_major_strides(s.ndim, t->shape, t->strides);
    return t;
}

Tensor *t_reshape(const Tensor *x, Shape s) {
    s = infer_shape("reshape", x, s);
    return t_view(t_contiguous(x), s);
}

Tensor *t_transpose(const Tensor *x, int dim0, int dim1) {
    int d0 = t_wrap_dim("transpose", dim0, x->ndim), d1 = t_wrap_dim("transpose", dim1, x->ndim);
    Tensor *t = new_view(x);
    if (x->ndim == 0) return t;
    t->shape[d0] = x->shape[d1];
    t->shape[d1] = x->shape[d0];
    t->strides[d0] = x->strides[d1];
    t->strides[d1] = x->strides[d0];
    return t;
}

Tensor *t_permute(const Tensor *x, Shape order) {
    char xs[T_SHAPE_STR], os[T_SHAPE_STR];
    if (order.ndim != x->ndim)
        t_error("permute: order %s has %d entries but the input %s has %d dims", shape_str(order, os),
                order.ndim, t_shape_str(x, xs), x->ndim);
    int seen[T_MAX_DIMS] = {0};
    Tensor *t = new_view(x);
    for (int i = 0; i < x->ndim; i++) {
        int64_t d = order.dims[i];
        if (d < -x->ndim || d >= x->ndim)
            t_error("permute: order %s names dim %lld, out of range for %s", shape_str(order, os),
                    (long long)d, t_shape_str(x, xs));
        if (d < 0) d += x->ndim;
        if (seen[d]++) t_error("permute: order %s repeats dim %lld", shape_str(order, os), (long long)d);
        t->shape[i] = x->shape[d];
        t->strides[i] = x->strides[d];
    }
    return t;
}

Tensor *t_slice(const Tensor *x, int dim, int64_t start, int64_t end) {
    int d = t_wrap_dim("slice", dim, x->ndim);
    if (x->ndim == 0) t_error("slice: cannot slice a 0-dim tensor");
    int64_t n = x->shape[d];
    /* Python semantics: negative counts from the end, out of range clamps */
    if (start < 0) start += n;
    if (end < 0) end += n;
    if (start < 0) start = 0;
    if (end > n) end = n;
    if (start > n) start = n;
    if (end < start) end = start;
    Tensor *t = new_view(x);
    t->shape[d] = end - start;
    t->offset = x->offset + start * x->strides[d];
    return t;
}

Tensor *t_select(const Tensor *x, int dim, int64_t index) {
    char xs[T_SHAPE_STR];
    int d = t_wrap_dim("select", dim, x->ndim);
    if (x->ndim == 0) t_error("select: cannot index a 0-dim tensor");
    int64_t n = x->shape[d];
    if (index < -n || index >= n)
        t_error("select: index %lld is out of range for dim %d of size %lld in %s", (long long)index, d,
                (long long)n, t_shape_str(x, xs));
    if (index < 0) index += n;
    Tensor *t = new_view(x);
    t->offset = x->offset + index * x->strides[d];
    for (int i = d; i < x->ndim - 1; i++) {
        t->shape[i] = x->shape[i + 1];
        t->strides[i] = x->strides[i + 1];
    }
    t->ndim = x->ndim - 1;
    return t;
}

Tensor *t_unsqueeze(const Tensor *x, int dim) {
    if (x->ndim >= T_MAX_DIMS) t_error("unsqueeze: a tensor has at most %d dims", T_MAX_DIMS);
    int d = t_wrap_dim("unsqueeze", dim, x->ndim + 1);
    Tensor *t = new_view(x);
    for (int i = x->ndim; i > d; i--) {
        t->shape[i] = x->shape[i - 1];
        t->strides[i] = x->strides[i - 1];
    }
    t->shape[d] = 1;
    t->strides[d] = (d + 1 < x->ndim + 1) ? x->shape[d] * x->strides[d] : 1;
    t->ndim = x->ndim + 1;
    return t;
}

Tensor *t_expand(const Tensor *x, Shape s) {
    char xs[T_SHAPE_STR], ss[T_SHAPE_STR];
    if (s.ndim < x->ndim)
        t_error("expand: target %s has fewer dims than the input %s", shape_str(s, ss), t_shape_str(x, xs));
    Tensor *t = new_view(x);
    int lead = s.ndim - x->ndim;
    t->ndim = s.ndim;
    for (int i = s.ndim - 1; i >= 0; i--) {
        int j = i - lead;
        int64_t want = s.dims[i];
        if (j < 0) {
            if (want < 0) t_error("expand: size -1 is not allowed for a new leading dim in %s", shape_str(s, ss));
            t->shape[i] = want;
            t->strides[i] = 0;
        } else if (want == -1 || want == x->shape[j]) {
            t->shape[i] = x->shape[j];
            t->strides[i] = x->strides[j];
        } else if (x->shape[j] == 1 && want >= 0) {
            t->shape[i] = want;
            t->strides[i] = 0;
        } else {
            t_error("expand: the input %s cannot be expanded to %s: dim %d has size %lld, which is not 1",
                    t_shape_str(x, xs), shape_str(s, ss), i, (long long)x->shape[j]);
        }
    }
    return t;
}

/* ------------------------------------------------------------------------ */
/* copies                                                                    */

/* Walk x in row-major order calling out[k] = x[idx(k)]. */
static void gather(float *out, const Tensor *x) {
    int64_t n = t_numel(x);
    if (n == 0) return;
    int64_t idx[T_MAX_DIMS] = {0};
    int64_t off = x->offset;
    const float *src = x->storage->data;
    for (int64_t k = 0; k < n; k++) {
        out[k] = src[off];
        for (int d = x->ndim - 1; d >= 0; d--) {
            if (++idx[d] < x->shape[d]) {
                off += x->strides[d];
                break;
            }
            off -= (x->shape[d] - 1) * x->strides[d];
            idx[d] = 0;
        }
    }
}

Tensor *t_contiguous(const Tensor *x) {
    if (t_is_contiguous(x)) return (Tensor *)x;
    return t_clone(x);
}

Tensor *t_clone(const Tensor *x) {
    Tensor *t = new_tensor("clone", t_shape(x));
    gather(t->storage->data, x);
    return t;
}

void t_copy_(Tensor *dst, const Tensor *src) {
    char a[T_SHAPE_STR], b[T_SHAPE_STR];
    if (!t_same_shape(dst, src))
        t_error("copy_: destination %s and source %s differ in shape", t_shape_str(dst, a), t_shape_str(src, b));
    int64_t n = t_numel(src);
    if (n == 0) return;
    float *tmp = (float *)malloc((size_t)n * sizeof(float));
    if (!tmp) t_error("copy_: out of memory");
    gather(tmp, src); /* via a buffer, so overlapping views are safe */
    int64_t idx[T_MAX_DIMS] = {0};
    int64_t off = dst->offset;
    for (int64_t k = 0; k < n; k++) {
        dst->storage->data[off] = tmp[k];
        for (int d = dst->ndim - 1; d >= 0; d--) {
            if (++idx[d] < dst->shape[d]) {
                off += dst->strides[d];
                break;
            }
            off -= (dst->shape[d] - 1) * dst->strides[d];
            idx[d] = 0;
        }
    }
    free(tmp);
}

/* ------------------------------------------------------------------------ */
/* elements                                                                  */

static int64_t checked_offset(const char *op, const Tensor *x, int n, const int64_t *idx) {
    char xs[T_SHAPE_STR];
    if (n != x->ndim)
        t_error("%s: %d indices given for a %d-dim tensor %s", op, n, x->ndim, t_shape_str(x, xs));
    int64_t off = x->offset;
    for (int i = 0; i < n; i++) {
        int64_t k = idx[i];
        if (k < -x->shape[i] || k >= x->shape[i])
            t_error("%s: index %lld is out of range for dim %d of size %lld in %s", op, (long long)k, i,
                    (long long)x->shape[i], t_shape_str(x, xs));
        if (k < 0) k += x->shape[i];
        off += k * x->strides[i];
    }
    return off;
}

float t_get_n(const Tensor *x, int n, const int64_t *idx) {
    return x->storage->data[checked_offset("get", x, n, idx)];
}

void t_set_n(Tensor *x, float value, int n, const int64_t *idx) {
    x->storage->data[checked_offset("set", x, n, idx)] = value;
}

float *t_ptr(const Tensor *x, const int64_t *idx) {
    int64_t off = x->offset;
    for (int i = 0; i < x->ndim; i++) off += idx[i] * x->strides[i];
    return x->storage->data + off;
}

float *t_data(const Tensor *x) {
    char xs[T_SHAPE_STR], st[T_SHAPE_STR];
    if (!t_is_contiguous(x))
        t_error("data: tensor %s with strides %s is not contiguous; call contiguous() first",
                t_shape_str(x, xs), t_strides_str(x, st));
    return x->storage->data + x->offset;
}

float t_flat_get(const Tensor *x, int64_t i) {
    char xs[T_SHAPE_STR];
    int64_t n = t_numel(x);
    if (i < 0 || i >= n)
        t_error("flat_get: element %lld is out of range for %s with %lld elements", (long long)i,
                t_shape_str(x, xs), (long long)n);
    int64_t off = x->offset;
    for (int d = x->ndim - 1; d >= 0; d--) {
        off += (i % x->shape[d]) * x->strides[d];
        i /= x->shape[d];
    }
    return x->storage->data[off];
}
