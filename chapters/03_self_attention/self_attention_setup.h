/* self_attention_setup.h — chapter 3's weights and input from and to .npy files:
 * what --weights DIR, --input FILE and --dump read and write, for chapter 3
 * and the chapters built on its projections. */
#ifndef CH03_SELF_ATTENTION_SETUP_H
#define CH03_SELF_ATTENTION_SETUP_H

#include "common/torch.h"
#include "chapters/03_self_attention/self_attention.h"

/* Load wq.npy wk.npy wv.npy (and bq.npy bk.npy bv.npy when present) from a
 * weights folder. Every matrix must be (d_out, d_in) with d_in the width of
 * the input, all three the same shape; biases all present or all absent,
 * each (d_out,). Errors name the file, its shape and the rule. */
QKVProjection *qkv_load(const char *dir, int64_t d_in);

/* Write wq.npy wk.npy wv.npy (and bq.npy bk.npy bv.npy when there are
 * biases) into dir, the layout qkv_load reads: with x.npy beside them a run
 * can be replayed with --input and --weights, or in PyTorch. */
void qkv_save(const QKVProjection *p, const char *dir);

/* np.load(path) for --input: a (B, T, d_in) tensor with every size >= 1;
 * anything else is an error sentence naming the file and its shape. */
Tensor *load_input(const char *path);

#endif
