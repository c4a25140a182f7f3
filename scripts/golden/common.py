"""Golden fixtures for common/ (the 'torch' of this project): tests/fixtures/common/.

Each group is: the inputs (torch.randn unless noted) and the PyTorch result,
named <op>_<case>_<role>. Shapes are in the comments; the C tests load the
inputs, run the C op, and compare with the output.
New fixtures go at the end of make(), so existing ones keep their values.
"""

import torch
import torch.nn.functional as F

NAME = "common"
SEED = 20240601


def make(out_dir, save):
    torch.manual_seed(SEED)
    randn = torch.randn
    neg_inf = float("-inf")

    # --- matmul: torch.matmul(a, b), all the shape cases -------------------
    a, b = randn(3, 4), randn(4, 5)                   # 2-D @ 2-D
    save("matmul_2d_a", a)
    save("matmul_2d_b", b)
    save("matmul_2d_out", torch.matmul(a, b))         # (3, 5)

    a, b = randn(2, 1, 3, 4), randn(3, 4, 5)          # batch dims broadcast
    save("matmul_bcast_a", a)
    save("matmul_bcast_b", b)
    save("matmul_bcast_out", torch.matmul(a, b))      # (2, 3, 3, 5)

    a, b = randn(2, 3, 5, 4), randn(2, 3, 4, 6)       # same batch dims
    save("matmul_batch_a", a)
    save("matmul_batch_b", b)
    save("matmul_batch_out", torch.matmul(a, b))      # (2, 3, 5, 6)

    a, b = randn(5, 4), randn(2, 4, 3)                # 2-D @ 3-D
    save("matmul_2d3d_a", a)
    save("matmul_2d3d_b", b)
    save("matmul_2d3d_out", torch.matmul(a, b))       # (2, 5, 3)

    a, b = randn(2, 3, 5, 4), randn(2, 3, 7, 4)       # Q @ K^T
    save("matmul_kt_a", a)
    save("matmul_kt_b", b)
    save("matmul_kt_out", torch.matmul(a, b.transpose(-2, -1)))   # (2, 3, 5, 7)

    # --- elementwise with broadcasting --------------------------------------
    a, b = randn(2, 3, 4, 4), randn(1, 1, 4, 4)       # scores + mask
    save("add_bcast_a", a)
    save("add_bcast_b", b)
    save("add_bcast_out", a + b)                      # (2, 3, 4, 4)

    a, b = randn(2, 3, 4), randn(3, 1)
    save("mul_bcast_a", a)
    save("mul_bcast_b", b)
    save("mul_bcast_out", a * b)                      # (2, 3, 4)

    # --- softmax(dim=-1) ----------------------------------------------------
    x = randn(3, 5)
    save("softmax_x", x)
    save("softmax_out", torch.softmax(x, dim=-1))

    x = randn(4, 6) * 300                             # large: needs the max trick
    x[1] = torch.tensor([1000.0, 999.0, 998.0, -1000.0, 0.0, 1.0])
    save("softmax_large_x", x)
    save("softmax_large_out", torch.softmax(x, dim=-1))

    x = randn(5, 5) + torch.triu(torch.full((5, 5), neg_inf), diagonal=1)  # -inf above diag
    save("softmax_neginf_x", x)
    save("softmax_neginf_out", torch.softmax(x, dim=-1))

    x = randn(2, 2, 3, 4)
    save("softmax_4d_x", x)
    save("softmax_4d_out", torch.softmax(x, dim=-1))

    # --- triu / tril ----------------------------------------------------------
    x = randn(2, 5, 5)
    save("triu_x", x)
    save("triu_d1", torch.triu(x, diagonal=1))
    save("triu_d0", torch.triu(x, diagonal=0))
    save("triu_dm1", torch.triu(x, diagonal=-1))
    save("tril_d0", torch.tril(x, diagonal=0))
    save("tril_d1", torch.tril(x, diagonal=1))
    save("tril_dm1", torch.tril(x, diagonal=-1))

    x = randn(3, 6)                                   # rectangular
    save("triu_rect_x", x)
    save("triu_rect_d1", torch.triu(x, 1))
    save("tril_rect_d0", torch.tril(x, 0))

    # the causal mask of Happy-LLM 2.1.5: -inf above the diagonal, 0 elsewhere
    save("causal_mask_6", torch.triu(torch.full((1, 1, 6, 6), neg_inf), diagonal=1))

    # --- masked_fill ----------------------------------------------------------
    x = randn(3, 4, 4)
    mask = torch.triu(torch.ones(4, 4), diagonal=1)   # float 0/1
    save("masked_fill_x", x)
    save("masked_fill_mask", mask)
    save("masked_fill_out", x.masked_fill(mask.bool(), neg_inf))

    # --- nn.Linear: y = x W^T + b -------------------------------------------
    x, w, bias = randn(2, 3, 4), randn(5, 4), randn(5)
    save("linear_x", x)
    save("linear_w", w)
    save("linear_b", bias)
    save("linear_out", F.linear(x, w, bias))          # (2, 3, 5)
    save("linear_out_nobias", F.linear(x, w))

    # --- reductions over the last dim ----------------------------------------
    x = randn(3, 4, 5)
    save("reduce_x", x)
    save("sum_last", x.sum(-1))                       # (3, 4)
    save("max_last", x.max(-1).values)                # (3, 4)

    # --- transpose / permute + contiguous ------------------------------------
    x = randn(2, 3, 4)
    save("transpose_x", x)
    save("transpose_12_contig", x.transpose(1, 2).contiguous())    # (2, 4, 3)
    x = randn(2, 3, 4, 5)
    save("permute_x", x)
    save("permute_0213", x.permute(0, 2, 1, 3).contiguous())       # (2, 4, 3, 5)

    # --- variance (unbiased, as torch.var) ------------------------------------
    x = randn(1000)
    save("var_x", x)
    save("var_out", torch.var(x).reshape(1))          # (1,)
