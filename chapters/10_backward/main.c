/* main.c — chapter 10: the backward pass by hand, checked, and a model that learns to attend.
 *
 * Three runs of one program:
 *
 *     build/chapter10               chapter 7's module on a small input: y = model(x),
 *                                   loss = (y * dy).sum(), then every backward step
 *                                   with its PyTorch line and shapes, and the gradient
 *                                   check table (float64 central differences, exit 1
 *                                   when a tensor is outside the tolerance)
 *     build/chapter10 --input X.npy --weights DIR --heads H --grad-output DY.npy --dump OUT
 *                                   eval mode; writes OUT/grad_x.npy, grad_wq.npy, ...,
 *                                   equal to torch.autograd on chapter 7's module
 *     build/chapter10 --train       a tiny causal model learns "output the token two
 *                                   places back"; the attention heatmap before and after,
 *                                   and `final accuracy: A%` on held-out sequences
 *
 * The flags --grad-output, --train, --steps and --lr are this chapter's own (the
 * CliExtra entries below): the shared parser reads them with the others and
 * --help lists them.
 */
#include <stdio.h>
#include <string.h>

#include "chapters/05_multi_head/multi_head_setup.h"
#include "chapters/07_output_projection/mha_setup.h"
#include "grad_check.h"
#include "train.h"
#include "train_setup.h"
#include "common/program/budget.h" /* budget_progress_shown: the progress line only on a terminal */

extern const LangPair chapter10_zh[]; /* zh.c: this program's sentences in Chinese (lang.h) */
extern const LangPair chapter7_zh[];  /* chapter 7's, for the module it loads (mha_from_args) */

/* ---- this chapter's flags: the defaults, then the values given ---------------------- */

static const char *grad_output_file;   /* --grad-output FILE: dloss/dy for the module from files */
static bool train_mode;                /* --train                                               */
static int64_t train_steps = 400;      /* --steps N                                             */
static double train_lr = 0.001;        /* --lr X                                                */

static const CliExtra chapter10_flags[] = {
    {.name = "--grad-output", .metavar = "FILE", .kind = CLI_EXTRA_TEXT, .value = &grad_output_file,
     .help = "dloss/dy .npy (B, T, d_out) for --input (default: ones)"},
    {.name = "--train", .kind = CLI_EXTRA_FLAG, .value = &train_mode, .help = "train the tiny model (see above)"},
    {.name = "--steps", .metavar = "N", .kind = CLI_EXTRA_INT, .value = &train_steps, .help = "training steps",
     .min = 1, .max = 1000000},
    {.name = "--lr", .metavar = "X", .kind = CLI_EXTRA_REAL, .value = &train_lr, .help = "Adam learning rate",
     .min = 0, .max = 1e308, .min_exclusive = true},
    {.name = NULL}};

/* The tiny model of --train (run 2 below): its task fixes these. */
enum { VOCAB = 8, SEQ_LEN = 8, DIM = 32, BATCH = 32, N_TRAIN = 2048, N_HELD = 512, N_SNAPSHOTS = 6 };

/* The flags that do not go together, as a usage sentence in buf (in the run's language);
 * NULL when they are fine. A flag that would change nothing is refused, not ignored. */
static const char *flags_that_clash(const CliSpec *spec, const Args *args, char *buf, size_t len) {
    char names[128];
    /* what --train's model and --input's module fix themselves (--input: --seq-len sets
     * max_seq_len, --causal and --heads are chapter 7's, --eval is what runs anyway) */
    unsigned train_fixed = args->given & (CLI_BATCH | CLI_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_BIAS | CLI_DROPOUT |
                                          CLI_EVAL);
    unsigned files_fixed = args->given & (CLI_BATCH | CLI_D_IN | CLI_D_OUT | CLI_BIAS | CLI_DROPOUT | CLI_SEED);
    if (train_mode && (args->input || args->output))
        snprintf(buf, len, "%s", tr("--train trains its own model; it does not take --input, --weights or --output"));
    else if (train_mode && !args->causal)
        snprintf(buf, len, "%s", tr("--train's tiny model is causal; it does not take --no-causal"));
    else if (train_mode && train_fixed)
        snprintf(buf, len,
                 tr("--train's tiny model has its own sizes and settings (batch %d, %d tokens, width %d, no dropout, "
                    "no biases on W_q, W_k, W_v); it does not take %s (--heads, --steps, --lr and --seed change it)"),
                 BATCH, SEQ_LEN, DIM, cli_flag_names(train_fixed, names, sizeof names));
    else if (args->input && files_fixed)
        snprintf(buf, len,
                 tr("--input and --weights give the module's sizes and biases, and it runs in eval mode with "
                    "nothing random; it does not take %s"),
                 cli_flag_names(files_fixed, names, sizeof names));
    else if (grad_output_file && !args->input)
        snprintf(buf, len, "%s", tr("--grad-output needs --input and --weights (the module it is the gradient for)"));
    else if (!train_mode && (cli_extra_given(spec, args, "--steps") || cli_extra_given(spec, args, "--lr")))
        snprintf(buf, len, "%s", tr("--steps and --lr go with --train"));
    else if (train_mode && args->heatmap && !args->quiet && !args->ascii && !args->row_scale)
        snprintf(buf, len, "%s", tr("--train draws its heatmaps without --heatmap; it takes --heatmap only with "
                                    "--quiet, which would leave them out"));
    else
        return NULL;
    return buf;
}

