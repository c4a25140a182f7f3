/* test_common_heatmap.c — the terminal heatmap (common/heatmap.c).
 *
 * Each test draws into a tmpfile(), reads the text back and looks at it the
 * way a reader would: which glyph sits in which cell, which words appear,
 * how wide the lines are.
 */
#include "harness.h"
#include "common/program/program.h"

#include <math.h>
#include <stdlib.h>

#define SHADE_LIGHT "\xe2\x96\x91" /* ░ */
#define SHADE_MED   "\xe2\x96\x92" /* ▒ */
#define SHADE_DARK  "\xe2\x96\x93" /* ▓ */
#define SHADE_FULL  "\xe2\x96\x88" /* █ */
#define MASKED      "\xc2\xb7"     /* · */

static const char *const TOKENS[] = {"Your", "journey", "starts", "with", "one", "step"};

/* ---- helpers ------------------------------------------------------------------- */

/* Everything the drawing wrote, as one string owned by the test's scope. */
static char *render(const Tensor *w, const HeatmapOptions *opt, bool all) {
    FILE *f = tmpfile();
    if (!f) {
        harness_fail(__FILE__, __LINE__, "tmpfile() failed");
        return (char *)t_alloc(1);
    }
    if (all) heatmap_fprint_all(f, w, opt);
    else heatmap_fprint(f, w, opt);
    long n = ftell(f);
    rewind(f);
    char *text = (char *)t_alloc((size_t)(n > 0 ? n : 0) + 1);
    size_t got = n > 0 ? fread(text, 1, (size_t)n, f) : 0;
    text[got] = '\0';
    fclose(f);
    return text;
}

/* Display columns of s up to the first '\n' (every code point is one). */
static int line_width(const char *s) {
    int w = 0;
    for (; *s && *s != '\n'; s++)
        if (((unsigned char)*s & 0xC0) != 0x80) w++;
    return w;
}

static int widest_line(const char *text) {
    int widest = 0;
    for (const char *p = text; *p;) {
        int w = line_width(p);
        if (w > widest) widest = w;
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    return widest;
}

static int count_of(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + strlen(needle), needle)) n++;
    return n;
}

/* The line that starts with `prefix`, copied (without '\n'); NULL if none. */
static char *line_starting(const char *text, const char *prefix) {
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            char *copy = (char *)t_alloc(len + 1);
            memcpy(copy, p, len);
            return copy;
        }
        if (!nl) break;
        p = nl + 1;
    }
    return NULL;
}

/* The character (one code point, as a string) at display column `col` of a
 * line; "" past its end. */
static const char *char_at(const char *line, int col) {
    static char out[8];
    int c = 0;
    out[0] = '\0';
    for (const char *p = line; *p; c++) {
        size_t n = 1;
        while (p[n] && ((unsigned char)p[n] & 0xC0) == 0x80) n++;
        if (c == col) {
            memcpy(out, p, n < sizeof out ? n : sizeof out - 1);
            out[n < sizeof out ? n : sizeof out - 1] = '\0';
            return out;
        }
        p += n;
    }
    return out;
}

static bool is_shade(const char *g) {
    return !strcmp(g, SHADE_LIGHT) || !strcmp(g, SHADE_MED) || !strcmp(g, SHADE_DARK) ||
           !strcmp(g, SHADE_FULL);
}

/* Row i of a lower-triangular causal weight matrix: softmax over keys 0..i
 * of made-up scores, 0 (masked) after the diagonal. The diagonal of row 0 is
 * 1.0, the largest weight. */
static Tensor *causal_weights(int64_t T) {
    Tensor *w = t_zeros(SHAPE(T, T));
    for (int64_t i = 0; i < T; i++) {
        double z = 0;
        for (int64_t j = 0; j <= i; j++) z += exp(0.3 * (double)((i + 2 * j) % 4));
        for (int64_t j = 0; j <= i; j++)
            t_set(w, (float)(exp(0.3 * (double)((i + 2 * j) % 4)) / z), i, j);
    }
    return w;
}

