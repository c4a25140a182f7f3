/* mha_setup.h — chapter 7's module and input for a program: from files or
 * the default run; the module's weights read from and written to a folder. */
#ifndef CH07_MHA_SETUP_H
#define CH07_MHA_SETUP_H

#include "chapters/05_multi_head/multi_head_setup.h"
#include "chapters/07_output_projection/mha.h"

/* With --input FILE --weights DIR, x from the file and the module from the
 * folder (chapter 5's load_input_for_heads, then mha_load; --dropout,
 * --resid-dropout and --causal from the flags), nothing narrated: a program
 * calls it before its title, so a file that does not fit is one sentence
 * before any output. NULL, and nothing loaded, without --input. */
MultiHeadAttention *mha_files_before_title(const Args *args, Tensor **x);

/* The module and x that chapter 7 and the chapters after it start from:
 * with --input and --weights, `loaded` (mha_files_before_title's; NULL: loaded
 * here), its load narrated; otherwise mha_default. Training mode. */
MultiHeadAttention *mha_from_args(const Args *args, MultiHeadAttention *loaded, Tensor **x);
/* The default run of chapter 7, and of the chapters that build on it:
 *     torch.manual_seed(args->seed)
 *     model = MultiHeadAttention(d_in, d_out, max_seq_len, dropout, heads)
 *     x = torch.randn(batch, seq_len, d_in)
 * chapter 5's default_model with this module, so the weights and x are
 * PyTorch's numbers (common/rng.h) and the checks come before any draw.
 * max_seq_len is args->max_seq_len when given (not 0), else 2 * seq_len;
 * --bias sets qkv_bias=True, --no-causal drops the mask, --resid-dropout
 * adds Happy-LLM's resid_dropout. Training mode (args->eval is left to the
 * caller). */
MultiHeadAttention *mha_default(const Args *args, Tensor **x);

/* A module whose weights come from a folder (wq wk wv wo [bq bk bv bo].npy).
 * args.d_in is the width of the input and every wq/wk/wv must be (d_out, d_in);
 * d_out comes from wq.npy (args.d_out, when not 0, must match it); wo must be
 * (d_out, d_out); qkv_bias is set when bq bk bv are there (all three or none)
 * and out_bias when bo is; each bias must be (d_out,). Errors name the file. */
MultiHeadAttention *mha_load(ModelArgs args, const char *dir);

/* Write wq wk wv wo (and bq bk bv bo when present) .npy into dir, the
 * layout mha_load reads (a state_dict as files). */
void mha_save(const MultiHeadAttention *m, const char *dir);

/* --dump DIR of chapter 7: chapter 5's save_heads_dump (x, wq wk wv, xq xk xv,
 * scores, attn_weights), then wo [bo] (so the folder is a --weights folder),
 * attn_dropped, merged (before wo), projected (after wo) and output. */
void mha_save_dump(const char *dir, const MultiHeadAttention *m, const Tensor *x, const MhaTrace *tr,
                   const Tensor *output);

#endif
