/* tiny_llama.c — chapter 13: k_model.py's Transformer around chapter 11's Attention, its
 * forward (the book's manual path and the flash path) and its backward by hand, on top of
 * chapter 10's linear_backward and merge_heads_backward and chapter 12's flash backward. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tiny_llama.h"
#include "fast_train.h"
#include "chapters/05_multi_head/multi_head.h"
#include "chapters/08_fast_attention/fast_attention.h"
#include "chapters/12_flash_backward/flash_backward.h"

/* ---- the model ------------------------------------------------------------------------- */

int64_t llama_hidden_dim(int64_t dim, int64_t multiple_of) {
    int64_t hidden_dim = 4 * dim;                          /* hidden_dim = 4 * dim                */
    hidden_dim = (int64_t)(2 * hidden_dim / 3);            /* hidden_dim = int(2 * hidden_dim / 3) */
    /* hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of) */
    return multiple_of * ((hidden_dim + multiple_of - 1) / multiple_of);
}

void check_llama_config(const char *what, const LlamaConfig *c) {
    if (c->dim < 1 || c->hidden_dim < 1 || c->n_layers < 1 || c->n_heads < 1 || c->n_kv_heads < 1 ||
        c->vocab_size < 1 || c->max_seq_len < 1)
        t_error(t_tr("%s: dim %lld, hidden_dim %lld, n_layers %lld, n_heads %lld, n_kv_heads %lld, vocab_size %lld and "
                "seq_len %lld must all be at least 1"),
                what, (long long)c->dim, (long long)c->hidden_dim, (long long)c->n_layers, (long long)c->n_heads,
                (long long)c->n_kv_heads, (long long)c->vocab_size, (long long)c->max_seq_len);
    if (c->n_heads % c->n_kv_heads != 0)
        t_error(t_tr("%s: n_kv_heads %lld does not divide n_heads %lld (each key/value head serves n_heads / "
                     "n_kv_heads query heads)"), what, (long long)c->n_kv_heads, (long long)c->n_heads);
    if (c->dim % c->n_heads != 0)
        t_error(t_tr("%s: dim %lld is not a multiple of n_heads %lld (head_dim = dim / n_heads)"), what,
                (long long)c->dim, (long long)c->n_heads);
    if ((c->dim / c->n_heads) % 2 != 0)
        t_error(t_tr("%s: head_dim = dim / n_heads = %lld is odd, but RoPE turns pairs of numbers"), what,
                (long long)(c->dim / c->n_heads));
    if (!(c->norm_eps > 0))
        t_error(t_tr("%s: norm_eps %g must be positive"), what, c->norm_eps);
}

static void add_param(Transformer *m, const char *name, Tensor *p) {
    NamedParam *np = &m->params[m->n_params++];
    snprintf(np->name, sizeof np->name, "%s", name);
    np->p = p;
}

