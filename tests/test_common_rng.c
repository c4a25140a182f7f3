/* test_common_rng.c — common/rng.c draws what PyTorch's CPU generator draws.
 *
 * The fixtures in tests/fixtures/rng were written by PyTorch
 * (scripts/golden/rng.py says exactly which calls); every test here seeds
 * with t_manual_seed and makes the same calls in the same order. */
#include <math.h>
#include <string.h>

#include "tests/harness.h"
#include "common/program/program.h"

static const uint64_t SEEDS[] = {0u, 1u, 123u, 2147483647u, 4294967301u};
#define N_SEEDS (sizeof SEEDS / sizeof SEEDS[0])

static const int64_t RANDN_SIZES[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
                                      15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
                                      29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 47, 48,
                                      49, 63, 64, 65, 79, 80, 81, 95, 96, 97, 100};
static const int64_t RAND_SIZES[] = {1, 2, 3, 15, 16, 17, 31, 32, 33, 100};

static Tensor *fixture(const char *kind, uint64_t seed) {
    char rel[128];
    snprintf(rel, sizeof rel, "rng/%s_%llu.npy", kind, (unsigned long long)seed);
    return load_fixture(rel);
}

/* Distance in units in the last place between two finite floats. */
static int64_t ulps(float a, float b) {
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0) ia = (int32_t)0x80000000 - ia;
    if (ib < 0) ib = (int32_t)0x80000000 - ib;
    return ia > ib ? (int64_t)ia - ib : (int64_t)ib - ia;
}

/* got[0..n) against want[off..off+n): at most max_ulps apart each */
static void check_ulps(const char *what, uint64_t seed, const float *got, const Tensor *want,
                       int64_t off, int64_t n, int64_t max_ulps) {
    CHECK_MSG(off + n <= t_numel(want), "%s seed %llu: fixture too short", what, (unsigned long long)seed);
    if (off + n > t_numel(want)) return;
    for (int64_t i = 0; i < n; i++) {
        float w = t_flat_get(want, off + i);
        int64_t d = ulps(got[i], w);
        CHECK_MSG(d <= max_ulps, "%s seed %llu: element %lld is %.9g, PyTorch %.9g (%lld ulp)", what,
                  (unsigned long long)seed, (long long)i, got[i], w, (long long)d);
        if (d > max_ulps) return;
    }
}

static void test_mt19937_reference(void) {
    /* std::mt19937 with its default seed 5489: the first output and the
     * 10000th (the value the C++ standard requires) */
    Rng r;
    rng_seed(&r, 5489u);
    CHECK_EQ_INT(rng_random(&r), 3499211612u);
    for (int i = 1; i < 9999; i++) (void)rng_random(&r);
    CHECK_EQ_INT(rng_random(&r), 4123659995u);
    /* only the low 32 bits of a seed count, as in at::mt19937 */
    Rng a, b;
    rng_seed(&a, 5u);
    rng_seed(&b, (1ull << 32) + 5u);
    CHECK_EQ_INT(rng_random(&a), rng_random(&b));
}

static void test_randn_matches_torch(void) {
    for (size_t s = 0; s < N_SEEDS; s++) {
        Tensor *want = fixture("randn", SEEDS[s]);
        int64_t off = 0;
        for (size_t k = 0; k < sizeof RANDN_SIZES / sizeof RANDN_SIZES[0]; k++) {
            int64_t n = RANDN_SIZES[k];
            t_manual_seed(SEEDS[s]);
            Tensor *x = t_randn(SHAPE(n));
            /* n >= 16: bit for bit; n < 16 goes through libm's double
             * log1p/sin/cos, which may differ in the last place */
            check_ulps("randn", SEEDS[s], t_data(x), want, off, n, n < 16 ? 1 : 0);
            off += n;
        }
        CHECK_EQ_INT(off, t_numel(want));
    }
}

static void test_randn_4000_bit_for_bit(void) {
    /* 250 blocks of 16 Box-Muller pairs with PyTorch's float log/sin/cos */
    static const uint64_t seeds[] = {0u, 2147483647u};
    for (int s = 0; s < 2; s++) {
        char rel[64];
        snprintf(rel, sizeof rel, "rng/randn_big_%llu.npy", (unsigned long long)seeds[s]);
        Tensor *want = load_fixture(rel);
        t_manual_seed(seeds[s]);
        check_ulps("randn(4000)", seeds[s], t_data(t_randn(SHAPE(4000))), want, 0, 4000, 0);
    }
}

static void test_rand_matches_torch(void) {
    for (size_t s = 0; s < N_SEEDS; s++) {
        Tensor *want = fixture("rand", SEEDS[s]);
        int64_t off = 0;
        for (size_t k = 0; k < sizeof RAND_SIZES / sizeof RAND_SIZES[0]; k++) {
            int64_t n = RAND_SIZES[k];
            t_manual_seed(SEEDS[s]);
            check_ulps("rand", SEEDS[s], t_data(t_rand(SHAPE(n))), want, off, n, 0);
            off += n;
        }
        CHECK_EQ_INT(off, t_numel(want));
    }
}

