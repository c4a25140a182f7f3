/* main.c — chapter 8: fast attention, from naive to streaming (flash) attention.
 *
 * What it shows: one attention call of the shape chapter 5 makes,
 * (batch, n_heads, seqlen, head_dim) = (1, 8, 512, 64) by default, computed six
 * ways: the reference (chapter 4's masked_attention with --causal, chapter 2's
 * attention without), then the five versions of fast_attention.c, each adding
 * one idea. For each it prints the time measured in this run, the GFLOP/s that
 * the cost model (4·B·H·T·S·d floating-point operations, halved when causal)
 * gives for that time, the share of this core's ceiling (a loop of fused
 * multiply-adds, measured here too), the extra memory and the largest
 * difference from the reference. A version that would need more than 512 MiB
 * for its (..., T, S) scores is skipped with the reason.
 *
 *     build/chapter8                                     the narrated run
 *     build/chapter8 --causal --seq-len 1024
 *     build/chapter8 --quiet --impl flash --causal --heads 1 --seq-len 16384
 *     build/chapter8 --q Q.npy --k K.npy --v V.npy --impl tiled --output OUT.npy
 *
 * --quiet runs only --impl (default flash) and prints its output and time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/program/program.h"
#include "chapters/08_fast_attention/fast_attention.h"

extern const LangPair chapter8_zh[]; /* zh.c: this program's sentences in Chinese (lang.h) */

/* Timing: the median of up to RUNS runs; a version whose first run takes longer than
 * SLOW_SECONDS runs once. */
#define RUNS 3
#define SLOW_SECONDS 1.0

typedef struct {
    bool ran;            /* false: skipped (its scores would not fit)  */
    double ms;           /* median time of one call                   */
    double gflops;       /* cost model / time                         */
    size_t scratch;      /* extra bytes it allocated                  */
    double max_diff;     /* max |output - reference|, -1 if no reference */
} Result;

static double ceiling_gflops; /* measured once, in step 3 */
static double process_start;  /* stopwatch_seconds() when main began */

static void sort_ascending(double *t, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
}

/* Time fast_attention(impl) (impl < 0: the reference) and compare with the reference. */
static Result measure(int impl, const Tensor *q, const Tensor *k, const Tensor *v, bool causal,
                      const Tensor *mask, const Tensor *reference) {
    Result r = {false, 0.0, 0.0, 0, -1.0};
    double t[RUNS];
    int n = 0;
    if ((impl < 0 || attn_impl_stores_scores((AttnImpl)impl)) &&
        attention_score_bytes(q, k) > (double)attention_scores_budget())
        return r;
    for (; n < RUNS; n++) {
        t_scope_begin(); /* each run's output and scratch are freed after it */
        double t0 = stopwatch_seconds();
        Tensor *out = impl < 0 ? masked_attention(q, k, v, mask).output
                               : fast_attention((AttnImpl)impl, q, k, v, causal);
        t[n] = stopwatch_seconds() - t0;
        if (n == 0) {
            r.scratch = impl < 0 ? 0 : attention_scratch_bytes();
            if (reference) r.max_diff = t_max_abs_diff(out, reference);
        }
        t_scope_end();
        if (t[0] > SLOW_SECONDS) {
            n++;
            break;
        }
    }
    sort_ascending(t, n);
    r.ran = true;
    r.ms = 1e3 * t[n / 2];
    r.gflops = attention_flops(q, k, v, causal) / (r.ms * 1e-3) / 1e9;
    return r;
}

/* `word` in the run's language, padded with spaces to `width` display columns (a CJK
 * character takes two): right-aligned, or left-aligned when width < 0. A word is
 * written as printf text, "%%" for "%" (zh.c's pairs are checked as formats). */
static const char *padded(char *buf, size_t n, const char *word, int width) {
    char w[64];
    size_t j = 0;
    for (const char *p = tr(word); *p && j + 1 < sizeof w; p++) {
        w[j++] = *p;
        if (p[0] == '%' && p[1] == '%') p++;
    }
    w[j] = '\0';
    int cols = lang_columns(w, strlen(w)), pad = (width < 0 ? -width : width) - cols;
    if (pad < 0) pad = 0;
    if (width < 0) snprintf(buf, n, "%s%*s", w, pad, "");
    else snprintf(buf, n, "%*s%s", pad, "", w);
    return buf;
}

