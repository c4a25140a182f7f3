/* generate_setup.h — chapter 11's --generate: chapter 10's tiny model, trained here,
 * then generating greedily with and without the KV cache (the lesson is in generate.c). */
#ifndef CH11_GENERATE_SETUP_H
#define CH11_GENERATE_SETUP_H

#include "common/program/program.h"
#include "generate.h"

/* Chapter 10's task and sizes: tokens A..H, sequences of 8, dim 32, 2 heads. */
enum { GEN_VOCAB = 8, GEN_SEQ_LEN = 8, GEN_DIM = 32, GEN_HEADS = 2 };

/* Chapter 10's --train, in short: torch.manual_seed(seed); TinyModel(8, 8, 32, 2);
 * Adam(lr 0.001) for `steps` batches of 32 random sequences, the loss of
 * outputting the token two places back (the same functions, train.h). */
TinyModel *train_tiny_model(uint64_t seed, int64_t steps);
/* "D A" -> {3, 0}: words A..H, at most GEN_SEQ_LEN of them; returns how many,
 * or -1 with one sentence in err. */
int parse_prompt(const char *text, int32_t *ids, char *err, size_t errlen);
/* The narrated --generate run: train, then tokens new tokens after the
 * prompt, each with the cache (and its step time) and without it. */
int run_generate(const Args *args, const char *prompt, int64_t tokens);

#endif
