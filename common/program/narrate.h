/* narrate.h — how every chapter program talks: numbered steps, each with the
 * PyTorch line it mirrors, the tensor it made (shape and values) and one
 * sentence of why.
 *
 *     narrate_step("Scores: how well each query matches each key");
 *     narrate_torch("scores = torch.matmul(query, key.transpose(-2, -1))");
 *     narrate_show("scores", scores);        // (6, 6) and its values
 *     narrate_why("a large dot product means the key points where the query does");
 *
 * prints
 *
 *     [3] Scores: how well each query matches each key
 *         PyTorch: scores = torch.matmul(query, key.transpose(-2, -1))
 *         scores = tensor([[...]])  shape (6, 6)
 *         why: a large dot product means the key points where the query does
 *
 * With --quiet (narrate_set_quiet(true)) only narrate_result() prints.
 */
#ifndef COMMON_NARRATE_H
#define COMMON_NARRATE_H

#include <stdbool.h>
#include "common/tensor.h"

void narrate_set_quiet(bool quiet);
bool narrate_quiet(void);

/* Title line of the program (chapter number and concept). */
void narrate_title(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* "[N] title" with N counting up from 1. */
void narrate_step(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* "    PyTorch: <line>" */
void narrate_torch(const char *line);
/* "    PyTorch: torch.manual_seed(<seed>)" */
void narrate_torch_seed(uint64_t seed);
/* "    why: <sentence>", wrapped at 80 columns */
void narrate_why(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Free text, indented like the rest of the step, wrapped at 80 columns. */
void narrate_say(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* "name = tensor(...)" with its shape (at column 0, like print(x) in Python). */
void narrate_show(const char *name, const Tensor *x);
/* "name: shape (..) strides (..) contiguous yes/no" — the layout without values. */
void narrate_layout(const char *name, const Tensor *x);
/* Printed even with --quiet: the results of the run. */
void narrate_result(const char *name, const Tensor *x);
void narrate_result_text(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
