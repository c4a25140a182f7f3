/* test_common_cli.c — the flag parser: every accepted form, every error
 * sentence, and the --help text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "common/program/program.h"

/* ---- fixtures ------------------------------------------------------------ */

static Args A;           /* result of the last parse */
static char ERR[256];    /* its error sentence       */

/* A program with every flag. */
static CliSpec full_spec(void)
{
    CliSpec s;
    memset(&s, 0, sizeof s);
    s.program = "testprog";
    s.summary = "Every flag at once.";
    s.flags = CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_D_K |
              CLI_HEADS | CLI_DROPOUT | CLI_EVAL | CLI_CAUSAL | CLI_BIAS | CLI_QUIET |
              CLI_DUMP | CLI_HEATMAP | CLI_QKV | CLI_INPUT | CLI_OUTPUT | CLI_IMPL;
    s.defaults.seed = 123;
    s.defaults.batch = 2;
    s.defaults.seq_len = 6;
    s.defaults.d_in = 3;
    s.defaults.d_out = 4;
    s.defaults.d_k = 5;
    s.defaults.heads = 2;
    s.defaults.dropout = 0.1;
    s.defaults.causal = true;
    s.defaults.impl = "flash";
    return s;
}

/* Like chapter 1: Q, K, V files in, no heads, no dropout, no weights. */
static CliSpec ch1_spec(void)
{
    CliSpec s;
    memset(&s, 0, sizeof s);
    s.program = "chapter1";
    s.summary = "scores = Q K^T, softmax, weighted sum of V.";
    s.flags = CLI_SEED | CLI_SEQ_LEN | CLI_D_K | CLI_QUIET | CLI_DUMP | CLI_HEATMAP |
              CLI_QKV | CLI_OUTPUT;
    s.defaults.seed = 123;
    s.defaults.seq_len = 6;
    s.defaults.d_k = 4;
    return s;
}

/* Parse "prog words...": the word list ends with NULL. */
static int parse_list(const CliSpec *spec, const char *const *words)
{
    int argc = 0;
    while (words[argc]) argc++;
    memset(&A, 0xAB, sizeof A);
    memset(ERR, 'X', sizeof ERR);
    return cli_parse_args(spec, argc, (char **)words, &A, ERR, sizeof ERR);
}

#define PARSE(spec, ...) parse_list((spec), (const char *const[]){"prog", __VA_ARGS__, NULL})
#define PARSE0(spec) parse_list((spec), (const char *const[]){"prog", NULL})

/* The parse must fail with exit code 2 and a sentence containing `want`. */
#define CHECK_USAGE(want, ...)                                            \
    do {                                                                  \
        CliSpec s_ = full_spec();                                         \
        int rc_ = PARSE(&s_, __VA_ARGS__);                                \
        CHECK_EQ_INT(rc_, 2);                                             \
        CHECK_STR_CONTAINS(ERR, (want));                                  \
    } while (0)

#define CHECK_OK(...)                                                     \
    do {                                                                  \
        CliSpec s_ = full_spec();                                         \
        int rc_ = PARSE(&s_, __VA_ARGS__);                                \
        CHECK_MSG(rc_ == 0, "parse returned %d: %s", rc_, ERR);           \
    } while (0)

/* ---- accepted forms ------------------------------------------------------ */

static void test_no_args_gives_defaults(void)
{
    CliSpec s = full_spec();
    CHECK_EQ_INT(PARSE0(&s), 0);
    CHECK_EQ_INT(A.seed, 123);
    CHECK_EQ_INT(A.batch, 2);
    CHECK_EQ_INT(A.seq_len, 6);
    CHECK_EQ_INT(A.d_in, 3);
    CHECK_EQ_INT(A.d_out, 4);
    CHECK_EQ_INT(A.d_k, 5);
    CHECK_EQ_INT(A.heads, 2);
    CHECK_CLOSE(A.dropout, 0.1, 0);
    CHECK(!A.eval && A.causal && !A.bias && !A.quiet && !A.heatmap && !A.ascii);
    CHECK(A.dump == NULL && A.q == NULL && A.k == NULL && A.v == NULL);
    CHECK(A.input == NULL && A.weights == NULL && A.output == NULL);
    CHECK(A.impl != NULL && strcmp(A.impl, "flash") == 0);
    CHECK_EQ_INT(A.given, 0);
    CHECK_EQ_INT(ERR[0], '\0');
}

static void test_separate_value_form(void)
{
    CHECK_OK("--seq-len", "8");
    CHECK_EQ_INT(A.seq_len, 8);
    CHECK_EQ_INT(A.given, CLI_SEQ_LEN);
    CHECK_EQ_INT(A.batch, 2);   /* the others keep their defaults */
    CHECK_EQ_INT(A.heads, 2);
}

