/* cli.c — the one flag parser shared by every chapter program (see cli.h).
 *
 * The parser walks argv once. Each word is one of:
 *   --name            a boolean flag, or a value flag whose value is the next word
 *   --name=value      a value flag with its value attached
 *   -h                the short form of --help
 *   --                the end of the flags; any word after it is an error
 *   anything else     a positional argument, which no chapter takes
 * A value flag takes the next word as its value unless that word starts with
 * "--" (then the value is missing: `--seq-len --heads 4`). Values are checked
 * here, so a chapter can trust every field of Args.
 *
 * The first problem found is the one reported, but the walk goes on to the
 * end so that `--hedas 4 --help` still shows the help.
 */
#include "common/program/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/npy.h"
#include "common/program/out.h"
#include "common/program/budget.h"
#include "common/program/lang.h"
#include "common/program/narrate.h"
#include "common/rng.h"
#include "common/tensor.h"

/* ---- the flag table ------------------------------------------------------ */

typedef enum {
    K_SIZE,   /* integer 1..CLI_MAX_SIZE               */
    K_SEED,   /* unsigned 64-bit integer               */
    K_REAL,   /* finite real in [0, 1]                 */
    K_BOOL,   /* no value                              */
    K_FILE,   /* non-empty file name                   */
    K_DIR,    /* non-empty directory name              */
    K_IMPL,   /* one of the names in impl_names        */
    K_LANG,   /* en or zh                              */
    K_HELP    /* --help / -h                           */
} Kind;

typedef enum {
    F_SEED, F_BATCH, F_SEQ_LEN, F_D_IN, F_D_OUT, F_D_K, F_HEADS, F_DROPOUT,
    F_EVAL, F_CAUSAL, F_NO_CAUSAL, F_BIAS, F_QUIET, F_DUMP, F_HEATMAP,
    F_ASCII, F_Q, F_K, F_V, F_INPUT, F_WEIGHTS, F_OUTPUT, F_IMPL, F_HELP,
    F_MAX_SEQ_LEN, F_RESID, F_ROW_SCALE, F_LANG
} FlagId;

typedef struct {
    const char *name;      /* with the leading "--"                     */
    const char *metavar;   /* NULL for flags without a value            */
    unsigned bit;          /* CLI_* bit; 0 = always applies (--help)    */
    Kind kind;
    FlagId id;
    const char *help;      /* one line for cli_usage                    */
} Flag;

/* In the order --help lists them. */
static const Flag flags[] = {
    {"--seed",      "N",    CLI_SEED,    K_SEED, F_SEED,
     "random seed, like torch.manual_seed(N)"},
    {"--batch",     "B",    CLI_BATCH,   K_SIZE, F_BATCH,     "batch size"},
    {"--seq-len",   "T",    CLI_SEQ_LEN, K_SIZE, F_SEQ_LEN,   "sequence length"},
    {"--max-seq-len", "L",  CLI_MAX_SEQ_LEN, K_SIZE, F_MAX_SEQ_LEN,
     "causal mask buffer size, max_seq_len"},
    {"--d-in",      "D",    CLI_D_IN,    K_SIZE, F_D_IN,
     "input width d_in (Happy-LLM 2.1.6: args.n_embd)"},
    {"--d-out",     "D",    CLI_D_OUT,   K_SIZE, F_D_OUT,
     "output width of W_q, W_k, W_v (args.dim)"},
    {"--d-k",       "D",    CLI_D_K,     K_SIZE, F_D_K,       "query/key width d_k"},
    {"--heads",     "H",    CLI_HEADS,   K_SIZE, F_HEADS,     "number of heads"},
    {"--dropout",   "P",    CLI_DROPOUT, K_REAL, F_DROPOUT,
     "dropout probability on the attention weights"},
    {"--resid-dropout", NULL, CLI_RESID, K_BOOL, F_RESID,
     "Happy-LLM's resid_dropout on the output"},
    {"--eval",      NULL,   CLI_EVAL,    K_BOOL, F_EVAL,
     "eval mode, dropout off, like model.eval()"},
    {"--causal",    NULL,   CLI_CAUSAL,  K_BOOL, F_CAUSAL,
     "mask future positions (causal attention)"},
    {"--no-causal", NULL,   CLI_CAUSAL,  K_BOOL, F_NO_CAUSAL, "attend to every position"},
    {"--bias",      NULL,   CLI_BIAS,    K_BOOL, F_BIAS,
     "biases on W_q, W_k, W_v (qkv_bias=True)"},
    {"--quiet",     NULL,   CLI_QUIET,   K_BOOL, F_QUIET,     "print only the result"},
    {"--dump",      "DIR",  CLI_DUMP,    K_DIR,  F_DUMP,
     "write the named intermediates into DIR as .npy"},
    {"--heatmap",   NULL,   CLI_HEATMAP, K_BOOL, F_HEATMAP,
     "draw the attention weights as a heatmap"},
    {"--ascii",     NULL,   CLI_HEATMAP, K_BOOL, F_ASCII,
     "heatmap in plain ASCII (implies --heatmap)"},
    {"--row-scale", NULL,   CLI_HEATMAP, K_BOOL, F_ROW_SCALE,
     "heatmap: shade each row on its own scale"},
    {"--q",         "FILE", CLI_QKV,     K_FILE, F_Q,
     "queries .npy, shape (..., T, d_k); needs --k and --v"},
    {"--k",         "FILE", CLI_QKV,     K_FILE, F_K,         "keys .npy, shape (..., S, d_k)"},
    {"--v",         "FILE", CLI_QKV,     K_FILE, F_V,         "values .npy, shape (..., S, d_v)"},
    {"--input",     "FILE", CLI_INPUT,   K_FILE, F_INPUT,
     "input .npy, shape (B, T, d_in); needs --weights"},
    {"--weights",   "DIR",  CLI_INPUT,   K_DIR,  F_WEIGHTS,
     "folder with wq wk wv.npy (d_out, d_in), see the chapter"},
    {"--output",    "FILE", CLI_OUTPUT,  K_FILE, F_OUTPUT,
     "write the attention output here as .npy"},
    {"--impl",      "NAME", CLI_IMPL,    K_IMPL, F_IMPL,
     "naive, reordered, tiled, online or flash"},
    {"--lang",      "en|zh", 0,          K_LANG, F_LANG,
     "language of the narration and --help"},
    {"--help",      NULL,   0,           K_HELP, F_HELP,      "show this help and exit"},
};

