/* fast_attention.c — chapter 8: five ways to compute chapter 4's masked_attention().
 *
 * All five compute, for every (batch..., head) slice,
 *
 *     scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)   (T, S)
 *     scores = scores + mask                                                 causal only
 *     p_attn = scores.softmax(dim=-1)                                        (T, S)
 *     output = torch.matmul(p_attn, value)                                   (T, d_v)
 *
 * and differ only in the order of the work and in what they keep in memory.
 * Reading order: naive, reordered, tiled, online and flash, each with the one
 * idea it adds and, just before it, the helpers it is the first to use: the
 * vectorisable exp, max and sum before reordered, the MR x NR register kernel of
 * the matmuls before tiled, the finiteness check before online, the base-2 exp
 * and the packed keys before flash. Last, what the five share (names, shapes,
 * broadcasting, scratch memory).
 *
 * The build: this chapter alone is compiled with -O3 -march=native (vector
 * instructions of this CPU), never -ffast-math: the causal mask is -inf and
 * needs IEEE arithmetic, and the tests compare with chapters 2/4 to 1e-5.
 * Without -ffast-math the compiler must keep the order of every float sum, so
 * a loop that adds into one variable adds one number at a time; the fast
 * versions are written so that their inner loops write independent outputs,
 * which the compiler computes 16 at a time in vector registers.
 *
 * Non-finite inputs follow PyTorch: the mask is added (NaN + -inf = NaN, +inf +
 * -inf = NaN), a row whose scores hold a NaN or +inf, or nothing but -inf, is
 * NaN, and 0 · inf = NaN in p_attn · value. naive, reordered and tiled do exactly
 * that. online and flash skip masked keys, which is only the same when every
 * score is finite, so a slice with a NaN or inf in q, k or v (or values big enough
 * for a score to overflow) takes the exact row-by-row path (online_slice, exact).
 */
#include "fast_attention.h"

#include <float.h>
#include <string.h>

/* Blocks of the tiled and flash versions: a block of BLOCK_Q queries meets a block
 * of BLOCK_K keys. With d = 64 the queries, the output block and the score tile
 * (16, 16 and 64 KiB) stay in a core's L2 cache (1 MiB here), and what the register
 * kernel reads over and over stays in L1. BLOCK_K = 256 spreads each query's
 * bookkeeping (max, rescale) over more keys than 64 would. */
#define BLOCK_Q ATTN_BLOCK_Q /* 64  */
#define BLOCK_K ATTN_BLOCK_K /* 256 */
/* flash walks the key/value tiles once for STRIP query blocks together: each tile of
 * packed keys and values (64 + 64 KiB) is used STRIP times while it sits in L2,
 * instead of once per block from farther away (at T = 4096 a head's keys and values,
 * 2 MiB, do not fit in L2). */
#define STRIP 4

/* The register tile of the matmuls: MR rows x NR columns of sums, chosen for the
 * vector unit the compiler targets, from its own macros (kernel_tile says why):
 *   AVX-512       8 x 32: 16 sums in 16 of the 32 zmm registers (16 floats each)
 *   AVX2 + FMA    6 x 16: 12 sums in 12 of the 16 ymm registers (8 floats each)
 *   NEON (ARM64)  8 x 8:  16 sums in 16 of the 32 q registers (4 floats each)
 *   anything else 4 x 8:  small enough for any compiler to keep in registers
 * Every tile adds the same products in the same order, so the results are the same
 * bits with any of them (fmaf rounds once, in hardware or not). */
#if defined(__AVX512F__)
#define MR 8
#define NR 32
#define TILE_NAME "AVX-512 8 x 32"
#elif defined(__AVX2__) && defined(__FMA__)
#define AVX2_TILE 1
#define MR 6
#define NR 16
#define TILE_NAME "AVX2 6 x 16"
#elif defined(__ARM_NEON) && defined(__aarch64__)
#define MR 8
#define NR 8
#define TILE_NAME "NEON 8 x 8"
#else
#define MR 4
#define NR 8
#define TILE_NAME "portable 4 x 8"
#endif

#ifndef AVX2_TILE
#define AVX2_TILE 0
#endif

/* flash's block of queries: BLOCK_Q, but 96 with the AVX2 tile, whose groups of 6
 * queries in P · V fill 96 = 16 · 6 exactly (64 would be 11 groups, 66 rows: 3 % of
 * P · V's work on rows past the block). Chapter 12 keeps BLOCK_Q. */
#if MR == 6
#define FLASH_Q 96
#else
#define FLASH_Q BLOCK_Q
#endif

/* Partial results of the vectorised max and sum of a row: 16 floats, one vector. */
#define LANES 16

/* The score-storing versions refuse above this (attention_scores_budget). */
#define SCORES_BUDGET ((size_t)512 << 20)

/* One attention problem: n slices of (T, d_k) x (S, d_k) x (S, d_v). */
typedef struct {
    int64_t n;                            /* number of (batch..., head) slices    */
    int64_t T, S, d_k, d_v;
    float scale;                          /* 1 / math.sqrt(d_k)                   */
    bool causal;
    const float *q, *k, *v;               /* contiguous data of query, key, value */
    const int64_t *q_at, *k_at, *v_at;    /* where slice b starts in q, k, v      */
    float *out;                           /* (n, T, d_v)                          */
    Tensor *output;                       /* the same memory, shape (..., T, d_v) */
    float *lse;                           /* (n, T) logsumexp per row, or NULL    */
    Shape scores_shape;                   /* (..., T, S), for the cost model      */
} Problem;

/* What the five share, at the end of the file: shapes, budget, scratch memory. */
static Problem make_problem(const char *op, const Tensor *query, const Tensor *key, const Tensor *value, bool causal);
static void check_scores_budget(AttnImpl impl, const Problem *p);
static float *scratch_floats(int64_t n);

/* ======================================================================== */
/* 1. naive: the three PyTorch lines as loops                               */
/* ======================================================================== */

/* The loops follow the formulas: scores[i][j] = Σ_c q[i][c]·k[j][c] sums into one
 * variable (the compiler may not reorder a float sum, so it cannot use vectors), and
 * output[i][c] = Σ_j p[i][j]·v[j][c] walks down a column of v, d_v floats apart. */
static void naive_slice(const Problem *p, int64_t b, float *restrict scores) {
    const float *q = p->q + p->q_at[b], *k = p->k + p->k_at[b], *v = p->v + p->v_at[b];
    float *out = p->out + b * p->T * p->d_v;
    int64_t T = p->T, S = p->S, d_k = p->d_k, d_v = p->d_v;

    /* scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)     (T, S) */
    for (int64_t i = 0; i < T; i++)
        for (int64_t j = 0; j < S; j++) {
            float dot = 0.0f;
            for (int64_t c = 0; c < d_k; c++) dot += q[i * d_k + c] * k[j * d_k + c];
            scores[i * S + j] = dot / sqrtf((float)d_k);
        }
    /* scores = scores + mask: -inf above the diagonal (chapter 4) */
    if (p->causal)
        for (int64_t i = 0; i < T; i++)
            for (int64_t j = i + 1; j < S; j++) scores[i * S + j] += -INFINITY;
    /* p_attn = scores.softmax(dim=-1): max, exp and sum, divide — three passes per row */
    for (int64_t i = 0; i < T; i++) {
        float *row = scores + i * S, m = -INFINITY, sum = 0.0f;
        for (int64_t j = 0; j < S; j++) m = row[j] > m ? row[j] : m;
        for (int64_t j = 0; j < S; j++) {
            row[j] = expf(row[j] - m);
            sum += row[j];
        }
        for (int64_t j = 0; j < S; j++) row[j] /= sum;
    }
    /* output = torch.matmul(p_attn, value)                                     (T, d_v) */
    for (int64_t i = 0; i < T; i++)
        for (int64_t c = 0; c < d_v; c++) {
            float acc = 0.0f;
            for (int64_t j = 0; j < S; j++) acc += scores[i * S + j] * v[j * d_v + c];
            out[i * d_v + c] = acc;
        }
}

Tensor *attention_naive(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal) {
    Problem p = make_problem("attention_naive", query, key, value, is_causal);
    check_scores_budget(ATTN_NAIVE, &p);
    /* the whole (..., T, S) score tensor, as chapters 2 and 4 make it */
    float *scores = scratch_floats(p.n * p.T * p.S);
    for (int64_t b = 0; b < p.n; b++) naive_slice(&p, b, scores + b * p.T * p.S);
    return p.output;
}

/* ======================================================================== */
/* 2. reordered: inner loops over contiguous memory, so they vectorise      */
/* ======================================================================== */

/* The same three steps; only the loop order changes, plus one transposed copy of key:
 *   scores row i = Σ_c q[i][c] · kt[c][:]   kt = key.transpose(-2, -1).contiguous(),
 *                                            so the inner loop runs along a row of kt
 *   output row i = Σ_j p[i][j] · v[j][:]    the inner loop runs along a row of v
 * Each inner loop now writes S (or d_v) different outputs instead of adding into one
 * variable, so the compiler does 16 of them per instruction. The softmax uses the
 * vectorisable max_of / exp_and_sum (masked_softmax_row). */

/* ---- the vector-friendly helpers of reordered (and of the later versions) ---- */

