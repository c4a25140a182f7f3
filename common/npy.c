/* npy.c — read and write NumPy .npy files (see npy.h).
 *
 * The .npy format (NumPy's numpy/lib/format.py) is:
 *
 *     "\x93NUMPY"  major  minor  HEADER_LEN  HEADER  DATA
 *
 * HEADER_LEN is 2 bytes little-endian in version 1.0 and 4 bytes in 2.0 and
 * 3.0. HEADER is a Python dict literal such as
 *
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 *
 * padded with spaces and ended by '\n' so that DATA starts at a multiple of
 * 64 bytes. DATA is the raw elements, C order unless fortran_order is True.
 *
 * np.save(path, x)   ->  npy_save(path, x)
 * np.load(path)      ->  npy_load(path)
 */
#define _POSIX_C_SOURCE 200809L

#include "npy.h"
#include "error.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <fcntl.h>
#include <unistd.h>

#define NPY_MAGIC     "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN     64       /* data starts at a multiple of this (NumPy's ARRAY_ALIGN) */
#define NPY_PATH_MAX  4096     /* longest path we build on the stack */
#define NPY_HEADER_MAX 10000  /* numpy.lib.format's max_header_size */
#define NPY_STR_MAX   40       /* longest descr / key we keep (longer ones are cut in messages) */

