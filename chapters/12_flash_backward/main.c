/* main.c — chapter 12: the backward pass of attention in O(T) memory.
 *
 * What it shows, on one attention call of chapter 5's shape (bsz, n_heads,
 * seqlen, head_dim) = (1, 2, 300, 16) by default (300 queries: five blocks of
 * 64 and two key tiles of 256):
 *
 *   1. the inputs and a gradient for the output, loss = (output * grad_output).sum()
 *   2. chapter 8's flash forward, which keeps the output and one number per row, lse
 *   3. chapter 10's backward of ONE row, on the full row of p_attn
 *   4. why D = (grad_output * output).sum(-1) is that row's softmax sum
 *   5. p_attn's row recomputed from lse
 *   6. the backward tile by tile (FlashAttention-2), timed
 *   7. chapter 10's full-matrix backward of the same call, timed, and the differences
 *   8. what each one cost: FLOPs, time, memory
 *
 *     build/chapter12                                     the narrated run
 *     build/chapter12 --causal --seq-len 1000
 *     build/chapter12 --q Q.npy --k K.npy --v V.npy --grad-output DO.npy --dump OUT
 *     build/chapter12 --quiet --causal --heads 1 --seq-len 16384
 *     build/chapter12 --bench --causal --d-k 64      (make bench-chapter12)
 *
 * --impl chooses the backward that --quiet and --dump use (flash, or reference:
 * chapter 10's); the forward is chapter 8's flash either way.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/program/program.h"
#include "chapters/12_flash_backward/flash_backward.h"

extern const LangPair chapter12_zh[]; /* zh.c: this program's sentences in Chinese (lang.h) */

/* ---- this chapter's flags ----------------------------------------------------------- */

static const char *grad_output_file; /* --grad-output FILE                  */
static const char *impl = "flash";   /* --impl flash|reference             */
static bool bench_mode;              /* --bench                             */

static const CliExtra chapter12_flags[] = {
    {.name = "--grad-output", .metavar = "FILE", .kind = CLI_EXTRA_TEXT, .value = &grad_output_file,
     .help = "dloss/doutput .npy (..., T, d_v); else torch.randn"},
    {.name = "--impl", .metavar = "NAME", .kind = CLI_EXTRA_CHOICE, .value = &impl, .choices = "flash|reference",
     .help = "--quiet/--dump backward: flash or reference"},
    {.name = "--bench", .kind = CLI_EXTRA_FLAG, .value = &bench_mode,
     .help = "time both backwards at T = 1024, 2048, 4096"},
    {.name = NULL}};

/* The reference's (..., T, S) buffers held at once, measured (t_peak_bytes, 10.3 causal): the
 * scores, p_attn, dp_attn, dscores, the scaled dscores and the copies the matmuls make. */
#define REFERENCE_TS_BUFFERS 11.0

/* ---- small helpers ---------------------------------------------------------------------- */

/* x[0, 0, :rows, :cols] (the first slice's corner), for printing. */
static Tensor *corner(const Tensor *x, int64_t rows, int64_t cols) {
    if (x->ndim >= 2) {
        if (t_size(x, -2) < rows) rows = t_size(x, -2);
        if (t_size(x, -1) < cols) cols = t_size(x, -1);
        x = t_slice(t_slice(x, -2, 0, rows), -1, 0, cols);
    } else if (t_size(x, -1) < cols) {
        cols = t_size(x, -1);
    }
    if (x->ndim == 1) return t_slice(x, 0, 0, cols);
    while (x->ndim > 2 && x->shape[0] > 0) x = t_select(x, 0, 0);
    return (Tensor *)x;
}

/* The first (batch..., head) slice: (..., n, d) -> (n, d). */
static Tensor *slice0(const Tensor *x) {
    while (x->ndim > 2) x = t_select(x, 0, 0);
    return (Tensor *)x;
}

