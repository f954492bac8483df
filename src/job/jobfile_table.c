/* SPDX-License-Identifier: MIT */
/*
 * jobfile_table.c - the job file's option table (every key's type, field, range,
 * default and help: the single source) and the names of enum values.
 * Context: any thread; no global state.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iolatency.h"
#include "iolatency_internal.h"   /* iolat_parse_duration_unit() */
#include "job/engines.h"
#include "job/jobfile.h"
#include "job/jobfile_priv.h"
#include "util/units.h"

/* ------------------------------------------------------------------------ */
/* The option table                                                         */

#define JOBF(f)  .off = offsetof(struct iolat_job, f), .fsize = sizeof(((struct iolat_job *)0)->f)
#define GLOBF(f) .off = offsetof(struct iolat_jobfile_global, f), \
		 .fsize = sizeof(((struct iolat_jobfile_global *)0)->f)
#define GRPF(f)  .off = offsetof(struct iolat_jobfile_group, f), \
		 .fsize = sizeof(((struct iolat_jobfile_group *)0)->f)

/* ioflags=: the bits of "meta|swap|none", in that order. */
static const unsigned ioflag_bits[] = { IOLAT_IO_META, IOLAT_IO_SWAP, 0 };

const struct iolat_opt jf_opts[] = {
	/* where the I/O goes */
	{ .name = "filename", .type = IOLAT_OPT_STR, .where = IN_JOBS, JOBF(filename),
	  .help = "file or block device to do I/O on" },
	{ .name = "size", .type = IOLAT_OPT_SIZE, .where = IN_JOBS, JOBF(size),
	  .help = "bytes of the region the job works on (default: the file's size)" },
	{ .name = "offset", .type = IOLAT_OPT_SIZE, .where = IN_JOBS, JOBF(offset), .def = "0",
	  .help = "start of the region in the file" },
	/* the I/O pattern */
	{ .name = "rw", .alias = "readwrite", .type = IOLAT_OPT_ENUM, .where = IN_JOBS, JOBF(rw),
	  .min = IOLAT_RW_READ, .choices = "read|write|randread|randwrite|rw|randrw",
	  .value_aliases = "readwrite=rw", .scen_words = true,
	  .def = "read", .help = "I/O pattern; rw/randrw mix reads and writes by rwmixread (readwrite = rw)" },
	{ .name = "rwmixread", .type = IOLAT_OPT_UINT, .where = IN_JOBS, JOBF(rwmixread),
	  .min = 0, .max = 100, .def = "50", .help = "percent of reads in a mixed workload" },
	{ .name = "bs", .alias = "blocksize", .type = IOLAT_OPT_SIZE, .where = IN_JOBS, JOBF(bs),
	  .min = 1, .max = 64u << 20, .def = "4k", .help = "block size of each I/O" },
	{ .name = "iodepth", .type = IOLAT_OPT_UINT, .where = IN_JOBS, JOBF(iodepth),
	  .min = 1, .max = 65536, .def = "1", .help = "I/Os kept in flight (closed loop)" },
	{ .name = "direct", .type = IOLAT_OPT_BOOL, .where = IN_JOBS, JOBF(direct), .def = "0",
	  .help = "use O_DIRECT (bypass the page cache)" },
	{ .name = "ioengine", .type = IOLAT_OPT_ENGINE, .where = IN_JOBS, JOBF(ioengine),
	  .help = "how I/O is issued (default: uring when available, else psync)" },
	{ .name = "ENGINE.", .type = IOLAT_OPT_ENGOPT, .where = IN_JOBS,
	  .help = "an option of the job's engine, named with the engine and a dot "
	  "(faulty.kind=eio); in [global]: for the jobs below that use that engine. Each:" },
	{ .name = "numjobs", .type = IOLAT_OPT_UINT, .where = IN_JOBS, JOBF(numjobs),
	  .min = 1, .max = 4096, .def = "1", .help = "clones of this job, each with its own stream" },
	{ .name = "verify", .type = IOLAT_OPT_ENUM, .where = IN_JOBS, JOBF(verify),
	  .min = IOLAT_VERIFY_NONE, .choices = "none|crc32c", .value_aliases = "0=none", .def = "none",
	  .help = "write checksummed blocks and check them on read" },
	/* time */
	{ .name = "runtime", .type = IOLAT_OPT_TIME_S, .where = IN_JOBS, JOBF(runtime_ns),
	  .help = "stop after this long (bare number: seconds)" },
	{ .name = "time_based", .type = IOLAT_OPT_BOOL, .where = IN_JOBS, JOBF(time_based), .def = "0",
	  .help = "keep going over the region until runtime has passed" },
	{ .name = "startdelay", .type = IOLAT_OPT_TIME_S, .where = IN_JOBS, JOBF(startdelay_ns),
	  .def = "0", .help = "start this long after the run (bare number: seconds)" },
	{ .name = "thinktime", .type = IOLAT_OPT_TIME_US, .where = IN_JOBS, JOBF(thinktime_ns),
	  .def = "0", .help = "pause after each completion (bare number: microseconds)" },
	{ .name = "rate_iops", .type = IOLAT_OPT_UINT, .where = IN_JOBS, JOBF(rate_iops),
	  .min = 0, .max = 1000000000, .def = "0", .rw_pair = true,
	  .pair_off = offsetof(struct iolat_job, rate_iops_write),
	  .split_off = offsetof(struct iolat_job, rate_split),
	  .help = "open loop: I/Os arrive at this mean rate (per second) whether or not earlier "
	  "ones completed; latency counts from each arrival (0: closed loop); R,W: reads and "
	  "writes apart (rw=rw or randrw)" },
	{ .name = "rate", .type = IOLAT_OPT_RATE, .where = IN_JOBS, JOBF(rate_bps),
	  .max = 1ull << 50, .def = "0",
	  .help = "static bandwidth cap in bytes/s, the io.max way (rate=10m: 10 MiB/s); with "
	  "rate_process=poisson an open-loop arrival rate of rate/bs I/Os per second" },
	{ .name = "rate_process", .type = IOLAT_OPT_ENUM, .where = IN_JOBS, JOBF(rate_process),
	  .min = IOLAT_RATE_LINEAR, .choices = "linear|poisson",
	  .help = "how open-loop arrivals are spaced: linear (evenly) or poisson (exponential "
	  "gaps, seeded); default: poisson for rate_iops, a cap for rate" },
	{ .name = "burst_on", .type = IOLAT_OPT_TIME_S, .where = IN_JOBS, JOBF(burst_on_ns),
	  .def = "0", .help = "on/off cycle: issue for this long... (bare number: seconds)" },
	{ .name = "burst_off", .type = IOLAT_OPT_TIME_S, .where = IN_JOBS, JOBF(burst_off_ns),
	  .def = "0", .help = "...then pause this long (needs burst_on)" },
	/* the controller */
	{ .name = "group", .type = IOLAT_OPT_GROUP, .where = IN_JOBS, JOBF(group),
	  .help = "iolat's group the job's I/O belongs to, a [group:PATH] (default: the root)" },
	{ .name = "cgroup", .type = IOLAT_OPT_CGROUP, .where = IN_JOBS, JOBF(cgroup),
	  .help = "as fio's: the kernel cgroup (v1 blkio or v2) the job's threads run in, under the "
	  "hierarchy's root; created if missing, removed after; iolat run as root only. Not a group: "
	  "that is group=" },
	{ .name = "cgroup_write_bps", .type = IOLAT_OPT_RATE, .where = IN_JOBS, JOBF(cgroup_write_bps),
	  .max = 1ull << 50, .def = "0",
	  .help = "the kernel's block throttle on the job's cgroup=: its writes to the job's disk "
	  "capped at this many bytes/s (v1 blkio.throttle.write_bps_device, v2 io.max wbps) for the "
	  "run, gone after it; a cgroup with a cap on the disk already is refused; 0: none" },
	{ .name = "ioflags", .type = IOLAT_OPT_FLAGS, .where = IN_JOBS, JOBF(ioflags),
	  .choices = "meta|swap|none", .flag_bits = ioflag_bits, .def = "none",
	  .help = "issue as bypass I/O: never waits, charged as delay when throttled" },
	{ .name = "target", .type = IOLAT_OPT_TARGET, .where = IOLAT_OPT_IN_GROUP, GRPF(target_ns),
	  .def = "max", .help = "the group's latency target (5ms, 750us; bare: us; max or 0: none, as "
	  "the kernel's io.latency)" },
	{ .name = "weight", .type = IOLAT_OPT_UINT, .where = IOLAT_OPT_IN_GROUP, GRPF(weight),
	  .min = IOLAT_WEIGHT_MIN, .max = IOLAT_WEIGHT_MAX,
	  .help = "the group's weight, 1-10000 as io.weight's (default 100): active siblings share "
	  "the device in proportion (docs/weights.md); any weight= turns weights on" },
	{ .name = "throttle_bps", .type = IOLAT_OPT_RATE, .where = IOLAT_OPT_IN_GROUP, GRPF(throttle_bps),
	  .def = "0", .help = "iolat sim: a static cap on the group as the kernel's block throttle "
	  "applies it (in throttle_slice slices), bytes/s; 0: none" },
	/* safety: writing to block devices */
	{ .name = "allow_mounted_write", .type = IOLAT_OPT_BOOL, .where = IN_JOBS,
	  JOBF(allow_mounted_write), .def = "0",
	  .help = "1 lets a writing job use a block device that is mounted or held (as fio's)" },
	{ .name = "allow_signature_write", .type = IOLAT_OPT_BOOL, .where = IN_JOBS,
	  JOBF(allow_signature_write), .def = "0",
	  .help = "1 lets a writing job overwrite a device that holds a filesystem, RAID, LVM, "
	  "LUKS, swap or partition-table signature" },
	/* fio's, accepted for familiarity */
	{ .name = "name", .type = IOLAT_OPT_JOBNAME, .where = IOLAT_OPT_IN_JOB, JOBF(name),
	  .help = "the job's name in reports (default: its section name)" },
	{ .name = "ramp_time", .type = IOLAT_OPT_TIME_S, .where = IOLAT_OPT_IN_GLOBAL, GLOBF(ramp_ns),
	  .def = "0", .help = "run this long before runtime starts; its I/O is left out of the "
	  "report" },
	{ .name = "randrepeat", .type = IOLAT_OPT_BOOL, .where = IN_JOBS, JOBF(randrepeat),
	  .def = "1", .help = "always 1: the same seed= gives the same offsets (fio's default)" },
	{ .name = "norandommap", .type = IOLAT_OPT_BOOL, .where = IN_JOBS, JOBF(norandommap),
	  .def = "1", .help = "always 1: random offsets are drawn independently, no block map" },
	{ .name = "percentile_list", .type = IOLAT_OPT_PCTLIST, .where = IOLAT_OPT_IN_GLOBAL,
	  GLOBF(percentiles), .help = "extra latency percentiles for the JSON, e.g. 99.5:99.99" },
	/* device and controller ([global] only) */
	{ .name = "device", .type = IOLAT_OPT_ENUM, .where = IOLAT_OPT_IN_GLOBAL, GLOBF(device),
	  .min = IOLAT_DEVICE_SSD, .choices = "ssd|hdd|bad-ssd|vdisk",
	  .help = "simulated device model (iolat sim)" },
	{ .name = "nr_requests", .type = IOLAT_OPT_UINT, .where = IOLAT_OPT_IN_GLOBAL,
	  GLOBF(nr_requests), .min = 1, .max = 65536,
	  .help = "device queue depth the controller scales from (default 64)" },
	{ .name = "rotational", .type = IOLAT_OPT_BOOL, .where = IOLAT_OPT_IN_GLOBAL,
	  GLOBF(rotational), .help = "1: HDD (mean rule in article and kernel), 0: SSD (p90 rule); default: the device's" },
	{ .name = "control", .type = IOLAT_OPT_BOOL, .where = IOLAT_OPT_IN_GLOBAL, GLOBF(control),
	  .value_words = "article|kernel|adaptive",   /* the core's modes in their order, from 1
						       * (iolat_ctl_mode_name(); test_mode checks) */
	  .words_off = offsetof(struct iolat_jobfile_global, mode), .def = "1", .help = "0: no controller (baseline); article|kernel|adaptive: its behaviour" },
	{ .name = "kernel_compat", .type = IOLAT_OPT_BOOL, .where = IOLAT_OPT_IN_GLOBAL,
	  GLOBF(kernel_compat), .def = "0",
	  .help = "reproduce the kernel's timer and HDD-mean behaviour exactly" },
	{ .name = "seed", .type = IOLAT_OPT_UINT, .where = IOLAT_OPT_IN_GLOBAL, GLOBF(seed),
	  .min = 0, .max = UINT64_MAX, .def = "1", .help = "random seed of the workloads and the simulator",
	  .has_given = true, .given_off = offsetof(struct iolat_jobfile_global, seed_set) },
	{ .name = "throttle_slice", .type = IOLAT_OPT_TIME_US, .where = IOLAT_OPT_IN_GLOBAL,
	  GLOBF(throttle_slice_ns), .def = "0", .max = 10ull * NSEC_PER_SEC,
	  .help = "iolat sim: the kernel-throttle plant releases a limited group's budget per "
	  "slice this long, in clumps (v1: 100ms); 0: smoothly. This key, actuate_* or "
	  "throttle_bps turn the plant on in place of the pace gate" },
	{ .name = "actuate_period", .type = IOLAT_OPT_TIME_US, .where = IOLAT_OPT_IN_GLOBAL,
	  GLOBF(actuate_period_ns), .def = "0", .max = 10ull * NSEC_PER_SEC,
	  .help = "iolat sim: the plant reads the adaptive rate and writes it as the group's "
	  "throttle limit this often (iolatd's round: 100ms); 0: every 1ms" },
	{ .name = "actuate_delay", .type = IOLAT_OPT_TIME_US, .where = IOLAT_OPT_IN_GLOBAL,
	  GLOBF(actuate_delay_ns), .def = "0", .max = 10ull * NSEC_PER_SEC,
	  .help = "iolat sim: a written limit takes effect this much later" },
	{ .name = "hdd_", .type = IOLAT_OPT_PARAM, .where = IOLAT_OPT_IN_GLOBAL,
	  .help = "HDD model parameters (checked by iolat sim)" },
	{ .name = "ssd_", .type = IOLAT_OPT_PARAM, .where = IOLAT_OPT_IN_GLOBAL,
	  .help = "SSD model parameters (checked by iolat sim)" },
	{ .name = "badssd_", .type = IOLAT_OPT_PARAM, .where = IOLAT_OPT_IN_GLOBAL,
	  .help = "bad-SSD model parameters (checked by iolat sim)" },
	{ .name = "vdisk_", .type = IOLAT_OPT_PARAM, .where = IOLAT_OPT_IN_GLOBAL,
	  .help = "VM disk model parameters (checked by iolat sim)" },
	{ .name = NULL },
};