static void test_equals_value_form(void)
{
    CHECK_OK("--seq-len=9", "--heads=4", "--dump=out/dir");
    CHECK_EQ_INT(A.seq_len, 9);
    CHECK_EQ_INT(A.heads, 4);
    CHECK(A.dump && strcmp(A.dump, "out/dir") == 0);
    CHECK_EQ_INT(A.given, CLI_SEQ_LEN | CLI_HEADS | CLI_DUMP);
}

static void test_every_size_flag_and_given_bits(void)
{
    CHECK_OK("--batch", "3", "--seq-len", "4", "--d-in", "5", "--d-out", "6",
             "--d-k", "7", "--heads", "8");
    CHECK_EQ_INT(A.batch, 3);
    CHECK_EQ_INT(A.seq_len, 4);
    CHECK_EQ_INT(A.d_in, 5);
    CHECK_EQ_INT(A.d_out, 6);
    CHECK_EQ_INT(A.d_k, 7);
    CHECK_EQ_INT(A.heads, 8);
    CHECK_EQ_INT(A.given, CLI_BATCH | CLI_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_D_K | CLI_HEADS);
}

static void test_size_bounds(void)
{
    CHECK_OK("--heads", "1");
    CHECK_EQ_INT(A.heads, 1);
    CHECK_OK("--seq-len", "1000000");
    CHECK_EQ_INT(A.seq_len, CLI_MAX_SIZE);
    CHECK_OK("--d-out", "007");   /* leading zeros are still decimal */
    CHECK_EQ_INT(A.d_out, 7);
    CHECK_USAGE("--heads 0: must be an integer from 1 to 1000000", "--heads", "0");
    CHECK_USAGE("--seq-len 1000001: must be an integer from 1 to 1000000",
                "--seq-len", "1000001");
    CHECK_USAGE("--batch -3: must be an integer from 1 to 1000000", "--batch", "-3");
}

static void test_size_rejects_text_and_oddities(void)
{
    CHECK_USAGE("--seq-len abc: must be an integer from 1 to 1000000", "--seq-len", "abc");
    CHECK_USAGE("--d-in 12x: must be an integer", "--d-in", "12x");
    CHECK_USAGE("--d-k +5: must be an integer", "--d-k", "+5");
    CHECK_USAGE("--heads  5: must be an integer", "--heads", " 5");
    CHECK_USAGE("--heads 5 : must be an integer", "--heads", "5 ");
    CHECK_USAGE("--batch 0x10: must be an integer", "--batch", "0x10");
    CHECK_USAGE("--batch 2.0: must be an integer", "--batch", "2.0");
    CHECK_USAGE("--batch 1e3: must be an integer", "--batch", "1e3");
    CHECK_USAGE("--seq-len '': must be an integer", "--seq-len=");
    CHECK_USAGE("--seq-len 99999999999999999999999: must be an integer",
                "--seq-len", "99999999999999999999999");
}

static void test_seed_full_u64_range(void)
{
    CHECK_OK("--seed", "0");
    CHECK_EQ_INT(A.seed, 0);
    CHECK_EQ_INT(A.given, CLI_SEED);
    CHECK_OK("--seed=18446744073709551615");
    CHECK(A.seed == UINT64_MAX);
    CHECK_OK("--seed", "42");
    CHECK(A.seed == 42);
    CHECK_USAGE("--seed 18446744073709551616: must be an integer from 0 to "
                "18446744073709551615", "--seed", "18446744073709551616");
    CHECK_USAGE("--seed -1: must be an integer from 0", "--seed", "-1");
    CHECK_USAGE("--seed +1: must be an integer from 0", "--seed", "+1");
    CHECK_USAGE("--seed 1.5: must be an integer from 0", "--seed", "1.5");
}

static void test_dropout_accepts_zero_one_and_reals(void)
{
    CHECK_OK("--dropout", "0");
    CHECK_CLOSE(A.dropout, 0.0, 0);
    CHECK_EQ_INT(A.given, CLI_DROPOUT);
    CHECK_OK("--dropout", "1");
    CHECK_CLOSE(A.dropout, 1.0, 0);
    CHECK_OK("--dropout=0.25");
    CHECK_CLOSE(A.dropout, 0.25, 0);
    CHECK_OK("--dropout", ".5");
    CHECK_CLOSE(A.dropout, 0.5, 0);
    CHECK_OK("--dropout", "1.");
    CHECK_CLOSE(A.dropout, 1.0, 0);
    CHECK_OK("--dropout", "1e-1");
    CHECK_CLOSE(A.dropout, 0.1, 1e-15);
    CHECK_OK("--dropout", "1.0E+0");
    CHECK_CLOSE(A.dropout, 1.0, 0);
    CHECK_OK("--dropout", "1e-400");   /* underflows to 0: still in range */
    CHECK(A.dropout >= 0.0 && A.dropout < 1e-300);
}

