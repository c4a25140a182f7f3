/* parallel_attention.h — chapter 9: attention split across processes, the parts
 * that need no MPI (the program's MPI side is parallel_attention_mpi.h).
 *
 * Happy-LLM 5.1.3's LLaMA2 Attention carries two lines its text never explains
 * (its forward then splits the heads with n_local_heads):
 *
 *     model_parallel_size = 1
 *     self.n_local_heads = args.n_heads // model_parallel_size
 *
 * With P processes ("ranks") there are two standard ways to share one
 * attention layer:
 *
 *   heads     (tensor parallel, Megatron-LM): rank r owns heads
 *             [r*H/P, (r+1)*H/P), n_local_heads = H // P of them. It keeps the
 *             matching rows of wq, wk, wv (a column-parallel linear), runs
 *             chapter 7 on its heads, multiplies by its columns of wo (a
 *             row-parallel linear) and one all-reduce adds the P partial
 *             outputs; bo is added once, after the sum.
 *   sequence  (ring attention): rank r owns some of the T positions (a
 *             contiguous chunk, or zig-zag: an early and a late chunk) and
 *             every weight. It projects its own q, k, v; the K/V blocks
 *             travel around a ring of ranks; on each, chapter 8's flash
 *             attention gives (output, logsumexp) and attention_merge_lse
 *             merges it into what the rows saw before (ring_flash_step).
 *             ring_attend_chunk is the same step one row at a time, with
 *             chapter 8's online_row_update keeping (max, sum, output).
 *
 *   ulysses   (DeepSpeed-Ulysses): rank r owns chunk_of_rank(T, P, r) of the
 *             positions and every weight, projects its q, k, v, and one
 *             all-to-all turns "my positions, all heads" into "all positions,
 *             my H/P heads"; chapter 8's flash runs on those heads; one
 *             all-to-all back. Needs n_heads % P == 0.
 *
 * This file holds what they need and a test can run in one process: who owns
 * what, the weight shards, the row-parallel output with its reduce as a
 * callback, the ring's steps, and the cost model (bytes sent, memory per rank).
 */
#ifndef CH09_PARALLEL_ATTENTION_H
#define CH09_PARALLEL_ATTENTION_H

#include "chapters/07_output_projection/mha.h"
#include "chapters/08_fast_attention/fast_attention.h"

typedef enum { PARALLEL_HEADS, PARALLEL_SEQUENCE, PARALLEL_ULYSSES } ParallelMode;

/* "heads" / "sequence" / "ulysses", and back (-1 for an unknown name). */
const char *parallel_mode_name(ParallelMode mode);
int parallel_mode_parse(const char *name);

/* A half-open range [start, end) of heads or of positions. */
typedef struct {
    int64_t start, end;
} Range;

/* ---- who owns what ------------------------------------------------------------ */

/* n_heads % P must be 0 (Megatron-LM's divide()); the error names both numbers.
 * Returns n_local_heads = n_heads // model_parallel_size. */
int64_t n_local_heads_of(int64_t n_heads, int model_parallel_size);

/* The heads of rank r: [r*H/P, (r+1)*H/P). */
Range heads_of_rank(int64_t n_heads, int P, int rank);

/* The positions of rank r when T is split into P contiguous chunks as
 * np.array_split does: the first T % P ranks get one more. Chunks may be
 * uneven and, when T < P, empty. */
Range chunk_of_rank(int64_t seqlen, int P, int rank);

/* ---- heads: column-parallel wq, wk, wv and row-parallel wo --------------------- */

/* Rows [start, end) of layer.weight (out_features, in_features) and of its
 * bias: the shard of a ColumnParallelLinear (each rank computes some of the
 * output features from the whole input). */
Linear *column_parallel_shard(const Linear *layer, Range rows);

/* Columns [start, end) of layer.weight, no bias: the shard of a
 * RowParallelLinear (each rank multiplies its slice of the input features and
 * gets a partial sum of every output feature). */
Linear *row_parallel_shard(const Linear *layer, Range cols);

