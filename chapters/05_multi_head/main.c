/* main.c — chapter 5: multi-head attention, split and merge (Happy-LLM 2.1.6).
 *
 * Shows, on a small random x (batch 1, 4 tokens, d_in 6, d_out 4, 2 heads):
 *   - one big projection per Q, K, V for all heads at once (xq = self.wq(x));
 *   - head_dim = d_out / n_heads, and what model_parallel_size / n_local_heads
 *     (Happy-LLM 5.1.3) mean;
 *   - the split, xq.view(bsz, seqlen, n_heads, head_dim).transpose(1, 2): the
 *     shape and strides after each step, and that no data moves;
 *   - the per-head scaled (and, by default, causal) attention of chapter 4 on
 *     (bsz, n_heads, seqlen, head_dim) tensors: one T x T weight matrix per head;
 *   - the merge, output.transpose(1, 2).contiguous().view(bsz, seqlen, -1), and
 *     why contiguous() is needed before view;
 *   - that a wrapper of n_heads single-head attentions (Raschka's
 *     MultiHeadAttentionWrapper) gives the same output: 矩阵内积再拼接 = 拼接矩阵再内积.
 * There is no W_o yet (chapter 7). Causal by default, like the 手撕 MHA
 * class; --no-causal is the Happy-LLM class's default is_causal=False.
 *
 *     build/chapter5                                   the demo above
 *     build/chapter5 --heads 4 --d-out 8 --seq-len 6   more heads
 *     build/chapter5 --input X.npy --weights DIR --heads 2 --output OUT.npy
 */
#include <stdio.h>

#include "common/program/program.h"
#include "multi_head_setup.h"

/* d_in, d_out and the projections that hold every head's rows. */
static void show_the_module(const QKVProjection *p) {
    char s1[T_SHAPE_STR];
    narrate_say("wq.weight, wk.weight, wv.weight: %s each (d_out, d_in)%s", t_shape_str(p->wq->weight, s1),
                p->wq->bias ? tr(", with biases") : "");
    narrate_why("d_in = %lld is the width of each token vector and d_out = %lld the width of q, k "
                "and v, which the heads will share (Happy-LLM 2.1.6: args.n_embd and args.dim).",
                (long long)p->d_in, (long long)p->d_out);
}

/* xq, xk, xv = self.wq(x), self.wk(x), self.wv(x): (bsz, seqlen, d_out) each. */
static void project_for_every_head(const QKVProjection *p, const Tensor *x, Tensor **xq, Tensor **xk,
                                   Tensor **xv) {
    narrate_step("One projection per Q, K, V, for all heads at once");
    narrate_torch("xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)");
    qkv_project(p, x, xq, xk, xv);  /* (bsz, seqlen, d_out) each */
    narrate_show("xq", *xq);
    narrate_why("Happy-LLM's nn.Linear(args.n_embd, self.n_heads * self.head_dim): one (d_out, d_in) matrix "
                "holds the n_heads small (head_dim, d_in) matrices stacked row after row, so one matmul "
                "projects for every head.");
}

/* self.head_dim = args.dim // args.n_heads, and what 5.1.3's n_local_heads means. */
static int64_t explain_head_dim(int64_t d_out, int64_t n_heads) {
    int64_t head_dim = head_dim_of(d_out, n_heads);
    narrate_step("head_dim = d_out // n_heads = %lld // %lld = %lld", (long long)d_out, (long long)n_heads,
                 (long long)head_dim);
    narrate_torch("assert args.dim % args.n_heads == 0; self.head_dim = args.dim // args.n_heads");
    narrate_why("view must cut each token's d_out values into n_heads pieces of one whole head_dim, so d_out "
                "must be a multiple of n_heads (--heads 3 --d-out 4 is refused).");
    narrate_torch("model_parallel_size = 1; self.n_local_heads = args.n_heads // model_parallel_size"
                  "   # Happy-LLM 5.1.3, LLaMA2 Attention");
    narrate_say("model_parallel_size = 1, so n_local_heads = n_heads = %lld: this one process computes "
                "every head.", (long long)n_heads);
    narrate_why("each head only ever reads its own head_dim columns of xq, xk and xv, so the heads are "
                "independent: with model_parallel_size = 2, each of two workers (GPUs) would hold "
                "n_local_heads = n_heads // 2 heads -- their rows of wq, wk, wv -- and compute them "
                "without talking to the other; only the merge needs all heads.");
    return head_dim;
}

