/* npy.c — read and write NumPy .npy files (see npy.h; numpy/lib/format.py):
 *
 *     "\x93NUMPY"  major  minor  HEADER_LEN  HEADER  DATA
 *
 * HEADER_LEN is 2 bytes little-endian in version 1.0, 4 in 2.0 and 3.0.
 * HEADER is the dict numpy writes, padded with spaces and ended by '\n' so
 * that DATA (the raw elements, C order unless fortran_order) starts at a
 * multiple of 64 bytes:
 *
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 *
 * np.save(path, x)   ->  npy_save(path, x)
 * np.load(path)      ->  npy_load(path)
 */
#include "npy.h"
#include "error.h"
#include "platform.h" /* opening, reading and the kinds of files */

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NPY_MAGIC      "\x93NUMPY"
#define NPY_ALIGN      64                  /* data starts at a multiple of this (NumPy's ARRAY_ALIGN) */
#define NPY_HEADER_MAX 10000               /* numpy.lib.format's max_header_size */
#define NPY_BLOCK      ((size_t)1 << 20)   /* bytes converted or written at a time */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen > 0) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

#define LITTLE_ENDIAN_HOST (*(const unsigned char *)&(const uint16_t){1} == 1)

/* The next index of a walk over dims (first: the first index fastest), *off following by strides. */
static void next_index(int nd, const int64_t *dims, const int64_t *strides, int64_t *idx, int64_t *off, bool first)
{
    int i;
    for (i = 0; i < nd; i++) {
        int k = first ? i : nd - 1 - i;
        *off += strides[k];
        if (++idx[k] < dims[k]) return;
        *off -= strides[k] * dims[k];
        idx[k] = 0;
    }
}

/* ---- reading: the header dict ---------------------------------------------- */

/* What a header says: the dict's values, then the layout of the data. */
typedef struct {
    char descr[40];
    bool fortran;              /* fortran_order (after parsing: of 2 dims or more) */
    Shape shape;
    size_t esize;              /* bytes of one element in the file: 4 or 8 */
    bool swap;                 /* not this machine's byte order */
    uint64_t need;             /* bytes of data */
    char shape_s[T_SHAPE_STR];
} Header;

typedef struct {
    const char *begin, *p, *end;
    int major;                 /* versions 1.0 and 2.0 allow Python 2's 3L */
} Cursor;

#define AT(c) ((long)((c)->p - (c)->begin))
#define BAD(...) fail(err, errlen, "header is not a valid dict: " __VA_ARGS__)

