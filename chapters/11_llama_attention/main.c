/* main.c — chapter 11: LLaMA2's attention (Happy-LLM 5.1.3): RoPE, grouped-query
 * heads and the KV cache.
 *
 * Runs the book's test of 5.1.3.3, seeded (the book's seeds nothing and prints
 * only the shape) -- torch.manual_seed(S);
 * m = Attention(ModelConfig(dim, n_heads, n_kv_heads, max_seq_len, dropout));
 * x = torch.rand(B, T, dim); cos, sin = precompute_freqs_cis(dim // n_heads, T);
 * out = m(x, cos, sin) -- and prints the same numbers (common/rng.h draws what
 * PyTorch draws), then walks through it:
 *   - RoPE: the tables, neighbouring pairs turned, q_m . k_n depending on m - n
 *     only, and the rotate_half trap (Hugging Face's layout) with its permutation;
 *   - grouped-query heads: wk and wv with n_kv_heads, repeat_kv, and the same
 *     numbers by reading head h / n_rep in place;
 *   - the KV cache: a prefill (at once, or in chunks with --prefill-chunk, each
 *     chunk's causal mask offset by its start) and token-by-token decode, each
 *     step equal to the full forward's row; the cache's bytes for MHA, GQA and MQA, and for
 *     LLaMA2-7B and 70B.
 *
 *     build/chapter11                                        the book's test, small
 *     build/chapter11 --dim 768 --n-heads 16 --n-kv-heads 8 --seq-len 50 --batch 1 --max-seq-len 512
 *     build/chapter11 --decode 3 --output out.npy            prefill 3, decode 3
 *     build/chapter11 --prefill-chunk 2 --decode 1           prefill 0..1, 2..3, 4; decode 5
 *     build/chapter11 --input x.npy --weights DIR --n-heads 4 --eval --output out.npy
 */
#include <stdio.h>
#include <string.h>

#include "generate_setup.h"
#include "llama_bench.h"

extern const LangPair chapter11_zh[]; /* zh.c: this program's sentences in Chinese (lang.h) */

static int64_t dim = 16, n_heads = 4, n_kv_heads = 2, decode = 0, prefill_chunk = 0;
static double rope_theta = 10000.0;  /* precompute_freqs_cis(dim, end, theta=10000.0) */
static bool bench;
static const char *generate;   /* --generate DIR */
static int64_t tokens = 6;
static const char *prompt = "D A";
static const CliExtra extra[] = {
    {.name = "--dim", .metavar = "D", .kind = CLI_EXTRA_INT, .value = &dim, .min = 1, .max = CLI_MAX_SIZE,
     .help = "width of x and of the output"},
    {.name = "--n-heads", .metavar = "H", .kind = CLI_EXTRA_INT, .value = &n_heads, .min = 1, .max = CLI_MAX_SIZE,
     .help = "query heads"},
    {.name = "--n-kv-heads", .metavar = "K", .kind = CLI_EXTRA_INT, .value = &n_kv_heads, .min = 1,
     .max = CLI_MAX_SIZE, .help = "key/value heads (H: MHA, 1: MQA)"},
    {.name = "--decode", .metavar = "N", .kind = CLI_EXTRA_INT, .value = &decode, .min = 0, .max = CLI_MAX_SIZE,
     .help = "prefill T - N, decode N one by one (eval)"},
    {.name = "--prefill-chunk", .metavar = "N", .kind = CLI_EXTRA_INT, .value = &prefill_chunk, .min = 0,
     .max = CLI_MAX_SIZE, .help = "prefill N positions at a time, 0: at once (eval)"},
    {.name = "--rope-theta", .metavar = "X", .kind = CLI_EXTRA_REAL, .value = &rope_theta, .min = 0,
     .min_exclusive = true, .max = 1e300, .help = "RoPE's base theta, the book's"},
    {.name = "--bench", .kind = CLI_EXTRA_FLAG, .value = &bench,
     .help = "time the KV cache (prints only)"},
    {.name = "--generate", .metavar = "DIR", .kind = CLI_EXTRA_TEXT, .value = &generate,
     .help = "chapter 10's --train --dump: generate"},
    {.name = "--prompt", .metavar = "TEXT", .kind = CLI_EXTRA_TEXT, .value = &prompt,
     .help = "--generate's prompt, tokens A..H"},
    {.name = "--tokens", .metavar = "N", .kind = CLI_EXTRA_INT, .value = &tokens, .min = 1, .max = GEN_SEQ_LEN,
     .help = "--generate: how many tokens"},
    {.name = NULL}};

