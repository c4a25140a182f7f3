/* bench_lib.c — chapter 11's decode step in the bench library, for make bench-chapter11.
 *
 * scripts/bench_ch11.py loads build/libattn_bench.so with ctypes and races these
 * against a PyTorch decode loop in ONE process, round by round, on the same weights
 * and tokens:
 *
 *     bench11_setup(dim, n_heads, n_kv_heads, max_seq_len, wq, wk, wv, wo)
 *                          the module from these nn.Linear weights (float32,
 *                          row-major), eval mode, the book's freqs tables and a
 *                          cache of max_seq_len positions at batch 1, all kept
 *     bench11_decode(steps, x, out, &wall)
 *                          the cache emptied, then steps tokens x (steps, dim)
 *                          decoded one at a time through llama_decode_step; wall
 *                          seconds of the loop; each output row copied to out
 *                          (steps, dim) after the clock stops (out may be NULL)
 *     bench11_triad(n)     bytes per second of a[i] = b[i] + s * c[i] over n
 *                          floats (llama_bench's triad), best of 10
 *
 * Errors come back as status 1 with the sentence in bench11_last_error(), never as an
 * exit of the Python process.
 */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "common/program/program.h"
#include "chapters/08_fast_attention/fast_attention.h"
#include "chapters/11_llama_attention/fast_decode.h"
#include "chapters/11_llama_attention/llama_bench.h"

static LlamaAttention *module;
static FreqsCis freqs;
static KVCache *cache;
static int have_module;
static jmp_buf on_error;
static char last_error[512];

static void error_hook(const char *message) {
    snprintf(last_error, sizeof last_error, "%s", message);
    longjmp(on_error, 1);
}

const char *bench11_last_error(void) { return last_error; }

static int failed(int depth, t_error_hook old) {
    t_scope_end_to(depth);
    t_set_error_hook(old);
    return 1;
}

int bench11_setup(int64_t dim, int64_t n_heads, int64_t n_kv_heads, int64_t max_seq_len, const float *wq,
                  const float *wk, const float *wv, const float *wo) {
    if (have_module) t_scope_end();
    have_module = 0;
    t_error_hook old = t_set_error_hook(error_hook);
    int depth = t_scope_depth();
    if (setjmp(on_error)) return failed(depth, old);
    t_scope_begin();
    ModelConfig a = {dim, n_heads, n_kv_heads, max_seq_len, 0.0};
    check_model_config(&a);
    int64_t hd = dim / n_heads;
    module = llama_attention_from(a, t_from_array(SHAPE(n_heads * hd, dim), wq),
                                  t_from_array(SHAPE(n_kv_heads * hd, dim), wk),
                                  t_from_array(SHAPE(n_kv_heads * hd, dim), wv),
                                  t_from_array(SHAPE(dim, n_heads * hd), wo));
    llama_attention_eval(module);
    freqs = precompute_freqs_cis(hd, max_seq_len, 10000.0);
    cache = kv_cache_new(1, n_kv_heads, max_seq_len, hd);
    have_module = 1;
    t_set_error_hook(old);
    return 0;
}

int bench11_decode(int64_t steps, const float *x, float *out, double *wall) {
    if (!have_module) {
        snprintf(last_error, sizeof last_error, "bench11_decode: no module (bench11_setup first)");
        return 1;
    }
    t_error_hook old = t_set_error_hook(error_hook);
    int depth = t_scope_depth();
    if (setjmp(on_error)) return failed(depth, old);
    int64_t dim = module->args.dim;
    t_scope_begin();
    Tensor *ys = t_zeros(SHAPE(steps, dim));   /* the outputs, kept apart from the clock */
    cache->len = 0;
    double w0 = stopwatch_seconds();
    for (int64_t t = 0; t < steps; t++) {
        t_scope_begin();
        Tensor *x1 = t_from_array(SHAPE(1, 1, dim), x + t * dim);
        Tensor *y = llama_decode_step(module, x1, &freqs, cache);   /* (1, 1, dim) */
        memcpy(t_data(ys) + t * dim, t_data(y), sizeof(float) * (size_t)dim);
        t_scope_end();
    }
    *wall = stopwatch_seconds() - w0;
    if (out) memcpy(out, t_data(ys), sizeof(float) * (size_t)(steps * dim));
    t_scope_end();
    t_set_error_hook(old);
    return 0;
}

double bench11_triad(int64_t n) {
    t_scope_begin();
    double bw = triad_bandwidth(n);
    t_scope_end();
    return bw;
}
