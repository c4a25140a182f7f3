/* parallel_attention_mpi.c — chapter 9: the MPI calls (all-reduce, the ring,
 * the gather) with their byte counts, and errors that end every rank at once.
 */
#include "parallel_attention_mpi.h"

#include "chapters/12_flash_backward/flash_backward.h"
#include "common/program/out.h"  /* out_fail: a failed run leaves nothing it wrote */

#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

CommLog comm_world(void) {
    CommLog log = {MPI_COMM_WORLD, 0, 1, 0, 0, 0, 0.0};
    MPI_Comm_rank(MPI_COMM_WORLD, &log.rank);  /* dist.get_rank()       */
    MPI_Comm_size(MPI_COMM_WORLD, &log.size);  /* dist.get_world_size() */
    return log;
}

/* MPI counts are int: the checks before any communication keep them small. */
static int count_of(int64_t n) {
    if (n < 0 || n > INT_MAX) t_error("MPI: a message of %lld floats is more than MPI's int count allows", (long long)n);
    return (int)n;
}

void comm_allreduce_sum(Tensor *partial, void *ctx) {
    CommLog *log = (CommLog *)ctx;
    float *data = t_data(partial);
    int n = count_of(t_numel(partial));
    /* dist.all_reduce(output_parallel, op=dist.ReduceOp.SUM): every rank ends with the sum */
    double t0 = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, data, n, MPI_FLOAT, MPI_SUM, log->comm);
    log->waited += MPI_Wtime() - t0;
    if (log->size > 1) log->bytes_sent += (int64_t)n * (int64_t)sizeof(float);
    log->calls++;
}

/* A block of n positions as it travels: position by position, the K then the V of
 * every (batch, head), (n, 2, bsz, n_heads, head_dim), so that the first m positions
 * are the first floats and a message of m rows is a prefix of the buffer. k and v are
 * its (bsz, n_heads, n, head_dim) views. */
static void block_views(Tensor *flat, int64_t n, int64_t bsz, int64_t n_heads, int64_t head_dim, Tensor **k,
                        Tensor **v) {
    Tensor *blk = t_view(t_slice(flat, 0, 0, n * 2 * bsz * n_heads * head_dim), SHAPE(n, 2, bsz, n_heads, head_dim));
    *k = t_permute(t_select(blk, 1, 0), SHAPE(1, 2, 0, 3));  /* (bsz, n_heads, n, head_dim) */
    *v = t_permute(t_select(blk, 1, 1), SHAPE(1, 2, 0, 3));
}

/* The exchange in flight while a ring step computes. MPI_Testall between heads is
 * what lets Open MPI move it: a message larger than its eager limit goes by
 * rendezvous (the receiver answers, then the data flows) and that happens only
 * inside MPI calls, so without a poke the whole transfer would wait for the
 * MPI_Waitall after the compute. Time in the poke is time in MPI: waited. */
typedef struct {
    MPI_Request *req;
    int n_req;
    CommLog *log;
} InFlight;

static void poke_in_flight(void *ctx) {
    InFlight *f = (InFlight *)ctx;
    int done;
    double t0 = MPI_Wtime();
    MPI_Testall(f->n_req, f->req, &done, MPI_STATUSES_IGNORE);  /* done ones become MPI_REQUEST_NULL */
    f->log->waited += MPI_Wtime() - t0;
}

