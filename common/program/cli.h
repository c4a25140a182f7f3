/* cli.h — the one flag parser shared by every chapter program.
 *
 * A chapter says which flags apply (a set of CLI_* bits) and its defaults;
 * cli_parse() fills an Args. Flags take "--name value" or "--name=value".
 * Values are typed and range-checked: `--heads 0`, `--seq-len abc`,
 * `--dropout 1.5` are usage errors naming the flag. An unknown flag, or a
 * flag that does not apply to this chapter, is named too. Usage errors print
 * one line on stderr and exit 2; --help prints the chapter's flags and exits 0.
 * Every chapter takes --lang en|zh (lang.h); without it the language comes
 * from LC_ALL, then LC_MESSAGES, then LANG ("zh..." is Chinese).
 */
#ifndef COMMON_CLI_H
#define COMMON_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/program/lang.h"

enum {
    CLI_SEED    = 1u << 0,   /* --seed N            (default 123)            */
    CLI_BATCH   = 1u << 1,   /* --batch B                                    */
    CLI_SEQ_LEN = 1u << 2,   /* --seq-len T                                  */
    CLI_D_IN    = 1u << 3,   /* --d-in D                                     */
    CLI_D_OUT   = 1u << 4,   /* --d-out D                                    */
    CLI_HEADS   = 1u << 5,   /* --heads H                                    */
    CLI_DROPOUT = 1u << 6,   /* --dropout P  in [0, 1]                       */
    CLI_EVAL    = 1u << 7,   /* --eval                                       */
    CLI_CAUSAL  = 1u << 8,   /* --causal / --no-causal                       */
    CLI_BIAS    = 1u << 9,   /* --bias                                       */
    CLI_QUIET   = 1u << 10,  /* --quiet                                      */
    CLI_DUMP    = 1u << 11,  /* --dump DIR                                   */
    CLI_HEATMAP = 1u << 12,  /* --heatmap, --ascii                           */
    CLI_QKV     = 1u << 13,  /* --q FILE --k FILE --v FILE                   */
    CLI_INPUT   = 1u << 14,  /* --input FILE --weights DIR                   */
    CLI_OUTPUT  = 1u << 15,  /* --output FILE                                */
    CLI_IMPL    = 1u << 16,  /* --impl naive|reordered|tiled|online|flash    */
    CLI_D_K     = 1u << 17,  /* --d-k D (key/query width, chapters 1, 2, 4, 8) */
    CLI_MAX_SEQ_LEN = 1u << 18,  /* --max-seq-len L (the causal mask buffer)   */
    CLI_RESID   = 1u << 19   /* --resid-dropout (Happy-LLM's second dropout) */
};

/* Largest accepted size for --batch, --seq-len, --d-in, --d-out, --d-k and --heads. Bigger products
 * are still checked against memory by the chapter (t_check_fits). */
#define CLI_MAX_SIZE 1000000

typedef struct {
    uint64_t seed;
    int64_t batch, seq_len, d_in, d_out, d_k, heads;
    int64_t max_seq_len;   /* 0 = the chapter's default */
    double dropout;
    bool eval;
    bool causal;
    bool bias;
    bool quiet;
    bool heatmap;
    bool ascii;
    bool row_scale;        /* --row-scale: heatmap shades each row on its own */
    int lang;              /* Lang (lang.h): --lang en|zh, else LC_ALL, LC_MESSAGES, LANG */
    bool resid_dropout;
    const char *dump;      /* NULL when not given */
    const char *q, *k, *v; /* NULL when not given */
    const char *input;
    const char *weights;
    const char *output;
    const char *impl;      /* "flash" by default in chapter 8 */
    /* which flags were given on the command line (CLI_* bits) */
    unsigned given;
    /* which of the chapter's own flags were given: bit i for spec->extra[i] */
    unsigned extra_given;
} Args;

/* A chapter's own flag (chapter 9's --parallel, chapter 10's --steps, ...),
 * parsed and listed in --help like the shared ones. `value` points at the
 * chapter's variable: it holds the default (shown by --help) and gets the
 * value. The parser checks the range and names the flag in its sentence. */
typedef enum {
    CLI_EXTRA_INT,     /* int64_t *, from min to max                             */
    CLI_EXTRA_REAL,    /* double *, finite, from min to max (min excluded when
                          min_exclusive: "a positive number")                    */
    CLI_EXTRA_FLAG,    /* bool *, no value: set to true                          */
    CLI_EXTRA_TEXT,    /* const char **, a non-empty word (a file or folder name) */
    CLI_EXTRA_CHOICE   /* const char **, one of `choices` ("heads|sequence")     */
} CliExtraKind;

