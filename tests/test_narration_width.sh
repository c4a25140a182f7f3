#!/bin/sh
# test_narration_width.sh — every chapter's default run (chapters 0-8 and 11, no
# flags) prints no line wider than 80 columns, counted in terminal columns
# (a CJK character takes two), and so does the --heatmap run of chapters 1-7,
# and the Chinese runs (--lang zh) of the chapters that narrate in Chinese
# (0-8, 10 and 12; chapters 9 and 11 have their own).
. tests/lib.sh
suite test_narration_width

# Columns of the widest line of a file (tests/columns.awk: UTF-8 decoded by hand,
# CJK ideographs and fullwidth forms count 2).
widest() { # FILE
    od -An -v -tu1 "$1" | awk -f tests/columns.awk
}

check_width() { # DESC ARGS...
    desc=$1
    shift
    run "$@"
    expect_status 0 "$desc"
    set -- $(widest "$TMP/out")
    if [ "$1" -le 80 ]; then _ok; else _bad "$desc: line $2 is $1 columns wide (at most 80): $(sed -n "$2p" "$TMP/out")"; fi
}

for n in 0 1 2 3 4 5 6 7 8 11; do
    # chapter 8's default size (1, 8, 512, 64) takes two minutes under valgrind
    # (test_ch08_program.sh skips it there too)
    if [ "$n" = 8 ] && [ -n "$RUNNER" ]; then
        skip 2 "build/chapter8's default run is slow under valgrind (make test checks its width)"
        continue
    fi
    check_width "build/chapter$n" "$BUILD/chapter$n"
done
check_width "build/chapter11 --prefill-chunk 2 --decode 1 --lang zh" "$BUILD/chapter11" --prefill-chunk 2 --decode 1 \
    --lang zh
for n in 1 2 3 4 5 6 7; do
    check_width "build/chapter$n --heatmap" "$BUILD/chapter$n" --heatmap
done

# in Chinese too (tests/test_lang.sh's chapters), and their --help
for n in 0 1 2 3 4 5 6 7 11; do
    check_width "build/chapter$n --lang zh" "$BUILD/chapter$n" --lang zh
    [ "$n" -eq 0 ] || [ "$n" -eq 11 ] || check_width "build/chapter$n --heatmap --lang zh" "$BUILD/chapter$n" --heatmap --lang zh
    check_width "build/chapter$n --help --lang zh" "$BUILD/chapter$n" --help --lang zh
done

# chapters 8, 10 and 12 in Chinese, at small sizes (8 and 12 time every version)
check_width "build/chapter8 --seq-len 64 --heads 2 --lang zh" "$BUILD/chapter8" --seq-len 64 --heads 2 --lang zh
check_width "build/chapter8 --seq-len 64 --causal --lang zh" "$BUILD/chapter8" --seq-len 64 --heads 1 --causal --lang zh
check_width "build/chapter10 --lang zh" "$BUILD/chapter10" --lang zh
check_width "build/chapter10 --bias --heatmap --lang zh" "$BUILD/chapter10" --bias --heatmap --lang zh
check_width "build/chapter10 --train --steps 20 --lang zh" "$BUILD/chapter10" --train --steps 20 --lang zh
check_width "build/chapter12 --seq-len 40 --lang zh" "$BUILD/chapter12" --seq-len 40 --lang zh
check_width "build/chapter12 --seq-len 40 --causal --lang zh" "$BUILD/chapter12" --seq-len 40 --causal --lang zh
for n in 8 10 12; do
    check_width "build/chapter$n --help --lang zh" "$BUILD/chapter$n" --help --lang zh
done

# a Chinese sentence breaks between ideographs, never inside a short bracketed code span
# (common/program/narrate.c, code_run): a slice, a shape, a call stay on one line
run "$BUILD/chapter4" --lang zh
expect_status 0 "build/chapter4 --lang zh, for its code spans"
for span in 'mask[:, :seqlen, :seqlen]' 'mask[:, :, :seqlen, :seqlen]' '(B, n_heads, T, T)' '(1, 1, L, L)' \
    'torch.full((1, L, L), ...)'; do
    if grep -q -F -- "$span" "$TMP/out"; then _ok; else _bad "chapter4 --lang zh cuts '$span' across two lines"; fi
done
# a PyTorch line with a Chinese comment is measured in columns, not bytes: this one is
# 72 columns (82 bytes) and stays whole
run "$BUILD/chapter10" --train --steps 1 --lang zh
expect_out_contains "    PyTorch: logits = head(attn(x))        # attn：第 7 章的注意力，因果" \
    "chapter10 --train --lang zh: a PyTorch line that fits 80 columns is not cut"
run "$BUILD/chapter1" --lang zh --seq-len 3 --d-k 2
expect_out_contains "    (3, 2) (..., S, d_v)" "chapter1 --lang zh: the shape (3, 2) stays whole"

# the checker itself: a 81-column line and a 41-ideograph line (82 columns) fail
printf '%081d\n' 0 > "$TMP/w81"
set -- $(widest "$TMP/w81")
if [ "$1" -eq 81 ]; then _ok; else _bad "widest counts 81 ASCII columns as $1"; fi
printf '注意力注意力注意力注意力注意力注意力注意力注意力注意力注意力注意力注意力注意力注意\n' > "$TMP/wcjk"
set -- $(widest "$TMP/wcjk")
if [ "$1" -eq 82 ]; then _ok; else _bad "widest counts 41 ideographs as $1 columns, not 82"; fi
printf 'x ███ · ░\n' > "$TMP/wbox"
set -- $(widest "$TMP/wbox")
if [ "$1" -eq 9 ]; then _ok; else _bad "widest counts box shades as $1 columns, not 9"; fi

finish
