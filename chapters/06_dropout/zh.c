/* zh.c — chapter 6's narration in Chinese (lang.h): each English string as
 * main.c writes it, beside its translation (chapter 5's steps that it calls:
 * chapters/05_multi_head/zh.c). Terms: docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter6_zh[];

const LangPair chapter6_zh[] = {
    {"Chapter 6: dropout on the attention weights (nn.Dropout, Happy-LLM 2.1.6):\nchapter 5's multi-head attention "
     "with attn_dropout between softmax and @ xv.\nTraining mode by default, as the seed; --eval (model.eval()) "
     "turns dropout off.\nCausal by default, like chapter 5. With --input/--weights the sizes and biases\ncome "
     "from the files, and --heads must divide their d_out.\n--max-seq-len sets max_seq_len, the size of the mask "
     "buffer: by default 2 x T;\nwith --input, the input's T (or --seq-len).",
     "第 6 章：注意力权重上的 dropout（nn.Dropout，Happy-LLM 2.1.6）：\n第 5 章的多头注意力，在 softmax 和 "
     "@ xv 之间加上 attn_dropout。\n默认为训练模式，和原代码一样；--eval（model.eval()）关掉 dropout。\n"
     "和第 5 章一样默认带因果掩码。给 --input/--weights 时大小和偏置\n由文件决定，--heads 必须整除它们的 d_out。\n"
     "--max-seq-len 设定掩码缓冲区的大小 max_seq_len：默认为 2 x T；\n给 --input 时为输入的 T（或 --seq-len）。"},
    {"Chapter 6: dropout on the attention weights (Happy-LLM 2.1.6)%s",
     "第 6 章：注意力权重上的 dropout（Happy-LLM 2.1.6）%s"},
    {" -- in eval mode", "——评估模式"},
    {"The module's projections and a random input x (as in chapter 5)", "模块的投影和一个随机输入 x（与第 5 章相同）"},
    {"Project and split into %lld heads (chapter 5)", "投影并拆分成 %lld 个头（第 5 章）"},
    {"Scaled scores%s and softmax, per head", "每个头：缩放后的注意力分数%s，再做 softmax"},
    {", causal mask", "加因果掩码"},
    {"so far exactly chapter 5: every row is a probability distribution over the keys.",
     "到这里和第 5 章完全一样：每一行都是键上的一个概率分布。"},
    {"self.attn_dropout = nn.Dropout(p = %g), %s mode", "self.attn_dropout = nn.Dropout(p = %g)，%s模式"},
    {"training", "训练"},
    {"eval", "评估"},
    {"in eval mode (model.eval(), for inference) dropout does nothing: the weights pass through unchanged.",
     "在评估模式下（model.eval()，用于推理）dropout 什么也不做：权重原样通过。"},
    {"p = 0 drops nothing: even in training this dropout is the identity.",
     "p = 0 什么也不丢：即使在训练时，这个 dropout 也是恒等映射。"},
    {"p = 1 drops everything: every weight becomes 0, as nn.Dropout(1.0) does.",
     "p = 1 全部丢掉：每个权重都变成 0，和 nn.Dropout(1.0) 一样。"},
    {"during training each weight is kept with probability 1 - p = %g and then divided by 1 - p (x %.4f), or set "
     "to 0 with probability p = %g. A different random set of weights is dropped on every forward pass, so no "
     "head can rely on one single connection -- a regulariser against overfitting.",
     "训练时每个权重以 1 - p = %g 的概率保留并除以 1 - p（x %.4f），或置为 0（概率为 p = %g）。每次前向"
     "传播随机丢掉的权重都不一样，所以没有哪个头能只依赖某一条连接——这是一种防止过拟合的正则化。"},
    {"attention weights before dropout", "dropout 之前的注意力权重"},
    {"attention weights", "注意力权重"},
    {"attention weights after dropout (dropped cells are 0)", "dropout 之后的注意力权重（被丢掉的格子为 0）"},
    {"Apply it to the weights, after softmax and before @ xv", "把它用在权重上：softmax 之后、@ xv 之前"},
    {"%lld of %lld weights were 0 before (masked), %lld are 0 now: %lld dropped (p = %g of the %lld non-zero ones "
     "is %.1f on average).",
     "%lld 个（共 %lld 个）权重原本就是 0（被掩码遮住），现在有 %lld 个为 0：丢掉了 %lld 个（p = %g 乘以 "
     "%lld 个非零权重，平均为 %.1f 个）。"},
    {"every kept weight w became w / (1 - p), e.g. %.4f / %g = %.4f. This is inverted dropout: it scales while "
     "training so that eval needs no change.",
     "每个保留下来的权重 w 都变成了 w / (1 - p)，例如 %.4f / %g = %.4f。这就是 inverted dropout：在训练时"
     "缩放，评估时就什么都不用改。"},
    {"The weighted sum and the merge (chapter 5)", "加权和与合并（第 5 章）"},
    {"The rows no longer sum to 1", "各行之和不再是 1"},
    {"The rows still sum to 1", "各行之和仍是 1"},
    {"p = 1 dropped every weight, so every row sums to 0 and the output is 0.",
     "p = 1 丢掉了所有权重，所以每行之和为 0，输出也是 0。"},
    {"a row loses the weights that were dropped and the kept ones grow by 1/(1 - p), so a row sums to 1 only on "
     "average. That is intended: each weight w is kept with probability 1 - p as w / (1 - p), so its expectation "
     "is (1 - p) * w / (1 - p) + p * 0 = w, and because output = weights @ xv is linear in the weights, the "
     "expected output is the eval output.",
     "一行失去了被丢掉的权重，保留的权重放大为 1/(1 - p) 倍，所以一行之和只在平均意义上为 1。这是有意"
     "为之：每个权重 w 以 1 - p 的概率保留为 w / (1 - p)，所以它的期望是 (1 - p) * w / (1 - p) + p * 0 = w；"
     "又因为 output = weights @ xv 对权重是线性的，输出的期望就是评估模式的输出。"},
    {"without dropout the weights are untouched, so every row still sums to 1.",
     "没有 dropout 时权重不变，所以每行之和仍为 1。"},
    {"Compared with chapter 5 (no dropout)", "与第 5 章（没有 dropout）比较"},
    {"max |output - chapter 5's output| = %g", "max |output - 第 5 章的 output| = %g"},
    {"training adds noise to the output; --eval or --dropout 0 gives back chapter 5's numbers exactly.",
     "训练给输出加了噪声；--eval 或 --dropout 0 就能精确地得回第 5 章的数。"},
    {"dropout is the identity here, so this is exactly chapter 5's output.",
     "这里的 dropout 是恒等映射，所以这正是第 5 章的输出。"},
    {"The expectation is kept: the mean of %d dropout draws", "期望保持不变：%d 次 dropout 抽样的平均"},
    {"max |mean - attn_weights| = %.4f over all %lld weights %s",
     "max |mean - attn_weights| = %.4f，统计了全部 %lld 个权重 %s"},
    {"each draw drops other weights, but on average every weight comes back: the rescaling by 1/(1 - p) makes "
     "training see the same weights as eval in expectation. (Batch 0, head 0 shown.)",
     "每次抽样丢掉的权重都不同，但平均下来每个权重都回来了：按 1/(1 - p) 放大，让训练在期望上看到和评估时"
     "相同的权重。（这里显示的是批 0、头 0。）"},
    {NULL, NULL}};
