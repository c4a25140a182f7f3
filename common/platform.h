/* platform.h — the few things C99 cannot say, behind one door.
 *
 * Memory mapping, opening files the careful way, the kinds of files, signals,
 * terminals, the machine's memory and this process's peak: each is a function
 * here with a POSIX side (Linux with glibc or musl, macOS) and a Windows side
 * (MinGW-w64, MSYS2 UCRT64) in platform.c. Nothing else in the project
 * includes a system header beyond C99's.
 *
 * Functions that can fail return -1 (or NULL) and leave the reason in errno,
 * as the system calls they stand for do.
 */
#ifndef ATTN_PLATFORM_H
#define ATTN_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- memory ------------------------------------------------------------------ */

/* A zeroed block of at least bytes straight from the system's pages (mmap on a
 * 2 MiB boundary and asked for huge pages where the system has them;
 * VirtualAlloc on Windows); NULL where the system has no such thing or
 * refuses (the caller then uses calloc). *mapped gets what p_unmap needs. */
void *p_map(size_t bytes, size_t *mapped);
void p_unmap(void *at, size_t mapped);
/* This machine's physical memory in bytes; 0 when the system does not say. */
double p_physical_bytes(void);
/* The most this process has had resident so far, in bytes (Linux: VmHWM of
 * /proc/self/status; other POSIX systems: getrusage; Windows: the peak working
 * set); 0 when the system does not say. */
double p_peak_resident_bytes(void);

/* ---- files -------------------------------------------------------------------- */

enum {
    P_MISSING = 0, P_REGULAR, P_DIRECTORY, P_FIFO, P_CHAR_DEVICE, P_BLOCK_DEVICE, P_SOCKET,
    P_SYMLINK, P_OTHER
};
typedef struct {
    int kind;              /* P_REGULAR, P_DIRECTORY, ... */
    double size;           /* bytes (a regular file's) */
    unsigned mode;         /* permission bits (07777) */
    unsigned long uid, gid;/* owner (0 on Windows) */
} PFileInfo;

int p_stat(const char *path, PFileInfo *info);  /* follows symbolic links */
int p_lstat(const char *path, PFileInfo *info); /* does not (Windows: p_stat) */
int p_fstat(int fd, PFileInfo *info);
/* Open for reading, in binary: never blocks on a FIFO nobody writes to and
 * never becomes the controlling terminal (POSIX); reads then block as usual. */
int p_open_read(const char *path);
/* Open an existing non-regular file (a FIFO, a device) for writing, in binary;
 * a FIFO no process reads fails with ENXIO instead of waiting (POSIX). */
int p_open_write(const char *path);
/* A new file "template" (ending in XXXXXX, replaced), read-write, binary, 0600. */
int p_mkstemp(char *template_path);
long p_read(int fd, void *buf, size_t n);
int p_close(int fd);
int p_dup(int fd);
int p_dup2(int fd, int fd2); /* fd2 becomes a copy of fd; -1 where the system has none (WASI) */
FILE *p_fdopen_write(int fd); /* binary */
/* Give a file just made the mode and owner of the file it replaces (was), or
 * the mode a new file gets (was NULL); best effort, as cp does. */
void p_copy_mode_owner(int fd, const PFileInfo *was);
int p_writable(const char *path);    /* 0 when this process may write the file */
int p_dir_writable(const char *dir); /* 0 when it may make files in the folder */
char *p_realpath(const char *path);  /* malloc'd absolute path, '/' separated */
long p_name_max(const char *dir);    /* longest file name in the folder */
const char *p_base_name(const char *path); /* after the last '/' (or '\\' on Windows) */
int p_rename(const char *from, const char *to); /* replaces to, atomically where the system can */
int p_unlink(const char *path);
int p_mkdir(const char *path);
int p_rmdir(const char *path);

/* ---- time --------------------------------------------------------------------- */

/* Seconds on a clock that only goes forward (for progress and rates). */
double p_seconds(void);
/* Seconds of CPU time this thread has used (the process's where the system has no thread clock). */
double p_thread_cpu_seconds(void);

/* ---- terminals, signals -------------------------------------------------------- */

bool p_is_terminal(FILE *f);
/* Make descriptors 0, 1 and 2 that were closed at start unusable instead of
 * free (POSIX: reopened on /dev/null the wrong way round); UTF-8 on the
 * Windows console, so the Chinese narration shows as Chinese. */
void p_start_program(void);
/* Call handler(sig) on interrupt, termination, hang-up, quit and a broken
 * pipe (those the shell did not set to be ignored); a file-size limit makes a
 * write fail instead of killing the process. Windows: interrupt and
 * termination, through signal(). */
void p_catch_signals(void (*handler)(int));
/* From a handler: end the process as the signal would have (exit status
 * 128 + sig where it cannot). Calls only what a handler may. */
void p_die_of_signal(int sig);
/* Hold signals for a moment (between renames); release what was held. */
void p_signals_hold(void);
void p_signals_release(void);
/* While writing to a pipe: a closed pipe is EPIPE, not death by SIGPIPE. */
void p_pipe_errors_begin(void);
void p_pipe_errors_end(void);

#endif
