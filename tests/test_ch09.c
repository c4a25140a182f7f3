/* test_ch09.c — chapter 9, the parts that need no MPI (parallel_attention.c):
 * the partition of heads and positions, the column/row-parallel shards with
 * the row-parallel output (its all-reduce simulated in one process), ring
 * attention's step run rank by rank in one process, and the cost model. Each
 * is compared with chapter 7 (mha_forward) or chapter 4 (masked_attention) on
 * random shapes. The MPI program itself is tested by test_ch09_program.sh. */
#include <stdlib.h>

#include "tests/harness.h"
#include "common/program/program.h"
#include "chapters/09_parallel_attention/parallel_attention.h"

#define RTOL 1e-5
#define ATOL 1e-6

/* ---- who owns what ------------------------------------------------------------ */

static void test_chunks_are_array_split(void) {
    int64_t want5[3][2] = {{0, 2}, {2, 4}, {4, 5}};  /* np.array_split(range(5), 3) */
    for (int r = 0; r < 3; r++) {
        Range c = chunk_of_rank(5, 3, r);
        CHECK_EQ_INT(c.start, want5[r][0]);
        CHECK_EQ_INT(c.end, want5[r][1]);
    }
    int64_t want2[4][2] = {{0, 1}, {1, 2}, {2, 2}, {2, 2}};  /* T < P: two ranks own nothing */
    for (int r = 0; r < 4; r++) {
        Range c = chunk_of_rank(2, 4, r);
        CHECK_EQ_INT(c.start, want2[r][0]);
        CHECK_EQ_INT(c.end, want2[r][1]);
    }
    /* every T and P: contiguous, covering, sizes differ by at most one, rank 0's the largest */
    for (int64_t T = 1; T <= 13; T++)
        for (int P = 1; P <= 6; P++) {
            int64_t at = 0, most = chunk_of_rank(T, P, 0).end, least = most;
            for (int r = 0; r < P; r++) {
                Range c = chunk_of_rank(T, P, r);
                CHECK_EQ_INT(c.start, at);
                int64_t n = c.end - c.start;
                if (n > most) most = n;
                if (n < least) least = n;
                CHECK(n <= chunk_of_rank(T, P, 0).end);
                at = c.end;
            }
            CHECK_EQ_INT(at, T);
            CHECK(most - least <= 1);
        }
}

static void test_heads_of_rank(void) {
    Range h = heads_of_rank(6, 3, 1);
    CHECK_EQ_INT(h.start, 2);
    CHECK_EQ_INT(h.end, 4);
    CHECK_EQ_INT(n_local_heads_of(8, 4), 2);
    CHECK_EQ_INT(n_local_heads_of(5, 1), 5);
    CHECK_ERROR(n_local_heads_of(4, 3), "n_heads = 4 is not divisible by model_parallel_size = 3");
    CHECK_ERROR(heads_of_rank(2, 4, 0), "not divisible");
    CHECK_EQ_INT(parallel_mode_parse("heads"), PARALLEL_HEADS);
    CHECK_EQ_INT(parallel_mode_parse("sequence"), PARALLEL_SEQUENCE);
    CHECK_EQ_INT(parallel_mode_parse("pipeline"), -1);
    CHECK(strcmp(parallel_mode_name(PARALLEL_SEQUENCE), "sequence") == 0);
}

static void test_chunk_in_future(void) {
    Range q = {2, 4};
    Range past = {0, 2}, diagonal = {2, 4}, overlap = {3, 5}, future = {4, 6};
    CHECK(!chunk_in_future(q, past));
    CHECK(!chunk_in_future(q, diagonal));
    CHECK(!chunk_in_future(q, overlap));
    CHECK(chunk_in_future(q, future));
}

/* ---- heads: shards and the row-parallel output ---------------------------------- */

