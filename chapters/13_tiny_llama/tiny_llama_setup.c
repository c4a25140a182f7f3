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
    if (!f) t_error("%s: cannot open the batch: %s", path, strerror(errno));
    unsigned char *buf = (unsigned char *)t_alloc(MAX_BATCH_FILE + 1);
    size_t len = fread(buf, 1, MAX_BATCH_FILE + 1, f);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) t_error("%s: reading the batch failed", path);
    if (len > MAX_BATCH_FILE) t_error("%s: the batch file is over 16 MiB; a batch of token ids is smaller", path);
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
        t_error("%s: --batch-tokens needs a version 1.0 .npy of int32 ('<i4'), as np.save(F, np.asarray(b, "
                "dtype=np.int32)) writes", path);
    d[1] = 'f';
    Tensor *t;
    char err[300];
    if (npy_parse(buf, len, &t, err, sizeof err) != 0) t_error("%s: %s", path, err);
    char ss[T_SHAPE_STR];
    if (t->ndim != 2 || t->shape[1] < 2 || t->shape[0] < 1)
        t_error("%s: the batch has shape %s; it must be (B, T + 1) with B >= 1 and T >= 1: inputs [:, :-1], "
                "targets [:, 1:]", path, t_shape_str(t, ss));
    int64_t n = t_numel(t);
    int32_t *ids = (int32_t *)t_alloc(sizeof *ids * (size_t)n);
    memcpy(ids, t_data(t_contiguous(t)), sizeof *ids * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= vocab)
            t_error("%s: element %lld is %d, outside the model's vocabulary 0..%lld", path, (long long)i, ids[i],
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
    if (!f) t_error("%s: cannot open: %s", path, strerror(errno));
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
        t_error("%s: reading failed (or the file is over 1 GiB)", path);
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
