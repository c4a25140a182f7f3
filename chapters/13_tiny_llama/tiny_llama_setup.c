/* tiny_llama_setup.c — chapter 13's files: --batch-tokens (int32 .npy), --tokens, and the
 * checkpoint and tokenizer written through common/program/out.h (whole or not at all). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiny_llama_setup.h"

#define MAX_BATCH_FILE (16 * 1024 * 1024)

int32_t *load_batch_tokens(const char *path, int64_t vocab, int64_t *bsz, int64_t *cols) {
    FILE *f = fopen(path, "rb");
    if (!f) t_error(t_tr("%s: cannot open the batch: %s"), path, t_strerror(errno));
    unsigned char *buf = (unsigned char *)t_alloc(MAX_BATCH_FILE + 1);
    size_t len = fread(buf, 1, MAX_BATCH_FILE + 1, f);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) t_error(t_tr("%s: reading the batch failed"), path);
    if (len > MAX_BATCH_FILE) t_error(t_tr("%s: the batch file is over 16 MiB; a batch of token ids is smaller"), path);
    /* The header's dtype must be '<i4'. npy_parse reads only floats, and int32 and float32 are
     * both 4 bytes: the same header with '<f4' describes the same bytes, read as they are, and
     * each 4-byte element is then taken back as the int32 it is. */
    size_t hl = len >= 10 ? 10 + ((size_t)buf[8] | (size_t)buf[9] << 8) : 0;
    char *d = NULL;
    if (len >= 10 && memcmp(buf, "\x93NUMPY\x01", 7) == 0 && hl <= len) {
        for (size_t i = 10; i + 4 <= hl && !d; i++)
            if (memcmp(buf + i, "'<i4'", 5) == 0 || memcmp(buf + i, "\"<i4\"", 5) == 0) d = (char *)buf + i + 1;
    }
    if (!d)
        t_error(t_tr("%s: --batch-tokens needs a version 1.0 .npy of int32 ('<i4'), as np.save(F, np.asarray(b, "
                "dtype=np.int32)) writes"), path);
    d[1] = 'f';
    Tensor *t;
    char err[300];
    if (npy_parse(buf, len, &t, err, sizeof err) != 0) t_error("%s: %s", path, err);
    char ss[T_SHAPE_STR];
    if (t->ndim != 2 || t->shape[1] < 2 || t->shape[0] < 1)
        t_error(t_tr("%s: the batch has shape %s; it must be (B, T + 1) with B >= 1 and T >= 1: inputs [:, :-1], "
                "targets [:, 1:]"), path, t_shape_str(t, ss));
    int64_t n = t_numel(t);
    int32_t *ids = (int32_t *)t_alloc(sizeof *ids * (size_t)n);
    memcpy(ids, t_data(t_contiguous(t)), sizeof *ids * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= vocab)
            t_error(t_tr("%s: element %lld is %d, outside the model's vocabulary 0..%lld"), path, (long long)i, ids[i],
                    (long long)(vocab - 1));
    *bsz = t->shape[0], *cols = t->shape[1];
    return ids;
}

bool parse_token_list(const char *text, int32_t **ids, int64_t *n) {
    int64_t count = 1;
    for (const char *p = text; *p; p++) count += *p == ',';
    int32_t *out = (int32_t *)t_alloc(sizeof *out * (size_t)count);
    const char *p = text;
    for (int64_t i = 0; i < count; i++) {
        long long v = 0;
        int digits = 0;
        while (*p >= '0' && *p <= '9' && v < 2000000000LL) v = v * 10 + (*p++ - '0'), digits++;
        if (!digits || v >= 2000000000LL || (*p != ',' && *p != '\0')) return false;
        if (*p == ',') p++;
        out[i] = (int32_t)v;
    }
    *ids = out, *n = count;
    return true;
}

void save_checkpoint(const char *path, const Transformer *m) {
    OutFile *f = out_open(path);
    out_close(f, llama2c_write(out_stream(f), m));
}

void save_tokenizer(const char *path, const Tokenizer *t) {
    OutFile *f = out_open(path);
    out_close(f, tokenizer_write(out_stream(f), t));
}

char *read_whole_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) t_error(t_tr("%s: cannot open: %s"), path, t_strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = (char *)malloc(cap);
    for (size_t k; buf && (k = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += k;
        if (n == cap) {
            char *more = cap < ((size_t)1 << 30) ? (char *)realloc(buf, cap * 2) : NULL;
            if (!more) free(buf);
            buf = more, cap *= 2;
        }
    }
    bool bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        t_error(t_tr("%s: reading failed (or the file is over 1 GiB)"), path);
    }
    char *out = (char *)t_alloc(n + 1);   /* owned by the scope, as everything else */
    memcpy(out, buf, n);
    free(buf);
    *len = n;
    return out;
}

char *tok_path_of(const char *bin_path) {
    size_t n = strlen(bin_path);
    char *out = (char *)t_alloc(n + 5);
    memcpy(out, bin_path, n);
    if (n > 4 && strcmp(bin_path + n - 4, ".bin") == 0) n -= 4;
    memcpy(out + n, ".tok", 5);
    return out;
}

char *state_path_of(const char *bin_path) {
    size_t n = strlen(bin_path);
    char *out = (char *)t_alloc(n + 7);
    memcpy(out, bin_path, n);
    if (n > 4 && strcmp(bin_path + n - 4, ".bin") == 0) n -= 4;
    memcpy(out + n, ".state", 7);
    return out;
}

