/* test_common_npy.c — .npy reading and writing (common/npy.c).
 *
 * The .npy files here are built byte by byte in C, the way NumPy lays them
 * out (numpy/lib/format.py), so each test states exactly which header,
 * padding, dtype or layout it feeds the loader. Files go under
 * $BUILD/tmp_npy_test.<pid>/ (BUILD defaults to build, relative to the repo
 * root where tests run), removed again at the end.
 */
#define _POSIX_C_SOURCE 200809L

#include "harness.h"
#include "common/program/program.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#ifndef _WIN32 /* the pipe, socket and fork tests: RUN_POSIX */
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#endif

#define BUF_MAX 8192

static char tmp_dir[512];   /* $BUILD/tmp_npy_test.<pid> */

/* printf into one of a few rotating buffers (paths and expected sentences). */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static const char *str(const char *fmt, ...)
{
    static char bufs[8][1024];
    static int next = 0;
    char *b = bufs[next];
    va_list ap;
    next = (next + 1) % 8;
    va_start(ap, fmt);
    vsnprintf(b, sizeof bufs[0], fmt, ap);
    va_end(ap);
    return b;
}

static const char *tmp_path(const char *name) { return str("%s/%s", tmp_dir, name); }

#ifdef _WIN32
#define lstat stat /* no symbolic links in these tests there */
#endif

/* rm -r, for the temporary directory */
static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        if (d) {
            while ((e = readdir(d)) != NULL) {
                char child[1024];
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
                snprintf(child, sizeof child, "%s/%s", path, e->d_name);
                remove_tree(child);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* ---- building .npy bytes ---------------------------------------------------- */

/* A .npy image: preamble of version `major`.0, the header text `dict`
 * padded with spaces and ended by '\n' so the data starts at a multiple of
 * `align`, then `data_len` bytes of data. Returns the total length. */
static size_t make_npy(unsigned char *buf, int major, const char *dict, int align,
                       const void *data, size_t data_len)
{
    size_t start = major == 1 ? 10 : 12;
    size_t n = strlen(dict);
    size_t total = start + n + 1;
    size_t header_len;
    if (align > 1) total += ((size_t)align - total % (size_t)align) % (size_t)align;
    header_len = total - start;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    buf[8] = (unsigned char)(header_len & 0xff);
    buf[9] = (unsigned char)((header_len >> 8) & 0xff);
    if (major != 1) {
        buf[10] = (unsigned char)((header_len >> 16) & 0xff);
        buf[11] = (unsigned char)((header_len >> 24) & 0xff);
    }
    memcpy(buf + start, dict, n);
    memset(buf + start + n, ' ', total - start - n - 1);
    buf[total - 1] = '\n';
    if (data_len) memcpy(buf + total, data, data_len);
    return total + data_len;
}

static bool little_endian_host(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* n values as float32 / float64 bytes, little- or big-endian. */
static size_t f4_bytes(unsigned char *out, const float *v, size_t n, bool big)
{
    size_t i, k;
    for (i = 0; i < n; i++) {
        unsigned char b[4];
        memcpy(b, &v[i], 4);
        for (k = 0; k < 4; k++)
            out[4 * i + k] = (big == little_endian_host()) ? b[3 - k] : b[k];
    }
    return 4 * n;
}

static size_t f8_bytes(unsigned char *out, const double *v, size_t n, bool big)
{
    size_t i, k;
    for (i = 0; i < n; i++) {
        unsigned char b[8];
        memcpy(b, &v[i], 8);
        for (k = 0; k < 8; k++)
            out[8 * i + k] = (big == little_endian_host()) ? b[7 - k] : b[k];
    }
    return 8 * n;
}

static const float V6[6] = {0.5f, -1.25f, 2.0f, 3.75f, -4.5f, 1e-3f};

/* Parse and require success; the failure sentence is reported otherwise. */
static Tensor *parse_ok(const unsigned char *buf, size_t len)
{
    Tensor *t = NULL;
    char err[512];
    int rc = npy_parse(buf, len, &t, err, sizeof err);
    CHECK_MSG(rc == 0, "npy_parse failed: %s", err);
    CHECK_MSG(rc != 0 || t != NULL, "npy_parse returned 0 but no tensor");
    return rc == 0 ? t : NULL;
}

/* Parse and require failure with a sentence containing `want`. */
#define CHECK_PARSE_FAILS(buf, len, want)                                          \
    do {                                                                           \
        Tensor *t_ = (Tensor *)1;                                                  \
        char err_[512];                                                            \
        int rc_ = npy_parse((buf), (len), &t_, err_, sizeof err_);                 \
        CHECK_MSG(rc_ == -1, "npy_parse returned %d, expected -1", rc_);           \
        CHECK_MSG(t_ == NULL, "npy_parse left *out set on failure");               \
        CHECK_STR_CONTAINS(err_, (want));                                          \
    } while (0)

static void write_file(const char *path, const unsigned char *buf, size_t len)
{
    FILE *f;
    npy_make_dir(tmp_dir);
    f = fopen(path, "wb");
    CHECK_MSG(f != NULL, "cannot create %s", path);
    if (!f) return;
    CHECK(fwrite(buf, 1, len, f) == len);
    fclose(f);
}

static size_t read_file(const char *path, unsigned char *buf, size_t cap)
{
    size_t n;
    FILE *f = fopen(path, "rb");
    CHECK_MSG(f != NULL, "cannot open %s", path);
    if (!f) return 0;
    n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

/* Number of entries in dir whose name contains ".tmp." */
static int count_tmp_files(const char *dir)
{
    int n = 0;
    struct dirent *e;
    DIR *d = opendir(dir);
    if (!d) return -1;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp.")) n++;
    closedir(d);
    return n;
}

/* ---- valid files ------------------------------------------------------------ */

static void test_v1_f4_2x3(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 64,
                          data, f4_bytes(data, V6, 6, false));
    Tensor *t = parse_ok(buf, len);
    if (!t) return;
    CHECK_EQ_INT(len % 64, 24);  /* header padded to 64, then 24 data bytes */
    CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), V6), 0, 0);
    CHECK(t_is_contiguous(t));
    CHECK_CLOSE(t_get(t, 1, 2), 1e-3f, 0);
}

static void test_v2_and_v3_headers(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t dl = f4_bytes(data, V6, 6, false);
    size_t len = make_npy(buf, 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", 64, data, dl);
    Tensor *t = parse_ok(buf, len);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(6), V6), 0, 0);
    len = make_npy(buf, 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", 64, data, dl);
    t = parse_ok(buf, len);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(3, 2), V6), 0, 0);
}

