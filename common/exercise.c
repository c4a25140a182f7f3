/* exercise.c — the stub of an unfilled exercise blank: one sentence, no return. */
#include "exercise.h"

#include <stdio.h>
#include <string.h>

#include "error.h"

void exercise_missing(const char *name, const char *where, const char *hints) {
    static const char en[] = "exercise '%s' (%s) is not filled in: %s";
    const char *fmt = t_tr(en);                 /* the run's language (a Chinese run translates it) */
    const char *zh = strchr(hints, '\037');     /* "English hint\037中文提示" when the blank has hint_zh */
    char hint[1024];
    if (!zh) snprintf(hint, sizeof hint, "%s", hints);
    else if (fmt != en) snprintf(hint, sizeof hint, "%s", zh + 1);
    else snprintf(hint, sizeof hint, "%.*s", (int)(zh - hints), hints);
    t_error(fmt, name, where, hint); /* the hint as handed out, in the run's language */
}