/* The largest |a - b| relative to the largest |b|. */
static double rel_diff(const Tensor *a, const Tensor *b) {
    double m = 0;
    for (int64_t i = 0; i < t_numel(b); i++) {
        double x = fabs((double)t_flat_get(b, i));
        m = x > m ? x : m;
    }
    return t_max_abs_diff(a, b) / (m > 0 ? m : 1);
}

/* Bytes the calls between peak_begin and peak_end held at most beyond what was live
 * before (the run's own peak is kept for ATTN_REPORT_PEAK). */
static size_t peak_before, live_before;
static void peak_begin(void) {
    peak_before = t_peak_bytes();
    live_before = t_live_bytes();
    t_restore_peak_bytes(live_before);
}
static size_t peak_end(void) {
    size_t peak = t_peak_bytes();
    t_restore_peak_bytes(peak > peak_before ? peak : peak_before);
    return peak - live_before;
}

static bool reference_fits(const Tensor *q, const Tensor *k) {
    return REFERENCE_TS_BUFFERS * attention_score_bytes(q, k) <= (double)attention_scores_budget() * 4;
}

/* ---- the inputs ------------------------------------------------------------------------------ */

/* The backward's own rules on the files, after chapter 1's (load_qkv_files): the same leading
 * dims everywhere (the backward of a broadcast is left out), --grad-output the output's shape,
 * and finite numbers in every file. Said before any output, in the run's language, naming the
 * files (the library checks them again, naming its arguments). */
static void check_backward_files(const Args *args, const Tensor *q, const Tensor *k, const Tensor *v,
                                 const Tensor *dout) {
    char s0[T_SHAPE_STR], s1[T_SHAPE_STR], s2[T_SHAPE_STR];
    bool same = q->ndim == k->ndim && k->ndim == v->ndim;
    for (int i = 0; args->q && same && i < q->ndim - 2; i++)
        same = q->shape[i] == k->shape[i] && k->shape[i] == v->shape[i];
    if (args->q && !same)
        t_error(tr("--q %s %s, --k %s %s and --v %s %s must have the same leading dims (the backward of a "
                   "broadcast is left out: expand them first)"),
                args->q, t_shape_str(q, s0), args->k, t_shape_str(k, s1), args->v, t_shape_str(v, s2));
    const char *file[4] = {args->q, args->k, args->v, grad_output_file};
    const Tensor *x[4] = {q, k, v, dout};
    for (int i = 0; i < 4; i++)
        if (file[i]) require_finite_file(file[i], x[i], "the backward needs finite numbers");
    if (!grad_output_file) return;
    bool ok = dout->ndim == q->ndim && t_size(dout, -2) == t_size(q, -2) && t_size(dout, -1) == t_size(v, -1);
    for (int i = 0; ok && i < q->ndim - 2; i++) ok = dout->shape[i] == q->shape[i];
    if (!ok) {
        Shape want = t_shape(q); /* the output's, (..., T, d_v) */
        want.dims[want.ndim - 1] = t_size(v, -1);
        t_error(tr("--grad-output %s %s must have the output's shape %s (..., T, d_v)"), grad_output_file,
                t_shape_str(dout, s0), shape_str(want, s1));
    }
}

static void load_or_draw(const Args *args, Tensor **q, Tensor **k, Tensor **v, Tensor **dout) {
    if (args->q) {
        load_qkv_files(args, q, k, v); /* chapter 1's rules (T == S with --causal), naming the files */
    } else {
        *q = t_randn(SHAPE(args->batch, args->heads, args->seq_len, args->d_k));
        *k = t_randn(SHAPE(args->batch, args->heads, args->seq_len, args->d_k));
        *v = t_randn(SHAPE(args->batch, args->heads, args->seq_len, args->d_k));
    }
    if (grad_output_file) {
        *dout = npy_load(grad_output_file);
    } else {
        Shape s = t_shape(*q); /* the output's shape (..., T, d_v): q and v have 2 dims at least */
        s.dims[s.ndim - 1] = t_size(*v, -1);
        *dout = t_randn(s);
    }
    check_backward_files(args, *q, *k, *v, *dout);
}