#define NR_TABLE (sizeof(jf_opts) / sizeof(jf_opts[0]) - 1)
_Static_assert(NR_TABLE <= IOLAT_JOB_MAX_KEYS, "struct iolat_job's key_line[] is too small");
const size_t jf_nr_opts = NR_TABLE;

const struct iolat_opt *iolat_jobfile_options(void)
{
	return jf_opts;
}

/* ------------------------------------------------------------------------ */
/* Names                                                                    */

static const char *const rw_names[] = { "read", "write", "randread", "randwrite", "rw", "randrw" };

const char *iolat_rw_name(enum iolat_rw rw)
{
	return (unsigned)rw < sizeof(rw_names) / sizeof(rw_names[0]) ? rw_names[rw] : "?";
}

const char *iolat_device_name(enum iolat_device_kind d)
{
	switch (d) {
	case IOLAT_DEVICE_DEFAULT: return "";
	case IOLAT_DEVICE_SSD:     return "ssd";
	case IOLAT_DEVICE_HDD:     return "hdd";
	case IOLAT_DEVICE_BAD_SSD: return "bad-ssd";
	case IOLAT_DEVICE_VDISK:   return "vdisk";
	}
	return "?";
}

bool iolat_rw_is_random(enum iolat_rw rw)
{
	return rw == IOLAT_RW_RANDREAD || rw == IOLAT_RW_RANDWRITE || rw == IOLAT_RW_RANDRW;
}

bool iolat_rw_is_mixed(enum iolat_rw rw)
{
	return rw == IOLAT_RW_RW || rw == IOLAT_RW_RANDRW;
}

bool iolat_rw_has_write(enum iolat_rw rw)
{
	return rw != IOLAT_RW_READ && rw != IOLAT_RW_RANDREAD;
}

/* Whether @o is an entry of the job table (else a scenario's). */
bool jf_is_table_opt(const struct iolat_opt *o)
{
	return o >= jf_opts && o < jf_opts + jf_nr_opts;
}
