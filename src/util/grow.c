/* SPDX-License-Identifier: MIT */
/*
 * grow.c - growable arrays (grow.h).
 * Context: any thread; the array belongs to the caller.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/grow.h"

int iolat_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	void *p;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap : 64;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -EOVERFLOW;
		n *= 2;
	}
	if (elem && n > SIZE_MAX / elem)
		return -EOVERFLOW;
	p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}