/* exp(x) = 2^n · exp(r) with n = round(x / ln 2) and |r| <= ln2 / 2, exp(r) by a
 * degree-7 polynomial (Cephes' expf coefficients). Only +, *, fmaf and moving bits, so
 * a loop of it vectorises. The clamp to [-87, 88] (2^n a normal float) and the 0 below
 * -87 are decided on the bits, as integers: a float compare may raise an FP exception,
 * and without AVX-512's masks GCC then kept the loop scalar (a branch per number: the
 * AVX2 build ran chapter 13's loss and chapter 12's exp one number at a time). With the
 * sign bit cleared a float's bits order as its magnitude does; NaN is above 0x7f800000,
 * and passes through as NaN. */
static inline float fast_expf(float x) {
    const float magic = 12582912.0f;                           /* 1.5 · 2^23: adding it rounds to an integer */
    union { float f; uint32_t u; } bits_x, bits_t, two_n, e;   /* unsigned: wraps, never overflows */
    bits_x.f = x;
    /* masks, all ones or all zeros: as selects GCC turned them into branches again */
    uint32_t mag = bits_x.u & 0x7fffffffu, neg = 0u - (bits_x.u >> 31), num = 0u - (uint32_t)(mag <= 0x7f800000u);
    uint32_t below = neg & num & (0u - (uint32_t)(mag > 0x42ae0000u));   /* x < -87 (-inf too): exp(x) is 0 */
    uint32_t above = ~neg & num & (0u - (uint32_t)(mag > 0x42b00000u));  /* x > 88 (+inf too) */
    bits_x.u = (below & 0xc2ae0000u) | (above & 0x42b00000u) | (~(below | above) & bits_x.u);
    float xc = bits_x.f;                                       /* x clamped to [-87, 88]; NaN stays */
    float t = fmaf(xc, 1.44269504088896341f, magic);           /* x / ln 2 + magic */
    float n = t - magic;                                       /* round(x / ln 2)  */
    float r = fmaf(n, -0.693359375f, xc);                      /* r = x - n·ln 2, ln 2 in two parts */
    r = fmaf(n, 2.12194440e-4f, r);
    float poly = 1.9875691500e-4f;
    poly = fmaf(poly, r, 1.3981999507e-3f);
    poly = fmaf(poly, r, 8.3334519073e-3f);
    poly = fmaf(poly, r, 4.1665795894e-2f);
    poly = fmaf(poly, r, 1.6666665459e-1f);
    poly = fmaf(poly, r, 5.0000001201e-1f);
    float er = fmaf(poly, r * r, r) + 1.0f;                    /* exp(r) */
    bits_t.f = t;
    two_n.u = (bits_t.u - 0x4B400000u + 127u) << 23;           /* 2^n: n + 127 in the exponent bits */
    e.f = er * two_n.f;
    e.u &= ~below;                                             /* exp(-inf) = 0: masked keys get weight 0 */
    return e.f;
}

float attn_exp(float x) { return fast_expf(x); }

void attn_exp_row(float *x, int64_t n, float scale, float shift) {
    /* a vector at a time: 16 numbers with AVX-512, 8 with AVX2 */
    for (int64_t j = 0; j < n; j++) x[j] = fast_expf(fmaf(x[j], scale, -shift));
}

/* max(x[0..n)). A loop `m = x[j] > m ? x[j] : m` is one long chain the compiler may
 * not reorder; 4·LANES separate maxima (four vectors, so four compares in flight) are
 * independent, and are combined in a fixed order at the end. */
static float max_of(const float *restrict x, int64_t n) {
    float part[4 * LANES];
    for (int c = 0; c < 4 * LANES; c++) part[c] = -INFINITY;
    int64_t j = 0;
    for (; j + 4 * LANES <= n; j += 4 * LANES)
        for (int c = 0; c < 4 * LANES; c++) part[c] = x[j + c] > part[c] ? x[j + c] : part[c];
    for (; j < n; j++) part[0] = x[j] > part[0] ? x[j] : part[0];
    float m = part[0];
    for (int c = 1; c < 4 * LANES; c++) m = part[c] > m ? part[c] : m;
    return m;
}

/* x[j] = exp(x[j] - m) in place; returns their sum, added in LANES partial sums. */
static float exp_and_sum(float *restrict x, int64_t n, float m) {
    float part[LANES];
    for (int c = 0; c < LANES; c++) part[c] = 0.0f;
    int64_t j = 0;
    for (; j + LANES <= n; j += LANES)
        for (int c = 0; c < LANES; c++) {
            x[j + c] = fast_expf(x[j + c] - m);
            part[c] += x[j + c];
        }
    for (; j < n; j++) {
        x[j] = fast_expf(x[j] - m);
        part[0] += x[j];
    }
    for (int w = LANES / 2; w > 0; w /= 2)
        for (int c = 0; c < w; c++) part[c] += part[c + w];
    return part[0];
}

/* p_attn = scores.softmax(dim=-1) for one row, in place, with the causal mask first:
 * keys after `query` (a row index, or -1 for no mask) get -inf added, as chapter 4
 * adds it. A NaN or +inf in the row, or a row of only -inf, makes the sum NaN and so
 * the whole row NaN, as in PyTorch. */
static void masked_softmax_row(float *restrict row, int64_t S, int64_t query) {
    if (query >= 0)
        for (int64_t j = query + 1; j < S; j++) row[j] += -INFINITY; /* scores + mask */
    float m = max_of(row, S);
    float inv = 1.0f / exp_and_sum(row, S, m);
    for (int64_t j = 0; j < S; j++) row[j] *= inv;
}

/* Transpose key (S, d_k) into panels of BLOCK_K keys: panel p holds keys p·BLOCK_K ..
 * p·BLOCK_K + BLOCK_K - 1 as a (d_k, BLOCK_K) block, zeros past key S-1. With
 * width = S (one panel) it is plain key.transpose(-2, -1).contiguous(). */
static void transpose_keys(const float *restrict k, int64_t S, int64_t d_k, int64_t width, float *restrict kt) {
    for (int64_t p0 = 0; p0 < S; p0 += width)
        for (int64_t c = 0; c < d_k; c++) {
            float *restrict dst = kt + p0 * d_k + c * width;  /* panel p0 / width, row c */
            for (int64_t x = 0; x < width; x++) dst[x] = p0 + x < S ? k[(p0 + x) * d_k + c] : 0.0f;
        }
}

/* The first n scores of one query row: row[j] = Σ_c (q_row[c] · scale) · kt[c][j]. */
static void score_row(const float *restrict q_row, float scale, const float *restrict kt, int64_t S, int64_t d_k,
                      int64_t n, float *restrict row) {
    for (int64_t j = 0; j < n; j++) row[j] = 0.0f;
    for (int64_t c = 0; c < d_k; c++) {
        float qc = q_row[c] * scale; /* the scale, once per q entry */
        const float *restrict ktc = kt + c * S;
        for (int64_t j = 0; j < n; j++) row[j] = fmaf(qc, ktc[j], row[j]);
    }
}

static void reordered_slice(const Problem *p, int64_t b, float *restrict scores, float *restrict kt) {
    const float *restrict q = p->q + p->q_at[b], *restrict v = p->v + p->v_at[b];
    float *restrict out = p->out + b * p->T * p->d_v;
    int64_t T = p->T, S = p->S, d_k = p->d_k, d_v = p->d_v;

    transpose_keys(p->k + p->k_at[b], S, d_k, S, kt); /* (d_k, S) */
    /* scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k) */
    for (int64_t i = 0; i < T; i++) score_row(q + i * d_k, p->scale, kt, S, d_k, S, scores + i * S);
    /* scores + mask, p_attn = scores.softmax(dim=-1) */
    for (int64_t i = 0; i < T; i++) masked_softmax_row(scores + i * S, S, p->causal ? i : -1);
    /* output = torch.matmul(p_attn, value) */
    for (int64_t i = 0; i < T; i++) {
        float *restrict orow = out + i * d_v;
        for (int64_t j = 0; j < S; j++) {
            float pij = scores[i * S + j];
            const float *restrict vj = v + j * d_v;
            for (int64_t c = 0; c < d_v; c++) orow[c] = fmaf(pij, vj[c], orow[c]);
        }
    }
}

Tensor *attention_reordered(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal) {
    Problem p = make_problem("attention_reordered", query, key, value, is_causal);
    check_scores_budget(ATTN_REORDERED, &p);
    float *scores = scratch_floats(p.n * p.T * p.S);
    float *kt = scratch_floats(p.d_k * p.S);
    for (int64_t b = 0; b < p.n; b++) reordered_slice(&p, b, scores + b * p.T * p.S, kt);
    return p.output;
}

/* ======================================================================== */
/* 3. tiled: blocks that stay in the caches, MR x NR sums in registers     */
/* ======================================================================== */

/* ---- the matmuls of tiled and flash: an MR x NR tile of sums in registers ---- */

