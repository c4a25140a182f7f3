"""Golden fixtures for chapter 13 (a tiny LLaMA2): tests/fixtures/ch13/.

The model is Happy-LLM 5.1's Transformer, docs/chapter5/code/k_model.py,
restated below without transformers (PreTrainedModel only adds loading
and the output container): RMSNorm (x.float(), eps 1e-5, weight), the
Attention class (chapter 11's golden module has the same one), MLP
w2(silu(w1 x) * w3 x) with hidden_dim = multiple_of * ceil(int(2 * 4 * dim
/ 3) / multiple_of) when not given, DecoderLayer (h = x + attention(
attention_norm(x)); out = h + feed_forward(ffn_norm(h))), Transformer
(tok_embeddings, layers, norm, output; tok_embeddings.weight =
output.weight when shared). Everything runs in float64 (the truth the C
float32 code is compared with) and is saved as float32.

The checkpoints are written in llama2.c's version-0 layout, as its
export.py legacy_export writes them: seven int32 (dim, hidden_dim,
n_layers, n_heads, n_kv_heads, vocab_size (negated when the output head is
not shared), max_seq_len), then float32: tok_embeddings, attention_norm of
every layer, wq of every layer, wk, wv, wo, ffn_norm, w1, w2, w3, norm,
freqs_cos[:max_seq_len], freqs_sin[:max_seq_len], output (unshared only).
Those bytes, the tokenizer.bin files (llama2.c's build_tokenizer reads:
int32 max_token_length, then per token float32 score, int32 length, the
bytes) and the int32 batch files are not float arrays, so this module
writes them itself (write_bytes: a temporary file renamed into place, as
save does); everything else goes through save.

Cases (folder per case):
  mha_shared/    dim 16, 2 layers, 4 heads, 4 kv heads, vocab 11, seq_len 12,
                 hidden_dim from the rule with multiple_of 8 (48), tied head;
                 tokenizer.bin: 11 pieces (a char-level vocabulary)
  gqa_unshared/  dim 24, 2 layers, 6 heads over 2 kv heads, vocab 13,
                 hidden_dim 40 given, seq_len 10, unshared head
  mqa_shared/    dim 8, 1 layer, 2 heads over 1 kv head, vocab 9, seq_len 6
  bpe/           tokenizer.bin of llama2.c's layout with 3 special pieces, the 256 byte pieces
                 <0x00>..<0xFF> (ids 3..258) and 16 merges with descending scores; ids_<k>:
                 run.c's encode (restated below, bos = 1) of BPE_TEXTS[k]
Each case folder holds model.bin; tokens (T,) and logits (T, vocab), attn_<L> (n_heads,
T, T) of the model on tokens (eval); batch.bin.npy int32 (B, T + 1), loss
(1,) the mean cross-entropy of logits(batch[:, :-1]) against batch[:, 1:],
and grads/<state-dict key>.npy, d loss / d parameter (output.weight only
when unshared: tied, tok_embeddings.weight holds both uses); prompt (P,)
and greedy (N,): the N tokens greedy decoding adds after prompt, each from
a full forward of everything so far.
"""

import math
import os
import struct

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "ch13"
SEED = 1313


class Config:
    def __init__(self, dim, n_layers, n_heads, n_kv_heads, vocab_size, max_seq_len, hidden_dim=None,
                 multiple_of=64, norm_eps=1e-5, dropout=0.0, shared=True):
        self.dim, self.n_layers, self.n_heads, self.n_kv_heads = dim, n_layers, n_heads, n_kv_heads
        self.vocab_size, self.max_seq_len, self.hidden_dim = vocab_size, max_seq_len, hidden_dim
        self.multiple_of, self.norm_eps, self.dropout, self.shared = multiple_of, norm_eps, dropout, shared


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        return self._norm(x.double()).type_as(x) * self.weight   # k_model: x.float(); here all float64


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.cos(freqs), torch.sin(freqs)


