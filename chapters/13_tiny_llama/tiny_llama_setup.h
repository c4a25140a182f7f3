/* tiny_llama_setup.h — chapter 13's files: the int32 batch of --batch-tokens, the --tokens
 * list, and the checkpoint and tokenizer written whole (temporary file, then rename). */
#ifndef CH13_TINY_LLAMA_SETUP_H
#define CH13_TINY_LLAMA_SETUP_H

#include "common/program/program.h"
#include "checkpoint.h"

/* An int32 .npy of shape (B, T + 1) ('<i4', as np.asarray(b, dtype=np.int32) saves it):
 * *bsz = B, *cols = T + 1; every id in [0, vocab). Anything else is one sentence, exit 1. */
int32_t *load_batch_tokens(const char *path, int64_t vocab, int64_t *bsz, int64_t *cols);
/* "3,1,4,1,5" -> ids; false for anything but non-negative integers between commas. */
bool parse_token_list(const char *text, int32_t **ids, int64_t *n);
/* OUT.bin (llama2.c version 0) and OUT.tok (tokenizer.bin), each written whole at the run's end. */
void save_checkpoint(const char *path, const Transformer *m);
void save_tokenizer(const char *path, const Tokenizer *t);
/* A whole file into memory (NUL-terminated); *len its bytes. Failure is a sentence naming it. */
char *read_whole_file(const char *path, size_t *len);
/* OUT.bin -> OUT.tok (any other name: NAME.tok). */
char *tok_path_of(const char *bin_path);

#endif