static void test_padding_16_and_none(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t dl = f4_bytes(data, V6, 6, false);
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    size_t len = make_npy(buf, 1, dict, 16, data, dl);
    Tensor *t = parse_ok(buf, len);
    CHECK_EQ_INT((len - dl) % 16, 0);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), V6), 0, 0);
    len = make_npy(buf, 1, dict, 1, data, dl);  /* no padding at all */
    t = parse_ok(buf, len);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), V6), 0, 0);
}

static void test_keys_reordered_double_quotes(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t len = make_npy(buf, 1, "{\"shape\": (3, 2), \"descr\": \"<f4\", 'fortran_order': False}", 64,
                          data, f4_bytes(data, V6, 6, false));
    Tensor *t = parse_ok(buf, len);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(3, 2), V6), 0, 0);
}

static void test_extra_whitespace(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t len = make_npy(buf, 1,
                          "  {\n  'fortran_order' :False ,\t'shape':(  2 ,\n 3 ) ,  'descr'  :  '<f4'  ,  }  ",
                          64, data, f4_bytes(data, V6, 6, false));
    Tensor *t = parse_ok(buf, len);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), V6), 0, 0);
}

static void test_shape_1d(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 64,
                          data, f4_bytes(data, V6, 3, false));
    Tensor *t = parse_ok(buf, len);
    if (!t) return;
    CHECK_EQ_INT(t->ndim, 1);
    CHECK_EQ_INT(t->shape[0], 3);
    CHECK_CLOSE(t_get(t, 2), 2.0f, 0);
}

static void test_shape_scalar(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    float v = 7.25f;
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 64,
                          data, f4_bytes(data, &v, 1, false));
    Tensor *t = parse_ok(buf, len);
    if (!t) return;
    CHECK_EQ_INT(t->ndim, 0);
    CHECK_EQ_INT(t_numel(t), 1);
    CHECK_CLOSE(t_flat_get(t, 0), 7.25f, 0);
}

static void test_shape_trailing_comma_and_long(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t dl = f4_bytes(data, V6, 6, false);
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,3,), }", 64, data, dl);
    Tensor *t = parse_ok(buf, len);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), V6), 0, 0);
    /* Python 2 NumPy wrote long integers as 2L */
    len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }", 64, data, dl);
    t = parse_ok(buf, len);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), V6), 0, 0);
}

static void test_shape_with_zero(void)
{
    unsigned char buf[BUF_MAX];
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", 64, NULL, 0);
    Tensor *t = parse_ok(buf, len);
    if (!t) return;
    CHECK_EQ_INT(t->ndim, 2);
    CHECK_EQ_INT(t->shape[0], 0);
    CHECK_EQ_INT(t->shape[1], 3);
    CHECK_EQ_INT(t_numel(t), 0);
    /* a zero dim makes the count 0 even next to a huge dim ... */
    len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (4611686018427387904, 0), }",
                   64, NULL, 0);
    t = parse_ok(buf, len);
    if (t) CHECK_EQ_INT(t_numel(t), 0);
    /* ... but the other dims' product (the strides) must still fit in 64 bits */
    len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8, 0), }",
                   64, NULL, 0);
    CHECK_PARSE_FAILS(buf, len, "has too many elements");
}

static void test_f8_converted(void)
{
    unsigned char buf[BUF_MAX], data[128] = {0};
    const double v[6] = {0.1, -2.5, 3.0, 1e-300, 1e300, -1e300};
    const float want[6] = {0.1f, -2.5f, 3.0f, 0.0f, INFINITY, -INFINITY};
    size_t len = make_npy(buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 64,
                          data, f8_bytes(data, v, 6, false));
    Tensor *t = parse_ok(buf, len);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), want), 0, 0);
    len = make_npy(buf, 1, "{'descr': '=f8', 'fortran_order': False, 'shape': (6,), }", 64,
                   data, f8_bytes(data, v, 6, !little_endian_host()));
    t = parse_ok(buf, len);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(6), want), 0, 0);
}

static void test_big_endian_f4_and_f8(void)
{
    unsigned char buf[BUF_MAX], data[128] = {0};
    const double v8[6] = {0.5, -1.25, 2.0, 3.75, -4.5, 1e-3};
    size_t len = make_npy(buf, 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", 64,
                          data, f4_bytes(data, V6, 6, true));
    Tensor *t = parse_ok(buf, len);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), V6), 0, 0);
    len = make_npy(buf, 2, "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }", 64,
                   data, f8_bytes(data, v8, 6, true));
    t = parse_ok(buf, len);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), V6), 0, 0);
}

static void test_native_order_f4(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t len = make_npy(buf, 1, "{'descr': '=f4', 'fortran_order': False, 'shape': (2, 3), }", 64,
                          data, f4_bytes(data, V6, 6, !little_endian_host()));
    Tensor *t = parse_ok(buf, len);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), V6), 0, 0);
}

static void test_fortran_2x3(void)
{
    /* x = [[0, 1, 2], [3, 4, 5]]; Fortran order stores columns first:
     * x[0,0] x[1,0] x[0,1] x[1,1] x[0,2] x[1,2] = 0 3 1 4 2 5 */
    unsigned char buf[BUF_MAX], data[64] = {0};
    const float file[6] = {0, 3, 1, 4, 2, 5};
    const float want[6] = {0, 1, 2, 3, 4, 5};
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 64,
                          data, f4_bytes(data, file, 6, false));
    Tensor *t = parse_ok(buf, len);
    if (!t) return;
    CHECK(t_is_contiguous(t));
    CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), want), 0, 0);
    CHECK_CLOSE(t_get(t, 1, 0), 3.0f, 0);
}

static void test_fortran_2x3x4_f8_big_endian(void)
{
    /* x[i][j][k] = 100 i + 10 j + k; in Fortran order i varies fastest. */
    unsigned char buf[BUF_MAX], data[256] = {0};
    double file[24];
    int i, j, k, n = 0;
    Tensor *t;
    size_t len;
    for (k = 0; k < 4; k++)
        for (j = 0; j < 3; j++)
            for (i = 0; i < 2; i++) file[n++] = 100 * i + 10 * j + k;
    len = make_npy(buf, 1, "{'descr': '>f8', 'fortran_order': True, 'shape': (2, 3, 4), }", 64,
                   data, f8_bytes(data, file, 24, true));
    t = parse_ok(buf, len);
    if (!t) return;
    CHECK(t_is_contiguous(t));
    CHECK_EQ_INT(t->ndim, 3);
    for (i = 0; i < 2; i++)
        for (j = 0; j < 3; j++)
            for (k = 0; k < 4; k++)
                CHECK_CLOSE(t_get(t, i, j, k), 100 * i + 10 * j + k, 0);
    /* the same in float32, little-endian */
    {
        float f[24];
        for (n = 0; n < 24; n++) f[n] = (float)file[n];
        len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3, 4), }", 64,
                       data, f4_bytes(data, f, 24, false));
        t = parse_ok(buf, len);
        if (t) CHECK_CLOSE(t_get(t, 1, 2, 3), 123, 0);
        if (t) CHECK_CLOSE(t_flat_get(t, 1), 1, 0);  /* C order: x[0][0][1] */
    }
}

