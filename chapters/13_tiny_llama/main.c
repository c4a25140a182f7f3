/* main.c — chapter 13: a tiny LLaMA2 (Happy-LLM 5.1's k_model.py Transformer) in C.
 *
 *     build/chapter13 --checkpoint M.bin [--tokenizer T.bin] --tokens 3,1,4,1,5 [--dump DIR]
 *         the forward of a llama2.c checkpoint: tokens.npy (T), logits.npy (T, vocab),
 *         attn_L.npy (n_heads, T, T)
 *     build/chapter13 --checkpoint M.bin --prompt TEXT --generate N [--dump DIR]
 *         generation through the KV cache; --dump: the same files for the prompt's tokens
 *         (this program's own encoder) and the N that followed
 *     build/chapter13 --checkpoint M.bin --batch-tokens B.npy --grad-dump DIR
 *         loss.backward() by hand: loss.npy and one gradient per parameter, named by
 *         k_model.py's state-dict keys (layers.0.attention.wq.weight.npy), (out, in) layout
 *
 * The narrated run (without --quiet) says what the model is, where each piece comes from
 * (chapter 11's Attention, chapter 8's flash, chapter 10's and 12's backwards) and draws
 * each head's attention over the tokens.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/platform.h"

#include "chapters/08_fast_attention/fast_attention.h"
#include "chapters/13_tiny_llama/tiny_llama_setup.h"
#include "chapters/13_tiny_llama/train.h"
#include "chapters/13_tiny_llama/inspect.h"

extern const LangPair chapter13_zh[]; /* zh.c: this program's sentences in Chinese (lang.h) */

/* ---- this chapter's flags ------------------------------------------------------------------ */

static const char *checkpoint_file;  /* --checkpoint M.bin   */
static const char *tokenizer_file;   /* --tokenizer T.bin    */
static const char *tokens_text;      /* --tokens 3,1,4       */
static const char *batch_file;       /* --batch-tokens B.npy */
static const char *grad_dir;         /* --grad-dump DIR      */
static const char *corpus_file;      /* --corpus FILE        */
static int64_t train_steps = 0;      /* --train-steps N (0: the default configuration's) */
static const char *save_file;        /* --save OUT.bin       */
static const char *prompt_text;      /* --prompt TEXT        */
static int64_t n_generate = 0;       /* --generate N         */
static double temperature = 0.8;     /* --temperature T      */
static double top_p = 0.9;           /* --top-p P            */
static int64_t stop_at = 0;          /* --stop-at K: save the state after step K */
static bool resume = false;          /* --resume: continue OUT.bin from OUT.state */
static int64_t bench_rounds = 0;     /* --bench N: time N training steps and N decodes */

/* Debian's fortunes-zh: 313 Tang poems */
#define TANG300 "/usr/share/games/fortunes/tang300"

static const CliExtra chapter13_flags[] = {
    {.name = "--checkpoint", .metavar = "FILE", .kind = CLI_EXTRA_TEXT, .value = &checkpoint_file,
     .help = "llama2.c's version-0 .bin"},
    {.name = "--tokenizer", .metavar = "FILE", .kind = CLI_EXTRA_TEXT, .value = &tokenizer_file,
     .help = "llama2.c's tokenizer.bin (labels)"},
    {.name = "--tokens", .metavar = "LIST", .kind = CLI_EXTRA_TEXT, .value = &tokens_text,
     .help = "token ids, e.g. 3,1,4,1,5"},
    {.name = "--batch-tokens", .metavar = "FILE", .kind = CLI_EXTRA_TEXT, .value = &batch_file,
     .help = "int32 .npy (B, T + 1): loss and gradients"},
    {.name = "--grad-dump", .metavar = "DIR", .kind = CLI_EXTRA_TEXT, .value = &grad_dir,
     .help = "write loss.npy and every gradient"},
    {.name = "--corpus", .metavar = "FILE", .kind = CLI_EXTRA_TEXT, .value = &corpus_file,
     .help = "UTF-8 text to train on (default: tang300)"},
    {.name = "--train-steps", .metavar = "N", .kind = CLI_EXTRA_INT, .value = &train_steps, .min = 1, .max = 1e7,
     .help = "training steps (without it: the default run's)"},
    {.name = "--save", .metavar = "FILE", .kind = CLI_EXTRA_TEXT, .value = &save_file,
     .help = "train, write FILE (.bin) and its .tok"},
    {.name = "--stop-at", .metavar = "K", .kind = CLI_EXTRA_INT, .value = &stop_at, .min = 1, .max = 1e7,
     .help = "stop after step K, write OUT.bin and OUT.state"},
    {.name = "--resume", .kind = CLI_EXTRA_FLAG, .value = &resume,
     .help = "continue OUT.bin (--save) from its OUT.state"},
    {.name = "--bench", .metavar = "N", .kind = CLI_EXTRA_INT, .value = &bench_rounds, .min = 1, .max = 1e6,
     .help = "time N training steps on --batch-tokens, N decodes"},
    {.name = "--prompt", .metavar = "TEXT", .kind = CLI_EXTRA_TEXT, .value = &prompt_text,
     .help = "text to continue (--generate)"},
    {.name = "--generate", .metavar = "N", .kind = CLI_EXTRA_INT, .value = &n_generate, .min = 1, .max = 1e6,
     .help = "tokens to add after --prompt (KV cache)"},
    {.name = "--temperature", .metavar = "T", .kind = CLI_EXTRA_REAL, .value = &temperature, .min = 0, .max = 100,
     .help = "0: greedy; else softmax(logits / T)"},
    {.name = "--top-p", .metavar = "P", .kind = CLI_EXTRA_REAL, .value = &top_p, .min = 0, .max = 1,
     .min_exclusive = true, .help = "nucleus sampling: keep the top P of the mass"},
    {.name = NULL}};

static int usage(const char *sentence) {
    fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter13", tr(sentence));
    return EXIT_USAGE;
}

/* ---- the forward of --tokens ------------------------------------------------------------------- */

static void narrate_model(const Transformer *m) {
    const LlamaConfig *c = &m->args;
    narrate_step("The model: Happy-LLM 5.1's Transformer, read from llama2.c's .bin");
    narrate_torch("model = Transformer(ModelConfig(dim, n_layers, n_heads, n_kv_heads, vocab_size, hidden_dim, "
                  "max_seq_len))");
    narrate_say("dim %lld, hidden_dim %lld, n_layers %lld, n_heads %lld, n_kv_heads %lld, vocab_size %lld, "
                "seq_len %lld, head_dim %lld",
                (long long)c->dim, (long long)c->hidden_dim, (long long)c->n_layers, (long long)c->n_heads,
                (long long)c->n_kv_heads, (long long)c->vocab_size, (long long)c->max_seq_len, (long long)m->head_dim);
    narrate_say("%lld parameters; output head %s", (long long)transformer_num_params(m),
                c->shared ? tr("tied to tok_embeddings (vocab_size > 0 in the header)")
                          : tr("its own matrix (vocab_size < 0 in the header)"));
    narrate_why("each layer is RMSNorm, chapter 11's Attention (RoPE, n_kv_heads), a residual, RMSNorm, "
                "the SwiGLU MLP w2(silu(w1 x) * w3 x) and a residual; no attention code is new here.");
}

