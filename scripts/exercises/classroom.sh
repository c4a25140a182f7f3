#!/bin/sh
# classroom.sh MANIFEST — the GitHub Classroom workflow of a handout, on stdout.
#
# One step per chapter with blanks in MANIFEST (.exercise-manifest: name level
# file line line-here hint helpers torch points), worth the chapter's points:
# the step runs `make test-chapterN` in the student's repository and earns its
# max-score when the chapter's tests pass (GitHub Classroom's command grader).
# make exercises writes it into the handout as .github/workflows/classroom.yml;
# scripts/exercises/classroom.yml is the one of `make exercises` at level 1.
AWK=${AWK:-awk}
$AWK -F '\t' '
    /^#/ { if (/^# level: /) level = substr($0, 10); next }
    { n = $3; sub(/^chapters\//, "", n); sub(/_.*/, "", n); n = n + 0
      if (!(n in pts)) order[++k] = n
      pts[n] += $9; cnt[n]++ }
    END {
        print "# GitHub Classroom autograding, written by make exercises (level " level "): one step per chapter,"
        print "# worth the points of its blanks; a step earns them when `make test-chapterN` passes."
        print "# These are the students'\'' own tests in their own repository: a signal while they work."
        print "# The grade is make grade-class on the cloned repositories (docs/TEACHING.md)."
        print "name: Autograding Tests"
        print "\x27on\x27:"
        print "- push"
        print "- repository_dispatch"
        print "permissions:"
        print "  checks: write"
        print "  actions: read"
        print "  contents: read"
        print "jobs:"
        print "  run-autograding-tests:"
        print "    runs-on: ubuntu-latest"
        print "    if: github.actor != \x27github-classroom[bot]\x27"
        print "    steps:"
        print "    - name: Checkout code"
        print "      uses: actions/checkout@v4"
        for (i = 1; i <= k; i++) {
            n = order[i]
            printf "    - name: chapter %d (%d blank%s)\n", n, cnt[n], cnt[n] == 1 ? "" : "s"
            printf "      id: chapter%d\n", n
            print "      uses: classroom-resources/autograding-command-grader@v1"
            print "      with:"
            printf "        test-name: chapter %d\n", n
            print "        setup-command: \x27\x27"
            printf "        command: make test-chapter%d\n", n
            print "        timeout: 10"
            printf "        max-score: %d\n", pts[n]
            ids = ids (i > 1 ? "," : "") "chapter" n
        }
        if (k == 0) {
            # a handout without blanks (level 0, the solution): nothing to score, the
            # tests still run (an empty reporter would fail the workflow)
            print "    - name: make test (no blanks: nothing is scored)"
            print "      run: make test"
            exit
        }
        print "    - name: Autograding Reporter"
        print "      uses: classroom-resources/autograding-grading-reporter@v1"
        print "      env:"
        for (i = 1; i <= k; i++) printf "        CHAPTER%d_RESULTS: \"${{steps.chapter%d.outputs.result}}\"\n", order[i], order[i]
        print "      with:"
        print "        runners: " ids
    }' "$1"