static void test_mixed_sequence_matches_torch(void) {
    /* randn(3), randn(5), rand(7), randn(20), randn(1), randn(2) */
    static const int64_t n[] = {3, 5, 7, 20, 1, 2};
    for (size_t s = 0; s < N_SEEDS; s++) {
        Tensor *want = fixture("seq", SEEDS[s]);
        t_manual_seed(SEEDS[s]);
        int64_t off = 0;
        for (int k = 0; k < 6; k++) {
            Tensor *x = k == 2 ? t_rand(SHAPE(n[k])) : t_randn(SHAPE(n[k]));
            check_ulps("seq", SEEDS[s], t_data(x), want, off, n[k], n[k] < 16 ? 1 : 0);
            off += n[k];
        }
        CHECK_EQ_INT(off, t_numel(want));
    }
}

static void test_randint_matches_torch(void) {
    for (size_t s = 0; s < N_SEEDS; s++) {
        Tensor *want = fixture("randint", SEEDS[s]);
        t_manual_seed(SEEDS[s]);
        Tensor *a = t_randint(0, 10, SHAPE(9));
        Tensor *b = t_randint(-50, 50, SHAPE(7));
        check_ulps("randint(0, 10)", SEEDS[s], t_data(a), want, 0, 9, 0);
        check_ulps("randint(-50, 50)", SEEDS[s], t_data(b), want, 9, 7, 0);
        for (int i = 0; i < 4; i++) {  /* a range of 2^33 + 7 takes 64-bit draws */
            int64_t v = rng_randint(t_default_rng(), 0, (1ll << 33) + 7);
            CHECK_EQ_INT(v >> 20, (int64_t)t_flat_get(want, 16 + i));
            CHECK_EQ_INT(v & 0xFFFFF, (int64_t)t_flat_get(want, 20 + i));
        }
    }
    CHECK_ERROR(t_randint(3, 3, SHAPE(2)), "randint: high (3) must be greater than low (3)");
}

static void test_linear_init_matches_torch(void) {
    static const struct { int64_t in, out; bool bias; } shapes[] = {
        {10, 10, true}, {3, 7, true}, {1, 5, true}, {64, 6, false},
        {100, 3, true}, {7, 33, true}, {12, 4, false}};
    for (size_t s = 0; s < N_SEEDS; s++) {
        Tensor *want = fixture("linear", SEEDS[s]);
        t_manual_seed(SEEDS[s]);
        int64_t off = 0;
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            Linear *l = nn_linear(shapes[k].in, shapes[k].out, shapes[k].bias);
            check_ulps("nn.Linear weight", SEEDS[s], t_data(l->weight), want, off, t_numel(l->weight), 0);
            off += t_numel(l->weight);
            CHECK(shapes[k].bias == (l->bias != NULL));
            if (l->bias) {
                check_ulps("nn.Linear bias", SEEDS[s], t_data(l->bias), want, off, t_numel(l->bias), 0);
                off += t_numel(l->bias);
            }
        }
        CHECK_EQ_INT(off, t_numel(want));
    }
}

static void test_bernoulli_matches_torch_dropout(void) {
    /* F.dropout(ones(n), p, training=True) on a PyTorch without MKL:
     * noise = bernoulli_(1 - p) (one double uniform per element, kept when
     * u < 1 - p), times 1 / (float)(1 - p); p = 0 and p = 1 draw nothing */
    static const struct { int64_t n; double p; } cases[] = {
        {10, 0.1}, {37, 0.5}, {64, 0.25}, {5, 0.9}, {9, 1.0}, {4, 0.0}, {50, 0.1}};
    for (size_t s = 0; s < N_SEEDS; s++) {
        Tensor *want = fixture("dropout", SEEDS[s]);
        t_manual_seed(SEEDS[s]);
        int64_t off = 0;
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            double p = cases[k].p;
            float got[64];
            for (int64_t i = 0; i < cases[k].n; i++) {
                if (p == 0.0) got[i] = 1.0f;
                else if (p == 1.0) got[i] = 0.0f;
                else got[i] = rng_bernoulli(t_default_rng(), 1.0 - p) ? 1.0f / (float)(1.0 - p) : 0.0f;
            }
            check_ulps("dropout mask", SEEDS[s], got, want, off, cases[k].n, 0);
            off += cases[k].n;
        }
        check_ulps("randn after dropout", SEEDS[s], t_data(t_randn(SHAPE(5))), want, off, 5, 1);
        CHECK_EQ_INT(off + 5, t_numel(want));
    }
}

static void test_uniform_range_and_bounds(void) {
    /* uniform_(lo, hi) stays in [lo, hi); kaiming bound for fan_in 3 */
    t_manual_seed(9);
    for (int i = 0; i < 10000; i++) {
        float v = rng_uniform_range(t_default_rng(), -0.25f, 0.5f);
        CHECK(v >= -0.25f && v < 0.5f);
        if (!(v >= -0.25f && v < 0.5f)) break;
    }
    /* sqrt(3) * sqrt(2 / (1 + 5)) / sqrt(3) = sqrt(1/3) */
    CHECK_CLOSE(rng_kaiming_uniform_bound(3), sqrt(1.0 / 3.0), 1e-15);
}

int main(void) {
    RUN(test_mt19937_reference);
    RUN(test_randn_matches_torch);
    RUN(test_randn_4000_bit_for_bit);
    RUN(test_rand_matches_torch);
    RUN(test_mixed_sequence_matches_torch);
    RUN(test_randint_matches_torch);
    RUN(test_linear_init_matches_torch);
    RUN(test_bernoulli_matches_torch_dropout);
    RUN(test_uniform_range_and_bounds);
    return harness_finish("test_common_rng");
}
