/* out.c — the files a run writes, and standard output (see out.h).
 *
 * The lists below are read by a signal handler, so they are fixed arrays of
 * strings that never move: an entry is filled in before the count that makes
 * it visible is raised, and the handler calls only p_unlink, p_rmdir and
 * p_die_of_signal (common/platform.h: unlink, rmdir, sigaction, raise, _exit).
 */
#include "common/program/out.h"
#include "common/program/lang.h" /* the sentences in the run's language (tr) */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/npy.h"
#include "common/platform.h" /* files, signals: POSIX and Windows */

#define OUT_MAX 256            /* files (and folders) one run may create */

struct OutFile {
    FILE *f;                   /* direct: a closed pipe is EPIPE while writing (p_pipe_errors_begin) */
    bool direct;               /* written through: no temporary, no rename */
    char *path;                /* as given, for messages                  */
    char *final;               /* the file the temporary replaces          */
    char *tmp;                 /* the temporary file (NULL when direct)    */
    int slot;                  /* index in tmp_list, -1 when direct        */
};

static char *tmp_list[OUT_MAX];        /* temporary files not yet renamed */
static char *final_list[OUT_MAX];      /* ... and what each one replaces  */
static volatile sig_atomic_t n_tmp = 0;
static char *dir_list[OUT_MAX];        /* folders this run created        */
static volatile sig_atomic_t n_dir = 0;
static volatile sig_atomic_t failing = 0;
static bool in_run = false;

/* ---- failing: remove what this run made ------------------------------------ */

void out_fail(void)
{
    int i;
    failing = 1;
    for (i = n_tmp - 1; i >= 0; i--)
        if (tmp_list[i]) p_unlink(tmp_list[i]);
    for (i = n_dir - 1; i >= 0; i--)
        if (dir_list[i]) p_rmdir(dir_list[i]);
    n_tmp = 0;
    n_dir = 0;
}

static void on_signal(int sig)
{
    out_fail();
    p_die_of_signal(sig); /* as the shell expects (exit status 128 + sig) */
}

int out_pending(void) { return (int)n_tmp; }

static void free_lists(void)
{
    int i;
    for (i = 0; i < OUT_MAX; i++) {
        free(tmp_list[i]);
        free(final_list[i]);
        free(dir_list[i]);
        tmp_list[i] = final_list[i] = dir_list[i] = NULL;
    }
    n_tmp = n_dir = 0;
}

/* ---- the end of a run -------------------------------------------------------- */

static void say_and_exit(const char *fmt, const char *a, const char *b)
{
    char raw[1024], msg[1024];
    const char *name = t_program_name();
    snprintf(raw, sizeof raw, fmt, a, b);
    t_escape(msg, sizeof msg, raw);
    if (name) fprintf(stderr, tr("%s: %s: %s\n"), name, tr("error"), msg);
    else fprintf(stderr, tr("%s: %s\n"), tr("error"), msg);
    fflush(stderr);
    free_lists();
    _Exit(EXIT_RUNTIME);
}

/* atexit: check standard output, then rename the finished files into place. */
static void out_finish(void)
{
    int i, e = 0;

    if (failing) {
        out_fail();
        free_lists();
        return;
    }
    /* Output lost on the way to standard output is a failed run. */
    if (fflush(stdout) != 0 || ferror(stdout)) e = errno ? errno : EIO;
    if (fclose(stdout) != 0 && !e) e = errno ? errno : EIO;
    if (e) {
        out_fail();
        say_and_exit(tr("writing standard output: %s%s"), t_strerror(e), "");
    }

    /* No signal between the first and the last rename. */
    p_signals_hold();
    for (i = 0; i < n_tmp; i++) {
        if (p_rename(tmp_list[i], final_list[i]) != 0) {
            char what[1024];
            e = errno;
            snprintf(what, sizeof what, "%s", final_list[i]);
            p_unlink(tmp_list[i]);
            free(tmp_list[i]);
            tmp_list[i] = NULL;
            out_fail();
            say_and_exit(tr("cannot write '%s' (renaming the finished temporary file failed): %s"), what,
                         t_strerror(e));
        }
        free(tmp_list[i]);
        tmp_list[i] = NULL;
    }
    n_tmp = 0;
    free_lists();
    p_signals_release();
}

/* npy_save and npy_make_dir (common/npy.h) write through here */
static FILE *npy_open(const char *path, void **handle)
{
    OutFile *o = out_open(path);
    *handle = o;
    return out_stream(o);
}

static void npy_close(void *handle, const char *path, int errno_value)
{
    (void)path; /* the OutFile knows it */
    out_close((OutFile *)handle, errno_value);
}

