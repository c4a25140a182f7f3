/* budget.h — what a run may cost, said before it starts; and progress while it runs.
 *
 * Memory: before computing, a chapter program estimates the most it will hold
 * at once (every (..., T, S) buffer, its dumps, its reference copies) and
 * refuses with one sentence when that is more than the budget:
 *
 *     chapter4: error: this run needs about 22.9 GiB of memory (the
 *     max_seq_len x max_seq_len mask buffers), more than the budget of
 *     11.7 GiB (half of this machine's memory); lower --seq-len, or raise
 *     ATTN_MAX_BYTES
 *
 * The budget is ATTN_MAX_BYTES (bytes; a K, M, G or T suffix counts 1024s:
 * 2G, 512M) or else half of the physical memory (or of a smaller cgroup
 * limit). The same figure caps every allocation while the run goes on
 * (t_set_run_budget), so a low estimate still ends in a sentence, never in
 * the out-of-memory killer.
 *
 * Time: the same estimate gives floating-point operations; at a rate measured
 * for each chapter's code on a slow machine it gives seconds. A run estimated
 * at more than ATTN_MAX_SECONDS (default 60) refuses, naming the estimate and
 * the variable to set (ATTN_MAX_SECONDS=0 means no limit).
 *
 * Progress: a run estimated at more than 2 s shows, on standard error and
 * only when that is a terminal, one line "chapterN: 40% ... about 12 s left"
 * that updates in place and is erased at the end. Chapter 8 ticks it itself
 * after each (batch, head) slice (budget_progress); the others show the
 * elapsed share of the estimate, updated once a second.
 */
#ifndef COMMON_BUDGET_H
#define COMMON_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

/* Half of the physical memory (or of a smaller cgroup limit); 4 GiB when the
 * system does not say. */
size_t budget_default_bytes(void);
/* "2000000000", "1.5e9", "512M", "2G", "2GiB" -> bytes. False for NULL, ""
 * or anything else (then *out is untouched). */
bool budget_parse_bytes(const char *text, size_t *out);
/* "90", "2.5", "0" (no limit) -> seconds. False for anything else. */
bool budget_parse_seconds(const char *text, double *out);
/* The environment variables above: 0 when they are absent or valid, else 2
 * with one sentence in err (a usage error; cli_parse reports it). */
int budget_check_env(char *err, size_t errlen);

/* The time limit in seconds (ATTN_MAX_SECONDS, default 60; 0 = none). */
double budget_max_seconds(void);

/* A chapter's whole estimate, after its flags are parsed: refuses (t_error)
 * a run past the memory or time budget, sets the run budget for t_alloc and
 * starts the progress line for a long run. chapter is 0..8. */
void budget_check(int chapter, const Args *args);

/* The core of budget_check, for any estimate: bytes held at most at once,
 * the largest single buffer among them, seconds; `what` names the buffers
 * that dominate, `flag` what to lower. When the largest buffer alone is past
 * the limit, the chapter's own check (which names that buffer's shape) is
 * left to speak. Budgets under 64 MiB limit each allocation only. */
void budget_refuse_if_over(double bytes, double largest, double seconds, const char *what, const char *flag);

/* The seconds budget_check estimated for this run (0 before it ran). */
double budget_estimated_seconds(void);

/* Chapter 8's own progress: done of total units of work are finished. The
 * first call starts the clock; nothing is shown unless standard error is a
 * terminal and the run is expected to take more than 2 s. */
void budget_progress(double done, double total);
/* Erase the progress line (at the end; also done at exit). */
void budget_progress_end(void);

#endif
