/* multi_head_setup.h — how the programs of chapters 5, 6 and 7 (and the
 * chapters that take their flags) get their data: what a run holds, then x
 * and W_q, W_k, W_v from files (--input, --weights) or the default run drawn as
 * PyTorch draws it. The lesson is in multi_head.h. */
#ifndef CH05_MULTI_HEAD_SETUP_H
#define CH05_MULTI_HEAD_SETUP_H

#include "common/program/program.h"
#include "chapters/03_self_attention/self_attention_setup.h"
#include "chapters/05_multi_head/multi_head.h"

/* The narration of chapter 5 (and of these helpers) in Chinese (zh.c; lang.h). */
extern const LangPair chapter5_zh[];

/* What a run of chapter 5, 6 or 7 holds (common/program/budget.h), from its
 * flags and the headers of its files: refused in one sentence, before any work,
 * when it would not fit in memory. score_buffers (B, H, T, T) and
 * square_buffers (B, T, T) buffers are held at once, as each chapter measured;
 * the program computes `passes` attentions (the long-run notice). */
void multi_head_refuse_past_budget(const Args *a, double score_buffers, double square_buffers, double passes);

/* The size flags that --input and --weights replace in chapters 5, 6, 7, 9 and 10
 * (load_or_default names those a run was given anyway). */
#define MODULE_SIZE_FLAGS (CLI_BATCH | CLI_D_IN | CLI_D_OUT | CLI_BIAS)

/* Chapters 5 and 6 before their title: with --input and --weights, x and W_q, W_k, W_v loaded
 * and checked (load_input_for_heads, qkv_load_for_heads), nothing narrated, so a file that does
 * not fit is one sentence before any output; *x gets x (B, T, d_in) and *max_seq_len the mask
 * buffer's size. NULL, and nothing loaded, without --input (the default run draws after the title). */
QKVProjection *heads_files_before_title(const Args *args, Tensor **x, int64_t *max_seq_len);

/* The first step of chapters 5 and 6: W_q, W_k, W_v and x, from the files
 * (`loaded`, heads_files_before_title's; its load narrated here) or the default run
 * (qkv_default, narrated as the step default_step_title), then x shown. Returns the
 * projections; *x gets x (B, T, d_in) and *max_seq_len the mask buffer's size. */
QKVProjection *projections_and_input(const Args *args, const char *default_step_title, QKVProjection *loaded,
                                     Tensor **x, int64_t *max_seq_len);

/* The --input FILE --weights DIR branch of chapters 5, 6 and 7, and of the
 * chapters that take their flags:
 *     x = torch.from_numpy(np.load(input))      # (B, T, d_in)
 * returns x; *max_seq_len (may be NULL) gets the size of the mask buffer:
 * --max-seq-len, or else --seq-len, or else T; shorter than T is an error.
 * Checks that the (B, n_heads, T, T) scores fit; narrates nothing (a program loads before its
 * title, then narrate_input_load says it). The caller loads the weights
 * (qkv_load_for_heads, or chapter 7's mha_load) from args->weights. */
Tensor *load_input_for_heads(const Args *args, int64_t n_heads, int64_t *max_seq_len);

/* The step that says x and the weights were loaded from --input and --weights
 * (load_or_default names the size flags that the files override). */
void narrate_input_load(const Args *args);

/* wq, wk, wv from args->weights for an x of width d_in (chapter 3's
 * qkv_load); their d_out must be a multiple of n_heads. */
QKVProjection *qkv_load_for_heads(const Args *args, int64_t d_in, int64_t n_heads);

/* The default run of chapters 5, 6 and 7 (and of the chapters after them), in
 * PyTorch's order, so the weights and x are PyTorch's numbers:
 *     torch.manual_seed(seed)
 *     model = make_module(args, max_seq_len)     # its nn.Linear layers draw here
 *     x = torch.randn(batch, seq_len, d_in)
 * First the checks that need no numbers: d_out % heads, seq_len <= max_seq_len
 * when causal (chapter 4's check_seq_len) and that the scores fit. max_seq_len
 * is --max-seq-len, or 2 * seq_len by default; *max_seq_len (may be NULL) gets
 * it. Returns what make_module made. */
void *default_model(const Args *args, void *(*make_module)(const Args *args, int64_t max_seq_len), Tensor **x,
                    int64_t *max_seq_len);

/* The default run of chapters 5 and 6: default_model with the 手撕 MHA class's
 * W_query, W_key, W_value (nn.Linear(d_in, d_out, bias=qkv_bias)). */
QKVProjection *qkv_default(const Args *args, Tensor **x, int64_t *max_seq_len);

/* --dump DIR of chapters 5 and 6: x and wq wk wv (a run that --input/--weights
 * replays), then the heads' xq, xk, xv (bsz, n_heads, seqlen, head_dim), the
 * scores and the weights (bsz, n_heads, seqlen, seqlen). The caller adds its own. */
void save_heads_dump(const char *dir, const QKVProjection *p, const Tensor *x, const Tensor *xq, const Tensor *xk,
                     const Tensor *xv, const Tensor *scores, const Tensor *attn_weights);

#endif
