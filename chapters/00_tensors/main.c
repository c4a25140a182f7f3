/* main.c — chapter 0: tensors in memory.
 *
 * Before any attention, the moves Happy-LLM 2.1.6's MultiHeadAttention makes on its tensors:
 * shape and strides, view (zero copy), transpose(1, 2) (strides swap, the
 * tensor is no longer contiguous), why view() then needs contiguous() (the
 * error, caught, then the fix), nn.Linear as x·Wᵀ + b, the split and merge of
 * heads, and the causal mask made with torch.full and torch.triu(diagonal=1).
 * The strides are printed at every step.
 *
 *     build/chapter0                      sizes: --batch 2 --seq-len 3 --d-in 3 --d-out 4 --heads 2
 *     build/chapter0 --d-out 8 --heads 4  four heads of head_dim 2
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/program/program.h"
#include "chapters/00_tensors/tensors.h"

extern const LangPair chapter0_zh[]; /* zh.c: this program's sentences in Chinese (lang.h) */

/* One line of the --quiet summary table (the narration shows each layout
 * where it happens, so the table is printed only with --quiet). */
static void result_layout(const char *what, const Tensor *x) {
    char s[T_SHAPE_STR], st[T_SHAPE_STR];
    if (!narrate_quiet()) return;
    narrate_result_text("%-36s %-12s %-14s %s", what, t_shape_str(x, s), t_strides_str(x, st),
                        tr(t_is_contiguous(x) ? "yes" : "no"));
}

/* "dim 0 has stride 1, but a contiguous (3, 2) has stride 2 there" */
static void say_why_not_contiguous(const char *name, const Tensor *x) {
    char s[T_SHAPE_STR], want[T_SHAPE_STR];
    int d = stride_mismatch_dim(x);
    Shape cs = contiguous_strides(t_shape(x));
    if (d < 0) {
        narrate_say("%s is contiguous: its strides are the row-major ones %s.", name, shape_str(cs, want));
        return;
    }
    narrate_say("%s is not contiguous: dim %d has stride %lld, but a contiguous %s has strides %s, "
                "i.e. %lld there.", name, d, (long long)x->strides[d], t_shape_str(x, s),
                shape_str(cs, want), (long long)cs.dims[d]);
}

/* The storage behind x: the flat floats that every view of it shares. */
static void show_storage(const char *name, const Tensor *x) {
    enum { SHOWN = 24 };
    if (narrate_quiet()) return;
    const Storage *s = x->storage;
    printf(tr("    %s storage: ["), name);
    for (int64_t i = 0; i < s->numel && i < SHOWN; i++)
        printf("%s%.4g", i ? ", " : "", (double)s->data[i]);
    printf(tr(s->numel == 1 ? "%s]  (%lld float)\n" : "%s]  (%lld floats)\n"), s->numel > SHOWN ? ", ..." : "",
           (long long)s->numel);
}

/* What this run holds (common/program/budget.h): refused, in one sentence,
 * before any work when it would not fit in memory. No scores here: every tensor
 * stays alive to the layouts table, and the run holds at most (measured, t_peak_bytes)
 * one x (bsz, seqlen, d_in), seven (bsz, seqlen, d_out) (xq, x @ W.T, + b, the
 * storage offsets, output and its copy, the difference), the (d_out, d_in) weight and
 * five (seqlen, seqlen) while the mask is made. */
