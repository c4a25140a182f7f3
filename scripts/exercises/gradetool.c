/* gradetool.c — the grader's trusted side, where shell and awk would have to
 * handle text that students control (make grade, make grade-class).
 *
 *     gradetool list SUBMISSIONS      one line per student folder: "id<TAB>ok" or
 *                                     "id<TAB>bad<TAB>reason" (sorted by name)
 *     gradetool compare WANT GOT      the hidden checks: the student's probe output
 *                                     GOT against the teacher's WANT; exit 0 when
 *                                     equal (within tolerance), else 1 and the first
 *                                     difference as one sentence on stdout
 *     gradetool csv RUN OUT           class.csv from RUN/blanks.tsv, RUN/students.tsv
 *                                     and RUN/s/<k>/result.tsv; prints
 *                                     "graded: S students, mean P%"
 *
 * Folder names are data: an id is the folder's name when it is valid UTF-8
 * without control characters, else a made-up id (the folder then gets a row
 * with 0 points and the reason). class.csv follows RFC 4180 (a cell holding a
 * comma, a quote, CR or LF is quoted, quotes doubled) and a cell starting with
 * '=', '+', '-', '@', TAB or CR gets a leading apostrophe (OWASP, CSV
 * injection). GOT is read up to a size cap and parsed strictly: a line that
 * is not "label index number", "label shape (...)", "label error text",
 * "label null" or "probe done" is a difference. Bad usage: one sentence, exit 2.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LINE 512
#define MAX_GOT (64L * 1024 * 1024)

static void die(const char *msg, const char *arg) {
    fprintf(stderr, "gradetool: %s%s\n", msg, arg ? arg : "");
    exit(2);
}

/* ---- list ------------------------------------------------------------------ */