def reshape_for_broadcast(freqs, x):
    shape = [d if i == 1 or i == x.ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs.view(shape)


def apply_rotary_emb(xq, xk, freqs_cos, freqs_sin):
    xq_r, xq_i = xq.reshape(xq.shape[:-1] + (-1, 2)).unbind(-1)
    xk_r, xk_i = xk.reshape(xk.shape[:-1] + (-1, 2)).unbind(-1)
    freqs_cos = reshape_for_broadcast(freqs_cos, xq_r)
    freqs_sin = reshape_for_broadcast(freqs_sin, xq_r)
    xq_out_r = xq_r * freqs_cos - xq_i * freqs_sin
    xq_out_i = xq_r * freqs_sin + xq_i * freqs_cos
    xk_out_r = xk_r * freqs_cos - xk_i * freqs_sin
    xk_out_i = xk_r * freqs_sin + xk_i * freqs_cos
    xq_out = torch.stack([xq_out_r, xq_out_i], dim=-1).flatten(3)
    xk_out = torch.stack([xk_out_r, xk_out_i], dim=-1).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def repeat_kv(x, n_rep):
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return (x[:, :, :, None, :].expand(bs, slen, n_kv_heads, n_rep, head_dim)
            .reshape(bs, slen, n_kv_heads * n_rep, head_dim))


class Attention(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.n_kv_heads = args.n_heads if args.n_kv_heads is None else args.n_kv_heads
        assert args.n_heads % self.n_kv_heads == 0
        self.n_local_heads, self.n_local_kv_heads = args.n_heads, self.n_kv_heads
        self.n_rep = self.n_local_heads // self.n_local_kv_heads
        self.head_dim = args.dim // args.n_heads
        self.wq = nn.Linear(args.dim, args.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)
        mask = torch.full((1, 1, args.max_seq_len, args.max_seq_len), float("-inf"))
        self.register_buffer("mask", torch.triu(mask, diagonal=1), persistent=False)
        self.last_weights = None

    def forward(self, x, freqs_cos, freqs_sin):
        bsz, seqlen, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xk = xk.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        xv = xv.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cos, freqs_sin)
        xk, xv = repeat_kv(xk, self.n_rep), repeat_kv(xv, self.n_rep)
        xq, xk, xv = xq.transpose(1, 2), xk.transpose(1, 2), xv.transpose(1, 2)
        scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)
        scores = scores + self.mask[:, :, :seqlen, :seqlen]
        scores = F.softmax(scores, dim=-1)
        self.last_weights = scores.detach()
        output = torch.matmul(scores, xv)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(output)


