/* zh.c — chapter 4's narration in Chinese (lang.h): each English string as
 * main.c writes it, beside its translation. Terms: docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter4_zh[];

const LangPair chapter4_zh[] = {
    {"Masked (causal) self-attention, Happy-LLM 2.1.5: triu(full(-inf), diagonal=1)\nadded to the scores before "
     "softmax. The sentence has 6 tokens (T); --max-seq-len\nsets max_seq_len, the size of the mask buffer (with "
     "--q/--k/--v, T by default).",
     "掩码（因果）自注意力，Happy-LLM 2.1.5：在 softmax 之前\n把 triu(full(-inf), diagonal=1) 加到注意力分数上。"
     "句子有 6 个词元（T）；\n--max-seq-len 设定 max_seq_len，即掩码缓冲区的大小（给 --q/--k/--v 时默认 T）。"},
    {"Chapter 4: masked (causal) self-attention (Happy-LLM 2.1.5)%s",
     "第 4 章：掩码（因果）自注意力（Happy-LLM 2.1.5）%s"},
    {" -- with --no-causal", "——加了 --no-causal"},
    {"Chapter 4: masked attention on %s, %s, %s", "第 4 章：在 %s、%s、%s 上做掩码注意力"},
    {"The sentence: one vector per token, and query = key = value = x",
     "句子：每个词元一个向量，query = key = value = x"},
    {"tokens: Your journey starts with one step (T = %d)", "词元：Your journey starts with one step（T = %d）"},
    {"a language model predicts token t+1 from tokens 0..t, so when it reads \"Your\" it must not already see "
     "\"journey\".",
     "语言模型预测词元 t+1 时只能依据词元 0..t，所以它读到“Your”时不能已经看见“journey”。"},
    {"Scaled scores, exactly as in chapter 2", "缩放后的注意力分数，和第 2 章完全一样"},
    {"every row has a score for every token, also for the tokens after it: row 0 (\"Your\") scores \"step\" too.",
     "每一行对每个词元都有分数，包括排在它后面的词元：第 0 行（“Your”）也给“step”打了分。"},
    {"No mask (--no-causal): softmax over every key", "不加掩码（--no-causal）：对所有键做 softmax"},
    {"this is chapter 2's attention(): row 0 gives %.4f of its weight to \"step\", a word that comes after it. "
     "Fine for an encoder (BERT), a leak for a language model; run without --no-causal to mask it.",
     "这就是第 2 章的 attention()：第 0 行把 %.4f 的权重给了排在它后面的“step”。对编码器（BERT）"
     "没问题，对语言模型却是泄漏；去掉 --no-causal 运行就会把它遮住。"},
    {"The mask buffer: max_seq_len x max_seq_len, all -inf", "掩码缓冲区：max_seq_len x max_seq_len，全是 -inf"},
    {"mask: shape %s, all %lld entries -inf", "mask：形状 %s，全部 %lld 个元素都是 -inf"},
    {"the model builds it once, in __init__, for the longest sequence it will ever see (max_seq_len = %lld here, "
     "--max-seq-len), and keeps it with register_buffer: saved with the model, never trained.",
     "模型只在 __init__ 里为它会见到的最长序列建一次（这里 max_seq_len = %lld，见 --max-seq-len），"
     "再用 register_buffer 保存成缓冲区：随模型一起保存，从不训练。"},
    {"Happy-LLM 2.1.5 builds it 3-D, torch.full((1, L, L), ...), and slices mask[:, :seqlen, :seqlen]; 2.1.6 "
     "builds it 4-D, (1, 1, L, L), for scores of shape (B, n_heads, T, T), and slices mask[:, :, :seqlen, "
     ":seqlen]. Either broadcasts, but keep each slice with its own mask: mask[:, :, :T, :T] on the 3-D one is an "
     "IndexError, and mask[:, :T, :T] on the 4-D one gives (1, 1, T, L), which fails to add to (B, H, T, T) unless "
     "T = L.",
     "Happy-LLM 2.1.5 把它建成 3 维的 torch.full((1, L, L), ...)，切片为 mask[:, :seqlen, :seqlen]；2.1.6 "
     "为形状 (B, n_heads, T, T) 的分数把它建成 4 维的 (1, 1, L, L)，切片为 mask[:, :, :seqlen, :seqlen]。"
     "两者都能广播，但每种切片要配它自己的掩码：在 3 维掩码上写 mask[:, :, :T, :T] 会得到 IndexError，"
     "在 4 维掩码上写 mask[:, :T, :T] 得到 (1, 1, T, L)，除非 T = L，否则无法与 (B, H, T, T) 相加。"},
    {"Keep -inf only above the diagonal", "只在对角线上方保留 -inf"},
    {"triu keeps the entries with column - row >= 1, i.e. j > i: key j comes after query i (the future) and stays "
     "-inf; the diagonal and below become 0.",
     "triu 保留列号 - 行号 >= 1 的元素，即 j > i：键 j 排在查询 i 之后（未来），保持 -inf；"
     "对角线及其下方变成 0。"},
    {"Slice the buffer to this sequence's length", "把缓冲区切成这个序列的长度"},
    {"the top-left T x T corner of the causal mask is the causal mask of T, so one buffer serves every length up to "
     "max_seq_len; the slice is a view (strides of the %s buffer), not a copy.",
     "因果掩码左上角的 T x T 部分正是长度 T 的因果掩码，所以长度不超过 max_seq_len 的序列"
     "都能共用这一个缓冲区；切片是一个视图（沿用 %s 缓冲区的步长），不是副本。"},
    {"A sequence longer than max_seq_len has no mask to slice: try --max-seq-len 4 and the program refuses to start "
     "with \"sequence length 6 is longer than max_seq_len 4\". (PyTorch would quietly cut the slice to 4 x 4 and then "
     "fail in the addition with a broadcast error.)",
     "比 max_seq_len 更长的序列没有掩码可切：试试 --max-seq-len 4，程序在开始前就会拒绝运行并说明"
     "“序列长度 6 超过了因果掩码缓冲区的大小 max_seq_len 4”。（PyTorch 会悄悄把切片截成 4 x 4，"
     "然后在相加时报广播错误。）"},
    {"Add the mask to the scores, before softmax", "在 softmax 之前把掩码加到注意力分数上"},
    {"adding, not multiplying: s + 0 = s keeps the past and the token itself, s + (-inf) = -inf removes the "
     "future. (Multiplying by 0 would leave a score of 0, and softmax still gives exp(0) = 1 a share.)",
     "是相加而不是相乘：s + 0 = s 保留过去和词元自己，s + (-inf) = -inf 去掉未来。（乘以 0 会留下分数 "
     "0，而 softmax 仍会给 exp(0) = 1 分一份权重。）"},
    {"Softmax: the weights are lower-triangular", "softmax：注意力权重是下三角的"},
    {"exp(-inf) = 0, so every future token gets weight exactly 0 and each row still sums to 1 over tokens 0..t. "
     "Row 0 (\"Your\") has only itself to look at: [1, 0, 0, 0, 0, 0].",
     "exp(-inf) = 0，所以每个未来的词元得到的权重恰好为 0，每一行的和仍为 1（在词元 0..t 上）。"
     "第 0 行（“Your”）只能看它自己：[1, 0, 0, 0, 0, 0]。"},
    {".float() runs the softmax in float32 even when the model computes in float16 or bfloat16, where exp "
     "overflows and small weights round away; .type_as(xq) casts the weights back to xq's dtype for the matmul "
     "with xv. Here everything is float32 already, so both are no-ops.",
     ".float() 让 softmax 在 float32 下计算，即使模型用 float16 或 bfloat16 计算（那里 exp 会溢出，"
     "小的权重会被舍入掉）；.type_as(xq) 再把权重转回 xq 的 dtype，以便与 xv 做矩阵乘法。这里本来就全是 "
     "float32，所以两者都什么也不做。"},
    {"The output: a weighted sum of the values it may see", "输出：它能看见的那些值的加权和"},
    {"row t mixes the values of tokens 0..t only; row 0 is the value of \"Your\" itself.",
     "第 t 行只混合词元 0..t 的值；第 0 行就是“Your”自己的值。"},
    {"The other spelling (Raschka): a boolean mask and masked_fill", "另一种写法（Raschka）：布尔掩码加 masked_fill"},
    {"max |weights_fill - attn_weights| = %g", "两者之差 max |weights_fill - attn_weights| = %g"},
    {"both put -inf on the same cells (j > i) before the same softmax: one adds a float mask of 0 / -inf, the "
     "other writes -inf where the bool mask is True.",
     "两者都在同一个 softmax 之前把同样的格子（j > i）设为 -inf：一种是加上由 0 / -inf 组成的浮点掩码，"
     "另一种是在布尔掩码为 True 的地方写入 -inf。"},
    {"The future cannot leak: change the last token", "未来不会泄漏：改动最后一个词元"},
    {"causal:  rows 0..4 change by %g, row 5 by %.4f", "因果掩码：第 0..4 行变化 %g，第 5 行变化 %.4f"},
    {"no mask: rows 0..4 change by up to %.4f", "不加掩码：第 0..4 行最多变化 %.4f"},
    {"with the mask, what token t computes depends on tokens 0..t only, so all T positions can be trained at once "
     "without any of them seeing its answer (--seed picks the new word).",
     "有了掩码，词元 t 算出的结果只取决于词元 0..t，所以 T 个位置可以同时训练，而谁也看不到自己的答案"
     "（--seed 决定换上的新词）。"},
    {"A common mistake: diagonal=0 masks each token from itself", "一个常见错误：diagonal=0 让每个词元连自己也看不见"},
    {"row 0 (\"Your\") has no key left: all its scores are -inf. Softmax subtracts the row max, -inf - (-inf) = "
     "NaN (or, without that trick, 0/0), so the whole row is NaN, output row 0 is NaN, and in training the loss "
     "becomes NaN. The other rows quietly lose the token itself. diagonal=1 keeps the diagonal.",
     "第 0 行（“Your”）一个键也不剩：它的分数全是 -inf。softmax 要减去行最大值，-inf - (-inf) = NaN"
     "（不用这个技巧则是 0/0），于是整行都是 NaN，输出的第 0 行是 NaN，训练时损失也变成 NaN。其余各行"
     "则悄悄丢掉了词元自己。diagonal=1 保留对角线。"},
    {"The causal mask buffer, max_seq_len = %lld", "因果掩码缓冲区，max_seq_len = %lld"},
    {"--max-seq-len sets max_seq_len; a sequence longer than it has no mask to slice.",
     "--max-seq-len 设定 max_seq_len；比它长的序列没有掩码可切。"},
    {"Masked attention: scaled scores, plus the sliced mask, softmax, times v",
     "掩码注意力：缩放后的分数，加上切好的掩码，做 softmax，再乘以 v"},
    {"Load query, key and value", "读入查询、键和值"},
    {"query %s, key %s, value %s", "查询 query %s，键 key %s，值 value %s"},
    {"Attention without a mask (--no-causal): chapter 2's attention()", "不加掩码的注意力（--no-causal）：第 2 章的 attention()"},
    {"attention weights (no mask)", "注意力权重（不加掩码）"},
    {"attention weights (causal)", "注意力权重（因果掩码）"},
    {"attention weights", "注意力权重"},
    /* --q --k --v: the last why */
    {"weights above the diagonal are 0: query t only sees keys 0..t.",
     "对角线以上的权重都是 0：查询 t 只看得见键 0..t。"},
    {"every query sees every key.", "每个查询都看得见每一个键。"},
    {NULL, NULL}
};