/* 1 when s is valid UTF-8 with no C0/C1 control, DEL or bidi/zero-width format character */
static int name_ok(const unsigned char *s) {
    if (!*s) return 0;
    while (*s) {
        unsigned c = *s, cp, n;
        if (c < 0x20 || c == 0x7f) return 0;
        if (c < 0x80) { s++; continue; }
        if ((c & 0xe0) == 0xc0) { cp = c & 0x1f; n = 1; }
        else if ((c & 0xf0) == 0xe0) { cp = c & 0x0f; n = 2; }
        else if ((c & 0xf8) == 0xf0) { cp = c & 0x07; n = 3; }
        else return 0;
        for (unsigned i = 1; i <= n; i++) {
            if ((s[i] & 0xc0) != 0x80) return 0;
            cp = (cp << 6) | (s[i] & 0x3f);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff) return 0;
        if (cp >= 0xd800 && cp <= 0xdfff) return 0;
        if (cp >= 0x80 && cp <= 0x9f) return 0;                      /* C1 controls */
        if ((cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
            (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff || cp == 0x2028 || cp == 0x2029)
            return 0;                                                /* invisible or reordering */
        s += n + 1;
    }
    return 1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int cmd_list(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) die("cannot read the folder of submissions: ", strerror(errno));
    size_t n = 0, cap = 64;
    char **names = malloc(cap * sizeof *names);
    if (!names) die("out of memory", NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (n == cap && !(names = realloc(names, (cap *= 2) * sizeof *names))) die("out of memory", NULL);
        if (!(names[n++] = strdup(e->d_name))) die("out of memory", NULL);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        size_t pl = strlen(dir) + strlen(names[i]) + 2;
        char *p = malloc(pl);
        if (!p) die("out of memory", NULL);
        snprintf(p, pl, "%s/%s", dir, names[i]);
        struct stat ls, ts;
        int isdir = lstat(p, &ls) == 0 && S_ISDIR(ls.st_mode);
        int islink = !isdir && lstat(p, &ls) == 0 && S_ISLNK(ls.st_mode) && stat(p, &ts) == 0 && S_ISDIR(ts.st_mode);
        free(p);
        if (!isdir && !islink) continue;                             /* files beside the folders */
        int ok = name_ok((const unsigned char *)names[i]);
        if (ok && !islink) {
            printf("%s\tok\n", names[i]);
            continue;
        }
        /* a made-up id that no folder has */
        char id[64];
        for (int k = ++bad;; k += 1000) {
            snprintf(id, sizeof id, "folder-%d", k);
            int taken = 0;
            for (size_t j = 0; j < n; j++) taken |= !strcmp(names[j], id);
            if (!taken) break;
        }
        if (!ok)
            printf("%s\tbad\tthe folder's name has a control character or is not UTF-8 text; rename it and grade again\n", id);
        else
            printf("%s\tbad\tthe folder '%s' is a symbolic link, not a folder; not graded\n", id, names[i]);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return fflush(stdout) ? 2 : 0;
}

/* ---- compare ----------------------------------------------------------------- */

typedef struct {
    char **line;
    size_t n;
} Lines;

/* Lines of a file (at most `cap` bytes; more is an error). NUL bytes end the read. */
static int read_lines(const char *path, long cap, Lines *out) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t n = 0, lcap = 256, len = 0;
    char **line = malloc(lcap * sizeof *line);
    char buf[MAX_LINE + 2];
    long total = 0;
    int c, too_long = 0;
    if (!line) die("out of memory", NULL);
    while ((c = getc(f)) != EOF) {
        if (++total > cap) { fclose(f); out->line = line; out->n = n; return 1; }
        if (c == '\n' || c == 0) {
            buf[len] = 0;
            if (n == lcap && !(line = realloc(line, (lcap *= 2) * sizeof *line))) die("out of memory", NULL);
            if (!(line[n++] = strdup(too_long ? "\x01too long" : buf))) die("out of memory", NULL);
            len = 0;
            too_long = 0;
            if (c == 0) break;
            continue;
        }
        if (len < MAX_LINE) buf[len++] = (char)c;
        else too_long = 1;
    }
    if (len) {
        buf[len] = 0;
        if (n == lcap && !(line = realloc(line, (lcap *= 2) * sizeof *line))) die("out of memory", NULL);
        if (!(line[n++] = strdup(buf))) die("out of memory", NULL);
    }
    fclose(f);
    out->line = line;
    out->n = n;
    return 0;
}

/* label kind rest: split on the first two spaces; the label is [A-Za-z0-9_.]+ */
static int split3(const char *s, char *label, char *kind, const char **rest) {
    size_t i = 0;
    while (s[i] && s[i] != ' ') {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
            return 0;
        if (i >= 100) return 0;
        label[i] = c;
        i++;
    }
    label[i] = 0;
    if (!i || s[i] != ' ') return 0;
    s += i + 1;
    i = 0;
    while (s[i] && s[i] != ' ') {
        if (i >= 100) return 0;
        kind[i] = s[i];
        i++;
    }
    kind[i] = 0;
    if (!i) return 0;
    *rest = s[i] == ' ' ? s + i + 1 : s + i;
    return 1;
}

static int is_index(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

/* a number as the probe prints it: %.9g, nan, inf, -inf */
static int parse_num(const char *s, double *v) {
    if (!strcmp(s, "nan")) { *v = NAN; return 1; }
    if (!strcmp(s, "inf")) { *v = INFINITY; return 1; }
    if (!strcmp(s, "-inf")) { *v = -INFINITY; return 1; }
    const char *p = s;
    if (*p == '-') p++;
    if (!((*p >= '0' && *p <= '9') || *p == '.')) return 0;
    for (const char *q = p; *q; q++)
        if (!strchr("0123456789.eE+-", *q)) return 0;
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return *end == 0 && isfinite(*v);
}

/* printable ASCII only, at most n characters: untrusted text for the feedback */
static void put_clean(const char *s, size_t n) {
    for (size_t i = 0; s[i] && i < n; i++) putchar(s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?');
}

static int cmd_compare(const char *want_path, const char *got_path) {
    Lines w, g;
    if (read_lines(want_path, MAX_GOT, &w) != 0) die("cannot read the teacher's probe output ", want_path);
    char wl[128], wk[128], gl[128], gk[128];
    int done = 0;
    for (size_t i = 0; i < w.n && !done; i++) {   /* the teacher's output first: it must be well formed */
        const char *wr;
        double y;
        if (!strcmp(w.line[i], "probe done")) done = 1;
        else if (!split3(w.line[i], wl, wk, &wr) ||
                 !(!strcmp(wk, "shape") || !strcmp(wk, "error") || !strcmp(wk, "null") || (is_index(wk) && parse_num(wr, &y))))
            die("the teacher's probe output is malformed: ", w.line[i]);
    }
    if (!done) die("the teacher's probe output does not end with 'probe done'", NULL);
    int r = read_lines(got_path, MAX_GOT, &g);
    if (r < 0) g.n = 0, g.line = NULL;
    if (r > 0) {
        printf("printed more than %ld bytes\n", MAX_GOT);
        return 1;
    }
    for (size_t i = 0; i < w.n; i++) {
        const char *wr, *gr;
        if (!strcmp(w.line[i], "probe done")) {
            if (i < g.n && !strcmp(g.line[i], "probe done")) {
                if (g.n > i + 1) {
                    printf("printed more than the teacher's code after the last check\n");
                    return 1;
                }
                return 0;
            }
            if (i >= g.n) printf("your code stopped before the end of the hidden checks\n");
            else printf("printed more than the teacher's code (a line that is not a result)\n");
            return 1;
        }
        if (!split3(w.line[i], wl, wk, &wr)) die("the teacher's probe output is malformed at line ", NULL);
        if (i >= g.n) {
            printf("%s: your code stopped before this check\n", wl);
            return 1;
        }
        if (!split3(g.line[i], gl, gk, &gr) || strcmp(gl, wl) != 0) {
            printf("%s: your code printed something else here (a line that is not this check's result)\n", wl);
            return 1;
        }
        if (!strcmp(wk, "error")) {
            if (!strcmp(gk, "error")) continue;
            printf("%s: the teacher's code refuses these inputs with an error, yours does not\n", wl);
            return 1;
        }
        if (!strcmp(gk, "error")) {
            printf("%s: raised the error \"", wl);
            put_clean(gr, 160);
            printf("\"\n");
            return 1;
        }
        if (!strcmp(wk, "shape") || !strcmp(gk, "shape")) {
            if (!strcmp(wk, gk) && !strcmp(wr, gr)) continue;
            printf("%s has shape ", wl);
            if (!strcmp(gk, "shape")) put_clean(gr, 60);
            else printf("(none)");
            printf(", expected %s\n", wr);
            return 1;
        }
        if (!strcmp(wk, "null") || !strcmp(gk, "null")) {
            if (!strcmp(wk, gk)) continue;
            printf("%s: %s\n", wl, !strcmp(gk, "null") ? "returned NULL, expected a tensor" : "expected NULL");
            return 1;
        }
        double x, y;
        if (!is_index(wk) || !parse_num(wr, &y)) die("the teacher's probe output is malformed", NULL);
        if (!is_index(gk) || strcmp(wk, gk) != 0 || !parse_num(gr, &x)) {
            printf("%s: element %s: your code printed something else here\n", wl, wk);
            return 1;
        }
        int ok;
        if (x == y) ok = 1;
        else if (isnan(x) || isnan(y)) ok = isnan(x) && isnan(y);
        else if (isinf(x) || isinf(y)) ok = 0;
        else ok = fabs(x - y) <= 1e-4 + 1e-3 * fabs(y);
        if (!ok) {
            printf("%s: element %s is %.9g, expected %.9g\n", wl, wk, x, y);
            return 1;
        }
    }
    die("the teacher's probe output does not end with 'probe done'", NULL);
    return 2;
}

/* ---- csv ---------------------------------------------------------------------- */

static void csv_cell(FILE *f, const char *s) {
    int guard = s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r';
    int quote = guard || strpbrk(s, ",\"\r\n") != NULL;
    if (quote) fputc('"', f);
    if (guard) fputc('\'', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    if (quote) fputc('"', f);
}

/* the first field of each line of a file (tab-separated) */
static Lines first_fields(const char *path) {
    Lines l;
    if (read_lines(path, MAX_GOT, &l) != 0) die("cannot read ", path);
    for (size_t i = 0; i < l.n; i++) l.line[i][strcspn(l.line[i], "\t")] = 0;
    return l;
}

static int cmd_csv(const char *run, const char *out) {
    char path[4096];
    snprintf(path, sizeof path, "%s/blanks.tsv", run);
    Lines blanks = first_fields(path);
    snprintf(path, sizeof path, "%s/students.tsv", run);
    Lines ids = first_fields(path);
    FILE *f = fopen(out, "w");
    if (!f) die("cannot write ", out);
    fputs("student,score,max,percent", f);
    for (size_t b = 0; b < blanks.n; b++) {
        fputc(',', f);
        csv_cell(f, blanks.line[b]);
    }
    fputc('\n', f);
    double sum = 0;
    for (size_t k = 0; k < ids.n; k++) {
        snprintf(path, sizeof path, "%s/s/%zu/result.tsv", run, k + 1);
        Lines r;
        if (read_lines(path, MAX_GOT, &r) != 0 || r.n != blanks.n) die("a student was not graded: ", path);
        long x = 0, y = 0;
        long *got = calloc(r.n + 1, sizeof *got);
        if (!got) die("out of memory", NULL);
        for (size_t b = 0; b < r.n; b++) {
            char name[256];
            long pts, max;
            if (sscanf(r.line[b], "%255[^\t]\t%ld\t%ld", name, &pts, &max) != 3 || strcmp(name, blanks.line[b]) ||
                pts < 0 || max < 0 || pts > max)
                die("a result file is malformed: ", path);
            got[b] = pts;
            x += pts;
            y += max;
        }
        double pc = y ? 100.0 * (double)x / (double)y : 0.0;
        sum += pc;
        csv_cell(f, ids.line[k]);
        fprintf(f, ",%ld,%ld,%.1f", x, y, pc);
        for (size_t b = 0; b < r.n; b++) fprintf(f, ",%ld", got[b]);
        fputc('\n', f);
        free(got);
    }
    if (fclose(f)) die("cannot write ", out);
    printf("graded: %zu students, mean %.1f%%\n", ids.n, ids.n ? sum / (double)ids.n : 0.0);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "list")) return cmd_list(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "compare")) return cmd_compare(argv[2], argv[3]);
    if (argc == 4 && !strcmp(argv[1], "csv")) return cmd_csv(argv[2], argv[3]);
    fprintf(stderr, "usage: gradetool list DIR | compare WANT GOT | csv RUN OUT\n");
    return 2;
}