/* The title and the model, once the run's arguments are known to be right (nothing is printed
 * before a usage error). */
static void narrate_header(const Transformer *m) {
    if (narrate_quiet()) return;
    narrate_title("Chapter 13: a tiny LLaMA2 (Happy-LLM 5.1) in C");
    narrate_model(m);
}

/* The causal mask in the weights' shape (1, n_heads, T, T): the heatmap's · above the diagonal. */
static Tensor *masked_like(const Tensor *attn) {
    return t_add(t_zeros(t_shape(attn)), causal_mask(t_size(attn, -1), 1));   /* chapter 4's mask */
}

/* The label of token id: its piece from the tokenizer (printable), else the number. */
static const char *label_of(const Tokenizer *tok, int32_t id) {
    char *s = (char *)t_alloc(32);
    if (tok && tok->lens[id] > 0 && tok->lens[id] < 24) {
        bool printable = true;
        for (int32_t i = 0; i < tok->lens[id]; i++) printable &= (unsigned char)tok->vocab[id][i] >= 0x20;
        if (printable) return tok->vocab[id];
    }
    snprintf(s, 32, "%d", id);
    return s;
}

/* --dump DIR of a forward over ids (T tokens): tokens.npy (the ids, as float32: exact below
 * 2^24), logits.npy (T, vocab) and attn_L.npy (n_heads, T, T) per layer. */
static void dump_forward(const char *dir, const Transformer *m, const int32_t *ids, int64_t T, const Tensor *l0,
                         Tensor **attn) {
    Tensor *tokens = t_zeros(SHAPE(T));
    for (int64_t t = 0; t < T; t++) t_data(tokens)[t] = (float)ids[t];
    npy_make_dir(dir);
    npy_save_in(dir, "tokens", tokens);
    npy_save_in(dir, "logits", l0);
    for (int64_t l = 0; l < m->args.n_layers; l++) {
        char name[32];
        snprintf(name, sizeof name, "attn_%lld", (long long)l);
        npy_save_in(dir, name, t_select(attn[l], 0, 0));   /* (n_heads, T, T) */
    }
}

static int run_tokens(const Args *args, const Transformer *m, const Tokenizer *tok) {
    int32_t *ids;
    int64_t T;
    if (!parse_token_list(tokens_text, &ids, &T)) return usage("--tokens takes token ids between commas, e.g. 3,1,4");
    for (int64_t i = 0; i < T; i++)
        if (ids[i] >= m->args.vocab_size) {
            fprintf(stderr, tr("%s: --tokens: token %d is outside the vocabulary 0..%lld of %s (see --help)\n"),
                    "chapter13", ids[i], (long long)(m->args.vocab_size - 1), checkpoint_file);
            return EXIT_USAGE;
        }
    if (T > m->args.max_seq_len) {
        fprintf(stderr, tr("%s: --tokens gives %lld tokens, more than the model's seq_len %lld (see --help)\n"),
                "chapter13", (long long)T, (long long)m->args.max_seq_len);
        return EXIT_USAGE;
    }
    narrate_header(m);
    Tensor **attn = (Tensor **)t_alloc(sizeof *attn * (size_t)m->args.n_layers);
    Tensor *logits = transformer_forward(m, ids, 1, T, attn);   /* (1, T, vocab) */
    Tensor *l0 = t_select(logits, 0, 0);                         /* (T, vocab)    */
    if (!narrate_quiet()) {
        narrate_step("The forward of %lld tokens (eval)", (long long)T);
        narrate_torch("logits = model(torch.tensor([tokens])).logits   # (1, T, vocab_size)");
        narrate_say("next token after each position (argmax of its logits):");
        for (int64_t t = 0; t < T; t++) {
            const float *z = t_data(t_contiguous(t_select(l0, 0, t)));
            int32_t best = 0;
            for (int64_t j = 1; j < m->args.vocab_size; j++)
                if (z[j] > z[best]) best = (int32_t)j;
            narrate_say("  %lld: %s -> %s", (long long)t, label_of(tok, ids[t]), label_of(tok, best));
        }
        const char **labels = (const char **)t_alloc(sizeof *labels * (size_t)T);
        for (int64_t t = 0; t < T; t++) labels[t] = label_of(tok, ids[t]);
        narrate_step("Every head's attention weights, layer 0 (rows: queries, columns: keys)");
        HeatmapOptions o = {.title = tr("layer 0"), .rows = labels, .cols = labels, .ascii = args->ascii,
                            .row_scale = args->row_scale, .scores = masked_like(attn[0])};
        heatmap_print_all(attn[0], &o);   /* (1, n_heads, T, T): one grid per head */
        narrate_why("each row sums to 1 over the keys at or before its query (the causal mask of chapter 4).");
    }
    narrate_result("logits[-1, :8]", t_slice(t_select(l0, 0, T - 1), 0, 0, m->args.vocab_size < 8 ? m->args.vocab_size : 8));
    if (args->dump) dump_forward(args->dump, m, ids, T, l0, attn);
    return 0;
}

/* ---- loss.backward() of --batch-tokens ------------------------------------------------------- */

static int run_grads(const Transformer *m) {
    int64_t B, cols;
    int32_t *batch = load_batch_tokens(batch_file, m->args.vocab_size, &B, &cols);
    int64_t T = cols - 1;
    if (T > m->args.max_seq_len)
        t_error(t_tr("%s: the batch has %lld inputs per row, more than the model's seq_len %lld"), batch_file,
                (long long)T, (long long)m->args.max_seq_len);
    narrate_header(m);
    /* inputs = batch[:, :-1], targets = batch[:, 1:] */
    int32_t *inputs = (int32_t *)t_alloc(sizeof *inputs * (size_t)(B * T));
    int32_t *targets = (int32_t *)t_alloc(sizeof *targets * (size_t)(B * T));
    for (int64_t b = 0; b < B; b++)
        for (int64_t t = 0; t < T; t++) {
            inputs[b * T + t] = batch[b * cols + t];
            targets[b * T + t] = batch[b * cols + t + 1];
        }
    ModelCache cache;
    Tensor *dlogits;
    Tensor *logits = transformer_forward_train(m, inputs, B, T, &cache);
    double loss = cross_entropy(logits, targets, &dlogits);   /* F.cross_entropy(..., reduction='mean') */
    Tensor **grads = transformer_backward(m, &cache, dlogits);  /* loss.backward() */
    if (!narrate_quiet()) {
        narrate_step("loss.backward() by hand, on a batch of %lld x %lld tokens", (long long)B, (long long)T);
        narrate_torch("loss = F.cross_entropy(logits.view(-1, V), targets.view(-1)); loss.backward()");
        narrate_say("loss %.6f (a model that knows nothing: log(vocab_size) = %.6f)", loss,
                    log((double)m->args.vocab_size));
        for (int i = 0; i < m->n_params; i++) {
            char s[T_SHAPE_STR];
            narrate_say("  %-40s gradient %s", m->params[i].name, t_shape_str(grads[i], s));
        }
        narrate_why("the attention's backward is chapter 12's flash backward (O(T) memory); RMSNorm, SwiGLU, "
                    "RoPE, repeat_kv and the embedding have theirs in tiny_llama.c, the Linears chapter 10's.");
    }
    narrate_result_text("loss %.6f", loss);
    if (grad_dir) {
        npy_make_dir(grad_dir);
        Tensor *l = t_full(SHAPE(1), (float)loss);
        npy_save_in(grad_dir, "loss", l);
        for (int i = 0; i < m->n_params; i++) npy_save_in(grad_dir, m->params[i].name, grads[i]);
    }
    return 0;
}

