/* randnpy.c — write random test inputs: torch.randn(shape) from --seed, as .npy.
 *
 *     randnpy [--std S] SEED FILE D0 [D1 ...]     (S: multiply by S, default 1)
 *
 * --lang en|zh anywhere (or a zh locale, as the chapters) says its sentences in Chinese.
 * Chapter 9's tests make random inputs and weights folders with it and compare
 * build/chapter9 with build/chapter7 on them (no Python needed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/program/lang.h"
#include "common/program/program.h"

static const LangPair randnpy_zh[] = {
    {"randnpy: --std '%s' is not a number > 0\n", "randnpy：--std '%s' 不是 > 0 的数\n"},
    {"usage: randnpy [--std S] SEED FILE D0 [D1 ...] (at most %d dims)\n",
     "用法：randnpy [--std S] 种子 文件 D0 [D1 ...]（至多 %d 维）\n"},
    {"randnpy: SEED '%s' is not a number\n", "randnpy：种子 '%s' 不是数\n"},
    {"randnpy: size '%s' is not a number between 1 and 100000\n", "randnpy：大小 '%s' 不是 1 到 100000 之间的数\n"},
    {"randnpy: --lang %s: must be en or zh\n", "randnpy：--lang %s：必须是 en 或 zh\n"},
    {NULL, NULL}};

int main(int argc, char **argv) {
    t_set_program_name("randnpy");
    lang_add(randnpy_zh);
    lang_set(lang_from_argv(argc, argv)); /* --lang, else the environment's */
    t_set_error_label(tr("error"));
    t_set_translator(tr); /* the .npy writer's sentences too */
    out_run_begin(); /* the file is written all or nothing (out.h) */
    int n = 1; /* the arguments without --lang and its value, in place */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        Lang l;
        if (strcmp(a, "--lang") == 0) v = i + 1 < argc ? argv[++i] : "''";
        else if (strncmp(a, "--lang=", 7) == 0) v = a + 7;
        else argv[n++] = argv[i];
        if (v && !lang_parse(v, &l)) {
            fprintf(stderr, tr("randnpy: --lang %s: must be en or zh\n"), *v ? v : "''");
            return EXIT_USAGE;
        }
    }
    argc = n;
    double std = 1.0;
    char *end;
    if (argc > 2 && strcmp(argv[1], "--std") == 0) {
        std = strtod(argv[2], &end);
        if (*end || !(std > 0.0)) {
            fprintf(stderr, tr("randnpy: --std '%s' is not a number > 0\n"), argv[2]);
            return EXIT_USAGE;
        }
        argv += 2, argc -= 2;
    }
    if (argc < 4 || argc - 3 > T_MAX_DIMS) {
        fprintf(stderr, tr("usage: randnpy [--std S] SEED FILE D0 [D1 ...] (at most %d dims)\n"), T_MAX_DIMS);
        return EXIT_USAGE;
    }
    unsigned long long seed = strtoull(argv[1], &end, 10);
    if (*end) {
        fprintf(stderr, tr("randnpy: SEED '%s' is not a number\n"), argv[1]);
        return EXIT_USAGE;
    }
    int64_t dims[T_MAX_DIMS];
    for (int i = 3; i < argc; i++) {
        long long d = strtoll(argv[i], &end, 10);
        if (*end || d < 1 || d > 100000) {
            fprintf(stderr, tr("randnpy: size '%s' is not a number between 1 and 100000\n"), argv[i]);
            return EXIT_USAGE;
        }
        dims[i - 3] = d;
    }
    t_scope_begin();
    t_manual_seed(seed);
    npy_save(argv[2], t_mul_scalar(t_randn(shape_of(argc - 3, dims)), (float)std));
    t_scope_end();
    return EXIT_OK;
}