Tensor *ring_attention(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t seqlen, bool causal,
                       SeqLayout layout, bool overlap, CommLog *log, Tensor **lse) {
    int P = log->size, rank = log->rank, dir = ring_direction(layout);
    int next = ((rank + dir) % P + P) % P, prev = ((rank - dir) % P + P) % P;
    int64_t bsz = t_size(xq, 0), n_heads = t_size(xq, 1), rows = t_size(xq, 2), head_dim = t_size(xq, 3);
    int64_t per_pos = 2 * bsz * n_heads * head_dim;      /* floats of K and V per position */
    int64_t most = 0;                                    /* the most positions a rank owns */
    for (int r = 0; r < P; r++) {
        int64_t n = owned_count(owned_positions(layout, seqlen, P, r));
        if (n > most) most = n;
    }
    /* Two buffers, each room for the largest block: the one held, the one arriving. */
    Tensor *held = t_zeros(SHAPE(most * per_pos + 1)), *arriving = t_zeros(SHAPE(most * per_pos + 1));
    int64_t held_rows = rows;
    Tensor *k, *v;
    block_views(held, held_rows, bsz, n_heads, head_dim, &k, &v);
    t_copy_(k, xk);
    t_copy_(v, xv);

    FlashAcc acc = flash_acc_new(bsz, n_heads, rows, head_dim);  /* out = 0, lse = -inf */
    for (int step = 0; step < P; step++) {
        int origin = ring_origin(layout, P, rank, step);  /* whose K/V this rank holds now */
        /* what goes on: the rows the next rank uses of this block; what comes: the rows
         * this rank uses of the block the previous rank holds (both sides know both) */
        int n_send = 0, n_recv = 0;
        if (step < P - 1) {
            n_send = count_of(per_pos * ring_block(layout, seqlen, P, next, origin, causal).k_end);
            int incoming = ring_origin(layout, P, rank, step + 1);
            n_recv = count_of(per_pos * ring_block(layout, seqlen, P, rank, incoming, causal).k_end);
        }
        MPI_Request req[2];
        int n_req = 0;
        if (overlap) {  /* post the exchange first: it runs while this rank computes */
            if (n_recv > 0)
                MPI_Irecv(t_data(arriving), n_recv, MPI_FLOAT, prev, step, log->comm, &req[n_req++]);
            if (n_send > 0) MPI_Isend(t_data(held), n_send, MPI_FLOAT, next, step, log->comm, &req[n_req++]);
        }
        /* out, lse = flash(q, k, v); merge by lse (the case of this step: ring_block),
         * MPI_Testall between heads while the exchange is in flight */
        block_views(held, held_rows, bsz, n_heads, head_dim, &k, &v);
        RingBlock blk = ring_block(layout, seqlen, P, rank, origin, causal);
        InFlight flight = {req, n_req, log};
        RingPoke poke = {poke_in_flight, &flight};
        log->folded += ring_flash_step(&acc, xq, k, v, blk, n_req > 0 ? &poke : NULL);
        if (step == P - 1) break;  /* every block has been seen */
        double t0 = MPI_Wtime();
        if (overlap)
            MPI_Waitall(n_req, req, MPI_STATUSES_IGNORE);
        else  /* MPI_PROC_NULL: nothing to send or to take this step */
            MPI_Sendrecv(t_data(held), n_send, MPI_FLOAT, n_send > 0 ? next : MPI_PROC_NULL, step,
                         t_data(arriving), n_recv, MPI_FLOAT, n_recv > 0 ? prev : MPI_PROC_NULL, step, log->comm,
                         MPI_STATUS_IGNORE);
        log->waited += MPI_Wtime() - t0;
        log->bytes_sent += (int64_t)n_send * (int64_t)sizeof(float);
        if (n_send > 0 || n_recv > 0) log->calls++;
        Tensor *swap = held;
        held = arriving, arriving = swap;
        held_rows = n_recv / per_pos;
    }
    if (lse) *lse = acc.lse;  /* (bsz, n_heads, rows): what the backward recomputes p_attn from */
    return acc.out;  /* (bsz, n_heads, rows, head_dim), already normalised by flash and the merges */
}

