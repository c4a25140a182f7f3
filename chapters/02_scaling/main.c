/* main.c — chapter 2: scaled dot-product attention, Happy-LLM 2.1.3.
 *
 * What it shows: Happy-LLM's attention(query, key, value) divides the scores
 * by √d_k before the softmax. First on chapter 1's sentence "Your journey
 * starts with one step" (6 tokens x 3 dims, query = key = value = inputs),
 * side by side with chapter 1's unscaled weights; then the experiment that
 * explains the √d_k: for d_k = 4 ... 1024 the variance of q·k grows like
 * d_k, and without scaling the softmax saturates (one weight near 1, the
 * entropy near 0); divided by √d_k the variance stays near 1.
 *
 *     build/chapter2                      the sentence, then the d_k table
 *     build/chapter2 --d-k 256 --heatmap  random q, k, v of width 256
 *     build/chapter2 --q Q.npy --k K.npy --v V.npy --output OUT.npy
 */
#include "common/program/program.h"
#include "chapters/01_dot_product/dot_product_setup.h"
#include "chapters/02_scaling/scaling.h"

extern const LangPair chapter2_zh[]; /* zh.c: this program's sentences in Chinese (lang.h) */

/* The experiment: d_k values, pairs for the variance, rows for the softmax. */
static const int64_t D_K_TABLE[] = {4, 16, 64, 256, 1024};
#define N_D_K_TABLE ((int)(sizeof D_K_TABLE / sizeof D_K_TABLE[0]))
#define EXP_PAIRS 1000
#define EXP_ROWS 200

/* Largest weight and entropy of each query's row, unscaled -> scaled. */
static void compare_rows(const Tensor *w_unscaled, const Tensor *w_scaled, const char *const *labels) {
    Tensor *max_u = t_max_last(w_unscaled), *max_s = t_max_last(w_scaled); /* (T,) */
    Tensor *ent_u = attention_entropy(w_unscaled), *ent_s = attention_entropy(w_scaled);
    int64_t T = t_size(w_scaled, 0), S = t_size(w_scaled, 1);
    printf("%s\n", tr("    query             largest weight    entropy (uniform = log S)"));
    printf("%s\n", tr("                unscaled      scaled       unscaled        scaled"));
    for (int64_t i = 0; i < T; i++) {
        char name[32];
        if (labels) snprintf(name, sizeof name, "%s", labels[i]);
        else snprintf(name, sizeof name, "%lld", (long long)i);
        printf("    %-9s %10.4f  %10.4f   %12.4f  %12.4f\n", name, t_get(max_u, i), t_get(max_s, i),
               t_get(ent_u, i), t_get(ent_s, i));
    }
    printf(tr("    (uniform: largest weight 1/S = %.4f, entropy log S = %.4f)\n"), 1.0 / (double)S, log((double)S));
}

/* The d_k table (printed with --quiet too: it is the chapter's result).
 * Returns it as an (N, 7) tensor for --dump: d_k, var_unscaled, var_scaled,
 * max_weight_unscaled, max_weight_scaled, entropy_unscaled, entropy_scaled. */
