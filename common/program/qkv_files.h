/* qkv_files.h — --q, --k and --v (chapters 1, 2, 4, 8, 12): the three .npy files loaded,
 * and their shapes checked as they are loaded, each error a sentence in the run's
 * language that names the files (chapter 1's rules, said for the command line). */
#ifndef COMMON_QKV_FILES_H
#define COMMON_QKV_FILES_H

#include "common/program/cli.h"
#include "common/tensor.h"

/* query (..., T, d_k), key (..., S, d_k), value (..., S, d_v) from args->q, args->k,
 * args->v: at least 2 dims each, the same d_k, the same S > 0, batch dims that broadcast
 * (as in torch.matmul), and T == S when args->causal. One sentence and exit 1 when they
 * cannot make one attention call. */
void load_qkv_files(const Args *args, Tensor **query, Tensor **key, Tensor **value);

/* A NaN or an infinity in a loaded file is refused before any work (chapters 11, 12):
 * "FILE holds NaN at flat index I: REASON", REASON an English sentence with its pair in
 * the chapter's table (tr), e.g. "the backward needs finite numbers". Exit 1. */
void require_finite_file(const char *file, const Tensor *x, const char *reason);

#endif