static void say_result(const char *name, const Result *r, const Tensor *q, const Tensor *k) {
    bool is_reference = strcmp(name, "reference") == 0;
    char mem[32], want[32], budget[32];
    if (!r->ran) {
        t_format_bytes_over(attention_score_bytes(q, k), (double)attention_scores_budget(), want, budget, sizeof want);
        narrate_say("%s: skipped: its scores would take %s, more than the %s this chapter allows for them.",
                    name, want, budget);
        return;
    }
    t_format_bytes((double)r->scratch, mem, sizeof mem);
    narrate_say("%s: %.2f ms = %.1f GFLOP/s = %.0f%% of this core's ceiling%s%s", name, r->ms, r->gflops,
                100.0 * r->gflops / ceiling_gflops, is_reference ? "" : tr("; extra memory "), is_reference ? "" : mem);
    if (r->max_diff >= 0) narrate_say("max |output - reference| = %.3g", r->max_diff);
}

/* The idea of each version, in the order of AttnImpl. The numbers in them are this
 * build's (step_torch, step_why): its register tile and vectors differ per build. */
static const char *const STEP_TITLE[ATTN_N_IMPLS] = {
    "naive: the three lines as loops, the whole (..., T, S) score matrix in memory",
    "reordered: the same loops in an order whose inner loops run over contiguous memory",
    "tiled: blocks that stay in the caches, a tile of sums in registers",
    "online: one query row at a time, max and sum in one pass",
    "flash: tiles of queries x tiles of keys, running max, sum and output",
};
static const char *const STEP_TORCH[ATTN_N_IMPLS] = {
    ("scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k); p_attn = scores.softmax(dim=-1); "
     "torch.matmul(p_attn, value)"),
    "kt = key.transpose(-2, -1).contiguous()   # then every inner loop walks a row",
    "scores[i0:i1, j0:j1] = q[i0:i1] @ kt[:, j0:j1]   # each block of %d queries x %d keys, in cache",
    ("m_new = max(m, s_j); l = l * exp(m - m_new) + exp(s_j - m_new)   # over one row, read once "
     "(Milakov & Gimelshein 2018)"),
    "F.scaled_dot_product_attention(query, key, value, is_causal=causal)   # PyTorch 2's fused kernel",
};
static const char *const STEP_WHY[ATTN_N_IMPLS] = {
    ("the sum q·k over d_k goes into one variable, and without -ffast-math the compiler must add "
     "in order, one add at a time; output = p_attn · v walks down a column of v, d_v floats apart. "
     "And the scores take 4·T·S bytes per head: 1 GiB at T = 16384."),
    ("key is transposed once, so a row of scores is built as q[i][c] · kt[c][:] summed over c: the "
     "inner loop writes S independent scores, which the compiler can compute a vector at a time "
     "(%d floats in this build); the output row is p[i][j] · v[j][:] summed over j, again along a "
     "row. The softmax's max keeps %d partial results and its sum %d, and exp is a polynomial, so "
     "they vectorise too."),
    ("reordered reloads every partial sum from memory for each of the d_k steps and streams all of "
     "kt through the cache for every query. Here a tile of %d query rows x %d keys of sums (this "
     "build's register tile) stays in registers for the whole sum, and a block of %d queries "
     "meets a panel of %d keys while both are in cache. The scores are still all stored."),
    ("one query row at a time: that alone takes the memory from O(T·S) to one row, O(S). The online "
     "softmax makes the row one pass: a running max m, sum l and output acc, one exp per key, and "
     "acc and l shrink by exp(m_old - m_new) when the max grows; output = acc / l. Key by key, so "
     "about as fast as reordered. Causal rows stop at their own position."),
    ("online's update applied to tiles of %d queries x %d keys (o = o·exp(m_old - m_new) + P·V), "
     "divided by l once at the end: the speed of tiled with no (T, S) matrix and no row, extra "
     "memory O(S·d) for the packed keys and O(tile) for the rest. Causal runs skip the key tiles "
     "wholly above the diagonal instead of computing and masking them."),
};

