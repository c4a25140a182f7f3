/* rng.c — PyTorch's CPU generator in C: mt19937 and torch's transforms.
 *
 * Every float operation below is one C statement so that no compiler fuses
 * a multiply and an add on its own; where PyTorch's compiled kernels do use
 * a fused multiply-add, the code calls fmaf() explicitly. That is what makes
 * the numbers equal to PyTorch's bit for bit.
 */
#include "rng.h"

#include <float.h>
#include <math.h>
#include <string.h>

static Rng global_rng;
static int global_seeded = 0;

/* ---- mt19937: the engine (at::mt19937, same as std::mt19937) ------------ */

void rng_seed(Rng *r, uint64_t seed) {
    /* at::mt19937(seed) keeps only the low 32 bits of the seed */
    r->state[0] = (uint32_t)(seed & 0xffffffffu);
    for (int i = 1; i < RNG_MT_N; i++) {
        uint32_t prev = r->state[i - 1];
        r->state[i] = 1812433253u * (prev ^ (prev >> 30)) + (uint32_t)i;
    }
    r->next = RNG_MT_N;  /* the first draw regenerates the state */
    r->seed = seed;
    r->has_next_normal = false;
    r->next_normal = 0.0;
}

static void mt_twist(Rng *r) {
    const int m = 397;
    for (int i = 0; i < RNG_MT_N; i++) {
        uint32_t y = (r->state[i] & 0x80000000u) | (r->state[(i + 1) % RNG_MT_N] & 0x7fffffffu);
        uint32_t v = r->state[(i + m) % RNG_MT_N] ^ (y >> 1);
        if (y & 1u) v ^= 0x9908b0dfu;
        r->state[i] = v;
    }
    r->next = 0;
}

