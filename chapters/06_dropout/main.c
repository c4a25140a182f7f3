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

int main(int argc, char **argv) {
    Args defaults = {0};
    defaults.seed = 123;
    defaults.batch = 1;
    defaults.seq_len = 4;
    defaults.d_in = 6;
    defaults.d_out = 4;
    defaults.heads = 2;
    defaults.dropout = 0.1;
    defaults.causal = true;
    CliSpec spec = {"chapter6",
                    "Chapter 6: dropout on the attention weights (nn.Dropout, Happy-LLM 2.1.6):\n"
                    "chapter 5's multi-head attention with attn_dropout between softmax and @ xv.\n"
                    "Training mode by default, as the seed; --eval (model.eval()) turns dropout off.\n"
                    "Causal by default, like chapter 5. With --input/--weights the sizes and biases\n"
                    "come from the files, and --heads must divide their d_out.",
                    CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_MAX_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_HEADS | CLI_DROPOUT |
                        CLI_EVAL | CLI_CAUSAL | CLI_BIAS | CLI_QUIET | CLI_DUMP | CLI_HEATMAP | CLI_INPUT |
                        CLI_OUTPUT,
                    defaults, NULL};
    Args args = cli_parse(&spec, argc, argv);
    multi_head_refuse_past_budget(&args); /* before any work: memory and time */
    t_scope_begin();
    narrate_set_quiet(args.quiet);
    t_manual_seed(args.seed);
    const int64_t n_heads = args.heads;
    char s1[T_SHAPE_STR];

    narrate_title("Chapter 6: dropout on the attention weights (Happy-LLM 2.1.6)%s",
                  args.eval ? " -- in eval mode" : "");

    /* ---- the module and the input (as in chapter 5) ------------------------- */
    Dropout attn_dropout = dropout_new(args.dropout);  /* self.attn_dropout = nn.Dropout(args.dropout) */
    if (args.eval) attn_dropout.training = false;     /* model.eval() */
    QKVProjection *p;
    Tensor *x;
    int64_t max_seq_len;  /* the causal mask buffer, sliced to seqlen */
    if (args.input) {
        x = load_input(&args, n_heads, &max_seq_len);     /* (B, T, d_in) */
        p = qkv_load_for_heads(&args, t_size(x, 2), n_heads);
    } else {
        p = qkv_default(&args, &x, &max_seq_len);  /* W_query, W_key, W_value, then x */
        narrate_step("The module's projections and a random input x (as in chapter 5)");
        narrate_torch_seed(args.seed);
        narrate_torch(args.bias ? "W_query = nn.Linear(d_in, d_out, bias=True)   # W_key, W_value alike"
                                : "W_query = nn.Linear(d_in, d_out, bias=False)  # W_key, W_value alike");
        narrate_torch("x = torch.randn(bsz, seqlen, d_in)");
    }
    const int64_t seqlen = t_size(x, 1);
    narrate_show("x", x);

    /* ---- chapter 5 up to the weights ----------------------------------------- */
    narrate_step("Project and split into %lld heads (chapter 5)", (long long)n_heads);
    narrate_torch("xq, xk, xv = self.wq(x), self.wk(x), self.wv(x); "
                  "xq = xq.view(bsz, seqlen, n_heads, head_dim).transpose(1, 2)");
    Tensor *xq, *xk, *xv;
    qkv_project(p, x, &xq, &xk, &xv);      /* (bsz, seqlen, d_out) each        */
    Tensor *q = split_heads(xq, n_heads);  /* (bsz, n_heads, seqlen, head_dim) */
    Tensor *k = split_heads(xk, n_heads);
    Tensor *v = split_heads(xv, n_heads);
    narrate_layout("xq", q);

    narrate_step("Scaled scores%s and softmax, per head", args.causal ? ", causal mask" : "");
    narrate_torch(args.causal ? "scores = xq @ xk.transpose(2, 3) / math.sqrt(self.head_dim) + "
                                "self.mask[:, :, :seqlen, :seqlen]; scores = F.softmax(scores.float(), dim=-1)"
                              : "scores = xq @ xk.transpose(2, 3) / math.sqrt(self.head_dim); "
                                "scores = F.softmax(scores.float(), dim=-1)");
    Tensor *scores = scaled_scores(q, k);                                     /* (bsz, n_heads, seqlen, seqlen) */
    if (args.causal) scores = apply_causal_mask(scores, causal_mask(max_seq_len, 1));  /* mask[:, :, :T, :T] */
    Tensor *attn_weights = t_softmax(scores, -1);                             /* rows sum to 1 */
    narrate_show("attn_weights", attn_weights);
    narrate_show("attn_weights.sum(dim=-1)", t_sum_last(attn_weights));
    narrate_why("so far exactly chapter 5: every row is a probability distribution over the keys.");

    /* ---- the dropout --------------------------------------------------------- */
    narrate_step("self.attn_dropout = nn.Dropout(p = %g), %s mode", attn_dropout.p,
                 attn_dropout.training ? "training" : "eval");
    narrate_torch(attn_dropout.training ? "self.attn_dropout = nn.Dropout(args.dropout)   # model.train()"
                                        : "self.attn_dropout = nn.Dropout(args.dropout); model.eval()");
    if (!attn_dropout.training)
        narrate_why("in eval mode (model.eval(), for inference) dropout does nothing: the weights pass "
                    "through unchanged.");
    else if (attn_dropout.p == 0.0)
        narrate_why("p = 0 drops nothing: even in training this dropout is the identity.");
    else if (attn_dropout.p == 1.0)
        narrate_why("p = 1 drops everything: every weight becomes 0, as nn.Dropout(1.0) does.");
    else
        narrate_why("during training each weight is kept with probability 1 - p = %g and then divided "
                    "by 1 - p (x %.4f), or set to 0 with probability p = %g. A different random set of "
                    "weights is dropped on every forward pass, so no head can rely on one single "
                    "connection -- a regulariser against overfitting.",
                    1.0 - attn_dropout.p, 1.0 / (1.0 - attn_dropout.p), attn_dropout.p);

    narrate_step("Apply it to the weights, after softmax and before @ xv");
    narrate_torch("scores = self.attn_dropout(scores)");
    Tensor *attn_dropped = dropout_forward(&attn_dropout, attn_weights, NULL);  /* (bsz, n_heads, seqlen, seqlen) */
    narrate_show("attn_dropped", attn_dropped);
    {
        int64_t n = t_numel(attn_weights);
        int64_t zeros_before = count_zeros(attn_weights), zeros_after = count_zeros(attn_dropped);
        narrate_say("%lld of %lld weights were 0 before (masked), %lld are 0 now: %lld dropped "
                    "(p = %g of the %lld non-zero ones is %.1f on average).",
                    (long long)zeros_before, (long long)n, (long long)zeros_after,
                    (long long)(zeros_after - zeros_before), attn_dropout.p, (long long)(n - zeros_before),
                    attn_dropout.training ? attn_dropout.p * (double)(n - zeros_before) : 0.0);
    }
    if (attn_dropout.training && attn_dropout.p > 0.0 && attn_dropout.p < 1.0) {
        /* the first weight that was kept, to show its rescaling */
        float w = 0.0f, kept = 0.0f;
        for (int64_t i = 0; i < t_numel(attn_weights) && kept == 0.0f; i++) {
            w = t_flat_get(attn_weights, i);
            kept = t_flat_get(attn_dropped, i);
        }
        narrate_why("every kept weight w became w / (1 - p), e.g. %.4f / %g = %.4f. This is inverted "
                    "dropout: it scales while training so that eval needs no change.",
                    (double)w, 1.0 - attn_dropout.p, (double)kept);
    }
    if (args.heatmap) {
        HeatmapOptions opt = {0};
        opt.ascii = args.ascii;
        opt.scores = scores;  /* -inf where the mask is */
        opt.row_scale = args.row_scale;
        bool dropping = attn_dropout.training && attn_dropout.p > 0.0;
        opt.title = dropping ? "attention weights before dropout" : "attention weights";
        heatmap_print_all(attn_weights, &opt);  /* one grid per (batch, head) */
        if (dropping) {
            opt.title = "attention weights after dropout (dropped cells are 0)";
            heatmap_print_all(attn_dropped, &opt);  /* dropped entries are exactly 0, shaded as 0 */
        }
    }

    narrate_step("The weighted sum and the merge (chapter 5)");
    narrate_torch("output = torch.matmul(scores, xv); output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)");
    Tensor *output = merge_heads(weighted_sum(attn_dropped, v));  /* (bsz, seqlen, d_out) */
    narrate_show("output", output);

    bool drops = attn_dropout.training && attn_dropout.p > 0.0;
    narrate_step(drops ? "The rows no longer sum to 1" : "The rows still sum to 1");
    narrate_torch("scores.sum(dim=-1)");
    narrate_show("attn_dropped.sum(dim=-1)", t_sum_last(attn_dropped));
    if (drops && attn_dropout.p == 1.0)
        narrate_why("p = 1 dropped every weight, so every row sums to 0 and the output is 0.");
    else if (drops)
        narrate_why("a row loses the weights that were dropped and the kept ones grow by 1/(1 - p), so a "
                    "row sums to 1 only on average. That is intended: each weight w is kept with "
                    "probability 1 - p as w / (1 - p), so its expectation is "
                    "(1 - p) * w / (1 - p) + p * 0 = w, and because output = weights @ xv is linear in "
                    "the weights, the expected output is the eval output.");
    else
        narrate_why("without dropout the weights are untouched, so every row still sums to 1.");

    /* ---- chapter 5 for comparison ---------------------------------------------- */
    Attention ch5 = multi_head_attention(xq, xk, xv, n_heads, args.causal ? causal_mask(seqlen, 1) : NULL);
    narrate_step("Compared with chapter 5 (no dropout)");
    narrate_torch("model.eval(); output_eval = model(x)");
    narrate_say("max |output - chapter 5's output| = %g", t_max_abs_diff(output, ch5.output));
    narrate_why(drops ? "training adds noise to the output; --eval or --dropout 0 gives back chapter 5's "
                        "numbers exactly."
                      : "dropout is the identity here, so this is exactly chapter 5's output.");

    /* Last, so that it cannot change the output above: it draws from the generator. */
    if (!narrate_quiet() && drops && attn_dropout.p < 1.0 && t_numel(attn_weights) <= 4096) {
        const int draws = 2000;
        Tensor *sum = t_zeros(t_shape(attn_weights));
        for (int i = 0; i < draws; i++) {
            t_scope_begin();
            t_copy_(sum, t_add(sum, dropout_forward(&attn_dropout, attn_weights, NULL)));
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

    if (narrate_quiet()) {
        narrate_result("attn_dropped", attn_dropped);
        narrate_result("output", output);
    }

    /* ---- files, after everything was computed ---------------------------------- */
    if (args.dump) {
        npy_make_dir(args.dump);
        npy_save_in(args.dump, "x", x);  /* the input; with the weights below, a run to replay */
        qkv_save(p, args.dump);  /* wq.npy ... as --weights reads them */
        npy_save_in(args.dump, "xq", q);                        /* (bsz, n_heads, seqlen, head_dim) */
        npy_save_in(args.dump, "xk", k);
        npy_save_in(args.dump, "xv", v);
        npy_save_in(args.dump, "scores", scores);               /* scaled (and masked), before softmax */
        npy_save_in(args.dump, "attn_weights", attn_weights);   /* after softmax, before dropout */
        npy_save_in(args.dump, "attn_dropped", attn_dropped);   /* after attn_dropout */
        npy_save_in(args.dump, "output", output);               /* (bsz, seqlen, d_out) */
    }
    if (args.output) npy_save(args.output, output);

    t_scope_end();
    return 0;
}