/* ---- run 1: the narrated backward and the gradient check ----------------------------- */

/* With --input/--weights, before the title: chapter 7's module and x, and dy = dloss/dy from
 * --grad-output (NULL without it), loaded and checked, so a file that does not fit is one sentence
 * before any output. NULL without --input. */
static MultiHeadAttention *files_before_title(const Args *args, Tensor **x, Tensor **dy) {
    char s1[T_SHAPE_STR];
    MultiHeadAttention *m = mha_files_before_title(args, x);   /* chapter 7's: x (B, T, d_in), the module */
    *dy = NULL;
    if (!m || !grad_output_file) return m;
    int64_t B = (*x)->shape[0], T = (*x)->shape[1], d_out = m->args.d_out;
    *dy = npy_load(grad_output_file);
    if ((*dy)->ndim != 3 || (*dy)->shape[0] != B || (*dy)->shape[1] != T || (*dy)->shape[2] != d_out)
        t_error(tr("%s has shape %s but the output y is (B, T, d_out) = (%lld, %lld, %lld): --grad-output "
                   "must be dloss/dy, the shape of y"),
                grad_output_file, t_shape_str(*dy, s1), (long long)B, (long long)T, (long long)d_out);
    return m;
}

/* Step 1 with --input/--weights: chapter 7's module and x (`loaded`, files_before_title's), in eval
 * mode, and dy = dloss/dy from --grad-output (loaded there too; ones without it). */
static MultiHeadAttention *module_from_files(const Args *args, MultiHeadAttention *loaded, Tensor **x,
                                             Tensor **dy) {
    MultiHeadAttention *m = mha_from_args(args, loaded, x);   /* chapter 7's loading (its step) */
    mha_eval(m);   /* model.eval(): gradients of the deterministic module, as autograd sees it */
    narrate_torch("model.eval(); x.requires_grad_(True)");
    if (args->eval) narrate_say("(--eval changes nothing here: the gradients are those of eval mode)");
    int64_t B = (*x)->shape[0], T = (*x)->shape[1], d_out = m->args.d_out;
    if (!*dy) {
        *dy = t_ones(SHAPE(B, T, d_out));   /* (B, T, d_out) */
        narrate_say("no --grad-output: dy = ones, that is loss = y.sum()");
        return m;
    }
    narrate_say("dy = dloss/dy from %s: loss = (y * dy).sum()", grad_output_file);
    return m;
}

/* Step 1 of the default run: chapter 7's module and x from the seed, then a random dy. */
static MultiHeadAttention *module_from_seed(const Args *args, Tensor **x, Tensor **dy) {
    MultiHeadAttention *m = mha_from_args(args, NULL, x);   /* chapter 7's default run: seed, the class, then x */
    if (args->eval) mha_eval(m);
    narrate_step("Chapter 7's module, a small input and a gradient for its output");
    narrate_torch_seed(args->seed);
    narrate_torch("model = MultiHeadAttention(d_in, d_out, max_seq_len, dropout, heads)");
    narrate_torch("x = torch.randn(batch, seq_len, d_in, requires_grad=True)");
    narrate_torch("dy = torch.randn(batch, seq_len, d_out)   # loss = (y * dy).sum()");
    *dy = t_randn(SHAPE(args->batch, args->seq_len, args->d_out));   /* (B, T, d_out) */
    narrate_why("any loss reaches the module only through dloss/dy; (y * dy).sum() is the loss whose "
                "dloss/dy is exactly dy, so one random dy tests every path.");
    return m;
}

static void say_module(const MultiHeadAttention *m) {
    const ModelArgs *a = &m->args;
    narrate_say("d_in = %lld, d_out = %lld, n_heads = %lld, head_dim = %lld, causal = %s, qkv_bias = %s, "
                "out bias = %s, dropout = %g (%s)",
                (long long)a->d_in, (long long)a->d_out, (long long)a->n_heads, (long long)m->head_dim,
                a->causal ? "True" : "False", a->qkv_bias ? "True" : "False", a->out_bias ? "True" : "False",
                a->dropout, tr(m->attn_dropout.training && a->dropout > 0.0 ? "training" : "off"));
}

