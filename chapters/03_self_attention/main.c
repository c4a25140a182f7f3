/* main.c — chapter 3: self-attention, Happy-LLM 2.1.4.
 *
 * What it shows, and the question it answers: are Q, K and V the same thing?
 * Self-attention means the sequence attends to itself, and the book writes it
 * as attention(x, x, x). Taken literally, Q = K = V = x: the scores matrix
 * x·xᵀ is symmetric, and with many features a token's largest score is
 * usually its own (try --d-in 64). Real
 * models first project the same x three ways with trainable nn.Linear layers,
 * attention(self.wq(x), self.wk(x), self.wv(x)): three different learned
 * views of one input, and the scores are no longer symmetric ("what I look
 * for" is not "what I offer").
 *
 *     build/chapter3                         random x (1, 6, 3), d_out 2
 *     build/chapter3 --bias --d-out 4        nn.Linear with biases
 *     build/chapter3 --input X.npy --weights DIR --output OUT.npy
 */
#include "common/program/program.h"
#include "chapters/03_self_attention/self_attention_setup.h"

extern const LangPair chapter3_zh[]; /* zh.c: this program's sentences in Chinese (lang.h) */

/* How far scores is from its transpose: 0 exactly when symmetric. */
static double asymmetry(const Tensor *scores) {
    return t_max_abs_diff(scores, t_transpose(scores, -2, -1));
}

/* Rows (over all batches) whose largest score is on the diagonal: the token attends most to itself. */
static int64_t self_is_max(const Tensor *scores, int64_t *rows) {
    int64_t T = t_size(scores, -2), n = 0;
    Tensor *s = t_reshape(scores, SHAPE(-1, T, T)); /* (B, T, T) */
    *rows = t_size(s, 0) * T;
    for (int64_t b = 0; b < t_size(s, 0); b++)
        for (int64_t i = 0; i < T; i++) {
            int64_t best = 0;
            for (int64_t j = 1; j < T; j++)
                if (t_get(s, b, i, j) > t_get(s, b, i, best)) best = j;
            n += best == i;
        }
    return n;
}

/* "symmetric: yes/no" and "largest score is the token itself" for one scores tensor. */
static void report_scores(const char *what, const Tensor *scores) {
    int64_t rows, self = self_is_max(scores, &rows);
    double d = asymmetry(scores);
    what = tr(what);
    narrate_result_text("%s: scores symmetric: %s (max |scores - scores^T| = %.6g)", what,
                        tr(d == 0.0 ? "yes" : "no"), d);
    narrate_result_text("%s: largest score on the token itself in %lld of %lld rows", what, (long long)self,
                        (long long)rows);
}

static void draw(const char *title, const Tensor *w, const Args *args) {
    HeatmapOptions opt = {title, NULL, NULL, args->ascii, 0, false, NULL, args->row_scale};
    heatmap_print_all(w, &opt);
}

/* ---- the steps ------------------------------------------------------------- */

static Tensor *input_from_file(const Args *args, Tensor *loaded) {
    narrate_step("Load the input x from %s", args->input);
    narrate_torch("x = torch.from_numpy(np.load(...))   # (B, T, d_in)");
    return loaded; /* (B, T, d_in), loaded before the title */
}

static Tensor *random_input(const Args *args) {
    narrate_step("A random input x: batch %lld, %lld tokens, d_in = %lld features each", (long long)args->batch,
                 (long long)args->seq_len, (long long)args->d_in);
    narrate_torch("x = torch.randn(B, T, d_in)");
    return t_randn(SHAPE(args->batch, args->seq_len, args->d_in)); /* (B, T, d_in) */
}

/* x from --input (`loaded`, before the title), or torch.randn(B, T, d_in). */
static Tensor *the_input(const Args *args, Tensor *loaded) {
    Tensor *x = args->input ? input_from_file(args, loaded) : random_input(args); /* (B, T, d_in) */
    narrate_show("x", x);
    narrate_why("one sequence of token vectors; self-attention lets every token look at every token of the "
                "same sequence.");
    return x;
}

