/* main.c — chapter 6: dropout on the attention weights (nn.Dropout, Happy-LLM 2.1.6).
 *
 * Runs chapter 5's multi-head self-attention (batch 1, 4 tokens, d_in 6,
 * d_out 4, 2 heads, causal) with self.attn_dropout applied to the weights
 * after softmax and before @ xv, and shows:
 *   - training mode (the default, p = 0.1 as in the 手撕 script): about p of the
 *     weights become 0 and the others are divided by 1 - p (inverted dropout);
 *   - that the rows then no longer sum to 1, and why that is fine: every
 *     weight keeps its expectation, (1 - p) * w / (1 - p) + p * 0 = w, and the
 *     average of many dropout draws comes back to the weights;
 *   - --eval (model.eval()) or --dropout 0: the identity, so the output is
 *     exactly chapter 5's; --dropout 1 zeroes every weight, as PyTorch does.
 * The random draws come from --seed: the same seed drops the same weights.
 * PyTorch draws from another generator, so its mask differs from ours.
 *
 *     build/chapter6                          training, p = 0.1
 *     build/chapter6 --dropout 0.5 --heatmap  half the weights dropped
 *     build/chapter6 --eval                   = build/chapter5
 */
#include <stdio.h>

#include "common/program/program.h"
#include "chapters/05_multi_head/multi_head_setup.h"
#include "dropout.h"

extern const LangPair chapter6_zh[]; /* zh.c: this program's sentences in Chinese (lang.h) */

/* Chapter 5 up to the split: xq, xk, xv (bsz, seqlen, d_out) and the heads q, k, v. */
static void project_and_split(const QKVProjection *p, const Tensor *x, int64_t n_heads, Tensor **xq, Tensor **xk,
                              Tensor **xv, Tensor **q, Tensor **k, Tensor **v) {
    narrate_step("Project and split into %lld heads (chapter 5)", (long long)n_heads);
    narrate_torch("xq, xk, xv = self.wq(x), self.wk(x), self.wv(x); "
                  "xq = xq.view(bsz, seqlen, n_heads, head_dim).transpose(1, 2)");
    qkv_project(p, x, xq, xk, xv);      /* (bsz, seqlen, d_out) each        */
    *q = split_heads(*xq, n_heads);     /* (bsz, n_heads, seqlen, head_dim) */
    *k = split_heads(*xk, n_heads);
    *v = split_heads(*xv, n_heads);
    narrate_layout("xq", *q);
}

/* scores = xq @ xk.transpose(2, 3) / sqrt(head_dim) [+ mask]; softmax: the weights dropout acts on. */
static Tensor *scores_and_softmax(const Tensor *q, const Tensor *k, const Tensor *mask, Tensor **scores) {
    narrate_step("Scaled scores%s and softmax, per head", mask ? tr(", causal mask") : "");
    narrate_torch(mask ? "scores = xq @ xk.transpose(2, 3) / math.sqrt(self.head_dim) + "
                         "self.mask[:, :, :seqlen, :seqlen]; scores = F.softmax(scores.float(), dim=-1).type_as(xq)"
                       : "scores = xq @ xk.transpose(2, 3) / math.sqrt(self.head_dim); "
                         "scores = F.softmax(scores.float(), dim=-1).type_as(xq)");
    *scores = scaled_scores(q, k);                           /* (bsz, n_heads, seqlen, seqlen) */
    if (mask) *scores = apply_causal_mask(*scores, mask);    /* + mask[:, :, :T, :T]           */
    Tensor *attn_weights = t_softmax(*scores, -1);           /* rows sum to 1                  */
    narrate_show("attn_weights", attn_weights);
    narrate_show("attn_weights.sum(dim=-1)", t_sum_last(attn_weights));
    narrate_why("so far exactly chapter 5: every row is a probability distribution over the keys.");
    return attn_weights;
}

