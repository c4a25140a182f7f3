/* parallel_attention.c — chapter 9: who owns what, the weight shards, the
 * row-parallel output, one ring step and the cost model. No MPI here: the
 * program (main.c, parallel_attention_mpi.c) moves the data, this file says
 * what is computed with it, so tests/test_ch09.c can check every piece in one
 * process.
 */
#include "parallel_attention.h"

#include "chapters/12_flash_backward/flash_backward.h"

#include <math.h>
#include <string.h>

const char *parallel_mode_name(ParallelMode mode) {
    return mode == PARALLEL_HEADS ? "heads" : mode == PARALLEL_SEQUENCE ? "sequence" : "ulysses";
}

int parallel_mode_parse(const char *name) {
    if (strcmp(name, "heads") == 0) return PARALLEL_HEADS;
    if (strcmp(name, "sequence") == 0) return PARALLEL_SEQUENCE;
    if (strcmp(name, "ulysses") == 0) return PARALLEL_ULYSSES;
    return -1;
}

/* ---- who owns what ------------------------------------------------------------ */

int64_t n_local_heads_of(int64_t n_heads, int model_parallel_size) {
    if (model_parallel_size < 1) t_error("model_parallel_size must be at least 1, got %d", model_parallel_size);
    if (n_heads % model_parallel_size != 0)
        t_error(t_tr("--parallel heads: n_heads = %lld is not divisible by model_parallel_size = %d processes "
                "(each process owns n_heads // model_parallel_size whole heads)"),
                (long long)n_heads, model_parallel_size);
    return n_heads / model_parallel_size;  /* self.n_local_heads = args.n_heads // model_parallel_size */
}

Range heads_of_rank(int64_t n_heads, int P, int rank) {
    int64_t n_local_heads = n_local_heads_of(n_heads, P);
    Range r = {rank * n_local_heads, (rank + 1) * n_local_heads};
    return r;
}

Range chunk_of_rank(int64_t seqlen, int P, int rank) {
    int64_t base = seqlen / P, extra = seqlen % P;  /* np.array_split: the first T % P get one more */
    int64_t start = rank * base + (rank < extra ? rank : extra);
    Range r = {start, start + base + (rank < extra ? 1 : 0)};
    return r;
}

/* ---- heads: column-parallel wq, wk, wv and row-parallel wo --------------------- */

Linear *column_parallel_shard(const Linear *layer, Range rows) {
    /* ColumnParallelLinear: Y = XA + b, A split along its output dimension;
     * in nn.Linear's layout (out_features, in_features) those are rows. */
    Tensor *weight = t_contiguous(t_slice(layer->weight, 0, rows.start, rows.end));  /* (rows, in) */
    Tensor *bias = layer->bias ? t_contiguous(t_slice(layer->bias, 0, rows.start, rows.end)) : NULL;
    return nn_linear_from("column-parallel shard", weight, bias);
}

Linear *row_parallel_shard(const Linear *layer, Range cols) {
    /* RowParallelLinear: A split along its input dimension: columns of weight.
     * The bias is not split: it is added once, after the all-reduce. */
    Tensor *weight = t_contiguous(t_slice(layer->weight, 1, cols.start, cols.end));  /* (out, cols) */
    return nn_linear_from("row-parallel shard", weight, NULL);
}

/* A ColumnParallelLinear of this rank, as PyTorch builds one: the layer is made with its
 * own (local) shape, nn.Linear's init drawn from the global generator, then its rows
 * of the full layer are copied in (load_state_dict of the shard). */
static void load_column_shard(Linear *local, const Linear *full, Range rows) {
    Linear *shard = column_parallel_shard(full, rows);   /* (rows, d_in) and (rows,) */
    t_copy_(local->weight, shard->weight);
    if (local->bias) t_copy_(local->bias, shard->bias);
}

