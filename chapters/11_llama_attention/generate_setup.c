/* generate_setup.c — chapter 11's --generate run. The training loop is chapter 10's,
 * kept short here (chapter 10's own loop is in its main.c, not exported). */
#include <stdio.h>
#include <string.h>

#include "generate_setup.h"
#include "chapters/08_fast_attention/fast_attention.h"

static const char *const TOKEN_NAMES[GEN_VOCAB] = {"A", "B", "C", "D", "E", "F", "G", "H"};

TinyModel *train_tiny_model(uint64_t seed, int64_t steps) {
    enum { BATCH = 32 };
    t_manual_seed(seed);
    TinyModel *model = tiny_model_new(GEN_VOCAB, GEN_SEQ_LEN, GEN_DIM, GEN_HEADS);
    ParamList params = tiny_params(model);
    Adam *opt = adam_new(&params, 0.001);
    Rng data;
    rng_seed(&data, seed);
    for (int64_t step = 0; step < steps; step++) {
        t_scope_begin();
        int32_t batch[BATCH * GEN_SEQ_LEN];
        for (int i = 0; i < BATCH * GEN_SEQ_LEN; i++) batch[i] = (int32_t)rng_randint(&data, 0, GEN_VOCAB);
        TinyCache c;
        Tensor *dlogits;
        task_loss(tiny_forward(model, batch, BATCH, &c), batch, &dlogits);   /* loss = F.cross_entropy(...) */
        ParamList grads = tiny_backward(model, &c, dlogits);               /* loss.backward()            */
        adam_step(opt, &grads);                                            /* optimizer.step()           */
        t_scope_end();
    }
    return model;
}

int parse_prompt(const char *text, int32_t *ids, char *err, size_t errlen) {
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
        if (n == GEN_SEQ_LEN) {
            snprintf(err, errlen, "--prompt: more than %d tokens, the model's seq_len", GEN_SEQ_LEN);
            return -1;
        }
        ids[n++] = (int32_t)id;
        p += len;
    }
    if (n == 0) snprintf(err, errlen, "--prompt: no tokens (give e.g. \"D A\")");
    return n > 0 ? n : -1;
}

int run_generate(const Args *args, const char *prompt, int64_t tokens) {
    int32_t ids[GEN_SEQ_LEN], cached[GEN_SEQ_LEN + 64], plain[GEN_SEQ_LEN + 64];
    char err[160];
    int n = parse_prompt(prompt, ids, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "chapter11: %s (see --help)\n", err);
        return EXIT_USAGE;
    }
    narrate_title("Chapter 11: generating with the KV cache (chapter 10's tiny model)");
    narrate_step("Train chapter 10's tiny model: output the token two places back");
    narrate_torch("x = tok_emb(idx) + pos_emb(arange(T)); logits = head(attn(x))   # chapter 10");
    TinyModel *model = train_tiny_model(args->seed, 400);
    narrate_say("400 Adam steps, seed %llu: vocab A..H, seq_len %d, dim %d, %d heads", (unsigned long long)args->seed,
                GEN_SEQ_LEN, GEN_DIM, GEN_HEADS);
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
            printf("    token %lld: %s   (%s, %.3f ms with the cache; without it: %s)\n", (long long)(i + 1),
                   TOKEN_NAMES[cached[len]], i == 0 ? "prefill" : "one step", 1e3 * dt, TOKEN_NAMES[plain[len]]);
    }
    char text[3 * (GEN_SEQ_LEN + 64)] = "";
    for (int64_t i = 0; i < n + tokens; i++) strcat(strcat(text, i ? " " : ""), TOKEN_NAMES[cached[i]]);
    narrate_why("position t learned to output the token at t - 2; read as the next token (position t + 1), "
                "each new token copies the one three places back, so the prompt's pattern repeats with period 3 "
                "(the first new token comes from position 1, which the task never trained). With the cache each "
                "token costs one position; without it, the whole prefix.");
    narrate_result_text("generated: %s", text);
    narrate_result_text("with the cache == without it: %s", same ? "yes" : "no");
    return same ? EXIT_OK : EXIT_RUNTIME;
}
