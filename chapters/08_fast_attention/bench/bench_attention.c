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

/* ---- the steps of main ------------------------------------------------------------ */

/* Step 1, first, so the children's peak RSS is this child's: build/chapter8 at T = MEM_T,
 * one head, causal, with --impl flash (its peak resident memory) and --impl naive (which
 * must refuse with one sentence). */
typedef struct {
    double flash_seconds, peak_rss;
    int naive_status;
    char naive_err[512];
} MemoryTarget;

static bool measure_memory_target(const char *chapter8, MemoryTarget *mt) {
    char mem_t[16], err[512], buf[32];
    snprintf(mem_t, sizeof mem_t, "%d", MEM_T);
    char *flash_argv[] = {(char *)chapter8, "--quiet", "--impl", "flash", "--causal", "--heads", "1",
                          "--d-k", "64", "--seq-len", mem_t, NULL};
    int st = run_child(flash_argv, err, sizeof err, &mt->flash_seconds);
    mt->peak_rss = children_peak_rss();
    if (st != 0) {
        fprintf(stderr, "bench_attention: %s did not run (exit %d): %s\n", chapter8, st, err);
        return false;
    }
    char *naive_argv[] = {(char *)chapter8, "--quiet", "--impl", "naive", "--causal", "--heads", "1",
                          "--d-k", "64", "--seq-len", mem_t, NULL};
    double naive_secs;
    mt->naive_status = run_child(naive_argv, mt->naive_err, sizeof mt->naive_err, &naive_secs);
    printf("Memory, T = %d, d = 64, one head, causal (build/chapter8 as a child process):\n", MEM_T);
    printf("  flash: whole process %.2f s, peak resident memory %s (naive's scores alone: %s)\n", mt->flash_seconds,
           mib(mt->peak_rss, buf, sizeof buf), "1.0 GiB");
    printf("  naive: exit %d: %s\n\n", mt->naive_status, mt->naive_err);
    return true;
}

/* One row of the table: a version at one T, causal or not. */
static void print_cell(const Cell *c, const Cell *naive, int64_t T, int causal, AttnImpl impl, double ceiling,
                       double torch) {
    char buf[32], xn[16] = "-", xt[16] = "";
    printf("%6lld %-6s %-10s ", (long long)T, causal ? "yes" : "no", attn_impl_name(impl));
    if (!c->ran) {
        printf("%10s   (%s)\n", "skipped", c->skipped);
        return;
    }
    if (naive->ran) snprintf(xn, sizeof xn, "%.1fx", naive->ms / c->ms);
    if (torch > 0) snprintf(xt, sizeof xt, "%8.2fx", torch / c->ms);
    printf("%10.2f %9.1f %6.0f%% %11s %9s %s\n", c->ms, c->gflops, pct(c->gflops, ceiling),
           mib((double)c->extra, buf, sizeof buf), xn, xt);
}

/* GFLOP/s of PyTorch's time at T (the cost model: 4·H·T·S·d, halved when causal). */
static double torch_gflops(int64_t T, int causal, double ms) {
    return 4.0 * HEADS * (double)T * (double)T * HEAD_DIM * (causal ? 0.5 : 1.0) / (ms * 1e-3) / 1e9;
}

/* Step 3: every version at every T, causal and not, in this process. A version is
 * skipped when its time at the last T that ran, grown as T·S = T², says its runs would
 * take more than max_seconds. */
