/* budget.c — memory and time budgets of a run, and its progress line (see budget.h).
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
#define _POSIX_C_SOURCE 200809L

#include "common/program/budget.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "common/npy.h"
#include "common/program/narrate.h"
#include "common/rng.h"
#include "common/tensor.h"

#define DEFAULT_MAX_SECONDS 60.0
#define SMALL_BUDGET (64.0 * 1024 * 1024) /* below: a limit per allocation only */
#define PROGRESS_AFTER 2.0     /* seconds: shorter runs show no progress line */
#define CAL_DRAWS 16384        /* the calibration sample: under 1 ms a fill here */
#define CAL_SECONDS 0.005      /* no second or third fill after this long */
#define SAMPLE_FIRST 64.0      /* a chapter's sampler: first n, doubled while...  */
#define SAMPLE_LONG 0.2        /* ...one call takes less than this many seconds   */
#define SAMPLE_TOTAL 1.0       /* and the next would keep the total under this    */

/* ---- parsing the environment ----------------------------------------------------- */

bool budget_parse_seconds(const char *text, double *out)
{
    double v;
    if (!t_parse_number(text, &v) || v > 1e12) return false;
    *out = v;
    return true;
}

int budget_check_env(char *err, size_t errlen)
{
    const char *b = getenv("ATTN_MAX_BYTES"), *s = getenv("ATTN_MAX_SECONDS");
    size_t bytes;
    double seconds;
    char shown[64];
    if (b && *b && !t_parse_bytes(b, &bytes)) {
        t_escape(shown, sizeof shown, b);
        snprintf(err, errlen,
                 "ATTN_MAX_BYTES='%s': must be a number of bytes of at least 1, such as 2000000000, 512M or 2G",
                 shown);
        return 2;
    }
    if (s && *s && !budget_parse_seconds(s, &seconds)) {
        t_escape(shown, sizeof shown, s);
        snprintf(err, errlen, "ATTN_MAX_SECONDS='%s': must be a number of seconds, such as 300 (0: no limit)",
                 shown);
        return 2;
    }
    return 0;
}

double budget_max_seconds(void)
{
    double s;
    if (budget_parse_seconds(getenv("ATTN_MAX_SECONDS"), &s)) return s;
    return DEFAULT_MAX_SECONDS;
}

/* ---- progress ------------------------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double estimate_bytes_seen = 0, estimate_seconds_seen = 0;
static volatile sig_atomic_t progress_shown = 0;   /* a line is on the terminal */
static bool progress_on = false;                    /* stderr is a terminal */
static double progress_t0 = -1, progress_last = 0, progress_estimate = 0;
static bool timed_mode = false;                     /* the SIGALRM line is running */

/* Async-signal-safe text: the SIGALRM handler writes with these. */
static size_t put_str(char *b, size_t n, size_t cap, const char *s)
{
    while (*s && n + 1 < cap) b[n++] = *s++;
    return n;
}
static size_t put_uint(char *b, size_t n, size_t cap, unsigned long v)
{
    char d[24];
    int k = 0;
    do d[k++] = (char)('0' + v % 10), v /= 10;
    while (v && k < 24);
    while (k > 0 && n + 1 < cap) b[n++] = d[--k];
    return n;
}

static void show_line(double frac, double elapsed, double left)
{
    char b[160];
    size_t n = 0;
    const char *name = t_program_name();
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    n = put_str(b, n, sizeof b, "\r");
    n = put_str(b, n, sizeof b, name ? name : "working");
    n = put_str(b, n, sizeof b, ": ");
    n = put_uint(b, n, sizeof b, (unsigned long)(100.0 * frac));
    n = put_str(b, n, sizeof b, "% done, ");
    n = put_uint(b, n, sizeof b, (unsigned long)elapsed);
    n = put_str(b, n, sizeof b, " s so far, about ");
    n = put_uint(b, n, sizeof b, (unsigned long)(left + 0.5));
    n = put_str(b, n, sizeof b, " s left (Ctrl-C stops it) \033[K");
    if (write(STDERR_FILENO, b, n) < 0) return;
    progress_shown = 1;
}

