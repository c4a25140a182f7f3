/* main.c — chapter 4: masked (causal) self-attention, Happy-LLM 2.1.5.
 *
 * Shows, on the chapter-1 sentence "Your journey starts with one step"
 * (q = k = v = its 6 token vectors):
 *   - the mask buffer, torch.triu(torch.full((1, 1, L, L), -inf), diagonal=1),
 *     built once for max_seq_len L (--max-seq-len) and sliced to the sequence length;
 *   - scores + mask before softmax: the weights become lower-triangular and
 *     row 0 ("Your") attends only to itself;
 *   - the second spelling (boolean triu(ones) + masked_fill) giving the same weights;
 *   - that the future cannot leak: changing the last token moves only the last row;
 *   - the diagonal=0 mistake: row 0 is all -inf and softmax gives NaN.
 * --no-causal drops the mask (then it is chapter 2's attention). With --q --k --v
 * it runs masked attention on .npy files instead.
 */
#include <stdio.h>

#include "common/program/program.h"
#include "chapters/01_dot_product/dot_product_setup.h"
#include "chapters/04_causal_mask/causal_mask.h"

extern const LangPair chapter4_zh[]; /* zh.c: this program's sentences in Chinese (lang.h) */

/* --dump DIR and --output FILE, written only after everything was computed. */
static void write_outputs(const Args *args, const Tensor *mask_T, const Attention *a) {
    if (args->dump) {
        npy_make_dir(args->dump);
        if (mask_T) npy_save_in(args->dump, "mask", mask_T); /* (1, 1, T, T) */
        save_attention_in(args->dump, a);                    /* scores scaled and masked, before softmax */
    }
    if (args->output) npy_save(args->output, a->output);
}

/* ---- the narrated demo on the sentence, one function per step -------------- */

/* x (6, 3), query = key = value = x. */
static Tensor *the_sentence(void) {
    narrate_step("The sentence: one vector per token, and query = key = value = x");
    narrate_torch("x = torch.tensor([[0.43, 0.15, 0.89], ...]); query = key = value = x");
    Tensor *x = sentence_inputs();  /* (T, d_k) = (6, 3) */
    narrate_show("x", x);
    narrate_say("tokens: Your journey starts with one step (T = %d)", SENTENCE_TOKENS);
    narrate_why("a language model predicts token t+1 from tokens 0..t, so when it reads \"Your\" "
                "it must not already see \"journey\".");
    return x;
}

static Tensor *scores_as_in_chapter_2(const Tensor *x) {
    const Tensor *query = x, *key = x;
    narrate_step("Scaled scores, exactly as in chapter 2");
    narrate_torch("scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)");
    Tensor *scores = scaled_scores(query, key);  /* (6, 6) */
    narrate_show("scores", scores);
    narrate_why("every row has a score for every token, also for the tokens after it: "
                "row 0 (\"Your\") scores \"step\" too.");
    return scores;
}

/* --no-causal: chapter 2's attention, every key seen. */
static Attention no_mask(const Tensor *x) {
    const Tensor *query = x, *key = x, *value = x;
    narrate_step("No mask (--no-causal): softmax over every key");
    narrate_torch("p_attn = scores.softmax(dim=-1); output = torch.matmul(p_attn, value)");
    Attention a = masked_attention(query, key, value, NULL);  /* = chapter 2's attention() */
    narrate_show("attn_weights", a.weights);
    narrate_show("output", a.output);
    narrate_why("this is chapter 2's attention(): row 0 gives %.4f of its weight to \"step\", a "
                "word that comes after it. Fine for an encoder (BERT), a leak for a language "
                "model; run without --no-causal to mask it.",
                (double)t_get(a.weights, 0, SENTENCE_TOKENS - 1));
    return a;
}

