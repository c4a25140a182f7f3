/* test_ch09.c — chapter 9, the parts that need no MPI (parallel_attention.c):
 * the partition of heads and positions, the column/row-parallel shards with
 * the row-parallel output (its all-reduce simulated in one process), ring
 * attention's step run rank by rank in one process, and the cost model. Each
 * is compared with chapter 7 (mha_forward) or chapter 4 (masked_attention) on
 * random shapes. The MPI program itself is tested by test_ch09_program.sh. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "common/program/program.h"
#include "chapters/09_parallel_attention/parallel_attention.h"
#include "chapters/12_flash_backward/flash_backward.h"

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

/* ---- sequence: the program's ring (flash per block, merged by lse), in one process ---- */

/* x (B, H, T, hd) at one rank's positions, in order: (B, H, owned, hd). */
static Tensor *owned_of(const Tensor *x, Owned o) {
    Tensor *t = t_contiguous(t_transpose(x, 1, 2));               /* (B, T, H, hd) */
    Shape s = t_shape(t);
    Tensor *flat = t_view(t, SHAPE(s.dims[0], s.dims[1], s.dims[2] * s.dims[3]));
    Tensor *rows = owned_rows(flat, o);                             /* (B, n, H*hd) */
    return t_contiguous(t_transpose(t_view(rows, SHAPE(s.dims[0], owned_count(o), s.dims[2], s.dims[3])), 1, 2));
}

/* Every rank of the ring in one process: ring_flash_step on the rows ring_block says, in
 * ring order; each rank's result equals chapter 4 at its positions, the pairs folded add
 * up to the visible ones, and the rows each step passes on are never more than the
 * sender holds (so a rank receives exactly the rows it uses). */
static void check_flash_ring(SeqLayout layout, int64_t B, int64_t H, int64_t T, int64_t hd, int P, bool causal) {
    Tensor *xq = t_randn(SHAPE(B, H, T, hd)), *xk = t_randn(SHAPE(B, H, T, hd)), *xv = t_randn(SHAPE(B, H, T, hd));
    Tensor *want = masked_attention(xq, xk, xv, causal ? causal_mask(T, 1) : NULL).output;  /* (B, H, T, hd) */
    int64_t total = 0;
    for (int r = 0; r < P; r++) {
        Owned q = owned_positions(layout, T, P, r);
        int64_t rows = owned_count(q), held = rows;
        FlashAcc acc = flash_acc_new(B, H, rows, hd);
        Tensor *mq = owned_of(xq, q);
        for (int step = 0; step < P; step++) {
            int origin = ring_origin(layout, P, r, step);
            Owned k = owned_positions(layout, T, P, origin);
            RingBlock blk = ring_block(layout, T, P, r, origin, causal);
            CHECK_MSG(blk.k_end <= held, "%s P = %d T = %lld rank %d step %d: uses %lld rows, holds %lld",
                      seq_layout_name(layout), P, (long long)T, r, step, (long long)blk.k_end, (long long)held);
            total += ring_flash_step(&acc, mq, owned_of(xk, k), owned_of(xv, k), blk, NULL);
            /* the next step holds what this rank received: the rows it uses of the next block */
            if (step + 1 < P) held = ring_block(layout, T, P, r, ring_origin(layout, P, r, step + 1), causal).k_end;
        }
        if (rows == 0) continue;
        Tensor *w = owned_of(want, q);
        CHECK_MSG(t_allclose(acc.out, w, RTOL, ATOL), "flash ring %s, P = %d, rank %d, T = %lld%s: max diff %g",
                  seq_layout_name(layout), P, r, (long long)T, causal ? ", causal" : "", t_max_abs_diff(acc.out, w));
    }
    CHECK_EQ_INT(total, causal ? B * H * T * (T + 1) / 2 : B * H * T * T);
}

