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
 * The flags --grad-output, --train, --steps and --lr are this chapter's own: they
 * are taken out of argv here, and common/cli.c parses the rest.
 */
#define _POSIX_C_SOURCE 200809L   /* isatty, fileno: the progress line only on a terminal */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chapters/07_output_projection/mha_setup.h"
#include "grad_check.h"
#include "train.h"

/* ---- this chapter's flags ------------------------------------------------------ */

typedef struct {
    const char *grad_output;   /* --grad-output FILE */
    bool train;                /* --train            */
    int64_t steps;             /* --steps N          */
    double lr;                 /* --lr X             */
    bool steps_given, lr_given;
} Extra;

enum { TRAIN_STEPS = 400, MAX_STEPS = 1000000 };
#define TRAIN_LR 0.001

static void usage_error(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "chapter10: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, " (see --help)\n");
    exit(EXIT_USAGE);
}

/* Remove --grad-output/--train/--steps/--lr (also --name=value) from argv. */
static Extra take_extra_flags(int *argc, char **argv) {
    Extra e = {NULL, false, TRAIN_STEPS, TRAIN_LR, false, false};
    bool help = false;
    for (int i = 1; i < *argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) help = true;
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        const char *names[] = {"--grad-output", "--steps", "--lr"};
        int which = -1;
        const char *val = NULL;
        for (int k = 0; k < 3; k++) {
            size_t n = strlen(names[k]);
            if (!strncmp(a, names[k], n) && (a[n] == '\0' || a[n] == '=')) {
                which = k;
                if (a[n] == '=') val = a + n + 1;
                else if (i + 1 < *argc && strncmp(argv[i + 1], "--", 2)) val = argv[++i];
            }
        }
        if (!strcmp(a, "--train")) {
            e.train = true;
            continue;
        }
        if (which < 0) {
            argv[out++] = argv[i];
            continue;
        }
        if (help) continue;
        if (!val || !*val) usage_error("%s needs a value%s", names[which], "");
        char *end = NULL;
        errno = 0;
        if (which == 0) {
            e.grad_output = val;
        } else if (which == 1) {
            long long n = strtoll(val, &end, 10);
            if (errno || *end || n < 1 || n > MAX_STEPS)
                usage_error("--steps must be a whole number from 1 to 1000000, got '%s'%s", val, "");
            e.steps = n;
            e.steps_given = true;
        } else {
            double lr = strtod(val, &end);
            if (errno || *end || !(lr > 0.0) || !isfinite(lr))
                usage_error("--lr must be a positive number, got '%s'%s", val, "");
            e.lr = lr;
            e.lr_given = true;
        }
    }
    *argc = out;
    argv[out] = NULL;
    return e;
}

/* ---- helpers for the narration ----------------------------------------------------- */

static void print_table(const GradCheckRow *rows, int n, double tol) {
    printf("    tensor   numel   max |grad|   max |bw - fd|   max rel err   within %.0e\n", tol);
    for (int i = 0; i < n; i++)
        printf("    %-6s %7lld   %10.4g   %13.3g   %11.3g   %s\n", rows[i].name, (long long)rows[i].numel,
               rows[i].max_abs_grad, rows[i].max_abs_err, rows[i].max_rel_err,
               rows[i].max_rel_err <= tol ? "yes" : "NO");
}

