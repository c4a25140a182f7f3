/* fast_attention.h — chapter 8: why attention is slow, and how it is made fast.
 *
 * Every function here computes the same thing as chapters 2 and 4,
 *
 *     scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
 *     scores = scores + mask            # only when causal (chapter 4)
 *     p_attn = scores.softmax(dim=-1)
 *     output = torch.matmul(p_attn, value)
 *
 * which PyTorch 2 packs into one call, F.scaled_dot_product_attention(query,
 * key, value, is_causal=causal). Five versions, each adding one idea:
 *
 *   naive      the three lines as loops: the full (..., T, S) scores in memory
 *   reordered  loop order and a transposed key so that every inner loop runs
 *              over contiguous memory and the compiler can vectorise it
 *   tiled      the two matmuls in blocks that stay in the caches, computed
 *              a register tile at a time (8 x 32 with AVX-512, 6 x 16 with AVX2)
 *   online     one query row at a time (that alone removes the (T, S) matrix),
 *              with the one-pass online softmax (Milakov & Gimelshein 2018):
 *              running max, sum and output per row, one exp per score
 *   flash      the same update on tiles of queries x tiles of keys
 *              (FlashAttention-2), the score tile transposed: memory O(S·d),
 *              and causal runs skip the tiles above the diagonal
 *
 * Non-finite inputs give what PyTorch gives: the mask is added (NaN + -inf =
 * NaN), a row of NaN, +inf or only -inf scores is NaN, and 0 · inf = NaN in
 * p_attn · value (online and flash check each slice and take an exact path
 * when a value is not finite).
 *
 * Shapes: query (..., T, d_k), key (..., S, d_k), value (..., S, d_v) with
 * batch dims that broadcast as in chapter 2 (e.g. (bsz, n_heads, T, head_dim)
 * from chapter 5); the result is the output (..., T, d_v). is_causal needs
 * T == S (chapter 4's rule). Every version is tested against chapter 2/4.
 */
#ifndef CH08_FAST_ATTENTION_H
#define CH08_FAST_ATTENTION_H

#include "chapters/04_causal_mask/causal_mask.h"

/* ---- the five versions ------------------------------------------------------ */

/* The blocks of tiled and flash: BLOCK_Q queries meet BLOCK_K keys (why these, in
 * fast_attention.c). Chapter 12's backward walks the same tiles. */
#define ATTN_BLOCK_Q 64
#define ATTN_BLOCK_K 256
/* flash's own block of queries: ATTN_BLOCK_Q, but 96 with the AVX2 register tile
 * (6 x 16), whose groups of 6 queries fill 96 exactly (fast_attention.c, FLASH_Q). */
int attn_flash_block_q(void);

typedef enum { ATTN_NAIVE, ATTN_REORDERED, ATTN_TILED, ATTN_ONLINE, ATTN_FLASH } AttnImpl;
#define ATTN_N_IMPLS 5

Tensor *attention_naive(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal);
Tensor *attention_reordered(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal);
Tensor *attention_tiled(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal);
Tensor *attention_online(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal);
Tensor *attention_flash(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal);

/* attention_flash, and in the same pass the logsumexp of every row's scaled scores:
 *     lse = torch.logsumexp(scores, dim=-1)      # scores = q @ kᵀ / √d_k (+ mask)
 * (..., T), natural log; lse = m + log(l) of the running max m and sum l, the log of
 * the row's softmax denominator, so p_attn = exp(scores - lse[..., None]). A row with
 * no visible key (every score -inf) has lse = -inf (and output NaN, as PyTorch); a
 * NaN score makes it NaN. The output is bit for bit attention_flash's. What a
 * backward (chapter 12), a ring of processes (chapter 9) or a split-K decode
 * (chapter 11) needs besides the output. */
Tensor *attention_flash_lse(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal,
                            Tensor **lse);

