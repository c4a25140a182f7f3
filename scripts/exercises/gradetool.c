/* gradetool.c — the grader's trusted side, where shell and awk would have to
 * handle text that students control (make grade, make grade-class).
 *
 *     gradetool list SUBMISSIONS      one line per student folder: "id<TAB>ok" or
 *                                     "id<TAB>bad<TAB>reason" (sorted by name)
 *     gradetool compare WANT GOT      the hidden checks: the student's probe output
 *                                     GOT against the teacher's WANT; exit 0 when
 *                                     equal (within tolerance), else 1 and the first
 *                                     difference as one sentence on stdout (what the
 *                                     result is to the expected: relation.h, whose words
 *                                     the tests' failure messages use too)
 *     gradetool csv RUN OUT           class.csv from RUN/blanks.tsv, RUN/students.tsv
 *                                     and RUN/s/<k>/result.tsv; prints
 *                                     "graded: S students, mean P%"
 *     gradetool lookalike STUDENTS    the folder names of STUDENTS (list's output) that
 *                                     differ from another only by trailing spaces or
 *                                     dots or look-alike letters (Cyrillic, Greek,
 *                                     fullwidth), one note a line, names escaped (\xHH);
 *                                     csv writes the same notes into a last column
 *                                     "notes" of class.csv when there are any
 *     gradetool normalize IN OUT MAX  a student's C file as the compiler reads it:
 *                                     a UTF-8 BOM dropped, CRLF and a lone CR made
 *                                     LF; more than MAX bytes: one sentence, exit 1
 *     gradetool policy OBJ ALLOW FILE FUNC BLANK [REFUSED...]
 *                                     what an answer's object may call, read from
 *                                     its ELF symbol table (never from its text):
 *                                     every undefined symbol must be in the file
 *                                     ALLOW (one name a line) and not REFUSED nor
 *                                     one of the functions that reach outside the
 *                                     computation (system, exec*, fork, open, ...);
 *                                     no constructor or destructor section; FUNC
 *                                     defined ("-": none). Exit 0 when accepted,
 *                                     else 1 and one sentence on stdout
 *     gradetool results BLANKS RESULT ID LEVEL SECONDS VISIBILITY GS PL
 *                                     one student's results for an LMS, from the
 *                                     run's BLANKS and the student's RESULT (blank
 *                                     points max message): Gradescope's autograder
 *                                     results.json into GS, PrairieLearn's external
 *                                     grader results.json into PL
 *     gradetool record RUN OUT SEED LEVEL CHAPTERS VERSION WHEN VISIBILITY
 *                                     the run's record, grading.json, into OUT:
 *                                     seed, level, chapters, blanks and points,
 *                                     the grader's version, when, every student's
 *                                     score (RUN as for csv)
 *     gradetool limit NPROC AS_KB FSIZE_KB CPU_S PROG [ARGS...]
 *                                     set those limits ("-": leave it; never above
 *                                     the hard limit there) and no core files, then
 *                                     exec PROG: run inside a sandbox, after its
 *                                     user namespace exists, so that the process
 *                                     cap counts that sandbox's processes only
 *
 * Folder names are data: an id is the folder's name when it is valid UTF-8
 * without control, invisible or format characters and short enough for its
 * feedback file, else a made-up id (the folder then gets a row
 * with 0 points and the reason). class.csv follows RFC 4180 (a cell holding a
 * comma, a quote, CR or LF is quoted, quotes doubled) and a cell starting with
 * '=', '+', '-', '@', TAB or CR gets a leading apostrophe (OWASP, CSV
 * injection). GOT is read up to a size cap and parsed strictly: a line that
 * is not "label index number", "label shape (...)", "label error text",
 * "label null" or "probe done" is a difference. JSON is written here from
 * data, every string escaped: quotes, backslashes and control bytes as JSON
 * escapes, a byte that is not part of valid UTF-8 as U+FFFD, so a message
 * holding any byte gives valid JSON. Every file is written beside its place and
 * renamed. Bad usage: one sentence, exit 2.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE   /* RLIMIT_NPROC */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../tests/relation.h"

#define MAX_LINE 4096
#define MAX_GOT (64L * 1024 * 1024)

static void die(const char *msg, const char *arg) {
    fprintf(stderr, "gradetool: %s%s\n", msg, arg ? arg : "");
    exit(2);
}

/* ---- list ------------------------------------------------------------------ */

/* 1 for a character a reader cannot see or that changes how others show: Unicode's
 * format characters (category Cf: soft hyphen, bidi controls, zero-width ones, word
 * joiner, tags, ...), line and paragraph separators, spaces other than the ASCII
 * one, variation selectors, the combining grapheme joiner and the Hangul fillers */
static int invisible(unsigned cp) {
    static const unsigned r[][2] = {
        {0x00a0, 0x00a0}, {0x00ad, 0x00ad}, {0x034f, 0x034f}, {0x0600, 0x0605}, {0x061c, 0x061c},
        {0x06dd, 0x06dd}, {0x070f, 0x070f}, {0x0890, 0x0891}, {0x08e2, 0x08e2}, {0x115f, 0x1160},
        {0x1680, 0x1680}, {0x17b4, 0x17b5}, {0x180b, 0x180f}, {0x2000, 0x200f}, {0x2028, 0x202f},
        {0x205f, 0x206f}, {0x2800, 0x2800}, {0x3000, 0x3000}, {0x3164, 0x3164}, {0xfe00, 0xfe0f},
        {0xfeff, 0xfeff}, {0xffa0, 0xffa0}, {0xfff0, 0xfffb}, {0x110bd, 0x110bd}, {0x110cd, 0x110cd},
        {0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0000, 0xe0fff},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (cp >= r[i][0] && cp <= r[i][1]) return 1;
    return (cp & 0xfffe) == 0xfffe;   /* noncharacters */
}

/* 1 when s is valid UTF-8 with no C0/C1 control, DEL or invisible character */
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
        if (invisible(cp)) return 0;

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
        /* the feedback file is the id and ".txt": a name a file system holds */
        int too_long = ok && strlen(names[i]) + 4 > 255;
        if (ok && !islink && !too_long) {
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
            printf("%s\tbad\tthe folder's name has a control character, an invisible or format character, or is not UTF-8 text; rename it and grade again\n", id);
        else if (too_long)
            printf("%s\tbad\tthe folder's name is longer than 251 bytes, too long for its feedback file; rename it and grade again\n", id);
        else
            printf("%s\tbad\tthe folder '%s' is a symbolic link, not a folder; not graded\n", id, names[i]);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return fflush(stdout) ? 2 : 0;
}

/* ---- look-alike names --------------------------------------------------------- */

/* The Latin letter a Cyrillic or Greek one looks like (the common ones), else 0. */
static unsigned confusable(unsigned cp) {
    static const unsigned t[][2] = {
        /* Cyrillic */
        {0x0405, 'S'}, {0x0406, 'I'}, {0x0408, 'J'}, {0x0410, 'A'}, {0x0412, 'B'}, {0x0415, 'E'}, {0x041a, 'K'},
        {0x041c, 'M'}, {0x041d, 'H'}, {0x041e, 'O'}, {0x0420, 'P'}, {0x0421, 'C'}, {0x0422, 'T'}, {0x0425, 'X'},
        {0x0430, 'a'}, {0x0435, 'e'}, {0x043e, 'o'}, {0x0440, 'p'}, {0x0441, 'c'}, {0x0443, 'y'}, {0x0445, 'x'},
        {0x0455, 's'}, {0x0456, 'i'}, {0x0458, 'j'}, {0x04ae, 'Y'}, {0x04bb, 'h'}, {0x04c0, 'I'}, {0x04cf, 'l'},
        {0x0501, 'd'}, {0x051b, 'q'}, {0x051d, 'w'},
        /* Greek */
        {0x0391, 'A'}, {0x0392, 'B'}, {0x0395, 'E'}, {0x0396, 'Z'}, {0x0397, 'H'}, {0x0399, 'I'}, {0x039a, 'K'},
        {0x039c, 'M'}, {0x039d, 'N'}, {0x039f, 'O'}, {0x03a1, 'P'}, {0x03a4, 'T'}, {0x03a5, 'Y'}, {0x03a7, 'X'},
        {0x03b1, 'a'}, {0x03b9, 'i'}, {0x03ba, 'k'}, {0x03bd, 'v'}, {0x03bf, 'o'}, {0x03c1, 'p'}, {0x03c5, 'u'},
        {0x03c7, 'x'},
        /* Latin */
        {0x0131, 'i'}, {0x0237, 'j'},
    };
    if (cp >= 0xff01 && cp <= 0xff5e) return cp - 0xfee0; /* fullwidth ASCII */
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i][0] == cp) return t[i][1];
    return 0;
}