/* The flags that cannot work together, as one usage sentence in buf (exit 2, before any work
 * or output); NULL when they can. The sizes the book's ModelConfig asserts are checked here
 * when they come from flags; from files, they are the run's errors (exit 1). */
static const char *flags_that_clash(const CliSpec *spec, const Args *a, char *buf, size_t n) {
    static const char *const module_flags[] = {"--dim", "--n-heads", "--n-kv-heads", "--decode", "--prefill-chunk",
                                               "--rope-theta", "--bench"};
    static const struct { unsigned bit; const char *name; } shared[] = {
        {CLI_SEED, "--seed"}, {CLI_BATCH, "--batch"}, {CLI_SEQ_LEN, "--seq-len"}, {CLI_MAX_SEQ_LEN, "--max-seq-len"},
        {CLI_DROPOUT, "--dropout"}, {CLI_EVAL, "--eval"}, {CLI_DUMP, "--dump"}, {CLI_INPUT, "--input"},
        {CLI_OUTPUT, "--output"}};
    if (generate) {  /* chapter 10's model: its folder gives every size, greedy decoding draws nothing */
        for (size_t i = 0; i < sizeof module_flags / sizeof *module_flags; i++)
            if (cli_extra_given(spec, a, module_flags[i]))
                return snprintf(buf, n, tr("%s does not apply to --generate, which runs chapter 10's tiny model "
                                           "as its folder holds it"), module_flags[i]), buf;
        for (size_t i = 0; i < sizeof shared / sizeof *shared; i++)
            if (a->given & shared[i].bit)
                return snprintf(buf, n, tr("%s does not apply to --generate, which runs chapter 10's tiny model "
                                           "as its folder holds it"), shared[i].name), buf;
        return NULL;
    }
    if (cli_extra_given(spec, a, "--prompt") || cli_extra_given(spec, a, "--tokens"))
        return snprintf(buf, n, tr("%s applies only with --generate DIR"),
                        cli_extra_given(spec, a, "--prompt") ? "--prompt" : "--tokens"), buf;
    if (bench) {  /* llama_bench times its own fixed sizes and writes nothing */
        for (size_t i = 0; i < sizeof module_flags / sizeof *module_flags - 1; i++)
            if (cli_extra_given(spec, a, module_flags[i]))
                return snprintf(buf, n, tr("%s does not apply to --bench, which times sizes of its own and writes "
                                           "nothing"), module_flags[i]), buf;
        for (size_t i = 0; i < sizeof shared / sizeof *shared; i++)
            if (a->given & shared[i].bit)
                return snprintf(buf, n, tr("%s does not apply to --bench, which times sizes of its own and writes "
                                           "nothing"), shared[i].name), buf;
        return NULL;
    }
    if (a->input) {  /* bsz, seqlen and dim are the file's */
        const char *unused = cli_extra_given(spec, a, "--dim") ? "--dim"
                             : (a->given & CLI_BATCH)          ? "--batch"
                             : (a->given & CLI_SEQ_LEN)        ? "--seq-len"
                                                               : NULL;
        if (unused)
            return snprintf(buf, n, tr("%s does not apply with --input, whose file gives bsz, seqlen and dim"),
                            unused), buf;
    }
    if ((!a->input || cli_extra_given(spec, a, "--n-kv-heads")) && n_heads % n_kv_heads != 0) {
        /* assert args.n_heads % self.n_kv_heads == 0; the flag named is the one typed */
        bool kv = cli_extra_given(spec, a, "--n-kv-heads") || !cli_extra_given(spec, a, "--n-heads");
        return snprintf(buf, n, tr("%s %lld: n_kv_heads = %lld must divide n_heads = %lld: each key/value "
                                   "head serves a whole group of query heads"),
                        kv ? "--n-kv-heads" : "--n-heads", (long long)(kv ? n_kv_heads : n_heads),
                        (long long)n_kv_heads, (long long)n_heads), buf;
    }
    if (a->input) return NULL;  /* dim and T come from the file */
    if (dim < n_heads)
        return snprintf(buf, n, tr("--dim %lld: dim = %lld is smaller than n_heads = %lld, so head_dim = dim // "
                                   "n_heads is 0"), (long long)dim, (long long)dim, (long long)n_heads), buf;
    if ((dim / n_heads) % 2 != 0)
        return snprintf(buf, n, tr("--dim %lld --n-heads %lld: RoPE rotates pairs of numbers, so head_dim must be "
                                   "even and at least 2, but it is %lld"), (long long)dim, (long long)n_heads,
                        (long long)(dim / n_heads)), buf;
    if (a->seq_len > a->max_seq_len)  /* check_seq_len (chapter 4), here from flags */
        return snprintf(buf, n, tr("--seq-len %lld is longer than --max-seq-len %lld, the size of the causal mask "
                                   "buffer"), (long long)a->seq_len, (long long)a->max_seq_len), buf;
    if (cli_extra_given(spec, a, "--decode") && decode > a->seq_len)
        return snprintf(buf, n, tr("--decode %lld asks for more steps than the %lld positions of the sequence"),
                        (long long)decode, (long long)a->seq_len), buf;
    if (cli_extra_given(spec, a, "--prefill-chunk") && prefill_chunk > a->seq_len - decode)
        return snprintf(buf, n, tr("--prefill-chunk %lld is longer than the %lld positions to prefill (T = %lld, "
                                   "--decode %lld)"), (long long)prefill_chunk, (long long)(a->seq_len - decode),
                        (long long)a->seq_len, (long long)decode), buf;
    return NULL;
}

