/* similarity.c — the answers of a class compared blank by blank, for
 * make similarity (scripts/exercises/similarity.sh; docs/TEACHING.md, "Reading
 * the similarity report"). It reads text only and never runs a student's code.
 *
 *     similarity tokens FILE         the normalised tokens of a C fragment, one line
 *     similarity prints K W FILE     its winnowed fingerprints, "hash position" a line
 *     similarity ppsafe IN OUT       IN made safe for the preprocessor (pp_safe): only
 *                                    #define, #undef and conditionals stay, no '##',
 *                                    no _Pragma or __has_include; OUT is what
 *                                    make similarity gives the compiler's -E
 *     similarity compare LIST OUT K W THRESHOLD MIN_TOKENS
 *                                    LIST: "blank<TAB>student<TAB>file" a line;
 *                                    writes the CSV OUT (temp file + rename):
 *                                    student_a,student_b,blank,score,kind
 *
 * The method is MOSS's (Schleimer, Wilkerson, Aiken, "Winnowing: local
 * algorithms for document fingerprinting", SIGMOD 2003):
 *   1. normalise: C tokens, comments and layout dropped; every identifier
 *      becomes "I", every number "N", every string "S", every character
 *      constant "C"; keywords and punctuators are kept as written (digraphs as
 *      their punctuators), but parentheses are dropped and so is an empty
 *      statement. Renaming, reformatting and padding with ';' or parentheses
 *      change nothing.
 *   2. hash every k-gram of consecutive tokens (64-bit FNV-1a over the k tokens).
 *   3. winnow: in every window of w consecutive k-gram hashes keep the minimum,
 *      the rightmost one on a tie; a hash kept by consecutive windows at the
 *      same position is one fingerprint. Any run of w + k - 1 tokens two answers
 *      share yields at least one shared fingerprint. A text with fewer than w
 *      k-grams (but at least one) keeps the minimum of all of them.
 *   4. score of two answers: the Jaccard index of their fingerprint SETS,
 *      |A and B| / |A or B|, in 0..1 (1: the same fingerprints).
 * Triviality is a property of the answers: a pair whose two answers both have
 * fewer than MIN_TOKENS normalised tokens is not compared (short correct
 * answers all look alike); a longer answer is compared with every other,
 * whatever the length of the teacher's code (the pseudo-student
 * "teacher/solution"). A blank none of whose pairs could be compared gets one
 * row that says so (kind "trivial"). Pairs at or above THRESHOLD are listed,
 * highest first (kind "pair"). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIM_MAX_FILE (4L * 1024 * 1024)
/* the pseudo-student of the teacher's code: a name no folder can have (a '/') */
#define SIM_SOLUTION "teacher/solution"

static void sim_die(const char *what, const char *arg) {
    fprintf(stderr, "similarity: %s%s\n", what, arg ? arg : "");
    exit(1);
}

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) sim_die("out of memory", NULL);
    return q;
}

/* ---- tokens ------------------------------------------------------------------ */

typedef struct {
    char **tok; /* normalised token texts (keywords, punctuators, I N S C) */
    size_t n, cap;
} Tokens;

static const char *const KEYWORDS[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "while", "_Bool", "_Complex", "_Imaginary"};

static int is_keyword(const char *s, size_t len) {
    for (size_t i = 0; i < sizeof KEYWORDS / sizeof KEYWORDS[0]; i++)
        if (strlen(KEYWORDS[i]) == len && !memcmp(KEYWORDS[i], s, len)) return 1;
    return 0;
}

static void tok_push(Tokens *t, const char *s, size_t len) {
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->tok = xrealloc(t->tok, t->cap * sizeof *t->tok);
    }
    char *c = xrealloc(NULL, len + 1);
    memcpy(c, s, len);
    c[len] = '\0';
    t->tok[t->n++] = c;
}

static void tok_free(Tokens *t) {
    for (size_t i = 0; i < t->n; i++) free(t->tok[i]);
    free(t->tok);
    t->tok = NULL;
    t->n = t->cap = 0;
}