/* ---- saving --------------------------------------------------------------- */

static void test_save_header_layout(void)
{
    unsigned char buf[BUF_MAX];
    size_t len, header_len;
    const char *path = tmp_path("layout.npy");
    npy_make_dir(tmp_dir);
    npy_save(path, t_from_array(SHAPE(2, 3), V6));
    len = read_file(path, buf, sizeof buf);
    CHECK(len > 10 && memcmp(buf, "\x93NUMPY\x01\x00", 8) == 0);
    if (len <= 10) return;
    header_len = (size_t)buf[8] | (size_t)buf[9] << 8;
    CHECK(10 + header_len + 4 <= len);
    if (10 + header_len + 4 > len) return;
    CHECK_EQ_INT((10 + header_len) % 64, 0);
    CHECK_EQ_INT(len, 10 + header_len + 24);
    CHECK(buf[10 + header_len - 1] == '\n');
    buf[10 + header_len - 1] = '\0';
    CHECK_STR_CONTAINS((const char *)buf + 10,
                       "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
    {
        unsigned char le[4];
        f4_bytes(le, V6, 1, false);   /* data is little-endian float32 */
        CHECK(memcmp(buf + 10 + header_len, le, 4) == 0);
    }
    /* a 1-dim shape is written the Python way, with a trailing comma */
    npy_save(path, t_arange(5));
    len = read_file(path, buf, sizeof buf);
    buf[len < sizeof buf ? len : sizeof buf - 1] = '\0';
    CHECK_STR_CONTAINS((const char *)buf + 10, "'shape': (5,), }");
}

static void test_save_load_roundtrip_noncontiguous(void)
{
    const char *path = tmp_path("transposed.npy");
    Tensor *x = t_from_array(SHAPE(2, 3), V6);
    Tensor *xt = t_transpose(x, 0, 1); /* (3, 2), strides (1, 3) */
    Tensor *back;
    CHECK(!t_is_contiguous(xt));
    npy_make_dir(tmp_dir);
    npy_save(path, xt);
    back = npy_load(path);
    CHECK(t_is_contiguous(back));
    CHECK_TENSOR_CLOSE(back, xt, 0, 0);
    CHECK_CLOSE(t_get(back, 2, 0), 2.0f, 0);   /* x[0][2] */
    /* a slice with an offset, too */
    npy_save(path, t_slice(xt, 0, 1, 3));
    CHECK_TENSOR_CLOSE(npy_load(path), t_slice(xt, 0, 1, 3), 0, 0);
}

static void test_save_load_scalar_empty_and_special(void)
{
    const char *path = tmp_path("special.npy");
    const float sp[4] = {INFINITY, -INFINITY, -0.0f, 1e-45f};
    Tensor *back;
    npy_make_dir(tmp_dir);
    npy_save(path, t_full(shape_of(0, NULL), 3.5f));
    back = npy_load(path);
    CHECK_EQ_INT(back->ndim, 0);
    CHECK_CLOSE(t_flat_get(back, 0), 3.5f, 0);
    npy_save(path, t_zeros(SHAPE(0, 4)));
    back = npy_load(path);
    CHECK_EQ_INT(back->ndim, 2);
    CHECK_EQ_INT(t_numel(back), 0);
    npy_save(path, t_from_array(SHAPE(4), sp));
    back = npy_load(path);
    CHECK_TENSOR_CLOSE(back, t_from_array(SHAPE(4), sp), 0, 0);
    CHECK(signbit(t_flat_get(back, 2)));
    {
        float nan_in = NAN;
        npy_save(path, t_from_array(SHAPE(1), &nan_in));
        CHECK(isnan(t_flat_get(npy_load(path), 0)));
    }
}

static void test_save_leaves_no_temp_file(void)
{
    const char *path = tmp_path("no_tmp.npy");
    npy_make_dir(tmp_dir);
    npy_save(path, t_ones(SHAPE(4, 4)));
    npy_save(path, t_zeros(SHAPE(2)));   /* overwrites */
    CHECK_EQ_INT(count_tmp_files(tmp_dir), 0);
    CHECK(npy_exists(path));
    CHECK_EQ_INT(t_numel(npy_load(path)), 2);
}

static void test_save_into_missing_dir_fails(void)
{
    const char *dir = tmp_path("no_such_dir");
    const char *path = tmp_path("no_such_dir/x.npy");
    struct stat st;
    npy_make_dir(tmp_dir);
    rmdir(dir);
    CHECK_ERROR(npy_save(path, t_ones(SHAPE(2))), str("cannot write '%s'", path));
    CHECK_STR_CONTAINS(t_last_error(), "No such file or directory");
    CHECK(!npy_exists(path));
    CHECK(stat(dir, &st) != 0);          /* nothing was created */
    CHECK_EQ_INT(count_tmp_files(tmp_dir), 0);
    /* a directory in the way: the finished temporary cannot replace it and
     * is removed again */
    npy_make_dir(tmp_path("in_the_way.npy"));
    CHECK_ERROR(npy_save(tmp_path("in_the_way.npy"), t_ones(SHAPE(2))),
                str("cannot write '%s': it is a directory", tmp_path("in_the_way.npy")));
    CHECK_EQ_INT(count_tmp_files(tmp_dir), 0);
}

static void test_save_in_and_make_dir(void)
{
    const char *dir = tmp_path("a/b//c/");
    npy_make_dir(dir);
    npy_make_dir(dir);                   /* mkdir -p: existing is fine */
    npy_save_in(dir, "weights", t_eye(3));
    CHECK(npy_exists(tmp_path("a/b/c/weights.npy")));
    CHECK_TENSOR_CLOSE(npy_load(tmp_path("a/b/c/weights.npy")), t_eye(3), 0, 0);
    npy_save_in(tmp_path("a/b/c"), "w2", t_eye(2));
    CHECK(npy_exists(tmp_path("a/b/c/w2.npy")));
    CHECK_EQ_INT(count_tmp_files(tmp_path("a/b/c")), 0);
    /* a path through a regular file cannot become a directory */
    CHECK_ERROR(npy_make_dir(tmp_path("a/b/c/w2.npy/d")), "not a directory");
    CHECK_ERROR(npy_make_dir(""), "npy_make_dir");
}

static void test_exists(void)
{
    npy_make_dir(tmp_dir);
    npy_save(tmp_path("exists.npy"), t_ones(SHAPE(1)));
    CHECK(npy_exists(tmp_path("exists.npy")));
    CHECK(!npy_exists(tmp_path("does_not_exist.npy")));
    CHECK(!npy_exists(tmp_dir));          /* a directory is not a file */
    CHECK(!npy_exists(""));
}

/* ---- refusals: through npy_load, so the sentence names the file -------------- */

static void test_load_missing_file_and_directory(void)
{
    npy_make_dir(tmp_dir);
    CHECK_ERROR(npy_load(tmp_path("missing.npy")), str("%s/missing.npy: cannot open the file", tmp_dir));
    CHECK_ERROR(npy_load(tmp_dir), "is a directory");
    CHECK_ERROR(npy_load(tmp_path("")), "is a directory, not a .npy file");
    CHECK_ERROR(npy_load(""), "npy_load: no file name given");
}

#ifndef _WIN32
static void test_load_socket(void)
{
    /* a socket cannot be opened (and is never read) */
    {
        struct sockaddr_un addr;
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        memset(&addr, 0, sizeof addr);
        addr.sun_family = AF_UNIX;
        snprintf(addr.sun_path, sizeof addr.sun_path, "%s", tmp_path("socket.npy"));
        CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0);
        CHECK_ERROR(npy_load(tmp_path("socket.npy")), "cannot open the file: it is a socket or a device with nothing behind it");
        if (fd >= 0) close(fd);
        unlink(tmp_path("socket.npy"));
    }
}
#endif

