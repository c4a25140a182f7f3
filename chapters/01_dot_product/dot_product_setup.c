/* dot_product_setup.c — chapters 1, 2 and 4 as programs: random inputs, budget, heatmap, files. */
#include "dot_product_setup.h"

#include <stdio.h>

void random_qkv(int64_t seq_len, int64_t d_k, Tensor **query, Tensor **key, Tensor **value) {
    Shape s = SHAPE(seq_len, d_k);
    *query = t_randn(s); /* (T, d_k) */
    *key = t_randn(s);   /* (S = T, d_k) */
    *value = t_randn(s); /* (S, d_v = d_k) */
}

QKVSizes qkv_sizes(const Args *args, double T, double d_k) {
    QKVSizes s = {1, T, T, d_k, d_k};
    if (args->q) budget_peek_qkv(args->q, args->k, args->v, &s.B, &s.T, &s.S, &s.d_k, &s.d_v);
    return s;
}

BudgetEstimate qkv_attention_estimate(const Args *args, const QKVSizes *s, double score_buffers, char *what,
                                      size_t len) {
    /* (..., T, d_k) x (..., S, d_k): scores, weights, their copies */
    double B = s->B, T = s->T, S = s->S, dk = s->d_k, dv = s->d_v;
    double scores = score_buffers * B * T * S, rows = 4 * B * (T * dk + S * dk + S * dv + T * dv);
    BudgetEstimate e = {0};
    e.bytes = BUDGET_OVERHEAD + BUDGET_F4 * (scores + rows);
    e.flops = 2 * B * T * S * (dk + dv); /* Q·Kᵀ, then weights·V */
    e.largest = BUDGET_F4 * B * (T * S > T * dk ? T * S : T * dk);
    e.what = what;
    if (scores >= rows) { /* what dominates names itself, and what to lower */
        snprintf(what, len, tr("the (..., T, S) scores and weights, T = %.0f, S = %.0f"), T, S);
        e.flag = args->q ? "the sizes of --q/--k/--v" : "--seq-len";
    } else {
        snprintf(what, len, tr("the query, key, value and output, (..., T, d_k) and (..., S, d_v), d_k = %.0f, "
                               "d_v = %.0f"), dk, dv);
        e.flag = args->q ? "the sizes of --q/--k/--v" : "--d-k or --seq-len";
    }
    return e;
}

void draw_attention(const Args *args, const char *title, const Tensor *weights, const Tensor *scores,
                    const char *const *labels) {
    HeatmapOptions opt = {.title = title, .rows = labels, .cols = labels, .ascii = args->ascii,
                          .index_titles = true, .scores = scores, .row_scale = args->row_scale};
    heatmap_print_all(weights, &opt);
}

void print_quiet_results(const Attention *a) {
    if (!narrate_quiet()) return;
    narrate_result("attn_weights", a->weights);
    narrate_result("output", a->output);
}

void save_attention_in(const char *dir, const Attention *a) {
    npy_save_in(dir, "scores", a->scores);        /* (..., T, S) before softmax */
    npy_save_in(dir, "attn_weights", a->weights); /* (..., T, S) after softmax  */
    npy_save_in(dir, "output", a->output);        /* (..., T, d_v)              */
}
