/* narrate.c — numbered steps, PyTorch lines and one-sentence reasons on stdout. */
#include "common/program/narrate.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/print.h"
#include "common/program/lang.h"

static bool quiet = false;
static int step_no = 0;

void narrate_set_quiet(bool q) { quiet = q; }
bool narrate_quiet(void) { return quiet; }

/* One UTF-8 character at p: its code point, *len its bytes. */
static unsigned long decode(const char *p, size_t *len) {
    unsigned char c = (unsigned char)p[0];
    unsigned long cp = c;
    size_t need = 0, i;
    if (c >= 0xF0) { cp = c & 7; need = 3; }
    else if (c >= 0xE0) { cp = c & 15; need = 2; }
    else if (c >= 0xC0) { cp = c & 31; need = 1; }
    for (i = 1; i <= need && ((unsigned char)p[i] & 0xC0) == 0x80; i++) cp = (cp << 6) | ((unsigned char)p[i] & 63);
    *len = i;
    return cp;
}

static bool is_wide_at(const char *p) {
    size_t n;
    return (unsigned char)*p >= 0xE0 && lang_columns(p, (decode(p, &n), n)) == 2;
}

/* Chinese punctuation that never starts a line (it stays with the word before it),
 * and the opening kind that never ends one. */
static bool closes(const char *p) {
    static const char *const marks[] = {"，", "。", "、", "；", "：", "！", "？", "）", "」", "』", "》", "”"};
    size_t i;
    for (i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (strncmp(p, marks[i], strlen(marks[i])) == 0) return true;
    return false;
}
static bool opens(const char *p) {
    return strncmp(p, "（", strlen("（")) == 0 || strncmp(p, "「", strlen("「")) == 0 ||
           strncmp(p, "“", strlen("“")) == 0 || strncmp(p, "《", strlen("《")) == 0;
}

/* Chinese is measured in terminal columns (a CJK character takes two) and may break
 * between two CJK characters; English keeps the measure its transcripts were made
 * with (bytes) and breaks at spaces only. */
static bool zh(void) { return lang_current() == LANG_ZH; }
static int columns(const char *p, size_t n) { return zh() ? lang_columns(p, n) : (int)n; }

/* The bytes of a run of ASCII code at p up to the next space, CJK character or end;
 * a bracket it opens, ( or [, holds the spaces after its commas up to its close, so a
 * list in a Chinese sentence (a slice "mask[:, :seqlen, :seqlen]", a shape
 * "(1, 1, L, L)") is never cut in two. An unclosed bracket holds nothing, nor does one
 * with a space not after a comma (a formula, English words) or a long one (more than
 * CODE_HELD bytes). */
#define CODE_HELD 32
static size_t code_run(const char *p) {
    size_t n = 0, first_space = 0;
    int depth = 0;
    while (p[n] && p[n] != '\n' && !is_wide_at(p + n)) {
        if (p[n] == ' ') {
            if (depth <= 0) break;
            if (!first_space) first_space = n;
            if (p[n - 1] != ',') return first_space;   /* words, not a list: "(a sin t + b cos t)" */
        } else if (p[n] == '(' || p[n] == '[') {
            depth++;
        } else if ((p[n] == ')' || p[n] == ']') && depth > 0) {
            depth--;
        }
        n++;
    }
    return first_space && (depth > 0 || n > CODE_HELD) ? first_space : n;
}

/* The bytes of the next unbreakable piece at p: a run of non-space characters up to
 * the next CJK character (ASCII code keeps its bracketed spaces: code_run), or one
 * CJK character (a line may break between two of them, as Chinese text does), with
 * the punctuation that must stay beside it. */
static size_t piece(const char *p) {
    size_t n = 0, len;
    if (!zh()) return strcspn(p, " \n");
    for (;;) {
        if (is_wide_at(p + n)) {
            bool open = opens(p + n);
            decode(p + n, &len);
            n += len;
            if (open && p[n] && p[n] != ' ' && p[n] != '\n') continue;
        } else {
            n += code_run(p + n);
        }
        while (closes(p + n)) { decode(p + n, &len); n += len; }
        return n;
    }
}

/* Print text wrapped at 80 terminal columns (a CJK character takes two); first line
 * after `first`, others after `indent`. */
static void wrapped(const char *first, const char *indent, const char *text) {
    const int width = 80, indent_cols = columns(indent, strlen(indent));
    int col = columns(first, strlen(first));
    int pending_space = 0; /* spaces printed only if the next word stays on this line */
    const char *p = text;
    printf("%s", first);
    while (*p) {
        if (*p == '\n') {
            printf("\n%s", indent);
            col = indent_cols;
            pending_space = 0;
            p++;
            continue;
        }
        size_t word = piece(p);
        int w = columns(p, word);
        if (col + pending_space + w > width && col > indent_cols) {
            printf("\n%s", indent);
            col = indent_cols;
            pending_space = 0;
        }
        if (pending_space) col += printf("%*s", pending_space, "");
        printf("%.*s", (int)word, p);
        col += w;
        p += word;
        pending_space = 0;
        while (*p == ' ') {
            pending_space++;
            p++;
        }
    }
    printf("\n");
}

/* A sentence may hold a name from the command line (a file, a folder): its
 * control bytes are printed escaped (\n, \x1b), so the sentence stays one line. */
static void vwrapped(const char *first, const char *indent, const char *fmt, va_list ap) {
    char raw[4096], buf[4096];
    vsnprintf(raw, sizeof raw, tr(fmt), ap);
    t_escape(buf, sizeof buf, raw);
    wrapped(first, indent, buf);
}

void narrate_title(const char *fmt, ...) {
    if (quiet) return;
    va_list ap;
    va_start(ap, fmt);
    char raw[512], buf[512];
    vsnprintf(raw, sizeof raw, tr(fmt), ap);
    va_end(ap);
    t_escape(buf, sizeof buf, raw);  /* a file name in the title stays on its line */
    size_t n = (size_t)columns(buf, strlen(buf));
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

/* One PyTorch line, split to fit 80 columns (a Chinese comment's characters take
 * two each): at "; " (one statement per line), then before a "#" comment, then at
 * spaces. */
void narrate_torch(const char *line) {
    if (quiet) return;
    const char *first = "    PyTorch: ", *indent = "             ";
    const int width = 80, avail = width - (int)strlen(first);
    const char *p = line;
    int n = 0;
    while (*p) {
        size_t len = strlen(p), take = len;
        const char *semi = strstr(p, "; ");
        if (semi && columns(p, len) > avail) take = (size_t)(semi - p) + 1;  /* keep the ';' */
        if (columns(p, take) > avail) {  /* still long: cut before a comment, else at a space */
            const char *hash = strstr(p, "  #");
            if (hash && hash > p && (size_t)(hash - p) < take && columns(p, (size_t)(hash - p)) <= avail)
                take = (size_t)(hash - p);
            else {  /* a space outside [ ], so `mask[:, :seqlen]` stays on one line; else any space */
                size_t cut = 0, cut_inside = 0;
                int depth = 0;
                for (size_t i = 1; i < take && columns(p, i) <= avail; i++) {
                    if (p[i - 1] == '[') depth++;
                    if (p[i - 1] == ']' && depth > 0) depth--;
                    if (p[i] == ' ') {
                        if (depth == 0) cut = i;
                        else cut_inside = i;
                    }
                }
                if (cut == 0) cut = cut_inside;
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
    if (lang_current() == LANG_ZH) vwrapped("    说明：", "          ", fmt, ap);
    else vwrapped("    why: ", "         ", fmt, ap);
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
    snprintf(line, sizeof line, tr("    %s: shape %s  strides %s"), name, t_shape_str(x, s), t_strides_str(x, st));
    char tail[96];
    snprintf(tail, sizeof tail, tr("offset %lld  contiguous %s"), (long long)x->offset,
             tr(t_is_contiguous(x) ? "yes" : "no"));
    if (columns(line, strlen(line)) + 2 + columns(tail, strlen(tail)) <= 80) printf("%s  %s\n", line, tail);
    else printf("%s\n      %s\n", line, tail);
}

void narrate_result(const char *name, const Tensor *x) { t_print_named(name, x); }

void narrate_result_text(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(tr(fmt), ap);
    va_end(ap);
    printf("\n");
}
