/* train.c — chapter 10: a tiny causal model, its loss, its backward and Adam.
 *
 * Everything the attention layer needs comes from chapter 7 (the forward) and
 * backward.c (the backward); this file adds only what sits around it in a
 * model: the embeddings, the linear head, cross-entropy and the optimizer.
 */
#include "train.h"

TinyModel *tiny_model_new(int64_t vocab, int64_t seq_len, int64_t dim, int64_t n_heads) {
    TinyModel *m = (TinyModel *)t_alloc(sizeof *m);
    m->vocab = vocab;
    m->seq_len = seq_len;
    m->dim = dim;
    m->n_heads = n_heads;
    m->tok_emb = t_randn(SHAPE(vocab, dim));    /* nn.Embedding(vocab, dim): N(0, 1) */
    m->pos_emb = t_randn(SHAPE(seq_len, dim));  /* nn.Embedding(seq_len, dim)        */
    ModelArgs a = handwritten_mha_args(dim, dim, seq_len, 0.0, n_heads);   /* causal, out_proj with bias */
    m->attn = mha_new(a);
    mha_eval(m->attn);                          /* no dropout in this small run */
    m->head = nn_linear(dim, vocab, true);      /* nn.Linear(dim, vocab) */
    return m;
}

Tensor *tiny_forward(const TinyModel *model, const int32_t *idx, int64_t batch, TinyCache *c) {
    int64_t T = model->seq_len, D = model->dim;
    /* x = self.tok_emb(idx) + self.pos_emb(torch.arange(T)) */
    Tensor *x = t_zeros(SHAPE(batch, T, D));    /* (B, T, dim) */
    float *xd = t_data(x);
    const float *te = t_data(model->tok_emb), *pe = t_data(model->pos_emb);
    for (int64_t b = 0; b < batch; b++)
        for (int64_t t = 0; t < T; t++) {
            int32_t tok = idx[b * T + t];
            if (tok < 0 || tok >= model->vocab)
                t_error("tiny_forward: token id %ld at (%lld, %lld) is outside the vocabulary 0..%lld", (long)tok,
                        (long long)b, (long long)t, (long long)(model->vocab - 1));
            for (int64_t j = 0; j < D; j++) xd[(b * T + t) * D + j] = te[tok * D + j] + pe[t * D + j];
        }
    /* h = self.attn(x): chapter 7's forward, with the cache for the backward */
    Tensor *h = mha_forward_cached(model->attn, x, &c->attn);   /* (B, T, dim) */
    /* logits = self.head(h) */
    Tensor *logits = nn_linear_forward(model->head, h);         /* (B, T, vocab) */
    c->idx = idx;
    c->batch = batch;
    c->x = x;
    c->h = h;
    c->logits = logits;
    return logits;
}

double task_loss(const Tensor *logits, const int32_t *idx, Tensor **dlogits) {
    int64_t B = logits->shape[0], T = logits->shape[1], V = logits->shape[2];
    if (logits->ndim != 3 || T <= TASK_LAG)
        t_error("task_loss: logits must be (B, T, vocab) with T > %d, got %lld dims and T = %lld", TASK_LAG,
                (long long)logits->ndim, (long long)T);
    int64_t n = B * (T - TASK_LAG);             /* predicted positions */
    const float *L = t_data(logits);
    float *dL = NULL;
    if (dlogits) {
        *dlogits = t_zeros(t_shape(logits));
        dL = t_data(*dlogits);
    }
    double loss = 0.0;
    for (int64_t b = 0; b < B; b++)
        for (int64_t t = TASK_LAG; t < T; t++) {
            const float *row = L + (b * T + t) * V;
            int32_t target = idx[b * T + t - TASK_LAG];   /* the token two places back */
            /* -log softmax(row)[target] = logsumexp(row) - row[target], stable */
            double mx = row[0];
            for (int64_t v = 1; v < V; v++) mx = row[v] > mx ? row[v] : mx;
            double sum = 0.0;
            for (int64_t v = 0; v < V; v++) sum += exp((double)row[v] - mx);
            loss += mx + log(sum) - (double)row[target];
            /* d(loss)/d(logits) = (softmax(row) - onehot(target)) / n */
            if (dL)
                for (int64_t v = 0; v < V; v++)
                    dL[(b * T + t) * V + v] = (float)((exp((double)row[v] - mx) / sum - (v == target)) / (double)n);
        }
    return loss / (double)n;
}

void embedding_backward(const TinyModel *model, const int32_t *idx, int64_t batch, const Tensor *dx,
                        Tensor **dtok_emb, Tensor **dpos_emb) {
    int64_t T = model->seq_len, D = model->dim;
    *dtok_emb = t_zeros(t_shape(model->tok_emb));   /* (vocab, dim)   */
    *dpos_emb = t_zeros(t_shape(model->pos_emb));   /* (seq_len, dim) */
    float *dte = t_data(*dtok_emb), *dpe = t_data(*dpos_emb);
    Tensor *dxc = t_contiguous(dx);
    const float *g = t_data(dxc);
    for (int64_t b = 0; b < batch; b++)
        for (int64_t t = 0; t < T; t++) {
            int32_t tok = idx[b * T + t];
            for (int64_t j = 0; j < D; j++) {
                dte[tok * D + j] += g[(b * T + t) * D + j];   /* a token used twice gets both rows */
                dpe[t * D + j] += g[(b * T + t) * D + j];     /* every sequence uses position t     */
            }
        }
}