/* Step 2: chapter 7's forward, keeping what the backward reads; loss = (y * dy).sum(). */
static Tensor *forward_keeping_activations(const Args *args, const MultiHeadAttention *m, const Tensor *x,
                                           const Tensor *dy, MhaCache *cache) {
    Tensor *y = mha_forward_cached(m, x, cache);   /* chapter 7's forward, (B, T, d_out) */
    double loss = 0.0;
    for (int64_t i = 0; i < t_numel(y); i++) loss += (double)t_flat_get(y, i) * (double)t_flat_get(dy, i);
    narrate_step("Forward (chapter 7), keeping the activations");
    narrate_torch("y = model(x, x, x); loss = (y * dy).sum()");
    narrate_show("y", y);
    narrate_say("loss = %.6f", loss);
    if (args->heatmap) {   /* with --quiet too, as in chapters 1-7: the heatmap is what was asked for */
        HeatmapOptions opt = {0};
        opt.title = "attention weights (forward)";
        opt.ascii = args->ascii;
        opt.row_scale = args->row_scale;   /* --row-scale: each row on its own min..max */
        opt.scores = cache->trace.scores;   /* (B, H, T, T) after the mask: -inf is drawn '·' */
        heatmap_print_all(cache->trace.attn_weights, &opt);   /* one grid per (batch, head) */
    }
    narrate_why("like llm.c's train_gpt2.c, the forward keeps xq, xk, xv, the weights before and after "
                "dropout, the merged heads and the dropout masks: each backward step below reads them.");
    return y;
}

/* Steps 3-6 say what mha_backward() did, from the output back to x. */
static void step_output_projection(const MhaGrads *g) {
    char s1[T_SHAPE_STR], s2[T_SHAPE_STR];
    narrate_step("resid_dropout and W_o: the backward of nn.Linear");
    narrate_torch("output = self.resid_dropout(self.wo(output))");
    narrate_say("dprojected = dy: resid_dropout is off in this chapter (--resid-dropout does not apply), so "
                "its backward passes dy through unchanged");
    narrate_say("wo.weight.grad = dprojected.T @ merged: %s   merged.grad = dprojected @ wo.weight: %s",
                t_shape_str(g->dwo, s1), t_shape_str(g->dmerged, s2));
    if (g->dbo) narrate_say("wo.bias.grad = dprojected.sum over (B, T): %s", t_shape_str(g->dbo, s1));
    narrate_show("wo.weight.grad", g->dwo);
    narrate_why("y = x W^T + b: every output feature o got x · W[o], so W[o] collects dy[o] * x over every "
                "token, x collects dy[o] * W[o] over every o, and b collects dy[o]. Each gradient has the shape "
                "of what it belongs to.");
}

static void step_merge_and_weighted_sum(const MhaGrads *g) {
    char s1[T_SHAPE_STR], s2[T_SHAPE_STR];
    narrate_step("Merge heads, then @ xv: the backward of a view and of a matmul");
    narrate_torch("output = torch.matmul(scores, xv)");
    narrate_torch("output = output.transpose(1, 2).contiguous().view(b, t, -1)");
    narrate_say("the merge's backward is a split: %s -> %s", t_shape_str(g->dmerged, s1),
                t_shape_str(g->doutput, s2));
    narrate_say("c = a @ b gives a.grad = dc @ b.T and b.grad = a.T @ dc: dattn_dropped %s, dxv %s",
                t_shape_str(g->dattn_dropped, s1), t_shape_str(g->dxv, s2));
    narrate_why("a view or transpose moves no numbers, so its backward moves the gradient back the same "
                "way; a matmul's backward is two matmuls with the other operand transposed.");
}

static void step_dropout_and_softmax(const MultiHeadAttention *m, const MhaGrads *g) {
    narrate_step("attn_dropout and softmax");
    narrate_torch("scores = F.softmax(scores, dim=-1)");
    narrate_torch("scores = self.attn_dropout(scores)");
    narrate_say("dweights = dattn_dropped * mask, the mask the forward drew (0 where dropped, 1/(1-p) where "
                "kept), then");
    narrate_say("dscores = P * (dP - (dP * P).sum(-1, keepdim=True))");
    narrate_show("dscores", g->dscores);
    narrate_why("softmax ties a row together: raising one score lowers every other weight, so each "
                "dscores entry is its own dP minus the row's weighted mean of dP. Each row of dscores sums "
                "to 0, so adding one number to a whole row changes nothing: that is why the max F.softmax "
                "subtracts needs no gradient (softmax(s - c) = softmax(s) for any c). %s",
                m->args.causal ? tr("Masked entries have P = 0, so they get 0: the additive mask passes the "
                                    "gradient through unchanged and, as a buffer, gets none itself.")
                               : "");
}

