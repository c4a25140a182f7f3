/* rng.c — PCG32 and Box–Muller: the seeded generator behind t_rand/t_randn. */
#include "rng.h"

#include <math.h>

static Rng global_rng;
static int global_seeded = 0;

void rng_seed(Rng *r, uint64_t seed) {
    /* pcg32_srandom_r(seed, stream 54) from the PCG reference code */
    r->state = 0u;
    r->inc = (54u << 1u) | 1u;
    (void)rng_u32(r);
    r->state += seed;
    (void)rng_u32(r);
    r->has_spare = 0;
    r->spare = 0.0;
}

uint32_t rng_u32(Rng *r) {
    uint64_t old = r->state;
    r->state = old * 6364136223846793005ULL + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

float rng_uniform(Rng *r) {
    return (float)(rng_u32(r) >> 8) * (1.0f / 16777216.0f); /* 24 bits */
}

float rng_uniform_range(Rng *r, float lo, float hi) {
    float v = lo + (hi - lo) * rng_uniform(r);
    return v < hi ? v : lo; /* guard against rounding up to hi */
}

float rng_normal(Rng *r) {
    if (r->has_spare) {
        r->has_spare = 0;
        return (float)r->spare;
    }
    /* u1 in (0, 1] so log(u1) is finite */
    double u1 = ((double)(rng_u32(r) >> 8) + 1.0) / 16777216.0;
    double u2 = (double)(rng_u32(r) >> 8) / 16777216.0;
    double radius = sqrt(-2.0 * log(u1));
    double angle = 6.283185307179586 * u2;
    r->spare = radius * sin(angle);
    r->has_spare = 1;
    return (float)(radius * cos(angle));
}

void t_manual_seed(uint64_t seed) {
    rng_seed(&global_rng, seed);
    global_seeded = 1;
}

Rng *t_default_rng(void) {
    if (!global_seeded) t_manual_seed(123); /* the project's default seed */
    return &global_rng;
}