/* The local module of rank r: chapter 7's MultiHeadAttention with
 * n_local_heads heads, wq/wk/wv rows and wo columns of those heads and no bo
 * (it belongs after the sum). Eval mode. wq, wk, wv come from chapter 3's
 * qkv_new (nn.Linear's init, drawn from the global generator) with this
 * rank's rows copied in. */
MultiHeadAttention *local_heads_module(const MultiHeadAttention *m, int P, int rank);

/* Sums a tensor over all ranks, in place (MPI_Allreduce in the program). */
typedef void (*AllReduceFn)(Tensor *partial, void *ctx);

/* The last step of the heads mode, Megatron-LM's RowParallelLinear.forward
 * (megatron/core/tensor_parallel/layers.py):
 *     output_parallel = F.linear(input_parallel, weight)   # partial sum, bias=None
 *     output_ = reduce_from_tensor_model_parallel_region(output_parallel)
 *     output = (output_ + self.bias) if self.bias is not None else output_
 * partial (B, T, d_out) is what local_heads_module() produced; all_reduce sums
 * it over the ranks; bias (d_out,) may be NULL. Returns the output. */
Tensor *row_parallel_output(Tensor *partial, const Tensor *bias, AllReduceFn all_reduce, void *ctx);

/* ---- sequence: one step of ring attention ---------------------------------------- */

/* The running state of every query row of a rank's chunk. */
typedef struct {
    Tensor *m;    /* (B, H, Tq)      running max of the scores seen        */
    Tensor *l;    /* (B, H, Tq)      running sum of exp(score - m)          */
    Tensor *acc;  /* (B, H, Tq, hd)  running sum of exp(score - m) * value  */
} RingState;

/* online_row_init for every row. */
RingState ring_state_new(int64_t bsz, int64_t n_heads, int64_t rows, int64_t head_dim);

/* Does the chunk of keys [k.start, k.end) lie wholly after the queries
 * [q.start, q.end)? Then a causal run skips it. */
bool chunk_in_future(Range q, Range k);

/* Fold one K/V chunk into the state: xq (B, H, Tq, hd) are the queries at
 * positions q.start.., xk and xv (B, H, Tk, hd) the keys and values at
 * positions k.start... Scores are chapter 2's scaled_scores; when causal, a
 * query at position i sees only the keys at positions <= i (the diagonal chunk
 * is masked inside, chunks in the future are skipped). Returns the number of
 * scores folded in. */
int64_t ring_attend_chunk(RingState *st, const Tensor *xq, Range q, const Tensor *xk, const Tensor *xv,
                          Range k, bool causal);

/* online_row_finish for every row: the attention output (B, H, Tq, hd). */
Tensor *ring_state_finish(const RingState *st);

/* ---- sequence: the ring the program runs, chapter 8's flash on whole blocks ------- */

/* How the positions are dealt to the ranks.
 *   contiguous  rank r owns chunk_of_rank(T, P, r): causal work grows with r
 *               (rank r's queries see r + 1 of the P chunks), 1 : 3 : 5 : 7 at P = 4.
 *   zigzag      T cut into 2P chunks (np.array_split), rank r owns chunks r and
 *               2P - 1 - r (Megatron's context parallelism, ring-flash-attention's
 *               zigzag): an early chunk and a late one, so every rank does about
 *               the same causal work. Needs T >= 2P. */
typedef enum { LAYOUT_CONTIGUOUS, LAYOUT_ZIGZAG } SeqLayout;

/* "contiguous" / "zigzag", and back (-1 for an unknown name). */
const char *seq_layout_name(SeqLayout layout);
int seq_layout_parse(const char *name);

/* The positions of one rank, in order: one part (contiguous) or two (zigzag). */
typedef struct {
    int n;
    Range part[2];
} Owned;

Owned owned_positions(SeqLayout layout, int64_t seqlen, int P, int rank);
int64_t owned_count(Owned o);  /* how many positions in all */