static Tensor *scaling_table(const Args *args) {
    int64_t dks[N_D_K_TABLE + 1];
    int n = 0;
    for (int i = 0; i < N_D_K_TABLE; i++) dks[n++] = D_K_TABLE[i];
    if (args->given & CLI_D_K) { /* add --d-k to the table, in order */
        int at = 0;
        while (at < n && dks[at] < args->d_k) at++;
        if (at == n || dks[at] != args->d_k) {
            for (int j = n; j > at; j--) dks[j] = dks[j - 1];
            dks[at] = args->d_k;
            n++;
        }
    }
    narrate_result_text("Scaling experiment: %d pairs q, k ~ N(0, 1) per d_k; %d rows of %lld scores",
                        EXP_PAIRS, EXP_ROWS, (long long)args->seq_len);
    narrate_result_text("(a uniform row has largest weight 1/%lld = %.3f and entropy log %lld = %.3f)",
                        (long long)args->seq_len, 1.0 / (double)args->seq_len, (long long)args->seq_len,
                        log((double)args->seq_len));
    narrate_result_text("            variance of q·k           largest weight        entropy (nats)");
    narrate_result_text("   d_k    unscaled  scaled by √d_k   unscaled   scaled   unscaled   scaled");
    Tensor *table = t_zeros(SHAPE(n, 7));
    for (int i = 0; i < n; i++) {
        ScalingStats s = measure_scaling(dks[i], EXP_PAIRS, EXP_ROWS, args->seq_len);
        narrate_result_text("%6lld  %10.2f  %14.3f  %9.3f  %7.3f  %9.3f  %7.3f", (long long)s.d_k, s.var_unscaled,
                            s.var_scaled, s.max_weight_unscaled, s.max_weight_scaled, s.entropy_unscaled,
                            s.entropy_scaled);
        double row[7] = {(double)s.d_k,        s.var_unscaled,     s.var_scaled,    s.max_weight_unscaled,
                         s.max_weight_scaled, s.entropy_unscaled, s.entropy_scaled};
        for (int j = 0; j < 7; j++) t_set(table, (float)row[j], i, j);
    }
    return table;
}

/* ---- the steps --------------------------------------------------------- */

/* query, key, value from --q --k --v (loaded by main, before the title), random (--d-k,
 * --seq-len), or chapter 1's sentence (query = key = value = inputs). */
static void the_inputs(const Args *args, Tensor **query, Tensor **key, Tensor **value) {
    if (args->q) {
        char qs[T_SHAPE_STR], ks[T_SHAPE_STR], vs[T_SHAPE_STR];
        narrate_step("Load query, key and value from .npy files");
        narrate_torch("query, key, value = torch.from_numpy(np.load(...)), ...");
        narrate_say("query %s = (..., T, d_k), key %s = (..., S, d_k), value %s = (..., S, d_v)",
                    t_shape_str(*query, qs), t_shape_str(*key, ks), t_shape_str(*value, vs));
    } else if (args->given & (CLI_D_K | CLI_SEQ_LEN)) {
        narrate_step("Random query, key and value: %lld tokens of width d_k = %lld", (long long)args->seq_len,
                     (long long)args->d_k);
        narrate_torch("query, key, value = torch.randn(T, d_k), torch.randn(T, d_k), torch.randn(T, d_k)");
        random_qkv(args->seq_len, args->d_k, query, key, value); /* (T, d_k) each, d_v = d_k */
        narrate_show("query", *query);
        narrate_why("entries with mean 0 and variance 1: the Transformer paper's assumption when it "
                    "explains the sqrt(d_k).");
    } else {
        narrate_step("Chapter 1's sentence \"Your journey starts with one step\": 6 tokens, 3 dims");
        narrate_torch("inputs = torch.tensor([[0.43, 0.15, 0.89], ...])   # query = key = value = inputs");
        Tensor *inputs = sentence_inputs(); /* (6, 3) */
        *query = *key = *value = inputs;
        narrate_show("inputs", inputs);
        narrate_why("the same inputs as chapter 1, so the only change you see is the division by sqrt(d_k).");
    }
}

static Attention unscaled(const Tensor *query, const Tensor *key, const Tensor *value) {
    narrate_step("Chapter 1, unscaled: scores = Q·Kᵀ, weights = softmax(scores)");
    narrate_torch("torch.matmul(query, key.transpose(-2, -1)).softmax(dim=-1)");
    Attention plain = dot_product_attention(query, key, value); /* chapter 1 */
    narrate_show("scores (unscaled)", plain.scores);
    narrate_show("weights (unscaled)", plain.weights);
    return plain;
}

static void the_scale(int64_t d_k) {
    narrate_step("d_k = query.size(-1) = %lld, so the scale is sqrt(%lld) = %.4f", (long long)d_k, (long long)d_k,
                 sqrt((double)d_k));
    narrate_torch("d_k = query.size(-1)");
    narrate_why("d_k is the width of a query (and key); it is the number of products added up in one score.");
}

