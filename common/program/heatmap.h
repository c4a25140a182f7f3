/* heatmap.h — attention weights as a shaded grid in the terminal (no Python).
 *
 *     causal attention weights
 *             Your    journey starts  with    one     step
 *     Your    ███████    ·       ·       ·       ·       ·
 *     journey ▒▒▒▒▒▒▒ ▒▒▒▒▒▒▒    ·       ·       ·       ·
 *     starts  ▒▒▒▒▒▒▒ ░░░░░░░ ░░░░░░░    ·       ·       ·
 *     ...
 *     rows: 6 queries, columns: 6 keys
 *     legend: ░ 0.15  ▒ 0.36  ▓ 0.58  █ 0.79  (min 0.1529, max 1.0000)
 *             · masked (-inf in the scores)
 *
 * Rows are queries, columns keys. Unicode shades ░▒▓█ by default, or the
 * plain ramp " .:-=+*#%@" with ascii = true (then the output is pure ASCII:
 * masked entries are '_', since '.' is a level of the ramp, and non-ASCII
 * characters in labels become '?'). Shades are relative to the min..max of
 * the unmasked values shown: the smallest gets ░ ('.'), the largest █ ('@');
 * the ramp's blank is never used, so every unmasked entry shows some ink.
 * An entry is drawn as '·' (masked) only where the mask put -inf: where
 * the drawn value itself is -inf, or where opt->scores (the scores before
 * softmax, same shape) is -inf. A weight that is exactly 0 although nothing
 * masked it (exp underflowed) is a value like any other, shaded as 0, and a
 * note counts such weights. NaN is drawn like '·' and reported.
 * With opt->row_scale every row is shaded on its own min..max, so the
 * differences inside a row show even when another row holds the largest
 * weight (the legend then says "per row").
 *
 * Fits max_width columns (labels are cut, columns narrowed, then written
 * vertically). Longer sequences are downsampled: more than HEATMAP_MAX_ROWS
 * queries, or more keys than fit, are grouped into blocks, each cell is the
 * mean of the unmasked entries of its block, and the grid says so
 * ("200 keys downsampled to 34 columns, each the mean of 6").
 */
#ifndef COMMON_HEATMAP_H
#define COMMON_HEATMAP_H

#include <stdbool.h>
#include <stdio.h>
#include "common/tensor.h"

typedef struct {
    const char *title;         /* printed above the grid, may be NULL          */
    const char *const *rows;   /* row labels (T of them) or NULL for 0, 1, ... */
    const char *const *cols;   /* column labels (S) or NULL                    */
    bool ascii;                /* plain ASCII ramp instead of ░▒▓█             */
    int max_width;             /* columns available; 0 means 80 (at least 24)  */
    bool index_titles;         /* print_all: title grids "index (i, j)" instead of
                                  "batch b, head h" (plain batch dims, chapters 1, 2, 4) */
    const Tensor *scores;      /* same shape as the weights, or NULL: -inf marks
                                  a masked entry (the scores after the mask)      */
    bool row_scale;            /* shade each row on its own min..max              */
} HeatmapOptions;

#define HEATMAP_MAX_ROWS  32   /* more queries than this are averaged in blocks */
#define HEATMAP_MAX_GRIDS 8    /* heatmap_print_all draws at most this many     */

/* Draw a 2-D (T, S) tensor (any strides); opt may be NULL. Other shapes are
 * an error sentence. */
void heatmap_fprint(FILE *f, const Tensor *weights, const HeatmapOptions *opt);
/* Draw every (T, S) matrix of a (..., T, S) tensor to stdout, e.g. one grid
 * per head of (B, H, T, S), each titled "batch 0, head 1" (after opt->title
 * and ": " when a title is given; (B, T, S) gives "batch 0"). At most
 * HEATMAP_MAX_GRIDS grids; the output says how many more there were. */
void heatmap_print_all(const Tensor *weights, const HeatmapOptions *opt);
/* The same, to any stream. */
void heatmap_fprint_all(FILE *f, const Tensor *weights, const HeatmapOptions *opt);

#endif
