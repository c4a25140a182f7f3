/* test_ch12.c — chapter 12, the backward pass in O(T) memory: the flash backward and
 * the reference (chapter 10's pieces) against PyTorch's autograd in float64
 * (tests/fixtures/ch12, scripts/golden/ch12.py), causal and not, T != S, d_v != d_k,
 * several batch dims, T = 1 and T not a multiple of the tiles; flash against the
 * reference on random shapes; a finite-difference check; D against the row sum;
 * memory that grows linearly with T for flash and quadratically for the reference
 * (bytes counted, no timing); the tiles a causal run skips; every error sentence. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "chapters/12_flash_backward/flash_backward.h"

static Tensor *fx(const char *name, const char *part) {
    char rel[128];
    snprintf(rel, sizeof rel, "ch12/%s_%s.npy", name, part);
    return load_fixture(rel);
}

/* max |a - b| / max |b|: the relative error of a whole gradient. */
static double rel_err(const Tensor *a, const Tensor *b) {
    double m = 0;
    for (int64_t i = 0; i < t_numel(b); i++) {
        double x = fabs((double)t_flat_get(b, i));
        m = x > m ? x : m;
    }
    return t_max_abs_diff(a, b) / (m > 0 ? m : 1);
}

#define GRAD_RTOL 1e-4

static void check_grads(const AttnGrads *g, const char *name, const char *mode, const char *what) {
    char part[64];
    static const char *const parts[3] = {"dq", "dk", "dv"};
    const Tensor *got[3] = {g->grad_q, g->grad_k, g->grad_v};
    for (int i = 0; i < 3; i++) {
        snprintf(part, sizeof part, "%s_%s", mode, parts[i]);
        Tensor *want = fx(name, part);
        CHECK_MSG(t_same_shape(got[i], want), "%s %s %s: wrong shape", what, name, part);
        if (!t_same_shape(got[i], want)) continue;
        double e = rel_err(got[i], want);
        CHECK_MSG(e <= GRAD_RTOL, "%s %s %s: max |grad - autograd| / max |autograd| = %g", what, name, part, e);
    }
}

static const char *const CASES[] = {"t1", "basic", "ns", "many", "long", "d64", "prog"};
#define N_CASES 7

/* ---- against PyTorch ---------------------------------------------------------------- */

static void test_flash_backward_matches_autograd(void) {
    for (int c = 0; c < N_CASES; c++)
        for (int causal = 0; causal < 2; causal++) {
            Tensor *q = fx(CASES[c], "q"), *k = fx(CASES[c], "k"), *v = fx(CASES[c], "v"), *dout = fx(CASES[c], "do");
            if (causal && t_size(q, -2) != t_size(k, -2)) continue;
            const char *mode = causal ? "causal" : "nocausal";
            char part[32];
            Tensor *lse;
            Tensor *out = flash_forward(q, k, v, causal, &lse);
            snprintf(part, sizeof part, "%s_out", mode);
            CHECK_TENSOR_CLOSE(out, fx(CASES[c], part), 1e-5, 1e-6);
            snprintf(part, sizeof part, "%s_lse", mode);
            CHECK_TENSOR_CLOSE(lse, fx(CASES[c], part), 1e-5, 1e-5);
            AttnGrads g = attention_backward_flash(q, k, v, out, lse, dout, causal);
            check_grads(&g, CASES[c], mode, "flash");
        }
}

static void test_reference_backward_matches_autograd(void) {
    for (int c = 0; c < N_CASES; c++)
        for (int causal = 0; causal < 2; causal++) {
            Tensor *q = fx(CASES[c], "q"), *k = fx(CASES[c], "k"), *v = fx(CASES[c], "v"), *dout = fx(CASES[c], "do");
            if (causal && t_size(q, -2) != t_size(k, -2)) continue;
            AttnGrads g = attention_backward_reference(q, k, v, dout, causal);
            check_grads(&g, CASES[c], causal ? "causal" : "nocausal", "reference");
        }
}

/* ---- flash against the reference ------------------------------------------------------ */

