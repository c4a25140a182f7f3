/* main.c — chapter 1: dot-product attention as a soft dictionary lookup
 * (Happy-LLM 2.1.1–2.1.3), not scaled yet.
 *
 * The default run starts from Happy-LLM's dictionary (apple 10, banana 5,
 * chair 2: weights 0.6, 0.4, 0 give 8), then attends over the six tokens of
 * "Your journey starts with one step" with query = key = value = inputs:
 * the scores of one query ("journey"), its weights, why softmax subtracts the
 * row max (the naive formula overflows once scores reach ~100), its context
 * vector, and then all six queries at once as matrices.
 *
 *     build/chapter1                                   the sentence
 *     build/chapter1 --heatmap                         and its 6x6 weights as a picture
 *     build/chapter1 --seq-len 8 --d-k 4               random query, key, value (8, 4)
 *     build/chapter1 --q q.npy --k k.npy --v v.npy --output out.npy
 */
#include <stdio.h>

#include "common/program/program.h"
#include "chapters/01_dot_product/dot_product_setup.h"

/* The sentence and its six words live in dot_product.c (chapters 2 and 4 reuse them);
 * loading, the budget, the heatmap and the files in dot_product_setup.c (so do theirs). */

/* ---- the soft dictionary --------------------------------------------------- */

static void soft_dictionary(void) {
    narrate_step("Attention is a dictionary lookup made soft");
    narrate_torch("d = {\"apple\": 10, \"banana\": 5, \"chair\": 2};  d[\"apple\"]   # -> 10");
    narrate_say("A dictionary returns the value of the one key that equals the query. Asked for "
                "\"fruit\", it finds no such key. A soft lookup instead gives every key a weight "
                "for how well it matches the query, and returns the weighted sum of the values:");
    narrate_torch("weights = torch.tensor([[0.6, 0.4, 0.0]]); values = torch.tensor([[10.], [5.], [2.]])");
    Tensor *weights = t_from_array(SHAPE(1, 3), (const float[]){0.6f, 0.4f, 0.0f}); /* (1, 3): apple banana chair */
    Tensor *values = t_from_array(SHAPE(3, 1), (const float[]){10.0f, 5.0f, 2.0f}); /* (3, 1) */
    narrate_torch("torch.matmul(weights, values)   # 0.6*10 + 0.4*5 + 0*2");
    narrate_show("fruit", weighted_sum(weights, values)); /* (1, 1): 8 */
    narrate_why("attention does exactly this: the weights come from how well the query matches "
                "each key, and the answer is the weighted sum of the values.");
}

/* ---- one query: "journey" ----------------------------------------------------- */

static void sentence(const Tensor *inputs) {
    narrate_step("The sentence \"Your journey starts with one step\": six tokens, 3 numbers each");
    narrate_torch("inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], ...])   # (6, 3)");
    narrate_show("inputs", inputs);
    narrate_say("rows: Your, journey, starts, with, one, step. Here query = key = value = inputs: "
                "each token asks, is found and answers with its own embedding (chapter 3 gives "
                "each role its own trainable matrix).");
}

static Tensor *journey_scores(const Tensor *inputs) {
    narrate_step("The scores of one query, \"journey\": its dot product with every key");
    narrate_torch("query = inputs[1:2]; scores_2 = torch.matmul(query, inputs.T)");
    Tensor *query = t_slice(inputs, 0, 1, 2);        /* (1, 3): journey */
    Tensor *scores_2 = dot_scores(query, inputs);     /* (1, 6) */
    narrate_show("scores_2", scores_2);
    narrate_say("e.g. journey·Your = 0.55*0.43 + 0.87*0.15 + 0.66*0.89 = %.4f",
                (double)t_get(scores_2, 0, 0));
    narrate_why("a dot product is large when two vectors point the same way: \"starts\" is almost "
                "parallel to \"journey\" and scores %.4f, close to journey's own %.4f.",
                (double)t_get(scores_2, 0, 2), (double)t_get(scores_2, 0, 1));
    return scores_2;
}

static Tensor *journey_weights(const Tensor *scores_2) {
    narrate_step("Softmax turns the scores into weights that are positive and sum to 1");
    narrate_torch("weights_2 = torch.softmax(scores_2, dim=-1)   # exp(x) / exp(x).sum()");
    Tensor *weights_2 = softmax_stable(scores_2);     /* (1, 6) */
    narrate_show("weights_2", weights_2);
    narrate_say("sum of the weights = %.4f", t_sum_all(weights_2));
    narrate_why("scores are any real numbers (before softmax); weights (after softmax) are shares "
                "of attention: journey gives %.1f%% of it to \"starts\" and %.1f%% to \"one\".",
                100.0 * t_get(weights_2, 0, 2), 100.0 * t_get(weights_2, 0, 4));
    return weights_2;
}