Transformer *transformer_new(LlamaConfig c) {
    check_llama_config(t_tr("model"), &c);
    Transformer *m = (Transformer *)t_alloc(sizeof *m);
    int64_t D = c.dim, Hd = c.hidden_dim, V = c.vocab_size;
    m->args = c;
    m->head_dim = D / c.n_heads;
    /* named_parameters(): tok_embeddings, per layer (attention wq wk wv wo, feed_forward w1 w2 w3,
     * attention_norm, ffn_norm), norm, output (only when it is not tok_embeddings) */
    m->params = (NamedParam *)t_alloc(sizeof *m->params * (size_t)(3 + 9 * c.n_layers));
    m->tok_embeddings = t_zeros(SHAPE(V, D));                     /* nn.Embedding(vocab_size, dim) */
    add_param(m, "tok_embeddings.weight", m->tok_embeddings);
    m->layers = (DecoderLayer *)t_alloc(sizeof *m->layers * (size_t)c.n_layers);
    ModelConfig ac = {D, c.n_heads, c.n_kv_heads, c.max_seq_len, 0.0};  /* chapter 11's ModelConfig */
    int64_t kv = c.n_kv_heads * m->head_dim;
    for (int64_t l = 0; l < c.n_layers; l++) {
        DecoderLayer *L = &m->layers[l];
        char name[64];
        /* self.attention = Attention(args): chapter 11's class, from zeroed weights */
        L->attention = llama_attention_from(ac, t_zeros(SHAPE(D, D)), t_zeros(SHAPE(kv, D)), t_zeros(SHAPE(kv, D)),
                                            t_zeros(SHAPE(D, D)));
        llama_attention_eval(L->attention);                       /* dropout 0: nothing to turn off */
        L->w1 = nn_linear_from("w1", t_zeros(SHAPE(Hd, D)), NULL); /* nn.Linear(dim, hidden_dim)  */
        L->w2 = nn_linear_from("w2", t_zeros(SHAPE(D, Hd)), NULL); /* nn.Linear(hidden_dim, dim)  */
        L->w3 = nn_linear_from("w3", t_zeros(SHAPE(Hd, D)), NULL); /* nn.Linear(dim, hidden_dim)  */
        L->attention_norm = t_ones(SHAPE(D));                     /* RMSNorm: torch.ones(dim)   */
        L->ffn_norm = t_ones(SHAPE(D));
        static const char *const parts[9] = {"attention.wq", "attention.wk", "attention.wv", "attention.wo",
                                             "feed_forward.w1", "feed_forward.w2", "feed_forward.w3",
                                             "attention_norm", "ffn_norm"};
        Tensor *ps[9] = {L->attention->wq->weight, L->attention->wk->weight, L->attention->wv->weight,
                         L->attention->wo->weight, L->w1->weight, L->w2->weight, L->w3->weight,
                         L->attention_norm, L->ffn_norm};
        for (int i = 0; i < 9; i++) {
            snprintf(name, sizeof name, "layers.%lld.%s.weight", (long long)l, parts[i]);
            add_param(m, name, ps[i]);
        }
    }
    m->norm = t_ones(SHAPE(D));                                   /* self.norm = RMSNorm(dim)   */
    add_param(m, "norm.weight", m->norm);
    /* self.output = nn.Linear(dim, vocab_size); self.tok_embeddings.weight = self.output.weight */
    m->output = nn_linear_from("output", c.shared ? m->tok_embeddings : t_zeros(SHAPE(V, D)), NULL);
    if (!c.shared) add_param(m, "output.weight", m->output->weight);
    m->freqs = precompute_freqs_cis(m->head_dim, c.max_seq_len, 10000.0);  /* chapter 11 */
    return m;
}

void transformer_init(Transformer *m) {
    /* self.apply(self._init_weights): normal_(mean=0.0, std=0.02) for every Linear and the Embedding;
     * then w3 and wo: normal_(std=0.02 / math.sqrt(2 * n_layers)); RMSNorm weights stay 1 */
    for (int i = 0; i < m->n_params; i++) {
        NamedParam *np = &m->params[i];
        if (np->p->ndim != 2) continue;
        size_t n = strlen(np->name);
        bool scaled = n > 9 && (strcmp(np->name + n - 9, "w3.weight") == 0 || strcmp(np->name + n - 9, "wo.weight") == 0);
        double std = scaled ? 0.02 / sqrt(2.0 * (double)m->args.n_layers) : 0.02;
        Tensor *r = t_mul_scalar(t_randn(t_shape(np->p)), (float)std);
        memcpy(t_data(np->p), t_data(r), sizeof(float) * (size_t)t_numel(r));
    }
}

int64_t transformer_num_params(const Transformer *m) {
    int64_t n = 0;
    for (int i = 0; i < m->n_params; i++) n += t_numel(m->params[i].p);
    return n;
}

/* ---- the pieces' forwards ---------------------------------------------------------------- */

Tensor *rms_norm(const Tensor *x, const Tensor *w, double eps, Tensor **rstd) {
    int64_t D = t_size(x, -1), rows = t_numel(x) / (D ? D : 1);
    Tensor *xc = t_contiguous(x), *y = t_zeros(t_shape(x)), *r = t_zeros(SHAPE(rows));
    const float *xd = t_data(xc), *wd = t_data(t_contiguous(w));
    float *yd = t_data(y), *rd = t_data(r);
    for (int64_t i = 0; i < rows; i++) {
        const float *xi = xd + i * D;
        /* BEGIN BLANK rms_norm */
        double ss = 0;
        for (int64_t j = 0; j < D; j++) ss += (double)xi[j] * xi[j];
        /* torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) */
        float rs = (float)(1.0 / sqrt(ss / (double)D + eps));
        rd[i] = rs;
        /* x * rsqrt(...) * self.weight */
        for (int64_t j = 0; j < D; j++) yd[i * D + j] = xi[j] * rs * wd[j];
        /* END BLANK */
    }
    if (rstd) *rstd = r;
    return y;
}