static Attention q_k_v_are_x(const Tensor *x) {
    narrate_step("Self-attention taken literally: Q = K = V = x");
    narrate_torch("output, p_attn = attention(x, x, x)");
    Attention plain = self_attention_plain(x);
    narrate_show("scores = x·xᵀ/sqrt(d_in)", plain.scores);
    narrate_why("score[i][j] = x_i·x_j = x_j·x_i, so the matrix is symmetric: i looks at j exactly as much as j "
                "looks at i. The diagonal x_i·x_i = |x_i|² is usually the largest score of its row when x has "
                "many features (random directions are nearly orthogonal; try --d-in 64), so each token mostly "
                "attends to itself. With few features a longer vector pointing the same way can beat it.");
    report_scores("plain x,x,x", plain.scores);
    narrate_show("p_attn", plain.weights);
    narrate_show("output", plain.output);
    narrate_why("no parameters: there is nothing here that training could change.");
    return plain;
}

/* W_q, W_k, W_v: p (made before x, as a module's layers are, or loaded from --weights before the title). */
static QKVProjection *three_projections(const Args *args, QKVProjection *p, int64_t d_in) {
    if (args->input) {
        narrate_step("Load W_q, W_k, W_v from %s", args->weights);
        narrate_torch("model.load_state_dict(...)   # wq.weight (d_out, d_in), ...");
    } else {
        narrate_step("Three trainable projections: nn.Linear(d_in = %lld, d_out = %lld, bias=%s)", (long long)d_in,
                     (long long)args->d_out, args->bias ? "True" : "False");
        narrate_torch(args->bias ? "W_query = nn.Linear(d_in, d_out, bias=True)   # W_key, W_value alike"
                                 : "W_query = nn.Linear(d_in, d_out, bias=False)  # W_key, W_value alike");
        narrate_say("(drawn before x, right after torch.manual_seed(%llu), as a module's layers are)",
                    (unsigned long long)args->seed);
    }
    narrate_show("wq.weight", p->wq->weight);
    narrate_show("wk.weight", p->wk->weight);
    narrate_show("wv.weight", p->wv->weight);
    if (p->wq->bias) {
        narrate_show("wq.bias", p->wq->bias);
        narrate_show("wk.bias", p->wk->bias);
        narrate_show("wv.bias", p->wv->bias);
    }
    narrate_why("each weight is (d_out, d_in), as nn.Linear stores it (y = x·Wᵀ + b); %lld trainable numbers in "
                "all, which training adjusts so that the scores become useful.",
                (long long)qkv_num_params(p));
    return p;
}

static void project_x_three_ways(const QKVProjection *p, const Tensor *x, Tensor **xq, Tensor **xk, Tensor **xv) {
    narrate_step("Project the same x three ways");
    narrate_torch("xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)");
    qkv_project(p, x, xq, xk, xv); /* (B, T, d_out) each */
    narrate_show("xq", *xq);
    narrate_show("xk", *xk);
    narrate_show("xv", *xv);
    narrate_why("Q, K and V come from the same x but are three different tensors: xq is what a token looks "
                "for, xk what it offers to be found by, xv what it passes on.");
}

static Attention attention_on_projections(const QKVProjection *p, const Tensor *x, const Attention *plain,
                                          const Args *args) {
    narrate_step("Attention on the projections");
    narrate_torch("output, p_attn = attention(xq, xk, xv)");
    Attention a = self_attention(p, x);
    narrate_show("scores = xq·xkᵀ/sqrt(d_out)", a.scores);
    narrate_why("xq_i·xk_j is not xq_j·xk_i: the scores are no longer symmetric, and the largest score need "
                "not be the token itself. Which token attends to which is now learned.");
    report_scores("projected", a.scores);
    narrate_result("p_attn", a.weights);
    narrate_result("output", a.output);
    if (args->heatmap) {
        draw("attention(x, x, x)", plain->weights, args);
        draw("attention(xW_q, xW_k, xW_v)", a.weights, args);
    }
    return a;
}

static void are_q_k_v_the_same(void) {
    narrate_step("So: are Q, K and V the same?");
    narrate_say("Same input, three different learned views. In attention(x, x, x) they are literally the same "
                "tensor; in a Transformer they are x·W_qᵀ, x·W_kᵀ and x·W_vᵀ, three projections of one x with "
                "their own weights. 'Self' means queries, keys and values all come from the same sequence, "
                "not that they are equal.");
}

