/* zh.c — chapter 12's narration in Chinese (lang.h): each English string as
 * main.c writes it, beside its translation. Terms: docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter12_zh[];

const LangPair chapter12_zh[] = {
    {"Chapter 12: the backward pass of attention in O(T) memory (FlashAttention-2's\n"
     "backward): D = (grad_output * output).sum(-1), p_attn rebuilt from the\n"
     "forward's logsumexp, tile by tile, against chapter 10's full-matrix backward.\n"
     "Random (--batch, --heads, --seq-len, --d-k) inputs and grad_output, or\n"
     "--q/--k/--v (and --grad-output) files; --dump DIR writes output.npy lse.npy\n"
     "grad_q.npy grad_k.npy grad_v.npy; --quiet runs only --impl.",
     "第 12 章：只用 O(T) 内存的注意力反向传播（FlashAttention-2 的反向传播）：\n"
     "D = (grad_output * output).sum(-1)，用前向传播的 logsumexp 逐块重建 p_attn，\n"
     "并与第 10 章基于完整矩阵的反向传播对照。\n"
     "输入和 grad_output 为随机张量（--batch、--heads、--seq-len、--d-k），或\n"
     "--q/--k/--v（以及 --grad-output）文件；--dump DIR 写出 output.npy lse.npy\n"
     "grad_q.npy grad_k.npy grad_v.npy；--quiet 只运行 --impl 指定的反向传播。"},
    {"dloss/doutput .npy (..., T, d_v); else torch.randn", "dloss/doutput .npy (..., T, d_v)；不给时用 torch.randn"},
    {"--quiet/--dump backward: flash or reference", "--quiet/--dump 用的反向传播：flash 或 reference"},
    {"time both backwards at T = 1024, 2048, 4096", "在 T = 1024、2048、4096 上给两种反向传播计时"},
    {"%s does not apply to --bench, which times one head of its own T = 1024, 2048 and 4096",
     "%s 不适用于 --bench：它用自己的一个头、T = 1024、2048 和 4096 计时"},
    {"%s does not apply with --q, --k and --v, whose files give every size",
     "%s 不能和 --q、--k、--v 一起用：所有大小都由它们的文件决定"},
    {"--impl does not apply to --bench, which times both backwards", "--impl 不适用于 --bench：它给两种反向传播都计时"},
    {"--bench draws its own inputs and writes nothing; it does not take --q, --k, --v, --grad-output, "
     "--dump or --quiet",
     "--bench 自己生成输入，也不写任何文件；不接受 --q、--k、--v、--grad-output、--dump 或 --quiet"},

    /* the inputs and the forward */
    {"Chapter 12: the backward pass in O(T) memory (FlashAttention-2's backward)%s",
     "第 12 章：只用 O(T) 内存的反向传播（FlashAttention-2 的反向传播）%s"},
    {" (causal)", "（因果）"},
    {"The inputs, and a gradient for the output", "输入，以及输出的梯度"},
    {"q %s, k %s, v %s, grad_output %s", "形状：q %s，k %s，v %s，grad_output %s"},
    {"any loss reaches the attention only through dloss/doutput; loss = (output * grad_output).sum() "
     "has exactly grad_output as that gradient, so one random grad_output tests every path.",
     "任何损失都只能通过 dloss/doutput 到达注意力；loss = (output * grad_output).sum() 的这个"
     "梯度恰好就是 grad_output，所以一个随机的 grad_output 就能检验每一条路径。"},
    {"The forward (chapter 8's flash), keeping the output and lse", "前向传播（第 8 章的 flash），保留输出和 lse"},
    {"forward: %.2f ms; lse %s, one number per query row", "前向传播：%.2f ms；lse 的形状 %s，每行查询一个数"},
    {"chapter 10's forward keeps scores and p_attn for its backward (%s here); this one keeps "
     "the output and lse (%s): lse = m + log(l) of the running max and sum that chapter 8's "
     "flash has anyway, so p_attn = exp(scores - lse) can be rebuilt, tile by tile, when needed.",
     "第 10 章的前向传播为反向传播保留注意力分数和 p_attn（这里是 %s）；这里只保留输出和 "
     "lse（%s）：lse = m + log(l)，m 和 l 是第 8 章的 flash 本来就有的行最大值和求和，所以"
     "需要时可以用 p_attn = exp(scores - lse) 一块一块地重建。"},

    /* one row, D, P from lse */
    {"Chapter 10's backward of one row (row %lld of slice 0), on the full row",
     "第 10 章的做法：在整行上求一行的反向传播（第 %lld 行，属于切片 0）"},
    {"(dp * p).sum() = %.6f: it needs the whole row of p and of dp", "(dp * p).sum() = %.6f：它需要整行的 p 和 dp"},
    {"this is what chapter 10 does for every row at once: p, dp and ds are (T, S) each, "
     "%lld x %lld floats per slice here, and T·S grows as T²",
     "第 10 章对所有行一次做完这件事：p、dp 和 ds 各是 (T, S)，这里每个切片 %lld x %lld 个 "
     "float，而 T·S 按 T² 增长"},
    {"Why D = (grad_output * output).sum(-1) replaces that row sum", "为什么 D = (grad_output * output).sum(-1) 能代替这个行和"},
    {"sum_j p_j dp_j = sum_j p_j (dO_i . v_j) = dO_i . (sum_j p_j v_j) = dO_i . O_i",
     "推导：sum_j p_j dp_j = sum_j p_j (dO_i . v_j) = dO_i . (sum_j p_j v_j) = dO_i . O_i"},
    {"row %lld: (dp * p).sum() = %.6f, D[i] = %.6f, difference %.2g", "第 %lld 行：(dp * p).sum() = %.6f，D[i] = %.6f，相差 %.2g"},
    {"the same number, from two rows of d_v floats that the backward has anyway: no row of "
     "p_attn or dp_attn is needed to know it, so the tiles below never need a whole row.",
     "同一个数，只用反向传播本来就有的两行（各 d_v 个 float）算出：不需要 p_attn 或 dp_attn 的"
     "任何一行，所以下面的分块从来不需要整行。"},
    {"p_attn's row rebuilt from lse", "用 lse 重建 p_attn 的一行"},
    {"lse[i] = %.6f; max |exp(s - lse[i]) - softmax(s)| = %.2g over the %lld keys row %lld sees",
     "lse[i] = %.6f；max |exp(s - lse[i]) - softmax(s)| = %.2g，取遍 %lld 个键（第 %lld 行能看到的全部键）"},
    {"exp(s - lse) = exp(s) / sum_j exp(s_j): softmax, without its max or its sum, one "
     "entry at a time, so any tile of p_attn can be rebuilt on its own.",
     "exp(s - lse) = exp(s) / sum_j exp(s_j)：这就是 softmax，却不需要它的行最大值和求和，"
     "一次一个元素，所以 p_attn 的任何一块都能单独重建。"},

    /* the tiles */
    {"The backward tile by tile (FlashAttention-2)", "逐块的反向传播（FlashAttention-2）"},
    {"for K_j, V_j in tiles of %d keys, and Q_i, dO_i in blocks of %d queries:",
     "K_j、V_j 取每块 %d 个键的分块，Q_i、dO_i 取每块 %d 个查询的分块："},
    {"  P = exp(Q_i @ K_j.T / math.sqrt(d_k) - lse_i)   # (%d, %d)",
     "  P = exp(Q_i @ K_j.T / math.sqrt(d_k) - lse_i)   # 形状 (%d, %d)"},
    {"  dQ_i += dS @ K_j / math.sqrt(d_k)", "  dQ_i += dS @ K_j / math.sqrt(d_k)    # 每个键块各加一份"},
    {"  dK_j += dS.T @ Q_i / math.sqrt(d_k)", "  dK_j += dS.T @ Q_i / math.sqrt(d_k)  # 键块移走前就已算完"},
    {"flash backward: %.2f ms; %lld tiles computed (all slices)%s; extra memory %s",
     "flash 反向传播：%.2f ms；算了 %lld 个块（所有切片）%s；额外内存 %s"},
    {", none skipped (no mask)", "，一个也没跳过（没有掩码）"},
    {"causal: %lld tiles wholly above the diagonal skipped", "因果：跳过了 %lld 个完全位于对角线上方的块"},
    {"keys outside: a tile K_j, V_j meets every block of queries once, so dK_j and dV_j are "
     "finished when it moves on; dQ_i gathers one piece from every tile. P is 0 where the causal "
     "mask put -inf. The extra memory is D, one tile of P and of dP (then dS) and K_j, V_j "
     "transposed: O(T + tile), against the %lld x %lld matrices of step 3.",
     "键在外层循环：一个 K_j、V_j 块与每个查询块各相遇一次，所以它移到下一块时 dK_j 和 dV_j "
     "就算完了；dQ_i 从每个块各收集一份。因果掩码放了 -inf 的地方 P 为 0。额外内存是 D、"
     "P 和 dP（随后变成 dS）各一块，以及转置后的 K_j、V_j：O(T + tile)，而不是 "
     "%lld x %lld 的矩阵（第 3 步）。"},
    {"row %lld of grad_q: max |tiles - step 3| = %.2g", "grad_q 的第 %lld 行：max |分块 - 第 3 步| = %.2g"},

    /* the reference and the costs */
    {"The reference: chapter 10's backward on the full matrices", "参考实现：第 10 章基于完整矩阵的反向传播"},
    {"reference backward: %.2f ms; held at most %s beyond the inputs", "参考实现的反向传播：%.2f ms；除输入外最多占 %s"},
    {"max |flash - reference| / max |reference|: grad_q %.2g, grad_k %.2g, grad_v %.2g",
     "相对差 max |flash - reference| / max |reference|：grad_q %.2g，grad_k %.2g，grad_v %.2g"},
    {"reference: skipped: its (..., T, S) matrices would take about %s", "参考实现：跳过：它的 (..., T, S) 矩阵约要占 %s"},
    {"the same gradients up to float rounding (tested against PyTorch's autograd to 1e-4); "
     "--impl reference makes --quiet and --dump use this one.",
     "梯度相同，差别只在浮点舍入上（与 PyTorch 的 autograd 对照测试，误差在 1e-4 以内）；"
     "--impl reference 让 --quiet 和 --dump 用这一个。"},
    {"What each backward cost", "每种反向传播的代价"},
    {"FLOPs: forward 2·T·S·(d_k + d_v) = %.4g GFLOP", "FLOPs：前向传播 2·T·S·(d_k + d_v) = %.4g GFLOP"},
    {"backward 2·T·S·(3·d_k + 2·d_v) = %.4g GFLOP: %.2fx the forward",
     "反向传播 2·T·S·(3·d_k + 2·d_v) = %.4g GFLOP：是前向传播的 %.2fx"},
    {"(Q K^T once more, then dV, dP, dQ and dK: five matmuls against two)",
     "（再算一次 Q K^T，然后是 dV、dP、dQ 和 dK：五个 matmul，前向传播只有两个）"},
    {"time: forward %.2f ms, flash backward %.2f ms (%.2fx the forward)",
     "用时：前向传播 %.2f ms，flash 反向传播 %.2f ms（是前向传播的 %.2fx）"},
    {"memory beyond the inputs: flash %s (the three gradients, D and the tiles), reference %s",
     "除输入外的内存：flash %s（三个梯度、D 和分块），参考实现 %s"},
    {"memory beyond the inputs: flash %s (the three gradients, D and the tiles)",
     "除输入外的内存：flash %s（三个梯度、D 和分块）"},
    {"the reference's memory grows as T·S, the tiles' as T + S: at T = S = 16384 one head of "
     "the reference needs up to %s, the flash backward its three gradients and a few hundred KiB. Dropout is left "
     "out: its backward needs "
     "the forward's (T, S) mask, which FlashAttention regenerates from a counter-based generator.",
     "参考实现的内存按 T·S 增长，分块的按 T + S 增长：T = S = 16384 时，参考实现一个头最多"
     "要 %s，flash 反向传播只要三个梯度外加几百 KiB。这里没有 dropout：它的反向传播需要前向"
     "传播的 (T, S) 掩码，FlashAttention 用基于计数器的随机数生成器把它重新生成出来。"},

    /* --quiet, the memory refusal's parts */
    {"%s backward: %.2f ms, %.1f GFLOP/s, peak %s beyond the inputs", "%s 反向传播：%.2f ms，%.1f GFLOP/s，除输入外峰值 %s"},
    {"forward (chapter 8's flash): %.2f ms; backward / forward = %.2f",
     "前向传播（第 8 章的 flash）：%.2f ms；backward / forward = %.2f"},
    {"the reference backward's (..., T, S) matrices", "参考实现反向传播的 (..., T, S) 矩阵"},
    {"q, k, v, the output, its gradient and the three input gradients", "q、k、v、输出、输出的梯度和三个输入的梯度"},
    {"the sizes of --q/--k/--v", "--q/--k/--v 的大小"},

    /* the backward's errors about the files (exit 1) */
    {"%s: %s holds %s at flat index %lld: the backward needs finite numbers",
     "%s：%s 含有 %s（展平下标 %lld）：反向传播需要有限的数"},
    {"the backward needs finite numbers", "反向传播需要有限的数"},
    {"%s: query %s, key %s and value %s must have the same leading dims (the backward of a broadcast is left out: "
     "expand them first)",
     "%s：查询 %s、键 %s 和值 %s 的前面几维必须相同（这里不做广播的反向传播：先把它们 expand）"},
    {"%s: query %s and key %s have T %lld != S %lld, but a causal mask needs T == S",
     "%s：查询 %s 和键 %s 的 T %lld != S %lld，但因果掩码要求 T == S"},
    {"%s: grad_output %s must have the output's shape %s (..., T, d_v)",
     "%s：grad_output %s 必须和输出的形状 %s (..., T, d_v) 相同"},
    {"--q %s %s, --k %s %s and --v %s %s must have the same leading dims (the backward of a broadcast is left "
     "out: expand them first)",
     "--q %s %s、--k %s %s 和 --v %s %s 的前面几维必须相同（这里不做广播的反向传播：先把它们 expand）"},
    {"--grad-output %s %s must have the output's shape %s (..., T, d_v)",
     "--grad-output %s %s 必须和输出的形状 %s (..., T, d_v) 相同"},
    {"output", "输出"},
    {"lse (a score overflowed in the forward)", "lse（前向传播里有分数溢出）"},
    {NULL, NULL}};