/* Two partial results of the same queries over two disjoint parts of the keys, each
 * with its lse, merged into the result over all the keys:
 *     out = (e^{lse_a} out_a + e^{lse_b} out_b) / (e^{lse_a} + e^{lse_b})
 *     lse = log(e^{lse_a} + e^{lse_b})
 * computed stably (both exponents taken against max(lse_a, lse_b), in double). A part
 * with lse -inf saw no key and counts 0 (its NaN output is not read); both -inf give
 * NaN and lse -inf. out_a, out_b (..., T, d_v), lse_a, lse_b (..., T); *lse (may be
 * NULL) gets the merged (..., T). Shapes that do not fit are an error sentence. */
Tensor *attention_merge_lse(const Tensor *out_a, const Tensor *lse_a, const Tensor *out_b, const Tensor *lse_b,
                            Tensor **lse);

/* One of the five by name: what --impl chooses. */
Tensor *fast_attention(AttnImpl impl, const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal);

/* "naive", ..., "flash"; and back (an unknown name is an error sentence listing the five). */
const char *attn_impl_name(AttnImpl impl);
AttnImpl attn_impl_parse(const char *name);

/* naive, reordered and tiled store the (..., T, S) scores; online and flash never do. */
bool attn_impl_stores_scores(AttnImpl impl);

/* ---- the one-pass online softmax of one query row -------------------------------- */

/* The state of one query row while its keys stream past: the running max m of the
 * scores seen, the running sum l of exp(s - m), and the running output acc (d_v,),
 * Σ exp(s - m) · v, not yet divided by l. Start with online_row_init; fold keys in
 * with online_row_update, in any number of calls (a tile, a chunk that arrived from
 * another process in chapter 9); online_row_finish divides acc by l.
 *
 * online_row_update folds n keys: scores[j] (already scaled and masked) and their
 * value rows value + j·ldv (d_v each). One exp per score, plus one rescale of l and
 * acc each time the max grows: this is the step chapter 9's ring attention reuses.
 * Non-finite scores follow softmax on the additive mask: -inf keys weigh 0, a row of
 * nothing but -inf ends as NaN (0/0, as PyTorch gives), NaN or +inf make the row NaN. */
void online_row_init(float *m, float *l, float *acc, int64_t d_v);
void online_row_update(float *m, float *l, float *acc, int64_t d_v, const float *scores, int64_t n,
                       const float *value, int64_t ldv);
void online_row_finish(float *acc, int64_t d_v, float l);

/* c (+)= a · b, row-major: a (m, kdim) with leading dim lda, b (kdim, n) with ldb,
 * c (m, n) with ldc (accumulate: add to c, else overwrite it), through the register
 * kernel of tiled and flash (its tile per vector unit, fast_attention.c). packed: ATTN_MATMUL_PACKED(kdim) floats of
 * scratch. For chapter 12's tiles. */
#define ATTN_MATMUL_PACKED(kdim) (8 * (kdim))
/* That kernel's register tile, chosen from the compiler's macros for the vector unit it
 * targets: "AVX-512 8 x 32", "AVX2 6 x 16", "NEON 8 x 8" or "portable 4 x 8". */
const char *attn_register_tile(void);
/* Its rows (queries) and columns (keys): 8 x 32, 6 x 16, 8 x 8 or 4 x 8. */
int attn_tile_rows(void);
int attn_tile_cols(void);
/* The partial results of the vectorised max (4 vectors' worth) and sum (one) of a row of
 * scores, and the widest vector of floats the compiler may use in this build (16 with
 * AVX-512, 8 with AVX, 4 with SSE2, NEON or WebAssembly SIMD, else 1): what the
 * narration says, read from the build. */
int attn_max_partials(void);
int attn_sum_partials(void);
int attn_vector_floats(void);
void attn_matmul(int64_t m, int64_t n, int64_t kdim, const float *a, int64_t lda, const float *b, int64_t ldb,
                 float *c, int64_t ldc, bool accumulate, float *packed);