static void skip_ws(Cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static bool at(const Cursor *c, char ch) { return c->p < c->end && *c->p == ch; }

/* 'text' or "text" on one line, without escapes (numpy writes none); keeps
 * at most cap-1 bytes (a longer string matches no key and no dtype). */
static int quoted(Cursor *c, char *dst, size_t cap, const char *what, char *err, size_t errlen)
{
    char q = c->p < c->end ? *c->p : 0;
    size_t n = 0;
    if (q != '\'' && q != '"') return BAD("expected a quoted %s at byte %ld of the header", what, AT(c));
    for (c->p++; c->p < c->end && *c->p != q && *c->p != '\n' && *c->p != '\r' && *c->p != '\\'; c->p++)
        if (n + 1 < cap) dst[n++] = *c->p;
    if (at(c, '\\')) return fail(err, errlen, "header has an escape at byte %ld (numpy writes none)", AT(c));
    if (!at(c, q)) return BAD("a string is not closed on its line");
    c->p++;
    dst[n] = '\0';
    return 0;
}

/* (), (3,), (2, 3), (2,3,): decimal dimensions (0 or no leading zero), in
 * versions 1.0 and 2.0 with the L of Python 2's long integers (numpy.lib.format drops it). */
static int shape(Cursor *c, Shape *s, char *err, size_t errlen)
{
    bool comma = false;
    if (!at(c, '(')) return BAD("'shape' must be a tuple like (2, 3) (at byte %ld of the header)", AT(c));
    for (c->p++, skip_ws(c); !at(c, ')'); skip_ws(c)) {
        bool negative = at(c, '-');
        const char *digits = c->p + negative;
        int64_t v = 0;
        if (s->ndim > 0 && !comma) return BAD("expected ',' or ')' in 'shape' at byte %ld of the header", AT(c));
        for (c->p = digits; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++) {
            if (v > (INT64_MAX - (*c->p - '0')) / 10)
                return fail(err, errlen, "shape has a dimension too large for a 64-bit integer");
            v = v * 10 + (*c->p - '0');
        }
        if (c->p > digits && c->major <= 2 && at(c, 'L')) c->p++;
        if (c->p == digits || (digits[0] == '0' && c->p - digits > 1 && digits[1] != 'L'))
            return BAD("'shape' must be a tuple of integers (at byte %ld of the header)", AT(c));
        if (negative && v > 0) return fail(err, errlen, "shape has a negative dimension -%lld", (long long)v);
        if (s->ndim == T_MAX_DIMS) return fail(err, errlen, "shape has more than %d dims", T_MAX_DIMS);
        s->dims[s->ndim++] = v;
        skip_ws(c);
        if ((comma = at(c, ','))) c->p++;
    }
    c->p++;
    if (s->ndim == 1 && !comma)
        return BAD("'shape' (%lld) is not a tuple (a one-dim shape is written (%lld,))", (long long)s->dims[0],
                   (long long)s->dims[0]);
    return 0;
}

static int parse_dict(Cursor *c, Header *h, char *err, size_t errlen)
{
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    int seen = 0, k;
    skip_ws(c);
    if (!at(c, '{')) return fail(err, errlen, "header is not a dict (it does not start with '{')");
    for (c->p++, skip_ws(c); !at(c, '}'); skip_ws(c)) {
        char key[40];
        if (c->p == c->end) return BAD("it ends before its closing '}'");
        if (quoted(c, key, sizeof key, "key", err, errlen) != 0) return -1;
        for (k = 0; k < 3 && strcmp(key, keys[k]) != 0; k++) continue;
        if (k == 3)
            return fail(err, errlen, "header has an unexpected key '%s' (a .npy header holds only 'descr', "
                        "'fortran_order' and 'shape')", key);
        if (seen & 1 << k) return fail(err, errlen, "header gives '%s' twice", key);
        seen |= 1 << k;
        skip_ws(c);
        if (!at(c, ':')) return BAD("expected ':' after '%s' at byte %ld of the header", key, AT(c));
        c->p++;
        skip_ws(c);
        if (k == 0 && (at(c, '[') || at(c, '(')))
            return fail(err, errlen, "unsupported dtype: structured (record) arrays are not read, only float32 "
                        "('<f4') and float64 ('<f8')");
        if (k == 0 && quoted(c, h->descr, sizeof h->descr, "dtype for 'descr'", err, errlen) != 0) return -1;
        if (k == 1 && c->end - c->p >= 4 && memcmp(c->p, "True", 4) == 0) h->fortran = true, c->p += 4;
        else if (k == 1 && c->end - c->p >= 5 && memcmp(c->p, "False", 5) == 0) c->p += 5;
        else if (k == 1) return BAD("'fortran_order' must be True or False (at byte %ld of the header)", AT(c));
        if (k == 2 && shape(c, &h->shape, err, errlen) != 0) return -1;
        skip_ws(c);
        if (at(c, ',')) c->p++;
        else if (!at(c, '}'))
            return BAD("expected ',' or '}' after the value of '%s' at byte %ld of the header", key, AT(c));
    }
    c->p++;
    skip_ws(c);
    if (c->p != c->end) return BAD("unexpected text after its closing '}' at byte %ld of the header", AT(c));
    for (k = 0; k < 3; k++)
        if (!(seen & 1 << k)) return fail(err, errlen, "header has no '%s' key%s", keys[k], k ? "" : " (the dtype)");
    return 0;
}

/* Where the bytes come from: a buffer (npy_parse) or a file descriptor. */
typedef struct {
    int fd;                    /* -1: buf */
    const unsigned char *buf;  /* the bytes not yet read */
    uint64_t left;             /* bytes not yet read when known (a buffer, a regular file), else UINT64_MAX */
} Source;

/* Up to n bytes into dst, fewer only at the end of the file; -1 with a sentence. */
static int get(Source *s, void *dst, size_t n, size_t *got, char *err, size_t errlen)
{
    *got = s->fd < 0 ? (n < s->left ? n : (size_t)s->left) : 0;
    if (*got) memcpy(dst, s->buf, *got), s->buf += *got;
    for (long r = 1; s->fd >= 0 && *got < n && r != 0; *got += r > 0 ? (size_t)r : 0)   /* r == 0: the end */
        if ((r = p_read(s->fd, (unsigned char *)dst + *got, n - *got)) < 0 && errno != EINTR)
            return fail(err, errlen, t_tr("cannot read the file: %s"), t_strerror(errno));
    if (s->left != UINT64_MAX) s->left -= *got < s->left ? *got : s->left;
    return 0;
}

static int data_size(const Header *h, uint64_t have, char *err, size_t errlen)
{
    if (h->need == have) return 0;
    return fail(err, errlen, t_tr("%s: shape %s needs %llu bytes of %s data, the file has %llu"),
                t_tr(have < h->need ? "truncated data" : "extra bytes after the data"), h->shape_s,
                (unsigned long long)h->need, h->esize == 4 ? "float32" : "float64", (unsigned long long)have);
}

/* Magic, version, header length, then the header (at most NPY_HEADER_MAX
 * bytes: a pipe of garbage is refused at once), checked: the dict, the dtype,
 * the sizes against 64 bits, the file (when its size is known) and the memory limit. */
static int read_header(Source *s, Header *h, char *err, size_t errlen)
{
    static const char *const dtypes[6] = {"<f4", ">f4", "=f4", "<f8", ">f8", "=f8"};
    unsigned char pre[12];
    char text[NPY_HEADER_MAX];
    size_t got, more = 0, start, hl, i;
    int64_t numel = 1;
    Cursor c;
    int k;
    memset(h, 0, sizeof *h);
    if (get(s, pre, 10, &got, err, errlen) != 0) return -1;
    if (got == 0) return fail(err, errlen, "%s", t_tr("not a .npy file (bad magic bytes): the file is empty"));
    if (got < 6 || memcmp(pre, NPY_MAGIC, 6) != 0) return fail(err, errlen, "%s", t_tr("not a .npy file (bad magic bytes)"));
    if (got < 8)
        return fail(err, errlen, "%s", t_tr("truncated header: the file ends inside the version bytes"));
    if (pre[6] < 1 || pre[6] > 3 || pre[7] != 0)
        return fail(err, errlen, "unsupported .npy format version %d.%d (only 1.0, 2.0 and 3.0 are read)", pre[6],
                    pre[7]);
    start = pre[6] == 1 ? 10 : 12;
    if (got == 10 && start == 12 && get(s, pre + 10, 2, &more, err, errlen) != 0) return -1;
    if (got + more < start)
        return fail(err, errlen, "%s", t_tr("truncated header: the file ends inside the header length"));
    hl = (size_t)pre[8] | (size_t)pre[9] << 8;
    if (start == 12) hl |= (size_t)pre[10] << 16 | (size_t)((uint32_t)pre[11] << 24);
    if (hl > NPY_HEADER_MAX && (s->left == UINT64_MAX || hl <= s->left))
        return fail(err, errlen, "header of %zu bytes is longer than the %d characters numpy.load accepts", hl,
                    NPY_HEADER_MAX);
    if (get(s, text, hl < NPY_HEADER_MAX ? hl : NPY_HEADER_MAX, &got, err, errlen) != 0) return -1;
    if (got < hl) /* the file ends first: what is left of a file of known size is got + s->left */
        return fail(err, errlen, t_tr("truncated header: it claims %zu bytes but the file has only %llu after the "
                                      "preamble"), hl, (unsigned long long)got + (s->left == UINT64_MAX ? 0 : s->left));
    for (i = 0; i < hl; i++) {
        unsigned char b = (unsigned char)text[i];
        if (b == 0) return fail(err, errlen, "header has a NUL byte at byte %zu of the header", i);
        if ((b < 0x20 || b > 0x7e) && b != '\t' && b != '\n' && b != '\r')
            return fail(err, errlen, "header has the byte 0x%02x at byte %zu of the header, which no .npy writer puts "
                        "in the header of a float array", b, i);
    }
    c.begin = c.p = text;
    c.end = text + hl;
    c.major = pre[6];
    if (parse_dict(&c, h, err, errlen) != 0) return -1;
    for (k = 0; k < 6 && strcmp(h->descr, dtypes[k]) != 0; k++) continue;
    if (k == 6)
        return fail(err, errlen, t_tr("unsupported dtype '%s': only float32 ('<f4') and float64 ('<f8') are read"),
                    h->descr);
    h->esize = k < 3 ? 4 : 8;
    h->swap = h->descr[0] == (LITTLE_ENDIAN_HOST ? '>' : '<');
    h->fortran = h->fortran && h->shape.ndim >= 2;
    shape_str(h->shape, h->shape_s);
    /* the product of the non-zero dims must fit even when a zero dim makes
     * the count 0: the strides of the tensor are such products */
    for (k = 0; k < h->shape.ndim; k++) {
        int64_t d = h->shape.dims[k] ? h->shape.dims[k] : 1;
        if (numel > INT64_MAX / d)
            return fail(err, errlen, "shape %s has too many elements (the count overflows 64 bits)", h->shape_s);
        numel *= d;
    }
    for (k = 0; k < h->shape.ndim; k++) numel = h->shape.dims[k] ? numel : 0;
    if ((uint64_t)numel > UINT64_MAX / h->esize)
        return fail(err, errlen, "shape %s has too many elements (the byte size overflows 64 bits)", h->shape_s);
    h->need = (uint64_t)numel * h->esize;
    if (s->left != UINT64_MAX && data_size(h, s->left, err, errlen) != 0) return -1;
    if ((uint64_t)numel > (uint64_t)t_max_bytes() / sizeof(float))
        return fail(err, errlen, "shape %s needs %llu bytes as float32, more than the limit of %zu bytes (set "
                    "ATTN_MAX_BYTES to raise it)", h->shape_s, (unsigned long long)numel * 4, t_max_bytes());
    return 0;
}

/* The data into a new tensor: float32 in this machine's byte order and C
 * order straight into its storage (one read); anything else a block at a
 * time, each element byte-swapped, converted and put in its place (in a
 * Fortran-order file the first index varies fastest). Then one byte more is
 * asked for, to see trailing bytes without reading an endless stream to its end. */
static int read_data(Source *s, const Header *h, Tensor **out, char *err, size_t errlen)
{
    Tensor *t = *out = t_zeros(h->shape);
    float *dst = t->storage->data + t->offset;
    size_t got = 1, cap = h->need < NPY_BLOCK ? (size_t)h->need : NPY_BLOCK, i, k;
    int64_t idx[T_MAX_DIMS] = {0}, off = 0;
    unsigned char *block = NULL, b[8];
    uint64_t have = 0;
    int rc = 0;
    if (h->esize == 4 && !h->swap && !h->fortran) {
        rc = get(s, dst, (size_t)h->need, &got, err, errlen);
        have = got;
    } else if (h->need > 0 && (block = malloc(cap)) == NULL) {
        return fail(err, errlen, "out of memory reading the file");
    }
    while (block && rc == 0 && have < h->need && got > 0) {
        rc = get(s, block, h->need - have < cap ? (size_t)(h->need - have) : cap, &got, err, errlen);
        for (i = 0; rc == 0 && i + h->esize <= got; i += h->esize) {
            double d;
            for (k = 0; k < h->esize; k++) b[k] = block[i + (h->swap ? h->esize - 1 - k : k)];
            /* out-of-range doubles become +-inf (IEEE rounding), written out: no undefined behaviour */
            if (h->esize == 4) memcpy(dst + off, b, 4);
            else memcpy(&d, b, 8), dst[off] = d > FLT_MAX ? (d >= 0x1.ffffffp127 ? INFINITY : FLT_MAX)
                                              : d < -FLT_MAX ? (d <= -0x1.ffffffp127 ? -INFINITY : -FLT_MAX) : (float)d;
            if (h->fortran) next_index(t->ndim, t->shape, t->strides, idx, &off, true);
            else off++;
        }
        have += got;
    }
    free(block);
    if (rc == 0 && have == h->need && (rc = get(s, b, 1, &got, err, errlen)) == 0) have += got;
    return rc != 0 ? -1 : data_size(h, have, err, errlen);
}

int npy_parse(const unsigned char *buf, size_t len, Tensor **out, char *err, size_t errlen)
{
    Source s = {-1, buf, len};
    Header h;
    int rc;
    if (out) *out = NULL;
    if (!buf && len > 0) return fail(err, errlen, "no data");
    if ((rc = read_header(&s, &h, err, errlen)) != 0 || !out) return rc;
    if ((rc = read_data(&s, &h, out, err, errlen)) != 0) *out = NULL;
    return rc;
}

/* Open path and read its header and, when out, its data; -1 with a sentence.
 * Only regular files and pipes (a FIFO, `<(...)`, /dev/stdin from a pipe) are
 * read: a device or terminal is refused, and a FIFO with no writer reads as
 * empty instead of blocking. */
static int load(const char *path, Header *h, Tensor **out, char *err, size_t errlen)
{
    Source s = {-1, NULL, UINT64_MAX};
    PFileInfo st;
    int rc = 0;
    /* (never blocks opening a FIFO with no writer; reads block as usual) */
    if ((s.fd = p_open_read(path)) < 0) {
        int e = errno;
        if (p_stat(path, &st) == 0 && st.kind == P_DIRECTORY) /* Windows opens no folder */
            return fail(err, errlen, "%s", t_tr("is a directory, not a .npy file"));
        if (e == ENOENT && p_lstat(path, &st) == 0 && st.kind == P_SYMLINK)
            return fail(err, errlen, "%s", t_tr("cannot open the file: it is a symbolic link to a file that does not exist"));
        if (e == ENXIO)
            return fail(err, errlen, "cannot open the file: it is a socket or a device with nothing behind it");
        return fail(err, errlen, t_tr("cannot open the file: %s"), t_strerror(e));
    }
    if (p_fstat(s.fd, &st) != 0) rc = fail(err, errlen, t_tr("cannot read the file: %s"), t_strerror(errno));
    else if (st.kind == P_DIRECTORY) rc = fail(err, errlen, "%s", t_tr("is a directory, not a .npy file"));
    else if (st.kind != P_REGULAR && st.kind != P_FIFO)
        rc = fail(err, errlen, "is a %s, not a .npy file (only regular files and pipes are read)",
                  st.kind == P_CHAR_DEVICE ? "character device" : st.kind == P_BLOCK_DEVICE ? "block device"
                  : st.kind == P_SOCKET ? "socket" : "special file");
    if (rc == 0 && st.kind == P_REGULAR) s.left = (uint64_t)st.size;
    if (rc == 0) rc = read_header(&s, h, err, errlen);
    if (rc == 0 && out) rc = read_data(&s, h, out, err, errlen);
    p_close(s.fd);
    return rc;
}

Tensor *npy_load(const char *path)
{
    char err[512];
    Header h;
    Tensor *t = NULL;
    if (!path || !*path) t_error("npy_load: no file name given");
    if (load(path, &h, &t, err, sizeof err) != 0) t_error("%s: %s", path, err);
    return t;
}

bool npy_peek_shape(const char *path, Shape *shape)
{
    char err[512];
    Header h;
    PFileInfo st;
    /* only a regular file can be read twice */
    if (!path || p_stat(path, &st) != 0 || st.kind != P_REGULAR || load(path, &h, NULL, err, sizeof err) != 0)
        return false;
    *shape = h.shape;
    return true;
}

/* ---- writing ------------------------------------------------------------------- */

/* x's elements in row-major order as little-endian float32: a contiguous
 * tensor on a little-endian machine with one fwrite of its storage, anything
 * else gathered into blocks of 1 MiB. 0, or an errno value. */
static int write_data(FILE *f, const Tensor *x)
{
    int64_t idx[T_MAX_DIMS] = {0}, numel = t_numel(x), off = x->offset, n;
    size_t used = 0, k;
    unsigned char *block;
    int e = 0;
    if (LITTLE_ENDIAN_HOST && t_is_contiguous(x))
        return !numel || fwrite(x->storage->data + off, 4, (size_t)numel, f) == (size_t)numel ? 0 : errno ? errno : EIO;
    if ((block = malloc(NPY_BLOCK)) == NULL) return ENOMEM;
    for (n = 0; n < numel && !e; n++) {
        const unsigned char *b = (const unsigned char *)(x->storage->data + off);
        for (k = 0; k < 4; k++) block[used++] = b[LITTLE_ENDIAN_HOST ? k : 3 - k];
        if ((used == NPY_BLOCK || n == numel - 1) && fwrite(block, 1, used, f) != used) e = errno ? errno : EIO;
        used %= NPY_BLOCK;
        next_index(x->ndim, x->shape, x->strides, idx, &off, false);
    }
    free(block);
    return e;
}

/* Where the bytes go: plain files ("-" is standard output), or a program's (npy_set_files). */
static FILE *plain_open(const char *path, void **handle)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
    if (!f) t_error("cannot write '%s': %s", path, strerror(errno));
    *handle = f;
    return f;
}

