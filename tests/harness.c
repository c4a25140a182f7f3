/* harness.c — runs tests, counts failures, catches t_error() for CHECK_ERROR. */
#include "harness.h"
#include "common/program/out.h"

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

void harness_check_tensor_close(const char *file, int line, const char *expr, const Tensor *a,
                                const Tensor *b, double rtol, double atol) {
    char as[T_SHAPE_STR], bs[T_SHAPE_STR];
    if (!t_same_shape(a, b)) {
        harness_fail(file, line, "%s has shape %s, expected %s", expr, t_shape_str(a, as), t_shape_str(b, bs));
        return;
    }
    int64_t n = t_numel(a);
    for (int64_t i = 0; i < n; i++) {
        float x = t_flat_get(a, i), y = t_flat_get(b, i);
        int ok;
        if (x == y) ok = 1; /* includes equal infinities */
        else if (isnan(x) || isnan(y)) ok = isnan(x) && isnan(y);
        else ok = fabs((double)x - (double)y) <= atol + rtol * fabs((double)y);
        if (!ok) {
            harness_fail(file, line, "%s: element %lld is %.8g, expected %.8g (rtol %g, atol %g)", expr,
                         (long long)i, (double)x, (double)y, rtol, atol);
            return;
        }
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