static void step_scores_and_projections(const MultiHeadAttention *m, const MhaGrads *g) {
    char s1[T_SHAPE_STR], s2[T_SHAPE_STR];
    narrate_step("The 1/sqrt(d_k) scale, QK^T, the split, and W_q, W_k, W_v");
    narrate_torch("scores = torch.matmul(xq, xk.transpose(2, 3))");
    narrate_torch("scores = scores / math.sqrt(self.head_dim)");
    narrate_say("draw = dscores / sqrt(%lld); dxq = draw @ xk %s; dxk = draw.T @ xq %s", (long long)m->head_dim,
                t_shape_str(g->dxq, s1), t_shape_str(g->dxk, s2));
    narrate_say("split's backward is a merge; then three nn.Linear backwards, and x.grad = the sum of "
                "the three: %s", t_shape_str(g->dx, s1));
    narrate_show("x.grad", g->dx);
    narrate_why("x was used three times (wq, wk and wv all read it), so autograd adds the three "
                "gradients that reach it; forgetting one is the classic hand-written backward bug.");
}

static void print_table(const GradCheckRow *rows, int n, double tol) {
    printf(tr("    tensor   numel   max |grad|   max |bw - fd|   max rel err   within %.0e\n"), tol);
    for (int i = 0; i < n; i++)
        printf("    %-6s %7lld   %10.4g   %13.3g   %11.3g   %s\n", rows[i].name, (long long)rows[i].numel,
               rows[i].max_abs_grad, rows[i].max_abs_err, rows[i].max_rel_err,
               tr(rows[i].max_rel_err <= tol ? "yes" : "NO"));
}

/* Step 7: float64 central differences against the backward; exit 1 when a tensor is outside. */
static void step_gradient_check(const MultiHeadAttention *m, const MhaCache *cache, const Tensor *dy,
                                const MhaGrads *g) {
    const double h = GRAD_CHECK_STEP, tol = GRAD_CHECK_TOL;
    GradCheckRow rows[9];
    int n = grad_check_grads(m, cache, dy, g, h, rows);   /* the masks of this forward, too */
    narrate_step("Gradient check: float64 central differences for every entry");
    narrate_torch("def f(x, *w): torch.manual_seed(S); "
                  "return functional_call(model.double(), dict(zip(names, w)), (x,))");
    narrate_torch(tr("torch.autograd.gradcheck(f, (x.double(), *params))   # the same dropout masks every call"));
    narrate_say("the reference is chapter 7's forward again, on double arrays (grad_check.c): for "
                "every number v of x and of every parameter, (loss(v + h) - loss(v - h)) / 2h with "
                "h = %g (gradcheck's default eps), all in float64, the dropout masks this forward drew held fixed. It is "
                "compared with the float32 backward above. Relative error = max |backward - fd| / "
                "max(1, max |fd|): relative to the tensor's largest gradient, absolute below 1.",
                h);
    double worst = grad_check_worst(rows, n);
    if (!narrate_quiet()) print_table(rows, n, tol);
    if (m->args.qkv_bias)
        narrate_say("bk's gradient is 0 (up to rounding): adding one vector b to every key adds q . b to "
                    "a whole row of scores, and softmax does not change when a row is shifted.");
    narrate_why("gradcheck is meant for double inputs (in float32, its docs say, it will "
                "likely fail). In float64 the differences are good to about 1e-9 (h^2 of "
                "truncation, 1e-16 x |loss| / h of rounding), so the table shows the float32 backward's own rounding: a few units "
                "of float32's 6e-8. Rounding grows with the length of the sums, so the tolerance "
                "%.0e leaves room for bigger modules and is still 100 times below a gradient that "
                "is 1%% off. tests/test_ch10.c also checks the gradients against torch.autograd "
                "to 1e-4.",
                tol);
    narrate_result_text("gradient check: %d tensors, worst relative error %.3g (%s %g)", n, worst,
                        tr(worst <= tol ? "within" : "NOT within"), tol);
    if (!(worst <= tol)) t_error(tr("gradient check failed: relative error %.3g is above %g"), worst, tol);
}