/* xq.view(bsz, seqlen, n_heads, head_dim): the same numbers, a new shape. */
static void split_view(const Tensor *xq, int64_t n_heads, int64_t head_dim) {
    narrate_step("Split, part 1: view the last dim as (n_heads, head_dim)");
    narrate_torch("xq = xq.view(bsz, seqlen, self.n_heads, self.head_dim)");
    /* the split below, with dims 1 and 2 put back: (bsz, seqlen, n_heads, head_dim) */
    Tensor *xq_view = t_permute(split_heads(xq, n_heads), SHAPE(0, 2, 1, 3));
    narrate_layout("xq          ", xq);
    narrate_layout("xq.view(...)", xq_view);
    narrate_why("view only re-reads the same numbers with a new shape: the %lld values of one token are "
                "now %lld heads of %lld, and nothing is copied (same storage, same offset).",
                (long long)t_size(xq, 2), (long long)n_heads, (long long)head_dim);
}

/* .transpose(1, 2): the heads in front of the tokens, (bsz, n_heads, seqlen, head_dim). */
static void split_transpose(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t n_heads, Tensor **q,
                            Tensor **k, Tensor **v) {
    narrate_step("Split, part 2: move the heads in front of the tokens");
    narrate_torch("xq = xq.transpose(1, 2)   # the same for xk, xv");
    *q = split_heads(xq, n_heads);  /* (bsz, n_heads, seqlen, head_dim) */
    *k = split_heads(xk, n_heads);  /* (bsz, n_heads, seqlen, head_dim) */
    *v = split_heads(xv, n_heads);  /* (bsz, n_heads, seqlen, head_dim) */
    narrate_layout("xq.transpose(1, 2)", *q);
    narrate_show("xq", *q);
    narrate_why("transpose swaps two strides, still without copying, so the tensor is no longer "
                "contiguous. Now (bsz, n_heads) lead like batch dims: xq[b, h] is head h's own "
                "(seqlen, head_dim) matrix, and xq[b, h, t, j] is xq_before[b, t, h * %lld + j].",
                (long long)t_size(*q, 3));
    narrate_say("shares storage with the projection: %s", tr(t_shares_storage(*q, xq) ? "yes" : "no"));
}

/* scores = xq @ xk.transpose(2, 3) / sqrt(head_dim) [+ mask], softmax, @ xv: chapter 4 per head. */
static Attention scores_per_head(const Tensor *q, const Tensor *k, const Tensor *v, const Tensor *mask) {
    narrate_step("Scores for every head at once, scaled by sqrt(head_dim)%s",
                 mask ? tr(", with chapter 4's causal mask") : "");
    narrate_torch(mask ? "scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim); "
                         "scores = scores + self.mask[:, :, :seqlen, :seqlen]"
                       : "scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)");
    Attention heads = masked_attention(q, k, v, mask);  /* scores, weights (bsz, n_heads, seqlen, seqlen) */
    narrate_show("scores", heads.scores);
    narrate_why("matmul treats (bsz, n_heads) as batch dims: %lld independent (seqlen, head_dim) @ "
                "(head_dim, seqlen) products. Each head's dot products have head_dim = %lld terms, so it "
                "is scaled by sqrt(head_dim), not sqrt(d_out)%s.",
                (long long)(t_size(q, 0) * t_size(q, 1)), (long long)t_size(q, 3),
                mask ? tr("; the one (1, 1, T, T) mask broadcasts over every batch and head") : "");
    return heads;
}