static void test_dropout_rejects_out_of_range_and_junk(void)
{
    CHECK_USAGE("--dropout 1.5: must be a number from 0 to 1", "--dropout", "1.5");
    CHECK_USAGE("--dropout -0.1: must be a number from 0 to 1", "--dropout", "-0.1");
    CHECK_USAGE("--dropout nan: must be a number from 0 to 1", "--dropout", "nan");
    CHECK_USAGE("--dropout inf: must be a number", "--dropout", "inf");
    CHECK_USAGE("--dropout NaN: must be a number", "--dropout=NaN");
    CHECK_USAGE("--dropout 0.5x: must be a number", "--dropout", "0.5x");
    CHECK_USAGE("--dropout  0.5: must be a number", "--dropout", " 0.5");
    CHECK_USAGE("--dropout +0.5: must be a number", "--dropout", "+0.5");
    CHECK_USAGE("--dropout 1e999: must be a number", "--dropout", "1e999");
    CHECK_USAGE("--dropout 0x0.8p0: must be a number", "--dropout", "0x0.8p0");
    CHECK_USAGE("--dropout .: must be a number", "--dropout", ".");
    CHECK_USAGE("--dropout 1e: must be a number", "--dropout", "1e");
    CHECK_USAGE("--dropout '': must be a number", "--dropout=");
}

static void test_boolean_flags_and_given_bits(void)
{
    CHECK_OK("--eval", "--bias", "--quiet", "--heatmap");
    CHECK(A.eval && A.bias && A.quiet && A.heatmap && !A.ascii);
    CHECK_EQ_INT(A.given, CLI_EVAL | CLI_BIAS | CLI_QUIET | CLI_HEATMAP);
}

static void test_boolean_flag_with_value_is_usage_error(void)
{
    CHECK_USAGE("flag '--eval' takes no value", "--eval=1");
    CHECK_USAGE("flag '--causal' takes no value", "--causal=false");
    CHECK_USAGE("flag '--help' takes no value", "--help=");
}

static void test_causal_last_one_wins(void)
{
    CHECK_OK("--no-causal");
    CHECK(!A.causal);
    CHECK_EQ_INT(A.given, CLI_CAUSAL);
    CHECK_OK("--no-causal", "--causal");
    CHECK(A.causal);
    CHECK_OK("--causal", "--no-causal");
    CHECK(!A.causal);
    CHECK_EQ_INT(A.given, CLI_CAUSAL);
    {
        CliSpec s = full_spec();
        s.defaults.causal = false;
        CHECK_EQ_INT(PARSE(&s, "--causal"), 0);
        CHECK(A.causal);
    }
}

static void test_ascii_implies_heatmap(void)
{
    CHECK_OK("--ascii");
    CHECK(A.ascii && A.heatmap);
    CHECK_EQ_INT(A.given, CLI_HEATMAP);
    CHECK_OK("--heatmap", "--ascii");
    CHECK(A.ascii && A.heatmap);
}

static void test_file_flags_are_stored(void)
{
    CHECK_OK("--q", "q.npy", "--k=k.npy", "--v", "v.npy", "--output", "o.npy");
    CHECK(A.q && strcmp(A.q, "q.npy") == 0);
    CHECK(A.k && strcmp(A.k, "k.npy") == 0);
    CHECK(A.v && strcmp(A.v, "v.npy") == 0);
    CHECK(A.output && strcmp(A.output, "o.npy") == 0);
    CHECK_EQ_INT(A.given, CLI_QKV | CLI_OUTPUT);
    CHECK_OK("--input", "x.npy", "--weights", "w");
    CHECK(A.input && strcmp(A.input, "x.npy") == 0);
    CHECK(A.weights && strcmp(A.weights, "w") == 0);
    CHECK_EQ_INT(A.given, CLI_INPUT);
    /* '=' inside a value and a value that starts with one dash are kept */
    CHECK_OK("--dump", "-odd", "--output=a=b.npy");
    CHECK(A.dump && strcmp(A.dump, "-odd") == 0);
    CHECK(A.output && strcmp(A.output, "a=b.npy") == 0);
}

static void test_impl_names(void)
{
    static const char *const names[] = {"naive", "reordered", "tiled", "online", "flash"};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        CHECK_OK("--impl", names[i]);
        CHECK(A.impl && strcmp(A.impl, names[i]) == 0);
        CHECK_EQ_INT(A.given, CLI_IMPL);
    }
    CHECK_USAGE("--impl fast: must be one of naive, reordered, tiled, online, flash",
                "--impl", "fast");
    CHECK_USAGE("--impl Flash: must be one of", "--impl=Flash");
    CHECK_USAGE("--impl flash2: must be one of", "--impl", "flash2");
}

static void test_repeated_flag_last_wins(void)
{
    CHECK_OK("--heads", "2", "--heads", "4", "--seed=1", "--seed", "9");
    CHECK_EQ_INT(A.heads, 4);
    CHECK(A.seed == 9);
}

