"""Golden modules for scripts/make_golden.py: one file per fixtures folder.

See the docstring of scripts/make_golden.py for the interface
(NAME, make(out_dir, save)). Files starting with "_" are not run and can
hold helpers shared by several modules (import them as golden._name).
"""