/* The results: printed under --quiet, written with --dump DIR and --output FILE. */
static void save_results(const Args *args, const MhaGrads *g, const Tensor *y) {
    if (narrate_quiet()) {
        narrate_result("grad_x", g->dx);
        narrate_result("grad_wq", g->dwq);
        narrate_result("grad_wo", g->dwo);
    }
    if (args->dump) {
        /* everything is computed before the first file is written */
        const char *dir = args->dump;
        npy_make_dir(dir);
        npy_save_in(dir, "grad_x", g->dx);     /* (B, T, d_in)   */
        npy_save_in(dir, "grad_wq", g->dwq);   /* (d_out, d_in)  */
        npy_save_in(dir, "grad_wk", g->dwk);
        npy_save_in(dir, "grad_wv", g->dwv);
        npy_save_in(dir, "grad_wo", g->dwo);   /* (d_out, d_out) */
        if (g->dbq) npy_save_in(dir, "grad_bq", g->dbq);   /* (d_out,) */
        if (g->dbk) npy_save_in(dir, "grad_bk", g->dbk);
        if (g->dbv) npy_save_in(dir, "grad_bv", g->dbv);
        if (g->dbo) npy_save_in(dir, "grad_bo", g->dbo);
    }
    if (args->output) npy_save(args->output, y);   /* y = model(x), (B, T, d_out), as chapter 7 writes it */
}

static int run_backward(const Args *args) {
    Tensor *x, *dy;   /* (B, T, d_in), (B, T, d_out) */
    bool from_files = args->input != NULL;
    MultiHeadAttention *loaded = files_before_title(args, &x, &dy);   /* --input, --weights; else NULL */
    narrate_title("Chapter 10: the backward pass of MultiHeadAttention, by hand");
    MultiHeadAttention *m = from_files ? module_from_files(args, loaded, &x, &dy)
                                       : module_from_seed(args, &x, &dy);
    say_module(m);
    MhaCache cache;
    Tensor *y = forward_keeping_activations(args, m, x, dy, &cache);   /* (B, T, d_out) */
    MhaGrads g = mha_backward(m, &cache, dy);                          /* loss.backward() */
    step_output_projection(&g);
    step_merge_and_weighted_sum(&g);
    step_dropout_and_softmax(m, &g);
    step_scores_and_projections(m, &g);
    if (!from_files) step_gradient_check(m, &cache, dy, &g);   /* with files, tests compare with autograd */
    save_results(args, &g, y);
    return 0;
}

/* ---- run 2: training ------------------------------------------------------------------ */

static const char *const TOKEN_NAMES[VOCAB] = {"A", "B", "C", "D", "E", "F", "G", "H"};

/* n sequences of uniform tokens from r; with `avoid` (n_avoid of them), a sequence equal to one of
 * those is drawn again, so the held-out set shares no sequence with the training set. */
static int32_t *make_sequences(Rng *r, int64_t n, const int32_t *avoid, int64_t n_avoid) {
    int32_t *s = (int32_t *)t_alloc(sizeof(int32_t) * (size_t)(n * SEQ_LEN));
    for (int64_t i = 0; i < n; i++) {
        bool again;
        do {
            for (int t = 0; t < SEQ_LEN; t++) s[i * SEQ_LEN + t] = (int32_t)rng_randint(r, 0, VOCAB);
            again = false;
            for (int64_t j = 0; j < n_avoid && !again; j++)
                again = !memcmp(s + i * SEQ_LEN, avoid + j * SEQ_LEN, sizeof(int32_t) * SEQ_LEN);
        } while (again);
    }
    return s;
}

/* Steps 1 and 2: the task and the model. */
static void say_task_and_model(const Args *args, const ParamList *params) {
    int64_t n_params = 0;
    for (int i = 0; i < params->n; i++) n_params += t_numel(params->params[i]);
    narrate_step("The task: output the token two places back");
    narrate_say("sequences of %d tokens from {A..H}; at position t >= 2 the answer is the token at t - 2. "
                "%d training sequences, %d held-out ones (none of them in the training set).",
                SEQ_LEN, N_TRAIN, N_HELD);
    narrate_why("no token says what came two places before it: position t has to look at position t - 2. "
                "The attention weights that solve it are a stripe two below the diagonal.");
    narrate_step("The model: embeddings, chapter 7's attention, a linear head (%lld parameters)",
                 (long long)n_params);
    narrate_torch("x = tok_emb(idx) + pos_emb(torch.arange(T))");
    narrate_torch(tr("logits = head(attn(x))        # attn: chapter 7, causal"));
    narrate_torch("loss = F.cross_entropy(logits[:, 2:].reshape(-1, 8), idx[:, :-2].reshape(-1))");
    narrate_torch(tr("loss.backward(); opt.step()   # by hand; Adam"));
    narrate_say("dim %d, %lld heads, batch %d, Adam lr %g, %lld steps, seed %llu", DIM, (long long)args->heads,
                BATCH, train_lr, (long long)train_steps, (unsigned long long)args->seed);
}