/* x[:, positions] of one rank, x (B, T, d): torch.cat([x[:, a:b], x[:, c:e]], dim=1),
 * (B, owned_count, d). */
Tensor *owned_rows(const Tensor *x, Owned o);

/* The output (B, T, d) with rank r's rows rows[r] (B, owned_count, d) put back at
 * its positions; the inverse of owned_rows over all the ranks. */
void place_owned_rows(Tensor *output, const Tensor *rows, Owned o);

/* Which way the K/V blocks travel: +1 (to rank + 1) for contiguous, -1 for
 * zigzag; at step s rank r holds the block of rank ring_origin(), whose rows
 * are that rank's owned positions in order. */
int ring_direction(SeqLayout layout);
int ring_origin(SeqLayout layout, int P, int rank, int step);

/* What one ring step computes: rows [q_start, q_end) of the rank's queries meet
 * rows [0, k_end) of the visiting block, masked (causal: only the diagonal block,
 * where both are the same positions) or not. k_end == 0: nothing to do. The cases
 * (causal; origin o, rank r):
 *   o == r            all queries, all keys, causal mask     (the diagonal)
 *   contiguous o < r  all queries, all keys                  (wholly in the past)
 *   contiguous o > r  nothing                                (wholly in the future)
 *   zigzag o < r      all queries, the first part of o's keys (its late part is
 *                     after both of r's parts, its early part before both)
 *   zigzag o > r      r's second part, all of o's keys        (r's early part is
 *                     before both of o's parts, its late part after both)
 * Not causal: all queries, all keys, no mask. The rows a rank receives are
 * exactly the k_end its step uses, never more. */
typedef struct {
    int64_t q_start, q_end, k_end;
    bool causal;
} RingBlock;

RingBlock ring_block(SeqLayout layout, int64_t seqlen, int P, int rank, int origin, bool causal);

/* The (query, key) pairs a block folds, per (batch, head): q x k, or n(n+1)/2 on
 * the diagonal. */
int64_t ring_block_pairs(RingBlock blk);

/* The merged result so far of a rank's queries: out (B, H, Tq, hd) and lse
 * (B, H, Tq), starting at out = 0, lse = -inf (no key seen). */
typedef struct {
    Tensor *out, *lse;
} FlashAcc;

FlashAcc flash_acc_new(int64_t bsz, int64_t n_heads, int64_t rows, int64_t head_dim);

/* What a ring step calls after each (batch, head) it has folded: the MPI side
 * passes MPI_Testall on the exchange in flight, because an MPI library moves a
 * large message only while this process is inside an MPI call. NULL: nothing. */
typedef struct {
    void (*fn)(void *ctx);
    void *ctx;
} RingPoke;

/* One ring step: chapter 8's attention_flash_lse on the block's queries of xq
 * (B, H, Tq, hd) against its rows of xk, xv (B, H, Tk, hd), merged into acc
 * with attention_merge_lse, one (batch, head) at a time, poke (may be NULL)
 * called after each. No (Tq, Tk) block is stored: flash streams it in tiles.
 * Returns the pairs folded (B * H * ring_block_pairs). */
int64_t ring_flash_step(FlashAcc *acc, const Tensor *xq, const Tensor *xk, const Tensor *xv, RingBlock blk,
                        const RingPoke *poke);

/* The backward of one ring step: chapter 12's attention_backward_flash on the
 * block's queries against its keys, with the forward's whole-row out and lse
 * (B, H, Tq, ...) and dout = dloss/dout, one (batch, head) at a time, poke (may
 * be NULL) after each. The block's share of the gradients is added into dq
 * (B, H, Tq, hd, at the block's query rows) and into dk, dv (B, H, Tk, hd, at
 * its key rows), so the shares of every step add up to the whole gradient. */
void ring_flash_backward_step(const Tensor *xq, const Tensor *xk, const Tensor *xv, const Tensor *out,
                              const Tensor *lse, const Tensor *dout, RingBlock blk, Tensor *dq, Tensor *dk,
                              Tensor *dv, const RingPoke *poke);

