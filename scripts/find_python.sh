#!/bin/sh
# find_python.sh -- print a Python interpreter that can import the given modules.
#
# Usage: sh scripts/find_python.sh MODULE [MODULE...]
#
# Tries, in order, "$PYTHON" (when set and non-empty), python3 and
# /usr/bin/python3, and prints the first one that imports every MODULE
# (exit 0). When none can, prints one line naming a missing module and how
# to install it on stderr and exits 1. Used by the Makefile, e.g.
#     PY=$$(sh scripts/find_python.sh torch numpy) && $$PY scripts/make_golden.py

if [ $# -eq 0 ]; then
    echo "usage: sh scripts/find_python.sh MODULE [MODULE...]" >&2
    exit 2
fi

# can_import PY MODULE... : does interpreter PY import all the MODULEs?
can_import() {
    py=$1
    shift
    command -v "$py" >/dev/null 2>&1 || return 1
    "$py" -c 'import importlib, sys
for m in sys.argv[1:]:
    importlib.import_module(m)' "$@" >/dev/null 2>&1
}

for cand in "${PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$cand" ] || continue
    if can_import "$cand" "$@"; then
        printf '%s\n' "$cand"
        exit 0
    fi
done

# None has them all: name the first module that no candidate can import
# (or, if each module is somewhere, the first one missing from the first
# interpreter that exists).
missing=
for mod in "$@"; do
    found=no
    for cand in "${PYTHON:-}" python3 /usr/bin/python3; do
        [ -n "$cand" ] || continue
        if can_import "$cand" "$mod"; then found=yes; break; fi
    done
    if [ "$found" = no ]; then missing=$mod; break; fi
done
if [ -z "$missing" ]; then
    for cand in "${PYTHON:-}" python3 /usr/bin/python3; do
        [ -n "$cand" ] || continue
        command -v "$cand" >/dev/null 2>&1 || continue
        for mod in "$@"; do
            if ! can_import "$cand" "$mod"; then missing=$mod; break; fi
        done
        break
    done
fi
[ -n "$missing" ] || missing=$1

case $missing in
    torch)      deb=python3-torch;      pip=torch ;;
    matplotlib) deb=python3-matplotlib; pip=matplotlib ;;
    numpy)      deb=python3-numpy;      pip=numpy ;;
    *)          deb=python3-$missing;   pip=$missing ;;
esac
echo "no Python with $missing found; install it: apt-get install $deb (Debian) or pip install $pip, or pass PYTHON=/path/to/python" >&2
exit 1