/* The scores that go with causal_weights: -inf above the diagonal (the mask). */
static Tensor *causal_scores(int64_t T) {
    Tensor *s = t_zeros(SHAPE(T, T));
    for (int64_t i = 0; i < T; i++)
        for (int64_t j = i + 1; j < T; j++) t_set(s, -INFINITY, i, j);
    return s;
}

/* Options that mark causal_weights(T)'s masked entries. */
static HeatmapOptions causal_opt(int64_t T) {
    HeatmapOptions opt = {NULL, NULL, NULL, false, 0, false, NULL, false};
    opt.scores = causal_scores(T);
    return opt;
}

/* Grid cell (i, j) of a drawing without labels for a matrix of fewer than 10
 * rows and columns: row label "i", one space, then cells 2 wide, 1 apart. */
static const char *cell(const char *text, int64_t i, int64_t j) {
    char prefix[16];
    snprintf(prefix, sizeof prefix, "%lld ", (long long)i);
    const char *line = line_starting(text, prefix);
    if (!line) return "(no such row)";
    return char_at(line, 2 + 3 * (int)j);
}

/* ---- tests ------------------------------------------------------------------------ */

static void test_causal_triangle_is_masked_above_the_diagonal(void) {
    Tensor *w = causal_weights(6);
    HeatmapOptions opt = causal_opt(6);
    char *text = render(w, &opt, false);
    for (int64_t i = 0; i < 6; i++)
        for (int64_t j = 0; j < 6; j++) {
            const char *g = cell(text, i, j);
            if (j > i) CHECK_MSG(!strcmp(g, MASKED), "cell (%lld, %lld) is \"%s\", expected the masked dot\n%s",
                                 (long long)i, (long long)j, g, text);
            else CHECK_MSG(is_shade(g), "cell (%lld, %lld) is \"%s\", expected a shade\n%s",
                           (long long)i, (long long)j, g, text);
        }
}

static void test_largest_value_is_full_block_and_smallest_lightest(void) {
    float v[9] = {0.10f, 0.80f, 0.10f,
                  0.30f, 0.30f, 0.40f,
                  0.25f, 0.50f, 0.25f};
    char *text = render(t_from_array(SHAPE(3, 3), v), NULL, false);
    CHECK_STR_CONTAINS(cell(text, 0, 1), SHADE_FULL);
    CHECK_STR_CONTAINS(cell(text, 0, 0), SHADE_LIGHT);
    CHECK_STR_CONTAINS(cell(text, 0, 2), SHADE_LIGHT);
    CHECK_EQ_INT(count_of(text, SHADE_FULL SHADE_FULL), 1);
    /* the legend names the range */
    CHECK_STR_CONTAINS(text, "min 0.1000");
    CHECK_STR_CONTAINS(text, "max 0.8000");
}

static void test_ascii_mode_is_pure_ascii_with_at_for_the_largest(void) {
    static const char *const odd[] = {"caf\xc3\xa9", "\xe6\x88\x91", "tab\there", "bad\xff"};
    HeatmapOptions opt = {"ascii \xe2\x80\x94 title", odd, odd, true, 0, false, causal_scores(4), false};
    Tensor *w = causal_weights(4);
    char *text = render(w, &opt, false);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        CHECK_MSG(*p < 0x80, "byte 0x%02x at offset %ld is not ASCII\n%s", *p,
                  (long)((const char *)p - text), text);
    /* row 0 ("caf?"): the largest weight 1.0 then masked cells */
    const char *row0 = line_starting(text, "caf?");
    CHECK(row0 != NULL);
    if (row0) {
        CHECK_STR_CONTAINS(row0, "@@");
        CHECK_STR_CONTAINS(row0, "_");
    }
    CHECK_STR_CONTAINS(text, "_ masked");
}