static void test_help_returns_1(void)
{
    CliSpec s = full_spec();
    CHECK_EQ_INT(PARSE(&s, "--help"), 1);
    CHECK_EQ_INT(PARSE(&s, "-h"), 1);
    CHECK_EQ_INT(PARSE(&s, "--seq-len", "4", "--help"), 1);
    /* --help wins over a usage error anywhere on the line */
    CHECK_EQ_INT(PARSE(&s, "--hedas", "4", "--help"), 1);
    CHECK_EQ_INT(PARSE(&s, "--help", "--seq-len", "0"), 1);
    /* and applies to every program */
    s.flags = 0;
    CHECK_EQ_INT(PARSE(&s, "--help"), 1);
}

/* ---- error sentences ----------------------------------------------------- */

static void test_unknown_flag(void)
{
    CHECK_USAGE("unknown flag '--foo'", "--foo");
    CHECK_USAGE("unknown flag '--foo'", "--foo=bar");
    CHECK_USAGE("unknown flag '--seqlen'", "--seqlen", "4");
    CHECK_USAGE("unknown flag '-x'", "-x");
    CHECK_USAGE("unknown flag '---seed'", "---seed", "1");
    CHECK_USAGE("unknown flag '--'", "--=3");
    /* the flag name is reported without its value */
    {
        CliSpec s = full_spec();
        CHECK_EQ_INT(PARSE(&s, "--foo=secret"), 2);
        CHECK(strstr(ERR, "secret") == NULL);
    }
}

static void test_single_dash_long_flag_gets_hint(void)
{
    CHECK_USAGE("unknown flag '-seed' (did you mean '--seed'?)", "-seed", "4");
    CHECK_USAGE("unknown flag '-heads' (did you mean '--heads'?)", "-heads=4");
}

static void test_flag_that_does_not_apply(void)
{
    CliSpec s = ch1_spec();
    CHECK_EQ_INT(PARSE(&s, "--heads", "4"), 2);
    CHECK_STR_CONTAINS(ERR, "flag '--heads' does not apply to chapter1");
    CHECK_EQ_INT(PARSE(&s, "--no-causal"), 2);
    CHECK_STR_CONTAINS(ERR, "flag '--no-causal' does not apply to chapter1");
    CHECK_EQ_INT(PARSE(&s, "--impl=flash"), 2);
    CHECK_STR_CONTAINS(ERR, "flag '--impl' does not apply to chapter1");
    /* its value is consumed, so the next word is not a positional */
    CHECK_EQ_INT(PARSE(&s, "--dropout", "0.5"), 2);
    CHECK_STR_CONTAINS(ERR, "flag '--dropout' does not apply to chapter1");
    /* flags that do apply still work */
    CHECK_EQ_INT(PARSE(&s, "--seq-len", "3", "--d-k", "2"), 0);
    CHECK_EQ_INT(A.seq_len, 3);
    CHECK_EQ_INT(A.d_k, 2);
}

static void test_missing_value_at_end(void)
{
    CHECK_USAGE("flag '--seq-len' needs a value", "--seq-len");
    CHECK_USAGE("flag '--dump' needs a value", "--quiet", "--dump");
    CHECK_USAGE("flag '--impl' needs a value", "--impl");
}

static void test_missing_value_before_next_flag(void)
{
    CHECK_USAGE("flag '--seq-len' needs a value", "--seq-len", "--heads", "4");
    CHECK_USAGE("flag '--output' needs a value", "--output", "--quiet");
}

static void test_never_reads_past_argc(void)
{
    /* exactly argc words, no NULL after them: ASan catches a read past */
    char **argv = malloc(2 * sizeof *argv);
    char prog[] = "prog", flag[] = "--seq-len";
    CliSpec s = full_spec();
    int rc;
    CHECK(argv != NULL);
    if (!argv) return;
    argv[0] = prog;
    argv[1] = flag;
    rc = cli_parse_args(&s, 2, argv, &A, ERR, sizeof ERR);
    CHECK_EQ_INT(rc, 2);
    CHECK_STR_CONTAINS(ERR, "flag '--seq-len' needs a value");
    /* argc says less than the array holds: the rest is not looked at */
    argv[1] = flag;
    rc = cli_parse_args(&s, 1, argv, &A, ERR, sizeof ERR);
    CHECK_EQ_INT(rc, 0);
    rc = cli_parse_args(&s, 0, argv, &A, ERR, sizeof ERR);
    CHECK_EQ_INT(rc, 0);
    free(argv);
}

static void test_positional_arguments(void)
{
    CHECK_USAGE("unexpected argument 'foo'", "foo");
    CHECK_USAGE("unexpected argument '6'", "--heads", "2", "6");
    CHECK_USAGE("unexpected argument '-'", "-");
    CHECK_USAGE("unexpected argument ''", "");
    /* "--" ends the flags; nothing may follow it */
    CHECK_USAGE("unexpected argument '--quiet'", "--", "--quiet");
    CHECK_OK("--quiet", "--");
    CHECK(A.quiet);
}

