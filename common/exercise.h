/* exercise.h — what a blank of a generated exercise tree calls.
 *
 * `make exercises` (scripts/exercises/) replaces each chosen blank of the
 * chapter code with a comment naming the exercise and
 *
 *     exercise_missing("scale", "chapters/02_scaling/scaling.c:22", "Divide every score by ...");
 *
 * which raises the error sentence
 *
 *     exercise 'scale' (chapters/02_scaling/scaling.c:22) is not filled in: Divide every score by ...
 *
 * through t_error(): a chapter program prints it and exits 1. When the blank
 * has a Chinese hint, the stub's hint is "English\037中文" and a Chinese run
 * (--lang zh) prints the Chinese one, in a Chinese sentence; in a test the
 * harness's error hook turns it into a failed test that shows the sentence.
 * It never returns, so the code after a stub needs no value and the stub
 * compiles under the strict flags. Replace the whole call (and the (void)
 * lines above it) with your code.
 */
#ifndef COMMON_EXERCISE_H
#define COMMON_EXERCISE_H

#if defined(__GNUC__)
__attribute__((noreturn))
#endif
void exercise_missing(const char *name, const char *where, const char *hint);

#endif
