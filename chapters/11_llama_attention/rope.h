/* rope.h — chapter 11: rotary position embedding, RoPE (Happy-LLM 5.1.3.2).
 *
 *     freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
 *     freqs = torch.outer(torch.arange(end), freqs).float()   # (end, dim // 2)
 *     freqs_cos, freqs_sin = torch.cos(freqs), torch.sin(freqs)
 *
 *     xq_r, xq_i = xq.float().reshape(xq.shape[:-1] + (-1, 2)).unbind(-1)
 *     xq_out_r = xq_r * freqs_cos - xq_i * freqs_sin
 *     xq_out_i = xq_r * freqs_sin + xq_i * freqs_cos
 *     xq_out = torch.stack([xq_out_r, xq_out_i], dim=-1).flatten(3)
 *
 * Each neighbouring pair (x[2i], x[2i + 1]) of a head's vector is a point in
 * the plane, turned by the angle m * freq_i at position m. Turning q by m and
 * k by n turns their dot product by m - n only: q_m . k_n depends on the
 * offset, not on where the pair sits in the sequence. dim is head_dim (the
 * book calls precompute_freqs_cis(dim // n_heads, seq_len)), and it must be
 * even.
 *
 * The trap: Hugging Face's LLaMA rotates the two halves of the vector
 * (x[i], x[i + head_dim/2]) with rotate_half, not neighbouring pairs. The same
 * weights give other numbers in the other layout; its conversion script
 * permutes each head's rows of wq and wk (0, 2, 4, ..., 1, 3, 5, ...) so that
 * both give the same attention (tested).
 */
#ifndef CH11_ROPE_H
#define CH11_ROPE_H

#include "common/torch.h"

/* The cos and sin tables, (end, dim / 2) each. */
typedef struct {
    Tensor *cos;
    Tensor *sin;
} FreqsCis;

/* precompute_freqs_cis(dim, end, theta): dim = head_dim, even and >= 2;
 * theta is 10000.0 in LLaMA2. */
FreqsCis precompute_freqs_cis(int64_t dim, int64_t end, double theta);
/* apply_rotary_emb(xq, xk, freqs_cos, freqs_sin) for one tensor:
 * x (bsz, seqlen, heads, head_dim), cos and sin (seqlen, head_dim / 2),
 * neighbouring pairs rotated. Returns a new (bsz, seqlen, heads, head_dim). */
Tensor *rotary_emb(const Tensor *x, const Tensor *freqs_cos, const Tensor *freqs_sin);
/* Happy-LLM's apply_rotary_emb: both xq and xk (their head counts may differ). */
void apply_rotary_emb(const Tensor *xq, const Tensor *xk, const Tensor *freqs_cos, const Tensor *freqs_sin,
                      Tensor **xq_out, Tensor **xk_out);
/* Meta's apply_rotary_emb (llama/model.py), the form the book's cos/sin lines
 * expand: each pair (x[2i], x[2i + 1]) is the complex number a + ib, and the
 * turn is one product with freqs_cis = cos(m theta_i) + i sin(m theta_i):
 *     freqs_cis = torch.polar(torch.ones_like(freqs), freqs)             # complex64
 *     xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
 *     xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
 * (a + ib)(cos + i sin) = (a cos - b sin) + i (a sin + b cos): the real part is
 * the book's xq_out_r (实部), the imaginary part its xq_out_i (虚部). Same
 * arguments and result as rotary_emb. */
Tensor *rotary_emb_complex(const Tensor *x, const Tensor *freqs_cos, const Tensor *freqs_sin);
/* Hugging Face's apply_rotary_pos_emb: x * cos + rotate_half(x) * sin with
 * cos = cat(freqs_cos, freqs_cos): the halves (i, i + head_dim / 2) rotated. */
Tensor *rotary_emb_half(const Tensor *x, const Tensor *freqs_cos, const Tensor *freqs_sin);
/* The conversion script's permute(w, n_heads) for wq or wk (n_heads * head_dim, dim):
 * w.view(n_heads, head_dim // 2, 2, dim).transpose(1, 2).reshape(n_heads * head_dim, dim). */
Tensor *permute_for_rotate_half(const Tensor *w, int64_t n_heads);
/* The rules of RoPE's sizes, one sentence each: head_dim even and >= 2. */
void check_rope_dim(int64_t head_dim);

#endif