MultiHeadAttention *local_heads_module(const MultiHeadAttention *m, int P, int rank) {
    Range heads = heads_of_rank(m->args.n_heads, P, rank);
    int64_t head_dim = m->head_dim;
    Range features = {heads.start * head_dim, heads.end * head_dim};  /* this rank's slice of d_out */
    MultiHeadAttention *local = (MultiHeadAttention *)t_alloc(sizeof *local);
    *local = *m;  /* same head_dim, mask buffer, dropouts */
    local->args.n_heads = heads.end - heads.start;               /* self.n_local_heads */
    local->args.d_out = features.end - features.start;           /* n_local_heads * head_dim */
    local->args.out_bias = false;                                /* bo comes after the sum */
    /* ColumnParallelLinear(dim, n_heads * head_dim) three times: chapter 3's wq, wk, wv of
     * the local width, each holding this rank's rows of the full one */
    local->qkv = qkv_new(m->qkv->d_in, local->args.d_out, m->qkv->wq->bias != NULL);
    load_column_shard(local->qkv->wq, m->qkv->wq, features);
    load_column_shard(local->qkv->wk, m->qkv->wk, features);
    load_column_shard(local->qkv->wv, m->qkv->wv, features);
    local->wo = row_parallel_shard(m->wo, features);             /* RowParallelLinear(n_heads*head_dim, dim) */
    mha_eval(local);
    return local;
}

Tensor *row_parallel_output(Tensor *partial, const Tensor *bias, AllReduceFn all_reduce, void *ctx) {
    Tensor *output = partial;  /* (bsz, seqlen, d_out): this rank's heads only */
    /* BEGIN BLANK allreduce */
    all_reduce(output, ctx);                   /* output_ = reduce_from_tensor_model_parallel_region(...) */
    if (bias) output = t_add(output, bias);    /* output = output_ + self.bias: once, after the sum */
    /* END BLANK */
    return output;
}

/* ---- sequence: one step of ring attention ---------------------------------------- */

RingState ring_state_new(int64_t bsz, int64_t n_heads, int64_t rows, int64_t head_dim) {
    RingState st;
    st.m = t_zeros(SHAPE(bsz, n_heads, rows));
    st.l = t_zeros(SHAPE(bsz, n_heads, rows));
    st.acc = t_zeros(SHAPE(bsz, n_heads, rows, head_dim));
    int64_t n_rows = bsz * n_heads * rows;
    for (int64_t i = 0; i < n_rows; i++)
        online_row_init(st.m->storage->data + i, st.l->storage->data + i, st.acc->storage->data + i * head_dim,
                        head_dim);
    return st;
}

bool chunk_in_future(Range q, Range k) { return k.start >= q.end; }

int64_t ring_attend_chunk(RingState *st, const Tensor *xq, Range q, const Tensor *xk, const Tensor *xv,
                          Range k, bool causal) {
    int64_t bsz = t_size(xq, 0), n_heads = t_size(xq, 1), rows = t_size(xq, 2), head_dim = t_size(xq, 3);
    int64_t kvlen = t_size(xk, 2), folded = 0;
    if (rows == 0 || kvlen == 0 || (causal && chunk_in_future(q, k))) return 0;
    /* scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim): one block */
    Tensor *scores = t_contiguous(scaled_scores(xq, xk));  /* (bsz, n_heads, rows, kvlen) */
    Tensor *value = t_contiguous(xv);                      /* (bsz, n_heads, kvlen, head_dim) */
    const float *s = t_data(scores), *v = t_data(value);
    float *m = t_data(st->m), *l = t_data(st->l), *acc = t_data(st->acc);
    for (int64_t bh = 0; bh < bsz * n_heads; bh++) {
        for (int64_t i = 0; i < rows; i++) {
            int64_t row = bh * rows + i;
            /* the keys this query may see: all, or (causal) those at positions <= q.start + i */
            int64_t n = causal ? q.start + i - k.start + 1 : kvlen;
            if (n > kvlen) n = kvlen;
            if (n <= 0) continue;  /* this row sees none of the chunk: -inf everywhere, weight 0 */
            /* BEGIN BLANK ring_merge */
            online_row_update(&m[row], &l[row], acc + row * head_dim, head_dim, s + row * kvlen, n,
                              v + bh * kvlen * head_dim, head_dim);
            folded += n;
            /* END BLANK */
        }
    }
    return folded;
}