void ring_attention_backward(const Tensor *xq, const Tensor *xk, const Tensor *xv, const Tensor *out,
                             const Tensor *lse, const Tensor *dout, int64_t seqlen, bool causal, SeqLayout layout,
                             bool overlap, CommLog *log, Tensor **dq, Tensor **dk, Tensor **dv) {
    int P = log->size, rank = log->rank, dir = ring_direction(layout);
    int next = ((rank + dir) % P + P) % P, prev = ((rank - dir) % P + P) % P;
    int64_t bsz = t_size(xq, 0), n_heads = t_size(xq, 1), rows = t_size(xq, 2), head_dim = t_size(xq, 3);
    int64_t per_pos = 2 * bsz * n_heads * head_dim, most = 0;
    for (int r = 0; r < P; r++) {
        int64_t n = owned_count(owned_positions(layout, seqlen, P, r));
        if (n > most) most = n;
    }
    /* K/V blocks as in the forward (held, arriving), and beside each the (dK, dV) it has
     * gathered so far from the ranks it visited, in the same (n, 2, bsz, n_heads, head_dim) order */
    Tensor *held = t_zeros(SHAPE(most * per_pos + 1)), *arriving = t_zeros(SHAPE(most * per_pos + 1));
    Tensor *held_g = t_zeros(SHAPE(most * per_pos + 1)), *arriving_g = t_zeros(SHAPE(most * per_pos + 1));
    int64_t held_rows = rows;
    Tensor *k, *v, *gk, *gv;
    block_views(held, held_rows, bsz, n_heads, head_dim, &k, &v);
    t_copy_(k, xk);
    t_copy_(v, xv);
    *dq = t_zeros(SHAPE(bsz, n_heads, rows, head_dim));  /* dQ stays here and accumulates */
    for (int step = 0; step < P; step++) {
        int origin = ring_origin(layout, P, rank, step);
        int64_t origin_rows = owned_count(owned_positions(layout, seqlen, P, origin));
        int n_send = 0, n_recv = 0, g_send = 0, g_recv = 0;
        int incoming = step < P - 1 ? ring_origin(layout, P, rank, step + 1) : rank;
        if (step < P - 1) {  /* K/V: only the rows the next rank uses, as in the forward */
            n_send = count_of(per_pos * ring_block(layout, seqlen, P, next, origin, causal).k_end);
            n_recv = count_of(per_pos * ring_block(layout, seqlen, P, rank, incoming, causal).k_end);
        }
        if (P > 1) {  /* dK/dV: every row of the block, on to the next rank (the last step: home) */
            g_send = count_of(per_pos * origin_rows);
            g_recv = count_of(per_pos * owned_count(owned_positions(layout, seqlen, P, incoming)));
        }
        MPI_Request req[4];
        int n_req = 0;
        if (overlap) {  /* the next K/V block travels while this rank computes */
            if (n_recv > 0) MPI_Irecv(t_data(arriving), n_recv, MPI_FLOAT, prev, step, log->comm, &req[n_req++]);
            if (n_send > 0) MPI_Isend(t_data(held), n_send, MPI_FLOAT, next, step, log->comm, &req[n_req++]);
        }
        /* chapter 12's flash backward on the block: p_attn recomputed from the lse of the
         * whole forward, D = rowsum(dO * O) of the whole output, so the block's share of
         * dQ, dK, dV is exact and the shares only add up */
        RingBlock blk = ring_block(layout, seqlen, P, rank, origin, causal);
        block_views(held, held_rows, bsz, n_heads, head_dim, &k, &v);
        block_views(held_g, origin_rows, bsz, n_heads, head_dim, &gk, &gv);
        InFlight flight = {req, n_req, log};  /* MPI_Testall between heads, as in the forward */
        RingPoke poke = {poke_in_flight, &flight};
        ring_flash_backward_step(xq, k, v, out, lse, dout, blk, *dq, gk, gv, n_req > 0 ? &poke : NULL);
        double t0 = MPI_Wtime();
        if (!overlap && (n_send > 0 || n_recv > 0))
            MPI_Sendrecv(t_data(held), n_send, MPI_FLOAT, n_send > 0 ? next : MPI_PROC_NULL, step,
                         t_data(arriving), n_recv, MPI_FLOAT, n_recv > 0 ? prev : MPI_PROC_NULL, step, log->comm,
                         MPI_STATUS_IGNORE);
        if (g_recv > 0) MPI_Irecv(t_data(arriving_g), g_recv, MPI_FLOAT, prev, P + step, log->comm, &req[n_req++]);
        if (g_send > 0) MPI_Isend(t_data(held_g), g_send, MPI_FLOAT, next, P + step, log->comm, &req[n_req++]);
        MPI_Waitall(n_req, req, MPI_STATUSES_IGNORE);
        log->waited += MPI_Wtime() - t0;
        log->bytes_sent += ((int64_t)n_send + g_send) * (int64_t)sizeof(float);
        if (n_send > 0 || n_recv > 0 || g_send > 0 || g_recv > 0) log->calls++;
        if (P == 1) break;
        Tensor *swap = held;
        held = arriving, arriving = swap;
        swap = held_g, held_g = arriving_g, arriving_g = swap;
        held_rows = n_recv / per_pos;
    }
    /* after the last hop held_g is this rank's own block: its dK, dV from every rank */
    block_views(held_g, rows, bsz, n_heads, head_dim, &gk, &gv);
    *dk = t_contiguous(gk);
    *dv = t_contiguous(gv);
}