static const NpyFiles npy_files = {npy_open, npy_close, out_make_dir};

void out_use_for_npy(void) { npy_set_files(&npy_files); }

void out_run_begin(void)
{
    if (in_run) return;
    in_run = true;
    out_use_for_npy();
    t_set_fatal_cleanup(out_fail);
    p_start_program(); /* closed descriptors 0-2 stay unusable; UTF-8 on Windows' console */
    p_catch_signals(on_signal);
    atexit(out_finish);
}

/* ---- opening ------------------------------------------------------------------- */

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static void free_outfile(OutFile *o)
{
    if (!o) return;
    free(o->path);
    free(o->final);
    free(o->tmp);
    free(o);
}

/* Fail opening: free what we have, then one sentence. */
#if defined(__GNUC__)
__attribute__((noreturn))
#endif
static void open_failed(OutFile *o, const char *path, const char *why)
{
    char msg[1200];
    snprintf(msg, sizeof msg, tr("cannot write '%.900s': %s"), path, why);
    free_outfile(o);
    t_error("%s", msg);
}

/* Standard output as the run found it, once out_stdout_for_data gave it to the .npy
 * (descriptor 1 then writes to standard error); -1 before. */
static int data_stdout = -1;

/* The descriptor behind "-", /dev/stdout, /dev/fd/N ...: -1 if path is not one. */
static int std_stream_fd(const char *path)
{
    static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/"};
    size_t i;
    if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) return data_stdout >= 0 ? data_stdout : 1;
    if (strcmp(path, "/dev/stderr") == 0) return 2;
    for (i = 0; i < 2; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(path, prefixes[i], n) == 0) {
            const char *p = path + n;
            long v = 0;
            if (*p == '\0') return -1;
            for (; *p; p++) {
                if (*p < '0' || *p > '9' || v > 100000) return -1;
                v = v * 10 + (*p - '0');
            }
            return v == 1 && data_stdout >= 0 ? data_stdout : (int)v;
        }
    }
    return -1;
}

void out_stdout_for_data(const char *path)
{
    int saved;
    if (!path || data_stdout >= 0 || std_stream_fd(path) != 1) return;
    fflush(stdout);
    saved = p_dup(1);
    if (saved < 0) return; /* no dup (WASI): the text stays beside the data */
    if (p_dup2(2, 1) != 0) {
        p_close(saved);
        return;
    }
    data_stdout = saved;
}

/* Write through to an existing descriptor or non-regular file. */
static OutFile *open_direct(OutFile *o, const char *path, int std_fd, const PFileInfo *st)
{
    int fd;
    if (std_fd >= 0) {
        if (std_fd == 1) fflush(stdout);
        fd = p_dup(std_fd);
        if (fd < 0) open_failed(o, path, t_strerror(errno));
    } else {
        if (st->kind == P_SOCKET) open_failed(o, path, tr("it is a socket"));
        /* a FIFO that no process reads is refused (ENXIO) instead of blocking
         * forever; the writes themselves block as usual. */
        fd = p_open_write(path);
        if (fd < 0) {
            int e = errno;
            if (e == ENXIO && st->kind == P_FIFO)
                open_failed(o, path, tr("it is a FIFO that no process has open for reading"));
            open_failed(o, path, t_strerror(e));
        }
    }
    o->f = p_fdopen_write(fd);
    if (!o->f) {
        int e = errno;
        p_close(fd);
        open_failed(o, path, t_strerror(e));
    }
    p_pipe_errors_begin();
    o->direct = true;
    o->slot = -1;
    return o;
}