static void plain_close(void *handle, const char *path, int e)
{
    FILE *f = (FILE *)handle;
    if (!e && fflush(f) != 0) e = errno ? errno : EIO;
    if (f != stdout && fclose(f) != 0 && !e) e = errno ? errno : EIO;
    if (e) t_error("cannot write '%s': %s", path, strerror(e));
}

static void plain_make_dir(const char *dir)   /* mkdir -p */
{
    char *p = malloc(strlen(dir) + 1), *s, msg[1200], saved;
    PFileInfo st;
    if (!p) t_error("out of memory");
    for (s = strcpy(p, dir) + 1;; s++) {
        if ((saved = *s) != '/' && saved != '\0') continue;
        *s = '\0';
        if (p_mkdir(p) != 0 && !(p_stat(p, &st) == 0 && st.kind == P_DIRECTORY)) {
            snprintf(msg, sizeof msg, t_tr("cannot create directory '%.500s': %s"), p, t_strerror(errno));
            free(p);
            t_error("%s", msg);
        }
        if ((*s = saved) == '\0') break;
    }
    free(p);
}

static const NpyFiles plain_files = {plain_open, plain_close, plain_make_dir};
static const NpyFiles *files = &plain_files;

void npy_set_files(const NpyFiles *f) { files = f ? f : &plain_files; }