static void test_empty_file_names(void)
{
    CHECK_USAGE("flag '--q' needs a non-empty file name", "--q=", "--k", "k", "--v", "v");
    CHECK_USAGE("flag '--output' needs a non-empty file name", "--output", "");
    CHECK_USAGE("flag '--dump' needs a non-empty directory name", "--dump=");
    CHECK_USAGE("flag '--weights' needs a non-empty directory name",
                "--input", "x.npy", "--weights", "");
}

static void test_qkv_go_together(void)
{
    CHECK_USAGE("--q, --k and --v go together: missing --v", "--q", "q", "--k", "k");
    CHECK_USAGE("--q, --k and --v go together: missing --k and --v", "--q", "q");
    CHECK_USAGE("--q, --k and --v go together: missing --q", "--output", "o", "--v=v",
                "--k=k");
    CHECK(strstr(ERR, "missing --q and") == NULL);
    CHECK_USAGE("--q, --k and --v go together: missing --q and --v", "--k", "k");
}

static void test_input_and_weights_go_together(void)
{
    CHECK_USAGE("--input and --weights go together: missing --weights", "--input", "x.npy");
    CHECK_USAGE("--input and --weights go together: missing --input", "--weights", "w");
}

static void test_first_error_is_reported(void)
{
    CHECK_USAGE("--heads 0", "--heads", "0", "--bogus", "--seq-len", "x");
    CHECK(strstr(ERR, "bogus") == NULL);
    CHECK_USAGE("unknown flag '--bogus'", "--bogus", "--heads", "0");
}

static void test_error_sentence_is_one_safe_line(void)
{
    char val[200];
    CHECK_USAGE("--impl a\\x0ab\\x1b[31m: must be one of", "--impl", "a\nb\x1b[31m");
    CHECK(strchr(ERR, '\n') == NULL && strchr(ERR, '\x1b') == NULL);
    memset(val, 'z', sizeof val - 1);
    val[sizeof val - 1] = '\0';
    CHECK_USAGE("...: must be one of", "--impl", val);
    CHECK(strlen(ERR) < 120);
    memset(val, '-', 2);
    CHECK_USAGE("...'", val);   /* a very long unknown flag is cut too */
    CHECK(strlen(ERR) < 120);
}

static void test_small_or_missing_error_buffer(void)
{
    CliSpec s = full_spec();
    const char *words[] = {"prog", "--heads", "0", NULL};
    char small[8];
    memset(small, 'X', sizeof small);
    CHECK_EQ_INT(cli_parse_args(&s, 3, (char **)words, &A, small, sizeof small), 2);
    CHECK_EQ_INT(small[sizeof small - 1], '\0');
    CHECK(strncmp(small, "--heads", 7) == 0);
    CHECK_EQ_INT(cli_parse_args(&s, 3, (char **)words, &A, NULL, 0), 2);
    CHECK_EQ_INT(cli_parse_args(&s, 3, (char **)words, NULL, small, 0), 2);
}

static void test_cli_parse_returns_args_on_success(void)
{
    CliSpec s = ch1_spec();
    const char *words[] = {"chapter1", "--seq-len", "3", "--quiet", NULL};
    Args a = cli_parse(&s, 4, (char **)words);
    CHECK_EQ_INT(a.seq_len, 3);
    CHECK(a.quiet);
    CHECK_EQ_INT(a.d_k, 4);
    CHECK_EQ_INT(a.given, CLI_SEQ_LEN | CLI_QUIET);
}

/* ---- --help text --------------------------------------------------------- */

