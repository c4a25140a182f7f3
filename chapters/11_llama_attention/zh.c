/* zh.c — chapter 11's narration in Chinese (lang.h): each English string as
 * main.c and generate_setup.c write it, beside its translation. Terms: docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter11_zh[];

const LangPair chapter11_zh[] = {
    /* --help */
    {"Chapter 11: LLaMA2's attention (Happy-LLM 5.1.3): RoPE, grouped-query heads\n"
     "(n_kv_heads, repeat_kv) and the KV cache. Default: the book's test,\n"
     "torch.manual_seed(N); Attention(ModelConfig(dim, n_heads, n_kv_heads,\n"
     "max_seq_len, dropout)); x = torch.rand(B, T, dim), with PyTorch's numbers.\n"
     "--decode N (eval) prefills T - N positions and decodes the last N through\n"
     "the cache; --prefill-chunk N prefills N positions at a time (without\n"
     "--decode: all T); --output then holds all T rows. --input/--weights read x and\n"
     "wq wk wv wo (and freqs_cos freqs_sin when there); --dump writes them.",
     "第 11 章：LLaMA2 的注意力（Happy-LLM 5.1.3）：RoPE、分组查询的头\n"
     "（n_kv_heads、repeat_kv）和 KV 缓存。默认运行书中的测试：torch.manual_seed(N)；\n"
     "模型 Attention(ModelConfig(dim, n_heads, n_kv_heads, max_seq_len, dropout))；\n"
     "输入 x = torch.rand(B, T, dim)，数值与 PyTorch 相同。\n"
     "--decode N（评估模式）预填充前 T - N 个位置，再经缓存逐个解码最后 N 个；\n"
     "--prefill-chunk N 每次预填充 N 个位置（不给 --decode 时为全部 T 个）；\n"
     "此时 --output 保存全部 T 行。--input/--weights 读入 x 和 wq wk wv wo\n"
     "（有 freqs_cos freqs_sin 时也读入）；--dump 把它们写出。"},
    {"width of x and of the output", "x 和输出的宽度"},
    {"query heads", "查询头数"},
    {"key/value heads (H: MHA, 1: MQA)", "键/值头数（H：MHA，1：MQA）"},
    {"prefill T - N, decode N one by one (eval)", "预填充 T - N 个，逐个解码 N 个（评估模式）"},
    {"prefill N positions at a time, 0: at once (eval)", "每次预填充 N 个位置，0：一次全部（评估模式）"},
    {"RoPE's base theta, the book's", "RoPE 的底数 theta，默认取书中的值"},
    {"time the KV cache (prints only)", "为 KV 缓存计时（只打印）"},
    {"chapter 10's --train --dump: generate", "用第 10 章 --train --dump 的模型生成"},
    {"--generate's prompt, tokens A..H", "--generate 的提示，词元 A..H"},
    {"--generate: how many tokens", "--generate：生成多少个词元"},
    /* the narration */
    {"Chapter 11: LLaMA2's attention: RoPE, grouped-query heads, the KV cache (5.1.3)",
     "第 11 章：LLaMA2 的注意力：RoPE、分组查询的头、KV 缓存（5.1.3）"},
    {"The module and a random input, as in the book's test (5.1.3.3)", "模块和一个随机输入，与书中的测试相同（5.1.3.3）"},
    {"x from %s, wq wk wv wo from %s: their shapes give bsz, seqlen and dim",
     "x 来自 %s，wq wk wv wo 来自 %s：bsz、seqlen 和 dim 由它们的形状决定"},
    {"The module, and x from --input instead of the book's torch.rand (5.1.3.3)",
     "模块，以及来自 --input 的 x（代替书中的 torch.rand）（5.1.3.3）"},

    /* usage errors (exit 2): flags that cannot work together */
    {"%s does not apply to --generate, which runs chapter 10's tiny model as its folder holds it",
     "%s 不适用于 --generate：它按文件夹里保存的样子运行第 10 章的小模型"},
    {"%s applies only with --generate DIR", "%s 只能和 --generate DIR 一起用"},
    {"%s does not apply to --bench, which times sizes of its own and writes nothing",
     "%s 不适用于 --bench：它用自己的大小计时，也不写任何文件"},
    {"%s does not apply with --input, whose file gives bsz, seqlen and dim",
     "%s 不能和 --input 一起用：bsz、seqlen 和 dim 由它的文件决定"},
    {"%s %lld: n_kv_heads = %lld must divide n_heads = %lld: each key/value head serves a whole group of query heads",
     "%s %lld：n_kv_heads = %lld 必须整除 n_heads = %lld：每个键/值头服务一整组查询头"},
    {"--dim %lld: dim = %lld is smaller than n_heads = %lld, so head_dim = dim // n_heads is 0",
     "--dim %lld：dim = %lld 小于 n_heads = %lld，所以 head_dim = dim // n_heads 为 0"},
    {"--dim %lld --n-heads %lld: RoPE rotates pairs of numbers, so head_dim must be even and at least 2, but it is "
     "%lld",
     "--dim %lld --n-heads %lld：RoPE 成对旋转数字，所以 head_dim 必须是至少为 2 的偶数，但它是 %lld"},
    {"--seq-len %lld is longer than --max-seq-len %lld, the size of the causal mask buffer",
     "--seq-len %lld 超过了因果掩码缓冲区的大小 --max-seq-len %lld"},
    {"--decode %lld asks for more steps than the %lld positions of the sequence",
     "--decode %lld 要求的步数多于序列的 %lld 个位置"},
    {"--prefill-chunk %lld is longer than the %lld positions to prefill (T = %lld, --decode %lld)",
     "--prefill-chunk %lld 长于要预填充的 %lld 个位置（T = %lld，--decode %lld）"},

    /* errors of the files (exit 1) */
    {"weights folder '%s' has only one of freqs_cos.npy and freqs_sin.npy: give both or neither",
     "权重文件夹 '%s' 里只有 freqs_cos.npy 和 freqs_sin.npy 中的一个：要么都给，要么都不给"},
    {"%s: freqs_cos.npy %s and freqs_sin.npy %s must both be (T, head_dim / 2) = (%lld, %lld)",
     "%s：freqs_cos.npy %s 和 freqs_sin.npy %s 都必须是 (T, head_dim / 2) = (%lld, %lld)"},
    {"the attention needs finite numbers", "注意力需要有限的数"},
    {"%s has shape %s but --input must be (bsz, seqlen, dim) with every size at least 1",
     "%s 的形状是 %s，但 --input 必须是 (bsz, seqlen, dim)，且每个大小至少为 1"},
    {"%s/wk.npy has shape %s: its rows must be n_kv_heads * head_dim with head_dim = dim // n_heads = %lld // %lld",
     "%s/wk.npy 的形状是 %s：它的行数必须是 n_kv_heads * head_dim，其中 head_dim = dim // n_heads = %lld // %lld"},
    {"weights folder '%s' has its own freqs_cos.npy and freqs_sin.npy, so --rope-theta %g would not be used: "
     "remove the tables or the flag",
     "权重文件夹 '%s' 里有自己的 freqs_cos.npy 和 freqs_sin.npy，所以 --rope-theta %g 不会被用到："
     "去掉这两张表或这个参数"},
    {"ModelConfig: dim = %lld, n_heads = %lld, n_kv_heads = %lld and max_seq_len = %lld must all be at least 1",
     "ModelConfig：dim = %lld、n_heads = %lld、n_kv_heads = %lld 和 max_seq_len = %lld 都必须至少为 1"},
    {"ModelConfig: dim = %lld is smaller than n_heads = %lld, so head_dim = dim // n_heads is 0",
     "ModelConfig：dim = %lld 小于 n_heads = %lld，所以 head_dim = dim // n_heads 为 0"},
    {"ModelConfig: dropout = %g is not a probability; it must be between 0 and 1",
     "ModelConfig：dropout = %g 不是概率；它必须在 0 和 1 之间"},
    {"%s.npy has shape %s but must be (%s, dim) = (%lld, %lld) here",
     "%s.npy 的形状是 %s，但这里必须是 (%s, dim) = (%lld, %lld)"},
    {"wo.npy has shape %s but must be (dim, n_heads * head_dim) = (%lld, %lld) here",
     "wo.npy 的形状是 %s，但这里必须是 (dim, n_heads * head_dim) = (%lld, %lld)"},
    {"n_kv_heads = %lld must divide n_heads = %lld: each key/value head serves a whole group of query heads",
     "n_kv_heads = %lld 必须整除 n_heads = %lld：每个键/值头服务一整组查询头"},
    {"RoPE rotates pairs of numbers, so head_dim must be even and at least 2, but it is %lld",
     "RoPE 成对旋转数字，所以 head_dim 必须是至少为 2 的偶数，但它是 %lld"},
    {"dim = %lld, n_heads = %lld, n_kv_heads = %lld, n_rep = %lld, head_dim = %lld, max_seq_len = %lld, dropout = %g "
     "(%s)",
     "模型大小：dim = %lld，n_heads = %lld，n_kv_heads = %lld，n_rep = %lld，head_dim = %lld，max_seq_len = %lld，"
     "dropout = %g（%s模式）"},
    {"training", "训练"},
    {"eval", "评估"},
    {"wq %s, wk %s, wv %s, wo %s: %lld parameters", "wq %s，wk %s，wv %s，wo %s：共 %lld 个参数"},
    {"wk and wv map dim to n_kv_heads * head_dim, fewer numbers than wq's n_heads * head_dim when n_kv_heads < "
     "n_heads; no bias anywhere.",
     "wk 和 wv 把 dim 映射到 n_kv_heads * head_dim，n_kv_heads < n_heads 时比 wq 的 n_heads * head_dim "
     "少；各处都不带偏置。"},
    {"RoPE: the tables and the turn (5.1.3.2)", "RoPE：频率表和旋转（5.1.3.2）"},
    {"theta = %g (--rope-theta X; the book's is 10000; Code Llama uses 1e6, Llama 3 500000)",
     "theta = %g（--rope-theta X；书中为 10000；Code Llama 用 1e6，Llama 3 用 500000）"},
    {"pair i of a head, (x[2i], x[2i+1]), is turned by the angle m * theta^(-2i/head_dim) at position m; row 0 is "
     "not turned (cos 1, sin 0), the first pair turns fastest.",
     "一个头的第 i 对数 (x[2i], x[2i+1]) 在位置 m 旋转 m * theta^(-2i/head_dim) 的角度；第 0 行不旋转"
     "（cos 为 1，sin 为 0），第一对转得最快。"},
    {"one q and one k (token 0, head 0) turned to positions m and n:", "同一个 q 和 k（词元 0，头 0）分别转到位置 m 和 n："},
    {"q_2 . k_0 = %.6f   q_%lld . k_%lld = %.6f   (offset 2 both)", "q_2 . k_0 = %.6f   q_%lld . k_%lld = %.6f   （两者相距都是 2）"},
    {"q_2 . k_1 = %.6f   (offset 1)", "q_2 . k_1 = %.6f   （相距 1）"},
    {"a turn by m then a turn back by n is a turn by m - n: the score sees how far apart two tokens are, not where "
     "they are.",
     "先转 m 再反转 n，等于转 m - n：注意力分数看到的是两个词元相距多远，而不是它们在哪里。"},
    {"RoPE as complex numbers: (a + ib)(cos t + i sin t)", "把 RoPE 看成复数乘法：(a + ib)(cos t + i sin t)"},
    {"xq[0, %lld, 0], pair %lld: a + ib = %.6f %+.6fi, t = %lld x theta^(-%lld/%lld): cos t = %.6f, sin t = %.6f",
     "xq[0, %lld, 0] 的第 %lld 对：a + ib = %.6f %+.6fi；角度 t = %lld x theta^(-%lld/%lld)，"
     "其 cos t = %.6f，而 sin t = %.6f"},
    {"(a + ib)(cos t + i sin t) = (a cos t - b sin t) + i (a sin t + b cos t) = %.6f %+.6fi",
     "两者相乘：(a + ib)(cos t + i sin t) = (a cos t - b sin t) + i (a sin t + b cos t) = %.6f %+.6fi"},
    {"the book's xq_out[0, %lld, 0, %lld:%lld] = %.6f, %.6f", "书中代码算出的 xq_out[0, %lld, 0, %lld:%lld] = %.6f，%.6f"},
    {"Meta's complex product on every pair of xq: max |difference| = %.7f",
     "对 xq 的每一对做 Meta 的复数乘法：最大 |差| = %.7f"},
    {"cos t + i sin t has length 1, so multiplying a + ib by it turns the point by the angle t and keeps its length. "
     "The book's comments call cos the real part (实部) and sin the imaginary part (虚部) of that factor; its two "
     "lines are the real and imaginary parts of the product.",
     "cos t + i sin t 的模为 1，所以 a + ib 乘以它就是把这个点旋转角度 t，长度不变。书中注释把 cos 称为这个因子的"
     "实部、sin 称为虚部；那两行代码算的正是乘积的实部和虚部。"},
    {"The trap: Hugging Face rotates halves, not neighbouring pairs", "陷阱：Hugging Face 旋转的是前后两半，而不是相邻的一对"},
    {"the same weights in that layout: max |difference| = %.4f", "同样的权重换成那种排布：最大 |差| = %.4f"},
    {"after permuting wq and wk rows per head: max |difference| = %.7f", "按头重排 wq 和 wk 的行之后：最大 |差| = %.7f"},
    {"each head's rows 0, 2, 4, .. then 1, 3, 5, ..: a pair (2i, 2i+1) becomes (i, i + head_dim/2). Weights move "
     "between the two layouts only with this permutation.",
     "每个头先取第 0、2、4 …… 行，再取第 1、3、5 …… 行：一对 (2i, 2i+1) 变成 (i, i + head_dim/2)。"
     "权重只有经过这个重排才能在两种排布之间换用。"},
    {"Grouped-query heads: repeat_kv (5.1.3.1)", "分组查询的头：repeat_kv（5.1.3.1）"},
    {"xk %s -> %s: query head h reads kv head h // %lld; then xk.transpose(1, 2): %s",
     "xk %s -> %s：查询头 h 读取键/值头 h // %lld；再 xk.transpose(1, 2)：%s"},
    {"reading kv head h // n_rep in place, no copy: max |difference| = %.7f",
     "原地读取键/值头 h // n_rep，不复制：最大 |差| = %.7f"},
    {"n_kv_heads = n_heads is MHA, 1 is MQA, between is GQA: one code path. repeat_kv copies each kv head n_rep "
     "times; the index h // n_rep gives the same numbers.",
     "n_kv_heads = n_heads 是 MHA，等于 1 是 MQA，介于两者之间是 GQA：同一条代码路径。repeat_kv 把每个键/值头"
     "复制 n_rep 份；用下标 h // n_rep 得到同样的数。"},
    {"Scores, mask, softmax, dropout, wo: chapters 2-7", "注意力分数、掩码、softmax、dropout、wo：第 2-7 章"},
    {"The KV cache: prefill %lld positions %lld at a time, decode %lld one at a time",
     "KV 缓存：预填充 %lld 个位置，每次 %lld 个，再逐个解码 %lld 个"},
    {"The KV cache: prefill %lld positions, decode %lld one at a time", "KV 缓存：预填充 %lld 个位置，再逐个解码 %lld 个"},
    {"prefill: positions 0..%lld at once, max |cached - full| = %.7f",
     "预填充：一次算完位置 0..%lld，最大 |缓存 - 完整| = %.7f"},
    {"chunk: positions %lld..%lld against keys 0..%lld, max |cached - full| = %.7f",
     "分块：位置 %lld..%lld 对键 0..%lld，最大 |缓存 - 完整| = %.7f"},
    {"step %lld: position %lld against %lld cached, max |cached - full| = %.7f",
     "第 %lld 步：位置 %lld 对缓存中的 %lld 个，最大 |缓存 - 完整| = %.7f"},
    {"each step projects one token, appends its k and v (turned at its own position) and reads the cache: T "
     "numbers of work per head, not T x T. Happy-LLM's generate() recomputes the whole prefix instead.",
     "每一步只投影一个词元，把它的 k 和 v（按它自己的位置旋转过）追加进缓存，再读缓存：每个头的工作量是 T，"
     "而不是 T x T。Happy-LLM 的 generate() 则每次重算整个前缀。"},
    {"What the cache costs: 2 x layers x bsz x n_kv_heads x T x head_dim numbers",
     "缓存的代价：2 x 层数 x bsz x n_kv_heads x T x head_dim 个数"},
    {"this module, bsz %lld, T = max_seq_len %lld, float32: MHA (%lld kv heads) %s, GQA (%lld) %s, MQA (1) %s",
     "本模块，bsz %lld，T = max_seq_len %lld，float32：MHA（%lld 个键/值头）%s，GQA（%lld 个）%s，MQA（1 个）%s"},
    {"this module, bsz %lld, T = max_seq_len %lld, float32: MHA (%lld kv heads) %s, MQA (1) %s; this module is %s",
     "本模块，bsz %lld，T = max_seq_len %lld，float32：MHA（%lld 个键/值头）%s，MQA（1 个）%s；本模块是 %s"},
    {"fp16, bsz 1, head_dim 128:  LLaMA2-7B    LLaMA2-70B    70B as MHA",
     "fp16，bsz 1，head_dim 128： LLaMA2-7B    LLaMA2-70B    70B 用 MHA"},
    {"                            32 layers    80 layers     80 layers",
     "                            32 层        80 层         80 层"},
    {"                            32 kv heads  8 kv heads    64 kv heads",
     "                            32 个键/值头 8 个键/值头   64 个键/值头"},
    {"(LLaMA2's context is 4096 tokens: the T = 32768 row is what a longer context would hold)",
     "（LLaMA2 的上下文长 4096 个词元：T = 32768 这一行是更长上下文要存的量）"},
    {"the cache grows with T and with n_kv_heads, not with n_heads: 70B's 8 kv heads for 64 query heads keep 8 "
     "times fewer bytes, and each decode step reads them all once.",
     "缓存的大小随 T 和 n_kv_heads 增长，与 n_heads 无关：70B 的 8 个键/值头由 64 个查询头共用，"
     "缓存因此小了 8 倍，而每个解码步都要把整个缓存读一遍。"},
    {"read per decode token, T = 4096 cached, fp16 (the weights once per step):",
     "每解码一个词元要读的量，缓存 T = 4096，fp16（权重每步读一次）："},
    {"70B as MHA", "70B 用 MHA"},
    {"              weights     cache, bsz 1   cache, bsz 32", "              权重        缓存，bsz 1    缓存，bsz 32"},
    {"this module, float32, bsz %lld, T = %lld cached: weights %s, cache %s",
     "本模块，float32，bsz %lld，缓存 T = %lld：权重 %s，缓存 %s"},
    {"at bsz 1 the weights dwarf the cache (7B: 12.6 GiB against 2 GiB; 70B: 128.5 against 1.2), so the cache, and "
     "GQA, change little of what a step reads. The weights are read once for the whole batch while every sequence "
     "reads its own cache: at bsz 32 7B's caches pass its weights, and 70B's 8 kv heads read 40 GiB where MHA would "
     "read 320 GiB.",
     "bsz 为 1 时权重远大于缓存（7B：12.6 GiB 对 2 GiB；70B：128.5 对 1.2），所以缓存和 GQA 对一步要读的量影响"
     "不大。权重整批只读一次，而每个序列都读自己的缓存：bsz 为 32 时 7B 的缓存超过了它的权重，70B 的 8 个键/值头"
     "读 40 GiB，换成 MHA 则要读 320 GiB。"},
    {"prefill: %lld in chunks of %lld, decode: %lld steps, max |cached - full| = %.7f",
     "预填充：%lld 个，每块 %lld 个；解码：%lld 步；最大 |缓存 - 完整| = %.7f"},
    {"decode: %lld steps, max |cached - full| = %.7f", "解码：%lld 步，最大 |缓存 - 完整| = %.7f"},
    /* --generate (generate_setup.c) */
    {"Chapter 11: generating with the KV cache (chapter 10's tiny model)", "第 11 章：用 KV 缓存生成（第 10 章的小模型）"},
    {"Load chapter 10's trained model: it outputs the token two places back",
     "载入第 10 章训练好的模型：它输出往前数第二个位置上的词元"},
    {"from %s: vocab A..H, seq_len %lld, dim %lld, %lld heads", "来自 %s：词表 A..H，seq_len %lld，dim %lld，%lld 个头"},
    {"Greedy generation: prefill the prompt, then one position per token", "贪心生成：先预填充提示，再每个词元一个位置"},
    {"    token %lld: %s   (%s, %.3f ms with the cache; without it: %s)\n",
     "    第 %lld 个词元：%s   （%s，用缓存 %.3f ms；不用缓存：%s）\n"},
    {"prefill", "预填充"},
    {"one step", "一步"},
    {"position t learned to output the token at t - 2; read as the next token (position t + 1), each new token "
     "copies the one three places back, so the prompt's pattern repeats with period 3 (the first new token comes "
     "from position 1, which the task never trained). With the cache each token costs one position; without it, "
     "the whole prefix.",
     "位置 t 学会了输出位置 t - 2 的词元；把它读作下一个词元（位置 t + 1），每个新词元就复制往前数第三个，所以提示的"
     "模式以 3 为周期重复（第一个新词元来自位置 1：训练时这个位置没有要输出的答案）。用缓存时每个词元只算一个位置；"
     "不用缓存则要算整个前缀。"},
    {"generated: %s", "生成结果：%s"},
    {"with the cache == without it: %s", "用缓存 == 不用缓存：%s"},
    {"input .npy, shape (B, T, dim); needs --weights", "输入 .npy，形状 (B, T, dim)；需要 --weights"},
    {"folder with wq wk wv wo.npy in nn.Linear's (out, in)",
     "含 wq wk wv wo.npy 的文件夹，nn.Linear 的 (out, in) 布局"},
    {NULL, NULL}};