static void show_module(const LlamaRun *r, const Args *args) {
    const LlamaAttention *m = r->m;
    char s1[T_SHAPE_STR], s2[T_SHAPE_STR], s3[T_SHAPE_STR];
    if (!args->input) {
        narrate_step("The module and a random input, as in the book's test (5.1.3.3)");
        narrate_torch_seed(args->seed);
        narrate_torch("m = Attention(ModelConfig(dim, n_heads, n_kv_heads, max_seq_len, dropout))");
        narrate_torch("x = torch.rand(batch_size, seq_len, dim)");
    } else {
        narrate_step("The module, and x from --input instead of the book's torch.rand (5.1.3.3)");
        narrate_say("x from %s, wq wk wv wo from %s: their shapes give bsz, seqlen and dim", args->input,
                    args->weights);
    }
    narrate_say("dim = %lld, n_heads = %lld, n_kv_heads = %lld, n_rep = %lld, head_dim = %lld, max_seq_len = "
                "%lld, dropout = %g (%s)",
                (long long)m->args.dim, (long long)m->n_local_heads, (long long)m->n_local_kv_heads,
                (long long)m->n_rep, (long long)m->head_dim, (long long)m->args.max_seq_len, m->args.dropout,
                tr(m->attn_dropout.training ? "training" : "eval"));
    narrate_say("wq %s, wk %s, wv %s, wo %s: %lld parameters", t_shape_str(m->wq->weight, s1),
                t_shape_str(m->wk->weight, s2), t_shape_str(m->wv->weight, s3), t_shape_str(m->wo->weight, s1),
                (long long)llama_attention_num_params(m));
    narrate_why("wk and wv map dim to n_kv_heads * head_dim, fewer numbers than wq's n_heads * head_dim "
                "when n_kv_heads < n_heads; no bias anywhere.");
    narrate_show("x", r->x);
}

/* q_m . k_n of one q and one k vector turned to positions m and n. */
static double turned_dot(const Tensor *q, const Tensor *k, const FreqsCis *f, int64_t m, int64_t n) {
    Tensor *qm = rotary_emb(q, t_slice(f->cos, 0, m, m + 1), t_slice(f->sin, 0, m, m + 1));
    Tensor *kn = rotary_emb(k, t_slice(f->cos, 0, n, n + 1), t_slice(f->sin, 0, n, n + 1));
    return t_sum_all(t_mul(qm, kn));
}