void budget_progress_end(void)
{
    if (progress_shown) {
        static const char erase[] = "\r\033[K";
        if (write(STDERR_FILENO, erase, sizeof erase - 1) < 0) { /* nothing to do */
        }
        progress_shown = 0;
    }
    if (timed_mode) alarm(0);
    timed_mode = false;
    progress_estimate = 0;
}

static void at_exit_progress(void) { budget_progress_end(); }

void budget_progress(double done, double total)
{
    double t = now_seconds(), elapsed, left;
    if (timed_mode) return;
    if (progress_t0 < 0) {
        progress_t0 = t;
        progress_on = isatty(STDERR_FILENO) != 0;
        if (progress_on) atexit(at_exit_progress);
        return;
    }
    if (!progress_on || total <= 0 || done <= 0) return;
    elapsed = t - progress_t0;
    left = elapsed * (total - done) / done;
    /* only a long run (estimated or seen so), at most 5 updates a second */
    if ((elapsed + left < PROGRESS_AFTER && estimate_seconds_seen < PROGRESS_AFTER) || t - progress_last < 0.2)
        return;
    progress_last = t;
    if (done >= total) {
        budget_progress_end();
        return;
    }
    show_line(done / total, elapsed, left);
}

bool budget_progress_shown(void) { return isatty(STDERR_FILENO) != 0; }

/* The other chapters cannot tick from inside their concept code: once a
 * second, the share of the estimated time gone by. */
static volatile sig_atomic_t alarm_elapsed = 0;
static volatile sig_atomic_t alarm_estimate = 0;

static void on_alarm(int sig)
{
    int e = errno;
    double elapsed, est;
    (void)sig;
    alarm_elapsed = alarm_elapsed + 1;
    elapsed = (double)alarm_elapsed;
    est = (double)alarm_estimate;
    if (elapsed > est) est = elapsed * 1.25;
    show_line(elapsed / est, elapsed, est - elapsed);
    alarm(1);
    errno = e;
}

static void start_timed_progress(double seconds)
{
    struct sigaction sa;
    if (seconds < PROGRESS_AFTER || !isatty(STDERR_FILENO)) return;
    progress_estimate = seconds;
    timed_mode = true;
    alarm_estimate = (sig_atomic_t)(seconds < 1e6 ? seconds : 1e6);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    atexit(at_exit_progress);
    alarm(1);
}

/* ---- refusing ------------------------------------------------------------------------------ */

static bool own_progress = false; /* the chapter ticks budget_progress itself */

double budget_estimated_seconds(void) { return estimate_seconds_seen; }

/* The most this process had resident (VmHWM), where the system says (Linux's
 * /proc/self/status), else 0. It counts what t_peak_bytes does not: the program
 * and its libraries, the stack, and blocks rounded up to whole (huge) pages. */
static double resident_peak(void)
{
    char line[256];
    double kib = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) kib = strtod(line + 6, NULL);
    fclose(f);
    return 1024.0 * kib;
}

static void report_peak(void)
{
    double rss = resident_peak();
    char resident[64] = "";
    if (rss > 0) snprintf(resident, sizeof resident, "; resident at most %.0f bytes", rss);
    fprintf(stderr, "%s: peak %.0f bytes, estimate %.0f bytes, %.2f s%s\n", t_program_name() ? t_program_name() : "",
            (double)t_peak_bytes(), estimate_bytes_seen, estimate_seconds_seen, resident);
}