static void test_refuse_bad_magic(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 64,
                          data, f4_bytes(data, V6, 6, false));
    buf[1] = 'n';
    write_file(tmp_path("bad_magic.npy"), buf, len);
    CHECK_ERROR(npy_load(tmp_path("bad_magic.npy")),
                str("%s/bad_magic.npy: not a .npy file (bad magic bytes)", tmp_dir));
    write_file(tmp_path("empty.npy"), buf, 0);
    CHECK_ERROR(npy_load(tmp_path("empty.npy")), "not a .npy file (bad magic bytes)");
    CHECK_PARSE_FAILS((const unsigned char *)"hello, world", 12, "not a .npy file (bad magic bytes)");
}

static void test_refuse_unsupported_version(void)
{
    unsigned char buf[BUF_MAX];
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 64, "abcd", 4);
    buf[6] = 4;
    write_file(tmp_path("version4.npy"), buf, len);
    CHECK_ERROR(npy_load(tmp_path("version4.npy")), "unsupported .npy format version 4.0");
    buf[6] = 1;
    buf[7] = 1;
    CHECK_PARSE_FAILS(buf, len, "unsupported .npy format version 1.1");
    buf[6] = 0;
    buf[7] = 0;
    CHECK_PARSE_FAILS(buf, len, "version 0.0");
}

static void test_refuse_truncated_header(void)
{
    unsigned char buf[BUF_MAX];
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 64, NULL, 0);
    write_file(tmp_path("truncated_header.npy"), buf, 40);
    CHECK_ERROR(npy_load(tmp_path("truncated_header.npy")), "truncated header: it claims 118 bytes but the file has only 30");
    CHECK_PARSE_FAILS(buf, 3, "not a .npy file (bad magic bytes)");
    CHECK_PARSE_FAILS(buf, 7, "truncated header: the file ends inside the version bytes");
    CHECK_PARSE_FAILS(buf, 9, "truncated header: the file ends inside the header length");
    CHECK_PARSE_FAILS(buf, len - 1, "truncated header: it claims 118 bytes but the file has only 117");
    len = make_npy(buf, 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 64, NULL, 0);
    CHECK_PARSE_FAILS(buf, 11, "truncated header: the file ends inside the header length");
    buf[11] = 0xff;  /* claims about 4 GiB of header */
    CHECK_PARSE_FAILS(buf, len, "truncated header: it claims 4278190196 bytes but the file has only 116");
    CHECK_PARSE_FAILS(NULL, 5, "no data");
}

/* numpy.load refuses a header longer than 10000 characters; so do we, from
 * its length alone (a file, or a pipe that goes on) */
static void test_refuse_long_header(void)
{
    size_t n = 10001, len;
    unsigned char *buf = malloc(12 + n + 64);
    char *dict = malloc(n + 1);
    CHECK(buf != NULL && dict != NULL);
    if (buf && dict) {
        memset(dict, ' ', n);
        memcpy(dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 55);
        dict[n - 1] = '\0';    /* make_npy adds the '\n': 10001 bytes */
        len = make_npy(buf, 2, dict, 1, "abcd", 4);
        CHECK_PARSE_FAILS(buf, len, "header of 10001 bytes is longer than the 10000 characters numpy.load accepts");
        write_file(tmp_path("long_header.npy"), buf, len);
        CHECK_ERROR(npy_load(tmp_path("long_header.npy")), "header of 10001 bytes is longer than the 10000");
        dict[n - 2] = '\0';    /* 10000 bytes: read */
        len = make_npy(buf, 2, dict, 1, "abcd", 4);
        CHECK(parse_ok(buf, len) != NULL);
    }
    free(buf);
    free(dict);
}

static void test_refuse_not_a_dict(void)
{
    unsigned char buf[BUF_MAX];
    size_t len = make_npy(buf, 1, "['descr', '<f4']", 64, NULL, 0);
    write_file(tmp_path("not_dict.npy"), buf, len);
    CHECK_ERROR(npy_load(tmp_path("not_dict.npy")), "header is not a dict");
    len = make_npy(buf, 1, "", 64, NULL, 0);
    CHECK_PARSE_FAILS(buf, len, "header is not a dict");
    len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), ", 64, NULL, 0);
    CHECK_PARSE_FAILS(buf, len, "before its closing '}'");
    len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), } x", 64, NULL, 0);
    CHECK_PARSE_FAILS(buf, len, "unexpected text after its closing '}'");
}

static void test_refuse_missing_key(void)
{
    unsigned char buf[BUF_MAX];
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, }", 64, NULL, 0);
    write_file(tmp_path("no_shape.npy"), buf, len);
    CHECK_ERROR(npy_load(tmp_path("no_shape.npy")), "header has no 'shape' key");
    len = make_npy(buf, 1, "{'shape': (), 'fortran_order': False}", 64, NULL, 0);
    CHECK_PARSE_FAILS(buf, len, "header has no 'descr' key");
    len = make_npy(buf, 1, "{'shape': (), 'descr': '<f4'}", 64, NULL, 0);
    CHECK_PARSE_FAILS(buf, len, "header has no 'fortran_order' key");
}

