/* main.c — chapter 9: one attention layer run by P processes with MPI.
 *
 *     mpirun -np 2 build/chapter9                       heads split over 2 ranks
 *     mpirun -np 3 build/chapter9 --parallel sequence   ring attention, 3 chunks
 *     mpirun -np 4 build/chapter9 --parallel heads --input X.npy --weights DIR --output OUT.npy
 *
 * Chapter 7's module in eval mode (the same default model and weights-folder
 * contract), computed two ways:
 *   --parallel heads     Happy-LLM's model_parallel_size = P: rank r keeps
 *                        n_local_heads = n_heads // P heads, the matching rows
 *                        of wq, wk, wv and columns of wo; one MPI_Allreduce
 *                        sums the partial outputs; bo once.
 *   --parallel sequence  rank r keeps some positions (--layout zigzag: chunks
 *                        r and 2P-1-r of 2P; contiguous: chunk r of P) and
 *                        all the weights; K/V blocks go around a ring
 *                        (MPI_Isend/MPI_Irecv overlapped with the compute, or
 *                        MPI_Sendrecv with --no-overlap), chapter 8's flash
 *                        runs on each and the logsumexp merges them; rank 0
 *                        gathers the output (MPI_Gatherv).
 *   --parallel ulysses   DeepSpeed-Ulysses: rank r keeps a chunk of the
 *                        positions and all the weights; one MPI_Alltoallv
 *                        gives it every position of n_heads // P heads,
 *                        chapter 8's flash runs on them, one MPI_Alltoallv
 *                        back, wo, and rank 0 gathers (MPI_Gatherv).
 * Rank 0 narrates (who owns what, every message and its bytes, one line per
 * rank: key rows folded, bytes sent, ms computed and waited; a table of both
 * modes' cost) and writes --output. Any error on any rank ends every
 * rank with one sentence from rank 0 and exit status 1.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chapters/05_multi_head/multi_head_setup.h"  /* chapter5_zh */
#include "chapters/07_output_projection/mha_setup.h"
#include "common/program/budget.h"                   /* budget_check_env: ATTN_MAX_BYTES */
#include "common/program/out.h"
#include "chapters/10_backward/backward.h"
#include "chapters/12_flash_backward/flash_backward.h"
#include "parallel_attention_mpi.h"

extern const LangPair chapter7_zh[];  /* chapter 7's, for the module it loads (mha_from_args) */

extern const LangPair chapter9_zh[];  /* zh.c */

typedef struct {
    Args args;
    ParallelMode mode;
    SeqLayout layout;        /* sequence: how the positions are dealt            */
    bool overlap;            /* sequence: exchange the next block while computing */
    double computed;         /* seconds of the forward pass outside MPI calls    */
    CommLog log;
    MultiHeadAttention *m;   /* the full module (every rank builds or loads it)  */
    Tensor *x;               /* (bsz, seqlen, d_in)                              */
    Tensor *output;          /* (bsz, seqlen, d_out): every rank (heads), rank 0 (sequence) */
    Tensor *partial;         /* heads: this rank's partial output before the sum */
    Tensor *xq_local;        /* this rank's xq: (bsz, n_local_heads, T, hd) or (bsz, H, Tc, hd) */
    /* --grad-output: what the backward needs, and what it gives */
    bool backward;
    Tensor *dy;              /* (bsz, seqlen, d_out) = dloss/doutput, on every rank          */
    MultiHeadAttention *local; MhaCache cache;   /* heads: this rank's module and its trace  */
    Tensor *x_local, *xk_local, *xv_local;       /* sequence, ulysses: this rank's positions  */
    Tensor *attn_out, *lse, *merged;             /* sequence: (B, H, Tc, hd), (B, H, Tc), (B, Tc, d_out) */
    UlyssesKeep keep;                            /* ulysses: its heads at every position      */
    MhaGrads grads;          /* rank 0: chapter 10's gradients of the whole module             */
    Tensor *dout;            /* sequence, ulysses: dloss/d(attention output) of my rows, (B, H, Tc, hd) */
    int64_t fwd_bytes;       /* log.bytes_sent after the forward                               */
    double fwd_waited, bwd_computed, bwd_waited;
} ParallelRun;

static const char *const SUMMARY =
    "Chapter 9: attention across processes with MPI (eval mode), built on chapters\n"
    "7 and 8. Run it under mpirun: mpirun -np P build/chapter9 --parallel MODE.\n"
    "  --parallel heads     tensor parallel (default): model_parallel_size = P,\n"
    "                       each rank owns n_heads // P heads; one MPI_Allreduce.\n"
    "  --parallel sequence  ring attention: each rank owns positions of the sequence;\n"
    "                       K/V blocks travel around a ring, chapter 8's flash on\n"
    "                       each, merged by logsumexp. --layout zigzag (causal\n"
    "                       default) or contiguous; --no-overlap waits for each\n"
    "                       exchange instead of computing meanwhile.\n"
    "  --parallel ulysses   DeepSpeed-Ulysses: positions split as the ring's, one\n"
    "                       MPI_Alltoallv to all positions of n_heads // P heads,\n"
    "                       chapter 8's flash, one MPI_Alltoallv back.\n"
    "Default model and flags as chapter 7 (--eval is accepted and always on). With\n"
    "--input/--weights the widths come from the files, the number of heads does not:\n"
    "give --heads too. The result equals build/chapter7 --eval.";

/* ---- flags: chapter 7's, plus --parallel (every rank parses the same argv) ---- */

static const char *parallel_mode_flag = "heads";
static const char *layout_flag = NULL;  /* NULL: zigzag when causal and T >= 2P, else contiguous */
static bool no_overlap_flag = false;
static const char *grad_output_flag = NULL;  /* --grad-output FILE: dloss/doutput, then the backward */
static const CliExtra PARALLEL_FLAG[] = {
    {.name = "--parallel", .metavar = "MODE", .kind = CLI_EXTRA_CHOICE, .value = &parallel_mode_flag,
     .help = "heads, sequence (ring) or ulysses",
     .choices = "heads|sequence|ulysses"},
    {.name = "--layout", .metavar = "L", .kind = CLI_EXTRA_CHOICE, .value = &layout_flag,
     .help = "ring: zigzag (causal, T >= 2P) or contiguous", .choices = "zigzag|contiguous"},
    {.name = "--no-overlap", .kind = CLI_EXTRA_FLAG, .value = &no_overlap_flag,
     .help = "ring: exchange, then compute"},
    {.name = "--grad-output", .metavar = "FILE", .kind = CLI_EXTRA_TEXT, .value = &grad_output_flag,
     .help = "dloss/dy (B, T, d_out): run the backward too"},
    {0}}; /* the end of the list */

/* cli_parse on every rank, but only rank 0 prints --help or the usage error; then
 * every rank leaves with the same exit status (0 for --help, 2 for a usage error). */