/* --dump DIR and --output FILE, written only after everything was computed
 * (and renamed into place only when the whole run has succeeded, out.h).
 * output.npy first: the reference's weights may be skipped (see run). */
static void write_outputs(const Args *args, const Tensor *weights, const Tensor *output, const Tensor *lse) {
    if (args->dump) {
        npy_make_dir(args->dump);
        npy_save_in(args->dump, "output", output);
        if (lse) npy_save_in(args->dump, "lse", lse); /* flash's logsumexp per row, (..., T) */
        if (weights) npy_save_in(args->dump, "attn_weights", weights); /* the reference's p_attn */
    }
    if (args->output) npy_save(args->output, output);
}

/* The chosen version once, for --output and --quiet: a version that refuses stops the
 * program here, with its sentence, before anything is narrated or written.
 * A long run watched on a terminal is computed one piece at a time, (batch, head) slice
 * by slice and, when not causal, a block of queries at a time, with a progress line
 * between pieces (budget.h). Elsewhere (a script, a pipe) nobody sees the line, so the
 * run is one call: no piece packs its keys again, no output is copied. Either way
 * Ctrl-C leaves nothing behind (out.h). */
static Tensor *run_chosen(AttnImpl impl, const Tensor *q, const Tensor *k, const Tensor *v, bool causal,
                          double *ms) {
    double t0 = stopwatch_seconds();
    Tensor *out = NULL;
    bool same_lead = q->ndim >= 2 && q->ndim == k->ndim && k->ndim == v->ndim;
    int64_t slices = 1, T = t_size(q, -2);
    for (int i = 0; same_lead && i + 2 < q->ndim; i++) {
        same_lead = q->shape[i] == k->shape[i] && k->shape[i] == v->shape[i];
        slices *= q->shape[i];
    }
    /* pieces of at least 64 queries, about 100 of them in all */
    int64_t rows = causal ? T : (T * slices + 99) / 100;
    if (rows < 64) rows = 64;
    if (rows > T) rows = T;
    if (!same_lead || !budget_progress_shown() || !budget_long_run() ||
        slices * ((T + rows - 1) / rows) < 2) {
        out = fast_attention(impl, q, k, v, causal);
    } else {
        Shape lead = t_shape(q);
        lead.ndim -= 2;
        Tensor *q3 = t_reshape(q, SHAPE(slices, T, t_size(q, -1)));        /* (slices, T, d_k) */
        Tensor *k3 = t_reshape(k, SHAPE(slices, t_size(k, -2), t_size(k, -1)));
        Tensor *v3 = t_reshape(v, SHAPE(slices, t_size(v, -2), t_size(v, -1)));
        Tensor *o3 = t_zeros(SHAPE(slices, T, t_size(v, -1)));             /* (slices, T, d_v) */
        double done = 0, total = (double)slices * (double)T;
        budget_progress(0, total);
        for (int64_t b = 0; b < slices; b++) {
            for (int64_t i0 = 0; i0 < T; i0 += rows) {
                int64_t i1 = i0 + rows < T ? i0 + rows : T;
                t_scope_begin(); /* each piece's scratch is freed after it */
                Tensor *piece = fast_attention(impl, t_slice(t_select(q3, 0, b), 0, i0, i1), t_select(k3, 0, b),
                                               t_select(v3, 0, b), causal);
                t_copy_(t_slice(t_select(o3, 0, b), 0, i0, i1), piece);
                t_scope_end();
                done += (double)(i1 - i0);
                budget_progress(done, total);
            }
        }
        budget_progress_end();
        Shape os = t_shape(q);
        os.dims[os.ndim - 1] = t_size(v, -1);
        out = t_reshape(o3, os);
        (void)lead;
    }
    *ms = 1e3 * (stopwatch_seconds() - t0);
    return out;
}