void budget_refuse_if_over(double bytes, double largest, double seconds, const char *what, const char *flag)
{
    size_t budget = t_max_bytes();
    double max_s = budget_max_seconds();
    char need[32], have[32];
    const char *env = getenv("ATTN_MAX_BYTES");
    bool from_env = env && *env;

    estimate_bytes_seen = bytes;
    estimate_seconds_seen = seconds;
    if (getenv("ATTN_REPORT_PEAK")) {
        static bool once = false;
        if (!once) atexit(report_peak);
        once = true;
    }
    /* One buffer alone past the limit: the chapter's own check names it (and,
     * for scores, points to chapter 8) before any work, so it speaks. Small
     * budgets (tests use them) limit each allocation only. */
    if (bytes > (double)budget && bytes > SMALL_BUDGET && largest <= (double)budget) {
        t_format_bytes(bytes, need, sizeof need);
        t_format_bytes((double)budget, have, sizeof have);
        t_error("this run needs about %s of memory (%s), more than the budget of %s (%s); lower %s, or %s "
                "ATTN_MAX_BYTES",
                need, what, have, from_env ? "ATTN_MAX_BYTES" : "half of this machine's memory", flag,
                from_env ? "raise" : "set");
    }
    if (budget >= SMALL_BUDGET) t_set_run_budget(budget);
    if (largest > (double)budget) return;
    if (max_s > 0 && seconds > max_s) {
        char est[48];
        if (seconds < 120) snprintf(est, sizeof est, "%.0f seconds", seconds);
        else if (seconds < 7200) snprintf(est, sizeof est, "%.0f minutes", seconds / 60);
        else if (seconds < 2 * 86400) snprintf(est, sizeof est, "%.0f hours", seconds / 3600);
        else snprintf(est, sizeof est, "%.0f days", seconds / 86400);
        t_error("this run would take about %s (%s), more than the limit of %.0f s; lower %s, or set "
                "ATTN_MAX_SECONDS=%.0f (0: no limit) to run it anyway",
                est, what, max_s, flag, ceil(seconds * 1.5));
    }
    if (!own_progress) start_timed_progress(seconds);
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
    BudgetEstimate e;
    double B = m->B, H = m->H, T = m->T, din = m->d_in, dout = m->d_out, L = m->L;
    double dmax = max2(din, dout);
    e.bytes = BUDGET_OVERHEAD + BUDGET_F4 * (m->score_buffers * B * H * T * T + 30 * B * T * dmax + 10 * din * dout +
                                             4 * dout * dout + m->mask_buffers * L * L);
    e.flops = 3 * (2 * B * T * T * dout * 2) + 8 * B * T * din * dout + 20 * B * H * T * T;
    e.seconds = 0;
    e.draws = m->from_files ? 0 : B * T * din + 4 * din * dout;
    e.largest = BUDGET_F4 * max2(max2(B * H * T * T, B * T * dmax), max2(din * dout, L * L));
    snprintf(what, len, "the (B, H, T, T) scores and weights, B = %.0f, H = %.0f, T = %.0f; the (B, T, d) activations",
             B, H, T);
    e.what = what;
    e.sample = NULL; /* the chapter sets its own */
    e.sample_ctx = NULL;
    e.sample_n = T;
    if (m->from_files) e.flag = "the size of --input";
    else if (B * H * T * T < B * T * dmax) e.flag = "--batch, --seq-len, --d-in or --d-out";
    else e.flag = "--seq-len or --batch";
    return e;
}

/* ---- the rate of the draws, measured once when the fixed one would refuse ------------------- */

static double randn_rate = 0; /* 0 until measured */

/* Normal samples per second of t_randn's fill, the best of up to 3 fills of
 * CAL_DRAWS: on a generator of its own (the run's generator is not touched)
 * and into a buffer of its own (nothing allocated, the run's peak unchanged). */
