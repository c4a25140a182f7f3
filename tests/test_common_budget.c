/* test_common_budget.c — budgets, escaped messages, outputs and optional
 * parameters (common/budget.c, common/error.c, common/out.c, common/state.c).
 * The programs' side (refusals, signals, devices) is tests/test_hostile.sh. */
#define _POSIX_C_SOURCE 200809L

#include "harness.h"
#include "common/platform.h"
#include "common/program/program.h"

#include <stdlib.h>
#include <time.h>
#ifndef _WIN32 /* symlink: RUN_POSIX */
#include <unistd.h>
#endif

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

static void test_default_budget_is_half_of_memory(void)
{
    size_t b = t_default_max_bytes();
    double total = p_physical_bytes();
    CHECK(b > 0);
    CHECK(total > 0); /* every system we build on says how much memory it has */
    CHECK((double)b <= total / 2 + 1);
}

static void test_refuse_over_budget(void)
{
    size_t old = t_max_bytes();
    t_set_max_bytes((size_t)1 << 30);
    CHECK_ERROR(budget_refuse_if_over(3.0 * (1 << 30), 1e6, "the test buffers", "--seq-len"),
                "this run needs about 3.0 GiB of memory (the test buffers), more than the budget of 1.0 GiB");
    CHECK_STR_CONTAINS(t_last_error(), "lower --seq-len");
    /* one buffer alone past the limit: left to the chapter's own check */
    budget_refuse_if_over(3.0 * (1 << 30), 2.0 * (1 << 30), "x", "--seq-len");
    /* a long run is never refused: any number of operations fits */
    BudgetEstimate e = {.bytes = 1e6, .largest = 1e6, .flops = 1e15, .what = "the test work", .flag = "--seq-len"};
    budget_refuse(&e, true);
    CHECK(budget_long_run());
    t_set_run_budget(0);
    t_set_max_bytes(old);
}

/* The notice's seconds are the operations at its stated rate: nothing is timed. */
static void test_notice_seconds_at_a_fixed_rate(void)
{
    CHECK_CLOSE(budget_notice_seconds(2e10, 0), 2e10 / BUDGET_NOTICE_RATE, 1e-12);
    CHECK_CLOSE(budget_notice_seconds(2e10, 4e9), 5.0, 1e-12);
    CHECK(BUDGET_NOTICE_RATE == 1e9 && BUDGET_NOTICE_SECONDS == 10.0); /* what README and --help say */
}

/* The matmuls count their operations (the progress line's work done). */
static void test_matmul_counts_its_work(void)
{
    double before = t_work_done();
    t_scope_begin();
    (void)t_matmul(t_ones(SHAPE(2, 3, 4)), t_ones(SHAPE(4, 5)));
    t_scope_end();
    CHECK_CLOSE(t_work_done() - before, 2.0 * 2 * 3 * 4 * 5, 1e-9);
}

static void test_run_budget_caps_what_is_held(void)
{
    t_set_run_budget(1000);
    t_scope_begin();
    (void)t_alloc(600);
    CHECK_ERROR(t_alloc(600), "would bring it to 1.2 KiB, past the memory budget of 1000 bytes");
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
    p_rmdir(in_dir("w/bq.npy"));
    CHECK_ERROR(state_load(wdir, "wq"), "has no wq.npy");
    CHECK_ERROR(state_load(in_dir("nowhere"), "wq"), "has no wq.npy: the folder does not exist");
    npy_save(in_dir("file"), t_zeros(SHAPE(1)));
    CHECK_ERROR(state_load(in_dir("file"), "wq"), "is not a directory");
}

#ifndef _WIN32
static void test_dangling_symlink_is_named(void)
{
    char wdir[1024];
    snprintf(wdir, sizeof wdir, "%s/w", dir);
    npy_make_dir(wdir);
    CHECK(symlink("nowhere", in_dir("w/bk.npy")) == 0);
    CHECK_ERROR(state_load_optional(wdir, "bk"), "symbolic link to a file that does not exist");
    p_unlink(in_dir("w/bk.npy"));
}
#endif

static void test_outputs_outside_a_run(void)
{
    /* no run: the file is in place as soon as it is closed, nothing pending */
    npy_save(in_dir("now.npy"), t_ones(SHAPE(2)));
    CHECK_EQ_INT(out_pending(), 0);
    CHECK(npy_exists(in_dir("now.npy")));
#ifndef _WIN32 /* Windows says the folder does not exist */
    CHECK_ERROR(npy_save(in_dir("now.npy/x.npy"), t_ones(SHAPE(2))), "Not a directory");
#endif
    CHECK_EQ_INT(out_pending(), 0);
}

#ifndef _WIN32
static void test_a_full_device_is_an_error(void)
{
    CHECK_ERROR(npy_save("/dev/full", t_ones(SHAPE(2))), "cannot write '/dev/full': No space left on device");
    CHECK_EQ_INT(out_pending(), 0);
}
#endif

int main(void)
{
    const char *build = getenv("BUILD");
    int rc;
    snprintf(dir, sizeof dir, "%s/tmp_budget_test.%ld", build && *build ? build : "build", (long)time(NULL));
    npy_make_dir(dir);
    RUN(test_parse_bytes);
    RUN(test_default_budget_is_half_of_memory);
    RUN(test_refuse_over_budget);
    RUN(test_notice_seconds_at_a_fixed_rate);
    RUN(test_matmul_counts_its_work);
    RUN(test_run_budget_caps_what_is_held);
    RUN(test_escape);
    RUN(test_peek_shape);
    RUN(test_optional_parameters_that_exist_must_load);
    RUN_POSIX(test_dangling_symlink_is_named);
    RUN(test_outputs_outside_a_run);
    RUN_POSIX(test_a_full_device_is_an_error);
    rc = harness_finish("test_common_budget");
    {
        char cmd[1200];
#ifdef _WIN32
        char *c;
        snprintf(cmd, sizeof cmd, "rmdir /s /q \"%s\"", dir);
        for (c = cmd; *c; c++)
            if (*c == '/' && c > cmd + 10) *c = '\\'; /* cmd.exe reads '/' as a switch */
#else
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
#endif
        if (system(cmd) != 0) rc = 1;
    }
    return rc;
}
