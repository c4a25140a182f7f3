/* zh.c — chapter 1's narration in Chinese (lang.h): each English string as
 * main.c writes it, beside its translation. Terms: docs/GLOSSARY.md. */
#include "chapters/01_dot_product/dot_product_setup.h"

const LangPair chapter1_zh[] = {
    {"Chapter 1: dot-product attention, a soft dictionary lookup\n(Happy-LLM 2.1.1-2.1.3), not scaled yet.",
     "第 1 章：点积注意力，一次软化的字典查询\n（Happy-LLM 2.1.1-2.1.3），还没有缩放。"},
    {"Chapter 1: dot-product attention, a soft dictionary lookup (2.1.1-2.1.3)",
     "第 1 章：点积注意力，一次软化的字典查询（2.1.1-2.1.3）"},
    {"Attention is a dictionary lookup made soft", "注意力是软化了的字典查询"},
    {"A dictionary returns the value of the one key that equals the query. Asked for \"fruit\", it finds "
     "no such key. A soft lookup instead gives every key a weight for how well it matches the query, and "
     "returns the weighted sum of the values:",
     "字典只返回与查询完全相等的那一个键的值。查“fruit”时，它找不到这样的键。软查询则给每个键一个"
     "权重，表示它和查询匹配得有多好，再返回所有值的加权和："},
    {"attention does exactly this: the weights come from how well the query matches each key, and the "
     "answer is the weighted sum of the values.",
     "注意力做的正是这件事：权重来自查询和每个键匹配得有多好，答案是值的加权和。"},
    {"The sentence \"Your journey starts with one step\": six tokens, 3 numbers each",
     "句子“Your journey starts with one step”：六个词元，每个 3 个数"},
    {"rows: Your, journey, starts, with, one, step. Here query = key = value = inputs: each token asks, is "
     "found and answers with its own embedding (chapter 3 gives each role its own trainable matrix).",
     "各行依次是 Your、journey、starts、with、one、step。这里 query = key = value = inputs：每个词元"
     "都用自己的嵌入去提问、被找到、再作答（第 3 章给每个角色各自一个可训练的矩阵）。"},
    {"The scores of one query, \"journey\": its dot product with every key",
     "一个查询“journey”的注意力分数：它和每个键的点积"},
    {"e.g. journey·Your = 0.55*0.43 + 0.87*0.15 + 0.66*0.89 = %.4f",
     "例如 journey·Your = 0.55*0.43 + 0.87*0.15 + 0.66*0.89 = %.4f"},
    {"a dot product is large when two vectors point the same way: \"starts\" is almost parallel to "
     "\"journey\" and scores %.4f, close to journey's own %.4f.",
     "两个向量方向越一致，点积越大：“starts”几乎与“journey”平行，分数为 %.4f，"
     "接近 journey 自己的 %.4f。"},
    {"Softmax turns the scores into weights that are positive and sum to 1",
     "softmax 把注意力分数变成注意力权重：都是正数，和为 1"},
    {"sum of the weights = %.4f", "权重之和 = %.4f"},
    {"scores are any real numbers (before softmax); weights (after softmax) are shares of attention: "
     "journey gives %.1f%% of it to \"starts\" and %.1f%% to \"one\".",
     "分数可以是任意实数（softmax 之前）；权重（softmax 之后）是注意力的份额：journey 把 %.1f%% 给了"
     "“starts”，把 %.1f%% 给了“one”。"},
    {"Why softmax subtracts the row max: scores of ~100 overflow exp()",
     "softmax 为什么要减去行最大值：~100 的分数会让 exp() 溢出"},
    {"inf / inf is nan. Subtracting the row max m changes nothing in exact arithmetic (e^(x-m) / sum "
     "e^(x-m): the factor e^-m cancels), but every exp now sees a number <= 0 and lies in (0, 1].",
     "inf / inf 得 nan。减去行最大值 m 在精确运算中什么也没改变（e^(x-m) / sum e^(x-m)：因子 e^-m "
     "约掉了），但每个 exp 的输入都 <= 0，结果落在 (0, 1] 之内。"},
    {"The context vector of \"journey\": the weighted sum of the values",
     "“journey”的上下文向量：值的加权和"},
    {"it is an average of all six embeddings, pulled towards \"journey\" and \"starts\", which got the "
     "largest weights.",
     "它是全部六个嵌入的平均，偏向权重最大的“journey”和“starts”。"},
    {"All queries at once: scores = Q·Kᵀ, shape (..., T, S)",
     "所有查询一起算：scores = Q·Kᵀ，形状 (..., T, S)"},
    {"query %s, key %s -> key.transpose(-2, -1) %s", "查询 query %s，键 key %s -> key.transpose(-2, -1) 为 %s"},
    {"scores[1] (the second row: Python counts from 0) is the scores_2 of \"journey\" above.",
     "scores[1]（第二行：Python 从 0 开始数）就是上面“journey”的 scores_2。"},
    {"one matrix product computes every query-key dot product: row t holds query t's scores against all "
     "S keys.",
     "一次矩阵乘法算出所有查询与键的点积：第 t 行是查询 t 对全部 S 个键的分数。"},
    {"weights = softmax(scores, dim=-1): each row sums to 1", "weights = softmax(scores, dim=-1)：每行之和为 1"},
    {"dim=-1 normalises over the keys, separately for each query; a column need not sum to 1.",
     "dim=-1 对每个查询分别在键的方向上归一化；一列的和不必为 1。"},
    {"output = weights·V: one context vector per query", "output = weights·V：每个查询一个上下文向量"},
    {"weights %s @ value %s", "权重 weights %s @ 值 value %s"},
    {"output[1] is the context_2 of \"journey\" above.", "output[1] 就是上面“journey”的 context_2。"},
    {"every output row is a weighted average of the value rows. This chapter does not scale the scores "
     "yet; Happy-LLM divides them by sqrt(d_k) -- chapter 2 shows why.",
     "输出的每一行都是值的各行的加权平均。本章还没有缩放分数；Happy-LLM 会把它们除以 sqrt(d_k)"
     "——第 2 章说明原因。"},
    {"The inputs", "输入"},
    {"query %s (..., T, d_k), key %s (..., S, d_k), value %s (..., S, d_v)",
     "查询 query %s (..., T, d_k)，键 key %s (..., S, d_k)，值 value %s (..., S, d_v)"},
    {"attention weights (rows: queries, columns: keys)", "注意力权重（行：查询，列：键）"},
    {"--seq-len and --d-k size a random example and --seed draws it; with --q, --k, --v the files give the "
     "sizes and the numbers, so it does not take %s",
     "--seq-len 和 --d-k 决定随机例子的大小，--seed 决定抽到哪些数；给了 --q、--k、--v 时大小和数都来自"
     "文件，所以不接受 %s"},
    {"--seed draws the random example of --seq-len and --d-k; the default run (the sentence) has nothing "
     "random, so give --seed with --seq-len or --d-k",
     "--seed 决定 --seq-len 和 --d-k 那个随机例子抽到哪些数；默认运行（那个句子）里没有随机的东西，所以 "
     "--seed 要和 --seq-len 或 --d-k 一起给"},
    {NULL, NULL}};
