#!/bin/sh
# test_ch08_tiles.sh — chapter 8's C tests (tests/test_ch08.c) once more with the AVX2
# register tile, on a machine whose build targets AVX-512: the Makefile builds
# $BUILD/tests/test_ch08_avx2 from fast_attention.c compiled with -mno-avx512f, and
# this runs it (its summary line is its own). Elsewhere test_ch08 itself runs the
# tile of the vector unit the build targets, and this suite says so as a skip.
. tests/lib.sh
suite test_ch08_tiles

if [ -x "$BUILD/tests/test_ch08_avx2" ]; then
    $RUNNER "$BUILD/tests/test_ch08_avx2"
    exit $?
fi
skip 1 "the AVX2 tile's copy of test_ch08: this build does not target AVX-512 (test_ch08 runs its own tile)"
finish
