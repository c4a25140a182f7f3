/* llama_bench.h — chapter 11's measurements (build/chapter11 --bench, make bench-chapter11):
 * printed, never asserted. */
#ifndef CH11_LLAMA_BENCH_H
#define CH11_LLAMA_BENCH_H

#include "llama_setup.h"

/* In one run: a cached decode step against recomputing the prefix as T grows;
 * GQA against MHA at a long cache; the cached step at a cache 4x the last-level
 * cache against this machine's memory bandwidth (a STREAM-like triad). */
void llama_bench(void);
/* a[i] = b[i] + s * c[i] over n floats (STREAM's triad): bytes moved per second
 * (STREAM counts 3 x 4 x n), best of 10; the arrays in the current scope. */
double triad_bandwidth(int64_t n);

#endif
