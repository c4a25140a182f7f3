#!/bin/sh
# sources_sum.sh — one checksum of what make web compiles: the Makefile and every C
# file under common/ and chapters/ (run from the project's root). build.sh writes it
# beside the WebAssembly; tests/test_web.sh compares it with the sources of today,
# so a page built from older code is named as such instead of failing as a mismatch.
set -eu
find common chapters -name '*.[ch]' | LC_ALL=C sort | {
    cat Makefile
    xargs cat
} | cksum | cut -d' ' -f1,2