static void mask_buffer(int64_t max_seq_len) {
    char buf[T_SHAPE_STR];
    narrate_step("The mask buffer: max_seq_len x max_seq_len, all -inf");
    narrate_torch("mask = torch.full((1, 1, args.max_seq_len, args.max_seq_len), float(\"-inf\"))");
    Tensor *full = t_full(SHAPE(1, 1, max_seq_len, max_seq_len), -INFINITY);  /* (1, 1, L, L) */
    narrate_say("mask: shape %s, all %lld entries -inf", t_shape_str(full, buf),
                (long long)t_numel(full));
    narrate_why("the model builds it once, in __init__, for the longest sequence it will ever see "
                "(max_seq_len = %lld here, --max-seq-len), and keeps it with register_buffer: saved "
                "with the model, never trained.", (long long)max_seq_len);
    narrate_say("Happy-LLM 2.1.5 builds it 3-D, torch.full((1, L, L), ...), and slices "
                "mask[:, :seqlen, :seqlen]; 2.1.6 builds it 4-D, (1, 1, L, L), for scores of "
                "shape (B, n_heads, T, T), and slices mask[:, :, :seqlen, :seqlen]. Either "
                "broadcasts, but keep each slice with its own mask: mask[:, :, :T, :T] on the "
                "3-D one is an IndexError, and mask[:, :T, :T] on the 4-D one gives "
                "(1, 1, T, L), which fails to add to (B, H, T, T) unless T = L.");
}

static Tensor *keep_above_diagonal(int64_t max_seq_len) {
    narrate_step("Keep -inf only above the diagonal");
    narrate_torch("mask = torch.triu(mask, diagonal=1)");
    Tensor *mask = causal_mask(max_seq_len, 1);  /* (1, 1, L, L) */
    narrate_show("mask", mask);
    narrate_why("triu keeps the entries with column - row >= 1, i.e. j > i: key j comes after "
                "query i (the future) and stays -inf; the diagonal and below become 0.");
    return mask;
}

/* mask[:, :, :T, :T] of the buffer, for the files. */
static Tensor *slice_to_sequence(const Tensor *mask, int64_t seqlen) {
    char buf[T_SHAPE_STR];
    narrate_step("Slice the buffer to this sequence's length");
    narrate_torch("self.mask[:, :, :seqlen, :seqlen]");
    Tensor *mask_T = mask_slice(mask, seqlen);  /* (1, 1, T, T) */
    narrate_show("mask[:, :, :6, :6]", mask_T);
    narrate_layout("mask[:, :, :6, :6]", mask_T);
    narrate_why("the top-left T x T corner of the causal mask is the causal mask of T, so one "
                "buffer serves every length up to max_seq_len; the slice is a view (strides of "
                "the %s buffer), not a copy.", t_shape_str(mask, buf));
    narrate_say("A sequence longer than max_seq_len has no mask to slice: try --max-seq-len 4 and "
                "the program refuses to start with \"sequence length 6 is longer than max_seq_len 4\". "
                "(PyTorch would quietly cut the slice to 4 x 4 and then fail in the addition "
                "with a broadcast error.)");
    return mask_T;
}

static void add_mask(const Tensor *scores, const Tensor *mask) {
    narrate_step("Add the mask to the scores, before softmax");
    narrate_torch("scores = scores + self.mask[:, :, :seqlen, :seqlen]");
    Tensor *masked = apply_causal_mask(scores, mask);  /* (6, 6), -inf above the diagonal */
    narrate_show("scores", masked);
    narrate_why("adding, not multiplying: s + 0 = s keeps the past and the token itself, "
                "s + (-inf) = -inf removes the future. (Multiplying by 0 would leave a score of "
                "0, and softmax still gives exp(0) = 1 a share.)");
}

static Attention causal_softmax(const Tensor *x, const Tensor *mask) {
    const Tensor *query = x, *key = x, *value = x;
    narrate_step("Softmax: the weights are lower-triangular");
    narrate_torch("scores = F.softmax(scores.float(), dim=-1).type_as(xq)");
    Attention a = masked_attention(query, key, value, mask);
    narrate_show("attn_weights", a.weights);
    narrate_show("attn_weights[0]", t_select(a.weights, 0, 0));
    narrate_why("exp(-inf) = 0, so every future token gets weight exactly 0 and each row still "
                "sums to 1 over tokens 0..t. Row 0 (\"Your\") has only itself to look at: "
                "[1, 0, 0, 0, 0, 0].");
    narrate_say(".float() runs the softmax in float32 even when the model computes in float16 "
                "or bfloat16, where exp overflows and small weights round away; .type_as(xq) "
                "casts the weights back to xq's dtype for the matmul with xv. Here everything "
                "is float32 already, so both are no-ops.");
    return a;
}

