/* exercise.c — the stub of an unfilled exercise blank: one sentence, no return. */
#include "exercise.h"

#include "error.h"

void exercise_missing(const char *name, const char *where, const char *hint) {
    t_error(t_tr("exercise '%s' (%s) is not filled in: %s"), name, where, hint); /* the hint as handed out */
}
