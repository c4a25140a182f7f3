#!/bin/sh
# transcript.sh -- print a command's output as a transcript block for the docs.
#
# Usage: BUILD=build sh scripts/transcript.sh 'COMMAND' [FIRST [LAST]]
#
# Runs COMMAND as make test-docs will (from a clean folder of its own where
# build/ is $BUILD, stdout and stderr together) and prints a ```console block:
# "$ COMMAND", then its output, lines FIRST to LAST only when given (a "…"
# line stands for those left out). Paste it into a README instead of typing
# numbers: tests/test_docs.sh re-runs it. Mark a machine's figures «like
# this» by hand after pasting.
if [ $# -lt 1 ] || [ $# -gt 3 ]; then
    echo "usage: BUILD=build sh scripts/transcript.sh 'COMMAND' [FIRST [LAST]]" >&2
    exit 2
fi
BUILD=${BUILD:-build}
case $BUILD in /*) abs=$BUILD ;; *) abs=$(pwd)/$BUILD ;; esac
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
ln -s "$abs" "$dir/build"
(cd "$dir" && sh -c "$1") >"$dir/.out" 2>&1 </dev/null
n=$(wc -l <"$dir/.out")
first=${2:-1}
last=${3:-$n}
printf '```console\n$ %s\n' "$1"
[ "$first" -gt 1 ] && echo "…"
sed -n "${first},${last}p" "$dir/.out"
[ "$last" -lt "$n" ] && echo "…"
printf '```\n'