/* What a name looks like, for telling look-alikes apart: each look-alike letter as
 * its Latin one, then trailing spaces and dots dropped. Malloc'd. */
static char *skeleton(const char *name) {
    size_t n = strlen(name);
    char *k = malloc(n + 1);
    if (!k) die("out of memory", NULL);
    size_t m = 0;
    const unsigned char *s = (const unsigned char *)name;
    while (*s) {
        unsigned c = *s, cp = c, len = 1;
        if (c >= 0xc0 && (c & 0xe0) == 0xc0 && (s[1] & 0xc0) == 0x80) { cp = ((c & 0x1fu) << 6) | (s[1] & 0x3fu); len = 2; }
        else if ((c & 0xf0) == 0xe0 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80) {
            cp = ((c & 0x0fu) << 12) | ((s[1] & 0x3fu) << 6) | (s[2] & 0x3fu);
            len = 3;
        }
        unsigned a = len > 1 ? confusable(cp) : 0;
        if (a) k[m++] = (char)a;
        else {
            memcpy(k + m, s, len);
            m += len;
        }
        s += len;
    }
    while (m && (k[m - 1] == ' ' || k[m - 1] == '.')) m--;
    k[m] = '\0';
    return k;
}

/* a name as it may be shown: printable ASCII as is, every other byte as \xHH */
static void put_name(FILE *f, const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c < 0x7f) fputc(c, f);
        else fprintf(f, "\\x%02x", c);
    }
}

/* For each of the n names, a note (malloc'd) when another name differs from it only
 * by trailing spaces or dots or look-alike letters, else NULL; NULL when none has one. */
static char **lookalike_notes(char **names, size_t n) {
    char **sk = malloc((n + 1) * sizeof *sk), **notes = NULL;
    if (!sk) die("out of memory", NULL);
    for (size_t i = 0; i < n; i++) sk[i] = skeleton(names[i]);
    for (size_t i = 0; i < n; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = NULL;
        for (size_t j = 0; j < n; j++) {
            if (j == i || strcmp(sk[i], sk[j]) || !strcmp(names[i], names[j])) continue;
            if (!f) {
                if (!(f = open_memstream(&buf, &len))) die("out of memory", NULL);
                fputs("look-alike folder name: '", f);
                put_name(f, names[i]);
                fputs("' differs from '", f);
            } else
                fputs("', '", f);
            put_name(f, names[j]);
        }
        if (!f) continue;
        fputs("' only by trailing spaces or dots or letters that look alike; check that they are different students", f);
        if (fclose(f)) die("out of memory", NULL);
        if (!notes && !(notes = calloc(n + 1, sizeof *notes))) die("out of memory", NULL);
        notes[i] = buf;
    }
    for (size_t i = 0; i < n; i++) free(sk[i]);
    free(sk);
    return notes;
}

/* ---- compare ----------------------------------------------------------------- */

typedef struct {
    char **line;
    size_t n;
    int cut;   /* the last line has no newline: the writer stopped inside it */
} Lines;

