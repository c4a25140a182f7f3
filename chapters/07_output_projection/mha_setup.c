/* mha_setup.c — chapter 7's module and input, as the programs of chapters 7, 9
 * and 10 get them: from files (--input, --weights: mha_load) or the 手撕 MHA
 * script's default run (mha_default, through chapter 5's default_model); and
 * the module written back as files (mha_save), with the intermediates for
 * --dump (mha_save_dump). The lesson is in mha.c. */
#include "mha_setup.h"

MultiHeadAttention *mha_files_before_title(const Args *args, Tensor **x) {
    int64_t max_seq_len;
    if (!args->input) return NULL;
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

/* What mha_from_args's two branches fill in. */
typedef struct {
    Tensor **x;
    MultiHeadAttention *loaded; /* mha_files_before_title's */
} MhaRun;

static void *mha_from_files(const Args *args, void *ctx) {
    MhaRun *r = ctx;
    if (!r->loaded) r->loaded = mha_files_before_title(args, r->x);
    narrate_input_load(args);
    return r->loaded;
}

static void *mha_from_default(const Args *args, void *ctx) { return mha_default(args, ((MhaRun *)ctx)->x); }

MultiHeadAttention *mha_from_args(const Args *args, MultiHeadAttention *loaded, Tensor **x) {
    MhaRun r = {x, loaded};
    return load_or_default(args, MODULE_SIZE_FLAGS, mha_from_files, mha_from_default, &r);
}

/* model = MultiHeadAttention(d_in, d_out, max_seq_len, dropout, heads), as the flags say */
static void *new_mha(const Args *args, int64_t max_seq_len) {
    ModelArgs a = handwritten_mha_args(args->d_in, args->d_out, max_seq_len, args->dropout, args->heads);
    a.causal = args->causal;
    a.qkv_bias = args->bias;
    a.resid_dropout = args->resid_dropout;
    return mha_new(a);  /* W_query, W_key, W_value, out_proj */
}

MultiHeadAttention *mha_default(const Args *args, Tensor **x) {
    return default_model(args, new_mha, x, NULL);  /* chapter 5: seed, the module, then x */
}

MultiHeadAttention *mha_load(ModelArgs args, const char *dir) {
    char ws[T_SHAPE_STR], bs[T_SHAPE_STR];
    if (args.d_in < 1)
        t_error("mha_load: d_in must be the width of the input (at least 1), got %lld", (long long)args.d_in);
    /* wq.npy wk.npy wv.npy (d_out, d_in), and bq.npy bk.npy bv.npy all or none: chapter 3 */
    QKVProjection *qkv = qkv_load(dir, args.d_in);
    int64_t d_out = qkv->d_out;
    if (args.d_out > 0 && args.d_out != d_out)
        t_error(t_tr("weights folder '%s': wq.npy has d_out = %lld but d_out = %lld was asked for"), dir,
                (long long)d_out, (long long)args.d_out);
    /* wo.npy: (d_out, d_out), it maps the merged heads back to d_out */
    Tensor *w = state_load(dir, "wo");
    if (w->ndim != 2 || w->shape[0] != d_out || w->shape[1] != d_out)
        t_error(t_tr("%s/wo.npy has shape %s but wq.npy has d_out = %lld: wo must be (d_out, d_out) = (%lld, %lld)"),
                dir, t_shape_str(w, ws), (long long)d_out, (long long)d_out, (long long)d_out);
    Tensor *b = state_load_optional(dir, "bo");  /* optional, independent of bq, bk, bv */
    if (b && (b->ndim != 1 || b->shape[0] != d_out))
        t_error(t_tr("%s/bo.npy has shape %s but the weights have d_out = %lld: expected (%lld,)"), dir,
                t_shape_str(b, bs), (long long)d_out, (long long)d_out);
    args.d_out = d_out;
    args.qkv_bias = qkv->wq->bias != NULL;
    args.out_bias = b != NULL;
    return mha_from_projections(args, qkv, nn_linear_from("wo", w, b));  /* checks d_out % n_heads, ... */
}

/* wo.npy [bo.npy], the output projection's part of the weights folder */
static void wo_save(const MultiHeadAttention *m, const char *dir) {
    npy_save_in(dir, "wo", m->wo->weight);        /* (d_out, d_out)      */
    if (m->wo->bias) npy_save_in(dir, "bo", m->wo->bias);
}

void mha_save(const MultiHeadAttention *m, const char *dir) {
    qkv_save(m->qkv, dir);                        /* wq wk wv [bq bk bv] */
    wo_save(m, dir);
}

void mha_save_dump(const char *dir, const MultiHeadAttention *m, const Tensor *x, const MhaTrace *tr,
                   const Tensor *output) {
    save_heads_dump(dir, m->qkv, x, tr->xq, tr->xk, tr->xv, tr->scores, tr->attn_weights);  /* chapter 5's files */
    wo_save(m, dir);                                      /* with chapter 5's wq wk wv: what --weights reads */
    npy_save_in(dir, "attn_dropped", tr->attn_dropped);  /* after attn_dropout */
    npy_save_in(dir, "merged", tr->merged);              /* (bsz, seqlen, d_out), before wo */
    npy_save_in(dir, "projected", tr->projected);        /* after wo, before resid_dropout */
    npy_save_in(dir, "output", output);                  /* (bsz, seqlen, d_out) */
}
