/* heatmap.c — attention weights as a shaded grid in the terminal.
 *
 * How a grid is made (see heatmap.h for what it looks like):
 *   1. Layout. Rows beyond HEATMAP_MAX_ROWS and columns beyond what fits in
 *      max_width are grouped into equal blocks (the last may be shorter).
 *   2. Values. Each shown cell is the mean of the unmasked entries of its
 *      block; it is masked only when every entry of the block is masked.
 *   3. Shading. The shown cells' finite values are spread over the levels
 *      of the ramp after its blank: min gets the lightest ink (░ or '.'),
 *      max the darkest (█ or '@'). Every unmasked cell shows some ink, so
 *      the masked ones ('·') stand out.
 *   4. Words. A line says how rows and columns map to queries and keys, a
 *      legend gives the value where each level starts.
 * Every line is built in a buffer first, so nothing is wider than
 * max_width display columns and no line ends in spaces.
 */
#include "common/program/heatmap.h"
#include "common/program/lang.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

/* ---- glyphs ----------------------------------------------------------------- */

static const char *const UNI_LEVELS[] = {
    " ", "\xe2\x96\x91" /* ░ */, "\xe2\x96\x92" /* ▒ */, "\xe2\x96\x93" /* ▓ */,
    "\xe2\x96\x88" /* █ */};
#define UNI_NLEVELS 5
#define UNI_MASK "\xc2\xb7" /* · */

static const char ASCII_RAMP[] = " .:-=+*#%@";
#define ASCII_NLEVELS 10
/* Not '.': that is already the second level of the ASCII ramp. */
#define ASCII_MASK "_"

enum {
    MIN_WIDTH = 24,        /* narrower max_width is raised to this          */
    MAX_WIDTH = 1000,      /* wider max_width is lowered to this            */
    ROW_LABEL_MAX = 12,    /* row labels are cut to this many columns       */
    COL_LABEL_MAX = 7,     /* widest column (label width) before shrinking  */
    VERT_LABEL_MAX = 8,    /* vertical column labels: at most this many lines */
    NUM_BUF = 32
};

/* ---- one output line ------------------------------------------------------- */

typedef struct {
    char *buf;
    size_t len, cap;
    int width;   /* display columns so far */
} Line;

static void line_put(Line *l, const char *s, size_t n, int w) {
    if (l->len + n + 1 > l->cap) return;   /* cannot happen: cap is generous */
    memcpy(l->buf + l->len, s, n);
    l->len += n;
    l->buf[l->len] = '\0';
    l->width += w;
}

/* Our own strings: every code point is one column. */
static void line_str(Line *l, const char *s) {
    line_put(l, s, strlen(s), lang_columns(s, strlen(s)));
}

/* A sentence of the heatmap in the run's language (lang.h); --ascii keeps
 * plain ASCII, so English. */
static const char *htr(bool ascii, const char *en) { return ascii ? en : tr(en); }

static void line_pad_to(Line *l, int width) {
    while (l->width < width) line_put(l, " ", 1, 1);
}

/* Write the line without trailing spaces, then start a new one. */
static void line_end(FILE *f, Line *l) {
    while (l->len > 0 && l->buf[l->len - 1] == ' ') l->len--;
    fwrite(l->buf, 1, l->len, f);
    fputc('\n', f);
    l->len = 0;
    l->buf[0] = '\0';
    l->width = 0;
}

/* Words separated by two spaces, wrapped before max_width; continuation
 * lines start at column `indent`. A word is never split. */
typedef struct {
    Line *line;
    FILE *f;
    int max_width, indent;
} Wrap;

static int str_width(const char *s) {
    int w = 0;
    for (const char *p = s; *p; p++)
        if (((unsigned char)*p & 0xC0) != 0x80) w++;
    return w;
}

static void wrap_word_sep(Wrap *w, const char *word, const char *sep) {
    int ww = str_width(word);
    bool fresh = w->line->width == 0 || w->line->width == w->indent;
    if (w->line->width == w->indent - 1) {   /* right after "legend:" */
        line_str(w->line, " ");
        fresh = true;
    }
    if (!fresh && w->line->width + str_width(sep) + ww > w->max_width) {
        line_end(w->f, w->line);
        line_pad_to(w->line, w->indent);
        fresh = true;
    }
    if (!fresh) line_str(w->line, sep);
    line_str(w->line, word);
}