static Args parse_flags_on_every_rank(int argc, char **argv, int rank) {
    CliSpec spec = {.program = "chapter9",
                    .summary = SUMMARY,
                    .messages = chapter9_zh, /* zh.c: the narration in Chinese (--lang zh) */
                    .flags = CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_HEADS | CLI_EVAL |
                             CLI_CAUSAL | CLI_BIAS | CLI_QUIET | CLI_INPUT | CLI_OUTPUT | CLI_DUMP,
                    .defaults = {.seed = 123, .batch = 3, .seq_len = 5, .d_in = 10, .d_out = 8, .heads = 2,
                                 .causal = true, .eval = true},
                    .extra = PARALLEL_FLAG,
                    .weights_help = "folder with wq wk wv wo.npy (bq bk bv bo: optional)"};  /* chapter 7's */
    Args args;
    char err[512] = "";
    lang_add(spec.messages);  /* what cli_parse does before it parses: the language first */
    lang_add(chapter5_zh);    /* chapters 5 and 7's steps (the module from --seed or the files) */
    lang_add(chapter7_zh);
    lang_set(lang_from_env());
    int status = cli_parse_args(&spec, argc, argv, &args, err, sizeof err);
    if (status != 2) lang_set((Lang)args.lang);  /* --lang en|zh */
    t_set_error_label(tr("error"));
    t_set_translator(tr);     /* common/'s own sentences (the .npy loader's) in the run's language */
    if (status == 0) status = budget_check_env(err, sizeof err);  /* ATTN_MAX_BYTES */
    if (status == 1) {
        if (rank == 0) cli_usage(&spec, stdout);
        par_exit(EXIT_OK);
    }
    if (status == 0 && args.input && !(args.given & CLI_HEADS)) {
        /* a weights folder holds wq, wk, wv and wo: their widths, not how many heads they were made for */
        snprintf(err, sizeof err, "%s", tr("--input/--weights need --heads H: the weight files give the widths, "
                 "not the number of heads they were made for"));
        status = 2;
    }
    if (status == 0 && grad_output_flag && !args.input) {
        snprintf(err, sizeof err, "%s", tr("--grad-output needs --input and --weights (the module it is the gradient for)"));
        status = 2;
    }
    if (status == 0 && args.dump && !grad_output_flag) {
        snprintf(err, sizeof err, "%s", tr("--dump writes the backward's gradients: give --grad-output FILE too"));
        status = 2;
    }
    if (status == 0 && (layout_flag || no_overlap_flag) && strcmp(parallel_mode_flag, "sequence") != 0) {
        snprintf(err, sizeof err, tr("%s applies to --parallel sequence only (the ring)"),
                 layout_flag ? "--layout" : "--no-overlap");
        status = 2;
    }
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (status == 0 && layout_flag && strcmp(layout_flag, "zigzag") == 0 && !args.input &&
        args.seq_len < 2 * (int64_t)size) {
        snprintf(err, sizeof err, tr("--layout zigzag cuts T into 2P = %d chunks and needs T >= %d, got --seq-len "
                 "%lld (use --layout contiguous)"), 2 * size, 2 * size, (long long)args.seq_len);
        status = 2;
    }
    if (status == 0 && strcmp(parallel_mode_flag, "heads") == 0 && args.heads % size != 0) {
        /* Megatron-LM's divide(): each rank owns n_heads // P whole heads */
        snprintf(err, sizeof err, tr("--parallel heads: n_heads = %lld is not divisible by model_parallel_size = %d "
                 "(each process owns n_heads // P whole heads)"), (long long)args.heads, size);
        status = 2;
    }
    if (status == 0 && strcmp(parallel_mode_flag, "ulysses") == 0 && args.heads % size != 0) {
        snprintf(err, sizeof err, tr("--parallel ulysses: n_heads = %lld is not divisible by %d processes (the "
                 "all-to-all gives each process n_heads // P whole heads)"), (long long)args.heads, size);
        status = 2;
    }
    if (status == 0) status = cli_check_runnable(&spec, &args, err, sizeof err);  /* d_out % heads, --output */
    if (status == 2) {
        char shown[sizeof err];
        t_escape(shown, sizeof shown, err);  /* a file name with a newline or ESC: still one line */
        if (rank == 0) fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter9", shown);
        par_exit(EXIT_USAGE);
    }
    return args;
}

/* ---- phase 1: the module and x, as chapter 7 makes them; every check before any message ---- */

static void build_module_and_input(void *ctx) {
    ParallelRun *run = (ParallelRun *)ctx;
    const Args *args = &run->args;
    int P = run->log.size;
    run->m = mha_from_args(args, NULL, &run->x);  /* chapter 7's module and x: the files, or its default run */
    mha_eval(run->m);
    const MultiHeadAttention *m = run->m;
    int64_t B = t_size(run->x, 0), T = t_size(run->x, 1), H = m->args.n_heads, d_out = m->args.d_out;
    if (run->mode == PARALLEL_HEADS) {
        int64_t n_local_heads = n_local_heads_of(H, P);  /* H % P != 0 is a sentence, on every rank */
        check_scores_fit(B, n_local_heads, T, T);
    } else if (run->mode == PARALLEL_ULYSSES) {
        (void)n_local_heads_of(H, P);                    /* checked with the flags; again for --input */
        if (3 * B * T * d_out > 2147483647LL)
            t_error(tr("MPI: (%lld, %lld, %lld) q, k, v are more floats than one all-to-all may carry (2^31 - 1)"),
                    (long long)B, (long long)T, (long long)d_out);
    } else {
        /* zigzag unless asked otherwise, when it can: causal, T >= 2P (2P chunks) */
        if (layout_flag) run->layout = (SeqLayout)seq_layout_parse(layout_flag);
        else run->layout = m->args.causal && T >= 2 * (int64_t)P ? LAYOUT_ZIGZAG : LAYOUT_CONTIGUOUS;
        (void)owned_positions(run->layout, T, P, 0);     /* zigzag with T < 2P: a sentence */
    }
    if (2 * B * T * d_out > 2147483647LL)
        t_error(tr("MPI: (%lld, %lld, %lld) outputs are more floats than one MPI message may carry (2^31 - 1)"),
                (long long)B, (long long)T, (long long)d_out);
    if (run->backward) {  /* chapter 10's rule: dy has the shape of y */
        char s1[T_SHAPE_STR];
        run->dy = npy_load(grad_output_flag);
        if (run->dy->ndim != 3 || t_size(run->dy, 0) != B || t_size(run->dy, 1) != T || t_size(run->dy, 2) != d_out)
            t_error(tr("%s has shape %s but the output y is (B, T, d_out) = (%lld, %lld, %lld): --grad-output "
                    "must be dloss/dy, the shape of y"),
                    grad_output_flag, t_shape_str(run->dy, s1), (long long)B, (long long)T, (long long)d_out);
    }
}

/* ---- phase 2a: heads (tensor parallel) ------------------------------------------ */

static void forward_heads(void *ctx) {
    ParallelRun *run = (ParallelRun *)ctx;
    int P = run->log.size, rank = run->log.rank;
    double t0 = MPI_Wtime();
    /* model_parallel_size = P; self.n_local_heads = args.n_heads // model_parallel_size */
    MultiHeadAttention *local = local_heads_module(run->m, P, rank);
    MhaTrace tr;
    /* chapter 7's forward on this rank's heads: wo has only their columns, so this is a partial sum;
     * with --grad-output chapter 10's mha_forward_cached, the same forward keeping its trace */
    run->local = local;
    if (run->backward) {
        run->partial = t_clone(mha_forward_cached(local, run->x, &run->cache));  /* (bsz, seqlen, d_out) */
        tr = run->cache.trace;
    } else {
        run->partial = t_clone(mha_forward(local, run->x, run->x, run->x, &tr));  /* (bsz, seqlen, d_out) */
    }
    run->xq_local = tr.xq;                                                   /* (bsz, n_local_heads, seqlen, hd) */
    /* RowParallelLinear: all-reduce the partial sums, then + bo */
    run->output = row_parallel_output(t_clone(run->partial), run->m->wo->bias, comm_allreduce_sum, &run->log);
    int64_t T = t_size(run->x, 1);  /* chapter 7 folds every visible key of its heads into every query */
    run->log.folded = t_size(run->x, 0) * local->args.n_heads * (run->m->args.causal ? T * (T + 1) / 2 : T * T);
    run->computed = MPI_Wtime() - t0 - run->log.waited;
}