static void add_param(ParamList *p, const char *name, Tensor *param, Tensor *grad) {
    if (!param) return;
    p->names[p->n] = name;
    p->params[p->n] = param;
    p->grads[p->n] = grad;
    p->n++;
}

static ParamList collect(const TinyModel *m, const MhaGrads *g, Tensor *dte, Tensor *dpe, Tensor *dhw,
                         Tensor *dhb) {
    ParamList p = {0};
    const MultiHeadAttention *a = m->attn;
    add_param(&p, "tok_emb", m->tok_emb, dte);
    add_param(&p, "pos_emb", m->pos_emb, dpe);
    add_param(&p, "wq", a->qkv->wq->weight, g ? g->dwq : NULL);
    add_param(&p, "wk", a->qkv->wk->weight, g ? g->dwk : NULL);
    add_param(&p, "wv", a->qkv->wv->weight, g ? g->dwv : NULL);
    add_param(&p, "wo", a->wo->weight, g ? g->dwo : NULL);
    add_param(&p, "bo", a->wo->bias, g ? g->dbo : NULL);
    add_param(&p, "head.weight", m->head->weight, dhw);
    add_param(&p, "head.bias", m->head->bias, dhb);
    return p;
}

ParamList tiny_params(const TinyModel *model) { return collect(model, NULL, NULL, NULL, NULL, NULL); }

ParamList tiny_backward(const TinyModel *model, const TinyCache *c, const Tensor *dlogits) {
    /* logits = self.head(h) */
    Tensor *dh, *dhw, *dhb;
    linear_backward(model->head, c->h, dlogits, &dh, &dhw, &dhb);   /* (B, T, dim) */
    /* h = self.attn(x) */
    MhaGrads g = mha_backward(model->attn, &c->attn, dh);          /* g.dx (B, T, dim) */
    /* x = self.tok_emb(idx) + self.pos_emb(arange(T)) */
    Tensor *dte, *dpe;
    embedding_backward(model, c->idx, c->batch, g.dx, &dte, &dpe);
    return collect(model, &g, dte, dpe, dhw, dhb);
}

Adam *adam_new(const ParamList *p, double lr) {
    Adam *opt = (Adam *)t_alloc(sizeof *opt);
    opt->lr = lr;
    opt->beta1 = 0.9;
    opt->beta2 = 0.999;
    opt->eps = 1e-8;
    opt->t = 0;
    opt->n = p->n;
    for (int i = 0; i < p->n; i++) {
        opt->m[i] = t_empty_like(p->params[i]);   /* zeros */
        opt->v[i] = t_empty_like(p->params[i]);
    }
    return opt;
}

void adam_step(Adam *opt, const ParamList *p) {
    opt->t++;
    double c1 = 1.0 - pow(opt->beta1, (double)opt->t);   /* bias corrections */
    double c2 = 1.0 - pow(opt->beta2, (double)opt->t);
    for (int i = 0; i < p->n; i++) {
        float *w = t_data(p->params[i]), *m = t_data(opt->m[i]), *v = t_data(opt->v[i]);
        Tensor *gc = t_contiguous(p->grads[i]);
        const float *g = t_data(gc);
        for (int64_t j = 0; j < t_numel(p->params[i]); j++) {
            m[j] = (float)(opt->beta1 * m[j] + (1.0 - opt->beta1) * g[j]);                 /* exp_avg    */
            v[j] = (float)(opt->beta2 * v[j] + (1.0 - opt->beta2) * (double)g[j] * g[j]);  /* exp_avg_sq */
            w[j] -= (float)(opt->lr * (m[j] / c1) / (sqrt(v[j] / c2) + opt->eps));
        }
    }
}

double task_accuracy(const Tensor *logits, const int32_t *idx, int64_t batch) {
    int64_t T = logits->shape[1], V = logits->shape[2];
    const float *L = t_data(logits);
    int64_t right = 0, n = 0;
    for (int64_t b = 0; b < batch; b++)
        for (int64_t t = TASK_LAG; t < T; t++) {
            const float *row = L + (b * T + t) * V;
            int64_t best = 0;
            for (int64_t v = 1; v < V; v++) best = row[v] > row[best] ? v : best;
            right += best == idx[b * T + t - TASK_LAG];
            n++;
        }
    return n ? (double)right / (double)n : 0.0;
}

void task_attention_on_target(const Tensor *w, double *out) {
    int64_t B = w->shape[0], H = w->shape[1], T = w->shape[2];
    for (int64_t h = 0; h < H; h++) {
        double sum = 0.0;
        for (int64_t b = 0; b < B; b++)
            for (int64_t t = TASK_LAG; t < T; t++) sum += t_get(w, b, h, t, t - TASK_LAG);
        out[h] = sum / (double)(B * (T - TASK_LAG));
    }
}