/* ---- small helpers ------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* NumPy's spelling of a shape: "()", "(3,)", "(2, 3)". */
static char *dims_str(int ndim, const int64_t *dims, char *buf, size_t cap)
{
    size_t n = 0;
    int i;
    n += (size_t)snprintf(buf + n, cap - n, "(");
    for (i = 0; i < ndim && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "",
                              (long long)dims[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, ndim == 1 ? ",)" : ")");
    return buf;
}

/* ---- header parsing ------------------------------------------------------ */

typedef struct {
    const unsigned char *begin, *p, *end;
    int major;                 /* format version: 1 and 2 allow Python 2's 3L */
} Cursor;

typedef struct {
    char descr[NPY_STR_MAX];
    bool fortran_order;
    int ndim;                  /* number of dims in the header (may exceed T_MAX_DIMS) */
    int64_t dims[T_MAX_DIMS];
} Header;

static long pos(const Cursor *c) { return (long)(c->p - c->begin); }

/* Python's rules, as numpy.lib.format meets them through ast.literal_eval:
 * between tokens, spaces, tabs, form feeds and newlines (inside the braces a
 * newline is only whitespace), a backslash before a newline, and '#'
 * comments to the end of the line. Nothing else: a vertical tab or another
 * control byte there is a syntax error. */
static void skip_ws(Cursor *c)
{
    while (c->p < c->end) {
        unsigned char ch = *c->p;
        if (ch == ' ' || ch == '\t' || ch == '\f' || ch == '\n' || ch == '\r') {
            c->p++;
        } else if (ch == '#') {
            while (c->p < c->end && *c->p != '\n' && *c->p != '\r') c->p++;
        } else if (ch == '\\' && c->end - c->p >= 2 && (c->p[1] == '\n' || c->p[1] == '\r')) {
            c->p += 2;
        } else {
            return;
        }
    }
}

static bool peek(const Cursor *c, char ch) { return c->p < c->end && *c->p == (unsigned char)ch; }

static bool is_word_char(unsigned char ch)
{
    return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch >= 0x80;
}

/* Where a Python string literal starts: an optional u/r prefix, then a quote. */
static bool at_string(const Cursor *c)
{
    const unsigned char *p = c->p;
    if (p < c->end && (*p == 'u' || *p == 'U' || *p == 'r' || *p == 'R')) p++;
    return p < c->end && (*p == '\'' || *p == '"');
}

static int hex_digit(unsigned char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* A Python str: one or more adjacent literals ('<' 'f4' is '<f4'), each with
 * an optional u or r prefix, single, double or triple quotes, and the usual
 * backslash escapes (\\ \' \" \n \t \xHH, octal, ...). A bytes literal (b'...')
 * is not a str, so numpy refuses it and so do we. Keeps at most cap-1 bytes. */
static int parse_string(Cursor *c, char *dst, size_t cap, const char *what,
                        char *err, size_t errlen)
{
    size_t n = 0;
    int literals = 0;
#define PUT(ch) do { if (n + 1 < cap) dst[n++] = (char)(ch); } while (0)
    for (;;) {
        bool raw = false, triple;
        unsigned char quote;
        const unsigned char *save = c->p;
        if (literals > 0) skip_ws(c);
        if (!at_string(c)) {
            c->p = save;
            if (literals > 0) break;
            return fail(err, errlen,
                        "header is not a valid dict: expected a quoted %s at byte %ld of the header",
                        what, pos(c));
        }
        if (*c->p == 'r' || *c->p == 'R') raw = true;
        if (*c->p != '\'' && *c->p != '"') c->p++;
        quote = *c->p;
        triple = c->end - c->p >= 3 && c->p[1] == quote && c->p[2] == quote;
        c->p += triple ? 3 : 1;
        for (;;) {
            unsigned char ch;
            if (c->p >= c->end)
                return fail(err, errlen, "header is not a valid dict: a string is not closed");
            ch = *c->p;
            if (ch == quote) {
                if (!triple) {
                    c->p++;
                    break;
                }
                if (c->end - c->p >= 3 && c->p[1] == quote && c->p[2] == quote) {
                    c->p += 3;
                    break;
                }
            }
            if (!triple && (ch == '\n' || ch == '\r'))
                return fail(err, errlen,
                            "header is not a valid dict: a line break inside a string at byte %ld of the header",
                            pos(c));
            if (ch == '\\' && c->end - c->p >= 2) {
                unsigned char e = c->p[1];
                if (raw) {
                    PUT('\\');
                    PUT(e);
                    c->p += 2;
                    continue;
                }
                c->p += 2;
                switch (e) {
                case '\n': break;                    /* a continued line */
                case '\r': if (peek(c, '\n')) c->p++; break;
                case '\\': PUT('\\'); break;
                case '\'': PUT('\''); break;
                case '"': PUT('"'); break;
                case 'a': PUT('\a'); break;
                case 'b': PUT('\b'); break;
                case 'f': PUT('\f'); break;
                case 'n': PUT('\n'); break;
                case 'r': PUT('\r'); break;
                case 't': PUT('\t'); break;
                case 'v': PUT('\v'); break;
                case 'x': {
                    int h1 = c->p < c->end ? hex_digit(c->p[0]) : -1;
                    int h2 = c->end - c->p >= 2 ? hex_digit(c->p[1]) : -1;
                    if (h1 < 0 || h2 < 0)
                        return fail(err, errlen,
                                    "header is not a valid dict: a bad \\x escape at byte %ld of the header", pos(c));
                    PUT(h1 * 16 + h2);
                    c->p += 2;
                    break;
                }
                case 'u': case 'U': case 'N':
                    return fail(err, errlen,
                                "header has a \\%c escape at byte %ld of the header, which this reader does not decode",
                                e, pos(c));
                default:
                    if (e >= '0' && e <= '7') {
                        int v = e - '0', k;
                        for (k = 0; k < 2 && c->p < c->end && *c->p >= '0' && *c->p <= '7'; k++)
                            v = v * 8 + (*c->p++ - '0');
                        if (v > 255)
                            return fail(err, errlen, "header has an escape past \\377 at byte %ld of the header",
                                        pos(c));
                        PUT(v);
                    } else {                         /* Python keeps unknown escapes */
                        PUT('\\');
                        PUT(e);
                    }
                }
                continue;
            }
            PUT(ch);
            c->p++;
        }
        literals++;
    }
#undef PUT
    dst[n] = '\0';
    return 0;
}

/* True / False, as a whole word. */
static int parse_bool(Cursor *c, bool *value, char *err, size_t errlen)
{
    static const char *const words[2] = {"False", "True"};
    int i;
    for (i = 0; i < 2; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)(c->end - c->p) >= n && memcmp(c->p, words[i], n) == 0) {
            const unsigned char *after = c->p + n;
            if (after == c->end || !is_word_char(*after)) {
                c->p = after;
                *value = (i == 1);
                return 0;
            }
        }
    }
    return fail(err, errlen,
                "header is not a valid dict: 'fortran_order' must be True or False (at byte %ld of the header)",
                pos(c));
}

/* A Python int: unary + and -, parentheses, 0x/0o/0b, '_' between digits, no
 * leading zero in a decimal other than 0 itself; in versions 1.0 and 2.0 the
 * Python 2 suffix L too (numpy filters it). */
static int parse_int(Cursor *c, int64_t *out, char *err, size_t errlen)
{
    bool negative = false;
    int64_t v = 0;
    int base = 10, digits = 0;
    bool last_underscore = false, leading_zero = false, nonzero_after_zero = false;
    for (;;) {
        skip_ws(c);
        if (peek(c, '-')) negative = !negative, c->p++;
        else if (peek(c, '+')) c->p++;
        else break;
    }
    if (peek(c, '(')) {
        c->p++;
        if (parse_int(c, &v, err, errlen) != 0) return -1;
        skip_ws(c);
        if (!peek(c, ')'))
            return fail(err, errlen,
                        "header is not a valid dict: 'shape' must be a tuple of integers (at byte %ld of the header)",
                        pos(c));
        c->p++;
        *out = negative ? -v : v;
        return 0;
    }
    if (c->end - c->p >= 2 && c->p[0] == '0' &&
        (c->p[1] == 'x' || c->p[1] == 'X' || c->p[1] == 'o' || c->p[1] == 'O' || c->p[1] == 'b' || c->p[1] == 'B')) {
        base = (c->p[1] | 0x20) == 'x' ? 16 : (c->p[1] | 0x20) == 'o' ? 8 : 2;
        c->p += 2;
        last_underscore = true; /* 0x_1 is allowed: '_' may follow the prefix */
    }
    while (c->p < c->end) {
        unsigned char ch = *c->p;
        int d = hex_digit(ch);
        if (ch == '_') {
            if (last_underscore && !(base != 10 && digits == 0)) break;
            last_underscore = true;
            c->p++;
            continue;
        }
        if (d < 0 || d >= base) break;
        if (base == 10 && digits == 0 && d == 0) leading_zero = true;
        else if (leading_zero && d != 0) nonzero_after_zero = true;
        if (v > (INT64_MAX - d) / base)
            return fail(err, errlen, "shape has a dimension too large for a 64-bit integer");
        v = v * base + d;
        digits++;
        last_underscore = false;
        c->p++;
    }
    if (digits == 0 || last_underscore || nonzero_after_zero || (c->p < c->end && is_word_char(*c->p) &&
                                                                  !(c->major <= 2 && *c->p == 'L')))
        return fail(err, errlen,
                    "header is not a valid dict: 'shape' must be a tuple of integers (at byte %ld of the header)",
                    pos(c));
    if (c->major <= 2 && peek(c, 'L')) {
        c->p++;
        if (c->p < c->end && is_word_char(*c->p))
            return fail(err, errlen,
                        "header is not a valid dict: 'shape' must be a tuple of integers (at byte %ld of the header)",
                        pos(c));
    }
    *out = negative ? -v : v;
    return 0;
}

/* A tuple of integers: (), (3,), (2, 3), (2,3,). */
static int parse_shape(Cursor *c, Header *h, char *err, size_t errlen)
{
    bool trailing_comma = false;
    h->ndim = 0;
    if (!peek(c, '('))
        return fail(err, errlen,
                    "header is not a valid dict: 'shape' must be a tuple like (2, 3) (at byte %ld of the header)",
                    pos(c));
    c->p++;
    skip_ws(c);
    while (!peek(c, ')')) {
        int64_t v = 0;
        if (parse_int(c, &v, err, errlen) != 0) return -1;
        if (v < 0) return fail(err, errlen, "shape has a negative dimension %lld", (long long)v);
        if (h->ndim == INT32_MAX / 2)
            return fail(err, errlen, "shape has too many dims");
        if (h->ndim < T_MAX_DIMS) h->dims[h->ndim] = v;
        h->ndim++;
        skip_ws(c);
        trailing_comma = false;
        if (peek(c, ',')) {
            c->p++;
            trailing_comma = true;
            skip_ws(c);
        } else if (!peek(c, ')')) {
            return fail(err, errlen,
                        "header is not a valid dict: expected ',' or ')' in 'shape' at byte %ld of the header",
                        pos(c));
        }
    }
    if (h->ndim == 1 && !trailing_comma)
        return fail(err, errlen,
                    "header is not a valid dict: 'shape' (%lld) is not a tuple (a one-dim shape is written (%lld,))",
                    (long long)h->dims[0], (long long)h->dims[0]);
    c->p++; /* ')' */
    if (h->ndim > T_MAX_DIMS)
        return fail(err, errlen, "shape has %d dims; at most %d are supported", h->ndim, T_MAX_DIMS);
    return 0;
}

static int parse_header(const unsigned char *text, size_t len, int major, Header *h, char *err, size_t errlen)
{
    Cursor c;
    bool have_descr = false, have_fortran = false, have_shape = false;
    c.begin = c.p = text;
    c.end = text + len;
    c.major = major;

    skip_ws(&c);
    if (!peek(&c, '{'))
        return fail(err, errlen, "header is not a dict (it does not start with '{')");
    c.p++;
    for (;;) {
        char key[NPY_STR_MAX];
        bool *seen;
        skip_ws(&c);
        if (peek(&c, '}')) break;
        if (c.p == c.end)
            return fail(err, errlen, "header is not a valid dict: it ends before its closing '}'");
        if (parse_string(&c, key, sizeof key, "key", err, errlen) != 0) return -1;
        if (strcmp(key, "descr") == 0) seen = &have_descr;
        else if (strcmp(key, "fortran_order") == 0) seen = &have_fortran;
        else if (strcmp(key, "shape") == 0) seen = &have_shape;
        else
            return fail(err, errlen,
                        "header has an unexpected key '%s' (a .npy header holds only 'descr', 'fortran_order' and 'shape')",
                        key);
        *seen = true; /* a key given twice: the last value wins, as in a Python dict */
        skip_ws(&c);
        if (!peek(&c, ':'))
            return fail(err, errlen,
                        "header is not a valid dict: expected ':' after '%s' at byte %ld of the header",
                        key, pos(&c));
        c.p++;
        skip_ws(&c);
        if (seen == &have_descr) {
            if (peek(&c, '[') || peek(&c, '('))
                return fail(err, errlen,
                            "unsupported dtype: structured (record) arrays are not read, only float32 ('<f4') and float64 ('<f8')");
            if (parse_string(&c, h->descr, sizeof h->descr, "dtype for 'descr'", err, errlen) != 0)
                return -1;
        } else if (seen == &have_fortran) {
            if (parse_bool(&c, &h->fortran_order, err, errlen) != 0) return -1;
        } else {
            if (parse_shape(&c, h, err, errlen) != 0) return -1;
        }
        skip_ws(&c);
        if (peek(&c, ',')) {
            c.p++;
        } else if (!peek(&c, '}')) {
            return fail(err, errlen,
                        "header is not a valid dict: expected ',' or '}' after the value of '%s' at byte %ld of the header",
                        key, pos(&c));
        }
    }
    c.p++; /* '}' */
    skip_ws(&c);
    if (c.p != c.end)
        return fail(err, errlen,
                    "header is not a valid dict: unexpected text after its closing '}' at byte %ld of the header",
                    pos(&c));
    if (!have_descr) return fail(err, errlen, "header has no 'descr' key (the dtype)");
    if (!have_fortran) return fail(err, errlen, "header has no 'fortran_order' key");
    if (!have_shape) return fail(err, errlen, "header has no 'shape' key");
    return 0;
}

/* What numpy.lib.format does to the header bytes before it parses them: it
 * decodes them (latin-1 in versions 1.0 and 2.0, UTF-8 in 3.0, where a byte
 * sequence that is not UTF-8 is an error), refuses more than 10000
 * characters, and hands the text to Python's literal parser, which refuses
 * a NUL byte anywhere. */
static int check_header_text(const unsigned char *text, size_t len, int major, char *err,
                             size_t errlen)
{
    size_t i, chars = 0;
    for (i = 0; i < len; i++) {
        unsigned char c = text[i];
        if (c == 0)
            return fail(err, errlen, "header has a NUL byte at byte %zu of the header (numpy refuses it)", i);
        if (major == 3 && c >= 0x80) {
            /* one UTF-8 sequence: lead byte, then 1-3 continuation bytes */
            size_t n, k;
            uint32_t cp;
            if (c >= 0xC2 && c <= 0xDF) n = 1, cp = c & 0x1F;
            else if (c >= 0xE0 && c <= 0xEF) n = 2, cp = c & 0x0F;
            else if (c >= 0xF0 && c <= 0xF4) n = 3, cp = c & 0x07;
            else
                return fail(err, errlen, "header is not valid UTF-8 at byte %zu (format version 3.0 is UTF-8)", i);
            if (len - i - 1 < n)
                return fail(err, errlen, "header is not valid UTF-8 at byte %zu (format version 3.0 is UTF-8)", i);
            for (k = 1; k <= n; k++) {
                if ((text[i + k] & 0xC0) != 0x80)
                    return fail(err, errlen, "header is not valid UTF-8 at byte %zu (format version 3.0 is UTF-8)", i);
                cp = cp << 6 | (text[i + k] & 0x3F);
            }
            if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
                (cp >= 0xD800 && cp <= 0xDFFF))
                return fail(err, errlen, "header is not valid UTF-8 at byte %zu (format version 3.0 is UTF-8)", i);
            i += n;
        }
        chars++;
    }
    if (chars > NPY_HEADER_MAX)
        return fail(err, errlen, "header of %zu characters is longer than the %d numpy.load accepts", chars,
                    NPY_HEADER_MAX);
    return 0;
}

