#!/bin/sh
# cross.sh — make test-windows, make test-arm64, make test-musl: the project built
# for another system into build/<system>/ and tested there.
#
#   sh tests/cross.sh windows|arm64|musl
#
#   windows  x86_64-w64-mingw32-gcc (Debian: gcc-mingw-w64-x86-64), run under wine
#            (wine64) in a private prefix under build/windows/, no display needed
#   arm64    aarch64-linux-gnu-gcc (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross),
#            run under qemu-aarch64 (qemu-user) with QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
#   musl     musl-gcc (musl-tools), run here
#
# Every C test (build/<system>/tests/test_*) and tests/cross_programs.sh (each
# chapter program's default run, --lang zh and --dump against this machine's,
# PyTorch's fixtures) run through tests/run_tests.sh: its closing line
# "N passed, M failed, K skipped". Chapter 9 (MPI) and the grader (bubblewrap)
# are Linux's: not built there, skipped by name. FAST_OPT has no -march=native:
# the programs run on another machine than the compiler's.
set -u
sys=${1:-}
MAKE=${MAKE:-make}
B=build/$sys
EXE=
RUNNER=
case $sys in
    windows)
        CC=${WINDOWS_CC:-x86_64-w64-mingw32-gcc}
        # C99's printf (%zu) from MinGW-w64's own stdio; GCC checks formats there as
        # Microsoft's, so the format checks are the Linux builds' job
        XFLAGS="-D__USE_MINGW_ANSI_STDIO=1 -Wno-format"
        XLDFLAGS="-static"
        EXE=.exe
        wine=$(command -v wine64 || command -v wine || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; })
        need_pkg="gcc-mingw-w64-x86-64 and wine64"
        [ -n "$wine" ] || { echo "make test-windows needs wine to run the programs: install the Debian package wine64" >&2; exit 1; } ;;
    arm64)
        CC=${ARM64_CC:-aarch64-linux-gnu-gcc}
        XFLAGS= XLDFLAGS=
        need_pkg="gcc-aarch64-linux-gnu and libc6-dev-arm64-cross"
        command -v qemu-aarch64 >/dev/null || { echo "make test-arm64 needs qemu-aarch64 to run the programs: install the Debian package qemu-user" >&2; exit 1; }
        QEMU_LD_PREFIX=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
        [ -e "$QEMU_LD_PREFIX/lib/ld-linux-aarch64.so.1" ] || { echo "make test-arm64 needs the ARM64 C library in $QEMU_LD_PREFIX: install the Debian package libc6-dev-arm64-cross" >&2; exit 1; }
        export QEMU_LD_PREFIX ;;
    musl)
        CC=${MUSL_CC:-musl-gcc}
        XFLAGS= XLDFLAGS=
        need_pkg=musl-tools ;;
    *)
        echo "usage: sh tests/cross.sh windows|arm64|musl" >&2
        exit 2 ;;
esac
command -v "$CC" >/dev/null || { echo "make test-$sys needs the compiler $CC: install the Debian package(s) $need_pkg" >&2; exit 1; }

# build: everything make builds, chapter 9 aside (HAVE_MPI empty), one job per CPU
# unless make -j said how many
case " ${MAKEFLAGS:-} " in
    *" -j"* | *" j"* | *" "[a-z]*j*) jobs= ;;
    *) jobs=-j$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1) ;;
esac
# shellcheck disable=SC2086
$MAKE -s $jobs --no-print-directory BUILD="$B" CC="$CC" HAVE_MPI= FAST_OPT="-O3 -g" \
    EXTRA_CFLAGS="$XFLAGS" EXTRA_LDFLAGS="$XLDFLAGS" all || {
    echo "make test-$sys: the build with $CC failed" >&2
    exit 1
}

# run: a wrapper that runs one program there (and, on Windows, turns its "\r\n" back into "\n")
mkdir -p "$B/cross"
run=$(cd "$B/cross" && pwd)/run
case $sys in
    windows)
        mkdir -p "$B/wineprefix"
        cat >"$run" <<WRAP
#!/bin/sh
WINEPREFIX='$(cd "$B/wineprefix" && pwd)' WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml=' DISPLAY= \\
    '$wine' "\$@" >"\$0.\$\$.out" 2>"\$0.\$\$.err"
rc=\$?
tr -d '\\r' <"\$0.\$\$.out"
tr -d '\\r' <"\$0.\$\$.err" >&2
rm -f "\$0.\$\$.out" "\$0.\$\$.err"
exit \$rc
WRAP
        # One wineserver for the whole run, persistent (-p): by default it exits as soon as
        # its last program does, and a program started in that moment got "wine client
        # error:0: recvmsg: Connection reset by peer" (exit 1: a failed check that was no
        # check's fault). Killed at the end (-k), whatever the tests did.
        WINEPREFIX=$(cd "$B/wineprefix" && pwd)
        export WINEPREFIX
        server=$(command -v wineserver || { [ -x /usr/lib/wine/wineserver64 ] && echo /usr/lib/wine/wineserver64; })
        if [ -n "$server" ]; then
            "$server" -k >/dev/null 2>&1   # (one left from an interrupted run)
            "$server" -p </dev/null >/dev/null 2>&1 || { echo "make test-windows: $server -p did not start" >&2; exit 1; }
            trap '"$server" -k >/dev/null 2>&1' EXIT
            trap 'exit 130' INT TERM
        fi
        # the prefix is made once (about 10 s); no window, no question asked
        WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml=' DISPLAY= "$wine" wineboot --init >/dev/null 2>&1 ;;
    arm64)
        printf '#!/bin/sh\nexec qemu-aarch64 "$@"\n' >"$run" ;;
    musl)
        printf '#!/bin/sh\nexec "$@"\n' >"$run" ;;
esac
chmod +x "$run"

# Linux's alone, named: a one-line suite that counts as skipped
linux_only() { # NAME WHY
    printf 'echo "SKIP: %s: %s"\necho "%s: 0 passed, 0 failed, 1 skipped"\n' "$1" "$2" "$1" >"$B/cross/$1.sh"
    echo "$B/cross/$1.sh"
}
# the slowest first (run_tests.sh starts them in this order, one per CPU): under
# QEMU test_ch08 and test_ch12 take about 40 s each, the programs about a minute
tests="$B/tests/test_ch08$EXE tests/cross_programs.sh"
for t in "$B/tests/test_ch12$EXE" "$B"/tests/test_*"$EXE"; do
    case " $tests " in *" $t "*) continue ;; esac
    case $(basename "$t" "$EXE") in
        test_ch09) tests="$tests $(linux_only test_ch09 "chapter 9 runs on MPI: Linux only")" ;;
        test_similarity_winnow) tests="$tests $(linux_only test_similarity_winnow "the grader's tools (bubblewrap): Linux only")" ;;
        *) tests="$tests $t" ;;
    esac
done
# shellcheck disable=SC2086
BUILD=$B RUNNER=$run NATIVE=build EXE=$EXE TEST_JOBS=${TEST_JOBS:-} sh tests/run_tests.sh $tests
exit $?   # (the EXIT trap stops the wineserver)