Tensor *swiglu(const Tensor *a, const Tensor *b) {
    Tensor *ac = t_contiguous(a), *bc = t_contiguous(b), *y = t_zeros(t_shape(a));
    const float *ad = t_data(ac), *bd = t_data(bc);
    float *yd = t_data(y);
    int64_t n = t_numel(a);
    sigmoid_row(ad, yd, n);                             /* y = sigmoid(a), every row at once */
    for (int64_t i = 0; i < n; i++) yd[i] = ad[i] * yd[i] * bd[i];  /* F.silu(w1(x)) * w3(x), silu(a) = a sigmoid(a) */
    return y;
}

Tensor *embedding(const Tensor *table, const int32_t *tokens, int64_t bsz, int64_t seqlen) {
    int64_t V = table->shape[0], D = table->shape[1];
    Tensor *h = t_zeros(SHAPE(bsz, seqlen, D));
    const float *w = t_data(t_contiguous(table));
    for (int64_t i = 0; i < bsz * seqlen; i++) {
        if (tokens[i] < 0 || tokens[i] >= V)
            t_error(t_tr("token %lld is %d, outside the vocabulary 0..%lld"), (long long)i, tokens[i],
                    (long long)(V - 1));
        memcpy(t_data(h) + i * D, w + (int64_t)tokens[i] * D, sizeof(float) * (size_t)D);  /* row tokens[i] */
    }
    return h;
}

static void check_tokens(const Transformer *m, int64_t seqlen) {
    if (seqlen < 1 || seqlen > m->args.max_seq_len)
        t_error(t_tr("the model reads 1 to seq_len = %lld tokens at once, not %lld"), (long long)m->args.max_seq_len,
                (long long)seqlen);
}

/* feed_forward.forward(ffn_norm(h)): w2(silu(w1 x) * w3 x) */
static Tensor *feed_forward(const DecoderLayer *L, const Tensor *x) {
    return nn_linear_forward(L->w2, swiglu(nn_linear_forward(L->w1, x), nn_linear_forward(L->w3, x)));
}

Tensor *transformer_forward(const Transformer *m, const int32_t *tokens, int64_t bsz, int64_t seqlen,
                            Tensor **attn) {
    check_tokens(m, seqlen);
    double eps = m->args.norm_eps;
    Tensor *h = embedding(m->tok_embeddings, tokens, bsz, seqlen);   /* (bsz, seqlen, dim) */
    /* freqs_cos = self.freqs_cos[:seqlen]; freqs_sin = self.freqs_sin[:seqlen] */
    Tensor *cos = t_slice(m->freqs.cos, 0, 0, seqlen), *sin = t_slice(m->freqs.sin, 0, 0, seqlen);
    for (int64_t l = 0; l < m->args.n_layers; l++) {
        const DecoderLayer *L = &m->layers[l];
        LlamaTrace trace;
        /* h = x + self.attention.forward(self.attention_norm(x), freqs_cos, freqs_sin)   chapter 11 */
        Tensor *a = llama_attention_forward(L->attention, rms_norm(h, L->attention_norm, eps, NULL), cos, sin, &trace);
        if (attn) attn[l] = trace.attn_weights;                      /* (bsz, n_heads, seqlen, seqlen) */
        h = t_add(h, a);
        /* out = h + self.feed_forward.forward(self.ffn_norm(h)) */
        h = t_add(h, feed_forward(L, rms_norm(h, L->ffn_norm, eps, NULL)));
    }
    /* h = self.norm(h); logits = self.output(h) */
    return nn_linear_forward(m->output, rms_norm(h, m->norm, eps, NULL));  /* (bsz, seqlen, vocab) */
}

/* ---- the training forward: the flash path ------------------------------------------------- */

/* nn.Linear's y = x @ W.T and chapter 10's linear_backward (dx = dy @ W, dW = dy.T @ x), each
 * product through chapter 8's register-tiled kernel attn_matmul (built -O3 -march=native; the
 * kernel chapter 12's backward multiplies its tiles with): the training step spends most of its
 * time in these products, and the Tensor library's general matmul (any strides, sums in double)
 * is several times slower. The same numbers to float rounding (the gradients are tested against
 * PyTorch's). */
