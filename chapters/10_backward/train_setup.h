/* train_setup.h — chapter 10's tiny model as files: the folder that
 * `build/chapter10 --train --dump DIR` writes, which chapter 11's
 * `--generate DIR` reads back (torch.save(model.state_dict()) and
 * model.load_state_dict, one .npy per parameter). The lesson is in train.c. */
#ifndef CH10_TRAIN_SETUP_H
#define CH10_TRAIN_SETUP_H

#include "chapters/07_output_projection/mha_setup.h"
#include "chapters/10_backward/train.h"

/* dir/model_config.npy: (vocab, seq_len, dim, n_heads) as 4 floats, the
 * sizes the files do not say by themselves; then every parameter under its
 * name in tiny_params: tok_emb, pos_emb, wq, wk, wv, wo, bo, head.weight,
 * head.bias (wq ... bo are a chapter 7 weights folder). */
void tiny_model_save(const TinyModel *model, const char *dir);

/* The model of such a folder, causal, no dropout. A missing file, a config
 * that is not 4 whole numbers of at least 1, or a parameter of the wrong
 * shape is one sentence naming the file. */
TinyModel *tiny_model_load(const char *dir);

#endif