/* c (+)= aᵀ · b, a given as (kdim, m) row-major with leading dim lda (Pᵀ · dO from
 * P itself, with no transposed copy), the same kernel, no scratch. */
void attn_matmul_at(int64_t m, int64_t n, int64_t kdim, const float *a, int64_t lda, const float *b, int64_t ldb,
                    float *c, int64_t ldc, bool accumulate);

/* ---- the cost model ------------------------------------------------------------ */

/* Floating-point operations of one call: 2·T·S·d_k for the scores plus 2·T·S·d_v for
 * weights · value, per (batch, head) slice; with d_k = d_v = d that is 4·B·H·T·S·d.
 * Halved when causal (only the keys at or before each query count). */
double attention_flops(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal);

/* Bytes of the (..., T, S) float32 score matrix that chapters 2 and 4 materialise. */
double attention_score_bytes(const Tensor *query, const Tensor *key);

/* The most the score-storing versions may allocate for their scores: 512 MiB, or
 * t_max_bytes() (env ATTN_MAX_BYTES) when that is smaller. Above it they refuse with
 * one sentence that points to attention_flash (--impl flash). */
size_t attention_scores_budget(void);
/* That sentence, for version impl and scores of shape (..., T, S), into err: 1 when impl
 * stores its scores and they would take more than attention_scores_budget(), else 0.
 * The program says it before any work (main.c); the versions refuse with it. */
int attention_scores_refusal(AttnImpl impl, Shape scores, char *err, size_t n);

/* Extra memory the last call of a version allocated (scores, transposed keys, tiles,
 * rows; not the inputs or the output). Nothing is freed during a call, so this is
 * also its peak. */
size_t attention_scratch_bytes(void);

/* Threads attention_flash spreads its (batch..., head, query block) items over: 1, unless
 * built with make OMP=1 (OpenMP; then OMP_NUM_THREADS or the number of cores). Each
 * thread has its own scratch. */
int attention_threads(void);

/* Ask for n threads (n >= 1) in the next calls of attention_flash; without OpenMP this
 * does nothing. The result is bit for bit the same on any number of threads. */
void attention_set_threads(int n);

/* exp(x) as the vectorised versions compute it: a polynomial on [-ln2/2, ln2/2] times
 * a power of two, within 2 ulp of expf for x in [-87, 88]; 0 below -87 (and for -inf),
 * NaN for NaN. libm's expf is a function call the compiler cannot vectorise without
 * -ffast-math; this is plain arithmetic, so it can. */
float attn_exp(float x);

/* x[j] = attn_exp(x[j] · scale - shift) for j < n, in a loop the compiler vectorises:
 * p_attn = exp(scores / √d_k - lse) of a row, as chapter 12 rebuilds it. */
void attn_exp_row(float *x, int64_t n, float scale, float shift);

/* 2^x for x <= 0 as flash computes it (its scores are in base 2): within 1.75e-7 of
 * 2^x, relative, for x in [-126, 0]; 2^-126 below -126 (and for -inf). Not for
 * x > 0 or NaN: flash never passes them. */
float attn_exp2(float x);

/* ---- measuring (measure.c) -------------------------------------------------------- */

/* Seconds on a monotonic clock, for timing differences. */
double stopwatch_seconds(void);

/* CPU seconds this thread has run (CLOCK_THREAD_CPUTIME_ID): unlike the wall clock,
 * it does not count the time other programs had the core. */
double thread_cpu_seconds(void);

/* This core's ceiling: GFLOP/s of a loop of independent fused multiply-adds (as many
 * vectors of accumulators as stay in registers: 16 with AVX-512, 12 with AVX2;
 * nothing else), the best of 8 runs of about seconds/8 of this thread's CPU time. */
double fma_peak_gflops(double seconds);
/* Its independent accumulators (floats): 256 with AVX-512, 96 with AVX2, else 64. */
int fma_peak_accumulators(void);

#endif