uint32_t rng_random(Rng *r) {
    if (r->next >= RNG_MT_N) mt_twist(r);
    uint32_t y = r->state[r->next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

uint64_t rng_random64(Rng *r) {
    uint64_t hi = rng_random(r);
    uint64_t lo = rng_random(r);
    return (hi << 32) | lo;
}

/* ---- uniform ------------------------------------------------------------- */

float rng_uniform(Rng *r) {
    /* uniform_real_distribution<float>: the low 24 bits of one draw / 2^24 */
    uint32_t bits = rng_random(r) & 0xffffffu;
    return (float)bits * (1.0f / 16777216.0f);
}

float rng_uniform_range(Rng *r, float lo, float hi) {
    /* x * (to - from) + from, fused as PyTorch's compiled kernel fuses it */
    float x = rng_uniform(r);
    float width = hi - lo;
    return fmaf(x, width, lo);
}

double rng_uniform_double(Rng *r) {
    uint64_t bits = rng_random64(r) & ((1ull << 53) - 1u);
    return (double)bits * (1.0 / 9007199254740992.0);  /* 2^53 */
}

void rng_uniform_fill(Rng *r, float *data, int64_t n, float lo, float hi) {
    for (int64_t i = 0; i < n; i++) data[i] = rng_uniform_range(r, lo, hi);
}

/* ---- normal: the scalar path (normal_distribution<double>) --------------- */

double rng_normal_double(Rng *r) {
    if (r->has_next_normal) {
        r->has_next_normal = false;
        return r->next_normal;
    }
    double u1 = rng_uniform_double(r);
    double u2 = rng_uniform_double(r);
    double radius = sqrt(-2.0 * log1p(-u2));
    double theta = 2.0 * 3.14159265358979323846 * u1;
    r->next_normal = radius * sin(theta);
    r->has_next_normal = true;
    return radius * cos(theta);
}

float rng_normal(Rng *r) { return (float)rng_normal_double(r); }

/* ---- normal: the 16-wide path (normal_fill_AVX2), one lane at a time ----- */

static uint32_t float_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float bits_float(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* log256_ps for one x > 0 (Cephes logf) */
static float cephes_logf(float x) {
    static const float p[9] = {
        (float)7.0376836292E-2,  (float)-1.1514610310E-1, (float)1.1676998740E-1,
        (float)-1.2420140846E-1, (float)1.4249322787E-1,  (float)-1.6668057665E-1,
        (float)2.0000714765E-1,  (float)-2.4999993993E-1, (float)3.3333331174E-1,
    };
    const float q1 = (float)-2.12194440e-4, q2 = (float)0.693359375;
    if (x < FLT_MIN) x = FLT_MIN;  /* cut off denormals */
    uint32_t bits = float_bits(x);
    int32_t exponent = (int32_t)(bits >> 23) - 0x7f;
    float m = bits_float((bits & ~0x7f800000u) | float_bits(0.5f));  /* in [0.5, 1) */
    float e = (float)exponent;
    e = e + 1.0f;
    bool small = m < (float)0.707106781186547524;
    float tmp = small ? m : 0.0f;
    m = m - 1.0f;
    e = e - (small ? 1.0f : 0.0f);
    m = m + tmp;
    float z = m * m;
    float y = p[0];
    for (int i = 1; i < 9; i++) y = fmaf(y, m, p[i]);
    y = y * m;
    float eq1 = e * q1;
    y = fmaf(y, z, eq1);  /* (y * z) + e * q1: the compiled kernel fuses this pair */
    y = fmaf(-z, 0.5f, y);
    m = m + y;
    m = fmaf(e, q2, m);
    return m;
}

/* sincos256_ps for one x (Cephes sinf/cosf) */
static void cephes_sincosf(float x, float *s, float *c) {
    const float fopi = (float)1.27323954473516;  /* 4 / pi */
    const float dp1 = (float)-0.78515625, dp2 = (float)-2.4187564849853515625e-4,
                dp3 = (float)-3.77489497744594108e-8;
    const float s0 = (float)-1.9515295891E-4, s1 = (float)8.3321608736E-3, s2 = (float)-1.6666654611E-1;
    const float c0 = (float)2.443315711809948E-005, c1 = (float)-1.388731625493765E-003,
                c2 = (float)4.166664568298827E-002;
    bool sign_sin = x < 0.0f;
    x = fabsf(x);
    float y = x * fopi;
    int32_t j = (int32_t)y;  /* truncation, as cvttps */
    j = (j + 1) & ~1;
    y = (float)j;
    bool swap_sin = (j & 4) != 0;
    bool poly = (j & 2) == 0;
    x = fmaf(y, dp1, x);
    x = fmaf(y, dp2, x);
    x = fmaf(y, dp3, x);
    bool sign_cos = (~(j - 2) & 4) != 0;
    sign_sin = sign_sin != swap_sin;
    float z = x * x;
    float yc = fmaf(c0, z, c1);
    yc = fmaf(yc, z, c2);
    yc = yc * z;
    float half_z = z * 0.5f;
    yc = fmaf(yc, z, -half_z);  /* (yc * z) - z * 0.5, fused like the kernel */
    yc = yc + 1.0f;
    float ys = fmaf(s0, z, s1);
    ys = fmaf(ys, z, s2);
    ys = ys * z;
    ys = fmaf(ys, x, x);
    /* select the polynomial for each result, adding zeros as the kernel does */
    float ysin2 = poly ? ys : 0.0f, ysin1 = poly ? 0.0f : yc;
    float rest2 = poly ? 0.0f : ys, rest1 = poly ? yc : 0.0f;
    float sv = ysin1 + ysin2;
    float cv = rest1 + rest2;
    *s = sign_sin ? -sv : sv;
    *c = sign_cos ? -cv : cv;
}

/* normal_fill_16_AVX2: data[0..7] become radius*cos, data[8..15] radius*sin */
static void normal_fill_16(float *data) {
    const float two_pi = (float)(2.0 * 3.14159265358979323846);
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - data[j];  /* [0, 1) -> (0, 1] for the log */
        float u2 = data[j + 8];
        float l = cephes_logf(u1);
        float radius = sqrtf(-2.0f * l);
        float theta = two_pi * u2;
        float s, c;
        cephes_sincosf(theta, &s, &c);
        data[j] = radius * c;
        data[j + 8] = radius * s;
    }
}

void rng_normal_fill(Rng *r, float *data, int64_t n) {
    if (n < 16) {  /* the scalar path, with the cached second value */
        for (int64_t i = 0; i < n; i++) data[i] = rng_normal(r);
        return;
    }
    for (int64_t i = 0; i < n; i++) data[i] = rng_uniform(r);
    for (int64_t i = 0; i + 16 <= n; i += 16) normal_fill_16(data + i);
    if (n % 16 != 0) {  /* recompute the last 16 from fresh uniforms */
        float *tail = data + n - 16;
        for (int i = 0; i < 16; i++) tail[i] = rng_uniform(r);
        normal_fill_16(tail);
    }
}

/* ---- bernoulli, randint, kaiming ----------------------------------------- */

bool rng_bernoulli(Rng *r, double p) { return rng_uniform_double(r) < p; }

int64_t rng_randint(Rng *r, int64_t low, int64_t high) {
    uint64_t range = (uint64_t)high - (uint64_t)low;
    uint64_t v = range >= (1ull << 32) ? rng_random64(r) : rng_random(r);
    return (int64_t)((uint64_t)low + v % range);
}

double rng_kaiming_uniform_bound(int64_t fan_in) {
    double a = sqrt(5.0);
    double a2 = a * a;                     /* 5.000000000000001, as in Python */
    double gain = sqrt(2.0 / (1.0 + a2));  /* calculate_gain('leaky_relu', a) */
    double std = gain / sqrt((double)fan_in);
    return sqrt(3.0) * std;
}

/* ---- the global generator ------------------------------------------------- */

void t_manual_seed(uint64_t seed) {
    rng_seed(&global_rng, seed);
    global_seeded = 1;
}

Rng *t_default_rng(void) {
    if (!global_seeded) t_manual_seed(123); /* the project's default seed */
    return &global_rng;
}
