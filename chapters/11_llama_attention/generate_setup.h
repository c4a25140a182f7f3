/* generate_setup.h — chapter 11's --generate DIR: chapter 10's tiny model from the folder
 * of its --train --dump, generating greedily with and without the KV cache (the lesson
 * is in generate.c). */
#ifndef CH11_GENERATE_SETUP_H
#define CH11_GENERATE_SETUP_H

#include "common/program/program.h"
#include "generate.h"
#include "chapters/10_backward/train_setup.h"

/* Chapter 10's task: tokens A..H, sequences of 8. */
enum { GEN_VOCAB = 8, GEN_SEQ_LEN = 8 };

/* "D A" -> {3, 0}: words A..H, at most max_tokens of them; returns how many,
 * or -1 with one sentence in err. */
int parse_prompt(const char *text, int32_t *ids, int max_tokens, char *err, size_t errlen);
/* The narrated --generate run: the model of dir (chapter 10's --train --dump),
 * then `tokens` new tokens after the prompt, each with the cache (and its step
 * time) and without it. */
int run_generate(const char *dir, const char *prompt, int64_t tokens);

#endif
