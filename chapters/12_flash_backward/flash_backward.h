/* flash_backward.h — chapter 12: the backward pass of attention in O(T) memory.
 *
 * The forward is chapter 8's, F.scaled_dot_product_attention in PyTorch 2:
 *
 *     scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)   (..., T, S)
 *     scores = scores + mask                    # only when causal (chapter 4)
 *     p_attn = scores.softmax(dim=-1)                                        (..., T, S)
 *     output = torch.matmul(p_attn, value)                                   (..., T, d_v)
 *
 * and the backward is what loss.backward() sends back through it, given
 * grad_output = dloss/doutput (..., T, d_v). Chapter 10 computes it piece by
 * piece from the full matrices the forward kept (scores, p_attn) and the ones
 * its backward makes (dp_attn, dscores): memory O(T·S) per slice. FlashAttention-2
 * (Dao 2023, Algorithm 2) keeps only the output and one number per query row,
 * the logsumexp lse = log Σ_j exp(scores_ij) that chapter 8's flash returns,
 * and walks the same tiles as the forward:
 *
 *     D = (grad_output * output).sum(-1)            # (..., T): replaces the row sums
 *     for each tile of keys K_j, V_j and each block of queries Q_i:
 *         P  = exp(Q_i K_jᵀ / √d_k - lse_i)          # p_attn of the tile, recomputed
 *         dV_j += Pᵀ dO_i
 *         dP = dO_i V_jᵀ
 *         dS = P * (dP - D_i)                       # softmax's backward, with D
 *         dQ_i += dS K_j / √d_k
 *         dK_j += dSᵀ Q_i / √d_k
 *
 * never holding a (T, S) matrix: memory O((T + S)·d) per slice.
 *
 * Shapes: query (..., T, d_k), key (..., S, d_k), value (..., S, d_v), the
 * same leading dims (any number of them; the backward of a broadcast would
 * also have to sum the gradients over the broadcast dims, which this chapter
 * leaves out); causal needs T == S. Inputs must be finite: a NaN or an
 * infinity is an error sentence naming the tensor and the element.
 *
 * Dropout stays out: its backward needs the very mask of the forward, and a
 * backward that stores no (T, S) matrix cannot keep a (T, S) mask either.
 * FlashAttention regenerates it, tile by tile, from a counter-based generator
 * (Philox: the random bits of element (i, j) are a function of the seed and
 * of (i, j), not of the order of the draws); chapter 6's generator draws in
 * order, so it cannot.
 */
#ifndef CH12_FLASH_BACKWARD_H
#define CH12_FLASH_BACKWARD_H

#include "chapters/08_fast_attention/fast_attention.h"
#include "chapters/10_backward/backward.h"

/* The gradients of the three inputs, the shapes of the inputs. */
typedef struct {
    Tensor *grad_q;   /* (..., T, d_k) */
    Tensor *grad_k;   /* (..., S, d_k) */
    Tensor *grad_v;   /* (..., S, d_v) */
} AttnGrads;

/* ---- the forward, and the one quantity the backward needs per row ----------- */

/* Chapter 8's flash forward with its logsumexp: output (..., T, d_v) and *lse
 * (..., T). What the backward reads, besides the inputs. */
Tensor *flash_forward(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal, Tensor **lse);

/* D = (grad_output * output).sum(dim=-1), (..., T): for every row i,
 * Σ_j p_ij dp_ij (chapter 10's softmax dot term) = dO_i · O_i. */
Tensor *attention_backward_delta(const Tensor *grad_output, const Tensor *output);

/* ---- the two backwards ---------------------------------------------------------- */

/* The reference, chapter 10's backward on the full matrices: the forward again
 * (chapter 4's masked_attention, keeping scores and p_attn), then matmul_backward,
 * softmax_backward, causal_mask_backward, scale_backward and matmul_backward.
 * Memory O(T·S) per slice. */
AttnGrads attention_backward_reference(const Tensor *query, const Tensor *key, const Tensor *value,
                                       const Tensor *grad_output, bool is_causal);

/* The checks both backwards make of their inputs (chapter 1's shapes, the same leading dims, T == S when
 * causal, grad_output (..., T, d_v), finite numbers), each failure one sentence: a program calls it
 * first, before the forward's work. */
void attention_backward_check(const Tensor *query, const Tensor *key, const Tensor *value,
                              const Tensor *grad_output, bool is_causal);

/* FlashAttention-2's backward: tile by tile (chapter 8's tiles, ATTN_BLOCK_Q queries
 * x ATTN_BLOCK_K keys), p_attn recomputed from lse, D instead of the row sums.
 * output and lse are flash_forward's; grad_output is (..., T, d_v). Causal key
 * tiles wholly above the diagonal are skipped. Memory O((T + S)·d) per slice. */
AttnGrads attention_backward_flash(const Tensor *query, const Tensor *key, const Tensor *value,
                                   const Tensor *output, const Tensor *lse, const Tensor *grad_output,
                                   bool is_causal);

/* The check both backwards run on each input: a NaN or an infinity in x is the error
 * sentence "OP: NAME holds NaN at flat index I: the backward needs finite numbers".
 * For a caller that must refuse before it starts talking to other processes (chapter 9). */
void flash_backward_check_finite(const char *op, const char *name, const Tensor *x);

/* ---- what the backward costs ----------------------------------------------------- */

/* Extra memory the last attention_backward_flash call allocated (D, the tiles, the
 * transposed key and value tiles, copies of non-contiguous inputs; not the inputs
 * or the three gradients). Nothing is freed during a call, so this is its peak. */
size_t flash_backward_scratch_bytes(void);

/* Tiles the last attention_backward_flash call computed, and the causal ones it
 * skipped (wholly above the diagonal). */
int64_t flash_backward_tiles(int64_t *skipped);

/* Floating-point operations of the backward's five matmuls: 2·T·S·d_k for
 * Q Kᵀ again, 2·T·S·d_v each for Pᵀ dO and dO Vᵀ, 2·T·S·d_k each for dS K and
 * dSᵀ Q, per slice: 2·T·S·(3·d_k + 2·d_v), 2.5 times the forward's 2·T·S·(d_k + d_v)
 * when d_k = d_v. Halved when causal. */
double attention_backward_flops(const Tensor *query, const Tensor *key, const Tensor *value, bool is_causal);

#endif