/* ---- phase 2b: sequence (ring attention) ---------------------------------------- */

static void forward_sequence(void *ctx) {
    ParallelRun *run = (ParallelRun *)ctx;
    const MultiHeadAttention *m = run->m;
    double t0 = MPI_Wtime();
    int64_t T = t_size(run->x, 1);
    Owned own = owned_positions(run->layout, T, run->log.size, run->log.rank);
    Tensor *x = owned_rows(run->x, own);                         /* (bsz, Tc, d_in): this rank's positions */
    Tensor *xq, *xk, *xv;
    qkv_project(m->qkv, x, &xq, &xk, &xv);                       /* xq, xk, xv = self.wq(x), ... (chapter 3) */
    xq = t_contiguous(split_heads(xq, m->args.n_heads));         /* (bsz, n_heads, Tc, head_dim) (chapter 5) */
    xk = t_contiguous(split_heads(xk, m->args.n_heads));
    xv = t_contiguous(split_heads(xv, m->args.n_heads));
    run->xq_local = xq, run->xk_local = xk, run->xv_local = xv, run->x_local = x;
    Tensor *output = ring_attention(xq, xk, xv, T, m->args.causal, run->layout, run->overlap,
                                    &run->log, &run->lse);       /* (bsz, n_heads, Tc, hd) */
    run->attn_out = output;
    if (owned_count(own) > 0) {
        /* output = self.wo(merge(output)): merge_heads of chapter 5, then wo with bo   (bsz, Tc, d_out) */
        run->merged = merge_heads(output);
        output = nn_linear_forward(m->wo, run->merged);
    } else {
        output = t_zeros(SHAPE(t_size(x, 0), 0, m->args.d_out)); /* T < P: this rank owns no position */
    }
    run->output = comm_gather_seq(output, run->layout, T, &run->log);  /* rank 0: (bsz, T, d_out) */
    run->computed = MPI_Wtime() - t0 - run->log.waited;
}

/* ---- phase 2c: ulysses (all-to-all) -------------------------------------------- */

static void forward_ulysses(void *ctx) {
    ParallelRun *run = (ParallelRun *)ctx;
    const MultiHeadAttention *m = run->m;
    double t0 = MPI_Wtime();
    int64_t T = t_size(run->x, 1);
    Range own = chunk_of_rank(T, run->log.size, run->log.rank);
    Tensor *x = t_slice(run->x, 1, own.start, own.end);          /* (bsz, Tc, d_in): this rank's positions */
    Tensor *xq, *xk, *xv;
    qkv_project(m->qkv, x, &xq, &xk, &xv);                       /* xq, xk, xv = self.wq(x), ... (chapter 3) */
    xq = t_contiguous(split_heads(xq, m->args.n_heads));         /* (bsz, n_heads, Tc, head_dim) (chapter 5) */
    xk = t_contiguous(split_heads(xk, m->args.n_heads));
    xv = t_contiguous(split_heads(xv, m->args.n_heads));
    run->xq_local = xq, run->x_local = x;
    /* all-to-all, flash on n_heads // P heads at every position, all-to-all back */
    Tensor *output = ulysses_attention(xq, xk, xv, T, m->args.causal, &run->log,
                                       run->backward ? &run->keep : NULL);  /* (bsz, n_heads, Tc, hd) */
    if (own.end > own.start) {
        run->merged = merge_heads(output);
        output = nn_linear_forward(m->wo, run->merged);  /* self.wo(merge(output)), (bsz, Tc, d_out) */
    }
    else {
        output = t_zeros(SHAPE(t_size(x, 0), 0, m->args.d_out)); /* T < P: this rank owns no position */
    }
    run->output = comm_gather_seq(output, LAYOUT_CONTIGUOUS, T, &run->log);  /* rank 0: (bsz, T, d_out) */
    run->computed = MPI_Wtime() - t0 - run->log.waited;
}

/* ---- phase 4 (--grad-output): the backward across ranks ----------------------------- */

/* wo.bias.grad = dy.sum over (B, T): (d_out,), the same on every rank, no message */
static Tensor *bias_grad_of(const Tensor *dy) {
    int64_t d = t_size(dy, 2);
    return t_sum_last(t_transpose(t_view(t_contiguous(dy), SHAPE(t_numel(dy) / d, d)), 0, 1));
}

/* heads: chapter 10's mha_backward on this rank's module; x feeds every head, so grad_x is a
 * partial sum (all-reduced); the weights' gradients are this rank's rows of wq, wk, wv and
 * its columns of wo, gathered on rank 0 (Megatron's column/row-parallel backward). */
static void backward_heads(void *ctx) {
    ParallelRun *run = (ParallelRun *)ctx;
    double t0 = MPI_Wtime(), w0 = run->log.waited;
    MhaGrads g = mha_backward(run->local, &run->cache, run->dy);  /* this rank's heads only */
    Tensor *dx = t_contiguous(g.dx);                               /* (bsz, seqlen, d_in), partial */
    comm_allreduce_sum(dx, &run->log);                             /* dist.all_reduce(grad_x)      */
    MhaGrads *all = &run->grads;
    all->dx = dx;
    all->dwq = comm_gather_rows(g.dwq, &run->log);                 /* (d_out, d_in) on rank 0 */
    all->dwk = comm_gather_rows(g.dwk, &run->log);
    all->dwv = comm_gather_rows(g.dwv, &run->log);
    Tensor *dwo_t = comm_gather_rows(t_transpose(g.dwo, 0, 1), &run->log);  /* columns, as rows */
    if (dwo_t) all->dwo = t_contiguous(t_transpose(dwo_t, 0, 1));           /* (d_out, d_out)   */
    if (g.dbq) {
        all->dbq = comm_gather_rows(g.dbq, &run->log);
        all->dbk = comm_gather_rows(g.dbk, &run->log);
        all->dbv = comm_gather_rows(g.dbv, &run->log);
    }
    if (run->m->wo->bias) all->dbo = bias_grad_of(run->dy);  /* bo is added after the sum: dy itself */
    run->bwd_waited = run->log.waited - w0;
    run->bwd_computed = MPI_Wtime() - t0 - run->bwd_waited;
}

/* sequence and ulysses: every rank holds some positions and every weight. Backward of wo on
 * its rows, of the attention across ranks (the ring's second pass, or the all-to-alls
 * reversed), of wq, wk, wv on its rows; the weights' gradients are sums over positions, so
 * one all-reduce each; grad_x rows go to rank 0. */
/* First, on this rank alone: the backward of wo, and chapter 12's check that what its flash
 * backward will read is finite. A rank that refuses must do so before the ring or the
 * all-to-all starts, or the others would wait for it (par_run_phase agrees on errors). */
