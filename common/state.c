/* state.c — load parameters from a folder of .npy files. */
#include "state.h"

#include <stdio.h>

#include "error.h"
#include "npy.h"

static const char *param_path(const char *dir, const char *name) {
    static char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    if (n < 0 || (size_t)n >= sizeof path) t_error("weights folder '%s': path too long", dir);
    return path;
}

Tensor *state_load(const char *dir, const char *name) {
    const char *path = param_path(dir, name);
    if (!npy_exists(path)) t_error("weights folder '%s' has no %s.npy", dir, name);
    return npy_load(path);
}

Tensor *state_load_optional(const char *dir, const char *name) {
    const char *path = param_path(dir, name);
    return npy_exists(path) ? npy_load(path) : NULL;
}