/* c[MR][NR] (+)= a[MR][kdim] · b[kdim][NR], with b and c row-major (leading dims ldb,
 * ldc) and a given column by column: the MR entries a[0..MR-1][k] side by side at
 * a + k·a_step (a_step = MR for rows packed by pack_rows or pack_keys; BLOCK_Q for
 * flash's transposed tile, whose rows are queries side by side already).
 *
 * Why 8 x 32 with AVX-512: a vector register holds 16 floats and there are 32 of
 * them. 8 rows x 32 columns of sums are 16 registers, which stay in registers for the
 * whole sum over k. Each step of k loads 32 floats of b (2 vectors) once and uses
 * them for 8 rows: 16 fused multiply-adds per 2 vector loads and 8 broadcasts of a,
 * enough independent sums to keep both FMA pipes busy.
 * Why 6 x 16 with AVX2: a register holds 8 floats and there are 16. 8 x 32 sums
 * would be 32 registers. 6 x 16 sums are 12, beside the 2 vectors of b and one
 * broadcast of a: 15 of 16, and each step of k loads 2 vectors and 6 broadcasts for
 * 12 FMAs (BLIS's Haswell sgemm kernel, bli_sgemm_haswell_asm_6x16, has this shape). The
 * earlier 3 x 32 (12 sums too, 3 broadcasts) had its FMAs read the 4 vectors of b
 * straight from memory: 15 loads per 12 FMAs, and flash ran at 0.70x sgemm with it,
 * against 0.89x to 0.93x with 6 x 16 (make bench-torch, the README).
 * Written in C as below, 6 x 16 made GCC keep broadcasts on the stack, so the AVX2
 * tile is its own kernel in vector intrinsics (after the NOINLINE line). With 6 rows, a
 * tile of keys is packed with room for 258 (pack_keys) and flash's block of queries is
 * 96, 16 groups of 6 (FLASH_Q).
 * NEON: 32 registers of 4 floats, 8 x 8 sums are 16 of them, as with AVX-512.
 * The sums are MR named arrays, not acc[MR][NR]: with one 2-D array GCC swaps the
 * loops and keeps the sums in memory; with named arrays it vectorises the x loop.
 * Copying c in (accumulate) and zeroing are two separate loops: one loop with
 * `accumulate ? c : 0` compiled to 256 scalar loads and stores. One out-of-line copy
 * (NOINLINE): inlined, or cloned for constant arguments, GCC ran out of the 32 vector
 * registers and spilled sums. And for GCC two of -O3's loop passes are off in it:
 * unroll-and-jam unrolled the k loop by two and then kept broadcasts on the stack
 * (one with AVX-512), and loop distribution turned the
 * copies of c into calls of memcpy and memset. */
#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE                                                                                   \
    __attribute__((noinline, noclone, optimize("no-loop-unroll-and-jam", "no-tree-loop-distribute-patterns")))
#elif defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif
#if AVX2_TILE
/* The AVX2 tile, 6 x 16, in the compiler's vector intrinsics (immintrin.h; each names
 * one instruction: _mm256_fmadd_ps(a, b, c) is fmaf(a, b, c) on 8 floats at once,
 * _mm256_broadcast_ss(p) puts *p in all 8 lanes). Each step of k loads 16 floats of b
 * (2 vectors) and broadcasts the 6 entries of a one by one, each used at once by two
 * FMAs: 12 sums + 2 of b + 1 broadcast = 15 of the 16 registers, 8 loads per 12 FMAs. */
#include <immintrin.h>
/* one row r of the tile: sums cr0 (columns 0..7) and cr1 (8..15) */
#define ROW_FMA(r)                                                                                 \
    ar = _mm256_broadcast_ss(ak + (r));                                                            \
    c##r##0 = _mm256_fmadd_ps(ar, b0, c##r##0);                                                    \
    c##r##1 = _mm256_fmadd_ps(ar, b1, c##r##1)
#define ROW_LOAD(r) c##r##0 = _mm256_loadu_ps(c + (r) * ldc), c##r##1 = _mm256_loadu_ps(c + (r) * ldc + 8)
#define ROW_STORE(r) _mm256_storeu_ps(c + (r) * ldc, c##r##0), _mm256_storeu_ps(c + (r) * ldc + 8, c##r##1)
/* max(x, y) as `x > y ? x : y` (vmaxps returns its second operand when not greater) */
#define MAX2(x, y) _mm256_max_ps(x, y)
NOINLINE static void kernel_tile(int64_t kdim, const float *restrict a, int64_t a_step, const float *restrict b,
                                 int64_t ldb, float *restrict c, int64_t ldc, bool accumulate,
                                 float *restrict col_max) {
    __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    if (accumulate) {
        ROW_LOAD(0), ROW_LOAD(1), ROW_LOAD(2), ROW_LOAD(3), ROW_LOAD(4), ROW_LOAD(5);
    } else {
        c00 = c01 = c10 = c11 = c20 = c21 = _mm256_setzero_ps();
        c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
    }
    for (int64_t k = 0; k < kdim; k++) {
        const float *restrict ak = a + k * a_step, *restrict bk = b + k * ldb;
        __m256 b0 = _mm256_loadu_ps(bk), b1 = _mm256_loadu_ps(bk + 8), ar;
        ROW_FMA(0);
        ROW_FMA(1);
        ROW_FMA(2);
        ROW_FMA(3);
        ROW_FMA(4);
        ROW_FMA(5);
    }
    ROW_STORE(0), ROW_STORE(1), ROW_STORE(2), ROW_STORE(3), ROW_STORE(4), ROW_STORE(5);
    if (col_max) { /* col_max[x] = max(col_max[x], c[0..5][x]), as in the C tile below */
        __m256 m0 = MAX2(MAX2(MAX2(c00, c10), c20), MAX2(MAX2(c30, c40), c50));
        __m256 m1 = MAX2(MAX2(MAX2(c01, c11), c21), MAX2(MAX2(c31, c41), c51));
        _mm256_storeu_ps(col_max, MAX2(m0, _mm256_loadu_ps(col_max)));
        _mm256_storeu_ps(col_max + 8, MAX2(m1, _mm256_loadu_ps(col_max + 8)));
    }
}
#else
NOINLINE static void kernel_tile(int64_t kdim, const float *restrict a, int64_t a_step, const float *restrict b,
                                 int64_t ldb, float *restrict c, int64_t ldc, bool accumulate,
                                 float *restrict col_max) {
    /* rows 0..3 always, rows 4..7 when MR == 8 */
    float c0[NR], c1[NR], c2[NR], c3[NR];
#if MR == 8
    float c4[NR], c5[NR], c6[NR], c7[NR];
#endif
    if (accumulate)
        for (int x = 0; x < NR; x++) {
            c0[x] = c[0 * ldc + x], c1[x] = c[1 * ldc + x], c2[x] = c[2 * ldc + x], c3[x] = c[3 * ldc + x];
#if MR == 8
            c4[x] = c[4 * ldc + x], c5[x] = c[5 * ldc + x], c6[x] = c[6 * ldc + x], c7[x] = c[7 * ldc + x];
#endif
        }
    else
        for (int x = 0; x < NR; x++) {
            c0[x] = c1[x] = c2[x] = c3[x] = 0.0f;
#if MR == 8
            c4[x] = c5[x] = c6[x] = c7[x] = 0.0f;
#endif
        }
    for (int64_t k = 0; k < kdim; k++) {
        const float *restrict ak = a + k * a_step, *restrict bk = b + k * ldb;
        for (int x = 0; x < NR; x++) {
            c0[x] = fmaf(ak[0], bk[x], c0[x]);
            c1[x] = fmaf(ak[1], bk[x], c1[x]);
            c2[x] = fmaf(ak[2], bk[x], c2[x]);
            c3[x] = fmaf(ak[3], bk[x], c3[x]);
#if MR == 8
            c4[x] = fmaf(ak[4], bk[x], c4[x]);
            c5[x] = fmaf(ak[5], bk[x], c5[x]);
            c6[x] = fmaf(ak[6], bk[x], c6[x]);
            c7[x] = fmaf(ak[7], bk[x], c7[x]);
#endif
        }
    }
    /* one row of c per loop: in one loop writing all MR rows, the rows might overlap
     * (ldc < NR), and GCC compared addresses at run time, over 100 instructions a call */
    for (int x = 0; x < NR; x++) c[0 * ldc + x] = c0[x];
    for (int x = 0; x < NR; x++) c[1 * ldc + x] = c1[x];
    for (int x = 0; x < NR; x++) c[2 * ldc + x] = c2[x];
    for (int x = 0; x < NR; x++) c[3 * ldc + x] = c3[x];
#if MR == 8
    for (int x = 0; x < NR; x++) c[4 * ldc + x] = c4[x];
    for (int x = 0; x < NR; x++) c[5 * ldc + x] = c5[x];
    for (int x = 0; x < NR; x++) c[6 * ldc + x] = c6[x];
    for (int x = 0; x < NR; x++) c[7 * ldc + x] = c7[x];
#endif
    if (col_max) /* col_max[x] = max(col_max[x], c[0..MR-1][x]), from the sums just made */
        for (int x = 0; x < NR; x++) {
            float m = c0[x] > c1[x] ? c0[x] : c1[x];
            m = c2[x] > m ? c2[x] : m;
            m = c3[x] > m ? c3[x] : m;
#if MR == 8
            float m45 = c4[x] > c5[x] ? c4[x] : c5[x], m67 = c6[x] > c7[x] ? c6[x] : c7[x];
            float m47 = m45 > m67 ? m45 : m67;
            m = m47 > m ? m47 : m;
#endif
            col_max[x] = m > col_max[x] ? m : col_max[x];
        }
}
#endif

/* Rows i..i+MR-1 of a (leading dim lda), columns 0..kdim-1, as kdim groups of MR. */
static void pack_rows(const float *restrict a, int64_t lda, int64_t kdim, float *restrict packed) {
    for (int64_t k = 0; k < kdim; k++)
        for (int r = 0; r < MR; r++) packed[k * MR + r] = a[r * lda + k];
}