/* Lines of a file (at most `cap` bytes; more is an error). NUL bytes end the read. */
static int read_lines(const char *path, long cap, Lines *out) {
    out->cut = 0;
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
    out->cut = len > 0;
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

/* ---- compare: the first difference, the first wrong tensor and what it is ------ */

/* the sentence being said (relation.h): its text, the feedback's language (0 English,
 * 1 Chinese) and the tolerance of the hidden checks */
static char msg[4096];
static RelText out = {msg, sizeof msg, 0, 0, 1e-3, 1e-4};
#define ZH (out.zh)
#define msg_n (out.n)
#define say(...) rel_say(&out, __VA_ARGS__)
static int same_errors;   /* errors must have the same words (a known mistake's), not just be errors */
#define TR(en, zh) (ZH ? (zh) : (en))

static int same_value(double x, double y) { return rel_same(&out, x, y); }

/* One result of the probe: its label, shape and values (a number printed alone: 1 value). */
typedef RelTensor Rec;

/* the values of the result that line I of L belongs to (label LABEL), from line START on */
static size_t rec_start(const Lines *l, size_t i, const char *label) {
    char lb[128], kd[128];
    const char *r;
    while (i > 0 && split3(l->line[i - 1], lb, kd, &r) && !strcmp(lb, label) && is_index(kd)) i--;
    return i;
}

static void rec_read(const Lines *l, size_t start, const char *label, Rec *rec) {
    char lb[128], kd[128];
    const char *r;
    rec->nd = 0;
    rec->n = 0;
    rec->v = NULL;
    if (start > 0 && split3(l->line[start - 1], lb, kd, &r) && !strcmp(lb, label) && !strcmp(kd, "shape")) {
        const char *p = r;   /* "(2, 3, 4)" */
        while (*p && rec->nd < 8) {
            while (*p && !(*p >= '0' && *p <= '9')) p++;
            if (!*p) break;
            rec->dims[rec->nd++] = strtol(p, (char **)&p, 10);
        }
    }
    size_t cap = 64;
    rec->v = malloc(cap * sizeof *rec->v);
    if (!rec->v) die("out of memory", NULL);
    for (size_t i = start; i < l->n; i++) {
        double x;
        if (!split3(l->line[i], lb, kd, &r) || strcmp(lb, label) || !is_index(kd) || strtoul(kd, NULL, 10) != rec->n ||
            !parse_num(r, &x))
            break;
        if (rec->n == cap && !(rec->v = realloc(rec->v, (cap *= 2) * sizeof *rec->v))) die("out of memory", NULL);
        rec->v[rec->n++] = x;
    }
    long total = 1;
    for (int d = 0; d < rec->nd; d++) total *= rec->dims[d];
    if (rec->nd == 0 || total != (long)rec->n) {   /* a number alone, or a shape we cannot follow */
        rec->nd = 1;
        rec->dims[0] = (long)rec->n;
    }
}

static void say_clean(const char *s, size_t n) {
    for (size_t i = 0; s[i] && i < n; i++) say("%c", s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?');
}

/* The numbers of result LABEL differ first at line I: name the result, where, a few values side by side, what they are. */
static void say_tensor(const Lines *w, const Lines *g, size_t i, const char *label) {
    Rec rw, rg;
    size_t s = rec_start(w, i, label);
    rec_read(w, s, label, &rw);
    rec_read(g, s, label, &rg);
    size_t k = i - s;
    say("%s ", label);
    if (rw.nd > 1 || rw.n > 1) {
        say("(");
        for (int d = 0; d < rw.nd; d++) say("%s%ld", d ? ", " : "", rw.dims[d]);
        say(rw.nd == 1 ? ",) " : ") ");
    }
    say(TR("first differs at ", "最先在"));
    rel_where(&out, &rw, k);
    size_t C = rw.nd >= 2 ? (size_t)rw.dims[rw.nd - 1] : rw.n, from = C ? k - k % C : 0, to = from + 3;
    if (k >= to) from = k, to = k + 3;
    if (C && to > from + C) to = from + C;
    if (to > rw.n) to = rw.n;
    say(TR(", yours", "不同，你的是"));
    for (size_t j = from; j < to; j++) {
        say(" ");
        if (j < rg.n) rel_num(&out, rg.v[j]); else say("?");
    }
    say(TR(", expected", "，应当是"));
    for (size_t j = from; j < to; j++) {
        say(" ");
        rel_num(&out, rw.v[j]);
    }
    say(TR(".", "。"));
    rel_relation(&out, &rw, &rg);
    free(rw.v);
    free(rg.v);
}

/* shapes "(a, ..., m, n)" A and B: the same but for their last two dims, swapped (m != n) */
static int dims_swapped(const char *a, const char *b) {
    long da[8], db[8];
    int na = 0, nb = 0;
    for (const char *p = a; *p && na < 8;) {
        if (*p < '0' || *p > '9') { p++; continue; }
        da[na++] = strtol(p, (char **)&p, 10);
    }
    for (const char *p = b; *p && nb < 8;) {
        if (*p < '0' || *p > '9') { p++; continue; }
        db[nb++] = strtol(p, (char **)&p, 10);
    }
    if (na != nb || na < 2 || da[na - 1] == da[na - 2]) return 0;
    for (int d = 0; d < na - 2; d++)
        if (da[d] != db[d]) return 0;
    return da[na - 1] == db[na - 2] && da[na - 2] == db[na - 1];
}

/* Compare the teacher's lines W with GOT; 0 equal, 1 different (the first difference said). */
static int compare_lines(const Lines *w, const Lines *g) {
    char wl[128], wk[128], gl[128], gk[128];
    for (size_t i = 0; i < w->n; i++) {
        const char *wr, *gr_;
        if (!strcmp(w->line[i], "probe done")) {
            if (i < g->n && !strcmp(g->line[i], "probe done")) {
                if (g->n > i + 1) {
                    say("printed more than the teacher's code after the last check");
                    return 1;
                }
                return 0;
            }
            if (i >= g->n) say(TR("your code stopped before the end of the hidden checks", "你的代码在隐藏检查结束之前就停止了"));
            else say("printed more than the teacher's code (a line that is not a result)");
            return 1;
        }
        if (!split3(w->line[i], wl, wk, &wr)) die("the teacher's probe output is malformed at line ", NULL);
        if (i >= g->n) {
            say(TR("%s: your code stopped before this check", "%s：你的代码在这项检查之前就停止了"), wl);
            return 1;
        }
        if (!split3(g->line[i], gl, gk, &gr_)) {
            say("%s: your code printed something else here (a line that is not a check's result)", wl);
            return 1;
        }
        if (!strcmp(gk, "error") && strcmp(wk, "error") != 0) {   /* the check's own label or its probe's */
            say(TR("%s: raised the error \"", "%s：报错 \""), wl);
            say_clean(gr_, 160);
            say("\"");
            return 1;
        }
        if (strcmp(gl, wl) != 0) {
            say("%s: your code gave the result of another check here (%s)", wl, gl);
            return 1;
        }
        if (!strcmp(wk, "error")) {
            if (!strcmp(gk, "error") && (!same_errors || !strcmp(wr, gr_))) continue;
            say(TR("%s: the teacher's code refuses these inputs with an error, yours does not", "%s：教师的代码对这些输入报错拒绝，你的代码没有"), wl);
            return 1;
        }
        if (!strcmp(wk, "shape") || !strcmp(gk, "shape")) {
            if (!strcmp(wk, gk) && !strcmp(wr, gr_)) continue;
            say(TR("%s has shape ", "%s 的形状是 "), wl);
            if (!strcmp(gk, "shape")) say_clean(gr_, 60);
            else say("(none)");
            say(TR(", expected %s", "，应当是 %s"), wr);
            if (!strcmp(gk, "shape") && dims_swapped(wr, gr_))
                say(TR(". Its last two dims are swapped, as a transpose swaps them", "。它的最后两维互换了，就像转置过一样"));
            return 1;
        }
        if (!strcmp(wk, "null") || !strcmp(gk, "null")) {
            if (!strcmp(wk, gk)) continue;
            say("%s: %s", wl, !strcmp(gk, "null") ? "returned NULL, expected a tensor" : "expected NULL");
            return 1;
        }
        double x, y;
        if (!is_index(wk) || !parse_num(wr, &y)) die("the teacher's probe output is malformed", NULL);
        if (!is_index(gk) || strcmp(wk, gk) != 0 || !parse_num(gr_, &x)) {
            say("%s: element %s: your code gave %s here", wl, wk,
                !strcmp(gk, "shape") ? "a tensor of another shape" : !strcmp(gk, "null") ? "NULL" : "no number");
            return 1;
        }
        if (!same_value(x, y)) {
            say_tensor(w, g, i, wl);
            return 1;
        }
    }
    die("the teacher's probe output does not end with 'probe done'", NULL);
    return 2;
}

static void check_want(const Lines *w, const char *what) {
    char wl[128], wk[128];
    for (size_t i = 0; i < w->n; i++) {   /* the teacher's output first: it must be well formed */
        const char *wr;
        double y;
        if (!strcmp(w->line[i], "probe done")) return;
        if (!split3(w->line[i], wl, wk, &wr) ||
            !(!strcmp(wk, "shape") || !strcmp(wk, "error") || !strcmp(wk, "null") || (is_index(wk) && parse_num(wr, &y))))
            die(what, w->line[i]);
    }
    die("the teacher's probe output does not end with 'probe done'", NULL);
}

/* gradetool compare WANT GOT [LANG CATALOGUE]: CATALOGUE holds one known mistake a line,
 * "id<TAB>its probe output<TAB>en<TAB>zh" (the teacher's code with the mistake, run by
 * the grader on the same inputs); a GOT equal to one of them gets its sentence too. */
static int cmd_compare(int argc, char **argv) {
    const char *want_path = argv[2], *got_path = argv[3];
    Lines w, g;
    if (argc == 6) {
        if (strcmp(argv[4], "en") && strcmp(argv[4], "zh")) die("compare: the language is en or zh, not ", argv[4]);
        ZH = !strcmp(argv[4], "zh");
    }
    if (read_lines(want_path, MAX_GOT, &w) != 0) die("cannot read the teacher's probe output ", want_path);
    check_want(&w, "the teacher's probe output is malformed: ");
    int r = read_lines(got_path, MAX_GOT, &g);
    if (r < 0) g.n = 0, g.line = NULL;
    if (r > 0) {
        printf("printed more than %ld bytes\n", MAX_GOT);
        return 1;
    }
    /* a last line without its newline was cut where the program stopped (a crash loses
     * what stdio had not yet written, from anywhere in a line): not a result */
    if (r == 0 && g.cut) g.n--;
    msg_n = 0;
    msg[0] = 0;
    int st = compare_lines(&w, &g);
    if (st != 1 || argc != 6) {
        if (st == 1) printf("%s\n", msg);
        return st;
    }
    /* the known mistakes: the first whose output GOT equals */
    char first[sizeof msg];
    memcpy(first, msg, sizeof msg);
    Lines cat;
    if (read_lines(argv[5], MAX_GOT, &cat) < 0) die("cannot read the catalogue of mistakes ", argv[5]);
    for (size_t i = 0; i < cat.n; i++) {
        char *f[4], *p = cat.line[i];
        int nf = 0;
        while (nf < 4) {
            f[nf++] = p;
            char *t = strchr(p, '\t');
            if (!t) break;
            *t = 0;
            p = t + 1;
        }
        if (nf != 4) continue;
        Lines m;
        if (read_lines(f[1], MAX_GOT, &m) != 0) continue;
        check_want(&m, "a known mistake's probe output is malformed: ");
        msg_n = 0;
        same_errors = 1;
        int eq = compare_lines(&m, &g) == 0;
        same_errors = 0;
        if (eq) {   /* (after a sentence of its own) */
            size_t n = strlen(first);
            const char *stop = n && first[n - 1] == '.' ? "" : n >= 3 && !strcmp(first + n - 3, "。") ? "" : ZH ? "。" : ".";
            printf("%s%s%s%s\n", first, stop, ZH ? "" : " ", ZH ? f[3] : f[2]);
            return 1;
        }
    }
    printf("%s\n", first);
    return 1;
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
    /* folder names that look alike: a last column, notes, when there are any */
    char **notes = lookalike_notes(ids.line, ids.n);
    FILE *f = fopen(out, "w");
    if (!f) die("cannot write ", out);
    fputs("student,score,max,percent", f);
    for (size_t b = 0; b < blanks.n; b++) {
        fputc(',', f);
        csv_cell(f, blanks.line[b]);
    }
    if (notes) fputs(",notes", f);
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
        if (notes) {
            fputc(',', f);
            if (notes[k]) csv_cell(f, notes[k]);
        }
        fputc('\n', f);
        free(got);
    }
    if (fclose(f)) die("cannot write ", out);
    for (size_t k = 0; notes && k < ids.n; k++)
        if (notes[k]) printf("%s (class.csv, notes)\n", notes[k]);
    for (size_t k = 0; notes && k < ids.n; k++) free(notes[k]);
    free(notes);
    printf("graded: %zu students, mean %.1f%%\n", ids.n, ids.n ? sum / (double)ids.n : 0.0);
    return 0;
}

/* the look-alike notes of the students of a students.tsv (gradetool list's), one a line */
static int cmd_lookalike(const char *path) {
    Lines ids = first_fields(path);
    char **notes = lookalike_notes(ids.line, ids.n);
    for (size_t k = 0; notes && k < ids.n; k++)
        if (notes[k]) printf("%s\n", notes[k]);
    for (size_t k = 0; notes && k < ids.n; k++) free(notes[k]);
    free(notes);
    return fflush(stdout) ? 2 : 0;
}

/* ---- json (results.json for Gradescope and PrairieLearn, grading.json) -------- */

/* the length of the valid UTF-8 sequence at s (n bytes left), 0 when invalid */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned cp;
    size_t k, i;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) { k = 2; cp = s[0] & 0x1fu; }
    else if (s[0] >= 0xe0 && s[0] <= 0xef) { k = 3; cp = s[0] & 0x0fu; }
    else if (s[0] >= 0xf0 && s[0] <= 0xf4) { k = 4; cp = s[0] & 0x07u; }
    else return 0;
    if (n < k) return 0;
    for (i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;   /* overlong, too big */
    if (cp >= 0xd800 && cp <= 0xdfff) return 0;                                          /* a surrogate */
    return k;
}