/* scores = F.softmax(scores.float(), dim=-1).type_as(xq): one pattern per head (and --heatmap). */
static void softmax_per_head(const Attention *heads, const Args *args) {
    narrate_step("Softmax: one attention pattern per head");
    narrate_torch("scores = F.softmax(scores.float(), dim=-1).type_as(xq)");
    narrate_show("attn_weights", heads->weights);
    narrate_why("every row of every head sums to 1. The heads see different projections of the same "
                "tokens, so they can attend differently: that is the point of having several.");
    if (!args->heatmap) return;
    HeatmapOptions opt = {.title = args->causal ? "attention weights (causal)" : "attention weights",
                          .ascii = args->ascii,
                          .scores = heads->scores,  /* -inf where the mask is */
                          .row_scale = args->row_scale};
    heatmap_print_all(heads->weights, &opt);  /* one grid per (batch, head) */
}

/* output = torch.matmul(scores, xv), still split by head. */
static void weighted_sum_per_head(const Attention *heads) {
    char s1[T_SHAPE_STR];
    narrate_step("Weighted sum of the values, per head");
    narrate_torch("output = torch.matmul(scores, xv)");
    narrate_layout("output", heads->output);
    narrate_show("output", heads->output);
    narrate_why("each head mixes the rows of its own head_dim-wide slice of the values; the result is "
                "still split by head, (bsz, n_heads, seqlen, head_dim) = %s.",
                t_shape_str(heads->output, s1));
}

/* output.transpose(1, 2): the tokens in front again, as a view (bsz, seqlen, n_heads, head_dim). */
static Tensor *merge_transpose(const Tensor *heads_output) {
    narrate_step("Merge, part 1: tokens back in front of the heads");
    narrate_torch("output = output.transpose(1, 2)");
    /* dims 1 and 2 swapped: (bsz, seqlen, n_heads, head_dim), a view */
    Tensor *back = t_permute(heads_output, SHAPE(0, 2, 1, 3));
    narrate_layout("output.transpose(1, 2)", back);
    narrate_why("the heads of one token are next to each other again in the shape, but not in memory: "
                "the strides jump, so view cannot glue the last two dims into one.");
    return back;
}

/* output.contiguous(): a row-major copy, which view needs. */
static void merge_contiguous(const Tensor *back) {
    narrate_step("Merge, part 2: contiguous() copies into row-major order");
    narrate_torch("output = output.contiguous()");
    Tensor *packed = t_clone(back);  /* (bsz, seqlen, n_heads, head_dim), a row-major copy */
    narrate_layout("output.contiguous()", packed);
    narrate_say("shares storage with the transposed view: %s", tr(t_shares_storage(packed, back) ? "yes" : "no"));
    narrate_why("in PyTorch, .view() on the transposed tensor fails (\"view size is not compatible with "
                "input tensor's size and stride\"); contiguous() (or reshape, which copies when it must) "
                "is the fix.");
}

/* output.view(bsz, seqlen, -1): the heads side by side, (bsz, seqlen, d_out). */
static Tensor *merge_view(const Tensor *heads_output) {
    char s1[T_SHAPE_STR], s2[T_SHAPE_STR];
    narrate_step("Merge, part 3: view (n_heads, head_dim) as one d_out");
    narrate_torch("output = output.view(bsz, seqlen, -1)");
    Tensor *output = merge_heads(heads_output);  /* (bsz, seqlen, d_out) */
    narrate_layout("output", output);
    narrate_show("output", output);
    narrate_why("columns h*head_dim .. (h+1)*head_dim-1 of each token hold head h's result: the heads "
                "are concatenated, %s -> %s. Chapter 7 adds W_o to mix them.",
                t_shape_str(heads_output, s1), t_shape_str(output, s2));
    return output;
}