/* self.attn_dropout = nn.Dropout(p): what it does in this mode. */
static void explain_the_dropout(const Dropout *d) {
    narrate_step("self.attn_dropout = nn.Dropout(p = %g), %s mode", d->p, tr(d->training ? "training" : "eval"));
    narrate_torch(d->training ? "self.attn_dropout = nn.Dropout(args.dropout)   # model.train()"
                              : "self.attn_dropout = nn.Dropout(args.dropout); model.eval()");
    if (!d->training)
        narrate_why("in eval mode (model.eval(), for inference) dropout does nothing: the weights pass "
                    "through unchanged.");
    else if (d->p == 0.0)
        narrate_why("p = 0 drops nothing: even in training this dropout is the identity.");
    else if (d->p == 1.0)
        narrate_why("p = 1 drops everything: every weight becomes 0, as nn.Dropout(1.0) does.");
    else
        narrate_why("during training each weight is kept with probability 1 - p = %g and then divided "
                    "by 1 - p (x %.4f), or set to 0 with probability p = %g. A different random set of "
                    "weights is dropped on every forward pass, so no head can rely on one single "
                    "connection -- a regulariser against overfitting.",
                    1.0 - d->p, 1.0 / (1.0 - d->p), d->p);
}

/* The weights before and after dropout, as heatmaps (--heatmap). */
static void heatmaps(const Args *args, const Dropout *d, const Tensor *scores, const Tensor *attn_weights,
                     const Tensor *attn_dropped) {
    bool dropping = d->training && d->p > 0.0;
    HeatmapOptions opt = {.title = dropping ? "attention weights before dropout" : "attention weights",
                          .ascii = args->ascii,
                          .scores = scores,  /* -inf where the mask is */
                          .row_scale = args->row_scale};
    heatmap_print_all(attn_weights, &opt);  /* one grid per (batch, head) */
    if (!dropping) return;
    opt.title = "attention weights after dropout (dropped cells are 0)";
    heatmap_print_all(attn_dropped, &opt);  /* dropped entries are exactly 0, shaded as 0 */
}

/* scores = self.attn_dropout(scores): how many were dropped, how the kept ones grew. */
static Tensor *apply_the_dropout(const Args *args, const Dropout *d, const Tensor *scores,
                                 const Tensor *attn_weights) {
    narrate_step("Apply it to the weights, after softmax and before @ xv");
    narrate_torch("scores = self.attn_dropout(scores)");
    Tensor *attn_dropped = dropout_forward(d, attn_weights, NULL);  /* (bsz, n_heads, seqlen, seqlen) */
    narrate_show("attn_dropped", attn_dropped);
    int64_t n = t_numel(attn_weights);
    int64_t zeros_before = count_zeros(attn_weights), zeros_after = count_zeros(attn_dropped);
    narrate_say("%lld of %lld weights were 0 before (masked), %lld are 0 now: %lld dropped "
                "(p = %g of the %lld non-zero ones is %.1f on average).",
                (long long)zeros_before, (long long)n, (long long)zeros_after,
                (long long)(zeros_after - zeros_before), d->p, (long long)(n - zeros_before),
                d->training ? d->p * (double)(n - zeros_before) : 0.0);
    if (d->training && d->p > 0.0 && d->p < 1.0) {
        /* the first weight that was kept, to show its rescaling */
        float w = 0.0f, kept = 0.0f;
        for (int64_t i = 0; i < n && kept == 0.0f; i++) {
            w = t_flat_get(attn_weights, i);
            kept = t_flat_get(attn_dropped, i);
        }
        narrate_why("every kept weight w became w / (1 - p), e.g. %.4f / %g = %.4f. This is inverted "
                    "dropout: it scales while training so that eval needs no change.",
                    (double)w, 1.0 - d->p, (double)kept);
    }
    if (args->heatmap) heatmaps(args, d, scores, attn_weights, attn_dropped);
    return attn_dropped;
}

/* output = merge(attn_dropped @ xv): chapter 5's last two steps. */
static Tensor *weighted_sum_and_merge(const Tensor *attn_dropped, const Tensor *v) {
    narrate_step("The weighted sum and the merge (chapter 5)");
    narrate_torch("output = torch.matmul(scores, xv); output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)");
    Tensor *output = merge_heads(weighted_sum(attn_dropped, v));  /* (bsz, seqlen, d_out) */
    narrate_show("output", output);
    return output;
}