static void test_refuse_unparsable_header(void)
{
    static const struct {
        int version;
        const char *dict, *want;
    } cases[] = {
        {1, "{'descr' '<f4', 'fortran_order': False, 'shape': ()}", "expected ':' after 'descr' at byte 9"},
        {1, "{'descr': 1, 'fortran_order': False, 'shape': ()}", "expected a quoted dtype for 'descr'"},
        {1, "{'descr': '<f4, 'fortran_order': False, 'shape': ()}", "header is not a valid dict"},
        {1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': ()}", "'fortran_order' must be True or False"},
        {1, "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}", "'fortran_order' must be True or False"},
        {1, "{'descr': '<f4', 'fortran_order': false, 'shape': ()}", "'fortran_order' must be True or False"},
        {1, "{'descr': '<f4', 'fortran_order': Falsey, 'shape': ()}",
         "expected ',' or '}' after the value of 'fortran_order'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}", "'shape' must be a tuple like (2, 3)"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': 6}", "'shape' must be a tuple like (2, 3)"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}", "'shape' must be a tuple of integers"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0, 3)}", "expected ',' or ')' in 'shape'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (True, 3)}", "'shape' must be a tuple of integers"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}", "expected ',' or ')'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (,)}", "'shape' must be a tuple of integers"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,,)}", "'shape' must be a tuple of integers"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3)}", "a one-dim shape is written (3,)"},
        {1, "{'descr': '<f4' 'fortran_order': False, 'shape': ()}", "expected ',' or '}' after the value of 'descr'"},
        {1, "{descr: '<f4', 'fortran_order': False, 'shape': ()}", "expected a quoted key"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'extra': 1}", "unexpected key 'extra'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (),, }", "expected a quoted key"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x", "a string is not closed on its line"},
        {1, "{'descr': '<f4\n', 'fortran_order': False, 'shape': ()}", "a string is not closed on its line"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), } x", "unexpected text after its closing '}'"},
        /* numpy.load reads these (Python's literal syntax), no writer writes them */
        {1, "{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, 'shape': ()}", "header gives 'descr' twice"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), } # a comment", "unexpected text after its closing"},
        {1, "{'descr': '<f4', # the dtype\n 'fortran_order': False, 'shape': ()}", "expected a quoted key at byte 17"},
        {1, "{'descr': '\\x3cf4', 'fortran_order': False, 'shape': ()}", "header has an escape at byte 11"},
        {1, "{'descr': '\\u003cf4', 'fortran_order': False, 'shape': ()}", "header has an escape"},
        {1, "{'descr': '<' 'f4', 'fortran_order': False, 'shape': ()}", "expected ',' or '}' after the value"},
        {1, "{'''descr''': '<f4', 'fortran_order': False, 'shape': ()}", "unexpected key ''"},
        {1, "{u'descr': '<f4', 'fortran_order': False, 'shape': ()}", "expected a quoted key"},
        {1, "{'descr': '<f4', \\\n'fortran_order': False, 'shape': ()}", "expected a quoted key"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0x2,)}", "expected ',' or ')' in 'shape'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1_0,)}", "expected ',' or ')' in 'shape'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (+2,)}", "'shape' must be a tuple of integers"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': ((2),)}", "'shape' must be a tuple of integers"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': ((2,3),)}", "'shape' must be a tuple of integers"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-(-2),)}", "'shape' must be a tuple of integers"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (02,)}", "'shape' must be a tuple of integers"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (00,)}", "'shape' must be a tuple of integers"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2l,)}", "expected ',' or ')' in 'shape'"},
        {3, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L,)}", "expected ',' or ')' in 'shape'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775808,)}", "too large for a 64-bit"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\x01", "the byte 0x01 at byte 55 of the header"},
        {1, "{'descr':\x0b'<f4', 'fortran_order': False, 'shape': ()}", "the byte 0x0b at byte 9 of the header"},
        {1, "{'descr':\x0c'<f4', 'fortran_order': False, 'shape': ()}", "the byte 0x0c at byte 9 of the header"},
        {3, "{'descr': '<f4', 'fortran_order': False, 'shape': (), } \xc3\xa9", "the byte 0xc3 at byte 56"},
        {2, "{'descr': '<f4', 'fortran_order': False, 'shape': (), } \xe9", "the byte 0xe9 at byte 56"},
    };
    unsigned char buf[BUF_MAX];
    size_t c, len;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        len = make_npy(buf, cases[c].version, cases[c].dict, 64, NULL, 0);
        CHECK_PARSE_FAILS(buf, len, cases[c].want);
    }
    len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 64, NULL, 0);
    buf[10 + 14] = 0;   /* a NUL inside the dtype: '<f4\0' */
    CHECK_PARSE_FAILS(buf, len, "header has a NUL byte at byte 14 of the header");
}

/* What numpy and other writers put in a header: each must load as (2, 3) of V6. */
static void test_accepts_what_writers_write(void)
{
    static const struct {
        int version;
        const char *dict;
    } cases[] = {
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"},  /* numpy */
        {2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"},
        {3, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}"},    /* no trailing comma */
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3,), }"},
        {1, "{'descr':'<f4','fortran_order':False,'shape':(2,3)}"},
        {1, "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3)}"},
        {1, "{\"descr\": '<f4', 'fortran_order': False, \"shape\": (2, 3), }"},
        {1, "{'descr': '<f4', 'shape': (2, 3), 'fortran_order': False, }"},  /* every key order */
        {1, "{'fortran_order': False, 'descr': '<f4', 'shape': (2, 3), }"},
        {1, "{'fortran_order': False, 'shape': (2, 3), 'descr': '<f4', }"},
        {1, "{'shape': (2, 3), 'descr': '<f4', 'fortran_order': False, }"},
        {1, "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4', }"},
        {1, "\t{ 'descr' : '<f4' ,\r\n 'fortran_order' : False ,\n 'shape' : ( 2 , 3 , ) , }\r\n"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }"}, /* Python 2 */
        {2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3), }"},
    };
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t c, len, dl = f4_bytes(data, V6, 6, false);
    Tensor *t;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        len = make_npy(buf, cases[c].version, cases[c].dict, 64, data, dl);
        t = parse_ok(buf, len);
        CHECK_MSG(t != NULL, "case %zu: %s", c, cases[c].dict);
        if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), V6), 0, 0);
    }
    /* numpy.load needs neither the '\n' at the end of the header nor any padding */
    len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 1, data, dl);
    memmove(buf + len - dl - 1, buf + len - dl, dl);   /* drop the '\n' */
    buf[8]--;
    t = parse_ok(buf, len - 1);
    if (t) CHECK_TENSOR_CLOSE(t, t_from_array(SHAPE(2, 3), V6), 0, 0);
}

