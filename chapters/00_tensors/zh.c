/* zh.c — chapter 0's narration in Chinese (lang.h): each English string as
 * main.c writes it, beside its translation. Terms: docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter0_zh[];

const LangPair chapter0_zh[] = {
    {"Chapter 0: tensors in memory -- shape, strides, view, transpose,\ncontiguous, nn.Linear, full, triu.",
     "第 0 章：内存里的张量——形状、步长、view、transpose、\ncontiguous、nn.Linear、full、triu。"},
    {"Chapter 0 -- tensors in memory: shape, strides, view, transpose, contiguous",
     "第 0 章——内存里的张量：形状、步长、view、transpose、contiguous"},
    {"tensor                               shape        strides        contiguous",
     "张量                                 形状         步长           连续"},
    {"    %s storage: [", "    %s 的存储：["},
    {"%s]  (%lld float)\n", "%s]  （%lld 个浮点数）\n"},
    {"%s]  (%lld floats)\n", "%s]  （%lld 个浮点数）\n"},
    {"%s is contiguous: its strides are the row-major ones %s.", "%s 是连续的：它的步长就是行优先的步长 %s。"},
    {"%s is not contiguous: dim %d has stride %lld, but a contiguous %s has strides %s, i.e. %lld there.",
     "%s 不连续：第 %d 维的步长是 %lld，而连续的 %s 步长应为 %s，即那里是 %lld。"},
    {"A tensor is one flat row of floats (the storage) seen through a shape and strides",
     "张量是一排平铺的浮点数（存储），透过形状和步长来看"},
    {"x[1][2] lives at storage position offset + 1*stride(0) + 2*stride(1) = 0 + 1*3 + 2*1 = %lld, and holds %g.",
     "x[1][2] 位于存储的 offset + 1*stride(0) + 2*stride(1) = 0 + 1*3 + 2*1 = %lld 号位置，值为 %g。"},
    {"a stride is how many floats to skip to move one step along that dim: one row of x is 3 floats, one column 1 "
     "float.",
     "步长是沿该维走一步要跳过多少个浮点数：x 的一行是 3 个浮点数，一列是 1 个。"},
    {"view() gives the same storage a new shape: nothing is copied", "view() 给同一份存储换上新的形状：什么也不复制"},
    {"y shares x's storage: %s.", "y 与 x 共用存储：%s。"},
    {"view only writes a new shape and new strides over the same numbers, so the number of elements must match "
     "(2*3 == 3*2) and a write through y shows up in x.",
     "view 只是给同一份数据换上新的形状和步长，所以元素个数必须相同（2*3 == 3*2），通过 y 写入的值也会出现在 "
     "x 里。"},
    {"transpose() swaps two dims by swapping their strides: still no copy", "transpose() 通过交换步长来交换两个维度：仍然不复制"},
    {"Storage position of each element of t (row by row, this is where reading t jumps):",
     "t 的每个元素在存储中的位置（逐行读 t 时，就在这些位置之间跳转）："},
    {"reading t row by row visits the storage as 0, 3, 1, 4, 2, 5: the numbers are no longer in the order the shape "
     "suggests, which is what 'not contiguous' means.",
     "逐行读 t 时访问存储的顺序是 0, 3, 1, 4, 2, 5：这些数不再按形状所暗示的顺序排列，这就是“不连续”的含义。"},
    {"view(6) of this transposed tensor is an error", "对这个转置过的张量做 view(6) 会出错"},
    {"PyTorch: RuntimeError: view size is not compatible with input tensor's size and stride (at least one "
     "dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
     "PyTorch 报错：RuntimeError: view size is not compatible with input tensor's size and stride (at least one "
     "dimension spans across two contiguous subspaces). Use .reshape(...) instead."},
    {"here:    %s", "这里：  %s"},
    {"a view can only change strides, and no single stride walks the storage as 0, 3, 1, 4, 2, 5.",
     "view 只能改变步长，而没有哪一个步长能按 0, 3, 1, 4, 2, 5 的顺序走遍存储。"},
    {"contiguous() copies the elements into new storage in reading order; then view() works",
     "contiguous() 按读取顺序把元素复制到新的存储里；之后 view() 就能用了"},
    {"c shares t's storage: %s.", "c 与 t 共用存储：%s。"},
    {"after the copy the storage is 0, 3, 1, 4, 2, 5 and the row-major strides fit again (x.reshape(6) does the "
     "same: a view when it can, a copy when it must).",
     "复制之后存储是 0, 3, 1, 4, 2, 5，行优先的步长又对得上了（x.reshape(6) 也是这样：能 view 就 view，"
     "必须复制时才复制）。"},
    {"nn.Linear(d_in, d_out) computes x · Wᵀ + b, with W stored as (d_out, d_in)",
     "nn.Linear(d_in, d_out) 计算 x · Wᵀ + b，W 按 (d_out, d_in) 存放"},
    {"largest |wq(x) - (x @ W.T + b)| = %g", "两者之差的最大值 |wq(x) - (x @ W.T + b)| = %g"},
    {"each row of W is one output feature; x @ W.T dots every token's d_in features with every row, for all (batch, "
     "token) pairs at once, and the bias is added to every row.",
     "W 的每一行是一个输出特征；x @ W.T 一次算完所有的批和词元：每个词元的 d_in 个特征与 W 的每一行做"
     "点积，再加上偏置。"},
    {"Split d_out = %lld into %lld heads of head_dim %lld: view, then transpose(1, 2)",
     "把 d_out = %lld 拆成 %lld 个头，头维度 head_dim 为 %lld：先 view，再 transpose(1, 2)"},
    {"Where each element of the heads lives in xq's storage (in batch b, head h of token t starts at b*%lld + t*%lld "
     "+ h*%lld):",
     "各头的每个元素在 xq 的存储中的位置（批 b 中，词元 t 的头 h 从 b*%lld + t*%lld + h*%lld 开始）："},
    {"a head is a head_dim-wide slice of every token's features; moving the head dim in front lets one batched "
     "matmul treat (bsz, n_heads) as batch dims, and no data moves.",
     "一个头就是每个词元特征中宽为 head_dim 的一片；把头这一维挪到前面，一次批量矩阵乘法就能把 "
     "(bsz, n_heads) 当作批维，而数据一点也不用搬动。"},
    {"Merge the heads back: transpose(1, 2), contiguous(), view(bsz, seqlen, -1)",
     "把各头合并回去：transpose(1, 2)、contiguous()、view(bsz, seqlen, -1)"},
    {"matmul writes a fresh tensor in head order, so output is contiguous. (Transposing the split view itself back "
     "would only give xq's own strides back.)",
     "matmul 按头的顺序写出一个新张量，所以 output 是连续的。（直接把拆分后的视图转置回去，只会得回 xq "
     "自己的步长。）"},
    {"error: %s", "错误：%s"},
    {"(this view works here: with one head or one token the strides still fit)",
     "（这里的 view 能用：只有一个头或一个词元时，步长仍然对得上）"},
    {"largest |output - xq| = %g: split then merge gives xq back.",
     "两者之差的最大值 |output - xq| = %g：先拆分再合并，得回 xq。"},
    {"in output the heads come first in memory; contiguous() copies the numbers into token order, so that view can "
     "glue each token's heads back into d_out features.",
     "output 在内存里是按头排的，同一个头的数挨在一起；contiguous() 把它们重新复制成按词元排列，"
     "view 才能把每个词元的各个头拼回 d_out 个特征。"},
    {"The causal mask: torch.full(..., -inf), then torch.triu(mask, diagonal=1)",
     "因果掩码：torch.full(..., -inf)，再 torch.triu(mask, diagonal=1)"},
    {"diagonal=d keeps the entries with column - row >= d and zeroes the rest:",
     "diagonal=d 保留列号 - 行号 >= d 的元素，其余置零："},
    {"the size-1 dims broadcast over (bsz, n_heads); -inf above the diagonal becomes weight 0 after softmax, so no "
     "token looks at a later one (chapter 4).",
     "大小为 1 的维度广播到 (bsz, n_heads)；对角线上方的 -inf 在 softmax 之后变成权重 0，所以没有哪个词元"
     "能看到排在它后面的词元（第 4 章）。"},
    {"the seqlen x seqlen mask buffers, seqlen = %.0f", "seqlen x seqlen 的掩码缓冲区，seqlen = %.0f"},
    {"the (d_out, d_in) weight of nn.Linear, d_in = %.0f, d_out = %.0f",
     "nn.Linear 的 (d_out, d_in) 权重，d_in = %.0f，d_out = %.0f"},
    {"the (bsz, seqlen, d) activations, bsz = %.0f, seqlen = %.0f",
     "(bsz, seqlen, d) 的激活值，bsz = %.0f，seqlen = %.0f"},
    {NULL, NULL}};
