/* budget.h — what a run will hold, said before it starts; and its progress while it runs.
 *
 * Memory is the one budget. Before computing, a chapter program adds up the
 * buffers it will hold at once, from the shapes its flags (or its input
 * files' headers) give, and refuses with one sentence when that is more than
 * the budget:
 *
 *     chapter4: error: this run needs about 22.9 GiB of memory (the
 *     max_seq_len x max_seq_len mask buffers), more than the budget of
 *     11.7 GiB (half of this machine's memory); lower --seq-len, or set
 *     ATTN_MAX_BYTES
 *
 * The budget is ATTN_MAX_BYTES (bytes; a K, M, G or T suffix counts 1024s:
 * 2G, 512M) or else half of the physical memory (or of a smaller cgroup
 * limit). The same figure caps every allocation while the run goes on
 * (t_set_run_budget), so a low estimate still ends in a sentence, never in
 * the out-of-memory killer.
 *
 * Time is never refused. A run whose operations would take more than
 * BUDGET_NOTICE_SECONDS at BUDGET_NOTICE_RATE (a fixed rate, stated in the
 * notice; nothing is timed) says so on standard error before it starts:
 *
 *     chapter5: a long run: about 210 GFLOP, about 4 minutes at the 1 GFLOP/s
 *     this notice assumes; Ctrl-C stops it
 *
 * and, when standard error is a terminal and nothing is narrated on the same
 * terminal, shows one line "chapter5: 40% of the work done, 95 s so far"
 * that updates in place and is erased at the end: the share of the counted
 * operations done (t_work_done: the Tensor library's matmuls; chapter 8 ticks
 * budget_progress itself).
 */
#ifndef COMMON_BUDGET_H
#define COMMON_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "common/tensor.h"

/* ATTN_MAX_BYTES: 0 when absent or valid, else 2 with one sentence in err
 * (a usage error; cli_parse reports it). */
int budget_check_env(char *err, size_t errlen);

/* A chapter's estimate of its run, made in its main.c (or its setup file)
 * from its flags and the headers of its input files, before any work. */
typedef struct {
    double bytes;     /* held at once, at most (every tensor alive together) */
    double largest;   /* the largest single buffer among them               */
    double flops;     /* floating-point operations of the run (the notice)  */
    double rate;      /* FLOP/s the notice assumes (0: BUDGET_NOTICE_RATE)  */
    const char *what; /* the buffers that dominate, for the sentence        */
    const char *flag; /* what to lower                                      */
} BudgetEstimate;

/* The rate the long-run notice assumes (a slow core running this library,
 * which sums in double and walks any strides), and how long a run must be at
 * that rate to be announced. */
#define BUDGET_NOTICE_RATE 1e9
#define BUDGET_NOTICE_SECONDS 10.0
/* Bytes per float32, and the small change of every run. */
#define BUDGET_F4 4.0
#define BUDGET_OVERHEAD 65536.0

/* Refuse (t_error) a run past the memory budget, set the run budget for
 * t_alloc, and announce a long run (with its progress line). quiet: --quiet
 * (a narrated run on a terminal shows its own steps instead of the line). */
void budget_refuse(const BudgetEstimate *e, bool quiet);
/* The core of budget_refuse's memory check: bytes held at most at once, the
 * largest single buffer among them; `what` names the buffers that dominate,
 * `flag` what to lower. When the largest buffer alone is past the limit, the
 * chapter's own check (which names that buffer's shape) is left to speak.
 * Budgets under 64 MiB limit each allocation only. */
void budget_refuse_if_over(double bytes, double largest, const char *what, const char *flag);
/* The long-run notice alone, for flops operations at rate FLOP/s (0:
 * BUDGET_NOTICE_RATE); nothing when the run is short. */
void budget_announce(double flops, double rate, bool quiet);
/* The seconds of flops at rate (0: BUDGET_NOTICE_RATE): what the notice says. */
double budget_notice_seconds(double flops, double rate);
/* The chapter ticks budget_progress itself (chapter 8). */
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
 * L x L mask. The counts are measured (t_peak_bytes) for each chapter's
 * program; tests/test_budget.sh keeps them within 10 % above the peak. */
typedef struct {
    double B, H, T, d_in, d_out, L;
    double score_buffers;
    bool from_files;     /* x and weights from --input/--weights */
    double mask_buffers; /* L x L buffers held at once (0 when no mask is built) */
} BudgetModule;
/* Its estimate (what is written into the caller's buffer). */
BudgetEstimate budget_attention_module(const BudgetModule *m, char *what, size_t len);

/* Chapter 8's own progress: done of total units of work are finished. The
 * first call starts the clock; nothing is shown unless standard error is a
 * terminal and the run was announced as long. */
void budget_progress(double done, double total);
/* Erase the progress line (at the end; also done at exit). */
void budget_progress_end(void);
/* Whether a progress line can be shown at all: standard error is a terminal. */
bool budget_progress_shown(void);
/* Whether budget_refuse announced this run as long. */
bool budget_long_run(void);

#endif