static char *usage_text(const CliSpec *spec)
{
    static char buf[8192];
    size_t n;
    FILE *f = tmpfile();
    buf[0] = '\0';
    if (!f) {
        harness_fail(__FILE__, __LINE__, "tmpfile() failed");
        return buf;
    }
    cli_usage(spec, f);
    rewind(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_usage_lists_applicable_flags_only(void)
{
    CliSpec s = ch1_spec();
    const char *u = usage_text(&s);
    static const char *const yes[] = {
        "usage: chapter1 [flags]\n", "scores = Q K^T",
        "  --seed N         ", "(default 123)",
        "  --seq-len T      sequence length (default 6)\n",
        "  --d-k D          ", "(default 4)",
        "--quiet", "--dump DIR", "--heatmap", "--ascii",
        "--q FILE", "--k FILE", "--v FILE", "--output FILE", "--help, -h",
        "exit status: 0 ok; 2 when the flags cannot work together",
        "1 when a file's content or the system fails during the run."};
    static const char *const no[] = {
        "--batch", "--d-in", "--d-out", "--heads", "--dropout", "--eval", "--causal",
        "--bias", "--input", "--weights", "--impl"};
    size_t i;
    for (i = 0; i < sizeof yes / sizeof yes[0]; i++) CHECK_STR_CONTAINS(u, yes[i]);
    for (i = 0; i < sizeof no / sizeof no[0]; i++)
        CHECK_MSG(strstr(u, no[i]) == NULL, "usage mentions %s:\n%s", no[i], u);
}

static void test_usage_shows_every_flag_and_its_default(void)
{
    CliSpec s = full_spec();
    const char *u = usage_text(&s);
    static const char *const yes[] = {
        "usage: testprog [flags]\n", "Every flag at once.\n",
        "--seed N", "--batch B", "(default 2)", "--seq-len T", "--d-in D", "--d-out D",
        "--d-k D", "--heads H", "--dropout P", "(default 0.1)", "--eval", "--causal",
        "--no-causal", "--bias", "--quiet", "--dump DIR", "--heatmap", "--ascii",
        "--q FILE", "--k FILE", "--v FILE", "--input FILE", "--weights DIR",
        "--output FILE", "--impl NAME", "(default flash)", "--help, -h"};
    size_t i;
    for (i = 0; i < sizeof yes / sizeof yes[0]; i++) CHECK_STR_CONTAINS(u, yes[i]);
    /* every line fits a terminal */
    {
        const char *line = u;
        while (*line) {
            const char *nl = strchr(line, '\n');
            size_t len = nl ? (size_t)(nl - line) : strlen(line);
            CHECK_MSG(len <= 79, "usage line too long: %.*s", (int)len, line);
            line += len + (nl ? 1 : 0);
        }
    }
}


/* ---- a chapter's own flags (CliSpec.extra) -------------------------------- */

static int64_t X_STEPS;
static double X_LR;
static bool X_TRAIN;
static const char *X_FILE, *X_MODE;

static const CliExtra EXTRA[] = {
    {"--steps", "N", CLI_EXTRA_INT, &X_STEPS, "training steps", 1, 1000, false, NULL},
    {"--lr", "X", CLI_EXTRA_REAL, &X_LR, "learning rate", 0, 1e308, true, NULL},
    {"--train", NULL, CLI_EXTRA_FLAG, &X_TRAIN, "train", 0, 0, false, NULL},
    {"--grad-output", "FILE", CLI_EXTRA_TEXT, &X_FILE, "dloss/dy", 0, 0, false, NULL},
    {"--parallel", "MODE", CLI_EXTRA_CHOICE, &X_MODE, "heads or sequence", 0, 0, false, "heads|sequence"},
    {NULL, NULL, CLI_EXTRA_FLAG, NULL, NULL, 0, 0, false, NULL}};

static CliSpec extra_spec(void)
{
    CliSpec s = ch1_spec();
    X_STEPS = 400;
    X_LR = 0.001;
    X_TRAIN = false;
    X_FILE = NULL;
    X_MODE = "heads";
    s.extra = EXTRA;
    return s;
}

static void test_extra_flags_defaults_and_values(void)
{
    CliSpec s = extra_spec();
    CHECK_EQ_INT(PARSE0(&s), 0);
    CHECK_EQ_INT(X_STEPS, 400);
    CHECK(X_LR == 0.001 && !X_TRAIN && X_FILE == NULL && strcmp(X_MODE, "heads") == 0);
    CHECK_EQ_INT(A.extra_given, 0);
    CHECK(!cli_extra_given(&s, &A, "--steps"));
    s = extra_spec();
    CHECK_EQ_INT(PARSE(&s, "--steps", "7", "--lr=0.5", "--train", "--grad-output", "dy.npy", "--parallel",
                       "sequence", "--seed", "5"),
                 0);
    CHECK_EQ_INT(X_STEPS, 7);
    CHECK(X_LR == 0.5 && X_TRAIN && strcmp(X_FILE, "dy.npy") == 0 && strcmp(X_MODE, "sequence") == 0);
    CHECK(A.seed == 5);
    CHECK(cli_extra_given(&s, &A, "--steps") && cli_extra_given(&s, &A, "--lr") &&
          cli_extra_given(&s, &A, "--train") && cli_extra_given(&s, &A, "--parallel"));
    CHECK(!cli_extra_given(&s, &A, "--nope"));
}

#define CHECK_EXTRA_USAGE(want, ...)                                      \
    do {                                                                  \
        CliSpec s_ = extra_spec();                                        \
        int rc_ = PARSE(&s_, __VA_ARGS__);                                \
        CHECK_EQ_INT(rc_, 2);                                             \
        CHECK_STR_CONTAINS(ERR, (want));                                  \
    } while (0)

static void test_extra_flags_refuse_bad_values(void)
{
    CHECK_EXTRA_USAGE("--steps 0: must be an integer from 1 to 1000", "--steps", "0");
    CHECK_EXTRA_USAGE("--steps 1001: must be an integer from 1 to 1000", "--steps", "1001");
    CHECK_EXTRA_USAGE("--steps 2x: must be an integer", "--steps", "2x");
    CHECK_EXTRA_USAGE("--steps -1: must be an integer", "--steps=-1");
    CHECK_EXTRA_USAGE("--lr 0: must be a positive number", "--lr", "0");
    CHECK_EXTRA_USAGE("--lr nan: must be a positive number", "--lr", "nan");
    CHECK_EXTRA_USAGE("--lr 1e999: must be a positive number", "--lr", "1e999");
    CHECK_EXTRA_USAGE("flag '--lr' needs a value", "--lr");
    CHECK_EXTRA_USAGE("flag '--train' takes no value", "--train=1");
    CHECK_EXTRA_USAGE("flag '--grad-output' needs a non-empty value", "--grad-output=");
    CHECK_EXTRA_USAGE("--parallel rows: must be heads or sequence", "--parallel", "rows");
    CHECK_EXTRA_USAGE("--parallel '': must be heads or sequence", "--parallel=");
    CHECK_EXTRA_USAGE("--parallel head: must be heads or sequence", "--parallel", "head");
    CHECK_EXTRA_USAGE("unknown flag '-steps' (did you mean '--steps'?)", "-steps", "3");
    CHECK_EXTRA_USAGE("unknown flag '--stepz'", "--stepz", "3");
    /* the first error is reported, and a later extra flag does not change its variable */
    CHECK_EXTRA_USAGE("unknown flag '--bogus'", "--bogus", "--steps", "9");
    CHECK_EQ_INT(X_STEPS, 400);
    /* a chapter without extras refuses them as unknown */
    {
        CliSpec s = ch1_spec();
        CHECK_EQ_INT(PARSE(&s, "--steps", "3"), 2);
        CHECK_STR_CONTAINS(ERR, "unknown flag '--steps'");
    }
}

static const char *X_IMPL;
static const CliExtra EXTRA_IMPL[] = {
    {"--impl", "NAME", CLI_EXTRA_CHOICE, &X_IMPL, "flash or reference", 0, 0, false, "flash|reference"},
    {NULL, NULL, CLI_EXTRA_FLAG, NULL, NULL, 0, 0, false, NULL}};

static void test_extra_flag_may_take_a_shared_name_the_chapter_does_not_use(void)
{
    /* chapter 1 does not use the shared --impl: its own --impl is parsed instead */
    CliSpec s = ch1_spec();
    s.extra = EXTRA_IMPL;
    X_IMPL = "flash";
    CHECK_EQ_INT(PARSE(&s, "--impl", "reference"), 0);
    CHECK(strcmp(X_IMPL, "reference") == 0);
    CHECK(cli_extra_given(&s, &A, "--impl"));
    CHECK_EQ_INT(PARSE(&s, "--impl", "tiled"), 2);
    CHECK_STR_CONTAINS(ERR, "--impl tiled: must be flash or reference");
    /* without the extra, the shared flag still does not apply */
    s.extra = NULL;
    CHECK_EQ_INT(PARSE(&s, "--impl", "flash"), 2);
    CHECK_STR_CONTAINS(ERR, "flag '--impl' does not apply to chapter1");
    /* a chapter that uses the shared --impl keeps it */
    s = ch1_spec();
    s.flags |= CLI_IMPL;
    s.extra = EXTRA_IMPL;
    X_IMPL = "flash";
    CHECK_EQ_INT(PARSE(&s, "--impl", "tiled"), 0);
    CHECK(strcmp(A.impl, "tiled") == 0 && strcmp(X_IMPL, "flash") == 0);
}

static void test_extra_flags_in_usage(void)
{
    CliSpec s = extra_spec();
    const char *u = usage_text(&s);
    const char *steps = strstr(u, "  --steps N        training steps (default 400)\n");
    const char *help = strstr(u, "--help, -h");
    CHECK_STR_CONTAINS(u, "  --lr X           learning rate (default 0.001)\n");
    CHECK_STR_CONTAINS(u, "  --train          train (default off)\n");
    CHECK_STR_CONTAINS(u, "  --grad-output FILE dloss/dy\n");
    CHECK_STR_CONTAINS(u, "  --parallel MODE  heads or sequence (default heads)\n");
    /* listed with the other flags, before --help and the exit status */
    CHECK_MSG(steps && help && steps < help, "extras not before --help:\n%s", u);
}

/* A number with an exclusive least value and a greatest (top-p's (0, 1]) says both in its error; an
 * integer whose value is below the least it takes (0 for --generate N: off) shows no default. */
static double X_TOP;
static int64_t X_GEN;
static const CliExtra EXTRA_BOUNDS[] = {
    {"--top-p", "P", CLI_EXTRA_REAL, &X_TOP, "nucleus", 0, 1, true, NULL},
    {"--generate", "N", CLI_EXTRA_INT, &X_GEN, "tokens to add", 1, 100, false, NULL},
    {NULL, NULL, CLI_EXTRA_FLAG, NULL, NULL, 0, 0, false, NULL}};

static void test_extra_bounds_in_words(void)
{
    CliSpec s = ch1_spec();
    const char *u;
    s.extra = EXTRA_BOUNDS;
    X_TOP = 0.9;
    X_GEN = 0;
    CHECK_EQ_INT(PARSE(&s, "--top-p", "0"), 2);
    CHECK_STR_CONTAINS(ERR, "--top-p 0: must be a number above 0 and at most 1");
    CHECK_EQ_INT(PARSE(&s, "--top-p", "1.5"), 2);
    CHECK_STR_CONTAINS(ERR, "--top-p 1.5: must be a number above 0 and at most 1");
    CHECK_EQ_INT(PARSE(&s, "--top-p", "1"), 0);
    CHECK(X_TOP == 1.0);
    X_TOP = 0.9;
    u = usage_text(&s);
    CHECK_STR_CONTAINS(u, "  --top-p P        nucleus (default 0.9)\n");
    CHECK_STR_CONTAINS(u, "  --generate N     tokens to add\n");
}

static void test_program_start_opens_a_run(void)
{
    CliSpec s = ch1_spec();
    const char *const words[] = {"prog", "--seed", "77", "--quiet", NULL};
    int depth = t_scope_depth();
    Args a = program_start(&s, 4, (char **)words);
    float drawn;
    CHECK(a.seed == 77 && a.quiet);
    CHECK(narrate_quiet());                     /* --quiet */
    CHECK_EQ_INT(t_scope_depth(), depth + 1);   /* a scope for the run's tensors */
    drawn = t_get(t_rand(SHAPE(1)), 0);
    t_manual_seed(77);                          /* torch.manual_seed(77) */
    CHECK(drawn == t_get(t_rand(SHAPE(1)), 0));
    narrate_set_quiet(false);
    t_scope_end_to(depth);
}

/* load_or_default's note names exactly the flags given, in --help's order. */
static void test_flag_names(void)
{
    char b[128];
    CHECK_MSG(strcmp(cli_flag_names(CLI_BIAS | CLI_BATCH | CLI_D_IN, b, sizeof b), "--batch, --d-in and --bias") == 0,
              "got '%s'", b);
    CHECK_MSG(strcmp(cli_flag_names(CLI_D_OUT, b, sizeof b), "--d-out") == 0, "got '%s'", b);
    CHECK_MSG(strcmp(cli_flag_names(CLI_BATCH | CLI_CAUSAL, b, sizeof b), "--batch and --causal") == 0, "got '%s'", b);
    CHECK_MSG(strcmp(cli_flag_names(0, b, sizeof b), "") == 0, "got '%s'", b);
    CHECK_MSG(strcmp(cli_flag_names(CLI_BATCH | CLI_D_IN, b, 8), "--batch") == 0, "cut to fit: got '%s'", b);
}

int main(void)
{
    RUN(test_flag_names);
    RUN(test_no_args_gives_defaults);
    RUN(test_separate_value_form);
    RUN(test_equals_value_form);
    RUN(test_every_size_flag_and_given_bits);
    RUN(test_size_bounds);
    RUN(test_size_rejects_text_and_oddities);
    RUN(test_seed_full_u64_range);
    RUN(test_dropout_accepts_zero_one_and_reals);
    RUN(test_dropout_rejects_out_of_range_and_junk);
    RUN(test_boolean_flags_and_given_bits);
    RUN(test_boolean_flag_with_value_is_usage_error);
    RUN(test_causal_last_one_wins);
    RUN(test_ascii_implies_heatmap);
    RUN(test_file_flags_are_stored);
    RUN(test_impl_names);
    RUN(test_repeated_flag_last_wins);
    RUN(test_help_returns_1);
    RUN(test_unknown_flag);
    RUN(test_single_dash_long_flag_gets_hint);
    RUN(test_flag_that_does_not_apply);
    RUN(test_missing_value_at_end);
    RUN(test_missing_value_before_next_flag);
    RUN(test_never_reads_past_argc);
    RUN(test_positional_arguments);
    RUN(test_empty_file_names);
    RUN(test_qkv_go_together);
    RUN(test_input_and_weights_go_together);
    RUN(test_first_error_is_reported);
    RUN(test_error_sentence_is_one_safe_line);
    RUN(test_small_or_missing_error_buffer);
    RUN(test_cli_parse_returns_args_on_success);
    RUN(test_usage_lists_applicable_flags_only);
    RUN(test_usage_shows_every_flag_and_its_default);
    RUN(test_extra_flags_defaults_and_values);
    RUN(test_extra_flags_refuse_bad_values);
    RUN(test_extra_flag_may_take_a_shared_name_the_chapter_does_not_use);
    RUN(test_extra_flags_in_usage);
    RUN(test_extra_bounds_in_words);
    RUN(test_program_start_opens_a_run);
    return harness_finish("test_common_cli");
}