static int is_idc(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* Punctuators, longest first (C99 6.4.6); digraphs map to what they spell. */
static const char *const PUNCT[] = {
    "%:%:", "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "<:", ":>", "<%", "%>", "%:"};
static const char *const PUNCT_AS[] = {
    "##", "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "[", "]", "{", "}", "#"};

/* The normalised tokens of the text s[0..n) (translation phase 2's line
 * splices removed first). */
/* a punctuator, but padding normalised: parentheses are dropped and an empty
 * statement (a ';' after ';', '{' or '}') too, so "((x))" reads as "x" and ";;;"
 * as ";" (a copy padded with them fingerprints as the copy) */
static void push_punct(Tokens *t, const char *s, size_t len) {
    if (len == 1 && (*s == '(' || *s == ')')) return;
    if (len == 1 && *s == ';' && t->n) {
        const char *last = t->tok[t->n - 1];
        if (!strcmp(last, ";") || !strcmp(last, "{") || !strcmp(last, "}")) return;
    }
    tok_push(t, s, len);
}

static void tokenize(const char *src, size_t n, Tokens *t) {
    char *s = xrealloc(NULL, n + 1);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (src[i] == '\\' && i + 1 < n && src[i + 1] == '\n') { i++; continue; }
        s[m++] = src[i];
    }
    s[m] = '\0';
    size_t i = 0;
    while (i < m) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') { i++; continue; }
        if (c == '/' && s[i + 1] == '*') {
            char *e = strstr(s + i + 2, "*/");
            i = e ? (size_t)(e - s) + 2 : m;
            continue;
        }
        if (c == '/' && s[i + 1] == '/') {
            while (i < m && s[i] != '\n') i++;
            continue;
        }
        if (c == '"' || c == '\'') {
            size_t k = i + 1;
            while (k < m && s[k] != (char)c && s[k] != '\n') k += s[k] == '\\' ? 2 : 1;
            tok_push(t, c == '"' ? "S" : "C", 1);
            i = k + 1;
            continue;
        }
        if (is_digit(c) || (c == '.' && is_digit((unsigned char)s[i + 1]))) {
            size_t k = i + 1;
            while (k < m && (is_idc((unsigned char)s[k]) || s[k] == '.' ||
                             ((s[k] == '+' || s[k] == '-') && strchr("eEpP", s[k - 1]))))
                k++;
            tok_push(t, "N", 1);
            i = k;
            continue;
        }
        if (is_idc(c)) {
            size_t k = i;
            while (k < m && is_idc((unsigned char)s[k])) k++;
            if (is_keyword(s + i, k - i)) tok_push(t, s + i, k - i);
            else tok_push(t, "I", 1);
            i = k;
            continue;
        }
        size_t p, np = sizeof PUNCT / sizeof PUNCT[0];
        for (p = 0; p < np; p++)
            if (!strncmp(s + i, PUNCT[p], strlen(PUNCT[p]))) break;
        if (p < np) {
            push_punct(t, PUNCT_AS[p], strlen(PUNCT_AS[p]));
            i += strlen(PUNCT[p]);
        } else {
            push_punct(t, s + i, 1);
            i++;
        }
    }
    free(s);
}

/* ---- the preprocessor, made safe ------------------------------------------------ */

/* Directives the preprocessor may act on in a student's text: macros and
 * conditionals only. Every other directive line (#include, #include_next,
 * #import, #embed, #pragma, #line, #error, #warning, #ident, #assert, a line
 * marker, ...) becomes an empty line, so that the trusted side's own
 * preprocessor, run on the result, opens no file the student named. */
static const char *const PP_KEEP[] = {"define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif"};
/* Identifiers that would make the preprocessor look at a file or act on a
 * pragma from inside an expression: replaced by 0. Without '##' (taken out
 * below) no macro can spell them either, since expansion never makes a new
 * identifier out of pieces. */
static const char *const PP_BANNED[] = {"_Pragma", "__has_include", "__has_include_next", "__has_include__",
                                        "__has_include_next__", "__has_embed"};

static int word_in(const char *s, size_t len, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strlen(list[i]) == len && !memcmp(list[i], s, len)) return 1;
    return 0;
}

typedef struct {
    char *s;
    size_t n, cap;
} Buf;

static void buf_put(Buf *b, const char *s, size_t len) {
    if (b->n + len + 1 > b->cap) {
        while (b->n + len + 1 > b->cap) b->cap = b->cap ? 2 * b->cap : 4096;
        b->s = xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, s, len);
    b->n += len;
    b->s[b->n] = '\0';
}

/* Translation phases 1 and 2 (trigraphs, then line splices), in one pass each:
 * a replacement is never '?', so no new trigraph appears. The lines a splice
 * joined are given back as empty lines after the joined one, so the line count
 * stays. */