static void show_rope(const LlamaRun *r, const LlamaTrace *tr) {
    const LlamaAttention *m = r->m;
    narrate_step("RoPE: the tables and the turn (5.1.3.2)");
    narrate_torch("freqs_cos, freqs_sin = precompute_freqs_cis(dim // n_heads, seq_len, theta)");
    narrate_say("theta = %g (--rope-theta X; the book's is 10000; Code Llama uses 1e6, Llama 3 500000)", r->rope_theta);
    narrate_show("freqs_cos", r->freqs.cos);
    narrate_torch("xq, xk = apply_rotary_emb(xq, xk, freqs_cos, freqs_sin)");
    narrate_show("xq[0, :, 0]", t_select(t_select(tr->xq, 0, 0), 1, 0));
    narrate_why("pair i of a head, (x[2i], x[2i+1]), is turned by the angle m * theta^(-2i/head_dim) at "
                "position m; row 0 is not turned (cos 1, sin 0), the first pair turns fastest.");
    /* the same q and k vectors (token 0, head 0), turned to several positions */
    int64_t L = m->args.max_seq_len > 8 ? m->args.max_seq_len : 8;
    FreqsCis f = precompute_freqs_cis(m->head_dim, L, r->rope_theta);
    int64_t hd = m->head_dim;
    Tensor *x0 = t_slice(r->x, 1, 0, 1);  /* (bsz, 1, dim) */
    Tensor *q = t_slice(t_view(nn_linear_forward(m->wq, x0), SHAPE(t_size(x0, 0), 1, m->n_local_heads, hd)), 2, 0, 1);
    Tensor *k = t_slice(t_view(nn_linear_forward(m->wk, x0), SHAPE(t_size(x0, 0), 1, m->n_local_kv_heads, hd)), 2, 0,
                        1);
    q = t_slice(q, 0, 0, 1), k = t_slice(k, 0, 0, 1);
    narrate_say("one q and one k (token 0, head 0) turned to positions m and n:");
    narrate_say("q_2 . k_0 = %.6f   q_%lld . k_%lld = %.6f   (offset 2 both)", turned_dot(q, k, &f, 2, 0),
                (long long)(L - 1), (long long)(L - 3), turned_dot(q, k, &f, L - 1, L - 3));
    narrate_say("q_2 . k_1 = %.6f   (offset 1)", turned_dot(q, k, &f, 2, 1));
    narrate_why("a turn by m then a turn back by n is a turn by m - n: the score sees how far apart two "
                "tokens are, not where they are.");
}

/* Meta's form of the same turn: each pair a complex number, one product. */
static void show_rope_complex(const LlamaRun *r, const LlamaTrace *tr) {
    const LlamaAttention *m = r->m;
    int64_t B = t_size(r->x, 0), T = t_size(r->x, 1), hd = m->head_dim, pos = T - 1, i = hd / 2 > 1 ? 1 : 0;
    narrate_step("RoPE as complex numbers: (a + ib)(cos t + i sin t)");
    narrate_torch("xq_out_r = xq_r * freqs_cos - xq_i * freqs_sin   # the book: 实部");
    narrate_torch("xq_out_i = xq_r * freqs_sin + xq_i * freqs_cos   # 虚部");
    narrate_torch("freqs_cis = torch.polar(torch.ones_like(freqs), freqs)   # Meta: cos t + i sin t");
    narrate_torch("xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))");
    narrate_torch("xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)");
    Tensor *xq = t_view(nn_linear_forward(m->wq, r->x), SHAPE(B, T, m->n_local_heads, hd));  /* before RoPE */
    float a = t_get(xq, 0, pos, 0, 2 * i), b = t_get(xq, 0, pos, 0, 2 * i + 1);
    float c = t_get(r->freqs.cos, pos, i), s = t_get(r->freqs.sin, pos, i);
    narrate_say("xq[0, %lld, 0], pair %lld: a + ib = %.6f %+.6fi, t = %lld x theta^(-%lld/%lld): cos t = %.6f, "
                "sin t = %.6f", (long long)pos, (long long)i, a, b, (long long)pos, (long long)(2 * i), (long long)hd,
                c, s);
    narrate_say("(a + ib)(cos t + i sin t) = (a cos t - b sin t) + i (a sin t + b cos t) = %.6f %+.6fi",
                a * c - b * s, a * s + b * c);
    narrate_say("the book's xq_out[0, %lld, 0, %lld:%lld] = %.6f, %.6f", (long long)pos, (long long)(2 * i),
                (long long)(2 * i + 2), t_get(tr->xq, 0, pos, 0, 2 * i), t_get(tr->xq, 0, pos, 0, 2 * i + 1));
    narrate_say("Meta's complex product on every pair of xq: max |difference| = %.7f",
                t_max_abs_diff(rotary_emb_complex(xq, r->freqs.cos, r->freqs.sin), tr->xq));
    narrate_why("cos t + i sin t has length 1, so multiplying a + ib by it turns the point by the angle t "
                "and keeps its length. The book's comments call cos the real part (实部) and sin the imaginary "
                "part (虚部) of that factor; its two lines are the real and imaginary parts of the product.");
}