Tensor *ring_state_finish(const RingState *st) {
    Tensor *output = t_clone(st->acc);  /* (bsz, n_heads, rows, head_dim) */
    int64_t head_dim = t_size(output, 3), n_rows = t_numel(st->l);
    float *o = t_data(output);
    const float *l = t_data(st->l);
    for (int64_t i = 0; i < n_rows; i++) online_row_finish(o + i * head_dim, head_dim, l[i]);
    return output;
}

/* ---- sequence: the ring the program runs ------------------------------------------- */

const char *seq_layout_name(SeqLayout layout) { return layout == LAYOUT_ZIGZAG ? "zigzag" : "contiguous"; }

int seq_layout_parse(const char *name) {
    if (strcmp(name, "contiguous") == 0) return LAYOUT_CONTIGUOUS;
    if (strcmp(name, "zigzag") == 0) return LAYOUT_ZIGZAG;
    return -1;
}

Owned owned_positions(SeqLayout layout, int64_t seqlen, int P, int rank) {
    Owned o;
    if (layout == LAYOUT_CONTIGUOUS) {
        o.n = 1;
        o.part[0] = chunk_of_rank(seqlen, P, rank);
        o.part[1] = o.part[0];
    } else {
        if (seqlen < 2 * (int64_t)P)
            t_error(t_tr("--layout zigzag cuts T into 2P = %d chunks and needs T >= %d, got T = %lld "
                    "(use --layout contiguous)"), 2 * P, 2 * P, (long long)seqlen);
        o.n = 2;
        o.part[0] = chunk_of_rank(seqlen, 2 * P, rank);          /* an early chunk ... */
        o.part[1] = chunk_of_rank(seqlen, 2 * P, 2 * P - 1 - rank); /* ... and a late one */
    }
    return o;
}

int64_t owned_count(Owned o) {
    int64_t n = 0;
    for (int i = 0; i < o.n; i++) n += o.part[i].end - o.part[i].start;
    return n;
}

Tensor *owned_rows(const Tensor *x, Owned o) {
    Tensor *rows = t_zeros(SHAPE(t_size(x, 0), owned_count(o), t_size(x, 2)));
    int64_t at = 0;
    for (int i = 0; i < o.n; i++) {  /* torch.cat([x[:, a:b], x[:, c:e]], dim=1) */
        int64_t n = o.part[i].end - o.part[i].start;
        if (n > 0) t_copy_(t_slice(rows, 1, at, at + n), t_slice(x, 1, o.part[i].start, o.part[i].end));
        at += n;
    }
    return rows;
}

void place_owned_rows(Tensor *output, const Tensor *rows, Owned o) {
    if (!output) return;
    int64_t at = 0;
    for (int i = 0; i < o.n; i++) {  /* output[:, a:b] = rows[:, at:at + b - a] */
        int64_t n = o.part[i].end - o.part[i].start;
        if (n > 0) t_copy_(t_slice(output, 1, o.part[i].start, o.part[i].end), t_slice(rows, 1, at, at + n));
        at += n;
    }
}

int ring_direction(SeqLayout layout) { return layout == LAYOUT_ZIGZAG ? -1 : 1; }

int ring_origin(SeqLayout layout, int P, int rank, int step) {
    return ((rank - ring_direction(layout) * step) % P + P) % P;
}

RingBlock ring_block(SeqLayout layout, int64_t seqlen, int P, int rank, int origin, bool causal) {
    Owned q = owned_positions(layout, seqlen, P, rank), k = owned_positions(layout, seqlen, P, origin);
    RingBlock all = {0, owned_count(q), owned_count(k), false}, none = {0, 0, 0, false};
    if (all.q_end == 0 || all.k_end == 0) return none;
    if (!causal) return all;
    if (origin == rank) {
        all.causal = true;  /* the diagonal: the same positions, in order, on both sides */
        return all;
    }
    if (layout == LAYOUT_CONTIGUOUS) return origin < rank ? all : none;
    /* zigzag: chunks origin < rank < 2P-1-rank < 2P-1-origin, or rank < origin < ... */
    RingBlock blk = all;
    if (origin < rank)
        blk.k_end = k.part[0].end - k.part[0].start;    /* all of q, o's early chunk */
    else
        blk.q_start = q.part[0].end - q.part[0].start;  /* r's late chunk, all of k */
    return blk;
}