/* ---- element decoding ------------------------------------------------------ */

static float to_float(double d)
{
    /* Out-of-range doubles become +-inf (IEEE rounding), written out so the
     * conversion is never undefined behaviour. */
    if (d > FLT_MAX) return d >= 0x1.ffffffp127 ? INFINITY : FLT_MAX;
    if (d < -FLT_MAX) return d <= -0x1.ffffffp127 ? -INFINITY : -FLT_MAX;
    return (float)d;
}

static uint32_t swap32(uint32_t u)
{
    return u >> 24 | (u >> 8 & 0xff00u) | (u << 8 & 0xff0000u) | u << 24;
}

static uint64_t swap64(uint64_t u)
{
    return (uint64_t)swap32((uint32_t)u) << 32 | swap32((uint32_t)(u >> 32));
}

/* n elements of esize bytes (4: float32, 8: float64) at src, in the file's
 * byte order (swap: not this machine's), into n floats at dst. One loop for
 * each kind of element over a whole block: no decision per element. */
static void convert_block(float *dst, const unsigned char *src, size_t n, size_t esize, bool swap)
{
    size_t i;
    if (esize == 4 && !swap) {
        memcpy(dst, src, n * 4);
    } else if (esize == 4) {
        for (i = 0; i < n; i++) {
            uint32_t u;
            memcpy(&u, src + 4 * i, 4);
            u = swap32(u);
            memcpy(dst + i, &u, 4);
        }
    } else if (!swap) {
        for (i = 0; i < n; i++) {
            double d;
            memcpy(&d, src + 8 * i, 8);
            dst[i] = to_float(d);
        }
    } else {
        for (i = 0; i < n; i++) {
            uint64_t u;
            double d;
            memcpy(&u, src + 8 * i, 8);
            u = swap64(u);
            memcpy(&d, &u, 8);
            dst[i] = to_float(d);
        }
    }
}