#define N_FLAGS (sizeof flags / sizeof flags[0])

static const char *const impl_names[] = {"naive", "reordered", "tiled", "online", "flash"};
#define N_IMPLS (sizeof impl_names / sizeof impl_names[0])

/* ---- small helpers ------------------------------------------------------- */

/* Write the first error only; later ones are dropped. */
typedef struct {
    char *buf;
    size_t len;
    bool failed;
} Err;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void fail(Err *e, const char *fmt, ...)
{
    va_list ap;
    if (e->failed) return;
    e->failed = true;
    if (!e->buf || e->len == 0) return;
    va_start(ap, fmt);
    vsnprintf(e->buf, e->len, tr(fmt), ap);
    va_end(ap);
}

/* A word of argv made safe to quote in one line: control bytes become \xNN,
 * the empty word becomes '', and long words are cut with "...". */
#define SHOW_MAX 48
#define SHOW_BUF (SHOW_MAX * 4 + 8)

static const char *show(char out[SHOW_BUF], const char *w)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0, i = 0, len = strlen(w), cut;
    if (len == 0) {
        strcpy(out, "''");
        return out;
    }
    cut = len;
    if (cut > SHOW_MAX) {
        cut = SHOW_MAX;
        /* do not split a UTF-8 sequence */
        for (i = 0; i < 3 && cut > 0 && ((unsigned char)w[cut] & 0xC0) == 0x80; i++)
            cut--;
    }
    for (i = 0; i < cut; i++) {
        unsigned char c = (unsigned char)w[i];
        if (c < 0x20 || c == 0x7f) {
            out[n++] = '\\';
            out[n++] = 'x';
            out[n++] = hex[c >> 4];
            out[n++] = hex[c & 15];
        } else {
            out[n++] = (char)c;
        }
    }
    if (cut < len) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

/* Decimal digits only: no sign, no space, no "0x", no trailing bytes.
 * Returns false on anything else or on overflow past UINT64_MAX. */
static bool parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (*s == '\0') return false;
    for (; *s; s++) {
        unsigned d;
        if (*s < '0' || *s > '9') return false;
        d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* digits [. digits] [e [+-] digits], at least one mantissa digit; or
 * . digits. No sign, space, hex, nan or inf. Then strtod for the value. */
static bool parse_real01(const char *s, double *out)
{
    const char *p = s;
    char *end = NULL;
    size_t mant = 0;
    double v;
    while (*p >= '0' && *p <= '9') { p++; mant++; }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') { p++; mant++; }
    }
    if (mant == 0) return false;
    if (*p == 'e' || *p == 'E') {
        size_t ed = 0;
        p++;
        if (*p == '+' || *p == '-') p++;
        while (*p >= '0' && *p <= '9') { p++; ed++; }
        if (ed == 0) return false;
    }
    if (*p != '\0') return false;
    errno = 0;
    v = strtod(s, &end);
    if (end != p) return false;
    /* ERANGE on underflow gives a tiny number, which is in range. */
    if (errno == ERANGE && v > 1.0) return false;
    if (!isfinite(v) || v < 0.0 || v > 1.0) return false;
    *out = v;
    return true;
}

