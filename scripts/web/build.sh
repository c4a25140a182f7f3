#!/bin/sh
# build.sh — make web's last step: the static page build/web/ from the wasm builds.
#
#   sh scripts/web/build.sh build/wasm build/web build/chapter13 0 1 2 ... 13
#
# Writes OUT/index.html, app.js, wasi.js, style.css (copied from scripts/web/) and,
# by scripts/web/bundle.mjs, one script per chapter, OUT/chapters/chapterN.js: its
# .wasm (base64) and its own C files (shown beside the narration); and
# OUT/model/tang.js: chapter 13's checkpoint (tang.bin + tang.tok), trained here by
# the native program for WEB_TRAIN_STEPS steps (kept while the step count stays).
# Scripts, not fetch(): the page loads them with <script> tags, which work from
# file:// where fetch() of a local file does not. The raw files stay in build/web-files/.
set -eu
wasm=$1 out=$2 native13=$3
files=$out-files
shift 3
src=$(dirname "$0")
rm -rf "$out.tmp"
mkdir -p "$out.tmp" "$files/wasm" "$files/src" "$files/model"
cp "$src/index.html" "$src/app.js" "$src/wasi.js" "$src/style.css" "$out.tmp/"
# chapter 13's checkpoint: trained once (about a minute of processor time for 1200 steps), kept afterwards
steps=${WEB_TRAIN_STEPS:-1200}
m=$files/model
if [ ! -s "$m/tang.bin" ] || [ ! -s "$m/tang.tok" ] || [ "$(cat "$m/steps" 2>/dev/null)" != "$steps" ]; then
    echo "make web: training chapter 13's model for the page ($steps steps)"
    LC_ALL=C "$native13" --quiet --seed 123 --train-steps "$steps" --save "$m/tang.bin" >"$m/train.log" 2>&1 || {
        cat "$m/train.log" >&2
        echo "make web: training chapter 13's model failed" >&2
        exit 1
    }
    echo "$steps" >"$m/steps"
fi
for n in "$@"; do
    cp "$wasm/chapter$n" "$files/wasm/chapter$n.wasm"
    nn=$(printf '%02d' "$n")
    dir=$(ls -d chapters/${nn}_* | head -n 1)
    rm -rf "$files/src/chapter$n"
    mkdir -p "$files/src/chapter$n"
    cp "$dir"/*.c "$files/src/chapter$n/"
    rm -f "$files/src/chapter$n/zh.c" # the Chinese sentences: not the concept
done
node "$src/bundle.mjs" "$files" "$out.tmp" "$@"
sh "$src/sources_sum.sh" >"$files/sources.sum" # what the wasm was built from (tests/test_web.sh)
rm -rf "$out"
mv "$out.tmp" "$out"
echo "make web: $out/ $(du -sb --exclude=model "$out" | cut -f1) bytes, and chapter 13's checkpoint $(du -sb "$out/model" | cut -f1) bytes; open $out/index.html"