static void narrate_inputs(const Args *args, const Tensor *q, const Tensor *k, const Tensor *v,
                           const Tensor *dout) {
    char qs[T_SHAPE_STR], ks[T_SHAPE_STR], vs[T_SHAPE_STR], ds[T_SHAPE_STR];
    narrate_title("Chapter 12: the backward pass in O(T) memory (FlashAttention-2's backward)%s",
                  args->causal ? tr(" (causal)") : "");
    narrate_step("The inputs, and a gradient for the output");
    if (args->q) {
        narrate_torch("q, k, v = np.load(Q), np.load(K), np.load(V)   # requires_grad=True");
    } else {
        narrate_torch_seed(args->seed);
        narrate_torch("q, k, v = (torch.randn(bsz, n_heads, seqlen, head_dim, requires_grad=True) for _ in range(3))");
    }
    narrate_torch(grad_output_file ? "grad_output = np.load(DO)   # loss = (output * grad_output).sum()"
                                   : "grad_output = torch.randn(bsz, n_heads, seqlen, head_dim)   "
                                     "# loss = (output * grad_output).sum()");
    narrate_say("q %s, k %s, v %s, grad_output %s", t_shape_str(q, qs), t_shape_str(k, ks), t_shape_str(v, vs),
                t_shape_str(dout, ds));
    narrate_why("any loss reaches the attention only through dloss/doutput; loss = (output * grad_output).sum() "
                "has exactly grad_output as that gradient, so one random grad_output tests every path.");
}

/* ---- the narrated steps ---------------------------------------------------------------------- */

static void narrate_forward(const Tensor *q, const Tensor *k, const Tensor *out, const Tensor *lse, double ms) {
    char a[32], b[32], ls[T_SHAPE_STR];
    narrate_step("The forward (chapter 8's flash), keeping the output and lse");
    narrate_torch("output = F.scaled_dot_product_attention(q, k, v, is_causal=causal)");
    narrate_torch("lse = torch.logsumexp(q @ k.transpose(-2, -1) / math.sqrt(d_k) + mask, dim=-1)");
    narrate_show("lse[0, 0, :6]", corner(lse, 1, 6));
    narrate_say("forward: %.2f ms; lse %s, one number per query row", ms, t_shape_str(lse, ls));
    t_format_bytes(2.0 * attention_score_bytes(q, k), a, sizeof a);
    t_format_bytes((double)(t_numel(out) + t_numel(lse)) * 4.0, b, sizeof b);
    narrate_why("chapter 10's forward keeps scores and p_attn for its backward (%s here); this one keeps "
                "the output and lse (%s): lse = m + log(l) of the running max and sum that chapter 8's "
                "flash has anyway, so p_attn = exp(scores - lse) can be rebuilt, tile by tile, when needed.",
                a, b);
}

