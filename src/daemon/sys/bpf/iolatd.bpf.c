// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * iolatd.bpf.c - the measurement half of iolatd, run by the kernel: at each
 * completed block request (the block_rq_complete BTF tracepoint) on one of
 * the controlled disks, one record into a ring buffer: the cgroup of the
 * request's first bio (the id of its directory: the same for cgroup v1
 * blkio and v2 io), the disk, the latency from the request's start time
 * (allocation; the dispatch time where that is missing), the bytes and the
 * kind (write, metadata, swap).
 * Not the task current at completion (or issue): on a real kernel that is a
 * kworker or another task for a good share of requests.
 * Portable across kernels (CO-RE): every field is read through relocations
 * (vmlinux.h marks its structs preserve_access_index), fields that some
 * kernels lack are checked first, and every kernel constant is relocated
 * too (bpf_core_enum_value): the request flag bits move between versions
 * (6.18: META 12, SWAP 24; 6.1: bit 24 is __REQ_ALLOC_CACHE, SWAP is 25).
 * tests/daemon/test_bpf_core checks that no kernel enumerator in this file
 * is taken from the build host's headers.
 * The license string is GPL because BPF tracing helpers require it; the
 * source is also under MIT as the rest of the project.
 */
#include <vmlinux.h> /* generated at build time from the kernel BTF */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "iolatd_event.h"

/* Kernels before 5.15 name the request's disk in the request itself. */
struct request___rq_disk {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 nr_devs = 0;
const volatile __u32 devs[IOLATD_BPF_MAX_DEVS] = {};

/* A UAPI map flag (linux/bpf.h), stable since 5.5; the trimmed vmlinux.h has no uapi enums. */
#ifndef BPF_F_MMAPABLE
#define BPF_F_MMAPABLE (1U << 10)
#endif

/* One ring per possible CPU; the daemon sets max_entries before loading. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iolatd_cpu_ring);
} rings SEC(".maps");

static __always_inline bool wanted(__u32 dev)
{
	for (__u32 i = 0; i < IOLATD_BPF_MAX_DEVS; i++) {
		if (i >= nr_devs)
			return false;
		if (devs[i] == dev)
			return true;
	}
	return false;
}

static __always_inline struct gendisk *disk_of(struct request *rq)
{
	if (bpf_core_field_exists(rq->q->disk))
		return rq->q->disk;
	return ((struct request___rq_disk *)rq)->rq_disk;
}

/*
 * The op is the low bits of cmd_flags, below the first flag bit (REQ_OP_BITS
 * is a macro, not in the BTF: the first flag's bit number is the same).
 */
static __always_inline __u32 kind_flags(__u64 cmd_flags, blk_status_t error)
{
	__u64 op_mask = (1ull << bpf_core_enum_value(enum req_flag_bits, __REQ_FAILFAST_DEV)) - 1;
	__u32 flags = 0;

	if ((cmd_flags & op_mask) == bpf_core_enum_value(enum req_op, REQ_OP_WRITE))
		flags |= IOLATD_EV_WRITE;
	if (cmd_flags & (1ull << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		flags |= IOLATD_EV_META;
	if (cmd_flags & (1ull << bpf_core_enum_value(enum req_flag_bits, __REQ_SWAP)))
		flags |= IOLATD_EV_SWAP;
	if (error)
		flags |= IOLATD_EV_ERROR;
	return flags;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(iolatd_rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	struct gendisk *disk = disk_of(rq);
	struct iolatd_cpu_ring *r;
	struct iolatd_event *e;
	struct bio *bio = rq->bio;
	__u32 dev, cpu;
	__u64 now, start, head;

	if (!bpf_core_field_exists(bio->bi_blkg)) /* a kernel without CONFIG_BLK_CGROUP */
		return 0;
	if (!disk || !bio || !bio->bi_blkg)
		return 0;
	dev = ((__u32)disk->major << 20) | (__u32)disk->first_minor;
	if (!wanted(dev))
		return 0;
	cpu = bpf_get_smp_processor_id();
	r = bpf_map_lookup_elem(&rings, &cpu);
	if (!r)
		return 0;
	head = r->head;
	if (head - *(volatile __u64 *)&r->tail >= IOLATD_CPU_RING) {
		r->dropped++;
		return 0;
	}
	now = bpf_ktime_get_ns();
	start = rq->start_time_ns;
	if (!start && bpf_core_field_exists(rq->io_start_time_ns))
		start = rq->io_start_time_ns;
	e = &r->ev[head & (IOLATD_CPU_RING - 1)];
	e->cgid = bio->bi_blkg->blkcg->css.cgroup->kn->id;
	e->now_ns = now;
	e->lat_ns = start && start < now ? now - start : 0;
	e->bytes = nr_bytes;
	e->dev = dev;
	e->flags = kind_flags(rq->cmd_flags, error);
	/*
	 * Published after the record: a fetching atomic (its value is used) is
	 * fully ordered on every architecture, a plain add is not (arm64).
	 */
	if (__sync_fetch_and_add(&r->head, 1) != head)
		r->dropped++; /* never: one writer per ring */
	return 0;
}