void npy_save(const char *path, const Tensor *x)
{
    char header[T_SHAPE_STR + 128], dict[T_SHAPE_STR + 64], shape_s[T_SHAPE_STR];
    size_t total;
    void *handle = NULL;
    FILE *f;
    int e = 0;
    if (!path || !*path) t_error("npy_save: no file name given");
    if (!x) t_error("npy_save: cannot write '%s': the tensor is NULL", path);
    if (x->ndim < 0 || x->ndim > T_MAX_DIMS)
        t_error("npy_save: cannot write '%s': the tensor has %d dims", path, x->ndim);
    /* the preamble of version 1.0, the dict, then spaces and '\n' up to a multiple of NPY_ALIGN */
    snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }",
             shape_str(t_shape(x), shape_s));
    total = (10 + strlen(dict) + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (total >= sizeof header) t_error("npy_save: cannot write '%s': header too long", path);
    snprintf(header, sizeof header, NPY_MAGIC "\001%c%c%c%-*s\n", 0, (int)((total - 10) & 0xff),
             (int)((total - 10) >> 8), (int)(total - 11), dict);
    f = files->open(path, &handle);
    errno = 0;
    if (fwrite(header, 1, total, f) != total) e = errno ? errno : EIO;
    if (!e) e = write_data(f, x);
    files->close(handle, path, e);
}

void npy_save_in(const char *dir, const char *name, const Tensor *x)
{
    static char *current = NULL;  /* npy_save may not return: keep the path where a leak checker finds it */
    size_t dl;
    if (!dir || !*dir) t_error("npy_save_in: no directory given");
    if (!name || !*name) t_error("npy_save_in: no file name given");
    dl = strlen(dir);
    free(current);
    if ((current = malloc(dl + strlen(name) + 6)) == NULL) t_error("npy_save_in: out of memory");
    sprintf(current, "%s%s%s.npy", dir, dir[dl - 1] == '/' ? "" : "/", name);
    npy_save(current, x);
    free(current);
    current = NULL;
}

bool npy_exists(const char *path)
{
    PFileInfo st;
    return path && *path && p_lstat(path, &st) == 0 && st.kind != P_DIRECTORY;
}

void npy_make_dir(const char *dir)
{
    if (!dir || !*dir) t_error("npy_make_dir: no directory name given");
    files->make_dir(dir);
}