/* --dump DIR and --output FILE, only after everything above succeeded. */
static void write_outputs(const Args *args, const Tensor *x, const QKVProjection *p, Tensor *const xqkv[3],
                          const Attention *a, const Attention *plain) {
    if (args->dump) {
        npy_make_dir(args->dump);
        npy_save_in(args->dump, "x", x);  /* with wq.npy ... a run to replay */
        qkv_save(p, args->dump);
        npy_save_in(args->dump, "xq", xqkv[0]);
        npy_save_in(args->dump, "xk", xqkv[1]);
        npy_save_in(args->dump, "xv", xqkv[2]);
        npy_save_in(args->dump, "scores", a->scores);
        npy_save_in(args->dump, "attn_weights", a->weights);
        npy_save_in(args->dump, "output", a->output);
        npy_save_in(args->dump, "plain_scores", plain->scores);
        npy_save_in(args->dump, "plain_attn_weights", plain->weights);
        npy_save_in(args->dump, "plain_output", plain->output);
        narrate_say("wrote x, wq, wk, wv, xq, xk, xv, scores, attn_weights, output (and plain_*) .npy "
                    "to %s", args->dump);
    }
    if (args->output) {
        npy_save(args->output, a->output);
        narrate_say("wrote output %s", args->output);
    }
}

/* What this run holds (common/program/budget.h): refused, in one sentence,
 * before any work when it would not fit in memory. */
static void refuse_past_budget(const Args *a) {
    char what[160];
    /* 8 (B, T, T) buffers at once: both attentions' scores and weights (measured) */
    BudgetModule m = {(double)a->batch, 1, (double)a->seq_len, (double)a->d_in, (double)a->d_out, 0, 8,
                      a->input != NULL, 0};
    if (a->input) budget_peek_input(a->input, a->weights, &m.B, &m.T, &m.d_in, &m.d_out);
    BudgetEstimate e = budget_attention_module(&m, what, sizeof what);
    budget_refuse(&e, a->quiet);
}

/* The flags this run would ignore, as a usage sentence in buf (in the run's language); NULL
 * when every flag given changes the run. A flag that would change nothing is refused, not ignored. */
static const char *flags_that_change_nothing(const Args *a, char *buf, size_t len) {
    char names[128];
    unsigned files_fixed = a->given & (CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_BIAS);
    if (!a->input || !files_fixed) return NULL;
    snprintf(buf, len,
             tr("--input and --weights give x, the weights and their biases, and nothing is random; it does not "
                "take %s"),
             cli_flag_names(files_fixed, names, sizeof names));
    return buf;
}

int main(int argc, char **argv) {
    CliSpec spec = {
        .program = "chapter3",
        .summary = "Chapter 3: self-attention, attention(x, x, x) and\n"
                   "attention(xW_q, xW_k, xW_v) (Happy-LLM 2.1.4).",
        .flags = CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_BIAS | CLI_QUIET | CLI_DUMP |
                 CLI_HEATMAP | CLI_INPUT | CLI_OUTPUT,
        .defaults = {.seed = 123, .batch = 1, .seq_len = 6, .d_in = 3, .d_out = 2},
        .messages = chapter3_zh,
    };
    Args args = program_start(&spec, argc, argv);
    char unused[256];
    if (flags_that_change_nothing(&args, unused, sizeof unused)) { /* before any work or output */
        fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter3", unused);
        return EXIT_USAGE;
    }
    refuse_past_budget(&args);

    /* --input and --weights before the title: a file that does not fit is one sentence before any output */
    Tensor *x = args.input ? load_input(args.input) : NULL;                       /* (B, T, d_in) */
    QKVProjection *p = args.input ? qkv_load(args.weights, t_size(x, -1)) : NULL; /* wq wk wv [bq bk bv] */

    narrate_title("Chapter 3: self-attention (Happy-LLM 2.1.4)");
    /* PyTorch's order: the module (W_query, W_key, W_value) is built first,
     * then x is drawn, so the defaults are the numbers of
     *     torch.manual_seed(seed); W_query = nn.Linear(d_in, d_out, bias);
     *     W_key = ...; W_value = ...; x = torch.randn(B, T, d_in)        */
    if (!args.input) p = qkv_new(args.d_in, args.d_out, args.bias);
    x = the_input(&args, x);
    Attention plain = q_k_v_are_x(x);
    p = three_projections(&args, p, t_size(x, -1));
    Tensor *xqkv[3]; /* xq, xk, xv: (B, T, d_out) each */
    project_x_three_ways(p, x, &xqkv[0], &xqkv[1], &xqkv[2]);
    Attention a = attention_on_projections(p, x, &plain, &args);
    are_q_k_v_the_same();
    write_outputs(&args, x, p, xqkv, &a, &plain);
    t_scope_end();
    return EXIT_OK;
}