/* c[m][n] (+)= a[m][kdim] · b[kdim][n], row-major with leading dims lda, ldb, ldc:
 * MR x NR register tiles, then the edges (the last m % MR rows, n % NR columns) row by
 * row. `packed` holds 8 · kdim floats. */
static void matmul_block(int64_t m, int64_t n, int64_t kdim, const float *restrict a, int64_t lda,
                         const float *restrict b, int64_t ldb, float *restrict c, int64_t ldc, bool accumulate,
                         float *restrict packed) {
    int64_t i = 0, n_full = n / NR * NR;
    for (; i + MR <= m && n_full > 0; i += MR) {
        pack_rows(a + i * lda, lda, kdim, packed);
        for (int64_t j = 0; j < n_full; j += NR)
            kernel_tile(kdim, packed, MR, b + j, ldb, c + i * ldc + j, ldc, accumulate, NULL);
    }
    for (int64_t r = 0; r < m; r++) { /* what the tiles left: rows i.., columns n_full.. */
        int64_t j0 = r < i ? n_full : 0;
        float *restrict crow = c + r * ldc;
        if (!accumulate)
            for (int64_t j = j0; j < n; j++) crow[j] = 0.0f;
        for (int64_t k = 0; k < kdim; k++) {
            float ark = a[r * lda + k];
            const float *restrict bk = b + k * ldb;
            for (int64_t j = j0; j < n; j++) crow[j] = fmaf(ark, bk[j], crow[j]);
        }
    }
}

const char *attn_register_tile(void) { return TILE_NAME; }

int attn_flash_block_q(void) { return FLASH_Q; }

int attn_tile_rows(void) { return MR; }

int attn_tile_cols(void) { return NR; }

int attn_max_partials(void) { return 4 * LANES; }

int attn_sum_partials(void) { return LANES; }

/* The widest vector of floats the compiler may use here, from its own macros. */
int attn_vector_floats(void) {
#if defined(__AVX512F__)
    return 16;
#elif defined(__AVX__)
    return 8;
#elif defined(__SSE2__) || defined(__ARM_NEON) || defined(__wasm_simd128__)
    return 4;
#else
    return 1;
#endif
}

/* The same, for the chapters after this one (chapter 12's backward multiplies its tiles
 * with it): packed holds ATTN_MATMUL_PACKED(kdim) floats. */
void attn_matmul(int64_t m, int64_t n, int64_t kdim, const float *a, int64_t lda, const float *b, int64_t ldb,
                 float *c, int64_t ldc, bool accumulate, float *packed) {
    matmul_block(m, n, kdim, a, lda, b, ldb, c, ldc, accumulate, packed);
}

/* c (+)= aᵀ · b with a given as (kdim, m) row-major: the 8 entries aᵀ[i..i+7][k] are
 * side by side in row k of a, which is what kernel_tile reads (a_step = lda), so
 * nothing is transposed or packed. The edges (m % 8 rows, n % 32 columns) row by row. */
void attn_matmul_at(int64_t m, int64_t n, int64_t kdim, const float *a, int64_t lda, const float *b, int64_t ldb,
                    float *c, int64_t ldc, bool accumulate) {
    int64_t i = 0, n_full = n / NR * NR;
    for (; i + MR <= m && n_full > 0; i += MR)
        for (int64_t j = 0; j < n_full; j += NR)
            kernel_tile(kdim, a + i, lda, b + j, ldb, c + i * ldc + j, ldc, accumulate, NULL);
    for (int64_t r = 0; r < m; r++) {
        int64_t j0 = r < i ? n_full : 0;
        float *restrict crow = c + r * ldc;
        if (!accumulate)
            for (int64_t j = j0; j < n; j++) crow[j] = 0.0f;
        for (int64_t k = 0; k < kdim; k++) {
            float akr = a[k * lda + r];
            const float *restrict bk = b + k * ldb;
            for (int64_t j = j0; j < n; j++) crow[j] = fmaf(akr, bk[j], crow[j]);
        }
    }
}

/* ---- tiled itself ---- */

/* "reordered" streams all of kt (d_k x S floats) through the cache for every query
 * row and reloads each partial sum from memory for every c. Tiled works on a block
 * of BLOCK_Q queries against a panel of BLOCK_K keys at a time (both stay in cache
 * and are reused BLOCK_K resp. BLOCK_Q times), and inside that on MR x NR sums held in
 * registers (kernel_tile, above). The full (T, S) scores are still stored. */
static void tiled_slice(const Problem *p, int64_t b, float *restrict scores, float *restrict kt,
                        float *restrict q_blk, float *restrict packed) {
    const float *restrict q = p->q + p->q_at[b], *restrict v = p->v + p->v_at[b];
    float *restrict out = p->out + b * p->T * p->d_v;
    int64_t T = p->T, S = p->S, d_k = p->d_k, d_v = p->d_v;

    transpose_keys(p->k + p->k_at[b], S, d_k, BLOCK_K, kt); /* panels of (d_k, BLOCK_K) */
    /* scores = q · kᵀ / √d_k, tile by tile */
    for (int64_t i0 = 0; i0 < T; i0 += BLOCK_Q) {
        int64_t rows = T - i0 < BLOCK_Q ? T - i0 : BLOCK_Q;
        for (int64_t x = 0; x < rows * d_k; x++) q_blk[x] = q[i0 * d_k + x] * p->scale; /* scale q once */
        for (int64_t j0 = 0; j0 < S; j0 += BLOCK_K) {
            int64_t cols = S - j0 < BLOCK_K ? S - j0 : BLOCK_K;
            matmul_block(rows, cols, d_k, q_blk, d_k, kt + j0 * d_k, BLOCK_K, scores + i0 * S + j0, S, false,
                         packed);
        }
    }
    /* scores + mask, p_attn = scores.softmax(dim=-1) */
    for (int64_t i = 0; i < T; i++) masked_softmax_row(scores + i * S, S, p->causal ? i : -1);
    /* output = p_attn · v, tile by tile: a block of output rows gathers every key panel */
    for (int64_t i0 = 0; i0 < T; i0 += BLOCK_Q) {
        int64_t rows = T - i0 < BLOCK_Q ? T - i0 : BLOCK_Q;
        for (int64_t j0 = 0; j0 < S; j0 += BLOCK_K) {
            int64_t cols = S - j0 < BLOCK_K ? S - j0 : BLOCK_K;
            matmul_block(rows, d_v, cols, scores + i0 * S + j0, S, v + j0 * d_v, d_v, out + i0 * d_v, d_v, j0 > 0,
                         packed);
        }
    }
}

Tensor *attention_tiled(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal) {
    Problem p = make_problem("attention_tiled", query, key, value, is_causal);
    check_scores_budget(ATTN_TILED, &p);
    float *scores = scratch_floats(p.n * p.T * p.S);
    float *kt = scratch_floats((p.S + BLOCK_K - 1) / BLOCK_K * BLOCK_K * p.d_k);
    float *q_blk = scratch_floats(BLOCK_Q * p.d_k);
    float *packed = scratch_floats(MR * (p.d_k > BLOCK_K ? p.d_k : BLOCK_K));
    for (int64_t b = 0; b < p.n; b++) tiled_slice(&p, b, scores + b * p.T * p.S, kt, q_blk, packed);
    return p.output;
}

/* ======================================================================== */
/* 4. online: one query row at a time, softmax and output in one pass       */
/* ======================================================================== */

/* Two separate ideas. First, work one query row at a time: compute its S scores,
 * use them, move on. That alone is what shrinks the memory from the (T, S) matrix
 * to one row of S floats; a three-pass softmax on that row would need no more.
 *
 * Second, the online softmax (Milakov & Gimelshein 2018) folded into the output:
 * keep, per row, the running max m of the scores seen, the running sum l of
 * exp(s - m) and the running output acc = Σ exp(s - m) · v. A key with s <= m adds
 * p = exp(s - m) to l and p · v to acc: one exp. A key with s > m moves the max,
 * so everything summed so far was taken against the old max and shrinks once by
 * alpha = exp(m_old - s):
 *     l = l · alpha + 1,    acc = acc · alpha + v,    m = s
 * At the end output = acc / l. One pass over the keys, and the state (m, l, acc)
 * can be fed any slice of keys at any time: that is what flash does with tiles of
 * keys and what chapter 9's ring attention does with keys that arrive from other
 * processes. */

void online_row_init(float *m, float *l, float *acc, int64_t d_v) {
    *m = -INFINITY, *l = 0.0f;
    for (int64_t c = 0; c < d_v; c++) acc[c] = 0.0f;
}

