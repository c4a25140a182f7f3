"""Run the PyTorch snippets of the docs, each as a fresh script, in one process.

    python3 tests/torch_snippets.py DIR N...

For each N, runs DIR/pN.py (cut out of a page by tests/doc_blocks.awk) as
__main__ in a namespace of its own, with the working directory DIR, and
writes what it printed to DIR/pN.out; when it raises, the last line of the
traceback goes to DIR/pN.err. Used by tests/test_docs.sh (one process: torch
is imported once, not once per snippet).
"""
import contextlib
import io
import os
import sys
import traceback


def main():
    folder = sys.argv[1]
    os.chdir(folder)
    for n in sys.argv[2:]:
        name = "p%s.py" % n
        with open(name, encoding="utf-8") as f:
            code = compile(f.read(), name, "exec")
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(code, {"__name__": "__main__", "__file__": name})
        except BaseException:  # noqa: B902 -- a snippet's failure is a test result
            lines = traceback.format_exc().strip().splitlines()
            with open("p%s.err" % n, "w", encoding="utf-8") as f:
                f.write(lines[-1] + "\n")
        with open("p%s.out" % n, "w", encoding="utf-8") as f:
            f.write(out.getvalue())


if __name__ == "__main__":
    main()
