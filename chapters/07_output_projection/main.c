/* main.c — chapter 7: the output projection W_o, the complete
 * MultiHeadAttention (Happy-LLM 2.1.6).
 *
 * Runs the 手撕 MHA script quoted in the README -- torch.manual_seed(123);
 * MultiHeadAttention(d_in=10, d_out=8, context_length=10, dropout=0.1,
 * num_heads=2); x = torch.randn(3, 5, 10); print(model(x)) -- and prints the
 * same numbers (common/rng.h draws what PyTorch draws), then walks through
 * one call of mha_forward():
 *   - the module: wq, wk, wv (d_out, d_in), the new wo (d_out, d_out) with
 *     out_proj's bias, one dropout on the weights, the causal mask buffer
 *     (max_seq_len = 2 * T by default, sliced to T), and the parameter count
 *     (3 * d_out * d_in + d_out * d_out + d_out = 312);
 *   - chapters 3-6 step by step: project, split, scaled scores + mask,
 *     softmax, attn_dropout, @ xv, merge;
 *   - this chapter: output = self.wo(output), which mixes the heads (each
 *     output feature is a sum over every head); --resid-dropout adds
 *     Happy-LLM's second dropout, self.resid_dropout;
 *   - why a Transformer block needs d_out == d_in: it adds this output to x.
 *
 *     build/chapter7                                   the 手撕 script, training mode
 *     build/chapter7 --eval                            dropout off (model.eval())
 *     build/chapter7 --d-in 8 --d-out 8 --heads 4      d_out == d_in: the residual works
 *     build/chapter7 --input X.npy --weights DIR --eval --output OUT.npy
 *     build/chapter7 --happy-llm                       the book's own 2.1.6 class
 *
 * --happy-llm runs Happy-LLM 2.1.6's MultiHeadAttention(args) exactly: wq, wk,
 * wv, wo all bias=False, attn_dropout after the softmax and resid_dropout
 * after wo, is_causal=False unless --causal; wq reads args.n_embd (--d-in),
 * the heads share args.dim (--d-out).
 */
#include <stdio.h>

#include "common/program/program.h"
#include "mha_setup.h"

extern const LangPair chapter7_zh[]; /* zh.c: this program's sentences in Chinese (lang.h) */

static bool happy_llm;  /* --happy-llm: the book's 2.1.6 class instead of the 手撕 script's */

static const CliExtra chapter7_flags[] = {
    {.name = "--happy-llm", .kind = CLI_EXTRA_FLAG, .value = &happy_llm,
     .help = "run Happy-LLM 2.1.6's own class"},
    {.name = NULL}};

/* model = MultiHeadAttention(args, is_causal): Happy-LLM 2.1.6's class, as the flags size it */
static void *new_happy_llm_mha(const Args *args, int64_t max_seq_len) {
    ModelArgs a = happy_llm_args(args->d_out, args->heads, max_seq_len, args->dropout, args->causal);
    a.d_in = args->d_in;  /* self.wq = nn.Linear(args.n_embd, self.n_heads * self.head_dim, bias=False) */
    return mha_new(a);    /* wq, wk, wv, wo, all without bias */
}

/* With --input and --weights, before the title: the module and x loaded and checked (each error one
 * sentence before any output); NULL without --input. */
static MultiHeadAttention *files_before_title(const Args *args, Tensor **x) {
    MultiHeadAttention *m = mha_files_before_title(args, x);
    if (m && happy_llm && (m->args.qkv_bias || m->args.out_bias))
        t_error(tr("--happy-llm: the weights folder '%s' has biases, but Happy-LLM 2.1.6's class has none "
                   "(bias=False on wq, wk, wv and wo)"),
                args->weights);
    return m;
}

/* The module and x: the files (`loaded`, files_before_title's), or the 手撕 script's torch.manual_seed,
 * class and x; --eval. */
