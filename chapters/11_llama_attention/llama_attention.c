/* llama_attention.c — chapter 11: the Attention class of Happy-LLM 5.1.3.3, built from
 * chapters 2-7 plus RoPE (rope.c) and grouped-query heads (gqa.c). */
#include "llama_attention.h"
#include "chapters/05_multi_head/multi_head.h"

/* x (bsz, seqlen, dim) with seqlen <= max_seq_len, the tables (seqlen, head_dim / 2). */
static void check_forward(const LlamaAttention *m, const Tensor *x) {
    char xs[T_SHAPE_STR];
    if (x->ndim != 3 || x->shape[2] != m->args.dim)
        t_error("Attention: x %s must be (bsz, seqlen, dim) with dim = %lld", t_shape_str(x, xs),
                (long long)m->args.dim);
    check_seq_len(x->shape[1], m->args.max_seq_len);  /* chapter 4's sentence */
    check_scores_fit(x->shape[0], m->n_local_heads, x->shape[1], x->shape[1]);  /* chapter 5's sentence */
}

Tensor *llama_attention_forward(const LlamaAttention *m, const Tensor *x, const Tensor *freqs_cos,
                                const Tensor *freqs_sin, LlamaTrace *trace) {
    check_forward(m, x);
    int64_t bsz = x->shape[0], seqlen = x->shape[1], hd = m->head_dim;
    /* xq, xk, xv = self.wq(x), self.wk(x), self.wv(x) */
    Tensor *xq = nn_linear_forward(m->wq, x);   /* (bsz, seqlen, n_heads * head_dim)    */
    Tensor *xk = nn_linear_forward(m->wk, x);   /* (bsz, seqlen, n_kv_heads * head_dim) */
    Tensor *xv = nn_linear_forward(m->wv, x);
    /* xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim); xk, xv with n_local_kv_heads */
    xq = t_view(xq, SHAPE(bsz, seqlen, m->n_local_heads, hd));
    xk = t_view(xk, SHAPE(bsz, seqlen, m->n_local_kv_heads, hd));
    xv = t_view(xv, SHAPE(bsz, seqlen, m->n_local_kv_heads, hd));
    /* xq, xk = apply_rotary_emb(xq, xk, freqs_cos, freqs_sin) */
    xq = llama_rope(m, xq, freqs_cos, freqs_sin);  /* (bsz, seqlen, n_heads, head_dim), turned    */
    xk = llama_rope(m, xk, freqs_cos, freqs_sin);  /* (bsz, seqlen, n_kv_heads, head_dim), turned */
    if (trace) trace->xq = xq, trace->xk = xk, trace->xv = xv;
    /* xk = repeat_kv(xk, self.n_rep); xv = repeat_kv(xv, self.n_rep) */
    xk = repeat_kv(xk, m->n_rep);               /* (bsz, seqlen, n_heads, head_dim) */
    xv = repeat_kv(xv, m->n_rep);
    /* xq, xk, xv = xq.transpose(1, 2), xk.transpose(1, 2), xv.transpose(1, 2) */
    xq = t_transpose(xq, 1, 2);                 /* (bsz, n_heads, seqlen, head_dim) */
    xk = t_transpose(xk, 1, 2);
    xv = t_transpose(xv, 1, 2);
    /* scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)   chapter 2 */
    Tensor *scores = scaled_scores(xq, xk);     /* (bsz, n_heads, seqlen, seqlen) */
    /* scores = scores + self.mask[:, :, :seqlen, :seqlen]                        chapter 4 */
    scores = apply_causal_mask(scores, m->mask);
    /* scores = F.softmax(scores.float(), dim=-1).type_as(xq) */
    Tensor *attn_weights = t_softmax(scores, -1);
    /* scores = self.attn_dropout(scores)                                         chapter 6 */
    Tensor *dropped = dropout_forward(&m->attn_dropout, attn_weights, NULL);
    /* output = torch.matmul(scores, xv)                                          chapter 1 */
    Tensor *output = weighted_sum(dropped, xv); /* (bsz, n_heads, seqlen, head_dim) */
    /* output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)         chapter 5 */
    output = merge_heads(output);               /* (bsz, seqlen, n_heads * head_dim) */
    /* output = self.wo(output); output = self.resid_dropout(output)              chapter 7 */
    output = nn_linear_forward(m->wo, output);  /* (bsz, seqlen, dim) */
    output = dropout_forward(&m->resid_dropout, output, NULL);
    if (trace) trace->keys = xk, trace->scores = scores, trace->attn_weights = attn_weights;
    return output;
}