static char *phases12(const char *src, size_t n, size_t *outn) {
    static const char TRI_FROM[] = "=/'()!<>-", TRI_TO[] = "#\\^[]|{}~";
    char *a = xrealloc(NULL, n + 1);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *t;
        if (src[i] == '?' && i + 2 < n && src[i + 1] == '?' && src[i + 2] && (t = strchr(TRI_FROM, src[i + 2]))) {
            a[m++] = TRI_TO[t - TRI_FROM];
            i += 2;
        } else
            a[m++] = src[i];
    }
    char *b = xrealloc(NULL, m + 1);
    size_t k = 0, owed = 0;
    for (size_t i = 0; i < m; i++) {
        if (a[i] == '\\' && i + 1 < m && a[i + 1] == '\n') { i++; owed++; continue; }
        b[k++] = a[i];
        if (a[i] == '\n') {
            if (k + owed + 1 > m) b = xrealloc(b, k + owed + m + 1);
            for (; owed; owed--) b[k++] = '\n';
        }
    }
    b[k] = '\0';
    free(a);
    *outn = k;
    return b;
}

/* The text s[0..n) made safe for a preprocessor (see PP_KEEP and PP_BANNED), and
 * '##' taken out (a space instead), so that no macro can paste a new name. The
 * result keeps the line count. Linear in n. */
static void pp_safe(const char *src, size_t n, Buf *out) {
    size_t m;
    char *s = phases12(src, n, &m);
    int in_com = 0;
    size_t i = 0;
    while (i < m) {
        /* one line, from i */
        size_t e = i;
        while (e < m && s[e] != '\n') e++;
        size_t j = i;
        int keep = 1;
        if (!in_com) {
            /* a directive: '#' or '%:' first on the line, after blanks and comments */
            size_t p = i;
            for (;;) {
                while (p < e && (s[p] == ' ' || s[p] == '\t' || s[p] == '\f' || s[p] == '\v' || s[p] == '\r')) p++;
                if (p + 1 < e && s[p] == '/' && s[p + 1] == '*') {
                    size_t q = p + 2;
                    while (q + 1 < e && !(s[q] == '*' && s[q + 1] == '/')) q++;
                    if (q + 1 >= e) break;
                    p = q + 2;
                    continue;
                }
                break;
            }
            if (p < e && (s[p] == '#' || (s[p] == '%' && p + 1 < e && s[p + 1] == ':'))) {
                p += s[p] == '#' ? 1 : 2;
                for (;;) {
                    while (p < e && (s[p] == ' ' || s[p] == '\t' || s[p] == '\f' || s[p] == '\v' || s[p] == '\r')) p++;
                    if (p + 1 < e && s[p] == '/' && s[p + 1] == '*') {
                        size_t q = p + 2;
                        while (q + 1 < e && !(s[q] == '*' && s[q + 1] == '/')) q++;
                        if (q + 1 >= e) { p = e; break; }
                        p = q + 2;
                        continue;
                    }
                    break;
                }
                size_t w = p;
                while (w < e && is_idc((unsigned char)s[w])) w++;
                /* '#' alone is the null directive; anything else must be one we keep */
                if (w == p) keep = p >= e || (s[p] == '/' && p + 1 < e && s[p + 1] == '/');
                else keep = !is_digit((unsigned char)s[p]) && word_in(s + p, w - p, PP_KEEP, sizeof PP_KEEP / sizeof PP_KEEP[0]);
            }
        }
        if (!keep) {
            /* the line goes; only whether it leaves a comment open is kept */
            int c = 0;
            for (size_t q = i; q < e; q++) {
                if (!c && s[q] == '/' && q + 1 < e && s[q + 1] == '/') break;
                if (!c && s[q] == '/' && q + 1 < e && s[q + 1] == '*') { c = 1; q++; }
                else if (c && s[q] == '*' && q + 1 < e && s[q + 1] == '/') { c = 0; q++; }
                else if (!c && (s[q] == '"' || s[q] == '\'')) {
                    char qc = s[q];
                    for (q++; q < e && s[q] != qc; q++)
                        if (s[q] == '\\') q++;
                }
            }
            if (c) { buf_put(out, "/*", 2); in_com = 1; }
            j = e;
        }
        while (j < e) {
            char c = s[j];
            if (in_com) {
                if (c == '*' && j + 1 < e && s[j + 1] == '/') { buf_put(out, "*/", 2); j += 2; in_com = 0; }
                else { buf_put(out, s + j, 1); j++; }
                continue;
            }
            if (c == '/' && j + 1 < e && s[j + 1] == '*') { buf_put(out, "/*", 2); j += 2; in_com = 1; continue; }
            if (c == '/' && j + 1 < e && s[j + 1] == '/') { buf_put(out, s + j, e - j); j = e; continue; }
            if (c == '"' || c == '\'') {
                size_t q = j + 1;
                while (q < e && s[q] != c) q += s[q] == '\\' ? 2 : 1;
                if (q > e) q = e;
                buf_put(out, s + j, (q < e ? q + 1 : e) - j);
                j = q < e ? q + 1 : e;
                continue;
            }
            if (c == '#' && j + 1 < e && s[j + 1] == '#') { buf_put(out, " ", 1); j += 2; continue; }
            if (c == '%' && j + 3 < e && !strncmp(s + j, "%:%:", 4)) { buf_put(out, " ", 1); j += 4; continue; }
            if (is_idc((unsigned char)c) && !is_digit((unsigned char)c)) {
                size_t w = j;
                while (w < e && is_idc((unsigned char)s[w])) w++;
                if (word_in(s + j, w - j, PP_BANNED, sizeof PP_BANNED / sizeof PP_BANNED[0])) buf_put(out, "0", 1);
                else buf_put(out, s + j, w - j);
                j = w;
                continue;
            }
            if (is_digit((unsigned char)c)) {
                /* a number (a pp-number: letters, digits, '.', and a sign after e or p) */
                size_t w = j + 1;
                while (w < e && (is_idc((unsigned char)s[w]) || s[w] == '.' ||
                                 ((s[w] == '+' || s[w] == '-') && strchr("eEpP", s[w - 1]))))
                    w++;
                buf_put(out, s + j, w - j);
                j = w;
                continue;
            }
            buf_put(out, s + j, 1);
            j++;
        }
        if (e < m) buf_put(out, "\n", 1);
        i = e + 1;
    }
    if (!out->s) buf_put(out, "", 0);
    free(s);
}

