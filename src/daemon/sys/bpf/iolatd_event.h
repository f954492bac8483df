/* SPDX-License-Identifier: MIT */
/*
 * iolatd_event.h - the record the BPF program hands the daemon for each
 * completed request, and the per-CPU rings that carry them, shared by both
 * sides (fixed-width types only).
 * dev is the kernel's internal encoding: major << 20 | minor.
 */
#ifndef IOLATD_EVENT_H
#define IOLATD_EVENT_H

#define IOLATD_BPF_MAX_DEVS 8

#define IOLATD_EV_WRITE (1u << 0)
#define IOLATD_EV_META  (1u << 1)
#define IOLATD_EV_SWAP  (1u << 2)
#define IOLATD_EV_ERROR (1u << 3)

/*
 * Records go into a ring per CPU (an mmap-able array map, one element per
 * possible CPU): the program on CPU c writes record head % IOLATD_CPU_RING
 * and then advances head (an atomic add: it orders the record's stores
 * before it); the daemon reads from tail to head and then advances tail.
 * One writer per ring (the program runs with migration disabled and does not
 * nest on a CPU), one reader. A full ring counts the record as dropped.
 */
#define IOLATD_CPU_RING 2048 /* records per CPU: 64 KiB */

struct iolatd_event {
	__u64 cgid;    /* kernfs id of the bio's cgroup: its directory's inode */
	__u64 now_ns;  /* completion, bpf_ktime_get_ns (CLOCK_MONOTONIC) */
	__u64 lat_ns;  /* completion - request start; 0: unknown */
	__u32 bytes;
	__u32 dev;
	__u32 flags;   /* IOLATD_EV_* */
	__u32 pad;
};

struct iolatd_cpu_ring {
	__u64 head;      /* written by the program */
	__u64 dropped;   /* records lost to a full ring */
	__u64 pad1[6];
	__u64 tail;      /* written by the daemon: its own cache line */
	__u64 pad2[7];
	struct iolatd_event ev[IOLATD_CPU_RING];
};

#endif
