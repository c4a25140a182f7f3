/* state.c — load parameters from a folder of .npy files.
 *
 * A file that is there must load: an optional bias that exists but cannot
 * be read (no permission, a directory, a dangling symbolic link, not a .npy)
 * is an error naming the cause, never quietly treated as absent. Only a name
 * that does not exist at all in a readable folder counts as "no bias".
 */
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "npy.h"
#include "platform.h"

static const char *param_path(const char *dir, const char *name) {
    static char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    if (n < 0 || (size_t)n >= sizeof path) t_error("weights folder '%s': path too long", dir);
    return path;
}

/* Is dir/name.npy absent (and nothing else wrong)? Any other problem with
 * the folder or the name is an error sentence with its real cause. */
static bool param_absent(const char *dir, const char *name, const char *path) {
    PFileInfo st;
    int e;
    if (p_lstat(path, &st) == 0) return false;
    e = errno;
    if (p_stat(dir, &st) != 0) {
        if (errno == ENOENT) t_error(t_tr("weights folder '%s' has no %s.npy: the folder does not exist"), dir, name);
        t_error(t_tr("weights folder '%s': %s"), dir, t_strerror(errno));
    }
    if (st.kind != P_DIRECTORY) t_error(t_tr("weights folder '%s' is not a directory"), dir);
    if (e == ENOENT) return true;
    t_error(t_tr("weights folder '%s': cannot open %s.npy: %s"), dir, name, t_strerror(e));
}

Tensor *state_load(const char *dir, const char *name) {
    const char *path = param_path(dir, name);
    if (param_absent(dir, name, path)) t_error(t_tr("weights folder '%s' has no %s.npy"), dir, name);
    return npy_load(path);
}

Tensor *state_load_optional(const char *dir, const char *name) {
    const char *path = param_path(dir, name);
    return param_absent(dir, name, path) ? NULL : npy_load(path);
}
