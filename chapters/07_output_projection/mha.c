/* mha.c — chapter 7: W_o, the complete MultiHeadAttention.
 *
 * Mirrors Happy-LLM 2.1.6's class and the 手撕 MHA class (their differences:
 * out_proj has a bias in the latter; resid_dropout exists only in the
 * former), built from the earlier chapters:
 *
 *     self.wq, self.wk, self.wv = nn.Linear(d_in, d_out) x 3    chapter 3 (QKVProjection)
 *     self.wo = nn.Linear(d_out, d_out)                          here
 *     self.attn_dropout = nn.Dropout(args.dropout)               chapter 6
 *     self.resid_dropout = nn.Dropout(args.dropout)              Happy-LLM only, on the output
 *     mask = torch.triu(torch.full((1, 1, L, L), -inf), 1)       chapter 4
 *
 *     def forward(self, q, k, v):
 *         xq, xk, xv = self.wq(q), self.wk(k), self.wv(v)        chapter 3
 *         xq = xq.view(bsz, seqlen, n_heads, head_dim).transpose(1, 2)   chapter 5
 *         scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(head_dim)   chapter 2
 *         scores = scores + self.mask[:, :, :seqlen, :seqlen]    chapter 4
 *         scores = F.softmax(scores.float(), dim=-1).type_as(xq)
 *         scores = self.attn_dropout(scores)                     chapter 6
 *         output = torch.matmul(scores, xv)                      chapter 1
 *         output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)   chapter 5
 *         output = self.wo(output)                               here
 *         output = self.resid_dropout(output)                    Happy-LLM only
 *
 * Chapter 5's multi_head_attention() cannot be reused as one call here: the
 * attention dropout sits between the softmax and `@ xv`, inside it. So
 * mha_forward() writes the steps out, each one a call into its chapter.
 *
 * In this file: mha_forward(), then mha_num_params(); then how a module is
 * made (the two classes' ModelArgs, mha_new, mha_from_projections) and
 * switched between train and eval; last the checks that turn wrong sizes and
 * shapes into sentences. Loading and saving the weights is in mha_setup.c.
 */
#include "mha.h"

/* the rules, at the end of the file */
static void check_forward(const MultiHeadAttention *m, const Tensor *q, const Tensor *k, const Tensor *v);
static void check_args(const ModelArgs *a);

/* head_dim, the two dropouts, the mask buffer, around the given projections */
static MultiHeadAttention *mha_build(ModelArgs args, QKVProjection *qkv, Linear *wo);

Tensor *mha_forward(const MultiHeadAttention *m, const Tensor *q, const Tensor *k, const Tensor *v,
                    MhaTrace *trace) {
    check_forward(m, q, k, v);
    /* BEGIN BLANK mha_forward */
    int64_t n_heads = m->args.n_heads;
    /* xq, xk, xv = self.wq(q), self.wk(k), self.wv(v) */
    Tensor *xq, *xk, *xv;                                   /* (bsz, seqlen, d_out), (bsz, kvlen, d_out) x 2 */
    if (q == k && k == v) {
        qkv_project(m->qkv, q, &xq, &xk, &xv);              /* self-attention: one x, three projections */
    } else {
        xq = nn_linear_forward(m->qkv->wq, q);              /* cross-attention: each its own input */
        xk = nn_linear_forward(m->qkv->wk, k);
        xv = nn_linear_forward(m->qkv->wv, v);
    }
    /* xq = xq.view(bsz, seqlen, self.n_heads, self.head_dim).transpose(1, 2) */
    xq = split_heads(xq, n_heads);                          /* (bsz, n_heads, seqlen, head_dim) */
    xk = split_heads(xk, n_heads);                          /* (bsz, n_heads, kvlen, head_dim)  */
    xv = split_heads(xv, n_heads);                          /* (bsz, n_heads, kvlen, head_dim)  */
    /* scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim) */
    Tensor *scores = scaled_scores(xq, xk);                 /* (bsz, n_heads, seqlen, kvlen) */
    /* if self.is_causal: scores = scores + self.mask[:, :, :seqlen, :seqlen] */
    if (m->args.causal) scores = apply_causal_mask(scores, m->mask);  /* -inf above the diagonal */
    /* scores = F.softmax(scores.float(), dim=-1) */
    Tensor *attn_weights = t_softmax(scores, -1);           /* (bsz, n_heads, seqlen, kvlen), rows sum to 1 */
    /* scores = self.attn_dropout(scores) */
    Tensor *attn_mask = NULL, *resid_mask = NULL;           /* kept for the trace: what each dropout applied */
    Tensor *attn_dropped = dropout_forward(&m->attn_dropout, attn_weights, trace ? &attn_mask : NULL);  /* same shape */
    /* output = torch.matmul(scores, xv) */
    Tensor *output = weighted_sum(attn_dropped, xv);       /* (bsz, n_heads, seqlen, head_dim) */
    /* output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1) */
    output = merge_heads(output);                           /* (bsz, seqlen, d_out) */
    Tensor *merged = output;
    /* BEGIN BLANK output_projection */
    output = nn_linear_forward(m->wo, output);              /* (bsz, seqlen, d_out) */
    /* END BLANK */
    Tensor *projected = output;
    if (m->args.resid_dropout) {
        /* BEGIN BLANK resid_dropout */
        output = dropout_forward(&m->resid_dropout, output, trace ? &resid_mask : NULL);   /* (bsz, seqlen, d_out) */
        /* END BLANK */
    }
    if (trace)
        *trace = (MhaTrace){xq, xk, xv, scores, attn_weights, attn_dropped, merged, projected, attn_mask, resid_mask};
    return output;
    /* END BLANK */
}

