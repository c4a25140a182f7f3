/* llama_setup.c — chapter 11's module and input: the book's test or files. */
#include "llama_setup.h"

#include <math.h>

#include "chapters/05_multi_head/multi_head_setup.h"

static LlamaRun from_defaults(const Args *a, const LlamaFlags *f) {
    ModelConfig c = {f->dim, f->n_heads, f->n_kv_heads, a->max_seq_len, a->dropout};
    check_model_config(&c);  /* before any draw: n_kv_heads | n_heads, head_dim even */
    check_seq_len(a->seq_len, c.max_seq_len);  /* chapter 4 */
    LlamaRun r;
    t_manual_seed(a->seed);                                                  /* torch.manual_seed(seed)  */
    r.m = llama_attention_new(c);                                            /* Attention(ModelConfig()) */
    r.x = t_rand(SHAPE(a->batch, a->seq_len, c.dim));                       /* torch.rand(B, T, dim)    */
    r.freqs = precompute_freqs_cis(r.m->head_dim, a->seq_len, f->rope_theta);  /* dim // n_heads, T, theta */
    r.rope_theta = f->rope_theta;
    return r;
}

/* A NaN or an infinity in a file is refused: every row it reaches would be NaN. */
#define NEEDS_FINITE "the attention needs finite numbers"

/* freqs_cos.npy and freqs_sin.npy of the folder, (>= T, head_dim / 2), cut to T rows. */
static bool load_freqs(const char *dir, int64_t T, int64_t half, FreqsCis *f) {
    char cs[T_SHAPE_STR], ss[T_SHAPE_STR];
    Tensor *cos = state_load_optional(dir, "freqs_cos"), *sin = state_load_optional(dir, "freqs_sin");
    if (!cos && !sin) return false;
    if (!cos || !sin)
        t_error(t_tr("weights folder '%s' has only one of freqs_cos.npy and freqs_sin.npy: give both or neither"), dir);
    if (!t_same_shape(cos, sin) || cos->ndim != 2 || cos->shape[0] < T || cos->shape[1] != half)
        t_error(t_tr("%s: freqs_cos.npy %s and freqs_sin.npy %s must both be (T, head_dim / 2) = (%lld, %lld)"), dir,
                t_shape_str(cos, cs), t_shape_str(sin, ss), (long long)T, (long long)half);
    require_finite_file(dir, cos, NEEDS_FINITE);  /* the folder's tables */
    require_finite_file(dir, sin, NEEDS_FINITE);
    f->cos = t_slice(cos, 0, 0, T);
    f->sin = t_slice(sin, 0, 0, T);
    return true;
}

static LlamaRun from_files(const Args *a, const LlamaFlags *f) {
    char xs[T_SHAPE_STR], ks[T_SHAPE_STR];
    LlamaRun r;
    r.x = npy_load(a->input);  /* x = torch.from_numpy(np.load(input)) */
    if (r.x->ndim != 3 || t_numel(r.x) == 0)
        t_error(t_tr("%s has shape %s but --input must be (bsz, seqlen, dim) with every size at least 1"), a->input,
                t_shape_str(r.x, xs));
    require_finite_file(a->input, r.x, NEEDS_FINITE);
    int64_t T = r.x->shape[1], dim = r.x->shape[2];
    Tensor *wq = state_load(a->weights, "wq"), *wk = state_load(a->weights, "wk");
    Tensor *wv = state_load(a->weights, "wv"), *wo = state_load(a->weights, "wo");
    static const char *const names[] = {"wq.npy", "wk.npy", "wv.npy", "wo.npy"};
    const Tensor *w[] = {wq, wk, wv, wo};
    for (int i = 0; i < 4; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", a->weights, names[i]);
        require_finite_file(path, w[i], NEEDS_FINITE);
    }
    int64_t hd = dim / f->n_heads;  /* self.head_dim = args.dim // args.n_heads */
    int64_t n_kv_heads = f->n_kv_heads;
    if (!f->n_kv_heads_given && wk->ndim == 2 && hd > 0 && wk->shape[0] % hd == 0 && wk->shape[0] >= hd)
        n_kv_heads = wk->shape[0] / hd;  /* wk: (n_kv_heads * head_dim, dim) */
    else if (!f->n_kv_heads_given)
        t_error(t_tr("%s/wk.npy has shape %s: its rows must be n_kv_heads * head_dim with head_dim = dim // n_heads = "
                "%lld // %lld"),
                a->weights, t_shape_str(wk, ks), (long long)dim, (long long)f->n_heads);
    int64_t L = (a->given & CLI_MAX_SEQ_LEN) ? a->max_seq_len : T;
    check_seq_len(T, L);  /* chapter 4 */
    ModelConfig c = {dim, f->n_heads, n_kv_heads, L, a->dropout};
    r.m = llama_attention_from(c, wq, wk, wv, wo);
    r.rope_theta = f->rope_theta;
    if (!load_freqs(a->weights, T, r.m->head_dim / 2, &r.freqs))
        r.freqs = precompute_freqs_cis(r.m->head_dim, T, f->rope_theta);
    else if (f->rope_theta_given)
        t_error(t_tr("weights folder '%s' has its own freqs_cos.npy and freqs_sin.npy, so --rope-theta %g would not be "
                "used: remove the tables or the flag"), a->weights, f->rope_theta);
    else
        r.rope_theta = 10000.0;  /* the folder's tables: their theta is not known, the narration uses the book's */
    return r;
}