OutFile *out_open(const char *path)
{
    OutFile *o;
    PFileInfo st, lst;
    bool exists;
    int std_fd, fd;
    const char *base;

    if (!path || !*path) t_error("no output file name given");
    o = calloc(1, sizeof *o);
    if (!o) t_error("out of memory opening '%s'", path);
    o->slot = -1;
    o->path = dup_str(path);
    if (!o->path) open_failed(o, path, tr("out of memory"));

    /* standard output and friends: written through */
    std_fd = std_stream_fd(path);
    if (std_fd >= 0) return open_direct(o, path, std_fd, NULL);

    exists = p_stat(path, &st) == 0;
    if (!exists) {
        int e = errno;
        if (e == ENOENT && p_lstat(path, &lst) == 0 && lst.kind == P_SYMLINK)
            open_failed(o, path, tr("it is a symbolic link to a file that does not exist"));
        if (e != ENOENT) open_failed(o, path, t_strerror(e));
    }
    if (exists && st.kind == P_DIRECTORY) open_failed(o, path, tr("it is a directory"));
    if (exists && st.kind != P_REGULAR) return open_direct(o, path, -1, &st);

    /* a regular file or a new one: replace it atomically, where it really is */
    if (exists) {
        if (p_writable(path) != 0) open_failed(o, path, t_strerror(errno));
        o->final = p_realpath(path);
        if (!o->final) open_failed(o, path, t_strerror(errno));
    } else {
        o->final = dup_str(path);
        if (!o->final) open_failed(o, path, tr("out of memory"));
    }

    /* the temporary: ".attn-XXXXXX" in the same folder, whatever the name's length */
    base = p_base_name(o->final);
    if (*base == '\0') open_failed(o, path, tr("the name ends with '/', which names a directory"));
    {
        size_t dir_len = (size_t)(base - o->final);  /* "dir/" or "" */
        o->tmp = malloc(dir_len + 16);
        if (!o->tmp) open_failed(o, path, tr("out of memory"));
        memcpy(o->tmp, o->final, dir_len);
        o->tmp[dir_len] = '\0';
        if ((long)strlen(base) > p_name_max(dir_len ? o->tmp : "."))
            open_failed(o, path, t_strerror(ENAMETOOLONG));
        strcat(o->tmp, ".attn-XXXXXX");
    }

    if (n_tmp >= OUT_MAX) open_failed(o, path, tr("this run already writes too many files"));
    fd = p_mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        if (!exists && (e == ENOENT || e == ENOTDIR)) {
            /* name the folder that is missing */
            open_failed(o, path, tr(e == ENOENT ? "No such file or directory (its folder does not exist)"
                                                : "Not a directory (its folder is not a directory)"));
        }
        open_failed(o, path, t_strerror(e));
    }
    /* visible to the signal handler from here on */
    tmp_list[n_tmp] = o->tmp;
    final_list[n_tmp] = o->final;
    o->slot = n_tmp;
    n_tmp = n_tmp + 1;
    o->tmp = NULL;  /* owned by the lists now */
    o->final = NULL;

    p_copy_mode_owner(fd, exists ? &st : NULL); /* mkstemp made it 0600 */
    o->f = p_fdopen_write(fd);
    if (!o->f) {
        int e = errno;
        p_close(fd);
        out_close(o, e);
    }
    return o;
}

FILE *out_stream(OutFile *f) { return f->f; }

/* ---- closing --------------------------------------------------------------------- */

static void drop_slot(int slot)
{
    int i;
    p_unlink(tmp_list[slot]);
    free(tmp_list[slot]);
    free(final_list[slot]);
    for (i = slot; i + 1 < n_tmp; i++) {
        tmp_list[i] = tmp_list[i + 1];
        final_list[i] = final_list[i + 1];
    }
    tmp_list[n_tmp - 1] = final_list[n_tmp - 1] = NULL;
    n_tmp = n_tmp - 1;
}

void out_close(OutFile *o, int e)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", o->path);

    if (o->f) {
        if (!e && fflush(o->f) != 0) e = errno ? errno : EIO;
        if (!e && ferror(o->f)) e = EIO;
        if (fclose(o->f) != 0 && !e) e = errno ? errno : EIO;
        o->f = NULL;
    }
    if (o->direct) {
        p_pipe_errors_end();
        free_outfile(o);
        if (e) t_error(tr("cannot write '%s': %s"), path, t_strerror(e));
        return;
    }
    /* the slot may have moved if an earlier one was dropped: find it again */
    p_signals_hold();
    if (e) {
        drop_slot(o->slot);
        p_signals_release();
        free_outfile(o);
        t_error(tr("cannot write '%s': %s"), path, t_strerror(e));
    }
    if (!in_run) {
        /* no run to wait for: into place now */
        int slot = o->slot;
        if (p_rename(tmp_list[slot], final_list[slot]) != 0) {
            e = errno;
            drop_slot(slot);
            p_signals_release();
            free_outfile(o);
            t_error(tr("cannot write '%s' (renaming the finished temporary file failed): %s"), path, t_strerror(e));
        }
        free(tmp_list[slot]);
        free(final_list[slot]);
        tmp_list[slot] = final_list[slot] = NULL;
        n_tmp = n_tmp - 1;
    }
    p_signals_release();
    free_outfile(o);
}

/* ---- folders ------------------------------------------------------------------------ */

static bool is_dir(const char *path)
{
    PFileInfo st;
    return p_stat(path, &st) == 0 && st.kind == P_DIRECTORY;
}