/* a JSON string: '"' and '\\' escaped, control bytes and DEL as \u00XX, U+2028/9
 * escaped (JavaScript readers), bytes of invalid UTF-8 as U+FFFD */
static void json_str(FILE *f, const char *str) {
    const unsigned char *s = (const unsigned char *)str;
    size_t n = strlen(str);
    fputc('"', f);
    while (n) {
        size_t k = utf8_len(s, n);
        if (k == 0) { fputs("\\ufffd", f); s++; n--; continue; }
        if (k == 1) {
            if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
            else if (*s == '\n') fputs("\\n", f);
            else if (*s == '\t') fputs("\\t", f);
            else if (*s < 0x20 || *s == 0x7f) fprintf(f, "\\u%04x", *s);
            else fputc(*s, f);
        } else if (k == 3 && s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9)) {
            fprintf(f, "\\u%s", s[2] == 0xa8 ? "2028" : "2029");
        } else {
            fwrite(s, 1, k, f);
        }
        s += k;
        n -= k;
    }
    fputc('"', f);
}

/* a field of a tab-separated line (0-based); "" when missing; cut at the next tab */
static const char *field(const char *line, int i, char *buf, size_t cap) {
    const char *p = line;
    size_t len;
    while (i-- > 0) {
        p = strchr(p, '\t');
        if (!p) { buf[0] = 0; return buf; }
        p++;
    }
    len = strcspn(p, "\t");
    if (len >= cap) len = cap - 1;
    memcpy(buf, p, len);
    buf[len] = 0;
    return buf;
}

static long number(const char *s, const char *what) {
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0) die("not a number: ", what);
    return v;
}

static void free_lines(Lines *l) {
    for (size_t i = 0; i < l->n; i++) free(l->line[i]);
    free(l->line);
    l->line = NULL;
    l->n = 0;
}

typedef struct {
    char name[256], msg[MAX_LINE + 2];
    long got, max, chapter;
} Row;

/* RESULT (blank points max message) checked against BLANKS (name points chapter ...) */
static Row *read_result(const char *blanks_path, const char *result_path, size_t *nrows) {
    Lines b, r;
    char tmp[MAX_LINE + 2];
    if (read_lines(blanks_path, MAX_GOT, &b) != 0) die("cannot read ", blanks_path);
    if (read_lines(result_path, MAX_GOT, &r) != 0 || r.n != b.n) die("a student was not graded: ", result_path);
    Row *row = calloc(b.n + 1, sizeof *row);
    if (!row) die("out of memory", NULL);
    for (size_t i = 0; i < b.n; i++) {
        field(r.line[i], 0, row[i].name, sizeof row[i].name);
        if (strcmp(row[i].name, field(b.line[i], 0, tmp, sizeof tmp))) die("a result file is malformed: ", result_path);
        row[i].got = number(field(r.line[i], 1, tmp, sizeof tmp), result_path);
        row[i].max = number(field(r.line[i], 2, tmp, sizeof tmp), result_path);
        row[i].chapter = number(field(b.line[i], 2, tmp, sizeof tmp), blanks_path);
        if (row[i].got > row[i].max) die("a result file is malformed: ", result_path);
        field(r.line[i], 3, row[i].msg, sizeof row[i].msg);
    }
    *nrows = b.n;
    free_lines(&b);
    free_lines(&r);
    return row;
}

static FILE *open_tmp(const char *out, char *tmp, size_t cap) {
    FILE *f;
    if ((size_t)snprintf(tmp, cap, "%s.%ld.tmp", out, (long)getpid()) >= cap) die("path too long: ", out);
    if (!(f = fopen(tmp, "w"))) die("cannot write ", out);
    return f;
}

static void close_tmp(FILE *f, const char *tmp, const char *out) {
    if (fclose(f) || rename(tmp, out)) { remove(tmp); die("cannot write ", out); }
}

static int visibility_ok(const char *v) {
    return !strcmp(v, "hidden") || !strcmp(v, "after_due_date") || !strcmp(v, "after_published") ||
           !strcmp(v, "visible");
}

static int cmd_results(char **a) {
    /* a: BLANKS RESULT ID LEVEL SECONDS VISIBILITY GS PL [LANG: en (default) or zh, the words around
     * the points; the messages come translated] */
    size_t n;
    char tmp[4096], line[128];
    long level = number(a[3], "LEVEL"), secs = number(a[4], "SECONDS"), x = 0, y = 0;
    if (!visibility_ok(a[5])) die("the visibility must be hidden, after_due_date, after_published or visible, not ", a[5]);
    Row *row = read_result(a[0], a[1], &n);
    for (size_t i = 0; i < n; i++) { x += row[i].got; y += row[i].max; }
    int zh = a[8] && !strcmp(a[8], "zh");
    if (a[8] && !zh && strcmp(a[8], "en") != 0) die("the language must be en or zh, not ", a[8]);
    snprintf(line, sizeof line, zh ? "%ld/%ld 分（第 %ld 级）" : "%ld/%ld points (level %ld)", x, y, level);

    FILE *f = open_tmp(a[6], tmp, sizeof tmp);
    /* (no top-level max_score: Gradescope's specification has none; its top-level score overrides the tests'
     * sum, and equals it here) */
    fprintf(f, "{\n  \"score\": %ld,\n  \"execution_time\": %ld,\n  \"output\": ", x, secs);
    {
        char head[1400];
        snprintf(head, sizeof head, zh ? "学生 %.1000s：%s" : "student %.1000s: %s", a[2], line);
        json_str(f, head);
    }
    /* every text is plain text: what a student's code put into a message is shown, never
     * rendered (Gradescope's default, simple_format, would render HTML in it) */
    fprintf(f, ",\n  \"output_format\": \"text\",\n  \"test_output_format\": \"text\",\n  \"test_name_format\": \"text\"");
    fprintf(f, ",\n  \"visibility\": ");
    json_str(f, a[5]);
    fprintf(f, ",\n  \"stdout_visibility\": \"hidden\",\n  \"tests\": [");
    for (size_t i = 0; i < n; i++) {
        char nm[400], num[64];
        snprintf(nm, sizeof nm, zh ? "%s（第 %ld 章）" : "%s (chapter %ld)", row[i].name, row[i].chapter);
        snprintf(num, sizeof num, "%ld.%zu", row[i].chapter, i + 1);
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_str(f, nm);
        fprintf(f, ", \"number\": ");
        json_str(f, num);
        fprintf(f, ", \"score\": %ld, \"max_score\": %ld, \"status\": \"%s\", \"output\": ", row[i].got, row[i].max,
                row[i].got == row[i].max ? "passed" : "failed");
        json_str(f, row[i].msg);
        fprintf(f, ", \"output_format\": \"text\", \"visibility\": ");
        json_str(f, a[5]);
        fputc('}', f);
    }
    fprintf(f, "\n  ]\n}\n");
    close_tmp(f, tmp, a[6]);

    f = open_tmp(a[7], tmp, sizeof tmp);
    fprintf(f, "{\n  \"gradable\": true,\n  \"score\": %.6f,\n  \"message\": ", y ? (double)x / (double)y : 0.0);
    json_str(f, line);
    fprintf(f, ",\n  \"output\": ");
    {
        /* the feedback, one line per blank */
        size_t cap = 64 + n * (sizeof row[0].name + sizeof row[0].msg + 32), len = 0;
        char *all = malloc(cap);
        if (!all) die("out of memory", NULL);
        all[0] = 0;
        for (size_t i = 0; i < n; i++)
            len += (size_t)snprintf(all + len, cap - len, "%s %ld/%ld  %s\n", row[i].name, row[i].got, row[i].max,
                                    row[i].msg);
        json_str(f, all);
        free(all);
    }
    fprintf(f, ",\n  \"tests\": [");
    for (size_t i = 0; i < n; i++) {
        char desc[64];
        snprintf(desc, sizeof desc, zh ? "第 %ld 章" : "chapter %ld", row[i].chapter);
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_str(f, row[i].name);
        fprintf(f, ", \"description\": ");
        json_str(f, desc);
        fprintf(f, ", \"points\": %ld, \"max_points\": %ld, \"message\": \"%s\", \"output\": ", row[i].got, row[i].max,
                row[i].got == row[i].max ? (zh ? "通过" : "passed") : (zh ? "未通过" : "failed"));
        json_str(f, row[i].msg);
        fputc('}', f);
    }
    fprintf(f, "\n  ]\n}\n");
    close_tmp(f, tmp, a[7]);
    free(row);
    return 0;
}