/* Steps 3-5 on one row i of the first slice: chapter 10's way, D, and P from lse. */
static void narrate_one_row(const Tensor *q, const Tensor *k, const Tensor *v, const Tensor *dout,
                            const Tensor *out, const Tensor *lse, bool causal, int64_t i, Tensor **dq_row) {
    Tensor *q0 = slice0(q), *k0 = slice0(k), *v0 = slice0(v), *do0 = slice0(dout), *o0 = slice0(out);
    int64_t S = t_size(k0, 0), n = causal ? i + 1 : S; /* the keys row i sees */
    float scale = 1.0f / sqrtf((float)t_size(q, -1));
    Tensor *qi = t_slice(q0, 0, i, i + 1), *doi = t_slice(do0, 0, i, i + 1); /* (1, d_k), (1, d_v) */
    Tensor *kn = t_slice(k0, 0, 0, n), *vn = t_slice(v0, 0, 0, n);          /* (n, d_k), (n, d_v) */

    narrate_step("Chapter 10's backward of one row (row %lld of slice 0), on the full row", (long long)i);
    narrate_torch("p = F.softmax(q[i] @ k.T / math.sqrt(d_k), dim=-1)          # (S,)");
    Tensor *scores = t_mul_scalar(t_matmul(qi, t_transpose(kn, 0, 1)), scale); /* (1, n) */
    Tensor *p = t_softmax(scores, -1);                                         /* (1, n) */
    narrate_show("p[:6]", corner(p, 1, 6));
    narrate_torch("dp = grad_output[i] @ v.T                                  # (S,)");
    Tensor *dp = t_matmul(doi, t_transpose(vn, 0, 1));                         /* (1, n) */
    narrate_show("dp[:6]", corner(dp, 1, 6));
    narrate_torch("ds = p * (dp - (dp * p).sum(-1, keepdim=True))             # softmax_backward");
    Tensor *ds = softmax_backward(p, dp);                                      /* chapter 10's, (1, n) */
    double rowsum = t_sum_all(t_mul(dp, p));
    narrate_say("(dp * p).sum() = %.6f: it needs the whole row of p and of dp", rowsum);
    narrate_torch("grad_q[i] = ds @ k / math.sqrt(d_k)                         # (d_k,)");
    *dq_row = t_mul_scalar(t_matmul(ds, kn), scale);                          /* (1, d_k) */
    narrate_show("grad_q[i, :6]", corner(*dq_row, 1, 6));
    narrate_why("this is what chapter 10 does for every row at once: p, dp and ds are (T, S) each, "
                "%lld x %lld floats per slice here, and T·S grows as T²",
                (long long)t_size(q, -2), (long long)S);

    narrate_step("Why D = (grad_output * output).sum(-1) replaces that row sum");
    narrate_torch("D = (grad_output * output).sum(-1)                         # (..., T)");
    Tensor *D = attention_backward_delta(dout, out);                          /* (..., T) */
    double Di = t_sum_all(t_mul(doi, t_slice(o0, 0, i, i + 1)));
    narrate_say("sum_j p_j dp_j = sum_j p_j (dO_i . v_j) = dO_i . (sum_j p_j v_j) = dO_i . O_i");
    narrate_say("row %lld: (dp * p).sum() = %.6f, D[i] = %.6f, difference %.2g", (long long)i, rowsum, Di,
                fabs(rowsum - Di));
    narrate_show("D[0, 0, :6]", corner(D, 1, 6));
    narrate_why("the same number, from two rows of d_v floats that the backward has anyway: no row of "
                "p_attn or dp_attn is needed to know it, so the tiles below never need a whole row.");

    narrate_step("p_attn's row rebuilt from lse");
    narrate_torch("p = torch.exp(q[i] @ k.T / math.sqrt(d_k) - lse[i])");
    float lse_i = t_flat_get(lse, i);
    Tensor *p2 = t_exp(t_add_scalar(scores, -lse_i));
    narrate_say("lse[i] = %.6f; max |exp(s - lse[i]) - softmax(s)| = %.2g over the %lld keys row %lld sees",
                (double)lse_i, t_max_abs_diff(p2, p), (long long)n, (long long)i);
    narrate_why("exp(s - lse) = exp(s) / sum_j exp(s_j): softmax, without its max or its sum, one "
                "entry at a time, so any tile of p_attn can be rebuilt on its own.");
}