void check_model_config(const ModelConfig *a) {
    if (a->dim < 1 || a->n_heads < 1 || a->n_kv_heads < 1 || a->max_seq_len < 1)
        t_error(t_tr("ModelConfig: dim = %lld, n_heads = %lld, n_kv_heads = %lld and max_seq_len = %lld must all be at "
                "least 1"),
                (long long)a->dim, (long long)a->n_heads, (long long)a->n_kv_heads, (long long)a->max_seq_len);
    n_rep_of(a->n_heads, a->n_kv_heads);  /* assert args.n_heads % self.n_kv_heads == 0 */
    if (a->dim < a->n_heads)
        t_error(t_tr("ModelConfig: dim = %lld is smaller than n_heads = %lld, so head_dim = dim // n_heads is 0"),
                (long long)a->dim, (long long)a->n_heads);
    check_rope_dim(a->dim / a->n_heads);  /* RoPE turns pairs: head_dim even */
    if (!(a->dropout >= 0.0 && a->dropout <= 1.0))
        t_error(t_tr("ModelConfig: dropout = %g is not a probability; it must be between 0 and 1"), a->dropout);
}

/* Everything but the weights: the head counts, the two dropouts, the mask buffer. */
static LlamaAttention *build(ModelConfig args, Linear *wq, Linear *wk, Linear *wv, Linear *wo) {
    LlamaAttention *m = (LlamaAttention *)t_alloc(sizeof *m);
    m->args = args;
    m->n_local_heads = args.n_heads;                       /* args.n_heads // model_parallel_size */
    m->n_local_kv_heads = args.n_kv_heads;                 /* self.n_kv_heads // model_parallel_size */
    m->n_rep = n_rep_of(args.n_heads, args.n_kv_heads);    /* self.n_local_heads // self.n_local_kv_heads */
    m->head_dim = args.dim / args.n_heads;                 /* args.dim // args.n_heads */
    m->wq = wq, m->wk = wk, m->wv = wv, m->wo = wo;
    m->attn_dropout = dropout_new(args.dropout);          /* self.attn_dropout = nn.Dropout(args.dropout) */
    m->resid_dropout = dropout_new(args.dropout);         /* self.resid_dropout = nn.Dropout(args.dropout) */
    /* mask = torch.triu(torch.full((1, 1, args.max_seq_len, args.max_seq_len), float("-inf")), diagonal=1) */
    m->mask = causal_mask(args.max_seq_len, 1);
    return m;
}

LlamaAttention *llama_attention_new(ModelConfig args) {
    check_model_config(&args);
    int64_t hd = args.dim / args.n_heads;
    Linear *wq = nn_linear(args.dim, args.n_heads * hd, false);     /* self.wq */
    Linear *wk = nn_linear(args.dim, args.n_kv_heads * hd, false);  /* self.wk: fewer heads */
    Linear *wv = nn_linear(args.dim, args.n_kv_heads * hd, false);  /* self.wv */
    Linear *wo = nn_linear(args.n_heads * hd, args.dim, false);     /* self.wo */
    return build(args, wq, wk, wv, wo);
}

/* weight `name` must be (rows, cols); one sentence naming what the rows count. */
static Linear *linear_checked(const char *name, Tensor *w, int64_t rows, int64_t cols, const char *rows_are) {
    char ws[T_SHAPE_STR];
    if (w->ndim != 2 || w->shape[0] != rows || w->shape[1] != cols)
        t_error(t_tr("%s.npy has shape %s but must be (%s, dim) = (%lld, %lld) here"), name, t_shape_str(w, ws),
                rows_are, (long long)rows, (long long)cols);
    return nn_linear_from(name, w, NULL);
}

LlamaAttention *llama_attention_from(ModelConfig args, Tensor *wq, Tensor *wk, Tensor *wv, Tensor *wo) {
    char ws[T_SHAPE_STR];
    check_model_config(&args);
    int64_t hd = args.dim / args.n_heads, D = args.dim;
    Linear *q = linear_checked("wq", wq, args.n_heads * hd, D, "n_heads * head_dim");
    Linear *k = linear_checked("wk", wk, args.n_kv_heads * hd, D, "n_kv_heads * head_dim");
    Linear *v = linear_checked("wv", wv, args.n_kv_heads * hd, D, "n_kv_heads * head_dim");
    if (wo->ndim != 2 || wo->shape[0] != D || wo->shape[1] != args.n_heads * hd)
        t_error(t_tr("wo.npy has shape %s but must be (dim, n_heads * head_dim) = (%lld, %lld) here"),
                t_shape_str(wo, ws), (long long)D, (long long)(args.n_heads * hd));
    return build(args, q, k, v, nn_linear_from("wo", wo, NULL));
}

Tensor *llama_rope(const LlamaAttention *m, const Tensor *x, const Tensor *freqs_cos, const Tensor *freqs_sin) {
    return m->rotate_half ? rotary_emb_half(x, freqs_cos, freqs_sin) : rotary_emb(x, freqs_cos, freqs_sin);
}

void llama_attention_eval(LlamaAttention *m) {
    m->attn_dropout.training = false;   /* model.eval(): both dropouts off */
    m->resid_dropout.training = false;
}

int64_t llama_attention_num_params(const LlamaAttention *m) {
    return nn_linear_num_params(m->wq) + nn_linear_num_params(m->wk) + nn_linear_num_params(m->wv) +
           nn_linear_num_params(m->wo);
}