static void test_token_labels_on_rows_and_columns(void) {
    HeatmapOptions opt = {"causal attention weights", TOKENS, TOKENS, false, 0, false, causal_scores(6), false};
    char *text = render(causal_weights(6), &opt, false);
    CHECK(strncmp(text, "causal attention weights\n", 25) == 0);
    for (int i = 0; i < 6; i++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%s ", TOKENS[i]);
        CHECK_MSG(line_starting(text, prefix) != NULL, "no grid row labelled \"%s\"\n%s", TOKENS[i], text);
    }
    /* the column header holds every token (cut to the cell width) in order */
    const char *head = line_starting(text, "        ");
    CHECK(head != NULL);
    if (head) {
        const char *p = head;
        for (int j = 0; j < 6 && p; j++) {
            char first4[5];
            snprintf(first4, sizeof first4, "%s", TOKENS[j]);
            p = strstr(p, first4);
            CHECK_MSG(p != NULL, "column label \"%s\" missing from \"%s\"", first4, head);
            if (p) p += strlen(first4);
        }
    }
    CHECK_STR_CONTAINS(text, "rows: 6 queries, columns: 6 keys");
}

static void test_indices_label_rows_and_columns_without_tokens(void) {
    char *text = render(causal_weights(5), NULL, false);
    CHECK(line_starting(text, "  0  1  2  3  4") != NULL);
    for (int i = 0; i < 5; i++) {
        char prefix[16];
        snprintf(prefix, sizeof prefix, "%d ", i);
        CHECK(line_starting(text, prefix) != NULL);
    }
}

static void test_200x200_fits_80_columns_and_says_it_is_downsampled(void) {
    HeatmapOptions opt = causal_opt(200);
    char *text = render(causal_weights(200), &opt, false);
    CHECK_MSG(widest_line(text) <= 80, "a line is %d columns wide\n%s", widest_line(text), text);
    CHECK_STR_CONTAINS(text, "200 queries downsampled to");
    CHECK_STR_CONTAINS(text, "200 keys downsampled to");
    CHECK_STR_CONTAINS(text, "each the mean of");
    /* at most HEATMAP_MAX_ROWS grid rows (each starts with a range "a-b ") */
    int rows = 0;
    for (const char *p = text; p; p = strchr(p, '\n')) {
        if (*p == '\n') p++;
        if (*p >= '0' && *p <= '9') rows++;
    }
    CHECK_MSG(rows >= 2 && rows <= HEATMAP_MAX_ROWS, "%d grid rows", rows);
    /* still a causal picture: the top-right cell is masked, the bottom-left is not */
    const char *top = line_starting(text, "0-");
    CHECK(top != NULL);
    if (top) {
        const char *last = char_at(top, line_width(top) - 1);
        CHECK_MSG(!strcmp(last, MASKED), "top row ends in \"%s\"", last);
    }
}

static void test_narrow_width_is_respected_with_long_labels(void) {
    static const char *const words[] = {"attention", "is", "all", "you", "need", "supercalifragilistic",
                                        "and", "a", "bit", "more", "text", "here"};
    static const int widths[] = {24, 30, 40, 60};
    Tensor *small = t_softmax(t_randn(SHAPE(12, 12)), -1);
    Tensor *big = t_softmax(t_randn(SHAPE(50, 70)), -1);
    for (int k = 0; k < 4; k++)
        for (int ascii = 0; ascii < 2; ascii++) {
            HeatmapOptions opt = {"a title that is a little too long for a narrow terminal window",
                                  words, words, ascii != 0, widths[k], false, NULL, false};
            char *text = render(small, &opt, false);
            CHECK_MSG(widest_line(text) <= widths[k], "a line is %d columns wide, limit %d\n%s",
                      widest_line(text), widths[k], text);
            opt.rows = opt.cols = NULL;
            text = render(big, &opt, false);
            CHECK_MSG(widest_line(text) <= widths[k], "a line is %d columns wide, limit %d\n%s",
                      widest_line(text), widths[k], text);
        }
}

static void test_many_queries_few_keys_average_rows_only(void) {
    Tensor *w = t_softmax(t_randn(SHAPE(100, 4)), -1);
    char *text = render(w, NULL, false);
    CHECK_STR_CONTAINS(text, "100 queries downsampled to 25 rows, each the mean of 4 queries");
    CHECK_STR_CONTAINS(text, "columns: 4 keys");
    CHECK(line_starting(text, "96-99 ") != NULL);
    CHECK(line_starting(text, "0-3 ") != NULL);
}