static void backward_positions_local(void *ctx) {
    ParallelRun *run = (ParallelRun *)ctx;
    const MultiHeadAttention *m = run->m;
    double t0 = MPI_Wtime();
    int64_t T = t_size(run->x, 1), H = m->args.n_heads, B = t_size(run->x, 0);
    SeqLayout layout = run->mode == PARALLEL_ULYSSES ? LAYOUT_CONTIGUOUS : run->layout;
    Owned own = owned_positions(layout, T, run->log.size, run->log.rank);
    Tensor *dy = owned_rows(run->dy, own);                      /* (bsz, Tc, d_out): this rank's rows of dy */
    MhaGrads *g = &run->grads;
    if (owned_count(own) > 0) {  /* output = self.wo(merged): chapter 10's linear_backward */
        Tensor *dmerged;
        linear_backward(m->wo, run->merged, dy, &dmerged, &g->dwo, &g->dbo);
        run->dout = t_contiguous(merge_heads_backward(dmerged, H));  /* (bsz, H, Tc, hd) */
    } else {
        run->dout = t_zeros(SHAPE(B, H, 0, m->head_dim));
        g->dwo = t_zeros(SHAPE(m->args.d_out, m->args.d_out));
        if (m->wo->bias) g->dbo = t_zeros(SHAPE(m->args.d_out));
    }
    const char *op = "attention_backward_flash";
    const Tensor *mine[6] = {run->xq_local, run->xk_local, run->xv_local, run->attn_out, run->lse, run->dout};
    if (run->mode == PARALLEL_ULYSSES)  /* its heads at every position, and dout of its rows */
        mine[0] = run->keep.q, mine[1] = run->keep.k, mine[2] = run->keep.v, mine[3] = run->keep.out,
        mine[4] = run->keep.lse;
    const char *names[6] = {"query", "key", "value", "output", "lse (a score overflowed in the forward)",
                            "grad_output"};
    for (int i = 0; i < 6; i++) flash_backward_check_finite(op, names[i], mine[i]);
    run->bwd_computed = MPI_Wtime() - t0;
}

static void backward_positions(void *ctx) {
    ParallelRun *run = (ParallelRun *)ctx;
    const MultiHeadAttention *m = run->m;
    double t0 = MPI_Wtime(), w0 = run->log.waited;
    int64_t T = t_size(run->x, 1), B = t_size(run->x, 0);
    SeqLayout layout = run->mode == PARALLEL_ULYSSES ? LAYOUT_CONTIGUOUS : run->layout;
    int64_t Tc = owned_count(owned_positions(layout, T, run->log.size, run->log.rank));
    MhaGrads *g = &run->grads;
    Tensor *dout = run->dout;
    Tensor *dq, *dk, *dv;  /* (bsz, H, Tc, hd) */
    if (run->mode == PARALLEL_ULYSSES)
        ulysses_attention_backward(&run->keep, dout, T, m->args.causal, &run->log, &dq, &dk, &dv);
    else
        ring_attention_backward(run->xq_local, run->xk_local, run->xv_local, run->attn_out, run->lse, dout, T,
                                m->args.causal, run->layout, run->overlap, &run->log, &dq, &dk, &dv);
    if (Tc > 0) {  /* xq = self.wq(x), ...: split_heads_backward, then linear_backward three times */
        Tensor *dx_q, *dx_k, *dx_v;
        linear_backward(m->qkv->wq, run->x_local, split_heads_backward(dq), &dx_q, &g->dwq, &g->dbq);
        linear_backward(m->qkv->wk, run->x_local, split_heads_backward(dk), &dx_k, &g->dwk, &g->dbk);
        linear_backward(m->qkv->wv, run->x_local, split_heads_backward(dv), &dx_v, &g->dwv, &g->dbv);
        g->dx = t_add(t_add(dx_q, dx_k), dx_v);                 /* x feeds all three: the sum */
    } else {
        g->dx = t_zeros(SHAPE(B, 0, m->args.d_in));
        g->dwq = t_zeros(SHAPE(m->args.d_out, m->args.d_in));
        g->dwk = t_zeros(SHAPE(m->args.d_out, m->args.d_in));
        g->dwv = t_zeros(SHAPE(m->args.d_out, m->args.d_in));
        if (m->args.qkv_bias)
            g->dbq = t_zeros(SHAPE(m->args.d_out)), g->dbk = t_zeros(SHAPE(m->args.d_out)),
            g->dbv = t_zeros(SHAPE(m->args.d_out));
    }
    Tensor **sums[8] = {&g->dwq, &g->dwk, &g->dwv, &g->dwo, &g->dbq, &g->dbk, &g->dbv, &g->dbo};
    for (int i = 0; i < 8; i++)  /* a weight's gradient sums over positions: dist.all_reduce */
        if (*sums[i]) {
            *sums[i] = t_contiguous(*sums[i]);
            comm_allreduce_sum(*sums[i], &run->log);
        }
    g->dx = comm_gather_seq(g->dx, layout, T, &run->log);       /* rank 0: (bsz, seqlen, d_in) */
    run->bwd_waited = run->log.waited - w0;
    run->bwd_computed += MPI_Wtime() - t0 - run->bwd_waited;
}

/* ---- phase 3: rank 0 writes the file ---------------------------------------------- */

static void write_output(void *ctx) {
    ParallelRun *run = (ParallelRun *)ctx;
    if (run->log.rank != 0) return;
    /* what rank 0 printed is all there: output lost on its way (a full disk) fails the run before any file */
    if (fflush(stdout) != 0 || ferror(stdout))
        t_error(tr("writing standard output: %s%s"), t_strerror(errno ? errno : EIO), "");
    if (run->args.output) npy_save(run->args.output, run->output);
    if (run->backward && run->args.dump) {  /* chapter 10's file names */
        const char *dir = run->args.dump;
        const MhaGrads *g = &run->grads;
        npy_make_dir(dir);
        npy_save_in(dir, "grad_x", g->dx);     /* (B, T, d_in)   */
        npy_save_in(dir, "grad_wq", g->dwq);   /* (d_out, d_in)  */
        npy_save_in(dir, "grad_wk", g->dwk);
        npy_save_in(dir, "grad_wv", g->dwv);
        npy_save_in(dir, "grad_wo", g->dwo);   /* (d_out, d_out) */
        if (g->dbq) npy_save_in(dir, "grad_bq", g->dbq);   /* (d_out,) */
        if (g->dbk) npy_save_in(dir, "grad_bk", g->dbk);
        if (g->dbv) npy_save_in(dir, "grad_bv", g->dbv);
        if (g->dbo) npy_save_in(dir, "grad_bo", g->dbo);
    }
}

/* ---- narration (rank 0 prints; the other ranks are quiet) ------------------------- */

static void narrate_module_and_input(const ParallelRun *run) {
    const ModelArgs *a = &run->m->args;
    int P = run->log.size;
    char xs[T_SHAPE_STR];
    narrate_step("Every rank builds chapter 7's module and x");
    if (run->args.input) {
        narrate_torch("model.load_state_dict(...); model.eval()");
        narrate_torch("x = torch.from_numpy(np.load(...))");
    } else {
        narrate_torch("torch.manual_seed(seed); model = MultiHeadAttention(...)");
        narrate_torch("model.eval(); x = torch.randn(B, T, d_in)");
    }
    narrate_say(P == 1 ? "%d rank (mpirun -np %d), world size = model_parallel_size = %d. x %s; d_in = %lld, "
                         "d_out = %lld, n_heads = %lld, head_dim = %lld, causal = %s, qkv_bias = %s, out bias = %s."
                       : "%d ranks (mpirun -np %d), world size = model_parallel_size = %d. x %s; d_in = %lld, "
                         "d_out = %lld, n_heads = %lld, head_dim = %lld, causal = %s, qkv_bias = %s, out bias = %s.",
                P, P, P, t_shape_str(run->x, xs), (long long)a->d_in, (long long)a->d_out,
                (long long)a->n_heads, (long long)run->m->head_dim, a->causal ? "True" : "False",
                a->qkv_bias ? "True" : "False", a->out_bias ? "True" : "False");
    narrate_why("%s", tr(run->args.input
                             ? "each rank reads the same files (on several hosts they must be on every host) "
                               "and keeps what its mode needs."
                             : "with the same --seed every rank draws the same weights and x, as a run of "
                               "chapter 7 does, and keeps what its mode needs."));
}

