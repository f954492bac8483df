/* SPDX-License-Identifier: MIT */
/*
 * bpf_source.c - loads iolatd's BPF program through its skeleton and drains
 * its per-CPU rings (bpf_source.h, bpf/iolatd_event.h), merging each poll's
 * records by completion time. Built with the program where the build
 * found clang, bpftool, libbpf and the kernel's BTF (CONFIG_HAVE_BPF);
 * otherwise only the "not available" answers.
 * Context: the daemon's one thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "daemon/sys/bpf_source.h"

#ifdef CONFIG_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "bpf/iolatd_event.h"
#include <iolatd.skel.h> /* generated at build time by bpftool */

struct bpf_source {
	struct iolatd_bpf *skel;
	struct iolatd_cpu_ring *rings; /* mmap of the rings map, one per possible CPU */
	size_t map_len;
	int nr_cpus;
	struct iolatd_event *batch;    /* one poll's records of every CPU, merged by time */
	bpf_completion_fn fn;
	void *ctx;
};

bool iolatd_bpf_source_available(void)
{
	return true;
}

/* libbpf's own messages: warnings and errors only, and not the memlock one. */
static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || level == LIBBPF_INFO || strstr(fmt, "memlock"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void deliver(struct bpf_source *s, const struct iolatd_event *e)
{
	struct bpf_completion c;

	c.cgid = e->cgid;
	c.now_ns = e->now_ns;
	c.lat_ns = e->lat_ns;
	c.bytes = e->bytes;
	c.dev = makedev(e->dev >> 20, e->dev & 0xfffff);
	c.write = e->flags & IOLATD_EV_WRITE;
	c.meta = e->flags & IOLATD_EV_META;
	c.swap = e->flags & IOLATD_EV_SWAP;
	c.error = e->flags & IOLATD_EV_ERROR;
	s->fn(s->ctx, &c);
}

static int by_time(const void *a, const void *b)
{
	const struct iolatd_event *x = a, *y = b;

	return x->now_ns < y->now_ns ? -1 : x->now_ns > y->now_ns;
}

/* Each CPU's new records, then all of them in completion order (the controller's windows close by time). */
static int drain(struct bpf_source *s)
{
	size_t n = 0;

	for (int c = 0; c < s->nr_cpus; c++) {
		struct iolatd_cpu_ring *r = &s->rings[c];
		uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE), tail = r->tail;

		if (head - tail > IOLATD_CPU_RING) /* cannot be: the program keeps it within */
			tail = head - IOLATD_CPU_RING;
		for (; tail != head; tail++)
			s->batch[n++] = r->ev[tail & (IOLATD_CPU_RING - 1)];
		__atomic_store_n(&r->tail, head, __ATOMIC_RELEASE);
	}
	qsort(s->batch, n, sizeof(*s->batch), by_time);
	for (size_t i = 0; i < n; i++)
		deliver(s, &s->batch[i]);
	return (int)n;
}

/* The rings map mapped into the daemon (its values start at offset 0 of the map's file). */
static int map_rings(struct bpf_source *s)
{
	int fd = bpf_map__fd(s->skel->maps.rings);
	long page = sysconf(_SC_PAGESIZE);

	s->map_len = ((size_t)s->nr_cpus * sizeof(struct iolatd_cpu_ring) + (size_t)page - 1) / (size_t)page *
		     (size_t)page;
	s->rings = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s->rings == MAP_FAILED) {
		s->rings = NULL;
		return -errno;
	}
	s->batch = calloc((size_t)s->nr_cpus * IOLATD_CPU_RING, sizeof(*s->batch));
	return s->batch ? 0 : -ENOMEM;
}

int iolatd_bpf_source_open(const dev_t *devs, unsigned nr_devs, bpf_completion_fn fn, void *ctx,
		    struct bpf_source **out, char *err, size_t errlen)
{
	struct bpf_source *s;
	int ret;

	if (nr_devs == 0 || nr_devs > IOLATD_BPF_MAX_DEVS) {
		snprintf(err, errlen, "BPF: 1 to %d devices", IOLATD_BPF_MAX_DEVS);
		return -EINVAL;
	}
	libbpf_set_print(quiet_print);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fn = fn;
	s->ctx = ctx;
	s->skel = iolatd_bpf__open();
	if (!s->skel) {
		ret = -errno;
		snprintf(err, errlen, "BPF: cannot open the program: %s", strerror(-ret));
		goto fail;
	}
	s->skel->rodata->nr_devs = nr_devs;
	for (unsigned i = 0; i < nr_devs; i++)
		s->skel->rodata->devs[i] = (major(devs[i]) << 20) | minor(devs[i]);
	s->nr_cpus = libbpf_num_possible_cpus();
	ret = s->nr_cpus < 0 ? s->nr_cpus : s->nr_cpus == 0 ? -ENODEV :
	      bpf_map__set_max_entries(s->skel->maps.rings, (__u32)s->nr_cpus);
	if (ret) {
		snprintf(err, errlen, "BPF: cannot size the per-CPU rings: %s", strerror(-ret));
		goto fail;
	}
	if ((ret = iolatd_bpf__load(s->skel))) {
		snprintf(err, errlen, "BPF: cannot load the program (root and a kernel with BTF are needed): %s",
			 strerror(-ret));
		goto fail;
	}
	if ((ret = iolatd_bpf__attach(s->skel))) {
		snprintf(err, errlen, "BPF: cannot attach to tp_btf/block_rq_complete: %s", strerror(-ret));
		goto fail;
	}
	if ((ret = map_rings(s))) {
		snprintf(err, errlen, "BPF: cannot map the per-CPU rings: %s", strerror(-ret));
		goto fail;
	}
	*out = s;
	return 0;
fail:
	iolatd_bpf_source_close(s);
	return ret < 0 ? ret : -EINVAL;
}

