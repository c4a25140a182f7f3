/* torch.h — `import torch` for this project: one include for the small tensor
 * library that plays PyTorch's part. Concept code includes this and nothing
 * of common/program/ (flags, narration, heatmaps, budgets, output files: the
 * furniture that makes a chapter a program).
 *
 *   PyTorch                         here
 *   torch.Tensor                    Tensor *            (tensor.h)
 *   torch.manual_seed               t_manual_seed       (rng.h)
 *   torch.matmul, F.softmax, ...    t_matmul, t_softmax (ops.h)
 *   nn.Linear                       Linear, nn_linear   (nn.h)
 *   np.load / np.save               npy_load, npy_save  (npy.h)
 *   model.load_state_dict           state_load          (state.h)
 *   print(x)                        t_print             (print.h)
 */
#ifndef COMMON_TORCH_H
#define COMMON_TORCH_H

#include <math.h>

#include "error.h"
#include "tensor.h"
#include "rng.h"
#include "ops.h"
#include "nn.h"
#include "npy.h"
#include "print.h"
#include "state.h"

#endif
