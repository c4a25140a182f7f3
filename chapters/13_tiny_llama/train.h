/* train.h — chapter 13: characters as tokens, the corpus, AdamW with warmup and cosine decay,
 * gradient clipping: Happy-LLM 5.2's training loop at tiny size.
 *
 *     optimizer = torch.optim.AdamW(model.parameters(), lr, betas=(0.9, 0.95), weight_decay=0.1)
 *     def get_lr(it):                         # warmup, then cosine decay to lr / 10
 *         if it < warmup_iters: return lr * (it + 1) / warmup_iters
 *         ratio = (it - warmup_iters) / (max_iters - warmup_iters)
 *         return min_lr + 0.5 * (1 + math.cos(math.pi * ratio)) * (lr - min_lr)
 *     for it in range(max_iters):
 *         X, Y = get_batch('train')                # random windows of seq_len + 1 characters
 *         loss = model(X, Y).last_loss.mean(); loss.backward()
 *         torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
 *         optimizer.step(); optimizer.zero_grad(set_to_none=True)
 *
 * Weight decay applies to the matrices (2-D), not to the RMSNorm weights, as nanoGPT and
 * Happy-LLM's pretraining script configure AdamW's parameter groups. The chapter's default run
 * (main.c) takes weight_decay=1.0 and lr 1e-3, and starts each window at a line's start
 * (get_batch's line_break): on 313 poems that keeps the validation loss lower while a head
 * learns to look back to the previous line (measured: the README's trials).
 */
#ifndef CH13_TRAIN_H
#define CH13_TRAIN_H

#include "checkpoint.h"

/* A text as code points, its vocabulary (the distinct code points, sorted) and the ids. */
typedef struct {
    int32_t *cps;        /* the text's code points, n of them           */
    int64_t n;
    int32_t *vocab;      /* sorted distinct code points, vocab_size      */
    int64_t vocab_size;
    int32_t *ids;        /* ids[i] = index of cps[i] in vocab            */
} Corpus;

/* UTF-8 bytes -> code points; a malformed sequence is a sentence naming `what` and the byte offset. */
int32_t *utf8_decode(const char *what, const unsigned char *s, size_t len, int64_t *n);
/* One code point as UTF-8 into out (at most 4 bytes); returns the length. */
int utf8_encode(int32_t cp, char *out);
/* Debian fortunes-zh's tang300: lines holding an escape (ESC, the colour codes around titles
 * and authors) and the `%` separators dropped; the poems' lines kept, each ending in "\n". */
char *clean_fortunes(const char *text, size_t len, size_t *out_len);
/* A seeded corpus of `poems` poems with tang300's shape: four lines of two halves of 5 or 7
 * characters ("，" between them, "。" at the end), the second and fourth lines ending in
 * characters of one rhyme group. */
char *generated_poems(uint64_t seed, int poems, size_t *out_len);
/* The corpus of a text: vocabulary and ids. */
Corpus corpus_of(const char *what, const char *text, size_t len);
/* The ids of text in an existing vocabulary; a character outside it is a sentence (its
 * code point and where it is). */
int32_t *corpus_encode(const Corpus *c, const char *what, const char *text, size_t len, int64_t *n);
/* The vocabulary of a character tokenizer (each piece one UTF-8 character, sorted by code point,
 * as char_tokenizer writes them); anything else is a sentence naming `what`. */
Corpus corpus_from_tokenizer(const char *what, const Tokenizer *t);
/* The tokenizer.bin of a character vocabulary: each piece one character's UTF-8, score 0. */
Tokenizer *char_tokenizer(const Corpus *c);
/* The unigram entropy, nats per character, of ids[0..n): -sum p log p over the counts: the loss
 * of the best model that ignores context, on that text. */
double unigram_entropy(const int32_t *ids, int64_t n, int64_t vocab_size);

typedef struct {
    int64_t steps, warmup, batch, seq_len;
    double lr, min_lr, weight_decay, beta1, beta2, eps, grad_clip;
} TrainConfig;

typedef struct {
    Tensor **m, **v;     /* AdamW's moments, one per parameter */
    int64_t step;        /* steps taken                        */
} AdamW;

AdamW *adamw_new(const Transformer *model);
/* get_lr(it) */
double lr_at(const TrainConfig *tc, int64_t it);
/* clip_grad_norm_: scales every gradient by min(1, clip / norm); returns the norm before. */
double clip_grad_norm(Tensor **grads, int n, double clip);
/* optimizer.step() at learning rate lr. */
void adamw_step(AdamW *opt, Transformer *model, Tensor **grads, const TrainConfig *tc, double lr);
/* One step on a batch (inputs, targets (B, T)): forward, loss, backward, clip, AdamW.
 * Returns the loss before the step. The step's memory is kept for the next step
 * (t_scope_end_keep); t_keep_release frees it after the last. */
double train_step(Transformer *model, AdamW *opt, const TrainConfig *tc, const int32_t *inputs,
                  const int32_t *targets, double lr);
/* Random windows of seq_len + 1 ids from ids[0..n): inputs and targets (B, seq_len), drawn
 * with the seeded generator (torch.randint); with line_break >= 0 (the id of "\n"), each
 * window moved back to the start of its line when that is at most seq_len characters before
 * (-1: windows start anywhere). */
void get_batch(const int32_t *ids, int64_t n, int64_t B, int64_t T, int32_t line_break, int32_t *inputs,
               int32_t *targets);
/* Mean loss over consecutive windows of the text (every character predicted once, at most
 * max_windows windows of seq_len). */
double evaluate(const Transformer *model, const int32_t *ids, int64_t n, int64_t seq_len, int64_t max_windows);

#endif