/* a flat buffer's floats [at, at + n) seen as (b, h, t, d) */
static Tensor *flat_view(Tensor *flat, int64_t at, int64_t b, int64_t h, int64_t t, int64_t d) {
    return t_view(t_slice(flat, 0, at, at + b * h * t * d), SHAPE(b, h, t, d));
}

/* all-to-all 1: n tensors (B, H, Tc, hd) of my positions, every head -> (B, Hl, T, hd), every
 * position of my heads. To rank j go its heads at my positions, (n, B, Hl, Tc, hd). */
static void ulysses_to_heads(const Tensor *const *mine, Tensor **full, int n, int64_t seqlen, CommLog *log) {
    int P = log->size;
    int64_t B = t_size(mine[0], 0), H = t_size(mine[0], 1), Tc = t_size(mine[0], 2), hd = t_size(mine[0], 3);
    int64_t Hl = H / P, per_rank = n * B * Hl * Tc * hd, at = 0;
    int *sc = (int *)t_alloc((size_t)P * sizeof(int)), *sd = (int *)t_alloc((size_t)P * sizeof(int));
    int *rc = (int *)t_alloc((size_t)P * sizeof(int)), *rd = (int *)t_alloc((size_t)P * sizeof(int));
    Tensor *send = t_zeros(SHAPE(P * per_rank + 1));
    for (int j = 0; j < P; j++) {
        Range h = heads_of_rank(H, P, j);
        for (int t = 0; t < n; t++, at += B * Hl * Tc * hd)
            if (Tc > 0) t_copy_(flat_view(send, at, B, Hl, Tc, hd), t_slice(mine[t], 1, h.start, h.end));
        sc[j] = count_of(per_rank), sd[j] = count_of(j * per_rank);
    }
    at = 0;  /* from rank i, my heads at its positions, (n, B, Hl, Tc_i, hd) */
    for (int i = 0; i < P; i++) {
        Range c = chunk_of_rank(seqlen, P, i);
        rc[i] = count_of(n * B * Hl * (c.end - c.start) * hd), rd[i] = count_of(at);
        at += rc[i];
    }
    Tensor *recv = t_zeros(SHAPE(at + 1));
    double t0 = MPI_Wtime();
    MPI_Alltoallv(t_data(send), sc, sd, MPI_FLOAT, t_data(recv), rc, rd, MPI_FLOAT, log->comm);
    log->waited += MPI_Wtime() - t0;
    log->bytes_sent += (int64_t)(P - 1) * per_rank * (int64_t)sizeof(float);
    log->calls++;
    for (int t = 0; t < n; t++) full[t] = t_zeros(SHAPE(B, Hl, seqlen, hd));
    for (int i = 0; i < P; i++) {
        Range c = chunk_of_rank(seqlen, P, i);
        int64_t len = c.end - c.start, cnt = B * Hl * len * hd;
        for (int t = 0; t < n && len > 0; t++)
            t_copy_(t_slice(full[t], 2, c.start, c.end), flat_view(recv, rd[i] + t * cnt, B, Hl, len, hd));
    }
}

/* all-to-all 2, the way back: n tensors (B, Hl, T, hd) of my heads -> (B, H, Tc, hd), every head
 * at my positions. To rank i go my heads at its positions, (n, B, Hl, Tc_i, hd). */