static Tensor *linear(const Linear *l, const Tensor *x) {
    int64_t in = l->in_features, out = l->out_features, rows = t_numel(x) / in;
    Shape s = t_shape(x);
    s.dims[s.ndim - 1] = out;
    Tensor *y = t_zeros(s);
    /* W.T (in, out), contiguous: a copy of the weight, not of the activations */
    Tensor *wt = t_contiguous(t_transpose(t_contiguous(l->weight), 0, 1));
    float *packed = (float *)t_alloc(sizeof(float) * (size_t)ATTN_MATMUL_PACKED(in));
    /* y (rows, out) = x (rows, in) @ W.T (in, out) */
    attn_matmul(rows, out, in, t_data(t_contiguous(x)), in, t_data(wt), out, t_data(y), out, false, packed);
    t_work_add(2.0 * (double)rows * (double)out * (double)in);
    return y;
}

static void linear_bwd(const Linear *l, const Tensor *x, const Tensor *dy, Tensor **dx, Tensor **dw) {
    int64_t in = l->in_features, out = l->out_features, rows = t_numel(x) / in;
    const float *dyd = t_data(t_contiguous(dy)), *xd = t_data(t_contiguous(x));
    *dx = t_zeros(t_shape(x));
    *dw = t_zeros(SHAPE(out, in));
    float *packed = (float *)t_alloc(sizeof(float) * (size_t)ATTN_MATMUL_PACKED(out));
    /* dx (rows, in) = dy (rows, out) @ W (out, in) */
    attn_matmul(rows, in, out, dyd, out, t_data(t_contiguous(l->weight)), in, t_data(*dx), in, false, packed);
    /* dW (out, in) = dy.T @ x: dy read as (rows, out), no transposed copy */
    attn_matmul_at(out, in, rows, dyd, out, xd, in, t_data(*dw), in, false);
    t_work_add(4.0 * (double)rows * (double)out * (double)in);
}

/* a.add_(b): a += b in place, a contiguous and b of its shape; returns a. The residual
 * sums of the training step, without a new tensor each (the same sums: a + b = b + a). */
static Tensor *add_(Tensor *a, const Tensor *b) {
    float *ad = t_data(a);
    const float *bd = t_data(t_contiguous(b));
    for (int64_t i = 0, n = t_numel(a); i < n; i++) ad[i] += bd[i];
    return a;
}

/* apply_rotary_emb on neighbouring pairs (chapter 11's rotary_emb, the book's layout) turned
 * by sin_sign · θ, through fast_train.c's one loop: x (bsz, seqlen, heads, head_dim). */
static Tensor *rope_turn(const Tensor *x, const Tensor *freqs_cos, const Tensor *freqs_sin, float sin_sign) {
    if (x->ndim != 4 || freqs_cos->ndim != 2 || t_size(freqs_cos, 0) != x->shape[1] ||
        2 * t_size(freqs_cos, 1) != x->shape[3] || !t_same_shape(freqs_cos, freqs_sin))
        t_error("%s", t_tr("rope: x must be (bsz, seqlen, heads, head_dim) and freqs_cos, freqs_sin (seqlen, "
                           "head_dim / 2)"));
    Tensor *y = t_zeros(t_shape(x));
    rope_pairs(t_data(t_contiguous(x)), t_data(y), x->shape[0], x->shape[1], x->shape[2], x->shape[3],
               t_data(t_contiguous(freqs_cos)), t_data(t_contiguous(freqs_sin)), sin_sign);
    return y;
}

static Tensor *rope(const Tensor *x, const Tensor *freqs_cos, const Tensor *freqs_sin) {
    return rope_turn(x, freqs_cos, freqs_sin, 1.0f);
}