static MultiHeadAttention *module_and_input(const Args *args, MultiHeadAttention *loaded, Tensor **x) {
    MultiHeadAttention *m;
    if (happy_llm && !args->input) {
        m = default_model(args, new_happy_llm_mha, x, NULL);  /* torch.manual_seed; the class; then x */
        narrate_step("The module and a random input: Happy-LLM 2.1.6's MultiHeadAttention");
        narrate_torch_seed(args->seed);
        narrate_torch("args = ModelArgs(n_embd=d_in, dim=d_out, n_heads=n_heads, max_seq_len=max_seq_len, "
                      "dropout=dropout)");
        narrate_torch(args->causal ? "model = MultiHeadAttention(args, is_causal=True)"
                                   : "model = MultiHeadAttention(args)   # is_causal=False");
        narrate_torch("x = torch.randn(batch_size, seq_len, d_in)");
        narrate_why("the book's class: no bias on wq, wk, wv or wo, a second dropout (resid_dropout) on "
                    "the output, and no mask unless is_causal=True (--causal).");
    } else {
        m = mha_from_args(args, loaded, x);  /* the files, or torch.manual_seed; the class; then x */
    }
    if (!args->input && !happy_llm) {
        narrate_step("The module and a random input, as in the 手撕 MHA script");
        narrate_torch_seed(args->seed);
        narrate_torch(args->bias ? "model = MultiHeadAttention(d_in, d_out, max_seq_len, dropout, num_heads, "
                                   "qkv_bias=True)"
                                 : "model = MultiHeadAttention(d_in, d_out, max_seq_len, dropout, num_heads)");
        narrate_torch("x = torch.randn(batch_size, seq_len, d_in)");
    }
    if (args->eval) mha_eval(m);  /* model.eval(): both dropouts off */
    const ModelArgs *a = &m->args;
    narrate_say("ModelArgs: d_in = %lld, d_out = %lld, n_heads = %lld, head_dim = %lld, "
                "max_seq_len = %lld, dropout = %g (%s), causal = %s, qkv_bias = %s, out bias = %s",
                (long long)a->d_in, (long long)a->d_out, (long long)a->n_heads, (long long)m->head_dim,
                (long long)a->max_seq_len, a->dropout, tr(m->attn_dropout.training ? "training" : "eval"),
                a->causal ? "True" : "False", a->qkv_bias ? "True" : "False", a->out_bias ? "True" : "False");
    narrate_show("x", *x);
    return m;
}

/* wq, wk, wv (chapter 3) and the new wo; sum(p.numel() for p in model.parameters()). */
static int64_t the_parameters(const MultiHeadAttention *m) {
    const ModelArgs *a = &m->args;
    char s1[T_SHAPE_STR], qkv_b[64] = "", out_b[64] = "";
    narrate_step("The parameters: wq, wk, wv from chapter 3, and the new wo");
    narrate_torch(a->out_bias ? "self.out_proj = nn.Linear(d_out, d_out)   # Happy-LLM: wo, bias=False"
                              : "self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)");
    narrate_say("wq.weight, wk.weight, wv.weight: %s each (d_out, d_in)%s", t_shape_str(m->qkv->wq->weight, s1),
                tr(a->qkv_bias ? ", with biases (d_out,)" : ", no biases"));
    narrate_say("wo.weight: %s (d_out, d_out)%s", t_shape_str(m->wo->weight, s1),
                tr(a->out_bias ? ", with a bias (d_out,)" : ", no bias"));
    narrate_show("wo.weight", m->wo->weight);
    int64_t n_params = mha_num_params(m);
    if (a->qkv_bias) snprintf(qkv_b, sizeof qkv_b, " + 3 x %lld (bq, bk, bv)", (long long)a->d_out);
    if (a->out_bias) snprintf(out_b, sizeof out_b, " + %lld (bo)", (long long)a->d_out);
    narrate_say("parameters: 3 x %lld x %lld (wq, wk, wv)%s + %lld x %lld (wo)%s = %lld", (long long)a->d_out,
                (long long)a->d_in, qkv_b, (long long)a->d_out, (long long)a->d_out, out_b, (long long)n_params);
    narrate_why("sum(p.numel() for p in model.parameters()). The mask %s is a buffer "
                "(register_buffer), not a parameter: it is never trained. At GPT-2 size (768 wide, 12 heads, "
                "qkv_bias False) the same formula gives 2,360,064.",
                m->mask ? t_shape_str(m->mask, s1) : "(none here: not causal)");
    return n_params;
}

