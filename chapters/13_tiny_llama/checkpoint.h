/* checkpoint.h — chapter 13: llama2.c's checkpoint (.bin, version 0) and tokenizer.bin.
 *
 * The .bin, as llama2.c's export.py legacy_export writes it and run.c reads it:
 *
 *     header = struct.pack('iiiiiii', dim, hidden_dim, n_layers, n_heads,
 *                          n_kv_heads, vocab_size, max_seq_len)      # vocab_size < 0: unshared head
 *     tok_embeddings (vocab, dim)
 *     attention_norm of every layer, then wq of every layer, wk, wv, wo (all layers each),
 *     ffn_norm, w1, w2, w3 (all layers each), norm (dim,)
 *     freqs_cos[:max_seq_len], freqs_sin[:max_seq_len]   (seq_len * head_dim / 2 each; run.c skips them)
 *     output (vocab, dim), only when unshared
 *
 * float32 and int32 in the writer's byte order (little-endian on every machine llama2.c
 * runs on); every matrix in PyTorch's (out, in) layout. run.c trusts the file; here every
 * header field is checked and the file's length must be exactly what the header says,
 * one sentence naming the file otherwise.
 *
 * tokenizer.bin (llama2.c's build_tokenizer): int32 max_token_length, then for each of
 * vocab_size tokens a float32 score, an int32 length and that many bytes (no terminator).
 */
#ifndef CH13_CHECKPOINT_H
#define CH13_CHECKPOINT_H

#include "tiny_llama.h"

/* The seven header numbers of a .bin; vocab_size negative when the head is unshared. */
typedef struct {
    int32_t dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
} Llama2cHeader;

/* Bytes a version-0 .bin of this config holds (header included). */
double llama2c_file_bytes(const LlamaConfig *c);
/* Read a .bin: every field checked, weights loaded, a finite number everywhere. */
Transformer *llama2c_load(const char *path);
/* The .bin's bytes in memory order into f (the writer in tiny_llama_setup.c gives the
 * file, written whole). Returns 0, or the errno of a failed write. */
int llama2c_write(FILE *f, const Transformer *m);

typedef struct {
    int32_t vocab_size;
    int32_t max_token_length;
    char **vocab;        /* the pieces, each NUL-terminated (a piece holding a NUL byte is refused) */
    int32_t *lens;       /* their lengths in bytes */
    float *scores;       /* BPE merge scores */
} Tokenizer;

/* Read a tokenizer.bin of vocab_size tokens; every length checked, no trailing bytes. */
Tokenizer *tokenizer_load(const char *path, int64_t vocab_size);
/* Its bytes into f. Returns 0 or errno. */
int tokenizer_write(FILE *f, const Tokenizer *t);
/* The token id of a piece, or -1. */
int32_t tokenizer_lookup(const Tokenizer *t, const char *piece, size_t len);
/* llama2.c's encode (run.c), for its sentencepiece tokenizer.bin: BOS (1) when bos, the dummy
 * prefix " " before a non-empty text, each UTF-8 character its piece or else its bytes as the
 * byte pieces (byte + 3), then, while some adjacent pair's concatenation is a piece, the pair
 * whose piece scores highest is merged. Returns the ids (at most strlen(text) + 2) in *n. */
int32_t *bpe_encode(const Tokenizer *t, const char *text, bool bos, int64_t *n);
/* llama2.c's decode of token after prev: its piece, the leading space dropped after BOS, a byte
 * piece "<0x0A>" as its byte. Returns a NUL-terminated string (owned by the scope). */
const char *bpe_decode(const Tokenizer *t, int32_t prev, int32_t token);

#endif
