/* llama_setup.h — chapter 11's module and input for the program: the book's test
 * (the default run) or files (--input, --weights); the run's estimate. The lesson is
 * in rope.c, gqa.c, llama_attention.c and kv_cache.c. */
#ifndef CH11_LLAMA_SETUP_H
#define CH11_LLAMA_SETUP_H

#include "common/program/program.h"
#include "kv_cache.h"

/* The chapter's own flags (CliExtra values), beside the shared Args. */
typedef struct {
    int64_t dim, n_heads, n_kv_heads;
    int64_t decode;         /* --decode N: 0 when not given */
    bool decode_given;
    bool n_kv_heads_given;
    int64_t prefill_chunk;  /* --prefill-chunk N: 0 when not given */
    double rope_theta;      /* --rope-theta X: precompute_freqs_cis's theta, 10000.0 */
    bool rope_theta_given;
} LlamaFlags;

/* What a run starts from: the module, x (bsz, seqlen, dim) and the tables
 * (seqlen, head_dim / 2) of precompute_freqs_cis (or of the weights folder). */
typedef struct {
    LlamaAttention *m;
    Tensor *x;
    FreqsCis freqs;
    double rope_theta;   /* the tables' theta (10000.0 unless --rope-theta; unknown when read from files) */
} LlamaRun;

/* The book's test of 5.1.3.3, in PyTorch's order:
 *     torch.manual_seed(seed)
 *     m = Attention(ModelConfig(dim, n_heads, n_kv_heads, max_seq_len, dropout))
 *     x = torch.rand(batch, seq_len, dim)
 *     freqs_cos, freqs_sin = precompute_freqs_cis(dim // n_heads, seq_len, theta)
 * or, with --input FILE --weights DIR: x from the file (B, T, dim), wq wk wv wo
 * from the folder (n_heads from --n-heads, head_dim = dim // n_heads,
 * n_kv_heads from wk's rows), the tables from freqs_cos.npy and
 * freqs_sin.npy when the folder has them. max_seq_len is --max-seq-len, or
 * T for files. Training mode, as a fresh module. */
LlamaRun llama_from_args(const Args *args, const LlamaFlags *f);
/* Write x wq wk wv wo freqs_cos freqs_sin into dir (what --weights and --input read). */
void llama_save(const LlamaRun *run, const char *dir);
/* What the run holds, refused in one sentence before any work when it would not
 * fit in memory (common/program/budget.h). */
void llama_refuse_past_budget(const Args *args, const LlamaFlags *f);

#endif
