/* randnpy.c — write random test inputs: torch.randn(shape) from --seed, as .npy.
 *
 *     randnpy [--std S] SEED FILE D0 [D1 ...]     (S: multiply by S, default 1)
 *
 * Chapter 9's tests make random inputs and weights folders with it and compare
 * build/chapter9 with build/chapter7 on them (no Python needed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/program/program.h"

int main(int argc, char **argv) {
    t_set_program_name("randnpy");
    out_run_begin(); /* the file is written all or nothing (out.h) */
    double std = 1.0;
    char *end;
    if (argc > 2 && strcmp(argv[1], "--std") == 0) {
        std = strtod(argv[2], &end);
        if (*end || !(std > 0.0)) {
            fprintf(stderr, "randnpy: --std '%s' is not a number > 0\n", argv[2]);
            return EXIT_USAGE;
        }
        argv += 2, argc -= 2;
    }
    if (argc < 4 || argc - 3 > T_MAX_DIMS) {
        fprintf(stderr, "usage: randnpy [--std S] SEED FILE D0 [D1 ...] (at most %d dims)\n", T_MAX_DIMS);
        return EXIT_USAGE;
    }
    unsigned long long seed = strtoull(argv[1], &end, 10);
    if (*end) {
        fprintf(stderr, "randnpy: SEED '%s' is not a number\n", argv[1]);
        return EXIT_USAGE;
    }
    int64_t dims[T_MAX_DIMS];
    for (int i = 3; i < argc; i++) {
        long long d = strtoll(argv[i], &end, 10);
        if (*end || d < 1 || d > 100000) {
            fprintf(stderr, "randnpy: size '%s' is not a number between 1 and 100000\n", argv[i]);
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