static void test_flash_ring_equals_chapter_4(void) {
    t_manual_seed(13);
    for (int P = 1; P <= 4; P++) {
        for (int c = 0; c < 2; c++) {
            check_flash_ring(LAYOUT_CONTIGUOUS, 2, 2, 5, 4, P, c);
            check_flash_ring(LAYOUT_CONTIGUOUS, 1, 1, 2, 2, P, c);     /* T < P for P = 3, 4 */
            check_flash_ring(LAYOUT_ZIGZAG, 2, 2, 2 * P, 4, P, c);     /* one position per chunk */
            check_flash_ring(LAYOUT_ZIGZAG, 1, 3, 2 * P + 3, 3, P, c); /* uneven chunks */
        }
        check_flash_ring(LAYOUT_ZIGZAG, 1, 2, 300, 8, P, true);       /* several of flash's tiles */
    }
    for (int trial = 0; trial < 12; trial++) {
        int P = 1 + rand() % 4;
        check_flash_ring(rand() % 2 ? LAYOUT_ZIGZAG : LAYOUT_CONTIGUOUS, 1 + rand() % 2, 1 + rand() % 3,
                         2 * P + rand() % 20, 1 + rand() % 5, P, rand() % 2);
    }
}

/* A poke that counts its calls (the MPI side's is MPI_Testall on the exchange in flight). */
static void count_poke(void *ctx) { (*(int *)ctx)++; }

static bool same_bits(const Tensor *a, const Tensor *b) {
    Tensor *ca = t_contiguous(a), *cb = t_contiguous(b);
    return t_numel(ca) == t_numel(cb) && memcmp(t_data(ca), t_data(cb), (size_t)t_numel(ca) * sizeof(float)) == 0;
}

/* A ring step folds one (batch, head) at a time and pokes after each: B * H pokes on a
 * block with pairs, none on an empty one; poking changes no bit of the result. Its
 * backward, one (batch, head) at a time too, adds chapter 12's gradients of the whole
 * block into dq, dk, dv at the block's rows. */
static void test_ring_steps_poke_between_heads(void) {
    t_manual_seed(29);
    int64_t B = 2, H = 3, T = 11, hd = 4;
    Tensor *xq = t_randn(SHAPE(B, H, T, hd)), *xk = t_randn(SHAPE(B, H, T, hd)), *xv = t_randn(SHAPE(B, H, T, hd));
    RingBlock blk = {2, 9, 7, false};  /* queries 2..8 against keys 0..6 */
    FlashAcc a = flash_acc_new(B, H, T, hd), b = flash_acc_new(B, H, T, hd);
    int pokes = 0;
    RingPoke poke = {count_poke, &pokes};
    CHECK_EQ_INT(ring_flash_step(&a, xq, xk, xv, blk, &poke), B * H * 7 * 7);
    CHECK_EQ_INT(pokes, B * H);
    ring_flash_step(&b, xq, xk, xv, blk, NULL);
    CHECK_MSG(same_bits(a.out, b.out) && same_bits(a.lse, b.lse), "a poke changed the ring step's result");
    RingBlock empty = {3, 3, 5, false};  /* no query rows: nothing to fold, nobody poked */
    CHECK_EQ_INT(ring_flash_step(&a, xq, xk, xv, empty, &poke), 0);
    CHECK_EQ_INT(pokes, B * H);

    /* the backward of one causal diagonal block, against chapter 12 on the whole block */
    RingBlock diag = {0, T, T, true};
    Tensor *lse;
    Tensor *out = attention_flash_lse(xq, xk, xv, true, &lse);
    Tensor *dout = t_randn(SHAPE(B, H, T, hd));
    AttnGrads want = attention_backward_flash(xq, xk, xv, out, lse, dout, true);
    Tensor *dq = t_zeros(SHAPE(B, H, T, hd)), *dk = t_zeros(SHAPE(B, H, T, hd)), *dv = t_zeros(SHAPE(B, H, T, hd));
    pokes = 0;
    ring_flash_backward_step(xq, xk, xv, out, lse, dout, diag, dq, dk, dv, &poke);
    CHECK_EQ_INT(pokes, B * H);
    CHECK_MSG(t_allclose(dq, want.grad_q, RTOL, ATOL), "ring backward dq: max diff %g", t_max_abs_diff(dq, want.grad_q));
    CHECK_MSG(t_allclose(dk, want.grad_k, RTOL, ATOL), "ring backward dk: max diff %g", t_max_abs_diff(dk, want.grad_k));
    CHECK_MSG(t_allclose(dv, want.grad_v, RTOL, ATOL), "ring backward dv: max diff %g", t_max_abs_diff(dv, want.grad_v));
    /* a second block's share adds up: twice the same block gives twice the gradient */
    ring_flash_backward_step(xq, xk, xv, out, lse, dout, diag, dq, dk, dv, NULL);
    CHECK_MSG(t_allclose(dq, t_add(want.grad_q, want.grad_q), RTOL, ATOL), "ring backward: shares do not add up");
}

