/* platform.c — the POSIX side and the Windows side of platform.h.
 *
 * WebAssembly (wasm32-wasi, make web) takes the POSIX side, less what WASI
 * does not have (marked __wasi__): no memory mapping, no signals, no dup, no
 * mkstemp or realpath, no owners or modes, no peak memory figure.
 *
 * The one file of the project that includes system headers beyond C99's. A
 * build with -D_POSIX_C_SOURCE=200809L on the command line (make
 * test-posix) gets no extensions at all: then large blocks come from calloc.
 */
#ifndef _WIN32
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE  /* glibc, musl: MAP_ANONYMOUS, MADV_HUGEPAGE */
#define _DARWIN_C_SOURCE /* macOS: MAP_ANON */
#endif
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath, fchown */
#endif
#endif

#include "common/platform.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
/* ======================================================================== */
/* Windows (MinGW-w64)                                                      */
/* ======================================================================== */
#define WIN32_LEAN_AND_MEAN
#define PSAPI_VERSION 2 /* GetProcessMemoryInfo from kernel32 itself */
#include <windows.h>
#include <psapi.h>
#include <direct.h>
#include <fcntl.h>
#include <io.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

/* fmaf: MinGW-w64's own (libmingwex, on a CPU without FMA instructions) rounds
 * the product before the sum: it differed from x*y+z rounded once in 4 090 038
 * of 20 000 000 random cases under Wine, which breaks the random numbers
 * PyTorch draws bit for bit (common/rng.c) and chapter 8's exp2. This one, the
 * algorithm of musl's fmaf.c, differed in none: x*y is exact in a double, and
 * only a sum that lands exactly halfway between two floats needs its last bit
 * moved towards the rounding error. Linked before the C library's, it replaces
 * it in every program of the project. */
float fmaf(float x, float y, float z) {
    double xy = (double)x * (double)y;
    volatile double sum = xy + (double)z; /* volatile: never contracted into an fma of doubles */
    double r = sum, err;
    uint64_t bits;
    int neg;
    memcpy(&bits, &r, sizeof bits);
    if ((bits & 0x1fffffff) != 0x10000000 || (bits >> 52 & 0x7ff) == 0x7ff ||
        (r - xy == (double)z && r - (double)z == xy))
        return (float)r; /* not halfway, or NaN/inf, or exact */
    neg = (int)(bits >> 63);
    if (neg == ((double)z > xy)) err = xy - r + (double)z;
    else err = (double)z - r + xy;
    if (neg == (err < 0)) bits++;
    else bits--;
    memcpy(&r, &bits, sizeof r);
    return (float)r;
}

void *p_map(size_t bytes, size_t *mapped) {
    void *at = VirtualAlloc(NULL, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE); /* zeroed */
    if (!at) return NULL;
    *mapped = bytes;
    return at;
}

void p_unmap(void *at, size_t mapped) {
    (void)mapped;
    VirtualFree(at, 0, MEM_RELEASE);
}

double p_physical_bytes(void) {
    MEMORYSTATUSEX m;
    m.dwLength = sizeof m;
    return GlobalMemoryStatusEx(&m) ? (double)m.ullTotalPhys : 0.0;
}

double p_peak_resident_bytes(void) {
    PROCESS_MEMORY_COUNTERS c;
    if (!GetProcessMemoryInfo(GetCurrentProcess(), &c, sizeof c)) return 0.0;
    return (double)c.PeakWorkingSetSize;
}

static void fill_info(const struct _stat64 *st, PFileInfo *info) {
    memset(info, 0, sizeof *info);
    if ((st->st_mode & _S_IFMT) == _S_IFDIR) info->kind = P_DIRECTORY;
    else if ((st->st_mode & _S_IFMT) == _S_IFREG) info->kind = P_REGULAR;
    else if ((st->st_mode & _S_IFMT) == _S_IFCHR) info->kind = P_CHAR_DEVICE;
    else if ((st->st_mode & _S_IFMT) == _S_IFIFO) info->kind = P_FIFO;
    else info->kind = P_OTHER;
    info->size = (double)st->st_size;
    info->mode = (unsigned)st->st_mode & 0777u;
}

int p_stat(const char *path, PFileInfo *info) {
    struct _stat64 st;
    char trimmed[1024];
    size_t n = strlen(path);
    /* "dir/" names the folder, but Windows' stat finds nothing there */
    if (n > 1 && n < sizeof trimmed && (path[n - 1] == '/' || path[n - 1] == '\\')) {
        memcpy(trimmed, path, n + 1);
        while (n > 1 && (trimmed[n - 1] == '/' || trimmed[n - 1] == '\\') && trimmed[n - 2] != ':') trimmed[--n] = '\0';
        path = trimmed;
    }
    if (_stat64(path, &st) != 0) return -1;
    fill_info(&st, info);
    return 0;
}