/* xq, xk, xv = self.wq(q), ...; split into heads: the trace's xq. */
static void project_and_split(const MultiHeadAttention *m, const MhaTrace *tr) {
    narrate_step("Project and split into heads (chapters 3 and 5)");
    narrate_torch("xq, xk, xv = self.wq(q), self.wk(k), self.wv(v); "
                  "xq = xq.view(bsz, seqlen, n_heads, head_dim).transpose(1, 2)");
    narrate_layout("xq", tr->xq);
    narrate_show("xq", tr->xq);
    narrate_why("forward(q, k, v) takes three inputs; self-attention passes x three times. Each head "
                "works in its own %lld-wide slice of d_out = %lld.", (long long)m->head_dim,
                (long long)m->args.d_out);
}

/* scores = xq @ xk.transpose(2, 3) / sqrt(head_dim) [+ self.mask[...]]. */
static void scaled_scores_step(const MultiHeadAttention *m, const MhaTrace *trace) {
    bool causal = m->args.causal;
    narrate_step("Scaled scores%s (chapters 2 and 4)", causal ? tr(" with the causal mask") : "");
    narrate_torch(causal ? "scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim); "
                           "scores = scores + self.mask[:, :, :seqlen, :seqlen]"
                         : "scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)");
    narrate_show("scores", trace->scores);
    narrate_why("one (seqlen, seqlen) score matrix per batch and head, scaled by sqrt(head_dim)%s.",
                causal ? tr("; the mask buffer is sliced to the sequence length and puts -inf on the future") : "");
}

/* scores = F.softmax(scores.float(), dim=-1).type_as(xq) (and --heatmap). */
static void softmax_step(const Args *args, const MultiHeadAttention *m, const MhaTrace *tr) {
    narrate_step("Softmax: the attention weights");
    narrate_torch("scores = F.softmax(scores.float(), dim=-1).type_as(xq)");
    narrate_show("attn_weights", tr->attn_weights);
    narrate_why("each row is a probability distribution over the keys (the book keeps calling them "
                "scores; here scores are before softmax, weights after).");
    if (!args->heatmap) return;
    HeatmapOptions opt = {.title = m->args.causal ? "attention weights (causal)" : "attention weights",
                          .ascii = args->ascii,
                          .scores = tr->scores,  /* -inf where the mask is */
                          .row_scale = args->row_scale};
    heatmap_print_all(tr->attn_weights, &opt);  /* one grid per (batch, head) */
}

/* scores = self.attn_dropout(scores) (chapter 6). */
static void attn_dropout_step(const MultiHeadAttention *m, const MhaTrace *tr) {
    narrate_step("attn_dropout on the weights (chapter 6)");
    narrate_torch("scores = self.attn_dropout(scores)");
    narrate_show("attn_dropped", tr->attn_dropped);
    narrate_say("%lld of %lld weights are 0 after attn_dropout (%lld were 0 before it)",
                (long long)count_zeros(tr->attn_dropped), (long long)t_numel(tr->attn_dropped),
                (long long)count_zeros(tr->attn_weights));
    narrate_why(m->attn_dropout.training && m->args.dropout > 0.0
                    ? "training mode: each weight is dropped with probability p or divided by 1 - p."
                    : "eval mode or p = 0: dropout is the identity.");
}

/* output = merge(scores @ xv) (chapters 1 and 5): the heads side by side. */
static void weighted_sum_and_merge(const MultiHeadAttention *m, const MhaTrace *tr) {
    int64_t head_dim = m->head_dim;
    narrate_step("Weighted sum of the values and merge of the heads (chapters 1 and 5)");
    narrate_torch("output = torch.matmul(scores, xv); "
                  "output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)");
    narrate_show("merged", tr->merged);
    narrate_why("columns h*%lld .. h*%lld+%lld of each token hold head h's result, side by side: the heads "
                "are concatenated but have not met yet.",
                (long long)head_dim, (long long)head_dim, (long long)(head_dim - 1));
}

