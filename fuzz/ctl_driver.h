/* SPDX-License-Identifier: MIT */
/*
 * ctl_driver.h - a deterministic driver of the controller for fuzzing and
 * regression tests: it turns bytes into a sequence of API calls (groups,
 * targets, admissions, completions, cancels, ticks, queue depth, virtual
 * clock steps) against a model of what every I/O holds, and checks the
 * controller's invariants after each step.
 * Used by fuzz/fuzz_ctl.c (libFuzzer) and tests/reliability/
 * test_fuzz_regressions.c (cmocka). Context: one thread; not reentrant
 * across threads (each call builds its own controller).
 */
#ifndef IOLAT_FUZZ_CTL_DRIVER_H
#define IOLAT_FUZZ_CTL_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/* Flags of ctl_driver_run(). */
#define CTL_DRIVER_TRACE (1u << 0) /* print each step to stderr */

/* Byte layout, for seed writers: a 4-byte header then ops (see ctl_driver.c). */
enum ctl_driver_op {
	CD_CREATE = 0,     /* parent, name */
	CD_DESTROY,        /* group */
	CD_SET_TARGET,     /* group, value, scale */
	CD_SUBMIT,         /* group, flags */
	CD_DONE,           /* which */
	CD_DONE_UNISSUED,  /* which */
	CD_CANCEL,         /* which */
	CD_TICK,           /* - */
	CD_ADVANCE,        /* amount */
	CD_SET_NR_REQ,     /* value */
	CD_DELAY,          /* group, slept */
	CD_STAT,           /* group, buffer length */
	CD_DONE_AGAIN,     /* which */
	CD_BURST,          /* group, count */
	CD_ROUND,          /* group a, group b, count, amount */
	CD_NR_OPS
};

/*
 * ctl_driver_run() - replay @data against a fresh controller.
 * @msg: on failure, a one-line description of the broken invariant.
 * Return: 0 when every invariant held; -1 on the first violation.
 */
int ctl_driver_run(const uint8_t *data, size_t size, unsigned flags,
		   char *msg, size_t msglen);

#endif