static void causal_output(const Attention *a) {
    narrate_step("The output: a weighted sum of the values it may see");
    narrate_torch("output = torch.matmul(scores, value)   # value = x");
    narrate_show("output", a->output);
    narrate_why("row t mixes the values of tokens 0..t only; row 0 is the value of \"Your\" "
                "itself.");
}

/* print(mask_bool[:T, :T]) as PyTorch prints a bool tensor: True where the 0 / 1 mask holds 1. */
static void show_bool(const char *name, const Tensor *m) {
    int64_t R = t_size(m, 0), C = t_size(m, 1);
    if (narrate_quiet()) return;
    printf("%s = tensor([", name);
    for (int64_t r = 0; r < R; r++) {
        printf("%s[", r ? ",\n        " : "");
        for (int64_t c = 0; c < C; c++) printf("%s%5s", c ? ", " : "", t_get(m, r, c) != 0.0f ? "True" : "False");
        printf("]");
    }
    printf("])\n  shape (%lld, %lld)\n", (long long)R, (long long)C);
}

static void masked_fill_spelling(const Tensor *scores, const Attention *a, int64_t max_seq_len, int64_t seqlen) {
    narrate_step("The other spelling (Raschka): a boolean mask and masked_fill");
    narrate_torch("mask_bool = torch.triu(torch.ones(T, T), diagonal=1).bool(); "
                  "attn_scores.masked_fill_(mask_bool, -torch.inf)");
    Tensor *mask_bool = causal_mask_bool(max_seq_len);  /* (L, L), 1 = masked */
    char name[64];
    snprintf(name, sizeof name, "mask_bool[:%lld, :%lld]", (long long)seqlen, (long long)seqlen);
    show_bool(name, t_slice(t_slice(mask_bool, 0, 0, seqlen), 1, 0, seqlen));
    Tensor *weights_fill = t_softmax(apply_causal_mask_fill(scores, mask_bool), -1);
    narrate_say("max |weights_fill - attn_weights| = %g",
                t_max_abs_diff(weights_fill, a->weights));
    narrate_why("both put -inf on the same cells (j > i) before the same softmax: one adds a "
                "float mask of 0 / -inf, the other writes -inf where the bool mask is True.");
}

/* --seed picks the new last word. */
static void future_cannot_leak(const Tensor *x, const Tensor *mask, const Attention *a, int64_t seqlen) {
    const Tensor *query = x, *key = x, *value = x;
    narrate_step("The future cannot leak: change the last token");
    narrate_torch("x2 = x.clone(); x2[-1] = torch.randn(3)   # a different word after \"one\"");
    Tensor *x2 = t_clone(x);
    t_copy_(t_select(x2, 0, seqlen - 1), t_randn(SHAPE(3)));
    narrate_show("x2[-1]", t_select(x2, 0, seqlen - 1));
    Attention b = masked_attention(x2, x2, x2, mask);
    Attention c = masked_attention(query, key, value, NULL), d = masked_attention(x2, x2, x2, NULL);
    narrate_say("causal:  rows 0..4 change by %g, row 5 by %.4f",
                t_max_abs_diff(t_slice(a->output, 0, 0, seqlen - 1), t_slice(b.output, 0, 0, seqlen - 1)),
                t_max_abs_diff(t_select(a->output, 0, seqlen - 1), t_select(b.output, 0, seqlen - 1)));
    narrate_say("no mask: rows 0..4 change by up to %.4f",
                t_max_abs_diff(t_slice(c.output, 0, 0, seqlen - 1), t_slice(d.output, 0, 0, seqlen - 1)));
    narrate_why("with the mask, what token t computes depends on tokens 0..t only, so all T "
                "positions can be trained at once without any of them seeing its answer "
                "(--seed picks the new word).");
}