static void wrap_word(Wrap *w, const char *word) { wrap_word_sep(w, word, "  "); }

static int utf8_width(const char *s, size_t n);

/* A sentence: wrapped at single spaces; continuation lines are indented. */
static void wrap_text(FILE *f, Line *l, const char *text, int max_width, int indent) {
    const char *p = text;
    bool at_start = true;
    while (*p == ' ') p++;
    while (*p) {
        const char *q = p;
        while (*q && *q != ' ') q++;
        int ww = utf8_width(p, (size_t)(q - p));
        if (!at_start && l->width + 1 + ww > max_width) {
            line_end(f, l);
            line_pad_to(l, indent);
            at_start = true;
        }
        if (!at_start) line_put(l, " ", 1, 1);
        line_put(l, p, (size_t)(q - p), ww);
        at_start = false;
        p = q;
        while (*p == ' ') p++;
    }
    line_end(f, l);
}

/* ---- labels: UTF-8 decoded into display units ------------------------------ */

typedef struct {
    char s[8];
    size_t n;
    int w;   /* display columns: 0, 1 or 2 */
} Unit;

static int codepoint_width(uint32_t c) {
    if ((c >= 0x0300 && c <= 0x036F) || (c >= 0x200B && c <= 0x200F) || c == 0xFE0F) return 0;
    if ((c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) ||
        (c >= 0x3041 && c <= 0x33FF) || (c >= 0x3400 && c <= 0x4DBF) ||
        (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
        (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
        (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
        (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
        (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD))
        return 2;
    return 1;
}

static void unit_set(Unit *u, const char *s, int w) {
    u->n = strlen(s);
    memcpy(u->s, s, u->n);
    u->w = w;
}

/* Next display unit of a label. Control characters become "\n", "\t" or
 * "?"; broken UTF-8 becomes "?"; in ASCII mode every non-ASCII character
 * becomes "?", so the output stays pure ASCII. */
static bool next_unit(const unsigned char **pp, bool ascii, Unit *u) {
    const unsigned char *p = *pp;
    unsigned c = p[0];
    if (c == 0) return false;
    if (c < 0x80) {
        *pp = p + 1;
        if (c == '\n') unit_set(u, "\\n", 2);
        else if (c == '\t') unit_set(u, "\\t", 2);
        else if (c == '\r') unit_set(u, "\\r", 2);
        else if (c < 0x20 || c == 0x7F) unit_set(u, "?", 1);
        else {
            u->s[0] = (char)c;
            u->n = 1;
            u->w = 1;
        }
        return true;
    }
    int len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    uint32_t cp = len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    bool ok = len > 0;
    for (int k = 1; ok && k < len; k++) {
        if ((p[k] & 0xC0) != 0x80) ok = false;
        else cp = (cp << 6) | (p[k] & 0x3F);
    }
    if (ok) {
        static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) ok = false;
    }
    if (!ok) {
        *pp = p + 1;
        unit_set(u, "?", 1);
        return true;
    }
    *pp = p + len;
    if (ascii || cp < 0xA0) {   /* C1 controls too */
        unit_set(u, "?", 1);
        return true;
    }
    memcpy(u->s, p, (size_t)len);
    u->n = (size_t)len;
    u->w = codepoint_width(cp);
    return true;
}

/* Display width of n bytes of valid UTF-8 (as made by label_clean). */
static int utf8_width(const char *s, size_t n) {
    int w = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = (unsigned char)s[i];
        int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
        for (int k = 1; k < len && i + (size_t)k < n; k++) cp = (cp << 6) | ((unsigned char)s[i + k] & 0x3F);
        w += len == 1 ? 1 : codepoint_width(cp);
        i += (size_t)len;
    }
    return w;
}

/* A copy of text that is safe to print: valid UTF-8 (pure ASCII when
 * ascii), control characters spelled out. Owned by the current scope. */
static char *label_clean(const char *text, bool ascii) {
    const unsigned char *p = (const unsigned char *)text;
    size_t cap = strlen(text) * 2 + 1, n = 0;
    char *out = (char *)t_alloc(cap);
    Unit u;
    while (next_unit(&p, ascii, &u) && n + u.n < cap) {
        memcpy(out + n, u.s, u.n);
        n += u.n;
    }
    out[n] = '\0';
    return out;
}

static int label_width(const char *label, bool ascii) {
    const unsigned char *p = (const unsigned char *)label;
    Unit u;
    int w = 0;
    while (next_unit(&p, ascii, &u)) w += u.w;
    return w;
}

/* Put at most `width` columns of the label, then pad to exactly `width`. */
static void label_put(Line *l, const char *label, int width, bool ascii) {
    const unsigned char *p = (const unsigned char *)label;
    int start = l->width;
    Unit u;
    while (next_unit(&p, ascii, &u)) {
        if (l->width - start + u.w > width) break;
        line_put(l, u.s, u.n, u.w);
    }
    line_pad_to(l, start + width);
}

/* Unit number k of a label (for vertical labels); false if it is shorter. */
static bool label_unit(const char *label, int k, bool ascii, Unit *u) {
    const unsigned char *p = (const unsigned char *)label;
    for (int i = 0; next_unit(&p, ascii, u); i++)
        if (i == k) return true;
    return false;
}

static int label_units(const char *label, bool ascii) {
    const unsigned char *p = (const unsigned char *)label;
    Unit u;
    int n = 0;
    while (next_unit(&p, ascii, &u)) n++;
    return n;
}

/* ---- numbers ------------------------------------------------------------------ */

static char *fmt_num(double v, int decimals, char *buf) {
    if (isinf(v)) snprintf(buf, NUM_BUF, v > 0 ? "inf" : "-inf");
    else if (fabs(v) >= 1e5) snprintf(buf, NUM_BUF, "%.3e", v);
    else snprintf(buf, NUM_BUF, "%.*f", decimals, v);
    /* "-0.000" reads as a bug; print it as "0.000" */
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1)) memmove(buf, buf + 1, strlen(buf));
    return buf;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int digits(int64_t n) {
    int d = 1;
    while (n >= 10) { n /= 10; d++; }
    return d;
}

/* "7 queries (the last row: 4)" or "7 queries": how many entries a block
 * holds when n entries are cut into blocks of f (rows: queries; else keys). */
static void block_words(char *buf, size_t len, int64_t n, int64_t f, bool rows, bool ascii) {
    int64_t last = n - (ceil_div(n, f) - 1) * f;
    if (last == f) snprintf(buf, len, htr(ascii, rows ? "%lld queries" : "%lld keys"), (long long)f);
    else snprintf(buf, len, htr(ascii, rows ? "%lld queries (the last row: %lld)" : "%lld keys (the last column: %lld)"),
                  (long long)f, (long long)last);
}

static bool is_neg_inf(float v) { return isinf(v) && v < 0; }

/* ---- one grid ------------------------------------------------------------------- */

enum { HEAD_HORIZ, HEAD_VERT, HEAD_RULER };

static int clamp_width(const HeatmapOptions *opt) {
    int w = opt && opt->max_width > 0 ? opt->max_width : 80;
    if (w < MIN_WIDTH) w = MIN_WIDTH;
    if (w > MAX_WIDTH) w = MAX_WIDTH;
    return w;
}

/* One grid being drawn: its layout (rows and columns, possibly in blocks),
 * the mean value of each cell and the scale the shades are taken from. */
typedef struct {
    FILE *f;
    Line line;
    const HeatmapOptions *opt;
    bool ascii;
    int W;                    /* columns available                               */
    int nlevels;              /* shades, the blank included                      */
    const char *mask;         /* the masked glyph                                */
    int64_t T, S;             /* queries, keys                                   */
    int64_t fr, fc;           /* queries per row, keys per column                */
    int nr, nc;               /* rows, columns drawn                             */
    const char **rowlab;      /* nr row labels                                   */
    int Lw;                   /* width of the row labels                         */
    int avail;                /* columns left for the grid                       */
    int cw, pitch, head;      /* cell width, cell + gap, HEAD_*                  */
    bool have_cols;           /* opt->cols given                                 */
    double *sum;              /* (nr, nc) mean of the unmasked entries of a cell */
    int64_t *cnt;             /* (nr, nc) how many entries it averages           */
    int64_t n_nan, n_masked, n_zero;
    bool any;                 /* some cell has a finite value                    */
    double vmin, vmax;        /* over all cells                                  */
    double *rmin, *rmax;      /* per row                                         */
} Grid;

/* Rows: at most HEATMAP_MAX_ROWS, blocks of fr queries, and their labels. */
static void grid_rows(Grid *g) {
    const HeatmapOptions *opt = g->opt;
    g->fr = g->T <= HEATMAP_MAX_ROWS ? 1 : ceil_div(g->T, HEATMAP_MAX_ROWS);
    g->nr = (int)ceil_div(g->T, g->fr);
    char (*rowbuf)[48] = (char (*)[48])t_alloc((size_t)g->nr * sizeof *rowbuf);
    g->rowlab = (const char **)t_alloc((size_t)g->nr * sizeof *g->rowlab);
    g->Lw = 1;
    for (int r = 0; r < g->nr; r++) {
        int64_t lo = (int64_t)r * g->fr, hi = lo + g->fr < g->T ? lo + g->fr - 1 : g->T - 1;
        if (g->fr == 1 && opt->rows && opt->rows[r]) g->rowlab[r] = opt->rows[r];
        else {
            if (lo == hi) snprintf(rowbuf[r], sizeof rowbuf[r], "%lld", (long long)lo);
            else snprintf(rowbuf[r], sizeof rowbuf[r], "%lld-%lld", (long long)lo, (long long)hi);
            g->rowlab[r] = rowbuf[r];
        }
        int w = label_width(g->rowlab[r], g->ascii);
        if (w > g->Lw) g->Lw = w;
    }
    if (g->Lw > ROW_LABEL_MAX) g->Lw = ROW_LABEL_MAX;
    if (g->Lw > g->W / 3) g->Lw = g->W / 3;
    g->avail = g->W - g->Lw - 1;
}

/* Columns: cell width cw, the gap between cells, blocks of fc keys, and how
 * the header is drawn (labels across, labels downwards, or a ruler). */
static void grid_columns(Grid *g) {
    const HeatmapOptions *opt = g->opt;
    int Lc = 1, gap = 1;
    g->have_cols = opt->cols != NULL;
    for (int64_t j = 0; j < g->S; j++) {
        int w = g->have_cols && opt->cols[j] ? label_width(opt->cols[j], g->ascii) : digits(j);
        if (w > Lc) Lc = w;
    }
    g->cw = 0;
    g->fc = 1;
    int cwant = Lc < 2 ? 2 : Lc > COL_LABEL_MAX ? COL_LABEL_MAX : Lc;
    for (int c = cwant; c >= 2; c--) {
        if (g->S * c + (g->S - 1) <= g->avail) { g->cw = c; break; }
    }
    if (g->cw) {
        g->head = g->cw >= Lc || g->cw >= 4 ? HEAD_HORIZ : g->have_cols ? HEAD_VERT : HEAD_RULER;
    } else {
        g->cw = 2;
        gap = 0;
        if (g->S * 2 <= g->avail) g->head = g->have_cols ? HEAD_VERT : HEAD_RULER;
        else {
            g->fc = ceil_div(g->S, g->avail / 2);
            g->head = HEAD_RULER;
        }
    }
    g->nc = (int)ceil_div(g->S, g->fc);
    g->pitch = g->cw + gap;
}

/* Cell values: the mean of the unmasked entries of each block; counts of
 * masked, NaN and exactly-0 entries for the notes. */
static void grid_cells(Grid *g, const Tensor *x, int nlead, const int64_t *lead) {
    const HeatmapOptions *opt = g->opt;
    int64_t idx[T_MAX_DIMS];
    g->sum = (double *)t_alloc((size_t)g->nr * (size_t)g->nc * sizeof *g->sum);
    g->cnt = (int64_t *)t_alloc((size_t)g->nr * (size_t)g->nc * sizeof *g->cnt);
    for (int k = 0; k < nlead; k++) idx[k] = lead[k];
    for (int64_t i = 0; i < g->T; i++) {
        idx[nlead] = i;
        for (int64_t j = 0; j < g->S; j++) {
            idx[nlead + 1] = j;
            float v = t_get_n(x, nlead + 2, idx);
            bool masked = is_neg_inf(v) || (opt->scores && is_neg_inf(t_get_n(opt->scores, nlead + 2, idx)));
            if (masked || isnan(v)) {
                if (masked) g->n_masked++;
                else g->n_nan++;
                continue;
            }
            if (v == 0.0f) g->n_zero++;  /* exactly 0 without a mask: underflow */
            size_t b = (size_t)(i / g->fr) * (size_t)g->nc + (size_t)(j / g->fc);
            g->sum[b] += v;
            g->cnt[b]++;
        }
    }
}

/* The scale: min and max over all cells, and each row's own (rmin, rmax). */
static void grid_scale(Grid *g) {
    g->rmin = (double *)t_alloc((size_t)g->nr * sizeof *g->rmin);
    g->rmax = (double *)t_alloc((size_t)g->nr * sizeof *g->rmax);
    for (int r = 0; r < g->nr; r++) {
        bool row_any = false;
        for (int c = 0; c < g->nc; c++) {
            size_t b = (size_t)r * (size_t)g->nc + (size_t)c;
            if (!g->cnt[b]) continue;
            g->sum[b] /= (double)g->cnt[b];
            if (!isfinite(g->sum[b])) continue;
            if (!row_any || g->sum[b] < g->rmin[r]) g->rmin[r] = g->sum[b];
            if (!row_any || g->sum[b] > g->rmax[r]) g->rmax[r] = g->sum[b];
            row_any = true;
            if (!g->any || g->sum[b] < g->vmin) g->vmin = g->sum[b];
            if (!g->any || g->sum[b] > g->vmax) g->vmax = g->sum[b];
            g->any = true;
        }
    }
}

/* The column header: labels across, labels written downwards, or a ruler. */
static void grid_header(Grid *g) {
    const HeatmapOptions *opt = g->opt;
    Line *line = &g->line;
    if (g->head == HEAD_HORIZ) {
        line_pad_to(line, g->Lw + 1);
        for (int c = 0; c < g->nc; c++) {
            char b[24];
            const char *lab = g->have_cols && opt->cols[c] ? opt->cols[c] : b;
            snprintf(b, sizeof b, "%d", c);
            label_put(line, lab, g->cw, g->ascii);
            if (c + 1 < g->nc) line_pad_to(line, g->Lw + 1 + (c + 1) * g->pitch);
        }
        line_end(g->f, line);
    } else if (g->head == HEAD_VERT) {
        int nlines = 1;
        for (int c = 0; c < g->nc; c++) {
            int n = opt->cols[c] ? label_units(opt->cols[c], g->ascii) : digits(c);
            if (n > nlines) nlines = n;
        }
        if (nlines > VERT_LABEL_MAX) nlines = VERT_LABEL_MAX;
        for (int k = 0; k < nlines; k++) {
            line_pad_to(line, g->Lw + 1);
            for (int c = 0; c < g->nc; c++) {
                char b[24];
                const char *lab = opt->cols[c] ? opt->cols[c] : b;
                Unit u;
                snprintf(b, sizeof b, "%d", c);
                line_pad_to(line, g->Lw + 1 + c * g->pitch);
                if (label_unit(lab, k, g->ascii, &u)) line_put(line, u.s, u.n, u.w);
            }
            line_end(g->f, line);
        }
    } else {
        /* a ruler: the first key of a column, where there is room */
        char *ruler = (char *)t_alloc((size_t)g->avail + 1);
        memset(ruler, ' ', (size_t)g->avail);
        int next_free = 0;
        for (int c = 0; c < g->nc; c++) {
            char b[24];
            int p = c * g->pitch;
            int n = snprintf(b, sizeof b, "%lld", (long long)((int64_t)c * g->fc));
            if (p >= next_free && p + n <= g->avail) {
                memcpy(ruler + p, b, (size_t)n);
                next_free = p + n + 1;
            }
        }
        ruler[g->avail] = '\0';
        line_pad_to(line, g->Lw + 1);
        line_str(line, ruler);
        line_end(g->f, line);
    }
}

/* The shade level (1 .. nlevels-1) of a cell's value v in row r. */
static int grid_level(const Grid *g, int r, double v) {
    double lo = g->opt->row_scale ? g->rmin[r] : g->vmin;
    double span = g->opt->row_scale ? g->rmax[r] - g->rmin[r] : g->vmax - g->vmin;
    int lev;
    if (isnan(v)) return 1;   /* +inf and -inf in one block */
    if (!isfinite(v)) return v > 0 ? g->nlevels - 1 : 1;
    if (span <= 0) return g->nlevels - 1;
    lev = 1 + (int)((v - lo) / span * (g->nlevels - 1));
    if (lev >= g->nlevels) lev = g->nlevels - 1;
    if (lev < 1) lev = 1;
    return lev;
}

/* The rows of the grid: a label, then one shaded cell per column. */
static void grid_body(Grid *g) {
    Line *line = &g->line;
    for (int r = 0; r < g->nr; r++) {
        label_put(line, g->rowlab[r], g->Lw, g->ascii);
        line_put(line, " ", 1, 1);
        for (int c = 0; c < g->nc; c++) {
            size_t b = (size_t)r * (size_t)g->nc + (size_t)c;
            int start = line->width;
            if (!g->cnt[b]) {
                line_pad_to(line, start + (g->cw - 1) / 2);
                line_str(line, g->mask);
            } else {
                int lev = grid_level(g, r, g->sum[b]);
                for (int k = 0; k < g->cw; k++) {
                    if (g->ascii) line_put(line, &ASCII_RAMP[lev], 1, 1);
                    else line_str(line, UNI_LEVELS[lev]);
                }
            }
            line_pad_to(line, start + (c + 1 < g->nc ? g->pitch : g->cw));
        }
        line_end(g->f, line);
    }
}

/* What rows and columns are (and how they were downsampled), then the notes
 * on NaN and on weights that are exactly 0 without a mask. */
static void grid_notes(Grid *g) {
    char text[512], words[96];
    Line *line = &g->line;
    if (g->fr == 1 && g->fc == 1) {
        snprintf(text, sizeof text, htr(g->ascii, "rows: %lld %s, columns: %lld %s"), (long long)g->T,
                 htr(g->ascii, g->T == 1 ? "query" : "queries"), (long long)g->S,
                 htr(g->ascii, g->S == 1 ? "key" : "keys"));
        wrap_text(g->f, line, text, g->W, 6);
    } else {
        if (g->fr == 1) snprintf(text, sizeof text, htr(g->ascii, "rows: %lld queries"), (long long)g->T);
        else {
            block_words(words, sizeof words, g->T, g->fr, true, g->ascii);
            snprintf(text, sizeof text, htr(g->ascii, "rows: %lld queries downsampled to %d rows, each the mean of %s"),
                     (long long)g->T, g->nr, words);
        }
        wrap_text(g->f, line, text, g->W, 6);
        if (g->fc == 1) snprintf(text, sizeof text, htr(g->ascii, "columns: %lld keys"), (long long)g->S);
        else {
            block_words(words, sizeof words, g->S, g->fc, false, g->ascii);
            snprintf(text, sizeof text,
                     htr(g->ascii, "columns: %lld keys downsampled to %d columns, each the mean of %s"),
                     (long long)g->S, g->nc, words);
        }
        wrap_text(g->f, line, text, g->W, 9);
        snprintf(text, sizeof text, htr(g->ascii, "(a mean skips masked entries; %s only where a whole block is masked)"),
                 g->mask);
        wrap_text(g->f, line, text, g->W, 1);
    }
    if (g->n_nan > 0) {
        snprintf(text, sizeof text, htr(g->ascii, "note: %lld NaN %s, drawn as %s like masked entries"),
                 (long long)g->n_nan, htr(g->ascii, g->n_nan == 1 ? "value" : "values"), g->mask);
        wrap_text(g->f, line, text, g->W, 6);
    }
    if (g->n_zero > 0) {
        snprintf(text, sizeof text, htr(g->ascii, "note: %lld %s exactly 0 where no mask put -inf (exp underflowed, "
                 "or dropout); shaded as the value 0, not as %s"), (long long)g->n_zero,
                 htr(g->ascii, g->n_zero == 1 ? "weight is" : "weights are"), g->mask);
        wrap_text(g->f, line, text, g->W, 6);
    }
}

/* The legend: the value where each level starts (or what the scale is). */
static void grid_legend(Grid *g) {
    char text[512], num1[NUM_BUF], num2[NUM_BUF];
    const double range = g->vmax - g->vmin;
    Line *line = &g->line;
    Wrap wr = {line, g->f, g->W, 8};
    line_str(line, htr(g->ascii, "legend:"));
    if (g->any && g->opt->row_scale) {
        snprintf(text, sizeof text, htr(g->ascii, "per row: %s = the row's smallest weight, %s = its largest"),
                 g->ascii ? "." : UNI_LEVELS[1], g->ascii ? "@" : UNI_LEVELS[UNI_NLEVELS - 1]);
        wrap_word(&wr, text);
        snprintf(text, sizeof text, htr(g->ascii, "(all rows: min %s, max %s)"), fmt_num(g->vmin, 4, num1),
                 fmt_num(g->vmax, 4, num2));
        wrap_word_sep(&wr, text, !g->ascii && lang_current() == LANG_ZH ? "" : " ");
    } else if (!g->any) {
        bool posinf = false;
        for (size_t b = 0; b < (size_t)g->nr * (size_t)g->nc; b++) posinf = posinf || (g->cnt[b] && g->sum[b] > 0);
        wrap_word(&wr, htr(g->ascii, posinf ? "no finite values" : "every entry is masked"));
    } else if (range <= 0) {
        char word[64];
        snprintf(word, sizeof word, "%s %s", g->ascii ? "@" : UNI_LEVELS[UNI_NLEVELS - 1],
                 fmt_num(g->vmax, 4, num1));
        wrap_word(&wr, word);
        wrap_word(&wr, htr(g->ascii, "(every value shown is the same)"));
    } else {
        double step = range / (g->nlevels - 1);
        int dec = (int)ceil(-log10(step)) + 1;
        if (dec < 2) dec = 2;
        if (dec > 6) dec = 6;
        for (int k = 1; k < g->nlevels; k++) {
            char word[64], glyph[8];
            if (g->ascii) {
                glyph[0] = ASCII_RAMP[k];
                glyph[1] = '\0';
            } else {
                snprintf(glyph, sizeof glyph, "%s", UNI_LEVELS[k]);
            }
            snprintf(word, sizeof word, "%s %s", glyph, fmt_num(g->vmin + (k - 1) * step, dec, num1));
            wrap_word(&wr, word);
        }
        int mdec = dec < 4 ? 4 : dec;
        snprintf(text, sizeof text, htr(g->ascii, "(min %s,"), fmt_num(g->vmin, mdec, num1));
        wrap_word(&wr, text);
        snprintf(text, sizeof text, htr(g->ascii, "max %s)"), fmt_num(g->vmax, mdec, num2));
        /* "（最小 0.1，最大 0.9）": no space after a Chinese comma */
        wrap_word_sep(&wr, text, !g->ascii && lang_current() == LANG_ZH ? "" : " ");
    }
    line_end(g->f, line);
    if (g->n_masked > 0) {
        line_pad_to(line, 8);
        snprintf(text, sizeof text, htr(g->ascii, "%s masked (-inf in the scores)"), g->mask);
        wrap_text(g->f, line, text, g->W, 10);
    }
}

/* Draw x[lead..., :, :] where x has nlead leading dims: the title, the
 * layout, the cells, then header, grid, notes and legend. */
static void draw_grid(FILE *f, const Tensor *x, int nlead, const int64_t *lead,
                      const HeatmapOptions *opt, const char *title) {
    static const HeatmapOptions defaults = {NULL, NULL, NULL, false, 0, false, NULL, false};
    Grid g;
    memset(&g, 0, sizeof g);
    g.f = f;
    g.opt = opt ? opt : &defaults;
    g.ascii = g.opt->ascii;
    g.W = clamp_width(g.opt);
    g.T = x->shape[nlead];
    g.S = x->shape[nlead + 1];
    g.nlevels = g.ascii ? ASCII_NLEVELS : UNI_NLEVELS;
    g.mask = g.ascii ? ASCII_MASK : UNI_MASK;

    t_scope_begin();
    g.line.cap = (size_t)g.W * 8 + 256;
    g.line.buf = (char *)t_alloc(g.line.cap);
    if (title && *title) wrap_text(f, &g.line, label_clean(title, g.ascii), g.W, 2);
    if (g.T == 0 || g.S == 0) {
        char text[128];
        snprintf(text, sizeof text, htr(g.ascii, "(empty: %lld queries x %lld keys, nothing to draw)"),
                 (long long)g.T, (long long)g.S);
        wrap_text(f, &g.line, text, g.W, 2);
        t_scope_end();
        return;
    }
    grid_rows(&g);
    grid_columns(&g);
    grid_cells(&g, x, nlead, lead);
    grid_scale(&g);
    grid_header(&g);
    grid_body(&g);
    grid_notes(&g);
    grid_legend(&g);
    t_scope_end();
}

/* ---- public ---------------------------------------------------------------------- */

static void check_scores_shape(const Tensor *weights, const HeatmapOptions *opt) {
    char s1[T_SHAPE_STR], s2[T_SHAPE_STR];
    if (opt && opt->scores && !t_same_shape(opt->scores, weights))
        t_error("heatmap: scores %s must have the shape of the weights %s (they mark the masked entries)",
                t_shape_str(opt->scores, s1), t_shape_str(weights, s2));
}

void heatmap_fprint(FILE *f, const Tensor *weights, const HeatmapOptions *opt) {
    if (!weights) t_error("heatmap: weights is NULL");
    if (weights->ndim != 2) {
        char s[T_SHAPE_STR];
        t_error("heatmap: expected a 2-D (T, S) tensor, got shape %s "
                "(heatmap_print_all draws one grid per leading index)",
                t_shape_str(weights, s));
    }
    check_scores_shape(weights, opt);
    draw_grid(f, weights, 0, NULL, opt, opt && opt->title ? htr(opt->ascii, opt->title) : NULL);
}

void heatmap_fprint_all(FILE *f, const Tensor *weights, const HeatmapOptions *opt) {
    if (!weights) t_error("heatmap: weights is NULL");
    if (weights->ndim < 2) {
        char s[T_SHAPE_STR];
        t_error("heatmap: attention weights need at least 2 dims (..., T, S), got shape %s",
                t_shape_str(weights, s));
    }
    check_scores_shape(weights, opt);
    const int nlead = weights->ndim - 2;
    const bool ascii = opt && opt->ascii;
    const char *prefix = opt && opt->title && *opt->title ? htr(ascii, opt->title) : NULL;
    int64_t count = 1;
    for (int k = 0; k < nlead; k++) count *= weights->shape[k];
    if (count == 0) {
        char s[T_SHAPE_STR];
        char text[T_SHAPE_STR + 64];
        snprintf(text, sizeof text, htr(ascii, "no grids to draw: shape %s"), t_shape_str(weights, s));
        if (prefix) fprintf(f, htr(ascii, "%s: %s"), prefix, text);
        else fputs(text, f);
        fputc('\n', f);
        return;
    }
    const int64_t shown = count < HEATMAP_MAX_GRIDS ? count : HEATMAP_MAX_GRIDS;
    const bool index_titles = opt && opt->index_titles;
    for (int64_t g = 0; g < shown; g++) {
        int64_t lead[T_MAX_DIMS], rest = g;
        for (int k = nlead - 1; k >= 0; k--) {
            lead[k] = rest % weights->shape[k];
            rest /= weights->shape[k];
        }
        char where[200], title[400];
        if (nlead == 0) where[0] = '\0';
        else if (nlead == 1 && !index_titles)
            snprintf(where, sizeof where, htr(ascii, "batch %lld"), (long long)lead[0]);
        else if (nlead == 2 && !index_titles)
            snprintf(where, sizeof where, htr(ascii, "batch %lld, head %lld"), (long long)lead[0],
                     (long long)lead[1]);
        else {
            char idx[160];
            size_t n = 0;
            idx[0] = '\0';
            for (int k = 0; k < nlead && n < sizeof idx; k++)
                n += (size_t)snprintf(idx + n, sizeof idx - n, k ? ", %lld" : "%lld", (long long)lead[k]);
            snprintf(where, sizeof where, htr(ascii, "index (%s)"), idx);
        }
        if (prefix && where[0]) snprintf(title, sizeof title, htr(ascii, "%s: %s"), prefix, where);  /* zh: 训练前：批 0，头 0 */
        else snprintf(title, sizeof title, "%s", prefix ? prefix : where);
        if (g > 0) fputc('\n', f);
        draw_grid(f, weights, nlead, lead, opt, title);
    }
    if (count > shown)
        fprintf(f, htr(ascii, "\n... %lld more %s not shown (drew the first %lld of %lld)\n"),
                (long long)(count - shown), htr(ascii, count - shown == 1 ? "grid" : "grids"), (long long)shown,
                (long long)count);
}

void heatmap_print_all(const Tensor *weights, const HeatmapOptions *opt) {
    heatmap_fprint_all(stdout, weights, opt);
}
