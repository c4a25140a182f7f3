/* budget.h — what a run may cost, said before it starts; and progress while it runs.
 *
 * Memory: before computing, a chapter program estimates the most it will hold
 * at once (every (..., T, S) buffer, its dumps, its reference copies) and
 * refuses with one sentence when that is more than the budget:
 *
 *     chapter4: error: this run needs about 22.9 GiB of memory (the
 *     max_seq_len x max_seq_len mask buffers), more than the budget of
 *     11.7 GiB (half of this machine's memory); lower --seq-len, or raise
 *     ATTN_MAX_BYTES
 *
 * The budget is ATTN_MAX_BYTES (bytes; a K, M, G or T suffix counts 1024s:
 * 2G, 512M) or else half of the physical memory (or of a smaller cgroup
 * limit). The same figure caps every allocation while the run goes on
 * (t_set_run_budget), so a low estimate still ends in a sentence, never in
 * the out-of-memory killer.
 *
 * Time: the same estimate gives floating-point operations and normal draws;
 * at fixed rates, slower than this code runs anywhere, it gives seconds. Only
 * when those fixed rates would refuse, the rates are measured here, once per
 * run (budget_seconds): the chapter's own work on a few smaller problems (its
 * sampler, below) for the operations, t_randn's fill for the draws; the
 * estimate counts on half of each measured rate. A run still estimated at
 * more than ATTN_MAX_SECONDS (default 60) refuses, naming the estimate and the
 * variable to set (ATTN_MAX_SECONDS=0 means no limit).
 *
 * Progress: a run estimated at more than 2 s shows, on standard error and
 * only when that is a terminal, one line "chapterN: 40% ... about 12 s left"
 * that updates in place and is erased at the end. Chapter 8 ticks it itself
 * after each (batch, head) slice (budget_progress); the others show the
 * elapsed share of the estimate, updated once a second.
 */
#ifndef COMMON_BUDGET_H
#define COMMON_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "common/tensor.h"

/* "90", "2.5", "0" (no limit) -> seconds. False for anything else. */
bool budget_parse_seconds(const char *text, double *out);
/* The environment variables above: 0 when they are absent or valid, else 2
 * with one sentence in err (a usage error; cli_parse reports it). */
int budget_check_env(char *err, size_t errlen);

/* The time limit in seconds (ATTN_MAX_SECONDS, default 60; 0 = none). */
double budget_max_seconds(void);

/* A chapter's own work on a smaller problem, for timing: it runs what the
 * estimate's flops count, on n positions (the size that work grows with,
 * --seq-len in most chapters) instead of the run's, quietly and writing no
 * files, and returns the operations the chapter's own formula counts for that
 * problem. ctx is the estimate's sample_ctx (the run's other sizes). It may
 * draw from the default generator and allocate in the current scope:
 * budget_seconds restores the generator, the narration and the peak of
 * t_peak_bytes afterwards, and frees what it made. */
typedef double (*BudgetSample)(const void *ctx, double n);

/* A chapter's estimate of its run, made in its main.c from its flags (and
 * the headers of its input files) before any work. */
typedef struct {
    double bytes;          /* held at once, at most (every tensor alive together) */
    double largest;        /* the largest single buffer among them               */
    double flops;          /* floating-point operations at BUDGET_RATE_TENSOR     */
    double seconds;        /* any other time (other rates)                        */
    double draws;          /* normal samples t_randn will draw (BUDGET_RATE_RANDN) */
    const char *what;      /* the buffers or work that dominate, for the sentence */
    const char *flag;      /* what to lower                                       */
    BudgetSample sample;   /* the chapter's work at n positions, or NULL          */
    const void *sample_ctx;
    double sample_n;       /* the run's n: samples stay at or below half of it    */
} BudgetEstimate;

/* Fixed rates, below what this code reaches on one slow shared core:
 * floating-point operations per second of the Tensor library (it sums in
 * double and walks any strides), and normal samples per second of t_randn (it
 * draws what PyTorch draws). Bytes per float32, and the small change of every
 * run.
 *
 * The flops rate stands for whole attention modules, not matmul alone: the
 * chapters count their matmuls' operations (and 20 per score for softmax and
 * the rest), while a run also copies, masks and first touches every (B, H, T,
 * T) buffer, and how much of a run is matmul differs from chapter to chapter.
 * So timing one operation (matmul) would promise too much for one chapter and
 * too little for another: when the fixed rate would refuse, budget_seconds
 * times the chapter's own work instead (its sampler), on growing problems
 * (64, 128, 256, ... positions, doubling while one call takes under 0.2 s,
 * up to half the run's size and about 1 s in all), and takes the counted
 * operations per second of the largest. The draws are one operation:
 * budget_seconds times t_randn's fill. */
