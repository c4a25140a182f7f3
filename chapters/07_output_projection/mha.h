/* mha.h — chapter 7: the complete MultiHeadAttention (Happy-LLM 2.1.6).
 *
 *     xq, xk, xv = self.wq(q), self.wk(k), self.wv(v)
 *     split heads, scores = xq @ xkᵀ / √head_dim (+ mask[:, :, :seqlen, :seqlen])
 *     scores = softmax(scores); scores = self.attn_dropout(scores)
 *     output = merge(scores @ xv)
 *     output = self.wo(output)              # out_proj in the 手撕 MHA class
 *     output = self.resid_dropout(output)   # Happy-LLM's class only
 *
 * ModelArgs keeps the two widths apart: d_in is the width of the input x
 * and d_out the width of q, k, v and of the output. Happy-LLM 2.1.6 names
 * them args.n_embd and args.dim (nn.Linear(args.n_embd, n_heads * head_dim),
 * wo to args.dim) and its blocks need them equal; the 手撕 class takes d_in
 * and d_out. wq, wk, wv are (d_out, d_in), wo is
 * (d_out, d_out). A Transformer block adds the output back to x (the
 * residual), which needs d_out == d_in.
 */
#ifndef CH07_MHA_H
#define CH07_MHA_H

#include "chapters/05_multi_head/multi_head.h"
#include "chapters/06_dropout/dropout.h"

typedef struct {
    int64_t d_in;         /* width of the input (Happy-LLM: args.n_embd)    */
    int64_t d_out;        /* width of q, k, v and of the output (args.dim)  */
    int64_t n_heads;
    int64_t max_seq_len;  /* size of the causal mask buffer                */
    double dropout;       /* attn_dropout (and resid_dropout) probability  */
    bool resid_dropout;   /* Happy-LLM's second dropout, on the output      */
    bool causal;          /* is_causal                                     */
    bool qkv_bias;        /* biases on wq, wk, wv                          */
    bool out_bias;        /* bias on wo (Raschka's out_proj has one)        */
} ModelArgs;

typedef struct {
    ModelArgs args;
    int64_t head_dim;         /* d_out / n_heads                                   */
    QKVProjection *qkv;       /* wq, wk, wv: (d_out, d_in)                         */
    Linear *wo;               /* (d_out, d_out)                                    */
    Dropout attn_dropout, resid_dropout;
    Tensor *mask;             /* (1, 1, max_seq_len, max_seq_len) or NULL          */
} MultiHeadAttention;

/* Intermediates of one forward call (for --dump and the narration), and the
 * dropout masks it applied (chapter 6's dropout_forward: 0 where dropped,
 * 1/(1-p) where kept, all ones in eval mode), so a backward needs no replay:
 * attn_dropped == attn_weights * attn_mask and, with resid_dropout, the
 * output == projected * resid_mask, elementwise. */
typedef struct {
    Tensor *xq, *xk, *xv;      /* (B, H, T, hd), (B, H, S, hd) after split        */
    Tensor *scores;            /* (B, H, T, S) scaled, masked, before softmax     */
    Tensor *attn_weights;      /* (B, H, T, S) after softmax                       */
    Tensor *attn_dropped;      /* (B, H, T, S) after attn_dropout                  */
    Tensor *merged;            /* (B, T, d_out) before wo                          */
    Tensor *projected;         /* (B, T, d_out) after wo, before resid_dropout     */
    Tensor *attn_mask;  /* (B, H, T, S) what attn_dropout multiplied the weights by */
    Tensor *resid_mask; /* (B, T, d_out) what resid_dropout multiplied the output by, NULL when there is none */
} MhaTrace;

/* forward(q, k, v): q (B, T, d_in), k and v (B, S, d_in); S == T when causal.
 * Returns (B, T, d_out). trace may be NULL. */
Tensor *mha_forward(const MultiHeadAttention *m, const Tensor *q, const Tensor *k, const Tensor *v,
                    MhaTrace *trace);

/* Trainable numbers: wq, wk, wv, wo and the biases in use. */
int64_t mha_num_params(const MultiHeadAttention *m);

/* Happy-LLM 2.1.6's ModelArgs-based class: no biases, attn_dropout and
 * resid_dropout. */
ModelArgs happy_llm_args(int64_t dim, int64_t n_heads, int64_t max_seq_len, double dropout, bool causal);
/* The 手撕 MHA class quoted in the README (Raschka's):
 * MultiHeadAttention(d_in, d_out, context_length, dropout, num_heads):
 * qkv_bias False, out_proj with bias, causal, one dropout (on the weights). */
ModelArgs handwritten_mha_args(int64_t d_in, int64_t d_out, int64_t seq_len, double dropout, int64_t num_heads);

/* A module with PyTorch's default init (nn.Linear) from the global generator.
 * Checks d_out % n_heads, sizes >= 1, dropout in [0, 1]. Training mode. */
MultiHeadAttention *mha_new(ModelArgs args);
/* A module around projections made elsewhere (chapter 7's mha_load reads
 * them from files): wq, wk, wv (d_out, d_in) and wo (d_out, d_out), whose
 * sizes and biases args must already describe. Checks args as mha_new does.
 * Training mode. */
MultiHeadAttention *mha_from_projections(ModelArgs args, QKVProjection *qkv, Linear *wo);

void mha_train(MultiHeadAttention *m);   /* model.train() */
void mha_eval(MultiHeadAttention *m);    /* model.eval()  */

#endif