/* What training leaves for the heatmaps, the log and --dump. */
typedef struct {
    Tensor *snaps;        /* (N_SNAPSHOTS, H, T, T): held-out sequence 0's attention */
    Tensor *snap_steps;   /* (N_SNAPSHOTS,): the step of each snapshot              */
    int n_snaps;
    Tensor *losses;       /* (n, 2): step, loss                                     */
    int n_logs;
} TrainingRecord;

/* The attention weights of held-out sequence 0 now, as the next snapshot. */
static void snapshot_attention(const TinyModel *model, const int32_t *held, int64_t step, TrainingRecord *rec) {
    TinyCache hc;
    tiny_forward(model, held, 1, &hc);
    t_copy_(t_select(rec->snaps, 0, rec->n_snaps), t_select(hc.attn.trace.attn_weights, 0, 0));
    t_set(rec->snap_steps, (float)step, rec->n_snaps);
    rec->n_snaps++;
}

/* One step: a batch drawn with the data generator, forward, loss, backward by hand, Adam. */
static double train_one_step(TinyModel *model, Adam *opt, const int32_t *train, Rng *data, int64_t step,
                             bool progress) {
    int32_t batch[BATCH * SEQ_LEN];
    for (int b = 0; b < BATCH; b++)
        memcpy(batch + b * SEQ_LEN, train + rng_randint(data, 0, N_TRAIN) * SEQ_LEN, sizeof(int32_t) * SEQ_LEN);
    TinyCache c;
    Tensor *logits = tiny_forward(model, batch, BATCH, &c);   /* (B, T, vocab) */
    Tensor *dlogits;
    double loss = task_loss(logits, batch, &dlogits);
    if (progress) fprintf(stderr, "\r%60s\r", "");   /* clear the progress line before anything prints */
    if (!isfinite(loss))
        t_error(tr("training stopped at step %lld: the loss is %s; the learning rate %g is too large "
                   "(try a smaller --lr)"), (long long)(step + 1), isnan(loss) ? "NaN" : tr("infinite"), train_lr);
    ParamList grads = tiny_backward(model, &c, dlogits);     /* loss.backward() */
    adam_step(opt, &grads);                                  /* optimizer.step() */
    return loss;
}

/* Step 3: train_steps steps, a loss line every 1/20 of them, N_SNAPSHOTS attention snapshots. */
static TrainingRecord train_model(const Args *args, TinyModel *model, Adam *opt, const int32_t *train,
                                  const int32_t *held, Rng *data) {
    bool progress = !args->quiet && budget_progress_shown(); /* stderr is a terminal */
    int64_t snap_every = train_steps / (N_SNAPSHOTS - 1) > 0 ? train_steps / (N_SNAPSHOTS - 1) : 1;
    int64_t log_every = train_steps >= 20 ? train_steps / 20 : 1;
    TrainingRecord rec = {t_zeros(SHAPE(N_SNAPSHOTS, args->heads, SEQ_LEN, SEQ_LEN)), t_zeros(SHAPE(N_SNAPSHOTS)),
                          0, t_zeros(SHAPE(train_steps / log_every + 2, 2)), 0};
    for (int64_t step = 0; step <= train_steps; step++) {
        t_scope_begin();
        if ((step % snap_every == 0 || step == train_steps) && rec.n_snaps < N_SNAPSHOTS)
            snapshot_attention(model, held, step, &rec);
        if (step == train_steps) {
            t_scope_end();
            break;
        }
        double loss = train_one_step(model, opt, train, data, step, progress);
        if (step % log_every == 0 || step + 1 == train_steps) {
            t_set(rec.losses, (float)(step + 1), rec.n_logs, 0);
            t_set(rec.losses, (float)loss, rec.n_logs, 1);
            rec.n_logs++;
            if (!args->quiet) printf(tr("    step %5lld   loss %.4f\n"), (long long)(step + 1), loss);
        }
        if (progress)
            fprintf(stderr, tr("\r    training: step %lld/%lld, loss %.4f "), (long long)(step + 1),
                    (long long)train_steps, loss);
        t_scope_end();
    }
    if (progress) fprintf(stderr, "\r%60s\r", "");
    return rec;
}

static void show_heatmap(const Tensor *weights, const int32_t *seq, const char *title, const Args *args) {
    static char labels[SEQ_LEN][16];
    const char *names[SEQ_LEN];
    for (int t = 0; t < SEQ_LEN; t++) {
        snprintf(labels[t], sizeof labels[t], "%d:%s", t, TOKEN_NAMES[seq[t]]);
        names[t] = labels[t];
    }
    HeatmapOptions opt = {0};
    opt.title = title;
    opt.rows = names;
    opt.cols = names;
    opt.ascii = args->ascii;
    opt.row_scale = args->row_scale;   /* --row-scale: each row on its own min..max */
    /* the tiny model is causal: torch.triu(torch.full((T, T), float("-inf")), diagonal=1) */
    opt.scores = t_triu(t_full(t_shape(weights), -INFINITY), 1);
    heatmap_print_all(weights, &opt);   /* (1, H, T, T): one grid per head */
}

