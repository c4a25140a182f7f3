/* dropout.h — chapter 6: dropout on the attention weights (nn.Dropout).
 *
 *     self.attn_dropout = nn.Dropout(args.dropout)
 *     scores = self.attn_dropout(scores)        # after softmax, before @ xv
 *
 * Inverted dropout: in training, each element is kept with probability 1-p
 * and then multiplied by 1/(1-p), or set to 0; in eval (model.eval()) it is
 * the identity. The rescale keeps every element's expectation unchanged, so
 * nothing has to change between training and eval. p = 0 is the identity,
 * p = 1 zeroes everything (as PyTorch). Random draws come from the global
 * generator (t_manual_seed): the same seed drops the same elements.
 */
#ifndef CH06_DROPOUT_H
#define CH06_DROPOUT_H

#include "common/torch.h"

typedef struct {
    double p;        /* probability of dropping an element, 0 <= p <= 1 */
    bool training;   /* module.train() / module.eval()                   */
} Dropout;

/* nn.Dropout(p), in training mode like a fresh module. p outside [0, 1] is an error. */
Dropout dropout_new(double p);

/* dropout(x): a new tensor; in eval mode (or p = 0) a copy of x.
 * When mask is not NULL, *mask gets a new tensor of x's shape holding what
 * each element of x was multiplied by (PyTorch's `noise`): 0 where the
 * element was dropped and 1/(1-p) (as a float) where it was kept; all ones
 * in eval mode or with p = 0, all zeros with p = 1 (in training). So the
 * output is x * mask elementwise, and a backward can reuse the very mask the
 * forward applied. Asking for the mask draws nothing more: the same seed
 * drops the same elements whether mask is NULL or not. */
Tensor *dropout_forward(const Dropout *d, const Tensor *x, Tensor **mask);

/* How many entries of x are exactly 0 (dropped, or masked before dropout):
 * what the chapter 6 and 7 programs count to show the dropped fraction. */
int64_t count_zeros(const Tensor *x);

#endif
