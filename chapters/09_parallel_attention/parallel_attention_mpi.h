/* parallel_attention_mpi.h — chapter 9: the MPI side of parallel attention.
 *
 * Every call that moves data between processes goes through here, and each
 * one adds the bytes it hands to MPI for other ranks to a CommLog, so the
 * program can show that parallel_bytes_sent() (the cost model) is what was
 * really sent. Built with mpicc only (files named *_mpi.c are not part of
 * build/libattn.a, which must build without MPI).
 *
 *   PyTorch (torch.distributed)            here
 *   dist.all_reduce(t, op=SUM)             comm_allreduce_sum   MPI_Allreduce
 *   dist.isend / dist.irecv around a ring  ring_attention       MPI_Isend, MPI_Irecv
 *                                          (--no-overlap)       MPI_Sendrecv
 *   dist.all_to_all (DeepSpeed-Ulysses)    ulysses_attention    MPI_Alltoallv (twice)
 *   dist.gather(t, dst=0)                  comm_gather_seq      MPI_Gatherv
 */
#ifndef CH09_PARALLEL_ATTENTION_MPI_H
#define CH09_PARALLEL_ATTENTION_MPI_H

#include <mpi.h>

#include "parallel_attention.h"

typedef struct {
    MPI_Comm comm;
    int rank, size;       /* this process, and model_parallel_size          */
    int64_t bytes_sent;   /* handed to MPI for other ranks, all calls so far */
    int calls;            /* MPI calls that moved data                       */
    int64_t folded;       /* (query, key) pairs this rank's attention folded  */
    double waited;        /* seconds inside MPI calls that move data          */
} CommLog;

CommLog comm_world(void);

/* dist.all_reduce(partial, op=SUM), in place; an AllReduceFn (ctx: CommLog *).
 * partial must be contiguous. */
void comm_allreduce_sum(Tensor *partial, void *ctx);

/* Ring attention on this rank's positions (owned_positions(layout, ...)):
 * xq, xk, xv (B, H, Tc, hd). P steps: chapter 8's flash on the K/V block
 * held, merged by logsumexp (ring_flash_step), and the block passed on in
 * ring_direction(layout): only the rows the next rank uses (ring_block), so
 * a causal ring sends nothing into the future. overlap: MPI_Isend/MPI_Irecv
 * of the next block are posted before the compute and waited for after it;
 * otherwise one MPI_Sendrecv after the compute. The same arithmetic in the
 * same order either way: the result is bit for bit the same. Adds the pairs
 * folded, the bytes sent and the seconds waited to log. Returns (B, H, Tc, hd). */
Tensor *ring_attention(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t seqlen, bool causal,
                       SeqLayout layout, bool overlap, CommLog *log);

/* DeepSpeed-Ulysses on this rank's positions chunk_of_rank(seqlen, P, rank):
 * xq, xk, xv (B, H, Tc, hd). One all-to-all sends rank j the q, k, v of
 * heads_of_rank(j) at these positions and brings (B, H/P, T, hd) of this
 * rank's heads at every position; chapter 8's attention_flash on them; one
 * all-to-all back. MPI_Alltoallv, because chunks may differ by one position
 * (T % P != 0). n_heads % P must be 0 (the program refuses it before).
 * Returns (B, H, Tc, hd). */
Tensor *ulysses_attention(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t seqlen, bool causal,
                          CommLog *log);

/* Rank 0 gets the (B, T, d) tensor whose positions owned_positions() gave to
 * each rank: `rows` is this rank's (B, Tc, d). Other ranks get NULL. */
Tensor *comm_gather_seq(const Tensor *rows, SeqLayout layout, int64_t seqlen, CommLog *log);

/* Every rank runs fn(ctx). If t_error() is raised on any rank, rank 0 prints
 * the sentence of the lowest such rank, once ("<program>: error: ..."), and
 * every rank ends with exit status 1. A phase must not start a collective
 * call that some ranks could skip after an error: check first, then talk. */
void par_run_phase(void (*fn)(void *ctx), void *ctx);

/* MPI_Finalize and exit(status) on every rank (after t_scope_end_to(0)). */
void par_exit(int status);

#endif