typedef struct {
    const char *name;         /* "--steps"                                        */
    const char *metavar;      /* "N"; NULL for CLI_EXTRA_FLAG                     */
    CliExtraKind kind;
    void *value;              /* see CliExtraKind                                 */
    const char *help;         /* one line for --help                              */
    double min, max;          /* CLI_EXTRA_INT and CLI_EXTRA_REAL                 */
    bool min_exclusive;       /* CLI_EXTRA_REAL: value > min                      */
    const char *choices;      /* CLI_EXTRA_CHOICE: the words, '|' between them    */
} CliExtra;

#define CLI_MAX_EXTRA 16

typedef struct {
    const char *program;      /* "chapter4"                              */
    const char *summary;      /* one line: what the program shows        */
    unsigned flags;           /* CLI_* bits that apply                   */
    Args defaults;            /* values before parsing                   */
    const CliExtra *extra;    /* this chapter's own flags, ended by one  */
                              /* with name NULL; NULL when none          */
    const LangPair *messages; /* the chapter's (English, Chinese) pairs  */
                              /* (lang.h); NULL when none                */
    const char *input_help;   /* --help's line for --input and --weights */
    const char *weights_help; /* when the chapter's differ; NULL: shared */
} CliSpec;

/* Was extra flag `name` of spec given on the command line (after cli_parse)? */
bool cli_extra_given(const CliSpec *spec, const Args *args, const char *name);

/* Parse without printing or exiting: 0 = ok, 1 = --help asked,
 * 2 = usage error (one sentence in err, naming the flag). --help (or -h)
 * anywhere wins over a usage error; otherwise the first error is reported.
 * A repeated flag: the last one wins. `out` (may be NULL) is always written;
 * its strings point into argv (impl: to a static name), so argv must outlive
 * it. Only argv[1..argc-1] are read. */
int cli_parse_args(const CliSpec *spec, int argc, char **argv, Args *out,
                   char *err, size_t errlen);

/* The usual entry point: parse; on --help print cli_usage and exit 0; on a
 * usage error print "<program>: <sentence> (see --help)" and exit 2. Also
 * sets the program name for error messages. */
Args cli_parse(const CliSpec *spec, int argc, char **argv);

/* What no single flag shows, checked before any work: --heads divides d_out (the flag's, or
 * the rows of --weights' wq.npy), --output and --dump can be written (out_check_target).
 * 0, or 2 with one sentence in err. cli_parse calls it; a program parsing with
 * cli_parse_args (chapter 9) calls it itself. */
int cli_check_runnable(const CliSpec *spec, const Args *a, char *err, size_t errlen);

/* Chapters 4-7, once args->causal is what the run does (chapter 7's --happy-llm is not
 * causal without --causal): a given --max-seq-len is refused as a usage error, before any
 * output (exit 2), when no mask is made, or when the flags' sequence (no --input, no --q:
 * --seq-len, or chapter 4's sentence of 6 tokens as its default seq_len) is longer; so is
 * --seq-len with --input and no mask (with --input it sizes the mask buffer, chapters 5-7). */
void cli_refuse_mask_flags(const Args *a);

/* A given --seed when the run draws nothing (draws false: its data from files and no dropout
 * in training), refused before any output (exit 2) instead of ignored, as chapter 10 does. */
void cli_refuse_unused_seed(const Args *a, bool draws);

/* Write the --help text. */
void cli_usage(const CliSpec *spec, FILE *f);

/* Where a module chapter's data comes from (chapters 3, 5, 6, 7, 9, 10, 11): with
 * --input FILE --weights DIR, from_files(args, ctx), then one line naming the flags
 * among `replaced` that this run was given although the files give those sizes:
 *     (--batch and --d-in are not used: --input and --weights give the shapes and biases)
 * without --input, from_default(args, ctx): the default run, drawn after
 * program_start's t_manual_seed(--seed) as PyTorch draws it after
 * torch.manual_seed(seed). Returns what the one called returns. */
void *load_or_default(const Args *args, unsigned replaced, void *(*from_files)(const Args *args, void *ctx),
                      void *(*from_default)(const Args *args, void *ctx), void *ctx);
/* "--batch, --d-in and --bias": the first name of each flag in bits, in --help's
 * order, into buf (which gets "" for none). */
const char *cli_flag_names(unsigned bits, char *buf, size_t len);

/* The opening of every chapter's main(): cli_parse, then the run's state as
 * the flags say: narrate_set_quiet(--quiet), t_manual_seed(--seed) and a
 * scope for the run's tensors (t_scope_begin). */
Args program_start(const CliSpec *spec, int argc, char **argv);

#endif
