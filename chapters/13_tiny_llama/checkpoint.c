/* checkpoint.c — chapter 13: llama2.c's .bin (version 0) and tokenizer.bin, read with every
 * field checked and written in the same layout (run.c's memory_map_weights order). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checkpoint.h"

#define HEADER_BYTES 28   /* sizeof(Config): seven int32 */

static int32_t le32(const unsigned char *b) {
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

static void put32(unsigned char *b, uint32_t v) {
    b[0] = (unsigned char)v, b[1] = (unsigned char)(v >> 8), b[2] = (unsigned char)(v >> 16),
    b[3] = (unsigned char)(v >> 24);
}

static float lef32(const unsigned char *b) {
    uint32_t u = (uint32_t)le32(b);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

double llama2c_file_bytes(const LlamaConfig *c) {
    double D = (double)c->dim, L = (double)c->n_layers, V = (double)c->vocab_size, Hd = (double)c->hidden_dim;
    double hs = D / (double)c->n_heads, kv = (double)c->n_kv_heads * hs;
    double floats = V * D                       /* token_embedding_table          */
                    + L * D * 2                 /* rms_att_weight, rms_ffn_weight */
                    + L * D * D * 2             /* wq, wo                         */
                    + L * D * kv * 2            /* wk, wv                         */
                    + L * D * Hd * 3            /* w1, w2, w3                     */
                    + D                         /* rms_final_weight               */
                    + (double)c->max_seq_len * hs   /* freq_cis_real + freq_cis_imag (seq_len * head_size / 2 each) */
                    + (c->shared ? 0 : V * D);  /* wcls                           */
    return HEADER_BYTES + 4 * floats;
}

/* ---- reading the .bin --------------------------------------------------------------------- */

typedef struct {
    FILE *f;
    const char *path;
    double got, need;        /* bytes read so far, bytes the header says */
} Reader;

/* Read n floats into dst (or skip them when dst is NULL); a short file is the sentence. */
static void read_floats(Reader *r, float *dst, int64_t n, const char *what) {
    unsigned char buf[4096];
    int64_t done = 0;
    while (done < n) {
        size_t want = (size_t)((n - done) * 4 < (int64_t)sizeof buf ? (n - done) * 4 : (int64_t)sizeof buf);
        size_t k = fread(buf, 1, want, r->f);
        r->got += (double)k;
        if (k != want) {
            if (ferror(r->f)) t_error(t_tr("%s: reading %s: %s"), r->path, what, t_strerror(errno));
            t_error(t_tr("%s: the file is truncated: its header says %.0f bytes, but it ends after %.0f (in %s)"),
                    r->path, r->need, r->got, what);
        }
        for (size_t i = 0; i + 3 < k; i += 4, done++) {
            if (!dst) continue;
            float v = lef32(buf + i);
            if (!isfinite(v))
                t_error(t_tr("%s: %s holds %s at element %lld: a checkpoint's weights must be finite numbers"),
                        r->path, what, isnan(v) ? "NaN" : t_tr("an infinity"), (long long)done);
            dst[done] = v;
        }
    }
}

static void read_into(Reader *r, Tensor *t, const char *what) { read_floats(r, t_data(t), t_numel(t), what); }

Transformer *llama2c_load(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) t_error(t_tr("%s: cannot open the checkpoint: %s"), path, t_strerror(errno));
    unsigned char hb[HEADER_BYTES];
    size_t k = fread(hb, 1, HEADER_BYTES, f);
    if (k != HEADER_BYTES) {
        fclose(f);
        t_error(t_tr("%s: the file is %zu bytes, shorter than llama2.c's 28-byte header (seven int32)"), path, k);
    }
    Llama2cHeader h = {le32(hb), le32(hb + 4), le32(hb + 8), le32(hb + 12), le32(hb + 16), le32(hb + 20),
                       le32(hb + 24)};
    if (h.vocab_size == 0 || h.vocab_size == INT32_MIN) {
        fclose(f);
        t_error(t_tr("%s: the header's vocab_size is %d; it must be the vocabulary's size, positive when the "
                     "output head is tied to tok_embeddings, negative when it is not"),
                path, h.vocab_size);
    }
    LlamaConfig c = {h.dim, h.hidden_dim, h.n_layers, h.n_heads, h.n_kv_heads,
                     h.vocab_size < 0 ? -(int64_t)h.vocab_size : h.vocab_size, h.seq_len, h.vocab_size > 0, 1e-5};
    char what[600];
    snprintf(what, sizeof what, t_tr("%s: the header"), path);
    /* check_llama_config exits through t_error: close first on any of its failures */
    if (c.dim < 1 || c.hidden_dim < 1 || c.n_layers < 1 || c.n_heads < 1 || c.n_kv_heads < 1 || c.max_seq_len < 1 ||
        c.n_heads % c.n_kv_heads != 0 || c.dim % c.n_heads != 0 || (c.dim / c.n_heads) % 2 != 0)
        fclose(f), f = NULL;
    check_llama_config(what, &c);
    Reader r = {f, path, HEADER_BYTES, llama2c_file_bytes(&c)};
    /* the whole model must fit before anything is read */
    double bytes = r.need - HEADER_BYTES;
    if (bytes > (double)t_max_bytes()) {
        char a[32], b[32];
        fclose(f);
        t_format_bytes_over(bytes, (double)t_max_bytes(), a, b, sizeof a);
        t_error(t_tr("%s: the header (dim %d, hidden_dim %d, n_layers %d, vocab_size %d) needs %s of weights, over the "
                "memory limit of %s (ATTN_MAX_BYTES)"), path, h.dim, h.hidden_dim, h.n_layers, h.vocab_size, a, b);
    }
    Transformer *m = transformer_new(c);
    read_into(&r, m->tok_embeddings, "tok_embeddings");
    for (int64_t l = 0; l < c.n_layers; l++) read_into(&r, m->layers[l].attention_norm, "attention_norm");
    for (int64_t l = 0; l < c.n_layers; l++) read_into(&r, m->layers[l].attention->wq->weight, "wq");
    for (int64_t l = 0; l < c.n_layers; l++) read_into(&r, m->layers[l].attention->wk->weight, "wk");
    for (int64_t l = 0; l < c.n_layers; l++) read_into(&r, m->layers[l].attention->wv->weight, "wv");
    for (int64_t l = 0; l < c.n_layers; l++) read_into(&r, m->layers[l].attention->wo->weight, "wo");
    for (int64_t l = 0; l < c.n_layers; l++) read_into(&r, m->layers[l].ffn_norm, "ffn_norm");
    for (int64_t l = 0; l < c.n_layers; l++) read_into(&r, m->layers[l].w1->weight, "w1");
    for (int64_t l = 0; l < c.n_layers; l++) read_into(&r, m->layers[l].w2->weight, "w2");
    for (int64_t l = 0; l < c.n_layers; l++) read_into(&r, m->layers[l].w3->weight, "w3");
    read_into(&r, m->norm, "norm");
    /* ptr += p->seq_len * head_size / 2, twice: what used to be freq_cis_real and freq_cis_imag */
    read_floats(&r, NULL, c.max_seq_len * m->head_dim, t_tr("freq_cis_real and freq_cis_imag"));
    if (!c.shared) read_into(&r, m->output->weight, "output (wcls)");
    int extra = fgetc(f);
    fclose(f);
    if (extra != EOF)
        t_error(t_tr("%s: the file is longer than its header says (%.0f bytes): the header does not describe these "
                     "weights"), path, r.need);
    return m;
}

/* ---- writing the .bin ----------------------------------------------------------------------- */

static int write_floats(FILE *f, const Tensor *t) {
    unsigned char buf[4096];
    const float *d = t_data(t_contiguous(t));
    int64_t n = t_numel(t), i = 0;
    while (i < n) {
        size_t k = 0;
        for (; k + 4 <= sizeof buf && i < n; k += 4, i++) {
            uint32_t u;
            memcpy(&u, &d[i], 4);
            put32(buf + k, u);
        }
        if (fwrite(buf, 1, k, f) != k) return errno ? errno : EIO;
    }
    return 0;
}

int llama2c_write(FILE *f, const Transformer *m) {
    const LlamaConfig *c = &m->args;
    int32_t vocab = (int32_t)(c->shared ? c->vocab_size : -c->vocab_size);
    int32_t h[7] = {(int32_t)c->dim, (int32_t)c->hidden_dim, (int32_t)c->n_layers, (int32_t)c->n_heads,
                    (int32_t)c->n_kv_heads, vocab, (int32_t)c->max_seq_len};
    unsigned char hb[HEADER_BYTES];
    for (int i = 0; i < 7; i++) put32(hb + 4 * i, (uint32_t)h[i]);
    if (fwrite(hb, 1, sizeof hb, f) != sizeof hb) return errno ? errno : EIO;
    int e = write_floats(f, m->tok_embeddings);
    for (int part = 0; part < 9 && !e; part++)
        for (int64_t l = 0; l < c->n_layers && !e; l++) {
            const DecoderLayer *L = &m->layers[l];
            const Tensor *w[9] = {L->attention_norm, L->attention->wq->weight, L->attention->wk->weight,
                                  L->attention->wv->weight, L->attention->wo->weight, L->ffn_norm,
                                  L->w1->weight, L->w2->weight, L->w3->weight};
            e = write_floats(f, w[part]);
        }
    if (!e) e = write_floats(f, m->norm);
    /* serialize_fp32(out_file, model.freqs_cos[:p.max_seq_len]); and freqs_sin */
    if (!e) e = write_floats(f, m->freqs.cos);
    if (!e) e = write_floats(f, m->freqs.sin);
    if (!e && !c->shared) e = write_floats(f, m->output->weight);
    return e;
}

/* ---- tokenizer.bin -------------------------------------------------------------------------- */

Tokenizer *tokenizer_load(const char *path, int64_t vocab_size) {
    FILE *f = fopen(path, "rb");
    if (!f) t_error(t_tr("%s: cannot open the tokenizer: %s"), path, t_strerror(errno));
    unsigned char b[8];
    if (fread(b, 1, 4, f) != 4) {
        fclose(f);
        t_error(t_tr("%s: the file is shorter than tokenizer.bin's 4-byte max_token_length"), path);
    }
    Tokenizer *t = (Tokenizer *)t_alloc(sizeof *t);
    t->vocab_size = (int32_t)vocab_size;
    t->max_token_length = le32(b);
    if (t->max_token_length < 1 || t->max_token_length > 65536) {
        fclose(f);
        t_error(t_tr("%s: max_token_length is %d; a tokenizer.bin's is between 1 and 65536"), path,
                t->max_token_length);
    }
    t->vocab = (char **)t_alloc(sizeof *t->vocab * (size_t)vocab_size);
    t->lens = (int32_t *)t_alloc(sizeof *t->lens * (size_t)vocab_size);
    t->scores = (float *)t_alloc(sizeof *t->scores * (size_t)vocab_size);
    for (int64_t i = 0; i < vocab_size; i++) {
        if (fread(b, 1, 8, f) != 8) {
            fclose(f);
            t_error(t_tr("%s: the file ends at token %lld, but the checkpoint's vocab_size is %lld"), path,
                    (long long)i, (long long)vocab_size);
        }
        t->scores[i] = lef32(b);
        int32_t len = le32(b + 4);
        if (len < 0 || len > t->max_token_length) {
            fclose(f);
            t_error(t_tr("%s: token %lld has length %d, outside 0..max_token_length = %d"), path, (long long)i, len,
                    t->max_token_length);
        }
        t->lens[i] = len;
        t->vocab[i] = (char *)t_alloc((size_t)len + 1);
        if (fread(t->vocab[i], 1, (size_t)len, f) != (size_t)len) {
            fclose(f);
            t_error(t_tr("%s: the file ends inside token %lld's %d bytes"), path, (long long)i, len);
        }
        if (memchr(t->vocab[i], 0, (size_t)len)) {
            fclose(f);
            t_error(t_tr("%s: token %lld holds a NUL byte, which no piece of llama2.c's tokenizer holds"), path,
                    (long long)i);
        }
    }
    int extra = fgetc(f);
    fclose(f);
    if (extra != EOF)
        t_error(t_tr("%s: the file has bytes after its %lld tokens: it belongs to a model of another vocab_size"), path,
                (long long)vocab_size);
    return t;
}

int tokenizer_write(FILE *f, const Tokenizer *t) {
    unsigned char b[8];
    put32(b, (uint32_t)t->max_token_length);
    if (fwrite(b, 1, 4, f) != 4) return errno ? errno : EIO;
    for (int32_t i = 0; i < t->vocab_size; i++) {
        uint32_t u;
        memcpy(&u, &t->scores[i], 4);
        put32(b, u);
        put32(b + 4, (uint32_t)t->lens[i]);
        if (fwrite(b, 1, 8, f) != 8 || fwrite(t->vocab[i], 1, (size_t)t->lens[i], f) != (size_t)t->lens[i])
            return errno ? errno : EIO;
    }
    return 0;
}

int32_t tokenizer_lookup(const Tokenizer *t, const char *piece, size_t len) {
    for (int32_t i = 0; i < t->vocab_size; i++)
        if ((size_t)t->lens[i] == len && memcmp(t->vocab[i], piece, len) == 0) return i;
    return -1;
}

/* ---- llama2.c's BPE encode and decode -------------------------------------------------------- */

int32_t *bpe_encode(const Tokenizer *t, const char *text, bool bos, int64_t *n) {
    size_t len = strlen(text);
    int32_t *tokens = (int32_t *)t_alloc(sizeof *tokens * (len + 2));
    char *buf = (char *)t_alloc((size_t)t->max_token_length * 2 + 8);
    int64_t k = 0;
    if (bos) tokens[k++] = 1;                                     /* if (bos) tokens[(*n_tokens)++] = 1 */
    if (len > 0) {                                                /* the dummy prefix */
        int32_t prefix = tokenizer_lookup(t, " ", 1);
        if (prefix >= 0) tokens[k++] = prefix;   /* run.c stores -1 when " " is no piece; here it is left out */
    }
    for (size_t i = 0; i < len;) {
        size_t cl = 1;                                  /* one UTF-8 character: a byte and its continuations */
        while (i + cl < len && cl < 4 && ((unsigned char)text[i + cl] & 0xc0) == 0x80) cl++;
        int32_t id = tokenizer_lookup(t, text + i, cl);
        if (id >= 0) {
            tokens[k++] = id;
        } else {                                                  /* byte fallback: <0xXX> is id byte + 3 */
            for (size_t j = 0; j < cl; j++) {
                int32_t b = (int32_t)(unsigned char)text[i + j] + 3;
                if (b >= t->vocab_size)
                    t_error(t_tr("--prompt: the tokenizer has no piece for byte 0x%02X and no byte pieces (ids "
                                 "3..258)"), (unsigned)(unsigned char)text[i + j]);
                tokens[k++] = b;
            }
        }
        i += cl;
    }
    for (;;) {                                                    /* merge the best pair, again and again */
        float best_score = -1e10f;
        int32_t best_id = -1;
        int64_t best_idx = -1;
        for (int64_t i = 0; i + 1 < k; i++) {
            size_t a = (size_t)t->lens[tokens[i]], b = (size_t)t->lens[tokens[i + 1]];
            if (a + b > (size_t)t->max_token_length) continue;    /* no piece is that long */
            memcpy(buf, t->vocab[tokens[i]], a);
            memcpy(buf + a, t->vocab[tokens[i + 1]], b);
            int32_t id = tokenizer_lookup(t, buf, a + b);
            if (id != -1 && t->scores[id] > best_score) best_score = t->scores[id], best_id = id, best_idx = i;
        }
        if (best_idx == -1) break;
        tokens[best_idx] = best_id;
        for (int64_t i = best_idx + 1; i + 1 < k; i++) tokens[i] = tokens[i + 1];
        k--;
    }
    *n = k;
    return tokens;
}

const char *bpe_decode(const Tokenizer *t, int32_t prev, int32_t token) {
    const char *piece = t->vocab[token];
    if (prev == 1 && piece[0] == ' ') piece++;                    /* after BOS, no leading space */
    unsigned hi, lo;
    if (strlen(piece) == 6 && piece[0] == '<' && piece[1] == '0' && piece[2] == 'x' && piece[5] == '>' &&
        sscanf(piece + 3, "%1x%1x", &hi, &lo) == 2) {
        char *b = (char *)t_alloc(2);
        b[0] = (char)(hi * 16 + lo);
        return b;
    }
    return piece;
}