static void test_refuse_unsupported_dtype(void)
{
    static const char *const refused[] = {"<i4", "<i8", "|u1", "<f2", "<f16", "<c8", "|b1", "|O", "<U4", "|S4",
                                          "<f4x", "|f4", "f4", "f", "<d", "float32", "float64", "<F4", " <f4", "<f4 "};
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t len, k;
    len = make_npy(buf, 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", 64, data, 16);
    write_file(tmp_path("dtype_i8.npy"), buf, len);
    CHECK_ERROR(npy_load(tmp_path("dtype_i8.npy")),
                "unsupported dtype '<i8': only float32 ('<f4') and float64 ('<f8') are read");
    for (k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        len = make_npy(buf, 1, str("{'descr': '%s', 'fortran_order': False, 'shape': (2,), }", refused[k]), 64,
                       data, 8);
        CHECK_PARSE_FAILS(buf, len, str("unsupported dtype '%s': only float32", refused[k]));
    }
    len = make_npy(buf, 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 64, data, 8);
    CHECK_PARSE_FAILS(buf, len, "structured");
    len = make_npy(buf, 1, "{'descr': ('<f4', (2,)), 'fortran_order': False, 'shape': (2,), }", 64, data, 8);
    CHECK_PARSE_FAILS(buf, len, "structured");
}

static void test_refuse_too_many_dims(void)
{
    unsigned char buf[BUF_MAX];
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }",
                          64, "abcd", 4);
    write_file(tmp_path("nine_dims.npy"), buf, len);
    CHECK_ERROR(npy_load(tmp_path("nine_dims.npy")), "shape has more than 8 dims");
    /* eight is fine */
    len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 1, 1, 1, 1, 1, 1, 1), }",
                   64, "abcd", 4);
    CHECK(parse_ok(buf, len) != NULL);
}

static void test_refuse_negative_dim(void)
{
    unsigned char buf[BUF_MAX];
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", 64, NULL, 0);
    write_file(tmp_path("negative.npy"), buf, len);
    CHECK_ERROR(npy_load(tmp_path("negative.npy")), "shape has a negative dimension -3");
}

static void test_refuse_count_overflow(void)
{
    unsigned char buf[BUF_MAX];
    size_t len = make_npy(buf, 1,
                          "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
                          64, NULL, 0);
    write_file(tmp_path("overflow.npy"), buf, len);
    CHECK_ERROR(npy_load(tmp_path("overflow.npy")), "has too many elements");
    /* fits int64 as a count but not as a byte count of float64 */
    len = make_npy(buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }",
                   64, NULL, 0);
    CHECK_PARSE_FAILS(buf, len, "has too many elements");
    len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
                   64, NULL, 0);
    CHECK_PARSE_FAILS(buf, len, "too large for a 64-bit integer");
}

static void test_refuse_truncated_data(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 64,
                          data, f4_bytes(data, V6, 5, false));
    write_file(tmp_path("truncated_data.npy"), buf, len);
    CHECK_ERROR(npy_load(tmp_path("truncated_data.npy")),
                str("%s/truncated_data.npy: truncated data: shape (2, 3) needs 24 bytes of float32 data, "
                    "the file has 20", tmp_dir));
    len = make_npy(buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", 64, data, 23);
    CHECK_PARSE_FAILS(buf, len, "truncated data: shape (3,) needs 24 bytes of float64 data, the file has 23");
    len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 64, NULL, 0);
    CHECK_PARSE_FAILS(buf, len, "truncated data: shape () needs 4 bytes");
}

static void test_refuse_huge_shape_in_tiny_file(void)
{
    /* refused from the file length alone: nothing huge is allocated */
    unsigned char buf[BUF_MAX];
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000, 100000), }",
                          64, "abcd", 4);
    write_file(tmp_path("huge.npy"), buf, len);
    CHECK_ERROR(npy_load(tmp_path("huge.npy")),
                "truncated data: shape (100000000000, 100000) needs 40000000000000000 bytes");
}

static void test_refuse_over_memory_limit(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t old = t_max_bytes();
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 64,
                          data, f4_bytes(data, V6, 6, false));
    t_set_max_bytes(16);
    CHECK_PARSE_FAILS(buf, len, "more than the limit of 16 bytes");
    t_set_max_bytes(old);
    CHECK(parse_ok(buf, len) != NULL);
}

static void test_refuse_extra_bytes(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 64,
                          data, f4_bytes(data, V6, 6, false) + 4);
    write_file(tmp_path("trailing.npy"), buf, len);
    CHECK_ERROR(npy_load(tmp_path("trailing.npy")),
                "extra bytes after the data: shape (2, 3) needs 24 bytes of float32 data, the file has 28");
}

/* ---- large files: the block paths (read into the tensor, convert a block at a time) ---- */

/* (3, 250, 700): 2.1 MB as float32 (past the 2 MiB of a huge page), 4.2 MB as
 * float64 (several blocks of the 1 MiB the loader converts at a time). */
#define BIG_I 3
#define BIG_J 250
#define BIG_K 700
#define BIG_N (BIG_I * BIG_J * BIG_K)
#define BIG_DICT(descr, fortran) "{'descr': '" descr "', 'fortran_order': " fortran ", 'shape': (3, 250, 700), }"

static double big_value(int64_t i, int64_t j, int64_t k) { return (double)((i * BIG_J + j) * BIG_K + k) * 0.25 - 1000.0; }

/* The whole .npy of the big tensor in one layout (malloc'd; *len its size). */
static unsigned char *big_npy(const char *dict, size_t esize, bool big_endian, bool fortran, size_t *len)
{
    unsigned char *buf = malloc(256 + (size_t)BIG_N * 8), *p;
    int64_t i, j, k, n = 0;
    if (!buf) return NULL;
    *len = make_npy(buf, 1, dict, 64, NULL, 0);
    p = buf + *len;
    for (n = 0; n < BIG_N; n++) {
        /* element n of the file: C order, or the first index fastest */
        if (fortran) i = n % BIG_I, j = n / BIG_I % BIG_J, k = n / (BIG_I * BIG_J);
        else i = n / (BIG_J * BIG_K), j = n / BIG_K % BIG_J, k = n % BIG_K;
        if (esize == 4) {
            float f = (float)big_value(i, j, k);
            p += f4_bytes(p, &f, 1, big_endian);
        } else {
            double d = big_value(i, j, k);
            p += f8_bytes(p, &d, 1, big_endian);
        }
    }
    *len = (size_t)(p - buf);
    return buf;
}

static void check_big(const Tensor *t, const char *what)
{
    int64_t n, bad = 0;
    if (!t) return;
    CHECK_MSG(t->ndim == 3 && t->shape[0] == BIG_I && t->shape[1] == BIG_J && t->shape[2] == BIG_K,
              "%s: wrong shape", what);
    if (t_numel(t) != BIG_N) return;
    for (n = 0; n < BIG_N; n++)
        if (t->storage->data[t->offset + n] != (float)big_value(n / (BIG_J * BIG_K), n / BIG_K % BIG_J, n % BIG_K))
            bad++;
    CHECK_MSG(bad == 0, "%s: %lld of %d elements differ", what, (long long)bad, BIG_N);
}