static void test_flash_equals_reference_on_random_shapes(void) {
    t_manual_seed(1201);
    for (int trial = 0; trial < 8; trial++) {
        t_scope_begin();
        int64_t B = 1 + rand() % 2, H = 1 + rand() % 3, T = 1 + rand() % 330, d_k = 1 + rand() % 40;
        bool causal = trial % 2 == 1;
        int64_t S = causal ? T : 1 + rand() % 330, d_v = 1 + rand() % 40;
        Tensor *q = t_randn(SHAPE(B, H, T, d_k)), *k = t_randn(SHAPE(B, H, S, d_k)), *v = t_randn(SHAPE(B, H, S, d_v));
        Tensor *dout = t_randn(SHAPE(B, H, T, d_v)), *lse;
        Tensor *out = flash_forward(q, k, v, causal, &lse);
        AttnGrads f = attention_backward_flash(q, k, v, out, lse, dout, causal);
        AttnGrads r = attention_backward_reference(q, k, v, dout, causal);
        double eq = rel_err(f.grad_q, r.grad_q), ek = rel_err(f.grad_k, r.grad_k), ev = rel_err(f.grad_v, r.grad_v);
        CHECK_MSG(eq <= GRAD_RTOL && ek <= GRAD_RTOL && ev <= GRAD_RTOL,
                  "(%lld, %lld, %lld, %lld) x S %lld, d_v %lld%s: flash vs reference %g %g %g", (long long)B,
                  (long long)H, (long long)T, (long long)d_k, (long long)S, (long long)d_v, causal ? " causal" : "", eq,
                  ek, ev);
        t_scope_end();
    }
}