Tensor *transformer_forward_train(const Transformer *m, const int32_t *tokens, int64_t bsz, int64_t seqlen,
                                  ModelCache *c) {
    check_tokens(m, seqlen);
    double eps = m->args.norm_eps;
    int64_t H = m->args.n_heads, Hkv = m->args.n_kv_heads, hd = m->head_dim;
    c->tokens = tokens, c->bsz = bsz, c->seqlen = seqlen;
    c->layers = (LayerCache *)t_alloc(sizeof *c->layers * (size_t)m->args.n_layers);
    Tensor *h = embedding(m->tok_embeddings, tokens, bsz, seqlen);   /* (bsz, seqlen, dim) */
    Tensor *cos = t_slice(m->freqs.cos, 0, 0, seqlen), *sin = t_slice(m->freqs.sin, 0, 0, seqlen);
    for (int64_t l = 0; l < m->args.n_layers; l++) {
        const DecoderLayer *L = &m->layers[l];
        const LlamaAttention *A = L->attention;
        LayerCache *k = &c->layers[l];
        k->x = h;
        k->xn = rms_norm(h, L->attention_norm, eps, &k->rstd1);      /* self.attention_norm(x) */
        /* the Attention class's lines up to repeat_kv, chapter 11's functions */
        Tensor *xq = t_view(linear(A->wq, k->xn), SHAPE(bsz, seqlen, H, hd));
        Tensor *xk = t_view(linear(A->wk, k->xn), SHAPE(bsz, seqlen, Hkv, hd));
        Tensor *xv = t_view(linear(A->wv, k->xn), SHAPE(bsz, seqlen, Hkv, hd));
        xq = rope(xq, cos, sin);                                       /* apply_rotary_emb */
        xk = rope(xk, cos, sin);
        k->xq = t_contiguous(t_transpose(xq, 1, 2));                   /* (bsz, n_heads, seqlen, hd) */
        k->xk = xk, k->xv = xv;                                        /* (bsz, seqlen, n_kv_heads, hd) */
        k->keys = t_contiguous(t_transpose(repeat_kv(xk, A->n_rep), 1, 2));    /* (bsz, n_heads, seqlen, hd) */
        k->values = t_contiguous(t_transpose(repeat_kv(xv, A->n_rep), 1, 2));
        /* output = F.scaled_dot_product_attention(xq, xk, xv, is_causal=True)   chapter 8's flash */
        k->out = flash_forward(k->xq, k->keys, k->values, true, &k->lse);
        k->merged = merge_heads(k->out);                               /* (bsz, seqlen, dim)        */
        /* h = x + self.wo(output) */
        k->h = add_(linear(A->wo, k->merged), h);
        k->hn = rms_norm(k->h, L->ffn_norm, eps, &k->rstd2);           /* self.ffn_norm(h)          */
        k->a = linear(L->w1, k->hn);                        /* (bsz, seqlen, hidden_dim) */
        k->b = linear(L->w3, k->hn);
        k->g = swiglu(k->a, k->b);
        h = add_(linear(L->w2, k->g), k->h);                /* out = h + w2(g)           */
    }
    c->h = h;
    c->hn = rms_norm(h, m->norm, eps, &c->rstd);
    c->logits = linear(m->output, c->hn);
    return c->logits;
}

double cross_entropy(const Tensor *logits, const int32_t *targets, Tensor **dlogits) {
    int64_t V = t_size(logits, -1), N = t_numel(logits) / V;
    const float *z = t_data(t_contiguous(logits));
    Tensor *d = dlogits ? t_zeros(t_shape(logits)) : NULL;
    float *row = dlogits ? NULL : (float *)t_alloc(sizeof(float) * (size_t)V);   /* e, when no gradient */
    double loss = 0;
    for (int64_t i = 0; i < N; i++) {
        const float *zi = z + i * V;
        if (targets[i] < 0 || targets[i] >= V)
            t_error(t_tr("target %lld is %d, outside the vocabulary 0..%lld"), (long long)i, targets[i],
                    (long long)(V - 1));
        float mx = row_max(zi, V);
        /* e = exp(z - max), in float as PyTorch's float32 log_softmax takes it, each once,
         * through fast_train.c's row kernels (chapter 8's exp, 16 or 8 at a time): this loss
         * over 2,500 characters was a quarter of a training step with expf and a running
         * sum. The gradient's softmax is e / sum, so e waits in dlogits' row. */
        float *di = d ? t_data(d) + i * V : row;
        double sum = row_exp_sum(zi, di, V, mx);
        double lse = mx + log(sum);
        loss += lse - zi[targets[i]];                  /* -log softmax(z)[target] */
        if (di) {                                      /* (softmax(z) - onehot(target)) / N */
            /* BEGIN BLANK cross_entropy_grad */
            float scale = (float)(1.0 / (sum * (double)N));
            for (int64_t j = 0; j < V; j++) di[j] *= scale;   /* di holds e = exp(z - max) */
            di[targets[i]] -= (float)(1.0 / (double)N);
            /* END BLANK */
        }
    }
    if (dlogits) *dlogits = d;
    return loss / (double)N;                           /* reduction='mean' */
}

/* ---- the pieces' backwards ----------------------------------------------------------------- */