/* What a header says about the data after it. */
typedef struct {
    Shape shape;               /* as loaded: float32, C order */
    int64_t numel;
    size_t esize;              /* bytes of one element in the file: 4 or 8 */
    const char *dtype_name;    /* "float32" or "float64", for messages */
    bool swap;                 /* the file's byte order is not this machine's */
    bool fortran;              /* fortran_order is True */
    size_t data_start;         /* where the data starts in the file */
    uint64_t need;             /* bytes of data: numel * esize */
    char shape_str[T_SHAPE_STR];
} Layout;

/* Can the data go into the tensor as it is (float32 in this machine's byte
 * order, C order)? Then loading is one read into the tensor's storage. */
static bool layout_is_direct(const Layout *lay)
{
    return lay->esize == 4 && !lay->swap && !(lay->fortran && lay->shape.ndim >= 2);
}

/* Where decoded elements go, in blocks of any size taken in file order:
 * straight on (C order), or each to its place in C order when the file is in
 * Fortran order (there the first index varies fastest). */
typedef struct {
    float *dst;
    size_t esize;
    bool swap, fortran;
    int ndim;
    int64_t dims[T_MAX_DIMS], cstride[T_MAX_DIMS];
    int64_t idx[T_MAX_DIMS], off;    /* the next element's index and place in dst */
    int64_t done;                    /* elements decoded so far */
} Decoder;

static void decoder_init(Decoder *d, float *dst, const Layout *lay)
{
    int k;
    memset(d, 0, sizeof *d);
    d->dst = dst;
    d->esize = lay->esize;
    d->swap = lay->swap;
    d->fortran = lay->fortran && lay->shape.ndim >= 2;
    d->ndim = lay->shape.ndim;
    for (k = 0; k < d->ndim; k++) d->dims[k] = lay->shape.dims[k];
    if (d->fortran) {
        d->cstride[d->ndim - 1] = 1;
        for (k = d->ndim - 2; k >= 0; k--) d->cstride[k] = d->cstride[k + 1] * d->dims[k + 1];
    }
}

/* The next n elements of the file: n * esize bytes at src. */
static void decode_block(Decoder *d, const unsigned char *src, size_t n)
{
    if (!d->fortran) {
        convert_block(d->dst + d->done, src, n, d->esize, d->swap);
        d->done += (int64_t)n;
        return;
    }
    while (n > 0) {
        float chunk[1024];
        size_t m = n < 1024 ? n : 1024, i;
        int k;
        convert_block(chunk, src, m, d->esize, d->swap);
        for (i = 0; i < m; i++) {
            d->dst[d->off] = chunk[i];
            for (k = 0; k < d->ndim; k++) { /* the next index, first one fastest */
                d->idx[k]++;
                d->off += d->cstride[k];
                if (d->idx[k] < d->dims[k]) break;
                d->off -= d->cstride[k] * d->dims[k];
                d->idx[k] = 0;
            }
        }
        src += m * d->esize;
        n -= m;
        d->done += (int64_t)m;
    }
}

/* ---- npy_parse ------------------------------------------------------------ */

/* The preamble of a .npy: magic, version, header length. 0 when the whole
 * header is in buf; otherwise what parse_core returns (-1, or 1 with *want). */
static int parse_preamble(const unsigned char *buf, size_t len, bool prefix, uint64_t file_size, uint64_t *want,
                          int *major_out, size_t *header_start_out, size_t *header_len_out, char *err, size_t errlen)
{
    size_t header_start, header_len;
    int major, minor;
    if ((len > 0 && memcmp(buf, NPY_MAGIC, len < NPY_MAGIC_LEN ? len : NPY_MAGIC_LEN) != 0) ||
        (!prefix && len < NPY_MAGIC_LEN))
        return fail(err, errlen, "not a .npy file (bad magic bytes)");
    if (prefix && len < NPY_MAGIC_LEN + 2) {
        *want = NPY_MAGIC_LEN + 2;
        return 1;
    }
    if (len < NPY_MAGIC_LEN + 2)
        return fail(err, errlen, "truncated header: the file ends inside the version bytes");
    major = buf[6];
    minor = buf[7];
    if (!((major == 1 || major == 2 || major == 3) && minor == 0))
        return fail(err, errlen,
                    "unsupported .npy format version %d.%d (only 1.0, 2.0 and 3.0 are read)",
                    major, minor);
    if (major == 1) {
        header_start = 10;
        if (prefix && len < header_start) {
            *want = header_start;
            return 1;
        }
        if (len < header_start)
            return fail(err, errlen, "truncated header: the file ends inside the header length");
        header_len = (size_t)buf[8] | (size_t)buf[9] << 8;
    } else {
        uint32_t hl;
        header_start = 12;
        if (prefix && len < header_start) {
            *want = header_start;
            return 1;
        }
        if (len < header_start)
            return fail(err, errlen, "truncated header: the file ends inside the header length");
        hl = (uint32_t)buf[8] | (uint32_t)buf[9] << 8 | (uint32_t)buf[10] << 16 |
             (uint32_t)buf[11] << 24;
        if ((uint64_t)hl > (uint64_t)(SIZE_MAX - header_start))
            return fail(err, errlen, "truncated header: it claims %lu bytes", (unsigned long)hl);
        header_len = hl;
    }
    /* numpy.load refuses headers longer than 10000 characters (its
     * max_header_size) as unsafe to parse; so do we */
    if (header_len > 4 * NPY_HEADER_MAX &&
        (prefix ? file_size == UINT64_MAX || header_len <= file_size - header_start : header_len <= len - header_start))
        return fail(err, errlen, "header of %zu bytes is longer than the %d characters numpy.load accepts",
                    header_len, NPY_HEADER_MAX);
    if (prefix && file_size != UINT64_MAX && header_len > file_size - header_start)
        return fail(err, errlen,
                    "truncated header: it claims %zu bytes but the file has only %llu after the preamble",
                    header_len, (unsigned long long)(file_size - header_start));
    if (prefix && header_len > len - header_start) {
        *want = (uint64_t)header_start + header_len;
        return 1;
    }
    if (header_len > len - header_start)
        return fail(err, errlen,
                    "truncated header: it claims %zu bytes but the file has only %zu after the preamble",
                    header_len, len - header_start);

    *major_out = major;
    *header_start_out = header_start;
    *header_len_out = header_len;
    return 0;
}

