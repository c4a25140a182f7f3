/* zh.c — chapter 9's narration in Chinese (lang.h): each English string as
 * main.c writes it, beside its translation. Terms: docs/GLOSSARY.md. The lines
 * main.c prints with printf (the per-rank lines, the ring's steps, the tables)
 * and the "rank R sent" lines stay in English: tests and scripts read them. */
#include "common/program/lang.h"

extern const LangPair chapter9_zh[];

const LangPair chapter9_zh[] = {
    {"Chapter 9: attention across processes with MPI (eval mode), built on chapters\n"
     "7 and 8. Run it under mpirun: mpirun -np P build/chapter9 --parallel MODE.\n"
     "  --parallel heads     tensor parallel (default): model_parallel_size = P,\n"
     "                       each rank owns n_heads // P heads; one MPI_Allreduce.\n"
     "  --parallel sequence  ring attention: each rank owns positions of the sequence;\n"
     "                       K/V blocks travel around a ring, chapter 8's flash on\n"
     "                       each, merged by logsumexp. --layout zigzag (causal\n"
     "                       default) or contiguous; --no-overlap waits for each\n"
     "                       exchange instead of computing meanwhile.\n"
     "  --parallel ulysses   DeepSpeed-Ulysses: positions split as the ring's, one\n"
     "                       MPI_Alltoallv to all positions of n_heads // P heads,\n"
     "                       chapter 8's flash, one MPI_Alltoallv back.\n"
     "Default model and flags as chapter 7 (--eval is accepted and always on). With\n"
     "--input/--weights the widths come from the files, the number of heads does not:\n"
     "give --heads too. The result equals build/chapter7 --eval.",
     "第 9 章：用 MPI 在多个进程上计算注意力（eval 模式），建立在第 7、8 章之上。\n"
     "在 mpirun 下运行：mpirun -np P build/chapter9 --parallel MODE。\n"
     "  --parallel heads     张量并行（默认）：model_parallel_size = P，\n"
     "                       每个进程拥有 n_heads // P 个头；一次 MPI_Allreduce。\n"
     "  --parallel sequence  环形注意力：每个进程拥有序列的一部分位置；K/V 块\n"
     "                       沿环传递，每块上跑第 8 章的 flash，按 logsumexp\n"
     "                       合并。--layout zigzag（因果时默认）或 contiguous；\n"
     "                       --no-overlap 先等每次交换完成，而不是同时计算。\n"
     "  --parallel ulysses   DeepSpeed-Ulysses：位置的划分与环相同，一次\n"
     "                       MPI_Alltoallv 换成 n_heads // P 个头的全部位置，\n"
     "                       第 8 章的 flash，再一次 MPI_Alltoallv 换回来。\n"
     "默认模型和参数与第 7 章相同（接受 --eval，且总是 eval 模式）。给\n"
     "--input/--weights 时宽度来自文件，头数却不在文件里：也要给 --heads。\n"
     "结果等于 build/chapter7 --eval。"},
    {"heads, sequence (ring) or ulysses", "heads、sequence（环）或 ulysses"},
    {"ring: zigzag (causal, T >= 2P) or contiguous", "环：zigzag（因果，T >= 2P）或 contiguous"},
    {"ring: exchange, then compute", "环：先交换，再计算"},
    {"dloss/dy (B, T, d_out): run the backward too", "dloss/dy (B, T, d_out)：也运行反向传播"},
    {"Every rank builds chapter 7's module and x",
     "每个进程都构建第 7 章的模块和 x"},
    {"%d rank (mpirun -np %d), world size = model_parallel_size = %d. x %s; d_in = %lld, d_out = %lld, "
     "n_heads = %lld, head_dim = %lld, causal = %s, qkv_bias = %s, out bias = %s.",
     "%d 个进程（mpirun -np %d），"
     "world size = model_parallel_size = %d。"
     "x %s；d_in = %lld，d_out = %lld，"
     "n_heads = %lld，head_dim = %lld，"
     "causal = %s，qkv_bias = %s，输出偏置 = %s。"},
    {"%d ranks (mpirun -np %d), world size = model_parallel_size = %d. x %s; d_in = %lld, d_out = %lld, "
     "n_heads = %lld, head_dim = %lld, causal = %s, qkv_bias = %s, out bias = %s.",
     "%d 个进程（mpirun -np %d），"
     "world size = model_parallel_size = %d。"
     "x %s；d_in = %lld，d_out = %lld，"
     "n_heads = %lld，head_dim = %lld，"
     "causal = %s，qkv_bias = %s，输出偏置 = %s。"},
    {"each rank reads the same files (on several hosts they must be on every host) and keeps what its "
     "mode needs.",
     "每个进程读同样的文件（在多台机器上运行时，每台机器上都要有这些文件），"
     "只留下自己的模式需要的部分。"},
    {"with the same --seed every rank draws the same weights and x, as a run of chapter 7 does, and keeps "
     "what its mode needs.",
     "用同一个 --seed，每个进程抽出同样的权重和 x，与第 7 章的一次运行相同，"
     "只留下自己的模式需要的部分。"},
    {"model_parallel_size = %d: each rank owns %lld of the %lld heads",
     "model_parallel_size = %d：每个进程拥有 %lld 个头（共 "
     "%lld 个）"},
    {"rank %d: heads [%lld, %lld): wq, wk, wv rows [%lld, %lld) -> (%lld, %lld) each; wo columns -> "
     "(%lld, %lld); x %s",
     "进程 %d：头 [%lld, %lld)：wq、wk、"
     "wv 的行 [%lld, %lld) -> 各 (%lld, %lld)；"
     "wo 的列 -> (%lld, %lld)；x %s"},
    {"... and so on for ranks 8 to %d",
     "……进程 8 到 %d 以此类推"},
    {"wq, wk, wv are column-parallel (Megatron-LM's ColumnParallelLinear: the output features are split, "
     "each rank computes its heads' features from the whole x); wo is row-parallel (RowParallelLinear: "
     "its input features are split, each rank gets a partial sum of every output feature). A head never "
     "needs another rank's head.",
     "wq、wk、wv 是列并行（Megatron-LM 的 ColumnParallel"
     "Linear：切分输出特征，每个进程用整个 x 算出自己那些头的特征）；"
     "wo 是行并行（RowParallelLinear：切分输入特征，"
     "每个进程得到每个输出特征的一个部分和）。一个头从不需要别的进程的头。"},
    {"--layout zigzag: %d chunks of the %lld positions, rank r owns r and %d - r",
     "--layout zigzag：%d 段、共 %lld 个位置，"
     "进程 r 拥有第 r 段和第 %d - r 段"},
    {"--layout contiguous: each rank owns one chunk of the %lld positions",
     "--layout contiguous：每个进程拥有 %lld 个位置中连续的一段"},
    {"rank %d: positions %s -> x (%lld, %lld, %lld), xq, xk, xv (%lld, %lld, %lld, %lld)",
     "进程 %d：位置 %s -> x (%lld, %lld, %lld)，xq、xk、"
     "xv (%lld, %lld, %lld, %lld)"},
    {"an early chunk and a late one: under the causal mask an early query sees few keys and a late one "
     "many, so every rank gets about the same work. Every rank has every weight.",
     "一段靠前、一段靠后：在因果掩码下，靠前的查询看到的键少，靠后的看到的多，"
     "所以每个进程的工作量差不多。每个进程都有全部权重。"},
    {"chunks differ by at most one position: the first T %% P = %lld ranks own one more%s. Every rank has every "
     "weight; what is split is the sequence, and with it the (T, T) scores.",
     "各段长度最多相差一个位置：前 T %% P = %lld 个进程各多一个%s。"
     "每个进程都有全部权重；切分的是序列，随之切分的还有 (T, T) 的分数。"},
    {"; with T < P some ranks own none",
     "；T < P 时有的进程没有位置"},
    {"Each rank: chapter 7 on its n_local_heads heads",
     "每个进程：在它的 n_local_heads 个头上运行第 7 章"},
    {"rank 0: xq %s, partial output %s = merged heads @ its wo columns (no bo yet)",
     "进程 0：xq %s，部分输出 %s = 合并后的头 @ 它的 wo 列（还没有加 "
     "bo）"},
    {"rank 0: partial[0, 0, 0] = %.4f; after the sum (+ bo): output[0, 0, 0] = %.4f",
     "进程 0：partial[0, 0, 0] = %.4f；求和（+ bo）"
     "之后：output[0, 0, 0] = %.4f"},
    {"each rank's (bsz, seqlen, d_out) is its heads' share of self.wo(output); the shares add up to the "
     "whole product, because wo @ merged splits into a sum over column blocks.",
     "每个进程的 (bsz, seqlen, d_out) 是它那些头在 self.wo("
     "output) 中的份额；这些份额加起来就是整个乘积，"
     "因为 wo @ merged 可以拆成按列块的求和。"},
    {"One MPI_Allreduce sums the partial outputs; bo is added once",
     "一次 MPI_Allreduce 把部分输出加起来；bo 只加一次"},
    {"MPI_Allreduce(SUM) of %s floats = %s per rank in, the same out%s",
     "MPI_Allreduce(SUM)：%s 个 float = 每个进程送入 %s，"
     "取回同样多%s"},
    {" (one rank: nothing leaves the process, counted as 0)",
     "（只有一个进程：没有数据离开进程，记为 0）"},
    {"this is the forward pass's only message. bo is not split: adding it on every rank before the sum "
     "would add it %d times.",
     "这是前向传播唯一的一条消息。bo 不切分：如果每个进程在求和之前都加上它，"
     "就会加上 %d 次。"},
    {"Each rank projects its own q, k, v (chapters 3 and 5)",
     "每个进程算出自己的 q、k、v（第 3 章和第 5 章）"},
    {"rank 0: xq %s",
     "进程 0：xq %s"},
    {"The ring: %d step, K/V blocks passed to rank %s 1%s",
     "环：%d 步，K/V 块传给进程 %s 1%s"},
    {"The ring: %d steps, K/V blocks passed to rank %s 1%s",
     "环：%d 步，K/V 块传给进程 %s 1%s"},
    {", overlapped",
     "，与计算重叠"},
    {"each step runs chapter 8's flash (attention_flash_lse) on the block in hand and merges it into the "
     "rows' result by logsumexp (attention_merge_lse), so no (Tc, Tc) score block is stored and the order "
     "of the blocks does not matter. %s %s",
     "每一步对手里的块运行第 8 章的 flash（attention_flash_lse"
     "），再按 logsumexp 把它并入各行的结果（attention_merge_l"
     "se），所以不存 (Tc, Tc) 的分数块，块的顺序也无关紧要。%s %s"},
    {"Causal: only the diagonal block is masked; a block wholly in a rank's future is not computed and a "
     "rank receives only the rows it uses, so nothing is sent into the future.",
     "因果：只有对角块加掩码；完全位于某个进程未来的块不计算，进程只接收它用到的行，"
     "所以没有任何数据发往未来。"},
    {"Not causal: every rank folds in every block.",
     "非因果：每个进程都并入每一个块。"},
    {"The next block's MPI_Irecv/MPI_Isend are posted before the compute and waited for after it.",
     "下一个块的 MPI_Irecv/MPI_Isend 在计算之前发出，"
     "计算之后再等待完成。"},
    {"--no-overlap: one MPI_Sendrecv after each compute.",
     "--no-overlap：每次计算之后一次 MPI_Sendrecv。"},
    {"wo on each rank, then MPI_Gatherv on rank 0",
     "每个进程各自做 wo，然后 rank 0 上做 MPI_Gatherv"},
    {"rank %d sends its (%lld, %lld, %lld) output rows: %s",
     "进程 %d 发送它的 (%lld, %lld, %lld) 输出行：%s"},
    {"wo acts on each position alone, so it needs no message: only the result is collected.",
     "wo 对每个位置单独作用，所以不需要消息：只需要收集结果。"},
    {"Each rank owns a chunk of the %lld positions, all heads, every weight",
     "每个进程拥有 %lld 个位置中的一段、全部头和全部权重"},
    {"rank %d: positions [%lld, %lld); after the all-to-all heads [%lld, %lld) at all %lld positions",
     "进程 %d：位置 [%lld, %lld)；"
     "all-to-all 之后是头 [%lld, %lld) 的全部 %lld 个位置"},
    {"All-to-all: my positions of every head -> every position of my heads",
     "all-to-all：我的位置上的全部头 -> 我的头的全部位置"},
    {"rank 0: xq %s; sends each other rank q, k, v of its %lld heads at rank 0's %lld positions: %s in all",
     "进程 0：xq %s；把它 %lld 个头在进程 0 的 %lld 个位置上的 q、"
     "k、v 发给其他每个进程：共 %s"},
    {"Chapter 8's flash on (%lld, %lld, %lld, %lld), then the all-to-all back",
     "在 (%lld, %lld, %lld, %lld) 上运行第 8 章的 flash"
     "，再 all-to-all 回来"},
    {"rank 0 sends each other rank its heads' output at that rank's positions: %s in all",
     "进程 0 把它的头在其他每个进程的位置上的输出发给那个进程：共 %s"},
    {"a head needs every position but no other head: after the first all-to-all each rank runs whole "
     "heads on the whole sequence, so the causal work is the same on every rank. It needs n_heads %% P == "
     "0 and so stops at P = n_heads; MPI_Alltoallv because the chunks may differ by one position.",
     "一个头需要全部位置，但不需要别的头：第一次 all-to-all 之后，"
     "每个进程在整条序列上运行完整的头，所以每个进程的因果工作量相同。"
     "它要求 n_heads %% P == 0，因而最多 P = n_heads；"
     "用 MPI_Alltoallv 是因为各段可能相差一个位置。"},
    {"Same result as chapter 7 in one process",
     "与第 7 章在一个进程里的结果相同"},
    {"max |output - chapter 7's mha_forward(x)| = %.2g over %lld numbers",
     "max |output - 第 7 章的 mha_forward(x)| "
     "= %.2g，共 %lld 个数"},
    {"What each mode costs as T, H and P grow (the cost model)",
     "T、H、P 增大时每种模式的代价（成本模型）"},
    {"bytes sent by the busiest rank in one forward pass, and the memory of the largest rank (weights "
     "without biases, activations, score blocks; float32), from parallel_bytes_sent() and "
     "parallel_memory_bytes(); sequence with its default layout. B = %lld, d_in = %lld, d_out = %lld, %s; "
     "'-' where H %% P != 0.",
     "最忙的进程在一次前向传播中发送的字节，以及内存最多的进程占用的内存（不含偏置的权重、激活值、"
     "分数块；float32），来自 parallel_bytes_sent() 和 pa"
     "rallel_memory_bytes()；sequence 用它的默认划分。"
     "B = %lld，d_in = %lld，d_out = %lld，%s；"
     "H %% P != 0 处为 '-'。"},
    {"causal",
     "因果"},
    {"not causal",
     "非因果"},
    {"What each rank did",
     "每个进程做了什么"},
    {"the (query, key) pairs its attention folded (over batch and heads), the bytes it handed to MPI, and "
     "its forward pass's wall time outside and inside the MPI calls that move data (times depend on the "
     "machine and its load).",
     "它的注意力合并的（查询，键）对数（对所有批和头求和）、它交给 MPI 的字节，"
     "以及它的前向传播在传送数据的 MPI 调用之外和之内的墙钟时间（时间取决于机器及其负"
     "载）。"},
    {"Bytes sent: counted in the MPI calls, and the cost model",
     "发送的字节：MPI 调用里的计数，与成本模型"},
    {"each rank counted the bytes of the forward pass it handed to MPI for other ranks; "
     "parallel_bytes_sent() predicts them from the shapes alone. (Not counted: one int per phase to agree "
     "on errors, and this gather of the counts.)",
     "每个进程统计了前向传播中它交给 MPI、发往其他进程的字节；"
     "parallel_bytes_sent() 只凭形状就能预测它们。"
     "（未计入：每个阶段各进程为确认有没有出错而交换的一个 int，以及这次对计数的收集。）"},
    {"%s in all; %s",
     "共 %s；%s"},
    {"the two all-to-alls move each rank's q, k, v and output but its own heads' share, plus the gather.",
     "两次 all-to-all 搬运每个进程的 q、k、"
     "v 和输出中不属于它自己那些头的部分，再加上收集。"},
    {"an all-reduce library moves about 2 (P - 1) / P times the buffer per rank over the wire "
     "(reduce-scatter, then all-gather).",
     "all-reduce 库在线路上为每个进程搬运约 2 (P - 1) / P 倍的缓"
     "冲区（先 reduce-scatter，再 all-gather）。"},
    {"each K/V block goes round only as far as ranks use it, and only the rows they use; plus the gather.",
     "每个 K/V 块只绕到用它的进程为止，也只发它们用到的行；再加上收集。"},
    {"the ring sends every K/V block P - 1 times, plus the gather.",
     "环把每个 K/V 块发送 P - 1 次，再加上收集。"},
    {"heads: the all-reduce grows with B T d_out but not with P; each rank holds B (H / P) T^2 scores, so "
     "its memory falls as 1 / P but stays quadratic in T. sequence: messages grow with T d_out too; each "
     "rank keeps its T / P rows and two K/V blocks but no scores (flash keeps only its tiles), so its "
     "memory falls as 1 / P and grows linearly in T. ulysses: two all-to-alls of about 3 B T d_out / P "
     "and B T d_out / P per rank, falling with P; its memory is linear in T too, but P may not exceed H.",
     "heads：all-reduce 随 B T d_out 增长，但不随 P 增长；"
     "每个进程存 B (H / P) T^2 个分数，所以内存按 1 / P 下降，"
     "但仍是 T 的平方。sequence：消息也随 T d_out 增长；"
     "每个进程保留它的 T / P 行和两个 K/V 块，"
     "但不存分数（flash 只保留它的分块），所以内存按 1 / P 下降，"
     "并随 T 线性增长。ulysses：每个进程两次 all-to-all，"
     "约 3 B T d_out / P 和 B T d_out / P，随 P 下降；"
     "它的内存也随 T 线性增长，但 P 不能超过 H。"},
    {"The backward across ranks: chapter 10's gradients",
     "跨进程的反向传播：第 10 章的梯度"},
    {"heads: each rank runs chapter 10's mha_backward on its own heads; x feeds every head, so its grad_x "
     "is a partial sum and one MPI_Allreduce adds them; its rows of grad_wq, grad_wk, grad_wv and its "
     "columns of grad_wo go to rank 0 (MPI_Gather); grad_bo is dy summed over (B, T), as bo was added "
     "once after the sum.",
     "heads：每个进程在自己的头上运行第 10 章的 mha_backward；"
     "x 进入每一个头，所以它的 grad_x 是部分和，"
     "一次 MPI_Allreduce 把它们加起来；它的 grad_wq、"
     "grad_wk、grad_wv 的行和 grad_wo 的列送到 rank 0（MP"
     "I_Gather）；grad_bo 是 dy 在 (B, T) 上的和，"
     "正如 bo 在求和之后只加一次。"},
    {"ulysses: the all-to-alls in reverse. dout of my positions goes to every position of my heads, "
     "chapter 12's flash backward runs on whole heads, and dq, dk, dv go back to the positions they came "
     "from; then wq, wk, wv, wo backward on my rows, one MPI_Allreduce per weight gradient (a sum over "
     "positions), grad_x rows to rank 0.",
     "ulysses：两次 all-to-all 反过来做。"
     "我的位置上的 dout 送到我的头的全部位置，"
     "第 12 章的 flash 反向在完整的头上运行，dq、dk、"
     "dv 再送回它们来的位置；然后在我的行上做 wq、wk、wv、wo 的反向，"
     "每个权重梯度一次 MPI_Allreduce（对位置求和），"
     "grad_x 的行送到 rank 0。"},
    {"sequence: a second trip round the ring. Each step runs chapter 12's attention_backward_flash on the "
     "block in hand with the forward's lse and output of the whole row, so p_attn and D = rowsum(dO * O) "
     "are exact; dQ accumulates on its rank, the block's dK and dV travel with it and one more hop takes "
     "them home. Then wq, wk, wv, wo backward on my rows, one MPI_Allreduce per weight gradient, grad_x "
     "rows to rank 0.",
     "sequence：沿环再走一圈。每一步用前向留下的整行 lse 和输出，"
     "对手里的块运行第 12 章的 attention_backward_flash，"
     "所以 p_attn 和 D = rowsum(dO * O) 都是精确的；"
     "dQ 在本进程累加，块的 dK、dV 随块一起走，最后再走一步回到所属进程。"
     "然后在我的行上做 wq、wk、wv、wo 的反向，"
     "每个权重梯度一次 MPI_Allreduce，grad_x 的行送到 rank 0。"},
    {"max |grad_x - chapter 10's| = %.2g; max over grad_wq, grad_wk, grad_wv, grad_wo = %.2g",
     "max |grad_x - chapter 10's| = %.2g；"
     "grad_wq、grad_wk、grad_wv、"
     "grad_wo 中的最大值 = %.2g"},
    {"the backward sums grad_x (B x T x d_in) where the forward summed the output (B x T x d_out), and "
     "every rank but 0 sends rank 0 its shards of the weights' gradients.",
     "反向传播求和的是 grad_x（B x T x d_in），前向求和的是输出（B x T x d_out）；"
     "除 rank 0 外，每个进程还要把自己那份权重梯度分片发给 rank 0。"},
    {"the backward moves more than the forward: the ring sends every row of dK and dV home besides the "
     "K/V rows, and the weights' gradients are summed over the ranks (an all-reduce of all four weights, "
     "counted once: what the rank hands to MPI).",
     "反向传播比前向传得多：环除了 K/V 的行，还要把 dK、dV 的每一行送回所属进程；"
     "权重梯度还要在各进程间求和（四个权重的 all-reduce，只计一次：即进程交给 MPI 的量）。"},
    {"the backward moves more than the forward: the all-to-alls carry dout, dq, dk and dv, and the "
     "weights' gradients are summed over the ranks (an all-reduce of all four weights, counted once: what "
     "the rank hands to MPI).",
     "反向传播比前向传得多：全对全要传 dout、dq、dk 和 dv，"
     "权重梯度还要在各进程间求和（四个权重的 all-reduce，只计一次：即进程交给 MPI 的量）。"},
    {"Chapter 9: attention across %d process with MPI, --parallel %s",
     "第 9 章：用 MPI 在 %d 个进程上计算注意力，--parallel %s"},
    {"Chapter 9: attention across %d processes with MPI, --parallel %s",
     "第 9 章：用 MPI 在 %d 个进程上计算注意力，--parallel %s"},
    /* the chapter's own usage errors and file errors */
    {"--input/--weights need --heads H: the weight files give the widths, not the number of heads they were made for",
     "--input/--weights 需要 --heads H：权重文件给出宽度，不给出它们是为几个头做的"},
    {"--grad-output needs --input and --weights (the module it is the gradient for)",
     "--grad-output 需要 --input 和 --weights（它是哪个模块的梯度）"},
    {"--dump writes the backward's gradients: give --grad-output FILE too",
     "--dump 写出的是反向传播的梯度：还要给 --grad-output FILE"},
    {"%s applies to --parallel sequence only (the ring)", "%s 只用于 --parallel sequence（环）"},
    {"--layout zigzag cuts T into 2P = %d chunks and needs T >= %d, got --seq-len %lld (use --layout contiguous)",
     "--layout zigzag 把 T 切成 2P = %d 块，需要 T >= %d，却给了 --seq-len %lld（请用 --layout contiguous）"},
    {"--parallel heads: n_heads = %lld is not divisible by model_parallel_size = %d "
     "(each process owns n_heads // P whole heads)",
     "--parallel heads：n_heads = %lld 不能被 model_parallel_size = %d 整除（每个进程拥有 n_heads // P 个完整的头）"},
    {"--parallel ulysses: n_heads = %lld is not divisible by %d processes "
     "(the all-to-all gives each process n_heads // P whole heads)",
     "--parallel ulysses：n_heads = %lld 不能被 %d 个进程整除（all-to-all 给每个进程 n_heads // P 个完整的头）"},
    {"--parallel heads: n_heads = %lld is not divisible by model_parallel_size = %d processes "
     "(each process owns n_heads // model_parallel_size whole heads)",
     "--parallel heads：n_heads = %lld 不能被 model_parallel_size = %d 个进程整除"
     "（每个进程拥有 n_heads // model_parallel_size 个完整的头）"},
    {"--layout zigzag cuts T into 2P = %d chunks and needs T >= %d, got T = %lld (use --layout contiguous)",
     "--layout zigzag 把 T 切成 2P = %d 块，需要 T >= %d，输入的 T = %lld（请用 --layout contiguous）"},
    {"MPI: (%lld, %lld, %lld) q, k, v are more floats than one all-to-all may carry (2^31 - 1)",
     "MPI：(%lld, %lld, %lld) 的 q、k、v 的浮点数超过一次 all-to-all 能携带的数量（2^31 - 1）"},
    {"MPI: (%lld, %lld, %lld) outputs are more floats than one MPI message may carry (2^31 - 1)",
     "MPI：(%lld, %lld, %lld) 的输出的浮点数超过一条 MPI 消息能携带的数量（2^31 - 1）"},
    {"%s has shape %s but the output y is (B, T, d_out) = (%lld, %lld, %lld): --grad-output must be dloss/dy, "
     "the shape of y",
     "%s 的形状是 %s，但输出 y 是 (B, T, d_out) = (%lld, %lld, %lld)：--grad-output 必须是 dloss/dy，形状与 y 相同"},
    {"%s: error on rank %d: %s\n", "%s：进程 %d 出错：%s\n"},
    {NULL, NULL}};
