/* lang.h — the language a chapter program speaks: English or Chinese.
 *
 * No gettext: each chapter keeps a table of (English, Chinese) pairs beside
 * its main.c (chapters/NN_name/zh.c), and common/program keeps one for its
 * own sentences (lang_zh.c). The narrate_* functions, the heatmap's words
 * and --help look their English format string up with tr(); in Chinese the
 * pair's other string is printed with the same arguments, so both strings of
 * a pair have the same conversion specifiers in the same order (tested:
 * tests/test_common_lang.c). A string without a pair prints as written.
 *
 *     static const LangPair chapter1_zh[] = {
 *         {"Softmax turns the scores into weights", "softmax 把注意力分数变成注意力权重"},
 *         {NULL, NULL}};
 *     CliSpec spec = {..., .messages = chapter1_zh};   // cli_parse adds the table
 *
 * The language: --lang en|zh; without the flag the first of LC_ALL,
 * LC_MESSAGES and LANG that is set and not empty (the order of POSIX locale
 * variables): a value beginning with "zh" is Chinese, any other English.
 */
#ifndef COMMON_LANG_H
#define COMMON_LANG_H

#include <stddef.h>

typedef enum { LANG_EN = 0, LANG_ZH = 1 } Lang;

typedef struct {
    const char *en;   /* the string as the chapter code writes it */
    const char *zh;   /* the same sentence in Chinese             */
} LangPair;

void lang_set(Lang lang);
Lang lang_current(void);

/* "en" or "zh" -> 1 and *out; anything else -> 0. */
int lang_parse(const char *word, Lang *out);

/* The environment's language: LC_ALL, then LC_MESSAGES, then LANG (the
 * first set and non-empty decides); "zh..." is Chinese, anything else English. */
Lang lang_from_env(void);

/* The language of a run before its flags are parsed, so that their errors and --help
 * speak it: the last valid --lang of argv (--lang zh, --lang=zh; none after "--"),
 * else lang_from_env(). A bad value is left to the flag parser to refuse. */
Lang lang_from_argv(int argc, char **argv);

/* Add a table (ended by {NULL, NULL}); the latest added is searched first.
 * Adding the same table twice does nothing. */
void lang_add(const LangPair *table);

/* The string to print for `en`: its Chinese pair when the language is zh and
 * a table has it, else `en` itself. */
const char *tr(const char *en);

/* common/program's own table (--help, the long-run notice, the progress line,
 * the memory refusal, the heatmap's words), always searched. */
extern const LangPair lang_common_zh[];

/* Display columns of a UTF-8 string: CJK ideographs and fullwidth forms 2,
 * other characters 1 (what tests/columns.awk counts). */
int lang_columns(const char *s, size_t bytes);

#endif