/* --parallel heads: which heads, weight rows and columns each rank keeps. */
static void narrate_heads_owned(const ParallelRun *run) {
    const ModelArgs *a = &run->m->args;
    int P = run->log.size;
    int64_t H = a->n_heads, hd = run->m->head_dim, n_local_heads = H / P, local = n_local_heads * hd;
    char xs[T_SHAPE_STR];
    narrate_step("model_parallel_size = %d: each rank owns %lld of the %lld heads", P, (long long)n_local_heads,
                 (long long)H);
    narrate_torch("model_parallel_size = 1  # Happy-LLM 5.1.3; here: MPI world size");
    narrate_torch("self.n_local_heads = args.n_heads // model_parallel_size");
    for (int r = 0; r < P && r < 8; r++) {
        Range h = heads_of_rank(H, P, r);
        narrate_say("rank %d: heads [%lld, %lld): wq, wk, wv rows [%lld, %lld) -> (%lld, %lld) each; "
                    "wo columns -> (%lld, %lld); x %s",
                    r, (long long)h.start, (long long)h.end, (long long)(h.start * hd), (long long)(h.end * hd),
                    (long long)local, (long long)a->d_in, (long long)a->d_out, (long long)local,
                    t_shape_str(run->x, xs));
    }
    if (P > 8) narrate_say("... and so on for ranks 8 to %d", P - 1);
    narrate_why("wq, wk, wv are column-parallel (Megatron-LM's ColumnParallelLinear: the output "
                "features are split, each rank computes its heads' features from the whole x); wo is "
                "row-parallel (RowParallelLinear: its input features are split, each rank gets a "
                "partial sum of every output feature). A head never needs another rank's head.");
}

/* --parallel sequence: which positions each rank keeps. */
static void narrate_chunks_owned(const ParallelRun *run) {
    const ModelArgs *a = &run->m->args;
    int P = run->log.size;
    int64_t B = t_size(run->x, 0), T = t_size(run->x, 1), H = a->n_heads, hd = run->m->head_dim;
    bool zz = run->layout == LAYOUT_ZIGZAG;
    if (zz)
        narrate_step("--layout zigzag: %d chunks of the %lld positions, rank r owns r and %d - r", 2 * P,
                     (long long)T, 2 * P - 1);
    else
        narrate_step("--layout contiguous: each rank owns one chunk of the %lld positions", (long long)T);
    narrate_torch(zz ? "x_local = torch.cat([x[:, c[r]], x[:, c[2*P-1-r]]], 1)  # c = array_split"
                     : "x_local = x[:, start:end]   # np.array_split over the ranks");
    for (int r = 0; r < P && r < 8; r++) {
        Owned o = owned_positions(run->layout, T, P, r);
        char parts[96];
        if (zz)
            snprintf(parts, sizeof parts, "[%lld, %lld) + [%lld, %lld)", (long long)o.part[0].start,
                     (long long)o.part[0].end, (long long)o.part[1].start, (long long)o.part[1].end);
        else
            snprintf(parts, sizeof parts, "[%lld, %lld)", (long long)o.part[0].start, (long long)o.part[0].end);
        narrate_say("rank %d: positions %s -> x (%lld, %lld, %lld), xq, xk, xv (%lld, %lld, %lld, %lld)", r, parts,
                    (long long)B, (long long)owned_count(o), (long long)a->d_in, (long long)B, (long long)H,
                    (long long)owned_count(o), (long long)hd);
    }
    if (P > 8) narrate_say("... and so on for ranks 8 to %d", P - 1);
    if (zz)
        narrate_why("an early chunk and a late one: under the causal mask an early query sees few keys and "
                    "a late one many, so every rank gets about the same work. Every rank has every weight.");
    else
        narrate_why("chunks differ by at most one position: the first T %% P = %lld ranks own one more%s. Every "
                    "rank has every weight; what is split is the sequence, and with it the (T, T) scores.",
                    (long long)(T % P), tr(T < P ? "; with T < P some ranks own none" : ""));
}

/* --parallel heads, after the forward pass: the partial outputs and their sum. */
static void narrate_heads_forward(const ParallelRun *run) {
    int P = run->log.size;
    int64_t B = t_size(run->x, 0), T = t_size(run->x, 1), d_out = run->m->args.d_out;
    char s1[T_SHAPE_STR], s2[T_SHAPE_STR], bytes[32];
    narrate_step("Each rank: chapter 7 on its n_local_heads heads");
    narrate_torch("xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim)");
    narrate_say("rank 0: xq %s, partial output %s = merged heads @ its wo columns (no bo yet)",
                t_shape_str(run->xq_local, s1), t_shape_str(run->partial, s2));
    narrate_say("rank 0: partial[0, 0, 0] = %.4f; after the sum (+ bo): output[0, 0, 0] = %.4f",
                (double)t_get(run->partial, 0, 0, 0), (double)t_get(run->output, 0, 0, 0));
    narrate_why("each rank's (bsz, seqlen, d_out) is its heads' share of self.wo(output); the "
                "shares add up to the whole product, because wo @ merged splits into a sum over "
                "column blocks.");
    narrate_step("One MPI_Allreduce sums the partial outputs; bo is added once");
    narrate_torch("output_ = reduce_from_tensor_model_parallel_region(output_parallel)");
    narrate_torch("output = output_ + self.bias   # if self.bias is not None");
    narrate_say("MPI_Allreduce(SUM) of %s floats = %s per rank in, the same out%s", t_shape_str(run->output, s1),
                t_format_bytes((double)(B * T * d_out * 4), bytes, sizeof bytes),
                tr(P == 1 ? " (one rank: nothing leaves the process, counted as 0)" : ""));
    narrate_why("this is the forward pass's only message. bo is not split: adding it on every "
                "rank before the sum would add it %d times.",
                P);
}

/* The ring's steps as a list: which block each rank holds, what it computes on it
 * (ring_block's case), and what it sends on. */