static void refuse_past_budget(const Args *a) {
    char what[160];
    double B = (double)a->batch, T = (double)a->seq_len, din = (double)a->d_in, dout = (double)a->d_out;
    double rows = B * T * (din + 7 * dout + 4), weight = din * dout + 2 * dout, mask = 5 * T * T;
    BudgetEstimate e = {0};
    e.bytes = BUDGET_OVERHEAD + 1.01 * BUDGET_F4 * (rows + weight + mask);
    e.largest = BUDGET_F4 * fmax(fmax(T * T, B * T * fmax(din, dout)), din * dout);
    e.flops = 4 * B * T * din * dout + 30 * (B * T * din + din * dout); /* wq(x), x @ W.T; the draws */
    e.what = what;
    if (mask >= rows && mask >= weight) {
        snprintf(what, sizeof what, tr("the seqlen x seqlen mask buffers, seqlen = %.0f"), T);
        e.flag = "--seq-len";
    } else if (weight > rows) {
        snprintf(what, sizeof what, tr("the (d_out, d_in) weight of nn.Linear, d_in = %.0f, d_out = %.0f"), din, dout);
        e.flag = "--d-in or --d-out";
    } else {
        snprintf(what, sizeof what, tr("the (bsz, seqlen, d) activations, bsz = %.0f, seqlen = %.0f"), B, T);
        e.flag = "--batch, --seq-len, --d-in or --d-out";
    }
    budget_refuse(&e, a->quiet);
}

/* Every tensor the walk-through makes, step by step, for the layouts table at the end. */
typedef struct {
    Tensor *x, *y, *t, *c;          /* arange(6).view(2, 3), its view, transpose, contiguous copy */
    Linear *wq;                     /* nn.Linear(d_in, d_out)                                     */
    Tensor *wt, *xq;                /* wq.weight.T, wq(x)                                         */
    Tensor *xq4, *heads;            /* xq.view(b, t, h, hd), then .transpose(1, 2)                */
    Tensor *output, *back, *merged; /* the heads' output, transposed back, merged                 */
    Tensor *mask;                   /* triu(full(-inf), diagonal=1)                               */
} Walkthrough;

/* ---- 1. storage + shape + strides ---------------------------------- */
static void storage_shape_strides(Walkthrough *w) {
    narrate_step("A tensor is one flat row of floats (the storage) seen through a shape and strides");
    narrate_torch("x = torch.arange(6.).view(2, 3)");
    Tensor *x = t_view(t_arange(6), SHAPE(2, 3)); /* (2, 3) */
    narrate_show("x", x);
    narrate_layout("x", x);
    show_storage("x", x);
    int64_t at12 = element_offset(x, (int64_t[]){1, 2});
    narrate_say("x[1][2] lives at storage position offset + 1*stride(0) + 2*stride(1) = 0 + 1*3 + 2*1 "
                "= %lld, and holds %g.", (long long)at12, (double)t_get(x, 1, 2));
    narrate_why("a stride is how many floats to skip to move one step along that dim: one row of x "
                "is 3 floats, one column 1 float.");
    w->x = x;
}

/* ---- 2. view: zero copy -------------------------------------------- */
static void view_zero_copy(Walkthrough *w) {
    Tensor *x = w->x;
    narrate_step("view() gives the same storage a new shape: nothing is copied");
    narrate_torch("y = x.view(3, 2)");
    Tensor *y = t_view(x, SHAPE(3, 2)); /* (3, 2) */
    narrate_show("y", y);
    narrate_layout("y", y);
    narrate_say("y shares x's storage: %s.", tr(t_shares_storage(x, y) ? "yes" : "no"));
    narrate_torch("y[0][1] = 100.0   # and look at x");
    t_set(y, 100.0f, 0, 1);
    narrate_show("x", x);
    narrate_torch("y[0][1] = 1.0     # put it back: the steps below read x = arange(6) again");
    t_set(y, 1.0f, 0, 1);
    narrate_why("view only writes a new shape and new strides over the same numbers, so the number "
                "of elements must match (2*3 == 3*2) and a write through y shows up in x.");
    w->y = y;
}