int p_lstat(const char *path, PFileInfo *info) { return p_stat(path, info); }

int p_fstat(int fd, PFileInfo *info) {
    struct _stat64 st;
    if (_fstat64(fd, &st) != 0) return -1;
    fill_info(&st, info);
    return 0;
}

/* _O_BINARY: without it every 0x0A byte of a .npy read comes back without
 * the 0x0D before it, or gets one added on the way out */
int p_open_read(const char *path) { return _open(path, _O_RDONLY | _O_BINARY); }
int p_open_write(const char *path) { return _open(path, _O_WRONLY | _O_BINARY); }
int p_mkstemp(char *template_path) {
    int fd = mkstemp(template_path); /* MinGW-w64's: _O_BINARY already, but say so */
    if (fd >= 0) _setmode(fd, _O_BINARY);
    return fd;
}
long p_read(int fd, void *buf, size_t n) {
    if (n > 1u << 30) n = 1u << 30;
    return _read(fd, buf, (unsigned)n);
}
int p_close(int fd) { return _close(fd); }
int p_dup(int fd) { return _dup(fd); }
int p_dup2(int fd, int fd2) { return _dup2(fd, fd2); }
FILE *p_fdopen_write(int fd) {
    _setmode(fd, _O_BINARY);
    return _fdopen(fd, "wb");
}
void p_copy_mode_owner(int fd, const PFileInfo *was) {
    (void)fd;
    (void)was;
}
int p_writable(const char *path) { return _access(path, 2); }
int p_dir_writable(const char *dir) { return _access(dir, 2); }
char *p_realpath(const char *path) {
    char *full = _fullpath(NULL, path, 0), *c;
    if (!full) return NULL;
    for (c = full; *c; c++)
        if (*c == '\\') *c = '/';
    return full;
}
long p_name_max(const char *dir) {
    (void)dir;
    return 255;
}
const char *p_base_name(const char *path) {
    const char *a = strrchr(path, '/'), *b = strrchr(path, '\\');
    if (b && (!a || b > a)) a = b;
    if (!a && path[0] && path[1] == ':') return path + 2;
    return a ? a + 1 : path;
}
int p_rename(const char *from, const char *to) {
    if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) return 0;
    errno = GetLastError() == ERROR_ACCESS_DENIED ? EACCES : GetLastError() == ERROR_PATH_NOT_FOUND ? ENOENT : EIO;
    return -1;
}
int p_unlink(const char *path) { return _unlink(path); }
int p_mkdir(const char *path) { return _mkdir(path); }
int p_rmdir(const char *path) { return _rmdir(path); }

double p_seconds(void) {
    LARGE_INTEGER t, f;
    if (!QueryPerformanceCounter(&t) || !QueryPerformanceFrequency(&f) || f.QuadPart <= 0) return 0.0;
    return (double)t.QuadPart / (double)f.QuadPart;
}

double p_thread_cpu_seconds(void) {
    FILETIME created, ended, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &created, &ended, &kernel, &user))
        return (double)clock() / CLOCKS_PER_SEC;
    return 1e-7 * ((double)(((unsigned long long)user.dwHighDateTime << 32) | user.dwLowDateTime) +
                   (double)(((unsigned long long)kernel.dwHighDateTime << 32) | kernel.dwLowDateTime));
}

bool p_is_terminal(FILE *f) { return _isatty(_fileno(f)) != 0; }
void p_start_program(void) { SetConsoleOutputCP(CP_UTF8); }
void p_catch_signals(void (*handler)(int)) {
    signal(SIGINT, handler);
    signal(SIGTERM, handler);
}
void p_die_of_signal(int sig) { _Exit(128 + sig); }
void p_signals_hold(void) {}
void p_signals_release(void) {}
void p_pipe_errors_begin(void) {}
void p_pipe_errors_end(void) {}

#else
/* ======================================================================== */
/* POSIX (Linux with glibc or musl, macOS, the BSDs)                        */
/* ======================================================================== */
#include <fcntl.h>
#ifndef __wasi__
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#endif
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif

/* Fresh memory costs a page fault the first time each 4 KiB page is touched:
 * a block of at least a huge page (2 MiB) gets its own mapping, aligned to
 * 2 MiB and marked MADV_HUGEPAGE, so that where the system has transparent
 * huge pages on request, the first touch maps 2 MiB at once. */
