/* zh.c — chapter 10's narration in Chinese (lang.h): each English string as
 * main.c writes it, beside its translation. Terms: docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter10_zh[];

const LangPair chapter10_zh[] = {
    {"Chapter 10: the backward pass of chapter 7's MultiHeadAttention by hand, a\n"
     "gradient check, and a tiny model that learns to attend. Default: a small module\n"
     "(batch 2, seq 4, d_in 6, d_out 4, 2 heads, dropout 0.1, training mode, causal),\n"
     "loss = (y * dy).sum() with a random dy, every backward step, and the float64\n"
     "finite-difference check table.\n"
     "With --input/--weights (eval mode, as chapter 7): gradients of chapter 7's\n"
     "module for dy from --grad-output; --dump DIR writes grad_x.npy grad_wq.npy\n"
     "grad_wk.npy grad_wv.npy grad_wo.npy and grad_b?.npy for each bias in the\n"
     "weights folder; --output FILE writes y = model(x) as chapter 7 does.\n"
     "With --train: a tiny causal model learns 'output the token two places back';\n"
     "it ends with 'final accuracy: A%' on held-out sequences; --dump DIR writes the\n"
     "loss curve and attention snapshots (make plots) and the model, which\n"
     "build/chapter11 --generate DIR reads.",
     "第 10 章：手写第 7 章 MultiHeadAttention 的反向传播，做梯度检查，再让一个\n"
     "小模型学会关注。默认：一个小模块（批 2，序列长度 4，d_in 6，d_out 4，2 个头，\n"
     "dropout 0.1，训练模式，因果），随机的 dy，loss = (y * dy).sum()，逐步讲解\n"
     "反向传播，最后是 float64 有限差分的检查表。\n"
     "给 --input/--weights 时（评估模式，同第 7 章）：对 --grad-output 给出的 dy\n"
     "求第 7 章模块的梯度；--dump DIR 写出 grad_x.npy grad_wq.npy grad_wk.npy\n"
     "grad_wv.npy grad_wo.npy，权重文件夹里每有一个偏置就再写一个 grad_b?.npy；\n"
     "--output FILE 像第 7 章一样写出 y = model(x)。\n"
     "给 --train 时：一个小的因果模型学习“输出往前数第二个词元”；最后一行是留出\n"
     "序列上的 'final accuracy: A%'；--dump DIR 写出损失曲线、注意力快照（make plots）\n"
     "和模型本身，build/chapter11 --generate DIR 会读它。"},
    {"dloss/dy .npy (B, T, d_out) for --input (default: ones)", "--input 的 dloss/dy .npy (B, T, d_out)（默认全 1）"},
    {"train the tiny model (see above)", "训练小模型（见上）"},
    {"training steps", "训练步数"},
    {"Adam learning rate", "Adam 的学习率"},
    {"--train trains its own model; it does not take --input, --weights or --output",
     "--train 训练它自己的模型；不接受 --input、--weights 或 --output"},
    {"--grad-output needs --input and --weights (the module it is the gradient for)",
     "--grad-output 需要 --input 和 --weights（它是那个模块的梯度）"},
    {"--steps and --lr go with --train", "--steps 和 --lr 要和 --train 一起用"},
    {"--train draws its heatmaps without --heatmap; it takes --heatmap only with --quiet, which would leave "
     "them out",
     "--train 不加 --heatmap 也会画热力图；只有加了 --quiet（它会省掉热力图）时才接受 --heatmap"},
    {"--train's tiny model is causal; it does not take --no-causal", "--train 的小模型是因果的；不接受 --no-causal"},
    {"--train's tiny model has its own sizes and settings (batch %d, %d tokens, width %d, no dropout, "
     "no biases on W_q, W_k, W_v); it does not take %s (--heads, --steps, --lr and --seed change it)",
     "--train 的小模型有自己的尺寸和设置（批大小 %d，%d 个词元，宽度 %d，没有 dropout，"
     "W_q、W_k、W_v 没有偏置）；不接受 %s（能改变它的是 --heads、--steps、--lr 和 --seed）"},
    {"--input and --weights give the module's sizes and biases, and it runs in eval mode with "
     "nothing random; it does not take %s",
     "--input 和 --weights 决定模块的尺寸和偏置，并且它在评估模式下运行、没有任何随机性；不接受 %s"},

    /* run 1: the backward */
    {"Chapter 10: the backward pass of MultiHeadAttention, by hand", "第 10 章：手写 MultiHeadAttention 的反向传播"},
    {"(--eval changes nothing here: the gradients are those of eval mode)",
     "（--eval 在这里不起作用：梯度是评估模式下的）"},
    {"torch.autograd.gradcheck(f, (x.double(), *params))   # the same dropout masks every call",
     "torch.autograd.gradcheck(f, (x.double(), *params))   # 每次调用都用同样的 dropout 掩码"},
    {"no --grad-output: dy = ones, that is loss = y.sum()", "没有 --grad-output：dy = ones（全一张量），即 loss = y.sum()"},
    {"%s has shape %s but the output y is (B, T, d_out) = (%lld, %lld, %lld): --grad-output "
     "must be dloss/dy, the shape of y",
     "%s 的形状是 %s，但输出 y 是 (B, T, d_out) = (%lld, %lld, %lld)：--grad-output "
     "必须是 dloss/dy，形状与 y 相同"},
    {"dy = dloss/dy from %s: loss = (y * dy).sum()", "dy = dloss/dy，来自 %s：loss = (y * dy).sum()"},
    {"Chapter 7's module, a small input and a gradient for its output", "第 7 章的模块、一个小输入和输出的梯度"},
    {"any loss reaches the module only through dloss/dy; (y * dy).sum() is the loss whose "
     "dloss/dy is exactly dy, so one random dy tests every path.",
     "任何损失都只能通过 dloss/dy 到达模块；(y * dy).sum() 这个损失的 dloss/dy 恰好就是 "
     "dy，所以一个随机的 dy 就能检验每一条路径。"},
    {"d_in = %lld, d_out = %lld, n_heads = %lld, head_dim = %lld, causal = %s, qkv_bias = %s, "
     "out bias = %s, dropout = %g (%s)",
     "模块的参数：d_in = %lld，d_out = %lld，n_heads = %lld，head_dim = %lld，causal = %s，"
     "qkv_bias = %s，输出偏置 = %s，dropout = %g（%s）"},
    {"training", "训练模式"},
    {"off", "关"},
    {"Forward (chapter 7), keeping the activations", "前向传播（第 7 章），保留激活值"},
    {"attention weights (forward)", "注意力权重（前向传播）"},
    {"like llm.c's train_gpt2.c, the forward keeps xq, xk, xv, the weights before and after "
     "dropout, the merged heads and the dropout masks: each backward step below reads them.",
     "和 llm.c 的 train_gpt2.c 一样，前向传播保留 xq、xk、xv、dropout 前后的注意力权重、"
     "合并后的多头输出和 dropout 的掩码：下面每一步反向传播都要读它们。"},
    {"resid_dropout and W_o: the backward of nn.Linear", "resid_dropout 和 W_o：nn.Linear 的反向传播"},
    {"dprojected = dy: resid_dropout is off in this chapter (--resid-dropout does not apply), so "
     "its backward passes dy through unchanged",
     "dprojected = dy：本章关掉了 resid_dropout（--resid-dropout 不适用），所以它的反向传播"
     "原样传过 dy"},
    {"wo.weight.grad = dprojected.T @ merged: %s   merged.grad = dprojected @ wo.weight: %s",
     "wo.weight.grad = dprojected.T @ merged，形状 %s；merged.grad = dprojected @ wo.weight，"
     "形状 %s"},
    {"wo.bias.grad = dprojected.sum over (B, T): %s", "wo.bias.grad = dprojected 在 (B, T) 上求和：%s"},
    {"y = x W^T + b: every output feature o got x · W[o], so W[o] collects dy[o] * x over every "
     "token, x collects dy[o] * W[o] over every o, and b collects dy[o]. Each gradient has the shape "
     "of what it belongs to.",
     "y = x W^T + b：每个输出特征 o 得到的是 x · W[o]，所以 W[o] 在所有词元上累加 dy[o] * x，"
     "x 在所有 o 上累加 dy[o] * W[o]，b 累加 dy[o]。每个梯度的形状和它所属的张量相同。"},
    {"Merge heads, then @ xv: the backward of a view and of a matmul", "合并多头，再 @ xv：view 和 matmul 的反向传播"},
    {"the merge's backward is a split: %s -> %s", "合并的反向传播就是拆分：%s -> %s"},
    {"c = a @ b gives a.grad = dc @ b.T and b.grad = a.T @ dc: dattn_dropped %s, dxv %s",
     "c = a @ b 给出 a.grad = dc @ b.T 和 b.grad = a.T @ dc：dattn_dropped %s，dxv %s"},
    {"a view or transpose moves no numbers, so its backward moves the gradient back the same "
     "way; a matmul's backward is two matmuls with the other operand transposed.",
     "view 或 transpose 不移动任何数，所以它的反向传播只是把梯度按同样的方式摆回去；"
     "matmul 的反向传播是两个 matmul，各自用另一个操作数的转置。"},
    {"attn_dropout and softmax", "attn_dropout 和 softmax"},
    {"dweights = dattn_dropped * mask, the mask the forward drew (0 where dropped, 1/(1-p) where "
     "kept), then",
     "dweights = dattn_dropped * mask，mask 是前向传播抽出的掩码（丢掉处为 0，保留处为 "
     "1/(1-p)），然后"},
    {"dscores = P * (dP - (dP * P).sum(-1, keepdim=True))", "dscores = P * (dP - (dP * P).sum(-1, keepdim=True))："
     "softmax 的反向传播"},
    {"softmax ties a row together: raising one score lowers every other weight, so each "
     "dscores entry is its own dP minus the row's weighted mean of dP. Each row of dscores sums "
     "to 0, so adding one number to a whole row changes nothing: that is why the max F.softmax "
     "subtracts needs no gradient (softmax(s - c) = softmax(s) for any c). %s",
     "softmax 把一行绑在一起：抬高一个分数，其余每个权重都会下降，所以 dscores 的每个元素"
     "是它自己的 dP 减去这一行 dP 的加权平均。dscores 每一行之和为 0，所以给一整行加上"
     "同一个数什么也不改变：这就是 F.softmax 减去的行最大值不需要梯度的原因（对任何 c，"
     "softmax(s - c) = softmax(s)）。%s"},
    {"Masked entries have P = 0, so they get 0: the additive mask passes the gradient through unchanged "
     "and, as a buffer, gets none itself.",
     "被掩码遮住的元素 P = 0，所以梯度为 0：加性的掩码把梯度原样传过去，而它作为缓冲区，"
     "自己没有梯度。"},
    {"The 1/sqrt(d_k) scale, QK^T, the split, and W_q, W_k, W_v", "1/sqrt(d_k) 缩放、QK^T、拆分，以及 W_q、W_k、W_v"},
    {"draw = dscores / sqrt(%lld); dxq = draw @ xk %s; dxk = draw.T @ xq %s",
     "先缩放 draw = dscores / sqrt(%lld)；再求 dxq = draw @ xk，形状 %s；dxk = draw.T @ xq，形状 %s"},
    {"split's backward is a merge; then three nn.Linear backwards, and x.grad = the sum of "
     "the three: %s",
     "拆分的反向传播是合并；然后是三个 nn.Linear 的反向传播，x.grad 是三者之和：%s"},
    {"x was used three times (wq, wk and wv all read it), so autograd adds the three "
     "gradients that reach it; forgetting one is the classic hand-written backward bug.",
     "x 被用了三次（wq、wk、wv 都读它），所以 autograd 把到达它的三个梯度加起来；漏掉一个"
     "是手写反向传播的经典错误。"},

    /* the gradient check */
    {"    tensor   numel   max |grad|   max |bw - fd|   max rel err   within %.0e\n",
     "    张量     numel   max |grad|   max |bw - fd|      相对误差   不超过 %.0e\n"},
    {"NO", "否"},
    {"Gradient check: float64 central differences for every entry", "梯度检查：对每个元素做 float64 中心差分"},
    {"the reference is chapter 7's forward again, on double arrays (grad_check.c): for "
     "every number v of x and of every parameter, (loss(v + h) - loss(v - h)) / 2h with "
     "h = %g (gradcheck's default eps), all in float64, the dropout masks this forward drew held fixed. It is "
     "compared with the float32 backward above. Relative error = max |backward - fd| / "
     "max(1, max |fd|): relative to the tensor's largest gradient, absolute below 1.",
     "参照是再跑一遍第 7 章的前向传播，只是用 double 数组（grad_check.c）：对 x 和每个参数"
     "的每个数 v，计算 (loss(v + h) - loss(v - h)) / 2h，h = %g（gradcheck 默认的 eps），"
     "全程 float64，并固定这次前向传播抽出的 dropout 掩码。它和上面 float32 的反向传播"
     "比较。相对误差 = max |backward - fd| / max(1, max |fd|)：相对于这个张量最大的梯度，"
     "低于 1 时是绝对误差。"},
    {"bk's gradient is 0 (up to rounding): adding one vector b to every key adds q . b to "
     "a whole row of scores, and softmax does not change when a row is shifted.",
     "bk 的梯度为 0（只差舍入误差）：给每个键加上同一个向量 b，相当于给一整行分数加上 "
     "q . b，而一行整体平移时 softmax 不变。"},
    {"gradcheck is meant for double inputs (in float32, its docs say, it will "
     "likely fail). In float64 the differences are good to about 1e-9 (h^2 of "
     "truncation, 1e-16 x |loss| / h of rounding), so the table shows the float32 backward's own rounding: a few units "
     "of float32's 6e-8. Rounding grows with the length of the sums, so the tolerance "
     "%.0e leaves room for bigger modules and is still 100 times below a gradient that "
     "is 1%% off. tests/test_ch10.c also checks the gradients against torch.autograd "
     "to 1e-4.",
     "gradcheck 是为 double 输入设计的（它的文档说，用 float32 多半会失败）。在 float64 下"
     "差分准确到约 1e-9（截断误差 h^2，舍入误差 1e-16 x |loss| / h），所以表里显示的是 "
     "float32 反向传播自己的舍入误差：float32 的 6e-8 的几倍。舍入误差随求和的长度增长，"
     "所以容差 %.0e 给更大的模块留了余地，又仍有 100 倍的差距：偏差 1%% 的梯度一定会被查出来。"
     "tests/test_ch10.c 还把梯度和 torch.autograd 比较，误差在 1e-4 以内。"},
    {"gradient check: %d tensors, worst relative error %.3g (%s %g)",
     "梯度检查：%d 个张量，最大相对误差 %.3g（%s %g）"},
    {"within", "不超过"},
    {"NOT within", "超过了"},
    {"gradient check failed: relative error %.3g is above %g", "梯度检查未通过：相对误差 %.3g 大于 %g"},

    /* run 2: training */
    {"Chapter 10: a tiny model learns to attend (training with the backward by hand)",
     "第 10 章：一个小模型学会关注（用手写的反向传播来训练）"},
    {"The task: output the token two places back", "任务：输出往前数第二个词元"},
    {"sequences of %d tokens from {A..H}; at position t >= 2 the answer is the token at t - 2. "
     "%d training sequences, %d held-out ones (none of them in the training set).",
     "序列由 %d 个取自 {A..H} 的词元组成；在位置 t >= 2，答案是位置 t - 2 上的词元。"
     "%d 条训练序列，%d 条留出序列（都不在训练集里）。"},
    {"no token says what came two places before it: position t has to look at position t - 2. "
     "The attention weights that solve it are a stripe two below the diagonal.",
     "没有哪个词元会告诉你它前面第二个是什么：位置 t 必须去看位置 t - 2。能解决这个任务的"
     "注意力权重，是对角线下方第二条斜线。"},
    {"logits = head(attn(x))        # attn: chapter 7, causal", "logits = head(attn(x))        # attn：第 7 章的注意力，因果"},
    {"loss.backward(); opt.step()   # by hand; Adam", "loss.backward(); opt.step()   # 手写反向传播；Adam"},
    {"The model: embeddings, chapter 7's attention, a linear head (%lld parameters)",
     "模型：嵌入、第 7 章的注意力和一个线性输出层（%lld 个参数）"},
    {"dim %d, %lld heads, batch %d, Adam lr %g, %lld steps, seed %llu",
     "dim %d，%lld 个头，批大小 %d，Adam 学习率 %g，%lld 步，种子 %llu"},
    {"training stopped at step %lld: the loss is %s; the learning rate %g is too large "
     "(try a smaller --lr)",
     "训练在第 %lld 步停止：损失为 %s；学习率 %g 太大（试试更小的 --lr）"},
    {"infinite", "无穷大"},
    {"    step %5lld   loss %.4f\n", "    第 %5lld 步   损失 %.4f\n"},
    {"\r    training: step %lld/%lld, loss %.4f ", "\r    训练中：第 %lld/%lld 步，损失 %.4f "},
    {"Attention before training (held-out sequence 0)", "训练前的注意力（留出序列 0）"},
    {"before training", "训练前"},
    {"Attention after training (the same sequence)", "训练后的注意力（同一条序列）"},
    {"after training", "训练后"},
    {"row t is the query at position t; the ink two columns left of the diagonal is t looking "
     "at t - 2, the token it has to output.",
     "第 t 行是位置 t 上的查询；对角线左边第二列的深色，就是 t 在看 t - 2，也就是它要输出"
     "的那个词元。"},
    {"head %lld: mean attention weight on position t - 2: %.3f", "头 %lld：位置 t - 2 上的平均注意力权重：%.3f"},
    {"held-out loss: %.4f", "留出集上的损失：%.4f"},
    {"the tiny model's training", "小模型的训练"},
    {NULL, NULL}};