static void print_ring_steps(const ParallelRun *run) {
    int P = run->log.size, dir = ring_direction(run->layout);
    int64_t B = t_size(run->x, 0), T = t_size(run->x, 1), d_out = run->m->args.d_out;
    bool causal = run->m->args.causal;
    char bytes[32];
    for (int step = 0; step < P && !narrate_quiet(); step++) {
        printf("    step %d:\n", step);
        for (int r = 0; r < P && r < 8; r++) {
            int origin = ring_origin(run->layout, P, r, step), next = ((r + dir) % P + P) % P;
            RingBlock blk = ring_block(run->layout, T, P, r, origin, causal);
            int64_t nk = owned_count(owned_positions(run->layout, T, P, origin));
            char what[64];
            if (step > 0 && causal && blk.k_end == 0 && nk > 0)
                snprintf(what, sizeof what, "not received (its future)");
            else if (ring_block_pairs(blk) == 0)
                snprintf(what, sizeof what, "nothing to fold");
            else if (blk.causal)
                snprintf(what, sizeof what, "diagonal, causal");
            else if (blk.q_start > 0)
                snprintf(what, sizeof what, "q[%lld:] x all k", (long long)blk.q_start);
            else if (blk.k_end < nk)
                snprintf(what, sizeof what, "all q x k[:%lld]", (long long)blk.k_end);
            else
                snprintf(what, sizeof what, "all q x all k");
            char msg[64] = "";
            if (step < P - 1) {
                int64_t rows = ring_block(run->layout, T, P, next, origin, causal).k_end;
                if (rows > 0)
                    snprintf(msg, sizeof msg, ", %lld rows %s -> %d", (long long)rows,
                             t_format_bytes((double)(2 * B * rows * d_out * 4), bytes, sizeof bytes), next);
                else
                    snprintf(msg, sizeof msg, ", nothing -> %d", next);
            }
            printf("      rank %d: K/V of rank %d: %s%s\n", r, origin, what, msg);
        }
    }
}

/* --parallel sequence, after the forward pass: the projections, the ring, the gather. */
static void narrate_ring_forward(const ParallelRun *run) {
    int P = run->log.size;
    int64_t B = t_size(run->x, 0), T = t_size(run->x, 1), d_out = run->m->args.d_out;
    char xs[T_SHAPE_STR], bytes[32];
    narrate_step("Each rank projects its own q, k, v (chapters 3 and 5)");
    narrate_torch("xq, xk, xv = self.wq(x_local), self.wk(x_local), self.wv(x_local)");
    narrate_say("rank 0: xq %s", t_shape_str(run->xq_local, xs));
    narrate_step(P == 1 ? "The ring: %d step, K/V blocks passed to rank %s 1%s"
                        : "The ring: %d steps, K/V blocks passed to rank %s 1%s",
                 P, ring_direction(run->layout) > 0 ? "+" : "-", tr(run->overlap ? ", overlapped" : ""));
    narrate_torch("out, lse = flash(q, k, v); out, lse = merge(out, lse, ...)  # ch. 8");
    print_ring_steps(run);
    narrate_why("each step runs chapter 8's flash (attention_flash_lse) on the block in hand and "
                "merges it into the rows' result by logsumexp (attention_merge_lse), so no (Tc, Tc) "
                "score block is stored and the order of the blocks does not matter. %s %s",
                tr(run->m->args.causal
                       ? "Causal: only the diagonal block is masked; a block wholly in a rank's future is "
                         "not computed and a rank receives only the rows it uses, so nothing is sent into "
                         "the future."
                       : "Not causal: every rank folds in every block."),
                tr(run->overlap ? "The next block's MPI_Irecv/MPI_Isend are posted before the compute and "
                                  "waited for after it."
                                : "--no-overlap: one MPI_Sendrecv after each compute."));
    narrate_step("wo on each rank, then MPI_Gatherv on rank 0");
    narrate_torch("output = self.wo(output)  # then dist.gather(output, dst=0)");
    for (int r = 1; r < P && r < 8; r++) {
        int64_t n = owned_count(owned_positions(run->layout, T, P, r));
        narrate_say("rank %d sends its (%lld, %lld, %lld) output rows: %s", r, (long long)B, (long long)n,
                    (long long)d_out, t_format_bytes((double)(B * n * d_out * 4), bytes, sizeof bytes));
    }
    narrate_why("wo acts on each position alone, so it needs no message: only the result is "
                "collected.");
}

/* --parallel ulysses: who owns what, and the two all-to-alls with their bytes. */
static void narrate_ulysses(const ParallelRun *run, bool after) {
    const ModelArgs *a = &run->m->args;
    int P = run->log.size;
    int64_t B = t_size(run->x, 0), T = t_size(run->x, 1), H = a->n_heads, hd = run->m->head_dim, Hl = H / P;
    char bytes[32], xs[T_SHAPE_STR];
    if (!after) {
        narrate_step("Each rank owns a chunk of the %lld positions, all heads, every weight", (long long)T);
        narrate_torch("x_local = x[:, start:end]   # np.array_split over the ranks");
        for (int r = 0; r < P && r < 8; r++) {
            Range c = chunk_of_rank(T, P, r);
            Range h = heads_of_rank(H, P, r);
            narrate_say("rank %d: positions [%lld, %lld); after the all-to-all heads [%lld, %lld) at all %lld "
                        "positions", r, (long long)c.start, (long long)c.end, (long long)h.start,
                        (long long)h.end, (long long)T);
        }
        if (P > 8) narrate_say("... and so on for ranks 8 to %d", P - 1);
        return;
    }
    Range c = chunk_of_rank(T, P, 0);
    int64_t Tc = c.end - c.start;
    narrate_step("All-to-all: my positions of every head -> every position of my heads");
    narrate_torch("q = all_to_all(q_local)  # (B, H, T/P, hd) -> (B, H/P, T, hd)");
    narrate_say("rank 0: xq %s; sends each other rank q, k, v of its %lld heads at rank 0's %lld positions: "
                "%s in all", t_shape_str(run->xq_local, xs), (long long)Hl, (long long)Tc,
                t_format_bytes((double)(3 * B * Hl * Tc * hd * (P - 1) * 4), bytes, sizeof bytes));
    narrate_step("Chapter 8's flash on (%lld, %lld, %lld, %lld), then the all-to-all back", (long long)B,
                 (long long)Hl, (long long)T, (long long)hd);
    narrate_torch("out = F.scaled_dot_product_attention(q, k, v, is_causal)  # flash");
    narrate_say("rank 0 sends each other rank its heads' output at that rank's positions: %s in all",
                t_format_bytes((double)(B * Hl * (T - Tc) * hd * 4), bytes, sizeof bytes));
    narrate_why("a head needs every position but no other head: after the first all-to-all each rank "
                "runs whole heads on the whole sequence, so the causal work is the same on every rank. "
                "It needs n_heads %% P == 0 and so stops at P = n_heads; MPI_Alltoallv because the chunks "
                "may differ by one position.");
}

/* Rank 0 runs chapter 7 in one process on the same module and x, when it is small. */
static void narrate_same_as_chapter7(const ParallelRun *run) {
    int64_t B = t_size(run->x, 0), T = t_size(run->x, 1), H = run->m->args.n_heads;
    if (run->log.rank != 0 || narrate_quiet() || (double)B * (double)H * (double)T * (double)T * 4.0 * 3.0 >= 256e6)
        return;
    Tensor *ref = mha_forward(run->m, run->x, run->x, run->x, NULL);  /* chapter 7, one process */
    double worst = 0.0;
    for (int64_t i = 0; i < t_numel(ref); i++) {
        double dlt = (double)t_flat_get(ref, i) - (double)t_flat_get(run->output, i);
        if (dlt < 0) dlt = -dlt;
        if (dlt > worst) worst = dlt;
    }
    narrate_step("Same result as chapter 7 in one process");
    narrate_torch("torch.testing.assert_close(output, model(x, x, x))");
    narrate_say("max |output - chapter 7's mha_forward(x)| = %.2g over %lld numbers", worst,
                (long long)t_numel(ref));
}

/* One row of the cost table: T, H, P, then bytes sent and memory for each mode; the
 * ring with its default layout (zigzag when causal and T >= 2P). */
