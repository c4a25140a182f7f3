"""Golden fixtures for chapter 0, tensors in memory: tests/fixtures/ch00/.

What PyTorch says about the layout of views. Every case starts from
torch.arange(n, dtype=float32), so the storage holds 0, 1, 2, ... and the
*value* of each element is its position in the storage. For each case:

    <case>_values    t.contiguous()            -> the storage position of each element
    <case>_strides   t.stride()                (ndim,)
    <case>_facts     [t.storage_offset(), t.is_contiguous()]   (2,)

Cases (the C test builds the same chain of views and compares):
    rows       arange(6).view(2, 3)
    view32     arange(6).view(2, 3).view(3, 2)
    t01        arange(6).view(2, 3).transpose(0, 1)
    t01c       arange(6).view(2, 3).transpose(0, 1).contiguous()
    split      arange(24).view(2, 3, 4).view(2, 3, 2, 2).transpose(1, 2)   (the 手撕 script's head split)
    slice      arange(24).view(2, 3, 4)[:, 1:, 2:]
    select     arange(24).view(2, 3, 4)[1]
    permute    arange(24).view(2, 3, 4).permute(2, 0, 1)
    expand     arange(3).view(1, 3).expand(4, 3)
    unsqueeze  arange(6).view(2, 3).transpose(0, 1).unsqueeze(1)
and merge_values = split.transpose(1, 2).contiguous().view(2, 3, -1), which
must equal arange(24).view(2, 3, 4) again.
New fixtures go at the end of make(), so existing ones keep their values.
"""

import torch

NAME = "ch00"
SEED = 20240100


def make(out_dir, save):
    torch.manual_seed(SEED)   # nothing random here; kept for the interface
    a6 = torch.arange(6, dtype=torch.float32)
    a24 = torch.arange(24, dtype=torch.float32)
    a3 = torch.arange(3, dtype=torch.float32)

    split = a24.view(2, 3, 4).view(2, 3, 2, 2).transpose(1, 2)
    cases = [
        ("rows", a6.view(2, 3)),
        ("view32", a6.view(2, 3).view(3, 2)),
        ("t01", a6.view(2, 3).transpose(0, 1)),
        ("t01c", a6.view(2, 3).transpose(0, 1).contiguous()),
        ("split", split),
        ("slice", a24.view(2, 3, 4)[:, 1:, 2:]),
        ("select", a24.view(2, 3, 4)[1]),
        ("permute", a24.view(2, 3, 4).permute(2, 0, 1)),
        ("expand", a3.view(1, 3).expand(4, 3)),
        ("unsqueeze", a6.view(2, 3).transpose(0, 1).unsqueeze(1)),
    ]
    for name, t in cases:
        save(name + "_values", t.contiguous())
        save(name + "_strides", torch.tensor(t.stride(), dtype=torch.float32))
        save(name + "_facts", torch.tensor([t.storage_offset(), float(t.is_contiguous())]))

    save("merge_values", split.transpose(1, 2).contiguous().view(2, 3, -1))
