/* dot_product_setup.h — chapters 1, 2 and 4 as programs: their random query, key
 * and value (the --q --k --v files: load_qkv_files, common/program/qkv_files.h),
 * what a run holds, and the heatmap, --quiet results and --dump files of one
 * attention call.
 * (The attention itself is in dot_product.h; this is only the program around it.) */
#ifndef CH01_DOT_PRODUCT_SETUP_H
#define CH01_DOT_PRODUCT_SETUP_H

#include "common/program/program.h"
#include "chapters/01_dot_product/dot_product.h"

/* The narration of chapter 1 in Chinese (zh.c; lang.h). */
extern const LangPair chapter1_zh[];

/* query, key, value = (torch.randn(seq_len, d_k) for _ in range(3)), drawn in
 * that order (t_randn names a shape too big for memory). */
void random_qkv(int64_t seq_len, int64_t d_k, Tensor **query, Tensor **key, Tensor **value);

/* The sizes of one attention call: query (B, T, d_k), key (B, S, d_k),
 * value (B, S, d_v). */
typedef struct {
    double B, T, S, d_k, d_v;
} QKVSizes;

/* (1, T, d_k) for query, key and value (S = T, d_v = d_k), or, with --q, the
 * sizes in the headers of the --q, --k and --v files. */
QKVSizes qkv_sizes(const Args *args, double T, double d_k);

/* What one attention call on these sizes holds and costs (the (..., T, S)
 * scores and weights dominate: score_buffers of them at once, measured for
 * each chapter's program), for budget_refuse; `what` is written into the
 * caller's buffer. Chapters 2 and 4 add their own work to it. */
BudgetEstimate qkv_attention_estimate(const Args *args, const QKVSizes *s, double score_buffers, char *what,
                                      size_t len);

/* --heatmap: every (T, S) grid of the weights, titled "index (i, ...)" for the
 * plain batch dims of --q/--k/--v; scores (may be NULL) mark masked entries,
 * labels (may be NULL) name the tokens. */
void draw_attention(const Args *args, const char *title, const Tensor *weights, const Tensor *scores,
                    const char *const *labels);

/* --quiet: attn_weights and output, which the narration shows otherwise. */
void print_quiet_results(const Attention *a);

/* scores.npy, attn_weights.npy and output.npy into dir (which exists). */
void save_attention_in(const char *dir, const Attention *a);

#endif