LlamaRun llama_from_args(const Args *args, const LlamaFlags *f) {
    LlamaRun r = args->input ? from_files(args, f) : from_defaults(args, f);
    int64_t T = t_size(r.x, 1);
    if (f->decode_given && f->decode > T)
        t_error(t_tr("--decode %lld asks for more steps than the %lld positions of the sequence"), (long long)f->decode,
                (long long)T);
    int64_t prompt = T - (f->decode_given ? f->decode : 0);
    if (f->prefill_chunk > prompt)
        t_error(t_tr("--prefill-chunk %lld is longer than the %lld positions to prefill (T = %lld, --decode %lld)"),
                (long long)f->prefill_chunk, (long long)prompt, (long long)T, (long long)(T - prompt));
    return r;
}

void llama_save(const LlamaRun *r, const char *dir) {
    npy_save_in(dir, "x", r->x);                    /* (bsz, seqlen, dim)              */
    npy_save_in(dir, "wq", r->m->wq->weight);       /* (n_heads * head_dim, dim)       */
    npy_save_in(dir, "wk", r->m->wk->weight);       /* (n_kv_heads * head_dim, dim)    */
    npy_save_in(dir, "wv", r->m->wv->weight);
    npy_save_in(dir, "wo", r->m->wo->weight);       /* (dim, n_heads * head_dim)       */
    npy_save_in(dir, "freqs_cos", r->freqs.cos);    /* (seqlen, head_dim / 2)          */
    npy_save_in(dir, "freqs_sin", r->freqs.sin);
}

void llama_refuse_past_budget(const Args *a, const LlamaFlags *f) {
    char what[160];
    /* 24 (B, H, T, T), 2 L x L and one (T, T) buffer at once, 90 (B, T, dim) activations
     * (30 counted by budget_attention_module) and about 2000 floats per position of
     * max_seq_len (measured, t_peak_bytes, from T = 500 to 2000) */
    BudgetModule m = {(double)a->batch, (double)f->n_heads, (double)a->seq_len, (double)f->dim, (double)f->dim,
                      (double)a->max_seq_len, 24, a->input != NULL, 2};
    if (a->input) {
        Shape s;
        if (budget_peek(a->input, &s) && s.ndim == 3) m.B = (double)s.dims[0], m.T = (double)s.dims[1],
                                                       m.d_in = m.d_out = (double)s.dims[2];
        if (!(a->given & CLI_MAX_SEQ_LEN)) m.L = m.T;
    }
    BudgetEstimate e = budget_attention_module(&m, what, sizeof what);
    e.bytes += BUDGET_F4 * (m.T * m.T + 60 * m.B * m.T * m.d_in + 2000 * m.L);
    e.flops *= 3; /* the forward, the trap and GQA checks run it again */
    budget_refuse(&e, a->quiet);
}
