/* llama_attention.h — chapter 11: LLaMA2's Attention class (Happy-LLM 5.1.3.3).
 *
 *     class Attention(nn.Module):
 *         def __init__(self, args: ModelConfig):
 *             self.n_kv_heads = args.n_heads if args.n_kv_heads is None else args.n_kv_heads
 *             assert args.n_heads % self.n_kv_heads == 0
 *             self.n_rep = self.n_local_heads // self.n_local_kv_heads
 *             self.head_dim = args.dim // args.n_heads
 *             self.wq = nn.Linear(args.dim, args.n_heads * self.head_dim, bias=False)
 *             self.wk = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
 *             self.wv = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
 *             self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)
 *             self.attn_dropout, self.resid_dropout = nn.Dropout(args.dropout) x 2
 *             mask = torch.triu(torch.full((1, 1, L, L), float("-inf")), diagonal=1)
 *
 *         def forward(self, x, freqs_cos, freqs_sin):
 *             xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
 *             xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim)     # and xk, xv
 *             xq, xk = apply_rotary_emb(xq, xk, freqs_cos, freqs_sin)            # RoPE
 *             xk = repeat_kv(xk, self.n_rep); xv = repeat_kv(xv, self.n_rep)     # GQA
 *             xq, xk, xv = xq.transpose(1, 2), ...                               # heads first
 *             scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)
 *             scores = scores + self.mask[:, :, :seqlen, :seqlen]
 *             scores = self.attn_dropout(F.softmax(scores.float(), dim=-1))
 *             output = torch.matmul(scores, xv).transpose(1, 2).contiguous().view(bsz, seqlen, -1)
 *             output = self.resid_dropout(self.wo(output))
 *
 * What is new against chapter 7's class: wk and wv map dim to n_kv_heads *
 * head_dim (fewer key/value heads), RoPE turns q and k by their position (no
 * position is added to x), and repeat_kv gives every query head its group's
 * key/value head. The rest is chapters 2-7. With PyTorch >= 2.0 the book calls
 * F.scaled_dot_product_attention(is_causal=True) instead of the mask: the same
 * numbers in eval mode (its dropout draws differ); this is the book's other
 * path, the one PyTorch before 2.0 runs.
 */
#ifndef CH11_LLAMA_ATTENTION_H
#define CH11_LLAMA_ATTENTION_H

#include "chapters/06_dropout/dropout.h"
#include "rope.h"
#include "gqa.h"

/* ModelConfig's fields that the Attention class reads. */
typedef struct {
    int64_t dim;          /* width of x and of the output            */
    int64_t n_heads;      /* query heads                             */
    int64_t n_kv_heads;   /* key/value heads, dividing n_heads       */
    int64_t max_seq_len;  /* size of the causal mask buffer          */
    double dropout;       /* attn_dropout and resid_dropout          */
} ModelConfig;

typedef struct {
    ModelConfig args;
    int64_t n_local_heads, n_local_kv_heads;  /* model_parallel_size = 1: n_heads, n_kv_heads */
    int64_t n_rep;                            /* n_heads // n_kv_heads                         */
    int64_t head_dim;                         /* dim // n_heads                                */
    Linear *wq;                               /* (n_heads * head_dim, dim)                     */
    Linear *wk, *wv;                          /* (n_kv_heads * head_dim, dim)                  */
    Linear *wo;                               /* (dim, n_heads * head_dim)                     */
    Dropout attn_dropout, resid_dropout;
    Tensor *mask;                             /* (1, 1, max_seq_len, max_seq_len)              */
    bool rotate_half;                         /* Hugging Face's layout: halves, not pairs      */
} LlamaAttention;

/* Intermediates of one forward call (narration and --dump). */
typedef struct {
    Tensor *xq, *xk, *xv;   /* after RoPE (q, k), before repeat_kv: (bsz, seqlen, heads, head_dim) */
    Tensor *keys;           /* repeat_kv(xk).transpose(1, 2): (bsz, n_heads, seqlen, head_dim)     */
    Tensor *scores;         /* scaled and masked: (bsz, n_heads, seqlen, seqlen)                   */
    Tensor *attn_weights;   /* after softmax, before attn_dropout                                  */
} LlamaTrace;

/* The sizes' rules, one sentence each: every size >= 1, n_kv_heads divides
 * n_heads, head_dim = dim // n_heads even and >= 2, dropout in [0, 1]. */
void check_model_config(const ModelConfig *args);
/* Attention(args): PyTorch's nn.Linear init from the global generator, in
 * the order wq, wk, wv, wo; training mode. */
LlamaAttention *llama_attention_new(ModelConfig args);
/* From given weights (nn.Linear layout); shapes checked against args, each
 * error naming the weight. Training mode. */
LlamaAttention *llama_attention_from(ModelConfig args, Tensor *wq, Tensor *wk, Tensor *wv, Tensor *wo);
void llama_attention_eval(LlamaAttention *m);    /* model.eval()  */
/* RoPE as the module's layout says: apply_rotary_emb (pairs, the book) or, with
 * m->rotate_half, Hugging Face's halves. x (bsz, seqlen, heads, head_dim). */
Tensor *llama_rope(const LlamaAttention *m, const Tensor *x, const Tensor *freqs_cos, const Tensor *freqs_sin);
/* forward(x, freqs_cos, freqs_sin): x (bsz, seqlen, dim), seqlen <= max_seq_len,
 * freqs (seqlen, head_dim / 2). Returns (bsz, seqlen, dim); trace may be NULL. */
Tensor *llama_attention_forward(const LlamaAttention *m, const Tensor *x, const Tensor *freqs_cos,
                                const Tensor *freqs_sin, LlamaTrace *trace);
/* Trainable numbers: wq, wk, wv, wo. */
int64_t llama_attention_num_params(const LlamaAttention *m);

#endif
