/* harness.c — runs tests, counts failures, catches t_error() for CHECK_ERROR. */
#include "harness.h"
#include "common/program/out.h"
#include "relation.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int tests_passed = 0, tests_failed = 0;
static int current_failures = 0;
static const char *current_test = "";
jmp_buf *harness_expect_jmp = NULL;   /* set inside CHECK_ERROR        */
static jmp_buf *test_jmp = NULL;      /* set around each test body     */

static void harness_hook(const char *message) {
    (void)message;
    if (harness_expect_jmp) longjmp(*harness_expect_jmp, 1);
    if (test_jmp) longjmp(*test_jmp, 1);
}

void harness_fail(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s:%d: %s: ", file, line, current_test);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    current_failures++;
}

jmp_buf *harness_push_expect(jmp_buf *jb) {
    jmp_buf *saved = harness_expect_jmp;
    harness_expect_jmp = jb;
    return saved;
}

void harness_pop_expect(jmp_buf *saved, int depth) {
    harness_expect_jmp = saved;
    t_scope_end_to(depth);
}

void harness_check_error(const char *file, int line, bool raised, const char *stmt, const char *want) {
    if (!raised) {
        harness_fail(file, line, "expected an error containing \"%s\" from `%s`, but it returned normally",
                     want, stmt);
    } else if (!strstr(t_last_error(), want)) {
        harness_fail(file, line, "error from `%s` was \"%s\", expected it to contain \"%s\"", stmt,
                     t_last_error(), want);
    }
}

static int close_enough(double x, double y, double rtol, double atol) {
    if (x == y) return 1; /* includes equal infinities */
    if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
    return fabs(x - y) <= atol + rtol * fabs(y);
}

/* What A (got) is to B (expected), when it is simple, as a sentence into BUF ("" when none):
 * the grader's own words (tests/relation.h: a constant factor, NaN, a shifted or
 * mirrored mask, the transpose, rows or columns summing to 1, heads in another order, the
 * right numbers in other places), with the test's tolerance. */
static void relation(const Tensor *a, const Tensor *b, double rtol, double atol, char *buf, size_t cap) {
    RelText o = {buf, cap, 0, 0, rtol, atol};
    RelTensor got = {0, {0}, NULL, 0}, want = {0, {0}, NULL, 0};
    int64_t n = t_numel(a);
    buf[0] = 0;
    if (a->ndim > 8 || n <= 0) return;
    got.v = malloc((size_t)n * sizeof *got.v);
    want.v = malloc((size_t)n * sizeof *want.v);
    if (got.v && want.v) {
        got.nd = want.nd = a->ndim;
        got.n = want.n = (size_t)n;
        for (int d = 0; d < a->ndim; d++) got.dims[d] = want.dims[d] = (long)a->shape[d];
        for (int64_t i = 0; i < n; i++) {
            got.v[i] = t_flat_get(a, i);
            want.v[i] = t_flat_get(b, i);
        }
        rel_relation(&o, &want, &got);
    }
    free(got.v);
    free(want.v);
}