static void narrate_tiles(const Tensor *q, const Tensor *k, const AttnGrads *g, bool causal, double ms) {
    char mem[32];
    int64_t skipped, done = flash_backward_tiles(&skipped);
    narrate_step("The backward tile by tile (FlashAttention-2)");
    narrate_torch("# FlashAttention-2, Algorithm 2 (Dao 2023), on chapter 8's tiles");
    narrate_say("for K_j, V_j in tiles of %d keys, and Q_i, dO_i in blocks of %d queries:", ATTN_BLOCK_K,
                ATTN_BLOCK_Q);
    narrate_say("  P = exp(Q_i @ K_j.T / math.sqrt(d_k) - lse_i)   # (%d, %d)", ATTN_BLOCK_Q, ATTN_BLOCK_K);
    narrate_say("  dV_j += P.T @ dO_i");
    narrate_say("  dP = dO_i @ V_j.T");
    narrate_say("  dS = P * (dP - D_i)");
    narrate_say("  dQ_i += dS @ K_j / math.sqrt(d_k)");
    narrate_say("  dK_j += dS.T @ Q_i / math.sqrt(d_k)");
    t_format_bytes((double)flash_backward_scratch_bytes(), mem, sizeof mem);
    narrate_say("flash backward: %.2f ms; %lld tiles computed (all slices)%s; extra memory %s", ms,
                (long long)done, causal ? "" : tr(", none skipped (no mask)"), mem);
    if (causal) narrate_say("causal: %lld tiles wholly above the diagonal skipped", (long long)skipped);
    narrate_show("grad_q[0, 0, :3, :6]", corner(g->grad_q, 3, 6));
    narrate_why("keys outside: a tile K_j, V_j meets every block of queries once, so dK_j and dV_j are "
                "finished when it moves on; dQ_i gathers one piece from every tile. P is 0 where the causal "
                "mask put -inf. The extra memory is D, one tile of P and of dP (then dS) and K_j, V_j "
                "transposed: O(T + tile), against the %lld x %lld matrices of step 3.",
                (long long)t_size(q, -2), (long long)t_size(k, -2));
    (void)k;
}

/* ---- the run ----------------------------------------------------------------------------- */

static void write_dump(const Args *args, const Tensor *out, const Tensor *lse, const AttnGrads *g) {
    if (!args->dump) return;
    npy_make_dir(args->dump);
    npy_save_in(args->dump, "output", out);
    npy_save_in(args->dump, "lse", lse);
    npy_save_in(args->dump, "grad_q", g->grad_q);
    npy_save_in(args->dump, "grad_k", g->grad_k);
    npy_save_in(args->dump, "grad_v", g->grad_v);
}

