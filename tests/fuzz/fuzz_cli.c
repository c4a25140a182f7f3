/* fuzz_cli.c — libFuzzer target for the flag parser.
 *
 * The input bytes, split at NUL, are the words of argv (after argv[0]); at
 * most MAX_ARGS words are used. Each word is copied into its own buffer so
 * that it ends exactly at its NUL and the sanitizers see any read past it.
 * Every flag applies, so every value check is reached.
 *
 * Build it with clang -fsanitize=fuzzer,address,undefined from this file and
 * every .c file in common/ and common/program/ (-I. -lm), then run it on tests/corpus/cli
 * (a seed corpus made by tests/corpus/make_cli_corpus.sh).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/program/cli.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[MAX_ARGS + 1];
    char prog[] = "fuzz_cli";
    char err[256];
    CliSpec spec;
    Args out;
    size_t pos = 0;
    int argc = 1, i, rc;

    argv[0] = prog;
    while (pos < size && argc < MAX_ARGS) {
        const uint8_t *nul = memchr(data + pos, 0, size - pos);
        size_t len = nul ? (size_t)(nul - (data + pos)) : size - pos;
        char *w = malloc(len + 1);
        if (!w) break;
        memcpy(w, data + pos, len);
        w[len] = '\0';
        argv[argc++] = w;
        pos += len + 1;
    }
    /* No NULL at argv[argc]: the parser must stop at argc on its own. */

    memset(&spec, 0, sizeof spec);
    spec.program = "fuzz_cli";
    spec.summary = "fuzz target";
    spec.flags = CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_D_IN | CLI_D_OUT | CLI_D_K |
                 CLI_HEADS | CLI_DROPOUT | CLI_EVAL | CLI_CAUSAL | CLI_BIAS | CLI_QUIET |
                 CLI_DUMP | CLI_HEATMAP | CLI_QKV | CLI_INPUT | CLI_OUTPUT | CLI_IMPL;
    spec.defaults.seed = 123;
    spec.defaults.batch = 2;
    spec.defaults.seq_len = 6;
    spec.defaults.d_in = 3;
    spec.defaults.d_out = 4;
    spec.defaults.d_k = 4;
    spec.defaults.heads = 2;
    spec.defaults.dropout = 0.1;
    spec.defaults.impl = "flash";

    rc = cli_parse_args(&spec, argc, argv, &out, err, sizeof err);

    /* What the contract promises, checked on every input. */
    if (rc < 0 || rc > 2) abort();
    if (rc == 2 && (err[0] == '\0' || memchr(err, '\n', strlen(err)))) abort();
    if (rc == 0) {
        if (out.batch < 1 || out.batch > CLI_MAX_SIZE) abort();
        if (out.seq_len < 1 || out.seq_len > CLI_MAX_SIZE) abort();
        if (out.d_in < 1 || out.d_in > CLI_MAX_SIZE) abort();
        if (out.d_out < 1 || out.d_out > CLI_MAX_SIZE) abort();
        if (out.d_k < 1 || out.d_k > CLI_MAX_SIZE) abort();
        if (out.heads < 1 || out.heads > CLI_MAX_SIZE) abort();
        if (!(out.dropout >= 0.0 && out.dropout <= 1.0)) abort();
        if (out.ascii && !out.heatmap) abort();
        if ((out.q || out.k || out.v) && !(out.q && out.k && out.v)) abort();
        if ((out.input || out.weights) && !(out.input && out.weights)) abort();
        if (out.impl == NULL) abort();
    }

    for (i = 1; i < argc; i++) free(argv[i]);
    return 0;
}
