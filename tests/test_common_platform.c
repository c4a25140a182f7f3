/* test_common_platform.c — the platform layer (common/platform.h) on whatever
 * system runs it: here, under Wine (make test-windows), under QEMU (make
 * test-arm64), with musl (make test-musl) and with no extensions (make test-posix). */
#ifdef _POSIX_C_SOURCE
#define BUILT_STRICT_POSIX 1 /* -D_POSIX_C_SOURCE on the command line: no mmap extensions */
#endif

#include "harness.h"
#include "common/platform.h"
#include "common/program/program.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char dir[512];

static const char *in_dir(const char *name)
{
    static char bufs[4][1024];
    static int next = 0;
    char *b = bufs[next];
    next = (next + 1) % 4;
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

static void test_memory_the_system_reports(void)
{
    double total = p_physical_bytes(), before = p_peak_resident_bytes(), after;
    size_t n = (size_t)48 << 20, i;
    unsigned char *block;
    CHECK(total > 64.0 * 1048576.0);   /* more than 64 MiB of memory */
    CHECK(before > 256.0 * 1024.0);    /* a running program has at least 256 KiB resident */
    CHECK(before < total);
    block = malloc(n);
    CHECK(block != NULL);
    if (!block) return;
    /* every page touched, through a volatile pointer: a compiler may not drop these stores
     * (clang -O2 removed the whole malloc'd block when the writes were plain) */
    for (i = 0; i < n; i += 512) ((volatile unsigned char *)block)[i] = (unsigned char)i;
    after = p_peak_resident_bytes();
    CHECK_MSG(after >= before + 40.0 * 1048576.0, "peak %.0f bytes after touching 48 MiB, %.0f before", after,
              before);
    free(block);
}

static void test_map_is_zeroed_and_writable(void)
{
    size_t mapped = 0, n = (size_t)5 << 20, i;
    unsigned char *m = p_map(n, &mapped);
#if (defined(_WIN32) || defined(__linux__)) && !defined(BUILT_STRICT_POSIX)
    CHECK(m != NULL); /* VirtualAlloc, mmap: only a build without extensions goes without */
#endif
    if (!m) return;
    CHECK(mapped >= n);
    for (i = 0; i < n; i += 4096) CHECK_MSG(m[i] == 0, "byte %zu of a fresh mapping is %d", i, m[i]);
    m[0] = 1;
    m[n - 1] = 2;
    CHECK(m[0] == 1 && m[n - 1] == 2);
    p_unmap(m, mapped);
}

/* Windows' text mode turns 0x0A into 0x0D 0x0A on the way out and reads 0x1A
 * as the end of the file: a .npy of such bytes must come back bit for bit. */
static void test_binary_files_round_trip(void)
{
    static const uint32_t patterns[] = {0x0A0A0A0Au, 0x0D0A0D0Au, 0x1A1A1A1Au, 0x3F800A0Du, 0x0A0D1A00u, 0x00000A0Au};
    const int n = (int)(sizeof patterns / sizeof patterns[0]);
    Tensor *x = t_zeros(SHAPE(2, n)), *y;
    float *d = t_data(x);
    PFileInfo st;
    unsigned char buf[4096];
    long got, total = 0;
    int fd, i;
    for (i = 0; i < 2 * n; i++) memcpy(&d[i], &patterns[i % n], 4);
    npy_save(in_dir("bytes.npy"), x);
    CHECK(p_stat(in_dir("bytes.npy"), &st) == 0);
    CHECK(st.kind == P_REGULAR);
    CHECK_MSG(st.size == 128.0 + 8.0 * n, "the file has %.0f bytes, want %d", st.size, 128 + 8 * n);
    fd = p_open_read(in_dir("bytes.npy"));
    CHECK(fd >= 0);
    if (fd >= 0) {
        while ((got = p_read(fd, buf + total, sizeof buf - (size_t)total)) > 0) total += got;
        p_close(fd);
    }
    CHECK_EQ_INT(total, 128 + 8 * n);
    CHECK(memcmp(buf + 128, d, (size_t)(8 * n)) == 0);
    y = npy_load(in_dir("bytes.npy"));
    CHECK(memcmp(t_data(y), d, (size_t)(8 * n)) == 0);
}

static void test_files_and_folders(void)
{
    PFileInfo st;
    char *real;
    FILE *f;
    CHECK(p_stat(dir, &st) == 0 && st.kind == P_DIRECTORY);
    CHECK(p_stat(in_dir("none"), &st) != 0 && errno == ENOENT);
    CHECK(p_open_read(in_dir("none")) < 0 && errno == ENOENT);
    /* replacing a file that exists (Windows' rename() refuses to) */
    f = fopen(in_dir("a.txt"), "wb");
    CHECK(f && fputs("a", f) >= 0 && fclose(f) == 0);
    f = fopen(in_dir("b.txt"), "wb");
    CHECK(f && fputs("bb", f) >= 0 && fclose(f) == 0);
    CHECK(p_rename(in_dir("b.txt"), in_dir("a.txt")) == 0);
    CHECK(p_stat(in_dir("a.txt"), &st) == 0 && st.size == 2.0);
    CHECK(p_stat(in_dir("b.txt"), &st) != 0);
    CHECK(p_writable(in_dir("a.txt")) == 0);
    CHECK(p_dir_writable(dir) == 0);
    CHECK(p_mkdir(in_dir("sub")) == 0);
    CHECK(p_mkdir(in_dir("sub")) != 0 && errno == EEXIST);
    CHECK(p_rmdir(in_dir("sub")) == 0);
    real = p_realpath(in_dir("a.txt"));
    CHECK(real != NULL);
    if (real) {
        CHECK_STR_CONTAINS(real, "/a.txt");
        CHECK(strcmp(p_base_name(real), "a.txt") == 0);
        free(real);
    }
    CHECK(strcmp(p_base_name("x/y/z.npy"), "z.npy") == 0);
    CHECK(strcmp(p_base_name("z.npy"), "z.npy") == 0);
#ifdef _WIN32
    CHECK(strcmp(p_base_name("x\\y\\z.npy"), "z.npy") == 0);
#endif
    CHECK(p_name_max(dir) >= 255);
    CHECK(p_unlink(in_dir("a.txt")) == 0);
}

static void test_clocks_go_forward(void)
{
    double t0 = p_seconds(), c0 = p_thread_cpu_seconds(), t1, c1;
    volatile double sink = 0;
    long i;
    for (i = 0; i < 2000000; i++) sink = sink + sqrt((double)i);
    t1 = p_seconds();
    c1 = p_thread_cpu_seconds();
    CHECK(t1 >= t0);
    CHECK(c1 >= c0);
    CHECK(t0 > 0 || c0 >= 0);
}

/* fmaf rounds once (C99 7.12.13.1). MinGW-w64's own rounded twice; the
 * Windows side of platform.c brings one that does not. */
static void test_fmaf_rounds_once(void)
{
    volatile float a = 1.0f + ldexpf(1.0f, -12), m1 = -1.0f;
    uint32_t s = 2463534242u;
    long i, bad = 0;
    /* (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24: a float; rounding the product first loses the 2^-24 */
    CHECK(fmaf(a, a, m1) == ldexpf(1.0f, -11) + ldexpf(1.0f, -24));
    for (i = 0; i < 200000; i++) {
        float x, y, z, got;
        long double want;
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        x = (float)(s >> 8) * ldexpf(1.0f, -20) - 8.0f;
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        y = (float)(s >> 8) * ldexpf(1.0f, -23) - 1.0f;
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        z = (float)(s >> 8) * ldexpf(1.0f, -24) - 0.5f;
        got = fmaf(x, y, z);
        want = (long double)x * (long double)y + (long double)z; /* the product is exact in a long double */
        if (got != (float)want) bad++;
    }
    CHECK_MSG(bad == 0, "fmaf differs from the once-rounded x*y+z in %ld of 200000 cases", bad);
}

int main(void)
{
    const char *build = getenv("BUILD");
    int rc, cleanup;
    snprintf(dir, sizeof dir, "%s/tmp_platform_test.%ld", build && *build ? build : "build", (long)time(NULL) % 100000);
    npy_make_dir(dir);
    RUN(test_memory_the_system_reports);
    RUN(test_map_is_zeroed_and_writable);
    RUN(test_binary_files_round_trip);
    RUN(test_files_and_folders);
    RUN(test_clocks_go_forward);
    RUN(test_fmaf_rounds_once);
    p_unlink(in_dir("bytes.npy"));
    cleanup = p_rmdir(dir);
    if (cleanup != 0) printf("cannot remove %s\n", dir);
    rc = harness_finish("test_common_platform");
    return cleanup != 0 ? 1 : rc;
}