/* ---- --bench N: a training step and a decode, timed (make bench-chapter13) ------------------------ */

/* This process's processor time (clock(): one thread here, so the step's own work). */
static double cpu_seconds(void) { return (double)clock() / CLOCKS_PER_SEC; }

static int run_bench(Transformer *m) {
    int64_t B, cols;
    int32_t *batch = load_batch_tokens(batch_file, m->args.vocab_size, &B, &cols);
    int64_t T = cols - 1;
    if (T > m->args.max_seq_len)
        t_error(t_tr("%s: the batch has %lld inputs per row, more than the model's seq_len %lld"), batch_file,
                (long long)T, (long long)m->args.max_seq_len);
    narrate_header(m);
    int32_t *inputs = (int32_t *)t_alloc(sizeof *inputs * (size_t)(B * T));
    int32_t *targets = (int32_t *)t_alloc(sizeof *targets * (size_t)(B * T));
    for (int64_t b = 0; b < B; b++)
        for (int64_t t = 0; t < T; t++) {
            inputs[b * T + t] = batch[b * cols + t];
            targets[b * T + t] = batch[b * cols + t + 1];
        }
    TrainConfig tc = {.steps = bench_rounds, .warmup = 0, .batch = B, .seq_len = T, .lr = 3e-3, .min_lr = 3e-3,
                      .weight_decay = 0.1, .beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8, .grad_clip = 1.0};
    Transformer *w = m;                       /* the steps change the weights (this run's copy) */
    AdamW *opt = adamw_new(w);
    double best = 1e30;
    for (int64_t i = 0; i < bench_rounds; i++) {   /* forward, loss, backward, clip, AdamW */
        double t0 = cpu_seconds();
        train_step(w, opt, &tc, inputs, targets, tc.lr);
        double dt = cpu_seconds() - t0;
        if (dt < best) best = dt;
    }
    t_keep_release();                         /* the steps' kept memory (train_step) */
    printf("train step: best %.3f ms of %lld (%lld x %lld tokens), %.0f tokens/s\n", best * 1e3,
           (long long)bench_rounds, (long long)B, (long long)T, (double)(B * T) / best);
    /* greedy decoding through the KV cache: the first row's first token, then T - 1 new ones */
    int64_t n_new = T - 1 > 0 ? T - 1 : 1;
    int32_t *out = (int32_t *)t_alloc(sizeof *out * (size_t)n_new);
    double best_d = 1e30;
    for (int64_t i = 0; i < bench_rounds; i++) {
        t_scope_begin();
        double t0 = cpu_seconds();
        generate(w, inputs, 1, n_new, 0, 1, out);
        double dt = cpu_seconds() - t0;
        t_scope_end();
        if (dt < best_d) best_d = dt;
    }
    printf("decode: best %.3f ms of %lld (1 + %lld tokens, KV cache), %.0f tokens/s\n", best_d * 1e3,
           (long long)bench_rounds, (long long)n_new, (double)n_new / best_d);
    return 0;
}

/* ---- training ------------------------------------------------------------------------------------ */

/* The default configuration (trains in under 3 minutes on a 2-core machine, measured). */
#define DEFAULT_STEPS 1200

static TrainConfig default_train(void) {
    TrainConfig tc = {.steps = train_steps ? train_steps : DEFAULT_STEPS, .batch = 16, .seq_len = 64,
                      .lr = 1e-3, .weight_decay = 1.0, .beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8, .grad_clip = 1.0};
    tc.warmup = tc.steps / 20 > 0 ? tc.steps / 20 : 1;
    tc.min_lr = tc.lr / 10;
    return tc;
}

/* The default model, for a vocabulary of vocab_size characters. */
static LlamaConfig default_model(int64_t vocab_size) {
    LlamaConfig lc = {.dim = 64, .hidden_dim = llama_hidden_dim(64, 32), .n_layers = 2, .n_heads = 4, .n_kv_heads = 2,
                      .vocab_size = vocab_size, .max_seq_len = 64, .shared = true, .norm_eps = 1e-5};
    return lc;
}

/* The text: --corpus, else tang300 cleaned, else generated poems. *source says which. */
static char *training_text(uint64_t seed, size_t *len, const char **source) {
    if (corpus_file) {
        *source = corpus_file;
        size_t n;
        char *raw = read_whole_file(corpus_file, &n);
        /* a fortune file (colour codes, `%` lines between the pieces) is cleaned as tang300 is */
        bool fortunes = memchr(raw, 0x1b, n) != NULL || strstr(raw, "\n%\n") != NULL;
        if (fortunes) return clean_fortunes(raw, n, len);
        *len = n;
        return raw;
    }
    FILE *f = fopen(TANG300, "rb");
    if (f) {
        fclose(f);
        size_t n;
        char *raw = read_whole_file(TANG300, &n);
        *source = TANG300;
        return clean_fortunes(raw, n, len);
    }
    *source = NULL;
    return generated_poems(seed, 1200, len);
}

static void progress(int64_t step, int64_t steps, double loss, double tok_s, double elapsed) {
    if (!budget_progress_shown()) return;
    double eta = step > 0 ? elapsed / (double)step * (double)(steps - step) : 0;
    fprintf(stderr, "\r%s", "");
    fprintf(stderr, tr("step %lld/%lld  loss %.3f  %.0f tokens/s  ETA %.0f s   "), (long long)step, (long long)steps,
            loss, tok_s, eta);
    fflush(stderr);
}

/* Where the validation text begins: the last tenth of the text, from a line start (or the tenth
 * as it falls, when no line starts there). what names the text; a validation text of fewer than 2
 * characters (no character with one after it to predict) is a sentence. */
