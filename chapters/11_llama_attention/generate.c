/* generate.c — chapter 11: one greedy step of chapter 10's tiny model, with the KV cache and without. */
#include "generate.h"

/* argmax over the last dim of the last position of logits (1, n, vocab): torch.topk(logits, k=1). */
static int32_t greedy(const Tensor *logits) {
    int64_t n = t_size(logits, 1), V = t_size(logits, 2);
    int32_t best = 0;
    for (int64_t v = 1; v < V; v++)
        if (t_get(logits, 0, n - 1, v) > t_get(logits, 0, n - 1, best)) best = (int32_t)v;
    return best;
}

/* x = tok_emb(tokens) + pos_emb(positions first .. first + n - 1): (1, n, dim). */
static Tensor *embed(const TinyModel *model, const int32_t *tokens, int64_t n, int64_t first) {
    if (first + n > model->seq_len)
        t_error("the KV cache is full: the model has position embeddings (and a cache) for seq_len = %lld "
                "positions, and position %lld is past them",
                (long long)model->seq_len, (long long)(first + n - 1));
    Tensor *x = t_zeros(SHAPE(1, n, model->dim));
    for (int64_t t = 0; t < n; t++) {
        if (tokens[t] < 0 || tokens[t] >= model->vocab)
            t_error("token id %ld is outside the vocabulary 0..%lld", (long)tokens[t], (long long)(model->vocab - 1));
        for (int64_t j = 0; j < model->dim; j++)
            t_set(x, t_get(model->tok_emb, tokens[t], j) + t_get(model->pos_emb, first + t, j), 0, t, j);
    }
    return x;
}

int32_t tiny_next_cached(const TinyModel *model, KVCache *c, const int32_t *tokens, int64_t n) {
    const MultiHeadAttention *a = model->attn;
    int64_t H = a->args.n_heads, hd = a->head_dim;
    Tensor *x = embed(model, tokens, n, c->len);                                   /* (1, n, dim) */
    /* xq, xk, xv = self.wq(x), self.wk(x), self.wv(x), split into heads: (1, n, H, hd) */
    Tensor *xq = t_view(nn_linear_forward(a->qkv->wq, x), SHAPE(1, n, H, hd));
    Tensor *xk = t_view(nn_linear_forward(a->qkv->wk, x), SHAPE(1, n, H, hd));
    Tensor *xv = t_view(nn_linear_forward(a->qkv->wv, x), SHAPE(1, n, H, hd));
    kv_cache_append(c, xk, xv);                     /* no RoPE: positions are in x already */
    Tensor *h = nn_linear_forward(a->wo, kv_cache_attend(c, xq));                  /* (1, n, dim)   */
    return greedy(nn_linear_forward(model->head, h));                              /* (1, n, vocab) */
}

int32_t tiny_next_recompute(const TinyModel *model, const int32_t *idx, int64_t n) {
    Tensor *x = embed(model, idx, n, 0);                                           /* the whole prefix */
    Tensor *h = mha_forward(model->attn, x, x, x, NULL);                           /* chapter 7        */
    return greedy(nn_linear_forward(model->head, h));
}

KVCache *tiny_cache_new(const TinyModel *model) {
    return kv_cache_new(1, model->attn->args.n_heads, model->seq_len, model->attn->head_dim);
}