class MLP(nn.Module):
    def __init__(self, dim, hidden_dim, multiple_of):
        super().__init__()
        if hidden_dim is None:
            hidden_dim = 4 * dim
            hidden_dim = int(2 * hidden_dim / 3)
            hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class DecoderLayer(nn.Module):
    def __init__(self, layer_id, args):
        super().__init__()
        self.attention = Attention(args)
        self.feed_forward = MLP(args.dim, args.hidden_dim, args.multiple_of)
        self.layer_id = layer_id
        self.attention_norm = RMSNorm(args.dim, eps=args.norm_eps)
        self.ffn_norm = RMSNorm(args.dim, eps=args.norm_eps)

    def forward(self, x, freqs_cos, freqs_sin):
        h = x + self.attention.forward(self.attention_norm(x), freqs_cos, freqs_sin)
        return h + self.feed_forward.forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.tok_embeddings = nn.Embedding(args.vocab_size, args.dim)
        self.layers = nn.ModuleList(DecoderLayer(i, args) for i in range(args.n_layers))
        self.norm = RMSNorm(args.dim, eps=args.norm_eps)
        self.output = nn.Linear(args.dim, args.vocab_size, bias=False)
        if args.shared:
            self.tok_embeddings.weight = self.output.weight
        freqs_cos, freqs_sin = precompute_freqs_cis(args.dim // args.n_heads, args.max_seq_len)
        self.register_buffer("freqs_cos", freqs_cos, persistent=False)
        self.register_buffer("freqs_sin", freqs_sin, persistent=False)

    def forward(self, tokens):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        freqs_cos, freqs_sin = self.freqs_cos[:seqlen], self.freqs_sin[:seqlen]
        for layer in self.layers:
            h = layer(h, freqs_cos, freqs_sin)
        return self.output(self.norm(h))


# ---- the files that are not float arrays -----------------------------------------------

def write_bytes(out_dir, rel, data):
    path = os.path.join(out_dir, *rel.split("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def f32(t):
    return np.ascontiguousarray(t.detach().cpu().numpy(), dtype="<f4").tobytes()


def legacy_export(model):
    """llama2.c export.py legacy_export, returning the bytes."""
    p = model.args
    hidden_dim = model.layers[0].feed_forward.w1.weight.shape[0]
    vocab = p.vocab_size if p.shared else -p.vocab_size
    out = [struct.pack("<iiiiiii", p.dim, hidden_dim, p.n_layers, p.n_heads, p.n_kv_heads, vocab, p.max_seq_len)]
    out.append(f32(model.tok_embeddings.weight))
    for name in ("attention_norm", "attention.wq", "attention.wk", "attention.wv", "attention.wo", "ffn_norm",
                 "feed_forward.w1", "feed_forward.w2", "feed_forward.w3"):
        for layer in model.layers:
            m = layer
            for part in name.split("."):
                m = getattr(m, part)
            out.append(f32(m.weight))
    out.append(f32(model.norm.weight))
    out.append(f32(model.freqs_cos[: p.max_seq_len]))
    out.append(f32(model.freqs_sin[: p.max_seq_len]))
    if not p.shared:
        out.append(f32(model.output.weight))
    return b"".join(out)


def tokenizer_bytes(pieces):
    data = [p.encode("utf-8") for p in pieces]
    out = [struct.pack("<i", max(len(d) for d in data))]
    for d in data:
        out.append(struct.pack("<fi", 0.0, len(d)) + d)
    return b"".join(out)


def npy_int32(a):
    import io
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(a, dtype="<i4"), allow_pickle=False)
    return buf.getvalue()


# ---- the cases ------------------------------------------------------------------------

def build(args):
    """The model with random weights big enough that attention is far from uniform: every
    matrix N(0, 0.35), every RMSNorm weight 1 + N(0, 0.1) (so their gradients matter)."""
    model = Transformer(args)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.ndim == 2:
                p.copy_(torch.randn(p.shape) * 0.35)
            else:
                p.copy_(1 + 0.1 * torch.randn(p.shape))
    return model.double()


def case(out_dir, save, name, args, T, B, prompt_len, n_gen, pieces=None):
    model = build(args)
    write_bytes(out_dir, name + "/model.bin", legacy_export(model))
    if pieces is not None:
        write_bytes(out_dir, name + "/tokenizer.bin", tokenizer_bytes(pieces))
    V = args.vocab_size
    tokens = torch.randint(0, V, (T,))
    with torch.no_grad():
        logits = model(tokens[None])[0]
    save(name + "/tokens", tokens)
    save(name + "/logits", logits)
    for i, layer in enumerate(model.layers):
        save("%s/attn_%d" % (name, i), layer.attention.last_weights[0])

    batch = torch.randint(0, V, (B, T + 1))
    write_bytes(out_dir, name + "/batch.npy", npy_int32(batch.numpy()))
    model.zero_grad()
    logits = model(batch[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, V), batch[:, 1:].reshape(-1))
    loss.backward()
    save(name + "/loss", loss.detach().reshape(1))
    for key, p in model.named_parameters():   # tied: output.weight is tok_embeddings.weight, listed once
        save("%s/grads/%s" % (name, key), p.grad)

    prompt = torch.randint(0, V, (prompt_len,))
    seq = prompt.clone()
    with torch.no_grad():
        for _ in range(n_gen):
            nxt = model(seq[None])[0, -1].argmax()
            seq = torch.cat([seq, nxt.reshape(1)])
    save(name + "/prompt", prompt)
    save(name + "/greedy", seq[prompt_len:])


def make(out_dir, save):
    torch.manual_seed(SEED)
    pieces = ["<unk>", "\n", "，", "。", "春", "眠", "不", "觉", "晓", "处", "闻"]
    case(out_dir, save, "mha_shared",
         Config(dim=16, n_layers=2, n_heads=4, n_kv_heads=4, vocab_size=11, max_seq_len=12, multiple_of=8),
         T=9, B=2, prompt_len=3, n_gen=8, pieces=pieces)
    case(out_dir, save, "gqa_unshared",
         Config(dim=24, n_layers=2, n_heads=6, n_kv_heads=2, vocab_size=13, max_seq_len=10, hidden_dim=40,
                shared=False),
         T=10, B=3, prompt_len=2, n_gen=8)
    case(out_dir, save, "mqa_shared",
         Config(dim=8, n_layers=1, n_heads=2, n_kv_heads=1, vocab_size=9, max_seq_len=6, multiple_of=4),
         T=5, B=2, prompt_len=1, n_gen=5)
    make_bpe(out_dir, save)


# ---- llama2.c's BPE encode (run.c's encode, restated) --------------------------------------

BPE_PIECES = (["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
              + [" ", "a", "b", "c", "ab", "bc", "abc", " a", " ab", " abc", "春", "眠", "春眠", "不", "觉", "不觉"])
BPE_SCORES = [0.0] * 259 + [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -10.0, -11.0, -12.0, -13.0,
                            -14.0, -15.0, -16.0]
# what the C test encodes (bos = 1), in this order
BPE_TEXTS = ["abc", "ab c", "cab", "春眠不觉晓", "a\u00e9b", "bcab abc"]


def run_c_encode(text, bos=True):
    """llama2.c run.c encode(): BOS, the dummy prefix " ", each UTF-8 character its piece (or its
    bytes + 3), then merge the best-scoring adjacent pair while one is in the vocabulary."""
    lookup = {p: i for i, p in enumerate(BPE_PIECES)}
    tokens = [1] if bos else []
    if text:
        tokens.append(lookup[" "])
    for ch in text:
        if ch in lookup:
            tokens.append(lookup[ch])
        else:
            tokens.extend(b + 3 for b in ch.encode("utf-8"))
    while True:
        best = (-1e10, -1, -1)
        for i in range(len(tokens) - 1):
            merged = BPE_PIECES[tokens[i]] + BPE_PIECES[tokens[i + 1]]
            j = lookup.get(merged)
            if j is not None and BPE_SCORES[j] > best[0]:
                best = (BPE_SCORES[j], j, i)
        if best[2] == -1:
            break
        tokens[best[2]:best[2] + 2] = [best[1]]
    return tokens


def make_bpe(out_dir, save):
    data = [p.encode("utf-8") for p in BPE_PIECES]
    out = [struct.pack("<i", max(len(d) for d in data))]
    for d, s in zip(data, BPE_SCORES):
        out.append(struct.pack("<fi", s, len(d)) + d)
    write_bytes(out_dir, "bpe/tokenizer.bin", b"".join(out))
    for k, text in enumerate(BPE_TEXTS):
        save("bpe/ids_%d" % k, np.array(run_c_encode(text), dtype=np.float32))