/* ---- 3. transpose: strides swap ------------------------------------- */
static void transpose_swaps_strides(Walkthrough *w) {
    Tensor *x = w->x;
    narrate_step("transpose() swaps two dims by swapping their strides: still no copy");
    narrate_torch("t = x.transpose(0, 1)");
    Tensor *t = t_transpose(x, 0, 1); /* (3, 2), strides (1, 3) */
    narrate_show("t", t);
    narrate_layout("t", t);
    narrate_say("Storage position of each element of t (row by row, this is where reading t jumps):");
    narrate_show("storage_offsets(t)", storage_offsets(t));
    say_why_not_contiguous("t", t);
    narrate_why("reading t row by row visits the storage as 0, 3, 1, 4, 2, 5: the numbers are no "
                "longer in the order the shape suggests, which is what 'not contiguous' means.");
    w->t = t;
}

/* ---- 4. view refuses a non-contiguous tensor -------------------------- */
static void view_refuses_non_contiguous(const Tensor *t) {
    char err[1024];
    narrate_step("view(6) of this transposed tensor is an error");
    narrate_torch("t.view(6)");
    Tensor *flat = NULL;
    if (!try_view(t, SHAPE(6), &flat, err, sizeof err)) {
        narrate_say("PyTorch: RuntimeError: view size is not compatible with input tensor's size and "
                    "stride (at least one dimension spans across two contiguous subspaces). Use "
                    ".reshape(...) instead.");
        narrate_say("here:    %s", err);
    }
    narrate_why("a view can only change strides, and no single stride walks the storage as "
                "0, 3, 1, 4, 2, 5.");
}

/* ---- 5. contiguous() copies, then view works -------------------------- */
static void contiguous_copies(Walkthrough *w) {
    Tensor *t = w->t;
    narrate_step("contiguous() copies the elements into new storage in reading order; then view() works");
    narrate_torch("c = t.contiguous(); flat = c.view(6)");
    Tensor *c = t_contiguous(t); /* (3, 2), strides (2, 1) */
    narrate_layout("c", c);
    show_storage("c", c);
    narrate_say("c shares t's storage: %s.", tr(t_shares_storage(c, t) ? "yes" : "no"));
    Tensor *flat = t_view(c, SHAPE(6)); /* (6,) */
    narrate_show("flat", flat);
    narrate_layout("flat", flat);
    narrate_why("after the copy the storage is 0, 3, 1, 4, 2, 5 and the row-major strides fit again "
                "(x.reshape(6) does the same: a view when it can, a copy when it must).");
    w->c = c;
}

/* ---- 6. nn.Linear: x · Wᵀ + b ---------------------------------------- */
static void linear_is_x_wt_plus_b(Walkthrough *w, const Args *args) {
    const int64_t bsz = args->batch, seqlen = args->seq_len, d_in = args->d_in, d_out = args->d_out;
    narrate_step("nn.Linear(d_in, d_out) computes x · Wᵀ + b, with W stored as (d_out, d_in)");
    narrate_torch("x = torch.randn(bsz, seqlen, d_in); wq = nn.Linear(d_in, d_out); xq = wq(x)");
    Tensor *xin = t_randn(SHAPE(bsz, seqlen, d_in)); /* (bsz, seqlen, d_in) */
    Linear *wq = nn_linear(d_in, d_out, true);        /* weight (d_out, d_in), bias (d_out,) */
    narrate_show("x", xin);
    narrate_layout("x", xin);
    narrate_show("wq.weight", wq->weight);
    narrate_layout("wq.weight", wq->weight);
    narrate_show("wq.bias", wq->bias);
    Tensor *wt = t_transpose(wq->weight, 0, 1); /* (d_in, d_out), a view */
    narrate_torch("wq.weight.T   # a transposed view, no copy");
    narrate_layout("wq.weight.T", wt);
    Tensor *xq = nn_linear_forward(wq, xin);             /* (bsz, seqlen, d_out) */
    Tensor *by_hand = t_add(t_matmul(xin, wt), wq->bias); /* torch.matmul(x, W.T) + b */
    narrate_show("xq", xq);
    narrate_layout("xq", xq);
    narrate_say("largest |wq(x) - (x @ W.T + b)| = %g", t_max_abs_diff(xq, by_hand));
    narrate_why("each row of W is one output feature; x @ W.T dots every token's d_in features with "
                "every row, for all (batch, token) pairs at once, and the bias is added to every row.");
    w->wq = wq;
    w->wt = wt;
    w->xq = xq;
}

