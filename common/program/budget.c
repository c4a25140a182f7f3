/* budget.c — the memory budget of a run, its long-run notice and its progress line (see budget.h).
 *
 * Each chapter's estimate is a sum of the few terms that grow with its flags:
 * the (..., T, S) buffers (scores, weights, their dumps and copies), the
 * (B, T, d) activations, the weights, chapter 4's max_seq_len x max_seq_len
 * mask buffers. The factor of each term counts the buffers of that size the
 * chapter holds at once; they were measured (t_peak_bytes) on runs where that
 * term dominates, so the estimate is an upper bound and close to the peak:
 * tests/test_budget.sh runs each chapter at a few hundred MiB with
 * ATTN_REPORT_PEAK=1, which prints both at exit (and the resident peak where
 * the system reports it), and wants the estimate within 10 % above the peak.
 */

#include "common/program/budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "common/npy.h"
#include "common/platform.h" /* terminals, the resident peak */
#include "common/program/lang.h"
#include "common/tensor.h"

#define SMALL_BUDGET (64.0 * 1024 * 1024) /* below: a limit per allocation only */

int budget_check_env(char *err, size_t errlen)
{
    const char *b = getenv("ATTN_MAX_BYTES");
    size_t bytes;
    char shown[64];
    if (b && *b && !t_parse_bytes(b, &bytes)) {
        t_escape(shown, sizeof shown, b);
        snprintf(err, errlen,
                 tr("ATTN_MAX_BYTES='%s': must be a number of bytes of at least 1, such as 2000000000, 512M or 2G"),
                 shown);
        return 2;
    }
    return 0;
}

/* ---- progress ------------------------------------------------------------------------- */

static double now_seconds(void) { return p_seconds(); }

static double estimate_bytes_seen = 0;
static bool long_run = false;      /* announced: the line may be shown       */
static bool line_shown = false;    /* a line is on the terminal now          */
static bool own_progress = false;  /* the chapter ticks budget_progress itself */
static double progress_t0 = -1, progress_last = 0;
static double work_total = 0, work_start = 0; /* the matmuls' count (t_work_done) */

bool budget_long_run(void) { return long_run; }
bool budget_progress_shown(void) { return p_is_terminal(stderr); }

void budget_progress_end(void)
{
    if (line_shown) fputs("\r\033[K", stderr);
    line_shown = false;
    t_set_work_hook(NULL);
}

static void at_exit_progress(void) { budget_progress_end(); }

void budget_progress(double done, double total)
{
    double t = now_seconds(), frac;
    if (progress_t0 < 0) {
        progress_t0 = t;
        if (budget_progress_shown()) atexit(at_exit_progress);
    }
    if (!long_run || !budget_progress_shown() || total <= 0 || t - progress_last < 0.2) return;
    progress_last = t;
    if (done >= total) {
        budget_progress_end();
        return;
    }
    frac = done > 0 ? done / total : 0;
    fprintf(stderr, tr("\r%s: %.0f%% of the work done, %.0f s so far (Ctrl-C stops it) \033[K"),
            t_program_name() ? t_program_name() : "working", 100.0 * frac, t - progress_t0);
    line_shown = true;
}

/* The other chapters count their matmuls' operations (t_work_add): the share
 * done, never shown as finished before the end (the count leaves out the
 * softmax and the copies). */
static void on_work(void)
{
    double done = t_work_done() - work_start;
    if (done > 0.99 * work_total) done = 0.99 * work_total;
    budget_progress(done, work_total);
}

void budget_own_progress(bool own) { own_progress = own; }

double budget_notice_seconds(double flops, double rate) { return flops / (rate > 0 ? rate : BUDGET_NOTICE_RATE); }

void budget_announce(double flops, double rate, bool quiet)
{
    double seconds = budget_notice_seconds(flops, rate);
    char est[48];
    if (seconds <= BUDGET_NOTICE_SECONDS) return;
    long_run = true;
    if (seconds < 120) snprintf(est, sizeof est, tr("%.0f seconds"), seconds);
    else if (seconds < 7200) snprintf(est, sizeof est, tr("%.0f minutes"), seconds / 60);
    else if (seconds < 2 * 86400) snprintf(est, sizeof est, tr("%.0f hours"), seconds / 3600);
    else snprintf(est, sizeof est, tr("%.0f days"), seconds / 86400);
    fprintf(stderr, tr("%s: a long run: about %.0f GFLOP, about %s at the %.3g GFLOP/s this notice assumes; "
                       "Ctrl-C stops it\n"),
            t_program_name() ? t_program_name() : "this program", flops / 1e9, est,
            (rate > 0 ? rate : BUDGET_NOTICE_RATE) / 1e9);
    /* a narrated run on the same terminal would be cut by the line: its steps show the progress */
    if (!quiet && p_is_terminal(stdout)) return;
    if (!own_progress && budget_progress_shown()) {
        work_total = flops;
        work_start = t_work_done();
        budget_progress(0, flops);
        t_set_work_hook(on_work);
    }
}

/* ---- refusing ------------------------------------------------------------------------------ */

static void report_peak(void)
{
    /* The most this process had resident, where the system says, else 0. It
     * counts what t_peak_bytes does not: the program and its libraries, the
     * stack, and blocks rounded up to whole (huge) pages. */
    double rss = p_peak_resident_bytes();
    char resident[64] = "";
    if (rss > 0) snprintf(resident, sizeof resident, "; resident at most %.0f bytes", rss);
    fprintf(stderr, "%s: peak %.0f bytes, estimate %.0f bytes%s\n", t_program_name() ? t_program_name() : "",
            (double)t_peak_bytes(), estimate_bytes_seen, resident);
}