Tensor *rms_norm_backward(const Tensor *x, const Tensor *rstd, const Tensor *w, const Tensor *dy, Tensor **dw) {
    int64_t D = t_size(x, -1), rows = t_numel(x) / D;
    const float *xd = t_data(t_contiguous(x)), *rd = t_data(rstd), *wd = t_data(t_contiguous(w));
    const float *g = t_data(t_contiguous(dy));
    Tensor *dx = t_zeros(t_shape(x)), *dwt = t_zeros(SHAPE(D));
    float *dxd = t_data(dx), *dwd = t_data(dwt);
    for (int64_t i = 0; i < rows; i++) {
        const float *xi = xd + i * D, *gi = g + i * D;
        float r = rd[i];
        /* y = xhat * w, xhat = x * r: dw += dy * xhat; dxhat = dy * w */
        double dot = 0;                                /* (dxhat * xhat).mean() */
        for (int64_t j = 0; j < D; j++) {
            float xhat = xi[j] * r;
            dwd[j] += gi[j] * xhat;
            dot += (double)gi[j] * wd[j] * xhat;
        }
        dot /= (double)D;
        /* dx = r * (dxhat - xhat * mean(dxhat * xhat)) */
        for (int64_t j = 0; j < D; j++) dxd[i * D + j] = r * (gi[j] * wd[j] - xi[j] * r * (float)dot);
    }
    *dw = dwt;
    return dx;
}

void swiglu_backward(const Tensor *a, const Tensor *b, const Tensor *dy, Tensor **da, Tensor **db) {
    const float *ad = t_data(t_contiguous(a)), *bd = t_data(t_contiguous(b)), *g = t_data(t_contiguous(dy));
    *da = t_zeros(t_shape(a)), *db = t_zeros(t_shape(b));
    float *dad = t_data(*da), *dbd = t_data(*db);
    int64_t n = t_numel(a);
    sigmoid_row(ad, dad, n);                            /* da = sigmoid(a) first, every row at once */
    for (int64_t i = 0; i < n; i++) {
        /* BEGIN BLANK swiglu_backward */
        float s = dad[i];                               /* sigmoid(a) */
        dbd[i] = g[i] * ad[i] * s;                      /* d/db: silu(a)                     */
        dad[i] = g[i] * bd[i] * s * (1.0f + ad[i] * (1.0f - s));  /* silu'(a) = s (1 + a (1 - s)) */
        /* END BLANK */
    }
}

Tensor *rope_backward(const Tensor *dy, const Tensor *freqs_cos, const Tensor *freqs_sin) {
    /* a turn by angle θ is orthogonal: its transpose is the turn by -θ (sin -> -sin) */
    /* BEGIN BLANK rope_backward */
    return rope_turn(dy, freqs_cos, freqs_sin, -1.0f);
    /* END BLANK */
}

Tensor *repeat_kv_backward(const Tensor *dy, int64_t n_rep) {
    if (n_rep == 1) return (Tensor *)dy;
    int64_t bs = dy->shape[0], T = dy->shape[1], hkv = dy->shape[2] / n_rep, hd = dy->shape[3];
    /* x[:, :, :, None, :].expand(bs, slen, n_kv_heads, n_rep, head_dim): the gradient sums the copies,
     * dx[b, t, g, :] = Σ_r dy[b, t, g * n_rep + r, :], in order r = 0, 1, ... */
    const float *d = t_data(t_contiguous(dy));              /* (bs, T, n_kv_heads * n_rep, head_dim) */
    Tensor *dx = t_zeros(SHAPE(bs, T, hkv, hd));             /* (bs, T, n_kv_heads, head_dim)     */
    float *o = t_data(dx);
    for (int64_t row = 0; row < bs * T * hkv; row++)          /* (b, t, g) */
        for (int64_t r = 0; r < n_rep; r++)
            for (int64_t j = 0; j < hd; j++) o[row * hd + j] += d[(row * n_rep + r) * hd + j];
    return dx;
}

/* g += d (same shape), in place. */
static void acc(Tensor *g, const Tensor *d) {
    float *gd = t_data(g);
    const float *dd = t_data(t_contiguous(d));
    for (int64_t i = 0, n = t_numel(g); i < n; i++) gd[i] += dd[i];
}