static void show_trap(const LlamaRun *r, const Tensor *output) {
    LlamaAttention hf = *r->m;
    llama_attention_eval(&hf);
    hf.rotate_half = true;  /* Hugging Face's layout, the book's weights */
    Tensor *wrong = llama_attention_forward(&hf, r->x, r->freqs.cos, r->freqs.sin, NULL);
    hf.wq = nn_linear_from("wq", permute_for_rotate_half(r->m->wq->weight, hf.n_local_heads), NULL);
    hf.wk = nn_linear_from("wk", permute_for_rotate_half(r->m->wk->weight, hf.n_local_kv_heads), NULL);
    Tensor *right = llama_attention_forward(&hf, r->x, r->freqs.cos, r->freqs.sin, NULL);
    narrate_step("The trap: Hugging Face rotates halves, not neighbouring pairs");
    narrate_torch("q * cos + rotate_half(q) * sin   # transformers: (x[i], x[i + head_dim/2])");
    narrate_say("the same weights in that layout: max |difference| = %.4f", t_max_abs_diff(wrong, output));
    narrate_torch("w.view(n_heads, head_dim // 2, 2, dim).transpose(1, 2).reshape(-1, dim)");
    narrate_say("after permuting wq and wk rows per head: max |difference| = %.7f", t_max_abs_diff(right, output));
    narrate_why("each head's rows 0, 2, 4, .. then 1, 3, 5, ..: a pair (2i, 2i+1) becomes (i, i + head_dim/2). "
                "Weights move between the two layouts only with this permutation.");
}

static void show_gqa(const LlamaRun *r, const LlamaTrace *tr, const Tensor *output) {
    const LlamaAttention *m = r->m;
    char s1[T_SHAPE_STR], s2[T_SHAPE_STR], s3[T_SHAPE_STR];
    narrate_step("Grouped-query heads: repeat_kv (5.1.3.1)");
    narrate_torch("xk = repeat_kv(xk, self.n_rep)   # expand + reshape");
    /* tr->keys is after the transpose: (bs, n_heads, slen, hd); repeat_kv gave (bs, slen, n_heads, hd) */
    Shape repeated = SHAPE(t_size(tr->keys, 0), t_size(tr->keys, 2), t_size(tr->keys, 1), t_size(tr->keys, 3));
    narrate_say("xk %s -> %s: query head h reads kv head h // %lld; then xk.transpose(1, 2): %s",
                t_shape_str(tr->xk, s1), shape_str(repeated, s2), (long long)m->n_rep, t_shape_str(tr->keys, s3));
    LlamaAttention ev = *m;
    llama_attention_eval(&ev);
    Tensor *full = llama_attention_forward(&ev, r->x, r->freqs.cos, r->freqs.sin, NULL);
    Tensor *g = grouped_attention(t_transpose(tr->xq, 1, 2), t_transpose(tr->xk, 1, 2), t_transpose(tr->xv, 1, 2),
                                  m->mask);
    Tensor *merged = t_reshape(t_transpose(g, 1, 2), SHAPE(t_size(r->x, 0), t_size(r->x, 1), -1));
    Tensor *in_place = nn_linear_forward(m->wo, merged);
    narrate_say("reading kv head h // n_rep in place, no copy: max |difference| = %.7f",
                t_max_abs_diff(in_place, full));
    narrate_why("n_kv_heads = n_heads is MHA, 1 is MQA, between is GQA: one code path. repeat_kv copies "
                "each kv head n_rep times; the index h // n_rep gives the same numbers.");
    narrate_step("Scores, mask, softmax, dropout, wo: chapters 2-7");
    narrate_torch("scores = softmax(xq @ xk.transpose(2, 3) / sqrt(head_dim) + mask); output = self.wo(...)");
    narrate_show("attn_weights[0, 0]", t_select(t_select(tr->attn_weights, 0, 0), 0, 0));
    narrate_show("output", output);
}

