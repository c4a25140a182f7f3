/* test_common_lang.c — the message tables (common/program/lang.h): every pair of
 * every table has the same printf conversions in the same order in both
 * languages (so printing the Chinese with the English's arguments is safe), a
 * Chinese string that is Chinese (not a copy of the English), no English key
 * twice; and tr(), lang_parse() and lang_columns(). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/harness.h"
#include "common/exercise.h"
#include "common/error.h"
#include "common/program/lang.h"

/* the chapters whose programs narrate in Chinese (their zh.c) */
extern const LangPair chapter0_zh[];
extern const LangPair chapter1_zh[];
extern const LangPair chapter2_zh[];
extern const LangPair chapter3_zh[];
extern const LangPair chapter4_zh[];
extern const LangPair chapter5_zh[];
extern const LangPair chapter6_zh[];
extern const LangPair chapter7_zh[];
extern const LangPair chapter11_zh[];
extern const LangPair chapter8_zh[];
extern const LangPair chapter10_zh[];
extern const LangPair chapter12_zh[];
extern const LangPair chapter9_zh[];
extern const LangPair chapter13_zh[];

static const struct {
    const char *name;
    const LangPair *table;
} TABLES[] = {
    {"lang_common_zh", lang_common_zh},
    {"chapter0_zh", chapter0_zh},
    {"chapter1_zh", chapter1_zh},
    {"chapter2_zh", chapter2_zh},
    {"chapter3_zh", chapter3_zh},
    {"chapter4_zh", chapter4_zh},
    {"chapter5_zh", chapter5_zh},
    {"chapter6_zh", chapter6_zh},
    {"chapter7_zh", chapter7_zh},
    {"chapter11_zh", chapter11_zh},
    {"chapter8_zh", chapter8_zh},
    {"chapter10_zh", chapter10_zh},
    {"chapter12_zh", chapter12_zh},
    {"chapter9_zh", chapter9_zh},
    {"chapter13_zh", chapter13_zh},
};
#define N_TABLES (sizeof TABLES / sizeof TABLES[0])

/* The conversions of a printf format, each as written ("%-9s", "%.4f", "%lld"),
 * joined by '|'; "%%" is not a conversion. */
static void conversions(const char *fmt, char *out, size_t len) {
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') continue;
        if (p[1] == '%') { p++; continue; }
        const char *q = p + 1;
        while (*q && strchr("-+ #0", *q)) q++;
        while (*q == '*' || (*q >= '0' && *q <= '9')) q++;
        if (*q == '.') { q++; while (*q == '*' || (*q >= '0' && *q <= '9')) q++; }
        while (*q && strchr("hljztL", *q)) q++;
        if (*q) q++; /* the conversion letter */
        if (n + (size_t)(q - p) + 2 < len) {
            memcpy(out + n, p, (size_t)(q - p));
            n += (size_t)(q - p);
            out[n++] = '|';
            out[n] = '\0';
        }
        p = q - 1;
    }
}

/* A CJK ideograph or fullwidth punctuation: a character of two columns. */
static bool has_cjk(const char *s) {
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p >= 0xE0 && lang_columns(p, 3) == 2) return true;
    return false;
}

static void test_conversions_parser(void) {
    char c[128];
    conversions("%-9s %10.4f 100%% %lld %s%s", c, sizeof c);
    CHECK_MSG(strcmp(c, "%-9s|%10.4f|%lld|%s|%s|") == 0, "conversions: '%s'", c);
    conversions("no conversion, 5%% only", c, sizeof c);
    CHECK_MSG(c[0] == '\0', "conversions: '%s'", c);
}

