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
 *   dist.send / dist.recv around a ring    ring_attention       MPI_Sendrecv
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
} CommLog;

CommLog comm_world(void);

/* dist.all_reduce(partial, op=SUM), in place; an AllReduceFn (ctx: CommLog *).
 * partial must be contiguous. */
void comm_allreduce_sum(Tensor *partial, void *ctx);

/* Ring attention on this rank's chunk (Range chunk_of_rank(seqlen, P, rank)):
 * xq, xk, xv (B, H, Tc, hd). P steps: fold the K/V chunk held into every
 * query row (ring_attend_chunk), then pass it to rank + 1 and take the one of
 * rank - 1 (MPI_Sendrecv; sizes come from the partition). Causal runs skip
 * the chunks in the future but still pass them on. Returns (B, H, Tc, hd). */
Tensor *ring_attention(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t seqlen, bool causal,
                       CommLog *log);

/* Rank 0 gets the (B, T, d) tensor whose positions chunk_of_rank() gave to
 * each rank: `chunk` is this rank's (B, Tc, d). Other ranks get NULL. */
Tensor *comm_gather_seq(const Tensor *chunk, int64_t seqlen, CommLog *log);

/* Every rank runs fn(ctx). If t_error() is raised on any rank, rank 0 prints
 * the sentence of the lowest such rank, once ("<program>: error: ..."), and
 * every rank ends with exit status 1. A phase must not start a collective
 * call that some ranks could skip after an error: check first, then talk. */
void par_run_phase(void (*fn)(void *ctx), void *ctx);

/* MPI_Finalize and exit(status) on every rank (after t_scope_end_to(0)). */
void par_exit(int status);

#endif
