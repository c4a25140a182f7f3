/* npy.h — read and write NumPy .npy files (float32 tensors in and out).
 *
 * Load: what numpy and other writers write. Format versions 1.0, 2.0 and
 * 3.0; any header padding, with or without the final '\n'; the three keys in
 * any order, ' or " quotes, spaces, tabs and line breaks between tokens, a
 * trailing comma or none; shapes like (3,), () and (2, 3), with Python 2's
 * (3L,) in versions 1.0 and 2.0. dtype '<f4' is read as is and '<f8'
 * (NumPy's default) is converted to float32; '>f4'/'>f8' are byte-swapped,
 * '=f4'/'=f8' are this machine's order; fortran_order True is transposed into
 * C order. Anything else is refused with a sentence naming the file and the
 * problem: bad magic, unsupported version, truncated header or data, the rest
 * of Python's syntax that numpy.load would also take (comments, escapes,
 * joined strings, 0x2, a key given twice), a byte in the header that is not
 * printable ASCII, unsupported dtype (named), negative or overflowing shapes,
 * a shape bigger than the file or the memory limit, trailing bytes.
 *
 * Reading stops at the first thing that cannot belong to a .npy file (the
 * magic string, version, header length, header or dtype): a header is at
 * most 10000 bytes (numpy.load's limit), so /dev/zero or a large file of
 * something else is refused at once. Regular files and pipes are read;
 * devices and terminals are refused.
 *
 * Speed: data that is float32 in this machine's byte order and C order goes
 * straight into the tensor's storage with one read (no element-by-element
 * decoding, no second buffer); other dtypes and orders are converted a block
 * of 1 MiB at a time. A contiguous tensor is saved with one write of its data.
 *
 * Save: always '<f4', C order, version 1.0. Plain files by default ("-" is
 * standard output); a chapter program (common/program/out.h) installs its
 * own files with npy_set_files: a temporary file renamed into place only when
 * the whole run has succeeded (a failed run never leaves a half-written
 * file), or written through to a FIFO, a device or standard output.
 */
#ifndef COMMON_NPY_H
#define COMMON_NPY_H

#include <stddef.h>
#include <stdio.h>
#include "tensor.h"

/* Parse an in-memory .npy. On success returns 0 and sets *out (a tensor in
 * the current scope); on failure returns -1 and writes one sentence (without
 * the file name) into err. Never calls t_error. */
int npy_parse(const unsigned char *buf, size_t len, Tensor **out,
              char *err, size_t errlen);

/* Load a file; any failure is t_error("<path>: <sentence>"). */
Tensor *npy_load(const char *path);
/* The shape in a regular file's header, without reading its data (for the
 * memory estimate of a run); false when it cannot tell. */
bool npy_peek_shape(const char *path, Shape *shape);
/* Save x (any strides) as float32 C-order; failure is t_error. */
void npy_save(const char *path, const Tensor *x);
/* Is there something other than a directory at path (a file of any kind,
 * even a dangling symbolic link)? */
bool npy_exists(const char *path);
/* mkdir -p for --dump DIR; failure is t_error. */
void npy_make_dir(const char *dir);
/* Where npy_save and npy_make_dir write: open gives the stream for path
 * (failure is t_error) and a handle; close finishes it, errno_value being 0
 * or the errno of a failed write (then it removes what it can and calls
 * t_error). NULL restores the plain default (fopen/fclose, mkdir -p). */
typedef struct {
    FILE *(*open)(const char *path, void **handle);
    void (*close)(void *handle, const char *path, int errno_value);
    void (*make_dir)(const char *dir);
} NpyFiles;
void npy_set_files(const NpyFiles *files);
/* npy_save into dir/name.npy (name without extension). */
void npy_save_in(const char *dir, const char *name, const Tensor *x);

#endif
