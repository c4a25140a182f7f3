/* multi_head_setup.c — how the programs of chapters 5, 6 and 7 get their data:
 * first what the run holds (refused before any work when too much), then x
 * and W_q, W_k, W_v from files (--input, --weights) or the default run, drawn
 * as PyTorch draws it. The lesson is in multi_head.c. */
#include "multi_head_setup.h"

void multi_head_refuse_past_budget(const Args *a, double score_buffers, double square_buffers, double passes) {
    char what[160];
    /* chapters 5-7 build the causal mask for max_seq_len and slice it to T: --max-seq-len,
     * else (with --input) --seq-len or T, else (the default run) 2 * T; none without --causal */
    BudgetModule m = {.B = (double)a->batch, .H = (double)a->heads, .T = (double)a->seq_len,
                      .d_in = (double)a->d_in, .d_out = (double)a->d_out, .score_buffers = score_buffers,
                      .mask_buffers = 2,
                      .from_files = a->input != NULL};  /* .L below */
    bool T_known = true; /* false: --input's header cannot be read (its load will say why) */
    if (a->input) {
        m.T = -1;
        budget_peek_input(a->input, a->weights, &m.B, &m.T, &m.d_in, &m.d_out);
        if (m.T < 0) T_known = false, m.T = (double)a->seq_len;
    }
    m.L = (a->given & CLI_MAX_SEQ_LEN) ? (double)a->max_seq_len
          : a->input ? ((a->given & CLI_SEQ_LEN) ? (double)a->seq_len : m.T) : 2 * m.T;
    /* --no-causal builds no mask: counting one would call it the largest buffer and
     * leave the refusing to its own check, which then never comes */
    if (!a->causal) m.L = 0;
    /* the two largest buffers alone past the limit: their own sentences, before any output */
    if (m.L > 0 && T_known) check_seq_len((int64_t)m.T, (int64_t)m.L); /* --input's T past --max-seq-len */
    check_scores_fit((int64_t)m.B, (int64_t)m.H, (int64_t)m.T, (int64_t)m.T);
    if (m.L > 0) check_mask_fits((int64_t)m.L);
    /* the other buffers whose size alone can pass it: x, a projection's weight, its output */
    t_check_fits("x", SHAPE((int64_t)m.B, (int64_t)m.T, (int64_t)m.d_in));
    t_check_fits("wq.weight", SHAPE((int64_t)m.d_out, (int64_t)m.d_in));
    t_check_fits("xq", SHAPE((int64_t)m.B, (int64_t)m.T, (int64_t)m.d_out));
    BudgetEstimate e = budget_attention_module(&m, what, sizeof what);
    e.bytes += BUDGET_F4 * square_buffers * m.B * m.T * m.T;
    e.flops *= passes;
    budget_refuse(&e, a->quiet);
}

QKVProjection *heads_files_before_title(const Args *args, Tensor **x, int64_t *max_seq_len) {
    if (!args->input) return NULL;
    *x = load_input_for_heads(args, args->heads, max_seq_len);     /* (B, T, d_in) */
    return qkv_load_for_heads(args, t_size(*x, 2), args->heads);  /* wq wk wv [bq bk bv] */
}

/* What projections_and_input's two branches fill in. */
typedef struct {
    const char *default_step_title;
    Tensor **x;
    int64_t *max_seq_len;
    QKVProjection *loaded; /* heads_files_before_title's */
} InputRun;

static void *projections_from_files(const Args *args, void *ctx) {
    InputRun *r = ctx;
    if (!r->loaded) r->loaded = heads_files_before_title(args, r->x, r->max_seq_len);
    narrate_input_load(args);
    return r->loaded;
}

static void *default_projections(const Args *args, void *ctx) {
    InputRun *r = ctx;
    QKVProjection *p = qkv_default(args, r->x, r->max_seq_len);  /* W_query, W_key, W_value, then x */
    narrate_step("%s", tr(r->default_step_title));
    narrate_torch_seed(args->seed);
    narrate_torch(args->bias ? "W_query = nn.Linear(d_in, d_out, bias=True)   # W_key, W_value alike"
                             : "W_query = nn.Linear(d_in, d_out, bias=False)  # W_key, W_value alike");
    narrate_torch("x = torch.randn(bsz, seqlen, d_in)");
    return p;
}