/* scores.sum(dim=-1) after dropout: why a row need not sum to 1 any more. */
static void the_row_sums(const Dropout *d, const Tensor *attn_dropped) {
    bool drops = d->training && d->p > 0.0;
    narrate_step(drops ? "The rows no longer sum to 1" : "The rows still sum to 1");
    narrate_torch("scores.sum(dim=-1)");
    narrate_show("attn_dropped.sum(dim=-1)", t_sum_last(attn_dropped));
    if (drops && d->p == 1.0)
        narrate_why("p = 1 dropped every weight, so every row sums to 0 and the output is 0.");
    else if (drops)
        narrate_why("a row loses the weights that were dropped and the kept ones grow by 1/(1 - p), so a "
                    "row sums to 1 only on average. That is intended: each weight w is kept with "
                    "probability 1 - p as w / (1 - p), so its expectation is "
                    "(1 - p) * w / (1 - p) + p * 0 = w, and because output = weights @ xv is linear in "
                    "the weights, the expected output is the eval output.");
    else
        narrate_why("without dropout the weights are untouched, so every row still sums to 1.");
}

/* model.eval(); output_eval = model(x): chapter 5's output, for comparison. */
static void compare_with_chapter_5(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t n_heads,
                                   bool causal, const Dropout *d, const Tensor *output) {
    bool drops = d->training && d->p > 0.0;
    Tensor *mask = causal ? causal_mask(t_size(xq, 1), 1) : NULL;  /* (1, 1, seqlen, seqlen) */
    Attention ch5 = multi_head_attention(xq, xk, xv, n_heads, mask);
    narrate_step("Compared with chapter 5 (no dropout)");
    narrate_torch("model.eval(); output_eval = model(x)");
    narrate_say("max |output - chapter 5's output| = %g", t_max_abs_diff(output, ch5.output));
    narrate_why(drops ? "training adds noise to the output; --eval or --dropout 0 gives back chapter 5's "
                        "numbers exactly."
                      : "dropout is the identity here, so this is exactly chapter 5's output.");
}

/* The mean of many dropout draws comes back to the weights. Last, so that it
 * cannot change the output above: it draws from the generator. */
static void the_expectation_is_kept(const Dropout *d, const Tensor *attn_weights) {
    char s1[T_SHAPE_STR];
    if (narrate_quiet() || !d->training || d->p == 0.0 || d->p == 1.0 || t_numel(attn_weights) > 4096) return;
    const int draws = 2000;
    Tensor *sum = t_zeros(t_shape(attn_weights));
    for (int i = 0; i < draws; i++) {
        t_scope_begin();
        t_copy_(sum, t_add(sum, dropout_forward(d, attn_weights, NULL)));
        t_scope_end();
    }
    Tensor *mean = t_div_scalar(sum, (float)draws);
    narrate_step("The expectation is kept: the mean of %d dropout draws", draws);
    narrate_torch("torch.stack([self.attn_dropout(w) for _ in range(2000)]).mean(0)");
    narrate_show("mean", t_select(t_select(mean, 0, 0), 0, 0));
    narrate_show("attn_weights", t_select(t_select(attn_weights, 0, 0), 0, 0));
    narrate_say("max |mean - attn_weights| = %.4f over all %lld weights %s", t_max_abs_diff(mean, attn_weights),
                (long long)t_numel(mean), t_shape_str(mean, s1));
    narrate_why("each draw drops other weights, but on average every weight comes back: the "
                "rescaling by 1/(1 - p) makes training see the same weights as eval in "
                "expectation. (Batch 0, head 0 shown.)");
}

/* --dump DIR and --output FILE, after everything was computed. */
static void save_files(const Args *args, const QKVProjection *p, const Tensor *x, const Tensor *q,
                       const Tensor *k, const Tensor *v, const Tensor *scores, const Tensor *attn_weights,
                       const Tensor *attn_dropped, const Tensor *output) {
    if (args->dump) {
        save_heads_dump(args->dump, p, x, q, k, v, scores, attn_weights);   /* chapter 5's files */
        npy_save_in(args->dump, "attn_dropped", attn_dropped);              /* after attn_dropout */
        npy_save_in(args->dump, "output", output);                  /* (bsz, seqlen, d_out) */
    }
    if (args->output) npy_save(args->output, output);
}

