/* parallel_attention_mpi.c — chapter 9: the MPI calls (all-reduce, the ring,
 * the gather) with their byte counts, and errors that end every rank at once.
 */
#include "parallel_attention_mpi.h"

#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

CommLog comm_world(void) {
    CommLog log = {MPI_COMM_WORLD, 0, 1, 0, 0};
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
    MPI_Allreduce(MPI_IN_PLACE, data, n, MPI_FLOAT, MPI_SUM, log->comm);
    if (log->size > 1) log->bytes_sent += (int64_t)n * (int64_t)sizeof(float);
    log->calls++;
}

/* A flat float buffer seen as (bsz, n_heads, len, head_dim) starting at float `at`. */
static Tensor *chunk_view(Tensor *flat, int64_t at, int64_t bsz, int64_t n_heads, int64_t len, int64_t head_dim) {
    int64_t n = bsz * n_heads * len * head_dim;
    return t_view(t_slice(flat, 0, at, at + n), SHAPE(bsz, n_heads, len, head_dim));
}

Tensor *ring_attention(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t seqlen, bool causal,
                       CommLog *log) {
    int P = log->size, rank = log->rank;
    int next = (rank + 1) % P, prev = (rank - 1 + P) % P;
    int64_t bsz = t_size(xq, 0), n_heads = t_size(xq, 1), head_dim = t_size(xq, 3);
    int64_t per_pos = bsz * n_heads * head_dim;          /* floats of K (or V) per position */
    Range q = chunk_of_rank(seqlen, P, rank);
    int64_t most = chunk_of_rank(seqlen, P, 0).end;      /* rank 0's chunk is the largest */

    /* Two buffers, each room for the largest K and V chunk: the one held, the one arriving. */
    Tensor *held = t_zeros(SHAPE(2 * most * per_pos)), *arriving = t_zeros(SHAPE(2 * most * per_pos));
    int64_t held_len = q.end - q.start;
    t_copy_(chunk_view(held, 0, bsz, n_heads, held_len, head_dim), xk);
    t_copy_(chunk_view(held, held_len * per_pos, bsz, n_heads, held_len, head_dim), xv);

    RingState st = ring_state_new(bsz, n_heads, held_len, head_dim);  /* (m, l, acc) of every row */
    for (int step = 0; step < P; step++) {
        int origin = ((rank - step) % P + P) % P;         /* whose K/V this rank holds now */
        Range k = chunk_of_rank(seqlen, P, origin);
        int64_t len = k.end - k.start;
        Tensor *k_held = chunk_view(held, 0, bsz, n_heads, len, head_dim);
        Tensor *v_held = chunk_view(held, len * per_pos, bsz, n_heads, len, head_dim);
        ring_attend_chunk(&st, xq, q, k_held, v_held, k, causal);  /* skips a chunk in the future */
        if (step == P - 1) break;                         /* every chunk has been seen */
        /* pass the chunk on to rank + 1 and take the one rank - 1 held (of rank origin - 1) */
        Range incoming = chunk_of_rank(seqlen, P, ((origin - 1) % P + P) % P);
        int n_send = count_of(2 * len * per_pos);
        int n_recv = count_of(2 * (incoming.end - incoming.start) * per_pos);
        MPI_Sendrecv(t_data(held), n_send, MPI_FLOAT, next, step, t_data(arriving), n_recv, MPI_FLOAT, prev, step,
                     log->comm, MPI_STATUS_IGNORE);
        log->bytes_sent += (int64_t)n_send * (int64_t)sizeof(float);
        log->calls++;
        Tensor *swap = held;
        held = arriving, arriving = swap;
    }
    return ring_state_finish(&st);  /* output = acc / l, (bsz, n_heads, rows, head_dim) */
}

Tensor *comm_gather_seq(const Tensor *chunk, int64_t seqlen, CommLog *log) {
    int P = log->size, rank = log->rank;
    int64_t bsz = t_size(chunk, 0), d = t_size(chunk, 2);
    Tensor *mine = t_contiguous(chunk);  /* (bsz, rows, d) */
    int n_send = count_of(t_numel(mine));
    int *counts = NULL, *displs = NULL;
    Tensor *staged = NULL;
    if (rank == 0) {
        counts = (int *)t_alloc((size_t)P * sizeof(int));
        displs = (int *)t_alloc((size_t)P * sizeof(int));
        for (int r = 0; r < P; r++) {
            Range c = chunk_of_rank(seqlen, P, r);
            counts[r] = count_of(bsz * (c.end - c.start) * d);
            displs[r] = count_of(bsz * c.start * d);      /* rank by rank, each (bsz, rows, d) */
        }
        staged = t_zeros(SHAPE(bsz * seqlen * d));
    }
    MPI_Gatherv(t_data(mine), n_send, MPI_FLOAT, staged ? t_data(staged) : NULL, counts, displs, MPI_FLOAT, 0,
                log->comm);
    if (rank != 0) log->bytes_sent += (int64_t)n_send * (int64_t)sizeof(float);
    log->calls++;
    if (rank != 0) return NULL;
    /* put each rank's (bsz, rows, d) block at output[:, start:end, :] */
    Tensor *output = t_zeros(SHAPE(bsz, seqlen, d));
    for (int r = 0; r < P; r++) {
        Range c = chunk_of_rank(seqlen, P, r);
        if (c.end == c.start) continue;
        Tensor *block = t_view(t_slice(staged, 0, displs[r], displs[r] + counts[r]), SHAPE(bsz, c.end - c.start, d));
        t_copy_(t_slice(output, 1, c.start, c.end), block);
    }
    return output;
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
    MPI_Bcast(phase_error, (int)sizeof phase_error, MPI_CHAR, first, MPI_COMM_WORLD);
    phase_error[sizeof phase_error - 1] = '\0';
    if (rank == 0) {
        fflush(stdout);
        if (first == 0)
            fprintf(stderr, "chapter9: error: %s\n", phase_error);
        else
            fprintf(stderr, "chapter9: error on rank %d: %s\n", first, phase_error);
    }
    par_exit(EXIT_RUNTIME);
}