/* Steps 4 and 5: the attention before and after, and the held-out numbers; on_target[h] gets
 * head h's mean weight on t - 2. Returns the held-out accuracy. */
static double show_what_was_learned(const Args *args, const TinyModel *model, const int32_t *held,
                                    const TrainingRecord *rec, double *on_target) {
    TinyCache hc;
    Tensor *logits = tiny_forward(model, held, N_HELD, &hc);
    double acc = task_accuracy(logits, held, N_HELD);
    double held_loss = task_loss(logits, held, NULL);
    task_attention_on_target(hc.attn.trace.attn_weights, on_target);

    narrate_step("Attention before training (held-out sequence 0)");
    bool draw = !args->quiet || args->heatmap;   /* --quiet --heatmap keeps the heatmaps, as in chapters 1-7 */
    if (draw) show_heatmap(t_slice(rec->snaps, 0, 0, 1), held, "before training", args);
    narrate_step("Attention after training (the same sequence)");
    if (draw)
        show_heatmap(t_slice(rec->snaps, 0, rec->n_snaps - 1, rec->n_snaps), held, "after training", args);
    narrate_why("row t is the query at position t; the ink two columns left of the diagonal is t looking "
                "at t - 2, the token it has to output.");
    for (int64_t h = 0; h < args->heads; h++)
        narrate_result_text("head %lld: mean attention weight on position t - 2: %.3f", (long long)h,
                            on_target[h]);
    narrate_result_text("held-out loss: %.4f", held_loss);
    return acc;
}

/* --dump DIR: the loss curve and the snapshots, for make plots. */
static void save_training(const char *dir, const TrainingRecord *rec, const int32_t *held, const double *on_target,
                          int64_t heads) {
    npy_make_dir(dir);
    npy_save_in(dir, "loss", t_slice(rec->losses, 0, 0, rec->n_logs));           /* (n, 2): step, loss */
    npy_save_in(dir, "attn_snapshots", t_slice(rec->snaps, 0, 0, rec->n_snaps));  /* (K, H, T, T) */
    npy_save_in(dir, "snapshot_steps", t_slice(rec->snap_steps, 0, 0, rec->n_snaps));
    Tensor *seq = t_zeros(SHAPE(SEQ_LEN));
    for (int t = 0; t < SEQ_LEN; t++) t_set(seq, (float)held[t], t);
    npy_save_in(dir, "tokens", seq);                                               /* (T,) ids of sequence 0 */
    Tensor *tgt = t_zeros(SHAPE(heads));
    for (int64_t h = 0; h < heads; h++) t_set(tgt, (float)on_target[h], h);
    npy_save_in(dir, "attn_on_target", tgt);                                       /* (H,) held-out mean */
}

static int run_train(const Args *args) {
    head_dim_of(DIM, args->heads);   /* DIM must split into the heads: the sentence before anything runs */
    narrate_title("Chapter 10: a tiny model learns to attend (training with the backward by hand)");
    TinyModel *model = tiny_model_new(VOCAB, SEQ_LEN, DIM, args->heads);   /* the global generator, seeded */
    ParamList params = tiny_params(model);
    Adam *opt = adam_new(&params, train_lr);
    Rng data;   /* the data's own generator, from the same seed */
    rng_seed(&data, args->seed);
    int32_t *train = make_sequences(&data, N_TRAIN, NULL, 0);
    int32_t *held = make_sequences(&data, N_HELD, train, N_TRAIN);
    say_task_and_model(args, &params);
    TrainingRecord rec = train_model(args, model, opt, train, held, &data);
    double on_target[64] = {0};
    double acc = show_what_was_learned(args, model, held, &rec, on_target);
    if (args->dump) {
        save_training(args->dump, &rec, held, on_target, args->heads);
        tiny_model_save(model, args->dump);   /* the model itself: chapter 11 generates with it */
    }
    printf("final accuracy: %.1f%%\n", 100.0 * acc);
    return 0;
}

/* What this run holds (common/program/budget.h): refused, in one sentence, before any
 * work when it would not fit in memory. The backward keeps chapter 7's forward (its
 * cache) and adds a gradient of each: SCORE_BUFFERS (B, H, T, T) and MASK_BUFFERS
 * L x L buffers at once (measured, t_peak_bytes). Without files the gradient check
 * runs chapter 7's forward twice in float64 for every number of x and of the
 * parameters: the long-run notice counts that work. */