/* Prefill T - n positions in chunks of `chunk` (0: at once), then the last n one at a time
 * (eval); rows of all T. */
static Tensor *decode_run(const LlamaRun *r, int64_t n, int64_t chunk, const Tensor *full, bool say) {
    LlamaAttention ev = *r->m;
    llama_attention_eval(&ev);
    int64_t B = t_size(r->x, 0), T = t_size(r->x, 1), prompt = T - n;
    KVCache *c = kv_cache_new(B, ev.n_local_kv_heads, ev.args.max_seq_len, ev.head_dim);
    Tensor *out = t_zeros(t_shape(full));
    for (int64_t start = 0; start < prompt;) {  /* prefill: start_pos = c->len */
        int64_t len = chunk < 1 || prompt - start < chunk ? prompt - start : chunk;
        Tensor *rows = llama_attention_step(&ev, t_slice(r->x, 1, start, start + len), &r->freqs, c);
        t_copy_(t_slice(out, 1, start, start + len), rows);
        if (say && chunk < 1)
            narrate_say("prefill: positions 0..%lld at once, max |cached - full| = %.7f", (long long)(prompt - 1),
                        t_max_abs_diff(rows, t_slice(full, 1, 0, prompt)));
        else if (say)
            narrate_say("chunk: positions %lld..%lld against keys 0..%lld, max |cached - full| = %.7f",
                        (long long)start, (long long)(start + len - 1), (long long)(c->len - 1),
                        t_max_abs_diff(rows, t_slice(full, 1, start, start + len)));
        start += len;
    }
    for (int64_t t = prompt; t < T; t++) {
        Tensor *row = llama_attention_step(&ev, t_slice(r->x, 1, t, t + 1), &r->freqs, c);  /* (B, 1, dim) */
        t_copy_(t_slice(out, 1, t, t + 1), row);
        if (say)
            narrate_say("step %lld: position %lld against %lld cached, max |cached - full| = %.7f",
                        (long long)(t - prompt + 1), (long long)t, (long long)c->len,
                        t_max_abs_diff(row, t_slice(full, 1, t, t + 1)));
    }
    return out;
}