static int64_t validation_start(const char *what, const int32_t *cps, int64_t n) {
    int64_t split = n - n / 10;
    while (split > 1 && cps[split - 1] != '\n') split--;
    if (split < 2 || n - split < 2) split = n - n / 10;
    if (n - split < 2)
        t_error(t_tr("%s: the text has %lld characters; its last tenth, the validation text, must hold at least 2 "
                     "(a character and the one after it to predict)"), what, (long long)n);
    return split;
}

/* The real lines the heads are drawn over: the first two lines of the validation text, at most
 * 24 characters. Returns how many characters. */
static int64_t two_lines(const int32_t *cps, int64_t n) {
    int64_t T = 0, lines = 0;
    while (T < n && T < 24 && lines < 2) lines += cps[T++] == '\n';
    return T;
}

/* --dump DIR of a training run: the curves of the steps this run made and the heads over real
 * lines of the validation text, for make plots (scripts/plot_ch13.py). */
static void dump_training(const char *dir, const Transformer *m, const Tensor *train_loss, const Tensor *val_loss,
                          const int32_t *ids, const int32_t *cps, int64_t n) {
    npy_make_dir(dir);
    npy_save_in(dir, "train_loss", train_loss);   /* (steps, 2): step, the batch's loss before it */
    npy_save_in(dir, "val_loss", val_loss);       /* (k, 2): step, the validation loss after it   */
    int64_t T = two_lines(cps, n);
    Tensor *chars = t_zeros(SHAPE(T));             /* the characters' code points (exact in float32) */
    for (int64_t t = 0; t < T; t++) t_data(chars)[t] = (float)cps[t];
    npy_save_in(dir, "chars", chars);
    Tensor **attn = (Tensor **)t_alloc(sizeof *attn * (size_t)m->args.n_layers);
    transformer_forward(m, ids, 1, T, attn);
    for (int64_t l = 0; l < m->args.n_layers; l++) {
        char name[32];
        snprintf(name, sizeof name, "attn_%lld", (long long)l);
        npy_save_in(dir, name, t_select(attn[l], 0, 0));   /* (n_heads, T, T) */
    }
}

static Transformer *trained;   /* what run_train made, and its tokenizer */
static Tokenizer *trained_tok;
static double trained_val;
static bool default_run;       /* run_train trains the default run's checkpoint (it resumes by itself) */

/* Ctrl-C (SIGINT) or SIGTERM while training: the step under way finishes, then the run writes
 * OUT.bin, OUT.tok and OUT.state and ends; a second signal, or one outside training, ends the
 * run at once and leaves nothing (as every chapter's runs). */
static volatile sig_atomic_t training = 0, stop_signal = 0;

static void on_signal_while_training(int sig) {
    if (training && !stop_signal && (sig == SIGINT || sig == SIGTERM)) {
        stop_signal = sig;
        return;
    }
    out_fail();
    p_die_of_signal(sig);
}

/* What the default run trains, in one line, kept beside its checkpoint (ch13/tang.run): the
 * configuration, the model and the text (its length and hash). A checkpoint whose line is not
 * this program's (trained by an older default, or before fortunes-zh was installed) is trained
 * again rather than looked inside as if it were the default model. */
static void default_run_line(const Args *args, char *buf, size_t cap) {
    size_t len;
    const char *source;
    char *text = training_text(args->seed, &len, &source);
    Corpus c = corpus_of(source ? source : "generated poems", text, len);
    TrainConfig tc = default_train();
    LlamaConfig lc = default_model(c.vocab_size);
    snprintf(buf, cap,
             "chapter 13's default run: steps %lld, batch %lld x %lld, lr %.9g to %.9g, warmup %lld, weight decay %.9g, "
             "betas %.9g %.9g, eps %.9g, clip %.9g, windows from line starts; dim %lld, hidden_dim %lld, n_layers %lld, "
             "n_heads %lld, n_kv_heads %lld, seq_len %lld, vocab %lld; text %s, %lld characters, hash %016llx\n",
             (long long)tc.steps, (long long)tc.batch, (long long)tc.seq_len, tc.lr, tc.min_lr, (long long)tc.warmup,
             tc.weight_decay, tc.beta1, tc.beta2, tc.eps, tc.grad_clip, (long long)lc.dim, (long long)lc.hidden_dim,
             (long long)lc.n_layers, (long long)lc.n_heads, (long long)lc.n_kv_heads, (long long)lc.max_seq_len,
             (long long)lc.vocab_size, source ? source : "generated poems", (long long)c.n,
             (unsigned long long)hash_text(c.cps, c.n));
}

/* 1 when the file at path holds exactly line. */
static int file_is(const char *path, const char *line) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = strlen(line);
    char *got = (char *)t_alloc(n + 2);
    size_t k = fread(got, 1, n + 1, f);
    fclose(f);
    return k == n && memcmp(got, line, n) == 0;
}

/* The default run's checkpoint at path (ch13/tang.bin beside the program): 1 when it is there and
 * *run_path (ch13/tang.run) holds want, this program's default run line; 0 when there is none (or
 * check is 0: a resumed run); -1 when something else trained it. */
static int default_checkpoint(const Args *args, const char *path, bool check, char **run_path, char *want,
                              size_t cap) {
    size_t n = strlen(path);
    *run_path = (char *)t_alloc(n + 5);
    memcpy(*run_path, path, n - 4);
    strcpy(*run_path + n - 4, ".run");
    default_run_line(args, want, cap);
    FILE *f = check ? fopen(path, "rb") : NULL;
    if (!f) return 0;
    fclose(f);
    return file_is(*run_path, want) ? 1 : -1;
}

/* Trains (or, with --resume, continues from save_to's .state) and saves. Returns 0, or when
 * a signal stopped it, 128 + the signal. */