static void test_shards_are_rows_and_columns(void) {
    Linear *w = nn_linear(5, 6, true);  /* weight (6, 5), bias (6,) */
    Range rows = {2, 4};
    Linear *col = column_parallel_shard(w, rows);
    CHECK_EQ_INT(t_size(col->weight, 0), 2);
    CHECK_EQ_INT(t_size(col->weight, 1), 5);
    CHECK_EQ_INT(t_size(col->bias, 0), 2);
    CHECK_CLOSE(t_get(col->weight, 1, 3), t_get(w->weight, 3, 3), 0);
    CHECK_CLOSE(t_get(col->bias, 0), t_get(w->bias, 2), 0);
    Range cols = {1, 4};
    Linear *row = row_parallel_shard(w, cols);
    CHECK_EQ_INT(t_size(row->weight, 0), 6);
    CHECK_EQ_INT(t_size(row->weight, 1), 3);
    CHECK(row->bias == NULL);
    CHECK_CLOSE(t_get(row->weight, 5, 0), t_get(w->weight, 5, 1), 0);
}

/* The all-reduce of rank `rank`, simulated: add the other ranks' partial outputs. */
typedef struct {
    Tensor **partials;
    int P, rank, calls;
} SimReduce;

static void sim_all_reduce(Tensor *t, void *ctx) {
    SimReduce *s = (SimReduce *)ctx;
    float *d = t_data(t);
    for (int r = 0; r < s->P; r++) {
        if (r == s->rank) continue;
        const float *o = t_data(s->partials[r]);
        for (int64_t i = 0; i < t_numel(t); i++) d[i] += o[i];
    }
    s->calls++;
}

/* Rank by rank, local_heads_module + row_parallel_output equal chapter 7's output. */
static void check_heads(int64_t B, int64_t T, int64_t d_in, int64_t d_out, int64_t H, int P, bool causal, bool bias) {
    ModelArgs a = handwritten_mha_args(d_in, d_out, T, 0.0, H);
    a.causal = causal;
    a.qkv_bias = bias;
    a.out_bias = bias;
    MultiHeadAttention *m = mha_new(a);
    mha_eval(m);
    Tensor *x = t_randn(SHAPE(B, T, d_in));
    Tensor *want = mha_forward(m, x, x, x, NULL);
    Tensor **partials = (Tensor **)t_alloc((size_t)P * sizeof *partials);
    for (int r = 0; r < P; r++) {
        MultiHeadAttention *local = local_heads_module(m, P, r);
        CHECK_EQ_INT(local->args.n_heads, H / P);
        CHECK_EQ_INT(local->args.d_out, d_out / P);
        CHECK_EQ_INT(t_size(local->qkv->wq->weight, 0), d_out / P);
        CHECK_EQ_INT(t_size(local->wo->weight, 1), d_out / P);
        partials[r] = t_contiguous(mha_forward(local, x, x, x, NULL));  /* (B, T, d_out) */
    }
    for (int r = 0; r < P; r++) {
        SimReduce s = {partials, P, r, 0};
        Tensor *out = row_parallel_output(t_clone(partials[r]), m->wo->bias, sim_all_reduce, &s);
        CHECK_EQ_INT(s.calls, 1);
        CHECK_MSG(t_allclose(out, want, RTOL, ATOL),
                  "heads, P = %d, rank %d, H = %lld, T = %lld%s%s: max |out - chapter 7| = %g", P, r, (long long)H,
                  (long long)T, causal ? ", causal" : "", bias ? ", biases" : "", t_max_abs_diff(out, want));
    }
}

static void test_heads_parallel_equals_chapter_7(void) {
    t_manual_seed(9);
    check_heads(2, 5, 10, 8, 2, 2, true, true);    /* the seed's sizes, with biases: bo only once */
    check_heads(1, 7, 6, 12, 4, 4, false, false);
    check_heads(3, 4, 5, 12, 6, 3, true, false);
    check_heads(2, 3, 4, 6, 3, 1, false, true);    /* P = 1: the whole module */
    for (int trial = 0; trial < 6; trial++) {      /* random shapes */
        int P = 1 + rand() % 4;
        int64_t H = P * (1 + rand() % 3), hd = 1 + rand() % 4;
        check_heads(1 + rand() % 3, 1 + rand() % 9, 1 + rand() % 9, H * hd, H, P, rand() % 2, rand() % 2);
    }
}