int64_t ring_block_pairs(RingBlock blk) {
    int64_t rows = blk.q_end - blk.q_start;
    if (rows <= 0 || blk.k_end <= 0) return 0;
    return blk.causal ? rows * (rows + 1) / 2 : rows * blk.k_end;
}

FlashAcc flash_acc_new(int64_t bsz, int64_t n_heads, int64_t rows, int64_t head_dim) {
    FlashAcc acc;
    acc.out = t_zeros(SHAPE(bsz, n_heads, rows, head_dim));
    acc.lse = t_full(SHAPE(bsz, n_heads, rows), -INFINITY);  /* no key seen yet: weight 0 */
    return acc;
}

/* rows [start, end) of a (batch, head) of t (B, H, T) or (B, H, T, hd): a (1, 1, end - start[, hd]) view */
static Tensor *head_rows(const Tensor *t, int64_t b, int64_t h, int64_t start, int64_t end) {
    return t_slice(t_slice(t_slice(t, 0, b, b + 1), 1, h, h + 1), 2, start, end);
}

/* dst += src, same shape, any strides */
static void add_into(Tensor *dst, const Tensor *src) { t_copy_(dst, t_add(dst, src)); }

int64_t ring_flash_step(FlashAcc *acc, const Tensor *xq, const Tensor *xk, const Tensor *xv, RingBlock blk,
                        const RingPoke *poke) {
    int64_t bsz = t_size(xq, 0), n_heads = t_size(xq, 1);
    if (ring_block_pairs(blk) == 0) return 0;
    for (int64_t b = 0; b < bsz; b++)
        for (int64_t h = 0; h < n_heads; h++) {
            const Tensor *q = head_rows(xq, b, h, blk.q_start, blk.q_end);  /* (1, 1, rows, hd) */
            const Tensor *k = head_rows(xk, b, h, 0, blk.k_end);            /* (1, 1, keys, hd) */
            const Tensor *v = head_rows(xv, b, h, 0, blk.k_end);
            /* out, lse = flash(q, k, v, is_causal): chapter 8's tiles, never the (rows, keys) scores */
            Tensor *lse;
            Tensor *out = attention_flash_lse(q, k, v, blk.causal, &lse);
            /* merge with what these rows saw before: the softmax over both sets of keys */
            Tensor *acc_out = head_rows(acc->out, b, h, blk.q_start, blk.q_end);
            Tensor *acc_lse = head_rows(acc->lse, b, h, blk.q_start, blk.q_end);  /* (1, 1, rows) */
            Tensor *merged_lse;
            Tensor *merged = attention_merge_lse(acc_out, acc_lse, out, lse, &merged_lse);
            t_copy_(acc_out, merged);
            t_copy_(acc_lse, merged_lse);
            if (poke) poke->fn(poke->ctx);  /* let the exchange in flight move on */
        }
    return bsz * n_heads * ring_block_pairs(blk);
}

void ring_flash_backward_step(const Tensor *xq, const Tensor *xk, const Tensor *xv, const Tensor *out,
                              const Tensor *lse, const Tensor *dout, RingBlock blk, Tensor *dq, Tensor *dk,
                              Tensor *dv, const RingPoke *poke) {
    if (ring_block_pairs(blk) == 0) return;
    for (int64_t b = 0; b < t_size(xq, 0); b++)
        for (int64_t h = 0; h < t_size(xq, 1); h++) {
            int64_t q0 = blk.q_start, q1 = blk.q_end, k1 = blk.k_end;
            /* dQ, dK, dV of this block: p_attn from the whole forward's lse, D from its output */
            AttnGrads g = attention_backward_flash(
                head_rows(xq, b, h, q0, q1), head_rows(xk, b, h, 0, k1), head_rows(xv, b, h, 0, k1),
                head_rows(out, b, h, q0, q1), head_rows(lse, b, h, q0, q1), head_rows(dout, b, h, q0, q1),
                blk.causal);
            add_into(head_rows(dq, b, h, q0, q1), g.grad_q);  /* the shares of the steps only add up */
            add_into(head_rows(dk, b, h, 0, k1), g.grad_k);
            add_into(head_rows(dv, b, h, 0, k1), g.grad_v);
            if (poke) poke->fn(poke->ctx);  /* let the exchange in flight move on */
        }
}

