#!/bin/sh
# bench_web.sh — make bench-web: chapter 8's flash, wasm in the page against native (tests/web/bench_web.cjs).
[ -f tests/web/node_modules/playwright-core/package.json ] || { echo "make bench-web needs playwright-core: cd tests/web && npm ci" >&2; exit 1; }
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "make bench-web needs Chromium: install the Debian package chromium" >&2; exit 1; }
exec node tests/web/bench_web.cjs "$1" "${BENCH_ROUNDS:-7}"
