/* mha_setup.c — chapter 7's module and input, as the programs of chapters 7, 9
 * and 10 get them: from files (--input, --weights) or the 手撕 MHA script's
 * default run. The lesson is in mha.c. */
#include "mha_setup.h"

int64_t mha_default_max_seq_len(const Args *args) {
    return args->max_seq_len > 0 ? args->max_seq_len : 2 * args->seq_len;
}

MultiHeadAttention *mha_default(const Args *args, Tensor **x) {
    int64_t max_seq_len = mha_default_max_seq_len(args);
    head_dim_of(args->d_out, args->heads);  /* before any work: d_out % n_heads == 0 */
    if (args->causal && args->seq_len > max_seq_len)
        t_error("--seq-len %lld is longer than --max-seq-len %lld: the causal mask buffer is too short",
                (long long)args->seq_len, (long long)max_seq_len);
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

MultiHeadAttention *mha_from_args(const Args *args, Tensor **x) {
    if (!args->input) return mha_default(args, x);
    int64_t max_seq_len;
    *x = load_input(args, args->heads, &max_seq_len);  /* (B, T, d_in) */
    ModelArgs a = {0};
    a.d_in = t_size(*x, 2);  /* d_out and the biases come from the weights folder */
    a.n_heads = args->heads;
    a.max_seq_len = max_seq_len;
    a.dropout = args->dropout;
    a.resid_dropout = args->resid_dropout;
    a.causal = args->causal;
    return mha_load(a, args->weights);
}