/* Write buf to a pipe in uneven pieces from a child process and load it
 * from /dev/fd/N, as from `<(...)`: reads that stop anywhere. */
#ifndef _WIN32
static Tensor *load_through_pipe(const unsigned char *buf, size_t len)
{
    int fds[2];
    pid_t pid;
    Tensor *t;
    if (pipe(fds) != 0) return NULL;
    pid = fork();
    if (pid == 0) {
        size_t at = 0;
        close(fds[0]);
        while (at < len) {
            size_t piece = len - at < 4099 ? len - at : 4099;
            ssize_t w = write(fds[1], buf + at, piece);
            if (w <= 0) _exit(1);
            at += (size_t)w;
        }
        _exit(0);
    }
    close(fds[1]);
    t = npy_load(str("/dev/fd/%d", fds[0]));
    close(fds[0]);
    waitpid(pid, NULL, 0);
    return t;
}
#endif

static void test_big_files_every_layout(void)
{
    static const struct {
        const char *dict;
        size_t esize;
        bool big_endian, fortran;
    } cases[] = {
        {BIG_DICT("<f4", "False"), 4, false, false}, {BIG_DICT(">f4", "False"), 4, true, false},
        {BIG_DICT("<f8", "False"), 8, false, false}, {BIG_DICT(">f8", "False"), 8, true, false},
        {BIG_DICT("<f4", "True"), 4, false, true},   {BIG_DICT(">f8", "True"), 8, true, true},
    };
    size_t c, len;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        unsigned char *buf = big_npy(cases[c].dict, cases[c].esize, cases[c].big_endian, cases[c].fortran, &len);
        CHECK(buf != NULL);
        if (!buf) return;
        check_big(parse_ok(buf, len), str("parsed %s", cases[c].dict));
        write_file(tmp_path("big.npy"), buf, len);
        check_big(npy_load(tmp_path("big.npy")), str("loaded %s", cases[c].dict));
#ifndef _WIN32
        check_big(load_through_pipe(buf, len), str("through a pipe %s", cases[c].dict));
#endif
        free(buf);
    }
}

/* Through a pipe the sizes are known only at the end: the same sentences. */
#ifndef _WIN32
static void check_pipe_refuses(const unsigned char *buf, size_t len, const char *want)
{
    CHECK_ERROR(load_through_pipe(buf, len), want);
}

static void test_big_pipe_truncated_and_extra(void)
{
    size_t len, k;
    const char *dicts[2] = {BIG_DICT("<f4", "False"), BIG_DICT("<f8", "False")};
    for (k = 0; k < 2; k++) {
        size_t esize = k ? 8 : 4, need = (size_t)BIG_N * esize;
        const char *dtype = k ? "float64" : "float32";
        unsigned char *buf = big_npy(dicts[k], esize, false, false, &len), *more;
        CHECK(buf != NULL);
        if (!buf) return;
        check_pipe_refuses(buf, len - 3,
                           str("truncated data: shape (3, 250, 700) needs %zu bytes of %s data, the file has %zu",
                               need, dtype, need - 3));
        more = realloc(buf, len + 5);
        CHECK(more != NULL);
        if (!more) {
            free(buf);
            return;
        }
        memset(more + len, 0, 5);
        check_pipe_refuses(more, len + 5,
                           str("extra bytes after the data: shape (3, 250, 700) needs %zu bytes of %s data, "
                               "the file has %zu", need, dtype, need + 1));
        free(more);
    }
}
#endif

/* A large tensor saved contiguous (one write) and transposed (gathered in blocks). */
static void test_big_save_roundtrip(void)
{
    const char *path = tmp_path("big_saved.npy");
    Tensor *x = t_randn(SHAPE(2, 600, 700)), *xt = t_transpose(x, 0, 2); /* (700, 600, 2) */
    npy_make_dir(tmp_dir);
    npy_save(path, x);
    CHECK_TENSOR_CLOSE(npy_load(path), x, 0, 0);
    npy_save(path, xt);
    CHECK_TENSOR_CLOSE(npy_load(path), xt, 0, 0);
    npy_save(path, t_slice(xt, 1, 5, 305));
    CHECK_TENSOR_CLOSE(npy_load(path), t_slice(xt, 1, 5, 305), 0, 0);
}

/* ---- robustness ------------------------------------------------------------ */

static void test_every_truncation_is_refused(void)
{
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t n, len = make_npy(buf, 2, "{'descr': '>f8', 'fortran_order': True, 'shape': (2, 3), }", 64,
                             data, f8_bytes(data, (const double[]){1, 2, 3, 4, 5, 6}, 6, true));
    for (n = 0; n < len; n++) {
        Tensor *t = NULL;
        char err[256] = "";
        int rc = npy_parse(buf, n, &t, err, sizeof err);
        CHECK_MSG(rc == -1 && t == NULL && err[0] != '\0',
                  "prefix of %zu bytes: rc %d, err \"%s\"", n, rc, err);
    }
    CHECK(parse_ok(buf, len) != NULL);
    /* an empty or tiny error buffer is fine */
    CHECK_EQ_INT(npy_parse(buf, 3, NULL, NULL, 0), -1);
    {
        char tiny[4];
        CHECK_EQ_INT(npy_parse(buf, 3, NULL, tiny, sizeof tiny), -1);
        CHECK_EQ_INT(strlen(tiny), 3);
    }
}

static void test_byte_mutations_never_crash(void)
{
    /* every byte of the header set to a few nasty values: parse either
     * succeeds with a sane tensor or fails with a sentence */
    static const unsigned char nasty[] = {0, ' ', '\'', '(', ')', ',', '-', '9', '}', 0xff};
    unsigned char buf[BUF_MAX], data[64] = {0};
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 64,
                          data, f4_bytes(data, V6, 6, false));
    size_t i, k;
    int ok = 0, refused = 0;
    for (i = 0; i < len - 24; i++) {
        for (k = 0; k < sizeof nasty; k++) {
            unsigned char saved = buf[i];
            Tensor *t = NULL;
            char err[256] = "";
            int rc;
            t_scope_begin();
            buf[i] = nasty[k];
            rc = npy_parse(buf, len, &t, err, sizeof err);
            if (rc == 0) {
                ok++;
                CHECK(t != NULL && t_numel(t) * 4 <= 24);
            } else {
                refused++;
                CHECK_MSG(err[0] != '\0', "mutation at byte %zu gave no sentence", i);
            }
            buf[i] = saved;
            t_scope_end();
        }
    }
    CHECK(ok > 0 && refused > 0);
}

/* ---- numpy's own headers, and numpy.load's verdict on crafted ones ------------------------ */