static void test_zigzag_layout(void) {
    /* np.array_split(range(10), 4) = [0:3], [3:6], [6:8], [8:10]; rank 0 gets chunks 0 and 3 */
    Owned o = owned_positions(LAYOUT_ZIGZAG, 10, 2, 0);
    CHECK_EQ_INT(o.n, 2);
    CHECK_EQ_INT(o.part[0].start, 0); CHECK_EQ_INT(o.part[0].end, 3);
    CHECK_EQ_INT(o.part[1].start, 8); CHECK_EQ_INT(o.part[1].end, 10);
    o = owned_positions(LAYOUT_ZIGZAG, 10, 2, 1);
    CHECK_EQ_INT(o.part[0].start, 3); CHECK_EQ_INT(o.part[0].end, 6);
    CHECK_EQ_INT(o.part[1].start, 6); CHECK_EQ_INT(o.part[1].end, 8);
    CHECK_ERROR(owned_positions(LAYOUT_ZIGZAG, 7, 4, 0), "needs T >= 8, got T = 7");
    CHECK_EQ_INT(seq_layout_parse("zigzag"), LAYOUT_ZIGZAG);
    CHECK_EQ_INT(seq_layout_parse("contiguous"), LAYOUT_CONTIGUOUS);
    CHECK_EQ_INT(seq_layout_parse("striped"), -1);
    /* the three cases, P = 2, T = 8 (chunks of 2): rank 1 owns [2, 4) + [4, 6), rank 0 [0, 2) + [6, 8) */
    RingBlock d = ring_block(LAYOUT_ZIGZAG, 8, 2, 1, 1, true);
    CHECK(d.causal && d.q_start == 0 && d.q_end == 4 && d.k_end == 4);    /* diagonal */
    RingBlock past = ring_block(LAYOUT_ZIGZAG, 8, 2, 1, 0, true);
    CHECK(!past.causal && past.q_start == 0 && past.q_end == 4 && past.k_end == 2);  /* all q, k[:2] */
    RingBlock late = ring_block(LAYOUT_ZIGZAG, 8, 2, 0, 1, true);
    CHECK(!late.causal && late.q_start == 2 && late.q_end == 4 && late.k_end == 4);  /* q[2:], all k */
    /* contiguous, causal: a block in the future is nothing, one in the past is all of it */
    CHECK_EQ_INT(ring_block(LAYOUT_CONTIGUOUS, 8, 2, 0, 1, true).k_end, 0);
    CHECK_EQ_INT(ring_block(LAYOUT_CONTIGUOUS, 8, 2, 1, 0, true).k_end, 4);
}

/* Causal work per rank: zigzag's busiest rank folds at most 1.1x the mean for every T from 54
 * (P = 2..4; below, chunks of one or two positions are too coarse to balance: T = 13 on
 * 4 ranks gives 1.49x); contiguous is 1 : 3 : 5 : 7 at P = 4. */
static double busiest_over_mean(SeqLayout layout, int64_t T, int P) {
    int64_t most = 0, total = 0;
    for (int r = 0; r < P; r++) {
        int64_t work = 0;
        for (int s = 0; s < P; s++)
            work += ring_block_pairs(ring_block(layout, T, P, r, ring_origin(layout, P, r, s), true));
        if (work > most) most = work;
        total += work;
    }
    return (double)most * P / (double)total;
}

static void test_zigzag_balances_causal_work(void) {
    for (int P = 2; P <= 4; P++)
        for (int64_t T = 54; T <= 1024; T++)
            CHECK_MSG(busiest_over_mean(LAYOUT_ZIGZAG, T, P) <= 1.1, "zigzag P = %d T = %lld: %.3f", P, (long long)T,
                      busiest_over_mean(LAYOUT_ZIGZAG, T, P));
    CHECK(busiest_over_mean(LAYOUT_ZIGZAG, 13, 4) > 1.4);
    CHECK(fabs(busiest_over_mean(LAYOUT_CONTIGUOUS, 1024, 4) - 1.75) < 0.01);  /* 7 / mean(1, 3, 5, 7) */
}

/* ---- the cost model ---------------------------------------------------------------- */