static int cmd_record(char **a) {
    /* a: RUN OUT SEED LEVEL CHAPTERS VERSION WHEN VISIBILITY */
    char path[4096], tmp[4096], bpath[4096], buf[MAX_LINE + 2];
    long level = number(a[3], "LEVEL");
    const char *c;
    int first = 1;
    Lines ids, bl;
    number(a[2], "SEED");
    if (!visibility_ok(a[7])) die("the visibility must be hidden, after_due_date, after_published or visible, not ", a[7]);
    snprintf(bpath, sizeof bpath, "%s/blanks.tsv", a[0]);
    snprintf(path, sizeof path, "%s/students.tsv", a[0]);
    ids = first_fields(path);
    if (read_lines(bpath, MAX_GOT, &bl) != 0) die("cannot read ", bpath);
    FILE *f = open_tmp(a[1], tmp, sizeof tmp);
    fprintf(f, "{\n  \"grader\": \"attention-in-c make grade-class\",\n  \"version\": ");
    json_str(f, a[5]);
    fprintf(f, ",\n  \"when\": ");
    json_str(f, a[6]);
    fprintf(f, ",\n  \"seed\": %s,\n  \"level\": %ld,\n  \"visibility\": ", a[2], level);
    json_str(f, a[7]);
    fprintf(f, ",\n  \"chapters\": [");
    for (c = a[4]; *c;) {
        char *end;
        long ch;
        if (*c == ' ' || *c == ',') { c++; continue; }
        ch = strtol(c, &end, 10);
        if (end == c) die("CHAPTERS is not a list of numbers: ", a[4]);
        fprintf(f, "%s%ld", first ? "" : ", ", ch);
        first = 0;
        c = end;
    }
    fprintf(f, "],\n  \"blanks\": [");
    long total = 0;
    for (size_t i = 0; i < bl.n; i++) {
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_str(f, field(bl.line[i], 0, buf, sizeof buf));
        long pts = number(field(bl.line[i], 1, buf, sizeof buf), bpath);
        total += pts;
        fprintf(f, ", \"chapter\": %ld, \"points\": %ld}", number(field(bl.line[i], 2, buf, sizeof buf), bpath), pts);
    }
    fprintf(f, "\n  ],\n  \"max\": %ld,\n  \"students\": [", total);
    for (size_t k = 0; k < ids.n; k++) {
        size_t n;
        long x = 0, y = 0;
        snprintf(path, sizeof path, "%s/s/%zu/result.tsv", a[0], k + 1);
        Row *row = read_result(bpath, path, &n);
        for (size_t i = 0; i < n; i++) { x += row[i].got; y += row[i].max; }
        fprintf(f, "%s\n    {\"id\": ", k ? "," : "");
        json_str(f, ids.line[k]);
        fprintf(f, ", \"score\": %ld, \"max\": %ld, \"percent\": %.1f, \"blanks\": {", x, y,
                y ? 100.0 * (double)x / (double)y : 0.0);
        for (size_t i = 0; i < n; i++) {
            fputs(i ? ", " : "", f);
            json_str(f, row[i].name);
            fprintf(f, ": %ld", row[i].got);
        }
        fputs("}}", f);
        free(row);
    }
    fprintf(f, "\n  ]\n}\n");
    close_tmp(f, tmp, a[1]);
    free_lines(&ids);
    free_lines(&bl);
    return 0;
}

/* ---- normalize ---------------------------------------------------------------- */

/* Translation phase 1 as gcc reads a file: a UTF-8 byte order mark at the start
 * is dropped, CR LF and a lone CR end a line. Linear, in one pass. */
static int cmd_normalize(const char *in, const char *outp, const char *maxs) {
    long max = atol(maxs);
    FILE *f = fopen(in, "rb");
    if (!f) die("cannot read ", in);
    FILE *o = fopen(outp, "wb");
    if (!o) die("cannot write ", outp);
    long n = 0;
    int c, prev_cr = 0;
    unsigned char bom[3];
    size_t got = fread(bom, 1, 3, f);
    if (!(got == 3 && bom[0] == 0xef && bom[1] == 0xbb && bom[2] == 0xbf)) {
        for (size_t i = 0; i < got; i++) {
            if (bom[i] == '\r') { fputc('\n', o); prev_cr = 1; continue; }
            if (bom[i] == '\n' && prev_cr) { prev_cr = 0; continue; }
            prev_cr = 0;
            fputc(bom[i], o);
        }
        n = (long)got;
    }
    while ((c = getc(f)) != EOF) {
        if (++n > max) {
            fclose(f);
            fclose(o);
            printf("larger than %ld bytes\n", max);
            return 1;
        }
        if (c == '\r') { fputc('\n', o); prev_cr = 1; continue; }
        if (c == '\n' && prev_cr) { prev_cr = 0; continue; }
        prev_cr = 0;
        fputc(c, o);
    }
    fclose(f);
    if (fclose(o)) die("cannot write ", outp);
    return 0;
}

/* ---- policy ------------------------------------------------------------------- */

static unsigned long long rd(const unsigned char *p, int n) {   /* little-endian */
    unsigned long long v = 0;
    for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* functions that reach outside the computation, by name or prefix, and why */
static const char *outside(const char *s) {
    static const struct { const char *name; int prefix; const char *why; } list[] = {
        {"system", 0, "runs a shell command"}, {"popen", 0, "runs a shell command"},
        {"exec", 1, "runs another program"}, {"fexecve", 0, "runs another program"},
        {"posix_spawn", 1, "runs another program"}, {"fork", 0, "starts a process"},
        {"vfork", 0, "starts a process"}, {"clone", 1, "starts a process"},
        {"__clone", 1, "starts a process"}, {"_Fork", 0, "starts a process"},
        {"open", 0, "opens files"}, {"open64", 0, "opens files"}, {"openat", 1, "opens files"},
        {"creat", 1, "creates files"}, {"fopen", 1, "opens files"}, {"freopen", 1, "opens files"},
        {"syscall", 0, "makes system calls itself"}, {"dlopen", 0, "loads code"},
        {"dlsym", 0, "loads code"}, {"dlmopen", 0, "loads code"}, {"kill", 0, "signals processes"},
        {"ptrace", 0, "inspects processes"}, {"socket", 0, "opens a connection"},
        {"connect", 0, "opens a connection"}, {"mmap", 1, "maps memory or files"},
        {"mprotect", 0, "changes memory protection"}, {"unlink", 1, "deletes files"},
        {"symlink", 1, "creates links"}, {"link", 0, "creates links"}, {"rename", 0, "renames files"},
        {"chdir", 0, "changes folder"}, {"getenv", 0, "reads the environment"},
        {"environ", 0, "reads the environment"}, {"atexit", 0, "runs code after the checks"},
        {"on_exit", 0, "runs code after the checks"}, {"exit", 0, "ends the program"},
        {"_exit", 0, "ends the program"}, {"_Exit", 0, "ends the program"},
        {"abort", 0, "ends the program"}, {"signal", 0, "changes signal handling"},
        {"sigaction", 0, "changes signal handling"}, {"longjmp", 0, "jumps out of the checks"},
        {"_longjmp", 0, "jumps out of the checks"}, {"siglongjmp", 0, "jumps out of the checks"},
    };
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
        size_t l = strlen(list[i].name);
        if (list[i].prefix ? !strncmp(s, list[i].name, l) : !strcmp(s, list[i].name)) return list[i].why;
    }
    return NULL;
}

