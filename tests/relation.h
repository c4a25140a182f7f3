/* relation.h — what a wrong tensor is to the expected one, said in a sentence: the
 * grader's feedback (gradetool compare) and the tests' failure messages (tests/harness.c)
 * both call it, so a student reads the same words from make grade and make test-chapterN.
 *
 *   rel_relation(o, want, got)  appends " Every value is 0.25 = 1/4 = 1/sqrt(16) times the
 *                               expected one." (or NaN where the expected has none, a
 *                               shifted or mirrored mask, the transpose, rows not summing
 *                               to 1 or columns summing to 1 instead, heads in another
 *                               order, the expected numbers in other places) to O's text;
 *                               returns 0 and appends nothing when none of these holds
 *   rel_where(o, t, k)          "row 1, col 2 (batch 0, head 1)" for flat index K
 *   rel_num(o, x), rel_say(o, fmt, ...)
 *
 * English or Chinese (o->zh); two numbers agree when |got - want| <= atol + rtol |want|
 * (NaN agrees with NaN, an infinity only with itself). Header only: static functions,
 * for the two programs that include it.
 */
#ifndef ATTN_RELATION_H
#define ATTN_RELATION_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a tensor as numbers: its shape (at most 8 dims) and its values in C order */
typedef struct {
    int nd;
    long dims[8];
    double *v;
    size_t n;
} RelTensor;

/* where the sentence goes, and how it is said */
typedef struct {
    char *buf;          /* NUL-terminated text, appended to */
    size_t cap, n;
    int zh;             /* 0 English, 1 Chinese */
    double rtol, atol;
} RelText;

#define REL_TR(en_, zh_) (o->zh ? (zh_) : (en_))

static void rel_say(RelText *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (o->n < o->cap) {
        int k = vsnprintf(o->buf + o->n, o->cap - o->n, fmt, ap);
        if (k > 0) o->n += (size_t)k;
        if (o->n >= o->cap) o->n = o->cap - 1;
    }
    va_end(ap);
}

static int rel_same(const RelText *o, double got, double want) {
    if (got == want) return 1;
    if (isnan(got) || isnan(want)) return isnan(got) && isnan(want);
    if (isinf(got) || isinf(want)) return 0;
    return fabs(got - want) <= o->atol + o->rtol * fabs(want);
}

static void rel_num(RelText *o, double x) {
    if (isnan(x)) rel_say(o, "nan");
    else if (isinf(x)) rel_say(o, x > 0 ? "inf" : "-inf");
    else rel_say(o, "%.4g", x);
}

/* "row 1, col 2 (batch 0, head 1)" for flat index K of a (…, rows, cols) tensor */
static void rel_where(RelText *o, const RelTensor *r, size_t k) {
    long idx[8];
    size_t rest = k;
    for (int d = r->nd - 1; d >= 0; d--) {
        long n = r->dims[d] > 0 ? r->dims[d] : 1;
        idx[d] = (long)(rest % (size_t)n);
        rest /= (size_t)n;
    }
    if (r->nd == 1) {
        rel_say(o, REL_TR("element %ld", "第 %ld 个元素"), idx[0]);
        return;
    }
    rel_say(o, REL_TR("row %ld, col %ld", "第 %ld 行第 %ld 列"), idx[r->nd - 2], idx[r->nd - 1]);
    if (r->nd == 3) rel_say(o, REL_TR(" (batch %ld)", "（第 %ld 批）"), idx[0]);
    if (r->nd >= 4) rel_say(o, REL_TR(" (batch %ld, head %ld)", "（第 %ld 批第 %ld 个头）"), idx[0], idx[1]);
}

/* a factor in words: 0.25 = 1/4 = 1/sqrt(16) (in Chinese 1/√16) */
static void rel_factor(RelText *o, double c) {
    rel_say(o, "%.4g", c);
    int named = 0;
    for (int n = 2; n <= 4096 && named < 2; n++) {
        double s = sqrt((double)n);
        if (n <= 256 && fabs(c - 1.0 / n) <= 1e-4 * fabs(c)) { rel_say(o, " = 1/%d", n); named++; }
        else if (n <= 256 && fabs(c - n) <= 1e-4 * fabs(c)) named++;   /* (%.4g printed it: 4, never 4 = 4) */
        else if ((int)s * (int)s != n && fabs(c - 1.0 / s) <= 1e-4 * fabs(c)) { rel_say(o, o->zh ? " = 1/√%d" : " = 1/sqrt(%d)", n); named++; }
        else if ((int)s * (int)s != n && fabs(c - s) <= 1e-4 * fabs(c)) { rel_say(o, o->zh ? " = √%d" : " = sqrt(%d)", n); named++; }
        if (named == 1 && (int)s * (int)s == n && fabs(c - 1.0 / s) <= 1e-4 * fabs(c)) { rel_say(o, o->zh ? " = 1/√%d" : " = 1/sqrt(%d)", n); named++; }
        if (named == 1 && (int)s * (int)s == n && fabs(c - s) <= 1e-4 * fabs(c) && s > 1.5) { rel_say(o, o->zh ? " = √%d" : " = sqrt(%d)", n); named++; }
    }
}

