/* harness.h — a tiny test harness whose checks can fail.
 *
 *     static void test_softmax_rows_sum_to_one(void) {
 *         Tensor *w = t_softmax(t_randn(SHAPE(4, 7)), -1);
 *         CHECK_CLOSE(t_sum_all(w), 4.0, 1e-5);
 *     }
 *     int main(void) {
 *         RUN(test_softmax_rows_sum_to_one);
 *         return harness_finish("test_common");
 *     }
 *
 * Each RUN is one test, run inside its own scope (tensors are freed after
 * it) with the error hook set, so an unexpected t_error() fails that test
 * with its sentence instead of exiting. A failing check prints
 * "file:line: what" and the test goes on. harness_finish() prints
 * "<name>: N passed, M failed" and returns non-zero when M > 0.
 * CHECK_ERROR(stmt, "substring") runs stmt and requires that it raises an
 * error whose sentence contains the substring.
 */
#ifndef TESTS_HARNESS_H
#define TESTS_HARNESS_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/torch.h"

void harness_run(const char *name, void (*fn)(void));
int  harness_finish(const char *suite);
void harness_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Used by CHECK_ERROR; not for direct use. */
extern jmp_buf *harness_expect_jmp;
jmp_buf *harness_push_expect(jmp_buf *jb);
void harness_pop_expect(jmp_buf *saved, int depth);
void harness_check_error(const char *file, int line, bool raised,
                         const char *stmt, const char *want);

/* Directory holding the fixtures ("tests/fixtures" unless FIXTURES is set). */
const char *fixture_path(const char *rel);   /* static buffer */
Tensor *load_fixture(const char *rel);       /* npy_load(fixture_path(rel)) */

#define RUN(fn) harness_run(#fn, fn)
/* A test this system cannot run (a POSIX pipe on Windows): named, counted as skipped. */
void harness_skip(const char *name, const char *why);
#ifdef _WIN32
#define RUN_POSIX(fn) harness_skip(#fn, "needs POSIX (pipes, sockets, symbolic links), not on Windows")
#else
#define RUN_POSIX(fn) RUN(fn)
#endif

#define CHECK(cond)                                                       \
    do {                                                                  \
        if (!(cond)) harness_fail(__FILE__, __LINE__, "CHECK(%s) is false", #cond); \
    } while (0)

#define CHECK_MSG(cond, ...)                                              \
    do {                                                                  \
        if (!(cond)) harness_fail(__FILE__, __LINE__, __VA_ARGS__);       \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                \
    do {                                                                  \
        long long a_ = (long long)(a), b_ = (long long)(b);               \
        if (a_ != b_)                                                     \
            harness_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", \
                         #a, a_, #b, b_);                                 \
    } while (0)

/* |a - b| <= tol, with NaN never close. */
#define CHECK_CLOSE(a, b, tol)                                            \
    do {                                                                  \
        double a_ = (double)(a), b_ = (double)(b);                        \
        if (!(a_ - b_ <= (tol) && b_ - a_ <= (tol)))                      \
            harness_fail(__FILE__, __LINE__, "%s = %.8g, expected %.8g (tol %g)", \
                         #a, a_, b_, (double)(tol));                      \
    } while (0)

/* Tensors of equal shape with |a - b| <= atol + rtol * |b| (torch.allclose). */
#define CHECK_TENSOR_CLOSE(a, b, rtol, atol)                              \
    harness_check_tensor_close(__FILE__, __LINE__, #a, (a), (b), (rtol), (atol))
void harness_check_tensor_close(const char *file, int line, const char *expr,
                                const Tensor *a, const Tensor *b,
                                double rtol, double atol);

#define CHECK_STR_CONTAINS(hay, needle)                                   \
    do {                                                                  \
        const char *h_ = (hay), *n_ = (needle);                           \
        if (!h_ || !strstr(h_, n_))                                       \
            harness_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", \
                         h_ ? h_ : "(null)", n_);                         \
    } while (0)

#define CHECK_ERROR(stmt, want)                                           \
    do {                                                                  \
        jmp_buf jb_;                                                      \
        int depth_ = t_scope_depth();                                     \
        jmp_buf *saved_ = harness_push_expect(&jb_);                      \
        volatile bool raised_ = false;                                           \
        if (setjmp(jb_) == 0) {                                           \
            stmt;                                                         \
        } else {                                                          \
            raised_ = true;                                               \
        }                                                                 \
        harness_pop_expect(saved_, depth_);                               \
        harness_check_error(__FILE__, __LINE__, raised_, #stmt, (want));  \
    } while (0)

#endif