static int in_lines(const Lines *l, const char *s) {
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->line[i], s)) return 1;
    return 0;
}

/* The object must be ELF64 little-endian, relocatable; every offset is checked. */
static int cmd_policy(int argc, char **argv) {
    const char *objp = argv[2], *allowp = argv[3], *file = argv[4], *func = argv[5], *blank = argv[6];
    FILE *f = fopen(objp, "rb");
    if (!f) die("cannot read ", objp);
    size_t cap = 64u << 20, n = 0;
    unsigned char *b = malloc(cap);
    if (!b) die("out of memory", NULL);
    n = fread(b, 1, cap, f);
    fclose(f);
    Lines allow;
    if (read_lines(allowp, MAX_GOT, &allow) != 0) die("cannot read the list of callable functions ", allowp);
#define BAD_OBJ()                                                                          \
    do {                                                                                   \
        printf("the compiled answer is not an object file this grader reads (ELF64)\n"); \
        return 1;                                                                          \
    } while (0)
    if (n < 64 || memcmp(b, "\177ELF", 4) || b[4] != 2 || b[5] != 1 || rd(b + 16, 2) != 1) BAD_OBJ();
    unsigned long long shoff = rd(b + 40, 8), shentsize = rd(b + 58, 2), shnum = rd(b + 60, 2), shstrndx = rd(b + 62, 2);
    if (shentsize != 64 || shnum == 0 || shoff > n || shnum > (n - shoff) / 64 || shstrndx >= shnum) BAD_OBJ();
#define SH(i) (b + shoff + 64 * (unsigned long long)(i))
    unsigned long long stro = rd(SH(shstrndx) + 24, 8), strs = rd(SH(shstrndx) + 32, 8);
    if (stro > n || strs > n - stro) BAD_OBJ();
    int found = !strcmp(func, "-"), nsym = 0;
    for (unsigned long long i = 0; i < shnum; i++) {
        unsigned long long nm = rd(SH(i), 4), type = rd(SH(i) + 4, 4);
        if (nm < strs) {
            const char *name = (const char *)b + stro + nm;
            if (memchr(name, 0, strs - nm) == NULL) BAD_OBJ();
            static const char *const ctor[] = {".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors", ".init", ".fini"};
            for (size_t k = 0; k < sizeof ctor / sizeof ctor[0]; k++) {
                size_t l = strlen(ctor[k]);
                if (!strncmp(name, ctor[k], l) && (name[l] == 0 || name[l] == '.')) {
                    printf("your %s holds code that runs by itself before or after the checks (a constructor or destructor, section %s); not accepted\n", file, ctor[k]);
                    return 1;
                }
            }
        }
        if (type != 2) continue;   /* SHT_SYMTAB */
        nsym++;
        unsigned long long so = rd(SH(i) + 24, 8), ss = rd(SH(i) + 32, 8), link = rd(SH(i) + 40, 4), es = rd(SH(i) + 56, 8);
        if (es != 24 || so > n || ss > n - so || link >= shnum) BAD_OBJ();
        unsigned long long to = rd(SH(link) + 24, 8), ts = rd(SH(link) + 32, 8);
        if (to > n || ts > n - to) BAD_OBJ();
        for (unsigned long long k = 1; k < ss / 24; k++) {
            const unsigned char *sy = b + so + 24 * k;
            unsigned long long snm = rd(sy, 4), shndx = rd(sy + 6, 2);
            int bind = sy[4] >> 4, stype = sy[4] & 0xf;
            if (snm >= ts) BAD_OBJ();
            const char *name = (const char *)b + to + snm;
            if (memchr(name, 0, ts - snm) == NULL) BAD_OBJ();
            if (shndx != 0) {
                if (stype == 2 && !strcmp(name, func)) found = 1;   /* STT_FUNC */
                continue;
            }
            if (!*name || (bind != 1 && bind != 2)) continue;
            const char *why = outside(name);
            int refused = 0;
            for (int r = 7; r < argc; r++) refused |= !strcmp(argv[r], name);
            char shown[80];
            snprintf(shown, sizeof shown, "%s", name);
            for (char *c = shown; *c; c++) if (*c < 0x20 || *c >= 0x7f) *c = '?';
            if (why) {
                printf("your answer calls '%s', which %s; an answer may not call it\n", shown, why);
                return 1;
            }
            if (refused) {
                printf("your answer calls '%s', which computes this blank's own concept; write it with the helpers the hint names (make hint BLANK=%s TIER=2)\n", shown, blank);
                return 1;
            }
            if (!in_lines(&allow, name)) {
                printf("your answer calls '%s', which is not a function an answer may call (allowed: the tensor library, libm, libc's memory, string and printf functions, what the handed-out %s already calls, and the helpers of make hint BLANK=%s TIER=2)\n", shown, file, blank);
                return 1;
            }
        }
    }
    if (!nsym) BAD_OBJ();
    if (!found) {
        printf("your %s does not define %s() itself (the function that holds the blank)\n", file, func);
        return 1;
    }
    return 0;
}

/* ---- limit -------------------------------------------------------------------- */

static int cmd_limit(int argc, char **argv) {
    static const int which[] = {RLIMIT_NPROC, RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_CPU};
    static const rlim_t scale[] = {1, 1024, 1024, 1};
    for (int i = 0; i < 4; i++) {
        struct rlimit r, now;
        if (!strcmp(argv[2 + i], "-")) continue;   /* left as it is */
        r.rlim_cur = r.rlim_max = (rlim_t)strtoull(argv[2 + i], NULL, 10) * scale[i];
        /* never above the hard limit already there (raising it needs a privilege) */
        if (getrlimit(which[i], &now) == 0 && now.rlim_max != RLIM_INFINITY && r.rlim_max > now.rlim_max)
            r.rlim_cur = r.rlim_max = now.rlim_max;
        if (setrlimit(which[i], &r) != 0) die("cannot set a limit: ", strerror(errno));
    }
    struct rlimit core = {0, 0};
    if (setrlimit(RLIMIT_CORE, &core) != 0) die("cannot set a limit: ", strerror(errno));
    (void)argc;
    execv(argv[6], argv + 6);
    die("cannot run ", argv[6]);
    return 2;
}

/* does this test line of `results` say the answer does not compile? Its output begins
 * "does not compile", "your FILE does not compile", or in Chinese "无法编译" or
 * "你的 FILE 无法编译" (the grader's own words come first; what a student wrote can only
 * follow them, so only the first 100 bytes are looked at) */
static int compile_failed(const char *line) {
    static const char wu[] = "\xe6\x97\xa0\xe6\xb3\x95\xe7\xbc\x96\xe8\xaf\x91";   /* 无法编译 */
    static const char ni[] = "\xe4\xbd\xa0\xe7\x9a\x84 ";                           /* 你的 */
    const char *o = strstr(line, "\"output\": \"");
    char head[101];
    size_t k;
    if (!o) return 0;
    o += 11;
    for (k = 0; k < 100 && o[k] && o[k] != '"'; k++) head[k] = o[k];
    head[k] = 0;
    if (!strncmp(head, "does not compile", 16) || !strncmp(head, wu, sizeof wu - 1)) return 1;
    if (!strncmp(head, "your ", 5)) return strstr(head, " does not compile") != NULL;
    if (!strncmp(head, ni, sizeof ni - 1)) return strstr(head, wu) != NULL;
    return 0;
}