int64_t mha_num_params(const MultiHeadAttention *m) {
    /* BEGIN BLANK mha_num_params */
    int64_t n = qkv_num_params(m->qkv);  /* wq, wk, wv: 3 * d_out * d_in (+ 3 * d_out with qkv bias) */
    n += nn_linear_num_params(m->wo);    /* wo: d_out * d_out (+ d_out with out bias)               */
    return n;
    /* END BLANK */
}

/* ---- making the module -------------------------------------------------------- */

ModelArgs happy_llm_args(int64_t dim, int64_t n_heads, int64_t max_seq_len, double dropout, bool causal) {
    ModelArgs a;
    a.d_in = dim;   /* the book's wq is nn.Linear(args.n_embd, ...), n_embd == dim in a model */
    a.d_out = dim;  /* and the output: wo is nn.Linear(..., args.dim)                        */
    a.n_heads = n_heads;
    a.max_seq_len = max_seq_len;
    a.dropout = dropout;
    a.causal = causal;
    a.qkv_bias = false;  /* bias=False on wq, wk, wv */
    a.out_bias = false;  /* and on wo                */
    a.resid_dropout = true;  /* self.resid_dropout = nn.Dropout(args.dropout) */
    return a;
}

ModelArgs handwritten_mha_args(int64_t d_in, int64_t d_out, int64_t seq_len, double dropout, int64_t num_heads) {
    ModelArgs a;
    a.d_in = d_in;
    a.d_out = d_out;
    a.n_heads = num_heads;
    a.max_seq_len = seq_len;  /* register_buffer('mask', torch.triu(torch.ones(seq_len, seq_len), 1)) */
    a.dropout = dropout;
    a.causal = true;          /* the 手撕 class always masks the future */
    a.qkv_bias = false;       /* qkv_bias=False                          */
    a.out_bias = true;        /* self.out_proj = nn.Linear(d_out, d_out): bias=True by default */
    a.resid_dropout = false;  /* one nn.Dropout, on the attention weights only */
    return a;
}

MultiHeadAttention *mha_new(ModelArgs args) {
    check_args(&args);
    QKVProjection *qkv = qkv_new(args.d_in, args.d_out, args.qkv_bias);  /* wq, wk, wv = nn.Linear(d_in, d_out) */
    Linear *wo = nn_linear(args.d_out, args.d_out, args.out_bias);       /* self.wo = nn.Linear(d_out, d_out)  */
    return mha_build(args, qkv, wo);
}

MultiHeadAttention *mha_from_projections(ModelArgs args, QKVProjection *qkv, Linear *wo) {
    check_args(&args);  /* d_out % n_heads, max_seq_len, dropout */
    return mha_build(args, qkv, wo);
}