/* ---- sequence: the ring, rank by rank, in one process ------------------------------ */

static Tensor *rows_of(const Tensor *x, Range r) { return t_contiguous(t_slice(x, 2, r.start, r.end)); }

/* For every rank, fold the chunks in ring order (or backwards) and compare with chapter 4. */
static void check_ring(int64_t B, int64_t H, int64_t T, int64_t hd, int P, bool causal, bool backwards) {
    Tensor *xq = t_randn(SHAPE(B, H, T, hd)), *xk = t_randn(SHAPE(B, H, T, hd)), *xv = t_randn(SHAPE(B, H, T, hd));
    Tensor *want = masked_attention(xq, xk, xv, causal ? causal_mask(T, 1) : NULL).output;  /* (B, H, T, hd) */
    for (int r = 0; r < P; r++) {
        Range q = chunk_of_rank(T, P, r);
        RingState st = ring_state_new(B, H, q.end - q.start, hd);
        int64_t folded = 0;
        for (int step = 0; step < P; step++) {
            int origin = backwards ? (r + 1 + step) % P : ((r - step) % P + P) % P;
            Range k = chunk_of_rank(T, P, origin);
            folded += ring_attend_chunk(&st, rows_of(xq, q), q, rows_of(xk, k), rows_of(xv, k), k, causal);
        }
        /* every query at position i saw i + 1 keys (causal) or all T */
        int64_t rows = q.end - q.start, expect = causal ? B * H * (rows * q.start + rows * (rows + 1) / 2) : B * H * rows * T;
        CHECK_EQ_INT(folded, expect);
        if (rows == 0) continue;
        Tensor *out = ring_state_finish(&st);
        Tensor *w = rows_of(want, q);
        CHECK_MSG(t_allclose(out, w, RTOL, ATOL), "ring, P = %d, rank %d, T = %lld%s%s: max |out - chapter 4| = %g",
                  P, r, (long long)T, causal ? ", causal" : "", backwards ? ", backwards" : "",
                  t_max_abs_diff(out, w));
    }
}

static void test_ring_equals_chapter_4(void) {
    t_manual_seed(11);
    for (int P = 1; P <= 4; P++) {
        check_ring(2, 2, 5, 4, P, true, false);
        check_ring(2, 2, 5, 4, P, false, false);
        check_ring(1, 3, 7, 3, P, true, true);    /* chunks in any order give the same result */
        check_ring(1, 1, 2, 2, P, true, false);   /* T < P for P = 3, 4 */
    }
    for (int trial = 0; trial < 8; trial++)
        check_ring(1 + rand() % 2, 1 + rand() % 3, 1 + rand() % 11, 1 + rand() % 5, 1 + rand() % 5, rand() % 2,
                   rand() % 2);
}

static void test_ring_skips_the_future(void) {
    t_manual_seed(12);
    Tensor *xq = t_randn(SHAPE(1, 1, 2, 3)), *xk = t_randn(SHAPE(1, 1, 2, 3)), *xv = t_randn(SHAPE(1, 1, 2, 3));
    RingState st = ring_state_new(1, 1, 2, 3);
    Range q = {0, 2}, future = {2, 4};
    CHECK_EQ_INT(ring_attend_chunk(&st, xq, q, xk, xv, future, true), 0);
    CHECK_EQ_INT(ring_attend_chunk(&st, xq, q, xk, xv, future, false), 4);  /* not causal: folded */
    Range diagonal = {0, 2};
    RingState st2 = ring_state_new(1, 1, 2, 3);
    CHECK_EQ_INT(ring_attend_chunk(&st2, xq, q, xk, xv, diagonal, true), 3);  /* 1 + 2 keys */
    /* the first query saw only key 0: its output is value 0 */
    Tensor *out = ring_state_finish(&st2);
    for (int c = 0; c < 3; c++) CHECK_CLOSE(t_get(out, 0, 0, 0, c), t_get(xv, 0, 0, 0, c), 1e-6);
}

/* ---- the cost model ---------------------------------------------------------------- */