static void cost_table_row(ParallelDims d, int P) {
    char cell[6][32];
    for (int i = 0; i < 6; i++) snprintf(cell[i], sizeof cell[i], "-");
    d.layout = d.causal && d.seqlen >= 2 * (int64_t)P ? LAYOUT_ZIGZAG : LAYOUT_CONTIGUOUS;
    const ParallelMode modes[3] = {PARALLEL_HEADS, PARALLEL_SEQUENCE, PARALLEL_ULYSSES};
    for (int k = 0; k < 3; k++) {
        if (modes[k] != PARALLEL_SEQUENCE && d.n_heads % P != 0) continue;  /* whole heads per rank */
        t_format_bytes((double)parallel_bytes_sent_max(modes[k], d, P), cell[2 * k], sizeof cell[2 * k]);
        t_format_bytes((double)parallel_memory_bytes_max(modes[k], d, P), cell[2 * k + 1], sizeof cell[2 * k + 1]);
    }
    printf("%6lld %3lld %2d | %9s %9s | %9s %9s | %9s %9s\n", (long long)d.seqlen, (long long)d.n_heads, P, cell[0],
           cell[1], cell[2], cell[3], cell[4], cell[5]);
}

static void cost_table(ParallelDims d, int P) {
    narrate_step("What each mode costs as T, H and P grow (the cost model)");
    narrate_say("bytes sent by the busiest rank in one forward pass, and the memory of the largest rank "
                "(weights without biases, activations, score blocks; float32), from "
                "parallel_bytes_sent() and parallel_memory_bytes(); sequence with its default layout. "
                "B = %lld, d_in = %lld, d_out = %lld, %s; '-' where H %% P != 0.",
                (long long)d.bsz, (long long)d.d_in, (long long)d.d_out, tr(d.causal ? "causal" : "not causal"));
    if (narrate_quiet()) return;
    printf("%6s %3s %2s | %-19s | %-19s | %s\n", "", "", "", "       heads", "      sequence", "      ulysses");
    printf("%6s %3s %2s | %9s %9s | %9s %9s | %9s %9s\n", "T", "H", "P", "sent", "memory", "sent", "memory", "sent",
           "memory");
    cost_table_row(d, P);
    ParallelDims g = d;
    for (int64_t f = 4; f <= 64; f *= 4) {
        g.seqlen = d.seqlen * f;
        cost_table_row(g, P);
    }
    g = d;
    g.n_heads = d.n_heads * 2;
    cost_table_row(g, P);
    g.seqlen = d.seqlen * 64;
    for (int p = 2; p <= 8; p *= 2) cost_table_row(g, p);
}

/* Every rank's count of bytes sent goes to rank 0 (one MPI_Gather, on every rank), which
 * sets them beside the cost model, then the table of both modes' cost. */
/* Decimals for a time in ms: four significant digits, never an exponent (0.238, 11.11,
 * 123.4, 1234), so a per-rank line keeps about the same width whatever the machine's load. */
static int ms_decimals(double ms) {
    return ms < 10 ? 3 : ms < 100 ? 2 : ms < 1000 ? 1 : 0;
}