static void test_bytes_sent(void) {
    ParallelDims d = {3, 5, 10, 8, 2, false, LAYOUT_CONTIGUOUS, false, false};  /* B, T, d_in, d_out, H */
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
    ParallelDims big = {2, 100, 16, 32, 4, false, LAYOUT_CONTIGUOUS, false, false};
    for (int P = 2; P <= 6; P++) {
        Range c0 = chunk_of_rank(100, P, 0);
        int64_t ring = (int64_t)(P - 1) * 2 * 2 * 100 * 32 * 4, gather = 2 * (100 - (c0.end - c0.start)) * 32 * 4;
        CHECK_EQ_INT(parallel_bytes_sent_total(PARALLEL_SEQUENCE, big, P), ring + gather);
    }
}

static void test_memory_model(void) {
    ParallelDims d = {1, 4, 2, 4, 2, false, LAYOUT_CONTIGUOUS, false, false};  /* B 1, T 4, d_in 2, d_out 4, H 2 */
    /* heads, P = 2: wq/wk/wv rows 3*2*2 + wo cols 4*2 + x 4*2 + xq/xk/xv 3*4*2
     * + scores/weights 2*1*4*4 + merged 4*2 + partial 4*4 = 12+8+8+24+32+8+16 = 108 floats */
    CHECK_EQ_INT(parallel_memory_bytes(PARALLEL_HEADS, d, 2, 0), 108 * 4);
    /* sequence, P = 2, rank 1 (positions 2, 3): weights 3*4*2 + 16 = 40, x 2*2 = 4, xq/xk/xv 3*2*4 = 24,
     * K/V held and arriving 2*2*2*4 = 32, scores 2*2*2 = 8, m, l 2*2*2 = 8, acc 8, output 8 = 132 floats;
     * rank 0 also the gathered output 16 */
    CHECK_EQ_INT(parallel_memory_bytes(PARALLEL_SEQUENCE, d, 2, 1), 132 * 4);
    CHECK_EQ_INT(parallel_memory_bytes(PARALLEL_SEQUENCE, d, 2, 0), 148 * 4);
    /* long sequences: memory per rank falls with P in sequence mode, the (T, T) scores stay in heads mode */
    ParallelDims lng = {1, 4096, 64, 64, 8, false, LAYOUT_CONTIGUOUS, false, false};
    CHECK(parallel_memory_bytes_max(PARALLEL_SEQUENCE, lng, 4) < parallel_memory_bytes_max(PARALLEL_SEQUENCE, lng, 2));
    CHECK(parallel_memory_bytes_max(PARALLEL_SEQUENCE, lng, 8) < parallel_memory_bytes_max(PARALLEL_HEADS, lng, 8));
}

/* A causal ring sends only the rows the next rank uses: contiguous, P(P - 1)/2 of the
 * P(P - 1) block moves; zigzag, the whole block while the next rank is before its
 * origin, the early chunk after. */
static void test_causal_bytes(void) {
    ParallelDims c = {1, 8, 4, 4, 2, true, LAYOUT_CONTIGUOUS, false, false};  /* T = 8, P = 4: 2 positions a rank */
    int64_t pos = 2 * 1 * 4 * 4;                                   /* K and V of one position: 32 bytes */
    int64_t out = 1 * 2 * 4 * 4;                                   /* 2 output rows: 32 bytes */
    /* rank r sends its own block and those it received that rank r + 1 uses: r + 1 of them;
     * rank 3 sends nothing (rank 0 uses no later block) */
    for (int r = 0; r < 4; r++)
        CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_SEQUENCE, c, 4, r), (r < 3 ? (r + 1) * 2 * pos : 0) + (r ? out : 0));
    ParallelDims z = {1, 8, 4, 4, 2, true, LAYOUT_ZIGZAG, false, false};      /* chunks of 1: rank r owns r, 7 - r */
    /* blocks go to rank - 1: rank 0 passes origins 0, 1, 2 to rank 3, which is after each of
     * them and uses only their early row: 3 messages of 1 row */
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_SEQUENCE, z, 4, 0), 3 * 1 * pos);
    /* rank 3 to rank 2: its own block (origin 3 > 2: both rows), then origins 0, 1 (< 2: 1 row) */
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_SEQUENCE, z, 4, 3), (2 + 1 + 1) * pos + 2 * 4 * 4);
    ParallelDims n = {1, 8, 4, 4, 2, false, LAYOUT_ZIGZAG, false, false};     /* not causal: every block, whole */
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_SEQUENCE, n, 4, 1), 3 * 2 * pos + 2 * 4 * 4);
}