static void diagonal_0_mistake(const Tensor *x, int64_t max_seq_len, int64_t seqlen) {
    const Tensor *query = x, *key = x, *value = x;
    narrate_step("A common mistake: diagonal=0 masks each token from itself");
    narrate_torch("mask = torch.triu(mask, diagonal=0)   # wrong: should be diagonal=1");
    Tensor *mask0 = causal_mask(max_seq_len, 0);
    narrate_show("mask[:, :, :6, :6]", mask_slice(mask0, seqlen));
    Attention wrong = masked_attention(query, key, value, mask0);
    narrate_show("attn_weights", wrong.weights);
    narrate_show("output[0]", t_select(wrong.output, 0, 0));
    narrate_why("row 0 (\"Your\") has no key left: all its scores are -inf. Softmax subtracts "
                "the row max, -inf - (-inf) = NaN (or, without that trick, 0/0), so the whole "
                "row is NaN, output row 0 is NaN, and in training the loss becomes NaN. The other "
                "rows quietly lose the token itself. diagonal=1 keeps the diagonal.");
}

/* The default run: the sentence, the mask step by step, and two ways to get it wrong. */
static void demo(const Args *args) {
    const int64_t max_seq_len = args->max_seq_len;
    narrate_title("Chapter 4: masked (causal) self-attention (Happy-LLM 2.1.5)%s",
                  args->causal ? "" : tr(" -- with --no-causal"));
    Tensor *x = the_sentence(); /* (T, d_k) = (6, 3) */
    int64_t seqlen = t_size(x, -2);
    Tensor *scores = scores_as_in_chapter_2(x); /* (6, 6) */
    if (!args->causal) {
        Attention a = no_mask(x);
        if (args->heatmap) draw_attention(args, "attention weights (no mask)", a.weights, NULL, SENTENCE_WORDS);
        print_quiet_results(&a);
        write_outputs(args, NULL, &a);
        return;
    }
    mask_buffer(max_seq_len);
    Tensor *mask = keep_above_diagonal(max_seq_len); /* (1, 1, L, L) */
    Tensor *mask_T = slice_to_sequence(mask, seqlen); /* (1, 1, T, T) */
    add_mask(scores, mask);
    Attention a = causal_softmax(x, mask);
    causal_output(&a);
    masked_fill_spelling(scores, &a, max_seq_len, seqlen);
    future_cannot_leak(x, mask, &a, seqlen);
    diagonal_0_mistake(x, max_seq_len, seqlen);
    if (args->heatmap) draw_attention(args, "attention weights (causal)", a.weights, a.scores, SENTENCE_WORDS);
    print_quiet_results(&a);
    write_outputs(args, mask_T, &a);
}

/* ---- --q --k --v: masked attention on .npy files ---------------------------- */

/* The buffer for max_seq_len: --max-seq-len when given, else this sequence's T. */
static Tensor *file_mask_buffer(const Args *args, int64_t T) {
    int64_t max_seq_len = (args->given & CLI_MAX_SEQ_LEN) ? args->max_seq_len : (T > 0 ? T : 1);
    narrate_step("The causal mask buffer, max_seq_len = %lld", (long long)max_seq_len);
    narrate_torch("mask = torch.triu(torch.full((1, 1, max_seq_len, max_seq_len), float(\"-inf\")), diagonal=1)");
    Tensor *mask = causal_mask(max_seq_len, 1);  /* (1, 1, L, L) */
    narrate_layout("mask", mask);
    narrate_why("--max-seq-len sets max_seq_len; a sequence longer than it has no mask to slice.");
    narrate_step("Masked attention: scaled scores, plus the sliced mask, softmax, times v");
    narrate_torch("scores = scores + self.mask[:, :, :seqlen, :seqlen]; F.softmax(scores, dim=-1) @ v");
    return mask;
}