/* ---- fingerprints ------------------------------------------------------------- */

/* 64-bit FNV-1a of the k tokens from t[at], each followed by a 0 byte. */
static uint64_t kgram_hash(char *const *t, size_t at, size_t k) {
    uint64_t h = 1469598103934665603ull;
    for (size_t j = 0; j < k; j++) {
        for (const unsigned char *c = (const unsigned char *)t[at + j]; *c; c++) {
            h ^= *c;
            h *= 1099511628211ull;
        }
        h ^= 0;
        h *= 1099511628211ull;
    }
    return h;
}

/* Winnowing (Schleimer et al. 2003, Fig. 2 and section 4.1): of the hashes
 * h[0..n), the minimum of every window of w consecutive ones, the rightmost
 * on a tie, each (hash, position) once. Writes the positions to pos (room for
 * n) and returns their count. n < w: one window, the whole sequence. */
size_t sim_winnow(const uint64_t *h, size_t n, size_t w, size_t *pos) {
    size_t np = 0;
    if (n == 0 || w == 0) return 0;
    size_t last = n; /* none yet */
    size_t nwin = n >= w ? n - w + 1 : 1, width = n >= w ? w : n;
    for (size_t s = 0; s < nwin; s++) {
        size_t best = s;
        for (size_t j = s; j < s + width; j++)
            if (h[j] <= h[best]) best = j;
        if (best != last) {
            pos[np++] = best;
            last = best;
        }
    }
    return np;
}

typedef struct {
    uint64_t *fp; /* sorted, distinct */
    size_t n;
    size_t ntok;
} Prints;

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The fingerprint set of a token list; kept (optional) gets the winnowed
 * (hash, position) sequence before sorting. */
