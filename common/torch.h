/* torch.h — `import torch` for this project: one include for all of common/.
 *
 *   PyTorch                         here
 *   torch.Tensor                    Tensor *            (tensor.h)
 *   torch.manual_seed               t_manual_seed       (rng.h)
 *   torch.matmul, F.softmax, ...    t_matmul, t_softmax (ops.h)
 *   nn.Linear                       Linear, nn_linear   (nn.h)
 *   np.load / np.save               npy_load, npy_save  (npy.h)
 *   print(x)                        t_print             (print.h)
 *   argparse                        cli_parse           (cli.h)
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
#include "cli.h"
#include "narrate.h"
#include "state.h"
#include "heatmap.h"
#include "budget.h"
#include "out.h"

#endif
