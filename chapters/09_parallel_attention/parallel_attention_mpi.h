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
 * of the next block are posted before the compute, MPI_Testall moves them on
 * between heads (its time counts as waited) and MPI_Waitall ends them after
 * it; otherwise one MPI_Sendrecv after the compute. The same arithmetic in the
 * same order either way: the result is bit for bit the same. Adds the pairs
 * folded, the bytes sent and the seconds waited to log. Returns (B, H, Tc, hd);
 * *lse (may be NULL) gets the logsumexp of every row, (B, H, Tc). */
Tensor *ring_attention(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t seqlen, bool causal,
                       SeqLayout layout, bool overlap, CommLog *log, Tensor **lse);

/* The backward of ring_attention, a second trip round the same ring: out and lse are
 * what the forward gave this rank, dout = dloss/dout (B, H, Tc, hd). Each step runs
 * chapter 12's attention_backward_flash on the block in hand (the ring_block case of
 * the forward) with the forward's whole-row lse and output, so p_attn and D are those
 * of all the keys: dQ accumulates here, the block's dK and dV are added to the ones
 * that travel with it, and after P steps one more hop brings every rank the dK, dV
 * of its own block from all ranks. K/V rows travel as in the forward (overlapped with
 * the compute, MPI_Testall between heads, unless !overlap); dK/dV (every row of a
 * block) after each compute.
 * Adds the bytes sent and the seconds waited to log. *dq, *dk, *dv: (B, H, Tc, hd). */
void ring_attention_backward(const Tensor *xq, const Tensor *xk, const Tensor *xv, const Tensor *out,
                             const Tensor *lse, const Tensor *dout, int64_t seqlen, bool causal, SeqLayout layout,
                             bool overlap, CommLog *log, Tensor **dq, Tensor **dk, Tensor **dv);

/* DeepSpeed-Ulysses on this rank's positions chunk_of_rank(seqlen, P, rank):
 * xq, xk, xv (B, H, Tc, hd). One all-to-all sends rank j the q, k, v of
 * heads_of_rank(j) at these positions and brings (B, H/P, T, hd) of this
 * rank's heads at every position; chapter 8's attention_flash on them; one
 * all-to-all back. MPI_Alltoallv, because chunks may differ by one position
 * (T % P != 0). n_heads % P must be 0 (the program refuses it before).
 * Returns (B, H, Tc, hd). keep (may be NULL) gets what the backward needs. */
typedef struct {
    Tensor *q, *k, *v, *out;  /* (B, H/P, T, hd): this rank's heads at every position */
    Tensor *lse;              /* (B, H/P, T)                                           */
} UlyssesKeep;

Tensor *ulysses_attention(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t seqlen, bool causal,
                          CommLog *log, UlyssesKeep *keep);

/* Its backward: the all-to-alls reversed. dout (B, H, Tc, hd) of this rank's positions
 * goes to every position of its heads (the way the forward's output came back), chapter
 * 12's attention_backward_flash runs on whole heads, and dq, dk, dv go back to the
 * positions they belong to (the way q, k, v came). *dq, *dk, *dv: (B, H, Tc, hd). */
void ulysses_attention_backward(const UlyssesKeep *keep, const Tensor *dout, int64_t seqlen, bool causal,
                                CommLog *log, Tensor **dq, Tensor **dk, Tensor **dv);

/* Rank 0 gets the (B, T, d) tensor whose positions owned_positions() gave to
 * each rank: `rows` is this rank's (B, Tc, d). Other ranks get NULL. */
Tensor *comm_gather_seq(const Tensor *rows, SeqLayout layout, int64_t seqlen, CommLog *log);

/* dist.gather of equal parts: rank 0 gets every rank's `part` (n, ...) stacked along
 * dim 0, (P n, ...), in rank order; other ranks get NULL. */
Tensor *comm_gather_rows(const Tensor *part, CommLog *log);

/* Every rank runs fn(ctx). If t_error() is raised on any rank, rank 0 prints
 * the sentence of the lowest such rank, once ("<program>: error: ..."), and
 * every rank ends with exit status 1. A phase must not start a collective
 * call that some ranks could skip after an error: check first, then talk. */
void par_run_phase(void (*fn)(void *ctx), void *ctx);

/* MPI_Finalize and exit(status) on every rank (after t_scope_end_to(0)). */
void par_exit(int status);

#endif
