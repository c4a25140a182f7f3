/* inspect.h — chapter 13: generation through chapter 11's KV cache, and what each head learned.
 *
 * Generation: the prompt is prefilled through every layer's cache (chapter 11's
 * llama_attention_step), then each new token is one step of one position; the next token is
 * the argmax (temperature 0), or drawn from softmax(logits / temperature), cut to the smallest
 * set of tokens whose probabilities add up to top_p (nucleus sampling):
 *
 *     probs = torch.softmax(logits / temperature, dim=-1)
 *     probs_sort, probs_idx = torch.sort(probs, descending=True)
 *     mask = torch.cumsum(probs_sort, dim=-1) - probs_sort > top_p
 *     probs_sort[mask] = 0.0; probs_sort.div_(probs_sort.sum(dim=-1, keepdim=True))
 *     next_token = torch.gather(probs_idx, -1, torch.multinomial(probs_sort, num_samples=1))
 *
 * Head roles: over windows of a text, the attention weights of every head, and for each the
 * mean mass its queries put on (a) the previous character, (b) the character at the same place
 * in the previous line, (c) the one after it there: the place of the character the query must
 * predict (a causal model's query at place k predicts place k + 1, so a head that reads the
 * facing character of the previous line looks there), (d) the first character of the query's
 * own line, (e) punctuation;
 * beside each, what a head spreading its weight evenly over the keys it may see would put
 * there. A "line" is a run of characters between punctuation marks or line breaks (a 句 of a
 * poem: five or seven characters).
 */
#ifndef CH13_INSPECT_H
#define CH13_INSPECT_H

#include "tiny_llama.h"
#include "chapters/11_llama_attention/kv_cache.h"

/* One cache per layer, and the position the next token goes to. */
typedef struct {
    KVCache **caches;
    int64_t pos;
} ModelKV;

ModelKV *model_kv_new(const Transformer *m);
/* tokens[0..n) at positions pos..pos + n - 1 through the caches: logits of the last, (vocab,). */
Tensor *transformer_step(const Transformer *m, ModelKV *kv, const int32_t *tokens, int64_t n);
/* The next token from logits (vocab,): argmax when temperature is 0, else sampled (top_p in (0, 1]). */
int32_t sample_next(const Tensor *logits, double temperature, double top_p);
/* prompt (n >= 1 tokens), then n_new tokens into out; n + n_new <= max_seq_len. */
void generate(const Transformer *m, const int32_t *prompt, int64_t n, int64_t n_new, double temperature,
              double top_p, int32_t *out);

/* Is code point cp punctuation or a line break (， 。 ？ ！ ； ： 、 and ASCII's)? */
bool is_punct(int32_t cp);

/* The table's five places (ROLE_PREV .. ROLE_PUNCT), then same place and next place again,
 * split by how the line before ends: in a comma (， or ,: it is the first line of a couplet,
 * 联, and the query's line its second) or in another mark (。 ！ ？ ； a line break ...). */
enum { ROLE_PREV, ROLE_SAME_POS, ROLE_NEXT_POS, ROLE_LINE_START, ROLE_PUNCT, N_TABLE_ROLES,
       ROLE_SAME_IN = N_TABLE_ROLES, ROLE_NEXT_IN, ROLE_SAME_ACROSS, ROLE_NEXT_ACROSS, N_ROLES };
typedef struct {
    double mass[N_ROLES];      /* mean attention mass of the head's queries on each */
    double uniform[N_ROLES];   /* the same for a head spreading evenly over the keys it sees */
    int64_t queries[N_ROLES];  /* how many queries each mean is over */
} HeadRole;
/* mass over uniform: how many times an even spread the head puts on role k (0: no query) */
double head_role_ratio(const HeadRole *r, int k);

/* roles[l * n_heads + h] over windows of seq_len (at most max_windows) of ids, whose code
 * points are cps (for punctuation and lines). */
void head_roles(const Transformer *m, const int32_t *ids, const int32_t *cps, int64_t n, int64_t seq_len,
                int64_t max_windows, HeadRole *roles);

#endif