#if defined(MAP_ANONYMOUS) && defined(MADV_HUGEPAGE)
#define P_HUGE ((size_t)2 << 20)
void *p_map(size_t bytes, size_t *mapped) {
    long page_size = sysconf(_SC_PAGESIZE);
    size_t page = page_size > 0 ? (size_t)page_size : 4096;
    size_t len = (bytes + page - 1) / page * page;
    char *raw, *at;
    if (bytes > SIZE_MAX - P_HUGE - page) return NULL;
    raw = mmap(NULL, len + P_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    /* keep the 2 MiB-aligned len bytes, give back the rest */
    at = raw + ((P_HUGE - (uintptr_t)raw % P_HUGE) % P_HUGE);
    if (at > raw) munmap(raw, (size_t)(at - raw));
    if (raw + len + P_HUGE > at + len) munmap(at + len, (size_t)(raw + len + P_HUGE - (at + len)));
    madvise(at, len, MADV_HUGEPAGE); /* a request: without it the pages are small, still correct */
    *mapped = len;
    return at;
}
void p_unmap(void *at, size_t mapped) { munmap(at, mapped); }
#else
void *p_map(size_t bytes, size_t *mapped) {
    (void)bytes;
    (void)mapped;
    return NULL;
}
void p_unmap(void *at, size_t mapped) {
    (void)at;
    (void)mapped;
}
#endif

double p_physical_bytes(void) {
#ifdef __wasi__
    return 4294967296.0; /* wasm32: the most memory a program can have, 4 GiB */
#endif
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) return (double)pages * (double)page;
#endif
    return 0.0;
}

#ifdef __wasi__
double p_peak_resident_bytes(void) { return 0.0; }
#else
double p_peak_resident_bytes(void) {
    struct rusage ru;
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        double kib = 0;
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "VmHWM:", 6) == 0) kib = strtod(line + 6, NULL);
        fclose(f);
        if (kib > 0) return kib * 1024.0;
    }
    if (getrusage(RUSAGE_SELF, &ru) != 0 || ru.ru_maxrss <= 0) return 0.0;
#ifdef __APPLE__
    return (double)ru.ru_maxrss; /* bytes on macOS */
#else
    return (double)ru.ru_maxrss * 1024.0; /* KiB on Linux and the BSDs */
#endif
}
#endif

static void fill_info(const struct stat *st, PFileInfo *info) {
    memset(info, 0, sizeof *info);
    info->kind = S_ISREG(st->st_mode) ? P_REGULAR : S_ISDIR(st->st_mode) ? P_DIRECTORY
               : S_ISFIFO(st->st_mode) ? P_FIFO : S_ISCHR(st->st_mode) ? P_CHAR_DEVICE
               : S_ISBLK(st->st_mode) ? P_BLOCK_DEVICE : S_ISSOCK(st->st_mode) ? P_SOCKET
               : S_ISLNK(st->st_mode) ? P_SYMLINK : P_OTHER;
    info->size = st->st_size >= 0 ? (double)st->st_size : 0.0;
    info->mode = (unsigned)st->st_mode & 07777u;
    info->uid = (unsigned long)st->st_uid;
    info->gid = (unsigned long)st->st_gid;
}

int p_stat(const char *path, PFileInfo *info) {
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    fill_info(&st, info);
    return 0;
}

int p_lstat(const char *path, PFileInfo *info) {
    struct stat st;
    if (lstat(path, &st) != 0) return -1;
    fill_info(&st, info);
    return 0;
}

int p_fstat(int fd, PFileInfo *info) {
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    fill_info(&st, info);
    return 0;
}

static int blocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags != -1) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

int p_open_read(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    return fd < 0 ? fd : blocking(fd);
}
int p_open_write(const char *path) {
    int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK);
    return fd < 0 ? fd : blocking(fd);
}
#ifdef __wasi__
/* WASI has no mkstemp: the XXXXXX become letters from a counter and the clock,
 * tried until O_EXCL makes a new file */
