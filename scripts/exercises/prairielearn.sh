#!/bin/sh
# prairielearn.sh [LEVEL] [CHAPTERS] — make prairielearn-kit: write a PrairieLearn
# question, build/prairielearn/attention-in-c-levelN-chA-B/, externally graded as
# PrairieLearn's docs/externalGrading.md specifies:
#   info.json      the question, "gradingMethod": "External" and externalGradingOptions
#                  (image PL_IMAGE, the entrypoint in that image, timeout PL_TIMEOUT s)
#   question.html  a file upload of the chapter files with blanks, the grader's results
#   image/         the grading image: a Dockerfile FROM PrairieLearn's C grader image that
#                  copies source/ (this repository, the handout, the seed) to
#                  /attention-in-c/source and runs its setup.sh (what grading needs, the
#                  repository built, the grader's cache); source/entrypoint grades
#                  /grade/student (the uploaded files, flat) in the carried handout and
#                  writes /grade/results/results.json; an upload that is not a submission
#                  gets "gradable": false and a message saying what is missing.
. scripts/exercises/lib.sh
. scripts/exercises/grade_lib.sh
ex_check_root
. scripts/exercises/lms_kit.sh
WHO="make prairielearn-kit"
kit_args "$WHO" "${1:-}" "${2:-}"
IMAGE=${PL_IMAGE:-attention-in-c/grader:level$LEVEL-ch$(num_list "$CHS" | tr , -)}
case $IMAGE in
    "" | *[!a-z0-9./:_-]*) die "$WHO: PL_IMAGE=$IMAGE: give the image's name as docker pull takes it (lower case, e.g. yourname/attention-grader:level1)" ;;
esac
TIMEOUT=${PL_TIMEOUT:-300}
case $TIMEOUT in
    "" | *[!0-9]* | 0 | ????*) die "$WHO: PL_TIMEOUT=$TIMEOUT: the grading timeout is a whole number of seconds from 1 to 600 (PrairieLearn's limit)" ;;
esac
[ "$TIMEOUT" -le 600 ] || die "$WHO: PL_TIMEOUT=$TIMEOUT: the grading timeout is a whole number of seconds from 1 to 600 (PrairieLearn's limit)"

QID=attention-in-c-level$LEVEL-ch$(num_list "$CHS" | tr , -)
OUTD=${PRAIRIELEARN_OUT:-build/prairielearn}   # (a test gives its own)
W=$OUTD/work.$$
rm -rf "$W" && mkdir -p "$W/image/source" || die "$WHO: cannot write $OUTD"
OUTD=$(cd "$OUTD" && pwd) && W=$OUTD/work.$$ || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 2' INT TERM
kit_tree "$WHO" "$W/image/source"
FILES=$(grep -v '^#' "$W/image/source/handout/.exercise-manifest" | cut -f3 | sort -u)
NAMES=$(for f in $FILES; do basename "$f"; done | tr '\n' ',' | sed 's/,$//; s/,/, /g')
UUID=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n' |
    sed 's/^\(........\)\(....\).\(...\).\(...\)\(............\)$/\1-\2-4\3-a\4-\5/')

cat >"$W/info.json" <<JSON
{
  "uuid": "$UUID",
  "title": "attention-in-c, level $LEVEL: chapters $(num_list "$CHS")",
  "topic": "C",
  "tags": ["attention-in-c", "c", "level$LEVEL"],
  "type": "v3",
  "singleVariant": true,
  "gradingMethod": "External",
  "externalGradingOptions": {
    "enabled": true,
    "image": "$IMAGE",
    "entrypoint": "/attention-in-c/source/entrypoint",
    "timeout": $TIMEOUT
  }
}
JSON

cat >"$W/question.html" <<HTML
<pl-question-panel>
  <p>Fill in the blanks of the handout (attention-in-c, level $LEVEL, chapters $(num_list "$CHS")),
  check them with <code>make test-chapterN</code>, then upload the files you filled in.
  A file you do not upload is graded as it was handed out.</p>
  <pl-file-upload file-names="$NAMES"></pl-file-upload>
</pl-question-panel>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
HTML

cat >"$W/image/Dockerfile" <<'DOCKER'
# The grading image of this PrairieLearn question: PrairieLearn's C grader image,
# this repository in /attention-in-c/source, prepared once by its setup.sh (what
# grading needs, the build, the grader's cache). Build and push it as info.json's
# "image" says: docker build -t IMAGE . && docker push IMAGE
FROM prairielearn/grader-c
COPY source /attention-in-c/source
RUN chmod 0755 /attention-in-c/source/setup.sh /attention-in-c/source/entrypoint && \
    sh /attention-in-c/source/setup.sh && \
    rm -rf /var/lib/apt/lists/*
DOCKER

cat >"$W/image/source/entrypoint" <<'ENTRY'
#!/bin/sh
# PrairieLearn's external grader runs this (info.json's entrypoint) for every
# submission: the uploaded files are in /grade/student (flat, as pl-file-upload
# delivers them), the results go to /grade/results/results.json (which PrairieLearn
# does not create). The upload becomes a tree in the handout this image carries
# (scripts/exercises/upload_tree.sh: no name in it read as a path, no link followed)
# and is graded as make grade does.
set -f   # (no pattern below is ever expanded against file names)
cd /attention-in-c/source || exit 1
. ./lms-env.sh
SEED=$(cat .grader-seed)
TOOL=/attention-in-c/source/build/lms-gradetool
RES=/grade/results
mkdir -p "$RES"
W=$(mktemp -d /tmp/grading.XXXXXX) || exit 1
echo "autograder: level $LEVEL, chapters $CHAPTERS, hidden-check seed $SEED (fixed in this image: a regrade gives the same points)"
# fail MESSAGE: not gradable, MESSAGE shown to the student
fail() {
    echo "autograder: $1"
    printf '%s\n' "$1" >"$W/msg.txt"
    "$TOOL" prairielearn-fail "$GRADE_LANG" "$W/msg.txt" "$RES/results.json"
    rm -rf "$W"
    exit 0
}
. scripts/exercises/upload_tree.sh
upload_tree /grade/student handout "$W/tree" || fail "$UP_FAIL"
echo "autograder: $UP_MSG"
kit_sandbox /attention-in-c/source
GRADE_OUT=$W/grading GRADE_SEED=$SEED make --no-print-directory grade DIR="$W/tree" LEVEL="$LEVEL" CHAPTERS="$CHAPTERS" STUDENT=submission
st=$?
[ "$st" -eq 0 ] && [ -f "$W/grading/prairielearn/submission.json" ] ||
    fail "The autograder could not grade this upload (exit $st); your teacher sees why in the grading log."
cp "$W/grading/prairielearn/submission.json" "$RES/results.json.tmp" && mv "$RES/results.json.tmp" "$RES/results.json"
rm -rf "$W"
ENTRY
chmod 0755 "$W/image/source/entrypoint"

Q=$OUTD/$QID
rm -rf "$Q.old" && { [ ! -e "$Q" ] || mv "$Q" "$Q.old"; } && mv "$W" "$Q" && rm -rf "$Q.old" ||
    die "$WHO: cannot write $Q"
echo "prairielearn: $Q (level $LEVEL, chapters $(num_list "$CHS"), image $IMAGE); docs/TEACHING.md says how to use it"
