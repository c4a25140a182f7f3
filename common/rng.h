/* rng.h — the one random number generator of the project (torch.manual_seed).
 *
 * PCG32 (O'Neill 2014, "PCG-XSH-RR", 64-bit state, 32-bit output) seeded by
 * t_manual_seed(seed); uniform floats are the top 24 bits / 2^24, normals are
 * Box–Muller pairs. The same seed gives the same numbers on every machine and
 * compiler, so every run of a chapter is repeatable. It is *not* PyTorch's
 * generator (Mersenne Twister + its own transforms): `--seed 123` gives
 * different numbers from torch.manual_seed(123). Tests that compare with
 * PyTorch therefore read inputs from fixtures instead of regenerating them.
 */
#ifndef COMMON_RNG_H
#define COMMON_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t state;
    uint64_t inc;
    int has_spare;      /* Box–Muller makes two normals at a time */
    double spare;
} Rng;

/* The global generator used by t_rand/t_randn, nn init and dropout. */
void     t_manual_seed(uint64_t seed);
Rng     *t_default_rng(void);

void     rng_seed(Rng *r, uint64_t seed);
uint32_t rng_u32(Rng *r);
float    rng_uniform(Rng *r);               /* [0, 1)            */
float    rng_uniform_range(Rng *r, float lo, float hi);  /* [lo, hi) */
float    rng_normal(Rng *r);                /* mean 0, std 1     */

#endif
