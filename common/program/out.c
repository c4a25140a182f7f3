/* out.c — the files a run writes, and standard output (see out.h).
 *
 * The lists below are read by a signal handler, so they are fixed arrays of
 * strings that never move: an entry is filled in before the count that makes
 * it visible is raised, and the handler calls only unlink, rmdir, sigaction,
 * raise and _exit.
 */
#define _XOPEN_SOURCE 700  /* POSIX 2008 with realpath and fchown */

#include "common/program/out.h"
#include "common/program/lang.h" /* the sentences in the run's language (tr) */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/error.h"
#include "common/npy.h"

#define OUT_MAX 256            /* files (and folders) one run may create */

struct OutFile {
    FILE *f;
    struct sigaction old_pipe; /* direct: SIGPIPE ignored while writing, so a closed pipe is EPIPE */
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
        if (tmp_list[i]) unlink(tmp_list[i]);
    for (i = n_dir - 1; i >= 0; i--)
        if (dir_list[i]) rmdir(dir_list[i]);
    n_tmp = 0;
    n_dir = 0;
}

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
#define N_CLEANUP_SIGNALS (int)(sizeof cleanup_signals / sizeof cleanup_signals[0])

static void on_signal(int sig)
{
    struct sigaction sa;
    out_fail();
    /* die of the same signal, as the shell expects (exit status 128 + sig) */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    raise(sig);
    _exit(128 + sig);
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
    _exit(EXIT_RUNTIME);
}

/* atexit: check standard output, then rename the finished files into place. */
static void out_finish(void)
{
    sigset_t all, old;
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
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    for (i = 0; i < n_tmp; i++) {
        if (rename(tmp_list[i], final_list[i]) != 0) {
            char what[1024];
            e = errno;
            snprintf(what, sizeof what, "%s", final_list[i]);
            unlink(tmp_list[i]);
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
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Descriptors 0, 1 and 2 closed when the program starts (`>&-`) would be
 * handed to the first files it opens, so narration could land in an output
 * file. Each closed one is reopened on /dev/null the wrong way round, so
 * using it fails (EBADF) and the failure is reported. */
static void guard_std_fds(void)
{
    int fd;
    for (fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
            if (got >= 0 && got != fd) close(got);
        }
    }
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
    struct sigaction sa;
    int i;
    if (in_run) return;
    in_run = true;
    out_use_for_npy();
    t_set_fatal_cleanup(out_fail);
    guard_std_fds();
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_signal;
    for (i = 0; i < N_CLEANUP_SIGNALS; i++) {
        struct sigaction old;
        /* a signal the shell set to be ignored (nohup, a background job's
         * SIGINT) stays ignored */
        if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(cleanup_signals[i], &sa, NULL);
    }
    /* a file-size limit: write() fails with EFBIG instead of killing us */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &sa, NULL);
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

/* The descriptor behind "-", /dev/stdout, /dev/fd/N ...: -1 if path is not one. */
static int std_stream_fd(const char *path)
{
    static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/"};
    size_t i;
    if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) return 1;
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
            return (int)v;
        }
    }
    return -1;
}

/* Write through to an existing descriptor or non-regular file. */
static OutFile *open_direct(OutFile *o, const char *path, int std_fd, const struct stat *st)
{
    int fd;
    if (std_fd >= 0) {
        if (std_fd == 1) fflush(stdout);
        fd = dup(std_fd);
        if (fd < 0) open_failed(o, path, t_strerror(errno));
    } else {
        if (S_ISSOCK(st->st_mode)) open_failed(o, path, tr("it is a socket"));
        /* O_NONBLOCK: a FIFO that no process reads is refused (ENXIO) instead
         * of blocking forever; the writes themselves block as usual. */
        fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
            int e = errno;
            if (e == ENXIO && S_ISFIFO(st->st_mode))
                open_failed(o, path, tr("it is a FIFO that no process has open for reading"));
            open_failed(o, path, t_strerror(e));
        }
        {
            int flags = fcntl(fd, F_GETFL);
            if (flags != -1) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
        }
    }
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        int e = errno;
        close(fd);
        open_failed(o, path, t_strerror(e));
    }
    {
        struct sigaction ign;
        memset(&ign, 0, sizeof ign);
        ign.sa_handler = SIG_IGN;
        sigemptyset(&ign.sa_mask);
        sigaction(SIGPIPE, &ign, &o->old_pipe);
    }
    o->direct = true;
    o->slot = -1;
    return o;
}

/* Longest file name in the folder holding path (NAME_MAX, 255 on Linux). */
static long name_max(const char *dir)
{
    long n;
    errno = 0;
    n = pathconf(dir, _PC_NAME_MAX);
    if (n <= 0) n = 255;
    return n;
}