static Prints prints_of(const Tokens *t, size_t k, size_t w, FILE *show) {
    Prints p = {NULL, 0, t->n};
    if (t->n < k) return p;
    size_t nh = t->n - k + 1;
    uint64_t *h = xrealloc(NULL, nh * sizeof *h);
    size_t *pos = xrealloc(NULL, nh * sizeof *pos);
    for (size_t i = 0; i < nh; i++) h[i] = kgram_hash(t->tok, i, k);
    size_t np = sim_winnow(h, nh, w, pos);
    p.fp = xrealloc(NULL, np * sizeof *p.fp);
    for (size_t i = 0; i < np; i++) {
        p.fp[i] = h[pos[i]];
        if (show) fprintf(show, "%016llx %zu\n", (unsigned long long)h[pos[i]], pos[i]);
    }
    qsort(p.fp, np, sizeof *p.fp, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < np; i++)
        if (u == 0 || p.fp[u - 1] != p.fp[i]) p.fp[u++] = p.fp[i];
    p.n = u;
    free(h);
    free(pos);
    return p;
}

/* Jaccard index of two sorted distinct sets; 0 when both are empty. */
double sim_jaccard(const uint64_t *a, size_t na, const uint64_t *b, size_t nb) {
    size_t i = 0, j = 0, both = 0;
    while (i < na && j < nb) {
        if (a[i] == b[j]) { both++; i++; j++; }
        else if (a[i] < b[j]) i++;
        else j++;
    }
    size_t any = na + nb - both;
    return any ? (double)both / (double)any : 0.0;
}

/* ---- files --------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) sim_die("cannot read ", path);
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 > cap) {
            cap = cap ? 2 * cap : 8192;
            buf = xrealloc(buf, cap + 1);
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if ((long)n > SIM_MAX_FILE) sim_die("a file is larger than 4 MB: ", path);
        if (r == 0) break;
    }
    if (ferror(f)) sim_die("cannot read ", path);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

int sim_ppsafe(const char *in, const char *outp) {
    size_t n;
    char *s = read_file(in, &n);
    Buf b = {NULL, 0, 0};
    pp_safe(s, n, &b);
    free(s);
    size_t tl = strlen(outp) + 8;
    char *tmp = xrealloc(NULL, tl);
    snprintf(tmp, tl, "%s.tmp", outp);
    FILE *f = fopen(tmp, "wb");
    if (!f) sim_die("cannot write ", tmp);
    fwrite(b.s, 1, b.n, f);
    if (fclose(f) || rename(tmp, outp)) {
        remove(tmp);
        sim_die("cannot write ", outp);
    }
    free(tmp);
    free(b.s);
    return 0;
}

static void tokens_of_file(const char *path, Tokens *t) {
    size_t n;
    char *s = read_file(path, &n);
    tokenize(s, n, t);
    free(s);
}

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

typedef struct {
    char *blank, *student;
    Prints p;
} Entry;

typedef struct {
    size_t a, b; /* entries */
    double score;
} Pair;

static int cmp_pair(const void *x, const void *y) {
    const Pair *p = x, *q = y;
    return p->score > q->score ? -1 : p->score < q->score ? 1 : 0;
}

static size_t parse_size(const char *s, const char *what) {
    char *e;
    errno = 0;
    unsigned long v = strtoul(s, &e, 10);
    if (errno || *e || e == s || v == 0 || v > 1000) {
        fprintf(stderr, "similarity: %s=%s: give a whole number from 1 to 1000\n", what, s);
        exit(2);
    }
    return (size_t)v;
}