static void test_block_mean_of_constant_blocks_is_that_constant(void) {
    /* 64 x 64 whose left half is 0.9 and right half 0.1: after downsampling
     * the left cells must be the darkest shade and the right the lightest. */
    Tensor *w = t_zeros(SHAPE(64, 64));
    for (int64_t i = 0; i < 64; i++)
        for (int64_t j = 0; j < 64; j++) t_set(w, j < 32 ? 0.9f : 0.1f, i, j);
    HeatmapOptions opt = {NULL, NULL, NULL, false, 40, false, NULL, false};
    char *text = render(w, &opt, false);
    const char *row = line_starting(text, "0-1 ");
    CHECK(row != NULL);
    if (row) {
        CHECK_STR_CONTAINS(char_at(row, 6), SHADE_FULL);
        CHECK_STR_CONTAINS(char_at(row, line_width(row) - 1), SHADE_LIGHT);
    }
    CHECK_STR_CONTAINS(text, "64 keys downsampled to");
    CHECK_STR_CONTAINS(text, "min 0.1000");
    CHECK_STR_CONTAINS(text, "max 0.9000");
}

static void test_neg_inf_and_nan_are_masked_and_nan_is_reported(void) {
    Tensor *s = t_full(SHAPE(3, 3), -INFINITY);   /* scores after masked_fill */
    t_set(s, 1.5f, 0, 0);
    t_set(s, -0.5f, 1, 0);
    t_set(s, 2.0f, 1, 1);
    t_set(s, 0.25f, 2, 0);
    t_set(s, NAN, 2, 1);
    t_set(s, -1.0f, 2, 2);
    char *text = render(s, NULL, false);
    CHECK_STR_CONTAINS(cell(text, 0, 1), MASKED);
    CHECK_STR_CONTAINS(cell(text, 1, 2), MASKED);
    CHECK_STR_CONTAINS(cell(text, 2, 1), MASKED);
    CHECK_STR_CONTAINS(cell(text, 1, 1), SHADE_FULL);
    CHECK_STR_CONTAINS(cell(text, 2, 2), SHADE_LIGHT);   /* negative values shade too */
    CHECK_STR_CONTAINS(text, "1 NaN value");
    CHECK_STR_CONTAINS(text, "min -1.0000");
}

static void test_strided_input_is_read_through_its_strides(void) {
    /* the transpose of a causal matrix is masked *below* the diagonal */
    Tensor *wt = t_transpose(causal_weights(4), 0, 1);
    CHECK(!t_is_contiguous(wt));
    HeatmapOptions opt = causal_opt(4);
    opt.scores = t_transpose(opt.scores, 0, 1);
    char *text = render(wt, &opt, false);
    CHECK_STR_CONTAINS(cell(text, 3, 0), MASKED);
    CHECK(is_shade(cell(text, 0, 3)));
    CHECK_STR_CONTAINS(cell(text, 0, 0), SHADE_FULL);
}

static void test_uniform_weights_are_all_full_and_say_so(void) {
    char *text = render(t_full(SHAPE(3, 3), 1.0f / 3.0f), NULL, false);
    CHECK_EQ_INT(count_of(text, SHADE_FULL SHADE_FULL), 9);
    CHECK_STR_CONTAINS(text, "same");
}

static void test_print_all_draws_one_titled_grid_per_head(void) {
    Tensor *w = t_softmax(t_randn(SHAPE(1, 2, 3, 3)), -1);
    HeatmapOptions opt = {"attn_weights", NULL, NULL, false, 0, false, NULL, false};
    char *text = render(w, &opt, true);
    CHECK(line_starting(text, "attn_weights: batch 0, head 0") != NULL);
    CHECK(line_starting(text, "attn_weights: batch 0, head 1") != NULL);
    CHECK_EQ_INT(count_of(text, "legend:"), 2);
    CHECK_EQ_INT(count_of(text, "head 2"), 0);
    /* without a title the grids are titled by their index alone */
    text = render(w, NULL, true);
    CHECK(line_starting(text, "batch 0, head 1") != NULL);
    /* plain batch dims (chapters 1, 2, 4): no "head" in the titles */
    opt.index_titles = true;
    text = render(w, &opt, true);
    CHECK(line_starting(text, "attn_weights: index (0, 1)") != NULL);
    CHECK_EQ_INT(count_of(text, "head"), 0);
}

