/* fuzz_npy.c — libFuzzer target for the .npy parser (common/npy.c).
 *
 *     make fuzz        (clang -fsanitize=fuzzer,address,undefined)
 *
 * Any input must either parse into a tensor or be refused with a sentence:
 * no crash, no leak, no read outside the buffer. Seeds: tests/corpus/npy/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/npy.h"
#include "common/tensor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Tensor *t = NULL;
    char err[512];
    int rc;

    t_scope_begin();
    rc = npy_parse(data, size, &t, err, sizeof err);
    if (rc == 0) {
        /* a parsed tensor is C-contiguous and every element can be read */
        int64_t i, n = t_numel(t);
        volatile float sum = 0.0f;
        if (!t_is_contiguous(t) || (uint64_t)n * 4 > (uint64_t)size) abort();
        for (i = 0; i < n; i++) sum += t->storage->data[t->offset + i];
        (void)sum;
    } else if (rc != -1 || t != NULL || err[0] == '\0' || strlen(err) >= sizeof err) {
        abort();
    }
    t_scope_end();
    return 0;
}
