/* program.h — what makes a chapter a program, on top of the torch (common/torch.h):
 *
 *   argparse                        cli_parse, program_start  (cli.h)
 *   the narrated steps              narrate_step, ...         (narrate.h)
 *   attention pictures              heatmap_print_all         (heatmap.h)
 *   what a run holds                budget_refuse_if_over     (budget.h)
 *   files written all or nothing    out_open, out_close       (out.h)
 *   --q, --k, --v loaded, checked   load_qkv_files            (qkv_files.h)
 *
 * A chapter's main.c (and its *_setup.c: loading, saving, arguments) include
 * this; its concept code includes only the torch.
 */
#ifndef COMMON_PROGRAM_H
#define COMMON_PROGRAM_H

#include "common/torch.h"
#include "common/program/cli.h"
#include "common/program/narrate.h"
#include "common/program/heatmap.h"
#include "common/program/budget.h"
#include "common/program/out.h"
#include "common/program/qkv_files.h"

#endif
