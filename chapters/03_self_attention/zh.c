/* zh.c — chapter 3's narration in Chinese (lang.h): each English string as
 * main.c writes it, beside its translation. Terms: docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter3_zh[];

const LangPair chapter3_zh[] = {
    {"Chapter 3: self-attention, attention(x, x, x) and\nattention(xW_q, xW_k, xW_v) (Happy-LLM 2.1.4).",
     "第 3 章：自注意力，attention(x, x, x) 与\nattention(xW_q, xW_k, xW_v)（Happy-LLM 2.1.4）。"},
    {"Chapter 3: self-attention (Happy-LLM 2.1.4)", "第 3 章：自注意力（Happy-LLM 2.1.4）"},
    {"%s: scores symmetric: %s (max |scores - scores^T| = %.6g)",
     "%s：分数是否对称：%s（max |scores - scores^T| = %.6g）"},
    {"%s: largest score on the token itself in %lld of %lld rows",
     "%s：最大的分数落在词元自己身上的有 %lld 行（共 %lld 行）"},
    {"plain x,x,x", "直接用 x,x,x"},
    {"projected", "投影之后"},
    {"yes", "是"},
    {"no", "否"},
    {"Load the input x from %s", "从 %s 读入输入 x"},
    {"A random input x: batch %lld, %lld tokens, d_in = %lld features each",
     "随机输入 x：批大小 %lld，%lld 个词元，每个 d_in = %lld 个特征"},
    {"one sequence of token vectors; self-attention lets every token look at every token of the same sequence.",
     "一个由词元向量组成的序列；自注意力让每个词元看到同一序列里的每一个词元。"},
    {"Self-attention taken literally: Q = K = V = x", "字面意义上的自注意力：Q = K = V = x"},
    {"score[i][j] = x_i·x_j = x_j·x_i, so the matrix is symmetric: i looks at j exactly as much as j looks at i. "
     "The diagonal x_i·x_i = |x_i|² is usually the largest score of its row when x has many features (random "
     "directions are nearly orthogonal; try --d-in 64), so each token mostly attends to itself. With few "
     "features a longer vector pointing the same way can beat it.",
     "score[i][j] = x_i·x_j = x_j·x_i，所以这个矩阵是对称的：i 看 j 的程度和 j 看 i 的完全一样。x 的特征"
     "很多时，对角线 x_i·x_i = |x_i|² 通常是该行最大的分数（随机方向几乎两两正交；试试 --d-in 64），"
     "于是每个词元主要关注它自己。特征很少时，一个方向相同而更长的向量可能胜过它。"},
    {"no parameters: there is nothing here that training could change.", "没有参数：这里没有任何训练能改变的东西。"},
    {"Load W_q, W_k, W_v from %s", "从 %s 读入 W_q、W_k、W_v"},
    {"Three trainable projections: nn.Linear(d_in = %lld, d_out = %lld, bias=%s)",
     "三个可训练的投影：nn.Linear(d_in = %lld, d_out = %lld, bias=%s)"},
    {"(drawn before x, right after torch.manual_seed(%llu), as a module's layers are)",
     "（和模块的各层一样，在 torch.manual_seed(%llu) 之后、x 之前抽取）"},
    {"each weight is (d_out, d_in), as nn.Linear stores it (y = x·Wᵀ + b); %lld trainable numbers in all, which "
     "training adjusts so that the scores become useful.",
     "每个权重矩阵都是 (d_out, d_in)，与 nn.Linear 的存法相同（y = x·Wᵀ + b）；一共 %lld 个可训练的数，"
     "训练调整它们，让分数变得有用。"},
    {"Project the same x three ways", "把同一个 x 投影三次"},
    {"Q, K and V come from the same x but are three different tensors: xq is what a token looks for, xk what it "
     "offers to be found by, xv what it passes on.",
     "Q、K、V 来自同一个 x，却是三个不同的张量：xq 是词元要找的东西，xk 是它让别人找到自己的依据，"
     "xv 是它传递出去的内容。"},
    {"Attention on the projections", "在投影上做注意力"},
    {"xq_i·xk_j is not xq_j·xk_i: the scores are no longer symmetric, and the largest score need not be the token "
     "itself. Which token attends to which is now learned.",
     "xq_i·xk_j 不等于 xq_j·xk_i：分数不再对称，最大的分数也不一定落在词元自己身上。哪个词元关注哪个，"
     "现在是学出来的。"},
    {"So: are Q, K and V the same?", "那么：Q、K、V 是同一个东西吗？"},
    {"Same input, three different learned views. In attention(x, x, x) they are literally the same tensor; in a "
     "Transformer they are x·W_qᵀ, x·W_kᵀ and x·W_vᵀ, three projections of one x with their own weights. 'Self' "
     "means queries, keys and values all come from the same sequence, not that they are equal.",
     "输入相同，却是三种不同的、学出来的视角。在 attention(x, x, x) 里它们确实是同一个张量；在 "
     "Transformer 里它们是 x·W_qᵀ、x·W_kᵀ 和 x·W_vᵀ，是同一个 x 用各自权重做的三个投影。“自”的意思是"
     "查询、键和值都来自同一个序列，而不是说它们相等。"},
    {"wrote x, wq, wk, wv, xq, xk, xv, scores, attn_weights, output (and plain_*) .npy to %s",
     "已把 x、wq、wk、wv、xq、xk、xv、scores、attn_weights、output（以及 plain_*）的 .npy 写入 %s"},
    {"wrote output %s", "已写出 output %s"},
    {"--input and --weights give x, the weights and their biases, and nothing is random; it does not take %s",
     "--input 和 --weights 给出 x、权重和偏置，也没有随机的东西；不接受 %s"},
    {NULL, NULL}};