/* ---- the cost model ---------------------------------------------------------------- */

#define F32 ((int64_t)sizeof(float))

int64_t parallel_bytes_sent(ParallelMode mode, ParallelDims d, int P, int rank) {
    if (P <= 1) return 0;
    if (mode == PARALLEL_HEADS) return d.bsz * d.seqlen * d.d_out * F32;  /* the all-reduce buffer */
    if (mode == PARALLEL_ULYSSES) {
        Range c = chunk_of_rank(d.seqlen, P, rank);
        int64_t Tc = c.end - c.start, local = d.d_out / P;  /* n_heads / P heads of head_dim */
        int64_t bytes = 3 * d.bsz * Tc * local * (P - 1)     /* q, k, v of its positions, others' heads */
                        + d.bsz * (d.seqlen - Tc) * local;    /* its heads' output, others' positions */
        if (rank != 0) bytes += d.bsz * Tc * d.d_out;         /* output rows to rank 0 */
        return bytes * F32;
    }
    int64_t bytes = 0;
    int next = ((rank + ring_direction(d.layout)) % P + P) % P;
    for (int step = 0; step < P - 1; step++) {  /* at step s rank r holds the block of ring_origin() */
        int origin = ring_origin(d.layout, P, rank, step);
        RingBlock used = ring_block(d.layout, d.seqlen, P, next, origin, d.causal);  /* what next uses */
        bytes += 2 * d.bsz * used.k_end * d.d_out * F32;  /* those rows of K and V */
    }
    int64_t own = owned_count(owned_positions(d.layout, d.seqlen, P, rank));
    if (rank != 0) bytes += d.bsz * own * d.d_out * F32;  /* output rows to rank 0 */
    return bytes;
}

int64_t parallel_backward_bytes_sent(ParallelMode mode, ParallelDims d, int P, int rank) {
    if (P <= 1) return 0;
    int64_t weights = 3 * d.d_out * d.d_in + d.d_out * d.d_out  /* the all-reduce of the weights' gradients */
                      + (d.qkv_bias ? 3 * d.d_out : 0) + (d.out_bias ? d.d_out : 0);
    if (mode == PARALLEL_HEADS) {
        int64_t local = d.d_out / P;                              /* rows of wq, wk, wv; columns of wo */
        int64_t bytes = d.bsz * d.seqlen * d.d_in;                /* the all-reduce of grad_x          */
        if (rank != 0) bytes += 3 * local * d.d_in + d.d_out * local + (d.qkv_bias ? 3 * local : 0);
        return bytes * F32;
    }
    if (mode == PARALLEL_ULYSSES) {
        Range c = chunk_of_rank(d.seqlen, P, rank);
        int64_t Tc = c.end - c.start, local = d.d_out / P;
        int64_t bytes = d.bsz * Tc * local * (P - 1)              /* dout of its positions, others' heads */
                        + 3 * d.bsz * (d.seqlen - Tc) * local     /* its heads' dq, dk, dv, others' positions */
                        + weights;
        if (rank != 0) bytes += d.bsz * Tc * d.d_in;              /* grad_x rows to rank 0 */
        return bytes * F32;
    }
    int64_t bytes = 0;
    int next = ((rank + ring_direction(d.layout)) % P + P) % P;
    for (int step = 0; step < P; step++) {
        int origin = ring_origin(d.layout, P, rank, step);
        if (step < P - 1)  /* K and V: the rows next uses, as in the forward */
            bytes += 2 * d.bsz * ring_block(d.layout, d.seqlen, P, next, origin, d.causal).k_end * d.d_out;
        /* dK and dV: every row of the block held, on to next (the last step: home) */
        bytes += 2 * d.bsz * owned_count(owned_positions(d.layout, d.seqlen, P, origin)) * d.d_out;
    }
    bytes += weights;
    if (rank != 0) bytes += d.bsz * owned_count(owned_positions(d.layout, d.seqlen, P, rank)) * d.d_in;
    return bytes * F32;
}

