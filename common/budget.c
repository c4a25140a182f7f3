/* budget.c — memory and time budgets of a run, and its progress line (see budget.h).
 *
 * Each chapter's estimate is a sum of the few terms that grow with its flags:
 * the (..., T, S) buffers (scores, weights, their dumps and copies), the
 * (B, T, d) activations, the weights, chapter 4's max_seq_len x max_seq_len
 * mask buffers. The factor of each term counts the buffers of that size the
 * chapter holds at once; they were measured (t_peak_bytes) on runs where that
 * term dominates and rounded up, so the estimate is an upper bound (tested in
 * tests/test_budget.sh with ATTN_REPORT_PEAK=1, which prints both at exit).
 */
#define _POSIX_C_SOURCE 200809L

#include "budget.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "npy.h"
#include "tensor.h"

#define DEFAULT_MAX_SECONDS 60.0
#define SMALL_BUDGET (64.0 * 1024 * 1024) /* below: a limit per allocation only */
#define PROGRESS_AFTER 2.0     /* seconds: shorter runs show no progress line */

/* ---- parsing the environment ----------------------------------------------------- */

static void human(double bytes, char *buf, size_t len)
{
    const char *unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 6) bytes /= 1024.0, u++;
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

/* digits [. digits] [e [+-] digits], nothing else; then strtod */
static bool parse_number(const char *s, const char **end, double *out)
{
    const char *p = s;
    size_t mant = 0;
    char buf[64];
    while (*p >= '0' && *p <= '9') p++, mant++;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') p++, mant++;
    }
    if (mant == 0) return false;
    if (*p == 'e' || *p == 'E') {
        size_t ed = 0;
        p++;
        if (*p == '+' || *p == '-') p++;
        while (*p >= '0' && *p <= '9') p++, ed++;
        if (ed == 0) return false;
    }
    if ((size_t)(p - s) >= sizeof buf) return false;
    memcpy(buf, s, (size_t)(p - s));
    buf[p - s] = '\0';
    *out = strtod(buf, NULL);
    *end = p;
    return isfinite(*out);
}

