/* bench_attention.c — make bench: chapter 8's five versions timed over T, in one run,
 * C only (make bench-torch, scripts/bench_torch.py, races them against PyTorch).
 *
 *     build/bench_attention [--quick] [--torch FILE] [--csv FILE] [--chapter8 PATH]
 *
 * For T in 256, 512, 1024, 2048, 4096 (--quick or BENCH_QUICK=1: 256 and 1024),
 * one batch, H = 8 heads, d = 64, causal and not, it prints for every version the
 * median time of at least 5 calls (this thread's CPU time, so other programs on a
 * shared machine count less), the GFLOP/s of the cost model (4·H·T·S·d,
 * halved when causal), the share of this core's ceiling (an FMA loop measured in
 * the same run), the extra memory the version allocated (counted by
 * fast_attention.c) and the speed-up over naive. A version whose 5 runs would take
 * more than BENCH_MAX_SECONDS (default 60; from the time at the previous T and
 * T·S growth) is skipped and says so, as are the versions that would need more
 * than 512 MiB for their scores.
 *
 * Then it starts build/chapter8 as a separate process: once at T = 16384, d = 64,
 * one head, causal, --impl flash, and reports its peak resident memory; once with
 * --impl naive at that size, which must refuse; and 5 times at the target size
 * (B1 H8 T1024 d64) to time the whole process.
 *
 * --torch FILE reads PyTorch times measured elsewhere, one "T causal ms" line
 * each, and adds the ratio to PyTorch to every row (make bench-torch does not use
 * it: it times PyTorch and C in one process, scripts/bench_torch.py).
 * --csv FILE writes the table for scripts/plot_ch08.py.
 *
 * Benchmarks print; nothing here is asserted by make test. Exit status 0 unless
 * the arguments or the chapter8 program are unusable (2 / 1).
 *
 * POSIX (fork, exec, pipes, getrusage) is needed to run chapter8 as a child, so
 * this one program asks for it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/program/program.h"
#include "chapters/08_fast_attention/fast_attention.h"

#define MIN_RUNS 5
#define HEADS 8
#define HEAD_DIM 64
#define MEM_T 16384
#define TARGET_T 1024
#define MAX_TS 8

static const int64_t FULL_TS[] = {256, 512, 1024, 2048, 4096};
static const int64_t QUICK_TS[] = {256, 1024};

typedef struct {
    bool ran;
    char skipped[96];
    double ms, gflops;
    size_t extra;
} Cell;

/* PyTorch's times from scripts/bench_torch.py: torch_ms[causal][T index], < 0 = none. */
static double torch_ms[2][MAX_TS];