/* output[0, 0, :3, :6]: the top-left corner of the first (batch, head) slice. */
static Tensor *corner(const Tensor *out) {
    int64_t rows = t_size(out, -2) < 3 ? t_size(out, -2) : 3, cols = t_size(out, -1) < 6 ? t_size(out, -1) : 6;
    Tensor *c = t_slice(t_slice(out, -2, 0, rows), -1, 0, cols);
    while (c->ndim > 2 && c->shape[0] > 0) c = t_select(c, 0, 0);
    return c;
}

/* --quiet: the time, and the output (its corner when it has more than 1000 numbers:
 * formatting half a million floats would take longer than computing them). */
static void print_quiet(AttnImpl impl, const Tensor *q, const Tensor *k, const Tensor *v, bool causal,
                        const Tensor *out, double ms) {
    char mem[32], shape[T_SHAPE_STR];
    t_format_bytes((double)attention_scratch_bytes(), mem, sizeof mem);
    narrate_result_text("%s: %.2f ms, %.1f GFLOP/s, extra memory %s", attn_impl_name(impl), ms,
                        attention_flops(q, k, v, causal) / (ms * 1e-3) / 1e9, mem);
    if (t_numel(out) <= 1000) {
        narrate_result("output", out);
    } else {
        narrate_result_text("output: shape %s (--output FILE writes it all)", t_shape_str(out, shape));
        narrate_result("output[0, 0, :3, :6]", corner(out));
    }
}

/* Step 1 of the comparison: the FLOPs of the call and the bytes of its scores. */
static void narrate_cost_model(const Tensor *q, const Tensor *k, const Tensor *v, bool causal) {
    char buf[32];
    int64_t T = t_size(q, -2), S = t_size(k, -2);
    narrate_step("The cost model: how much work, and how much memory the scores take");
    double flops = attention_flops(q, k, v, causal), score_bytes = attention_score_bytes(q, k);
    narrate_say("FLOPs = 2·T·S·d_k (q·kᵀ) + 2·T·S·d_v (p_attn·v) per head");
    narrate_say("      = %.4g GFLOP for this call", flops / 1e9);
    if (causal) narrate_say("        (halved: causal, only the keys j <= i count)");
    t_format_bytes(score_bytes, buf, sizeof buf);
    narrate_say("scores: T x S = %lld x %lld floats per slice, %.0f slices = %s (p_attn as much again)",
                (long long)T, (long long)S, score_bytes / (4.0 * (double)T * (double)S), buf);
    narrate_why("every query meets every key, so both grow as T·S: doubling T quadruples them. Each "
                "score costs d_k + d_v = %lld multiply-adds; the score matrix (%s here) is what "
                "outgrows the caches and then memory: 1 GiB per head at T = 16384.",
                (long long)(t_size(q, -1) + t_size(v, -1)), buf);
}

/* Step 2: this core's ceiling, which every share of it below is measured against. */
static void measure_ceiling(void) {
    narrate_step("This core's ceiling: a loop of fused multiply-adds and nothing else");
    /* as many floats as this build's vector registers hold (measure.c) */
    narrate_say("(no PyTorch line: acc = fmaf(acc, a, b) on %d independent floats, over and over)",
                fma_peak_accumulators());
    ceiling_gflops = fma_peak_gflops(0.4);
    narrate_say("ceiling = %.1f GFLOP/s on one core (2 FLOPs per fused multiply-add)", ceiling_gflops);
    narrate_why("no attention can beat the rate at which this core multiplies and adds; the share of "
                "it that a version reaches says how much time goes to waiting for memory, "
                "bookkeeping and exp.");
}

/* Step 3: chapters 2 and 4 on the Tensor library, timed; their output (NULL when its
 * scores would not fit) is what the five versions are compared with. */
