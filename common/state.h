/* state.h — a folder of .npy files as a state_dict (model.load_state_dict).
 *
 * A weights folder holds one file per parameter, named as in the README:
 * wq.npy wk.npy wv.npy (nn.Linear layout (d_out, d_in)), wo.npy, and the
 * optional biases bq.npy bk.npy bv.npy bo.npy.
 */
#ifndef COMMON_STATE_H
#define COMMON_STATE_H

#include "tensor.h"

/* dir/name.npy; a missing file is an error naming the folder and file, and
 * any other problem (permission, a directory, a dangling link) names its cause. */
Tensor *state_load(const char *dir, const char *name);
/* dir/name.npy, or NULL when no such name exists in the folder; a name that
 * exists must load (an unreadable bias is an error, not "no bias"). */
Tensor *state_load_optional(const char *dir, const char *name);

#endif