static const Flag *find_flag(const char *name, size_t len)
{
    size_t i;
    for (i = 0; i < N_FLAGS; i++)
        if (strlen(flags[i].name) == len && memcmp(flags[i].name, name, len) == 0)
            return &flags[i];
    return NULL;
}

static bool takes_value(const Flag *f)
{
    return f->kind != K_BOOL && f->kind != K_HELP;
}

static const char *program_name(const CliSpec *spec)
{
    return spec && spec->program ? spec->program : "this program";
}

/* ---- applying one flag --------------------------------------------------- */

static void apply_value(const Flag *f, const char *val, Args *a, Err *e)
{
    char sv[SHOW_BUF];
    switch (f->kind) {
    case K_SIZE: {
        uint64_t v;
        int64_t *dst = NULL;
        if (!parse_u64(val, &v) || v < 1 || v > CLI_MAX_SIZE) {
            fail(e, "%s %s: must be an integer from 1 to %d", f->name, show(sv, val),
                 CLI_MAX_SIZE);
            return;
        }
        switch (f->id) {
        case F_BATCH:   dst = &a->batch; break;
        case F_SEQ_LEN: dst = &a->seq_len; break;
        case F_D_IN:    dst = &a->d_in; break;
        case F_D_OUT:   dst = &a->d_out; break;
        case F_D_K:     dst = &a->d_k; break;
        case F_HEADS:   dst = &a->heads; break;
        case F_MAX_SEQ_LEN: dst = &a->max_seq_len; break;
        default: break;
        }
        if (dst) *dst = (int64_t)v;
        return;
    }
    case K_SEED: {
        uint64_t v;
        if (!parse_u64(val, &v)) {
            fail(e, "%s %s: must be an integer from 0 to 18446744073709551615",
                 f->name, show(sv, val));
            return;
        }
        a->seed = v;
        return;
    }
    case K_REAL: {
        double v;
        if (!parse_real01(val, &v)) {
            fail(e, "%s %s: must be a number from 0 to 1", f->name, show(sv, val));
            return;
        }
        a->dropout = v;
        return;
    }
    case K_FILE:
    case K_DIR: {
        if (val[0] == '\0') {
            fail(e, "flag '%s' needs a non-empty %s name", f->name,
                 f->kind == K_DIR ? tr("directory") : tr("file"));
            return;
        }
        switch (f->id) {
        case F_DUMP:    a->dump = val; break;
        case F_Q:       a->q = val; break;
        case F_K:       a->k = val; break;
        case F_V:       a->v = val; break;
        case F_INPUT:   a->input = val; break;
        case F_WEIGHTS: a->weights = val; break;
        case F_OUTPUT:  a->output = val; break;
        default: break;
        }
        return;
    }
    case K_IMPL: {
        size_t i;
        for (i = 0; i < N_IMPLS; i++) {
            if (strcmp(val, impl_names[i]) == 0) {
                a->impl = impl_names[i];
                return;
            }
        }
        fail(e, "%s %s: must be one of naive, reordered, tiled, online, flash",
             f->name, show(sv, val));
        return;
    }
    case K_LANG: {
        Lang l;
        if (!lang_parse(val, &l)) {
            fail(e, "%s %s: must be en or zh", f->name, show(sv, val));
            return;
        }
        a->lang = (int)l;
        return;
    }
    case K_BOOL:
    case K_HELP:
        return;
    }
}

static void apply_bool(const Flag *f, Args *a)
{
    switch (f->id) {
    case F_EVAL:      a->eval = true; break;
    case F_CAUSAL:    a->causal = true; break;
    case F_NO_CAUSAL: a->causal = false; break;
    case F_BIAS:      a->bias = true; break;
    case F_QUIET:     a->quiet = true; break;
    case F_HEATMAP:   a->heatmap = true; break;
    case F_ASCII:     a->ascii = true; a->heatmap = true; break;
    case F_ROW_SCALE: a->row_scale = true; a->heatmap = true; break;
    case F_RESID:     a->resid_dropout = true; break;
    default: break;
    }
}

/* ---- a chapter's own flags (CliSpec.extra) -------------------------------- */