static void ulysses_to_positions(Tensor *const *heads, Tensor **local, int n, int64_t n_heads, int64_t seqlen,
                                 CommLog *log) {
    int P = log->size, rank = log->rank;
    int64_t B = t_size(heads[0], 0), Hl = t_size(heads[0], 1), hd = t_size(heads[0], 3);
    Range own = chunk_of_rank(seqlen, P, rank);
    int64_t Tc = own.end - own.start, at = 0, sent = 0;
    int *sc = (int *)t_alloc((size_t)P * sizeof(int)), *sd = (int *)t_alloc((size_t)P * sizeof(int));
    int *rc = (int *)t_alloc((size_t)P * sizeof(int)), *rd = (int *)t_alloc((size_t)P * sizeof(int));
    Tensor *send = t_zeros(SHAPE(n * B * Hl * seqlen * hd + 1)), *recv = t_zeros(SHAPE(P * n * B * Hl * Tc * hd + 1));
    for (int i = 0; i < P; i++) {
        Range c = chunk_of_rank(seqlen, P, i);
        int64_t len = c.end - c.start;
        for (int t = 0; t < n && len > 0; t++)
            t_copy_(flat_view(send, at + t * B * Hl * len * hd, B, Hl, len, hd), t_slice(heads[t], 2, c.start, c.end));
        sc[i] = count_of(n * B * Hl * len * hd), sd[i] = count_of(at);
        if (i != rank) sent += sc[i];
        at += sc[i];
        rc[i] = count_of(n * B * Hl * Tc * hd), rd[i] = count_of(i * n * B * Hl * Tc * hd);
    }
    double t0 = MPI_Wtime();
    MPI_Alltoallv(t_data(send), sc, sd, MPI_FLOAT, t_data(recv), rc, rd, MPI_FLOAT, log->comm);
    log->waited += MPI_Wtime() - t0;
    log->bytes_sent += sent * (int64_t)sizeof(float);
    log->calls++;
    for (int t = 0; t < n; t++) {
        local[t] = t_zeros(SHAPE(B, n_heads, Tc, hd));  /* (B, H, Tc, hd): every head at my positions */
        for (int j = 0; j < P && Tc > 0; j++) {
            Range h = heads_of_rank(n_heads, P, j);
            t_copy_(t_slice(local[t], 1, h.start, h.end), flat_view(recv, rd[j] + t * B * Hl * Tc * hd, B, Hl, Tc, hd));
        }
    }
}

Tensor *ulysses_attention(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t seqlen, bool causal,
                          CommLog *log, UlyssesKeep *keep) {
    int P = log->size;
    int64_t B = t_size(xq, 0), H = t_size(xq, 1), Hl = H / P;
    const Tensor *mine[3] = {xq, xk, xv};
    Tensor *full[3];  /* (B, Hl, T, hd): all positions of my heads */
    ulysses_to_heads(mine, full, 3, seqlen, log);
    /* chapter 8's flash on my heads, every position: F.scaled_dot_product_attention(q, k, v, is_causal) */
    Tensor *lse = NULL;
    Tensor *out = keep ? attention_flash_lse(full[0], full[1], full[2], causal, &lse)
                       : attention_flash(full[0], full[1], full[2], causal);  /* (B, Hl, T, hd) */
    log->folded += B * Hl * (causal ? seqlen * (seqlen + 1) / 2 : seqlen * seqlen);
    if (keep) *keep = (UlyssesKeep){full[0], full[1], full[2], out, lse};
    Tensor *local;
    ulysses_to_positions(&out, &local, 1, H, seqlen, log);
    return local;  /* (B, H, Tc, hd) */
}

void ulysses_attention_backward(const UlyssesKeep *keep, const Tensor *dout, int64_t seqlen, bool causal,
                                CommLog *log, Tensor **dq, Tensor **dk, Tensor **dv) {
    int64_t H = t_size(dout, 1);
    /* the all-to-alls in reverse: dout to every position of my heads, ... */
    Tensor *dfull;
    ulysses_to_heads(&dout, &dfull, 1, seqlen, log);
    /* ... chapter 12's flash backward on whole heads (nothing to merge: each rank has every key), ... */
    AttnGrads g = attention_backward_flash(keep->q, keep->k, keep->v, keep->out, keep->lse, dfull, causal);
    /* ... and dq, dk, dv back to my positions of every head */
    Tensor *heads[3] = {g.grad_q, g.grad_k, g.grad_v}, *local[3];
    ulysses_to_positions(heads, local, 3, H, seqlen, log);
    *dq = local[0], *dk = local[1], *dv = local[2];
}

