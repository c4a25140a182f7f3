/* train.h — chapter 10: a tiny model that learns to attend, trained with the backward by hand.
 *
 *     class TinyModel(nn.Module):
 *         def __init__(self, vocab, seq_len, dim, n_heads):
 *             self.tok_emb = nn.Embedding(vocab, dim)
 *             self.pos_emb = nn.Embedding(seq_len, dim)
 *             self.attn = MultiHeadAttention(dim, dim, seq_len, 0.0, n_heads)   # chapter 7, causal
 *             self.head = nn.Linear(dim, vocab)
 *         def forward(self, idx):                     # idx (B, T) token ids
 *             x = self.tok_emb(idx) + self.pos_emb(torch.arange(T))
 *             return self.head(self.attn(x))          # logits (B, T, vocab)
 *
 * The task: at every position t >= LAG, output the token LAG places back
 * (LAG = 2). Nothing in a token says what came two places before it, so
 * the only way to solve it is for position t to attend to position t - 2:
 * a diagonal stripe two below the main diagonal of the attention weights.
 * loss = F.cross_entropy(logits[:, LAG:].reshape(-1, vocab),
 *                        idx[:, :-LAG].reshape(-1)); Adam updates every
 * parameter; the gradients come from mha_backward() and the pieces here.
 */
#ifndef CH10_TRAIN_H
#define CH10_TRAIN_H

#include "backward.h"

enum { TASK_LAG = 2 };   /* output the token two places back */

typedef struct {
    int64_t vocab, seq_len, dim, n_heads;
    Tensor *tok_emb;           /* (vocab, dim)   nn.Embedding */
    Tensor *pos_emb;           /* (seq_len, dim) nn.Embedding */
    MultiHeadAttention *attn;  /* chapter 7, causal, no dropout */
    Linear *head;              /* (vocab, dim) + (vocab,)   */
} TinyModel;

/* Initialised from the global generator (t_manual_seed): embeddings
 * N(0, 1) like nn.Embedding, the linears as nn.Linear. */
TinyModel *tiny_model_new(int64_t vocab, int64_t seq_len, int64_t dim, int64_t n_heads);

/* What one forward keeps for the backward. */
typedef struct {
    const int32_t *idx;     /* (B, T) token ids                 */
    int64_t batch;
    Tensor *x;              /* (B, T, dim) embeddings summed    */
    MhaCache attn;          /* the attention layer's cache      */
    Tensor *h;              /* (B, T, dim) attention output     */
    Tensor *logits;         /* (B, T, vocab)                    */
} TinyCache;

/* logits = model(idx), idx (batch, seq_len) ids in [0, vocab). */
Tensor *tiny_forward(const TinyModel *model, const int32_t *idx, int64_t batch, TinyCache *cache);

/* F.cross_entropy(logits[:, LAG:].reshape(-1, vocab), idx[:, :-LAG].reshape(-1))
 * (mean over the predicted
 * positions); *dlogits (may be NULL) gets its gradient, (B, T, vocab), 0 at
 * the first LAG positions. */
double task_loss(const Tensor *logits, const int32_t *idx, Tensor **dlogits);

/* x = tok_emb[idx] + pos_emb[arange(T)]: dtok_emb (vocab, dim) adds the row of
 * every position that used the token; dpos_emb (T, dim) sums over the batch. */
void embedding_backward(const TinyModel *model, const int32_t *idx, int64_t batch, const Tensor *dx,
                        Tensor **dtok_emb, Tensor **dpos_emb);

/* Every parameter and its gradient, in one list (the optimizer's view). */
enum { TINY_MAX_PARAMS = 12 };
typedef struct {
    int n;
    const char *names[TINY_MAX_PARAMS];
    Tensor *params[TINY_MAX_PARAMS];
    Tensor *grads[TINY_MAX_PARAMS];
} ParamList;

/* loss.backward(): the gradients of every parameter for one batch. */
ParamList tiny_backward(const TinyModel *model, const TinyCache *cache, const Tensor *dlogits);
/* The parameters alone (grads NULL), in the order of tiny_backward. */
ParamList tiny_params(const TinyModel *model);

/* torch.optim.Adam(params, lr, betas=(0.9, 0.999), eps=1e-8). The moments
 * live in the scope that was current at adam_new. */
typedef struct {
    double lr, beta1, beta2, eps;
    int64_t t;                          /* steps taken */
    int n;
    Tensor *m[TINY_MAX_PARAMS];         /* exp_avg     */
    Tensor *v[TINY_MAX_PARAMS];         /* exp_avg_sq  */
} Adam;

Adam *adam_new(const ParamList *params, double lr);
/* optimizer.step(): p -= lr * m̂ / (sqrt(v̂) + eps), with bias correction. */
void adam_step(Adam *opt, const ParamList *p);

/* Accuracy of argmax(logits) on the predicted positions, in [0, 1]. */
double task_accuracy(const Tensor *logits, const int32_t *idx, int64_t batch);
/* Mean attention weight on position t - LAG from every query t >= LAG, per
 * head: weights (B, H, T, T) -> out[h] for h < H. */
void task_attention_on_target(const Tensor *weights, double *out);

#endif