static int run(const Args *args) {
    Tensor *q, *k, *v, *dout, *lse;
    load_or_draw(args, &q, &k, &v, &dout);
    bool causal = args->causal, use_flash = strcmp(impl, "flash") == 0;
    attention_backward_check(q, k, v, dout, causal);   /* every refusal before the forward's work */
    double t0 = stopwatch_seconds();
    Tensor *out = flash_forward(q, k, v, causal, &lse);
    double fwd_ms = 1e3 * (stopwatch_seconds() - t0);
    AttnGrads g, ref;
    size_t flash_peak = 0, ref_peak = 0;
    double flash_ms = 0, ref_ms = -1;
    bool narrated = !narrate_quiet();
    if (narrated || use_flash) {
        peak_begin();
        t0 = stopwatch_seconds();
        g = attention_backward_flash(q, k, v, out, lse, dout, causal);
        flash_ms = 1e3 * (stopwatch_seconds() - t0);
        flash_peak = peak_end();
    }
    if ((narrated && reference_fits(q, k)) || !use_flash) {
        peak_begin();
        t0 = stopwatch_seconds();
        ref = attention_backward_reference(q, k, v, dout, causal);
        ref_ms = 1e3 * (stopwatch_seconds() - t0);
        ref_peak = peak_end();
        if (!use_flash && !narrated) g = ref;
    }
    double fwd_flops = attention_flops(q, k, v, causal), bwd_flops = attention_backward_flops(q, k, v, causal);
    char a[32], b[32];
    if (!narrated) {
        double ms = use_flash ? flash_ms : ref_ms;
        t_format_bytes((double)(use_flash ? flash_peak : ref_peak), a, sizeof a);
        narrate_result_text("%s backward: %.2f ms, %.1f GFLOP/s, peak %s beyond the inputs", impl, ms,
                            bwd_flops / (ms * 1e-3) / 1e9, a);
        narrate_result_text("forward (chapter 8's flash): %.2f ms; backward / forward = %.2f", fwd_ms, ms / fwd_ms);
        narrate_result("grad_q[0, 0, :3, :6]", corner(g.grad_q, 3, 6));
        write_dump(args, out, lse, &g);
        return 0;
    }
    narrate_inputs(args, q, k, v, dout);
    narrate_forward(q, k, out, lse, fwd_ms);
    int64_t T = t_size(q, -2), row = T > 1 ? T / 2 : 0;
    Tensor *dq_row = NULL;
    if (T > 0) narrate_one_row(q, k, v, dout, out, lse, causal, row, &dq_row);
    narrate_tiles(q, k, &g, causal, flash_ms);
    if (dq_row)
        narrate_say("row %lld of grad_q: max |tiles - step 3| = %.2g", (long long)row,
                    t_max_abs_diff(t_slice(slice0(g.grad_q), 0, row, row + 1), dq_row));

    narrate_step("The reference: chapter 10's backward on the full matrices");
    narrate_torch("matmul_backward -> softmax_backward -> causal_mask_backward -> scale_backward -> matmul_backward");
    if (ref_ms >= 0) {
        t_format_bytes((double)ref_peak, a, sizeof a);
        narrate_say("reference backward: %.2f ms; held at most %s beyond the inputs", ref_ms, a);
        narrate_say("max |flash - reference| / max |reference|: grad_q %.2g, grad_k %.2g, grad_v %.2g",
                    rel_diff(g.grad_q, ref.grad_q), rel_diff(g.grad_k, ref.grad_k), rel_diff(g.grad_v, ref.grad_v));
    } else {
        t_format_bytes(REFERENCE_TS_BUFFERS * attention_score_bytes(q, k), a, sizeof a);
        narrate_say("reference: skipped: its (..., T, S) matrices would take about %s", a);
    }
    narrate_why("the same gradients up to float rounding (tested against PyTorch's autograd to 1e-4); "
                "--impl reference makes --quiet and --dump use this one.");

    narrate_step("What each backward cost");
    narrate_say("FLOPs: forward 2·T·S·(d_k + d_v) = %.4g GFLOP", fwd_flops / 1e9);
    narrate_say("backward 2·T·S·(3·d_k + 2·d_v) = %.4g GFLOP: %.2fx the forward", bwd_flops / 1e9,
                bwd_flops / fwd_flops);
    narrate_say("(Q K^T once more, then dV, dP, dQ and dK: five matmuls against two)");
    narrate_say("time: forward %.2f ms, flash backward %.2f ms (%.2fx the forward)", fwd_ms, flash_ms,
                flash_ms / fwd_ms);
    t_format_bytes((double)flash_peak, a, sizeof a);
    t_format_bytes((double)ref_peak, b, sizeof b);
    if (ref_ms >= 0)
        narrate_say("memory beyond the inputs: flash %s (the three gradients, D and the tiles), reference %s", a, b);
    else
        narrate_say("memory beyond the inputs: flash %s (the three gradients, D and the tiles)", a);
    t_format_bytes(REFERENCE_TS_BUFFERS * 4.0 * 16384.0 * 16384.0, b, sizeof b);
    narrate_why("the reference's memory grows as T·S, the tiles' as T + S: at T = S = 16384 one head of "
                "the reference needs up to %s, the flash backward its three gradients and a few hundred KiB. Dropout is left out: its backward needs "
                "the forward's (T, S) mask, which FlashAttention regenerates from a counter-based generator.",
                b);
    write_dump(args, out, lse, use_flash ? &g : &ref); /* --impl chooses what --dump writes */
    return 0;
}

/* ---- --bench: the backwards timed in one run (make bench-chapter12) --------------------------- */

#define BENCH_REF_MAX_T 4096 /* the reference at every T of the bench (its peak: about 11 T² floats) */