/* ---- the training state (OUT.state) ------------------------------------------------------------- */

#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * FNV_PRIME;
    return h;
}

uint64_t hash_text(const int32_t *cps, int64_t n) { return fnv(FNV_OFFSET, cps, sizeof *cps * (size_t)n); }

static uint64_t hash_weights(const Transformer *m) {
    uint64_t h = FNV_OFFSET;
    for (int i = 0; i < m->n_params; i++)
        h = fnv(h, t_data(m->params[i].p), sizeof(float) * (size_t)t_numel(m->params[i].p));
    return h;
}

static int64_t numel_of(const Transformer *m) {
    int64_t n = 0;
    for (int i = 0; i < m->n_params; i++) n += t_numel(m->params[i].p);
    return n;
}

static const char STATE_MAGIC[8] = {'C', 'H', '1', '3', 'S', 'T', '0', '1'};

static int write_state(FILE *f, const AdamW *o, const Transformer *m, const RunId *id) {
    const Rng *r = t_default_rng();
    int64_t head[9] = {id->steps, id->batch, id->seq_len, (int64_t)id->seed, id->text_n, (int64_t)id->text_hash,
                       m->n_params, numel_of(m), (int64_t)hash_weights(m)};
    int32_t next = r->next, has = r->has_next_normal;
    uint64_t seed = r->seed;
    bool ok = fwrite(STATE_MAGIC, 1, 8, f) == 8 && fwrite(head, sizeof head, 1, f) == 1 &&
              fwrite(&o->step, sizeof o->step, 1, f) == 1 && fwrite(r->state, sizeof r->state, 1, f) == 1 &&
              fwrite(&next, 4, 1, f) == 1 && fwrite(&seed, 8, 1, f) == 1 && fwrite(&has, 4, 1, f) == 1 &&
              fwrite(&r->next_normal, 8, 1, f) == 1;
    for (int k = 0; k < 2 && ok; k++)
        for (int i = 0; i < m->n_params && ok; i++) {
            const Tensor *t = (k ? o->v : o->m)[i];
            ok = fwrite(t_data(t), sizeof(float), (size_t)t_numel(t), f) == (size_t)t_numel(t);
        }
    return ok ? 0 : (errno ? errno : EIO);
}

void save_train_state(const char *path, const AdamW *opt, const Transformer *m, const RunId *id) {
    OutFile *f = out_open(path);
    out_close(f, write_state(out_stream(f), opt, m, id));
}

void load_train_state(const char *path, AdamW *o, const Transformer *m, const RunId *id) {
    size_t len;
    char *buf = read_whole_file(path, &len);
    int64_t numel = numel_of(m);
    size_t fixed = 8 + 9 * 8 + 8 + RNG_MT_N * 4 + 4 + 8 + 4 + 8;
    if (len < fixed || memcmp(buf, STATE_MAGIC, 8) != 0)
        t_error(t_tr("%s: not a training state of this chapter (it begins with CH13ST01 and is at least %zu bytes)"),
                path, fixed);
    int64_t head[9];
    memcpy(head, buf + 8, sizeof head);
    static const char *const what[6] = {"--train-steps", "batch", "seq_len", "--seed", "text length", "text"};
    int64_t want[6] = {id->steps, id->batch, id->seq_len, (int64_t)id->seed, id->text_n, (int64_t)id->text_hash};
    for (int k = 0; k < 6; k++)
        if (head[k] != want[k]) {
            if (k == 5)
                t_error(t_tr("%s: the state is of a run on another text (same length, other characters); resume with "
                        "the corpus it was trained on"), path);
            t_error(t_tr("%s: the state is of a run with %s %lld, this run has %lld; resume with the flags it was "
                    "started with"), path, t_tr(what[k]), (long long)head[k], (long long)want[k]);
        }
    if (head[6] != m->n_params || head[7] != numel)
        t_error(t_tr("%s: the state holds %lld tensors of %lld numbers, the model %d of %lld"), path,
                (long long)head[6], (long long)head[7], m->n_params, (long long)numel);
    if (len != fixed + 2 * sizeof(float) * (size_t)numel)
        t_error(t_tr("%s: the file is %zu bytes, a state of this model is %zu (truncated or longer)"), path, len,
                fixed + 2 * sizeof(float) * (size_t)numel);
    if ((uint64_t)head[8] != hash_weights(m))
        t_error(t_tr("%s: the state is not of the weights in the checkpoint beside it (another run wrote it since); "
                "train again without --resume"), path);
    const char *p = buf + 8 + sizeof head;
    Rng *r = t_default_rng();
    int32_t next, has;
    uint64_t seed;
    memcpy(&o->step, p, 8), p += 8;
    memcpy(r->state, p, sizeof r->state), p += sizeof r->state;
    memcpy(&next, p, 4), p += 4;
    memcpy(&seed, p, 8), p += 8;
    memcpy(&has, p, 4), p += 4;
    memcpy(&r->next_normal, p, 8), p += 8;
    if (o->step < 0 || o->step > id->steps || next < 0 || next > RNG_MT_N)
        t_error(t_tr("%s: the state's step %lld or generator position %d is out of range"), path, (long long)o->step,
                next);
    r->next = next, r->seed = seed, r->has_next_normal = has != 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < m->n_params; i++) {
            Tensor *t = (k ? o->v : o->m)[i];
            memcpy(t_data(t), p, sizeof(float) * (size_t)t_numel(t));
            p += sizeof(float) * (size_t)t_numel(t);
        }
}