void budget_refuse_if_over(double bytes, double largest, const char *what, const char *flag)
{
    size_t budget = t_max_bytes();
    char need[32], have[32];
    const char *env = getenv("ATTN_MAX_BYTES");
    bool from_env = env && *env;

    estimate_bytes_seen = bytes;
    if (getenv("ATTN_REPORT_PEAK")) {
        static bool once = false;
        if (!once) atexit(report_peak);
        once = true;
    }
    /* One buffer alone past the limit: the chapter's own check names it (and,
     * for scores, points to chapter 8) before any work, so it speaks. Small
     * budgets (tests use them) limit each allocation only. */
    if (bytes > (double)budget && bytes > SMALL_BUDGET && largest <= (double)budget) {
        t_format_bytes_over(bytes, (double)budget, need, have, sizeof need);
        t_error(tr("this run needs about %s of memory (%s), more than the budget of %s (%s); lower %s, or %s "
                   "ATTN_MAX_BYTES"),
                need, tr(what), have, from_env ? "ATTN_MAX_BYTES" : tr("half of this machine's memory"), tr(flag),
                from_env ? tr("raise") : tr("set"));
    }
    if (budget >= SMALL_BUDGET) t_set_run_budget(budget);
}

void budget_refuse(const BudgetEstimate *e, bool quiet)
{
    budget_refuse_if_over(e->bytes, e->largest, e->what, e->flag);
    if (e->largest <= (double)t_max_bytes()) budget_announce(e->flops, e->rate, quiet);
}

/* ---- helpers for a chapter's estimate ------------------------------------------------------- */

bool budget_peek(const char *path, Shape *s) { return path && npy_peek_shape(path, s); }

double budget_lead(const Shape *s)
{
    double n = 1;
    int i;
    for (i = 0; i + 2 < s->ndim; i++) n *= (double)s->dims[i];
    return n;
}

double budget_dim(const Shape *s, int from_end, double dflt)
{
    return s->ndim >= from_end ? (double)s->dims[s->ndim - from_end] : dflt;
}

void budget_peek_qkv(const char *q, const char *k, const char *v, double *B, double *T, double *S, double *dk,
                     double *dv)
{
    Shape sq, sk, sv;
    if (budget_peek(q, &sq)) *B = budget_lead(&sq), *T = budget_dim(&sq, 2, 1), *dk = budget_dim(&sq, 1, 1);
    if (budget_peek(k, &sk)) *S = budget_dim(&sk, 2, 1), *B = *B > budget_lead(&sk) ? *B : budget_lead(&sk);
    if (budget_peek(v, &sv)) *dv = budget_dim(&sv, 1, 1), *B = *B > budget_lead(&sv) ? *B : budget_lead(&sv);
}

void budget_peek_input(const char *input, const char *weights, double *B, double *T, double *d_in, double *d_out)
{
    Shape x, w;
    if (budget_peek(input, &x)) *B = budget_dim(&x, 3, 1), *T = budget_dim(&x, 2, 1), *d_in = budget_dim(&x, 1, 1);
    if (weights) {
        char path[4096];
        snprintf(path, sizeof path, "%s/wq.npy", weights);
        if (budget_peek(path, &w) && w.ndim == 2) *d_out = (double)w.dims[0];
    }
}

static double max2(double a, double b) { return a > b ? a : b; }

BudgetEstimate budget_attention_module(const BudgetModule *m, char *what, size_t len)
{
    BudgetEstimate e = {0};
    double B = m->B, H = m->H, T = m->T, din = m->d_in, dout = m->d_out, L = m->L;
    double dmax = max2(din, dout);
    e.bytes = BUDGET_OVERHEAD + BUDGET_F4 * (m->score_buffers * B * H * T * T + 30 * B * T * dmax + 10 * din * dout +
                                             4 * dout * dout + m->mask_buffers * L * L);
    /* q, k, v and the output projection; Q·Kᵀ and weights·V */
    e.flops = 8 * B * T * din * dout + 2 * (2 * B * T * T * dout);
    e.largest = BUDGET_F4 * max2(max2(B * H * T * T, B * T * dmax), max2(din * dout, L * L));
    e.what = what;
    if (m->mask_buffers * L * L > m->score_buffers * B * H * T * T && m->mask_buffers * L * L > 30 * B * T * dmax) {
        /* the causal mask buffer is built for max_seq_len, whatever T is */
        snprintf(what, len, tr("the max_seq_len x max_seq_len mask buffers, max_seq_len = %.0f"), L);
        e.flag = "--max-seq-len";
        return e;
    }
    double params = 10 * din * dout + 4 * dout * dout; /* the weights, their copies and what reads them */
    if (params > m->score_buffers * B * H * T * T && params > 30 * B * T * dmax) {
        snprintf(what, len, tr("the weights wq, wk, wv (d_out, d_in) and wo (d_out, d_out), d_in = %.0f, d_out = %.0f"),
                 din, dout);
        e.flag = m->from_files ? "the size of --weights" : "--d-in or --d-out";
        return e;
    }
    snprintf(what, len, tr("the (B, H, T, T) scores and weights, B = %.0f, H = %.0f, T = %.0f; the (B, T, d) activations"),
             B, H, T);
    if (m->from_files) e.flag = "the size of --input";
    else if (B * H * T * T < B * T * dmax) e.flag = "--batch, --seq-len, --d-in or --d-out";
    else e.flag = "--seq-len or --batch";
    return e;
}