/* Ulysses, B 1, T 5, d_out 6, H 3 on P = 3 (chunks 2, 2, 1; one head of 2 per rank): the
 * first all-to-all sends q, k, v of its positions for the 2 other heads, the second its
 * head's output at the other ranks' positions, then the gather. */
static void test_ulysses_bytes(void) {
    ParallelDims d = {1, 5, 4, 6, 3, true, LAYOUT_CONTIGUOUS, false, false};
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_ULYSSES, d, 3, 0), (3 * 2 * 2 * 2 + 3 * 2) * 4);
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_ULYSSES, d, 3, 2), (3 * 1 * 2 * 2 + 4 * 2 + 1 * 6) * 4);
    CHECK_EQ_INT(parallel_bytes_sent(PARALLEL_ULYSSES, d, 1, 0), 0);
    CHECK_EQ_INT(parallel_mode_parse("ulysses"), PARALLEL_ULYSSES);
    CHECK(strcmp(parallel_mode_name(PARALLEL_ULYSSES), "ulysses") == 0);
}

/* The backward's bytes, counted by hand: B 1, T 4, d_in 2, d_out 4, H 2, P 2, not causal. */
static void test_backward_bytes(void) {
    ParallelDims d = {1, 4, 2, 4, 2, false, LAYOUT_CONTIGUOUS, false, false};
    /* heads: grad_x all-reduce 1*4*2 = 8; rank 1 also its rows 3*2*2 = 12 and wo columns 4*2 = 8 */
    CHECK_EQ_INT(parallel_backward_bytes_sent(PARALLEL_HEADS, d, 2, 0), 8 * 4);
    CHECK_EQ_INT(parallel_backward_bytes_sent(PARALLEL_HEADS, d, 2, 1), 28 * 4);
    /* sequence: K/V once 2*1*2*4 = 16, dK/dV twice 2*16 = 32, weights 3*4*2 + 4*4 = 40; rank 1 grad_x 1*2*2 = 4 */
    CHECK_EQ_INT(parallel_backward_bytes_sent(PARALLEL_SEQUENCE, d, 2, 0), 88 * 4);
    CHECK_EQ_INT(parallel_backward_bytes_sent(PARALLEL_SEQUENCE, d, 2, 1), 92 * 4);
    /* ulysses: dout 1*2*2*(2-1) = 4, dq/dk/dv 3*1*2*2 = 12, weights 40; rank 1 grad_x 4 */
    CHECK_EQ_INT(parallel_backward_bytes_sent(PARALLEL_ULYSSES, d, 2, 0), 56 * 4);
    CHECK_EQ_INT(parallel_backward_bytes_sent(PARALLEL_ULYSSES, d, 2, 1), 60 * 4);
    /* biases: heads rank 1 + its 3*2 bias rows; sequence + 3*4 + 4 */
    d.qkv_bias = d.out_bias = true;
    CHECK_EQ_INT(parallel_backward_bytes_sent(PARALLEL_HEADS, d, 2, 1), 34 * 4);
    CHECK_EQ_INT(parallel_backward_bytes_sent(PARALLEL_SEQUENCE, d, 2, 0), 104 * 4);
    CHECK_EQ_INT(parallel_backward_bytes_sent(PARALLEL_SEQUENCE, d, 1, 0), 0);
}

int main(void) {
    RUN(test_chunks_are_array_split);
    RUN(test_heads_of_rank);
    RUN(test_chunk_in_future);
    RUN(test_shards_are_rows_and_columns);
    RUN(test_heads_parallel_equals_chapter_7);
    RUN(test_ring_equals_chapter_4);
    RUN(test_ring_skips_the_future);
    RUN(test_flash_ring_equals_chapter_4);
    RUN(test_ring_steps_poke_between_heads);
    RUN(test_zigzag_layout);
    RUN(test_zigzag_balances_causal_work);
    RUN(test_causal_bytes);
    RUN(test_ulysses_bytes);
    RUN(test_bytes_sent);
    RUN(test_memory_model);
    RUN(test_backward_bytes);
    return harness_finish("test_ch09");
}