/* output = self.wo(output): projected[0, 0, 0] as a sum over the heads. */
static void output_projection(const MultiHeadAttention *m, const MhaTrace *trace) {
    const int64_t n_heads = m->args.n_heads, head_dim = m->head_dim;
    narrate_step("The output projection W_o mixes the heads");
    narrate_torch("output = self.wo(output)   # 手撕 class: context_vec = self.out_proj(context_vec)");
    narrate_show("projected", trace->projected);
    /* projected[0, 0, 0] = sum over heads of wo[0, head's columns] . merged[0, 0, head's columns] + bo[0] */
    char parts[512] = "";
    size_t used = 0;
    int64_t shown = n_heads < 6 ? n_heads : 6;
    for (int64_t h = 0; h < shown; h++) {
        double part = 0.0;
        for (int64_t j = h * head_dim; j < (h + 1) * head_dim; j++)
            part += (double)t_get(m->wo->weight, 0, j) * (double)t_get(trace->merged, 0, 0, j);
        int n = snprintf(parts + used, sizeof parts - used, tr("%shead %lld: %.4f"), h ? " + " : "", (long long)h,
                         part);
        if (n > 0 && (size_t)n < sizeof parts - used) used += (size_t)n;
    }
    narrate_say("projected[0, 0, 0] = %.4f = %s%s%s", (double)t_get(trace->projected, 0, 0, 0), parts,
                shown < n_heads ? tr(" + ... (more heads)") : "", m->wo->bias ? tr(" + bias") : "");
    if (m->wo->bias) narrate_say("bias: bo[0] = %.4f", (double)t_get(m->wo->bias, 0));
    narrate_why("before W_o, output feature j came from head j // head_dim alone. wo is a full (d_out, "
                "d_out) matrix, so every output feature is a weighted sum over all heads: this is where "
                "what the heads found separately is combined (and, in a block, mapped back to the width "
                "the residual adds to).");
}

/* output = self.resid_dropout(output), Happy-LLM's class only. */
static void resid_dropout_step(const MultiHeadAttention *m, const Tensor *output) {
    if (!m->args.resid_dropout) {
        narrate_say("output = projected: the 手撕 class has one dropout, on the weights "
                    "(--resid-dropout adds Happy-LLM's second one, on the output).");
        return;
    }
    narrate_step("resid_dropout on the projected output (Happy-LLM's class)");
    narrate_torch("output = self.resid_dropout(output)");
    narrate_show("output", output);
    narrate_say("%lld of %lld outputs are 0 after resid_dropout", (long long)count_zeros(output),
                (long long)t_numel(output));
    narrate_why("a second nn.Dropout with the same p, on what the attention hands to the "
                "residual connection; the 手撕 class has only the first one. %s",
                tr(m->resid_dropout.training && m->args.dropout > 0.0 ? "--eval turns both off."
                                                                       : "Off here: output == projected."));
}

/* h = x + attention(x): why a Transformer block needs d_out == d_in. */
static void the_residual(const ModelArgs *a, const Tensor *x, const Tensor *output) {
    char s1[T_SHAPE_STR], s2[T_SHAPE_STR];
    narrate_step("Why a Transformer block needs d_out == d_in");
    narrate_torch("h = x + self.attention.forward(self.attention_norm(x), ...)   # the residual");
    if (a->d_in == a->d_out) {
        Tensor *h = t_add(x, output);  /* (bsz, seqlen, d_in) */
        narrate_say("d_in = d_out = %lld: x %s + output %s = h %s", (long long)a->d_in, t_shape_str(x, s1),
                    t_shape_str(output, s2), t_shape_str(h, s1));
    } else {
        narrate_say("d_in = %lld != d_out = %lld: x %s + output %s does not broadcast; the block could not "
                    "add them (try --d-out %lld).",
                    (long long)a->d_in, (long long)a->d_out, t_shape_str(x, s1), t_shape_str(output, s2),
                    (long long)a->d_in);
    }
    narrate_why("a block adds the attention's output back to its input, so wo must map to the input's "
                "width: d_out == d_in. The 手撕 class may use d_in 10 and d_out 8; in a "
                "model both are one number. Happy-LLM 2.1.6's ModelArgs has both: "
                "wq = nn.Linear(args.n_embd, n_heads * head_dim) reads n_embd (d_in), wo maps to "
                "args.dim (d_out), and its blocks need n_embd == dim (readers asked about this in "
                "Happy-LLM issues #121 and #141).");
}

/* --dump DIR and --output FILE, after everything was computed. */
static void save_files(const Args *args, const MultiHeadAttention *m, const Tensor *x, const MhaTrace *tr,
                       const Tensor *output) {
    if (args->dump) mha_save_dump(args->dump, m, x, tr, output);
    if (args->output) npy_save(args->output, output);
}

