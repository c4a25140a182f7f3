/* generate_setup.c — chapter 11's --generate run: chapter 10's trained model from the
 * folder of its --train --dump, then greedy generation with and without the cache. */
#include <stdio.h>
#include <string.h>

#include "generate_setup.h"
#include "chapters/08_fast_attention/fast_attention.h"

static const char *const TOKEN_NAMES[GEN_VOCAB] = {"A", "B", "C", "D", "E", "F", "G", "H"};

int parse_prompt(const char *text, int32_t *ids, int max_tokens, char *err, size_t errlen) {
    int n = 0;
    const char *p = text;
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        size_t len = strcspn(p, " ");
        int id = -1;
        for (int v = 0; v < GEN_VOCAB; v++)
            if (len == 1 && p[0] == TOKEN_NAMES[v][0]) id = v;
        if (id < 0) {
            snprintf(err, errlen, "--prompt: '%.*s' is not a token; the tiny model knows A B C D E F G H",
                     (int)(len < 20 ? len : 20), p);
            return -1;
        }
        if (n == max_tokens) {
            snprintf(err, errlen, "--prompt: more than %d tokens, the model's seq_len", max_tokens);
            return -1;
        }
        ids[n++] = (int32_t)id;
        p += len;
    }
    if (n == 0) snprintf(err, errlen, "--prompt: no tokens (give e.g. \"D A\")");
    return n > 0 ? n : -1;
}

int run_generate(const char *dir, const char *prompt, int64_t tokens) {
    int32_t ids[GEN_SEQ_LEN], cached[GEN_SEQ_LEN + 64], plain[GEN_SEQ_LEN + 64];
    char err[160];
    int n = parse_prompt(prompt, ids, GEN_SEQ_LEN, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "chapter11: %s (see --help)\n", err);
        return EXIT_USAGE;
    }
    /* the last new token is never fed back: n + tokens - 1 positions go through the model and its
     * cache, which hold seq_len (Happy-LLM's generate() crops idx instead: a fixed cache cannot) */
    if (n + tokens - 1 > GEN_SEQ_LEN) {
        fprintf(stderr, "chapter11: --tokens %lld after a prompt of %d tokens would feed the model %lld positions, past "
                        "the %d its position embeddings and KV cache hold (at most --tokens %d here) (see --help)\n",
                (long long)tokens, n, (long long)(n + tokens - 1), GEN_SEQ_LEN, GEN_SEQ_LEN + 1 - n);
        return EXIT_USAGE;
    }
    TinyModel *model = tiny_model_load(dir);   /* model.load_state_dict(...): chapter 10's files */
    if (model->vocab != GEN_VOCAB || model->seq_len != GEN_SEQ_LEN)
        t_error("%s: a model of vocab %lld and seq_len %lld; --generate knows chapter 10's tokens A..H and "
                "sequences of %d", dir, (long long)model->vocab, (long long)model->seq_len, GEN_SEQ_LEN);
    narrate_title("Chapter 11: generating with the KV cache (chapter 10's tiny model)");
    narrate_step("Load chapter 10's trained model: it outputs the token two places back");
    narrate_torch("model.load_state_dict(...)   # build/chapter10 --train --dump DIR");
    narrate_torch("x = tok_emb(idx) + pos_emb(arange(T)); logits = head(attn(x))   # chapter 10");
    narrate_say("from %s: vocab A..H, seq_len %lld, dim %lld, %lld heads", dir, (long long)model->seq_len,
                (long long)model->dim, (long long)model->n_heads);
    narrate_step("Greedy generation: prefill the prompt, then one position per token");
    narrate_torch("logits = self(idx_cond).logits[:, -1, :]; idx_next = torch.topk(logits, k=1)[1]");
    memcpy(cached, ids, sizeof(int32_t) * (size_t)n);
    memcpy(plain, ids, sizeof(int32_t) * (size_t)n);
    KVCache *c = tiny_cache_new(model);
    bool same = true;
    for (int64_t i = 0; i < tokens; i++) {
        int64_t len = n + i;
        double t0 = stopwatch_seconds();
        cached[len] = i == 0 ? tiny_next_cached(model, c, cached, len)              /* prefill the prompt */
                             : tiny_next_cached(model, c, cached + len - 1, 1);   /* one new position   */
        double dt = stopwatch_seconds() - t0;
        plain[len] = tiny_next_recompute(model, plain, len);   /* the whole prefix again */
        same = same && plain[len] == cached[len];
        if (!narrate_quiet())
            printf(tr("    token %lld: %s   (%s, %.3f ms with the cache; without it: %s)\n"), (long long)(i + 1),
                   TOKEN_NAMES[cached[len]], tr(i == 0 ? "prefill" : "one step"), 1e3 * dt, TOKEN_NAMES[plain[len]]);
    }
    char text[3 * (GEN_SEQ_LEN + 64)] = "";
    for (int64_t i = 0; i < n + tokens; i++) strcat(strcat(text, i ? " " : ""), TOKEN_NAMES[cached[i]]);
    narrate_why("position t learned to output the token at t - 2; read as the next token (position t + 1), "
                "each new token copies the one three places back, so the prompt's pattern repeats with period 3 "
                "(the first new token comes from position 1, which the task never trained). With the cache each "
                "token costs one position; without it, the whole prefix.");
    narrate_result_text("generated: %s", text);
    narrate_result_text("with the cache == without it: %s", tr(same ? "yes" : "no"));
    return same ? EXIT_OK : EXIT_RUNTIME;
}
