/* zh.c — chapter 5's narration in Chinese (lang.h): each English string as
 * main.c (and multi_head_setup.c) writes it, beside its translation. Terms:
 * docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter5_zh[];

const LangPair chapter5_zh[] = {
    {"Chapter 5: multi-head attention, split and merge (Happy-LLM 2.1.6), without W_o.\nCausal by default, like "
     "the README's 手撕 MHA class; --no-causal is the\nHappy-LLM class's default (is_causal=False). With "
     "--input/--weights the\nsizes and biases come from the files, and --heads must divide their d_out.\n--max-seq-len "
     "sets max_seq_len, the size of the mask buffer: by default 2 x T;\nwith --input, the input's T (or --seq-len).",
     "第 5 章：多头注意力，拆分与合并（Happy-LLM 2.1.6），不含 W_o。\n默认带因果掩码，和 README 里的手撕 MHA "
     "类一样；--no-causal 是\nHappy-LLM 那个类的默认（is_causal=False）。给 --input/--weights 时\n"
     "大小和偏置由文件决定，--heads 必须整除它们的 d_out。\n--max-seq-len 设定掩码缓冲区的大小 max_seq_len："
     "默认为 2 x T；\n给 --input 时为输入的 T（或 --seq-len）。"},
    {"Chapter 5: multi-head attention, split and merge (Happy-LLM 2.1.6)%s",
     "第 5 章：多头注意力，拆分与合并（Happy-LLM 2.1.6）%s"},
    {" -- with --no-causal", "——加了 --no-causal"},
    {"The module's projections and a random input x", "模块的投影和一个随机输入 x"},
    {"Load x from %s and the weights from %s", "从 %s 读入 x，从 %s 读入权重"},
    {"wq.weight, wk.weight, wv.weight: %s each (d_out, d_in)%s",
     "wq.weight、wk.weight、wv.weight：各为 %s (d_out, d_in)%s"},
    {", with biases", "，带偏置"},
    {"d_in = %lld is the width of each token vector and d_out = %lld the width of q, k and v, which the heads "
     "will share (Happy-LLM 2.1.6: args.n_embd and args.dim).",
     "d_in = %lld 是每个词元向量的宽度，d_out = %lld 是 q、k、v 的宽度，各个头从中各分一段"
     "（Happy-LLM 2.1.6：args.n_embd 和 args.dim）。"},
    {"One projection per Q, K, V, for all heads at once", "Q、K、V 各一个投影，所有头一起算"},
    {"Happy-LLM's nn.Linear(args.n_embd, self.n_heads * self.head_dim): one (d_out, d_in) matrix holds the "
     "n_heads small (head_dim, d_in) matrices stacked row after row, so one matmul projects for every head.",
     "Happy-LLM 的 nn.Linear(args.n_embd, self.n_heads * self.head_dim)：一个 (d_out, d_in) 矩阵按行依次"
     "堆着 n_heads 个 (head_dim, d_in) 小矩阵，所以一次矩阵乘法就为每个头都做了投影。"},
    {"head_dim = d_out // n_heads = %lld // %lld = %lld", "头维度 head_dim = d_out // n_heads = %lld // %lld = %lld"},
    {"view must cut each token's d_out values into n_heads pieces of one whole head_dim, so d_out must be a "
     "multiple of n_heads (--heads 3 --d-out 4 is refused).",
     "view 要把每个词元的 d_out 个值切成 n_heads 段、每段正好一个 head_dim，所以 d_out 必须是 n_heads "
     "的整数倍（--heads 3 --d-out 4 会被拒绝）。"},
    {"model_parallel_size = 1, so n_local_heads = n_heads = %lld: this one process computes every head.",
     "model_parallel_size = 1，所以 n_local_heads = n_heads = %lld：所有的头都由这一个进程计算。"},
    {"each head only ever reads its own head_dim columns of xq, xk and xv, so the heads are independent: with "
     "model_parallel_size = 2, each of two workers (GPUs) would hold n_local_heads = n_heads // 2 heads -- their "
     "rows of wq, wk, wv -- and compute them without talking to the other; only the merge needs all heads.",
     "每个头只读 xq、xk、xv 中属于自己的 head_dim 列，所以各头互不依赖：若 model_parallel_size = 2，两个"
     "工作进程（GPU）各持有 n_local_heads = n_heads // 2 个头（即 wq、wk、wv 中对应的行），各算各的，"
     "互不通信；只有合并时才需要所有的头。"},
    {"Split, part 1: view the last dim as (n_heads, head_dim)", "拆分，第 1 步：把最后一维 view 成 (n_heads, head_dim)"},
    {"view only re-reads the same numbers with a new shape: the %lld values of one token are now %lld heads of "
     "%lld, and nothing is copied (same storage, same offset).",
     "view 只是给同一份存储换上新的形状：一个词元的 %lld 个值现在是 %lld 个头、每头 %lld 个，"
     "什么也没有复制（同一份存储，同一个偏移）。"},
    {"Split, part 2: move the heads in front of the tokens", "拆分，第 2 步：把头挪到词元前面"},
    {"transpose swaps two strides, still without copying, so the tensor is no longer contiguous. Now (bsz, "
     "n_heads) lead like batch dims: xq[b, h] is head h's own (seqlen, head_dim) matrix, and xq[b, h, t, j] is "
     "xq_before[b, t, h * %lld + j].",
     "transpose 交换两个步长，仍然不复制，于是张量不再连续。现在 (bsz, n_heads) 像批维一样排在前面："
     "xq[b, h] 是头 h 自己的 (seqlen, head_dim) 矩阵，xq[b, h, t, j] 就是 xq_before[b, t, h * %lld + j]。"},
    {"shares storage with the projection: %s", "与投影结果共用存储：%s"},
    {"Scores for every head at once, scaled by sqrt(head_dim)%s",
     "所有头的注意力分数一起算，除以 sqrt(head_dim) 缩放%s"},
    {", with chapter 4's causal mask", "，并加上第 4 章的因果掩码"},
    {"matmul treats (bsz, n_heads) as batch dims: %lld independent (seqlen, head_dim) @ (head_dim, seqlen) "
     "products. Each head's dot products have head_dim = %lld terms, so it is scaled by sqrt(head_dim), not "
     "sqrt(d_out)%s.",
     "matmul 把 (bsz, n_heads) 当作批维：%lld 个互不相关的 (seqlen, head_dim) @ (head_dim, seqlen) 乘积。"
     "每个头的点积有 head_dim = %lld 项，所以除以 sqrt(head_dim)，而不是 sqrt(d_out)%s。"},
    {"; the one (1, 1, T, T) mask broadcasts over every batch and head",
     "；那一个 (1, 1, T, T) 掩码广播到每个批和每个头"},
    {"Softmax: one attention pattern per head", "softmax：每个头一种注意力模式"},
    {"every row of every head sums to 1. The heads see different projections of the same tokens, so they can "
     "attend differently: that is the point of having several.",
     "每个头的每一行之和都为 1。各头看到的是同一批词元的不同投影，所以可以关注不同的地方：这正是"
     "要用多个头的意义。"},
    {"Weighted sum of the values, per head", "每个头各自对值做加权和"},
    {"each head mixes the rows of its own head_dim-wide slice of the values; the result is still split by head, "
     "(bsz, n_heads, seqlen, head_dim) = %s.",
     "每个头只混合值中属于自己、宽为 head_dim 的那一片的各行；结果仍按头分开，"
     "(bsz, n_heads, seqlen, head_dim) = %s。"},
    {"Merge, part 1: tokens back in front of the heads", "合并，第 1 步：把词元挪回头的前面"},
    {"the heads of one token are next to each other again in the shape, but not in memory: the strides jump, so "
     "view cannot glue the last two dims into one.",
     "同一个词元的各个头在形状上又挨在一起了，在内存里却没有：步长是跳跃的，所以 view 无法把最后两维"
     "粘成一维。"},
    {"Merge, part 2: contiguous() copies into row-major order", "合并，第 2 步：contiguous() 按行优先的顺序复制一份"},
    {"shares storage with the transposed view: %s", "与转置后的视图共用存储：%s"},
    {"in PyTorch, .view() on the transposed tensor fails (\"view size is not compatible with input tensor's size "
     "and stride\"); contiguous() (or reshape, which copies when it must) is the fix.",
     "在 PyTorch 里，对转置后的张量调用 .view() 会失败（“view size is not compatible with input tensor's "
     "size and stride”）；解决办法是 contiguous()（或 reshape，它在必要时会复制）。"},
    {"Merge, part 3: view (n_heads, head_dim) as one d_out", "合并，第 3 步：把 (n_heads, head_dim) view 成一个 d_out"},
    {"columns h*head_dim .. (h+1)*head_dim-1 of each token hold head h's result: the heads are concatenated, %s "
     "-> %s. Chapter 7 adds W_o to mix them.",
     "每个词元的第 h*head_dim .. (h+1)*head_dim-1 列是头 h 的结果：各头拼接在一起，%s -> %s。"
     "第 7 章再加上 W_o 把它们混合起来。"},
    {"A common mistake: view straight into heads, without transpose", "一个常见错误：不做 transpose，直接 view 成多头"},
    {"the shapes agree, so PyTorch raises nothing. But head 0 should hold columns 0..%lld of every token; "
     "xq_wrong[0, 0] is just the first seqlen x head_dim numbers in memory: token 0's whole row, then token 1's, "
     "and so on. Heads and tokens are mixed.",
     "形状对得上，所以 PyTorch 不报任何错。但头 0 应当持有每个词元的第 0..%lld 列；xq_wrong[0, 0] 却只是"
     "内存里最前面的 seqlen x head_dim 个数：词元 0 的一整行，接着是词元 1 的，依此类推。头和词元混在了"
     "一起。"},
    {"max |output_wrong - output| = %.4f: the same shapes, different numbers.",
     "max |output_wrong - output| = %.4f：形状相同，数值不同。"},
    {"The same in one call", "一次调用做完同样的事"},
    {"max |multi_head_attention - output| = %g", "两者之差 max |multi_head_attention - output| = %g"},
    {"multi_head_attention() is the three steps above, for chapter 7 to call.",
     "multi_head_attention() 就是上面的三步，供第 7 章调用。"},
    {"n_heads separate single-head attentions give the same output", "n_heads 个独立的单头注意力给出同样的输出"},
    {"max |wrapper - output| = %g", "两者之差 max |wrapper - output| = %g"},
    {"head h of the wrapper is a single-head self-attention whose wq, wk, wv are rows h*head_dim .. "
     "(h+1)*head_dim-1 of the big matrices. Projecting with the big matrix and splitting equals projecting with "
     "each small one and concatenating (矩阵内积再拼接 = 拼接矩阵再内积), so the split version is the wrapper with "
     "one matmul instead of n_heads -- and each head here could run on its own worker.",
     "wrapper 的头 h 是一个单头自注意力，它的 wq、wk、wv 是大矩阵的第 h*head_dim .. (h+1)*head_dim-1 行。"
     "用大矩阵投影再拆分，等于用每个小矩阵投影再拼接（矩阵内积再拼接 = 拼接矩阵再内积），所以拆分的写法"
     "就是用一次矩阵乘法代替 n_heads 次的 wrapper——而这里的每个头都可以在各自的工作进程上运行。"},
    {"attention weights (causal)", "注意力权重（因果掩码）"},
    {"attention weights", "注意力权重"},
    /* the memory refusal of multi_head.c (through t_tr, common/error.h) */
    {"multi-head attention: the scores (%lld, %lld, %lld, %lld) need %s of float32, more than "
     "the %s limit (ATTN_MAX_BYTES), because naive attention stores every query-key score at "
     "once; chapter 8 (fast attention) computes the same output without storing them",
     "multi-head attention：注意力分数 (%lld, %lld, %lld, %lld) 需要 %s 的 float32，超过了 %s 的上限"
     "（ATTN_MAX_BYTES），因为朴素的注意力要同时存下每一对查询和键的分数；第 8 章（快速注意力）不存"
     "它们也能算出同样的输出"},
    {NULL, NULL}};