static int run_train(const Args *args, const char *save_to) {
    training = 1;
    p_catch_signals(on_signal_while_training);
    size_t len;
    const char *source;
    char *text = training_text(args->seed, &len, &source);
    Corpus c = corpus_of(source ? source : "generated poems", text, len);
    const char *name = source ? source : tr("generated poems");
    int64_t split = validation_start(name, c.cps, c.n);   /* the last tenth validates */
    TrainConfig tc = default_train();
    if (split - 1 <= tc.seq_len) tc.seq_len = split - 2 > 1 ? split - 2 : 1;
    LlamaConfig lc = default_model(c.vocab_size);
    if (tc.seq_len < 1 || split - tc.seq_len - 1 < 1)
        t_error(t_tr("%s: the text has %lld characters; training needs more than %lld"), name, (long long)c.n,
                (long long)(tc.seq_len + 2));
    /* what a run holds, before anything is made: the weights, their gradients and AdamW's two moments,
     * and per position the logits and their gradient and every layer's activations (LayerCache) and
     * their gradients, with a factor 2 for the temporaries of the backward */
    int64_t kv_dim = lc.dim / lc.n_heads * lc.n_kv_heads;
    double per_layer = (double)(2 * lc.dim * lc.dim + 2 * lc.dim * kv_dim + 3 * lc.dim * lc.hidden_dim + 2 * lc.dim);
    double P = (double)(lc.vocab_size * lc.dim + lc.dim) + (double)lc.n_layers * per_layer;
    double per_pos = 3.0 * (double)lc.vocab_size + 2.0 * (double)lc.n_layers * (14.0 * (double)lc.dim +
                     4.0 * (double)lc.hidden_dim + 2.0 * (double)lc.n_heads);
    /* + the draws of the init (two per weight), each layer's mask buffer and the corpus (ids, code points) */
    double step_bytes = BUDGET_F4 * (6.0 * P + 2.0 * per_pos * (double)(tc.batch * tc.seq_len) +
                                     (double)(lc.n_layers * lc.max_seq_len * lc.max_seq_len) + 4.0 * (double)c.n) +
                        BUDGET_OVERHEAD;
    budget_refuse_if_over(step_bytes, BUDGET_F4 * (double)(tc.batch * tc.seq_len * lc.vocab_size),
                          tr("the logits of a batch and the weights with AdamW's moments"), "--corpus");
    RunId id = {.steps = tc.steps, .batch = tc.batch, .seq_len = tc.seq_len, .seed = args->seed, .text_n = c.n,
                .text_hash = hash_text(c.cps, c.n)};
    Transformer *m;
    if (resume) {
        m = llama2c_load(save_to);                         /* the weights after the state's step */
        if (m->args.dim != lc.dim || m->args.n_layers != lc.n_layers || m->args.vocab_size != lc.vocab_size ||
            m->args.n_heads != lc.n_heads || m->args.n_kv_heads != lc.n_kv_heads || !m->args.shared ||
            m->args.hidden_dim != lc.hidden_dim || m->args.max_seq_len != lc.max_seq_len)
            t_error(t_tr("%s: not the model this run trains (dim %lld, vocab_size %lld): resume with the corpus it "
                         "was started with"), save_to, (long long)lc.dim, (long long)lc.vocab_size);
    } else {
        m = transformer_new(lc);
        transformer_init(m);                               /* after torch.manual_seed(seed) */
    }
    AdamW *opt = adamw_new(m);
    if (resume) {
        FILE *st = fopen(state_path_of(save_to), "rb");
        if (!st)
            t_error(t_tr("%s: cannot open it: --resume continues a run that --stop-at or Ctrl-C stopped, which "
                         "wrote it beside %s"), state_path_of(save_to), save_to);
        fclose(st);
        load_train_state(state_path_of(save_to), opt, m, &id);   /* m, v, step, the generator */
    }
    int64_t start = opt->step, end = stop_at && stop_at < tc.steps ? stop_at : tc.steps;
    if (end <= start)
        t_error(t_tr("%s: the state is at step %lld; --stop-at %lld is not after it"), state_path_of(save_to),
                (long long)start, (long long)stop_at);
    double H = unigram_entropy(c.ids, split, c.vocab_size);
    if (!narrate_quiet()) {
        narrate_step("Training on %s", source ? source : tr("generated poems"));
        if (!source)
            narrate_say("tang300 is not installed: apt-get install fortunes-zh puts Debian's 313 Tang poems at %s; "
                        "until then the chapter trains on poems it makes up with their line and rhyme shape", TANG300);
        narrate_say("%lld characters, %lld distinct (the vocabulary); %lld for training, %lld for validation",
                    (long long)c.n, (long long)c.vocab_size, (long long)split, (long long)(c.n - split));
        narrate_say("dim %lld, n_layers %lld, n_heads %lld, n_kv_heads %lld, hidden_dim %lld, seq_len %lld: %lld "
                    "parameters", (long long)lc.dim, (long long)lc.n_layers, (long long)lc.n_heads,
                    (long long)lc.n_kv_heads, (long long)lc.hidden_dim, (long long)lc.max_seq_len,
                    (long long)transformer_num_params(m));
        narrate_say("%lld steps of %lld x %lld characters, AdamW lr %g (warmup %lld steps, cosine to %g), clip %g",
                    (long long)tc.steps, (long long)tc.batch, (long long)tc.seq_len, tc.lr, (long long)tc.warmup,
                    tc.min_lr, tc.grad_clip);
        char a[32];
        t_format_bytes(step_bytes, a, sizeof a);
        narrate_say("the run will hold about %s (checked against the memory budget before training)", a);
    }
    int32_t *in = (int32_t *)t_alloc(sizeof *in * (size_t)(tc.batch * tc.seq_len));
    int32_t *tg = (int32_t *)t_alloc(sizeof *tg * (size_t)(tc.batch * tc.seq_len));
    double t0 = stopwatch_seconds(), loss = 0;
    if (start > 0) narrate_say("resuming at step %lld of %lld from %s", (long long)start, (long long)tc.steps,
                               state_path_of(save_to));
    /* --dump: every step's loss, and the validation loss every steps / 12 steps (no draws: the
     * weights are the same with or without it) */
    int64_t every = tc.steps / 12 > 0 ? tc.steps / 12 : 1, n_val = 0;
    Tensor *train_curve = t_zeros(SHAPE(end - start, 2));
    Tensor *val_curve = t_zeros(SHAPE((end - start) / every + 2, 2));
    int32_t line_break = -1;                          /* the id of "\n": windows start at a line's start */
    for (int64_t v = 0; v < c.vocab_size; v++)
        if (c.vocab[v] == '\n') line_break = (int32_t)v;
    int64_t it = start;
    for (; it < end && !stop_signal; it++) {
        get_batch(c.ids, split, tc.batch, tc.seq_len, line_break, in, tg);
        loss = train_step(m, opt, &tc, in, tg, lr_at(&tc, it));
        if (args->dump) {
            t_data(train_curve)[2 * (it - start)] = (float)(it + 1);
            t_data(train_curve)[2 * (it - start) + 1] = (float)loss;
            if ((it + 1) % every == 0 && it + 1 < tc.steps) {
                t_data(val_curve)[2 * n_val] = (float)(it + 1);
                t_keep_release();   /* the steps' kept memory (train_step) goes before this forward */
                double v = evaluate(m, c.ids + split, c.n - split, lc.max_seq_len, 1000000);
                t_data(val_curve)[2 * n_val++ + 1] = (float)v;
            }
        }
        double el = stopwatch_seconds() - t0;
        progress(it + 1, tc.steps, loss, (double)((it + 1 - start) * tc.batch * tc.seq_len) / el, el);
    }
    training = 0;
    t_keep_release();   /* the steps' kept memory (train_step) */
    if (budget_progress_shown()) fprintf(stderr, "\r%60s\r", "");
    if (it < tc.steps) {   /* stopped early: the weights, their tokenizer and the state */
        save_checkpoint(save_to, m);
        save_tokenizer(tok_path_of(save_to), char_tokenizer(&c));
        save_train_state(state_path_of(save_to), opt, m, &id);
        const char *then = default_run ? tr("the next run continues") : tr("--resume continues");
        if (stop_signal) {
            fprintf(stderr, tr("%s: stopped by a signal after step %lld of %lld: %s and %s written; %s\n"),
                    "chapter13", (long long)it, (long long)tc.steps, save_to, state_path_of(save_to), then);
            return 128 + stop_signal;
        }
        narrate_result_text("stopped after step %lld of %lld: %s and %s written; %s", (long long)it,
                            (long long)tc.steps, save_to, state_path_of(save_to), then);
        return 0;
    }
    double secs = stopwatch_seconds() - t0;
    if (!narrate_quiet()) {
        char a[32];
        t_format_bytes((double)t_peak_bytes(), a, sizeof a);
        narrate_say("the run held at most %s at once (measured)", a);
    }
    double val = evaluate(m, c.ids + split, c.n - split, lc.max_seq_len, 1000000);
    trained = m, trained_tok = char_tokenizer(&c), trained_val = val;
    if (args->dump) {
        t_data(val_curve)[2 * n_val] = (float)tc.steps;
        t_data(val_curve)[2 * n_val++ + 1] = (float)val;
        dump_training(args->dump, m, train_curve, t_slice(val_curve, 0, 0, n_val), c.ids + split, c.cps + split,
                      c.n - split);
    }
    save_checkpoint(save_to, m);                       /* written whole at the run's end */
    save_tokenizer(tok_path_of(save_to), trained_tok);
    remove(state_path_of(save_to));                    /* the run is whole: no state to resume */
    narrate_result_text("trained %lld steps in %.1f s (%.0f tokens/s); last batch loss %.4f", (long long)(tc.steps - start),
                        secs, (double)((tc.steps - start) * tc.batch * tc.seq_len) / secs, loss);
    narrate_result_text("unigram entropy of the training text %.4f (a model that ignores context)", H);
    return 0;
}

