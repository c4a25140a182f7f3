/* main.c — chapter 13: a tiny LLaMA2 (Happy-LLM 5.1's k_model.py Transformer) in C.
 *
 *     build/chapter13 --checkpoint M.bin [--tokenizer T.bin] --tokens 3,1,4,1,5 [--dump DIR]
 *         the forward of a llama2.c checkpoint: logits.npy (T, vocab), attn_L.npy (n_heads, T, T)
 *     build/chapter13 --checkpoint M.bin --batch-tokens B.npy --grad-dump DIR
 *         loss.backward() by hand: loss.npy and one gradient per parameter, named by
 *         k_model.py's state-dict keys (layers.0.attention.wq.weight.npy), (out, in) layout
 *
 * The narrated run (without --quiet) says what the model is, where each piece comes from
 * (chapter 11's Attention, chapter 8's flash, chapter 10's and 12's backwards) and draws
 * each head's attention over the tokens.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chapters/13_tiny_llama/tiny_llama_setup.h"

extern const LangPair chapter13_zh[]; /* zh.c: this program's sentences in Chinese (lang.h) */

/* ---- this chapter's flags ------------------------------------------------------------------ */

static const char *checkpoint_file;  /* --checkpoint M.bin   */
static const char *tokenizer_file;   /* --tokenizer T.bin    */
static const char *tokens_text;      /* --tokens 3,1,4       */
static const char *batch_file;       /* --batch-tokens B.npy */
static const char *grad_dir;         /* --grad-dump DIR      */

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
        HeatmapOptions o = {.title = "layer 0", .rows = labels, .cols = labels, .ascii = args->ascii};
        heatmap_print_all(attn[0], &o);   /* (1, n_heads, T, T): one grid per head */
        narrate_why("each row sums to 1 over the keys at or before its query (the causal mask of chapter 4).");
    }
    narrate_result("logits[-1, :8]", t_slice(t_select(l0, 0, T - 1), 0, 0, m->args.vocab_size < 8 ? m->args.vocab_size : 8));
    if (args->dump) {
        npy_make_dir(args->dump);
        npy_save_in(args->dump, "logits", l0);
        for (int64_t l = 0; l < m->args.n_layers; l++) {
            char name[32];
            snprintf(name, sizeof name, "attn_%lld", (long long)l);
            npy_save_in(args->dump, name, t_select(attn[l], 0, 0));   /* (n_heads, T, T) */
        }
    }
    return 0;
}

/* ---- loss.backward() of --batch-tokens ------------------------------------------------------- */

static int run_grads(const Transformer *m) {
    int64_t B, cols;
    int32_t *batch = load_batch_tokens(batch_file, m->args.vocab_size, &B, &cols);
    int64_t T = cols - 1;
    if (T > m->args.max_seq_len)
        t_error("%s: the batch has %lld inputs per row, more than the model's seq_len %lld", batch_file, (long long)T,
                (long long)m->args.max_seq_len);
    /* inputs = batch[:, :-1], targets = batch[:, 1:] */
    int32_t *inputs = (int32_t *)t_alloc(sizeof *inputs * (size_t)(B * T));
    int32_t *targets = (int32_t *)t_alloc(sizeof *targets * (size_t)(B * T));
    for (int64_t b = 0; b < B; b++)
        for (int64_t t = 0; t < T; t++) inputs[b * T + t] = batch[b * cols + t], targets[b * T + t] = batch[b * cols + t + 1];
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
            narrate_say("  %-40s %s", m->params[i].name, t_shape_str(grads[i], s));
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

int main(int argc, char **argv) {
    CliSpec spec = {
        .program = "chapter13",
        .summary = "Chapter 13: a tiny LLaMA2 (Happy-LLM 5.1's Transformer) in C, llama2.c's\n"
                   ".bin checkpoints. --checkpoint M.bin --tokens 3,1,4 [--dump DIR]: logits.npy\n"
                   "(T, vocab) and attn_L.npy (n_heads, T, T) per layer. --batch-tokens B.npy\n"
                   "(int32 (B, T + 1)) --grad-dump DIR: loss.npy and one gradient per parameter,\n"
                   "named by k_model.py's state-dict keys.",
        .flags = CLI_SEED | CLI_QUIET | CLI_DUMP | CLI_HEATMAP,
        .defaults = {.seed = 123},
        .extra = chapter13_flags,
        .messages = chapter13_zh,
    };
    Args args = program_start(&spec, argc, argv);
    if (!checkpoint_file) return usage("give --checkpoint M.bin (llama2.c's .bin)");
    if (batch_file && tokens_text) return usage("--tokens and --batch-tokens are two runs; give one");
    if (!batch_file && !tokens_text) return usage("give --tokens LIST (a forward) or --batch-tokens FILE (gradients)");
    if (grad_dir && !batch_file) return usage("--grad-dump needs --batch-tokens");
    if (args.dump && !tokens_text) return usage("--dump writes the forward of --tokens");
    if (grad_dir) {
        char err[400];
        if (out_check_target("--grad-dump", grad_dir, 1, err, sizeof err) != 0) return usage(err);
    }
    Transformer *m = llama2c_load(checkpoint_file);
    Tokenizer *tok = tokenizer_file ? tokenizer_load(tokenizer_file, m->args.vocab_size) : NULL;
    if (!narrate_quiet()) {
        narrate_title("Chapter 13: a tiny LLaMA2 (Happy-LLM 5.1) in C");
        narrate_model(m);
    }
    int rc = batch_file ? run_grads(m) : run_tokens(&args, m, tok);
    t_scope_end();
    return rc;
}