int64_t parallel_memory_bytes(ParallelMode mode, ParallelDims d, int P, int rank) {
    int64_t B = d.bsz, T = d.seqlen, H = d.n_heads, floats;
    if (mode == PARALLEL_HEADS) {
        int64_t local = d.d_out / P, local_heads = H / P;  /* d_out and H divided among the ranks */
        floats = 3 * local * d.d_in + d.d_out * local     /* wq, wk, wv rows; wo columns */
                 + B * T * d.d_in                         /* x                           */
                 + 3 * B * T * local                      /* xq, xk, xv of its heads     */
                 + 2 * B * local_heads * T * T            /* scores and weights          */
                 + B * T * local                          /* merged                      */
                 + B * T * d.d_out;                       /* partial output, summed      */
    } else if (mode == PARALLEL_ULYSSES) {
        Range c = chunk_of_rank(T, P, rank);
        int64_t Tc = c.end - c.start, local = d.d_out / P;
        floats = 3 * d.d_out * d.d_in + d.d_out * d.d_out  /* every weight                      */
                 + B * Tc * d.d_in                        /* its rows of x                     */
                 + 2 * 3 * B * Tc * d.d_out               /* xq, xk, xv and their send buffer  */
                 + 2 * 3 * B * T * local                  /* q, k, v of its heads, recv buffer */
                 + 2 * B * T * local                      /* their output and its send buffer  */
                 + 2 * B * Tc * d.d_out                   /* the recv buffer and the result    */
                 + B * Tc * d.d_out                       /* the output rows                   */
                 + (rank == 0 ? B * T * d.d_out : 0);     /* rank 0: the gathered output       */
    } else {
        int64_t Tc = owned_count(owned_positions(d.layout, T, P, rank)), Tmax = 0;
        for (int r = 0; r < P; r++) {
            int64_t n = owned_count(owned_positions(d.layout, T, P, r));
            if (n > Tmax) Tmax = n;
        }
        floats = 3 * d.d_out * d.d_in + d.d_out * d.d_out  /* every weight                 */
                 + B * Tc * d.d_in                        /* its rows of x                */
                 + 3 * B * Tc * d.d_out                   /* xq, xk, xv of them           */
                 + 2 * 2 * B * Tmax * d.d_out             /* K/V held and K/V arriving    */
                 + 2 * (B * Tc * d.d_out + B * H * Tc)    /* (out, lse): merged, one step */
                 + B * Tc * d.d_out                       /* the output rows              */
                 + (rank == 0 ? B * T * d.d_out : 0);     /* rank 0: the gathered output  */
    }
    return floats * F32;
}

int64_t parallel_bytes_sent_max(ParallelMode mode, ParallelDims d, int P) {
    int64_t most = 0;
    for (int r = 0; r < P; r++) {
        int64_t b = parallel_bytes_sent(mode, d, P, r);
        if (b > most) most = b;
    }
    return most;
}

int64_t parallel_bytes_sent_total(ParallelMode mode, ParallelDims d, int P) {
    int64_t total = 0;
    for (int r = 0; r < P; r++) total += parallel_bytes_sent(mode, d, P, r);
    return total;
}

int64_t parallel_memory_bytes_max(ParallelMode mode, ParallelDims d, int P) {
    int64_t most = 0;
    for (int r = 0; r < P; r++) {
        int64_t b = parallel_memory_bytes(mode, d, P, r);
        if (b > most) most = b;
    }
    return most;
}
