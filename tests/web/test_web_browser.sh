#!/bin/sh
# test_web_browser.sh — make test-web's second part: the page in headless Chromium
# (tests/web/test_web_browser.cjs). Needs make web's build/web/, Debian's chromium
# and playwright-core (cd tests/web && npm ci). Without them: skipped by name, or
# a failure under WEB_REQUIRED=1 (make test-web).
BUILD=${BUILD:-build}
why=
command -v node >/dev/null 2>&1 || why="node is missing (Debian: nodejs)"
[ -n "$why" ] || [ -x "${CHROMIUM:-/usr/bin/chromium}" ] || why="Chromium is missing (Debian: chromium)"
[ -n "$why" ] || [ -f tests/web/node_modules/playwright-core/package.json ] || why="playwright-core is missing (cd tests/web && npm ci)"
[ -n "$why" ] || [ -f build/web/index.html ] || why="build/web/ is missing (make web)"
if [ -n "$why" ]; then
    if [ -n "${WEB_REQUIRED:-}" ]; then
        echo "FAIL: the page in a browser: $why"
        echo "test_web_browser: 0 passed, 1 failed"
        exit 1
    fi
    echo "SKIP: the page in a browser: $why"
    echo "test_web_browser: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
exec node tests/web/test_web_browser.cjs "$BUILD"
