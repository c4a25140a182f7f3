/* narrate.c — numbered steps, PyTorch lines and one-sentence reasons on stdout. */
#include "common/program/narrate.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/print.h"

static bool quiet = false;
static int step_no = 0;

void narrate_set_quiet(bool q) { quiet = q; }
bool narrate_quiet(void) { return quiet; }

/* Print text wrapped at 80 columns; first line after `first`, others after `indent`. */
static void wrapped(const char *first, const char *indent, const char *text) {
    const int width = 80;
    int col = printf("%s", first);
    int pending_space = 0; /* spaces printed only if the next word stays on this line */
    const char *p = text;
    while (*p) {
        if (*p == '\n') {
            col = printf("\n%s", indent) - 1;
            pending_space = 0;
            p++;
            continue;
        }
        size_t word = strcspn(p, " \n");
        if (col + pending_space + (int)word > width && col > (int)strlen(indent)) {
            col = printf("\n%s", indent) - 1;
            pending_space = 0;
        }
        if (pending_space) col += printf("%*s", pending_space, "");
        col += printf("%.*s", (int)word, p);
        p += word;
        pending_space = 0;
        while (*p == ' ') {
            pending_space++;
            p++;
        }
    }
    printf("\n");
}

static void vwrapped(const char *first, const char *indent, const char *fmt, va_list ap) {
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    wrapped(first, indent, buf);
}

void narrate_title(const char *fmt, ...) {
    if (quiet) return;
    va_list ap;
    va_start(ap, fmt);
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t n = strlen(buf);
    printf("%s\n", buf);
    for (size_t i = 0; i < n && i < 80; i++) putchar('=');
    printf("\n");
}

void narrate_step(const char *fmt, ...) {
    if (quiet) return;
    va_list ap;
    char head[16];
    snprintf(head, sizeof head, "\n[%d] ", ++step_no);
    va_start(ap, fmt);
    vwrapped(head, "    ", fmt, ap);
    va_end(ap);
}

/* One PyTorch line, split to fit 80 columns: at "; " (one statement per
 * line), then before a "#" comment, then at spaces. */
void narrate_torch(const char *line) {
    if (quiet) return;
    const char *first = "    PyTorch: ", *indent = "             ";
    const int width = 80, avail = width - (int)strlen(first);
    const char *p = line;
    int n = 0;
    while (*p) {
        size_t len = strlen(p), take = len;
        const char *semi = strstr(p, "; ");
        if (semi && (int)len > avail) take = (size_t)(semi - p) + 1;  /* keep the ';' */
        if ((int)take > avail) {  /* still long: cut before a comment, else at a space */
            const char *hash = strstr(p, "  #");
            if (hash && hash > p && (size_t)(hash - p) < take && (int)(hash - p) <= avail) take = (size_t)(hash - p);
            else {
                size_t cut = 0;
                for (size_t i = 1; i < take && (int)i <= avail; i++)
                    if (p[i] == ' ') cut = i;
                if (cut > 0) take = cut;
            }
        }
        size_t shown = take;
        while (shown > 0 && p[shown - 1] == ' ') shown--;
        printf("%s%.*s\n", n++ ? indent : first, (int)shown, p);
        p += take;
        while (*p == ' ') p++;
    }
}

void narrate_torch_seed(uint64_t seed) {
    if (quiet) return;
    printf("    PyTorch: torch.manual_seed(%llu)\n", (unsigned long long)seed);
}

void narrate_why(const char *fmt, ...) {
    if (quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vwrapped("    why: ", "         ", fmt, ap);
    va_end(ap);
}

void narrate_say(const char *fmt, ...) {
    if (quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vwrapped("    ", "    ", fmt, ap);
    va_end(ap);
}

void narrate_show(const char *name, const Tensor *x) {
    if (quiet) return;
    t_print_named(name, x);
}

void narrate_layout(const char *name, const Tensor *x) {
    if (quiet) return;
    char s[T_SHAPE_STR], st[T_SHAPE_STR];
    char line[512];
    int n = snprintf(line, sizeof line, "    %s: shape %s  strides %s", name, t_shape_str(x, s),
                     t_strides_str(x, st));
    char tail[96];
    snprintf(tail, sizeof tail, "offset %lld  contiguous %s", (long long)x->offset,
             t_is_contiguous(x) ? "yes" : "no");
    if (n + 2 + (int)strlen(tail) <= 80) printf("%s  %s\n", line, tail);
    else printf("%s\n      %s\n", line, tail);
}

void narrate_result(const char *name, const Tensor *x) { t_print_named(name, x); }

void narrate_result_text(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}