static Tensor *time_reference(const Tensor *q, const Tensor *k, const Tensor *v, bool causal, Result *ref) {
    narrate_step("The reference: chapter %d's %s", causal ? 4 : 2, causal ? "masked_attention" : "attention");
    narrate_torch(causal ? "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k) + mask; "
                           "torch.matmul(scores.softmax(dim=-1), v)"
                         : "p_attn = (q @ k.transpose(-2, -1) / math.sqrt(d_k)).softmax(dim=-1); "
                           "torch.matmul(p_attn, v)");
    Tensor *mask = causal ? causal_mask(t_size(q, -2), 1) : NULL;
    Tensor *reference = NULL;
    if (attention_score_bytes(q, k) <= (double)attention_scores_budget())
        reference = masked_attention(q, k, v, mask).output;
    *ref = measure(-1, q, k, v, causal, mask, NULL);
    say_result("reference", ref, q, k);
    narrate_why("the Tensor library of chapters 0-7 is written to be read, not to be fast: each op "
                "makes a new tensor, matmul sums in double and walks any strides. It is the answer "
                "the five versions below must give (to 1e-5, tested).");
    return reference;
}

/* The last table: every version's time, speed, memory and speed-up over naive. */
static void narrate_summary(const Result *ref, const Result *res, int64_t T, int64_t S, bool causal) {
    char buf[32];
    narrate_step("What each step bought (T = %lld, S = %lld, %s)", (long long)T, (long long)S,
                 tr(causal ? "causal" : "not causal"));
    char h[6][48];
    narrate_say("%s %s %s %s %s %s", padded(h[0], 48, "version", -10), padded(h[1], 48, "ms", 10),
                padded(h[2], 48, "GFLOP/s", 9), padded(h[3], 48, "%% peak", 7), padded(h[4], 48, "extra mem", 12),
                padded(h[5], 48, "x naive", 9));
    for (int i = -1; i < ATTN_N_IMPLS; i++) {
        const Result *r = i < 0 ? ref : &res[i];
        const char *name = i < 0 ? "reference" : attn_impl_name((AttnImpl)i);
        char x_naive[16] = "-";
        if (!r->ran) {
            narrate_say("%-10s %s", name, padded(h[0], 48, "skipped", 10));
            continue;
        }
        t_format_bytes((double)r->scratch, buf, sizeof buf);
        if (res[ATTN_NAIVE].ran) snprintf(x_naive, sizeof x_naive, "%.1fx", res[ATTN_NAIVE].ms / r->ms);
        narrate_say("%-10s %10.2f %9.1f %6.0f%% %12s %9s", name, r->ms, r->gflops, 100.0 * r->gflops / ceiling_gflops,
                    i < 0 ? "-" : buf, x_naive);
    }
    narrate_why("the same numbers every time up to rounding, different orders of work. make bench "
                "measures this table for T = 256 .. 4096 (and PyTorch with make bench-torch).");
}

/* The narrated comparison of the reference and the five versions on q, k, v. */
static void compare_all(const Args *args, AttnImpl chosen, const Tensor *q, const Tensor *k, const Tensor *v,
                        const Tensor *chosen_out) {
    bool causal = args->causal;
    narrate_cost_model(q, k, v, causal);
    measure_ceiling();
    Result ref, res[ATTN_N_IMPLS];
    Tensor *reference = time_reference(q, k, v, causal, &ref);
    for (int i = 0; i < ATTN_N_IMPLS; i++) {
        char torch[200];
        narrate_step("%s", tr(STEP_TITLE[i]));
        snprintf(torch, sizeof torch, tr(STEP_TORCH[i]), ATTN_BLOCK_Q, ATTN_BLOCK_K); /* tiled's blocks */
        narrate_torch(torch);
        res[i] = measure(i, q, k, v, causal, NULL, reference);
        say_result(attn_impl_name((AttnImpl)i), &res[i], q, k);
        if (i == ATTN_REORDERED) /* the vectors and partial results of this build */
            narrate_why(tr(STEP_WHY[i]), attn_vector_floats(), attn_max_partials(), attn_sum_partials());
        else if (i == ATTN_TILED) /* its register tile and blocks */
            narrate_why(tr(STEP_WHY[i]), attn_tile_rows(), attn_tile_cols(), ATTN_BLOCK_Q, ATTN_BLOCK_K);
        else if (i == ATTN_FLASH) /* its block of queries depends on the register tile */
            narrate_why(tr(STEP_WHY[i]), attn_flash_block_q(), ATTN_BLOCK_K);
        else
            narrate_why("%s", tr(STEP_WHY[i]));
    }
    narrate_summary(&ref, res, t_size(q, -2), t_size(k, -2), causal);

    narrate_step("The output of --impl %s", attn_impl_name(chosen));
    narrate_torch("output = F.scaled_dot_product_attention(query, key, value, is_causal=causal)");
    narrate_layout("output", chosen_out);
    narrate_show("output[0, 0, :3, :6]", corner(chosen_out));
    if (reference) narrate_say("max |output - reference| = %.3g", t_max_abs_diff(chosen_out, reference));
    narrate_why("--output FILE writes it as .npy; --quiet prints only this and its time.");
}

