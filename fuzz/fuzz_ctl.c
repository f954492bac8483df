/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ctl.c - libFuzzer target: the controller driven by fuzz bytes through
 * fuzz/ctl_driver.c, which checks the invariants after each step. A broken
 * invariant prints its message and aborts (libFuzzer keeps the input).
 * Set CTL_DRIVER_TRACE=1 to print every step (for replaying a crash).
 * Context: libFuzzer's one thread.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctl_driver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int trace = -1;
	char msg[512];

	if (trace < 0)
		trace = getenv("CTL_DRIVER_TRACE") != NULL;
	if (ctl_driver_run(data, size, trace ? CTL_DRIVER_TRACE : 0, msg, sizeof(msg))) {
		fprintf(stderr, "fuzz_ctl: invariant broken: %s\n", msg);
		abort();
	}
	return 0;
}