void online_row_update(float *m, float *l, float *acc, int64_t d_v, const float *scores, int64_t n,
                       const float *value, int64_t ldv) {
    for (int64_t j = 0; j < n; j++) {
        float s = scores[j];
        const float *restrict vj = value + j * ldv;
        if (s != s || s == INFINITY) { /* NaN, or +inf (exp(+inf - +inf)): the row is NaN */
            *m = NAN, *l = NAN;
            for (int64_t c = 0; c < d_v; c++) acc[c] = NAN;
        } else if (s > *m) { /* a new max: shrink what was summed against the old one, once */
            /* BEGIN BLANK online_rescale */
            float alpha = fast_expf(*m - s); /* exp(m_old - m_new); 0 for the first key */
            *l = *l * alpha + 1.0f;
            for (int64_t c = 0; c < d_v; c++) acc[c] = fmaf(acc[c], alpha, vj[c]);
            *m = s;
            /* END BLANK */
        } else { /* one exp per score; a -inf (masked) key weighs 0, and 0 · v is added
                  * all the same, so an inf or NaN in v propagates as in p_attn · value */
            float w = s == -INFINITY ? 0.0f : fast_expf(s - *m);
            *l += w;
            for (int64_t c = 0; c < d_v; c++) acc[c] = fmaf(w, vj[c], acc[c]);
        }
    }
}

void online_row_finish(float *acc, int64_t d_v, float l) {
    for (int64_t c = 0; c < d_v; c++) acc[c] /= l; /* l = 0 (every key masked): 0/0 = NaN */
}

/* Queries i0 .. i1 - 1 of slice b, row by row. A causal row with finite scores stops
 * at its own position: the masked keys would weigh exactly 0. With `exact` every row
 * takes all S keys and the mask is added, -inf or NaN (NaN + -inf), so a non-finite
 * input behaves as in PyTorch. */
static void online_slice(const Problem *p, int64_t b, int64_t i0, int64_t i1, bool exact, float *restrict kt,
                         float *restrict row) {
    const float *restrict q = p->q + p->q_at[b], *restrict v = p->v + p->v_at[b];
    float *restrict out = p->out + b * p->T * p->d_v;
    int64_t S = p->S, d_k = p->d_k, d_v = p->d_v;

    transpose_keys(p->k + p->k_at[b], S, d_k, S, kt); /* (d_k, S), as in "reordered" */
    for (int64_t i = i0; i < i1; i++) {
        int64_t n = p->causal && !exact ? i + 1 : S; /* the keys query i looks at */
        score_row(q + i * d_k, p->scale, kt, S, d_k, n, row); /* q[i] · kᵀ / √d_k   (n,) */
        if (p->causal && exact)
            for (int64_t j = i + 1; j < S; j++) row[j] += -INFINITY; /* scores + mask */
        float m, l, *restrict acc = out + i * d_v; /* the output row is the running acc */
        online_row_init(&m, &l, acc, d_v);
        online_row_update(&m, &l, acc, d_v, row, n, v, d_v);
        online_row_finish(acc, d_v, l);
        if (p->lse) p->lse[b * p->T + i] = m + logf(l); /* lse = m + log(l); -inf + log(0) = -inf: no key */
    }
}

/* ---- the check that decides between the fast and the exact path ---- */

/* Whether every q, k and v value of slice b is finite and no score can overflow:
 * |score| <= scale · d_k · max|q| · max|k| < FLT_MAX / 2 (flash's base-2 scores are
 * log2(e) = 1.44 times that, still finite). Then every score is finite, a masked key's
 * weight is exactly 0 and skipping it changes nothing; otherwise online and flash
 * take the exact path. One pass over the inputs, O((T + S)·d), against O(T·S·d). */
static float max_abs(const float *restrict x, int64_t n, bool *finite) {
    /* On the bits: with the sign bit cleared, a float's bits as an unsigned integer
     * order the same way as its value, and inf and NaN are the patterns from
     * 0x7f800000 up. One integer max finds both, and the compiler vectorises it (a
     * float max with a separate inf/NaN test stayed scalar). */
    uint32_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], sizeof u);
        u &= 0x7fffffffu; /* |x[i]| */
        m = u > m ? u : m;
    }
    if (m >= 0x7f800000u) *finite = false; /* inf or NaN */
    float a;
    memcpy(&a, &m, sizeof a);
    return a;
}

static bool slice_is_finite(const Problem *p, int64_t b) {
    bool finite = true;
    float mq = max_abs(p->q + p->q_at[b], p->T * p->d_k, &finite);
    float mk = max_abs(p->k + p->k_at[b], p->S * p->d_k, &finite);
    max_abs(p->v + p->v_at[b], p->S * p->d_v, &finite);
    return finite && (double)p->scale * (double)p->d_k * (double)mq * (double)mk < 0.5 * FLT_MAX;
}

Tensor *attention_online(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal) {
    Problem p = make_problem("attention_online", query, key, value, is_causal);
    float *kt = scratch_floats(p.d_k * p.S);
    float *row = scratch_floats(p.S);
    for (int64_t b = 0; b < p.n; b++) online_slice(&p, b, 0, p.T, !slice_is_finite(&p, b), kt, row);
    return p.output;
}

/* ======================================================================== */
/* 5. flash: tiles of queries x tiles of keys, running max, sum and output  */
/* ======================================================================== */

/* FlashAttention-2's loop: the online update of "online", applied to a block of
 * FLASH_Q queries (BLOCK_Q, or 96 with the AVX2 tile) and a tile of BLOCK_K keys at a
 * time, so that both matmuls run on the register kernel of "tiled" and nothing of
 * size T x S is ever stored.
 *
 * The score tile is kept transposed, keys down and queries across: St = K_j · Q_iᵀ,
 * (BLOCK_K, FLASH_Q). Then each query is a column, and the softmax bookkeeping (max,
 * exp, sum) runs along rows of FLASH_Q queries, element by element, with no reduction
 * inside a vector; and St is exactly the layout the kernel wants for P · V (MR
 * queries side by side for each key), so nothing is repacked. A thread packs a
 * slice's keys once, when it starts on that slice (MR keys side by side for each c,
 * pack_keys). */

/* ---- what flash needs first: its base-2 exp and its packed keys ---- */

/* flash's exp, in base 2: 2^x for x <= 0. flash scales q by log2(e) / √d_k, so its
 * scores are s·log2(e) and exp(s - m) = 2^(s·log2 e - m·log2 e): the multiply by
 * log2(e) is done once per query instead of once per score, and 2^x needs no
 * reduction by ln 2 (x = n + f, n = round(x), |f| <= 1/2, 2^f by a degree-5
 * polynomial). FlashAttention-2 does the same (exp2f of x·scale·log2 e -
 * max·scale·log2 e). The coefficients are a minimax fit of the relative error of 2^f
 * on [-1/2, 1/2] (scripts/fit_exp2.py prints them and their error); over every float
 * in [-126, 0] the result is within 1.75e-7 of 2^x, relative (2^-23 = 1.19e-7 is the
 * gap between 1 and the next float; test_ch08 checks a sample through attn_exp2). Its
 * arguments are s - m_new <= 0 (or -inf for the first
 * tile's alpha), never NaN (the exact path takes those slices), so no upper clamp
 * and no NaN care, and below -126 it returns 2^-126 = 1.2e-38 instead of 0: next
 * to a row sum >= 1 that is nothing, and the masked keys are set to 0 apart. 11
 * operations per score against 19 in fast_expf, in the loop that limits flash. */
static inline float exp2_le0(float x) {
    const float magic = 12582912.0f;                    /* 1.5 · 2^23: adding it rounds to an integer */
    /* keep 2^n a normal float: xc = max(x, -126), on the bits. For x <= 0 the bits, read
     * as an unsigned integer, grow as x goes down (-126 is 0xC2FC0000, -inf 0xFF800000),
     * so the max is an integer min. A float compare (x < -126 ? -126 : x) may raise an
     * FP exception, and without AVX-512's masks GCC did not vectorise the loop with it. */
    union { float f; uint32_t u; } bits_x;
    bits_x.f = x;
    bits_x.u = bits_x.u > 0xC2FC0000u ? 0xC2FC0000u : bits_x.u;
    float xc = bits_x.f;
    float t = xc + magic;
    float n = t - magic;                                /* n = round(x) */
    float f = xc - n;                                   /* |f| <= 1/2 */
    float poly = 1.3264631852507591e-3f;                /* 2^f = 1 + f·(c1 + f·(c2 + ...)) */
    poly = fmaf(poly, f, 9.671486914157867e-3f);
    poly = fmaf(poly, f, 5.550733581185341e-2f);
    poly = fmaf(poly, f, 2.4022242426872253e-1f);
    poly = fmaf(poly, f, 6.931470036506653e-1f);
    union { float f; uint32_t u; } bits_t, e;
    e.f = fmaf(poly, f, 1.0f);                          /* 2^f */
    bits_t.f = t;
    /* e · 2^n, by adding n to e's exponent bits: the bits of t are those of 1.5 · 2^23
     * plus n, and shifted left by 23 only n << 23 is left. The same bits as the multiply
     * e * 2^n (exact: e and the result are normal floats, as n = -126 only when f >= 0),
     * in one operation fewer than making 2^n (add 127, shift) and multiplying */
    e.u += bits_t.u << 23;
    return e.f;
}

float attn_exp2(float x) { return exp2_le0(x); }

/* flash's keys (S, d_k), tile by tile (BLOCK_K keys), in groups of MR: group g of a
 * tile holds its keys g·MR .. g·MR + MR - 1 as (d_k, MR), the MR keys side by side
 * for every c; zeros past the tile's last key. A tile takes KP_TILE keys' room
 * (BLOCK_K rounded up to MR: 258 for MR = 6, else 256). */
#define KP_TILE ((BLOCK_K + MR - 1) / MR * MR)
/* The rows of a block's output that P · V writes: FLASH_Q rounded up to MR (a block
 * with fewer rows, the last, may end inside a group: that group reads columns past
 * the tile's row, and its rows past the block are never read). */