static void test_print_all_titles_3d_and_caps_the_number_of_grids(void) {
    char *text = render(t_softmax(t_randn(SHAPE(2, 3, 3)), -1), NULL, true);
    CHECK(line_starting(text, "batch 0") != NULL);
    CHECK(line_starting(text, "batch 1") != NULL);
    CHECK_EQ_INT(count_of(text, "legend:"), 2);

    text = render(t_softmax(t_randn(SHAPE(2, 8, 3, 3)), -1), NULL, true);
    CHECK_EQ_INT(count_of(text, "legend:"), HEATMAP_MAX_GRIDS);
    CHECK(line_starting(text, "batch 0, head 7") != NULL);
    CHECK_EQ_INT(count_of(text, "batch 1,"), 0);
    CHECK_STR_CONTAINS(text, "8 more grids not shown (drew the first 8 of 16)");

    text = render(t_softmax(t_randn(SHAPE(4, 4)), -1), NULL, true);   /* 2-D: one grid */
    CHECK_EQ_INT(count_of(text, "legend:"), 1);
    CHECK_EQ_INT(count_of(text, "batch"), 0);
}

/* In a Chinese run (lang.h) every sentence of the heatmap is Chinese: the index
 * titles, the grids not drawn, the downsampling, the per-row legend; --ascii
 * stays English. */
static void test_chinese_run_has_chinese_words(void) {
    lang_set(LANG_ZH);
    HeatmapOptions opt = {"attn_weights", NULL, NULL, false, 0, true, NULL, false};
    char *text = render(t_softmax(t_randn(SHAPE(3, 4, 3, 3)), -1), &opt, true);
    CHECK(line_starting(text, "attn_weights：下标 (0, 1)") != NULL);
    CHECK_STR_CONTAINS(text, "……还有 4 张图没有画出（画了前 8 张，共 12 张）");
    CHECK_EQ_INT(count_of(text, "index"), 0);
    CHECK_EQ_INT(count_of(text, "not shown"), 0);
    text = render(t_softmax(t_randn(SHAPE(100, 10)), -1), NULL, false);
    CHECK_STR_CONTAINS(text, "行：100 个查询合并成 25 行，每行取 4 个查询的均值");
    text = render(t_softmax(t_randn(SHAPE(99, 10)), -1), NULL, false);
    CHECK_STR_CONTAINS(text, "每行取 4 个查询（最后一行只有 3 个）的均值");
    opt.row_scale = true;
    opt.index_titles = false;
    text = render(t_softmax(t_randn(SHAPE(4, 4)), -1), &opt, false);
    CHECK_STR_CONTAINS(text, "逐行着色：");
    CHECK_STR_CONTAINS(text, "（所有行：最小 ");
    CHECK_EQ_INT(count_of(text, "per row"), 0);
    opt.ascii = true;
    text = render(t_softmax(t_randn(SHAPE(4, 4)), -1), &opt, false);
    CHECK_STR_CONTAINS(text, "per row:");
    lang_set(LANG_EN);
}

static void test_wrong_shapes_are_error_sentences(void) {
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return;
    CHECK_ERROR(heatmap_fprint(f, t_zeros(SHAPE(2, 3, 4)), NULL), "expected a 2-D (T, S) tensor, got shape (2, 3, 4)");
    CHECK_ERROR(heatmap_fprint_all(f, t_zeros(SHAPE(5)), NULL), "at least 2 dims");
    fclose(f);
}

static void test_empty_and_fully_masked_grids_do_not_crash(void) {
    char *text = render(t_zeros(SHAPE(0, 4)), NULL, false);
    CHECK_STR_CONTAINS(text, "empty");
    text = render(t_full(SHAPE(2, 2), -INFINITY), NULL, false);
    CHECK_STR_CONTAINS(text, "every entry is masked");
    CHECK_EQ_INT(count_of(text, MASKED), 5);   /* 4 cells + the legend */
}