/* ---- 7. split heads: view, then transpose(1, 2) ----------------------- */
static void split_heads(Walkthrough *w, const Args *args) {
    const int64_t bsz = args->batch, seqlen = args->seq_len, d_out = args->d_out;
    const int64_t n_heads = args->heads, head_dim = d_out / n_heads;
    Tensor *xq = w->xq;
    narrate_step("Split d_out = %lld into %lld heads of head_dim %lld: view, then transpose(1, 2)",
                 (long long)d_out, (long long)n_heads, (long long)head_dim);
    narrate_torch("xq = xq.view(bsz, seqlen, n_heads, head_dim)");
    Tensor *xq4 = t_view(xq, SHAPE(bsz, seqlen, n_heads, head_dim)); /* (bsz, seqlen, n_heads, head_dim) */
    narrate_layout("xq (view)", xq4);
    narrate_torch("xq = xq.transpose(1, 2)");
    Tensor *heads = t_transpose(xq4, 1, 2); /* (bsz, n_heads, seqlen, head_dim) */
    narrate_show("xq", heads);
    narrate_layout("xq (transposed)", heads);
    say_why_not_contiguous("xq", heads);
    narrate_say("Where each element of the heads lives in xq's storage (in batch b, head h of token t "
                "starts at b*%lld + t*%lld + h*%lld):", (long long)(seqlen * d_out), (long long)d_out,
                (long long)head_dim);
    narrate_show("storage_offsets(xq)", storage_offsets(heads));
    narrate_why("a head is a head_dim-wide slice of every token's features; moving the head dim "
                "in front lets one batched matmul treat (bsz, n_heads) as batch dims, and no data moves.");
    w->xq4 = xq4;
    w->heads = heads;
}

/* ---- 8. merge heads: transpose back, contiguous, view ------------------ */
static void merge_heads(Walkthrough *w, const Args *args) {
    const int64_t bsz = args->batch, seqlen = args->seq_len;
    Tensor *heads = w->heads, *xq = w->xq;
    char err[1024];
    narrate_step("Merge the heads back: transpose(1, 2), contiguous(), view(bsz, seqlen, -1)");
    narrate_torch("output = torch.matmul(scores, xv)   # here: xq.contiguous() stands in for it");
    Tensor *output = t_contiguous(heads); /* (bsz, n_heads, seqlen, head_dim), a fresh tensor */
    narrate_layout("output", output);
    narrate_say("matmul writes a fresh tensor in head order, so output is contiguous. (Transposing "
                "the split view itself back would only give xq's own strides back.)");
    narrate_torch("output = output.transpose(1, 2)");
    Tensor *back = t_transpose(output, 1, 2); /* (bsz, seqlen, n_heads, head_dim) */
    narrate_layout("output", back);
    narrate_torch("output.view(bsz, seqlen, -1)   # without contiguous()");
    Tensor *merged = NULL;
    if (!try_view(back, SHAPE(bsz, seqlen, -1), &merged, err, sizeof err))
        narrate_say("error: %s", err);
    else
        narrate_say("(this view works here: with one head or one token the strides still fit)");
    narrate_torch("output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)");
    merged = t_view(t_contiguous(back), SHAPE(bsz, seqlen, -1)); /* (bsz, seqlen, d_out) */
    narrate_layout("output", merged);
    narrate_say("largest |output - xq| = %g: split then merge gives xq back.", t_max_abs_diff(merged, xq));
    narrate_why("in output the heads come first in memory; contiguous() copies the numbers into token "
                "order, so that view can glue each token's heads back into d_out features.");
    w->output = output;
    w->back = back;
    w->merged = merged;
}