/* xq.view(bsz, n_heads, seqlen, head_dim) without the transpose: right shapes, wrong numbers. */
static void the_wrong_split(const Tensor *xq, const Tensor *xk, const Tensor *xv, const Tensor *q,
                            int64_t n_heads, const Tensor *mask, const Tensor *output) {
    const int64_t bsz = t_size(xq, 0), seqlen = t_size(xq, 1), d_out = t_size(xq, 2);
    const int64_t head_dim = d_out / n_heads;
    narrate_step("A common mistake: view straight into heads, without transpose");
    narrate_torch("xq_wrong = xq.view(bsz, n_heads, seqlen, head_dim)   # no transpose");
    Tensor *q_wrong = t_view(xq, SHAPE(bsz, n_heads, seqlen, head_dim));  /* same shape as q */
    Tensor *k_wrong = t_view(xk, SHAPE(bsz, n_heads, seqlen, head_dim));
    Tensor *v_wrong = t_view(xv, SHAPE(bsz, n_heads, seqlen, head_dim));
    narrate_show("xq[0, 0] (right)", t_select(t_select(q, 0, 0), 0, 0));
    narrate_show("xq_wrong[0, 0]", t_select(t_select(q_wrong, 0, 0), 0, 0));
    narrate_why("the shapes agree, so PyTorch raises nothing. But head 0 should hold "
                "columns 0..%lld of every token; xq_wrong[0, 0] is just the first "
                "seqlen x head_dim numbers in memory: token 0's whole row, then token 1's, "
                "and so on. Heads and tokens are mixed.", (long long)(head_dim - 1));
    Attention wrong = masked_attention(q_wrong, k_wrong, v_wrong, mask);
    Tensor *output_wrong = t_view(t_contiguous(wrong.output), SHAPE(bsz, seqlen, d_out));
    narrate_show("output (right)", output);
    narrate_show("output_wrong", output_wrong);
    narrate_say("max |output_wrong - output| = %.4f: the same shapes, different numbers.",
                t_max_abs_diff(output_wrong, output));
}

/* multi_head_attention(): split, attend, merge in one call, as chapter 7 calls it. */
static void the_same_in_one_call(const Tensor *xq, const Tensor *xk, const Tensor *xv, int64_t n_heads,
                                 const Tensor *mask, const Tensor *output) {
    narrate_step("The same in one call");
    narrate_torch("split -> scaled attention per head -> merge   # multi_head_attention()");
    Attention one_call = multi_head_attention(xq, xk, xv, n_heads, mask);
    narrate_say("max |multi_head_attention - output| = %g", t_max_abs_diff(one_call.output, output));
    narrate_why("multi_head_attention() is the three steps above, for chapter 7 to call.");
}

/* Raschka's MultiHeadAttentionWrapper: n_heads single-head attentions, concatenated. */
static void as_single_heads(const QKVProjection *p, const Tensor *x, int64_t n_heads, const Tensor *mask,
                            const Tensor *output) {
    narrate_step("n_heads separate single-head attentions give the same output");
    narrate_torch("torch.cat([head(x) for head in self.heads], dim=-1)   # MultiHeadAttentionWrapper");
    Tensor *wrapped = multi_head_wrapper(p, x, n_heads, mask);  /* (bsz, seqlen, d_out) */
    narrate_say("max |wrapper - output| = %g", t_max_abs_diff(wrapped, output));
    narrate_why("head h of the wrapper is a single-head self-attention whose wq, wk, wv are rows "
                "h*head_dim .. (h+1)*head_dim-1 of the big matrices. Projecting with the big matrix and "
                "splitting equals projecting with each small one and concatenating "
                "(矩阵内积再拼接 = 拼接矩阵再内积), so the split version is the wrapper with one matmul "
                "instead of n_heads -- and each head here could run on its own worker.");
}

/* --dump DIR and --output FILE, after everything was computed. */
static void save_files(const Args *args, const QKVProjection *p, const Tensor *x, const Tensor *q,
                       const Tensor *k, const Tensor *v, const Attention *heads, const Tensor *output) {
    if (args->dump) {
        save_heads_dump(args->dump, p, x, q, k, v, heads->scores, heads->weights);
        npy_save_in(args->dump, "output", output);                /* (bsz, seqlen, d_out) */
    }
    if (args->output) npy_save(args->output, output);
}