/* --q/--k/--v files, or random (bsz, n_heads, seqlen, head_dim) as chapter 5 splits them. */
static void load_or_draw_inputs(const Args *args, Tensor **q, Tensor **k, Tensor **v) {
    if (args->q) {
        load_qkv_files(args, q, k, v); /* shapes checked as they are loaded, in the run's language */
    } else {
        *q = t_randn(SHAPE(args->batch, args->heads, args->seq_len, args->d_k));
        *k = t_randn(SHAPE(args->batch, args->heads, args->seq_len, args->d_k));
        *v = t_randn(SHAPE(args->batch, args->heads, args->seq_len, args->d_k));
    }
}

/* --dump's attn_weights: they exist only in the reference (chapters 2/4 compute them);
 * NULL, with a note, when its scores would not fit. */
static Tensor *reference_weights(const Tensor *q, const Tensor *k, const Tensor *v, bool causal) {
    if (attention_score_bytes(q, k) <= (double)attention_scores_budget()) {
        Tensor *mask = causal ? causal_mask(t_size(q, -2), 1) : NULL;
        return masked_attention(q, k, v, mask).weights;
    }
    char want[32], budget[32];
    t_format_bytes_over(attention_score_bytes(q, k), (double)attention_scores_budget(), want, budget, sizeof want);
    fprintf(stderr, tr("chapter8: note: --dump writes output.npy but not attn_weights.npy: the "
                       "reference's weights would take %s, more than the %s this chapter allows for them\n"),
            want, budget);
    return NULL;
}

/* The narrated run's first step: what q, k and v are. */
static void narrate_inputs(const Args *args, const Tensor *q, const Tensor *k, const Tensor *v) {
    char qs[T_SHAPE_STR], ks[T_SHAPE_STR], vs[T_SHAPE_STR];
    narrate_title("Chapter 8: fast attention -- from naive to streaming (flash) attention%s",
                  args->causal ? tr(" (causal)") : "");
    narrate_step("The inputs: query, key and value of one attention call");
    if (args->q) {
        narrate_torch("query, key, value = np.load(Q), np.load(K), np.load(V)");
        narrate_say("query %s, key %s, value %s", t_shape_str(q, qs), t_shape_str(k, ks), t_shape_str(v, vs));
    } else {
        narrate_torch(tr("xq = torch.randn(bsz, n_heads, seqlen, head_dim)   # and xk, xv: chapter 5's shapes"));
        narrate_layout("xq", q);
        narrate_show("xq[0, 0, :3, :6]", corner(q));
    }
    narrate_why("each (batch, head) slice is one attention problem of T queries against S keys; "
                "--batch, --heads, --seq-len and --d-k set the size (--seed the numbers).");
}