static double median(double *t, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* A share of the ceiling, never above 100: the ceiling is the best run of an FMA loop by
 * CPU time, so a figure above it would mean that measurement went wrong. */
static double pct(double gflops, double ceiling) {
    double p = 100.0 * gflops / ceiling;
    return p > 100.0 ? 100.0 : p;
}

static const char *mib(double bytes, char *buf, size_t len) {
    if (bytes < 1024.0 * 1024.0) snprintf(buf, len, "%.0f KiB", bytes / 1024.0);
    else snprintf(buf, len, "%.1f MiB", bytes / (1024.0 * 1024.0));
    return buf;
}

/* ---- running build/chapter8 as a child -------------------------------------------- */

/* Run argv (argv[0] is the program path) with stdout thrown away and the first line of
 * its stderr kept in err. Returns its exit status (-1 if it could not run or was
 * killed); *seconds is the wall time from fork to exit. */
static int run_child(char *const argv[], char *err, size_t errlen, double *seconds) {
    int fds[2];
    err[0] = '\0';
    if (pipe(fds) != 0) return -1;
    double t0 = stopwatch_seconds();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    char buf[1024];
    size_t used = 0;
    ssize_t got;
    while ((got = read(fds[0], buf + used, sizeof buf - 1 - used)) > 0)
        if (used + (size_t)got < sizeof buf - 1) used += (size_t)got;
    close(fds[0]);
    buf[used] = '\0';
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    *seconds = stopwatch_seconds() - t0;
    size_t n = strcspn(buf, "\n");
    if (n >= errlen) n = errlen - 1;
    memcpy(err, buf, n);
    err[n] = '\0';
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Peak resident memory of the largest child so far, in bytes (ru_maxrss is in KiB). */
static double children_peak_rss(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0) return -1.0;
    return (double)ru.ru_maxrss * 1024.0;
}

/* ---- the in-process table --------------------------------------------------------- */

static Cell bench_one(AttnImpl impl, const Tensor *q, const Tensor *k, const Tensor *v, bool causal,
                      double predicted_s, double max_seconds) {
    Cell c;
    memset(&c, 0, sizeof c);
    if (attn_impl_stores_scores(impl) && attention_score_bytes(q, k) > (double)attention_scores_budget()) {
        snprintf(c.skipped, sizeof c.skipped, "scores > %.0f MiB", attention_scores_budget() / 1048576.0);
        return c;
    }
    if (predicted_s * MIN_RUNS > max_seconds) {
        snprintf(c.skipped, sizeof c.skipped, "~%.0f s/run", predicted_s);
        return c;
    }
    double t[64];
    int n = 0;
    double spent = 0.0;
    /* one untimed warm-up call (page faults of fresh buffers, cold caches), then at least
     * MIN_RUNS timed calls, more while they take under a quarter second in total */
    t_scope_begin();
    fast_attention(impl, q, k, v, causal);
    t_scope_end();
    while (n < MIN_RUNS || (spent < 0.25 && n < 64)) {
        t_scope_begin();
        double t0 = thread_cpu_seconds();
        fast_attention(impl, q, k, v, causal);
        t[n] = thread_cpu_seconds() - t0;
        c.extra = attention_scratch_bytes();
        t_scope_end();
        spent += t[n++];
    }
    c.ran = true;
    c.ms = 1e3 * median(t, n);
    c.gflops = attention_flops(q, k, v, causal) / (c.ms * 1e-3) / 1e9;
    return c;
}

static void read_torch(const char *path, const int64_t *Ts, int nT) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bench_attention: cannot read the PyTorch times %s: %s\n", path, strerror(errno));
        exit(1);
    }
    long long T;
    int causal;
    double ms;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%lld %d %lf", &T, &causal, &ms) == 3 && (causal == 0 || causal == 1))
            for (int i = 0; i < nT; i++)
                if (Ts[i] == T) torch_ms[causal][i] = ms;
    fclose(f);
}