static void save_grads(const char *dir, const MhaGrads *g) {
    /* everything is computed before the first file is written */
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

/* ---- run 1: the narrated backward and the gradient check ----------------------------- */

static int run_backward(const Args *args, const Extra *ex) {
    char s1[T_SHAPE_STR], s2[T_SHAPE_STR];
    MultiHeadAttention *m;
    Tensor *x, *dy;
    bool from_files = args->input != NULL;

    narrate_title("Chapter 10: the backward pass of MultiHeadAttention, by hand");
    if (from_files) {
        m = mha_from_args(args, &x);   /* chapter 7's loading: x (B, T, d_in) and the module */
        mha_eval(m);   /* model.eval(): gradients of the deterministic module, as autograd sees it */
        narrate_step("Load x from %s and the weights from %s (eval mode)", args->input, args->weights);
        narrate_torch("model.load_state_dict(...); model.eval(); x.requires_grad_(True)");
        if (args->given & (CLI_BATCH | CLI_D_IN | CLI_D_OUT | CLI_BIAS | CLI_DROPOUT | CLI_EVAL))
            narrate_say("(--batch, --d-in, --d-out, --bias, --dropout and --eval are not used: the shapes and "
                        "biases come from the files, and the gradients are those of eval mode)");
        int64_t d_out = m->args.d_out;
        if (ex->grad_output) {
            dy = npy_load(ex->grad_output);
            if (dy->ndim != 3 || dy->shape[0] != x->shape[0] || dy->shape[1] != x->shape[1] || dy->shape[2] != d_out)
                t_error("%s has shape %s but the output y is (B, T, d_out) = (%lld, %lld, %lld): --grad-output "
                        "must be dloss/dy, the shape of y",
                        ex->grad_output, t_shape_str(dy, s1), (long long)x->shape[0], (long long)x->shape[1],
                        (long long)d_out);
            narrate_say("dy = dloss/dy from %s: loss = (y * dy).sum()", ex->grad_output);
        } else {
            dy = t_ones(SHAPE(x->shape[0], x->shape[1], d_out));
            narrate_say("no --grad-output: dy = ones, that is loss = y.sum()");
        }
    } else {
        m = mha_from_args(args, &x);   /* chapter 7's default run: manual_seed, the class, then x */
        if (args->eval) mha_eval(m);
        narrate_step("Chapter 7's module, a small input and a gradient for its output");
        narrate_torch_seed(args->seed);
        narrate_torch("model = MultiHeadAttention(d_in, d_out, max_seq_len, dropout, heads)");
        narrate_torch("x = torch.randn(batch, seq_len, d_in, requires_grad=True)");
        narrate_torch("dy = torch.randn(batch, seq_len, d_out)   # loss = (y * dy).sum()");
        dy = t_randn(SHAPE(args->batch, args->seq_len, args->d_out)); /* (B, T, d_out) */
        narrate_why("any loss reaches the module only through dloss/dy; (y * dy).sum() is the loss whose "
                    "dloss/dy is exactly dy, so one random dy tests every path.");
    }
    const ModelArgs *a = &m->args;
    narrate_say("d_in = %lld, d_out = %lld, n_heads = %lld, head_dim = %lld, causal = %s, qkv_bias = %s, "
                "out bias = %s, dropout = %g (%s)",
                (long long)a->d_in, (long long)a->d_out, (long long)a->n_heads, (long long)m->head_dim,
                a->causal ? "True" : "False", a->qkv_bias ? "True" : "False", a->out_bias ? "True" : "False",
                a->dropout, m->attn_dropout.training && a->dropout > 0.0 ? "training" : "off");

    /* ---- forward, keeping what the backward needs -------------------------------- */
    MhaCache cache;
    Tensor *y = mha_forward_cached(m, x, &cache);   /* chapter 7's forward, (B, T, d_out) */
    double loss = 0.0;
    for (int64_t i = 0; i < t_numel(y); i++) loss += (double)t_flat_get(y, i) * (double)t_flat_get(dy, i);
    narrate_step("Forward (chapter 7), keeping the activations");
    narrate_torch("y = model(x, x, x); loss = (y * dy).sum()");
    narrate_show("y", y);
    narrate_say("loss = %.6f", loss);
    if (args->heatmap && !narrate_quiet()) {
        HeatmapOptions opt = {0};
        opt.title = "attention weights (forward)";
        opt.ascii = args->ascii;
        heatmap_print_all(cache.trace.attn_weights, &opt);   /* one grid per (batch, head) */
    }
    narrate_why("like llm.c's train_gpt2.c, the forward keeps xq, xk, xv, the weights before and after "
                "dropout, the merged heads and the dropout masks: each backward step below reads them.");

    MhaGrads g = mha_backward(m, &cache, dy);

    narrate_step("resid_dropout and W_o: the backward of nn.Linear");
    narrate_torch("output = self.resid_dropout(self.wo(output))");
    narrate_say("dprojected = dy * mask / (1 - p): the same mask the forward drew, the same 1/(1-p)");
    narrate_say("wo.weight.grad = dprojected.T @ merged: %s   merged.grad = dprojected @ wo.weight: %s",
                t_shape_str(g.dwo, s1), t_shape_str(g.dmerged, s2));
    if (g.dbo) narrate_say("wo.bias.grad = dprojected.sum over (B, T): %s", t_shape_str(g.dbo, s1));
    narrate_show("wo.weight.grad", g.dwo);
    narrate_why("y = x W^T + b: every output feature o got x · W[o], so W[o] collects dy[o] * x over every "
                "token, x collects dy[o] * W[o] over every o, and b collects dy[o]. Each gradient has the shape "
                "of what it belongs to.");

    narrate_step("Merge heads, then @ xv: the backward of a view and of a matmul");
    narrate_torch("output = torch.matmul(scores, xv)");
    narrate_torch("output = output.transpose(1, 2).contiguous().view(b, t, -1)");
    narrate_say("the merge's backward is a split: %s -> %s", t_shape_str(g.dmerged, s1),
                t_shape_str(g.doutput, s2));
    narrate_say("c = a @ b gives a.grad = dc @ b.T and b.grad = a.T @ dc: dattn_dropped %s, dxv %s",
                t_shape_str(g.dattn_dropped, s1), t_shape_str(g.dxv, s2));
    narrate_why("a view or transpose moves no numbers, so its backward moves the gradient back the same "
                "way; a matmul's backward is two matmuls with the other operand transposed.");

    narrate_step("attn_dropout and softmax");
    narrate_torch("scores = F.softmax(scores, dim=-1)");
    narrate_torch("scores = self.attn_dropout(scores)");
    narrate_say("dweights = dattn_dropped * mask / (1 - p), the same mask, then");
    narrate_say("dscores = P * (dP - (dP * P).sum(-1, keepdim=True))");
    narrate_show("dscores", g.dscores);
    narrate_why("softmax ties a row together: raising one score lowers every other weight, so each "
                "dscores entry is its own dP minus the row's weighted mean of dP. Each row of dscores sums "
                "to 0, so adding one number to a whole row changes nothing: that is why the max F.softmax "
                "subtracts needs no gradient (softmax(s - c) = softmax(s) for any c). %s",
                a->causal ? "Masked entries have P = 0, so they get 0: the additive mask passes the gradient "
                            "through unchanged and, as a buffer, gets none itself."
                          : "");

    narrate_step("The 1/sqrt(d_k) scale, QK^T, the split, and W_q, W_k, W_v");
    narrate_torch("scores = torch.matmul(xq, xk.transpose(2, 3))");
    narrate_torch("scores = scores / math.sqrt(self.head_dim)");
    narrate_say("draw = dscores / sqrt(%lld); dxq = draw @ xk %s; dxk = draw.T @ xq %s", (long long)m->head_dim,
                t_shape_str(g.dxq, s1), t_shape_str(g.dxk, s2));
    narrate_say("split's backward is a merge; then three nn.Linear backwards, and x.grad = the sum of "
                "the three: %s", t_shape_str(g.dx, s1));
    narrate_show("x.grad", g.dx);
    narrate_why("x was used three times (wq, wk and wv all read it), so autograd adds the three "
                "gradients that reach it; forgetting one is the classic hand-written backward bug.");

    /* ---- the gradient check ------------------------------------------------------------- */
    bool checked = !from_files;
    if (checked) {
        const double h = GRAD_CHECK_STEP, tol = GRAD_CHECK_TOL;
        GradCheckRow rows[9];
        int n = grad_check_grads(m, &cache, dy, &g, h, rows);   /* the masks of this forward, too */
        narrate_step("Gradient check: float64 central differences for every entry");
        narrate_torch("torch.autograd.gradcheck(model.double(), (x.double(),))");
        narrate_say("the reference is chapter 7's forward again, on double arrays (grad_check.c): for "
                    "every number v of x and of every parameter, (loss(v + h) - loss(v - h)) / 2h with "
                    "h = %g (gradcheck's default eps), all in float64, the dropout masks this forward drew held fixed. It is "
                    "compared with the float32 backward above. Relative error = max |backward - fd| / "
                    "max(1, max |fd|): relative to the tensor's largest gradient, absolute below 1.",
                    h);
        double worst = grad_check_worst(rows, n);
        if (!narrate_quiet()) print_table(rows, n, tol);
        if (a->qkv_bias)
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
                            worst <= tol ? "within" : "NOT within", tol);
        if (!(worst <= tol)) t_error("gradient check failed: relative error %.3g is above %g", worst, tol);
    }
    if (narrate_quiet()) {
        narrate_result("grad_x", g.dx);
        narrate_result("grad_wq", g.dwq);
        narrate_result("grad_wo", g.dwo);
    }
    if (args->dump) save_grads(args->dump, &g);
    if (args->output) npy_save(args->output, y);   /* y = model(x), (B, T, d_out), as chapter 7 writes it */
    return 0;
}