/* The size of one element of a dtype numpy.dtype() reads as float32 or
 * float64 (4 or 8), or 0; *order gets its byte order ('<', '>', '=', '|'). */
static size_t dtype_size(const char *descr, char *order)
{
    /* an optional byte order (< little, > big, = or | native) then f4, f8, f
     * or d; or a name */
    const char *code;
    *order = descr[0];
    code = (*order == '<' || *order == '>' || *order == '=' || *order == '|') ? descr + 1 : descr;
    if (code == descr) *order = '=';
    if (strcmp(code, "f4") == 0 || strcmp(code, "f") == 0) return 4;
    if (strcmp(code, "f8") == 0 || strcmp(code, "d") == 0) return 8;
    if (code == descr && (strcmp(code, "float32") == 0 || strcmp(code, "single") == 0)) return 4;
    if (code == descr && (strcmp(code, "float64") == 0 || strcmp(code, "double") == 0 || strcmp(code, "float") == 0))
        return 8;
    return 0;
}

/* Everything the header says, checked: magic, version, the dict, the dtype
 * and the element count. 0, or what parse_core returns (-1, or 1 with *want). */
static int parse_layout(const unsigned char *buf, size_t len, bool prefix, uint64_t file_size, uint64_t *want,
                        Layout *lay, char *err, size_t errlen)
{
    Header h;
    size_t header_start = 0, header_len = 0;
    int major = 0, k;
    char order;
    int64_t numel;

    /* magic, version and header length */
    {
        int st = parse_preamble(buf, len, prefix, file_size, want, &major, &header_start, &header_len, err, errlen);
        if (st != 0) return st;
    }

    /* the dict */
    memset(&h, 0, sizeof h);
    if (check_header_text(buf + header_start, header_len, major, err, errlen) != 0) return -1;
    if (parse_header(buf + header_start, header_len, major, &h, err, errlen) != 0) return -1;

    /* dtype: the spellings numpy.dtype() reads as float32 or float64 */
    lay->esize = dtype_size(h.descr, &order);
    if (!lay->esize)
        return fail(err, errlen,
                    "unsupported dtype '%s': only float32 ('<f4') and float64 ('<f8') are read",
                    h.descr);
    lay->dtype_name = lay->esize == 4 ? "float32" : "float64";
    lay->swap = (order == '<' && !host_is_little_endian()) ||
                (order == '>' && host_is_little_endian());
    lay->fortran = h.fortran_order;

    /* sizes: checked before anything is allocated */
    dims_str(h.ndim, h.dims, lay->shape_str, sizeof lay->shape_str);
    /* The product of the non-zero dims must fit even when a zero dim makes
     * the count 0: the strides of the tensor are such products. */
    numel = 1;
    for (k = 0; k < h.ndim; k++) {
        if (h.dims[k] == 0) continue;
        if (numel > INT64_MAX / h.dims[k])
            return fail(err, errlen, "shape %s has too many elements (the count overflows 64 bits)",
                        lay->shape_str);
        numel *= h.dims[k];
    }
    for (k = 0; k < h.ndim; k++)
        if (h.dims[k] == 0) numel = 0;
    if ((uint64_t)numel > UINT64_MAX / lay->esize)
        return fail(err, errlen, "shape %s has too many elements (the byte size overflows 64 bits)",
                    lay->shape_str);
    lay->numel = numel;
    lay->need = (uint64_t)numel * lay->esize;
    lay->data_start = header_start + header_len;
    lay->shape.ndim = h.ndim;
    for (k = 0; k < T_MAX_DIMS; k++) lay->shape.dims[k] = k < h.ndim ? h.dims[k] : 0;
    return 0;
}

/* The data's size against the have bytes the file holds after the header. */
static int check_data_size(const Layout *lay, uint64_t have, char *err, size_t errlen)
{
    if (lay->need > have)
        return fail(err, errlen, "truncated data: shape %s needs %llu bytes of %s data, the file has %llu",
                    lay->shape_str, (unsigned long long)lay->need, lay->dtype_name, (unsigned long long)have);
    if (lay->need < have)
        return fail(err, errlen,
                    "extra bytes after the data: shape %s needs %llu bytes of %s data, the file has %llu",
                    lay->shape_str, (unsigned long long)lay->need, lay->dtype_name, (unsigned long long)have);
    return 0;
}

/* The tensor against the largest allocation allowed. */
static int check_limit(const Layout *lay, char *err, size_t errlen)
{
    uint64_t out_bytes = (uint64_t)lay->numel * sizeof(float);
    if (out_bytes > (uint64_t)t_max_bytes())
        return fail(err, errlen,
                    "shape %s needs %llu bytes as float32, more than the limit of %zu bytes (set ATTN_MAX_BYTES to raise it)",
                    lay->shape_str, (unsigned long long)out_bytes, t_max_bytes());
    return 0;
}