void harness_check_tensor_close(const char *file, int line, const char *expr, const Tensor *a,
                                const Tensor *b, double rtol, double atol) {
    char as[T_SHAPE_STR], bs[T_SHAPE_STR];
    if (!t_same_shape(a, b)) {
        harness_fail(file, line, "%s has shape %s, expected %s", expr, t_shape_str(a, as), t_shape_str(b, bs));
        return;
    }
    int64_t n = t_numel(a);
    for (int64_t i = 0; i < n; i++) {
        if (close_enough(t_flat_get(a, i), t_flat_get(b, i), rtol, atol)) continue;
        /* the first wrong element: where (row, col, batch, head), a few values side by side,
         * what the whole tensor is to the expected, and for a small matrix a map of the
         * elements that differ */
        char where[96] = "", side[160], rel[200];
        int nd = a->ndim;
        RelText wt = {where, sizeof where, 0, 0, rtol, atol};
        RelTensor shape = {nd < 1 || nd > 8 ? 1 : nd, {0}, NULL, (size_t)n};
        for (int d = 0; d < shape.nd; d++) shape.dims[d] = nd < 1 || nd > 8 ? (long)n : (long)a->shape[d];
        rel_where(&wt, &shape, (size_t)i);   /* "row 1, col 2 (batch 0, head 1)", as the grader says it */
        int64_t C = nd >= 1 ? a->shape[nd - 1] : 1, from = i - i % (C ? C : 1), to = from + 3;
        if (i >= to) from = i, to = i + 3;
        if (to > from + C) to = from + C;
        if (to > n) to = n;
        size_t k = (size_t)snprintf(side, sizeof side, "yours");
        for (int64_t j = from; j < to && k < sizeof side; j++) k += (size_t)snprintf(side + k, sizeof side - k, " %.6g", (double)t_flat_get(a, j));
        if (k < sizeof side) k += (size_t)snprintf(side + k, sizeof side - k, ", expected");
        for (int64_t j = from; j < to && k < sizeof side; j++) k += (size_t)snprintf(side + k, sizeof side - k, " %.6g", (double)t_flat_get(b, j));
        relation(a, b, rtol, atol, rel, sizeof rel);
        harness_fail(file, line, "%s %s first differs at %s, %s (rtol %g, atol %g).%s", expr, t_shape_str(a, as), where, side,
                     rtol, atol, rel);
        if (nd >= 2 && a->shape[nd - 2] <= 16 && C <= 16) {   /* the map of its matrix: . agrees, # differs, N NaN */
            int64_t R = a->shape[nd - 2], m0 = i - i % (R * C);
            fprintf(stderr, "    where it differs (. agrees, # differs, N is NaN):\n");
            for (int64_t r = 0; r < R; r++) {
                fprintf(stderr, "    ");
                for (int64_t c = 0; c < C; c++) {
                    double x = t_flat_get(a, m0 + r * C + c), y = t_flat_get(b, m0 + r * C + c);
                    fputc(close_enough(x, y, rtol, atol) ? '.' : isnan(x) ? 'N' : '#', stderr);
                }
                fputc('\n', stderr);
            }
        }
        return;
    }
}

static int started = 0; /* the first test sets up npy_save */

static int tests_skipped = 0;

void harness_skip(const char *name, const char *why) {
    printf("SKIP: %s: %s\n", name, why);
    tests_skipped++;
}

void harness_run(const char *name, void (*fn)(void)) {
    jmp_buf jb;
    if (!started) {
        out_use_for_npy(); /* npy_save as the programs do it: all or nothing (out.h) */
        started = 1;
    }
    current_test = name;
    current_failures = 0;
    int depth = t_scope_depth();
    t_error_hook old = t_set_error_hook(harness_hook);
    test_jmp = &jb;
    t_scope_begin();
    if (setjmp(jb) == 0) {
        fn();
    } else {
        harness_fail(__FILE__, __LINE__, "unexpected error: %s", t_last_error());
    }
    test_jmp = NULL;
    harness_expect_jmp = NULL;
    t_scope_end_to(depth);
    t_set_error_hook(old);
    if (current_failures) tests_failed++;
    else tests_passed++;
}

int harness_finish(const char *suite) {
    fflush(stdout);
    if (tests_skipped) printf("%s: %d passed, %d failed, %d skipped\n", suite, tests_passed, tests_failed, tests_skipped);
    else printf("%s: %d passed, %d failed\n", suite, tests_passed, tests_failed);
    return tests_failed ? 1 : 0;
}

const char *fixture_path(const char *rel) {
    static char buf[1024];
    const char *dir = getenv("FIXTURES");
    snprintf(buf, sizeof buf, "%s/%s", dir && *dir ? dir : "tests/fixtures", rel);
    return buf;
}

Tensor *load_fixture(const char *rel) { return npy_load(fixture_path(rel)); }