int main(int argc, char **argv) {
    CliSpec spec = {
        .program = "chapter5",
        .summary = "Chapter 5: multi-head attention, split and merge (Happy-LLM 2.1.6), without W_o.\n"
                   "Causal by default, like the README's 手撕 MHA class; --no-causal is the\n"
                   "Happy-LLM class's default (is_causal=False). With --input/--weights the\n"
                   "sizes and biases come from the files, and --heads must divide their d_out.\n"
                   "--max-seq-len sets max_seq_len, the size of the mask buffer: by default 2 x T;\n"
                   "with --input, the input's T (or --seq-len).",
        .flags = CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_MAX_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_HEADS |
                 CLI_CAUSAL | CLI_BIAS | CLI_QUIET | CLI_DUMP | CLI_HEATMAP | CLI_INPUT | CLI_OUTPUT,
        .defaults = {.seed = 123, .batch = 1, .seq_len = 4, .d_in = 6, .d_out = 4, .heads = 2, .causal = true},
        .messages = chapter5_zh, /* zh.c: the narration in Chinese (--lang zh) */
    };
    Args args = program_start(&spec, argc, argv);
    /* before any work: 16 (B, H, T, T) buffers at once with the mask, 12 without (measured, t_peak_bytes),
     * and four attentions' work (the heads, the wrong split, the one call, the single heads) */
    cli_refuse_mask_flags(&args); /* --max-seq-len with no mask, or shorter than --seq-len */
    cli_refuse_unused_seed(&args, !args.input); /* the default run draws x and the weights; files draw nothing */
    multi_head_refuse_past_budget(&args, args.causal ? 16 : 12, 0, 4);
    const int64_t n_heads = args.heads;
    Tensor *x;            /* (bsz, seqlen, d_in) */
    int64_t max_seq_len;  /* the causal mask buffer, sliced to seqlen */
    QKVProjection *loaded = heads_files_before_title(&args, &x, &max_seq_len); /* --input, --weights; else NULL */
    narrate_title("Chapter 5: multi-head attention, split and merge (Happy-LLM 2.1.6)%s",
                  args.causal ? "" : tr(" -- with --no-causal"));

    QKVProjection *p = projections_and_input(&args, "The module's projections and a random input x", loaded, &x,
                                             &max_seq_len);
    show_the_module(p);
    Tensor *xq, *xk, *xv;  /* (bsz, seqlen, d_out) */
    project_for_every_head(p, x, &xq, &xk, &xv);
    int64_t head_dim = explain_head_dim(p->d_out, n_heads);

    split_view(xq, n_heads, head_dim);
    Tensor *q, *k, *v;  /* (bsz, n_heads, seqlen, head_dim) */
    split_transpose(xq, xk, xv, n_heads, &q, &k, &v);

    Tensor *mask = args.causal ? causal_mask(max_seq_len, 1) : NULL;  /* (1, 1, max_seq_len, max_seq_len) */
    Attention heads = scores_per_head(q, k, v, mask);
    softmax_per_head(&heads, &args);
    weighted_sum_per_head(&heads);

    merge_contiguous(merge_transpose(heads.output));
    Tensor *output = merge_view(heads.output);  /* (bsz, seqlen, d_out) */

    the_wrong_split(xq, xk, xv, q, n_heads, mask, output);
    the_same_in_one_call(xq, xk, xv, n_heads, mask, output);
    as_single_heads(p, x, n_heads, mask, output);

    if (narrate_quiet()) {  /* --quiet prints only these (the narration has shown them otherwise) */
        narrate_result("attn_weights", heads.weights);
        narrate_result("output", output);
    }
    save_files(&args, p, x, q, k, v, &heads, output);
    t_scope_end();
    return 0;
}