/* The best of `runs` calls of what (0 forward, 1 flash backward, 2 reference), in ms. */
static double bench_ms(int what, int runs, const Tensor *q, const Tensor *k, const Tensor *v, const Tensor *dout,
                       bool causal, size_t *peak) {
    double best = -1;
    for (int r = 0; r < runs; r++) {
        t_scope_begin(); /* each call's tensors are freed after it */
        Tensor *lse = NULL, *out = what == 0 ? NULL : flash_forward(q, k, v, causal, &lse);
        peak_begin();
        double t0 = stopwatch_seconds();
        if (what == 0) flash_forward(q, k, v, causal, &lse);
        else if (what == 1) attention_backward_flash(q, k, v, out, lse, dout, causal);
        else attention_backward_reference(q, k, v, dout, causal);
        double ms = 1e3 * (stopwatch_seconds() - t0);
        *peak = peak_end();
        t_scope_end();
        if (best < 0 || ms < best) best = ms;
    }
    return best;
}

static int run_bench(const Args *args) {
    char a[32], b[32];
    printf("chapter 12 bench: one thread, (1, 1, T, %lld), %s; best of 3 (reference: 1 run)\n",
           (long long)args->d_k, args->causal ? "causal" : "not causal");
    printf("%6s %11s %13s %8s %14s %9s %11s %11s\n", "T", "forward ms", "flash bwd ms", "bwd/fwd", "reference ms",
           "ref/flash", "flash peak", "ref peak");
    for (int64_t T = 1024; T <= 4096; T *= 2) {
        t_scope_begin();
        Tensor *q = t_randn(SHAPE(1, 1, T, args->d_k)), *k = t_randn(SHAPE(1, 1, T, args->d_k));
        Tensor *v = t_randn(SHAPE(1, 1, T, args->d_k)), *dout = t_randn(SHAPE(1, 1, T, args->d_k));
        size_t pf, pr = 0, p0;
        double fwd = bench_ms(0, 3, q, k, v, dout, args->causal, &p0);
        double fl = bench_ms(1, 3, q, k, v, dout, args->causal, &pf);
        double ref = T <= BENCH_REF_MAX_T ? bench_ms(2, 1, q, k, v, dout, args->causal, &pr) : -1;
        t_format_bytes((double)pf, a, sizeof a);
        t_format_bytes((double)pr, b, sizeof b);
        if (ref >= 0)
            printf("%6lld %11.2f %13.2f %8.2f %14.2f %9.1f %11s %11s\n", (long long)T, fwd, fl, fl / fwd, ref,
                   ref / fl, a, b);
        else
            printf("%6lld %11.2f %13.2f %8.2f %14s %9s %11s %11s\n", (long long)T, fwd, fl, fl / fwd, "-", "-", a, "-");
        t_scope_end();
    }
    printf("bwd/fwd: the flash backward's time over chapter 8's forward (its FLOPs are 2.5x);\n"
           "ref/flash: chapter 10's full-matrix backward over the flash backward; peaks beyond the inputs.\n");
    return 0;
}

/* ---- what the run holds (common/program/budget.h) --------------------------------------------- */