static void test_pairs_have_the_same_conversions(void) {
    for (size_t t = 0; t < N_TABLES; t++) {
        int n = 0;
        for (const LangPair *p = TABLES[t].table; p->en; p++, n++) {
            char ce[512], cz[512];
            CHECK_MSG(p->zh && p->zh[0], "%s: '%s' has no Chinese", TABLES[t].name, p->en);
            if (!p->zh) continue;
            conversions(p->en, ce, sizeof ce);
            conversions(p->zh, cz, sizeof cz);
            CHECK_MSG(strcmp(ce, cz) == 0, "%s: '%s' has conversions %s, its Chinese '%s' has %s", TABLES[t].name,
                      p->en, ce, p->zh, cz);
            CHECK_MSG(strcmp(p->en, p->zh) != 0, "%s: the Chinese of '%s' is a copy of the English",
                      TABLES[t].name, p->en);
            CHECK_MSG(has_cjk(p->zh), "%s: the Chinese of '%s' has no Chinese character: '%s'", TABLES[t].name,
                      p->en, p->zh);
            for (const LangPair *q = p + 1; q->en; q++)
                CHECK_MSG(strcmp(p->en, q->en) != 0, "%s: '%s' twice", TABLES[t].name, p->en);
        }
        CHECK_MSG(n > 0, "%s is empty", TABLES[t].name);
    }
}

static void test_tr_follows_the_language(void) {
    const char *en = "sum of the weights = %.4f";
    lang_add(chapter1_zh);
    lang_set(LANG_EN);
    CHECK(tr(en) == en);
    lang_set(LANG_ZH);
    CHECK(strcmp(tr(en), "权重之和 = %.4f") == 0);
    CHECK(strcmp(tr("show this help and exit"), "显示本帮助并退出") == 0); /* the common table */
    CHECK(strcmp(tr("a sentence no table has"), "a sentence no table has") == 0);
    CHECK(tr(NULL) == NULL);
    lang_set(LANG_EN);
}

/* common/'s sentences go through the translator common/program sets (t_tr, t_strerror) */
static void test_translator(void) {
    const char *en = "cannot open the file: %s";
    CHECK(t_tr(en) == en); /* no translator: as written */
    t_set_translator(tr);
    lang_set(LANG_ZH);
    CHECK(strcmp(t_tr(en), "无法打开文件：%s") == 0);
    CHECK(strcmp(t_strerror(ENOENT), "没有这个文件或文件夹") == 0 || strcmp(t_strerror(ENOENT), strerror(ENOENT)) == 0);
    CHECK_ERROR(exercise_missing("scale", "chapters/02_scaling/scaling.c:22", "Dot products grow."),
                "练习 'scale'（chapters/02_scaling/scaling.c:22）还没有填：Dot products grow.");
    lang_set(LANG_EN);
    CHECK(strcmp(t_tr(en), en) == 0);
    CHECK_ERROR(exercise_missing("scale", "x.c:1", "h"), "exercise 'scale' (x.c:1) is not filled in: h");
    t_set_translator(NULL);
}

static void test_lang_parse(void) {
    Lang l = LANG_EN;
    CHECK(lang_parse("zh", &l) && l == LANG_ZH);
    CHECK(lang_parse("en", &l) && l == LANG_EN);
    CHECK(!lang_parse("", &l));
    CHECK(!lang_parse("zh_CN", &l));
    CHECK(!lang_parse("EN", &l));
    CHECK(!lang_parse(NULL, &l));
}

static void test_columns(void) {
    CHECK(lang_columns("abc", 3) == 3);
    CHECK(lang_columns("注意力", strlen("注意力")) == 6);
    CHECK(lang_columns("原因：", strlen("原因：")) == 6);
    CHECK(lang_columns("Q·Kᵀ √d_k", strlen("Q·Kᵀ √d_k")) == 9);
    CHECK(lang_columns("注意力", 3) == 2); /* only the bytes given */
}

int main(void) {
    RUN(test_conversions_parser);
    RUN(test_pairs_have_the_same_conversions);
    RUN(test_tr_follows_the_language);
    RUN(test_translator);
    RUN(test_lang_parse);
    RUN(test_columns);
    return harness_finish("test_common_lang");
}