void out_make_dir(const char *dir)
{
    char *p;
    char *s;
    size_t n;

    if (!dir || !*dir) t_error("no directory name given");
    n = strlen(dir);
    p = malloc(n + 1);
    if (!p) t_error("out of memory");
    memcpy(p, dir, n + 1);
    /* mkdir -p: make every prefix that ends at a '/', then the whole path. */
    for (s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char saved = *s;
            *s = '\0';
            if (p_mkdir(p) == 0) {
                if (n_dir < OUT_MAX) {
                    dir_list[n_dir] = dup_str(p);
                    if (dir_list[n_dir]) n_dir = n_dir + 1;
                }
            } else {
                int e = errno;
                if (!is_dir(p)) {
                    char msg[1200];
                    if (e == EEXIST)
                        snprintf(msg, sizeof msg, tr("cannot create directory '%.500s': '%.500s' exists and is not a directory"),
                                 dir, p);
                    else
                        snprintf(msg, sizeof msg, tr("cannot create directory '%.500s': %s"), p, t_strerror(e));
                    free(p);
                    t_error("%s", msg);
                }
            }
            *s = saved;
            if (saved == '\0') break;
        }
    }
    free(p);
}

/* ---- before the run: can the outputs be written? ---------------------------- */

/* The folder part of path ("." when none, "/" for "/x"), into buf. */
static void folder_of(const char *path, char *buf, size_t n)
{
    size_t len;
    const char *slash;
    snprintf(buf, n, "%s", path);
    len = strlen(buf);
    while (len > 1 && buf[len - 1] == '/') buf[--len] = '\0'; /* "out/" is the folder "out" */
    slash = strrchr(buf, '/');
    if (!slash) snprintf(buf, n, ".");
    else if (slash == buf) buf[1] = '\0';
    else buf[slash - buf] = '\0';
}

/* A folder files can be made in: 0, else a sentence in err. */
static int writable_folder(const char *flag, const char *path, const char *dir, char *err, size_t n)
{
    PFileInfo st;
    if (p_stat(dir, &st) != 0) {
        snprintf(err, n, tr("%s %s: the folder %s does not exist"), flag, path, dir);
        return 2;
    }
    if (st.kind != P_DIRECTORY) {
        snprintf(err, n, tr("%s %s: %s is not a folder"), flag, path, dir);
        return 2;
    }
    if (p_dir_writable(dir) != 0) {
        /* the folder is there, so ENOENT means it takes no new names (Linux's /proc) */
        const char *why = errno == ENOENT ? tr("no file can be made in it") : t_strerror(errno);
        snprintf(err, n, tr("%s %s: the folder %s cannot be written (%s)"), flag, path, dir, why);
        return 2;
    }
    return 0;
}

int out_check_target(const char *flag, const char *path, int folder, char *err, size_t n)
{
    PFileInfo st;
    char dir[4096];
    if (!path || strcmp(path, "-") == 0) return 0;
    if (strlen(path) >= sizeof dir) {
        snprintf(err, n, tr("%s: the name is longer than %d bytes"), flag, (int)sizeof dir - 1);
        return 2;
    }
    if (p_stat(path, &st) == 0) {
        if (folder) {
            if (st.kind != P_DIRECTORY) {
                snprintf(err, n, tr("%s %s: it is a file, not a folder"), flag, path);
                return 2;
            }
            return writable_folder(flag, path, path, err, n);
        }
        if (st.kind == P_DIRECTORY) {
            snprintf(err, n, tr("%s %s: it is a folder, not a file"), flag, path);
            return 2;
        }
        if (st.kind != P_REGULAR) return 0; /* a FIFO, a device: written through, not replaced */
        /* a regular file is replaced by a temporary made beside the file it names */
        {
            char *real = p_realpath(path);
            int rc;
            folder_of(real ? real : path, dir, sizeof dir);
            free(real);
            rc = writable_folder(flag, path, dir, err, n);
            return rc;
        }
    }
    if (errno != ENOENT && errno != ENOTDIR) { /* ENOTDIR: a file on the way, named below */
        snprintf(err, n, "%s %s: %s", flag, path, t_strerror(errno));
        return 2;
    }
    folder_of(path, dir, sizeof dir);
    if (folder) /* mkdir -p: the nearest folder that exists must take new folders */
        while (p_stat(dir, &st) != 0 && (errno == ENOENT || errno == ENOTDIR) && strcmp(dir, ".") != 0 && strcmp(dir, "/") != 0) {
            char up[4096];
            folder_of(dir, up, sizeof up);
            snprintf(dir, sizeof dir, "%s", up);
        }
    return writable_folder(flag, path, dir, err, n);
}