static void narrate_bytes_sent(const ParallelRun *run) {
    int P = run->log.size, rank = run->log.rank;
    const ModelArgs *a = &run->m->args;
    ParallelDims dims = {t_size(run->x, 0), t_size(run->x, 1), a->d_in, a->d_out, a->n_heads, a->causal,
                         run->layout, a->qkv_bias, a->out_bias};
    char bytes[32];
    int64_t *sent = rank == 0 ? (int64_t *)t_alloc((size_t)P * sizeof(int64_t)) : NULL;
    int64_t *folded = rank == 0 ? (int64_t *)t_alloc((size_t)P * sizeof(int64_t)) : NULL;
    double mine[2] = {run->computed, run->log.waited};
    double *times = rank == 0 ? (double *)t_alloc((size_t)P * 2 * sizeof(double)) : NULL;
    MPI_Gather(&run->log.bytes_sent, 1, MPI_INT64_T, sent, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(&run->log.folded, 1, MPI_INT64_T, folded, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(mine, 2, MPI_DOUBLE, times, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    narrate_step("What each rank did");
    narrate_say("the (query, key) pairs its attention folded (over batch and heads), the bytes it handed "
                "to MPI, and its forward pass's wall time outside and inside the MPI calls that move data "
                "(times depend on the machine and its load).");
    for (int r = 0; r < P && rank == 0 && !narrate_quiet(); r++)
        printf("rank %d: folded %lld key rows, sent %lld bytes, computed %.*f ms, waited %.*f ms\n", r,
               (long long)folded[r], (long long)sent[r], ms_decimals(times[2 * r] * 1e3), times[2 * r] * 1e3,
               ms_decimals(times[2 * r + 1] * 1e3), times[2 * r + 1] * 1e3);
    narrate_step("Bytes sent: counted in the MPI calls, and the cost model");
    narrate_say("each rank counted the bytes of the forward pass it handed to MPI for other ranks; "
                "parallel_bytes_sent() predicts them from the shapes alone. (Not counted: one int "
                "per phase to agree on errors, and this gather of the counts.)");
    int64_t total = 0;
    for (int r = 0; r < P && rank == 0; r++) {
        int64_t model = parallel_bytes_sent(run->mode, dims, P, r);
        total += sent[r];
        if (!narrate_quiet())
            narrate_result_text("rank %d sent %lld bytes (model: %lld)", r, (long long)sent[r], (long long)model);
    }
    narrate_say("%s in all; %s", t_format_bytes((double)total, bytes, sizeof bytes),
                tr(run->mode == PARALLEL_ULYSSES ? "the two all-to-alls move each rank's q, k, v and output but "
                                                "its own heads' share, plus the gather."
                : run->mode == PARALLEL_HEADS ? "an all-reduce library moves about 2 (P - 1) / P times the buffer "
                                              "per rank over the wire (reduce-scatter, then all-gather)."
                                            : run->m->args.causal
                                                  ? "each K/V block goes round only as far as ranks use it, "
                                                    "and only the rows they use; plus the gather."
                                                  : "the ring sends every K/V block P - 1 times, plus the "
                                                    "gather."));
    cost_table(dims, P);
    narrate_why("heads: the all-reduce grows with B T d_out but not with P; each rank holds B (H / P) T^2 "
                "scores, so its memory falls as 1 / P but stays quadratic in T. sequence: messages grow with "
                "T d_out too; each rank keeps its T / P rows and two K/V blocks but no scores (flash keeps "
                "only its tiles), so its memory falls as 1 / P and grows linearly in T. ulysses: two "
                "all-to-alls of about 3 B T d_out / P and B T d_out / P per rank, falling with P; its memory "
                "is linear in T too, but P may not exceed H.");
}

/* --grad-output: what the backward did, checked against chapter 10 in one process, and
 * every rank's bytes, compute and wait (one MPI_Gather each, on every rank). */
static double max_abs_diff(const Tensor *a, const Tensor *b) {
    double worst = 0.0;
    for (int64_t i = 0; i < t_numel(a); i++) {
        double d = (double)t_flat_get(a, i) - (double)t_flat_get(b, i);
        if (d < 0) d = -d;
        if (d > worst || d != d) worst = d;
    }
    return worst;
}

static void narrate_backward(const ParallelRun *run) {
    int P = run->log.size, rank = run->log.rank;
    const ModelArgs *a = &run->m->args;
    narrate_step("The backward across ranks: chapter 10's gradients");
    narrate_torch("output.backward(dy)  # x.grad, wq.weight.grad, ..., wo.weight.grad");
    narrate_say("%s",
                tr(run->mode == PARALLEL_HEADS
                    ? "heads: each rank runs chapter 10's mha_backward on its own heads; x feeds every head, "
                      "so its grad_x is a partial sum and one MPI_Allreduce adds them; its rows of grad_wq, "
                      "grad_wk, grad_wv and its columns of grad_wo go to rank 0 (MPI_Gather); grad_bo is dy "
                      "summed over (B, T), as bo was added once after the sum."
                : run->mode == PARALLEL_ULYSSES
                    ? "ulysses: the all-to-alls in reverse. dout of my positions goes to every position of "
                      "my heads, chapter 12's flash backward runs on whole heads, and dq, dk, dv go back to "
                      "the positions they came from; then wq, wk, wv, wo backward on my rows, one "
                      "MPI_Allreduce per weight gradient (a sum over positions), grad_x rows to rank 0."
                    : "sequence: a second trip round the ring. Each step runs chapter 12's "
                      "attention_backward_flash on the block in hand with the forward's lse and output of "
                      "the whole row, so p_attn and D = rowsum(dO * O) are exact; dQ accumulates on its "
                      "rank, the block's dK and dV travel with it and one more hop takes them home. Then wq, "
                      "wk, wv, wo backward on my rows, one MPI_Allreduce per weight gradient, grad_x rows to "
                      "rank 0."));
    int64_t B = t_size(run->x, 0), T = t_size(run->x, 1), H = a->n_heads;
    if (rank == 0 && !narrate_quiet() && (double)B * (double)H * (double)T * (double)T * 4.0 * 6.0 < 256e6) {
        MhaCache c;
        (void)mha_forward_cached(run->m, run->x, &c);  /* chapter 10 in one process */
        MhaGrads ref = mha_backward(run->m, &c, run->dy);
        double w = max_abs_diff(ref.dwq, run->grads.dwq);
        const Tensor *mine[4] = {run->grads.dwk, run->grads.dwv, run->grads.dwo, NULL};
        const Tensor *theirs[4] = {ref.dwk, ref.dwv, ref.dwo, NULL};
        for (int i = 0; mine[i]; i++) {
            double d = max_abs_diff(theirs[i], mine[i]);
            if (d > w || d != d) w = d;
        }
        narrate_say("max |grad_x - chapter 10's| = %.2g; max over grad_wq, grad_wk, grad_wv, grad_wo = %.2g",
                    max_abs_diff(ref.dx, run->grads.dx), w);
    }
    int64_t mine_bytes = run->log.bytes_sent - run->fwd_bytes;
    int64_t *sent = rank == 0 ? (int64_t *)t_alloc((size_t)P * sizeof(int64_t)) : NULL;
    double times[2] = {run->bwd_computed, run->bwd_waited};
    double *all = rank == 0 ? (double *)t_alloc((size_t)P * 2 * sizeof(double)) : NULL;
    MPI_Gather(&mine_bytes, 1, MPI_INT64_T, sent, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(times, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0 || narrate_quiet()) return;
    for (int r = 0; r < P; r++)
        printf("rank %d backward: sent %lld bytes, computed %.*f ms, waited %.*f ms\n", r, (long long)sent[r],
               ms_decimals(all[2 * r] * 1e3), all[2 * r] * 1e3, ms_decimals(all[2 * r + 1] * 1e3),
               all[2 * r + 1] * 1e3);
    ParallelDims dims = {B, T, a->d_in, a->d_out, H, a->causal, run->layout, a->qkv_bias, a->out_bias};
    for (int r = 0; r < P; r++)
        narrate_result_text("rank %d sent %lld bytes in the backward (model: %lld)", r, (long long)sent[r],
                            (long long)parallel_backward_bytes_sent(run->mode, dims, P, r));
    if (run->mode == PARALLEL_HEADS)
        narrate_why("the backward sums grad_x (B x T x d_in) where the forward summed the output "
                    "(B x T x d_out), and every rank but 0 sends rank 0 its shards of the weights' gradients.");
    else if (run->mode == PARALLEL_SEQUENCE)
        narrate_why("the backward moves more than the forward: the ring sends every row of dK and dV home "
                    "besides the K/V rows, and the weights' gradients are summed over the ranks (an all-reduce "
                    "of all four weights, counted once: what the rank hands to MPI).");
    else
        narrate_why("the backward moves more than the forward: the all-to-alls carry dout, dq, dk and dv, "
                    "and the weights' gradients are summed over the ranks (an all-reduce of all four weights, "
                    "counted once: what the rank hands to MPI).");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    t_set_program_name("chapter9");
    t_scope_begin();
    ParallelRun run;
    memset(&run, 0, sizeof run);
    run.log = comm_world();
    const int P = run.log.size, rank = run.log.rank;
    run.args = parse_flags_on_every_rank(argc, argv, rank);
    out_use_for_npy();  /* files written whole (a temporary, then rename) or not at all (out.h) */
    out_stdout_for_data(run.args.output);  /* --output -: the .npy alone on standard output, the text on stderr */
    run.mode = (ParallelMode)parallel_mode_parse(parallel_mode_flag);  /* "heads" or "sequence": the CLI checked it */
    run.overlap = !no_overlap_flag;
    run.backward = grad_output_flag != NULL;
    narrate_set_quiet(run.args.quiet || rank != 0);
    narrate_title(P == 1 ? "Chapter 9: attention across %d process with MPI, --parallel %s"
                         : "Chapter 9: attention across %d processes with MPI, --parallel %s", P,
                  parallel_mode_name(run.mode));

    /* the module and x, on every rank; who owns what */
    par_run_phase(build_module_and_input, &run);
    narrate_module_and_input(&run);
    if (run.mode == PARALLEL_HEADS) narrate_heads_owned(&run);
    else if (run.mode == PARALLEL_ULYSSES) narrate_ulysses(&run, false);
    else narrate_chunks_owned(&run);

    /* the forward pass, and what it sent */
    par_run_phase(run.mode == PARALLEL_HEADS      ? forward_heads
                  : run.mode == PARALLEL_ULYSSES ? forward_ulysses
                                                 : forward_sequence,
                  &run);
    if (run.mode == PARALLEL_HEADS) narrate_heads_forward(&run);
    else if (run.mode == PARALLEL_ULYSSES) narrate_ulysses(&run, true);
    else narrate_ring_forward(&run);
    if (rank == 0) narrate_show("out", run.output);  /* the output, (bsz, seqlen, d_out) */

    /* check against chapter 7 on rank 0, and the bytes counted vs the model */
    narrate_same_as_chapter7(&run);
    narrate_bytes_sent(&run);
    if (rank == 0 && narrate_quiet()) narrate_result("output", run.output);

    /* --grad-output: the backward, and what it sent */
    if (run.backward) {
        run.fwd_bytes = run.log.bytes_sent;
        if (run.mode != PARALLEL_HEADS) par_run_phase(backward_positions_local, &run);
        par_run_phase(run.mode == PARALLEL_HEADS ? backward_heads : backward_positions, &run);
        narrate_backward(&run);
    }

    /* the file, from rank 0 */
    par_run_phase(write_output, &run);
    t_scope_end();
    MPI_Finalize();
    return 0;
}
