/* mha_setup.c — chapter 7's module and input, as the programs of chapters 7, 9
 * and 10 get them: from files (--input, --weights: mha_load) or the 手撕 MHA
 * script's default run (mha_default); and the module written back as files
 * (mha_save, for --dump). The lesson is in mha.c. */
#include "mha_setup.h"

MultiHeadAttention *mha_from_args(const Args *args, Tensor **x) {
    if (!args->input) return mha_default(args, x);
    int64_t max_seq_len;
    *x = load_input_for_heads(args, args->heads, &max_seq_len);  /* (B, T, d_in) */
    ModelArgs a = {0};
    a.d_in = t_size(*x, 2);  /* d_out and the biases come from the weights folder */
    a.n_heads = args->heads;
    a.max_seq_len = max_seq_len;
    a.dropout = args->dropout;
    a.resid_dropout = args->resid_dropout;
    a.causal = args->causal;
    return mha_load(a, args->weights);
}

MultiHeadAttention *mha_default(const Args *args, Tensor **x) {
    int64_t max_seq_len = mha_default_max_seq_len(args);
    head_dim_of(args->d_out, args->heads);  /* before any work: d_out % n_heads == 0 */
    if (args->causal) check_seq_len(args->seq_len, max_seq_len);  /* chapter 4 */
    check_scores_fit(args->batch, args->heads, args->seq_len, args->seq_len);
    ModelArgs a = handwritten_mha_args(args->d_in, args->d_out, max_seq_len, args->dropout, args->heads);
    a.causal = args->causal;
    a.qkv_bias = args->bias;
    a.resid_dropout = args->resid_dropout;
    t_manual_seed(args->seed);                                  /* torch.manual_seed(seed)        */
    MultiHeadAttention *m = mha_new(a);                         /* W_query, W_key, W_value, out_proj */
    *x = t_randn(SHAPE(args->batch, args->seq_len, args->d_in)); /* x = torch.randn(b, T, d_in)    */
    return m;
}

int64_t mha_default_max_seq_len(const Args *args) {
    return args->max_seq_len > 0 ? args->max_seq_len : 2 * args->seq_len;
}

MultiHeadAttention *mha_load(ModelArgs args, const char *dir) {
    char ws[T_SHAPE_STR], bs[T_SHAPE_STR];
    if (args.d_in < 1)
        t_error("mha_load: d_in must be the width of the input (at least 1), got %lld", (long long)args.d_in);
    /* wq.npy wk.npy wv.npy (d_out, d_in), and bq.npy bk.npy bv.npy all or none: chapter 3 */
    QKVProjection *qkv = qkv_load(dir, args.d_in);
    int64_t d_out = qkv->d_out;
    if (args.d_out > 0 && args.d_out != d_out)
        t_error("weights folder '%s': wq.npy has d_out = %lld but d_out = %lld was asked for", dir,
                (long long)d_out, (long long)args.d_out);
    /* wo.npy: (d_out, d_out), it maps the merged heads back to d_out */
    Tensor *w = state_load(dir, "wo");
    if (w->ndim != 2 || w->shape[0] != d_out || w->shape[1] != d_out)
        t_error("%s/wo.npy has shape %s but wq.npy has d_out = %lld: wo must be (d_out, d_out) = (%lld, %lld)",
                dir, t_shape_str(w, ws), (long long)d_out, (long long)d_out, (long long)d_out);
    Tensor *b = state_load_optional(dir, "bo");  /* optional, independent of bq, bk, bv */
    if (b && (b->ndim != 1 || b->shape[0] != d_out))
        t_error("%s/bo.npy has shape %s but the weights have d_out = %lld: expected (%lld,)", dir,
                t_shape_str(b, bs), (long long)d_out, (long long)d_out);
    args.d_out = d_out;
    args.qkv_bias = qkv->wq->bias != NULL;
    args.out_bias = b != NULL;
    return mha_from_projections(args, qkv, nn_linear_from("wo", w, b));  /* checks d_out % n_heads, ... */
}

void mha_save(const MultiHeadAttention *m, const char *dir) {
    qkv_save(m->qkv, dir);                        /* wq wk wv [bq bk bv] */
    npy_save_in(dir, "wo", m->wo->weight);        /* (d_out, d_out)      */
    if (m->wo->bias) npy_save_in(dir, "bo", m->wo->bias);
}
