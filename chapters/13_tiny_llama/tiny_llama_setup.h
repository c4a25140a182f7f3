/* tiny_llama_setup.h — chapter 13's files: the int32 batch of --batch-tokens, the --tokens
 * list, and the checkpoint and tokenizer written whole (temporary file, then rename). */
#ifndef CH13_TINY_LLAMA_SETUP_H
#define CH13_TINY_LLAMA_SETUP_H

#include "common/program/program.h"
#include "train.h"

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
/* OUT.bin -> OUT.state */
char *state_path_of(const char *bin_path);

/* What a training run is, so that a state is never resumed by another run: its schedule,
 * seed and text (the characters' FNV-1a hash and count). */
typedef struct {
    int64_t steps, batch, seq_len;
    uint64_t seed;
    int64_t text_n;
    uint64_t text_hash;
} RunId;
/* FNV-1a over n code points. */
uint64_t hash_text(const int32_t *cps, int64_t n);
/* OUT.state, written whole beside OUT.bin when a run stops early (a signal, --stop-at): what
 * OUT.bin does not hold and the run still has in memory. Little-endian, as the .bin:
 *     char[8] "CH13ST01"; int64 steps, batch, seq_len, seed, text_n; uint64 text_hash;
 *     int64 n_params, numel (all parameters); uint64 weights_hash (FNV-1a of OUT.bin's weights);
 *     int64 opt.step; the generator: uint32[624] mt19937 state, int32 next, uint64 seed,
 *     int32 has_next_normal, float64 next_normal; then float32 m[numel], v[numel]
 * The .bin keeps llama2.c's layout, so run.c (and anything else) still reads it. */
void save_train_state(const char *path, const AdamW *opt, const Transformer *m, const RunId *id);
/* Reads OUT.state into opt and the global generator; refuses (one sentence, exit 1) a file of
 * another layout or length, of another run (id) or model, or whose weights are not m's. */
void load_train_state(const char *path, AdamW *opt, const Transformer *m, const RunId *id);

#endif
