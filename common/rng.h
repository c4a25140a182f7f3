/* rng.h — the one random number generator of the project (torch.manual_seed).
 *
 * The same numbers as PyTorch's CPU generator. After t_manual_seed(s),
 * t_rand, t_randn, t_randint, nn_linear's default init and dropout draw
 * exactly what torch.rand, torch.randn, torch.randint, nn.Linear and
 * nn.Dropout draw after torch.manual_seed(s), when the calls come in the
 * same order. How a seed becomes numbers, as in PyTorch (ATen's
 * CPUGeneratorImpl, DistributionsHelper.h, DistributionTemplates.h):
 *
 *   seed      mt19937 (Mersenne Twister) seeded with the low 32 bits of
 *             the 64-bit seed: manual_seed(2**32 + 5) == manual_seed(5).
 *   random()  one 32-bit draw; random64() = two draws, the first on top.
 *   float     (random() & 0xFFFFFF) / 2^24: 24 bits, in [0, 1).
 *             uniform_(a, b) = fmaf(u, b - a, a) (torch.rand, nn.Linear).
 *   double    (random64() & (2^53 - 1)) / 2^53: 53 bits, in [0, 1).
 *   normal    fewer than 16 numbers: Box-Muller in double from two double
 *             uniforms; the second value of the pair is kept for the next
 *             normal draw (torch keeps it across calls, too).
 *             16 or more: first one float uniform per element, then
 *             Box-Muller on each block of 16 (8 pairs: elements j and j+8);
 *             a tail that is not a multiple of 16 redraws 16 fresh uniforms
 *             for the last 16 elements and transforms them again.
 *   bernoulli (dropout) u = double uniform; the element is 1 when u < p.
 *
 * The 16-wide path of randn uses the float log/sin/cos of PyTorch's AVX2
 * kernel (Cephes polynomials, as in its avx_mathfun.h), so that the numbers
 * are equal bit for bit, not just close, to those of PyTorch running with
 * AVX2 (or AVX-512, which uses the same kernel for randn). See
 * chapters/06_dropout/README.md for the PyTorch builds whose dropout masks
 * differ.
 */
#ifndef COMMON_RNG_H
#define COMMON_RNG_H

#include <stdbool.h>
#include <stdint.h>

#define RNG_MT_N 624

typedef struct {
    uint32_t state[RNG_MT_N];  /* mt19937 state                        */
    int next;                  /* index of the next word to temper      */
    uint64_t seed;             /* the seed as given (torch.initial_seed) */
    bool has_next_normal;      /* Box-Muller's cached second value      */
    double next_normal;
} Rng;

/* The global generator used by t_rand/t_randn, nn init and dropout. */
void     t_manual_seed(uint64_t seed);
Rng     *t_default_rng(void);

void     rng_seed(Rng *r, uint64_t seed);
uint32_t rng_random(Rng *r);                /* one mt19937 draw           */
uint64_t rng_random64(Rng *r);              /* two draws: hi << 32 | lo   */
float    rng_uniform(Rng *r);               /* float in [0, 1), 24 bits   */
/* uniform_(lo, hi) on a float tensor: one draw, in [lo, hi) */
float    rng_uniform_range(Rng *r, float lo, float hi);
double   rng_uniform_double(Rng *r);        /* double in [0, 1), 53 bits  */
double   rng_normal_double(Rng *r);         /* one normal (scalar path)   */
float    rng_normal(Rng *r);                /* (float)rng_normal_double   */
bool     rng_bernoulli(Rng *r, double p);   /* true with probability p    */
/* torch.randint(low, high): low + draw % (high - low); high > low */
int64_t  rng_randint(Rng *r, int64_t low, int64_t high);

/* Fill n contiguous floats as tensor.uniform_(lo, hi) / tensor.normal_(). */
void     rng_uniform_fill(Rng *r, float *data, int64_t n, float lo, float hi);
void     rng_normal_fill(Rng *r, float *data, int64_t n);

/* nn.init.kaiming_uniform_(w, a=math.sqrt(5)) bound for fan_in inputs:
 * gain = sqrt(2 / (1 + a^2)), bound = sqrt(3) * gain / sqrt(fan_in),
 * computed in double as PyTorch's Python does. */
double   rng_kaiming_uniform_bound(int64_t fan_in);

#endif