static void refuse_past_budget(const Args *a) {
    double B = (double)a->batch * (double)a->heads, T = (double)a->seq_len, S = T;
    if (bench_mode) B = 1, T = S = BENCH_REF_MAX_T; /* its largest run with the reference */
    double dk = (double)a->d_k, dv = dk;
    if (a->q) budget_peek_qkv(a->q, a->k, a->v, &B, &T, &S, &dk, &dv);
    bool use_flash = strcmp(impl, "flash") == 0;
    double ts = BUDGET_F4 * B * T * S;
    /* q, k, v, grad_output, output, lse, the three gradients, D, chapter 8's packed keys
     * and the tiles of both passes (measured, t_peak_bytes) */
    double bytes = BUDGET_OVERHEAD + BUDGET_F4 * B * (2 * T * dk + 2 * S * dk + 2 * S * dv + 3 * T * dv + 3 * T) +
                   BUDGET_F4 * (S * (dk + dv) + 2 * T) + 2097152.0;
    double largest = BUDGET_F4 * B * (T > S ? T : S) * (dk > dv ? dk : dv);
    /* the narrated run adds the reference when it fits (reference_fits) */
    bool with_reference = !use_flash || bench_mode ||
                          (!a->quiet && REFERENCE_TS_BUFFERS * ts <= (double)attention_scores_budget() * 4);
    if (with_reference) {
        bytes += REFERENCE_TS_BUFFERS * ts;
        largest = ts > largest ? ts : largest;
    }
    /* the long-run notice: the forward, then the backward's five matmuls (causal: half),
     * at fixed rates below what each reaches on a slow core (flash 4 GFLOP/s, the
     * reference, the Tensor library's, 1) */
    double flops = 2 * B * T * S * (4 * dk + 3 * dv) / (a->causal ? 2 : 1);
    BudgetEstimate e = {.bytes = bytes, .largest = largest,
                        .flops = with_reference && !use_flash ? flops : flops * (with_reference ? 2 : 1),
                        .rate = use_flash && !with_reference ? 4e9 : 0,
                        .what = tr(with_reference ? "the reference backward's (..., T, S) matrices"
                                                  : "q, k, v, the output, its gradient and the three input gradients"),
                        .flag = a->q ? tr("the sizes of --q/--k/--v") : "--seq-len"};
    budget_refuse(&e, a->quiet);
}

int main(int argc, char **argv) {
    CliSpec spec = {
        .program = "chapter12",
        .summary = "Chapter 12: the backward pass of attention in O(T) memory (FlashAttention-2's\n"
                   "backward): D = (grad_output * output).sum(-1), p_attn rebuilt from the\n"
                   "forward's logsumexp, tile by tile, against chapter 10's full-matrix backward.\n"
                   "Random (--batch, --heads, --seq-len, --d-k) inputs and grad_output, or\n"
                   "--q/--k/--v (and --grad-output) files; --dump DIR writes output.npy lse.npy\n"
                   "grad_q.npy grad_k.npy grad_v.npy; --quiet runs only --impl.",
        .flags = CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_D_K | CLI_HEADS | CLI_CAUSAL | CLI_QUIET | CLI_DUMP |
                 CLI_QKV,
        .defaults = {.seed = 123, .batch = 1, .heads = 2, .seq_len = 300, .d_k = 16, .causal = false},
        .extra = chapter12_flags,
        .messages = chapter12_zh, /* zh.c: the narration in Chinese (--lang zh) */
    };
    Args args = program_start(&spec, argc, argv);
    if (bench_mode && (args.q || args.dump || args.quiet || grad_output_file)) {
        fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter12",
                tr("--bench draws its own inputs and writes nothing; it does not take --q, --k, --v, --grad-output, "
                   "--dump or --quiet"));
        return EXIT_USAGE;
    }
    /* the sizes --bench and the files fix themselves: a flag for them would be ignored */
    static const struct { unsigned bit; const char *name; } sizes[] = {
        {CLI_BATCH, "--batch"}, {CLI_HEADS, "--heads"}, {CLI_SEQ_LEN, "--seq-len"}, {CLI_D_K, "--d-k"}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        const char *why = NULL;
        if (bench_mode && sizes[i].bit != CLI_D_K)
            why = tr("%s does not apply to --bench, which times one head of its own T = 1024, 2048 and 4096");
        else if (args.q)
            why = tr("%s does not apply with --q, --k and --v, whose files give every size");
        if (why && (args.given & sizes[i].bit)) {
            char sentence[256];
            snprintf(sentence, sizeof sentence, why, sizes[i].name);
            fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter12", sentence);
            return EXIT_USAGE;
        }
    }
    if (bench_mode && cli_extra_given(&spec, &args, "--impl")) {
        fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter12",
                tr("--impl does not apply to --bench, which times both backwards"));
        return EXIT_USAGE;
    }
    refuse_past_budget(&args); /* before any work: memory */
    int rc = bench_mode ? run_bench(&args) : run(&args);
    t_scope_end();
    return rc;
}
