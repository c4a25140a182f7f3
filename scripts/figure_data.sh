#!/bin/sh
# figure_data.sh -- print the data a figure is drawn from, as text.
#
# Usage: sh scripts/figure_data.sh NPYINFO DUMPDIR
#
# Prints every array of DUMPDIR (a chapter's --dump), in name order, with
# NPYINFO --print: its name, shape and values as PyTorch prints them. make
# figures commits it beside the PNG (docs/img/NAME.txt); tests/test_figures.sh
# compares it with what the current program dumps, so a stale figure fails.
if [ $# -ne 2 ]; then
    echo "usage: sh scripts/figure_data.sh NPYINFO DUMPDIR" >&2
    exit 2
fi
case $1 in /*) npyinfo=$1 ;; *) npyinfo=$(pwd)/$1 ;; esac
cd "$2" || exit 1
set -- *.npy
[ -e "$1" ] || { echo "figure_data.sh: no .npy files in $(pwd)" >&2; exit 1; }
"$npyinfo" --lang en --print "$@"  # (the committed text is English whatever the locale)
