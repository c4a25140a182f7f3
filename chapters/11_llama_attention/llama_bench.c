/* llama_bench.c — chapter 11: what the KV cache and grouped-query heads save, timed.
 * Each figure is the best of several runs (a busy machine only makes a run slower).
 * Reading the size of the last-level cache from /sys is Linux's; elsewhere 32 MiB. */
#include <stdio.h>

#include "llama_bench.h"
#include "chapters/08_fast_attention/fast_attention.h"

/* Seconds of the best of `runs` calls of one cached step at position T - 1
 * (the cache holds T - 1 positions before each call). */
static double time_step(const LlamaAttention *m, KVCache *c, const FreqsCis *f, const Tensor *x1, int64_t T,
                        int runs) {
    double best = 1e30;
    for (int r = 0; r < runs; r++) {
        t_scope_begin();
        c->len = T - 1;
        double t0 = stopwatch_seconds();
        llama_attention_step(m, x1, f, c);
        double dt = stopwatch_seconds() - t0;
        best = dt < best ? dt : best;
        t_scope_end();
    }
    return best;
}

/* The same token's output without a cache: the whole prefix again, through the same
 * code (a fresh cache, all T positions at once), as generate() without a cache does. */
static double time_recompute(const LlamaAttention *m, const FreqsCis *f, const Tensor *x, int runs) {
    double best = 1e30;
    int64_t T = t_size(x, 1);
    for (int r = 0; r < runs; r++) {
        t_scope_begin();
        KVCache *c = kv_cache_new(1, m->n_local_kv_heads, T, m->head_dim);
        double t0 = stopwatch_seconds();
        llama_attention_step(m, x, f, c);
        double dt = stopwatch_seconds() - t0;
        best = dt < best ? dt : best;
        t_scope_end();
    }
    return best;
}

static LlamaAttention *bench_module(int64_t dim, int64_t n_heads, int64_t n_kv_heads, int64_t L) {
    ModelConfig a = {dim, n_heads, n_kv_heads, L, 0.0};
    LlamaAttention *m = llama_attention_new(a);
    llama_attention_eval(m);
    return m;
}

static void cached_vs_recompute(void) {
    printf("cached decode step vs recomputing the prefix (dim 256, 8 heads, 8 kv heads, batch 1)\n");
    printf("     T   cached step   recompute   ratio   ratio / T\n");
    static const int64_t Ts[] = {32, 128, 512};
    LlamaAttention *m = bench_module(256, 8, 8, 512);
    FreqsCis f = precompute_freqs_cis(m->head_dim, 512, 10000.0);
    for (int i = 0; i < 3; i++) {
        int64_t T = Ts[i];
        Tensor *x = t_rand(SHAPE(1, T, 256));
        KVCache *c = kv_cache_new(1, 8, T, m->head_dim);
        llama_attention_step(m, t_slice(x, 1, 0, T - 1), &f, c);   /* prefill T - 1 positions */
        double step = time_step(m, c, &f, t_slice(x, 1, T - 1, T), T, 20);
        double full = time_recompute(m, &f, x, 5);
        printf("%6lld   %8.3f ms   %8.3f ms  %6.1fx   %5.2f\n", (long long)T, 1e3 * step, 1e3 * full, full / step,
               full / step / (double)T);
    }
}

/* The attention part of one cached step (kv_cache_attend: the part that reads the
 * cache) at a cache of T positions: seconds, best of 5; *bytes gets the cache's size. */
static double long_attend(int64_t n_heads, int64_t n_kv_heads, int64_t hd, int64_t T, double *bytes) {
    t_scope_begin();
    KVCache *c = kv_cache_new(1, n_kv_heads, T, hd);
    float *k = t_data(c->k), *v = t_data(c->v);
    for (int64_t i = 0; i < t_numel(c->k); i++) k[i] = v[i] = (float)((i * 7919) % 1000) * 1e-3f;  /* any numbers */
    c->len = T;
    Tensor *xq = t_rand(SHAPE(1, 1, n_heads, hd));
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        t_scope_begin();
        double t0 = stopwatch_seconds();
        kv_cache_attend(c, xq);
        double dt = stopwatch_seconds() - t0;
        best = dt < best ? dt : best;
        t_scope_end();
    }
    *bytes = kv_cache_bytes(1, 1, (double)n_kv_heads, (double)T, (double)hd, 4);
    t_scope_end();
    return best;
}

double triad_bandwidth(int64_t n) {
    float *a = (float *)t_alloc(sizeof(float) * (size_t)n), *b = (float *)t_alloc(sizeof(float) * (size_t)n);
    float *c = (float *)t_alloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) b[i] = 1.0f, c[i] = 2.0f;
    double best = 1e30;
    for (int r = 0; r < 10; r++) {
        double t0 = stopwatch_seconds();
        for (int64_t i = 0; i < n; i++) a[i] = b[i] + 3.0f * c[i];
        double dt = stopwatch_seconds() - t0;
        best = dt < best ? dt : best;
    }
    volatile float sink = a[n / 2];
    (void)sink;
    return 12.0 * (double)n / best;
}

static double last_level_cache_bytes(void) {
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    long kib = 0;
    if (f) {
        if (fscanf(f, "%ldK", &kib) != 1) kib = 0;
        fclose(f);
    }
    return kib > 0 ? 1024.0 * (double)kib : 32.0 * 1024 * 1024;
}

void llama_bench(void) {
    char b1[32], b2[32];
    t_manual_seed(11);
    cached_vs_recompute();

    double llc = last_level_cache_bytes();
    int64_t H = 32, hd = 128;
    int64_t T = (int64_t)(4.0 * llc / (2.0 * H * hd * 4));    /* MHA's k and v: 4 x the last-level cache */
    printf("\nthe attention of one cached step at T = %lld (32 heads of 128, batch 1)\n", (long long)T);
    double bytes_mha, bytes_gqa, bytes_mqa;
    double mha = long_attend(H, H, hd, T, &bytes_mha);
    double gqa = long_attend(H, 4, hd, T, &bytes_gqa);
    double mqa = long_attend(H, 1, hd, T, &bytes_mqa);
    printf("  MHA (32 kv heads, cache %s): %8.3f ms\n", t_format_bytes(bytes_mha, b1, 32), 1e3 * mha);
    printf("  GQA ( 4 kv heads, cache %s): %8.3f ms   MHA / GQA = %.1fx (n_heads / n_kv_heads = 8)\n",
           t_format_bytes(bytes_gqa, b1, 32), 1e3 * gqa, mha / gqa);
    printf("  MQA ( 1 kv head,  cache %s): %8.3f ms   MHA / MQA = %.1fx (32)\n", t_format_bytes(bytes_mqa, b1, 32),
           1e3 * mqa, mha / mqa);

    t_scope_begin();
    double bw = triad_bandwidth((int64_t)llc);                 /* 3 arrays of llc floats: 4 x llc bytes each */
    t_scope_end();
    double step_bw = bytes_mha / mha;
    printf("\nmemory bandwidth, STREAM-like triad a = b + s * c (3 arrays of %s): %.1f GB/s\n",
           t_format_bytes(4.0 * llc, b2, 32), bw / 1e9);
    printf("the MHA step reads its cache (%s, 4 x the last-level cache of %s) at %.1f GB/s: %.0f%% of the triad\n",
           t_format_bytes(bytes_mha, b1, 32), t_format_bytes(llc, b2, 32), step_bw / 1e9, 100.0 * step_bw / bw);
}
