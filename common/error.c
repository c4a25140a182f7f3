/* error.c — one sentence per misuse, delivered to a replaceable hook. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static char last_error[1024];
static const char *program_name = NULL;
static t_error_hook current_hook = NULL;

t_error_hook t_set_error_hook(t_error_hook hook) {
    t_error_hook previous = current_hook;
    current_hook = hook;
    return previous;
}

void t_set_program_name(const char *name) { program_name = name; }

const char *t_last_error(void) { return last_error; }

void t_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    if (current_hook) current_hook(last_error);
    /* default hook (or a hook that returned): one line, exit 1 */
    fflush(stdout);
    if (program_name)
        fprintf(stderr, "%s: error: %s\n", program_name, last_error);
    else
        fprintf(stderr, "error: %s\n", last_error);
    exit(EXIT_RUNTIME);
}