static void bench_table(const int64_t *Ts, int nT, double ceiling, double max_seconds, bool with_torch,
                        Cell cells[2][MAX_TS][ATTN_N_IMPLS]) {
    printf("%6s %-6s %-10s %10s %9s %7s %11s %9s%s\n", "T", "causal", "version", "median ms", "GFLOP/s", "% ceil",
           "extra mem", "x naive", with_torch ? "  x torch" : "");
    for (int ti = 0; ti < nT; ti++)
        for (int causal = 0; causal < 2; causal++) {
            int64_t T = Ts[ti];
            double torch = with_torch ? torch_ms[causal][ti] : -1.0;
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
                print_cell(c, &cells[causal][ti][ATTN_NAIVE], T, causal, (AttnImpl)impl, ceiling, torch);
            }
            if (torch > 0) {
                double gf = torch_gflops(T, causal, torch);
                printf("%6lld %-6s %-10s %10.2f %9.1f %6.0f%% %11s %9s\n", (long long)T, causal ? "yes" : "no",
                       "torch", torch, gf, pct(gf, ceiling), "-", "-");
            }
            t_scope_end();
        }
}

/* Step 4: the whole build/chapter8 process at the target size, causal and not: the
 * median of MIN_RUNS runs, in ms. */
static bool time_whole_process(const char *chapter8, double whole_ms[2]) {
    char err[512];
    for (int causal = 0; causal < 2; causal++) {
        char *a[] = {(char *)chapter8, "--quiet", "--impl", "flash", "--batch", "1", "--heads", "8", "--d-k", "64",
                     "--seq-len", "1024", causal ? "--causal" : "--no-causal", NULL};
        double t[MIN_RUNS];
        for (int r = 0; r < MIN_RUNS; r++) {
            if (run_child(a, err, sizeof err, &t[r]) != 0) {
                fprintf(stderr, "bench_attention: %s failed: %s\n", chapter8, err);
                return false;
            }
        }
        whole_ms[causal] = 1e3 * median(t, MIN_RUNS);
    }
    return true;
}