#define ACC_ROWS ((FLASH_Q + MR - 1) / MR * MR)
static void pack_keys(const float *restrict k, int64_t S, int64_t d_k, float *restrict kp) {
    for (int64_t j0 = 0; j0 < S; j0 += BLOCK_K) {
        int64_t end = S - j0 < BLOCK_K ? S : j0 + BLOCK_K;
        float *restrict tile = kp + j0 / BLOCK_K * KP_TILE * d_k;
        for (int64_t g = 0; g < BLOCK_K; g += MR)
            for (int64_t c = 0; c < d_k; c++)
                for (int r = 0; r < MR; r++)
                    tile[g * d_k + c * MR + r] = j0 + g + r < end ? k[(j0 + g + r) * d_k + c] : 0.0f;
    }
}

/* One block of queries while the key tiles go by: queries i0 .. i0 + rows - 1. */
typedef struct {
    int64_t i0, rows;
    float *qt;       /* (d_k, FLASH_Q): this block of queries, scaled, transposed  */
                     /* (by log2(e) / √d_k: the scores are in base 2, exp2_le0)  */
    float *acc;      /* (FLASH_Q, d_v): the output so far, not divided             */
    float *m, *l;    /* (FLASH_Q,): running max and sum per query                  */
    float *alpha;    /* (FLASH_Q,): 2^(m_old - m_new) of the last tile             */
    float *m_tile;   /* (FLASH_Q,): the max of the tile's scores per query         */
} FlashBlock;

/* What one thread needs: one slice's packed keys and one row of scores, O(S), and the rest O(tile). */
typedef struct {
    float *kp;       /* keys of slice kp_slice, MR side by side (pack_keys)            */
    int64_t kp_slice;
    bool finite;     /* slice kp_slice passed slice_is_finite; if not, kp holds its  */
                     /* keys transposed for the exact path (online_slice)           */
    float *row;      /* (S,): the exact path's scores of one query                  */
    float *st;       /* (BLOCK_K, FLASH_Q): scores, then 2^(s - m), transposed     */
    FlashBlock blk[STRIP];
} FlashWork;

/* The online softmax step of one tile St (cols keys x FLASH_Q queries). Key kr is
 * visible to query q when kr <= q + diag (causal, on the diagonal: diag = i0 - j0;
 * otherwise diag >= cols and every key is visible), so a key row kr <= diag is seen
 * by every query of the block and only the rows after it need the mask test. m_tile
 * comes in holding the max of key rows 0 .. max_from - 1 (kernel_tile took it from
 * the sums it had just made, without reading St again); the rest is added here. For every query: the
 * new max, the factor alpha that shrinks what was summed against the old max, St =
 * 2^(St - m_new) (0 where masked) and l = l · alpha + the column's sum. The scores
 * are in base 2 (q was scaled by log2 e), so 2^(St - m_new) is exp(s - max) of the
 * plain scores s, and m, m_tile and m_new are the base-2 maxima. */
static void flash_softmax_tile(float *restrict st, int64_t cols, int64_t diag, int64_t max_from,
                               float *restrict m_tile, float *restrict m, float *restrict l, float *restrict alpha) {
    for (int64_t kr = max_from; kr < cols; kr++) { /* the tile's max per query, over its visible keys */
        const float *restrict s = st + kr * FLASH_Q;
        int64_t lo = kr - diag; /* queries q < lo do not see key kr */
        if (lo <= 0)
            for (int q = 0; q < FLASH_Q; q++) m_tile[q] = s[q] > m_tile[q] ? s[q] : m_tile[q];
        else /* from query lo on: a loop with no test in it vectorises */
            for (int64_t q = lo; q < FLASH_Q; q++) m_tile[q] = s[q] > m_tile[q] ? s[q] : m_tile[q];
    }
    /* BEGIN BLANK flash_row_update */
    float sum[FLASH_Q];
    for (int q = 0; q < FLASH_Q; q++) {
        float m_new = m_tile[q] > m[q] ? m_tile[q] : m[q];
        sum[q] = 0.0f;
        alpha[q] = exp2_le0(m[q] - m_new); /* 2^(m_old - m_new); 0 on the first tile */
        m[q] = m_new;
    }
    for (int64_t kr = 0; kr < cols; kr++) { /* P = 2^(S - m_new), and its sum per query */
        float *restrict s = st + kr * FLASH_Q;
        int64_t lo = kr - diag;
        if (lo <= 0) /* every query sees key kr: no test in the loop */
            for (int q = 0; q < FLASH_Q; q++) {
                s[q] = exp2_le0(s[q] - m[q]);
                sum[q] += s[q];
            }
        else { /* queries before lo: the key is in their future, weight 0; then as above */
            for (int64_t q = 0; q < lo; q++) s[q] = 0.0f;
            for (int64_t q = lo; q < FLASH_Q; q++) {
                s[q] = exp2_le0(s[q] - m[q]);
                sum[q] += s[q];
            }
        }
    }
    for (int q = 0; q < FLASH_Q; q++) l[q] = l[q] * alpha[q] + sum[q];
    /* END BLANK */
}

/* One key tile (keys j0 .. j0 + cols - 1, cols = min(BLOCK_K, s_end - j0)) for one
 * block of queries: its scores, the online softmax step, and O += P · V_j. */
static void flash_tile(const Problem *p, const float *restrict kp, const float *restrict v, int64_t j0,
                       int64_t s_end, FlashBlock *fb, float *restrict st) {
    /* BEGIN BLANK flash_tiles */
    int64_t d_k = p->d_k, d_v = p->d_v, d_v32 = d_v / NR * NR, rows = fb->rows;
    int64_t cols = s_end - j0 < BLOCK_K ? s_end - j0 : BLOCK_K;
    int64_t diag = p->causal ? fb->i0 - j0 : cols; /* key kr is visible to query r when kr <= r + diag */
    /* St = K_j · Q_iᵀ   (cols, FLASH_Q), MR keys x NR queries at a time. For the groups
     * of MR keys that every query sees (all, unless on the causal diagonal or past the
     * last key) the kernel also takes the max per query, from the sums it just made.
     * On the causal diagonal, NR queries that all come before key g see none of the
     * group: their scores are not computed (the softmax step sets their weights to 0). */
    /* (< 0 when the block's first query comes after key j0: FLASH_Q 96 does not divide BLOCK_K) */
    int64_t seen_by_all = diag + 1 < cols ? diag + 1 : cols;
    int64_t fused = seen_by_all > 0 ? seen_by_all / MR * MR : 0;
    for (int64_t r = 0; r < FLASH_Q; r++) fb->m_tile[r] = -INFINITY;
    for (int64_t g = 0; g < cols; g += MR)
        for (int64_t q0 = g - diag > 0 ? (g - diag) / NR * NR : 0; q0 < rows; q0 += NR) /* q >= g - diag see key g */
            kernel_tile(d_k, kp + (j0 / BLOCK_K * KP_TILE + g) * d_k, MR, fb->qt + q0, FLASH_Q,
                        st + g * FLASH_Q + q0, FLASH_Q, false, g < fused ? fb->m_tile + q0 : NULL);
    /* m, l, and P = 2^(St - m) in place */
    flash_softmax_tile(st, cols, diag, fused, fb->m_tile, fb->m, fb->l, fb->alpha);
    /* O_i = O_i · alpha + P · V_j   (rows, d_v): St is Pᵀ, MR queries side by side.
     * alpha is exactly 1 when the max did not move (most tiles after the first). */
    bool first = j0 == 0; /* the first tile starts acc, the later ones add to it */
    for (int64_t r = 0; r < rows && !first; r++) {
        float alpha = fb->alpha[r]; /* (in a variable: the compiler cannot tell that acc and alpha never overlap) */
        if (alpha != 1.0f)
            for (int64_t c = 0; c < d_v; c++) fb->acc[r * d_v + c] *= alpha;
    }
    for (int64_t r0 = 0; r0 < rows; r0 += MR) {
        /* queries r0 .. r0 + MR - 1 see keys 0 .. r0 + MR - 1 + diag at most: the rest weigh 0 */
        int64_t seen = r0 + MR + diag < cols ? r0 + MR + diag : cols;
        for (int64_t c0 = 0; c0 < d_v32; c0 += NR)
            kernel_tile(seen, st + r0, FLASH_Q, v + j0 * d_v + c0, d_v, fb->acc + r0 * d_v + c0, d_v, !first, NULL);
    }
    for (int64_t r = 0; r < rows && d_v32 < d_v; r++) /* the last d_v % NR columns */
        for (int64_t kr = 0; kr < cols; kr++) {
            if (first && kr == 0)
                for (int64_t c = d_v32; c < d_v; c++) fb->acc[r * d_v + c] = 0.0f;
            float pr = st[kr * FLASH_Q + r];
            for (int64_t c = d_v32; c < d_v; c++)
                fb->acc[r * d_v + c] = fmaf(pr, v[(j0 + kr) * d_v + c], fb->acc[r * d_v + c]);
        }
    /* END BLANK */
}

/* Queries i0 .. i0 + STRIP·FLASH_Q - 1 of slice b (fewer at the end), whose keys are
 * packed in kp, as STRIP blocks: walk the key/value tiles once, each tile for every
 * block in turn, keeping per query a running max m, sum l and un-normalised output
 * acc; divide by l once at the end. */