static int find_extra(const CliSpec *spec, const char *name, size_t len)
{
    int i;
    for (i = 0; spec && spec->extra && spec->extra[i].name && i < CLI_MAX_EXTRA; i++)
        if (strlen(spec->extra[i].name) == len && memcmp(spec->extra[i].name, name, len) == 0)
            return i;
    return -1;
}

/* Is word one of the '|'-separated choices? */
static bool is_choice(const char *choices, const char *word)
{
    size_t n = strlen(word);
    const char *p = choices;
    while (p && *p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (n > 0 && len == n && memcmp(p, word, n) == 0) return true;
        p = bar ? bar + 1 : NULL;
    }
    return false;
}

/* A choice's words for a sentence: "heads|sequence" -> "heads or sequence". */
static void choices_text(const char *choices, char *buf, size_t len)
{
    size_t n = 0, words = 1, w = 0;
    const char *p;
    for (p = choices; *p; p++) words += *p == '|';
    buf[0] = '\0';
    for (p = choices; *p && n + 8 < len; p++) {
        if (*p == '|') {
            const char *sep = tr(++w == words - 1 ? " or " : ", ");
            size_t k = strlen(sep);
            memcpy(buf + n, sep, k);
            n += k;
        } else {
            buf[n++] = *p;
        }
    }
    buf[n] = '\0';
}

static void apply_extra(const CliExtra *x, const char *val, Err *e)
{
    char sv[SHOW_BUF];
    switch (x->kind) {
    case CLI_EXTRA_INT: {
        uint64_t v;
        if (!parse_u64(val, &v) || (double)v < x->min || (double)v > x->max) {
            fail(e, "%s %s: must be an integer from %.0f to %.0f", x->name, show(sv, val), x->min, x->max);
            return;
        }
        *(int64_t *)x->value = (int64_t)v;
        return;
    }
    case CLI_EXTRA_REAL: {
        char *end = NULL;
        double v;
        errno = 0;
        v = strtod(val, &end);
        if (!*val || *end || errno == ERANGE || !isfinite(v) || v > x->max || v < x->min ||
            (x->min_exclusive && v <= x->min)) {
            if (x->min_exclusive && x->min == 0 && x->max >= 1e300)
                fail(e, "%s %s: must be a positive number", x->name, show(sv, val));
            else if (x->min_exclusive)
                fail(e, "%s %s: must be a number above %g and at most %g", x->name, show(sv, val), x->min, x->max);
            else
                fail(e, "%s %s: must be a number from %g to %g", x->name, show(sv, val), x->min, x->max);
            return;
        }
        *(double *)x->value = v;
        return;
    }
    case CLI_EXTRA_TEXT:
        if (val[0] == '\0') {
            fail(e, "flag '%s' needs a non-empty value", x->name);
            return;
        }
        *(const char **)x->value = val;
        return;
    case CLI_EXTRA_CHOICE:
        if (!is_choice(x->choices, val)) {
            char words[128];
            choices_text(x->choices, words, sizeof words);
            fail(e, "%s %s: must be %s", x->name, show(sv, val), words);
            return;
        }
        *(const char **)x->value = val;
        return;
    case CLI_EXTRA_FLAG:
        *(bool *)x->value = true;
        return;
    }
}

bool cli_extra_given(const CliSpec *spec, const Args *args, const char *name)
{
    int i = find_extra(spec, name, strlen(name));
    return i >= 0 && (args->extra_given & (1u << i));
}

/* ---- the parser ---------------------------------------------------------- */

/* Flags that only make sense together: --q, --k and --v; --input and --weights. */
static void check_pairs(const Args *a, bool saw_qkv, bool saw_input, Err *e)
{
    if (saw_qkv && !(a->q && a->k && a->v)) {
        char missing[32] = "";
        const char *names[3];
        int n = 0, j;
        if (!a->q) names[n++] = "--q";
        if (!a->k) names[n++] = "--k";
        if (!a->v) names[n++] = "--v";
        for (j = 0; j < n; j++) {
            if (j > 0) strcat(missing, j == n - 1 ? tr(" and ") : tr(", "));
            strcat(missing, names[j]);
        }
        fail(e, "--q, --k and --v go together: missing %s", missing);
    } else if (saw_input && !(a->input && a->weights)) {
        fail(e, "--input and --weights go together: missing %s", a->input ? "--weights" : "--input");
    }
}

