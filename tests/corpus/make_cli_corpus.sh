#!/bin/sh
# Seed corpus for tests/fuzz/fuzz_cli.c: each file is the words of one
# command line (after the program name), separated by NUL bytes.
# Run from anywhere: sh tests/corpus/make_cli_corpus.sh
set -eu
dir=$(dirname "$0")/cli
mkdir -p "$dir"

printf '%s\0' --seq-len 8 --heads 2 --d-out 4            > "$dir/sizes"
printf '%s\0' --seq-len=8 --dropout=0.25 --seed=7        > "$dir/equals_form"
printf '%s\0' --q q.npy --k k.npy --v v.npy --output o.npy > "$dir/qkv"
printf '%s\0' --input x.npy --weights w --bias --eval     > "$dir/input_weights"
printf '%s\0' --causal --no-causal --ascii --quiet --dump d > "$dir/booleans"
printf '%s\0' --impl tiled --impl fast                    > "$dir/impl_bad"
printf '%s\0' --heads 0 --dropout nan --seed 18446744073709551616 > "$dir/bad_values"
printf '%s\0' --eval=1 -seed 4 foo -- --help --seq-len    > "$dir/broken"
printf '%s' '--dump='                                     > "$dir/empty_value"