static void run(const Args *args) {
    AttnImpl impl = attn_impl_parse(args->impl);
    Tensor *q, *k, *v;
    load_or_draw_inputs(args, &q, &k, &v);
    double ms;
    Tensor *out = run_chosen(impl, q, k, v, args->causal, &ms);
    Tensor *weights = args->dump ? reference_weights(q, k, v, args->causal) : NULL;
    Tensor *lse = NULL; /* --dump with flash: lse = torch.logsumexp(scores, dim=-1), from flash's own pass */
    if (args->dump && impl == ATTN_FLASH) attention_flash_lse(q, k, v, args->causal, &lse);
    if (narrate_quiet()) {
        print_quiet(impl, q, k, v, args->causal, out, ms);
    } else {
        narrate_inputs(args, q, k, v);
        compare_all(args, impl, q, k, v, out);
    }
    write_outputs(args, weights, out, lse);
    /* what a user waits for is the whole process: start, load, compute and save */
    if (narrate_quiet())
        narrate_result_text("kernel: %.2f ms (%.1f GFLOP/s); whole process so far: %.2f ms", ms,
                            attention_flops(q, k, v, args->causal) / (ms * 1e-3) / 1e9,
                            1e3 * (stopwatch_seconds() - process_start));
}

/* What this run holds (common/program/budget.h): refused, in one sentence, before
 * any work when it would not fit in memory; announced when it will be long. */

/* Rates (FLOP/s) of the five versions, naive .. flash, below what each reached on one
 * shared core of a slow machine: the rates the long-run notice assumes. */
static const double FIXED_RATE[ATTN_N_IMPLS] = {5e8, 2.5e9, 3.5e9, 4e9, 8e9};

/* The seconds of attention at the fixed rates: --quiet runs impl once; the narrated run
 * times every version up to 3 times (once when slower than 1 s). A score-storing
 * version whose scores do not fit refuses (--quiet) or is skipped, before any work. */
static double attention_seconds(bool quiet, int impl, double F, bool scores_fit) {
    if (quiet) return impl > 2 || scores_fit ? F / FIXED_RATE[impl] : 0;
    double seconds = 0;
    for (int i = 0; i < ATTN_N_IMPLS; i++) {
        if (i <= 2 && !scores_fit) continue;
        double t = F / FIXED_RATE[i];
        seconds += t < 1 ? 3 * t : t;
    }
    return seconds;
}

/* The scores a score-storing version holds in a --quiet run: all of them, or, when
 * run_chosen cuts the run in pieces (random inputs, so the batch dims match, a long
 * run, and a terminal to show the progress on), one piece's, whose rows it chooses
 * the same way. */
static double stored_score_bytes(const Args *a, double B, double T, double S, bool long_run) {
    double rows = a->causal ? T : ceil(T * B / 100);
    if (rows < 64) rows = 64;
    if (rows > T) rows = T;
    double pieces = a->causal ? B : B * ceil(T / rows);
    if (!a->q && long_run && pieces >= 2 && budget_progress_shown()) return BUDGET_F4 * rows * S;
    return 2 * BUDGET_F4 * B * T * S; /* the scores and the weights */
}

/* --quiet with a version that stores its scores: refused before any work when they would
 * not fit. From the flags alone (random inputs, the chapter's fixed 512 MiB) it is a
 * usage error; under a lower ATTN_MAX_BYTES, or with files, the run's (exit 1). */
static void refuse_scores_over_cap(const Args *a, int impl) {
    char err[512];
    if (!a->quiet || a->q ||
        !attention_scores_refusal((AttnImpl)impl, SHAPE(a->batch, a->heads, a->seq_len, a->seq_len), err, sizeof err))
        return;
    if (t_max_bytes() > attention_scores_budget()) {
        fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter8", err);
        exit(EXIT_USAGE);
    }
    t_error("%s", err);
}

