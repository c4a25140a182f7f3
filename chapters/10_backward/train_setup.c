/* train_setup.c — chapter 10's tiny model saved to and loaded from a folder (see
 * train_setup.h): model_config.npy, then one .npy per parameter. */
#include "train_setup.h"

void tiny_model_save(const TinyModel *model, const char *dir) {
    Tensor *config = t_zeros(SHAPE(4));   /* ModelConfig(vocab, seq_len, dim, n_heads) */
    t_set(config, (float)model->vocab, 0);
    t_set(config, (float)model->seq_len, 1);
    t_set(config, (float)model->dim, 2);
    t_set(config, (float)model->n_heads, 3);
    npy_make_dir(dir);
    npy_save_in(dir, "model_config", config);
    ParamList p = tiny_params(model);                 /* model.state_dict() */
    for (int i = 0; i < p.n; i++) npy_save_in(dir, p.names[i], p.params[i]);
}

/* dir/name.npy, which must have the shape (rows, cols) (cols 0: a vector of rows). */
static Tensor *load_shaped(const char *dir, const char *name, int64_t rows, int64_t cols) {
    char got[T_SHAPE_STR];
    Tensor *t = state_load(dir, name);
    bool ok = cols ? t->ndim == 2 && t_size(t, 0) == rows && t_size(t, 1) == cols
                   : t->ndim == 1 && t_size(t, 0) == rows;
    if (!ok) {
        if (cols)
            t_error("%s/%s.npy has shape %s; the model_config of the folder wants (%lld, %lld)", dir, name,
                    t_shape_str(t, got), (long long)rows, (long long)cols);
        t_error("%s/%s.npy has shape %s; the model_config of the folder wants (%lld,)", dir, name,
                t_shape_str(t, got), (long long)rows);
    }
    return t;
}

/* model_config.npy: four whole numbers of at least 1 (and at most CLI's size limit). */
static void load_config(const char *dir, int64_t size[4]) {
    char got[T_SHAPE_STR];
    Tensor *config = state_load(dir, "model_config");
    if (config->ndim != 1 || t_size(config, 0) != 4)
        t_error("%s/model_config.npy has shape %s; it holds (vocab, seq_len, dim, n_heads): shape (4,)", dir,
                t_shape_str(config, got));
    for (int i = 0; i < 4; i++) {
        float v = t_get(config, i);
        if (!(v >= 1.0f && v <= 1e6f) || v != floorf(v))
            t_error("%s/model_config.npy: entry %d is %g; vocab, seq_len, dim and n_heads are whole numbers "
                    "from 1 to 1000000", dir, i, (double)v);
        size[i] = (int64_t)v;
    }
}

TinyModel *tiny_model_load(const char *dir) {
    int64_t size[4];
    load_config(dir, size);
    int64_t vocab = size[0], seq_len = size[1], dim = size[2], n_heads = size[3];
    TinyModel *m = (TinyModel *)t_alloc(sizeof *m);
    m->vocab = vocab, m->seq_len = seq_len, m->dim = dim, m->n_heads = n_heads;
    m->tok_emb = load_shaped(dir, "tok_emb", vocab, dim);     /* self.tok_emb.weight (vocab, dim)   */
    m->pos_emb = load_shaped(dir, "pos_emb", seq_len, dim);   /* self.pos_emb.weight (seq_len, dim) */
    /* self.attn: chapter 7's class, causal, no dropout; wq wk wv wo bo from the folder */
    m->attn = mha_load(handwritten_mha_args(dim, dim, seq_len, 0.0, n_heads), dir);
    mha_eval(m->attn);
    Tensor *hw = load_shaped(dir, "head.weight", vocab, dim), *hb = load_shaped(dir, "head.bias", vocab, 0);
    m->head = nn_linear_from("head", hw, hb);                 /* self.head = nn.Linear(dim, vocab)  */
    return m;
}
