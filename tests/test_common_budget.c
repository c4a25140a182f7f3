/* test_common_budget.c — budgets, escaped messages, outputs and optional
 * parameters (common/budget.c, common/error.c, common/out.c, common/state.c).
 * The programs' side (refusals, signals, devices) is tests/test_hostile.sh. */
#define _POSIX_C_SOURCE 200809L

#include "harness.h"
#include "common/program/program.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char dir[512];

static const char *in_dir(const char *name)
{
    static char bufs[4][1024];
    static int next = 0;
    char *b = bufs[next];
    next = (next + 1) % 4;
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

static void test_parse_bytes(void)
{
    size_t v = 0;
    CHECK(t_parse_bytes("2000000000", &v) && v == 2000000000u);
    CHECK(t_parse_bytes("1.5e3", &v) && v == 1500);
    CHECK(t_parse_bytes("512M", &v) && v == (size_t)512 << 20);
    CHECK(t_parse_bytes("2G", &v) && v == (size_t)2 << 30);
    CHECK(t_parse_bytes("2GiB", &v) && v == (size_t)2 << 30);
    CHECK(t_parse_bytes("3k", &v) && v == 3072);
    v = 7;
    CHECK(!t_parse_bytes(NULL, &v));
    CHECK(!t_parse_bytes("", &v));
    CHECK(!t_parse_bytes("abc", &v));
    CHECK(!t_parse_bytes("0", &v));
    CHECK(!t_parse_bytes("-5", &v));
    CHECK(!t_parse_bytes("0.5", &v));
    CHECK(!t_parse_bytes(" 5", &v));
    CHECK(!t_parse_bytes("5 ", &v));
    CHECK(!t_parse_bytes("5x", &v));
    CHECK(!t_parse_bytes("5GiBs", &v));
    CHECK(!t_parse_bytes("0x10", &v));
    CHECK(!t_parse_bytes("1e400", &v));
    CHECK(!t_parse_bytes("nan", &v));
    CHECK(!t_parse_bytes("inf", &v));
    CHECK(!t_parse_bytes("1e30", &v));
    CHECK_EQ_INT(v, 7); /* untouched by a refusal */
}

static void test_parse_seconds(void)
{
    double s = -1;
    CHECK(budget_parse_seconds("90", &s) && s == 90);
    CHECK(budget_parse_seconds("2.5", &s) && s == 2.5);
    CHECK(budget_parse_seconds("0", &s) && s == 0);
    CHECK(!budget_parse_seconds("-1", &s));
    CHECK(!budget_parse_seconds("5s", &s));
    CHECK(!budget_parse_seconds("", &s));
    CHECK(!budget_parse_seconds("1e400", &s));
}

static void test_default_budget_is_half_of_memory(void)
{
    size_t b = t_default_max_bytes();
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    CHECK(b > 0);
    if (pages > 0 && page > 0) CHECK((double)b <= (double)pages * (double)page / 2 + 1);
}

static void test_refuse_over_budget(void)
{
    size_t old = t_max_bytes();
    t_set_max_bytes((size_t)1 << 30);
    CHECK_ERROR(budget_refuse_if_over(3.0 * (1 << 30), 1e6, 1, "the test buffers", "--seq-len"),
                "this run needs about 3.0 GiB of memory (the test buffers), more than the budget of 1.0 GiB");
    CHECK_STR_CONTAINS(t_last_error(), "lower --seq-len");
    /* one buffer alone past the limit: left to the chapter's own check */
    budget_refuse_if_over(3.0 * (1 << 30), 2.0 * (1 << 30), 1, "x", "--seq-len");
    /* too long */
    CHECK_ERROR(budget_refuse_if_over(1e6, 1e6, 1e5, "the test work", "--seq-len"),
                "this run would take about 28 hours (the test work), more than the limit of 60 s");
    CHECK_STR_CONTAINS(t_last_error(), "ATTN_MAX_SECONDS=150000");
    t_set_run_budget(0);
    t_set_max_bytes(old);
}

/* The draws at the fixed rate while it fits; past the limit at the rate measured
 * here (never slower than the fixed one), once per run, without a draw of the
 * run's generator. */
static void test_draws_calibrated_only_past_the_limit(void)
{
    BudgetEstimate e = {.flops = 1e8, .seconds = 1, .draws = 5e6};
    float before[4], after[4];
    double s, rate;
    int i;
    unsetenv("ATTN_MAX_SECONDS"); /* the default 60 s */
    CHECK_CLOSE(budget_seconds(&e), 3.0, 1e-9); /* 1 + 1 + 1 at the fixed rates */
    CHECK(budget_randn_rate() == BUDGET_RATE_RANDN); /* nothing measured */
    t_manual_seed(7);
    (void)t_randn(SHAPE(3));
    for (i = 0; i < 4; i++) before[i] = t_data(t_randn(SHAPE(20)))[i]; /* the 16-wide path */
    t_manual_seed(7);
    (void)t_randn(SHAPE(3)); /* leaves a cached second normal, as torch does */
    e.draws = 5e8; /* 102 s at the fixed rates */
    s = budget_seconds(&e);
    rate = budget_randn_rate();
    for (i = 0; i < 4; i++) after[i] = t_data(t_randn(SHAPE(20)))[i];
    for (i = 0; i < 4; i++) CHECK_MSG(before[i] == after[i], "draw %d: %g before, %g after", i, before[i], after[i]);
    CHECK_MSG(rate >= BUDGET_RATE_RANDN, "calibrated rate %g", rate);
    CHECK_CLOSE(s, 2 + 5e8 / rate, 1e-6);
    setenv("ATTN_MAX_SECONDS", "0", 1); /* no limit: the same rate, measured once */
    CHECK_CLOSE(budget_seconds(&e), s, 1e-9);
    unsetenv("ATTN_MAX_SECONDS");
}

/* A sampler that spends n * n * 1e-7 s (1e9 counted operations a second) and
 * disturbs what it may: it allocates, draws and (once) turns the narration on. */
static int sample_calls = 0;
static double sample_first = 0, sample_last = 0;
static bool sample_saw_quiet = true;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double spinning_sample(const void *ctx, double n)
{
    double t0 = now_s();
    CHECK(ctx == &sample_calls);
    if (sample_calls++ == 0) sample_first = n;
    sample_last = n;
    sample_saw_quiet = sample_saw_quiet && narrate_quiet();
    if (sample_calls == 1) narrate_set_quiet(false); /* the next call must be quiet again */
    (void)t_zeros(SHAPE(4 * 1024 * 1024)); /* 16 MiB: past the peak so far */
    (void)t_randn(SHAPE(20));
    while (now_s() - t0 < n * n * 1e-7) {
    }
    return n * n * 100;
}

/* The operations at the fixed rate while they fit; past the limit at half the rate
 * of the chapter's sampler (n = 64, 128, ... up to half the run's n), once per run,
 * leaving the generator, the narration and the peak as they were. */
static void test_flops_calibrated_by_the_sampler(void)
{
    BudgetEstimate e = {.flops = 1e9, .sample = spinning_sample, .sample_ctx = &sample_calls, .sample_n = 1000};
    float before[4], after[4];
    size_t peak, live;
    double s;
    int i;
    unsetenv("ATTN_MAX_SECONDS");
    CHECK_CLOSE(budget_seconds(&e), 10.0, 1e-9); /* within 60 s: not timed */
    CHECK(sample_calls == 0 && budget_tensor_rate() == BUDGET_RATE_TENSOR);
    t_manual_seed(7);
    for (i = 0; i < 4; i++) before[i] = t_data(t_randn(SHAPE(20)))[i];
    t_manual_seed(7);
    narrate_set_quiet(false);
    peak = t_peak_bytes();
    live = t_live_bytes();
    e.flops = 1e11; /* 1000 s at the fixed rate */
    s = budget_seconds(&e);
    CHECK_MSG(sample_calls == 3 && sample_first == 64 && sample_last == 256, "%d calls, n from %g to %g",
              sample_calls, sample_first, sample_last);
    CHECK(sample_saw_quiet);
    CHECK(!narrate_quiet());
    CHECK_MSG(t_peak_bytes() == peak && t_live_bytes() == live, "peak %zu -> %zu, live %zu -> %zu", peak,
              t_peak_bytes(), live, t_live_bytes());
    for (i = 0; i < 4; i++) after[i] = t_data(t_randn(SHAPE(20)))[i];
    for (i = 0; i < 4; i++) CHECK_MSG(before[i] == after[i], "draw %d: %g before, %g after", i, before[i], after[i]);
    CHECK_MSG(budget_tensor_rate() > 2e8 && budget_tensor_rate() <= 5e8 * 1.01, "rate %g (half of 1e9 wanted)",
              budget_tensor_rate());
    CHECK_CLOSE(s, 1e11 / budget_tensor_rate(), 1e-6);
    CHECK(budget_seconds(&e) == s && sample_calls == 3); /* once per run */
}

static void test_run_budget_caps_what_is_held(void)
{
    t_set_run_budget(1000);
    t_scope_begin();
    (void)t_alloc(600);
    CHECK_ERROR(t_alloc(600), "would pass the memory budget of 1000 bytes");
    t_scope_end();
    t_set_run_budget(0);
    CHECK(t_peak_bytes() >= 600);
}

static void test_escape(void)
{
    char out[64];
    t_escape(out, sizeof out, "a\nb\x1b[31m\t\r\x7f");
    CHECK_MSG(strcmp(out, "a\\nb\\x1b[31m\\t\\r\\x7f") == 0, "escaped: %s", out);
    t_escape(out, 6, "abcdefgh");
    CHECK_MSG(strcmp(out, "abcde") == 0, "escaped: %s", out);
    t_escape(out, 3, "a\nb"); /* an escape that does not fit is left out whole */
    CHECK_MSG(strcmp(out, "a") == 0, "escaped: %s", out);
    CHECK_ERROR(t_error("file %s", "x\ny"), "file x\\ny");
}

static void test_peek_shape(void)
{
    Shape s;
    npy_save(in_dir("p.npy"), t_zeros(SHAPE(2, 3, 4)));
    CHECK(npy_peek_shape(in_dir("p.npy"), &s));
    CHECK_EQ_INT(s.ndim, 3);
    CHECK_EQ_INT(s.dims[2], 4);
    CHECK(!npy_peek_shape(in_dir("none.npy"), &s));
    CHECK(!npy_peek_shape("/dev/zero", &s));
}

static void test_optional_parameters_that_exist_must_load(void)
{
    char wdir[1024];
    snprintf(wdir, sizeof wdir, "%s/w", dir);
    npy_make_dir(wdir);
    CHECK(state_load_optional(wdir, "bq") == NULL); /* absent: no bias */
    npy_make_dir(in_dir("w/bq.npy"));
    CHECK_ERROR(state_load_optional(wdir, "bq"), "bq.npy: is a directory");
    rmdir(in_dir("w/bq.npy"));
    CHECK(symlink("nowhere", in_dir("w/bk.npy")) == 0);
    CHECK_ERROR(state_load_optional(wdir, "bk"), "symbolic link to a file that does not exist");
    unlink(in_dir("w/bk.npy"));
    CHECK_ERROR(state_load(wdir, "wq"), "has no wq.npy");
    CHECK_ERROR(state_load(in_dir("nowhere"), "wq"), "has no wq.npy: the folder does not exist");
    npy_save(in_dir("file"), t_zeros(SHAPE(1)));
    CHECK_ERROR(state_load(in_dir("file"), "wq"), "is not a directory");
}

static void test_outputs_outside_a_run(void)
{
    /* no run: the file is in place as soon as it is closed, nothing pending */
    npy_save(in_dir("now.npy"), t_ones(SHAPE(2)));
    CHECK_EQ_INT(out_pending(), 0);
    CHECK(npy_exists(in_dir("now.npy")));
    CHECK_ERROR(npy_save(in_dir("now.npy/x.npy"), t_ones(SHAPE(2))), "Not a directory");
    CHECK_ERROR(npy_save("/dev/full", t_ones(SHAPE(2))), "cannot write '/dev/full': No space left on device");
    CHECK_EQ_INT(out_pending(), 0);
}

int main(void)
{
    const char *build = getenv("BUILD");
    int rc;
    snprintf(dir, sizeof dir, "%s/tmp_budget_test.%ld", build && *build ? build : "build", (long)getpid());
    npy_make_dir(dir);
    RUN(test_parse_bytes);
    RUN(test_parse_seconds);
    RUN(test_default_budget_is_half_of_memory);
    RUN(test_refuse_over_budget);
    RUN(test_draws_calibrated_only_past_the_limit);
    RUN(test_flops_calibrated_by_the_sampler);
    RUN(test_run_budget_caps_what_is_held);
    RUN(test_escape);
    RUN(test_peek_shape);
    RUN(test_optional_parameters_that_exist_must_load);
    RUN(test_outputs_outside_a_run);
    rc = harness_finish("test_common_budget");
    {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) rc = 1;
    }
    return rc;
}