/* ---- looking inside a trained model -------------------------------------------------------------------- */

/* llama2.c's sentencepiece tokenizer.bin (<s> at id 1, the byte pieces after it), not a character one. */
static bool is_bpe(const Tokenizer *tok) {
    return tok->vocab_size > 258 && strcmp(tok->vocab[1], "<s>") == 0;
}

/* Text of ids (after prev: BOS's leading space is dropped by llama2.c's decode). */
static char *text_of(const Tokenizer *tok, int32_t prev, const int32_t *ids, int64_t n) {
    size_t len = 1;
    for (int64_t i = 0; i < n; i++) len += (size_t)tok->lens[ids[i]];
    char *s = (char *)t_alloc(len), *p = s;
    for (int64_t i = 0; i < n; i++) {
        const char *piece = is_bpe(tok) ? bpe_decode(tok, i ? ids[i - 1] : prev, ids[i]) : tok->vocab[ids[i]];
        size_t k = strlen(piece);
        memcpy(p, piece, k), p += k;
    }
    *p = 0;
    return s;
}

/* A text of several lines, one narrated line each (narration shows a line break inside a
 * line as \n). */
static void say_lines(const char *s) {
    while (*s) {
        const char *nl = strchr(s, '\n');
        int len = nl ? (int)(nl - s) : (int)strlen(s);
        if (len > 0) narrate_say("%.*s", len, s);
        s += len + (nl ? 1 : 0);
    }
}

/* --prompt TEXT: llama2.c's BPE encode (with BOS) for its tokenizer, else one id per character. */
static int32_t *encode_prompt(const Tokenizer *tok, const char *text, int64_t *n) {
    if (is_bpe(tok)) return bpe_encode(tok, text, true, n);
    Corpus c = corpus_from_tokenizer(tokenizer_file, tok);
    return corpus_encode(&c, "--prompt", text, strlen(text), n);
}

/* header: the title and the model first (not after a training run, which said them) */
static int run_generate(const Args *args, const Transformer *m, const Tokenizer *tok, bool header) {
    int64_t n;
    int32_t *prompt = encode_prompt(tok, prompt_text, &n);
    if (n < 1) return usage("--prompt is empty: give at least one character");
    if (n + n_generate > m->args.max_seq_len) {
        fprintf(stderr, tr("%s: --prompt (%lld tokens) and --generate %lld pass the model's seq_len %lld (see --help)\n"),
                "chapter13", (long long)n, (long long)n_generate, (long long)m->args.max_seq_len);
        return EXIT_USAGE;
    }
    if (header) narrate_header(m);
    int32_t *out = (int32_t *)t_alloc(sizeof *out * (size_t)n_generate);
    generate(m, prompt, n, n_generate, temperature, top_p, out);
    if (!narrate_quiet()) {
        narrate_step("Generation through the KV cache");
        narrate_torch(temperature > 0 ? "probs = torch.softmax(logits / temperature, -1); top-p; torch.multinomial"
                                      : "next_token = torch.argmax(logits, -1)   # temperature 0: greedy");
        narrate_say("temperature %g, top_p %g, %lld new tokens after a prompt of %lld", temperature, top_p,
                    (long long)n_generate, (long long)n);
    }
    printf("%s%s\n", prompt_text, text_of(tok, prompt[n - 1], out, n_generate));
    int32_t *all = (int32_t *)t_alloc(sizeof *all * (size_t)(n + n_generate));   /* prompt, then what followed */
    memcpy(all, prompt, sizeof *all * (size_t)n);
    memcpy(all + n, out, sizeof *all * (size_t)n_generate);
    if (args->dump) {   /* the forward of the whole sequence, as --tokens of these ids would write it */
        Tensor **attn = (Tensor **)t_alloc(sizeof *attn * (size_t)m->args.n_layers);
        Tensor *logits = transformer_forward(m, all, 1, n + n_generate, attn);   /* (1, T, vocab) */
        dump_forward(args->dump, m, all, n + n_generate, t_select(logits, 0, 0), attn);
    }
    if (!narrate_quiet()) {   /* the heads of layer 0 over the prompt and what followed (at most 24 tokens) */
        int64_t T = n + n_generate < 24 ? n + n_generate : 24;
        Tensor **attn = (Tensor **)t_alloc(sizeof *attn * (size_t)m->args.n_layers);
        transformer_forward(m, all, 1, T, attn);
        const char **labels = (const char **)t_alloc(sizeof *labels * (size_t)T);
        for (int64_t t = 0; t < T; t++) labels[t] = label_of(tok, all[t]);
        narrate_step("Every head's attention weights, layer 0 (rows: queries, columns: keys)");
        HeatmapOptions o = {.title = tr("layer 0"), .rows = labels, .cols = labels, .ascii = args->ascii,
                            .row_scale = args->row_scale, .scores = masked_like(attn[0])};
        heatmap_print_all(attn[0], &o);
    }
    return 0;
}

