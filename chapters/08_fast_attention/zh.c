/* zh.c — chapter 8's narration in Chinese (lang.h): each English string as
 * main.c writes it, beside its translation. Terms: docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter8_zh[];

const LangPair chapter8_zh[] = {
    {"Fast attention: naive, reordered, tiled, online softmax and flash (streaming)\n"
     "attention, timed against the cost model.\n"
     "Random (--batch, --heads, --seq-len, --d-k) inputs, or --q/--k/--v files (then\n"
     "those four are ignored); --quiet runs only --impl. --dump DIR writes output.npy,\n"
     "attn_weights.npy (the reference's) and, with --impl flash, lse.npy (the\n"
     "logsumexp of each row, (..., T)).",
     "快速注意力：朴素（naive）、调换循环顺序（reordered）、分块（tiled）、在线\n"
     "softmax（online）和流式的 flash 注意力，逐个计时，并与成本模型对照。\n"
     "输入为随机张量（--batch、--heads、--seq-len、--d-k），或 --q/--k/--v 文件\n"
     "（此时忽略前面四个参数）；--quiet 只运行 --impl 指定的版本。--dump DIR 写出\n"
     "output.npy、attn_weights.npy（参考实现的）以及（--impl flash 时）lse.npy\n"
     "（每一行的 logsumexp，(..., T)）。"},
    {"Chapter 8: fast attention -- from naive to streaming (flash) attention%s",
     "第 8 章：快速注意力——从朴素实现到流式（flash）注意力%s"},
    {" (causal)", "（因果）"},
    {"The inputs: query, key and value of one attention call", "输入：一次注意力调用的查询、键和值"},
    {"query %s, key %s, value %s", "查询 %s，键 %s，值 %s"},
    {"each (batch, head) slice is one attention problem of T queries against S keys; "
     "--batch, --heads, --seq-len and --d-k set the size (--seed the numbers).",
     "每个（批，头）切片都是一个独立的注意力问题：T 个查询对 S 个键；--batch、--heads、"
     "--seq-len 和 --d-k 决定大小（--seed 决定数值）。"},

    /* the cost model */
    {"The cost model: how much work, and how much memory the scores take",
     "成本模型：要做多少计算，注意力分数要占多少内存"},
    {"FLOPs = 2·T·S·d_k (q·kᵀ) + 2·T·S·d_v (p_attn·v) per head",
     "每个头的 FLOPs = 2·T·S·d_k（q·kᵀ）+ 2·T·S·d_v（p_attn·v）"},
    {"      = %.4g GFLOP for this call", "      = %.4g GFLOP（本次调用）"},
    {"        (halved: causal, only the keys j <= i count)", "        （减半：因果注意力只算 j <= i 的键）"},
    {"scores: T x S = %lld x %lld floats per slice, %.0f slices = %s (p_attn as much again)",
     "注意力分数：每个切片 T x S = %lld x %lld 个 float，共 %.0f 个切片 = %s（p_attn 还要再占这么多）"},
    {"every query meets every key, so both grow as T·S: doubling T quadruples them. Each "
     "score costs d_k + d_v = %lld multiply-adds; the score matrix (%s here) is what "
     "outgrows the caches and then memory: 1 GiB per head at T = 16384.",
     "每个查询都要和每个键相遇，所以两者都按 T·S 增长：T 翻一倍，它们变成四倍。每个分数"
     "要做 d_k + d_v = %lld 次乘加；先是放不进缓存、再是放不进内存的，正是分数矩阵（这里"
     "是 %s）：每个头 1 GiB（T = 16384 时）。"},

    /* the ceiling */
    {"This core's ceiling: a loop of fused multiply-adds and nothing else", "本核的峰值：只做融合乘加（FMA）的循环"},
    {"ceiling = %.1f GFLOP/s on one core (2 FLOPs per fused multiply-add)",
     "峰值 = 单核 %.1f GFLOP/s（每次融合乘加算 2 个 FLOP）"},
    {"no attention can beat the rate at which this core multiplies and adds; the share of "
     "it that a version reaches says how much time goes to waiting for memory, "
     "bookkeeping and exp.",
     "任何注意力实现都快不过这个核做乘加的速度；一个版本达到了峰值的几成，就说明有多少"
     "时间花在了等待内存、簿记和 exp 上。"},

    /* the reference */
    {"The reference: chapter %d's %s", "参考实现：第 %d 章的 %s"},
    {"%s: %.2f ms = %.1f GFLOP/s = %.0f%% of this core's ceiling%s%s",
     "%s：%.2f ms = %.1f GFLOP/s = 本核峰值的 %.0f%%%s%s"},
    {"; extra memory ", "；额外内存 "},
    {"%s: skipped: its scores would take %s, more than the %s this chapter allows for them.",
     "%s：跳过：它的注意力分数要占 %s，超过了本章给分数留的 %s。"},
    {"max |output - reference| = %.3g", "max |output - reference|（与参考实现之差）= %.3g"},
    {"the Tensor library of chapters 0-7 is written to be read, not to be fast: each op "
     "makes a new tensor, matmul sums in double and walks any strides. It is the answer "
     "the five versions below must give (to 1e-5, tested).",
     "第 0-7 章的 Tensor 库是写给人读的，不是为了快：每个操作都新建一个张量，matmul "
     "用 double 求和，并且能按任意步长遍历。下面五个版本都必须给出它的答案（误差在 "
     "1e-5 以内，有测试）。"},

    /* the five versions: their titles and why lines (STEP_TITLE, STEP_WHY) */
    {"naive: the three lines as loops, the whole (..., T, S) score matrix in memory",
     "naive：把那三行写成循环，整个 (..., T, S) 分数矩阵放在内存里"},
    {"reordered: the same loops in an order whose inner loops run over contiguous memory",
     "reordered：同样的循环，换一个顺序，让内层循环走在连续的内存上"},
    {"tiled: blocks that stay in the caches, a tile of sums in registers",
     "tiled：分块，让块留在缓存里，一块部分和留在寄存器里"},
    {"online: one query row at a time, max and sum in one pass", "online：一次一行查询，最大值和求和一遍完成"},
    {"flash: tiles of queries x tiles of keys, running max, sum and output",
     "flash：查询块 x 键块，边算边更新最大值、和与输出"},
    {"the sum q·k over d_k goes into one variable, and without -ffast-math the compiler must add "
     "in order, one add at a time; output = p_attn · v walks down a column of v, d_v floats apart. "
     "And the scores take 4·T·S bytes per head: 1 GiB at T = 16384.",
     "q·k 沿 d_k 的求和都加到同一个变量上，没有 -ffast-math 时编译器只能按顺序一次加一个；"
     "output = p_attn · v 沿着 v 的一列往下走，每步跨过 d_v 个 float。而且分数每个头占 "
     "4·T·S 字节：1 GiB（T = 16384 时）。"},
    {"key is transposed once, so a row of scores is built as q[i][c] · kt[c][:] summed over c: the "
     "inner loop writes S independent scores, which the compiler can compute a vector at a time "
     "(%d floats in this build); the output row is p[i][j] · v[j][:] summed over j, again along a "
     "row. The softmax's max keeps %d partial results and its sum %d, and exp is a polynomial, so "
     "they vectorise too.",
     "键先转置一次，于是一行分数按 q[i][c] · kt[c][:] 对 c 求和来构造：内层循环写 S 个"
     "互相独立的分数，编译器可以一次算一个向量（本次构建中是 %d 个 float）；输出的一行是 "
     "p[i][j] · v[j][:] 对 j 求和，同样沿着一行走。softmax 的最大值保留 %d 个部分结果，"
     "求和保留 %d 个，exp 用多项式计算，所以它们也能向量化。"},
    {"reordered reloads every partial sum from memory for each of the d_k steps and streams all of "
     "kt through the cache for every query. Here a tile of %d query rows x %d keys of sums (this "
     "build's register tile) stays in registers for the whole sum, and a block of %d queries "
     "meets a panel of %d keys while both are in cache. The scores are still all stored.",
     "reordered 在 d_k 的每一步都要从内存重新读入每个部分和，并且每个查询都要让整个 kt "
     "流过一遍缓存。这里 %d 行查询 x %d 个键的一块部分和（本次构建的寄存器块）在整个"
     "求和过程中都留在寄存器里，%d 个查询的块和 %d 个键的面板趁两者都在缓存里时相遇。"
     "分数仍然全部存储。"},
    {"one query row at a time: that alone takes the memory from O(T·S) to one row, O(S). The online "
     "softmax makes the row one pass: a running max m, sum l and output acc, one exp per key, and "
     "acc and l shrink by exp(m_old - m_new) when the max grows; output = acc / l. Key by key, so "
     "about as fast as reordered. Causal rows stop at their own position.",
     "一次一行查询：单这一点就把内存从 O(T·S) 降到一行，O(S)。在线 softmax 让这一行一遍"
     "算完：边走边维护最大值 m、和 l 与输出 acc，每个键一次 exp，最大值变大时 acc 和 l "
     "乘以 exp(m_old - m_new) 缩小；output = acc / l。逐个键计算，所以速度和 reordered "
     "差不多。因果注意力的行在自己的位置处停下。"},
    {"online's update applied to tiles of %d queries x %d keys (o = o·exp(m_old - m_new) + P·V), "
     "divided by l once at the end: the speed of tiled with no (T, S) matrix and no row, extra "
     "memory O(S·d) for the packed keys and O(tile) for the rest. Causal runs skip the key tiles "
     "wholly above the diagonal instead of computing and masking them.",
     "把 online 的更新用在 %d 个查询 x %d 个键的块上（o = o·exp(m_old - m_new) + P·V），"
     "最后只除一次 l：有 tiled 的速度，却没有 (T, S) 矩阵，也没有整行；额外内存是打包"
     "键的 O(S·d) 加上其余的 O(tile)。因果注意力跳过完全位于对角线上方的键块，而不是先"
     "算出来再用掩码遮住。"},

    /* the PyTorch lines (their comments and words; the code stays as it is) */
    {"(no PyTorch line: acc = fmaf(acc, a, b) on %d independent floats, over and over)",
     "（没有对应的 PyTorch 代码：acc = fmaf(acc, a, b)，在 %d 个互相独立的 float 上反复执行）"},
    {"xq = torch.randn(bsz, n_heads, seqlen, head_dim)   # and xk, xv: chapter 5's shapes",
     "xq = torch.randn(bsz, n_heads, seqlen, head_dim)   # xk、xv 同样：第 5 章的形状"},
    {"kt = key.transpose(-2, -1).contiguous()   # then every inner loop walks a row",
     "kt = key.transpose(-2, -1).contiguous()   # 之后每个内层循环都沿着一行走"},
    {"scores[i0:i1, j0:j1] = q[i0:i1] @ kt[:, j0:j1]   # each block of %d queries x %d keys, in cache",
     "scores[i0:i1, j0:j1] = q[i0:i1] @ kt[:, j0:j1]   # 每块 %d 个查询 x %d 个键，在缓存里"},
    {"m_new = max(m, s_j); l = l * exp(m - m_new) + exp(s_j - m_new)   # over one row, read once "
     "(Milakov & Gimelshein 2018)",
     "m_new = max(m, s_j); l = l * exp(m - m_new) + exp(s_j - m_new)   # 沿一行，只读一遍"
     "（Milakov & Gimelshein 2018）"},
    {"F.scaled_dot_product_attention(query, key, value, is_causal=causal)   # PyTorch 2's fused kernel",
     "F.scaled_dot_product_attention(query, key, value, is_causal=causal)   # PyTorch 2 的融合内核"},

    /* the summary table */
    {"What each step bought (T = %lld, S = %lld, %s)", "每一步换来了什么（T = %lld，S = %lld，%s）"},
    {"causal", "因果"},
    {"not causal", "非因果"},
    {"version", "版本"},
    {"%% peak", "峰值%%"},
    {"extra mem", "额外内存"},
    {"x naive", "比 naive"},
    {"skipped", "跳过"},
    {"the same numbers every time up to rounding, different orders of work. make bench "
     "measures this table for T = 256 .. 4096 (and PyTorch with make bench-torch).",
     "每次都是同样的数（至多差在舍入上），只是计算的顺序不同。make bench 对 "
     "T = 256 .. 4096 测这张表（make bench-torch 还会测 PyTorch）。"},
    {"The output of --impl %s", "--impl %s 的输出"},
    {"--output FILE writes it as .npy; --quiet prints only this and its time.",
     "--output FILE 把它写成 .npy；--quiet 只打印它和它的用时。"},

    /* --quiet, --dump */
    {"%s: %.2f ms, %.1f GFLOP/s, extra memory %s", "%s：%.2f ms，%.1f GFLOP/s，额外内存 %s"},
    {"output: shape %s (--output FILE writes it all)", "output：形状 %s（--output FILE 会把它全部写出）"},
    {"kernel: %.2f ms (%.1f GFLOP/s); whole process so far: %.2f ms",
     "内核：%.2f ms（%.1f GFLOP/s）；到目前为止整个进程：%.2f ms"},
    {"chapter8: note: --dump writes output.npy but not attn_weights.npy: the "
     "reference's weights would take %s, more than the %s this chapter allows for them\n",
     "chapter8：注意：--dump 写出 output.npy，但不写 attn_weights.npy：参考实现的注意力"
     "权重要占 %s，超过了本章给它们留的 %s\n"},

    /* a score-storing version over its cap (fast_attention.c) */
    {"attention_%s: the scores %s would take %s, more than the %s this chapter allows for them; "
     "attention_flash (--impl flash) never stores them",
     "attention_%s：注意力分数 %s 要占 %s，超过了本章给分数留的 %s；attention_flash（--impl flash）从不存储它们"},

    /* the memory refusal's parts (budget.h) */
    {"%.3g GFLOP of attention over T = %.0f, S = %.0f, %.0f slices%s",
     "%.3g GFLOP 的注意力计算，T = %.0f，S = %.0f，%.0f 个切片%s"},
    {", every version timed", "，每个版本都计时"},
    {"the sizes of --q/--k/--v", "--q/--k/--v 的大小"},
    {"--seq-len (or add --quiet)", "--seq-len（或加上 --quiet）"},
    {NULL, NULL}};