/* ---- the cost model ---------------------------------------------------------------- */

typedef struct {
    int64_t bsz, seqlen, d_in, d_out, n_heads;
    bool causal;        /* sequence: a causal ring sends only what the next rank uses */
    SeqLayout layout;   /* sequence: how the positions are dealt (0: contiguous)      */
    bool qkv_bias, out_bias;  /* the backward: biases whose gradients are summed too   */
} ParallelDims;

/* Bytes rank r hands to MPI for other ranks in one forward pass (float32):
 *   heads:    the all-reduce buffer, B*T*d_out floats (0 when P == 1);
 *   sequence: P-1 ring steps, each sending the K and V rows the next rank
 *             uses of the block it holds (2*B*n*d_out floats for n rows: all of
 *             them unless causal, where ring_block() says), plus its own output
 *             rows (B*Tc*d_out) for the gather on rank 0 (not rank 0).
 *   ulysses:  the first all-to-all, 3*B*Tc*d_out*(P-1)/P floats (q, k, v of
 *             its positions for the other ranks' heads); the second,
 *             B*(T-Tc)*d_out/P (its heads' output at the other ranks'
 *             positions); the gather as in sequence.
 * The program counts the bytes of every MPI call it makes; the tests check
 * that the counts equal this. */
int64_t parallel_bytes_sent(ParallelMode mode, ParallelDims d, int P, int rank);

/* Bytes rank r hands to MPI for other ranks in the backward (--grad-output), float32:
 *   heads:    the all-reduce of grad_x, B*T*d_in floats; then (not rank 0) its
 *             heads' rows of grad_wq, grad_wk, grad_wv (and grad_bq, ...) and its
 *             columns of grad_wo, gathered on rank 0 (grad_bo is dy summed: no message);
 *   sequence: the ring again: P-1 steps of the K/V rows the next rank uses (as the
 *             forward), and P hops of the dK, dV of the block held, every row of it
 *             (the last hop takes them home); the all-reduce of every weight's (and
 *             bias's) gradient; its grad_x rows to rank 0 (not rank 0);
 *   ulysses:  the all-to-alls reversed: dout, B*Tc*d_out*(P-1)/P, and dq, dk, dv,
 *             3*B*(T-Tc)*d_out/P; the all-reduce and the gather as in sequence.
 * An all-reduce counts its buffer once (what the rank hands to MPI). */
int64_t parallel_backward_bytes_sent(ParallelMode mode, ParallelDims d, int P, int rank);

/* Bytes of float32 tensors rank r keeps for one forward pass (a model: weights
 * without biases, activations, score blocks):
 *   heads:    its rows of wq, wk, wv and columns of wo; x; its xq, xk, xv;
 *             scores and weights (B, H/P, T, T); merged; the (B, T, d_out)
 *             partial output;
 *   sequence: all of wq, wk, wv, wo; its rows of x; xq, xk, xv of them;
 *             two K/V blocks (held and arriving, Tmax rows each); the (out, lse)
 *             merged so far and those of one step; the output rows; rank 0 also
 *             the gathered (B, T, d_out) output. No score block: flash keeps
 *             only its tiles (chapter 8).
 *   ulysses:  every weight; its rows of x; xq, xk, xv of them and the send
 *             buffer of the same size; q, k, v of its heads at every position
 *             and their receive buffer; the output of its heads, its send
 *             buffer, the receive buffer and the (B, H, Tc, hd) result; the
 *             output rows; rank 0 also the gathered output. */
int64_t parallel_memory_bytes(ParallelMode mode, ParallelDims d, int P, int rank);

/* The largest over the ranks, and the sum of the bytes sent. */
int64_t parallel_bytes_sent_max(ParallelMode mode, ParallelDims d, int P);
int64_t parallel_bytes_sent_total(ParallelMode mode, ParallelDims d, int P);
int64_t parallel_memory_bytes_max(ParallelMode mode, ParallelDims d, int P);

#endif