/* Step 5: the chapter's targets, met or not, at T = TARGET_T. */
static void print_targets(const int64_t *Ts, int nT, Cell cells[2][MAX_TS][ATTN_N_IMPLS], const double whole_ms[2],
                          bool with_torch, const MemoryTarget *mt) {
    char buf[32];
    int t1024 = -1;
    for (int i = 0; i < nT; i++)
        if (Ts[i] == TARGET_T) t1024 = i;
    printf("\nTargets (B1 H8 T1024 d64, one thread, this run):\n");
    for (int causal = 0; causal < 2; causal++) {
        const Cell *f = &cells[causal][t1024][ATTN_FLASH], *n = &cells[causal][t1024][ATTN_NAIVE];
        double need = causal ? 1.5 : 1.0;
        printf("  %s:\n", causal ? "causal" : "not causal");
        if (with_torch && torch_ms[causal][t1024] > 0) {
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
           MEM_T, mib(mt->peak_rss, buf, sizeof buf), mt->peak_rss < 32.0 * 1048576.0 ? "met" : "NOT MET",
           mt->naive_status == 1 && mt->naive_err[0] ? "yes" : "NO");
}

/* Step 6: the table as CSV, for scripts/plot_ch08.py. */
static bool write_csv(const char *csv_path, const int64_t *Ts, int nT, Cell cells[2][MAX_TS][ATTN_N_IMPLS]) {
    FILE *f = fopen(csv_path, "w");
    if (!f) {
        fprintf(stderr, "bench_attention: cannot write %s: %s\n", csv_path, strerror(errno));
        return false;
    }
    fprintf(f, "impl,causal,T,median_ms,gflops,peak_bytes\n");
    for (int impl = 0; impl <= ATTN_N_IMPLS; impl++)
        for (int causal = 0; causal < 2; causal++)
            for (int ti = 0; ti < nT; ti++) {
                if (impl == ATTN_N_IMPLS) {
                    if (torch_ms[causal][ti] <= 0) continue;
                    fprintf(f, "torch eager,%d,%lld,%.4f,%.3f,\n", causal, (long long)Ts[ti], torch_ms[causal][ti],
                            torch_gflops(Ts[ti], causal, torch_ms[causal][ti]));
                    continue;
                }
                const Cell *c = &cells[causal][ti][impl];
                if (c->ran)
                    fprintf(f, "%s,%d,%lld,%.4f,%.3f,%zu\n", attn_impl_name((AttnImpl)impl), causal,
                            (long long)Ts[ti], c->ms, c->gflops, c->extra);
            }
    fclose(f);
    printf("\nwrote %s (python3 scripts/plot_ch08.py --csv %s --out FILE.png draws it)\n", csv_path, csv_path);
    return true;
}

static bool env_on(const char *name) {
    const char *v = getenv(name);
    return v && strcmp(v, "") != 0 && strcmp(v, "0") != 0;
}

int main(int argc, char **argv) {
    static bool quick;
    static const char *torch_path, *csv_path, *chapter8 = "build/chapter8";
    static const CliExtra extra[] = {
        {.name = "--quick", .kind = CLI_EXTRA_FLAG, .value = &quick, .help = "T = 256 and 1024 only (also BENCH_QUICK=1)"},
        {.name = "--torch", .metavar = "FILE", .kind = CLI_EXTRA_TEXT, .value = &torch_path,
         .help = "PyTorch's times, one 'T causal ms' line each"},
        {.name = "--csv", .metavar = "FILE", .kind = CLI_EXTRA_TEXT, .value = &csv_path,
         .help = "write the table for scripts/plot_ch08.py"},
        {.name = "--chapter8", .metavar = "PATH", .kind = CLI_EXTRA_TEXT, .value = &chapter8,
         .help = "the chapter 8 program to run as a child"},
        {0}}; /* the end of the list */
    quick = env_on("BENCH_QUICK");
    CliSpec spec = {.program = "bench_attention",
                    .summary = "make bench: chapter 8's five versions timed over T, in one run.\n"
                               "BENCH_QUICK=1 is --quick; BENCH_MAX_SECONDS caps one cell (default 60).",
                    .defaults = {.seed = 8},
                    .extra = extra};
    Args args = program_start(&spec, argc, argv); /* t_manual_seed(8): the same inputs every run */
    (void)args;
    double max_seconds = getenv("BENCH_MAX_SECONDS") ? atof(getenv("BENCH_MAX_SECONDS")) : 60.0;
    if (max_seconds <= 0) max_seconds = 60.0;
    const int64_t *Ts = quick ? QUICK_TS : FULL_TS;
    int nT = quick ? (int)(sizeof QUICK_TS / sizeof QUICK_TS[0]) : (int)(sizeof FULL_TS / sizeof FULL_TS[0]);
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < MAX_TS; i++) torch_ms[c][i] = -1.0;
    if (torch_path) read_torch(torch_path, Ts, nT);
    setvbuf(stdout, NULL, _IONBF, 0); /* progress shows as it happens */

    printf("Chapter 8 benchmark: B = 1, H = %d, d = %d; median of >= %d calls per cell\n", HEADS, HEAD_DIM, MIN_RUNS);
    if (attention_threads() == 1)
        printf("one thread; chapter 8 compiled with -O3 -march=native, without -ffast-math\n\n");
    else
        printf("flash on %d threads (make OMP=1), the rest on one; the ceiling is one core's\n\n", attention_threads());

    MemoryTarget mt;
    if (!measure_memory_target(chapter8, &mt)) return 1;
    double ceiling = fma_peak_gflops(1.0);
    printf("Ceiling: a loop of independent fused multiply-adds = %.1f GFLOP/s on this core\n\n", ceiling);
    static Cell cells[2][MAX_TS][ATTN_N_IMPLS];
    bench_table(Ts, nT, ceiling, max_seconds, torch_path != NULL, cells);
    double whole_ms[2];
    if (!time_whole_process(chapter8, whole_ms)) return 1;
    print_targets(Ts, nT, cells, whole_ms, torch_path != NULL, &mt);
    if (csv_path && !write_csv(csv_path, Ts, nT, cells)) return 1;
    t_scope_end();
    return 0;
}