static void test_non_contiguous_inputs(void) {
    /* transposed views of (T, H, d) data, as chapter 5 makes them before .contiguous() */
    t_manual_seed(1202);
    Tensor *q = t_transpose(t_randn(SHAPE(1, 70, 2, 8)), 1, 2), *k = t_transpose(t_randn(SHAPE(1, 70, 2, 8)), 1, 2);
    Tensor *v = t_transpose(t_randn(SHAPE(1, 70, 2, 8)), 1, 2), *dout = t_transpose(t_randn(SHAPE(1, 70, 2, 8)), 1, 2);
    Tensor *lse, *out = flash_forward(q, k, v, true, &lse);
    AttnGrads a = attention_backward_flash(q, k, v, out, lse, dout, true);
    AttnGrads b = attention_backward_flash(t_contiguous(q), t_contiguous(k), t_contiguous(v), out, lse,
                                           t_contiguous(dout), true);
    CHECK_TENSOR_CLOSE(a.grad_q, b.grad_q, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(a.grad_k, b.grad_k, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(a.grad_v, b.grad_v, 0.0, 0.0);
}

/* ---- a finite-difference check ---------------------------------------------------------- */

/* loss = (attention(q, k, v) * dout).sum() in double, one slice: q (T, d), k (S, d), v (S, dv). */
static double loss64(const double *q, const double *k, const double *v, const double *dout, int T, int S, int d,
                     int dv, bool causal) {
    double loss = 0;
    for (int i = 0; i < T; i++) {
        double s[8], m = -INFINITY, l = 0;
        for (int j = 0; j < S; j++) {
            double dot = 0;
            for (int c = 0; c < d; c++) dot += q[i * d + c] * k[j * d + c];
            s[j] = causal && j > i ? -INFINITY : dot / sqrt((double)d);
            m = s[j] > m ? s[j] : m;
        }
        for (int j = 0; j < S; j++) l += exp(s[j] - m);
        for (int c = 0; c < dv; c++) {
            double o = 0;
            for (int j = 0; j < S; j++) o += exp(s[j] - m) / l * v[j * dv + c];
            loss += o * dout[i * dv + c];
        }
    }
    return loss;
}

static void test_finite_differences(void) {
    t_manual_seed(1203);
    enum { T = 5, S = 5, D = 3, DV = 4 };
    for (int causal = 0; causal < 2; causal++) {
        Tensor *q = t_randn(SHAPE(1, T, D)), *k = t_randn(SHAPE(1, S, D)), *v = t_randn(SHAPE(1, S, DV));
        Tensor *dout = t_randn(SHAPE(1, T, DV)), *lse;
        Tensor *out = flash_forward(q, k, v, causal, &lse);
        AttnGrads g = attention_backward_flash(q, k, v, out, lse, dout, causal);
        double in[3][S * DV], dd[T * DV];
        const Tensor *x[3] = {q, k, v}, *gx[3] = {g.grad_q, g.grad_k, g.grad_v};
        for (int t = 0; t < 3; t++)
            for (int64_t i = 0; i < t_numel(x[t]); i++) in[t][i] = t_flat_get(x[t], i);
        for (int i = 0; i < T * DV; i++) dd[i] = t_flat_get(dout, i);
        double worst = 0, h = 1e-5;
        for (int t = 0; t < 3; t++)
            for (int64_t i = 0; i < t_numel(x[t]); i++) {
                double keep = in[t][i];
                in[t][i] = keep + h;
                double up = loss64(in[0], in[1], in[2], dd, T, S, D, DV, causal);
                in[t][i] = keep - h;
                double down = loss64(in[0], in[1], in[2], dd, T, S, D, DV, causal);
                in[t][i] = keep;
                double numeric = (up - down) / (2 * h), e = fabs(numeric - t_flat_get(gx[t], i));
                worst = e > worst ? e : worst;
            }
        CHECK_MSG(worst < 1e-5, "%s: the flash backward is %g from central differences in float64",
                  causal ? "causal" : "not causal", worst);
    }
}

/* ---- D is softmax's row sum ---------------------------------------------------------------- */

static void test_delta_is_the_softmax_row_sum(void) {
    t_manual_seed(1204);
    Tensor *q = t_randn(SHAPE(2, 30, 8)), *k = t_randn(SHAPE(2, 50, 8)), *v = t_randn(SHAPE(2, 50, 6));
    Tensor *dout = t_randn(SHAPE(2, 30, 6));
    Attention fwd = masked_attention(q, k, v, NULL);
    Tensor *dp = t_matmul(dout, t_transpose(v, -2, -1));            /* (2, 30, 50) */
    Tensor *rowsum = t_sum_last(t_mul(dp, fwd.weights));             /* (dp * p).sum(-1) */
    Tensor *D = attention_backward_delta(dout, fwd.output);           /* (dO * O).sum(-1) */
    CHECK_TENSOR_CLOSE(D, rowsum, 1e-5, 1e-5);
    CHECK_EQ_INT(D->ndim, 2);
    CHECK_ERROR(attention_backward_delta(dout, t_zeros(SHAPE(2, 30, 5))),
                "attention_backward_delta: grad_output (2, 30, 6) and output (2, 30, 5) must have the same shape");
}

/* ---- memory: O(T) for flash, O(T²) for the reference --------------------------------------- */

/* The most the call held at once beyond what was live before it (t_peak_bytes), on
 * (1, H, T, 16) inputs; *tiles gets the flash backward's scratch that does not grow
 * with T (its tiles: the scratch less D). */
static size_t peak_of_backward(bool flash, int64_t H, int64_t T, bool causal, size_t *tiles) {
    t_scope_begin();
    t_manual_seed(1205);
    Tensor *q = t_randn(SHAPE(1, H, T, 16)), *k = t_randn(SHAPE(1, H, T, 16)), *v = t_randn(SHAPE(1, H, T, 16));
    Tensor *dout = t_randn(SHAPE(1, H, T, 16)), *lse;
    Tensor *out = flash_forward(q, k, v, causal, &lse);
    size_t live = t_live_bytes();
    t_restore_peak_bytes(live);
    if (flash) attention_backward_flash(q, k, v, out, lse, dout, causal);
    else attention_backward_reference(q, k, v, dout, causal);
    size_t peak = t_peak_bytes() - live;
    if (tiles) *tiles = flash_backward_scratch_bytes() - (size_t)T * 4;
    t_scope_end();
    return peak;
}

static void test_flash_memory_grows_linearly_with_T(void) {
    /* T and 4T: the flash backward's peak (three gradients, D, tiles) grows at most 4x,
     * and what grows at all grows exactly as T; the reference's grows 16x */
    for (int causal = 0; causal < 2; causal++) {
        size_t tiles;
        size_t f1 = peak_of_backward(true, 4, 256, causal, &tiles), f4 = peak_of_backward(true, 4, 1024, causal, NULL);
        size_t r1 = peak_of_backward(false, 1, 128, causal, NULL), r4 = peak_of_backward(false, 1, 512, causal, NULL);
        double rf = (double)f4 / (double)f1, grow = (double)(f4 - tiles) / (double)(f1 - tiles);
        double rr = (double)r4 / (double)r1;
        CHECK_MSG(rf <= 4.0, "flash backward: peak %zu bytes at T = 256, %zu at 1024: x%.2f", f1, f4, rf);
        CHECK_MSG(grow > 3.9 && grow < 4.1, "flash backward: beyond its %zu bytes of tiles the peak grew x%.3f from "
                  "T = 256 to 1024 (%zu, %zu bytes), not as T", tiles, grow, f1, f4);
        CHECK_MSG(rr > 14.0 && rr < 17.0, "reference backward: peak %zu bytes at T = 128, %zu at 512: x%.2f, not as "
                  "T²", r1, r4, rr);
    }
}

static void test_flash_scratch_is_D_and_tiles(void) {
    /* beyond the three gradients: D (T floats) and tiles whose size does not depend on T */
    t_manual_seed(1206);
    size_t bytes[2];
    for (int r = 0; r < 2; r++) {
        int64_t T = r ? 4096 : 1024;
        t_scope_begin();
        Tensor *q = t_randn(SHAPE(1, T, 8)), *k = t_randn(SHAPE(1, T, 8)), *v = t_randn(SHAPE(1, T, 8));
        Tensor *dout = t_randn(SHAPE(1, T, 8)), *lse, *out = flash_forward(q, k, v, true, &lse);
        attention_backward_flash(q, k, v, out, lse, dout, true);
        bytes[r] = flash_backward_scratch_bytes();
        t_scope_end();
    }
    CHECK_EQ_INT(bytes[1] - bytes[0], (4096 - 1024) * 4);
    CHECK_MSG(bytes[0] < 400000, "flash backward scratch %zu bytes at T = 1024", bytes[0]);
}

static void test_causal_tiles_skipped(void) {
    /* T = 300: query blocks at 0, 64, ..., 256, key tiles at 0 and 256; the tile at 256
     * is seen only by the block at 256, the four before it are skipped */
    Tensor *q = fx("long", "q"), *k = fx("long", "k"), *v = fx("long", "v"), *dout = fx("long", "do"), *lse;
    Tensor *out = flash_forward(q, k, v, true, &lse);
    int64_t skipped;
    attention_backward_flash(q, k, v, out, lse, dout, true);
    CHECK_EQ_INT(flash_backward_tiles(&skipped), 6);
    CHECK_EQ_INT(skipped, 4);
    attention_backward_flash(q, k, v, flash_forward(q, k, v, false, &lse), lse, dout, false);
    CHECK_EQ_INT(flash_backward_tiles(&skipped), 10);
    CHECK_EQ_INT(skipped, 0);
}

static void test_flops(void) {
    Tensor *q = t_zeros(SHAPE(2, 3, 10, 8)), *k = t_zeros(SHAPE(2, 3, 20, 8)), *v = t_zeros(SHAPE(2, 3, 20, 8));
    CHECK_CLOSE(attention_backward_flops(q, k, v, false), 6.0 * 2 * 10 * 20 * (3 * 8 + 2 * 8), 0.5);
    CHECK_CLOSE(attention_backward_flops(q, k, v, false) / attention_flops(q, k, v, false), 2.5, 1e-12);
    Tensor *kc = t_zeros(SHAPE(2, 3, 10, 8)), *vc = t_zeros(SHAPE(2, 3, 10, 8));
    CHECK_CLOSE(attention_backward_flops(q, kc, vc, true), 0.5 * 6.0 * 2 * 10 * 10 * 40, 0.5);
}

/* ---- every bad input is a sentence ------------------------------------------------------------ */

static void test_errors(void) {
    Tensor *q = t_randn(SHAPE(2, 3, 4)), *k = t_randn(SHAPE(2, 5, 4)), *v = t_randn(SHAPE(2, 5, 6));
    Tensor *dout = t_randn(SHAPE(2, 3, 6)), *lse, *out = flash_forward(q, k, v, false, &lse);
    CHECK_ERROR(attention_backward_flash(q, k, v, out, lse, t_zeros(SHAPE(2, 3, 5)), false),
                "attention_backward_flash: grad_output (2, 3, 5) must have the output's shape (2, 3, 6) (..., T, d_v)");
    CHECK_ERROR(attention_backward_reference(q, k, v, t_zeros(SHAPE(2, 4, 6)), false),
                "attention_backward_reference: grad_output (2, 4, 6) must have the output's shape (2, 3, 6)");
    CHECK_ERROR(attention_backward_flash(q, k, v, out, lse, dout, true),
                "attention_backward_flash: query (2, 3, 4) and key (2, 5, 4) have T 3 != S 5, but a causal mask "
                "needs T == S");
    CHECK_ERROR(attention_backward_flash(q, t_zeros(SHAPE(2, 5, 3)), v, out, lse, dout, false),
                "attention_backward_flash: query (2, 3, 4) and key (2, 5, 3) must share the last dim d_k: 4 != 3");
    CHECK_ERROR(attention_backward_reference(t_zeros(SHAPE(1, 3, 4)), k, v, dout, false),
                "attention_backward_reference: query (1, 3, 4), key (2, 5, 4) and value (2, 5, 6) must have the same "
                "leading dims (the backward of a broadcast is left out: expand them first)");
    CHECK_ERROR(attention_backward_flash(q, k, v, out, t_zeros(SHAPE(2, 4)), dout, false),
                "attention_backward_flash: lse (2, 4) must be (..., T) = (2, 3), one number per row of the output");
    CHECK_ERROR(attention_backward_flash(q, k, v, t_zeros(SHAPE(2, 3, 5)), lse, dout, false),
                "attention_backward_flash: output (2, 3, 5) must have grad_output's shape (2, 3, 6)");
    Tensor *bad = t_clone(dout);
    t_set(bad, NAN, 1, 2, 3);
    CHECK_ERROR(attention_backward_flash(q, k, v, out, lse, bad, false),
                "attention_backward_flash: grad_output holds NaN at flat index 33: the backward needs finite numbers");
    CHECK_ERROR(attention_backward_reference(q, k, v, bad, false), "attention_backward_reference: grad_output holds NaN");
    Tensor *qinf = t_clone(q);
    t_set(qinf, INFINITY, 0, 0, 0);
    CHECK_ERROR(attention_backward_flash(qinf, k, v, out, lse, dout, false),
                "attention_backward_flash: query holds inf at flat index 0");
    Tensor *lbad = t_clone(lse);
    t_set(lbad, -INFINITY, 0, 1);
    CHECK_ERROR(attention_backward_flash(q, k, v, out, lbad, dout, false),
                "attention_backward_flash: lse (a score overflowed in the forward) holds -inf at flat index 1");
}

int main(void) {
    RUN(test_flash_backward_matches_autograd);
    RUN(test_reference_backward_matches_autograd);
    RUN(test_flash_equals_reference_on_random_shapes);
    RUN(test_non_contiguous_inputs);
    RUN(test_finite_differences);
    RUN(test_delta_is_the_softmax_row_sum);
    RUN(test_flash_memory_grows_linearly_with_T);
    RUN(test_flash_scratch_is_D_and_tiles);
    RUN(test_causal_tiles_skipped);
    RUN(test_flops);
    RUN(test_errors);
    return harness_finish("test_ch12");
}