int sim_compare(char **argv) {
    const char *list = argv[0], *out = argv[1];
    size_t k = parse_size(argv[2], "SIMILARITY_K"), w = parse_size(argv[3], "SIMILARITY_W");
    char *e;
    double thr = strtod(argv[4], &e);
    if (*e || e == argv[4] || !(thr >= 0.0 && thr <= 1.0)) {
        fprintf(stderr, "similarity: SIMILARITY_THRESHOLD=%s: give a number from 0 to 1\n", argv[4]);
        return 2;
    }
    size_t mintok = strtoul(argv[5], &e, 10);
    if (*e || e == argv[5]) {
        fprintf(stderr, "similarity: SIMILARITY_MIN_TOKENS=%s: give a whole number\n", argv[5]);
        return 2;
    }
    size_t len;
    char *text = read_file(list, &len);
    Entry *en = NULL;
    size_t ne = 0;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t2) sim_die("a line of the list is not blank<TAB>student<TAB>file: ", line);
        *t1 = *t2 = '\0';
        en = xrealloc(en, (ne + 1) * sizeof *en);
        en[ne].blank = line;
        en[ne].student = t1 + 1;
        Tokens t = {NULL, 0, 0};
        tokens_of_file(t2 + 1, &t);
        en[ne].p = prints_of(&t, k, w, NULL);
        tok_free(&t);
        ne++;
        if (!nl) break;
        line = nl + 1;
    }
    size_t tmplen = strlen(out) + 8;
    char *tmp = xrealloc(NULL, tmplen);
    snprintf(tmp, tmplen, "%s.tmp", out);
    FILE *f = fopen(tmp, "w");
    if (!f) sim_die("cannot write ", tmp);
    fputs("student_a,student_b,blank,score,kind\n", f);
    size_t npairs = 0, ntriv = 0, nblanks = 0;
    for (size_t s = 0; s < ne;) {
        size_t end = s;
        while (end < ne && !strcmp(en[end].blank, en[s].blank)) end++;
        nblanks++;
        /* the answers decide what is trivial: a pair of two short answers is not compared */
        Pair *pairs = NULL;
        size_t np = 0, ncompared = 0, nshort = 0;
        for (size_t a = s; a < end; a++)
            for (size_t b = a + 1; b < end; b++) {
                if (!en[a].p.n || !en[b].p.n) continue;
                if (en[a].p.ntok < mintok && en[b].p.ntok < mintok) { nshort++; continue; }
                ncompared++;
                double sc = sim_jaccard(en[a].p.fp, en[a].p.n, en[b].p.fp, en[b].p.n);
                if (sc + 1e-12 < thr) continue;
                pairs = xrealloc(pairs, (np + 1) * sizeof *pairs);
                /* the solution always second: "alice,teacher/solution" */
                int swap = !strcmp(en[a].student, SIM_SOLUTION);
                pairs[np].a = swap ? b : a;
                pairs[np].b = swap ? a : b;
                pairs[np].score = sc;
                np++;
            }
        /* stable: equal scores keep the list's (name) order */
        for (size_t i = 1; i < np; i++)
            for (size_t j = i; j > 0 && cmp_pair(&pairs[j - 1], &pairs[j]) > 0; j--) {
                Pair x = pairs[j];
                pairs[j] = pairs[j - 1];
                pairs[j - 1] = x;
            }
        for (size_t i = 0; i < np; i++) {
            csv_cell(f, en[pairs[i].a].student);
            fputc(',', f);
            csv_cell(f, en[pairs[i].b].student);
            fputc(',', f);
            csv_cell(f, en[s].blank);
            fprintf(f, ",%.3f,pair\n", pairs[i].score);
        }
        if (nshort && !ncompared) {
            fputs(",,", f);
            csv_cell(f, en[s].blank);
            fputs(",,trivial\n", f);
            ntriv++;
        }
        npairs += np;
        free(pairs);
        s = end;
    }
    if (fclose(f) || rename(tmp, out)) {
        remove(tmp);
        sim_die("cannot write ", out);
    }
    printf("similarity: %zu %s at or above %.2f, %zu %s, %zu trivial\n", npairs, npairs == 1 ? "pair" : "pairs", thr,
           nblanks, nblanks == 1 ? "blank" : "blanks", ntriv);
    for (size_t i = 0; i < ne; i++) free(en[i].p.fp);
    free(en);
    free(text);
    free(tmp);
    return 0;
}

#ifndef SIMILARITY_NO_MAIN
int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "tokens")) {
        Tokens t = {NULL, 0, 0};
        tokens_of_file(argv[2], &t);
        for (size_t i = 0; i < t.n; i++) printf("%s%s", i ? " " : "", t.tok[i]);
        printf("\n");
        tok_free(&t);
        return 0;
    }
    if (argc == 5 && !strcmp(argv[1], "prints")) {
        Tokens t = {NULL, 0, 0};
        tokens_of_file(argv[4], &t);
        Prints p = prints_of(&t, parse_size(argv[2], "K"), parse_size(argv[3], "W"), stdout);
        free(p.fp);
        tok_free(&t);
        return 0;
    }
    if (argc == 8 && !strcmp(argv[1], "compare")) return sim_compare(argv + 2);
    if (argc == 4 && !strcmp(argv[1], "ppsafe")) return sim_ppsafe(argv[2], argv[3]);
    fprintf(stderr, "usage: similarity tokens FILE | prints K W FILE | compare LIST OUT K W THRESHOLD MIN_TOKENS | ppsafe IN OUT\n");
    return 2;
}
#endif
