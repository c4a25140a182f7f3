/* lang_zh.c — common/program's own sentences in Chinese: --help, the flags'
 * errors, the long-run notice, the progress line and the memory refusal
 * (lang.h). Terms as in docs/GLOSSARY.md. */
#include "common/program/lang.h"

const LangPair lang_common_zh[] = {
    /* load_or_default's note (cli.c) and the flag lists it names */
    {"(%s are not used: --input and --weights give the shapes and biases)",
     "（不使用 %s：形状和偏置由 --input 和 --weights 决定）"},
    {"(%s is not used: --input and --weights give the shapes and biases)",
     "（不使用 %s：形状和偏置由 --input 和 --weights 决定）"},
    {" and ", " 和 "},
    {", ", "、"},
    /* --help (cli.c) */
    {"usage: %s [flags]\n", "用法：%s [参数]\n"},
    {"\nflags:\n", "\n参数：\n"},
    {"random seed, like torch.manual_seed(N)", "随机种子，同 torch.manual_seed(N)"},
    {"batch size", "批大小"},
    {"sequence length", "序列长度"},
    {"causal mask buffer size, max_seq_len", "因果掩码缓冲区的大小 max_seq_len"},
    {"input width d_in (Happy-LLM 2.1.6: args.n_embd)", "输入宽度 d_in（Happy-LLM 2.1.6：args.n_embd）"},
    {"output width of W_q, W_k, W_v (args.dim)", "W_q、W_k、W_v 的输出宽度（args.dim）"},
    {"query/key width d_k", "查询和键的宽度 d_k"},
    {"number of heads", "头数"},
    {"dropout probability on the attention weights", "注意力权重上的 dropout 概率"},
    {"Happy-LLM's resid_dropout on the output", "Happy-LLM 在输出上的 resid_dropout"},
    {"eval mode, dropout off, like model.eval()", "评估模式，关掉 dropout，同 model.eval()"},
    {"mask future positions (causal attention)", "遮住未来的位置（因果注意力）"},
    {"attend to every position", "关注每一个位置"},
    {"biases on W_q, W_k, W_v (qkv_bias=True)", "W_q、W_k、W_v 带偏置（qkv_bias=True）"},
    {"print only the result", "只打印结果"},
    {"write the named intermediates into DIR as .npy", "把有名字的中间结果以 .npy 写入 DIR"},
    {"draw the attention weights as a heatmap", "把注意力权重画成热力图"},
    {"heatmap in plain ASCII (implies --heatmap)", "只用 ASCII 字符画热力图（含 --heatmap）"},
    {"heatmap: shade each row on its own scale", "热力图：每一行按自己的范围着色"},
    {"queries .npy, shape (..., T, d_k); needs --k and --v", "查询 .npy，形状 (..., T, d_k)；需要 --k 和 --v"},
    {"keys .npy, shape (..., S, d_k)", "键 .npy，形状 (..., S, d_k)"},
    {"values .npy, shape (..., S, d_v)", "值 .npy，形状 (..., S, d_v)"},
    {"input .npy, shape (B, T, d_in); needs --weights", "输入 .npy，形状 (B, T, d_in)；需要 --weights"},
    {"folder with wq wk wv.npy (d_out, d_in), see the chapter", "含 wq wk wv.npy (d_out, d_in) 的文件夹，见本章"},
    {"folder with wq wk wv wo.npy (bq bk bv bo: optional)", "含 wq wk wv wo.npy 的文件夹（bq bk bv bo 可选）"},
    {"write the attention output here as .npy", "把注意力输出以 .npy 写到这里"},
    {"naive, reordered, tiled, online or flash", "naive、reordered、tiled、online 或 flash"},
    {"language of the narration and --help", "讲解和 --help 的语言"},
    {"show this help and exit", "显示本帮助并退出"},
    {" (default %llu)", "（默认 %llu）"},
    {" (default %lld)", "（默认 %lld）"},
    {" (default %g)", "（默认 %g）"},
    {" (default %s)", "（默认 %s）"},
    {" (the default)", "（默认）"},
    {"on", "开"},
    {"off", "关"},
    {"\nFlags take \"--name value\" or \"--name=value\".\n"
     "language: --lang en|zh; without it, the first of LC_ALL, LC_MESSAGES and LANG\n"
     "that is set: a value beginning with zh is Chinese, any other English.\n"
     "exit status: 0 ok; 2 when the flags cannot work together (checked before any\n"
     "work: sizes, heads, unknown flags, an output folder that cannot be written);\n"
     "1 when a file's content or the system fails during the run.\n"
     "memory: a run that would not fit in ATTN_MAX_BYTES (default: half of this\n"
     "machine's memory) is refused before it starts. time: a run longer than 10 s\n"
     "at a fixed rate (the notice names it) says so first and shows its progress\n"
     "on a terminal; Ctrl-C stops it.\n",
     "\n参数写作“--name value”或“--name=value”。\n"
     "语言：--lang en|zh；不给时看 LC_ALL、LC_MESSAGES、LANG 中第一个有值的变量：\n"
     "以 zh 开头为中文，其余为英文。\n"
     "退出码：0 成功；2 参数之间无法配合（在任何计算之前检查：大小、头数、未知参数、\n"
     "无法写入的输出文件夹）；1 运行中文件内容或系统出错。\n"
     "内存：放不进 ATTN_MAX_BYTES（默认为本机内存的一半）的运行在开始前就被拒绝。\n"
     "时间：按固定速率估计超过 10 秒的运行（提示里写明速率）会先说明，并在终端上\n"
     "显示进度；Ctrl-C 可以停止它。\n"},

    /* the word of "chapterN: error: ..." (error.c, set by cli_parse) */
    {"error", "错误"},

    /* the flags' errors (cli.c) */
    {"%s: %s (see --help)\n", "%s：%s（见 --help）\n"},
    {"%s: %s: %s\n", "%s：%s：%s\n"},  /* chapterN: error: sentence */
    {"%s: %s\n", "%s：%s\n"},
    {"flag '%s' does not apply to %s", "参数 '%s' 不适用于 %s"},
    {"flag '%s' needs a value", "参数 '%s' 需要一个值"},
    {"flag '%s' takes no value", "参数 '%s' 不带值"},
    {"unexpected argument %s%s%s", "多余的实参 %s%s%s"},
    {"unknown flag '%s' (did you mean '%s'?)", "未知参数 '%s'（是不是想写 '%s'？）"},
    {"unknown flag '%s'", "未知参数 '%s'"},
    {"%s %s: must be %s", "%s %s：必须是 %s"},
    {"%s %s: must be a number from %g to %g", "%s %s：必须是 %g 到 %g 之间的数"},
    {"%s %s: must be a number from 0 to 1", "%s %s：必须是 0 到 1 之间的数"},
    {"%s %s: must be a positive number", "%s %s：必须是正数"},
    {"%s %s: must be a number above %g and at most %g", "%s %s：必须大于 %g 且不超过 %g"},
    {"%s %s: must be an integer from %.0f to %.0f", "%s %s：必须是 %.0f 到 %.0f 之间的整数"},
    {"%s %s: must be an integer from 0 to 18446744073709551615",
     "%s %s：必须是 0 到 18446744073709551615 之间的整数"},
    {"%s %s: must be an integer from 1 to %d", "%s %s：必须是 1 到 %d 之间的整数"},
    {"%s %s: must be en or zh", "%s %s：必须是 en 或 zh"},
    {"%s %s: must be one of naive, reordered, tiled, online, flash",
     "%s %s：必须是 naive、reordered、tiled、online、flash 之一"},
    {"--input and --weights go together: missing %s", "--input 和 --weights 要一起给：缺少 %s"},
    {"--q, --k and --v go together: missing %s", "--q、--k 和 --v 要一起给：缺少 %s"},
    {"flag '%s' needs a non-empty %s name", "参数 '%s' 需要一个非空的%s名"},
    {"directory", "文件夹"},
    {"file", "文件"},
    {"flag '%s' needs a non-empty value", "参数 '%s' 需要一个非空的值"},

    /* files and folders: out.c (the outputs), the .npy loader and the weights folder
     * (common/npy.c, common/state.c through t_tr), the system's reasons (t_strerror) */
    {"cannot write '%.900s': %s", "无法写入 '%.900s'：%s"},
    {"cannot write '%s': %s", "无法写入 '%s'：%s"},
    {"cannot write '%s' (renaming the finished temporary file failed): %s",
     "无法写入 '%s'（把写完的临时文件改名时失败）：%s"},
    {"writing standard output: %s%s", "写标准输出时出错：%s%s"},
    {"it is a socket", "它是一个套接字"},
    {"it is a FIFO that no process has open for reading", "它是一个没有进程在读的 FIFO"},
    {"out of memory", "内存不足"},
    {"%s holds %s at flat index %lld: %s", "%s 含有 %s（展平下标 %lld）：%s"},
    {"it is a symbolic link to a file that does not exist", "它是一个指向不存在的文件的符号链接"},
    {"it is a directory", "它是一个文件夹"},
    {"the name ends with '/', which names a directory", "名字以 '/' 结尾，那是文件夹的名字"},
    {"this run already writes too many files", "这次运行要写的文件已经太多了"},
    {"No such file or directory (its folder does not exist)", "没有这个文件或文件夹（它所在的文件夹不存在）"},
    {"Not a directory (its folder is not a directory)", "不是文件夹（它所在的“文件夹”并不是文件夹）"},
    {"cannot create directory '%.500s': '%.500s' exists and is not a directory",
     "无法创建文件夹 '%.500s'：'%.500s' 已存在，但不是文件夹"},
    {"cannot create directory '%.500s': %s", "无法创建文件夹 '%.500s'：%s"},
    {"%s %s: the folder %s does not exist", "%s %s：文件夹 %s 不存在"},
    {"%s %s: %s is not a folder", "%s %s：%s 不是文件夹"},
    {"%s %s: the folder %s cannot be written (%s)", "%s %s：文件夹 %s 无法写入（%s）"},
    {"no file can be made in it", "里面不能新建任何文件"},
    {"%s: the name is longer than %d bytes", "%s：名字超过了 %d 字节"},
    {"%s %s: it is a file, not a folder", "%s %s：它是文件，不是文件夹"},
    {"%s %s: it is a folder, not a file", "%s %s：它是文件夹，不是文件"},
    {"cannot open the file: %s", "无法打开文件：%s"},
    {"cannot read the file: %s", "无法读取文件：%s"},
    {"cannot open the file: it is a symbolic link to a file that does not exist",
     "无法打开文件：它是一个指向不存在的文件的符号链接"},
    {"is a directory, not a .npy file", "是文件夹，不是 .npy 文件"},
    {"not a .npy file (bad magic bytes): the file is empty", "不是 .npy 文件（开头的魔数不对）：文件是空的"},
    {"not a .npy file (bad magic bytes)", "不是 .npy 文件（开头的魔数不对）"},
    {"%s: shape %s needs %llu bytes of %s data, the file has %llu",
     "%s：形状 %s 需要 %llu 字节的 %s 数据，文件里有 %llu 字节"},
    {"truncated data", "数据不完整"},
    {"truncated header: the file ends inside the version bytes", "文件头不完整：文件在版本号字节处就结束了"},
    {"truncated header: the file ends inside the header length", "文件头不完整：文件在文件头长度字段处就结束了"},
    {"truncated header: it claims %zu bytes but the file has only %llu after the preamble",
     "文件头不完整：它声明有 %zu 字节，但文件在开头之后只有 %llu 字节"},
    {"extra bytes after the data", "数据后面还有多余的字节"},
    {"unsupported dtype '%s': only float32 ('<f4') and float64 ('<f8') are read",
     "不支持的 dtype '%s'：只读 float32（'<f4'）和 float64（'<f8'）"},
    {"weights folder '%s' has no %s.npy: the folder does not exist", "权重文件夹 '%s' 里没有 %s.npy：文件夹不存在"},
    {"weights folder '%s': %s", "权重文件夹 '%s'：%s"},
    {"weights folder '%s' is not a directory", "权重文件夹 '%s' 不是文件夹"},
    {"weights folder '%s': cannot open %s.npy: %s", "权重文件夹 '%s'：无法打开 %s.npy：%s"},
    {"weights folder '%s' has no %s.npy", "权重文件夹 '%s' 里没有 %s.npy"},
    {"No such file or directory", "没有这个文件或文件夹"},
    {"Permission denied", "权限不够"},
    {"Is a directory", "是一个文件夹"},
    {"Not a directory", "不是文件夹"},
    {"Read-only file system", "只读文件系统"},
    {"No space left on device", "设备上没有空间"},
    {"File exists", "文件已存在"},
    {"File name too long", "文件名过长"},
    {"Too many levels of symbolic links", "符号链接的层数过多"},
    {"Input/output error", "输入/输出错误"},
    {"Disk quota exceeded", "超出磁盘配额"},

    /* the shapes of --input and of a weights folder (chapters 3 and 7's loaders, through t_tr:
     * here, so that every chapter reading those files has them) */
    {"%s/%s.npy has shape %s: a weight must be 2-D (d_out, d_in), as nn.Linear stores it",
     "%s/%s.npy 的形状是 %s：权重必须是二维的 (d_out, d_in)，和 nn.Linear 存的一样"},
    {"%s/%s.npy has shape %s but the input has d_in = %lld: expected (d_out, %lld)",
     "%s/%s.npy 的形状是 %s，但输入的 d_in = %lld：应为 (d_out, %lld)"},
    {"%s/%s.npy has shape %s: d_out must be at least 1", "%s/%s.npy 的形状是 %s：d_out 至少为 1"},
    {"%s/%s.npy has shape %s but wq.npy has shape %s: wq, wk and wv must have the same shape "
     "(d_out, d_in)",
     "%s/%s.npy 的形状是 %s，但 wq.npy 的形状是 %s：wq、wk 和 wv 的形状必须相同 (d_out, d_in)"},
    {"%s/%s.npy has shape %s but the weights have d_out = %lld: expected (%lld,)",
     "%s/%s.npy 的形状是 %s，但权重的 d_out = %lld：应为 (%lld,)"},
    {"weights folder '%s' has %s but not %s: give all three biases bq, bk, bv or none",
     "权重文件夹 '%s' 里有 %s，却没有 %s：偏置 bq、bk、bv 要么三个都给，要么都不给"},
    {"%s has shape %s: expected (B, T, d_in), 3 dims", "%s 的形状是 %s：应为三维的 (B, T, d_in)"},
    {"%s has shape %s: B, T and d_in must each be at least 1", "%s 的形状是 %s：B、T 和 d_in 都至少为 1"},
    {"weights folder '%s': wq.npy has d_out = %lld but d_out = %lld was asked for",
     "权重文件夹 '%s'：wq.npy 的 d_out = %lld，但要求的是 d_out = %lld"},
    {"%s/wo.npy has shape %s but wq.npy has d_out = %lld: wo must be (d_out, d_out) = (%lld, %lld)",
     "%s/wo.npy 的形状是 %s，但 wq.npy 的 d_out = %lld：wo 必须是 (d_out, d_out) = (%lld, %lld)"},
    {"%s/bo.npy has shape %s but the weights have d_out = %lld: expected (%lld,)",
     "%s/bo.npy 的形状是 %s，但权重的 d_out = %lld：应为 (%lld,)"},

    /* an exercise blank not filled in yet (common/exercise.c; its hint as the stub has it,
     * make hint gives it in Chinese) */
    {"exercise '%s' (%s) is not filled in: %s", "练习 '%s'（%s）还没有填：%s"},

    /* the shapes of --q, --k and --v (qkv_files.c) */
    {"%s %s has shape %s: it needs at least 2 dims, %s", "%s %s 的形状是 %s：它至少要有 2 维，即 %s"},
    {"--q %s %s and --k %s %s must share the last dim d_k: %lld != %lld",
     "--q %s %s 和 --k %s %s 的最后一维 d_k 必须相同：%lld != %lld"},
    {"--k %s %s and --v %s %s must have the same length S (dim -2): %lld != %lld",
     "--k %s %s 和 --v %s %s 的长度 S（倒数第 2 维）必须相同：%lld != %lld"},
    {"--k %s %s has no positions (S = 0): there is nothing to attend to",
     "--k %s %s 没有任何位置（S = 0）：没有可以关注的东西"},
    {"--q %s %s and --k %s %s have T %lld != S %lld, but a causal mask needs T == S (queries and keys "
     "from the same sequence)",
     "--q %s %s 和 --k %s %s 的 T %lld != S %lld，但因果掩码需要 T == S（查询和键来自同一个序列）"},
    {"the batch dims of --q %s %s, --k %s %s and --v %s %s do not broadcast: each must be the "
     "same or 1, counted from the right, as in torch.matmul",
     "--q %s %s、--k %s %s 和 --v %s %s 的批维度无法广播：从右往左数，每一维都必须相同或为 1，"
     "与 torch.matmul 一样"},

    /* the heads and the choices (cli.c) */
    {"sequence length %lld is longer than max_seq_len %lld, the size of the causal mask buffer",
     "序列长度 %lld 超过了因果掩码缓冲区的大小 max_seq_len %lld"},
    {"--max-seq-len %lld: sequence length %lld is longer than max_seq_len %lld, the size of the causal mask "
     "buffer",
     "--max-seq-len %lld：序列长度 %lld 超过了因果掩码缓冲区的大小 max_seq_len %lld"},
    {"%s: shape %s needs %s of float32, more than the %s limit (ATTN_MAX_BYTES)",
     "%s：形状 %s 需要 %s 的 float32，超过了 %s 的上限（ATTN_MAX_BYTES）"},
    {"causal mask: the max_seq_len x max_seq_len buffer (1, 1, %lld, %lld) needs %s of float32, more than the %s "
     "limit (ATTN_MAX_BYTES)",
     "因果掩码：max_seq_len x max_seq_len 的缓冲区 (1, 1, %lld, %lld) 需要 %s 的 float32，超过了 %s 的上限"
     "（ATTN_MAX_BYTES）"},
    {"--seq-len does not apply with --input when the run is not causal: the file gives T, and no mask buffer is "
     "made",
     "--seq-len 不适用于不带因果掩码的 --input 运行：T 由文件给出，也不建掩码缓冲区"},
    {"--seed does not apply: this run draws no random numbers (its data come from the files, and no dropout acts)",
     "--seed 不适用：这次运行不抽任何随机数（数据来自文件，也没有起作用的 dropout）"},
    {"--max-seq-len does not apply with --no-causal, which makes no mask buffer",
     "--max-seq-len 不适用于 --no-causal：不加掩码就不建掩码缓冲区"},
    {"--heads %lld: d_out %lld%s is not divisible by n_heads %lld (%lld %% %lld = %lld), so the "
     "heads cannot each get head_dim = d_out // n_heads columns",
     "--heads %lld：d_out %lld%s 不能被 n_heads %lld 整除（%lld %% %lld = %lld），所以无法让每个头"
     "都分到 head_dim = d_out // n_heads 列"},
    {" (the rows of %s)", "（%s 的行数）"},
    {" or ", " 或 "},

    /* the long-run notice, the progress line, the memory refusal (budget.c) */
    {"%.0f seconds", "%.0f 秒"},
    {"%.0f minutes", "%.0f 分钟"},
    {"%.0f hours", "%.0f 小时"},
    {"%.0f days", "%.0f 天"},
    {"%s: a long run: about %.0f GFLOP, about %s at the %.3g GFLOP/s this notice assumes; "
     "Ctrl-C stops it\n",
     "%s：这是一次长时间的运行：约 %.0f GFLOP，约需 %s（按本提示假定的 %.3g GFLOP/s 计）；"
     "Ctrl-C 可以停止它\n"},
    {"\r%s: %.0f%% of the work done, %.0f s so far (Ctrl-C stops it) \033[K",
     "\r%s：已完成 %.0f%% 的计算，已用 %.0f 秒（Ctrl-C 可以停止）\033[K"},
    {"this run needs about %s of memory (%s), more than the budget of %s (%s); lower %s, or %s "
     "ATTN_MAX_BYTES",
     "这次运行约需 %s 内存（%s），超过了 %s 的预算（%s）；请调小 %s，或%s "
     "ATTN_MAX_BYTES"},
    {"half of this machine's memory", "本机内存的一半"},
    {"ATTN_MAX_BYTES='%s': must be a number of bytes of at least 1, such as 2000000000, 512M or 2G",
     "ATTN_MAX_BYTES='%s'：必须是至少为 1 的字节数，例如 2000000000、512M 或 2G"},
    {"the max_seq_len x max_seq_len mask buffers", "max_seq_len x max_seq_len 的掩码缓冲区"},
    {"the max_seq_len x max_seq_len mask buffers, max_seq_len = %.0f",
     "max_seq_len x max_seq_len 的掩码缓冲区，max_seq_len = %.0f"},
    {"the (B, H, T, T) scores and weights, B = %.0f, H = %.0f, T = %.0f; the (B, T, d) activations",
     "(B, H, T, T) 的注意力分数和权重，B = %.0f，H = %.0f，T = %.0f；以及 (B, T, d) 的激活值"},
    {"the (..., T, S) scores and weights, T = %.0f, S = %.0f", "(..., T, S) 的注意力分数和权重，T = %.0f，S = %.0f"},
    {"the query, key, value and output, (..., T, d_k) and (..., S, d_v), d_k = %.0f, d_v = %.0f",
     "查询、键、值和输出，(..., T, d_k) 和 (..., S, d_v)，d_k = %.0f，d_v = %.0f"},
    {"the size of --input", "--input 的大小"},
    {"the weights wq, wk, wv (d_out, d_in) and wo (d_out, d_out), d_in = %.0f, d_out = %.0f",
     "权重 wq、wk、wv (d_out, d_in) 和 wo (d_out, d_out)，d_in = %.0f，d_out = %.0f"},
    {"the size of --weights", "--weights 的大小"},
    /* what to lower: the flags the chapters' estimates name */
    {"--batch, --seq-len, --d-in or --d-out", "--batch、--seq-len、--d-in 或 --d-out"},
    {"--seq-len or --batch", "--seq-len 或 --batch"},
    {"--d-in or --d-out", "--d-in 或 --d-out"},
    {"--d-k or --seq-len", "--d-k 或 --seq-len"},
    {"the sizes of --q/--k/--v", "--q/--k/--v 的大小"},
    {"raise", "调大"},
    {"set", "设置"},

    /* narrate_layout (narrate.c) */
    {"    %s: shape %s  strides %s", "    %s：形状 %s  步长 %s"},
    {"offset %lld  contiguous %s", "偏移 %lld  连续 %s"},
    {"yes", "是"},
    {"no", "否"},

    /* the heatmap (heatmap.c; --ascii stays English) */
    {"rows: %lld %s, columns: %lld %s", "行：%lld 个%s，列：%lld 个%s"},
    {"query", "查询"},
    {"queries", "查询"},
    {"key", "键"},
    {"keys", "键"},
    {"legend:", "图例："},
    {"%s: %s", "%s：%s"},  /* a grid's title: what it shows, then which batch and head */
    {"(min %s,", "（最小 %s，"},
    {"max %s)", "最大 %s）"},
    {"%s masked (-inf in the scores)", "%s 被掩码遮住（分数为 -inf）"},
    {"batch %lld", "批 %lld"},
    {"note: %lld NaN %s, drawn as %s like masked entries", "注意：%lld 个 NaN %s，和被掩码遮住的元素一样画成 %s"},
    {"value", "值"},
    {"values", "值"},
    {"note: %lld %s exactly 0 where no mask put -inf (exp underflowed, or dropout); shaded as the value 0, not as %s",
     "注意：%lld 个%s恰好为 0，而那里并没有掩码给出 -inf（exp 下溢，或 dropout）；按数值 0 着色，而不是画成 %s"},
    {"weight is", "权重"},
    {"weights are", "权重"},
    {"batch %lld, head %lld", "批 %lld，头 %lld"},
    {"index (%s)", "下标 (%s)"},  /* plain batch dims (chapters 1, 2, 4): "index (0, 1)" */
    {"\n... %lld more %s not shown (drew the first %lld of %lld)\n", "\n……还有 %lld %s没有画出（画了前 %lld 张，共 %lld 张）\n"},
    {"grid", "张图"},
    {"grids", "张图"},
    {"no grids to draw: shape %s", "没有可画的图：形状 %s"},
    {"(empty: %lld queries x %lld keys, nothing to draw)", "（空的：%lld 个查询 x %lld 个键，没有可画的）"},
    {"rows: %lld queries", "行：%lld 个查询"},
    {"columns: %lld keys", "列：%lld 个键"},
    {"rows: %lld queries downsampled to %d rows, each the mean of %s", "行：%lld 个查询合并成 %d 行，每行取 %s的均值"},
    {"columns: %lld keys downsampled to %d columns, each the mean of %s", "列：%lld 个键合并成 %d 列，每列取 %s的均值"},
    {"%lld queries", "%lld 个查询"},
    {"%lld keys", "%lld 个键"},
    {"%lld queries (the last row: %lld)", "%lld 个查询（最后一行只有 %lld 个）"},
    {"%lld keys (the last column: %lld)", "%lld 个键（最后一列只有 %lld 个）"},
    {"(a mean skips masked entries; %s only where a whole block is masked)",
     "（求均值时跳过被掩码遮住的元素；整块都被遮住时才画成 %s）"},
    {"per row: %s = the row's smallest weight, %s = its largest", "逐行着色：%s 是该行最小的权重，%s 是该行最大的权重"},
    {"(all rows: min %s, max %s)", "（所有行：最小 %s，最大 %s）"},
    {"no finite values", "没有有限的值"},
    {"every entry is masked", "所有元素都被掩码遮住"},
    {"(every value shown is the same)", "（画出的每个值都相同）"},
    {NULL, NULL}};