static const char *const ROLE_NAMES[N_TABLE_ROLES] = {"prev char", "same place", "next place", "line start", "punct"};

/* The default run's look inside: heads over a real line, the roles table, a generated poem. */
static void look_inside(const Args *args, const Transformer *m, const Tokenizer *tok, uint64_t seed) {
    size_t len;
    const char *source;
    char *text = training_text(seed, &len, &source);
    Corpus c = corpus_from_tokenizer("the checkpoint's .tok", tok);
    int64_t n;
    int32_t *ids = corpus_encode(&c, source ? source : "generated poems", text, len, &n);
    int32_t *cps = utf8_decode("text", (const unsigned char *)text, len, &n);
    int64_t split = validation_start(source ? source : tr("generated poems"), cps, n);
    int64_t T = two_lines(cps + split, n - split);   /* a real line, and the next */
    const char **labels = (const char **)t_alloc(sizeof *labels * (size_t)T);
    for (int64_t t = 0; t < T; t++) {
        char *u = (char *)t_alloc(8);
        if (cps[split + t] == '\n') strcpy(u, "\\n");
        else u[utf8_encode(cps[split + t], u)] = 0;
        labels[t] = u;
    }
    Tensor **attn = (Tensor **)t_alloc(sizeof *attn * (size_t)m->args.n_layers);
    transformer_forward(m, ids + split, 1, T, attn);
    narrate_step("Every head's attention over two lines it never trained on");
    say_lines(text_of(tok, -1, ids + split, T));
    for (int64_t l = 0; l < m->args.n_layers && !narrate_quiet(); l++) {
        char title[32];
        snprintf(title, sizeof title, tr("layer %lld"), (long long)l);
        HeatmapOptions o = {.title = title, .rows = labels, .cols = labels, .ascii = args->ascii,
                            .row_scale = args->row_scale, .scores = masked_like(attn[l])};
        heatmap_print_all(attn[l], &o);
    }
    narrate_step("What each head looks at, measured on the validation text");
    HeadRole *roles = (HeadRole *)t_alloc(sizeof *roles * (size_t)(m->args.n_layers * m->args.n_heads));
    /* in windows of seq_len (one window of the whole text when it is shorter) */
    int64_t window = n - split < m->args.max_seq_len ? n - split : m->args.max_seq_len;
    head_roles(m, ids + split, cps + split, n - split, window, 1000000, roles);
    {   /* the header, each name padded to its column by display width (a Chinese character is 2) */
        char header[160];
        size_t used = 0;
        const char *name[1 + N_TABLE_ROLES] = {tr("head"), tr(ROLE_NAMES[0]), tr(ROLE_NAMES[1]), tr(ROLE_NAMES[2]),
                                               tr(ROLE_NAMES[3]), tr(ROLE_NAMES[4])};
        for (int k = 0; k <= N_TABLE_ROLES; k++) {
            int width = k == 0 ? 6 : 13, pad = width - lang_columns(name[k], strlen(name[k]));
            int wrote = snprintf(header + used, sizeof header - used, "%s%*s", name[k], pad > 1 ? pad : 1, "");
            if (wrote > 0 && (size_t)wrote < sizeof header - used) used += (size_t)wrote;
        }
        while (used > 0 && header[used - 1] == ' ') header[--used] = '\0';
        narrate_say("%s", header);
    }
    int best = 0, best_role = ROLE_SAME_POS;
    for (int i = 0; i < (int)(m->args.n_layers * m->args.n_heads); i++) {
        HeadRole *r = &roles[i];
        char cell[N_TABLE_ROLES][40];
        for (int k = 0; k < N_TABLE_ROLES; k++)
            snprintf(cell[k], sizeof cell[k], "%.2f %.1fx", r->mass[k], head_role_ratio(r, k));
        narrate_say("%lld.%lld   %-12s %-12s %-12s %-12s %-12s", (long long)(i / m->args.n_heads),
                    (long long)(i % m->args.n_heads), cell[0], cell[1], cell[2], cell[3], cell[4]);
        for (int k = ROLE_SAME_POS; k <= ROLE_NEXT_POS; k++)
            if (head_role_ratio(r, k) > head_role_ratio(&roles[best], best_role)) best = i, best_role = k;
    }
    narrate_say("(the mean weight of the head's queries on each place, then that over what a head spreading its "
                "weight evenly over the keys it sees puts there; same place: the query's place in the line before; "
                "next place: the one after it, facing the character to predict)");
    HeadRole *b = &roles[best];
    narrate_result_text("head %lld.%lld looks back to the previous line most: %.2f of its weight, %.1fx uniform",
                        (long long)(best / m->args.n_heads), (long long)(best % m->args.n_heads), b->mass[best_role],
                        head_role_ratio(b, best_role));
    narrate_say(best_role == ROLE_SAME_POS ? "(on the same place in the previous line)"
                                           : "(on the previous line's character facing the one to predict)");
    narrate_say("within a couplet (the line before ends in a comma): %.1fx on the same place, %.1fx on the next "
                "place; after any other mark: %.1fx and %.1fx",
                head_role_ratio(b, ROLE_SAME_IN), head_role_ratio(b, ROLE_NEXT_IN),
                head_role_ratio(b, ROLE_SAME_ACROSS), head_role_ratio(b, ROLE_NEXT_ACROSS));
    narrate_why("a line of a poem answers the line before it character by character (对仗): a head that looks "
                "back to the facing place has learned where the character to answer stands; the table says how far "
                "each head got. 对仗 pairs the two lines of a couplet (联), the one ending in a comma and the next; "
                "the last line says how much more the head looks back within a couplet than across one.");
    /* a poem from the first character of the validation text, drawn after torch.manual_seed(seed)
     * again: the same poem whether this run trained the model first or loaded it */
    narrate_step("A poem through the KV cache (temperature %g, top_p %g)", temperature, top_p);
    t_manual_seed(seed);
    int32_t *out = (int32_t *)t_alloc(sizeof *out * (size_t)(m->args.max_seq_len));
    int64_t gen = m->args.max_seq_len - 1 < 48 ? m->args.max_seq_len - 1 : 48;
    generate(m, ids + split, 1, gen, temperature, top_p, out);
    char *first = text_of(tok, -1, ids + split, 1), *rest = text_of(tok, ids[split], out, gen);
    char *poem = (char *)t_alloc(strlen(first) + strlen(rest) + 1);
    say_lines(strcat(strcpy(poem, first), rest));
}

/* The default run: the chapter's checkpoint beside the program (ch13/tang.bin), trained on the
 * first run (or when another configuration trained it), then looked inside. */
