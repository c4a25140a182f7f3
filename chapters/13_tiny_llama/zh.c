/* zh.c — chapter 13's narration in Chinese (lang.h): each English string as main.c
 * writes it, beside its translation. Terms: docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter13_zh[];

const LangPair chapter13_zh[] = {
    /* --help */
    {"Chapter 13: a tiny LLaMA2 (Happy-LLM 5.1's Transformer) trained in C on Tang\n"
     "poems, its heads drawn over real characters; llama2.c's .bin checkpoints.\n"
     "Default: train (first run) or load build/ch13/tang.bin, then look inside.\n"
     "--save OUT.bin [--corpus FILE --train-steps N]: train, write OUT.bin and\n"
     "OUT.tok. --checkpoint M.bin --tokens 3,1,4 [--dump DIR]: tokens.npy,\n"
     "logits.npy and attn_L.npy; --batch-tokens B.npy --grad-dump DIR: loss.npy\n"
     "and every gradient; --prompt TEXT --generate N [--dump DIR]: text through\n"
     "the KV cache (--dump: the forward of the prompt and what followed).",
     "第 13 章：一个很小的 LLaMA2（Happy-LLM 5.1 的 Transformer），用 C 在唐诗上训练，\n"
     "把它的头画在真实的汉字上；检查点用 llama2.c 的 .bin 格式。\n"
     "默认：第一次运行先训练，之后读入 build/ch13/tang.bin，再看模型内部。\n"
     "--save OUT.bin [--corpus FILE --train-steps N]：训练，写出 OUT.bin 和 OUT.tok。\n"
     "--checkpoint M.bin --tokens 3,1,4 [--dump DIR]：写出 tokens.npy、logits.npy 和\n"
     "attn_L.npy；--batch-tokens B.npy --grad-dump DIR：写出 loss.npy 和每个参数的梯度；\n"
     "--prompt TEXT --generate N [--dump DIR]：经 KV 缓存生成文本（--dump：写出提示\n"
     "加上生成部分的前向传播结果）。"},
    {"llama2.c's version-0 .bin", "llama2.c 第 0 版的 .bin"},
    {"llama2.c's tokenizer.bin (labels)", "llama2.c 的 tokenizer.bin（用作标签）"},
    {"token ids, e.g. 3,1,4,1,5", "词元编号，例如 3,1,4,1,5"},
    {"int32 .npy (B, T + 1): loss and gradients", "int32 的 .npy，形状 (B, T + 1)：用来求损失和梯度"},
    {"write loss.npy and every gradient", "写出 loss.npy 和每个梯度"},
    {"UTF-8 text to train on (default: tang300)", "训练用的 UTF-8 文本（默认 tang300）"},
    {"training steps (without it: the default run's)", "训练步数（不给时：用默认配置的步数）"},
    {"train, write FILE (.bin) and its .tok", "训练，写出 FILE（.bin）和对应的 .tok"},
    {"stop after step K, write OUT.bin and OUT.state", "第 K 步后停下，写出 OUT.bin 和 OUT.state"},
    {"continue OUT.bin (--save) from its OUT.state", "从 OUT.state 接着训练 OUT.bin（--save）"},
    {"time N training steps on --batch-tokens, N decodes", "在 --batch-tokens 上计时 N 个训练步和 N 次解码"},
    {"--bench times training steps on --batch-tokens FILE; give it without --grad-dump",
     "--bench 在 --batch-tokens FILE 上为训练步计时；不要同时给 --grad-dump"},
    {"--resume and --stop-at are for training (--save OUT.bin, or the default run), not --checkpoint",
     "--resume 和 --stop-at 用于训练（--save OUT.bin 或默认运行），不用于 --checkpoint"},
    {"resuming at step %lld of %lld from %s", "接着训练：从第 %lld 步起（共 %lld 步），状态读自 %s"},
    {"stopped after step %lld of %lld: %s and %s written; %s",
     "在第 %lld 步（共 %lld 步）后停下：已写出 %s 和 %s；%s"},
    {"%s: stopped by a signal after step %lld of %lld: %s and %s written; %s\n",
     "%s：收到信号，在第 %lld 步（共 %lld 步）后停下：已写出 %s 和 %s；%s\n"},
    {"--resume continues", "--resume 可接着训练"},
    {"the next run continues", "下次运行会接着训练"},
    /* the default run's usage errors, and main.c's errors */
    {"--corpus and --train-steps train a model of your own: give --save OUT.bin to keep it (the default run keeps "
     "its own checkpoint); --checkpoint M.bin --corpus FILE looks inside a model on that text",
     "--corpus 和 --train-steps 用来训练你自己的模型：请同时给 --save OUT.bin 来保存它（默认运行只保存它自己的"
     "检查点）；--checkpoint M.bin --corpus FILE 则是在那段文本上看一个模型的内部"},
    {"--dump and --stop-at are for a training run, and the chapter's checkpoint is trained already: delete "
     "ch13/tang.bin beside the program to train it again, or train your own with --save OUT.bin",
     "--dump 和 --stop-at 用于训练，而本章的检查点已经训练好了：要重新训练，请删掉程序旁边的 ch13/tang.bin；"
     "或者用 --save OUT.bin 训练你自己的模型"},
    {"%s: the batch has %lld inputs per row, more than the model's seq_len %lld",
     "%s：这批数据每行有 %lld 个输入，超过了模型的 seq_len %lld"},
    {"%s: the text has %lld characters; its last tenth, the validation text, must hold at least 2 (a character "
     "and the one after it to predict)",
     "%s：这段文本有 %lld 个字符；它的最后十分之一是验证文本，至少要有 2 个字符（一个字符，加上要预测的下一个）"},
    {"%s: the text has %lld characters; training needs more than %lld",
     "%s：这段文本有 %lld 个字符；训练需要多于 %lld 个"},
    {"%s: not the model this run trains (dim %lld, vocab_size %lld): resume with the corpus it was started with",
     "%s：不是这次运行训练的模型（dim %lld，vocab_size %lld）：请用开始训练时的语料接着训练"},
    {"%s: cannot open it: --resume continues a run that --stop-at or Ctrl-C stopped, which wrote it beside %s",
     "%s：无法打开：--resume 接着的是被 --stop-at 或 Ctrl-C 停下的训练，那次训练把它写在 %s 旁边"},
    {"%s: the state is at step %lld; --stop-at %lld is not after it",
     "%s：状态停在第 %lld 步；--stop-at %lld 不在它之后"},
    {"text to continue (--generate)", "要续写的文本（--generate）"},
    {"tokens to add after --prompt (KV cache)", "在 --prompt 之后生成的词元数（KV 缓存）"},
    {"0: greedy; else softmax(logits / T)", "0：贪心；否则按 softmax(logits / T) 采样"},
    {"nucleus sampling: keep the top P of the mass", "核采样：按概率从高到低保留词元，直到概率之和超过 P"},
    /* usage sentences */
    {"--tokens takes token ids between commas, e.g. 3,1,4", "--tokens 需要用逗号隔开的词元编号，例如 3,1,4"},
    {"%s: --tokens: token %d is outside the vocabulary 0..%lld of %s (see --help)\n",
     "%s：--tokens：词元 %d 不在词表范围 0..%lld 内（%s 的词表；见 --help）\n"},
    {"%s: --tokens gives %lld tokens, more than the model's seq_len %lld (see --help)\n",
     "%s：--tokens 给了 %lld 个词元，超过模型的 seq_len %lld（见 --help）\n"},
    {"--prompt is empty: give at least one character", "--prompt 是空的：至少给一个字"},
    {"%s: --prompt (%lld tokens) and --generate %lld pass the model's seq_len %lld (see --help)\n",
     "%s：--prompt（%lld 个词元）加上 --generate %lld 超过了模型的 seq_len %lld（见 --help）\n"},
    {"--prompt and --generate go together", "--prompt 和 --generate 要一起给"},
    {"--save trains a new model; it does not take --checkpoint, --tokens or --batch-tokens",
     "--save 训练一个新模型，不能和 --checkpoint、--tokens 或 --batch-tokens 一起用"},
    {"--tokens, --batch-tokens and --prompt need --checkpoint M.bin (or --save to train)",
     "--tokens、--batch-tokens 和 --prompt 需要 --checkpoint M.bin（或用 --save 训练）"},
    {"--checkpoint with --corpus looks inside the model on that text; give it without --tokens, --batch-tokens or "
     "--prompt",
     "--checkpoint 加 --corpus 是在那段文本上看模型内部；不要同时给 --tokens、--batch-tokens 或 --prompt"},
    {"--prompt is its own run; give it without --tokens or --batch-tokens",
     "--prompt 是单独的一种运行，不要同时给 --tokens 或 --batch-tokens"},
    {"--tokens and --batch-tokens are two runs; give one", "--tokens 和 --batch-tokens 是两种运行，只给一个"},
    {"give --tokens LIST (a forward), --batch-tokens FILE (gradients) or --prompt TEXT --generate N",
     "请给 --tokens LIST（前向传播）、--batch-tokens FILE（梯度）或 --prompt TEXT --generate N"},
    {"--grad-dump needs --batch-tokens", "--grad-dump 需要 --batch-tokens"},
    {"--dump writes the forward of --tokens or of --prompt and what --generate added",
     "--dump 写出 --tokens 的前向传播结果，或 --prompt 加上 --generate 生成部分的前向传播结果"},
    /* the model */
    {"Chapter 13: a tiny LLaMA2 (Happy-LLM 5.1) in C", "第 13 章：用 C 写一个很小的 LLaMA2（Happy-LLM 5.1）"},
    {"The model: Happy-LLM 5.1's Transformer, read from llama2.c's .bin",
     "模型：Happy-LLM 5.1 的 Transformer，从 llama2.c 的 .bin 读入"},
    {"dim %lld, hidden_dim %lld, n_layers %lld, n_heads %lld, n_kv_heads %lld, vocab_size %lld, seq_len %lld, "
     "head_dim %lld",
     "宽度 dim %lld，隐藏宽度 %lld，层数 %lld，头数 %lld，键/值头数 %lld，词表大小 %lld，序列长度 %lld，"
     "头维度 %lld"},
    {"  %-40s gradient %s", "  %-40s 梯度 %s"},
    {"%lld parameters; output head %s", "共 %lld 个参数；输出层%s"},
    {"tied to tok_embeddings (vocab_size > 0 in the header)", "与 tok_embeddings 共享权重（文件头里 vocab_size > 0）"},
    {"its own matrix (vocab_size < 0 in the header)", "有自己的矩阵（文件头里 vocab_size < 0）"},
    {"each layer is RMSNorm, chapter 11's Attention (RoPE, n_kv_heads), a residual, RMSNorm, the SwiGLU MLP "
     "w2(silu(w1 x) * w3 x) and a residual; no attention code is new here.",
     "每一层依次是 RMSNorm、第 11 章的 Attention（RoPE、n_kv_heads）、残差、RMSNorm、SwiGLU 的 MLP "
     "w2(silu(w1 x) * w3 x) 和残差；这里没有新写任何注意力代码。"},
    /* --tokens */
    {"The forward of %lld tokens (eval)", "%lld 个词元的前向传播（评估模式）"},
    {"next token after each position (argmax of its logits):", "每个位置之后最可能的词元（logits 的 argmax）："},
    {"Every head's attention weights, layer 0 (rows: queries, columns: keys)",
     "第 0 层每个头的注意力权重（行：查询，列：键）"},
    {"layer 0", "第 0 层"},
    {"each row sums to 1 over the keys at or before its query (the causal mask of chapter 4).",
     "每一行的权重只落在查询自己和它之前的键上，加起来为 1（第 4 章的因果掩码）。"},
    /* --batch-tokens */
    {"loss.backward() by hand, on a batch of %lld x %lld tokens", "手写的 loss.backward()，一批 %lld x %lld 个词元"},
    {"loss %.6f (a model that knows nothing: log(vocab_size) = %.6f)",
     "损失 %.6f（什么都不知道的模型：log(vocab_size) = %.6f）"},
    {"the attention's backward is chapter 12's flash backward (O(T) memory); RMSNorm, SwiGLU, RoPE, repeat_kv and "
     "the embedding have theirs in tiny_llama.c, the Linears chapter 10's.",
     "注意力的反向传播用第 12 章的 flash 反向传播（O(T) 内存）；RMSNorm、SwiGLU、RoPE、repeat_kv 和嵌入的反向传播"
     "在 tiny_llama.c 里，各个 Linear 的与第 10 章相同。"},
    {"loss %.6f", "损失 %.6f"},
    /* training */
    {"Training on %s", "在 %s 上训练"},
    {"generated poems", "生成的诗"},
    {"tang300 is not installed: apt-get install fortunes-zh puts Debian's 313 Tang poems at %s; until then the "
     "chapter trains on poems it makes up with their line and rhyme shape",
     "没有安装 tang300：apt-get install fortunes-zh 会把 Debian 收录的 313 首唐诗放到 %s；在此之前，"
     "本章用自己编的、句式和押韵与唐诗相同的诗来训练"},
    {"%lld characters, %lld distinct (the vocabulary); %lld for training, %lld for validation",
     "共 %lld 个字，其中不同的 %lld 个（即词表）；%lld 个用于训练，%lld 个用于验证"},
    {"dim %lld, n_layers %lld, n_heads %lld, n_kv_heads %lld, hidden_dim %lld, seq_len %lld: %lld parameters",
     "宽度 dim %lld，层数 n_layers %lld，头数 n_heads %lld，键/值头数 n_kv_heads %lld，隐藏宽度 hidden_dim %lld，"
     "序列长度 seq_len %lld：共 %lld 个参数"},
    {"%lld steps of %lld x %lld characters, AdamW lr %g (warmup %lld steps, cosine to %g), clip %g",
     "%lld 步，每步 %lld x %lld 个字，AdamW 学习率 %g（预热 %lld 步，再按余弦降到 %g），梯度范数裁剪到 %g"},
    {"step %lld/%lld  loss %.3f  %.0f tokens/s  ETA %.0f s   ", "第 %lld/%lld 步  损失 %.3f  每秒 %.0f 个词元  还需 %.0f 秒   "},
    {"the run will hold about %s (checked against the memory budget before training)",
     "这次运行约占用 %s（训练开始前已与内存预算比较）"},
    {"the run held at most %s at once (measured)", "这次运行同一时刻最多占用 %s（实测）"},
    {"the logits of a batch and the weights with AdamW's moments", "一批的 logits，以及权重和 AdamW 的两个矩"},
    {"trained %lld steps in %.1f s (%.0f tokens/s); last batch loss %.4f",
     "训练 %lld 步用时 %.1f 秒（每秒 %.0f 个词元）；最后一批的损失 %.4f"},
    {"unigram entropy of the training text %.4f (a model that ignores context)",
     "训练文本的一元熵 %.4f（不看上下文的模型最低能达到的损失）"},
    {"the chapter's checkpoint: %s (delete it to train again)", "本章的检查点：%s（删掉它就会重新训练）"},
    {"%s was not trained by this program's default run (%s is missing or says another configuration or text): "
     "training it again",
     "%s 不是本程序的默认运行训练出来的（%s 不存在，或者记的是别的配置或语料）：重新训练"},
    {"no checkpoint at %s yet: training the default configuration first (under 3 minutes on 2 cores), then saving it "
     "there",
     "还没有检查点 %s：先按默认配置训练（2 个核上不到 3 分钟），再存到这个位置"},
    /* generation */
    {"Generation through the KV cache", "经 KV 缓存生成"},
    {"temperature %g, top_p %g, %lld new tokens after a prompt of %lld",
     "温度 %g，top_p %g，生成 %lld 个新词元，提示有 %lld 个"},
    /* looking inside */
    {"Every head's attention over two lines it never trained on", "每个头在两行没训练过的诗上的注意力"},
    {"layer %lld", "第 %lld 层"},
    {"What each head looks at, measured on the validation text", "每个头在看什么：在验证文本上测量"},
    {"head", "头"},
    {"prev char", "前一个字"},
    {"same place", "上句同位"},
    {"next place", "上句下一位"},
    {"line start", "句首"},
    {"punct", "标点"},
    {"(the mean weight of the head's queries on each place, then that over what a head spreading its weight evenly "
     "over the keys it sees puts there; same place: the query's place in the line before; next place: the one after "
     "it, facing the character to predict)",
     "（每一格先是该头的查询放在这种位置上的平均权重，再是它与“把权重平均分给所有可见的键”时放在那里的权重之比；"
     "上句同位：上一句里与查询位置相同的字；上句下一位：它后面的那个字，与要预测的字相对）"},
    {"head %lld.%lld looks back to the previous line most: %.2f of its weight, %.1fx uniform",
     "最常回看上一句的是头 %lld.%lld：%.2f 的权重，是均匀分配的 %.1f 倍"},
    {"(on the same place in the previous line)", "（放在上一句的同一位置）"},
    {"(on the previous line's character facing the one to predict)", "（放在上一句中与要预测的字相对的字上）"},
    {"within a couplet (the line before ends in a comma): %.1fx on the same place, %.1fx on the next place; after "
     "any other mark: %.1fx and %.1fx",
     "一联之内（上一句以逗号结尾）：上句同位 %.1f 倍，上句下一位 %.1f 倍；上一句以别的标点结尾时：%.1f 倍和 %.1f 倍"},
    {"a line of a poem answers the line before it character by character (对仗): a head that looks back to the facing "
     "place has learned where the character to answer stands; the table says how far each head got. 对仗 pairs the "
     "two lines of a couplet (联), the one ending in a comma and the next; the last line says how much more the head "
     "looks back within a couplet than across one.",
     "对仗的两句逐字相对，后一句的每个字回应上一句同一位置的字：回看相对位置的头，学会了要回应的字在哪里；"
     "表里是每个头学到的程度。对仗的是一联的两句，即以逗号结尾的出句和它后面的对句；最后一行说明这个头"
     "在一联之内比跨联时多回看多少。"},
    {"A poem through the KV cache (temperature %g, top_p %g)", "经 KV 缓存生成的一首诗（温度 %g，top_p %g）"},
    /* errors of checkpoint.c, tiny_llama_setup.c, train.c, inspect.c, tiny_llama.c */
    {"%s: reading %s: %s", "%s：读取 %s 时出错：%s"},
    {"%s: the file is truncated: its header says %.0f bytes, but it ends after %.0f (in %s)",
     "%s：文件不完整：文件头说有 %.0f 字节，但文件在 %.0f 字节后就结束了（在 %s 里）"},
    {"%s: %s holds %s at element %lld: a checkpoint's weights must be finite numbers",
     "%s：%s 里有 %s（元素 %lld）：检查点的权重必须是有限的数"},
    {"an infinity", "无穷大"},
    {"%s: cannot open the checkpoint: %s", "%s：无法打开检查点：%s"},
    {"%s: the file is %zu bytes, shorter than llama2.c's 28-byte header (seven int32)",
     "%s：文件只有 %zu 字节，比 llama2.c 28 字节的文件头（七个 int32）还短"},
    {"%s: the header's vocab_size is %d; it must be the vocabulary's size, positive when the "
     "output head is tied to tok_embeddings, negative when it is not",
     "%s：文件头里的 vocab_size 是 %d；它必须是词表大小：输出层与 tok_embeddings 共享权重时为正，不共享时为负"},
    {"%s: the header", "%s 的文件头"},
    {"%s: the header (dim %d, hidden_dim %d, n_layers %d, vocab_size %d) needs %s of weights, over the "
     "memory limit of %s (ATTN_MAX_BYTES)",
     "%s：文件头（dim %d，hidden_dim %d，n_layers %d，vocab_size %d）需要 %s 的权重，超过了 %s 的"
     "内存预算（ATTN_MAX_BYTES）"},
    {"freq_cis_real and freq_cis_imag", "freq_cis_real 和 freq_cis_imag"},
    {"%s: the file is longer than its header says (%.0f bytes): the header does not describe these "
     "weights",
     "%s：文件比文件头算出的长度（%.0f 字节）长：文件头描述的不是这些权重"},
    {"%s: cannot open the tokenizer: %s", "%s：无法打开分词器：%s"},
    {"%s: the file is shorter than tokenizer.bin's 4-byte max_token_length",
     "%s：文件比 tokenizer.bin 开头 4 字节的 max_token_length 还短"},
    {"%s: max_token_length is %d; a tokenizer.bin's is between 1 and 65536",
     "%s：max_token_length 是 %d；tokenizer.bin 的 max_token_length 在 1 到 65536 之间"},
    {"%s: the file ends at token %lld, but the checkpoint's vocab_size is %lld",
     "%s：文件在词元 %lld 处就结束了，但检查点的 vocab_size 是 %lld"},
    {"%s: token %lld has length %d, outside 0..max_token_length = %d",
     "%s：词元 %lld 的长度是 %d，不在 0..max_token_length = %d 范围内"},
    {"%s: the file ends inside token %lld's %d bytes", "%s：文件在词元 %lld 的 %d 个字节中间就结束了"},
    {"%s: token %lld holds a NUL byte, which no piece of llama2.c's tokenizer holds",
     "%s：词元 %lld 含有 NUL 字节，llama2.c 分词器的词元都不含这个字节"},
    {"%s: the file has bytes after its %lld tokens: it belongs to a model of another vocab_size",
     "%s：文件在 %lld 个词元之后还有字节：它属于 vocab_size 不同的另一个模型"},
    {"--prompt: the tokenizer has no piece for byte 0x%02X and no byte pieces (ids 3..258)",
     "--prompt：分词器里既没有字节 0x%02X 对应的词元，也没有单字节词元（编号 3..258）"},
    {"%s: cannot open the batch: %s", "%s：无法打开批文件：%s"},
    {"%s: reading the batch failed", "%s：读取批文件失败"},
    {"%s: the batch file is over 16 MiB; a batch of token ids is smaller",
     "%s：批文件超过 16 MiB；一批词元编号没有这么大"},
    {"%s: --batch-tokens needs a version 1.0 .npy of int32 ('<i4'), as np.save(F, np.asarray(b, "
     "dtype=np.int32)) writes",
     "%s：--batch-tokens 需要 1.0 版的 int32（'<i4'）.npy 文件，即 np.save(F, np.asarray(b, "
     "dtype=np.int32)) 写出的那种"},
    {"%s: the batch has shape %s; it must be (B, T + 1) with B >= 1 and T >= 1: inputs [:, :-1], "
     "targets [:, 1:]",
     "%s：批的形状是 %s；它必须是 (B, T + 1)，B >= 1 且 T >= 1：输入取 [:, :-1]，目标取 [:, 1:]"},
    {"%s: element %lld is %d, outside the model's vocabulary 0..%lld",
     "%s：元素 %lld 是 %d，不在模型的词表范围 0..%lld 内"},
    {"%s: cannot open: %s", "%s：无法打开文件：%s"},
    {"%s: reading failed (or the file is over 1 GiB)", "%s：读取失败（或者文件超过了 1 GiB）"},
    {"%s: not a training state of this chapter (it begins with CH13ST01 and is at least %zu bytes)",
     "%s：不是本章的训练状态文件（状态文件以 CH13ST01 开头，至少有 %zu 字节）"},
    {"%s: the state is of a run on another text (same length, other characters); resume with "
     "the corpus it was trained on",
     "%s：这个状态文件来自在另一段文本上的训练（长度相同，字不同）；请用训练它的语料接着训练"},
    {"%s: the state is of a run with %s %lld, this run has %lld; resume with the flags it was "
     "started with",
     "%s：这个状态文件来自 %s 为 %lld 的训练，这次运行是 %lld；请用开始训练时的参数接着训练"},
    {"batch", "批大小"},
    {"text length", "文本长度"},
    {"%s: the state holds %lld tensors of %lld numbers, the model %d of %lld",
     "%s：状态文件里有 %lld 个张量、共 %lld 个数，模型却有 %d 个、共 %lld 个数"},
    {"%s: the file is %zu bytes, a state of this model is %zu (truncated or longer)",
     "%s：文件有 %zu 字节，这个模型的状态文件应有 %zu 字节（文件被截短了，或者多出了字节）"},
    {"%s: the state is not of the weights in the checkpoint beside it (another run wrote it since); "
     "train again without --resume",
     "%s：这个状态文件与旁边检查点里的权重对不上（之后有别的运行写过检查点）；请不带 --resume 重新训练"},
    {"%s: the state's step %lld or generator position %d is out of range",
     "%s：状态文件里的步数 %lld 或随机数生成器的位置 %d 超出了范围"},
    {"%s: byte %zu is not valid UTF-8 (the chapter reads text as UTF-8 characters)",
     "%s：字节 %zu 不是有效的 UTF-8（本章把文本按 UTF-8 字符来读）"},
    {"%s: the text has %lld characters; training needs at least 2", "%s：文本只有 %lld 个字符；训练至少需要 2 个"},
    {"%s: character %lld, '%s' (U+%04X), is not in the model's vocabulary of %lld characters",
     "%s：字符 %lld，'%s'（U+%04X），不在模型的词表里（词表有 %lld 个字符）"},
    {"%s: token %d is not one character in code point order: this is not a character tokenizer "
     "(the chapter's .tok)",
     "%s：词元 %d 不是按码位顺序排列的单个字符：这不是按字划分词元的分词器（本章的 .tok）"},
    {"generation: %lld positions would pass the model's seq_len %lld", "生成：%lld 个位置会超过模型的 seq_len %lld"},
    {"%s: dim %lld, hidden_dim %lld, n_layers %lld, n_heads %lld, n_kv_heads %lld, vocab_size %lld and "
     "seq_len %lld must all be at least 1",
     "%s：dim %lld、hidden_dim %lld、n_layers %lld、n_heads %lld、n_kv_heads %lld、vocab_size %lld 和 "
     "seq_len %lld 都必须至少为 1"},
    {"%s: n_kv_heads %lld does not divide n_heads %lld (each key/value head serves n_heads / "
     "n_kv_heads query heads)",
     "%s：n_kv_heads %lld 不能整除 n_heads %lld（每个键/值头要服务 n_heads / n_kv_heads 个查询头）"},
    {"%s: dim %lld is not a multiple of n_heads %lld (head_dim = dim / n_heads)",
     "%s：dim %lld 不是 n_heads %lld 的倍数（head_dim = dim / n_heads）"},
    {"%s: head_dim = dim / n_heads = %lld is odd, but RoPE turns pairs of numbers",
     "%s：head_dim = dim / n_heads = %lld 是奇数，但 RoPE 要把数两两配对来旋转"},
    {"%s: norm_eps %g must be positive", "%s：norm_eps %g 必须是正数"},
    {"model", "模型"},
    {"token %lld is %d, outside the vocabulary 0..%lld", "位置 %lld 的词元是 %d，不在词表范围 0..%lld 内"},
    {"the model reads 1 to seq_len = %lld tokens at once, not %lld",
     "模型一次读 1 到 seq_len = %lld 个词元，不能是 %lld 个"},
    {"rope: x must be (bsz, seqlen, heads, head_dim) and freqs_cos, freqs_sin (seqlen, "
     "head_dim / 2)",
     "rope：x 必须是 (bsz, seqlen, heads, head_dim)，freqs_cos 和 freqs_sin 必须是 (seqlen, head_dim / 2)"},
    {"target %lld is %d, outside the vocabulary 0..%lld", "位置 %lld 的目标是 %d，不在词表范围 0..%lld 内"},
    {NULL, NULL}};
