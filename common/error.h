/* error.h — every misuse ends in one sentence.
 *
 * Library code never prints and exits on its own: it calls t_error() with a
 * sentence naming the operation, the shapes and the rule broken, e.g.
 *     matmul: (3, 5, 10) @ (8, 8): inner dims 10 != 8
 * t_error() stores the sentence (t_last_error()) and calls the error hook.
 * The default hook removes what the run wrote (t_set_fatal_cleanup), prints
 * "<program>: error: <sentence>" on stderr and exits with 1, which is what a
 * chapter program wants. Tests install a hook that
 * longjmp()s back, so they can check the message (see tests/harness.h).
 */
#ifndef COMMON_ERROR_H
#define COMMON_ERROR_H

#include <stddef.h>

/* Exit codes of every program: 0 ok, 1 runtime error, 2 usage error (README). */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* A hook gets the finished sentence. It must not return (exit or longjmp);
 * if it does, t_error() exits with EXIT_RUNTIME anyway. */
typedef void (*t_error_hook)(const char *message);

/* Install a hook; NULL restores the default. Returns the previous hook. */
t_error_hook t_set_error_hook(t_error_hook hook);

/* Raise an error: printf-style sentence, no trailing newline needed. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
void t_error(const char *fmt, ...);

/* The last sentence passed to t_error() ("" if none yet). */
const char *t_last_error(void);

/* Name printed before messages by the default hook, e.g. "chapter4". */
void t_set_program_name(const char *name);
const char *t_program_name(void);  /* NULL when not set */
/* The word between the program's name and an error's sentence ("chapter4: error: ..."):
 * "error" unless set (common/program sets the run's language's, lang.h). */
void t_set_error_label(const char *label);

/* The run's language for the sentences common/ writes (the .npy loader's, the
 * weights folder's): t_tr(en) is what the translator returns for en, or en
 * itself when none is set. common/program sets its tr() (lang.h), so a library
 * never includes the program's furniture. t_strerror(e) is strerror(e)
 * through the same translator. */
void t_set_translator(const char *(*translate)(const char *en));
const char *t_tr(const char *en);
const char *t_strerror(int errnum);

/* Called by the default hook before it exits (out.h registers out_fail, so
 * a failed run leaves none of the files it was writing). */
void t_set_fatal_cleanup(void (*cleanup)(void));

/* Copy src into dst (cap bytes, always terminated) with control bytes shown
 * as escapes (\n, \t, \r, \x1b, ...), so a file name cannot break a
 * message into lines or send raw bytes to the terminal. t_error does this
 * to every sentence. Returns the length written. */
size_t t_escape(char *dst, size_t cap, const char *src);

#endif