static void flash_strip(const Problem *p, int64_t b, int64_t i0, const float *restrict kp, FlashWork *w) {
    const float *restrict q = p->q + p->q_at[b], *restrict v = p->v + p->v_at[b];
    float *restrict out = p->out + b * p->T * p->d_v;
    int64_t d_k = p->d_k, d_v = p->d_v;
    int nb = 0; /* blocks in this strip */
    /* Q_iᵀ, scaled once: qt[c][r] = q[i0 + r][c] · log2(e) / √d_k, zero columns past the
     * last query. With log2(e) in, the scores come out in base 2: exp(s) = 2^(s·log2 e). */
    float scale2 = p->scale * 1.44269504088896341f;
    for (; nb < STRIP && i0 + nb * FLASH_Q < p->T; nb++) {
        FlashBlock *fb = &w->blk[nb];
        fb->i0 = i0 + nb * FLASH_Q;
        fb->rows = p->T - fb->i0 < FLASH_Q ? p->T - fb->i0 : FLASH_Q;
        for (int64_t c = 0; c < d_k; c++) { /* along rows of qt: each is written once, in order */
            for (int64_t r = 0; r < fb->rows; r++) fb->qt[c * FLASH_Q + r] = q[(fb->i0 + r) * d_k + c] * scale2;
            for (int64_t r = fb->rows; r < FLASH_Q; r++) fb->qt[c * FLASH_Q + r] = 0.0f;
        }
        for (int64_t r = 0; r < FLASH_Q; r++) fb->m[r] = -INFINITY, fb->l[r] = 0.0f;
    }
    /* causal: a block's last query is i0 + rows - 1; key tiles after it lie wholly above
     * the diagonal and are skipped for that block, not computed and masked */
    for (int64_t j0 = 0; j0 < (p->causal ? w->blk[nb - 1].i0 + w->blk[nb - 1].rows : p->S); j0 += BLOCK_K)
        for (int s = 0; s < nb; s++) {
            int64_t s_end = p->causal ? w->blk[s].i0 + w->blk[s].rows : p->S;
            if (j0 < s_end) flash_tile(p, kp, v, j0, s_end, &w->blk[s], w->st);
        }
    for (int s = 0; s < nb; s++) { /* normalise once: output = acc / l */
        const FlashBlock *fb = &w->blk[s];
        for (int64_t r = 0; r < fb->rows; r++)
            for (int64_t c = 0; c < d_v; c++) out[(fb->i0 + r) * d_v + c] = fb->acc[r * d_v + c] / fb->l[r];
        /* the logsumexp, when asked for: m is the base-2 max of s·log2(e), so m·ln 2 is the
         * max of the scores s, and l = Σ exp(s - max): lse = max + log(l) = log Σ exp(s) */
        for (int64_t r = 0; r < fb->rows && p->lse; r++)
            p->lse[b * p->T + fb->i0 + r] = fb->m[r] * 0.693147180559945309f + logf(fb->l[r]);
    }
}

/* make OMP=1 builds with OpenMP: the (batch..., head, strip of query blocks) items are independent
 * (each writes its own output rows, with the same arithmetic on any thread, so the
 * result is bit for bit the one of one thread), and threads take them one by one.
 * Without it the pragma is empty and this is plain C99. */
#ifdef _OPENMP
#include <omp.h>
#define PARALLEL_FOR _Pragma("omp parallel for schedule(dynamic)")
#define N_THREADS omp_get_max_threads()
#define THREAD omp_get_thread_num()
#else
#define PARALLEL_FOR
#define N_THREADS 1
#define THREAD 0
#endif

int attention_threads(void) { return N_THREADS; }

void attention_set_threads(int n) {
#ifdef _OPENMP
    omp_set_num_threads(n > 0 ? n : 1);
#else
    (void)n;
#endif
}

/* attention_flash, and its logsumexp per row when lse is not NULL (the same pass). */
static Tensor *flash_run(const char *op, const Tensor *query, const Tensor *key, const Tensor *value,
                         bool is_causal, Tensor **lse) {
    Problem p = make_problem(op, query, key, value, is_causal);
    if (lse) { /* (..., T): the output's shape without its last dim */
        Shape ls = t_shape(p.output);
        ls.ndim--;
        *lse = t_zeros(ls);
        p.lse = t_numel(*lse) > 0 ? t_data(*lse) : NULL;
    }
    int64_t strips = (p.T + STRIP * FLASH_Q - 1) / (STRIP * FLASH_Q);
    /* all scratch before the loops, per thread: the packed keys of one slice, one row of
     * scores for the exact path, and the tiles */
    int n_threads = N_THREADS;
    FlashWork *w = (FlashWork *)t_alloc((size_t)n_threads * sizeof(FlashWork));
    for (int t = 0; t < n_threads; t++) {
        w[t].kp = scratch_floats((p.S + BLOCK_K - 1) / BLOCK_K * KP_TILE * p.d_k); /* >= S · d_k */
        w[t].kp_slice = -1;
        w[t].row = scratch_floats(p.S);
        w[t].st = scratch_floats(KP_TILE * FLASH_Q);
        for (int s = 0; s < STRIP; s++) {
            FlashBlock *fb = &w[t].blk[s];
            fb->qt = scratch_floats(p.d_k * FLASH_Q);
            fb->acc = scratch_floats(ACC_ROWS * p.d_v);
            fb->m = scratch_floats(FLASH_Q);
            fb->l = scratch_floats(FLASH_Q);
            fb->alpha = scratch_floats(FLASH_Q);
            fb->m_tile = scratch_floats(FLASH_Q);
        }
    }
    /* (slice, strip of query blocks) items in order. When a thread's next item is from
     * another slice than its last (about once per slice and thread), it checks that slice
     * (slice_is_finite) and packs its keys: one pass over q, k and v right before they are
     * used, while they are in the cache (checking every slice first, before any work,
     * read all of q, k and v from memory twice). */
    PARALLEL_FOR
    for (int64_t item = 0; item < p.n * strips; item++) {
        int64_t b = item / strips;
        FlashWork *wt = &w[THREAD];
        int64_t i0 = item % strips * (STRIP * FLASH_Q);
        if (wt->kp_slice != b) {
            wt->kp_slice = b;
            wt->finite = slice_is_finite(&p, b);
            if (wt->finite) pack_keys(p.k + p.k_at[b], p.S, p.d_k, wt->kp);
        }
        if (wt->finite)
            flash_strip(&p, b, i0, wt->kp, wt);
        else /* the exact path for these queries, row by row (their keys transposed into kp) */
            online_slice(&p, b, i0, i0 + STRIP * FLASH_Q < p.T ? i0 + STRIP * FLASH_Q : p.T, true, wt->kp, wt->row);
    }
    return p.output;
}

Tensor *attention_flash(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal) {
    return flash_run("attention_flash", query, key, value, is_causal, NULL);
}

Tensor *attention_flash_lse(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal,
                            Tensor **lse) {
    if (!lse) t_error("attention_flash_lse: lse is NULL: pass the address of a Tensor * to receive (..., T)");
    return flash_run("attention_flash_lse", query, key, value, is_causal, lse);
}

/* ---- merging two partial results by their logsumexp ------------------------------ */

/* Row i of out_a attended to one part of the keys and row i of out_b to the rest:
 * out_a = Σ_a exp(s - lse_a) v over part a, and so on. The whole row's softmax
 * denominator is e^{lse_a} + e^{lse_b}, and
 *     out = (e^{lse_a} out_a + e^{lse_b} out_b) / (e^{lse_a} + e^{lse_b}).
 * Written stably: with m = max(lse_a, lse_b) both weights are exp(lse - m) <= 1, and
 * the larger is exactly 1, so nothing overflows; lse = m + log(w_a + w_b). A part
 * with lse = -inf saw no key: its weight is 0 and its output (NaN, 0/0) is not read.
 * Both -inf: the row saw no key at all, NaN as in PyTorch, lse -inf. In double. */
Tensor *attention_merge_lse(const Tensor *out_a, const Tensor *lse_a, const Tensor *out_b, const Tensor *lse_b,
                            Tensor **lse) {
    char sa[T_SHAPE_STR], sb[T_SHAPE_STR], la[T_SHAPE_STR], lb[T_SHAPE_STR];
    bool ok = t_same_shape(out_a, out_b) && t_same_shape(lse_a, lse_b) && out_a->ndim >= 1 &&
              lse_a->ndim == out_a->ndim - 1;
    for (int i = 0; ok && i < lse_a->ndim; i++) ok = lse_a->shape[i] == out_a->shape[i];
    if (!ok)
        t_error("attention_merge_lse: out_a %s, lse_a %s, out_b %s, lse_b %s: the outputs must share one shape "
                "(..., T, d_v) and the lse its (..., T)",
                t_shape_str(out_a, sa), t_shape_str(lse_a, la), t_shape_str(out_b, sb), t_shape_str(lse_b, lb));
    Tensor *oa = t_contiguous(out_a), *ob = t_contiguous(out_b), *ea = t_contiguous(lse_a), *eb = t_contiguous(lse_b);
    Tensor *out = t_empty_like(out_a);   /* (..., T, d_v) */
    Tensor *lse_out = t_empty_like(lse_a); /* (..., T)      */
    int64_t d_v = t_size(out_a, -1), rows = t_numel(lse_a);
    const float *A = rows && d_v ? t_data(oa) : NULL, *B = rows && d_v ? t_data(ob) : NULL;
    const float *LA = rows ? t_data(ea) : NULL, *LB = rows ? t_data(eb) : NULL;
    float *O = rows && d_v ? t_data(out) : NULL, *L = rows ? t_data(lse_out) : NULL;
    for (int64_t r = 0; r < rows; r++) {
        double a = LA[r], b = LB[r], m = a > b ? a : b;   /* m = torch.maximum(lse_a, lse_b) */
        if (a != a || b != b) m = NAN;                    /* a NaN part makes the row NaN    */
        double wa = a == -INFINITY ? 0.0 : exp(a - m), wb = b == -INFINITY ? 0.0 : exp(b - m);
        double sum = wa + wb;                             /* 0 when neither part saw a key   */
        for (int64_t c = 0; c < d_v; c++) {
            double x = (wa > 0 ? wa * A[r * d_v + c] : 0.0) + (wb > 0 ? wb * B[r * d_v + c] : 0.0);
            O[r * d_v + c] = sum > 0 ? (float)(x / sum) : NAN; /* no key (0/0) or a NaN part */
        }
        L[r] = sum > 0 ? (float)(m + log(sum)) : (m != m ? NAN : -INFINITY);
    }
    if (lse) *lse = lse_out;
    return out;
}