/* ---- run 2: training ------------------------------------------------------------------ */

enum { VOCAB = 8, SEQ_LEN = 8, DIM = 32, BATCH = 32, N_TRAIN = 2048, N_HELD = 512, N_SNAPSHOTS = 6 };
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

static void show_heatmap(const Tensor *weights, const int32_t *seq, const char *title, bool ascii) {
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
    opt.ascii = ascii;
    heatmap_print_all(weights, &opt);   /* (1, H, T, T): one grid per head */
}

static int run_train(const Args *args, const Extra *ex) {
    int64_t heads = args->heads;
    head_dim_of(DIM, heads);
    bool progress = !args->quiet && isatty(fileno(stderr));
    narrate_title("Chapter 10: a tiny model learns to attend (training with the backward by hand)");

    t_manual_seed(args->seed);
    TinyModel *model = tiny_model_new(VOCAB, SEQ_LEN, DIM, heads);
    ParamList params = tiny_params(model);
    Adam *opt = adam_new(&params, ex->lr);
    Rng data;
    rng_seed(&data, args->seed);
    int32_t *train = make_sequences(&data, N_TRAIN, NULL, 0);
    int32_t *held = make_sequences(&data, N_HELD, train, N_TRAIN);
    int64_t n_params = 0;
    for (int i = 0; i < params.n; i++) n_params += t_numel(params.params[i]);

    narrate_step("The task: output the token two places back");
    narrate_say("sequences of %d tokens from {A..H}; at position t >= 2 the answer is the token at t - 2. "
                "%d training sequences, %d held-out ones (none of them in the training set).",
                SEQ_LEN, N_TRAIN, N_HELD);
    narrate_why("no token says what came two places before it: position t has to look at position t - 2. "
                "The attention weights that solve it are a stripe two below the diagonal.");
    narrate_step("The model: embeddings, chapter 7's attention, a linear head (%lld parameters)",
                 (long long)n_params);
    narrate_torch("x = tok_emb(idx) + pos_emb(torch.arange(T))");
    narrate_torch("logits = head(attn(x))        # attn: chapter 7, causal");
    narrate_torch("loss = F.cross_entropy(logits[:, 2:], idx[:, :-2])");
    narrate_torch("loss.backward(); opt.step()   # by hand; Adam");
    narrate_say("dim %d, %lld heads, batch %d, Adam lr %g, %lld steps, seed %llu", DIM, (long long)heads, BATCH,
                ex->lr, (long long)ex->steps, (unsigned long long)args->seed);
    if (args->given & (CLI_BATCH | CLI_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_BIAS | CLI_DROPOUT | CLI_EVAL |
                       CLI_CAUSAL))
        narrate_say("(--batch, --seq-len, --d-in, --d-out, --bias, --dropout, --eval and --causal are not used "
                    "by --train: the task fixes the model; --heads, --steps, --lr and --seed change it)");

    /* snapshots of the held-out sequence 0's attention, for the heatmap and --dump */
    int64_t snap_every = ex->steps / (N_SNAPSHOTS - 1) > 0 ? ex->steps / (N_SNAPSHOTS - 1) : 1;
    Tensor *snaps = t_zeros(SHAPE(N_SNAPSHOTS, heads, SEQ_LEN, SEQ_LEN));
    Tensor *snap_steps = t_zeros(SHAPE(N_SNAPSHOTS));
    int n_snaps = 0;
    int64_t log_every = ex->steps >= 20 ? ex->steps / 20 : 1;
    int64_t n_logs_max = ex->steps / log_every + 2;
    Tensor *losses = t_zeros(SHAPE(n_logs_max, 2));
    int n_logs = 0;

    for (int64_t step = 0; step <= ex->steps; step++) {
        t_scope_begin();
        if ((step % snap_every == 0 || step == ex->steps) && n_snaps < N_SNAPSHOTS) {
            TinyCache hc;
            tiny_forward(model, held, 1, &hc);
            t_copy_(t_select(snaps, 0, n_snaps), t_select(hc.attn.trace.attn_weights, 0, 0));
            t_set(snap_steps, (float)step, n_snaps);
            n_snaps++;
        }
        if (step == ex->steps) {
            t_scope_end();
            break;
        }
        /* a batch of training sequences, drawn with the data generator */
        int32_t batch[BATCH * SEQ_LEN];
        for (int b = 0; b < BATCH; b++)
            memcpy(batch + b * SEQ_LEN, train + rng_randint(&data, 0, N_TRAIN) * SEQ_LEN,
                   sizeof(int32_t) * SEQ_LEN);
        TinyCache c;
        Tensor *logits = tiny_forward(model, batch, BATCH, &c);   /* (B, T, vocab) */
        Tensor *dlogits;
        double loss = task_loss(logits, batch, &dlogits);
        if (progress) fprintf(stderr, "\r%60s\r", "");   /* clear the progress line before anything prints */
        if (!isfinite(loss))
            t_error("training stopped at step %lld: the loss is %s; the learning rate %g is too large "
                    "(try a smaller --lr)", (long long)(step + 1), isnan(loss) ? "NaN" : "infinite", ex->lr);
        ParamList grads = tiny_backward(model, &c, dlogits);     /* loss.backward() */
        adam_step(opt, &grads);                                  /* optimizer.step() */
        if (step % log_every == 0 || step + 1 == ex->steps) {
            t_set(losses, (float)(step + 1), n_logs, 0);
            t_set(losses, (float)loss, n_logs, 1);
            n_logs++;
            if (!args->quiet) printf("    step %5lld   loss %.4f\n", (long long)(step + 1), loss);
        }
        if (progress)
            fprintf(stderr, "\r    training: step %lld/%lld, loss %.4f ", (long long)(step + 1),
                    (long long)ex->steps, loss);
        t_scope_end();
    }
    if (progress) fprintf(stderr, "\r%60s\r", "");

    /* ---- held-out evaluation ---------------------------------------------------------- */
    TinyCache hc;
    Tensor *logits = tiny_forward(model, held, N_HELD, &hc);
    double acc = task_accuracy(logits, held, N_HELD);
    double held_loss = task_loss(logits, held, NULL);
    double on_target[64] = {0};
    task_attention_on_target(hc.attn.trace.attn_weights, on_target);

    narrate_step("Attention before training (held-out sequence 0)");
    if (!args->quiet) show_heatmap(t_slice(snaps, 0, 0, 1), held, "before training", args->ascii);
    narrate_step("Attention after training (the same sequence)");
    if (!args->quiet) show_heatmap(t_slice(snaps, 0, n_snaps - 1, n_snaps), held, "after training", args->ascii);
    narrate_why("row t is the query at position t; the ink two columns left of the diagonal is t looking "
                "at t - 2, the token it has to output.");
    for (int64_t h = 0; h < heads; h++)
        narrate_result_text("head %lld: mean attention weight on position t - 2: %.3f", (long long)h,
                            on_target[h]);
    narrate_result_text("held-out loss: %.4f", held_loss);

    if (args->dump) {
        npy_make_dir(args->dump);
        npy_save_in(args->dump, "loss", t_slice(losses, 0, 0, n_logs));           /* (n, 2): step, loss */
        npy_save_in(args->dump, "attn_snapshots", t_slice(snaps, 0, 0, n_snaps));  /* (K, H, T, T) */
        npy_save_in(args->dump, "snapshot_steps", t_slice(snap_steps, 0, 0, n_snaps));
        Tensor *seq = t_zeros(SHAPE(SEQ_LEN));
        for (int t = 0; t < SEQ_LEN; t++) t_set(seq, (float)held[t], t);
        npy_save_in(args->dump, "tokens", seq);                                    /* (T,) ids of sequence 0 */
        Tensor *tgt = t_zeros(SHAPE(heads));
        for (int64_t h = 0; h < heads; h++) t_set(tgt, (float)on_target[h], h);
        npy_save_in(args->dump, "attn_on_target", tgt);                            /* (H,) held-out mean */
    }
    printf("final accuracy: %.1f%%\n", 100.0 * acc);
    return 0;
}