static void test_bytes_sent(void) {
    ParallelDims d = {3, 5, 10, 8, 2};  /* B, T, d_in, d_out, H */
    /* heads: every rank all-reduces B*T*d_out floats = 3*5*8*4 bytes */
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_HEADS, d, 2, 0), 480);
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_HEADS, d, 2, 1), 480);
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_HEADS, d, 1, 0), 0);
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_SEQUENCE, d, 1, 0), 0);
    /* sequence, P = 3, chunks 2, 2, 1: K+V of a position = 2*B*d_out*4 = 192 bytes, output 96 */
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_SEQUENCE, d, 3, 0), 2 * 192 + 1 * 192);          /* own, rank 2's */
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_SEQUENCE, d, 3, 1), 2 * 192 + 2 * 192 + 2 * 96); /* own, rank 0's, out */
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_SEQUENCE, d, 3, 2), 1 * 192 + 2 * 192 + 1 * 96); /* own, rank 1's, out */
    CHECK_EQ_INT(parallel_bytes_sent_total(PARALLEL_SEQUENCE, d, 3), 576 + 960 + 672);
    CHECK_EQ_INT(parallel_bytes_sent_max(PARALLEL_SEQUENCE, d, 3), 960);
    /* the ring sends every chunk P - 1 times: total = (P - 1) * 2*B*T*d_out*4 + the gather */
    ParallelDims big = {2, 100, 16, 32, 4};
    for (int P = 2; P <= 6; P++) {
        Range c0 = chunk_of_rank(100, P, 0);
        int64_t ring = (int64_t)(P - 1) * 2 * 2 * 100 * 32 * 4, gather = 2 * (100 - (c0.end - c0.start)) * 32 * 4;
        CHECK_EQ_INT(parallel_bytes_sent_total(PARALLEL_SEQUENCE, big, P), ring + gather);
    }
}

static void test_memory_model(void) {
    ParallelDims d = {1, 4, 2, 4, 2};  /* B 1, T 4, d_in 2, d_out 4, H 2 */
    /* heads, P = 2: wq/wk/wv rows 3*2*2 + wo cols 4*2 + x 4*2 + xq/xk/xv 3*4*2
     * + scores/weights 2*1*4*4 + merged 4*2 + partial 4*4 = 12+8+8+24+32+8+16 = 108 floats */
    CHECK_EQ_INT(parallel_memory_bytes(PARALLEL_HEADS, d, 2, 0), 108 * 4);
    /* sequence, P = 2, rank 1 (positions 2, 3): weights 3*4*2 + 16 = 40, x 2*2 = 4, xq/xk/xv 3*2*4 = 24,
     * K/V held and arriving 2*2*2*4 = 32, scores 2*2*2 = 8, m, l 2*2*2 = 8, acc 8, output 8 = 132 floats;
     * rank 0 also the gathered output 16 */
    CHECK_EQ_INT(parallel_memory_bytes(PARALLEL_SEQUENCE, d, 2, 1), 132 * 4);
    CHECK_EQ_INT(parallel_memory_bytes(PARALLEL_SEQUENCE, d, 2, 0), 148 * 4);
    /* long sequences: memory per rank falls with P in sequence mode, the (T, T) scores stay in heads mode */
    ParallelDims lng = {1, 4096, 64, 64, 8};
    CHECK(parallel_memory_bytes_max(PARALLEL_SEQUENCE, lng, 4) < parallel_memory_bytes_max(PARALLEL_SEQUENCE, lng, 2));
    CHECK(parallel_memory_bytes_max(PARALLEL_SEQUENCE, lng, 8) < parallel_memory_bytes_max(PARALLEL_HEADS, lng, 8));
}

int main(void) {
    RUN(test_chunks_are_array_split);
    RUN(test_heads_of_rank);
    RUN(test_chunk_in_future);
    RUN(test_shards_are_rows_and_columns);
    RUN(test_heads_parallel_equals_chapter_7);
    RUN(test_ring_equals_chapter_4);
    RUN(test_ring_skips_the_future);
    RUN(test_bytes_sent);
    RUN(test_memory_model);
    return harness_finish("test_ch09");
}
