/* bench_lib.c — chapter 12's flash backward in the bench library, for
 * make bench-chapter12-torch.
 *
 * scripts/bench_ch12.py loads build/libattn_bench.so (chapter 8's bench_lib.c
 * is in it too) with ctypes and races these against PyTorch's autograd in ONE
 * process, round by round on the same inputs:
 *
 *     bench12_set_inputs(B, H, T, d, q, k, v, dout)
 *                          copy (B, H, T, d) float32 arrays in: query, key,
 *                          value and grad_output (T == S, d_k == d_v == d)
 *     bench12_forward(causal, &cpu, &wall)
 *                          one call of chapter 8's flash with its logsumexp
 *                          (flash_forward), freed after it
 *     bench12_backward(causal, gq, gk, gv, &cpu, &wall, &peak, &scratch)
 *                          one call of attention_backward_flash: this
 *                          thread's CPU seconds, wall seconds, the most the
 *                          call held at once beyond what was live before it
 *                          (the three gradients and its scratch, counted by
 *                          t_peak_bytes), and its scratch alone
 *                          (flash_backward_scratch_bytes); the gradients
 *                          copied to gq, gk, gv (each may be NULL)
 *
 * The backward reads the forward's output and lse: the first bench12_backward
 * after bench12_set_inputs (or with the other causal) computes them, untimed,
 * and keeps them until the next bench12_set_inputs. Scopes nest: inputs, then
 * that forward, then each call's own, ended before it returns. Errors come back
 * as status 1 with the sentence in bench12_last_error(), never as an exit of
 * the Python process. Do not interleave with chapter 8's bench_set_inputs and
 * bench_call: each keeps its inputs in a scope of its own.
 */
#include <setjmp.h>
#include <string.h>

#include "common/program/program.h"
#include "chapters/12_flash_backward/flash_backward.h"

static Tensor *q_in, *k_in, *v_in, *dout_in;
static Tensor *out_kept, *lse_kept; /* flash_forward of the inputs, for kept_causal */
static int have_inputs, kept_causal = -1;
static jmp_buf on_error;
static char last_error[512];

static void error_hook(const char *message) {
    snprintf(last_error, sizeof last_error, "%s", message);
    longjmp(on_error, 1);
}

const char *bench12_last_error(void) { return last_error; }

static void drop_forward(void) {
    if (kept_causal >= 0) t_scope_end();
    kept_causal = -1;
}

int bench12_set_inputs(int64_t B, int64_t H, int64_t T, int64_t d, const float *q, const float *k, const float *v,
                       const float *dout) {
    drop_forward();
    if (have_inputs) t_scope_end();
    t_scope_begin();
    Shape s = SHAPE(B, H, T, d);
    q_in = t_from_array(s, q), k_in = t_from_array(s, k), v_in = t_from_array(s, v);
    dout_in = t_from_array(s, dout);
    have_inputs = 1;
    return 0;
}

/* An error sentence after setjmp(on_error): back to the scopes as they were at
 * depth, the old hook back, status 1. */
static int failed(int depth, t_error_hook old) {
    t_scope_end_to(depth);
    t_set_error_hook(old);
    return 1;
}

static int need_inputs(const char *who) {
    if (have_inputs) return 1;
    snprintf(last_error, sizeof last_error, "%s: no inputs (bench12_set_inputs first)", who);
    return 0;
}

int bench12_forward(int causal, double *cpu, double *wall) {
    if (!need_inputs("bench12_forward")) return 1;
    t_error_hook old = t_set_error_hook(error_hook);
    int depth = t_scope_depth();
    if (setjmp(on_error)) return failed(depth, old);
    t_scope_begin();
    Tensor *lse = NULL;
    double c0 = thread_cpu_seconds(), w0 = stopwatch_seconds();
    flash_forward(q_in, k_in, v_in, causal != 0, &lse);
    *wall = stopwatch_seconds() - w0;
    *cpu = thread_cpu_seconds() - c0;
    t_scope_end();
    t_set_error_hook(old);
    return 0;
}

static void copy_out(float *to, const Tensor *t) {
    if (to && t_numel(t) > 0) memcpy(to, t_data(t), (size_t)t_numel(t) * sizeof(float));
}

int bench12_backward(int causal, float *gq, float *gk, float *gv, double *cpu, double *wall, double *peak,
                     double *scratch) {
    if (!need_inputs("bench12_backward")) return 1;
    t_error_hook old = t_set_error_hook(error_hook);
    if (kept_causal != (causal != 0)) {
        drop_forward();
        int outer = t_scope_depth();
        if (setjmp(on_error)) return failed(outer, old);
        t_scope_begin(); /* the kept forward's scope: ended by drop_forward */
        out_kept = flash_forward(q_in, k_in, v_in, causal != 0, &lse_kept);
        kept_causal = causal != 0;
    }
    int depth = t_scope_depth();
    if (setjmp(on_error)) return failed(depth, old);
    t_scope_begin();
    size_t peak_before = t_peak_bytes(), live_before = t_live_bytes();
    t_restore_peak_bytes(live_before);
    double c0 = thread_cpu_seconds(), w0 = stopwatch_seconds();
    AttnGrads g = attention_backward_flash(q_in, k_in, v_in, out_kept, lse_kept, dout_in, causal != 0);
    *wall = stopwatch_seconds() - w0;
    *cpu = thread_cpu_seconds() - c0;
    size_t most = t_peak_bytes();
    *peak = (double)(most - live_before);
    t_restore_peak_bytes(most > peak_before ? most : peak_before);
    *scratch = (double)flash_backward_scratch_bytes();
    copy_out(gq, g.grad_q);
    copy_out(gk, g.grad_k);
    copy_out(gv, g.grad_v);
    t_scope_end();
    t_set_error_hook(old);
    return 0;
}