/* Happy-LLM's attention(): its scores, divided by sqrt(d_k). */
static Attention scaled(const Tensor *query, const Tensor *key, const Tensor *value) {
    narrate_step("Scaled scores: divide every score by sqrt(d_k)");
    narrate_torch("scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)");
    Attention a = attention(query, key, value); /* .scores, .weights = p_attn, .output */
    narrate_show("scores", a.scores);
    narrate_why("the same scores as chapter 1, every one divided by %.4f: the order within a row is unchanged, "
                "only the gaps between scores shrink.",
                sqrt((double)t_size(query, -1)));
    return a;
}

static void scaled_weights(const Attention *a, const Attention *plain, const char *const *labels, const Args *args) {
    narrate_step("p_attn = softmax of the scaled scores, row by row");
    narrate_torch("p_attn = scores.softmax(dim=-1)");
    narrate_result("p_attn", a->weights);
    narrate_why("smaller gaps between scores give a flatter softmax: each query spreads its attention over "
                "more keys.");
    if (!args->q && !narrate_quiet()) {
        narrate_say("Each query's row, chapter 1 (unscaled) -> chapter 2 (scaled):");
        compare_rows(plain->weights, a->weights, labels);
    }
    if (args->heatmap) {
        draw_attention(args, "weights, unscaled (chapter 1)", plain->weights, NULL, labels);
        draw_attention(args, "p_attn, scaled by 1/sqrt(d_k) (chapter 2)", a->weights, NULL, labels);
    }
}

static void scaled_output(const Attention *a) {
    narrate_step("output = p_attn · value: a weighted average of the values");
    narrate_torch("return torch.matmul(p_attn, value), p_attn");
    narrate_result("output", a->output);
    narrate_why("attention() returns both: the output for the next layer, p_attn to look at (as here).");
}

/* The experiment (not with --q: it draws its own q and k); its table, (N, 7). */
static Tensor *why_sqrt_d_k(const Args *args) {
    narrate_step("Why sqrt(d_k)? Measure q·k for random q, k as d_k grows");
    narrate_torch("q, k = torch.randn(n, d_k), torch.randn(n, d_k); (q * k).sum(-1).var()");
    narrate_why("q·k adds d_k products, each of variance 1, so its variance is d_k: the scores spread out "
                "as d_k grows. Softmax of widely spread scores puts almost all weight on one key (max w -> 1, "
                "entropy -> 0), and its gradients vanish. Dividing by sqrt(d_k) divides the variance by d_k: "
                "back to about 1 for every d_k.");
    return scaling_table(args); /* (N, 7) */
}