int main(int argc, char **argv) {
    CliSpec spec = {
        .program = "chapter6",
        .summary = "Chapter 6: dropout on the attention weights (nn.Dropout, Happy-LLM 2.1.6):\n"
                   "chapter 5's multi-head attention with attn_dropout between softmax and @ xv.\n"
                   "Training mode by default, as the seed; --eval (model.eval()) turns dropout off.\n"
                   "Causal by default, like chapter 5. With --input/--weights the sizes and biases\n"
                   "come from the files, and --heads must divide their d_out.\n"
                   "--max-seq-len sets max_seq_len, the size of the mask buffer: by default 2 x T;\n"
                   "with --input, the input's T (or --seq-len).",
        .flags = CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_MAX_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_HEADS |
                 CLI_DROPOUT | CLI_EVAL | CLI_CAUSAL | CLI_BIAS | CLI_QUIET | CLI_DUMP | CLI_HEATMAP | CLI_INPUT |
                 CLI_OUTPUT,
        .defaults = {.seed = 123, .batch = 1, .seq_len = 4, .d_in = 6, .d_out = 4, .heads = 2, .dropout = 0.1,
                     .causal = true},
        .messages = chapter6_zh, /* zh.c: the narration in Chinese (--lang zh) */
    };
    lang_add(chapter5_zh); /* chapter 5's steps, called below, in Chinese too */
    Args args = program_start(&spec, argc, argv);
    /* before any work: 9 (B, H, T, T) and 2 (B, T, T) buffers at once with the mask, 7 and none
     * without (measured, t_peak_bytes); two attentions' work (with and without dropout) */
    cli_refuse_mask_flags(&args); /* --max-seq-len with no mask, or shorter than --seq-len */
    cli_refuse_unused_seed(&args, !args.input || (!args.eval && args.dropout > 0)); /* x, weights, or dropout */
    multi_head_refuse_past_budget(&args, args.causal ? 9 : 7, args.causal ? 2 : 0, 2);
    const int64_t n_heads = args.heads;
    Tensor *x;            /* (bsz, seqlen, d_in) */
    int64_t max_seq_len;  /* the causal mask buffer, sliced to seqlen */
    QKVProjection *loaded = heads_files_before_title(&args, &x, &max_seq_len); /* --input, --weights; else NULL */
    narrate_title("Chapter 6: dropout on the attention weights (Happy-LLM 2.1.6)%s",
                  args.eval ? tr(" -- in eval mode") : "");

    Dropout attn_dropout = dropout_new(args.dropout);  /* self.attn_dropout = nn.Dropout(args.dropout) */
    if (args.eval) attn_dropout.training = false;      /* model.eval() */
    QKVProjection *p = projections_and_input(
        &args, "The module's projections and a random input x (as in chapter 5)", loaded, &x, &max_seq_len);

    Tensor *xq, *xk, *xv;  /* (bsz, seqlen, d_out) */
    Tensor *q, *k, *v;     /* (bsz, n_heads, seqlen, head_dim) */
    project_and_split(p, x, n_heads, &xq, &xk, &xv, &q, &k, &v);
    Tensor *scores;  /* (bsz, n_heads, seqlen, seqlen) */
    Tensor *attn_weights = scores_and_softmax(q, k, args.causal ? causal_mask(max_seq_len, 1) : NULL, &scores);

    explain_the_dropout(&attn_dropout);
    Tensor *attn_dropped = apply_the_dropout(&args, &attn_dropout, scores, attn_weights);
    Tensor *output = weighted_sum_and_merge(attn_dropped, v);  /* (bsz, seqlen, d_out) */
    the_row_sums(&attn_dropout, attn_dropped);
    compare_with_chapter_5(xq, xk, xv, n_heads, args.causal, &attn_dropout, output);
    the_expectation_is_kept(&attn_dropout, attn_weights);

    if (narrate_quiet()) {
        narrate_result("attn_dropped", attn_dropped);
        narrate_result("output", output);
    }
    save_files(&args, p, x, q, k, v, scores, attn_weights, attn_dropped, output);
    t_scope_end();
    return 0;
}