int iolatd_bpf_source_poll(struct bpf_source *s, int timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };

	/* The program wakes nobody: sleep, then drain every CPU's ring. */
	if (timeout_ms > 0 && nanosleep(&ts, NULL) && errno != EINTR)
		return -errno;
	return drain(s);
}

uint64_t iolatd_bpf_source_dropped(const struct bpf_source *s)
{
	uint64_t n = 0;

	for (int c = 0; s && s->rings && c < s->nr_cpus; c++)
		n += __atomic_load_n(&s->rings[c].dropped, __ATOMIC_RELAXED);
	return n;
}

bool iolatd_bpf_source_alive(struct bpf_source *s)
{
	return s && s->skel && s->skel->links.iolatd_rq_complete;
}

void iolatd_bpf_source_close(struct bpf_source *s)
{
	if (!s)
		return;
	if (s->rings)
		munmap(s->rings, s->map_len);
	free(s->batch);
	iolatd_bpf__destroy(s->skel);
	free(s);
}

/* The member's type, through typedefs, qualifiers and arrays. */
static const struct btf_type *base_type(const struct btf *btf, __u32 id)
{
	const struct btf_type *t;
	int r = btf__resolve_type(btf, id);

	if (r < 0 || !(t = btf__type_by_id(btf, (__u32)r)))
		return NULL;
	if (btf_is_array(t))
		return base_type(btf, btf_array(t)->type);
	return t;
}

int iolatd_btf_throttle_carry(const struct btf *btf, char *why, size_t whylen)
{
	int id = btf__find_by_name_kind(btf, "throtl_grp", BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++, m++) {
		const struct btf_type *mt;

		if (strcmp(btf__name_by_offset(btf, m->name_off), "carryover_bytes"))
			continue;
		mt = base_type(btf, m->type);
		if (mt && btf_is_int(mt) && (btf_int_encoding(mt) & BTF_INT_SIGNED)) {
			snprintf(why, whylen, "written at once (the block throttle's carry over a limit change is "
				 "signed: struct throtl_grp.carryover_bytes in the kernel's BTF)");
			return 0;
		}
		snprintf(why, whylen, "lowerings primed, new kinds opened first (the block throttle carries an "
			 "unsigned deficit over a limit change, as Linux 6.1: struct throtl_grp.carryover_bytes in "
			 "the kernel's BTF)");
		return 1;
	}
	snprintf(why, whylen, "written at once (the block throttle keeps no carry of its own over a limit "
		 "change: no struct throtl_grp.carryover_bytes in the kernel's BTF)");
	return 0;
}

int iolatd_bpf_throttle_carry(char *why, size_t whylen)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int ret;

	if (!btf) {
		ret = -errno;
		snprintf(why, whylen, "lowerings primed, new kinds opened first (the kernel's BTF cannot be read: "
			 "%s; staged as for Linux 6.1, to be safe)", strerror(-ret));
		return ret ? ret : -ENOENT;
	}
	ret = iolatd_btf_throttle_carry(btf, why, whylen);
	btf__free(btf);
	return ret;
}

#else /* !CONFIG_HAVE_BPF */

struct bpf_source {
	int unused;
};

bool iolatd_bpf_source_available(void)
{
	return false;
}

int iolatd_bpf_source_open(const dev_t *devs, unsigned nr_devs, bpf_completion_fn fn, void *ctx,
		    struct bpf_source **out, char *err, size_t errlen)
{
	snprintf(err, errlen, "this iolatd was built without BPF: building it needs clang, bpftool, "
		 "libbpf-dev and the kernel's BTF (/sys/kernel/btf/vmlinux)");
	return -EOPNOTSUPP;
}

int iolatd_bpf_source_poll(struct bpf_source *s, int timeout_ms)
{
	return -EOPNOTSUPP;
}

uint64_t iolatd_bpf_source_dropped(const struct bpf_source *s)
{
	return 0;
}

bool iolatd_bpf_source_alive(struct bpf_source *s)
{
	return false;
}

void iolatd_bpf_source_close(struct bpf_source *s)
{
}

int iolatd_bpf_throttle_carry(char *why, size_t whylen)
{
	snprintf(why, whylen, "lowerings primed, new kinds opened first (built without BPF: the kernel's "
		 "BTF is not read)");
	return -EOPNOTSUPP;
}

#endif