static void show_cache_bytes(const LlamaAttention *m, int64_t B) {
    char b1[32], b2[32], b3[32];
    int64_t H = m->n_local_heads, K = m->n_local_kv_heads, hd = m->head_dim, L = m->args.max_seq_len;
    narrate_step("What the cache costs: 2 x layers x bsz x n_kv_heads x T x head_dim numbers");
    if (K > 1 && K < H)
        narrate_say("this module, bsz %lld, T = max_seq_len %lld, float32: MHA (%lld kv heads) %s, GQA (%lld) %s, "
                    "MQA (1) %s",
                    (long long)B, (long long)L, (long long)H, t_format_bytes(kv_cache_bytes(1, B, H, L, hd, 4), b1, 32),
                    (long long)K, t_format_bytes(kv_cache_bytes(1, B, K, L, hd, 4), b2, 32),
                    t_format_bytes(kv_cache_bytes(1, B, 1, L, hd, 4), b3, 32));
    else  /* n_kv_heads = n_heads or 1: this module is the MHA or the MQA end */
        narrate_say("this module, bsz %lld, T = max_seq_len %lld, float32: MHA (%lld kv heads) %s, MQA (1) %s; "
                    "this module is %s",
                    (long long)B, (long long)L, (long long)H, t_format_bytes(kv_cache_bytes(1, B, H, L, hd, 4), b1, 32),
                    t_format_bytes(kv_cache_bytes(1, B, 1, L, hd, 4), b3, 32), K == H ? "MHA" : "MQA");
    narrate_say("fp16, bsz 1, head_dim 128:  LLaMA2-7B    LLaMA2-70B    70B as MHA");
    narrate_say("                            32 layers    80 layers     80 layers");
    narrate_say("                            32 kv heads  8 kv heads    64 kv heads");
    static const int64_t Ts[] = {512, 4096, 32768};
    for (int i = 0; i < 3; i++)
        narrate_say("T = %5lld                   %-12s %-13s %s", (long long)Ts[i],
                    t_format_bytes(kv_cache_bytes(32, 1, 32, (double)Ts[i], 128, 2), b1, 32),
                    t_format_bytes(kv_cache_bytes(80, 1, 8, (double)Ts[i], 128, 2), b2, 32),
                    t_format_bytes(kv_cache_bytes(80, 1, 64, (double)Ts[i], 128, 2), b3, 32));
    narrate_say("(LLaMA2's context is 4096 tokens: the T = 32768 row is what a longer context would hold)");
    narrate_why("the cache grows with T and with n_kv_heads, not with n_heads: 70B's 8 kv heads for 64 query "
                "heads keep 8 times fewer bytes, and each decode step reads them all once.");
    /* what one decode step reads: every weight once for the whole batch, every sequence's cache */
    narrate_say("read per decode token, T = 4096 cached, fp16 (the weights once per step):");
    narrate_say("              weights     cache, bsz 1   cache, bsz 32");
    static const struct { const char *name; double dim, layers, heads, kv_heads, hidden; } models[] = {
        {"LLaMA2-7B", 4096, 32, 32, 32, 11008}, {"LLaMA2-70B", 8192, 80, 64, 8, 28672},
        {"70B as MHA", 8192, 80, 64, 64, 28672}};
    for (int i = 0; i < 3; i++) {
        const char *name = tr(models[i].name);   /* padded to 13 columns: a CJK character takes 2 */
        int pad = 13 - lang_columns(name, strlen(name));
        narrate_say("%s%*s %-11s %-14s %s", name, pad > 0 ? pad : 0, "",
                    t_format_bytes(llama2_weight_bytes(models[i].dim, models[i].layers, models[i].heads,
                                                       models[i].kv_heads, models[i].hidden, 32000, 2), b1, 32),
                    t_format_bytes(kv_cache_bytes(models[i].layers, 1, models[i].kv_heads, 4096, 128, 2), b2, 32),
                    t_format_bytes(kv_cache_bytes(models[i].layers, 32, models[i].kv_heads, 4096, 128, 2), b3, 32));
    }
    narrate_say("this module, float32, bsz %lld, T = %lld cached: weights %s, cache %s", (long long)B, (long long)L,
                t_format_bytes(4.0 * (double)llama_attention_num_params(m), b1, 32),
                t_format_bytes(kv_cache_bytes(1, B, K, L, hd, 4), b2, 32));
    narrate_why("at bsz 1 the weights dwarf the cache (7B: 12.6 GiB against 2 GiB; 70B: 128.5 against 1.2), "
                "so the cache, and GQA, change little of what a step reads. The weights are read once for "
                "the whole batch while every sequence reads its own cache: at bsz 32 7B's caches pass its "
                "weights, and 70B's 8 kv heads read 40 GiB where MHA would read 320 GiB.");
}

