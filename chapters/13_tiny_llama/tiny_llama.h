/* tiny_llama.h — chapter 13: Happy-LLM 5.1's LLaMA2 (k_model.py's Transformer), forward and backward.
 *
 *     class RMSNorm(nn.Module):
 *         def _norm(self, x): return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
 *         def forward(self, x): return self._norm(x.float()).type_as(x) * self.weight
 *     class MLP(nn.Module):
 *         hidden_dim = multiple_of * ((int(2 * 4 * dim / 3) + multiple_of - 1) // multiple_of)  # when None
 *         def forward(self, x): return self.dropout(self.w2(F.silu(self.w1(x)) * self.w3(x)))
 *     class DecoderLayer(nn.Module):
 *         def forward(self, x, freqs_cos, freqs_sin):
 *             h = x + self.attention.forward(self.attention_norm(x), freqs_cos, freqs_sin)
 *             out = h + self.feed_forward.forward(self.ffn_norm(h))
 *     class Transformer(PreTrainedModel):
 *         self.tok_embeddings = nn.Embedding(args.vocab_size, args.dim)
 *         self.layers = [DecoderLayer(layer_id, args) for layer_id in range(args.n_layers)]
 *         self.norm = RMSNorm(args.dim, eps=args.norm_eps)
 *         self.output = nn.Linear(args.dim, args.vocab_size, bias=False)
 *         self.tok_embeddings.weight = self.output.weight          # tied
 *         def forward(self, tokens, targets):
 *             h = self.tok_embeddings(tokens)
 *             for layer in self.layers: h = layer(h, freqs_cos[:seqlen], freqs_sin[:seqlen])
 *             logits = self.output(self.norm(h))
 *             loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
 *
 * The attention is chapter 11's class (RoPE on neighbouring pairs, n_kv_heads, the
 * causal mask): nothing of it is written again here. Two forwards:
 *   - transformer_forward: the book's manual path (chapter 11's llama_attention_forward),
 *     which keeps every head's attention weights (what --dump and the pictures show);
 *   - transformer_forward_train: k_model.py's flash path (F.scaled_dot_product_attention,
 *     is_causal=True), which is chapter 8's flash through chapter 12's flash_forward,
 *     keeping only the output and one logsumexp per row, so the backward
 *     (chapter 12's attention_backward_flash) needs O(T) memory per head.
 * Both give the same logits to float rounding (tested), and PyTorch's (fixtures).
 * Dropout is 0, as ModelConfig's default: eval and training forwards are the same maths.
 */
#ifndef CH13_TINY_LLAMA_H
#define CH13_TINY_LLAMA_H

#include "chapters/11_llama_attention/llama_attention.h"

/* llama2.c's Config (seven int32 in a .bin's header), plus what k_model.py's
 * ModelConfig adds that the header does not hold. */
typedef struct {
    int64_t dim;          /* transformer width                                       */
    int64_t hidden_dim;   /* SwiGLU width (w1, w3: dim -> hidden_dim)                */
    int64_t n_layers;
    int64_t n_heads;      /* query heads                                             */
    int64_t n_kv_heads;   /* key/value heads, dividing n_heads                       */
    int64_t vocab_size;
    int64_t max_seq_len;  /* llama2.c's seq_len                                      */
    bool shared;          /* output.weight is tok_embeddings.weight (k_model.py ties) */
    double norm_eps;      /* 1e-5, ModelConfig's norm_eps                           */
} LlamaConfig;

typedef struct {
    Tensor *attention_norm;      /* RMSNorm weight (dim,)             */
    LlamaAttention *attention;   /* chapter 11                        */
    Tensor *ffn_norm;            /* RMSNorm weight (dim,)             */
    Linear *w1, *w3;             /* (hidden_dim, dim)                 */
    Linear *w2;                  /* (dim, hidden_dim)                 */
} DecoderLayer;

/* One trainable tensor and its k_model.py state-dict key. */
typedef struct {
    char name[64];               /* "layers.0.attention.wq.weight"    */
    Tensor *p;
} NamedParam;

typedef struct {
    LlamaConfig args;
    int64_t head_dim;            /* dim // n_heads                    */
    Tensor *tok_embeddings;      /* (vocab_size, dim)                 */
    DecoderLayer *layers;        /* n_layers                          */
    Tensor *norm;                /* (dim,)                            */
    Linear *output;              /* weight (vocab_size, dim); tok_embeddings itself when shared */
    FreqsCis freqs;              /* precompute_freqs_cis(head_dim, max_seq_len): (max_seq_len, head_dim / 2) */
    NamedParam *params;          /* model.named_parameters(), in its order */
    int n_params;
} Transformer;

/* k_model.py's MLP rule: 4 * dim, times 2/3 (int), rounded up to a multiple of multiple_of. */
int64_t llama_hidden_dim(int64_t dim, int64_t multiple_of);
/* Every size's rule, one sentence each (sizes >= 1, n_kv_heads divides n_heads,
 * dim divisible by n_heads, head_dim even). `what` names the source ("M.bin: the header"). */