static void refuse_past_budget(const Args *a) {
    /* (B, H, T, d) random or loaded q, k, v; the reference (chapters 2/4) and the
     * score-storing versions only when their (..., T, S) scores fit in 512 MiB. */
    double B = (double)a->batch * (double)a->heads, T = (double)a->seq_len, S = T;
    double dk = (double)a->d_k, dv = dk, F, score_bytes, budget = 512.0 * 1024 * 1024, seconds = 0;
    int impl = a->impl ? (int)attn_impl_parse(a->impl) : ATTN_FLASH;
    char what[200];
    if ((double)t_max_bytes() < budget) budget = (double)t_max_bytes();
    if (a->q) budget_peek_qkv(a->q, a->k, a->v, &B, &T, &S, &dk, &dv);
    F = 2 * B * T * S * (dk + dv) / (a->causal ? 2 : 1); /* causal: only the keys j <= i */
    score_bytes = BUDGET_F4 * B * T * S;
    bool fits = score_bytes <= budget;
    BudgetEstimate e = {0};
    /* q, k, v and the output (cut in pieces, the pieces are written into it), and one
     * slice's packed keys and values with the tiles (measured, t_peak_bytes) */
    e.bytes = BUDGET_OVERHEAD + BUDGET_F4 * (B * (T * dk + S * dk + S * dv + T * dv) + S * (dk + dv)) + 1048576.0;
    e.largest = BUDGET_F4 * B * T * (dk > dv ? dk : dv);
    e.flops = a->quiet && (impl > 2 || fits) ? F : 0; /* a version that refuses does no work */
    if (!a->quiet && fits) {
        double t = F / BUDGET_NOTICE_RATE;
        seconds += 2 * (t < 1 ? 3 * t : t); /* the reference (chapters 2/4), kept and timed */
        e.flops += 2 * F * (t < 1 ? 3 : 1);
        e.bytes += 8 * score_bytes;
    }
    if (a->dump && fits) { /* the reference's attn_weights */
        seconds += F / BUDGET_NOTICE_RATE;
        e.flops += F;
        e.bytes += 8 * score_bytes;
    }
    if (!a->quiet)
        for (int i = 0; i < ATTN_N_IMPLS; i++)
            if (i > 2 || fits) e.flops += F * (F / FIXED_RATE[i] < 1 ? 3 : 1);
    seconds += attention_seconds(a->quiet, impl, F, fits);
    e.rate = seconds > 0 ? e.flops / seconds : 0;
    bool long_run = seconds > BUDGET_NOTICE_SECONDS;
    if (a->quiet && impl <= 2 && fits) e.bytes += stored_score_bytes(a, B, T, S, long_run);
    snprintf(what, sizeof what, tr("%.3g GFLOP of attention over T = %.0f, S = %.0f, %.0f slices%s"), F / 1e9, T, S,
             B, a->quiet ? "" : tr(", every version timed"));
    e.what = what;
    e.flag = a->q ? tr("the sizes of --q/--k/--v") : a->quiet ? "--seq-len" : tr("--seq-len (or add --quiet)");
    /* random inputs come from the flags alone: a q, k or v too big for the budget is the
     * budget's sentence, which says what to lower (not randn's, after the start) */
    if (!a->q) e.largest = 0;
    /* with --quiet it ticks budget_progress after each piece, when run_chosen cuts the
     * run in pieces (a causal run cuts only between slices) */
    budget_own_progress(true);
    refuse_scores_over_cap(a, impl);
    budget_refuse(&e, a->quiet);
}

int main(int argc, char **argv) {
    CliSpec spec = {.program = "chapter8",
                    .summary = "Fast attention: naive, reordered, tiled, online softmax and flash (streaming)\n"
                               "attention, timed against the cost model.\n"
                               "Random (--batch, --heads, --seq-len, --d-k) inputs, or --q/--k/--v files (then\n"
                               "those four are ignored); --quiet runs only --impl. --dump DIR writes output.npy,\n"
                               "attn_weights.npy (the reference's) and, with --impl flash, lse.npy (the\n"
                               "logsumexp of each row, (..., T)).",
                    .flags = CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_D_K | CLI_HEADS | CLI_CAUSAL | CLI_QUIET |
                             CLI_DUMP | CLI_QKV | CLI_OUTPUT | CLI_IMPL,
                    .defaults = {.seed = 123, .batch = 1, .heads = 8, .seq_len = 512, .d_k = 64, .causal = false,
                                 .impl = "flash"},
                    .messages = chapter8_zh}; /* zh.c: the narration in Chinese (--lang zh) */
    process_start = stopwatch_seconds();
    Args args = program_start(&spec, argc, argv);
    refuse_past_budget(&args); /* before any work: memory */
    run(&args);
    t_scope_end();
    return 0;
}