/* One of the chapter's own flags at argv[*i] (eq: its "=" or NULL). */
static void parse_extra(const CliExtra *x, int index, const char *eq, int argc, char **argv, int *i, Args *a,
                        Err *e)
{
    const char *val = NULL;
    bool before = e->failed;
    if (x->kind == CLI_EXTRA_FLAG) {
        if (eq) {
            fail(e, "flag '%s' takes no value", x->name);
            return;
        }
    } else {
        if (eq) val = eq + 1;
        else if (*i + 1 < argc && argv[*i + 1] && strncmp(argv[*i + 1], "--", 2) != 0) val = argv[++*i];
        if (!val) {
            fail(e, "flag '%s' needs a value", x->name);
            return;
        }
    }
    if (e->failed) return; /* the first error is the one reported: leave the chapter's variables alone */
    apply_extra(x, val, e);
    if (e->failed && !before) return;
    a->extra_given |= 1u << index;
}

int cli_parse_args(const CliSpec *spec, int argc, char **argv, Args *out,
                   char *err, size_t errlen)
{
    Args a;
    Err e;
    bool help = false, end_of_flags = false;
    bool saw_qkv = false, saw_input = false;
    int i;

    e.buf = err;
    e.len = errlen;
    e.failed = false;
    if (err && errlen > 0) err[0] = '\0';

    if (spec) {
        a = spec->defaults;
    } else {
        memset(&a, 0, sizeof a);
    }
    a.given = 0;
    a.extra_given = 0;
    a.lang = (int)lang_from_env(); /* --lang below overrides it */

    for (i = 1; argv && i < argc && argv[i]; i++) {
        const char *w = argv[i];
        const char *eq, *val = NULL;
        const Flag *f;
        size_t name_len;
        char sv[SHOW_BUF], name[SHOW_MAX + 2];

        if (end_of_flags || w[0] != '-' || w[1] == '\0') {
            fail(&e, "unexpected argument %s%s%s", w[0] ? "'" : "", show(sv, w),
                 w[0] ? "'" : "");
            continue;
        }
        if (strcmp(w, "--") == 0) {
            end_of_flags = true;
            continue;
        }
        if (strcmp(w, "-h") == 0) {
            help = true;
            continue;
        }
        eq = strchr(w, '=');
        name_len = eq ? (size_t)(eq - w) : strlen(w);
        {   /* the flag's name alone, for messages (show() cuts it if long) */
            size_t n = name_len <= SHOW_MAX ? name_len : SHOW_MAX + 1;
            memcpy(name, w, n);
            name[n] = '\0';
        }
        if (w[1] != '-') {
            /* "-seed": a known long flag with one dash gets a hint */
            const Flag *hint = NULL;
            int hint_extra = -1;
            if (name_len < SHOW_MAX) {
                char dashed[SHOW_MAX + 2];
                dashed[0] = '-';
                memcpy(dashed + 1, w, name_len);
                hint = find_flag(dashed, name_len + 1);
                if (!hint) hint_extra = find_extra(spec, dashed, name_len + 1);
            }
            if (hint || hint_extra >= 0)
                fail(&e, "unknown flag '%s' (did you mean '%s'?)", show(sv, name),
                     hint ? hint->name : spec->extra[hint_extra].name);
            else
                fail(&e, "unknown flag '%s'", show(sv, name));
            continue;
        }
        f = find_flag(w, name_len);
        /* a chapter's own flag may take the name of a shared flag it does not use
         * (chapter 12's --impl flash|reference is not chapter 8's --impl) */
        if (f && f->bit && !(spec && (spec->flags & f->bit)) && find_extra(spec, w, name_len) >= 0) f = NULL;
        if (!f) {
            int x = find_extra(spec, w, name_len);
            if (x < 0) {
                fail(&e, "unknown flag '%s'", show(sv, name));
                continue;
            }
            parse_extra(&spec->extra[x], x, eq, argc, argv, &i, &a, &e);
            continue;
        }

        /* The value: attached, or the next word unless that is a flag. */
        if (takes_value(f)) {
            if (eq) {
                val = eq + 1;
            } else if (i + 1 < argc && argv[i + 1] &&
                       strncmp(argv[i + 1], "--", 2) != 0) {
                val = argv[++i];
            }
        }

        if (f->bit && !(spec && (spec->flags & f->bit))) {
            fail(&e, "flag '%s' does not apply to %s", f->name, program_name(spec));
            continue;
        }
        if (!takes_value(f)) {
            if (eq) {
                fail(&e, "flag '%s' takes no value", f->name);
                continue;
            }
            if (f->kind == K_HELP) {
                help = true;
            } else {
                apply_bool(f, &a);
                a.given |= f->bit;
            }
            continue;
        }
        if (!val) {
            fail(&e, "flag '%s' needs a value", f->name);
            continue;
        }
        {
            bool before = e.failed;
            apply_value(f, val, &a, &e);
            if (e.failed && !before) continue;
        }
        a.given |= f->bit;
        if (f->bit == CLI_QKV) saw_qkv = true;
        if (f->bit == CLI_INPUT) saw_input = true;
    }

    if (!help && !e.failed) check_pairs(&a, saw_qkv, saw_input, &e);

    if (out) *out = a;
    if (help) return 1;
    return e.failed ? 2 : 0;
}

