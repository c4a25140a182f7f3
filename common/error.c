/* error.c — one sentence per misuse, delivered to a replaceable hook.
 *
 * The sentence is kept on one line: control bytes in it (a file name with a
 * newline or an ESC byte, say) are shown as escapes such as \n and \x1b, so
 * nothing raw reaches the terminal and every error stays one line. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char last_error[1024];
static const char *program_name = NULL;
static t_error_hook current_hook = NULL;
static void (*fatal_cleanup)(void) = NULL;

void t_set_fatal_cleanup(void (*cleanup)(void)) { fatal_cleanup = cleanup; }

t_error_hook t_set_error_hook(t_error_hook hook) {
    t_error_hook previous = current_hook;
    current_hook = hook;
    return previous;
}

void t_set_program_name(const char *name) { program_name = name; }

/* The word before an error's sentence: "error", or the run's language's (lang.h). */
static const char *error_label = "error";
void t_set_error_label(const char *label) { error_label = label && *label ? label : "error"; }

static const char *(*translator)(const char *en) = NULL;
void t_set_translator(const char *(*translate)(const char *en)) { translator = translate; }
const char *t_tr(const char *en) { return translator && en ? translator(en) : en; }
const char *t_strerror(int errnum) { return t_tr(strerror(errnum)); }

const char *t_program_name(void) { return program_name; }

const char *t_last_error(void) { return last_error; }

size_t t_escape(char *dst, size_t cap, const char *src) {
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    if (cap == 0) return 0;
    for (; *src; src++) {
        unsigned char c = (unsigned char)*src;
        char esc[5];
        size_t k;
        if (c == '\n') memcpy(esc, "\\n", k = 2);
        else if (c == '\t') memcpy(esc, "\\t", k = 2);
        else if (c == '\r') memcpy(esc, "\\r", k = 2);
        else if (c < 0x20 || c == 0x7f) {
            esc[0] = '\\', esc[1] = 'x', esc[2] = hex[c >> 4], esc[3] = hex[c & 15];
            k = 4;
        } else {
            esc[0] = (char)c;
            k = 1;
        }
        if (n + k >= cap) break;
        memcpy(dst + n, esc, k);
        n += k;
    }
    dst[n] = '\0';
    return n;
}

void t_error(const char *fmt, ...) {
    char raw[sizeof last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    t_escape(last_error, sizeof last_error, raw);
    if (current_hook) current_hook(last_error);
    /* default hook (or a hook that returned): a failed run leaves nothing it
     * wrote (out_fail in out.h), then one line and exit 1 */
    if (fatal_cleanup) fatal_cleanup();
    fflush(stdout);
    if (program_name)
        fprintf(stderr, t_tr("%s: %s: %s\n"), program_name, error_label, last_error);  /* zh: full-width colons */
    else
        fprintf(stderr, t_tr("%s: %s\n"), error_label, last_error);
    exit(EXIT_RUNTIME);
}