static int run_default(const Args *args, const char *argv0) {
    size_t n = strlen(argv0);
    while (n > 0 && argv0[n - 1] != '/') n--;
    char *path = (char *)t_alloc(n + 32);
    memcpy(path, argv0, n);
    strcpy(path + n, "ch13/tang.bin");
    /* a run stopped by Ctrl-C left tang.bin and tang.state: this one continues it */
    FILE *st = fopen(state_path_of(path), "rb");
    if (st) fclose(st), resume = true;
    char want[1024], *run_path;
    int have = default_checkpoint(args, path, !resume, &run_path, want, sizeof want);
    if (have == 1 && (args->dump || stop_at))
        return usage("--dump and --stop-at are for a training run, and the chapter's checkpoint is trained "
                     "already: delete ch13/tang.bin beside the program to train it again, or train your own "
                     "with --save OUT.bin");
    narrate_title("Chapter 13: a tiny LLaMA2 (Happy-LLM 5.1) in C");
    if (have == -1)
        narrate_say("%s was not trained by this program's default run (%s is missing or says another "
                    "configuration or text): training it again", path, run_path);
    Transformer *m;
    Tokenizer *tok;
    if (have == 1) {
        m = llama2c_load(path);
        tok = tokenizer_load(tok_path_of(path), m->args.vocab_size);
        narrate_say("the chapter's checkpoint: %s (delete it to train again)", path);
        narrate_model(m);
    } else {
        char *dir = (char *)t_alloc(n + 8);
        memcpy(dir, path, n + 4);
        dir[n + 4] = 0;
        out_make_dir(dir);
        if (!resume && have == 0)
            narrate_say("no checkpoint at %s yet: training the default configuration first (under 3 minutes on "
                        "2 cores), then saving it there", path);
        default_run = true;
        int rc = run_train(args, path);
        if (rc != 0 || !trained) return rc;
        narrate_result_text("val loss %.4f", trained_val);
        OutFile *rf = out_open(run_path);   /* what it was trained with (written whole, as the checkpoint) */
        fputs(want, out_stream(rf));
        out_close(rf, ferror(out_stream(rf)) ? EIO : 0);
        m = trained, tok = trained_tok;
    }
    tokenizer_file = tok_path_of(path);
    look_inside(args, m, tok, args->seed);
    return 0;
}

int main(int argc, char **argv) {
    CliSpec spec = {
        .program = "chapter13",
        .summary = "Chapter 13: a tiny LLaMA2 (Happy-LLM 5.1's Transformer) trained in C on Tang\n"
                   "poems, its heads drawn over real characters; llama2.c's .bin checkpoints.\n"
                   "Default: train (first run) or load build/ch13/tang.bin, then look inside.\n"
                   "--save OUT.bin [--corpus FILE --train-steps N]: train, write OUT.bin and\n"
                   "OUT.tok. --checkpoint M.bin --tokens 3,1,4 [--dump DIR]: tokens.npy,\n"
                   "logits.npy and attn_L.npy; --batch-tokens B.npy --grad-dump DIR: loss.npy\n"
                   "and every gradient; --prompt TEXT --generate N [--dump DIR]: text through\n"
                   "the KV cache (--dump: the forward of the prompt and what followed).",
        .flags = CLI_SEED | CLI_QUIET | CLI_DUMP | CLI_HEATMAP,
        .defaults = {.seed = 123},
        .extra = chapter13_flags,
        .messages = chapter13_zh,
    };
    Args args = program_start(&spec, argc, argv);
    char err[400];
    if ((prompt_text != NULL) != (n_generate > 0)) return usage("--prompt and --generate go together");
    if (save_file) {
        if (checkpoint_file || tokens_text || batch_file)
            return usage("--save trains a new model; it does not take --checkpoint, --tokens or --batch-tokens");
        if (out_check_target("--save", save_file, 0, err, sizeof err) != 0) return usage(err);
        if (!narrate_quiet()) narrate_title("Chapter 13: a tiny LLaMA2 (Happy-LLM 5.1) in C");
        int rc = run_train(&args, save_file);
        if (rc == 0 && trained && prompt_text) {
            tokenizer_file = tok_path_of(save_file);
            rc = run_generate(&args, trained, trained_tok, false);
        }
        if (rc == 0 && trained) narrate_result_text("val loss %.4f", trained_val);
        t_scope_end();
        return rc;
    }
    if ((resume || stop_at) && checkpoint_file)
        return usage("--resume and --stop-at are for training (--save OUT.bin, or the default run), not --checkpoint");
    if (!checkpoint_file) {
        if (tokens_text || batch_file || prompt_text)
            return usage("--tokens, --batch-tokens and --prompt need --checkpoint M.bin (or --save to train)");
        if (corpus_file || train_steps)
            return usage("--corpus and --train-steps train a model of your own: give --save OUT.bin to keep it "
                         "(the default run keeps its own checkpoint); --checkpoint M.bin --corpus FILE looks "
                         "inside a model on that text");
        int rc = run_default(&args, argv[0]);
        t_scope_end();
        return rc;
    }
    if (prompt_text && (tokens_text || batch_file)) return usage("--prompt is its own run; give it without --tokens or --batch-tokens");
    if (batch_file && tokens_text) return usage("--tokens and --batch-tokens are two runs; give one");
    if (corpus_file && (tokens_text || batch_file || prompt_text))
        return usage("--checkpoint with --corpus looks inside the model on that text; give it without --tokens, "
                     "--batch-tokens or --prompt");
    if (bench_rounds && (!batch_file || grad_dir))
        return usage("--bench times training steps on --batch-tokens FILE; give it without --grad-dump");
    if (!batch_file && !tokens_text && !prompt_text && !corpus_file)
        return usage("give --tokens LIST (a forward), --batch-tokens FILE (gradients) or --prompt TEXT --generate N");
    if (grad_dir && !batch_file) return usage("--grad-dump needs --batch-tokens");
    if (args.dump && !tokens_text && !prompt_text) return usage("--dump writes the forward of --tokens or of --prompt and what --generate added");
    if (grad_dir && out_check_target("--grad-dump", grad_dir, 1, err, sizeof err) != 0) return usage(err);
    Transformer *m = llama2c_load(checkpoint_file);
    if ((prompt_text || corpus_file) && !tokenizer_file) tokenizer_file = tok_path_of(checkpoint_file);
    Tokenizer *tok = tokenizer_file ? tokenizer_load(tokenizer_file, m->args.vocab_size) : NULL;
    if (corpus_file) {
        narrate_header(m);
        look_inside(&args, m, tok, args.seed);   /* the heads on --corpus's validation tenth */
        t_scope_end();
        return 0;
    }
    if (prompt_text) {
        int rc = run_generate(&args, m, tok, true);
        t_scope_end();
        return rc;
    }
    int rc = bench_rounds ? run_bench(m) : batch_file ? run_grads(m) : run_tokens(&args, m, tok);
    t_scope_end();
    return rc;
}