/* The combinations the flags' parser cannot see alone, before any work: --heads must divide
 * d_out (the --d-out flag's, or with --weights the rows of wq.npy), and --output and --dump
 * must name a place the run can write (out_check_target). */
int cli_check_runnable(const CliSpec *spec, const Args *a, char *err, size_t errlen)
{
    if (spec && (spec->flags & CLI_HEADS) && (spec->flags & CLI_D_OUT) && a->heads > 0) {
        int64_t d_out = a->d_out;
        char path[1024] = "", from[1100] = "";
        Shape s;
        if (a->input && a->weights) {
            d_out = 0; /* a folder that cannot be read is the run's error (exit 1), not a flag's */
            if ((size_t)snprintf(path, sizeof path, "%s/wq.npy", a->weights) < sizeof path &&
                npy_peek_shape(path, &s) && s.ndim == 2) {
                char sv[SHOW_BUF];
                d_out = s.dims[0];
                snprintf(from, sizeof from, tr(" (the rows of %s)"), show(sv, path));
            }
        }
        if (d_out > 0 && d_out % a->heads != 0) {
            snprintf(err, errlen,
                     tr("--heads %lld: d_out %lld%s is not divisible by n_heads %lld (%lld %% %lld = %lld), so the "
                        "heads cannot each get head_dim = d_out // n_heads columns"),
                     (long long)a->heads, (long long)d_out, from, (long long)a->heads, (long long)d_out,
                     (long long)a->heads, (long long)(d_out % a->heads));
            return 2;
        }
    }
    if (spec && (spec->flags & CLI_OUTPUT) && out_check_target("--output", a->output, 0, err, errlen)) return 2;
    if (spec && (spec->flags & CLI_DUMP) && out_check_target("--dump", a->dump, 1, err, errlen)) return 2;
    return 0;
}

/* "<program>: <sentence> (see --help)" on stderr, one line whatever the sentence holds, exit 2. */
static void refuse(const char *program, const char *sentence)
{
    char shown[512];
    t_escape(shown, sizeof shown, sentence); /* a file name with a newline or ESC: still one line */
    fprintf(stderr, tr("%s: %s (see --help)\n"), program, shown);
    exit(EXIT_USAGE);
}

void cli_refuse_mask_flags(const Args *a)
{
    char err[512];
    if (a->input && !a->causal && (a->given & CLI_SEQ_LEN)) /* with --input, --seq-len sizes the mask buffer */
        refuse(t_program_name(), tr("--seq-len does not apply with --input when the run is not causal: the file "
                                    "gives T, and no mask buffer is made"));
    if (!(a->given & CLI_MAX_SEQ_LEN)) return;
    if (!a->causal)
        refuse(t_program_name(), tr("--max-seq-len does not apply with --no-causal, which makes no mask buffer"));
    if (!a->input && !a->q && a->seq_len > a->max_seq_len) {
        snprintf(err, sizeof err,
                 tr("--max-seq-len %lld: sequence length %lld is longer than max_seq_len %lld, the size of the causal "
                    "mask buffer"),
                 (long long)a->max_seq_len, (long long)a->seq_len, (long long)a->max_seq_len);
        refuse(t_program_name(), err);
    }
}

void cli_refuse_unused_seed(const Args *a, bool draws)
{
    if (!draws && (a->given & CLI_SEED))
        refuse(t_program_name(), tr("--seed does not apply: this run draws no random numbers (its data come from "
                                    "the files, and no dropout acts)"));
}

Args cli_parse(const CliSpec *spec, int argc, char **argv)
{
    char err[512];
    Args a;
    int rc;
    if (spec) lang_add(spec->messages);
    lang_set(lang_from_argv(argc, argv)); /* before the flags: their errors and --help speak it */
    t_set_program_name(program_name(spec));
    t_set_error_label(tr("error"));
    t_set_translator(tr); /* common/'s own sentences (the .npy loader's) in the run's language */
    out_run_begin(); /* outputs are atomic, standard output is checked at exit (out.h) */
    rc = cli_parse_args(spec, argc, argv, &a, err, sizeof err);
    if (rc == 0) rc = budget_check_env(err, sizeof err); /* ATTN_MAX_BYTES */
    if (rc == 0) rc = cli_check_runnable(spec, &a, err, sizeof err);
    if (rc == 1) {
        cli_usage(spec, stdout);
        fflush(stdout);
        exit(EXIT_OK);
    }
    if (rc != 0) refuse(program_name(spec), err);
    if (spec && (spec->flags & CLI_OUTPUT)) out_stdout_for_data(a.output); /* --output -: the .npy alone */
    return a;
}

