/* out.h — the files a run writes, and standard output.
 *
 * Every output of a chapter program (--output FILE, the files of --dump DIR)
 * goes through here, so that:
 *
 *   - a regular file (or a new path) is never half-written: the bytes go to a
 *     hidden temporary file in the same folder (".attn-XXXXXX", short, so any
 *     legal target name works) which is renamed over the target only when
 *     the whole run has succeeded. The replaced file's permission bits are
 *     kept; a symbolic link is followed and the file it names is replaced.
 *   - anything else — a FIFO, a device such as /dev/full or /dev/null, "-" or
 *     /dev/stdout (standard output) — is written through directly, never
 *     replaced by a regular file; a write error there (ENOSPC, EPIPE, EFBIG)
 *     is one sentence and exit 1. A FIFO nobody reads is refused at once
 *     rather than waited on.
 *   - a failed run leaves nothing it wrote: t_error, a failed write, and the
 *     signals SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE remove the
 *     temporary files and the --dump folders this run created. SIGXFSZ (a
 *     file-size limit, ulimit -f) is turned into the error "File too large".
 *   - standard output is checked at exit (fflush, ferror, fclose): output
 *     lost to a full disk or a closed descriptor is
 *     "chapterN: error: writing standard output: No space left on device"
 *     and exit 1, not a silent success.
 *
 * Programs get this from cli_parse(), which calls out_run_begin(); it also
 * makes npy_save and npy_make_dir (common/npy.h) write through here. Without
 * a run (unit tests, tools: out_use_for_npy()), out_close() renames the
 * finished file into place at once.
 */
#ifndef COMMON_OUT_H
#define COMMON_OUT_H

#include <stdio.h>

/* Start a program's run: signal handlers, descriptors 0-2 made safe (a
 * closed one is reopened on /dev/null so a later file cannot take its
 * number), and at exit the finished files are renamed into place and
 * standard output is checked. Safe to call more than once. */
void out_run_begin(void);

/* npy_save and npy_make_dir write through out_open/out_close/out_make_dir
 * (out_run_begin does this too). */
void out_use_for_npy(void);

typedef struct OutFile OutFile;

/* Open path for writing ("-" is standard output); failure is t_error with
 * the real cause (no such folder, permission denied, is a directory, ...). */
OutFile *out_open(const char *path);
/* The stream to fwrite into. */
FILE *out_stream(OutFile *f);
/* Finish the file; errno_value is 0, or the errno of a write that failed
 * (then the file is removed and t_error names the cause). In a run the
 * rename happens at exit; otherwise now. Frees f. */
void out_close(OutFile *f, int errno_value);

/* mkdir -p; the folders it creates are removed again if the run fails. */
void out_make_dir(const char *dir);

/* Remove every temporary file and every folder this run created (async-
 * signal-safe: unlink and rmdir only). t_error calls it before exiting. */
void out_fail(void);

/* Before any work (cli_parse calls it for --output and --dump): can the run write path, a file
 * (folder 0) or a folder it makes with mkdir -p (folder 1)? 0 when it can ("-", a FIFO or a
 * device too); else 2 with one sentence in err naming flag and path: the folder does not exist,
 * is not a folder or cannot be written, or path is a folder where a file is wanted. */
int out_check_target(const char *flag, const char *path, int folder, char *err, size_t n);

/* When path is standard output ("-", /dev/stdout, /dev/fd/1), give standard output to
 * that file alone: the run's text (narration, results, heatmaps) goes to standard error
 * from now on, so `--output - > out.npy` is a .npy and nothing else. */
void out_stdout_for_data(const char *path);

/* How many temporary files are waiting for the end of the run (tests). */
int out_pending(void);

#endif