/* ---- gradescope: the autograder's results.json (make gradescope-autograder) ----
 * gradetool gradescope LANG MSG SECONDS OUT [GS]: Gradescope's results.json into OUT.
 * With GS (what `results` wrote for the submission), GS again with its execution_time
 * replaced by SECONDS (the whole run's) and a first test, always visible and without
 * points: "submission well-formed and compiles", passed unless a blank's test says
 * "does not compile", its output MSG (the upload as found). Without GS, 0 points and
 * that test failed with MSG (an upload that could not be graded). GS is our own JSON:
 * one test per line, every string escaped, so a line beginning "  \"tests\": [" or a
 * test's "output": "does not compile can only be ours. */
static int cmd_gradescope(char **a) {
    char msg[4096], tmp[4096], name[96];
    int zh = !strcmp(a[0], "zh");
    long secs = number(a[2], "SECONDS");
    size_t m = 0;
    FILE *in = fopen(a[1], "rb"), *f;
    if (strcmp(a[0], "en") && !zh) die("the language must be en or zh, not ", a[0]);
    if (!in) die("cannot read ", a[1]);
    m = fread(msg, 1, sizeof msg - 1, in);
    fclose(in);
    while (m && (msg[m - 1] == '\n' || msg[m - 1] == '\r')) m--;
    msg[m] = 0;
    snprintf(name, sizeof name, "%s", zh ? "提交的文件齐全且能编译" : "submission well-formed and compiles");
    f = open_tmp(a[3], tmp, sizeof tmp);
    if (!a[4]) {
        fprintf(f, "{\n  \"score\": 0,\n  \"execution_time\": %ld,\n  \"output\": ", secs);
        json_str(f, msg);
        fprintf(f, ",\n  \"output_format\": \"text\",\n  \"visibility\": \"visible\",\n  \"stdout_visibility\": \"hidden\","
                   "\n  \"tests\": [\n    {\"name\": ");
        json_str(f, name);
        fprintf(f, ", \"status\": \"failed\", \"output\": ");
        json_str(f, msg);
        fprintf(f, ", \"visibility\": \"visible\"}\n  ]\n}\n");
    } else {
        /* GS whole (at most 16 MiB), then line by line */
        size_t cap = 16u << 20, len, bad = 0, blanks = 0;
        char *g = malloc(cap + 1), *p, *e, *at = NULL, extra[256];
        FILE *gf = fopen(a[4], "rb");
        if (!g) die("out of memory", NULL);
        if (!gf) { fclose(f); remove(tmp); die("cannot read ", a[4]); }
        len = fread(g, 1, cap + 1, gf);
        fclose(gf);
        if (len > cap) { fclose(f); remove(tmp); die("too large: ", a[4]); }
        g[len] = 0;
        for (p = g; *p; p = e + (*e == '\n')) {
            e = strchr(p, '\n');
            if (!e) e = p + strlen(p);
            if (!at && e - p == 12 && !strncmp(p, "  \"tests\": [", 12)) at = e;
            else if (at && !strncmp(p, "    {\"name\": ", 13)) {
                char save = *e;
                blanks++;
                *e = 0;
                if (compile_failed(p)) bad++;
                *e = save;
            }
        }
        if (!at || !blanks) { free(g); fclose(f); remove(tmp); die("not a results.json of gradetool results: ", a[4]); }
        if (bad)
            snprintf(extra, sizeof extra, zh ? "\n%lu/%lu 个空没有编译通过：下面它们各自的测试说明了原因。"
                                             : "\n%lu of %lu blanks do not compile: their tests below say why.",
                     (unsigned long)bad, (unsigned long)blanks);
        else
            snprintf(extra, sizeof extra, zh ? "\n%lu 个空都编译通过了。" : "\nAll %lu blanks compile.", (unsigned long)blanks);
        if (strlen(msg) + strlen(extra) < sizeof msg) strcat(msg, extra);
        for (p = g; *p; p = e + (*e == '\n')) {
            e = strchr(p, '\n');
            if (!e) e = p + strlen(p);
            if (!strncmp(p, "  \"execution_time\": ", 20)) fprintf(f, "  \"execution_time\": %ld,\n", secs);
            else fprintf(f, "%.*s\n", (int)(e - p), p);
            if (e == at) {
                fprintf(f, "    {\"name\": ");
                json_str(f, name);
                fprintf(f, ", \"number\": \"0\", \"status\": \"%s\", \"output\": ", bad ? "failed" : "passed");
                json_str(f, msg);
                fprintf(f, ", \"visibility\": \"visible\"},\n");
            }
        }
        free(g);
    }
    close_tmp(f, tmp, a[3]);
    return 0;
}

/* gradetool prairielearn-fail LANG MSG OUT: PrairieLearn's results.json for an upload that
 * is not a submission: "gradable": false (no points lost, no attempt counted), MSG as
 * the message and the one format error (PrairieLearn's docs/externalGrading.md). */
static int cmd_prairielearn_fail(char **a) {
    char msg[4096], tmp[4096];
    size_t m;
    FILE *in = fopen(a[1], "rb"), *f;
    if (strcmp(a[0], "en") && strcmp(a[0], "zh")) die("the language must be en or zh, not ", a[0]);
    if (!in) die("cannot read ", a[1]);
    m = fread(msg, 1, sizeof msg - 1, in);
    fclose(in);
    while (m && (msg[m - 1] == '\n' || msg[m - 1] == '\r')) m--;
    msg[m] = 0;
    f = open_tmp(a[2], tmp, sizeof tmp);
    fprintf(f, "{\n  \"gradable\": false,\n  \"message\": ");
    json_str(f, msg);
    fprintf(f, ",\n  \"format_errors\": [");
    json_str(f, msg);
    fprintf(f, "]\n}\n");
    close_tmp(f, tmp, a[2]);
    return 0;
}

/* ---- gradebook: Canvas's and Moodle's grade import files (make grade-class ROSTER=FILE) ----
 * The roster is the teacher's CSV: a header row naming its columns (any order, any case;
 * "folder" is required: the student's folder in SUBMISSIONS), then one row per student.
 * Other columns used: name, id, sis_user_id, sis_login_id, section (Canvas's gradebook
 * columns Student, ID, SIS User ID, SIS Login ID, Section), email, idnumber, username
 * (what Moodle's CSV grade import identifies a user by: email address, ID number,
 * username). Fields may be quoted as RFC 4180 says. */
enum { R_FOLDER, R_NAME, R_ID, R_SISUSER, R_SISLOGIN, R_SECTION, R_EMAIL, R_IDNUMBER, R_USERNAME, R_N };
static const char *const roster_cols[R_N] = {"folder", "name", "id", "sis_user_id", "sis_login_id", "section",
                                             "email", "idnumber", "username"};
typedef struct {
    char *f[R_N];
} RosterRow;

/* one CSV record of s (at *pos) into fields; 0 at the end of the text */
static size_t csv_record(const char *s, size_t *pos, char ***out, const char *path) {
    size_t n = 0, cap = 8, i = *pos;
    char **v;
    if (!s[i]) return 0;
    if (!(v = malloc(cap * sizeof *v))) die("out of memory", NULL);
    for (;;) {
        size_t len = 0, fcap = 64;
        char *fld = malloc(fcap);
        if (!fld) die("out of memory", NULL);
        if (s[i] == '"') {
            for (i++;; i++) {
                if (!s[i]) die("a quoted field is not closed in ", path);
                if (s[i] == '"' && s[i + 1] != '"') { i++; break; }
                if (s[i] == '"') i++;
                if (len + 2 > fcap && !(fld = realloc(fld, fcap *= 2))) die("out of memory", NULL);
                fld[len++] = s[i];
            }
        } else {
            for (; s[i] && s[i] != ',' && s[i] != '\n' && s[i] != '\r'; i++) {
                if (len + 2 > fcap && !(fld = realloc(fld, fcap *= 2))) die("out of memory", NULL);
                fld[len++] = s[i];
            }
        }
        fld[len] = 0;
        while (len && (fld[len - 1] == ' ')) fld[--len] = 0;
        if (n == cap && !(v = realloc(v, (cap *= 2) * sizeof *v))) die("out of memory", NULL);
        v[n++] = fld;
        if (s[i] == ',') { i++; continue; }
        if (s[i] && s[i] != '\n' && s[i] != '\r') die("text after a quoted field in ", path);
        if (s[i] == '\r') i++;
        if (s[i] == '\n') i++;
        break;
    }
    *pos = i;
    *out = v;
    return n;
}