/* The parser behind npy_parse and the reader. With prefix == false, buf is
 * the whole file. With prefix == true, buf is only the bytes read so far:
 * where the full parser would say "truncated", this returns 1 and sets *want
 * to the number of bytes needed to go on; once the header is complete it
 * returns 2, *lay holds what it says and *want is the size of the whole
 * file. So a reader can stop at the first byte that cannot belong to a .npy
 * file. file_size is the size of the whole file when known (a regular file),
 * else UINT64_MAX. With prefix == false and out == NULL it only checks. */
static int parse_core(const unsigned char *buf, size_t len, bool prefix, uint64_t file_size,
                      uint64_t *want, Layout *lay, Tensor **out, char *err, size_t errlen)
{
    Decoder dec;
    Tensor *t;

    if (out) *out = NULL;
    if (err && errlen > 0) err[0] = '\0';
    if (!buf && len > 0) return fail(err, errlen, "no data");
    {
        int st = parse_layout(buf, len, prefix, file_size, want, lay, err, errlen);
        if (st != 0) return st;
    }
    if (prefix) {
        if (lay->need > UINT64_MAX - lay->data_start)
            return fail(err, errlen, "shape %s has too many elements (the byte size overflows 64 bits)",
                        lay->shape_str);
        if (file_size != UINT64_MAX && check_data_size(lay, file_size - lay->data_start, err, errlen) != 0)
            return -1;
        if (check_limit(lay, err, errlen) != 0) return -1;
        *want = lay->data_start + lay->need;
        return 2;
    }
    if (check_data_size(lay, len - lay->data_start, err, errlen) != 0) return -1;
    if (check_limit(lay, err, errlen) != 0) return -1;
    if (!out) return 0;

    /* the tensor */
    t = t_zeros(lay->shape);
    if (lay->numel > 0) {
        decoder_init(&dec, t->storage->data + t->offset, lay);
        decode_block(&dec, buf + lay->data_start, (size_t)lay->numel);
    }
    *out = t;
    return 0;
}

int npy_parse(const unsigned char *buf, size_t len, Tensor **out, char *err, size_t errlen)
{
    Layout lay;
    return parse_core(buf, len, false, UINT64_MAX, NULL, &lay, out, err, errlen);
}

/* ---- npy_load -------------------------------------------------------------- */

/* Largest file worth reading: float64 data of the largest tensor allowed,
 * plus room for any header. */
static uint64_t file_limit(void)
{
    return 2 * (uint64_t)t_max_bytes() + ((uint64_t)1 << 20);
}

#define NPY_FIRST_READ 16             /* the first bytes read: magic, version, header length */
#define NPY_BLOCK ((size_t)1 << 20)   /* bytes converted at a time when the data is not float32 as is */

/* Read n bytes into dst, fewer only at the end of the file (then *eof);
 * *got says how many. 0, or an errno value. */