void check_llama_config(const char *what, const LlamaConfig *c);
/* A model with zeroed weights of the config's shapes (RMSNorm weights 1), named as
 * k_model.py names them; loading or init fills them. */
Transformer *transformer_new(LlamaConfig c);
/* Happy-LLM's init: every Linear and the embedding N(0, 0.02), w3 and wo N(0, 0.02 / sqrt(2 n_layers)),
 * RMSNorm weights 1, from the seeded generator. */
void transformer_init(Transformer *m);
/* Trainable numbers (the tied matrix counted once). */
int64_t transformer_num_params(const Transformer *m);

/* ---- forward ----------------------------------------------------------------------- */

/* RMSNorm(x) with weight w: x (..., dim). *rstd (may be NULL) gets rsqrt(mean(x²) + eps), (...,). */
Tensor *rms_norm(const Tensor *x, const Tensor *w, double eps, Tensor **rstd);
/* F.silu(a) * b, elementwise. */
Tensor *swiglu(const Tensor *a, const Tensor *b);
/* self.tok_embeddings(tokens): tokens (bsz * seqlen) ids, each in [0, vocab) -> (bsz, seqlen, dim). */
Tensor *embedding(const Tensor *table, const int32_t *tokens, int64_t bsz, int64_t seqlen);

/* The book's forward (eval): tokens (bsz, seqlen) -> logits (bsz, seqlen, vocab).
 * attn (may be NULL) gets n_layers tensors: each layer's attention weights (bsz, n_heads, seqlen, seqlen). */
Tensor *transformer_forward(const Transformer *m, const int32_t *tokens, int64_t bsz, int64_t seqlen,
                            Tensor **attn);

/* What the training forward keeps for the backward, per layer. */
typedef struct {
    Tensor *x, *rstd1, *xn;      /* layer input, attention_norm's rstd and output    (bsz, T, dim) */
    Tensor *xq, *xk, *xv;        /* after RoPE (q, k), heads first: (bsz, heads, T, head_dim)        */
    Tensor *keys, *values;       /* repeat_kv(xk), repeat_kv(xv): (bsz, n_heads, T, head_dim)        */
    Tensor *out, *lse;           /* flash output (bsz, n_heads, T, head_dim), logsumexp (bsz, n_heads, T) */
    Tensor *merged;              /* out merged: (bsz, T, n_heads * head_dim), wo's input              */
    Tensor *h, *rstd2, *hn;      /* after the attention's residual; ffn_norm's rstd and output        */
    Tensor *a, *b, *g;           /* w1(hn), w3(hn), silu(a) * b: (bsz, T, hidden_dim)                 */
} LayerCache;

typedef struct {
    const int32_t *tokens;
    int64_t bsz, seqlen;
    LayerCache *layers;
    Tensor *h, *rstd, *hn;       /* last layer's output, the final norm's rstd and output */
    Tensor *logits;              /* (bsz, seqlen, vocab) */
} ModelCache;

/* k_model.py's flash path, keeping what the backward needs. Returns logits (bsz, seqlen, vocab). */
Tensor *transformer_forward_train(const Transformer *m, const int32_t *tokens, int64_t bsz, int64_t seqlen,
                                  ModelCache *cache);
/* F.cross_entropy(logits.view(-1, V), targets.view(-1)), the mean over every target;
 * dlogits (may be NULL) gets d loss / d logits, the logits' shape. */
double cross_entropy(const Tensor *logits, const int32_t *targets, Tensor **dlogits);

/* ---- backward ---------------------------------------------------------------------- */

/* RMSNorm's backward: x (..., dim), its rstd, the weight, dy. *dw (dim,) gets the
 * weight's gradient (summed over every row). Returns dx. */
Tensor *rms_norm_backward(const Tensor *x, const Tensor *rstd, const Tensor *w, const Tensor *dy, Tensor **dw);
/* y = silu(a) * b: da = dy * b * silu'(a), db = dy * silu(a). */
void swiglu_backward(const Tensor *a, const Tensor *b, const Tensor *dy, Tensor **da, Tensor **db);
/* RoPE's backward: each pair turned back by its angle (rotary_emb's turn with -sin).
 * dy (bsz, seqlen, heads, head_dim). */
Tensor *rope_backward(const Tensor *dy, const Tensor *freqs_cos, const Tensor *freqs_sin);
/* repeat_kv's backward: (bsz, T, n_kv_heads * n_rep, hd) -> (bsz, T, n_kv_heads, hd), each group summed. */
Tensor *repeat_kv_backward(const Tensor *dy, int64_t n_rep);

/* loss.backward() from dlogits: one gradient per m->params entry, the same order and shapes
 * (tok_embeddings.weight gathers the embedding's and, when tied, the output head's). */
Tensor **transformer_backward(const Transformer *m, const ModelCache *cache, const Tensor *dlogits);

#endif