QKVProjection *projections_and_input(const Args *args, const char *default_step_title, QKVProjection *loaded,
                                     Tensor **x, int64_t *max_seq_len) {
    InputRun r = {default_step_title, x, max_seq_len, loaded};
    QKVProjection *p = load_or_default(args, MODULE_SIZE_FLAGS, projections_from_files, default_projections, &r);
    narrate_show("x", *x);
    return p;
}

Tensor *load_input_for_heads(const Args *args, int64_t n_heads, int64_t *max_seq_len) {
    Tensor *x = load_input(args->input);  /* (B, T, d_in): chapter 3 */
    int64_t seqlen = t_size(x, 1), L = seqlen;
    if (args->given & CLI_MAX_SEQ_LEN) L = args->max_seq_len;
    else if (args->given & CLI_SEQ_LEN) L = args->seq_len;
    if (max_seq_len && args->causal) check_seq_len(seqlen, L);  /* chapter 4 */
    check_scores_fit(t_size(x, 0), n_heads, seqlen, seqlen);  /* before any work, or chapter 8 */
    if (max_seq_len) *max_seq_len = L;
    return x;
}

void narrate_input_load(const Args *args) {
    narrate_step("Load x from %s and the weights from %s", args->input, args->weights);
    narrate_torch("x = torch.from_numpy(np.load(...)); model.load_state_dict(...)");
}

QKVProjection *qkv_load_for_heads(const Args *args, int64_t d_in, int64_t n_heads) {
    QKVProjection *p = qkv_load(args->weights, d_in);  /* wq.npy wk.npy wv.npy [bq bk bv] */
    head_dim_of(p->d_out, n_heads);                     /* d_out % n_heads == 0 */
    return p;
}

void *default_model(const Args *args, void *(*make_module)(const Args *args, int64_t max_seq_len), Tensor **x,
                    int64_t *max_seq_len) {
    int64_t L = args->max_seq_len > 0 ? args->max_seq_len : 2 * args->seq_len;
    head_dim_of(args->d_out, args->heads);  /* before any work: d_out % n_heads == 0 */
    if (args->causal) check_seq_len(args->seq_len, L);  /* chapter 4 */
    check_scores_fit(args->batch, args->heads, args->seq_len, args->seq_len);
    t_manual_seed(args->seed);                                   /* torch.manual_seed(seed)    */
    void *module = make_module(args, L);                         /* its nn.Linear layers draw  */
    *x = t_randn(SHAPE(args->batch, args->seq_len, args->d_in)); /* x = torch.randn(b, T, d_in) */
    if (max_seq_len) *max_seq_len = L;
    return module;
}

static void *new_projections(const Args *args, int64_t max_seq_len) {
    (void)max_seq_len;                                    /* chapters 5 and 6 slice the mask themselves */
    return qkv_new(args->d_in, args->d_out, args->bias);  /* W_query, W_key, W_value */
}

QKVProjection *qkv_default(const Args *args, Tensor **x, int64_t *max_seq_len) {
    return default_model(args, new_projections, x, max_seq_len);
}

void save_heads_dump(const char *dir, const QKVProjection *p, const Tensor *x, const Tensor *xq, const Tensor *xk,
                     const Tensor *xv, const Tensor *scores, const Tensor *attn_weights) {
    npy_make_dir(dir);
    npy_save_in(dir, "x", x);  /* the input; with the weights below, a run to replay */
    qkv_save(p, dir);          /* wq.npy ... as --weights reads them */
    npy_save_in(dir, "xq", xq);                     /* (bsz, n_heads, seqlen, head_dim) */
    npy_save_in(dir, "xk", xk);
    npy_save_in(dir, "xv", xv);
    npy_save_in(dir, "scores", scores);             /* scaled (and masked), before softmax */
    npy_save_in(dir, "attn_weights", attn_weights); /* after softmax */
}