static void why_subtract_the_max(const Tensor *inputs) {
    narrate_step("Why softmax subtracts the row max: scores of ~100 overflow exp()");
    narrate_torch("big = inputs * 10; scores_big = torch.matmul(big[1:2], big.T)   # 100x the scores");
    Tensor *big = t_mul_scalar(inputs, 10.0f);                   /* (6, 3), vectors 10x longer */
    Tensor *scores_big = dot_scores(t_slice(big, 0, 1, 2), big); /* (1, 6) */
    narrate_show("scores_big", scores_big);
    narrate_torch("torch.exp(scores_big)   # float32 overflows past exp(88.7)");
    narrate_show("exp", t_exp(scores_big));
    narrate_torch("torch.exp(x) / torch.exp(x).sum(dim=-1, keepdim=True)   # naive");
    narrate_show("naive", softmax_naive(scores_big));
    narrate_torch("torch.exp(x - x.max(dim=-1, keepdim=True).values) / ...sum()   # what F.softmax does");
    narrate_show("stable", softmax_stable(scores_big));
    narrate_why("inf / inf is nan. Subtracting the row max m changes nothing in exact arithmetic "
                "(e^(x-m) / sum e^(x-m): the factor e^-m cancels), but every exp now sees a number "
                "<= 0 and lies in (0, 1].");
}

static void journey_context(const Tensor *weights_2, const Tensor *inputs) {
    narrate_step("The context vector of \"journey\": the weighted sum of the values");
    narrate_torch("context_2 = torch.matmul(weights_2, inputs)   # value = inputs");
    Tensor *context_2 = weighted_sum(weights_2, inputs); /* (1, 3) */
    narrate_show("context_2", context_2);
    narrate_why("it is an average of all six embeddings, pulled towards \"journey\" and \"starts\", "
                "which got the largest weights.");
}

/* ---- all queries at once --------------------------------------------------------- */

/* sentence_notes adds the remarks that tie a row back to "journey" above. */
static void all_scores(const Attention *a, const Tensor *query, const Tensor *key, bool sentence_notes) {
    char qs[T_SHAPE_STR], ks[T_SHAPE_STR], kts[T_SHAPE_STR];
    narrate_step("All queries at once: scores = Q·Kᵀ, shape (..., T, S)");
    narrate_torch("scores = torch.matmul(query, key.transpose(-2, -1))");
    narrate_say("query %s, key %s -> key.transpose(-2, -1) %s", t_shape_str(query, qs), t_shape_str(key, ks),
                t_shape_str(t_transpose(key, -2, -1), kts));
    narrate_show("scores", a->scores);
    if (sentence_notes) narrate_say("scores[1] (the second row: Python counts from 0) is the scores_2 of \"journey\" above.");
    narrate_why("one matrix product computes every query-key dot product: row t holds query t's "
                "scores against all S keys.");
}

static void all_weights(const Attention *a) {
    narrate_step("weights = softmax(scores, dim=-1): each row sums to 1");
    narrate_torch("p_attn = scores.softmax(dim=-1)");
    narrate_show("attn_weights", a->weights);
    narrate_show("row sums", t_sum_last(a->weights));
    narrate_why("dim=-1 normalises over the keys, separately for each query; a column need not sum "
                "to 1.");
}

static void all_outputs(const Attention *a, const Tensor *value, bool sentence_notes) {
    char ws[T_SHAPE_STR], vs[T_SHAPE_STR];
    narrate_step("output = weights·V: one context vector per query");
    narrate_torch("output = torch.matmul(p_attn, value)");
    narrate_say("weights %s @ value %s", t_shape_str(a->weights, ws), t_shape_str(value, vs));
    narrate_show("output", a->output);
    if (sentence_notes) narrate_say("output[1] is the context_2 of \"journey\" above.");
    narrate_why("every output row is a weighted average of the value rows. This chapter does not "
                "scale the scores yet; Happy-LLM divides them by sqrt(d_k) -- chapter 2 shows why.");
}

static Attention all_queries(const Tensor *query, const Tensor *key, const Tensor *value, bool sentence_notes) {
    Attention a = dot_product_attention(query, key, value); /* checks the shapes first */
    all_scores(&a, query, key, sentence_notes);
    all_weights(&a);
    all_outputs(&a, value, sentence_notes);
    return a;
}

/* ---- the two runs ------------------------------------------------------------------ */

/* query, key, value from --q --k --v, random (--seq-len, --d-k), or the sentence
 * (query = key = value = inputs); true for the sentence. */
static bool take_inputs(const Args *args, Tensor **query, Tensor **key, Tensor **value) {
    if (args->q) {
        load_qkv_files(args, query, key, value); /* shapes checked as they are loaded, naming the files */
        check_qkv("dot_product_attention", *query, *key, *value); /* and the scores fit in memory */
    } else if (args->given & (CLI_SEQ_LEN | CLI_D_K)) {
        t_check_fits("query", SHAPE(args->seq_len, args->d_k));
        random_qkv(args->seq_len, args->d_k, query, key, value);
        check_qkv("dot_product_attention", *query, *key, *value);
    } else {
        *query = *key = *value = sentence_inputs(); /* (6, 3) */
        return true;
    }
    return false;
}