#define SCORE_BUFFERS 11
#define MASK_BUFFERS 2
static void refuse_past_budget(const Args *a) {
    char what[160];
    if (train_mode) { /* a tiny model of fixed size: about 10 MiB however long it trains */
        BudgetEstimate e = {.bytes = 16.0 * 1024 * 1024, .largest = 1024.0 * 1024,
                            .what = tr("the tiny model's training"), .flag = "--steps"};
        budget_refuse(&e, a->quiet);
        return;
    }
    BudgetModule m = {.B = (double)a->batch, .H = (double)a->heads, .T = (double)a->seq_len, .d_in = (double)a->d_in,
                      .d_out = (double)a->d_out, .score_buffers = SCORE_BUFFERS, .from_files = a->input != NULL,
                      .mask_buffers = a->causal ? MASK_BUFFERS : 0};
    if (a->input) budget_peek_input(a->input, a->weights, &m.B, &m.T, &m.d_in, &m.d_out);
    m.L = a->input ? m.T : 2 * m.T; /* chapter 7's max_seq_len */
    /* the (B, H, T, T) scores alone past the limit: chapter 5's sentence, before any work */
    check_scores_fit((int64_t)m.B, (int64_t)m.H, (int64_t)m.T, (int64_t)m.T);
    BudgetEstimate e = budget_attention_module(&m, what, sizeof what);
    e.flops *= 3; /* the forward, the backward (about twice the forward) */
    if (!a->input) {
        double entries = m.B * m.T * m.d_in + 3 * m.d_in * m.d_out + m.d_out * m.d_out + 4 * m.d_out;
        double forward = 6 * m.B * m.T * m.d_in * m.d_out + 4 * m.B * m.T * m.T * m.d_out +
                         2 * m.B * m.T * m.d_out * m.d_out + 5 * m.B * m.H * m.T * m.T;
        e.flops += 2 * entries * forward;
        e.bytes += BUDGET_F4 * 6 * m.B * m.H * m.T * m.T; /* its float64 scores and weights */
    }
    budget_refuse(&e, a->quiet);
}

int main(int argc, char **argv) {
    CliSpec spec = {
        .program = "chapter10",
        .summary = "Chapter 10: the backward pass of chapter 7's MultiHeadAttention by hand, a\n"
                   "gradient check, and a tiny model that learns to attend. Default: a small module\n"
                   "(batch 2, seq 4, d_in 6, d_out 4, 2 heads, dropout 0.1, training mode, causal),\n"
                   "loss = (y * dy).sum() with a random dy, every backward step, and the float64\n"
                   "finite-difference check table.\n"
                   "With --input/--weights (eval mode, as chapter 7): gradients of chapter 7's\n"
                   "module for dy from --grad-output; --dump DIR writes grad_x.npy grad_wq.npy\n"
                   "grad_wk.npy grad_wv.npy grad_wo.npy and grad_b?.npy for each bias in the\n"
                   "weights folder; --output FILE writes y = model(x) as chapter 7 does.\n"
                   "With --train: a tiny causal model learns 'output the token two places back';\n"
                   "it ends with 'final accuracy: A%' on held-out sequences; --dump DIR writes the\n"
                   "loss curve and attention snapshots (make plots) and the model, which\n"
                   "build/chapter11 --generate DIR reads.",
        .flags = CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_HEADS | CLI_DROPOUT | CLI_EVAL |
                 CLI_CAUSAL | CLI_BIAS | CLI_QUIET | CLI_DUMP | CLI_HEATMAP | CLI_INPUT | CLI_OUTPUT,
        .defaults = {.seed = 123, .batch = 2, .seq_len = 4, .d_in = 6, .d_out = 4, .heads = 2, .dropout = 0.1,
                     .causal = true},
        .extra = chapter10_flags,
        .messages = chapter10_zh, /* zh.c: the narration in Chinese (--lang zh) */
        .weights_help = "folder with wq wk wv wo.npy (bq bk bv bo: optional)",
    };
    lang_add(chapter5_zh); /* chapters 5 and 7's steps (the files' input) in Chinese too */
    lang_add(chapter7_zh);
    Args args = program_start(&spec, argc, argv);
    char clash_buf[512];
    const char *clash = flags_that_clash(&spec, &args, clash_buf, sizeof clash_buf);
    if (clash) {
        fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter10", clash);
        return EXIT_USAGE;
    }
    refuse_past_budget(&args); /* before any work: memory */
    int rc = train_mode ? run_train(&args) : run_backward(&args);
    t_scope_end();
    return rc;
}