Tensor **transformer_backward(const Transformer *m, const ModelCache *c, const Tensor *dlogits) {
    int64_t bsz = c->bsz, T = c->seqlen, D = m->args.dim, H = m->args.n_heads, Hkv = m->args.n_kv_heads;
    int64_t hd = m->head_dim;
    Tensor **grads = (Tensor **)t_alloc(sizeof *grads * (size_t)m->n_params);
    int gi = 0;
    grads[gi++] = t_zeros(t_shape(m->tok_embeddings));     /* tok_embeddings.weight */
    Tensor *cos = t_slice(m->freqs.cos, 0, 0, T), *sin = t_slice(m->freqs.sin, 0, 0, T);
    /* logits = self.output(h): dh, d output.weight */
    Tensor *dhn, *dwout, *dh, *dnorm;
    linear_bwd(m->output, c->hn, dlogits, &dhn, &dwout);
    dh = rms_norm_backward(c->h, c->rstd, m->norm, dhn, &dnorm);           /* h = self.norm(h) */
    for (int64_t l = m->args.n_layers - 1; l >= 0; l--) {
        const DecoderLayer *L = &m->layers[l];
        const LlamaAttention *A = L->attention;
        const LayerCache *k = &c->layers[l];
        Tensor *g[9];   /* wq wk wv wo w1 w2 w3 attention_norm ffn_norm */
        /* out = h + w2(silu(w1 hn) * w3 hn): dh flows straight through the residual */
        Tensor *dg, *da, *db, *dhn1, *dhn2;
        linear_bwd(L->w2, k->g, dh, &dg, &g[5]);
        swiglu_backward(k->a, k->b, dg, &da, &db);
        linear_bwd(L->w1, k->hn, da, &dhn1, &g[4]);
        linear_bwd(L->w3, k->hn, db, &dhn2, &g[6]);
        Tensor *dh_mid = add_(rms_norm_backward(k->h, k->rstd2, L->ffn_norm, add_(dhn1, dhn2), &g[8]), dh);
        /* h = x + wo(attention(xn)) */
        Tensor *dmerged;
        linear_bwd(A->wo, k->merged, dh_mid, &dmerged, &g[3]);
        Tensor *dout = merge_heads_backward(dmerged, H);                   /* chapter 10: (bsz, H, T, hd) */
        /* F.scaled_dot_product_attention's backward: chapter 12, O(T) memory */
        AttnGrads ag = attention_backward_flash(k->xq, k->keys, k->values, k->out, k->lse, dout, true);
        Tensor *dxq = t_transpose(ag.grad_q, 1, 2);                        /* (bsz, T, H, hd) */
        Tensor *dxk = repeat_kv_backward(t_transpose(ag.grad_k, 1, 2), A->n_rep);   /* (bsz, T, Hkv, hd) */
        Tensor *dxv = repeat_kv_backward(t_transpose(ag.grad_v, 1, 2), A->n_rep);
        dxq = t_reshape(rope_backward(dxq, cos, sin), SHAPE(bsz, T, H * hd));
        dxk = t_reshape(rope_backward(dxk, cos, sin), SHAPE(bsz, T, Hkv * hd));
        dxv = t_reshape(dxv, SHAPE(bsz, T, Hkv * hd));
        Tensor *dxn_q, *dxn_k, *dxn_v;
        linear_bwd(A->wq, k->xn, dxq, &dxn_q, &g[0]);
        linear_bwd(A->wk, k->xn, dxk, &dxn_k, &g[1]);
        linear_bwd(A->wv, k->xn, dxv, &dxn_v, &g[2]);
        Tensor *dxn = add_(add_(dxn_q, dxn_k), dxn_v);                     /* xn feeds wq, wk and wv */
        dh = add_(rms_norm_backward(k->x, k->rstd1, L->attention_norm, dxn, &g[7]), dh_mid);
        for (int i = 0; i < 9; i++) grads[1 + 9 * l + i] = g[i];
    }
    gi = 1 + 9 * (int)m->args.n_layers;
    grads[gi++] = dnorm;                                                   /* norm.weight */
    /* h = self.tok_embeddings(tokens): each row of dh goes to its token's row */
    float *de = t_data(grads[0]);
    const float *dhd = t_data(t_contiguous(dh));
    for (int64_t i = 0; i < bsz * T; i++)
        for (int64_t j = 0; j < D; j++) de[(int64_t)c->tokens[i] * D + j] += dhd[i * D + j];
    if (m->args.shared) acc(grads[0], dwout);   /* tied: the output head's gradient lands on the same matrix */
    else grads[gi++] = dwout;                   /* output.weight */
    return grads;
}
