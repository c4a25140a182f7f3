/* zh.c — chapter 7's narration in Chinese (lang.h): each English string as
 * main.c writes it, beside its translation. Terms: docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter7_zh[];

const LangPair chapter7_zh[] = {
    {"Chapter 7: the output projection W_o and resid_dropout -- the complete\nMultiHeadAttention (Happy-LLM 2.1.6). "
     "Default: the 手撕 MHA script of the\nREADME, torch.manual_seed(N), MultiHeadAttention(10, 8, 2 * T, 0.1, 2),\n"
     "x = torch.randn(3, 5, 10), with PyTorch's numbers, in training mode; --eval\nturns dropout off; --bias is "
     "qkv_bias=True; --resid-dropout adds Happy-LLM's\nresid_dropout. With --input/--weights the sizes come from "
     "the files: wq wk wv\n(d_out, d_in), wo (d_out, d_out), biases when bq bk bv (all three) or bo are\nthere; "
     "--max-seq-len (or --seq-len) sets max_seq_len, by default the input's T.\n--happy-llm runs Happy-LLM 2.1.6's "
     "own class instead: no biases anywhere,\nattn_dropout and resid_dropout, is_causal=False unless --causal.",
     "第 7 章：输出投影 W_o 和 resid_dropout——完整的\nMultiHeadAttention（Happy-LLM 2.1.6）。默认运行 README 里的"
     "\n手撕 MHA 脚本：torch.manual_seed(N)，MultiHeadAttention(10, 8, 2 * T, 0.1, 2)，\n"
     "x = torch.randn(3, 5, 10)，数值与 PyTorch 相同，训练模式；--eval\n关掉 dropout；--bias 即 qkv_bias=True；"
     "--resid-dropout 加上 Happy-LLM 的\nresid_dropout。给 --input/--weights 时大小由文件决定：wq wk wv\n"
     "(d_out, d_in)，wo (d_out, d_out)；有 bq bk bv（三个都有）或 bo 时带偏置；\n"
     "--max-seq-len（或 --seq-len）设定 max_seq_len，默认为输入的 T。\n--happy-llm 改为运行 Happy-LLM 2.1.6 "
     "自己的那个类：哪里都没有偏置，\n有 attn_dropout 和 resid_dropout，除非加 --causal，否则 is_causal=False。"},
    {"run Happy-LLM 2.1.6's own class",
     "运行 Happy-LLM 2.1.6 自己的类"},
    {"The module and a random input: Happy-LLM 2.1.6's MultiHeadAttention",
     "模块和一个随机输入：Happy-LLM 2.1.6 的 MultiHeadAttention"},
    {"the book's class: no bias on wq, wk, wv or wo, a second dropout (resid_dropout) on the output, and no mask "
     "unless is_causal=True (--causal).",
     "这是书里的类：wq、wk、wv、wo 都没有偏置，输出上还有第二个 dropout（resid_dropout），"
     "除非 is_causal=True（--causal），否则不加掩码。"},
    {"--happy-llm is the book's class, which has no biases; it does not take --bias",
     "--happy-llm 用的是书里的类，它没有偏置，所以不能再加 --bias"},
    {"--happy-llm: the weights folder '%s' has biases, but Happy-LLM 2.1.6's class has none (bias=False on wq, wk, "
     "wv and wo)",
     "--happy-llm：权重文件夹 '%s' 里有偏置，但 Happy-LLM 2.1.6 的类没有偏置（wq、wk、wv、wo 都是 bias=False）"},
    {"Chapter 7: the output projection, the complete MultiHeadAttention (2.1.6)",
     "第 7 章：输出投影，完整的 MultiHeadAttention（2.1.6）"},
    {"The module and a random input, as in the 手撕 MHA script", "模块和一个随机输入，与手撕 MHA 脚本相同"},
    {"ModelArgs: d_in = %lld, d_out = %lld, n_heads = %lld, head_dim = %lld, max_seq_len = %lld, dropout = %g (%s), "
     "causal = %s, qkv_bias = %s, out bias = %s",
     "模型参数 ModelArgs：d_in = %lld，d_out = %lld，n_heads = %lld，head_dim = %lld，max_seq_len = %lld，"
     "dropout = %g（%s模式），causal = %s，qkv_bias = %s，输出偏置 = %s"},
    {"training", "训练"},
    {"eval", "评估"},
    {"The parameters: wq, wk, wv from chapter 3, and the new wo", "参数：第 3 章的 wq、wk、wv，以及新的 wo"},
    {"wq.weight, wk.weight, wv.weight: %s each (d_out, d_in)%s", "wq.weight、wk.weight、wv.weight：各为 %s (d_out, d_in)%s"},
    {", with biases (d_out,)", "，带偏置 (d_out,)"},
    {", no biases", "，不带偏置"},
    {"wo.weight: %s (d_out, d_out)%s", "wo.weight：%s (d_out, d_out)%s"},
    {", with a bias (d_out,)", "，带一个偏置 (d_out,)"},
    {", no bias", "，不带偏置"},
    {"parameters: 3 x %lld x %lld (wq, wk, wv)%s + %lld x %lld (wo)%s = %lld",
     "参数个数：3 x %lld x %lld（wq、wk、wv）%s + %lld x %lld（wo）%s = %lld"},
    {"sum(p.numel() for p in model.parameters()). The mask %s is a buffer (register_buffer), not a parameter: it is "
     "never trained. At GPT-2 size (768 wide, 12 heads, qkv_bias False) the same formula gives 2,360,064.",
     "即 sum(p.numel() for p in model.parameters())。掩码 %s 是缓冲区（register_buffer），不是参数：它从不"
     "训练。在 GPT-2 的规模下（宽 768，12 个头，qkv_bias 为 False），同一个公式给出 2,360,064。"},
    {"Project and split into heads (chapters 3 and 5)", "投影并拆分成多头（第 3 章和第 5 章）"},
    {"forward(q, k, v) takes three inputs; self-attention passes x three times. Each head works in its own "
     "%lld-wide slice of d_out = %lld.",
     "forward(q, k, v) 接收三个输入；自注意力把 x 传了三次。每个头在 d_out 中属于自己的、宽为 %lld 的那一片上"
     "计算（d_out = %lld）。"},
    {"Scaled scores%s (chapters 2 and 4)", "缩放后的注意力分数%s（第 2 章和第 4 章）"},
    {" with the causal mask", "，加因果掩码"},
    {"one (seqlen, seqlen) score matrix per batch and head, scaled by sqrt(head_dim)%s.",
     "每个批、每个头一个 (seqlen, seqlen) 的分数矩阵，除以 sqrt(head_dim) 缩放%s。"},
    {"; the mask buffer is sliced to the sequence length and puts -inf on the future",
     "；掩码缓冲区切成序列的长度，在未来的位置放上 -inf"},
    {"Softmax: the attention weights", "softmax：注意力权重"},
    {"each row is a probability distribution over the keys (the book keeps calling them scores; here scores are "
     "before softmax, weights after).",
     "每一行都是键上的一个概率分布（书里一直把它们叫作分数；这里 softmax 之前的叫注意力分数，之后的叫注意力"
     "权重）。"},
    {"attention weights (causal)", "注意力权重（因果掩码）"},
    {"attention weights", "注意力权重"},
    {"attn_dropout on the weights (chapter 6)", "权重上的 attn_dropout（第 6 章）"},
    {"%lld of %lld weights are 0 after attn_dropout (%lld were 0 before it)",
     "attn_dropout 之后有 %lld 个（共 %lld 个）权重为 0（之前有 %lld 个为 0）"},
    {"training mode: each weight is dropped with probability p or divided by 1 - p.",
     "训练模式：每个权重以概率 p 被丢掉，否则除以 1 - p。"},
    {"eval mode or p = 0: dropout is the identity.", "评估模式或 p = 0：dropout 是恒等映射。"},
    {"Weighted sum of the values and merge of the heads (chapters 1 and 5)", "值的加权和与多头的合并（第 1 章和第 5 章）"},
    {"columns h*%lld .. h*%lld+%lld of each token hold head h's result, side by side: the heads are concatenated "
     "but have not met yet.",
     "每个词元的第 h*%lld .. h*%lld+%lld 列是头 h 的结果，并排放着：各头拼接在了一起，但还没有相互混合。"},
    {"The output projection W_o mixes the heads", "输出投影 W_o 把各头混合起来"},
    {"%shead %lld: %.4f", "%s头 %lld：%.4f"},
    {" + ... (more heads)", " + ……（更多的头）"},
    {" + bias", " + 偏置"},
    {"bias: bo[0] = %.4f", "偏置：bo[0] = %.4f"},
    {"before W_o, output feature j came from head j // head_dim alone. wo is a full (d_out, d_out) matrix, so every "
     "output feature is a weighted sum over all heads: this is where what the heads found separately is combined "
     "(and, in a block, mapped back to the width the residual adds to).",
     "在 W_o 之前，输出特征 j 只来自头 j // head_dim。wo 是一个完整的 (d_out, d_out) 矩阵，所以每个输出特征"
     "都是所有头的加权和：各头分别找到的东西在这里汇合（在一个块里，还会映射回残差相加所需的宽度）。"},
    {"output = projected: the 手撕 class has one dropout, on the weights (--resid-dropout adds Happy-LLM's second "
     "one, on the output).",
     "output = projected：手撕的类只有一个 dropout，作用在权重上（--resid-dropout 加上 Happy-LLM 的第二个，"
     "作用在输出上）。"},
    {"resid_dropout on the projected output (Happy-LLM's class)", "投影输出上的 resid_dropout（Happy-LLM 的类）"},
    {"%lld of %lld outputs are 0 after resid_dropout", "resid_dropout 之后有 %lld 个（共 %lld 个）输出为 0"},
    {"a second nn.Dropout with the same p, on what the attention hands to the residual connection; the 手撕 class "
     "has only the first one. %s",
     "第二个 nn.Dropout，p 相同，作用在注意力交给残差连接的结果上；手撕的类只有第一个。%s"},
    {"--eval turns both off.", "--eval 把两个都关掉。"},
    {"Off here: output == projected.", "这里是关着的：output == projected。"},
    {"Why a Transformer block needs d_out == d_in", "为什么 Transformer 块需要 d_out == d_in"},
    {"d_in = d_out = %lld: x %s + output %s = h %s", "d_in = d_out = %lld：x %s 加上 output %s 得到 h %s"},
    {"d_in = %lld != d_out = %lld: x %s + output %s does not broadcast; the block could not add them (try --d-out "
     "%lld).",
     "d_in = %lld != d_out = %lld：x %s + output %s 无法广播；块没法把它们相加（试试 --d-out %lld）。"},
    {"a block adds the attention's output back to its input, so wo must map to the input's width: d_out == d_in. "
     "The 手撕 class may use d_in 10 and d_out 8; in a model both are one number. Happy-LLM 2.1.6's ModelArgs has "
     "both: wq = nn.Linear(args.n_embd, n_heads * head_dim) reads n_embd (d_in), wo maps to args.dim (d_out), and "
     "its blocks need n_embd == dim (readers asked about this in Happy-LLM issues #121 and #141).",
     "一个块要把注意力的输出加回它的输入，所以 wo 必须映射到输入的宽度：d_out == d_in。手撕的类可以用 "
     "d_in 10 和 d_out 8；在模型里两者是同一个数。Happy-LLM 2.1.6 的 ModelArgs 两个都有："
     "wq = nn.Linear(args.n_embd, n_heads * head_dim) 读的是 n_embd（d_in），wo 映射到 args.dim（d_out），"
     "它的块需要 n_embd == dim（Happy-LLM 的 issue #121 和 #141 里读者问过这个问题）。"},
    {"parameters: %lld", "参数个数：%lld"},
    {"--happy-llm without --causal is is_causal=False, which makes no mask buffer; it does not take --max-seq-len",
     "--happy-llm 不加 --causal 时 is_causal=False，不建掩码缓冲区，所以不接受 --max-seq-len"},
    {NULL, NULL}};
