/* npyinfo.c — what is in a .npy file?  (np.load(f).shape, print(x), torch.allclose)
 *
 *     npyinfo FILE...                      one line per file: "FILE: shape (2, 3), float32"
 *     npyinfo --print FILE...              the same, then the tensor itself
 *     npyinfo --compare A B [RTOL [ATOL]]  same shape and |a - b| <= ATOL + RTOL * |b|
 *                                          everywhere (torch.allclose; defaults 1e-05, 1e-08)
 *     --lang en|zh                          its sentences in English or Chinese (without it:
 *                                          LC_ALL, LC_MESSAGES, LANG, as the chapters)
 *
 * A file that cannot be read ends the program with one line on stderr that
 * names it and says why, and exit status 1; so do two files that are not
 * close, and standard output that cannot be written (a full disk, a closed
 * descriptor), as in the chapter programs. Usage errors exit 2 with one line
 * on stderr; so does a bad ATTN_MAX_BYTES (the largest tensor it loads).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/npy.h"
#include "common/print.h"
#include "common/program/budget.h"
#include "common/program/lang.h"
#include "common/program/out.h"
#include "common/tensor.h"

#define USAGE                                                                    \
    "usage: npyinfo [--print] FILE...\n"                                          \
    "       npyinfo --compare A B [RTOL [ATOL]]\n"                                \
    "  Show the shape of each .npy file (as loaded: float32, C order).\n"         \
    "  --print     also print the values\n"                                       \
    "  --compare   exit 0 when A and B have the same shape and\n"                 \
    "              |a - b| <= ATOL + RTOL * |b| everywhere (torch.allclose;\n"    \
    "              RTOL 1e-05 and ATOL 1e-08 by default), else 1\n"               \
    "  --lang      en|zh: the language of its sentences (without it: LC_ALL,\n"   \
    "              LC_MESSAGES, LANG; zh... is Chinese)\n"                        \
    "  --help      show this help\n"

/* Its sentences in Chinese (--lang zh); the .npy loader's come from common/program. */
static const LangPair npyinfo_zh[] = {
    {USAGE, "用法：npyinfo [--print] 文件...\n"
            "      npyinfo --compare A B [RTOL [ATOL]]\n"
            "  显示每个 .npy 文件的形状（按载入后的样子：float32，C 顺序）。\n"
            "  --print     同时打印其中的数值\n"
            "  --compare   A 和 B 形状相同、并且处处 |a - b| <= ATOL + RTOL * |b|\n"
            "              （torch.allclose；RTOL 默认 1e-05，ATOL 默认 1e-08）时退出码为 0，否则为 1\n"
            "  --lang      en|zh：输出的语言（不给时看 LC_ALL、LC_MESSAGES、LANG；\n"
            "              以 zh 开头为中文）\n"
            "  --help      显示本帮助\n"},
    {"npyinfo: %s (try --help)\n", "npyinfo：%s（见 --help）\n"},
    {"npyinfo: unknown option '%s' (try --help)\n", "npyinfo：未知的选项 '%s'（见 --help）\n"},
    {"--compare and --print do not go together", "--compare 和 --print 不能一起用"},
    {"--compare takes two files and optionally RTOL and ATOL", "--compare 需要两个文件，可再加 RTOL 和 ATOL"},
    {"no file given (usage: npyinfo [--print] FILE...)", "没有给文件（用法：npyinfo [--print] 文件...）"},
    {"npyinfo: --compare: %s '%s' is not a number >= 0 (try --help)\n",
     "npyinfo：--compare：%s '%s' 不是 >= 0 的数（见 --help）\n"},
    {"npyinfo: %s and %s differ in shape: %s vs %s\n", "npyinfo：%s 和 %s 形状不同：%s 对 %s\n"},
    {"npyinfo: %s and %s differ: %lld of %lld elements are not close (rtol %g, atol %g); first at %s: %.8g vs "
     "%.8g; max |a - b| = %.3g\n",
     "npyinfo：%s 和 %s 不同：%lld 个元素（共 %lld 个）不接近（rtol %g，atol %g）；第一个在 %s：%.8g 对 "
     "%.8g；最大 |a - b| = %.3g\n"},
    {"%s and %s are close: shape %s, max |a - b| = %.3g (rtol %g, atol %g)\n",
     "%s 和 %s 接近：形状 %s，最大 |a - b| = %.3g（rtol %g，atol %g）\n"},
    {"%s: shape %s, float32\n", "%s：形状 %s，float32\n"},
    {NULL, NULL}};

static void usage(FILE *f)
{
    fputs(tr(USAGE), f);
}

static int usage_error(const char *what)
{
    fprintf(stderr, tr("npyinfo: %s (try --help)\n"), tr(what));
    return EXIT_USAGE;
}

/* A tolerance: a finite number >= 0. */
static int parse_tol(const char *s, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !(v >= 0.0) || v == HUGE_VAL) return -1;
    *out = v;
    return 0;
}