/* ======================================================================== */

Tensor *fast_attention(AttnImpl impl, const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal) {
    switch (impl) {
    case ATTN_NAIVE: return attention_naive(query, key, value, is_causal);
    case ATTN_REORDERED: return attention_reordered(query, key, value, is_causal);
    case ATTN_TILED: return attention_tiled(query, key, value, is_causal);
    case ATTN_ONLINE: return attention_online(query, key, value, is_causal);
    case ATTN_FLASH: return attention_flash(query, key, value, is_causal);
    }
    t_error("fast_attention: unknown implementation %d (0..%d)", (int)impl, ATTN_N_IMPLS - 1);
}

/* ======================================================================== */
/* What the five share: names, shapes, broadcasting, scratch memory         */
/* ======================================================================== */

static const char *const IMPL_NAMES[ATTN_N_IMPLS] = {"naive", "reordered", "tiled", "online", "flash"};

const char *attn_impl_name(AttnImpl impl) {
    if ((int)impl < 0 || (int)impl >= ATTN_N_IMPLS) return "unknown";
    return IMPL_NAMES[impl];
}

AttnImpl attn_impl_parse(const char *name) {
    for (int i = 0; i < ATTN_N_IMPLS; i++)
        if (name && strcmp(name, IMPL_NAMES[i]) == 0) return (AttnImpl)i;
    t_error("attn_impl_parse: unknown implementation '%s': use naive, reordered, tiled, online or flash",
            name ? name : "(null)");
}

bool attn_impl_stores_scores(AttnImpl impl) {
    return impl == ATTN_NAIVE || impl == ATTN_REORDERED || impl == ATTN_TILED;
}

size_t attention_scores_budget(void) {
    return t_max_bytes() < SCORES_BUDGET ? t_max_bytes() : SCORES_BUDGET;
}

/* Scratch memory: every buffer a version needs is allocated once per call (never
 * inside the loops), from the current scope, and counted. */
static size_t scratch_bytes;

size_t attention_scratch_bytes(void) { return scratch_bytes; }

/* n floats of scratch. Big blocks come from the system page-aligned, so every buffer
 * would start at the same offset within a 4 KiB page; a load from an address a
 * multiple of 4 KiB after a recent store then waits for that store ("4K aliasing"),
 * which cost the flash loop a third of its speed. So buffer number i of a call is
 * moved on by 64·(i % 8) bytes. */
static int scratch_count;

static float *scratch_floats(int64_t n) {
    int64_t skew = 16 * (scratch_count++ % 8);
    size_t bytes = (size_t)(n + skew) * sizeof(float);
    scratch_bytes += bytes;
    return (float *)t_alloc(bytes) + skew;
}


/* Where slice b of x starts, for every b of the broadcast batch shape: a batch dim of
 * size 1 in x repeats (it steps by 0), the way torch.matmul broadcasts. */
static const int64_t *slice_starts(const Tensor *x, Shape batch, int64_t n) {
    int64_t *at = (int64_t *)t_alloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    scratch_bytes += (size_t)(n > 0 ? n : 1) * sizeof(int64_t);
    int lead = batch.ndim - (x->ndim - 2); /* batch dims that x does not have */
    for (int64_t b = 0; b < n; b++) {
        int64_t rest = b, start = 0;
        for (int i = batch.ndim - 1; i >= 0; i--) {
            int64_t idx = rest % batch.dims[i];
            rest /= batch.dims[i];
            int xi = i - lead;
            if (xi >= 0 && x->shape[xi] != 1) start += idx * x->strides[xi];
        }
        at[b] = start;
    }
    return at;
}

static void check_shapes(const char *op, const Tensor *query, const Tensor *key, const Tensor *value,
                         bool causal, Shape *batch) {
    char qs[T_SHAPE_STR], ks[T_SHAPE_STR];
    /* chapter 1's rules without the one on memory: online and flash never store the scores */
    *batch = check_qkv_shapes(op, query, key, value);
    int64_t T = t_size(query, -2), S = t_size(key, -2);
    if (causal && T != S)
        t_error("%s: query %s and key %s have T %lld != S %lld, but a causal mask needs T == S "
                "(queries and keys from the same sequence)",
                op, t_shape_str(query, qs), t_shape_str(key, ks), (long long)T, (long long)S);
}

/* Check the shapes, make the inputs contiguous (a copy only when they are not) and
 * allocate the output. */
static Problem make_problem(const char *op, const Tensor *query, const Tensor *key, const Tensor *value, bool causal) {
    Problem p;
    Shape batch, out_shape;
    scratch_bytes = 0;
    scratch_count = 0;
    check_shapes(op, query, key, value, causal, &batch);
    p.T = t_size(query, -2);
    p.S = t_size(key, -2);
    p.d_k = t_size(query, -1);
    p.d_v = t_size(value, -1);
    p.scale = 1.0f / sqrtf((float)p.d_k); /* / math.sqrt(d_k) */
    p.causal = causal;
    p.n = 1;
    for (int i = 0; i < batch.ndim; i++) p.n *= batch.dims[i];
    out_shape = p.scores_shape = batch;
    out_shape.dims[out_shape.ndim++] = p.T;
    out_shape.dims[out_shape.ndim++] = p.d_v;
    p.scores_shape.dims[p.scores_shape.ndim++] = p.T;
    p.scores_shape.dims[p.scores_shape.ndim++] = p.S;
    t_check_fits("the attention output", out_shape);

    const Tensor *in[3] = {query, key, value};
    const float *data[3];
    const int64_t *at[3];
    for (int i = 0; i < 3; i++) {
        Tensor *c = t_contiguous(in[i]); /* x.contiguous(): no copy when it already is */
        if (c != in[i]) scratch_bytes += (size_t)t_numel(c) * sizeof(float);
        data[i] = t_numel(c) > 0 ? t_data(c) : NULL;
        at[i] = slice_starts(c, batch, p.n);
    }
    p.q = data[0], p.k = data[1], p.v = data[2];
    p.q_at = at[0], p.k_at = at[1], p.v_at = at[2];
    p.output = t_zeros(out_shape); /* (..., T, d_v) */
    p.lse = NULL;
    p.out = t_numel(p.output) > 0 ? t_data(p.output) : NULL;
    return p;
}

int attention_scores_refusal(AttnImpl impl, Shape scores, char *err, size_t n) {
    double bytes = sizeof(float);
    for (int i = 0; i < scores.ndim; i++) bytes *= (double)scores.dims[i];
    if (!attn_impl_stores_scores(impl) || bytes <= (double)attention_scores_budget()) return 0;
    char sb[T_SHAPE_STR], want[32], limit[32];
    t_format_bytes_over(bytes, (double)attention_scores_budget(), want, limit, sizeof want);
    snprintf(err, n,
             t_tr("attention_%s: the scores %s would take %s, more than the %s this chapter allows for them; "
                  "attention_flash (--impl flash) never stores them"),
             attn_impl_name(impl), shape_str(scores, sb), want, limit);
    return 1;
}

/* The versions that store the scores refuse, in one sentence, when they would not fit. */
static void check_scores_budget(AttnImpl impl, const Problem *p) {
    char err[512];
    if (attention_scores_refusal(impl, p->scores_shape, err, sizeof err)) t_error("%s", err);
}

double attention_score_bytes(const Tensor *query, const Tensor *key) {
    Shape batch;
    char what[64];
    snprintf(what, sizeof what, "attention_score_bytes");
    batch = t_broadcast_shapes(what, shape_of(query->ndim - 2, query->shape), shape_of(key->ndim - 2, key->shape));
    double n = 1;
    for (int i = 0; i < batch.ndim; i++) n *= (double)batch.dims[i];
    return n * (double)t_size(query, -2) * (double)t_size(key, -2) * sizeof(float);
}

double attention_flops(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal) {
    double per_score = 2.0 * (double)t_size(query, -1) + 2.0 * (double)t_size(value, -1);
    double scores = attention_score_bytes(query, key) / sizeof(float);
    return scores * per_score * (is_causal ? 0.5 : 1.0);
}