int p_mkstemp(char *template_path) {
    static unsigned long counter = 0;
    size_t len = strlen(template_path);
    int tries;
    if (len < 6 || strcmp(template_path + len - 6, "XXXXXX") != 0) {
        errno = EINVAL;
        return -1;
    }
    for (tries = 0; tries < 1000; tries++) {
        unsigned long v = (unsigned long)clock() * 2654435761u + ++counter * 40503u;
        int i, fd;
        for (i = 0; i < 6; i++, v /= 26) template_path[len - 6 + i] = (char)('a' + v % 26);
        fd = open(template_path, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}
int p_dup(int fd) {
    (void)fd;
    errno = ENOTSUP;
    return -1;
}
int p_dup2(int fd, int fd2) {
    (void)fd;
    (void)fd2;
    errno = ENOTSUP;
    return -1;
}
void p_copy_mode_owner(int fd, const PFileInfo *was) {
    (void)fd;
    (void)was;
}
/* no absolute paths in WASI: a path stays as given (relative to a preopened folder) */
char *p_realpath(const char *path) {
    char *copy = malloc(strlen(path) + 1);
    if (copy) strcpy(copy, path);
    else errno = ENOMEM;
    return copy;
}
#else
int p_mkstemp(char *template_path) { return mkstemp(template_path); }
int p_dup(int fd) { return dup(fd); }
int p_dup2(int fd, int fd2) { return dup2(fd, fd2) < 0 ? -1 : 0; }
#endif
long p_read(int fd, void *buf, size_t n) { return (long)read(fd, buf, n); }
int p_close(int fd) { return close(fd); }
FILE *p_fdopen_write(int fd) { return fdopen(fd, "wb"); }

#ifndef __wasi__
void p_copy_mode_owner(int fd, const PFileInfo *was) {
    mode_t mode;
    if (was) {
        mode = (mode_t)was->mode;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0) { /* mkstemp made it 0600; not worth failing the run for */
    }
    if (was && ((uid_t)was->uid != geteuid() || (gid_t)was->gid != getegid())) {
        if (fchown(fd, (uid_t)was->uid, (gid_t)was->gid) != 0) { /* best effort, as cp does */
        }
    }
}

#endif

int p_writable(const char *path) { return access(path, W_OK); }
/* access() reads the permission bits, which root passes everywhere, also in /proc
 * and /sys where nothing can be made: so a folder is also tried, with a folder made
 * in it and removed at once. */
int p_dir_writable(const char *dir) {
#ifndef __wasi__
    char probe[4352];
    int saved;
#endif
    if (access(dir, W_OK | X_OK) != 0) return -1;
#ifndef __wasi__
    if ((size_t)snprintf(probe, sizeof probe, "%s/.attn-probe-XXXXXX", dir) >= sizeof probe) return 0;
    if (!mkdtemp(probe)) return -1; /* errno: why not */
    saved = errno;
    rmdir(probe);
    errno = saved;
#endif
    return 0;
}
#ifndef __wasi__
char *p_realpath(const char *path) { return realpath(path, NULL); }
#endif
long p_name_max(const char *dir) {
    long n;
    errno = 0;
    n = pathconf(dir, _PC_NAME_MAX);
    return n > 0 ? n : 255;
}
const char *p_base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}
int p_rename(const char *from, const char *to) { return rename(from, to); }
int p_unlink(const char *path) { return unlink(path); }
int p_mkdir(const char *path) { return mkdir(path, 0777); }
int p_rmdir(const char *path) { return rmdir(path); }

double p_seconds(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return (double)clock() / CLOCKS_PER_SEC;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double p_thread_cpu_seconds(void) {
#ifdef CLOCK_THREAD_CPUTIME_ID
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
    return (double)clock() / CLOCKS_PER_SEC;
}

bool p_is_terminal(FILE *f) { return isatty(fileno(f)) != 0; }

/* Descriptors 0, 1 and 2 closed when the program starts (`>&-`) would be
 * handed to the first files it opens, so narration could land in an output
 * file. Each closed one is reopened on /dev/null the wrong way round, so
 * using it fails (EBADF) and the failure is reported. */
void p_start_program(void) {
    int fd;
    for (fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
            if (got >= 0 && got != fd) close(got);
        }
    }
}

#ifdef __wasi__
/* no signals in WASI: nothing to catch, hold or ignore */
void p_catch_signals(void (*handler)(int)) { (void)handler; }
void p_die_of_signal(int sig) { _Exit(128 + sig); }
void p_signals_hold(void) {}
void p_signals_release(void) {}
void p_pipe_errors_begin(void) {}
void p_pipe_errors_end(void) {}
#else
void p_catch_signals(void (*handler)(int)) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    struct sigaction sa;
    size_t i;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = handler;
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* a signal the shell set to be ignored (nohup, a background job's
         * SIGINT) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
#ifdef SIGXFSZ
    /* a file-size limit: write() fails with EFBIG instead of killing us */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &sa, NULL);
#endif
}

void p_die_of_signal(int sig) {
    struct sigaction sa;
    /* die of the same signal, as the shell expects (exit status 128 + sig) */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    raise(sig);
    _exit(128 + sig);
}

static sigset_t held_old;
static int held_depth = 0;
void p_signals_hold(void) {
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    if (held_depth++ == 0) held_old = old;
}
void p_signals_release(void) {
    if (held_depth > 0 && --held_depth == 0) sigprocmask(SIG_SETMASK, &held_old, NULL);
}

static struct sigaction pipe_old;
static int pipe_depth = 0;
void p_pipe_errors_begin(void) {
    struct sigaction ign;
    if (pipe_depth++ > 0) return;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &pipe_old);
}
void p_pipe_errors_end(void) {
    if (pipe_depth > 0 && --pipe_depth == 0) sigaction(SIGPIPE, &pipe_old, NULL);
}
#endif
#endif