static int read_full(int fd, unsigned char *dst, size_t n, size_t *got, bool *eof)
{
    *got = 0;
    while (*got < n) {
        size_t ask = n - *got;
        ssize_t r;
        if (ask > (size_t)1 << 30) ask = (size_t)1 << 30;
        r = read(fd, dst + *got, ask);
        if (r < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (r == 0) {
            *eof = true;
            return 0;
        }
        *got += (size_t)r;
    }
    return 0;
}

/* A .npy file being read: its descriptor and the bytes of its header. */
typedef struct {
    int fd;
    struct stat st;
    unsigned char *buf;  /* the preamble and header, as read so far */
    size_t cap, len;
    bool eof;            /* a read met the end of the file */
} NpyFile;

/* Read f->buf on until it holds want bytes or the file ends. 0, or an errno value. */
static int read_upto(NpyFile *f, size_t want)
{
    size_t got;
    int e;
    if (want > f->cap) {
        unsigned char *bigger = realloc(f->buf, want);
        if (!bigger) return ENOMEM;
        f->buf = bigger;
        f->cap = want;
    }
    if (f->len >= want) return 0;
    e = read_full(f->fd, f->buf + f->len, want - f->len, &got, &f->eof);
    f->len += got;
    return e;
}

/* Open a .npy for reading. Only regular files and pipes (a FIFO, `<(...)`,
 * /dev/stdin from a pipe) are read: a device or terminal is refused, and a
 * FIFO with no writer reads as empty instead of blocking. 0 (then the caller
 * closes f->fd and frees f->buf), or -1 with the sentence in err. */
static int open_npy(const char *path, NpyFile *f, char *err, size_t errlen)
{
    int flags, e;

    memset(f, 0, sizeof *f);
    f->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (f->fd < 0) {
        e = errno;
        {
            struct stat lst;
            if (e == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
                return fail(err, errlen, "cannot open the file: it is a symbolic link to a file that does not exist");
        }
        if (e == ENXIO) return fail(err, errlen, "cannot open the file: it is a socket or a device with nothing behind it");
        return fail(err, errlen, "cannot open the file: %s", strerror(e));
    }
    if (fstat(f->fd, &f->st) != 0) {
        e = errno;
        close(f->fd);
        return fail(err, errlen, "cannot read the file: %s", strerror(e));
    }
    if (S_ISDIR(f->st.st_mode)) {
        close(f->fd);
        return fail(err, errlen, "is a directory, not a .npy file");
    }
    if (!S_ISREG(f->st.st_mode) && !S_ISFIFO(f->st.st_mode)) {
        close(f->fd);
        return fail(err, errlen, "is a %s, not a .npy file (only regular files and pipes are read)",
                    S_ISCHR(f->st.st_mode) ? "character device" : S_ISBLK(f->st.st_mode) ? "block device"
                    : S_ISSOCK(f->st.st_mode) ? "socket" : "special file");
    }
    /* blocking reads from here on: a pipe with a writer waits for its data */
    flags = fcntl(f->fd, F_GETFL);
    if (flags != -1) fcntl(f->fd, F_SETFL, flags & ~O_NONBLOCK);
    return 0;
}

/* Read the preamble and header, stopping at the first byte that shows the
 * file cannot be a .npy (a wrong magic string after 6 bytes, a bad version,
 * header or dtype as soon as the header is in), so /dev/zero or a large file
 * of something else is refused at once. 0 with *lay, or -1. */
static int read_header(NpyFile *f, Layout *lay, char *err, size_t errlen)
{
    size_t want = NPY_FIRST_READ;
    bool regular = S_ISREG(f->st.st_mode) && f->st.st_size >= 0;
    for (;;) {
        uint64_t need;
        int rc, e = read_upto(f, want);
        if (e == ENOMEM) return fail(err, errlen, "out of memory reading %zu bytes", want);
        if (e) return fail(err, errlen, "cannot read the file: %s", strerror(e));
        if (f->eof && f->len == 0) return fail(err, errlen, "not a .npy file (bad magic bytes): the file is empty");
        rc = parse_core(f->buf, f->len, true, regular ? (uint64_t)f->st.st_size : UINT64_MAX, &need, lay, NULL,
                        err, errlen);
        if (rc < 0) return -1;
        if (rc == 2) return 0;
        /* it ends too soon: the whole-file parser names what is missing */
        if (f->eof) return parse_core(f->buf, f->len, false, UINT64_MAX, NULL, lay, NULL, err, errlen);
        want = (size_t)need;  /* more of the preamble or the header (at most 40 kB) */
    }
}

/* The data after the header, when it is not float32 as is: read a block at a
 * time and converted (byte order, float64, Fortran order) into dst. *have
 * counts the data bytes read, early (n_early bytes read with the header) included. */
static int read_converting(NpyFile *f, const Layout *lay, float *dst, const unsigned char *early, size_t n_early,
                           uint64_t *have, char *err, size_t errlen)
{
    size_t cap = lay->need < NPY_BLOCK ? (size_t)lay->need : NPY_BLOCK, fill;
    unsigned char *block;
    Decoder dec;
    if (cap < NPY_FIRST_READ) cap = NPY_FIRST_READ;
    block = malloc(cap);
    if (!block) return fail(err, errlen, "out of memory reading %zu bytes", cap);
    decoder_init(&dec, dst, lay);
    fill = n_early < lay->need ? n_early : (size_t)lay->need;
    memcpy(block, early, fill);
    *have = fill;
    for (;;) {
        size_t elems, used, got = 0;
        if (*have < lay->need && !f->eof) {
            size_t ask = cap - fill;
            int e;
            if (ask > lay->need - *have) ask = (size_t)(lay->need - *have);
            e = read_full(f->fd, block + fill, ask, &got, &f->eof);
            if (e) {
                free(block);
                return fail(err, errlen, "cannot read the file: %s", strerror(e));
            }
            fill += got;
            *have += got;
        }
        elems = fill / lay->esize;
        used = elems * lay->esize;
        decode_block(&dec, block, elems);
        memmove(block, block + used, fill - used);
        fill -= used;
        if (*have >= lay->need || f->eof) break;
    }
    free(block);
    return 0;
}

/* The data after the header into a new tensor: float32 as is is read
 * straight into the tensor's storage (one read, no copy), anything else is
 * converted a block at a time. Then one byte more is asked for, to see
 * trailing bytes without reading an endless stream to its end. */
static int read_data(NpyFile *f, const Layout *lay, Tensor **out, char *err, size_t errlen)
{
    unsigned char early[NPY_FIRST_READ]; /* data bytes that came with the header */
    size_t n_early = f->len - lay->data_start;
    uint64_t have = 0;
    Tensor *t;

    if (lay->need + 1 > file_limit() || lay->need >= SIZE_MAX)
        return fail(err, errlen, "the file is larger than any tensor this program may load (set ATTN_MAX_BYTES to raise the limit)");
    /* the header was read up to want bytes, the first read of NPY_FIRST_READ */
    if (n_early > sizeof early) n_early = sizeof early;
    memcpy(early, f->buf + lay->data_start, n_early);
    free(f->buf); /* before t_zeros, whose failure is t_error */
    f->buf = NULL;
    t = t_zeros(lay->shape);
    *out = t;
    if (layout_is_direct(lay)) {
        unsigned char *dst = (unsigned char *)(t->storage->data + t->offset);
        size_t k = n_early < lay->need ? n_early : (size_t)lay->need, got = 0;
        int e = 0;
        memcpy(dst, early, k);
        if (k < lay->need && !f->eof) e = read_full(f->fd, dst + k, (size_t)lay->need - k, &got, &f->eof);
        if (e) return fail(err, errlen, "cannot read the file: %s", strerror(e));
        have = k + got;
    } else if (read_converting(f, lay, t->storage->data + t->offset, early, n_early, &have, err, errlen) != 0) {
        return -1;
    }
    if (have < lay->need) return check_data_size(lay, have, err, errlen);
    if (n_early > lay->need) {
        have = n_early;
    } else if (!f->eof) {
        unsigned char one;
        size_t got = 0;
        int e = read_full(f->fd, &one, 1, &got, &f->eof);
        if (e) return fail(err, errlen, "cannot read the file: %s", strerror(e));
        have += got;
    }
    return check_data_size(lay, have, err, errlen);
}

Tensor *npy_load(const char *path)
{
    char err[512];
    NpyFile f;
    Layout lay;
    Tensor *t = NULL;
    int rc;

    if (!path || !*path) t_error("npy_load: no file name given");
    if (open_npy(path, &f, err, sizeof err) != 0) t_error("%s: %s", path, err);
    rc = read_header(&f, &lay, err, sizeof err);
    if (rc == 0) rc = read_data(&f, &lay, &t, err, sizeof err);
    free(f.buf);  /* before t_error, which does not return */
    close(f.fd);
    if (rc != 0) t_error("%s: %s", path, err);
    return t;
}

bool npy_peek_shape(const char *path, Shape *shape)
{
    char err[256];
    NpyFile f;
    Layout lay;
    struct stat st;
    int rc;
    /* only a regular file can be read twice */
    if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    if (open_npy(path, &f, err, sizeof err) != 0) return false;
    rc = read_header(&f, &lay, err, sizeof err);
    free(f.buf);
    close(f.fd);
    if (rc != 0) return false;
    *shape = lay.shape;
    return true;
}

/* ---- npy_save -------------------------------------------------------------- */

/* The whole preamble + header, padded so the data starts at a multiple of
 * NPY_ALIGN. Returns its length. */
static size_t make_header(const Tensor *x, unsigned char *buf, size_t cap)
{
    char shape_buf[T_SHAPE_STR];
    char dict[T_SHAPE_STR + 100];
    size_t n, total, header_len;

    dims_str(x->ndim, x->shape, shape_buf, sizeof shape_buf);
    n = (size_t)snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }",
                         shape_buf);
    if (n >= sizeof dict) return 0;
    total = 10 + n + 1;                                     /* + '\n' */
    total += (NPY_ALIGN - total % NPY_ALIGN) % NPY_ALIGN;   /* spaces */
    if (total > cap) return 0;
    header_len = total - 10;
    memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (unsigned char)(header_len & 0xff);
    buf[9] = (unsigned char)(header_len >> 8);
    memcpy(buf + 10, dict, n);
    memset(buf + 10 + n, ' ', total - 10 - n - 1);
    buf[total - 1] = '\n';
    return total;
}