/* ---- 9. the causal mask: full and triu --------------------------------- */
static void causal_mask_full_triu(Walkthrough *w, int64_t seqlen) {
    narrate_step("The causal mask: torch.full(..., -inf), then torch.triu(mask, diagonal=1)");
    narrate_torch("mask = torch.full((1, 1, seqlen, seqlen), float(\"-inf\"))");
    Tensor *mask = t_full(SHAPE(1, 1, seqlen, seqlen), -INFINITY); /* (1, 1, seqlen, seqlen) */
    narrate_layout("mask", mask);
    narrate_torch("mask = torch.triu(mask, diagonal=1)");
    mask = t_triu(mask, 1); /* -inf where j - i >= 1, 0 elsewhere */
    narrate_show("mask", mask);
    narrate_layout("mask", mask);
    narrate_say("diagonal=d keeps the entries with column - row >= d and zeroes the rest:");
    Tensor *ones = t_ones(SHAPE(seqlen, seqlen));
    narrate_torch("torch.triu(torch.ones(seqlen, seqlen), diagonal=0)   # keeps the main diagonal");
    narrate_show("triu_0", t_triu(ones, 0));
    narrate_torch("torch.triu(torch.ones(seqlen, seqlen), diagonal=-1)  # one below it too");
    narrate_show("triu_m1", t_triu(ones, -1));
    narrate_why("the size-1 dims broadcast over (bsz, n_heads); -inf above the diagonal becomes "
                "weight 0 after softmax, so no token looks at a later one (chapter 4).");
    w->mask = mask;
}

/* ---- results: the layouts of every step in one table -------------------- */
static void layouts_table(const Walkthrough *w) {
    /* with --quiet only: the narrated steps showed each layout where it was made */
    if (narrate_quiet())
        narrate_result_text("%s", tr("tensor                               shape        strides        contiguous"));
    result_layout("x = arange(6).view(2, 3)", w->x);
    result_layout("x.view(3, 2)", w->y);
    result_layout("x.transpose(0, 1)", w->t);
    result_layout("x.transpose(0, 1).contiguous()", w->c);
    result_layout("wq.weight", w->wq->weight);
    result_layout("wq.weight.T", w->wt);
    result_layout("xq = wq(x)", w->xq);
    result_layout("xq.view(b, t, h, hd)", w->xq4);
    result_layout("xq.view(b, t, h, hd).transpose(1, 2)", w->heads);
    result_layout("output (bsz, n_heads, seqlen, hd)", w->output);
    result_layout("output.transpose(1, 2)", w->back);
    result_layout("...contiguous().view(b, t, -1)", w->merged);
    result_layout("mask", w->mask);
}

int main(int argc, char **argv) {
    CliSpec spec = {
        .program = "chapter0",
        .summary = "Chapter 0: tensors in memory -- shape, strides, view, transpose,\n"
                   "contiguous, nn.Linear, full, triu.",
        .flags = CLI_SEED | CLI_QUIET | CLI_BATCH | CLI_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_HEADS,
        .defaults = {.seed = 123, .batch = 2, .seq_len = 3, .d_in = 3, .d_out = 4, .heads = 2},
        .messages = chapter0_zh, /* zh.c: the narration in Chinese (--lang zh) */
    };
    Args args = program_start(&spec, argc, argv);
    refuse_past_budget(&args);
    /* d_out % heads != 0 was refused by program_start (cli_check_runnable), exit 2 */

    narrate_title("Chapter 0 -- tensors in memory: shape, strides, view, transpose, contiguous");
    Walkthrough w;
    storage_shape_strides(&w);
    view_zero_copy(&w);
    transpose_swaps_strides(&w);
    view_refuses_non_contiguous(w.t);
    contiguous_copies(&w);
    linear_is_x_wt_plus_b(&w, &args);
    split_heads(&w, &args);
    merge_heads(&w, &args);
    causal_mask_full_triu(&w, args.seq_len);
    layouts_table(&w);

    t_scope_end();
    return EXIT_OK;
}