Args program_start(const CliSpec *spec, int argc, char **argv)
{
    Args a = cli_parse(spec, argc, argv);
    narrate_set_quiet(a.quiet);
    t_manual_seed(a.seed);
    t_scope_begin();
    return a;
}

/* ---- --help -------------------------------------------------------------- */

static void default_text(const Flag *f, const Args *d, char *buf, size_t n)
{
    char sv[SHOW_BUF];
    const char *s = NULL;
    buf[0] = '\0';
    switch (f->id) {
    case F_SEED:    snprintf(buf, n, tr(" (default %llu)"), (unsigned long long)d->seed); return;
    case F_BATCH:   snprintf(buf, n, tr(" (default %lld)"), (long long)d->batch); return;
    case F_SEQ_LEN: snprintf(buf, n, tr(" (default %lld)"), (long long)d->seq_len); return;
    case F_D_IN:    snprintf(buf, n, tr(" (default %lld)"), (long long)d->d_in); return;
    case F_D_OUT:   snprintf(buf, n, tr(" (default %lld)"), (long long)d->d_out); return;
    case F_D_K:     snprintf(buf, n, tr(" (default %lld)"), (long long)d->d_k); return;
    case F_HEADS:   snprintf(buf, n, tr(" (default %lld)"), (long long)d->heads); return;
    case F_DROPOUT: snprintf(buf, n, tr(" (default %g)"), d->dropout); return;
    case F_EVAL:    snprintf(buf, n, tr(" (default %s)"), d->eval ? tr("on") : tr("off")); return;
    case F_CAUSAL:  if (d->causal) snprintf(buf, n, "%s", tr(" (the default)")); return;
    case F_NO_CAUSAL: if (!d->causal) snprintf(buf, n, "%s", tr(" (the default)")); return;
    case F_BIAS:    snprintf(buf, n, tr(" (default %s)"), d->bias ? tr("on") : tr("off")); return;
    case F_QUIET:   snprintf(buf, n, tr(" (default %s)"), d->quiet ? tr("on") : tr("off")); return;
    case F_HEATMAP: snprintf(buf, n, tr(" (default %s)"), d->heatmap ? tr("on") : tr("off")); return;
    case F_ASCII:   snprintf(buf, n, tr(" (default %s)"), d->ascii ? tr("on") : tr("off")); return;
    case F_ROW_SCALE: snprintf(buf, n, tr(" (default %s)"), d->row_scale ? tr("on") : tr("off")); return;
    case F_RESID:   snprintf(buf, n, tr(" (default %s)"), d->resid_dropout ? tr("on") : tr("off")); return;
    case F_MAX_SEQ_LEN:
        if (d->max_seq_len > 0) snprintf(buf, n, tr(" (default %lld)"), (long long)d->max_seq_len);
        return;
    case F_DUMP:    s = d->dump; break;
    case F_Q:       s = d->q; break;
    case F_K:       s = d->k; break;
    case F_V:       s = d->v; break;
    case F_INPUT:   s = d->input; break;
    case F_WEIGHTS: s = d->weights; break;
    case F_OUTPUT:  s = d->output; break;
    case F_IMPL:    s = d->impl; break;
    case F_HELP:    return;
    case F_LANG:    return;
    }
    if (s) snprintf(buf, n, tr(" (default %s)"), show(sv, s));
}

/* The chapter's own flags, after the shared ones and before --help. */
static void usage_extra(const CliSpec *spec, FILE *f)
{
    int i;
    for (i = 0; spec && spec->extra && spec->extra[i].name && i < CLI_MAX_EXTRA; i++) {
        const CliExtra *x = &spec->extra[i];
        char lhs[32], def[128] = "";
        char sv[SHOW_BUF];
        if (x->metavar) snprintf(lhs, sizeof lhs, "%s %s", x->name, x->metavar);
        else snprintf(lhs, sizeof lhs, "%s", x->name);
        switch (x->kind) {
        case CLI_EXTRA_INT: /* a value below the least it takes (0 for --generate N): off unless given */
            if ((double)*(const int64_t *)x->value >= x->min)
                snprintf(def, sizeof def, tr(" (default %lld)"), (long long)*(const int64_t *)x->value);
            break;
        case CLI_EXTRA_REAL: snprintf(def, sizeof def, tr(" (default %g)"), *(const double *)x->value); break;
        case CLI_EXTRA_FLAG:
            snprintf(def, sizeof def, tr(" (default %s)"), *(const bool *)x->value ? tr("on") : tr("off"));
            break;
        case CLI_EXTRA_TEXT:
        case CLI_EXTRA_CHOICE: {
            const char *v = *(const char *const *)x->value;
            if (v) snprintf(def, sizeof def, tr(" (default %s)"), show(sv, v));
            break;
        }
        }
        fprintf(f, "  %-16s %s%s\n", lhs, tr(x->help), def);
    }
}