/* Everything but the projections: head_dim, the two dropouts, the mask buffer. */
static MultiHeadAttention *mha_build(ModelArgs args, QKVProjection *qkv, Linear *wo) {
    MultiHeadAttention *m = (MultiHeadAttention *)t_alloc(sizeof *m);
    m->args = args;
    m->head_dim = head_dim_of(args.d_out, args.n_heads);  /* self.head_dim = args.dim // args.n_heads */
    m->qkv = qkv;                                          /* self.wq, self.wk, self.wv: (d_out, d_in) */
    m->wo = wo;                                            /* self.wo: (d_out, d_out)                 */
    m->attn_dropout = dropout_new(args.dropout);           /* self.attn_dropout = nn.Dropout(args.dropout) */
    /* self.resid_dropout = nn.Dropout(args.dropout), Happy-LLM's class only */
    m->resid_dropout = dropout_new(args.resid_dropout ? args.dropout : 0.0);
    /* if is_causal: mask = torch.triu(torch.full((1, 1, L, L), -inf), diagonal=1); register_buffer */
    m->mask = args.causal ? causal_mask(args.max_seq_len, 1) : NULL;  /* (1, 1, max_seq_len, max_seq_len) */
    return m;
}

void mha_train(MultiHeadAttention *m) {
    /* model.train(): every nn.Dropout inside the module drops again */
    m->attn_dropout.training = true;
    m->resid_dropout.training = true;
}

void mha_eval(MultiHeadAttention *m) {
    /* model.eval(): both dropouts become the identity */
    m->attn_dropout.training = false;
    m->resid_dropout.training = false;
}

/* ---- the checks ---------------------------------------------------------------- */

/* The sizes every module needs, whatever its weights come from. */
static void check_args(const ModelArgs *a) {
    if (a->d_in < 1 || a->d_out < 1)
        t_error("MultiHeadAttention: d_in = %lld and d_out = %lld must both be at least 1", (long long)a->d_in,
                (long long)a->d_out);
    if (a->max_seq_len < 1)
        t_error("MultiHeadAttention: max_seq_len must be at least 1, got %lld", (long long)a->max_seq_len);
    if (!(a->dropout >= 0.0 && a->dropout <= 1.0))
        t_error("MultiHeadAttention: dropout = %g is not a probability; it must be between 0 and 1", a->dropout);
    head_dim_of(a->d_out, a->n_heads);  /* assert d_out % n_heads == 0, or a sentence naming both */
}

/* q (B, T, d_in), k and v (B, S, d_in), S == T <= max_seq_len when causal;
 * the scores must fit in memory. One sentence for each rule. */
static void check_forward(const MultiHeadAttention *m, const Tensor *q, const Tensor *k, const Tensor *v) {
    char qs[T_SHAPE_STR], ks[T_SHAPE_STR], vs[T_SHAPE_STR];
    const ModelArgs *a = &m->args;
    if (q->ndim != 3 || k->ndim != 3 || v->ndim != 3)
        t_error("MultiHeadAttention: q %s, k %s and v %s must each be 3-D (bsz, seqlen, d_in)", t_shape_str(q, qs),
                t_shape_str(k, ks), t_shape_str(v, vs));
    if (q->shape[2] != a->d_in || k->shape[2] != a->d_in || v->shape[2] != a->d_in)
        t_error("MultiHeadAttention: q %s, k %s and v %s must all end in d_in = %lld, the width wq, wk, wv take",
                t_shape_str(q, qs), t_shape_str(k, ks), t_shape_str(v, vs), (long long)a->d_in);
    if (k->shape[0] != q->shape[0] || v->shape[0] != q->shape[0])
        t_error("MultiHeadAttention: q %s, k %s and v %s must have the same batch size", t_shape_str(q, qs),
                t_shape_str(k, ks), t_shape_str(v, vs));
    if (k->shape[1] != v->shape[1])
        t_error("MultiHeadAttention: k %s and v %s must have the same length S (one value per key)",
                t_shape_str(k, ks), t_shape_str(v, vs));
    if (a->causal && k->shape[1] != q->shape[1])
        t_error("MultiHeadAttention: causal attention needs k and v as long as q, but S = %lld != T = %lld "
                "(cross-attention with other lengths is the non-causal kind)",
                (long long)k->shape[1], (long long)q->shape[1]);
    if (a->causal) mask_slice(m->mask, q->shape[1]);  /* seqlen <= max_seq_len, or chapter 4's sentence */
    check_scores_fit(q->shape[0], a->n_heads, q->shape[1], k->shape[1]);  /* or a pointer to chapter 8 */
}