/* The default run: the dictionary, then "journey", then every token of the sentence. */
static Attention sentence_run(const Tensor *inputs) {
    soft_dictionary();
    sentence(inputs);
    Tensor *scores_2 = journey_scores(inputs);
    Tensor *weights_2 = journey_weights(scores_2);
    why_subtract_the_max(inputs);
    journey_context(weights_2, inputs);
    return all_queries(inputs, inputs, inputs, true);
}

static void the_inputs(const Tensor *query, const Tensor *key, const Tensor *value, bool from_files) {
    char qs[T_SHAPE_STR], ks[T_SHAPE_STR], vs[T_SHAPE_STR];
    narrate_step("The inputs");
    if (from_files)
        narrate_torch("query, key, value = (torch.from_numpy(np.load(f)) for f in (q, k, v))");
    else
        narrate_torch("query, key, value = (torch.randn(seq_len, d_k) for _ in range(3))");
    narrate_say("query %s (..., T, d_k), key %s (..., S, d_k), value %s (..., S, d_v)",
                t_shape_str(query, qs), t_shape_str(key, ks), t_shape_str(value, vs));
    narrate_show("query", query);
    narrate_show("key", key);
    narrate_show("value", value);
}

/* What this run holds (common/program/budget.h): refused, in one sentence,
 * before any work when it would not fit in memory. */
static void refuse_past_budget(const Args *a) {
    char what[160];
    QKVSizes s = qkv_sizes(a, (double)a->seq_len, (double)a->d_k); /* the sentence: 6, 3 */
    BudgetEstimate e = qkv_attention_estimate(a, &s, 4, what, sizeof what); /* scores, weights, 2 more */
    budget_refuse(&e, a->quiet);
}

/* The flags this run would ignore, as a usage sentence in buf (in the run's language); NULL
 * when every flag given changes the run. A flag that would change nothing is refused, not ignored. */
static const char *flags_that_change_nothing(const Args *a, char *buf, size_t len) {
    char names[64];
    unsigned random_only = a->given & (CLI_SEQ_LEN | CLI_D_K | CLI_SEED);
    if (a->q && random_only)
        snprintf(buf, len,
                 tr("--seq-len and --d-k size a random example and --seed draws it; with --q, --k, --v the files "
                    "give the sizes and the numbers, so it does not take %s"),
                 cli_flag_names(random_only, names, sizeof names));
    else if (!a->q && (a->given & CLI_SEED) && !(a->given & (CLI_SEQ_LEN | CLI_D_K)))
        snprintf(buf, len, "%s",
                 tr("--seed draws the random example of --seq-len and --d-k; the default run (the sentence) has "
                    "nothing random, so give --seed with --seq-len or --d-k"));
    else
        return NULL;
    return buf;
}

int main(int argc, char **argv) {
    CliSpec spec = {
        .program = "chapter1",
        .summary = "Chapter 1: dot-product attention, a soft dictionary lookup\n"
                   "(Happy-LLM 2.1.1-2.1.3), not scaled yet.",
        .flags = CLI_SEED | CLI_QUIET | CLI_DUMP | CLI_HEATMAP | CLI_QKV | CLI_OUTPUT | CLI_SEQ_LEN | CLI_D_K,
        .defaults = {.seed = 123, .seq_len = SENTENCE_TOKENS, .d_k = SENTENCE_DIM},
        .messages = chapter1_zh, /* zh.c: the narration in Chinese (--lang zh) */
    };
    Args args = program_start(&spec, argc, argv);
    char unused[256];
    if (flags_that_change_nothing(&args, unused, sizeof unused)) { /* before any work or output */
        fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter1", unused);
        return EXIT_USAGE;
    }
    refuse_past_budget(&args);
    Tensor *query, *key, *value;
    bool is_sentence = take_inputs(&args, &query, &key, &value);

    narrate_title("Chapter 1: dot-product attention, a soft dictionary lookup (2.1.1-2.1.3)");
    Attention a;
    if (is_sentence) {
        a = sentence_run(query);
    } else {
        the_inputs(query, key, value, args.q != NULL);
        a = all_queries(query, key, value, false);
    }

    /* ---- results ------------------------------------------------------------ */
    print_quiet_results(&a); /* the narration above has shown them already */
    if (args.heatmap) {
        printf("\n");
        draw_attention(&args, "attention weights (rows: queries, columns: keys)", a.weights, NULL,
                       is_sentence ? SENTENCE_WORDS : NULL);
    }

    /* ---- files, only now that everything was computed ------------------------- */
    if (args.dump) {
        npy_make_dir(args.dump);
        save_attention_in(args.dump, &a);
    }
    if (args.output) npy_save(args.output, a.output);

    t_scope_end();
    return EXIT_OK;
}