static void usage(void) {
    fprintf(stderr, "usage: bench_attention [--quick] [--torch FILE] [--csv FILE] [--chapter8 PATH]\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *torch_path = NULL, *csv_path = NULL, *chapter8 = "build/chapter8";
    bool quick = getenv("BENCH_QUICK") && strcmp(getenv("BENCH_QUICK"), "") != 0 && strcmp(getenv("BENCH_QUICK"), "0") != 0;
    double max_seconds = getenv("BENCH_MAX_SECONDS") ? atof(getenv("BENCH_MAX_SECONDS")) : 60.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = true;
        else if (strcmp(argv[i], "--torch") == 0 && i + 1 < argc) torch_path = argv[++i];
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) csv_path = argv[++i];
        else if (strcmp(argv[i], "--chapter8") == 0 && i + 1 < argc) chapter8 = argv[++i];
        else usage();
    }
    if (max_seconds <= 0) max_seconds = 60.0;
    const int64_t *Ts = quick ? QUICK_TS : FULL_TS;
    int nT = quick ? (int)(sizeof QUICK_TS / sizeof QUICK_TS[0]) : (int)(sizeof FULL_TS / sizeof FULL_TS[0]);
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < MAX_TS; i++) torch_ms[c][i] = -1.0;
    if (torch_path) read_torch(torch_path, Ts, nT);
    t_scope_begin();
    t_manual_seed(8);
    setvbuf(stdout, NULL, _IONBF, 0); /* progress shows as it happens */

    printf("Chapter 8 benchmark: B = 1, H = %d, d = %d; median of >= %d calls per cell\n", HEADS, HEAD_DIM, MIN_RUNS);
    if (attention_threads() == 1)
        printf("one thread; chapter 8 compiled with -O3 -march=native, without -ffast-math\n\n");
    else
        printf("flash on %d threads (make OMP=1), the rest on one; the ceiling is one core's\n\n", attention_threads());

    /* 1. the memory target, first, so the children's peak RSS is this child's */
    char mem_t[16], err[512], buf[32];
    snprintf(mem_t, sizeof mem_t, "%d", MEM_T);
    char *flash_argv[] = {(char *)chapter8, "--quiet", "--impl", "flash", "--causal", "--heads", "1",
                          "--d-k", "64", "--seq-len", mem_t, NULL};
    double secs;
    int st = run_child(flash_argv, err, sizeof err, &secs);
    double rss = children_peak_rss();
    if (st != 0) {
        fprintf(stderr, "bench_attention: %s did not run (exit %d): %s\n", chapter8, st, err);
        return 1;
    }
    char *naive_argv[] = {(char *)chapter8, "--quiet", "--impl", "naive", "--causal", "--heads", "1",
                          "--d-k", "64", "--seq-len", mem_t, NULL};
    double naive_secs;
    char naive_err[512];
    int naive_st = run_child(naive_argv, naive_err, sizeof naive_err, &naive_secs);
    printf("Memory, T = %d, d = 64, one head, causal (build/chapter8 as a child process):\n", MEM_T);
    printf("  flash: whole process %.2f s, peak resident memory %s (naive's scores alone: %s)\n", secs,
           mib(rss, buf, sizeof buf), "1.0 GiB");
    printf("  naive: exit %d: %s\n\n", naive_st, naive_err);

    /* 2. this core's ceiling */
    double ceiling = fma_peak_gflops(1.0);
    printf("Ceiling: a loop of independent fused multiply-adds = %.1f GFLOP/s on this core\n\n", ceiling);

    /* 3. the table */
    Cell cells[2][MAX_TS][ATTN_N_IMPLS];
    memset(cells, 0, sizeof cells);
    printf("%6s %-6s %-10s %10s %9s %7s %11s %9s%s\n", "T", "causal", "version", "median ms", "GFLOP/s", "% ceil",
           "extra mem", "x naive", torch_path ? "  x torch" : "");
    for (int ti = 0; ti < nT; ti++)
        for (int causal = 0; causal < 2; causal++) {
            int64_t T = Ts[ti];
            t_scope_begin();
            Tensor *q = t_randn(SHAPE(1, HEADS, T, HEAD_DIM)), *k = t_randn(SHAPE(1, HEADS, T, HEAD_DIM)),
                   *v = t_randn(SHAPE(1, HEADS, T, HEAD_DIM));
            for (int impl = 0; impl < ATTN_N_IMPLS; impl++) {
                double predicted = 0.0; /* from the last T that ran: time grows as T·S = T² */
                for (int pj = ti - 1; pj >= 0; pj--)
                    if (cells[causal][pj][impl].ran) {
                        double r = (double)T / (double)Ts[pj];
                        predicted = cells[causal][pj][impl].ms * 1e-3 * r * r;
                        break;
                    }
                Cell *c = &cells[causal][ti][impl];
                *c = bench_one((AttnImpl)impl, q, k, v, causal, predicted, max_seconds);
                printf("%6lld %-6s %-10s ", (long long)T, causal ? "yes" : "no", attn_impl_name((AttnImpl)impl));
                if (!c->ran) {
                    printf("%10s   (%s)\n", "skipped", c->skipped);
                    continue;
                }
                char xn[16] = "-", xt[16] = "";
                if (cells[causal][ti][ATTN_NAIVE].ran)
                    snprintf(xn, sizeof xn, "%.1fx", cells[causal][ti][ATTN_NAIVE].ms / c->ms);
                if (torch_path && torch_ms[causal][ti] > 0) snprintf(xt, sizeof xt, "%8.2fx", torch_ms[causal][ti] / c->ms);
                printf("%10.2f %9.1f %6.0f%% %11s %9s %s\n", c->ms, c->gflops, pct(c->gflops, ceiling),
                       mib((double)c->extra, buf, sizeof buf), xn, xt);
            }
            if (torch_path && torch_ms[causal][ti] > 0) {
                double gf = 4.0 * HEADS * (double)T * (double)T * HEAD_DIM * (causal ? 0.5 : 1.0) / (torch_ms[causal][ti] * 1e-3) / 1e9;
                printf("%6lld %-6s %-10s %10.2f %9.1f %6.0f%% %11s %9s\n", (long long)T, causal ? "yes" : "no",
                       "torch", torch_ms[causal][ti], gf, pct(gf, ceiling), "-", "-");
            }
            t_scope_end();
        }

    /* 4. the whole process at the target size, against PyTorch's compute only */
    char *target_argv[2][16];
    double whole_ms[2];
    for (int causal = 0; causal < 2; causal++) {
        char **a = target_argv[causal];
        int n = 0;
        a[n++] = (char *)chapter8, a[n++] = "--quiet", a[n++] = "--impl", a[n++] = "flash", a[n++] = "--batch",
        a[n++] = "1", a[n++] = "--heads", a[n++] = "8", a[n++] = "--d-k", a[n++] = "64", a[n++] = "--seq-len",
        a[n++] = "1024", a[n++] = causal ? "--causal" : "--no-causal", a[n] = NULL;
        double t[MIN_RUNS];
        for (int r = 0; r < MIN_RUNS; r++) {
            if (run_child(a, err, sizeof err, &t[r]) != 0) {
                fprintf(stderr, "bench_attention: %s failed: %s\n", chapter8, err);
                return 1;
            }
        }
        whole_ms[causal] = 1e3 * median(t, MIN_RUNS);
    }

    /* 5. the targets of the chapter */
    int t1024 = -1;
    for (int i = 0; i < nT; i++)
        if (Ts[i] == TARGET_T) t1024 = i;
    printf("\nTargets (B1 H8 T1024 d64, one thread, this run):\n");
    for (int causal = 0; causal < 2; causal++) {
        const Cell *f = &cells[causal][t1024][ATTN_FLASH], *n = &cells[causal][t1024][ATTN_NAIVE];
        double need = causal ? 1.5 : 1.0;
        printf("  %s:\n", causal ? "causal" : "not causal");
        if (torch_path && torch_ms[causal][t1024] > 0) {
            double r_whole = torch_ms[causal][t1024] / whole_ms[causal];
            double r_comp = torch_ms[causal][t1024] / f->ms;
            printf("    flash vs PyTorch eager: whole chapter8 process %.1f ms vs PyTorch compute %.1f ms = %.2fx "
                   "(compute vs compute %.2fx); target >= %.1fx: %s\n",
                   whole_ms[causal], torch_ms[causal][t1024], r_whole, r_comp, need, r_whole >= need ? "met" : "NOT MET");
        } else {
            printf("    flash vs PyTorch eager: not measured (make bench-torch); whole chapter8 process %.1f ms\n",
                   whole_ms[causal]);
        }
        if (f->ran && n->ran)
            printf("    flash vs naive: %.1f ms vs %.1f ms = %.1fx; target >= 10x: %s\n", f->ms, n->ms, n->ms / f->ms,
                   n->ms / f->ms >= 10.0 ? "met" : "NOT MET");
    }
    printf("  memory: flash at T = %d, d = 64, one head, causal: peak RSS %s; target < 32 MiB: %s; "
           "naive refuses with one sentence: %s\n",
           MEM_T, mib(rss, buf, sizeof buf), rss < 32.0 * 1048576.0 ? "met" : "NOT MET",
           naive_st == 1 && naive_err[0] ? "yes" : "NO");

    /* 6. the CSV for scripts/plot_ch08.py */
    if (csv_path) {
        FILE *f = fopen(csv_path, "w");
        if (!f) {
            fprintf(stderr, "bench_attention: cannot write %s: %s\n", csv_path, strerror(errno));
            return 1;
        }
        fprintf(f, "impl,causal,T,median_ms,gflops,peak_bytes\n");
        for (int impl = 0; impl <= ATTN_N_IMPLS; impl++)
            for (int causal = 0; causal < 2; causal++)
                for (int ti = 0; ti < nT; ti++) {
                    if (impl == ATTN_N_IMPLS) {
                        if (torch_ms[causal][ti] <= 0) continue;
                        double T = (double)Ts[ti];
                        double gf = 4.0 * HEADS * T * T * HEAD_DIM * (causal ? 0.5 : 1.0) / (torch_ms[causal][ti] * 1e-3) / 1e9;
                        fprintf(f, "torch eager,%d,%lld,%.4f,%.3f,\n", causal, (long long)Ts[ti], torch_ms[causal][ti], gf);
                        continue;
                    }
                    const Cell *c = &cells[causal][ti][impl];
                    if (c->ran)
                        fprintf(f, "%s,%d,%lld,%.4f,%.3f,%zu\n", attn_impl_name((AttnImpl)impl), causal,
                                (long long)Ts[ti], c->ms, c->gflops, c->extra);
                }
        fclose(f);
        printf("\nwrote %s (python3 scripts/plot_ch08.py --csv %s --out FILE.png draws it)\n", csv_path, csv_path);
    }
    t_scope_end();
    return 0;
}