Tensor *comm_gather_seq(const Tensor *rows, SeqLayout layout, int64_t seqlen, CommLog *log) {
    int P = log->size, rank = log->rank;
    int64_t bsz = t_size(rows, 0), d = t_size(rows, 2);
    Tensor *mine = t_contiguous(rows);  /* (bsz, rows, d) */
    int n_send = count_of(t_numel(mine));
    int *counts = NULL, *displs = NULL;
    Tensor *staged = NULL;
    if (rank == 0) {
        counts = (int *)t_alloc((size_t)P * sizeof(int));
        displs = (int *)t_alloc((size_t)P * sizeof(int));
        int64_t at = 0;
        for (int r = 0; r < P; r++) {
            counts[r] = count_of(bsz * owned_count(owned_positions(layout, seqlen, P, r)) * d);
            displs[r] = count_of(at);      /* rank by rank, each (bsz, rows, d) */
            at += counts[r];
        }
        staged = t_zeros(SHAPE(bsz * seqlen * d));
    }
    double t0 = MPI_Wtime();
    MPI_Gatherv(t_data(mine), n_send, MPI_FLOAT, staged ? t_data(staged) : NULL, counts, displs, MPI_FLOAT, 0,
                log->comm);
    log->waited += MPI_Wtime() - t0;
    if (rank != 0) log->bytes_sent += (int64_t)n_send * (int64_t)sizeof(float);
    log->calls++;
    if (rank != 0) return NULL;
    /* put each rank's (bsz, rows, d) block back at its positions */
    Tensor *output = t_zeros(SHAPE(bsz, seqlen, d));
    for (int r = 0; r < P; r++) {
        Owned o = owned_positions(layout, seqlen, P, r);
        int64_t n = owned_count(o);
        if (n == 0) continue;
        place_owned_rows(output, t_view(t_slice(staged, 0, displs[r], displs[r] + counts[r]), SHAPE(bsz, n, d)), o);
    }
    return output;
}

Tensor *comm_gather_rows(const Tensor *part, CommLog *log) {
    int P = log->size, rank = log->rank;
    Tensor *mine = t_contiguous(part);
    int n = count_of(t_numel(mine));
    Tensor *all = NULL;
    if (rank == 0) {
        Shape s = t_shape(mine);
        s.dims[0] *= P;
        all = t_zeros(s);
    }
    double t0 = MPI_Wtime();
    MPI_Gather(t_data(mine), n, MPI_FLOAT, all ? t_data(all) : NULL, n, MPI_FLOAT, 0, log->comm);
    log->waited += MPI_Wtime() - t0;
    if (rank != 0) log->bytes_sent += (int64_t)n * (int64_t)sizeof(float);
    log->calls++;
    return all;
}

/* ---- errors: one sentence, every rank exits ------------------------------------- */

static jmp_buf phase_jump;
static char phase_error[1024];

static void phase_hook(const char *message) {
    snprintf(phase_error, sizeof phase_error, "%s", message);
    longjmp(phase_jump, 1);
}

void par_exit(int status) {
    t_scope_end_to(0);
    fflush(stdout);
    MPI_Finalize();
    exit(status);
}

void par_run_phase(void (*fn)(void *ctx), void *ctx) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t_error_hook previous = t_set_error_hook(phase_hook);
    int failed = 0;
    if (setjmp(phase_jump) == 0)
        fn(ctx);
    else
        failed = 1;
    t_set_error_hook(previous);
    /* agree: the lowest rank that failed, or size when none did */
    int mine = failed ? rank : size, first = size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == size) return;
    out_fail();  /* the temporaries and --dump folders this rank made go, as t_error would remove them */
    MPI_Bcast(phase_error, (int)sizeof phase_error, MPI_CHAR, first, MPI_COMM_WORLD);
    phase_error[sizeof phase_error - 1] = '\0';
    if (rank == 0) {
        fflush(stdout);
        if (first == 0)  /* as common/error.c prints it, in the run's language */
            fprintf(stderr, t_tr("%s: %s: %s\n"), "chapter9", t_tr("error"), phase_error);
        else
            fprintf(stderr, t_tr("%s: error on rank %d: %s\n"), "chapter9", first, phase_error);
    }
    par_exit(EXIT_RUNTIME);
}