static const char usage_footer[] =
    "\nFlags take \"--name value\" or \"--name=value\".\n"
    "language: --lang en|zh; without it, the first of LC_ALL, LC_MESSAGES and LANG\n"
    "that is set: a value beginning with zh is Chinese, any other English.\n"
    "exit status: 0 ok; 2 when the flags cannot work together (checked before any\n"
    "work: sizes, heads, unknown flags, an output folder that cannot be written);\n"
    "1 when a file's content or the system fails during the run.\n"
    "memory: a run that would not fit in ATTN_MAX_BYTES (default: half of this\n"
    "machine's memory) is refused before it starts. time: a run longer than 10 s\n"
    "at a fixed rate (the notice names it) says so first and shows its progress\n"
    "on a terminal; Ctrl-C stops it.\n";

/* A flag's line in --help: the chapter's own where it has one (chapter 11's files
 * hold dim and GQA's widths, not d_in and d_out), else the shared one. */
static const char *own_help(const CliSpec *spec, const Flag *fl)
{
    if (spec && fl->id == F_INPUT && spec->input_help) return spec->input_help;
    if (spec && fl->id == F_WEIGHTS && spec->weights_help) return spec->weights_help;
    return fl->help;
}

void cli_usage(const CliSpec *spec, FILE *f)
{
    size_t i;
    Args none;
    const Args *d;
    memset(&none, 0, sizeof none);
    d = spec ? &spec->defaults : &none;

    fprintf(f, tr("usage: %s [flags]\n"), program_name(spec));
    if (spec && spec->summary && spec->summary[0]) fprintf(f, "%s\n", tr(spec->summary));
    fprintf(f, "%s", tr("\nflags:\n"));
    for (i = 0; i < N_FLAGS; i++) {
        const Flag *fl = &flags[i];
        char lhs[32], def[128];
        if (fl->bit && !(spec && (spec->flags & fl->bit))) continue;
        if (fl->kind == K_HELP) usage_extra(spec, f);
        if (fl->kind == K_HELP)
            snprintf(lhs, sizeof lhs, "%s, -h", fl->name);
        else if (fl->metavar)
            snprintf(lhs, sizeof lhs, "%s %s", fl->name, fl->metavar);
        else
            snprintf(lhs, sizeof lhs, "%s", fl->name);
        default_text(fl, d, def, sizeof def);
        fprintf(f, "  %-16s %s%s\n", lhs, tr(own_help(spec, fl)), def);
    }
    fprintf(f, "%s", tr(usage_footer));
}

const char *cli_flag_names(unsigned bits, char *buf, size_t len)
{
    size_t i, n = 0, count = 0, k = 0;
    unsigned seen = 0;
    for (i = 0; i < N_FLAGS; i++)
        if ((flags[i].bit & bits) && !(flags[i].bit & seen)) seen |= flags[i].bit, count++;
    if (len) buf[0] = '\0';
    seen = 0;
    for (i = 0; i < N_FLAGS && len; i++) {
        if (!(flags[i].bit & bits) || (flags[i].bit & seen)) continue;
        seen |= flags[i].bit;
        k++;
        n += (size_t)snprintf(buf + (n < len ? n : len - 1), n < len ? len - n : 1, "%s%s",
                              k == 1 ? "" : k == count ? tr(" and ") : tr(", "), flags[i].name);
    }
    return buf;
}

void *load_or_default(const Args *args, unsigned replaced, void *(*from_files)(const Args *args, void *ctx),
                      void *(*from_default)(const Args *args, void *ctx), void *ctx)
{
    char names[256];
    unsigned given = args->given & replaced;
    void *r;
    if (!args->input) return from_default(args, ctx);
    r = from_files(args, ctx);
    if (given && (given & (given - 1)))
        narrate_say("(%s are not used: --input and --weights give the shapes and biases)",
                    cli_flag_names(given, names, sizeof names));
    else if (given)
        narrate_say("(%s is not used: --input and --weights give the shapes and biases)",
                    cli_flag_names(given, names, sizeof names));
    return r;
}