int main(int argc, char **argv) {
    CliSpec spec = {.program = "chapter11",
                    .summary = "Chapter 11: LLaMA2's attention (Happy-LLM 5.1.3): RoPE, grouped-query heads\n"
                               "(n_kv_heads, repeat_kv) and the KV cache. Default: the book's test,\n"
                               "torch.manual_seed(N); Attention(ModelConfig(dim, n_heads, n_kv_heads,\n"
                               "max_seq_len, dropout)); x = torch.rand(B, T, dim), with PyTorch's numbers.\n"
                               "--decode N (eval) prefills T - N positions and decodes the last N through\n"
                               "the cache; --prefill-chunk N prefills N positions at a time (without\n"
                               "--decode: all T); --output then holds all T rows. --input/--weights read x and\n"
                               "wq wk wv wo (and freqs_cos freqs_sin when there); --dump writes them.",
                    .flags = CLI_SEED | CLI_BATCH | CLI_SEQ_LEN | CLI_MAX_SEQ_LEN | CLI_DROPOUT | CLI_EVAL |
                             CLI_QUIET | CLI_DUMP | CLI_INPUT | CLI_OUTPUT,
                    .defaults = {.seed = 123, .batch = 2, .seq_len = 6, .max_seq_len = 32, .dropout = 0.0},
                    .extra = extra,
                    .messages = chapter11_zh, /* zh.c: the narration in Chinese (--lang zh) */
                    .input_help = "input .npy, shape (B, T, dim); needs --weights",
                    .weights_help = "folder with wq wk wv wo.npy in nn.Linear's (out, in)"};
    Args args = program_start(&spec, argc, argv);
    char clash[320];
    if (flags_that_clash(&spec, &args, clash, sizeof clash)) {
        fprintf(stderr, tr("%s: %s (see --help)\n"), "chapter11", clash);
        return EXIT_USAGE;
    }
    LlamaFlags f = {dim, n_heads, n_kv_heads, decode, cli_extra_given(&spec, &args, "--decode"),
                    cli_extra_given(&spec, &args, "--n-kv-heads"), prefill_chunk, rope_theta,
                    cli_extra_given(&spec, &args, "--rope-theta")};
    bool cached_output = f.decode_given || f.prefill_chunk > 0;  /* --output holds the cache's rows */
    if (generate) {
        int rc = run_generate(generate, prompt, tokens);
        t_scope_end();
        return rc;
    }
    if (bench) {
        llama_bench();  /* measured, printed, never asserted */
        t_scope_end();
        return 0;
    }
    llama_refuse_past_budget(&args, &f);
    LlamaRun r = llama_from_args(&args, &f);  /* the files are read and checked before any narration */
    narrate_title("Chapter 11: LLaMA2's attention: RoPE, grouped-query heads, the KV cache (5.1.3)");

    if (args.eval || cached_output) llama_attention_eval(r.m);  /* model.eval(): the cache runs in eval */
    show_module(&r, &args);
    LlamaTrace tr;
    Tensor *output = llama_attention_forward(r.m, r.x, r.freqs.cos, r.freqs.sin, &tr);  /* (bsz, seqlen, dim) */
    show_rope(&r, &tr);
    show_rope_complex(&r, &tr);
    show_trap(&r, output);
    show_gqa(&r, &tr, output);

    int64_t T = t_size(r.x, 1);
    int64_t n = f.decode_given ? f.decode : f.prefill_chunk > 0 ? 0 : T / 2;
    if (f.prefill_chunk > 0)
        narrate_step("The KV cache: prefill %lld positions %lld at a time, decode %lld one at a time",
                     (long long)(T - n), (long long)f.prefill_chunk, (long long)n);
    else
        narrate_step("The KV cache: prefill %lld positions, decode %lld one at a time", (long long)(T - n),
                     (long long)n);
    narrate_torch("cache_k[:, :, pos] = xk; scores = xq @ cache_k[:, :, :pos + 1].transpose(2, 3) / sqrt(hd)");
    if (f.prefill_chunk > 0)
        narrate_torch("scores += mask[:, :, start_pos : start_pos + seqlen, : start_pos + seqlen]   # a chunk");
    LlamaAttention ev = *r.m;
    llama_attention_eval(&ev);
    Tensor *full = (r.m->attn_dropout.training && r.m->args.dropout > 0)
                       ? llama_attention_forward(&ev, r.x, r.freqs.cos, r.freqs.sin, NULL)
                       : output;
    Tensor *decoded = decode_run(&r, n, f.prefill_chunk, full, !narrate_quiet());
    narrate_why("each step projects one token, appends its k and v (turned at its own position) and reads "
                "the cache: T numbers of work per head, not T x T. Happy-LLM's generate() recomputes "
                "the whole prefix instead.");
    show_cache_bytes(r.m, t_size(r.x, 0));

    if (cached_output) output = decoded;
    if (narrate_quiet()) narrate_result("output", output);
    if (f.prefill_chunk > 0)
        narrate_result_text("prefill: %lld in chunks of %lld, decode: %lld steps, max |cached - full| = %.7f",
                            (long long)(T - n), (long long)f.prefill_chunk, (long long)n,
                            t_max_abs_diff(decoded, full));
    else if (f.decode_given)
        narrate_result_text("decode: %lld steps, max |cached - full| = %.7f", (long long)n,
                            t_max_abs_diff(decoded, full));
    if (args.dump) {
        npy_make_dir(args.dump);
        llama_save(&r, args.dump);                              /* x wq wk wv wo freqs_cos freqs_sin */
        npy_save_in(args.dump, "attn_weights", tr.attn_weights);  /* (bsz, n_heads, seqlen, seqlen) */
        npy_save_in(args.dump, "output", output);               /* (bsz, seqlen, dim) */
    }
    if (args.output) npy_save(args.output, output);
    t_scope_end();
    return 0;
}