static int rel_cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
    return x < y ? -1 : x > y;
}

/* What W (expected) and G (got) of one shape are to each other, as a sentence; 0 when none is seen. */
static int rel_relation(RelText *o, const RelTensor *w, const RelTensor *g) {
    size_t n = w->n;
    if (g->n != n || n == 0) return 0;
    size_t nan_new = 0, first_nan = 0;
    for (size_t i = 0; i < n; i++)
        if (isnan(g->v[i]) && !isnan(w->v[i]) && !nan_new++) first_nan = i;
    if (nan_new) {
        rel_say(o, REL_TR(" It holds NaN where the expected has none (%zu of %zu values, first at ", "它在应有值没有 NaN 的地方出现了 NaN（%zu 个值中有 %zu 个，第一个在"),
            o->zh ? n : nan_new, o->zh ? nan_new : n);
        rel_where(o, w, first_nan);
        rel_say(o, REL_TR(").", "）。"));
        return 1;
    }
    /* a constant factor */
    double c = 0;
    int have = 0, ok = 1;
    for (size_t i = 0; i < n; i++) {
        double x = g->v[i], y = w->v[i];
        if (isfinite(y) && fabs(y) > 1e-6 && isfinite(x) && x != 0) {
            if (!have) c = x / y;
            have++;
        }
    }
    if (have >= 2 && fabs(c - 1) > 1e-3) {   /* (two values at least: one alone always has a factor) */
        for (size_t i = 0; i < n && ok; i++) ok = rel_same(o, g->v[i], isinf(w->v[i]) && c > 0 ? w->v[i] : c * w->v[i]);
        if (ok) {
            rel_say(o, REL_TR(" Every value is ", "每个值都是应有值的 "));
            rel_factor(o, c);
            rel_say(o, REL_TR(" times the expected one.", " 倍。"));
            return 1;
        }
    }
    int nd = w->nd;
    long R = nd >= 2 ? w->dims[nd - 2] : 1, C = nd >= 2 ? w->dims[nd - 1] : (long)n;
    size_t mats = (R > 0 && C > 0) ? n / (size_t)(R * C) : 0;
    /* a mask (-inf, or a weight of exactly 0) shifted or mirrored */
    if (nd >= 2 && R == C && R > 1) {
        int kind[2] = {0, 0};   /* per tensor: 0 unknown, 1 upper from diagonal d, 2 lower */
        long dg[2] = {0, 0};
        const RelTensor *t[2] = {w, g};
        for (int s = 0; s < 2; s++) {
            int ninf = 0;   /* a mask hides with -inf (and keeps with 0); weights hide with 0 */
            for (size_t i = 0; i < n; i++) ninf |= isinf(t[s]->v[i]) && t[s]->v[i] < 0;
            for (int up = 1; up <= 2 && !kind[s]; up++)
                for (long d = -R; d <= R && !kind[s]; d++) {
                    int fits = 1, any = 0;
                    for (size_t m = 0; m < mats && fits; m++)
                        for (long i = 0; i < R && fits; i++)
                            for (long j = 0; j < C && fits; j++) {
                                double x = t[s]->v[m * R * C + i * C + j];
                                int hid = ninf ? isinf(x) && x < 0 : x == 0;
                            int want = up == 1 ? (j - i >= d) : (i - j >= d);
                            fits = hid == want;
                            any |= hid;
                        }
                    if (fits && any) { kind[s] = up; dg[s] = d; }
                }
        }
        if (kind[0] == 1 && kind[1] == 2) {
            rel_say(o, REL_TR(" Its mask is mirrored, it hides the past instead of the future.", "它的掩码是镜像的，遮住的是过去而不是未来。"));
            return 1;
        }
        if (kind[0] == 1 && kind[1] == 1 && dg[0] != dg[1]) {
            long s = dg[0] - dg[1];
            if (s > 0) rel_say(o, REL_TR(" Its mask is shifted %ld diagonal(s) down%s.", "它的掩码往下移了 %ld 条对角线%s。"), s,
                           dg[1] <= 0 && dg[0] > 0 ? REL_TR(", so the diagonal is masked too", "，对角线也被遮住了") : "");
            else rel_say(o, REL_TR(" Its mask is shifted %ld diagonal(s) up, so part of the future is left open.", "它的掩码往上移了 %ld 条对角线，漏掉了一部分未来。"), -s);
            return 1;
        }
    }
    /* a transpose of the last two dims */
    if (nd >= 2 && R == C && R > 1) {
        ok = 1;
        for (size_t m = 0; m < mats && ok; m++)
            for (long i = 0; i < R && ok; i++)
                for (long j = 0; j < C && ok; j++) ok = rel_same(o, g->v[m * R * C + i * C + j], w->v[m * R * C + j * C + i]);
        if (ok) {
            rel_say(o, REL_TR(" It is the transpose of the expected (rows and columns swapped).", "它是应有结果的转置（行与列对调了）。"));
            return 1;
        }
    }
    /* rows that should sum to 1 */
    if (C > 1) {
        int rows_one = 1;
        for (size_t r = 0; r < n / (size_t)C && rows_one; r++) {
            double s = 0;
            for (long j = 0; j < C; j++) s += w->v[r * C + j];
            rows_one = fabs(s - 1) < 1e-3;
        }
        if (rows_one) {
            for (size_t r = 0; r < n / (size_t)C; r++) {
                double s = 0;
                for (long j = 0; j < C; j++) s += g->v[r * C + j];
                if (fabs(s - 1) < 1e-3) continue;
                int cols_one = nd >= 2 && R > 1;
                for (size_t m = 0; m < mats && cols_one; m++)
                    for (long j = 0; j < C && cols_one; j++) {
                        double cs = 0;
                        for (long i = 0; i < R; i++) cs += g->v[m * R * C + i * C + j];
                        cols_one = fabs(cs - 1) < 1e-3;
                    }
                if (cols_one) rel_say(o, REL_TR(" Its columns sum to 1, not its rows (softmax over the wrong dim).", "它的每一列之和为 1，而不是每一行（softmax 用错了维度）。"));
                else {
                    rel_say(o, REL_TR(" Its rows should each sum to 1, and row %zu sums to ", "它的每一行之和应为 1，而第 %zu 行之和是 "), r);
                    rel_num(o, s);
                    rel_say(o, REL_TR(".", "。"));
                }
                return 1;
            }
        }
    }
    /* heads in another order */
    if (nd == 4 && w->dims[1] > 1) {
        long B = w->dims[0], H = w->dims[1], per = (long)n / (B * H), perm[64];
        int all = H <= 64, moved = 0;
        for (long h = 0; h < H && all; h++) {
            perm[h] = -1;
            for (long h2 = 0; h2 < H && perm[h] < 0; h2++) {
                int eq = 1;
                for (long b = 0; b < B && eq; b++)
                    for (long e = 0; e < per && eq; e++) eq = rel_same(o, g->v[(b * H + h) * per + e], w->v[(b * H + h2) * per + e]);
                if (eq) perm[h] = h2;
            }
            all = perm[h] >= 0;
            moved |= perm[h] != h;
        }
        if (all && moved) {
            rel_say(o, REL_TR(" Its heads are in another order (head 0 holds the expected head %ld).", "它的头顺序不对（第 0 个头是应有的第 %ld 个头）。"), perm[0]);
            return 1;
        }
    }
    /* the same numbers in other places */
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!a || !b) {   /* (no memory: no sentence) */
        free(a);
        free(b);
        return 0;
    }
    memcpy(a, w->v, n * sizeof *a);
    memcpy(b, g->v, n * sizeof *b);
    qsort(a, n, sizeof *a, rel_cmp_dbl);
    qsort(b, n, sizeof *b, rel_cmp_dbl);
    ok = 1;
    for (size_t i = 0; i < n && ok; i++) ok = rel_same(o, b[i], a[i]);
    free(a);
    free(b);
    if (ok) {
        rel_say(o, REL_TR(" It holds the expected numbers in other places (a view, transpose or reshape in the wrong order).",
               " 它的数值都对，位置却不对（view、transpose 或 reshape 的顺序错了）。"));
        return 1;
    }
    return 0;
}

#endif
