/* mha_setup.h — chapter 7's module and input for a program: from files or the default run. */
#ifndef CH07_MHA_SETUP_H
#define CH07_MHA_SETUP_H

#include "chapters/05_multi_head/multi_head_setup.h"
#include "chapters/07_output_projection/mha.h"

/* The default run of chapter 7, and of the chapters that build on it:
 *     torch.manual_seed(args->seed)
 *     model = MultiHeadAttention(d_in, d_out, max_seq_len, dropout, heads)
 *     x = torch.randn(batch, seq_len, d_in)
 * in that order, so the weights and x are PyTorch's numbers (common/rng.h).
 * max_seq_len is args->max_seq_len when given (not 0), else 2 * seq_len;
 * --bias sets qkv_bias=True, --no-causal drops the mask, --resid-dropout
 * adds Happy-LLM's resid_dropout. Training mode (args->eval is left to the
 * caller). Checks d_out % heads and that the scores fit before drawing. */
MultiHeadAttention *mha_default(const Args *args, Tensor **x);
/* The module and x that chapter 7 and the chapters after it start from:
 * with --input FILE --weights DIR, x from the file and the module from the
 * folder (load_input_for_heads of chapter 5, then mha_load; --dropout, --resid-dropout
 * and --causal from the flags); otherwise mha_default. Training mode. */
MultiHeadAttention *mha_from_args(const Args *args, Tensor **x);
/* max_seq_len of mha_default for these flags. */
int64_t mha_default_max_seq_len(const Args *args);

#endif