int main(int argc, char **argv) {
    Extra ex = take_extra_flags(&argc, argv);
    Args defaults = {0};
    defaults.seed = 123;
    defaults.batch = 2;
    defaults.seq_len = 4;
    defaults.d_in = 6;
    defaults.d_out = 4;
    defaults.heads = 2;
    defaults.dropout = 0.1;
    defaults.causal = true;
    CliSpec spec = {"chapter10",
                    "Chapter 10: the backward pass of chapter 7's MultiHeadAttention by hand, a gradient\n"
                    "check, and a tiny model that learns to attend. Default: a small module (batch 2, seq 4,\n"
                    "d_in 6, d_out 4, 2 heads, dropout 0.1 in training mode, causal), loss = (y * dy).sum()\n"
                    "with a random dy, every backward step, and the float64 finite-difference check table.\n"
                    "With --input/--weights (eval mode, as chapter 7): gradients of chapter 7's module;\n"
                    "  --grad-output FILE  dloss/dy, shape (B, T, d_out) (default: ones, loss = y.sum())\n"
                    "  --dump DIR          writes grad_x.npy grad_wq.npy grad_wk.npy grad_wv.npy grad_wo.npy\n"
                    "                      and grad_b?.npy for each bias in the weights folder;\n"
                    "                      --output FILE writes y = model(x) as chapter 7 does\n"
                    "  --train             train a tiny causal model on 'output the token two places back';\n"
                    "                      ends with 'final accuracy: A%' on held-out sequences; --dump DIR\n"
                    "                      writes the loss curve and attention snapshots (make plots)\n"
                    "  --steps N           training steps (default 400)\n"
                    "  --lr X              Adam learning rate (default 0.001)",
                    CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_HEADS | CLI_DROPOUT |
                        CLI_EVAL | CLI_CAUSAL | CLI_BIAS | CLI_QUIET | CLI_DUMP | CLI_HEATMAP | CLI_INPUT |
                        CLI_OUTPUT,
                    defaults, NULL};
    Args args = cli_parse(&spec, argc, argv);
    if (ex.train && (args.input || args.output))
        usage_error("--train trains its own model; it does not take --input, --weights or --output%s%s", "", "");
    if (ex.grad_output && !args.input)
        usage_error("--grad-output needs --input and --weights (the module it is the gradient for)%s%s", "", "");
    if (!ex.train && (ex.steps_given || ex.lr_given))
        usage_error("--steps and --lr go with --train%s%s", "", "");
    t_scope_begin();
    narrate_set_quiet(args.quiet);
    t_manual_seed(args.seed);
    int rc = ex.train ? run_train(&args, &ex) : run_backward(&args, &ex);
    t_scope_end();
    return rc;
}