static void run_files(const Args *args) {
    char qs[T_SHAPE_STR], ks[T_SHAPE_STR], vs[T_SHAPE_STR];
    /* before the title: the files' shapes (said in the run's language, naming the files),
     * whether their scores fit in memory and their T in --max-seq-len's buffer */
    Tensor *query, *key, *value; /* (..., T, d_k), (..., S, d_k), (..., S, d_v) */
    load_qkv_files(args, &query, &key, &value);
    check_qkv("masked_attention", query, key, value);
    if (args->causal && (args->given & CLI_MAX_SEQ_LEN)) check_seq_len(t_size(query, -2), args->max_seq_len);
    if (args->causal) check_mask_fits((args->given & CLI_MAX_SEQ_LEN) ? args->max_seq_len : t_size(query, -2));
    narrate_title("Chapter 4: masked attention on %s, %s, %s", args->q, args->k, args->v);

    narrate_step("Load query, key and value");
    narrate_say("query %s, key %s, value %s", t_shape_str(query, qs), t_shape_str(key, ks),
                t_shape_str(value, vs));

    Tensor *mask = NULL, *mask_T = NULL;
    if (args->causal) {
        mask = file_mask_buffer(args, t_size(query, -2));
    } else {
        narrate_step("Attention without a mask (--no-causal): chapter 2's attention()");
        narrate_torch("p_attn = (torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)).softmax(dim=-1)");
    }
    Attention a = masked_attention(query, key, value, mask);
    if (mask) {
        mask_T = mask_slice(mask, t_size(query, -2));  /* (1, 1, T, T), a view of the buffer */
        narrate_show("mask[:, :, :seqlen, :seqlen]", mask_T);
    }
    narrate_show("scores", a.scores);
    narrate_show("attn_weights", a.weights);
    narrate_show("output", a.output);
    narrate_why(args->causal ? "weights above the diagonal are 0: query t only sees keys 0..t."
                             : "every query sees every key.");

    if (args->heatmap) draw_attention(args, args->causal ? "attention weights (causal)" : "attention weights",
                                      a.weights, a.scores, NULL);
    print_quiet_results(&a);
    write_outputs(args, mask_T, &a);
}

/* What this run holds (common/program/budget.h): refused, in one sentence,
 * before any work when it would not fit in memory. */
static void refuse_past_budget(const Args *a) {
    /* the sentence (6, 3), or (..., T, d_k) x (..., S, d_k) from the files; and the
     * max_seq_len x max_seq_len mask buffers */
    char what[160];
    QKVSizes s = qkv_sizes(a, 6, 3);
    double L = (a->given & CLI_MAX_SEQ_LEN) ? (double)a->max_seq_len : a->q ? s.T : 6;
    /* the buffer alone past the limit: its own sentence (run_files says it after the scores') */
    if (a->causal && !a->q) check_mask_fits((int64_t)L);
    /* (..., T, S): 4 buffers at once with the mask, 3 without; the mask's making holds
     * 7 L x L buffers (measured, t_peak_bytes) */
    BudgetEstimate e = qkv_attention_estimate(a, &s, a->causal ? 4 : 3, what, sizeof what);
    e.bytes += BUDGET_F4 * 7 * L * L;
    e.flops += 10 * L * L; /* full, triu and the copies of the mask */
    if (BUDGET_F4 * L * L > e.largest) e.largest = BUDGET_F4 * L * L;
    if (L * L > s.T * s.S) {
        e.what = "the max_seq_len x max_seq_len mask buffers";
        if (!a->q) e.flag = "--max-seq-len";
    }
    budget_refuse(&e, a->quiet);
}

int main(int argc, char **argv) {
    CliSpec spec = {
        .program = "chapter4",
        .summary = "Masked (causal) self-attention, Happy-LLM 2.1.5: triu(full(-inf), diagonal=1)\n"
                   "added to the scores before softmax. The sentence has 6 tokens (T); --max-seq-len\n"
                   "sets max_seq_len, the size of the mask buffer (with --q/--k/--v, T by default).",
        .flags = CLI_SEED | CLI_MAX_SEQ_LEN | CLI_CAUSAL | CLI_QUIET | CLI_DUMP | CLI_HEATMAP | CLI_QKV | CLI_OUTPUT,
        /* seq_len: the sentence's T, no flag; cli_refuse_mask_flags refuses a --max-seq-len below it */
        .defaults = {.seed = 123, .seq_len = SENTENCE_TOKENS, .max_seq_len = 8, .causal = true},
        .messages = chapter4_zh,
    };
    Args args = program_start(&spec, argc, argv);
    cli_refuse_mask_flags(&args); /* --max-seq-len with no mask, or shorter than the sentence */
    cli_refuse_unused_seed(&args, !args.q); /* the demo draws step 10's new word; files draw nothing */
    refuse_past_budget(&args);

    if (args.q) run_files(&args);
    else demo(&args);

    t_scope_end();
    return EXIT_OK;
}