/* --dump and --output, only after everything above succeeded. */
static void write_outputs(const Args *args, const Attention *a, const Attention *plain, const Tensor *table) {
    if (args->dump) {
        npy_make_dir(args->dump);
        save_attention_in(args->dump, a);                           /* scaled scores, p_attn, output */
        npy_save_in(args->dump, "scores_unscaled", plain->scores);
        npy_save_in(args->dump, "attn_weights_unscaled", plain->weights);
        if (table) npy_save_in(args->dump, "scaling_stats", table); /* the d_k table */
        narrate_say("wrote scores, attn_weights, output, scores_unscaled, attn_weights_unscaled%s .npy to %s",
                    table ? ", scaling_stats" : "", args->dump);
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
    QKVSizes s = qkv_sizes(a, (double)a->seq_len, (double)a->d_k);
    BudgetEstimate e = qkv_attention_estimate(a, &s, 7, what, sizeof what); /* unscaled and scaled */
    double attention_bytes = e.bytes;
    e.flops *= 2;
    if (!a->q) {
        /* the d_k table: EXP_PAIRS pairs (q, k) and EXP_ROWS rows of seq_len random keys for
         * each d_k of D_K_TABLE and --d-k, one d_k at a time */
        double T = s.T, dmax = s.d_k > 1024 ? s.d_k : 1024, sum_dk = s.d_k;
        for (int i = 0; i < N_D_K_TABLE; i++) sum_dk += (double)D_K_TABLE[i];
        double table = BUDGET_F4 * (1.25 * EXP_ROWS * T * dmax + 5 * EXP_PAIRS * dmax);
        e.bytes += table;
        e.flops += 30 * (EXP_ROWS * T + 2 * EXP_PAIRS) * sum_dk; /* a normal draw: a log, a sqrt and a cosine */
        if (BUDGET_F4 * EXP_ROWS * T * dmax > e.largest) e.largest = BUDGET_F4 * EXP_ROWS * T * dmax;
        if (table > attention_bytes) { /* the table dominates: name it, and what lowers it */
            snprintf(what, sizeof what, tr("the d_k table's random q and k: %d pairs and %d rows of %.0f keys, "
                                           "of width up to %.0f"), EXP_PAIRS, EXP_ROWS, T, dmax);
            e.flag = s.d_k > 1024 ? "--d-k or --seq-len" : "--seq-len";
        }
    }
    budget_refuse(&e, a->quiet);
}

/* The flags this run would ignore, as a usage sentence in buf (in the run's language); NULL
 * when every flag given changes the run. A flag that would change nothing is refused, not ignored. */
static const char *flags_that_change_nothing(const Args *a, char *buf, size_t len) {
    char names[64];
    unsigned random_only = a->given & (CLI_SEQ_LEN | CLI_D_K | CLI_SEED);
    if (!a->q || !random_only) return NULL;
    snprintf(buf, len,
             tr("--d-k and --seq-len size random q, k, v and --seed draws them and the d_k table; with --q, --k, "
                "--v the files give the sizes and the numbers and there is no table, so it does not take %s"),
             cli_flag_names(random_only, names, sizeof names));
    return buf;
}

int main(int argc, char **argv) {
    CliSpec spec = {
        .program = "chapter2",
        .messages = chapter2_zh, /* zh.c: the narration in Chinese (--lang zh) */
        .summary = "Chapter 2: scaled dot-product attention, scores / sqrt(d_k), and why\n"
                   "(Happy-LLM 2.1.3). Chapter 1's sentence by default; --d-k or --seq-len:\n"
                   "random q, k, v of that size instead.",
        .flags = CLI_SEED | CLI_SEQ_LEN | CLI_D_K | CLI_QUIET | CLI_DUMP | CLI_HEATMAP | CLI_QKV | CLI_OUTPUT,
        .defaults = {.seed = 123, .seq_len = 6, .d_k = 3},
    };
    Args args = program_start(&spec, argc, argv);
    char unused[320];
    if (flags_that_change_nothing(&args, unused, sizeof unused)) { /* before any work or output */
        fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter2", unused);
        return EXIT_USAGE;
    }
    refuse_past_budget(&args);
    if (!args.q) { /* a single buffer past the budget, which refuse_past_budget leaves to us: before any work */
        if (args.given & (CLI_D_K | CLI_SEQ_LEN)) t_check_fits("randn", SHAPE(args.seq_len, args.d_k)); /* q, k, v */
        t_check_fits("the d_k table's keys",
                     SHAPE(EXP_ROWS, args.seq_len, args.d_k > 1024 ? args.d_k : D_K_TABLE[N_D_K_TABLE - 1]));
    }
    bool sentence = !args.q && !(args.given & (CLI_D_K | CLI_SEQ_LEN));
    const char *const *labels = sentence ? SENTENCE_WORDS : NULL;

    Tensor *query = NULL, *key = NULL, *value = NULL;
    if (args.q) { /* before the title: the files' shapes, said in the run's language and naming the files */
        load_qkv_files(&args, &query, &key, &value);
        check_qkv("attention", query, key, value); /* and the scores fit in memory */
    }

    narrate_title("Chapter 2: scaled dot-product attention (Happy-LLM 2.1.3)");
    the_inputs(&args, &query, &key, &value);
    Attention plain = unscaled(query, key, value);
    the_scale(t_size(query, -1));
    Attention a = scaled(query, key, value);
    scaled_weights(&a, &plain, labels, &args);
    scaled_output(&a);
    Tensor *table = args.q ? NULL : why_sqrt_d_k(&args);
    write_outputs(&args, &a, &plain, table);
    t_scope_end();
    return EXIT_OK;
}
