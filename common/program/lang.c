/* lang.c — English or Chinese, and the lookup of a sentence's Chinese (see lang.h). */
#include "common/program/lang.h"

#include <stdlib.h>
#include <string.h>

static Lang current = LANG_EN;

#define MAX_TABLES 8
static const LangPair *tables[MAX_TABLES];
static int n_tables = 0;

void lang_set(Lang lang) { current = lang; }
Lang lang_current(void) { return current; }

int lang_parse(const char *word, Lang *out) {
    if (!word) return 0;
    if (strcmp(word, "en") == 0) { *out = LANG_EN; return 1; }
    if (strcmp(word, "zh") == 0) { *out = LANG_ZH; return 1; }
    return 0;
}

Lang lang_from_env(void) {
    static const char *const vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    size_t i;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && v[0]) return strncmp(v, "zh", 2) == 0 ? LANG_ZH : LANG_EN;
    }
    return LANG_EN;
}

Lang lang_from_argv(int argc, char **argv) {
    Lang l = lang_from_env(), v;
    for (int i = 1; argv && i < argc && argv[i]; i++) {
        if (strcmp(argv[i], "--") == 0) break;
        if (strncmp(argv[i], "--lang=", 7) == 0 && lang_parse(argv[i] + 7, &v)) l = v;
        else if (strcmp(argv[i], "--lang") == 0 && i + 1 < argc && lang_parse(argv[i + 1], &v)) l = v;
    }
    return l;
}

void lang_add(const LangPair *table) {
    int i;
    if (!table) return;
    for (i = 0; i < n_tables; i++)
        if (tables[i] == table) return;
    if (n_tables < MAX_TABLES) tables[n_tables++] = table;
}

static const char *find(const LangPair *t, const char *en) {
    for (; t->en; t++)
        if (t->en == en || strcmp(t->en, en) == 0) return t->zh;
    return NULL;
}

const char *tr(const char *en) {
    int i;
    const char *zh;
    if (current != LANG_ZH || !en) return en;
    for (i = n_tables - 1; i >= 0; i--)
        if ((zh = find(tables[i], en)) != NULL) return zh;
    if ((zh = find(lang_common_zh, en)) != NULL) return zh;
    return en;
}

/* Wide: U+1100-115F, U+2E80-A4CF, U+AC00-D7A3, U+F900-FAFF, U+FE10-FE19,
 * U+FE30-FE6F, U+FF00-FF60, U+FFE0-FFE6 (as tests/columns.awk). */
static int wide(unsigned long cp) {
    return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
           (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
           (cp >= 0xFE10 && cp <= 0xFE19) || (cp >= 0xFE30 && cp <= 0xFE6F) ||
           (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6);
}

int lang_columns(const char *s, size_t bytes) {
    int cols = 0;
    size_t i = 0;
    while (i < bytes && s[i]) {
        unsigned char c = (unsigned char)s[i];
        unsigned long cp = c;
        int need = 0;
        if (c >= 0xF0) { cp = c & 7; need = 3; }
        else if (c >= 0xE0) { cp = c & 15; need = 2; }
        else if (c >= 0xC0) { cp = c & 31; need = 1; }
        i++;
        while (need-- > 0 && i < bytes && ((unsigned char)s[i] & 0xC0) == 0x80)
            cp = (cp << 6) | ((unsigned char)s[i++] & 63);
        cols += wide(cp) ? 2 : 1;
    }
    return cols;
}