OutFile *out_open(const char *path)
{
    OutFile *o;
    struct stat st, lst;
    bool exists;
    int std_fd, fd;
    const char *slash;
    const char *base;
    mode_t mode;

    if (!path || !*path) t_error("no output file name given");
    o = calloc(1, sizeof *o);
    if (!o) t_error("out of memory opening '%s'", path);
    o->slot = -1;
    o->path = dup_str(path);
    if (!o->path) open_failed(o, path, tr("out of memory"));

    /* standard output and friends: written through */
    std_fd = std_stream_fd(path);
    if (std_fd >= 0) return open_direct(o, path, std_fd, NULL);

    exists = stat(path, &st) == 0;
    if (!exists) {
        int e = errno;
        if (e == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
            open_failed(o, path, tr("it is a symbolic link to a file that does not exist"));
        if (e != ENOENT) open_failed(o, path, t_strerror(e));
    }
    if (exists && S_ISDIR(st.st_mode)) open_failed(o, path, tr("it is a directory"));
    if (exists && !S_ISREG(st.st_mode)) return open_direct(o, path, -1, &st);

    /* a regular file or a new one: replace it atomically, where it really is */
    if (exists) {
        if (access(path, W_OK) != 0) open_failed(o, path, t_strerror(errno));
        o->final = realpath(path, NULL);
        if (!o->final) open_failed(o, path, t_strerror(errno));
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
        o->final = dup_str(path);
        if (!o->final) open_failed(o, path, tr("out of memory"));
    }

    /* the temporary: ".attn-XXXXXX" in the same folder, whatever the name's length */
    slash = strrchr(o->final, '/');
    base = slash ? slash + 1 : o->final;
    if (*base == '\0') open_failed(o, path, tr("the name ends with '/', which names a directory"));
    {
        size_t dir_len = (size_t)(base - o->final);  /* "dir/" or "" */
        o->tmp = malloc(dir_len + 16);
        if (!o->tmp) open_failed(o, path, tr("out of memory"));
        memcpy(o->tmp, o->final, dir_len);
        o->tmp[dir_len] = '\0';
        if ((long)strlen(base) > name_max(dir_len ? o->tmp : "."))
            open_failed(o, path, t_strerror(ENAMETOOLONG));
        strcat(o->tmp, ".attn-XXXXXX");
    }

    if (n_tmp >= OUT_MAX) open_failed(o, path, tr("this run already writes too many files"));
    fd = mkstemp(o->tmp);
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

    if (fchmod(fd, mode) != 0) { /* mkstemp made it 0600 */
        /* not worth failing the run for */
    }
    if (exists && (st.st_uid != geteuid() || st.st_gid != getegid())) {
        if (fchown(fd, st.st_uid, st.st_gid) != 0) { /* best effort, as cp does */
        }
    }
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        int e = errno;
        close(fd);
        out_close(o, e);
    }
    return o;
}

FILE *out_stream(OutFile *f) { return f->f; }

/* ---- closing --------------------------------------------------------------------- */

static void drop_slot(int slot)
{
    int i;
    unlink(tmp_list[slot]);
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
    sigset_t all, old;
    snprintf(path, sizeof path, "%s", o->path);

    if (o->f) {
        if (!e && fflush(o->f) != 0) e = errno ? errno : EIO;
        if (!e && ferror(o->f)) e = EIO;
        if (fclose(o->f) != 0 && !e) e = errno ? errno : EIO;
        o->f = NULL;
    }
    if (o->direct) {
        sigaction(SIGPIPE, &o->old_pipe, NULL);
        free_outfile(o);
        if (e) t_error(tr("cannot write '%s': %s"), path, t_strerror(e));
        return;
    }
    /* the slot may have moved if an earlier one was dropped: find it again */
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    if (e) {
        drop_slot(o->slot);
        sigprocmask(SIG_SETMASK, &old, NULL);
        free_outfile(o);
        t_error(tr("cannot write '%s': %s"), path, t_strerror(e));
    }
    if (!in_run) {
        /* no run to wait for: into place now */
        int slot = o->slot;
        if (rename(tmp_list[slot], final_list[slot]) != 0) {
            e = errno;
            drop_slot(slot);
            sigprocmask(SIG_SETMASK, &old, NULL);
            free_outfile(o);
            t_error(tr("cannot write '%s' (renaming the finished temporary file failed): %s"), path, t_strerror(e));
        }
        free(tmp_list[slot]);
        free(final_list[slot]);
        tmp_list[slot] = final_list[slot] = NULL;
        n_tmp = n_tmp - 1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    free_outfile(o);
}

/* ---- folders ------------------------------------------------------------------------ */

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
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
            if (mkdir(p, 0777) == 0) {
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
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(err, n, tr("%s %s: the folder %s does not exist"), flag, path, dir);
        return 2;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, n, tr("%s %s: %s is not a folder"), flag, path, dir);
        return 2;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, n, tr("%s %s: the folder %s cannot be written (%s)"), flag, path, dir, t_strerror(errno));
        return 2;
    }
    return 0;
}

int out_check_target(const char *flag, const char *path, int folder, char *err, size_t n)
{
    struct stat st;
    char dir[4096];
    if (!path || strcmp(path, "-") == 0) return 0;
    if (strlen(path) >= sizeof dir) {
        snprintf(err, n, tr("%s: the name is longer than %d bytes"), flag, (int)sizeof dir - 1);
        return 2;
    }
    if (stat(path, &st) == 0) {
        if (folder) {
            if (!S_ISDIR(st.st_mode)) {
                snprintf(err, n, tr("%s %s: it is a file, not a folder"), flag, path);
                return 2;
            }
            return writable_folder(flag, path, path, err, n);
        }
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, n, tr("%s %s: it is a folder, not a file"), flag, path);
            return 2;
        }
        if (!S_ISREG(st.st_mode)) return 0; /* a FIFO, a device: written through, not replaced */
        /* a regular file is replaced by a temporary made beside the file it names */
        {
            char *real = realpath(path, NULL);
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
        while (stat(dir, &st) != 0 && (errno == ENOENT || errno == ENOTDIR) && strcmp(dir, ".") != 0 && strcmp(dir, "/") != 0) {
            char up[4096];
            folder_of(dir, up, sizeof up);
            snprintf(dir, sizeof dir, "%s", up);
        }
    return writable_folder(flag, path, dir, err, n);
}