/* Write x's elements in row-major order as little-endian float32: a
 * contiguous tensor on a little-endian machine in one fwrite of its storage
 * (the stream hands a large buffer to the system in one write), anything
 * else gathered a row at a time into blocks of up to 1 MiB. Returns 0, or an
 * errno value. */
static int write_data(FILE *f, const Tensor *x)
{
    float small[1024], *block;
    size_t cap = NPY_BLOCK / sizeof(float), used = 0;
    int64_t idx[T_MAX_DIMS] = {0}, numel = 1, off = x->offset, row, row_stride, rows, r, j;
    bool swap = !host_is_little_endian();
    int k, last = x->ndim - 1, e = 0;

    for (k = 0; k < x->ndim; k++) numel *= x->shape[k];
    if (numel == 0) return 0;
    if (!swap && t_is_contiguous(x)) {
        if (fwrite(x->storage->data + x->offset, sizeof(float), (size_t)numel, f) != (size_t)numel)
            return errno ? errno : EIO;
        return 0;
    }
    block = malloc(cap * sizeof(float));
    if (!block) {
        block = small;
        cap = sizeof small / sizeof small[0];
    }
    row = last >= 0 ? x->shape[last] : 1;
    row_stride = last >= 0 ? x->strides[last] : 1;
    rows = numel / row;
    for (r = 0; r < rows && !e; r++) {
        for (j = 0; j < row; j++) {
            block[used++] = x->storage->data[off + j * row_stride];
            if (used == cap || (r == rows - 1 && j == row - 1)) {
                if (swap) {
                    size_t i;
                    for (i = 0; i < used; i++) {
                        uint32_t u;
                        memcpy(&u, block + i, 4);
                        u = swap32(u);
                        memcpy(block + i, &u, 4);
                    }
                }
                if (fwrite(block, sizeof(float), used, f) != used) {
                    e = errno ? errno : EIO;
                    break;
                }
                used = 0;
            }
        }
        for (k = last - 1; k >= 0; k--) { /* the next row */
            idx[k]++;
            off += x->strides[k];
            if (idx[k] < x->shape[k]) break;
            off -= x->strides[k] * x->shape[k];
            idx[k] = 0;
        }
    }
    if (block != small) free(block);
    return e;
}

/* ---- where the bytes go: plain files, or a program's (npy_set_files) ---- */

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

static void plain_make_dir(const char *dir)
{
    char *p = malloc(strlen(dir) + 1), *s;
    if (!p) t_error("out of memory");
    strcpy(p, dir);
    for (s = p + 1;; s++) {   /* mkdir -p */
        if (*s == '/' || *s == '\0') {
            char saved = *s;
            struct stat st;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && !(stat(p, &st) == 0 && S_ISDIR(st.st_mode))) {
                int e = errno;
                char msg[1200];
                snprintf(msg, sizeof msg, "cannot create directory '%.500s': %s", p, strerror(e));
                free(p);
                t_error("%s", msg);
            }
            *s = saved;
            if (saved == '\0') break;
        }
    }
    free(p);
}

static const NpyFiles plain_files = {plain_open, plain_close, plain_make_dir};
static const NpyFiles *files = &plain_files;

void npy_set_files(const NpyFiles *f) { files = f ? f : &plain_files; }

void npy_save(const char *path, const Tensor *x)
{
    unsigned char header[512];
    size_t header_size;
    void *handle = NULL;
    FILE *f;
    int e;

    if (!path || !*path) t_error("npy_save: no file name given");
    if (!x) t_error("npy_save: cannot write '%s': the tensor is NULL", path);
    if (x->ndim < 0 || x->ndim > T_MAX_DIMS)
        t_error("npy_save: cannot write '%s': the tensor has %d dims", path, x->ndim);
    header_size = make_header(x, header, sizeof header);
    if (header_size == 0) t_error("npy_save: cannot write '%s': header too long", path);

    f = files->open(path, &handle);
    errno = 0;
    e = 0;
    if (fwrite(header, 1, header_size, f) != header_size) e = errno ? errno : EIO;
    if (!e) e = write_data(f, x);
    files->close(handle, path, e);
}

void npy_save_in(const char *dir, const char *name, const Tensor *x)
{
    char *path;
    size_t dl;
    if (!dir || !*dir) t_error("npy_save_in: no directory given");
    if (!name || !*name) t_error("npy_save_in: no file name given");
    dl = strlen(dir);
    path = malloc(dl + strlen(name) + 6);
    if (!path) t_error("npy_save_in: out of memory");
    sprintf(path, "%s%s%s.npy", dir, dir[dl - 1] == '/' ? "" : "/", name);
    {
        /* npy_save may not return: keep the path where a leak checker finds it */
        static char *current = NULL;
        free(current);
        current = path;
        npy_save(path, x);
        current = NULL;
    }
    free(path);
}

/* ---- files and directories ---------------------------------------------- */

bool npy_exists(const char *path)
{
    struct stat st;
    if (!path || !*path) return false;
    return lstat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

void npy_make_dir(const char *dir)
{
    if (!dir || !*dir) t_error("npy_make_dir: no directory name given");
    files->make_dir(dir);
}