/* An exact 0 that no mask put there (exp underflow) is a weight of 0, not
 * "masked"; only -inf in the scores (or in the drawn tensor) is. */
static void test_underflow_zero_is_not_masked(void) {
    float v[4] = {1.0f, 0.0f, 0.5f, 0.5f};   /* row 0: softmax([0, -200]) underflows */
    char *text = render(t_from_array(SHAPE(2, 2), v), NULL, false);
    CHECK(is_shade(cell(text, 0, 1)));
    CHECK_STR_CONTAINS(cell(text, 0, 1), SHADE_LIGHT);
    CHECK_STR_CONTAINS(text, "1 weight is exactly 0 where no mask put -inf");
    CHECK(strstr(text, "masked (-inf") == NULL);  /* no masked entry, no masked legend */
    /* the same zero is masked when the scores say -inf there */
    float sc[4] = {0.0f, -INFINITY, 0.1f, 0.2f};
    HeatmapOptions opt = {NULL, NULL, NULL, false, 0, false, t_from_array(SHAPE(2, 2), sc), false};
    text = render(t_from_array(SHAPE(2, 2), v), &opt, false);
    CHECK_STR_CONTAINS(cell(text, 0, 1), MASKED);
    CHECK_STR_CONTAINS(text, "masked (-inf in the scores)");
    CHECK(strstr(text, "exactly 0 where") == NULL);
    /* scores of another shape: one sentence */
    opt.scores = t_zeros(SHAPE(3, 2));
    FILE *f = tmpfile();
    if (!f) return;
    CHECK_ERROR(heatmap_fprint(f, t_from_array(SHAPE(2, 2), v), &opt),
                "heatmap: scores (3, 2) must have the shape of the weights (2, 2)");
    fclose(f);
}

/* row_scale: each row runs from the lightest to the darkest shade on its own. */
static void test_row_scale_shades_each_row(void) {
    float v[6] = {0.90f, 0.05f, 0.05f,     /* one dominant row */
                  0.20f, 0.22f, 0.24f};    /* a flat row: all light on one scale */
    char *text = render(t_from_array(SHAPE(2, 3), v), NULL, false);
    CHECK_STR_CONTAINS(cell(text, 1, 2), SHADE_LIGHT);
    HeatmapOptions opt = {NULL, NULL, NULL, false, 0, false, NULL, true};
    text = render(t_from_array(SHAPE(2, 3), v), &opt, false);
    CHECK_STR_CONTAINS(cell(text, 1, 0), SHADE_LIGHT);
    CHECK_STR_CONTAINS(cell(text, 1, 2), SHADE_FULL);
    CHECK_STR_CONTAINS(cell(text, 0, 0), SHADE_FULL);
    CHECK_STR_CONTAINS(text, "per row:");
}

int main(void) {
    RUN(test_causal_triangle_is_masked_above_the_diagonal);
    RUN(test_underflow_zero_is_not_masked);
    RUN(test_row_scale_shades_each_row);
    RUN(test_largest_value_is_full_block_and_smallest_lightest);
    RUN(test_ascii_mode_is_pure_ascii_with_at_for_the_largest);
    RUN(test_token_labels_on_rows_and_columns);
    RUN(test_indices_label_rows_and_columns_without_tokens);
    RUN(test_200x200_fits_80_columns_and_says_it_is_downsampled);
    RUN(test_narrow_width_is_respected_with_long_labels);
    RUN(test_many_queries_few_keys_average_rows_only);
    RUN(test_block_mean_of_constant_blocks_is_that_constant);
    RUN(test_neg_inf_and_nan_are_masked_and_nan_is_reported);
    RUN(test_strided_input_is_read_through_its_strides);
    RUN(test_uniform_weights_are_all_full_and_say_so);
    RUN(test_print_all_draws_one_titled_grid_per_head);
    RUN(test_print_all_titles_3d_and_caps_the_number_of_grids);
    RUN(test_chinese_run_has_chinese_words);
    RUN(test_wrong_shapes_are_error_sentences);
    RUN(test_empty_and_fully_masked_grids_do_not_crash);
    return harness_finish("test_common_heatmap");
}