/* the roster: rows with a folder, the columns it names; dies with a sentence on a bad one */
static RosterRow *read_roster(const char *path, size_t *nrows, int *have) {
    FILE *f = fopen(path, "rb");
    size_t len, pos = 0, n, cap = 64, rows = 0;
    char *s, **v;
    int col[R_N];
    if (!f) die("ROSTER: cannot read ", path);
    if (!(s = malloc((1u << 24) + 1))) die("out of memory", NULL);
    len = fread(s, 1, 1u << 24, f);
    fclose(f);
    s[len] = 0;
    if (strlen(s) != len) die("ROSTER: the file holds a NUL byte: ", path);
    if (len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) pos = 3;   /* a spreadsheet's UTF-8 mark */
    n = csv_record(s, &pos, &v, path);
    for (int c = 0; c < R_N; c++) { col[c] = -1; have[c] = 0; }
    for (size_t k = 0; k < n; k++) {
        for (char *p = v[k]; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
        for (int c = 0; c < R_N; c++)
            if (!strcmp(v[k], roster_cols[c])) {
                if (col[c] >= 0) die("ROSTER: the header names this column twice: ", roster_cols[c]);
                col[c] = (int)k;
            }
        free(v[k]);
    }
    if (n) free(v);
    if (col[R_FOLDER] < 0) die("ROSTER: the header row has no 'folder' column (the students' folders): ", path);
    RosterRow *r = malloc(cap * sizeof *r);
    if (!r) die("out of memory", NULL);
    while ((n = csv_record(s, &pos, &v, path)) > 0) {
        if (!(n == 1 && !v[0][0])) {   /* (an empty line) */
            if (rows == cap && !(r = realloc(r, (cap *= 2) * sizeof *r))) die("out of memory", NULL);
            for (int c = 0; c < R_N; c++) {
                const char *x = col[c] >= 0 && (size_t)col[c] < n ? v[col[c]] : "";
                if (!(r[rows].f[c] = strdup(x))) die("out of memory", NULL);
                if (*x) have[c] = 1;
            }
            if (!r[rows].f[R_FOLDER][0]) die("ROSTER: a row has no folder: ", path);
            for (size_t j = 0; j < rows; j++)
                if (!strcmp(r[j].f[R_FOLDER], r[rows].f[R_FOLDER])) die("ROSTER: a folder is named twice: ", r[rows].f[R_FOLDER]);
            rows++;
        }
        for (size_t k = 0; k < n; k++) free(v[k]);
        free(v);
    }
    free(s);
    *nrows = rows;
    return r;
}

/* gradetool gradebook ROSTER [RUN ASSIGNMENT CANVAS MOODLE]: with ROSTER alone, check it;
 * else the grades of RUN (points, as class.csv's score) for Canvas and Moodle */
static int cmd_gradebook(int argc, char **argv) {
    size_t nr, i, k;
    int have[R_N];
    RosterRow *r = read_roster(argv[2], &nr, have);
    if (argc == 3) {
        printf("roster: %zu students\n", nr);
    } else {
        char path[4096], tmp[4096], tmp2[4096];
        snprintf(path, sizeof path, "%s/blanks.tsv", argv[3]);
        Lines blanks = first_fields(path);
        snprintf(path, sizeof path, "%s/students.tsv", argv[3]);
        Lines ids = first_fields(path);
        FILE *c = open_tmp(argv[5], tmp, sizeof tmp), *m = open_tmp(argv[6], tmp2, sizeof tmp2);
        fputs("Student,ID,SIS User ID,SIS Login ID,Section,", c);
        csv_cell(c, argv[4]);
        fputs("Email address,ID number,Username,", m);
        csv_cell(m, argv[4]);
        fputc('\n', m);
        fputc('\n', c);
        for (k = 0; k < ids.n; k++) {
            long x = 0;
            Lines res;
            snprintf(path, sizeof path, "%s/s/%zu/result.tsv", argv[3], k + 1);
            if (read_lines(path, MAX_GOT, &res) != 0 || res.n != blanks.n) die("a student was not graded: ", path);
            for (size_t b = 0; b < res.n; b++) {
                const char *t = strchr(res.line[b], '\t');
                x += t ? strtol(t + 1, NULL, 10) : 0;
            }
            free_lines(&res);
            for (i = 0; i < nr && strcmp(r[i].f[R_FOLDER], ids.line[k]); i++) {}
            if (i == nr) {
                fprintf(stderr, "grade-class: ROSTER: the folder '%s' is not in the roster: its grade is in class.csv only\n",
                        ids.line[k]);
                continue;
            }
            for (int f = R_NAME; f <= R_SECTION; f++) { csv_cell(c, r[i].f[f]); fputc(',', c); }
            fprintf(c, "%ld\n", x);
            for (int f = R_EMAIL; f <= R_USERNAME; f++) { csv_cell(m, r[i].f[f]); fputc(',', m); }
            fprintf(m, "%ld\n", x);
            r[i].f[R_FOLDER][0] = 0;   /* (graded) */
        }
        for (i = 0; i < nr; i++)
            if (r[i].f[R_FOLDER][0])
                fprintf(stderr, "grade-class: ROSTER: '%s' has no folder among the submissions: not in the gradebook files\n",
                        r[i].f[R_FOLDER]);
        close_tmp(c, tmp, argv[5]);
        close_tmp(m, tmp2, argv[6]);
        free_lines(&blanks);
        free_lines(&ids);
        if (!have[R_NAME] && !have[R_ID] && !have[R_SISUSER])
            fprintf(stderr, "grade-class: ROSTER: no name, id or sis_user_id column: Canvas needs one of them to find a student\n");
        if (!have[R_EMAIL] && !have[R_IDNUMBER] && !have[R_USERNAME])
            fprintf(stderr, "grade-class: ROSTER: no email, idnumber or username column: Moodle needs one of them to find a student\n");
    }
    for (i = 0; i < nr; i++)
        for (int f = 0; f < R_N; f++) free(r[i].f[f]);
    free(r);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && !strcmp(argv[1], "normalize")) return cmd_normalize(argv[2], argv[3], argv[4]);
    if (argc >= 7 && !strcmp(argv[1], "policy")) return cmd_policy(argc, argv);
    if (argc >= 7 && !strcmp(argv[1], "limit")) return cmd_limit(argc, argv);
    if (argc == 3 && !strcmp(argv[1], "list")) return cmd_list(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "lookalike")) return cmd_lookalike(argv[2]);
    if ((argc == 4 || argc == 6) && !strcmp(argv[1], "compare")) return cmd_compare(argc, argv);
    if (argc == 4 && !strcmp(argv[1], "csv")) return cmd_csv(argv[2], argv[3]);
    if ((argc == 10 || argc == 11) && !strcmp(argv[1], "results")) return cmd_results(argv + 2);
    if (argc == 10 && !strcmp(argv[1], "record")) return cmd_record(argv + 2);
    if ((argc == 6 || argc == 7) && !strcmp(argv[1], "gradescope")) return cmd_gradescope(argv + 2);
    if (argc == 5 && !strcmp(argv[1], "prairielearn-fail")) return cmd_prairielearn_fail(argv + 2);
    if ((argc == 3 || argc == 7) && !strcmp(argv[1], "gradebook")) return cmd_gradebook(argc, argv);
    fprintf(stderr, "usage: gradetool list DIR | compare WANT GOT [LANG CATALOGUE] | csv RUN OUT | results BLANKS RESULT ID LEVEL SECONDS VISIBILITY GS PL | record RUN OUT SEED LEVEL CHAPTERS VERSION WHEN VISIBILITY | normalize IN OUT MAX | policy OBJ ALLOW FILE FUNC BLANK [REFUSED...] | lookalike STUDENTS | limit NPROC AS_KB FSIZE_KB CPU_S PROG [ARGS...] | gradescope LANG MSG SECONDS OUT [GS] | prairielearn-fail LANG MSG OUT | gradebook ROSTER [RUN ASSIGNMENT CANVAS MOODLE]\n");
    return 2;
}
