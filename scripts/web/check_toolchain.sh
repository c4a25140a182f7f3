#!/bin/sh
# check_toolchain.sh — make web's first step: can this machine build wasm32-wasi?
# One sentence naming the Debian packages, and exit 1, when it cannot.
#   sh scripts/web/check_toolchain.sh 'clang --target=wasm32-wasi' llvm-ar
set -u
cc=$1
ar=$2
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
printf '#include <stdio.h>\nint main(void) { puts("ok"); return 0; }\n' >"$t/a.c"
# shellcheck disable=SC2086
if ! $cc -O2 "$t/a.c" -o "$t/a.wasm" >"$t/log" 2>&1; then
    echo "make web needs clang with the wasm32-wasi C library and linker: install the Debian packages clang, lld, wasi-libc and libclang-rt-14-dev-wasm32 ($(head -n 1 "$t/log" | sed "s|$t/||"))" >&2
    exit 1
fi
command -v "$ar" >/dev/null || { echo "make web needs $ar (an archiver that knows wasm objects): install the Debian package llvm" >&2; exit 1; }
command -v node >/dev/null || { echo "make web needs node to list the chapters' flags: install the Debian package nodejs" >&2; exit 1; }
exit 0
