/* bench_lib.c — chapter 8's five versions as a shared library, for make bench-torch.
 *
 * scripts/bench_torch.py loads build/libattn_bench.so with ctypes and races these
 * against PyTorch in ONE process, round by round on the same inputs:
 *
 *     bench_set_inputs(B, H, T, d, q, k, v)   copy (B, H, T, d) float32 arrays in
 *     bench_call(impl, causal, out, &cpu, &wall, &extra)
 *                                             one call of fast_attention: this
 *                                             thread's CPU seconds, wall seconds,
 *                                             the extra bytes it allocated; the
 *                                             output copied to out (may be NULL)
 *     bench_set_threads(n)                    threads for flash (built with OpenMP)
 *
 * The library is built with OpenMP so that the same process can time flash on one
 * thread and on two; bench_set_threads(1) is the default. Errors (a version whose
 * scores would not fit) come back as exit status 1 of bench_call with the sentence
 * in bench_last_error(), never as an exit of the Python process.
 */
#include <setjmp.h>
#include <string.h>

#include "common/program/program.h"
#include "chapters/08_fast_attention/fast_attention.h"

static Tensor *q_in, *k_in, *v_in;
static int have_inputs;
static jmp_buf on_error;
static char last_error[512];

static void error_hook(const char *message) {
    snprintf(last_error, sizeof last_error, "%s", message);
    longjmp(on_error, 1);
}

const char *bench_last_error(void) { return last_error; }

int bench_n_impls(void) { return ATTN_N_IMPLS; }

const char *bench_impl_name(int impl) { return attn_impl_name((AttnImpl)impl); }

int bench_stores_scores(int impl) { return attn_impl_stores_scores((AttnImpl)impl); }

double bench_scores_budget(void) { return (double)attention_scores_budget(); }

void bench_set_threads(int n) { attention_set_threads(n); }

int bench_threads(void) { return attention_threads(); }

double bench_fma_peak(double seconds) { return fma_peak_gflops(seconds); }

double bench_thread_cpu(void) { return thread_cpu_seconds(); }

int bench_set_inputs(int64_t B, int64_t H, int64_t T, int64_t d, const float *q, const float *k, const float *v) {
    if (have_inputs) t_scope_end();
    t_scope_begin();
    Shape s = SHAPE(B, H, T, d);
    q_in = t_from_array(s, q), k_in = t_from_array(s, k), v_in = t_from_array(s, v);
    have_inputs = 1;
    return 0;
}

int bench_call(int impl, int causal, float *out, double *cpu, double *wall, double *extra) {
    if (!have_inputs) {
        snprintf(last_error, sizeof last_error, "bench_call: no inputs (bench_set_inputs first)");
        return 1;
    }
    t_error_hook old = t_set_error_hook(error_hook);
    t_scope_begin();
    if (setjmp(on_error)) {
        t_scope_end();
        t_set_error_hook(old);
        return 1;
    }
    double c0 = thread_cpu_seconds(), w0 = stopwatch_seconds();
    Tensor *o = fast_attention((AttnImpl)impl, q_in, k_in, v_in, causal != 0);
    *wall = stopwatch_seconds() - w0;
    *cpu = thread_cpu_seconds() - c0;
    *extra = (double)attention_scratch_bytes();
    if (out && t_numel(o) > 0) memcpy(out, t_data(o), (size_t)t_numel(o) * sizeof(float));
    t_scope_end();
    t_set_error_hook(old);
    return 0;
}