int main(int argc, char **argv) {
    CliSpec spec = {
        .program = "chapter7",
        .summary = "Chapter 7: the output projection W_o and resid_dropout -- the complete\n"
                   "MultiHeadAttention (Happy-LLM 2.1.6). Default: the 手撕 MHA script of the\n"
                   "README, torch.manual_seed(N), MultiHeadAttention(10, 8, 2 * T, 0.1, 2),\n"
                   "x = torch.randn(3, 5, 10), with PyTorch's numbers, in training mode; --eval\n"
                   "turns dropout off; --bias is qkv_bias=True; --resid-dropout adds Happy-LLM's\n"
                   "resid_dropout. With --input/--weights the sizes come from the files: wq wk wv\n"
                   "(d_out, d_in), wo (d_out, d_out), biases when bq bk bv (all three) or bo are\n"
                   "there; --max-seq-len (or --seq-len) sets max_seq_len, by default the input's T.\n"
                   "--happy-llm runs Happy-LLM 2.1.6's own class instead: no biases anywhere,\n"
                   "attn_dropout and resid_dropout, is_causal=False unless --causal.",
        .flags = CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_MAX_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_HEADS |
                 CLI_DROPOUT | CLI_EVAL | CLI_RESID | CLI_CAUSAL | CLI_BIAS | CLI_QUIET | CLI_DUMP | CLI_HEATMAP |
                 CLI_INPUT | CLI_OUTPUT,
        .defaults = {.seed = 123, .batch = 3, .seq_len = 5, .d_in = 10, .d_out = 8, .heads = 2, .dropout = 0.1,
                     .causal = true},
        .extra = chapter7_flags,
        .messages = chapter7_zh, /* zh.c: the narration in Chinese (--lang zh) */
        .weights_help = "folder with wq wk wv wo.npy (bq bk bv bo: optional)",
    };
    lang_add(chapter5_zh); /* chapter 5's steps (the files' input) in Chinese too */
    Args args = program_start(&spec, argc, argv);
    if (happy_llm) {
        if (args.bias) {
            fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter7",
                    tr("--happy-llm is the book's class, which has no biases; it does not take --bias"));
            return EXIT_USAGE;
        }
        if (!(args.given & CLI_CAUSAL) && (args.given & CLI_MAX_SEQ_LEN)) {
            fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter7",
                    tr("--happy-llm without --causal is is_causal=False, which makes no mask buffer; it does not "
                       "take --max-seq-len"));
            return EXIT_USAGE;
        }
        if (!(args.given & CLI_CAUSAL)) args.causal = false;  /* MultiHeadAttention(args, is_causal=False) */
        args.resid_dropout = true;                            /* self.resid_dropout = nn.Dropout(args.dropout) */
    }
    cli_refuse_mask_flags(&args); /* --max-seq-len with no mask (--happy-llm: unless --causal), or < --seq-len */
    cli_refuse_unused_seed(&args, !args.input || (!args.eval && args.dropout > 0)); /* x, weights, or dropout */
    /* before any work: 6 (B, H, T, T) buffers at once with the mask, 5 without (measured) */
    multi_head_refuse_past_budget(&args, args.causal ? 6 : 5, 0, 1);
    if (!args.input) t_check_fits("wo.weight", SHAPE(args.d_out, args.d_out)); /* and this chapter's W_o */
    Tensor *x;  /* (bsz, seqlen, d_in) */
    MultiHeadAttention *loaded = files_before_title(&args, &x); /* --input, --weights; else NULL */
    narrate_title("Chapter 7: the output projection, the complete MultiHeadAttention (2.1.6)");

    MultiHeadAttention *m = module_and_input(&args, loaded, &x);
    int64_t n_params = the_parameters(m);

    /* one forward call; the steps below read its trace */
    MhaTrace tr;
    Tensor *output = mha_forward(m, x, x, x, &tr);  /* (bsz, seqlen, d_out) */
    project_and_split(m, &tr);
    scaled_scores_step(m, &tr);
    softmax_step(&args, m, &tr);
    attn_dropout_step(m, &tr);
    weighted_sum_and_merge(m, &tr);
    output_projection(m, &tr);  /* this chapter: W_o */
    resid_dropout_step(m, output);
    the_residual(&m->args, x, output);

    if (narrate_quiet()) {
        narrate_result("output", output);
        narrate_result_text("parameters: %lld", (long long)n_params);
    }
    save_files(&args, m, x, &tr, output);
    t_scope_end();
    return 0;
}
