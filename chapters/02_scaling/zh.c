/* zh.c — chapter 2's narration in Chinese (lang.h): each English string as
 * main.c writes it, beside its translation. Terms: docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter2_zh[];

const LangPair chapter2_zh[] = {
    {"Chapter 2: scaled dot-product attention, scores / sqrt(d_k), and why\n(Happy-LLM 2.1.3). Chapter 1's "
     "sentence by default; --d-k or --seq-len:\nrandom q, k, v of that size instead.",
     "第 2 章：缩放点积注意力，scores / sqrt(d_k)，以及为什么要缩放\n（Happy-LLM 2.1.3）。默认用第 1 章的"
     "句子；给 --d-k 或 --seq-len 时：\n改用那个大小的随机 q、k、v。"},
    {"Chapter 2: scaled dot-product attention (Happy-LLM 2.1.3)", "第 2 章：缩放点积注意力（Happy-LLM 2.1.3）"},
    {"Scaling experiment: %d pairs q, k ~ N(0, 1) per d_k; %d rows of %lld scores",
     "缩放实验：每个 d_k 取 %d 对 q, k ~ N(0, 1)；%d 行、每行 %lld 个分数"},
    {"(a uniform row has largest weight 1/%lld = %.3f and entropy log %lld = %.3f)",
     "（均匀的一行，最大权重为 1/%lld = %.3f，熵为 log %lld = %.3f）"},
    {"            variance of q·k           largest weight        entropy (nats)",
     "                q·k 的方差               最大权重           熵（nats）"},
    {"   d_k    unscaled  scaled by √d_k   unscaled   scaled   unscaled   scaled",
     "   d_k      未缩放    除以 √d_k 后     未缩放   已缩放     未缩放   已缩放"},
    {"    query             largest weight    entropy (uniform = log S)",
     "    查询              最大权重             熵（均匀时为 log S）"},
    {"                unscaled      scaled       unscaled        scaled",
     "                  未缩放      已缩放         未缩放        已缩放"},
    {"    (uniform: largest weight 1/S = %.4f, entropy log S = %.4f)\n",
     "    （均匀时：最大权重 1/S = %.4f，熵 log S = %.4f）\n"},
    {"Load query, key and value from .npy files", "从 .npy 文件读入查询、键和值"},
    {"query %s = (..., T, d_k), key %s = (..., S, d_k), value %s = (..., S, d_v)",
     "查询 query %s = (..., T, d_k)，键 key %s = (..., S, d_k)，值 value %s = (..., S, d_v)"},
    {"--d-k and --seq-len size random q, k, v and --seed draws them and the d_k table; with --q, --k, --v the "
     "files give the sizes and the numbers and there is no table, so it does not take %s",
     "--d-k 和 --seq-len 决定随机 q、k、v 的大小，--seed 决定它们和 d_k 表格抽到哪些数；给了 --q、--k、--v "
     "时大小和数都来自文件，也没有表格，所以不接受 %s"},
    {"Random query, key and value: %lld tokens of width d_k = %lld",
     "随机的查询、键和值：%lld 个词元，宽度 d_k = %lld"},
    {"entries with mean 0 and variance 1: the Transformer paper's assumption when it explains the sqrt(d_k).",
     "元素的均值为 0、方差为 1：这正是 Transformer 论文解释 sqrt(d_k) 时的假设。"},
    {"Chapter 1's sentence \"Your journey starts with one step\": 6 tokens, 3 dims",
     "第 1 章的句子“Your journey starts with one step”：6 个词元，3 维"},
    {"the same inputs as chapter 1, so the only change you see is the division by sqrt(d_k).",
     "输入与第 1 章相同，所以你看到的唯一变化就是除以 sqrt(d_k)。"},
    {"Chapter 1, unscaled: scores = Q·Kᵀ, weights = softmax(scores)",
     "第 1 章，未缩放：scores = Q·Kᵀ，weights = softmax(scores)"},
    {"d_k = query.size(-1) = %lld, so the scale is sqrt(%lld) = %.4f",
     "d_k = query.size(-1) = %lld，所以缩放因子是 sqrt(%lld) = %.4f"},
    {"d_k is the width of a query (and key); it is the number of products added up in one score.",
     "d_k 是查询（和键）的宽度，也就是一个分数里相加的乘积个数。"},
    {"Scaled scores: divide every score by sqrt(d_k)", "缩放后的注意力分数：每个分数都除以 sqrt(d_k)"},
    {"the same scores as chapter 1, every one divided by %.4f: the order within a row is unchanged, only the "
     "gaps between scores shrink.",
     "与第 1 章相同的分数，每个都除以 %.4f：一行之内的大小顺序不变，只是分数之间的差距变小了。"},
    {"p_attn = softmax of the scaled scores, row by row", "p_attn = 缩放后分数逐行做 softmax"},
    {"smaller gaps between scores give a flatter softmax: each query spreads its attention over more keys.",
     "分数之间的差距越小，softmax 越平坦：每个查询把注意力分给更多的键。"},
    {"Each query's row, chapter 1 (unscaled) -> chapter 2 (scaled):",
     "每个查询的那一行，第 1 章（未缩放）-> 第 2 章（已缩放）："},
    {"weights, unscaled (chapter 1)", "注意力权重，未缩放（第 1 章）"},
    {"p_attn, scaled by 1/sqrt(d_k) (chapter 2)", "p_attn，乘以 1/sqrt(d_k) 缩放（第 2 章）"},
    {"output = p_attn · value: a weighted average of the values", "output = p_attn · value：值的加权平均"},
    {"attention() returns both: the output for the next layer, p_attn to look at (as here).",
     "attention() 两者都返回：output 交给下一层，p_attn 留着查看（就像这里这样）。"},
    {"Why sqrt(d_k)? Measure q·k for random q, k as d_k grows",
     "为什么是 sqrt(d_k)？随着 d_k 增大，测量随机 q、k 的 q·k"},
    {"q·k adds d_k products, each of variance 1, so its variance is d_k: the scores spread out as d_k grows. "
     "Softmax of widely spread scores puts almost all weight on one key (max w -> 1, entropy -> 0), and its "
     "gradients vanish. Dividing by sqrt(d_k) divides the variance by d_k: back to about 1 for every d_k.",
     "q·k 是 d_k 个方差为 1 的乘积之和，所以它的方差是 d_k：d_k 越大，分数越分散。对很分散的分数做 "
     "softmax，几乎全部权重都落在一个键上（最大权重 -> 1，熵 -> 0），梯度随之消失。除以 sqrt(d_k) "
     "就把方差除以 d_k：无论 d_k 多大，都回到 1 左右。"},
    {"wrote scores, attn_weights, output, scores_unscaled, attn_weights_unscaled%s .npy to %s",
     "已把 scores、attn_weights、output、scores_unscaled、attn_weights_unscaled%s 的 .npy 写入 %s"},
    {"wrote output %s", "已写出 output %s"},
    {"the d_k table's random q and k: %d pairs and %d rows of %.0f keys, of width up to %.0f",
     "d_k 表格的随机 q 和 k：%d 对，以及 %d 行、每行 %.0f 个键，宽度最大 %.0f"},
    {NULL, NULL}};
