/* SPDX-License-Identifier: MIT */
/*
 * grow.h - growable arrays: make room for @need elements, doubling.
 * Context: any thread; the array belongs to the caller.
 */
#ifndef IOLAT_UTIL_GROW_H
#define IOLAT_UTIL_GROW_H

#include <stddef.h>

/*
 * iolat_grow() - make *@arr (capacity *@cap elements of @elem bytes) hold at
 * least @need elements: realloc to the next doubling of *@cap (64 at first).
 * Return: 0 (also when it had room); -ENOMEM, *@arr and *@cap unchanged, or
 * -EOVERFLOW when the size in bytes would overflow.
 */
int iolat_grow(void **arr, size_t *cap, size_t need, size_t elem);

#endif /* IOLAT_UTIL_GROW_H */
