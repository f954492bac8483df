/* SPDX-License-Identifier: MIT */
/*
 * iolatd_event.h - the record the BPF program hands the daemon for each
 * completed request, shared by both sides (fixed-width types only).
 * dev is the kernel's internal encoding: major << 20 | minor.
 */
#ifndef IOLATD_EVENT_H
#define IOLATD_EVENT_H

#define IOLATD_BPF_MAX_DEVS 8

#define IOLATD_EV_WRITE (1u << 0)
#define IOLATD_EV_META  (1u << 1)
#define IOLATD_EV_SWAP  (1u << 2)
#define IOLATD_EV_ERROR (1u << 3)

struct iolatd_event {
	__u64 cgid;    /* kernfs id of the bio's cgroup: its directory's inode */
	__u64 now_ns;  /* completion, bpf_ktime_get_ns (CLOCK_MONOTONIC) */
	__u64 lat_ns;  /* completion - request start; 0: unknown */
	__u32 bytes;
	__u32 dev;
	__u32 flags;   /* IOLATD_EV_* */
	__u32 pad;
};

#endif