static double measured_randn_rate(void)
{
    static float sample[CAL_DRAWS];
    Rng own;
    double best = 0, start = now_seconds();
    int run;
    rng_seed(&own, 0);
    for (run = 0; run < 3 && (run == 0 || now_seconds() - start < CAL_SECONDS); run++) {
        double t0 = now_seconds(), rate;
        rng_normal_fill(&own, sample, CAL_DRAWS);
        rate = CAL_DRAWS / (now_seconds() - t0 + 1e-9);
        if (rate > best) best = rate;
    }
    return best;
}

double budget_randn_rate(void) { return randn_rate > 0 ? randn_rate : BUDGET_RATE_RANDN; }

/* ---- the rate of a chapter's own work, measured once when the fixed one would refuse -------- */

static double tensor_rate = 0; /* 0 until measured */

/* Counted operations per second of e->sample at its largest n: n = 64, 128, ...
 * while one call takes under SAMPLE_LONG, the next (about 4 times as long: the
 * work grows as n^2) keeps the total under SAMPLE_TOTAL and n stays at most half
 * the run's. Nothing of the run changes: its generator, narration and peak are
 * put back, and each sample's tensors are freed. */
static double measured_tensor_rate(const BudgetEstimate *e)
{
    Rng saved = *t_default_rng();
    bool was_quiet = narrate_quiet();
    size_t peak = t_peak_bytes();
    double n = SAMPLE_FIRST, half = floor(e->sample_n / 2), start = now_seconds(), rate = 0;
    if (half < 1) half = 1;
    if (n > half) n = half;
    for (;;) {
        double t0, dt, flops;
        narrate_set_quiet(true);
        t_scope_begin();
        t0 = now_seconds();
        flops = e->sample(e->sample_ctx, n);
        dt = now_seconds() - t0;
        t_scope_end();
        rate = flops / (dt + 1e-9);
        if (dt >= SAMPLE_LONG || 2 * n > half || now_seconds() - start + 4 * dt > SAMPLE_TOTAL) break;
        n *= 2;
    }
    narrate_set_quiet(was_quiet);
    t_restore_peak_bytes(peak);
    *t_default_rng() = saved;
    return rate;
}

double budget_tensor_rate(void) { return tensor_rate > 0 ? tensor_rate : BUDGET_RATE_TENSOR; }

double budget_seconds(const BudgetEstimate *e)
{
    double max_s = budget_max_seconds(), rest;
    bool past = max_s > 0 && e->flops / BUDGET_RATE_TENSOR + e->seconds + e->draws / budget_randn_rate() > max_s;
    /* a run past the memory budget is refused for that: no sample of it */
    if (past && tensor_rate == 0 && e->sample && e->flops > 0 && e->bytes <= (double)t_max_bytes())
        tensor_rate = max2(BUDGET_RATE_TENSOR, BUDGET_RATE_MARGIN * measured_tensor_rate(e));
    rest = e->flops / budget_tensor_rate() + e->seconds;
    if (randn_rate == 0 && e->draws > 0 && max_s > 0 && rest + e->draws / BUDGET_RATE_RANDN > max_s)
        randn_rate = max2(BUDGET_RATE_RANDN, BUDGET_RATE_MARGIN * measured_randn_rate());
    return rest + e->draws / budget_randn_rate();
}

void budget_refuse(const BudgetEstimate *e, bool quiet)
{
    /* the narration on the same terminal would be cut by the line: it shows
     * its own progress, step by step */
    static char what[320];
    double seconds;
    if (!quiet && isatty(STDOUT_FILENO)) own_progress = true;
    seconds = budget_seconds(e);
    if (tensor_rate > BUDGET_RATE_TENSOR && e->sample && e->flops > 0) { /* the sentence says the rate was measured */
        snprintf(what, sizeof what, "%s, at half the rate measured here", e->what);
        budget_refuse_if_over(e->bytes, e->largest, seconds, what, e->flag);
    } else {
        budget_refuse_if_over(e->bytes, e->largest, seconds, e->what, e->flag);
    }
}

void budget_own_progress(bool own) { own_progress = own; }