/* Element number i in row-major order as "[1, 2]". */
static char *index_str(const Tensor *x, int64_t i, char *buf, size_t cap)
{
    int64_t idx[T_MAX_DIMS];
    size_t n = 0;
    int k;
    for (k = x->ndim - 1; k >= 0; k--) {
        idx[k] = x->shape[k] > 0 ? i % x->shape[k] : 0;
        i = x->shape[k] > 0 ? i / x->shape[k] : 0;
    }
    n += (size_t)snprintf(buf + n, cap - n, "[");
    for (k = 0; k < x->ndim && n < cap; k++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", k ? ", " : "", (long long)idx[k]);
    if (n < cap) snprintf(buf + n, cap - n, "]");
    return buf;
}

static int compare(const char *pa, const char *pb, double rtol, double atol)
{
    char sa[T_SHAPE_STR], sb[T_SHAPE_STR], where[T_SHAPE_STR];
    Tensor *a = npy_load(pa), *b = npy_load(pb);
    int64_t i, n, bad = 0, first = -1;
    double max_diff = 0.0;

    if (!t_same_shape(a, b)) {
        fprintf(stderr, tr("npyinfo: %s and %s differ in shape: %s vs %s\n"), pa, pb,
                t_shape_str(a, sa), t_shape_str(b, sb));
        return EXIT_RUNTIME;
    }
    n = t_numel(a);
    for (i = 0; i < n; i++) {
        double x = t_flat_get(a, i), y = t_flat_get(b, i);
        int close;
        if (x == y) close = 1;                              /* equal infinities too */
        else if (isnan(x) || isnan(y)) close = isnan(x) && isnan(y);
        else close = fabs(x - y) <= atol + rtol * fabs(y);
        if (!isnan(x) && !isnan(y) && x != y && fabs(x - y) > max_diff) max_diff = fabs(x - y);
        if (!close) {
            if (first < 0) first = i;
            bad++;
        }
    }
    if (bad) {
        fprintf(stderr,
                tr("npyinfo: %s and %s differ: %lld of %lld elements are not close (rtol %g, atol %g); first at "
                   "%s: %.8g vs %.8g; max |a - b| = %.3g\n"),
                pa, pb, (long long)bad, (long long)n, rtol, atol,
                index_str(a, first, where, sizeof where), (double)t_flat_get(a, first),
                (double)t_flat_get(b, first), max_diff);
        return EXIT_RUNTIME;
    }
    printf(tr("%s and %s are close: shape %s, max |a - b| = %.3g (rtol %g, atol %g)\n"), pa, pb,
           t_shape_str(a, sa), max_diff, rtol, atol);
    return EXIT_OK;
}

/* Is argv[i] a file name? Everything after "--" is; "-" alone is too. */
static int is_file_arg(const char *a, int i, int dashdash)
{
    return (dashdash && i > dashdash) || a[0] != '-' || a[1] == '\0';
}

int main(int argc, char **argv)
{
    int i, dashdash = 0, files = 0, print_values = 0, do_compare = 0;
    const char *file_args[4];

    t_set_program_name("npyinfo");
    lang_add(npyinfo_zh);
    lang_set(lang_from_argv(argc, argv)); /* --lang, else the environment's, as the chapters */
    t_set_error_label(tr("error"));
    t_set_translator(tr); /* the .npy loader's sentences too */
    out_run_begin(); /* standard output is checked at exit: lost output is exit 1 and a sentence */
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        Lang l;
        if (is_file_arg(a, i, dashdash)) {
            if (files < 4) file_args[files] = a;
            files++;
        } else if (strcmp(a, "--") == 0 && !dashdash) {
            dashdash = i;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return EXIT_OK;
        } else if (strcmp(a, "--print") == 0) {
            print_values = 1;
        } else if (strcmp(a, "--compare") == 0) {
            do_compare = 1;
        } else if (strcmp(a, "--lang") == 0 || strncmp(a, "--lang=", 7) == 0) {
            const char *v = a[6] == '=' ? a + 7 : i + 1 < argc ? argv[++i] : NULL;
            char msg[160];
            if (v && lang_parse(v, &l)) continue; /* (set above) */
            if (v) snprintf(msg, sizeof msg, tr("%s %s: must be en or zh"), "--lang", *v ? v : "''");
            else snprintf(msg, sizeof msg, tr("flag '%s' needs a value"), "--lang");
            return usage_error(msg);
        } else {
            fprintf(stderr, tr("npyinfo: unknown option '%s' (try --help)\n"), a);
            return EXIT_USAGE;
        }
    }

    {
        char err[256];  /* ATTN_MAX_BYTES, refused as the chapters refuse them */
        if (budget_check_env(err, sizeof err) != 0) return usage_error(err);
    }

    if (do_compare) {
        double rtol = 1e-5, atol = 1e-8;
        int rc;
        if (print_values) return usage_error("--compare and --print do not go together");
        if (files < 2 || files > 4)
            return usage_error("--compare takes two files and optionally RTOL and ATOL");
        if (files >= 3 && parse_tol(file_args[2], &rtol) != 0) {
            fprintf(stderr, tr("npyinfo: --compare: %s '%s' is not a number >= 0 (try --help)\n"), "RTOL",
                    file_args[2]);
            return EXIT_USAGE;
        }
        if (files >= 4 && parse_tol(file_args[3], &atol) != 0) {
            fprintf(stderr, tr("npyinfo: --compare: %s '%s' is not a number >= 0 (try --help)\n"), "ATOL",
                    file_args[3]);
            return EXIT_USAGE;
        }
        t_scope_begin();
        rc = compare(file_args[0], file_args[1], rtol, atol);
        t_scope_end();
        return rc;
    }

    if (files == 0) return usage_error("no file given (usage: npyinfo [--print] FILE...)");
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        char shape[T_SHAPE_STR];
        Tensor *x;
        if (!is_file_arg(a, i, dashdash)) {
            if (strcmp(a, "--lang") == 0 && !(dashdash && i > dashdash)) i++; /* its value is no file */
            continue;
        }
        t_scope_begin();
        x = npy_load(a);   /* a bad file: one sentence on stderr, exit 1 */
        printf(tr("%s: shape %s, float32\n"), a, t_shape_str(x, shape));
        if (print_values) t_print(x);
        t_scope_end();
    }
    return EXIT_OK;
}