#define BUDGET_RATE_TENSOR 1e8
#define BUDGET_RATE_RANDN 5e6
/* The share of a measured rate the estimate counts on, and never less than
 * the fixed rate (a slow or sanitized build measures slower). */
#define BUDGET_RATE_MARGIN 0.5
#define BUDGET_F4 4.0
#define BUDGET_OVERHEAD 65536.0

/* The seconds of e: flops / BUDGET_RATE_TENSOR + seconds + draws at
 * BUDGET_RATE_RANDN. When that is past ATTN_MAX_SECONDS (and the run fits in
 * memory), the flops at max(BUDGET_RATE_TENSOR, BUDGET_RATE_MARGIN x the rate
 * e->sample reached here) when e has a sampler, and the draws at
 * max(BUDGET_RATE_RANDN, BUDGET_RATE_MARGIN x the rate measured here) instead.
 * Each measuring happens once per run: the sampler's under about 1 s, with the
 * default generator saved and put back (the run's draws stay what PyTorch
 * draws after torch.manual_seed), narration off, its tensors freed and the
 * peak of t_peak_bytes put back; the draws' (best of up to 3 fills of a small
 * sample, a few ms) on a generator of its own. */
double budget_seconds(const BudgetEstimate *e);
/* The operations per second counted on: BUDGET_RATE_TENSOR, or the
 * calibrated rate once budget_seconds measured a sampler. */
double budget_tensor_rate(void);
/* The normal samples per second counted on: BUDGET_RATE_RANDN, or the
 * calibrated rate once budget_seconds measured it. */
double budget_randn_rate(void);

/* Refuse (t_error) a run past the memory or time budget, set the run budget
 * for t_alloc and start the progress line for a long run. quiet: --quiet
 * (a narrated run on a terminal shows its own steps instead of the line). */
void budget_refuse(const BudgetEstimate *e, bool quiet);
/* The chapter ticks budget_progress itself (no timed line). */
void budget_own_progress(bool own);

/* The shape in an input file's header, or false (not a regular file, or no
 * valid header: the loader will say why). */
bool budget_peek(const char *path, Shape *s);
/* The product of the leading dims of (..., T, d): how many (T, d) slices. */
double budget_lead(const Shape *s);
/* Dim `from_end` counted from the end (1 = last), or dflt when s is shorter. */
double budget_dim(const Shape *s, int from_end, double dflt);
/* The sizes in the headers of --q (..., T, d_k), --k (..., S, d_k) and --v
 * (..., S, d_v); B is the largest product of leading dims. Each value is left
 * as it was when its file cannot tell. */
void budget_peek_qkv(const char *q, const char *k, const char *v, double *B, double *T, double *S, double *dk,
                     double *dv);
/* The sizes in --input (B, T, d_in) and in weights/wq.npy (d_out, d_in), the
 * same way. */
void budget_peek_input(const char *input, const char *weights, double *B, double *T, double *d_in, double *d_out);

/* An attention module's run: x (B, T, d_in), W_q/W_k/W_v (d_out, d_in), W_o,
 * H heads, score_buffers (B, H, T, T) buffers held at once, mask_buffers of an
 * L x L mask. The counts are measured (t_peak_bytes) for each chapter's program. */
typedef struct {
    double B, H, T, d_in, d_out, L;
    double score_buffers;
    bool from_files;       /* x and weights from --input/--weights: no random draws */
    double mask_buffers;   /* L x L buffers held at once (0 when no mask is built) */
} BudgetModule;
/* Its estimate (what is written into the caller's buffer). */
BudgetEstimate budget_attention_module(const BudgetModule *m, char *what, size_t len);

/* The core of budget_refuse, for any estimate: bytes held at most at once,
 * the largest single buffer among them, seconds; `what` names the buffers
 * that dominate, `flag` what to lower. When the largest buffer alone is past
 * the limit, the chapter's own check (which names that buffer's shape) is
 * left to speak. Budgets under 64 MiB limit each allocation only. */
void budget_refuse_if_over(double bytes, double largest, double seconds, const char *what, const char *flag);

/* The seconds budget_refuse estimated for this run (0 before it ran). */
double budget_estimated_seconds(void);

/* Chapter 8's own progress: done of total units of work are finished. The
 * first call starts the clock; nothing is shown unless standard error is a
 * terminal and the run is expected to take more than 2 s. */
void budget_progress(double done, double total);
/* Erase the progress line (at the end; also done at exit). */
void budget_progress_end(void);
/* Whether a progress line can be shown at all: standard error is a terminal. */
bool budget_progress_shown(void);

#endif
