/* SPDX-License-Identifier: MIT */
/*
 * bpf_source.h - completions measured in the kernel: loads and attaches
 * iolatd's BPF program (bpf/iolatd.bpf.c, a CO-RE skeleton built from the
 * running kernel's BTF) for a set of disks, and hands each record to a
 * callback as it drains the program's per-CPU rings. Where iolatd was built without
 * BPF, opening fails with -EOPNOTSUPP and says why.
 * Context: the daemon's one thread.
 */
#ifndef IOLAT_DAEMON_BPF_SOURCE_H
#define IOLAT_DAEMON_BPF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bpf_source;

struct bpf_completion {
	uint64_t cgid, now_ns, lat_ns, bytes;
	dev_t dev;
	bool write, meta, swap, error;
};

typedef void (*bpf_completion_fn)(void *ctx, const struct bpf_completion *c);

int iolatd_bpf_source_open(const dev_t *devs, unsigned nr_devs, bpf_completion_fn fn, void *ctx,
		    struct bpf_source **out, char *err, size_t errlen);

/*
 * Wait @timeout_ms, then deliver what every CPU's ring holds, in completion
 * order. Return: records delivered, or -errno.
 */
int iolatd_bpf_source_poll(struct bpf_source *s, int timeout_ms);

/* Records the program could not queue (a ring full), in all. */
uint64_t iolatd_bpf_source_dropped(const struct bpf_source *s);

/* Is the program still attached and running? */
bool iolatd_bpf_source_alive(struct bpf_source *s);

void iolatd_bpf_source_close(struct bpf_source *s);

/*
 * iolatd_bpf_throttle_carry() - does the running kernel's block throttle
 * carry an unsigned deficit over a limit change (Linux 6.1: struct
 * throtl_grp has carryover_bytes, an unsigned integer), so that limits must
 * be staged (actuate.h)? Decided from the kernel's BTF
 * (/sys/kernel/btf/vmlinux), not its version: the carry came in 6.3 and
 * was backported (6.1 has it), and later kernels fold it into a signed
 * count (6.18: no such member). @why gets one line saying what was found.
 * Return: 1 yes, 0 no, -errno the BTF could not be read (stage, to be safe).
 */
int iolatd_bpf_throttle_carry(char *why, size_t whylen);

struct btf;
/* The same decision on a BTF already loaded (tests build one). Return: 1 or 0. */
int iolatd_btf_throttle_carry(const struct btf *btf, char *why, size_t whylen);

/* Whether this build has BPF support. */
bool iolatd_bpf_source_available(void);

#endif