/* tests/fixtures/npy_headers.txt, written by scripts/npy_header_cases.py with numpy:
 * "VERDICT VERSION DATA_BYTES HEADER_HEX NAME [DATA_HEX]" per line. Each header
 * is fed to npy_parse with DATA_BYTES bytes of data: DATA_HEX (what numpy wrote,
 * the numbers -1, -0.5, 0, ... in C order) or zeros. "accept": numpy.load reads
 * it and so must npy_parse; "reject": numpy.load refuses it; "refuse": numpy.load
 * reads it but no writer writes it (or it is not a float dtype), refused here on
 * purpose. Both refusals need a sentence. */
static void test_headers_agree_with_numpy(void)
{
    FILE *f = fopen(fixture_path("npy_headers.txt"), "r");
    static char line[64 * 1024];
    static unsigned char buf[40 * 1024];
    int cases = 0, written = 0, kinds[3] = {0, 0, 0};
    CHECK_MSG(f != NULL, "cannot open %s", fixture_path("npy_headers.txt"));
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        static char hex[sizeof line], data_hex[sizeof line];
        char verdict[16], name[128], err[512] = "";
        int version, fields;
        long data_bytes;
        size_t hl, start, i, total;
        Tensor *t = NULL;
        int rc;
        data_hex[0] = '\0';
        fields = sscanf(line, "%15s %d %ld %s %127s %s", verdict, &version, &data_bytes, hex, name, data_hex);
        if (fields < 5) continue;
        hl = strlen(hex) / 2;
        start = version == 1 ? 10 : 12;
        total = start + hl + (size_t)data_bytes;
        CHECK_MSG(total <= sizeof buf, "%s: too long for the test's buffer", name);
        if (total > sizeof buf) continue;
        memcpy(buf, "\x93NUMPY", 6);
        buf[6] = (unsigned char)version;
        buf[7] = 0;
        buf[8] = (unsigned char)(hl & 0xff);
        buf[9] = (unsigned char)((hl >> 8) & 0xff);
        if (version != 1) {
            buf[10] = (unsigned char)((hl >> 16) & 0xff);
            buf[11] = (unsigned char)((hl >> 24) & 0xff);
        }
        for (i = 0; i < hl; i++) {
            unsigned v;
            sscanf(hex + 2 * i, "%2x", &v);
            buf[start + i] = (unsigned char)v;
        }
        memset(buf + start + hl, 0, (size_t)data_bytes);
        for (i = 0; fields == 6 && strcmp(data_hex, "-") != 0 && i < (size_t)data_bytes; i++) {
            unsigned v;
            sscanf(data_hex + 2 * i, "%2x", &v);
            buf[start + hl + i] = (unsigned char)v;
        }
        t_scope_begin();
        rc = npy_parse(buf, total, &t, err, sizeof err);
        if (strcmp(verdict, "accept") == 0) {
            CHECK_MSG(rc == 0, "%s (version %d): numpy accepts it, npy_parse refuses: %s", name, version, err);
            kinds[0]++;
        } else {
            CHECK_MSG(rc != 0, "%s (version %d): %s, npy_parse accepts it", name, version,
                      strcmp(verdict, "reject") == 0 ? "numpy refuses it" : "no writer writes it");
            CHECK_MSG(rc == 0 || err[0] != '\0', "%s (version %d): refused without a sentence", name, version);
            kinds[strcmp(verdict, "reject") == 0 ? 1 : 2]++;
        }
        if (rc == 0 && strncmp(name, "written_", 8) == 0) {
            int64_t n, bad = 0;
            for (n = 0; n < t_numel(t); n++)
                if (t_flat_get(t, n) != (float)n * 0.5f - 1.0f) bad++;
            CHECK_MSG(bad == 0 && t_is_contiguous(t), "%s: %lld of %lld values differ from what numpy wrote", name,
                      (long long)bad, (long long)t_numel(t));
            written++;
        }
        t_scope_end();
        cases++;
    }
    fclose(f);
    CHECK_MSG(cases >= 250 && written >= 15, "only %d header cases (%d written by numpy) read", cases, written);
    CHECK_MSG(kinds[0] >= 70 && kinds[1] >= 100 && kinds[2] >= 60, "accept %d, reject %d, refuse %d cases", kinds[0],
              kinds[1], kinds[2]);
}

int main(void)
{
    const char *build = getenv("BUILD");
    int rc;
    snprintf(tmp_dir, sizeof tmp_dir, "%s/tmp_npy_test.%ld", build && *build ? build : "build",
             (long)getpid());
    RUN(test_v1_f4_2x3);
    RUN(test_v2_and_v3_headers);
    RUN(test_padding_16_and_none);
    RUN(test_keys_reordered_double_quotes);
    RUN(test_extra_whitespace);
    RUN(test_shape_1d);
    RUN(test_shape_scalar);
    RUN(test_shape_trailing_comma_and_long);
    RUN(test_shape_with_zero);
    RUN(test_f8_converted);
    RUN(test_big_endian_f4_and_f8);
    RUN(test_native_order_f4);
    RUN(test_fortran_2x3);
    RUN(test_fortran_2x3x4_f8_big_endian);
    RUN(test_save_header_layout);
    RUN(test_save_load_roundtrip_noncontiguous);
    RUN(test_save_load_scalar_empty_and_special);
    RUN(test_save_leaves_no_temp_file);
    RUN(test_save_into_missing_dir_fails);
    RUN(test_save_in_and_make_dir);
    RUN(test_exists);
    RUN(test_load_missing_file_and_directory);
    RUN_POSIX(test_load_socket);
    RUN(test_refuse_bad_magic);
    RUN(test_refuse_unsupported_version);
    RUN(test_refuse_truncated_header);
    RUN(test_refuse_long_header);
    RUN(test_refuse_not_a_dict);
    RUN(test_refuse_missing_key);
    RUN(test_refuse_unparsable_header);
    RUN(test_accepts_what_writers_write);
    RUN(test_refuse_unsupported_dtype);
    RUN(test_refuse_too_many_dims);
    RUN(test_refuse_negative_dim);
    RUN(test_refuse_count_overflow);
    RUN(test_refuse_truncated_data);
    RUN(test_refuse_huge_shape_in_tiny_file);
    RUN(test_refuse_over_memory_limit);
    RUN(test_refuse_extra_bytes);
    RUN(test_big_files_every_layout);
    RUN_POSIX(test_big_pipe_truncated_and_extra);
    RUN(test_big_save_roundtrip);
    RUN(test_every_truncation_is_refused);
    RUN(test_byte_mutations_never_crash);
    RUN(test_headers_agree_with_numpy);
    remove_tree(tmp_dir);
    rc = harness_finish("test_common_npy");
    return rc;
}
