#!/bin/sh
# readme_zh.sh OUT LEVEL BLANKS CHAPTERS MANIFEST NAME FILE LINE CHAPTER — the Chinese README of a
# student's exercise tree, OUT/README-EXERCISES.zh-CN.md, beside the English
# one generate.sh writes (the same sections, the same table; the hints from
# each blank's hint_zh). Called by generate.sh; MANIFEST is its stub list; NAME, FILE,
# LINE and CHAPTER are the blank its commands show (the handout's first).
OUT=$1 LEVEL=$2 B=$3 MAN=$5 EX_NAME=$6 EX_FILE=$7 EX_LINE=$8 EX_CH=$9
EX_CMD=$(printf '%-32s' "make test-chapter$EX_CH") EX_RUN=$(printf '%-32s' "make chapter$EX_CH ARGS=\"--lang zh\"")
EX_HINT=$(printf '%-32s' "make hint BLANK=$EX_NAME") EX_HINT2=$(printf '%-32s' "make hint BLANK=$EX_NAME TIER=2")
CHS=$(echo "$4" | sed "s/,/、/g")   # 1,2,3 -> 1、2、3
AWK=${AWK:-awk}
case $LEVEL in
    0) WHAT="没有空，即参考答案" ;;
    1) WHAT="每个空是一个表达式或一行" ;;
    2) WHAT="每个空至多几行" ;;
    *) WHAT="每个空至多一整个函数" ;;
esac
{
    cat <<EOF
# 练习：填空

English: [README-EXERCISES.md](README-EXERCISES.md)

这是从章节代码里挖掉了 **$B 个空** 的 attention-in-c 教程（第 $LEVEL 级：$WHAT；
第 $CHS 章）。每个空是一条 TODO 注释，后面跟着一个让程序停下来的调用，例如第 2 章的：

\`\`\`c
/* TODO exercise 'scale' (level 1): Divide every score by math.sqrt(d_k), ... */
exercise_missing("scale", "chapters/02_scaling/scaling.c:22", "Divide every score by ...");
\`\`\`

把 \`exercise_missing(...)\` 这个调用（以及它上面的 \`(void)name;\` 一行，如果有的话）
换成你自己写的 C 代码。每个空周围的注释引用了它对应的 PyTorch 代码和张量的形状；
本章的 README.zh-CN.md 讲解其中的思路，\`common/\`（本项目的“torch”）提供你需要的
每一个操作：\`t_matmul\`、\`t_transpose\`、\`t_softmax\`、\`t_view\` ……

## 怎样检查自己的答案

只需要一个 C 编译器和 make。

\`\`\`sh
$EX_CMD # 第 $EX_CH 章的测试；最后一行是 "N passed, M failed"
$EX_RUN # 运行本章带讲解的程序，用中文讲解
$EX_HINT # 第 1 层提示：思路（LANG 以 zh 开头时为中文）
$EX_HINT2 # 第 2 层：用哪些函数；TIER=3：对应的 PyTorch 代码
make test                        # 全部测试
\`\`\`

还没填的空会让它所在章节的测试失败，并打印

    exercise '$EX_NAME' ($EX_FILE:$EX_LINE) is not filled in: <hint>

\`make test-chapterN\` 以 \`0 failed\` 结尾时，这一章就完成了。后面的章节会调用前面的
（第 7 章用到第 3、4、5、6 章），所以请按顺序做；\`make test-chapterN\` 只构建第 0 到
第 N 章，做了一半的后续章节不会妨碍前面章节的测试。

## 怎样评分

- 每个空单独评分：你的答案被放进教师那份项目里，其余每个空都是教师的代码，然后运行
  本章的测试，外加你没见过的、用随机输入的隐藏检查。全部通过，这个空才得分；答案
  错误或无法编译，只丢这个空的分，不影响别的空。
- 只有你在空里写的代码算数（以及你在同一个文件里加的辅助函数或 \`#include\` 行）。
  \`main.c\`、头文件、\`common/\`、\`tests/\` 和本目录的清单文件都属于教师：在那里的修改
  会被忽略。
- 删掉 TODO 注释或重新排版都可以；每个空周围的代码请保持发下来时的样子，好让你的
  答案能被区分出来。
- 代码必须能无警告地编译（\`-Wall -Wextra -Wpedantic -Werror\`）。

## 所有的空

| 章 | 空 | 等级 | 分数 | 位置 | 提示 |
|---|---|---|---|---|---|
EOF
    $AWK -F '\t' '{ n = $3; sub(/^chapters\//, "", n); sub(/_.*/, "", n); sub(/^0/, "", n);
        h = ($10 != "" && $10 != "-") ? $10 : $6; gsub(/\|/, "\\|", h);
        printf "| %s | `%s` | %s | %s | %s:%s | %s |\n", n, $1, $2, $9, $3, $5, h }' "$MAN"
} >"$OUT/README-EXERCISES.zh-CN.md"
