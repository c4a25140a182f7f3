/* measure.c — chapter 8: two clocks and this core's ceiling.
 *
 * The clocks are the system's, not C99's: common/platform.h has them
 * (clock_gettime on POSIX, QueryPerformanceCounter and GetThreadTimes on Windows).
 */
#include "common/platform.h"
#include "fast_attention.h"

double stopwatch_seconds(void) { return p_seconds(); }

double thread_cpu_seconds(void) { return p_thread_cpu_seconds(); }

/* Independent accumulators, enough fused multiply-adds in flight to cover their latency
 * (4 cycles) on two pipes, and few enough to stay in the vector registers of the unit
 * the compiler targets (its own macros, as fast_attention.c picks its register tile).
 * Sums that do not fit are loaded and stored every step, and the loop then measures
 * the loads and stores, not the FMA pipes (256 floats on AVX2 are 32 ymm registers
 * of 16: the ceiling read about half the true one):
 *   AVX-512       256 floats: 16 of the 32 zmm registers (16 floats each)
 *   AVX2 + FMA     96 floats: 12 of the 16 ymm registers (8 floats each)
 *   NEON (ARM64)   64 floats: 16 of the 32 q registers (4 floats each)
 *   anything else  64 floats
 * Each step is acc = acc·a + b with a just below 1, so the values stay finite however
 * long it runs. */
#if defined(__AVX512F__)
#define PEAK_ACC 256
#elif defined(__AVX2__) && defined(__FMA__)
#define PEAK_ACC 96
#else
#define PEAK_ACC 64
#endif

int fma_peak_accumulators(void) { return PEAK_ACC; }

static float fma_loop(long steps, float a, float b, float *acc) {
    for (long s = 0; s < steps; s++)
        for (int c = 0; c < PEAK_ACC; c++) acc[c] = fmaf(acc[c], a, b);
    float sum = 0.0f;
    for (int c = 0; c < PEAK_ACC; c++) sum += acc[c];
    return sum;
}

/* The best of 8 runs of about seconds/8 each, timed by this thread's CPU time: a
 * busy machine (other programs, or a virtual machine's host taking the core away)
 * only makes a run look slower, never faster, so the best run is the ceiling. */
double fma_peak_gflops(double seconds) {
    float acc[PEAK_ACC];
    volatile float sink = 0.0f; /* so the loop is not optimised away */
    long steps = 1 << 14;
    double best = 0.0;
    for (int c = 0; c < PEAK_ACC; c++) acc[c] = (float)c / PEAK_ACC;
    /* grow the run until it takes a measurable time */
    for (;;) {
        double t0 = thread_cpu_seconds();
        sink = sink + fma_loop(steps, 0.999999f, 1e-7f, acc);
        double dt = thread_cpu_seconds() - t0;
        if (dt > seconds / 16 || steps > (1L << 30)) break;
        steps *= 2;
    }
    for (int run = 0; run < 8; run++) {
        double t0 = thread_cpu_seconds();
        sink = sink + fma_loop(steps, 0.999999f, 1e-7f, acc);
        double dt = thread_cpu_seconds() - t0;
        double gflops = 2.0 * PEAK_ACC * (double)steps / dt / 1e9;
        if (gflops > best) best = gflops;
    }
    (void)sink;
    return best;
}