bool budget_parse_bytes(const char *text, size_t *out)
{
    const char *p;
    double v, mult = 1.0;
    if (!text || !*text || !parse_number(text, &p, &v)) return false;
    if (*p) {
        const char *units = "KMGT";
        const char *u = strchr(units, *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        if (!u || !*u) return false;
        mult = pow(1024.0, (double)(u - units + 1));
        p++;
        if (strcmp(p, "iB") == 0 || strcmp(p, "B") == 0 || strcmp(p, "b") == 0) p += strlen(p);
        if (*p) return false;
    }
    v *= mult;
    if (!(v >= 1.0) || v >= 9.2e18 || v > (double)SIZE_MAX) return false;
    *out = (size_t)v;
    return true;
}

bool budget_parse_seconds(const char *text, double *out)
{
    const char *p;
    double v;
    if (!text || !*text || !parse_number(text, &p, &v) || *p || v > 1e12) return false;
    *out = v;
    return true;
}

int budget_check_env(char *err, size_t errlen)
{
    const char *b = getenv("ATTN_MAX_BYTES"), *s = getenv("ATTN_MAX_SECONDS");
    size_t bytes;
    double seconds;
    char shown[64];
    if (b && *b && !budget_parse_bytes(b, &bytes)) {
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

/* A cgroup (v2 or v1) memory limit smaller than the machine, or 0. */
static double cgroup_limit(void)
{
    static const char *const files[] = {"/sys/fs/cgroup/memory.max",
                                        "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
    size_t i;
    for (i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        char line[64];
        if (!f) continue;
        if (fgets(line, sizeof line, f)) {
            char *end;
            double v = strtod(line, &end);
            fclose(f);
            if (end != line && v > 0 && v < 1e18) return v;
            continue;
        }
        fclose(f);
    }
    return 0;
}

size_t budget_default_bytes(void)
{
    double total = 0;
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0) total = (double)pages * (double)page;
    }
#endif
    {
        double cg = cgroup_limit();
        if (cg > 0 && (total <= 0 || cg < total)) total = cg;
    }
    if (total <= 0) return (size_t)4 << 30;
    if (total / 2 > (double)SIZE_MAX) return SIZE_MAX;
    return (size_t)(total / 2);
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

static bool own_progress = false; /* chapter 8 --quiet ticks budget_progress itself */

double budget_estimated_seconds(void) { return estimate_seconds_seen; }

static void report_peak(void)
{
    fprintf(stderr, "%s: peak %.0f bytes, estimate %.0f bytes, %.2f s\n", t_program_name() ? t_program_name() : "",
            (double)t_peak_bytes(), estimate_bytes_seen, estimate_seconds_seen);
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
        human(bytes, need, sizeof need);
        human((double)budget, have, sizeof have);
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

/* ---- the chapters' estimates ------------------------------------------------------------------ */

/* The shape of an input file, or false (not a regular file, or no valid
 * header: the loader will say why). */
static bool peek(const char *path, Shape *s) { return path && npy_peek_shape(path, s); }

static double numel(const Shape *s)
{
    double n = 1;
    int i;
    for (i = 0; i < s->ndim; i++) n *= (double)s->dims[i];
    return n;
}

/* batch elements of a (..., T, d) shape: the product of its leading dims */
static double lead(const Shape *s)
{
    double n = 1;
    int i;
    for (i = 0; i + 2 < s->ndim; i++) n *= (double)s->dims[i];
    return n;
}

static double dim_or(const Shape *s, int from_end, double dflt)
{
    return s->ndim >= from_end ? (double)s->dims[s->ndim - from_end] : dflt;
}

#define F4 4.0         /* bytes per float */
#define OVERHEAD 65536.0 /* the sentence, small tables, narration */

/* Rates, measured on one shared core and rounded down: floating-point
 * operations per second of the Tensor library of chapters 0-7 (it sums in
 * double and walks any strides) and of chapter 8's five versions; normal
 * samples per second of t_randn (it draws what PyTorch draws); seconds per
 * element of chapter 4's mask buffers. */
#define RATE_TENSOR 1e8
#define RATE_RANDN 5e6
#define SECONDS_PER_MASK_ELEM 6e-7
static const double rate_impl[5] = {5e8, 2.5e9, 3.5e9, 4e9, 8e9}; /* naive .. flash */
#define SCORES_BUDGET_CH8 (512.0 * 1024 * 1024) /* chapter 8's limit for stored scores */

void budget_check(int chapter, const Args *a)
{
    double bytes = OVERHEAD, flops = 0, rate = RATE_TENSOR, seconds = 0, largest = 0;
    const char *what = "its tensors", *flag = "--seq-len";
    char what_buf[160];
    Shape q, k, v, x, w;

    switch (chapter) {
    case 1:
    case 2:
    case 4: {
        /* (..., T, d_k) x (..., S, d_k): scores, weights, their copies */
        double B = 1, T = (double)a->seq_len, S = T, dk = (double)a->d_k, dv = dk, L = 0;
        if (chapter == 4) {
            T = S = 6, dk = dv = 3;            /* the sentence */
            L = (a->given & CLI_MAX_SEQ_LEN) ? (double)a->max_seq_len : 6; /* the mask buffers */
        }
        if (chapter == 1 && !(a->given & (CLI_SEQ_LEN | CLI_D_K))) T = S = 6, dk = dv = 3;
        if (a->q) {
            if (peek(a->q, &q)) B = lead(&q), T = dim_or(&q, 2, 1), dk = dim_or(&q, 1, 1);
            if (peek(a->k, &k)) S = dim_or(&k, 2, 1), B = B > lead(&k) ? B : lead(&k);
            if (peek(a->v, &v)) dv = dim_or(&v, 1, 1), B = B > lead(&v) ? B : lead(&v);
            if (chapter == 4) L = (a->given & CLI_MAX_SEQ_LEN) ? (double)a->max_seq_len : T;
        }
        bytes += F4 * (8 * B * T * S + 4 * B * (T * dk + S * dk + S * dv + T * dv) + 8 * L * L);
        flops = 2 * B * T * S * (dk + dv) * 3;
        seconds = L * L * SECONDS_PER_MASK_ELEM + (a->q ? 0 : 3 * T * dk / RATE_RANDN);
        if (chapter == 2 && !a->q) {
            /* the d_k table: 1000 pairs (q, k) and 200 rows of seq_len random keys for each
             * d_k = 1, 2, 4, ..., 1024 and --d-k, one d_k at a time */
            double dmax = dk > 1024 ? dk : 1024;
            bytes += F4 * (1.25 * 200 * T * dmax + 5 * 1000 * dmax);
            seconds += (200 * T + 2000) * (2047 + dk) / RATE_RANDN;
        }
        largest = F4 * B * (T * S > T * dk ? T * S : T * dk);
        if (F4 * L * L > largest) largest = F4 * L * L;
        if (chapter == 2 && !a->q && F4 * 200 * T * (dk > 1024 ? dk : 1024) > largest)
            largest = F4 * 200 * T * (dk > 1024 ? dk : 1024);
        if (chapter == 4 && L * L > T * S) {
            what = "the max_seq_len x max_seq_len mask buffers";
            flag = "--max-seq-len";
        } else {
            snprintf(what_buf, sizeof what_buf, "the (..., T, S) scores and weights, T = %.0f, S = %.0f", T, S);
            what = what_buf;
        }
        if (a->q) flag = "the sizes of --q/--k/--v";
        break;
    }
    case 0:
    case 3:
    case 5:
    case 6:
    case 7: {
        double B = (double)a->batch, T = (double)a->seq_len, din = (double)a->d_in, dout = (double)a->d_out;
        double H = chapter >= 5 ? (double)a->heads : 1, dmax;
        if (a->input && peek(a->input, &x)) B = dim_or(&x, 3, 1), T = dim_or(&x, 2, 1), din = dim_or(&x, 1, 1);
        if (a->weights) {
            char path[4096];
            snprintf(path, sizeof path, "%s/wq.npy", a->weights);
            if (peek(path, &w) && w.ndim == 2) dout = (double)w.dims[0];
        }
        if (chapter == 0) H = (double)a->heads;
        dmax = din > dout ? din : dout;
        /* chapters 5-7 build the causal mask for max_seq_len and slice it to T: --max-seq-len,
         * else (with --input) --seq-len or T, else (the default run) 2 * T */
        double L = 0;
        if (chapter >= 5)
            L = (a->given & CLI_MAX_SEQ_LEN) ? (double)a->max_seq_len
                : a->input ? ((a->given & CLI_SEQ_LEN) ? (double)a->seq_len : T) : 2 * T;
        bytes += F4 * ((chapter == 3 ? 40 : 16) * B * H * T * T + 30 * B * T * dmax + 10 * din * dout +
                       4 * dout * dout + 8 * L * L);
        flops = 3 * (2 * B * T * T * dout * 2) + 8 * B * T * din * dout + 20 * B * H * T * T;
        seconds = (a->input ? 0 : B * T * din + 4 * din * dout) / RATE_RANDN;
        largest = F4 * B * H * T * T;
        if (F4 * B * T * dmax > largest) largest = F4 * B * T * dmax;
        if (F4 * din * dout > largest) largest = F4 * din * dout;
        if (F4 * L * L > largest) largest = F4 * L * L;
        snprintf(what_buf, sizeof what_buf, "the (B, H, T, T) scores and weights, B = %.0f, H = %.0f, T = %.0f; "
                 "the (B, T, d) activations", B, H, T);
        what = what_buf;
        if (B * H * T * T < B * T * dmax) flag = "--batch, --seq-len, --d-in or --d-out";
        else flag = "--seq-len or --batch";
        if (a->input) flag = "the size of --input";
        break;
    }
    case 8: {
        /* (B, H, T, d) random or loaded q, k, v; the reference (chapters 2/4) and the
         * score-storing versions only when their (..., T, S) scores fit in 512 MiB */
        double B = (double)a->batch * (double)a->heads, T = (double)a->seq_len, S = T;
        double dk = (double)a->d_k, dv = dk, F, score_bytes, budget = SCORES_BUDGET_CH8;
        int i, impl = 4;
        if ((double)t_max_bytes() < budget) budget = (double)t_max_bytes();
        if (a->q) {
            if (peek(a->q, &q)) B = lead(&q), T = dim_or(&q, 2, 1), dk = dim_or(&q, 1, 1);
            if (peek(a->k, &k)) S = dim_or(&k, 2, 1);
            if (peek(a->v, &v)) dv = dim_or(&v, 1, 1);
        } else {
            seconds += B * T * 3 * dk / RATE_RANDN;
        }
        for (i = 0; i < 5; i++)
            if (a->impl && strcmp(a->impl, (const char *[]){"naive", "reordered", "tiled", "online", "flash"}[i]) == 0)
                impl = i;
        F = 2 * B * T * S * (dk + dv) / (a->causal ? 2 : 1);
        score_bytes = F4 * B * T * S;
        bytes += F4 * B * (T * dk + S * dk + S * dv + 2 * T * dv);
        largest = F4 * B * T * (dk > dv ? dk : dv);
        if (a->quiet) {
            /* a score-storing version past its limit refuses by itself, before any work */
            if (impl > 2 || score_bytes <= budget) seconds += F / rate_impl[impl];
            if (impl <= 2 && score_bytes <= budget) bytes += 2 * score_bytes;
        } else {
            /* the narrated comparison: each version up to 3 times (once when slower than 1 s) */
            double t;
            seconds += 0.5; /* this core's ceiling */
            if (score_bytes <= budget) {
                t = F / RATE_TENSOR;
                seconds += 2 * (t < 1 ? 3 * t : t); /* the reference, kept and timed */
                bytes += 8 * score_bytes;
            }
            for (i = 0; i < 5; i++) {
                if (i <= 2 && score_bytes > budget) continue;
                t = F / rate_impl[i];
                seconds += t < 1 ? 3 * t : t;
            }
        }
        if (a->dump && score_bytes <= budget) { /* the reference's attn_weights */
            seconds += F / RATE_TENSOR;
            bytes += 8 * score_bytes;
        }
        snprintf(what_buf, sizeof what_buf, "%.3g GFLOP of attention over T = %.0f, S = %.0f, %.0f slices%s", F / 1e9,
                 T, S, B, a->quiet ? "" : ", every version timed");
        what = what_buf;
        flag = a->q ? "the sizes of --q/--k/--v" : a->quiet ? "--seq-len" : "--seq-len (or add --quiet)";
        own_progress = a->quiet;
        break;
    }
    default:
        break;
    }
    (void)numel;
    /* the narration on the same terminal would be cut by the line: it shows
     * its own progress, step by step */
    if (!a->quiet && isatty(STDOUT_FILENO)) own_progress = true;
    budget_refuse_if_over(bytes, largest, flops / rate + seconds, what, flag);
}
