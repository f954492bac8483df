/* SPDX-License-Identifier: MIT */
/*
 * Job-file parser: fio's INI dialect ([global], one section a job, key=value,
 * ';'/'#' comments, bare boolean keys) plus [group:PATH] sections. Table-driven:
 * opts[] below gives every key's type, field, range, default and help; the
 * defaults themselves are applied by parsing their text, so the table is the
 * single source. Works on (pointer, length) slices: no fixed line buffer, NULs
 * and over-long lines are errors, never overflows. Owns struct iolat_jobfile's
 * memory. Does not know about engines or devices beyond their names.
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
#include "util/units.h"
#include "job/suggest.h"

#define MAX_FILE_BYTES  (16u << 20)   /* parse_file() refuses larger files */
#define MAX_JOBS        4096u
#define MAX_GROUPS      1024u          /* the controller's default arena */
#define MAX_PARAMS      1024u
#define MAX_KEY_LEN     63u
#define MAX_VALUE_LEN   4095u
#define MAX_ECHO        40u            /* bytes of user text echoed in a message */
#define MAX_FILE_ECHO   200u           /* bytes of a file name in a message */

/* ------------------------------------------------------------------------ */
/* The option table                                                         */

#define JOBF(f)  .off = offsetof(struct iolat_job, f), .fsize = sizeof(((struct iolat_job *)0)->f)
#define GLOBF(f) .off = offsetof(struct iolat_jobfile_global, f), \
		 .fsize = sizeof(((struct iolat_jobfile_global *)0)->f)
#define GRPF(f)  .off = offsetof(struct iolat_jobfile_group, f), \
		 .fsize = sizeof(((struct iolat_jobfile_group *)0)->f)
#define IN_JOBS  (IOLAT_OPT_IN_GLOBAL | IOLAT_OPT_IN_JOB)

static const struct iolat_jobopt opts[] = {
	/* where the I/O goes */
	{ .name = "filename", .type = IOLAT_OPT_STR, .where = IN_JOBS, JOBF(filename),
	  .help = "file or block device to do I/O on" },
	{ .name = "size", .type = IOLAT_OPT_SIZE, .where = IN_JOBS, JOBF(size),
	  .help = "bytes of the region the job works on (default: the file's size)" },
	{ .name = "offset", .type = IOLAT_OPT_SIZE, .where = IN_JOBS, JOBF(offset), .def = "0",
	  .help = "start of the region in the file" },
	/* the I/O pattern */
	{ .name = "rw", .alias = "readwrite", .type = IOLAT_OPT_ENUM, .where = IN_JOBS, JOBF(rw),
	  .min = IOLAT_RW_READ, .choices = "read|write|randread|randwrite|rw|randrw|hashd|memhog|bgservice",
	  .def = "read", .help = "I/O pattern; rw/randrw mix reads and writes by rwmixread (readwrite = rw); "
	  "hashd, memhog, bgservice: the leaking-service scenario (iolat sim)" },
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
	{ .name = "numjobs", .type = IOLAT_OPT_UINT, .where = IN_JOBS, JOBF(numjobs),
	  .min = 1, .max = 4096, .def = "1", .help = "clones of this job, each with its own stream" },
	{ .name = "verify", .type = IOLAT_OPT_ENUM, .where = IN_JOBS, JOBF(verify),
	  .min = IOLAT_VERIFY_NONE, .choices = "none|crc32c", .def = "none",
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
	  .min = 0, .max = 1000000000, .def = "0",
	  .help = "open loop: Poisson arrivals at this mean rate (I/Os per second)" },
	{ .name = "rate", .type = IOLAT_OPT_RATE, .where = IN_JOBS, JOBF(rate_bps),
	  .max = 1ull << 50, .def = "0",
	  .help = "static bandwidth cap in bytes/s, the io.max way (rate=10m: 10 MiB/s)" },
	{ .name = "burst_on", .type = IOLAT_OPT_TIME_S, .where = IN_JOBS, JOBF(burst_on_ns),
	  .def = "0", .help = "on/off cycle: issue for this long... (bare number: seconds)" },
	{ .name = "burst_off", .type = IOLAT_OPT_TIME_S, .where = IN_JOBS, JOBF(burst_off_ns),
	  .def = "0", .help = "...then pause this long (needs burst_on)" },
	/* the controller */
	{ .name = "group", .alias = "cgroup", .type = IOLAT_OPT_GROUP, .where = IN_JOBS, JOBF(group),
	  .help = "group path the job's I/O belongs to (default: the root)" },
	{ .name = "ioflags", .type = IOLAT_OPT_IOFLAGS, .where = IN_JOBS, JOBF(ioflags),
	  .choices = "meta|swap|none", .def = "none",
	  .help = "issue as bypass I/O: never waits, charged as delay when throttled" },
	{ .name = "target", .type = IOLAT_OPT_TARGET, .where = IOLAT_OPT_IN_GROUP, GRPF(target_ns),
	  .def = "max", .help = "the group's latency target (5ms, 750us; bare: us; max or 0: none, as "
	  "the kernel's io.latency)" },
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
	  .min = IOLAT_DEVICE_SSD, .choices = "ssd|hdd|bad-ssd",
	  .help = "simulated device model (iolat sim)" },
	{ .name = "nr_requests", .type = IOLAT_OPT_UINT, .where = IOLAT_OPT_IN_GLOBAL,
	  GLOBF(nr_requests), .min = 1, .max = 65536,
	  .help = "device queue depth the controller scales from (default 64)" },
	{ .name = "rotational", .type = IOLAT_OPT_BOOL, .where = IOLAT_OPT_IN_GLOBAL,
	  GLOBF(rotational), .help = "1: HDD mean rule, 0: SSD p90 rule (default: from the device)" },
	{ .name = "control", .type = IOLAT_OPT_BOOL, .where = IOLAT_OPT_IN_GLOBAL, GLOBF(control),
	  .def = "1", .help = "0: no controller (baseline); article|kernel|adaptive: its behaviour" },
	{ .name = "kernel_compat", .type = IOLAT_OPT_BOOL, .where = IOLAT_OPT_IN_GLOBAL,
	  GLOBF(kernel_compat), .def = "0",
	  .help = "reproduce the kernel's timer and HDD-mean behaviour exactly" },
	{ .name = "seed", .type = IOLAT_OPT_UINT, .where = IOLAT_OPT_IN_GLOBAL, GLOBF(seed),
	  .min = 0, .max = UINT64_MAX, .def = "1", .help = "random seed of the workloads and the simulator" },
	{ .name = "hdd_", .type = IOLAT_OPT_PARAM, .where = IOLAT_OPT_IN_GLOBAL,
	  .help = "HDD model parameters (checked by iolat sim)" },
	{ .name = "ssd_", .type = IOLAT_OPT_PARAM, .where = IOLAT_OPT_IN_GLOBAL,
	  .help = "SSD model parameters (checked by iolat sim)" },
	{ .name = "badssd_", .type = IOLAT_OPT_PARAM, .where = IOLAT_OPT_IN_GLOBAL,
	  .help = "bad-SSD model parameters (checked by iolat sim)" },
	/* the leaking-service scenario (rw=hashd/memhog/bgservice; docs/memleak-model.md) */
	{ .name = "memory", .type = IOLAT_OPT_SIZE, .where = IOLAT_OPT_IN_GLOBAL, GLOBF(memory),
	  .help = "leaking service: the machine's memory (default 16g)" },
	{ .name = "swap", .type = IOLAT_OPT_SIZE, .where = IOLAT_OPT_IN_GLOBAL, GLOBF(swap),
	  .help = "leaking service: swap on the simulated disk (default 8g)" },
	{ .name = "memleak_mode", .type = IOLAT_OPT_ENUM, .where = IOLAT_OPT_IN_GLOBAL,
	  GLOBF(memleak_mode), .min = 0, .choices = "none|block|full|stock|nobypass", .def = "full",
	  .help = "leaking service: io.latency off, block side, block + memory side, stock, no bypass" },
	{ .name = "oomd", .type = IOLAT_OPT_ENUM, .where = IOLAT_OPT_IN_GLOBAL, GLOBF(oomd),
	  .min = 0, .choices = "off|fb2018|resctl|desktop", .def = "fb2018",
	  .help = "leaking service: the oomd preset" },
	{ .name = "memory_low", .type = IOLAT_OPT_SIZE, .where = IOLAT_OPT_IN_GROUP, GRPF(memory_low),
	  .help = "leaking service: memory.low of workload (default 75% of the web's footprint)" },
	{ .name = "rps", .type = IOLAT_OPT_UINT, .where = IN_JOBS, JOBF(rps), .min = 1, .max = 100000,
	  .def = "200", .help = "rw=hashd: requests per second (Poisson)" },
	{ .name = "speed", .type = IOLAT_OPT_UINT, .where = IN_JOBS, JOBF(speed_pct), .min = 1,
	  .max = 10000, .def = "200", .help = "rw=memhog: leak rate, % of the disk's write bandwidth" },
	{ .name = NULL },
};

#define NR_OPTS (sizeof(opts) / sizeof(opts[0]) - 1)
_Static_assert(NR_OPTS <= IOLAT_JOB_MAX_KEYS, "struct iolat_job's key_line[] is too small");

const struct iolat_jobopt *iolat_jobfile_options(void)
{
	return opts;
}

/* ------------------------------------------------------------------------ */
/* Names                                                                    */

static const char *const rw_names[] = { "read", "write", "randread", "randwrite", "rw", "randrw",
					"hashd", "memhog", "bgservice" };

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

/* ------------------------------------------------------------------------ */
/* Value parsers                                                            */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool word_eq(const char *a, const char *b)   /* case-insensitive */
{
	while (*a && *b && lower(*a) == lower(*b)) {
		a++;
		b++;
	}
	return *a == '\0' && *b == '\0';
}

/*
 * A decimal number with an optional fraction: "12", "1.5". Stores the integer
 * part, the fraction digits (at most 9, the rest ignored) as a numerator over
 * 10^*frac_digits, and the end. -EINVAL if no digit, -ERANGE on overflow.
 */
static int parse_decimal(const char *s, uint64_t *ip, uint64_t *frac, unsigned *frac_digits,
			 const char **end)
{
	uint64_t v = 0, f = 0;
	unsigned nf = 0;
	bool any = false;

	while (is_digit(*s)) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		s++;
		any = true;
	}
	if (*s == '.') {
		s++;
		while (is_digit(*s)) {
			if (nf < 9) {
				f = f * 10 + (uint64_t)(*s - '0');
				nf++;
			}
			s++;
			any = true;
		}
	}
	if (!any)
		return -EINVAL;
	*ip = v;
	*frac = f;
	*frac_digits = nf;
	*end = s;
	return 0;
}

/* v = ip * mult + frac * mult / 10^nf, checked. */
static int scale_decimal(uint64_t ip, uint64_t frac, unsigned nf, uint64_t mult, uint64_t *out)
{
	uint64_t pow10 = 1;

	if (mult && ip > UINT64_MAX / mult)
		return -ERANGE;
	uint64_t v = ip * mult;
	for (unsigned i = 0; i < nf; i++)
		pow10 *= 10;
	/* frac < 10^9 and mult may be large: split mult to avoid overflow */
	uint64_t fq = mult / pow10, fr = mult % pow10;
	uint64_t add = frac * fq + (frac * fr) / pow10;
	if (frac && fq && frac > UINT64_MAX / fq)
		return -ERANGE;
	if (v > UINT64_MAX - add)
		return -ERANGE;
	*out = v + add;
	return 0;
}

int iolat_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t ip, frac, mult = 1, v;
	unsigned nf;
	const char *p;

	if (!s || !bytes)
		return -EINVAL;
	if (parse_decimal(s, &ip, &frac, &nf, &p))
		return -EINVAL;
	if (*p) {
		switch (lower(*p)) {
		case 'b': mult = 1; break;
		case 'k': mult = 1ull << 10; break;
		case 'm': mult = 1ull << 20; break;
		case 'g': mult = 1ull << 30; break;
		case 't': mult = 1ull << 40; break;
		case 'p': mult = 1ull << 50; break;
		default: return -EINVAL;
		}
		const char *rest = p + 1;
		if (mult == 1) {
			if (*rest)
				return -EINVAL;
		} else if (*rest && !word_eq(rest, "b") && !word_eq(rest, "ib")) {
			return -EINVAL;
		}
	}
	if (scale_decimal(ip, frac, nf, mult, &v))
		return -EINVAL;
	*bytes = v;
	return 0;
}

static int parse_uint(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!is_digit(*s))
		return -EINVAL;
	for (; is_digit(*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (*s)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	for (size_t i = 0; i < 4; i++) {
		if (word_eq(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (word_eq(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* Position of @word in the '|'-separated @choices, or -1. */
static int choice_index(const char *choices, const char *word)
{
	int idx = 0;
	size_t wl = strlen(word);

	for (const char *c = choices; *c; idx++) {
		const char *bar = strchr(c, '|');
		size_t n = bar ? (size_t)(bar - c) : strlen(c);
		if (n == wl && strncmp(c, word, n) == 0)
			return idx;
		if (!bar)
			break;
		c = bar + 1;
	}
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Parser state and messages                                                */

enum section { SEC_NONE, SEC_GLOBAL, SEC_JOB, SEC_GROUP };

struct parser {
	struct iolat_jobfile *jf;
	char *err;
	size_t errlen;
	unsigned line;
	enum section sec;
	struct iolat_job defaults;       /* [global] values so far */
	unsigned def_lines[NR_OPTS];     /* line each default was set at (0: built-in) */
	unsigned cur_lines[NR_OPTS];     /* same for the current job */
	int cur_group;                   /* SEC_GROUP: the group */
	unsigned cap_jobs, cap_groups, cap_params;
};

/* Copy user text for a message: printable ASCII only, at most @max bytes. */
static void echo_max(char *dst, size_t dlen, const char *s, size_t n, size_t max)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 4 < dlen; i++) {
		if (i == max) {
			memcpy(dst + o, "...", 3);
			o += 3;
			break;
		}
		unsigned char c = (unsigned char)s[i];
		dst[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	dst[o] = '\0';
}

static void echo(char *dst, size_t dlen, const char *s, size_t n)
{
	echo_max(dst, dlen, s, n, MAX_ECHO);
}

__attribute__((format(printf, 4, 5)))
static int perr(struct parser *p, unsigned line, const char *key, const char *fmt, ...)
{
	char msg[256], k[MAX_ECHO + 8];
	va_list ap;

	if (!p->err || !p->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (key) {
		echo(k, sizeof(k), key, strlen(key));
		snprintf(p->err, p->errlen, "%s:%u: key '%s': expected %s", p->jf->file, line, k, msg);
	} else {
		snprintf(p->err, p->errlen, "%s:%u: %s", p->jf->file, line, msg);
	}
	return -EINVAL;
}

static int oom(struct parser *p)
{
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "%s:%u: out of memory", p->jf->file, p->line);
	return -ENOMEM;
}

static int grow(void **arr, unsigned *cap, unsigned need, size_t elem)
{
	if (need <= *cap)
		return 0;
	unsigned ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	void *n = realloc(*arr, (size_t)ncap * elem);
	if (!n)
		return -ENOMEM;
	memset((char *)n + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
	*arr = n;
	*cap = ncap;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Groups                                                                   */

static bool group_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
	       c == '_' || c == '-' || c == '.' || c == '@' || c == '+' || c == ':';
}

/*
 * Check a group path: components of 1..63 bytes of [A-Za-z0-9_.@+:-], not
 * "." or "..", separated by single '/', with no '/' before the first or after
 * the last (every empty component is refused alike: "/a", "a/", "a//b").
 * Writes the path to @out. "/" alone is the root (returns 1).
 */
static int normalise_group_path(const char *s, char *out, size_t outlen, const char **why)
{
	size_t n = strlen(s);

	if (n == 1 && s[0] == '/')
		return 1;
	if (n == 0) {
		*why = "a group path like main or system/fbpkg";
		return -EINVAL;
	}
	if (s[0] == '/' || s[n - 1] == '/') {
		*why = "a group path without a leading or trailing '/' (like system/fbpkg)";
		return -EINVAL;
	}
	if (n >= outlen) {
		*why = "a group path shorter than 256 bytes";
		return -EINVAL;
	}
	size_t comp = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == '/') {
			if (comp == 0) {
				*why = "a group path without empty components (no '//')";
				return -EINVAL;
			}
			if (comp >= IOLAT_GROUP_NAME_MAX) {
				*why = "group names of at most 63 bytes";
				return -EINVAL;
			}
			if ((comp == 1 && s[i - 1] == '.') ||
			    (comp == 2 && s[i - 1] == '.' && s[i - 2] == '.')) {
				*why = "group names other than '.' and '..'";
				return -EINVAL;
			}
			comp = 0;
			continue;
		}
		if (!group_char_ok(s[i])) {
			*why = "a group path of letters, digits and _ . - @ + : separated by '/'";
			return -EINVAL;
		}
		comp++;
	}
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

int iolat_jobfile_find_group(const struct iolat_jobfile *jf, const char *path)
{
	if (!jf || !path)
		return -EINVAL;
	for (unsigned i = 0; i < jf->nr_groups; i++)
		if (strcmp(jf->groups[i].path, path) == 0)
			return (int)i;
	return -ENOENT;
}

/* Find or create the group at normalised @path, creating parents; returns its index. */
static int get_group(struct parser *p, const char *path, unsigned line, const char *key)
{
	struct iolat_jobfile *jf = p->jf;
	int parent = IOLAT_GROUP_ROOT;
	size_t n = strlen(path);

	for (size_t i = 0; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		char prefix[IOLAT_GROUP_PATH_MAX];
		memcpy(prefix, path, i);
		prefix[i] = '\0';
		int idx = iolat_jobfile_find_group(jf, prefix);
		if (idx < 0) {
			if (jf->nr_groups >= MAX_GROUPS)
				return key ? perr(p, line, key, "at most %u groups", MAX_GROUPS) :
					     perr(p, line, NULL, "expected at most %u groups", MAX_GROUPS);
			if (grow((void **)&jf->groups, &p->cap_groups, jf->nr_groups + 1,
				 sizeof(*jf->groups)))
				return oom(p);
			struct iolat_jobfile_group *g = &jf->groups[jf->nr_groups];
			memset(g, 0, sizeof(*g));
			memcpy(g->path, prefix, i + 1);
			g->parent = parent;
			g->line = line;
			idx = (int)jf->nr_groups++;
		}
		parent = idx;
	}
	return parent;
}

/* ------------------------------------------------------------------------ */
/* Applying one key                                                         */

static const struct iolat_jobopt *find_opt(const char *key)
{
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct iolat_jobopt *o = &opts[i];
		if (o->type == IOLAT_OPT_PARAM) {
			size_t pl = strlen(o->name);
			if (strncmp(key, o->name, pl) == 0 && key[pl])
				return o;
			continue;
		}
		if (strcmp(key, o->name) == 0 || (o->alias && strcmp(key, o->alias) == 0))
			return o;
	}
	return NULL;
}

static void store_uint(void *base, const struct iolat_jobopt *o, uint64_t v)
{
	char *f = (char *)base + o->off;

	switch (o->fsize) {
	case 1: { bool b = v != 0; memcpy(f, &b, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(f, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(f, &x, 4); break; }
	default: memcpy(f, &v, 8); break;
	}
}

static const char *size_hint(const struct iolat_jobopt *o)
{
	return o->type == IOLAT_OPT_RATE ? "a rate in bytes/s like 500k, 10m" :
					   "a size like 4k, 1m, 2g or bytes";
}

static int set_engine(struct parser *p, struct iolat_job *job, const char *key, const char *v)
{
	const char *engine, *wrapper;
	char list[160];

	if (iolat_job_engine_parse(v, &engine, &wrapper) == 0 && strlen(v) < sizeof(job->ioengine)) {
		strcpy(job->ioengine, v);
		job->engine = engine;
		job->engine_wrapper = wrapper;
		return 0;
	}
	iolat_job_engine_choices(list, sizeof(list), ", ");
	return perr(p, p->line, key, "one of %s", list);
}

static int set_ioflags(struct parser *p, unsigned *flags, const char *key, const char *v)
{
	unsigned f = 0;
	const char *s = v;

	while (*s) {
		const char *e = s;
		while (*e && *e != '|' && *e != ',')
			e++;
		size_t n = (size_t)(e - s);
		if (n == 4 && strncmp(s, "meta", 4) == 0)
			f |= IOLAT_IO_META;
		else if (n == 4 && strncmp(s, "swap", 4) == 0)
			f |= IOLAT_IO_SWAP;
		else if (!(n == 4 && strncmp(s, "none", 4) == 0))
			return perr(p, p->line, key, "meta, swap, meta|swap or none");
		s = *e ? e + 1 : e;
		if (*e && !*s)
			return perr(p, p->line, key, "meta, swap, meta|swap or none");
	}
	*flags = f;
	return 0;
}

static int set_param(struct parser *p, const char *key, const char *v)
{
	struct iolat_jobfile *jf = p->jf;
	struct iolat_jobfile_param *pa = NULL;

	if (strlen(key) >= IOLAT_PARAM_KEY_MAX)
		return perr(p, p->line, key, "a key of at most %u bytes", IOLAT_PARAM_KEY_MAX - 1);
	if (!*v || strlen(v) >= IOLAT_PARAM_VAL_MAX)
		return perr(p, p->line, key, "a value of 1 to %u bytes", IOLAT_PARAM_VAL_MAX - 1);
	for (unsigned i = 0; i < jf->nr_params; i++)
		if (strcmp(jf->params[i].key, key) == 0)
			pa = &jf->params[i];     /* set again: the last value wins */
	if (!pa) {
		if (jf->nr_params >= MAX_PARAMS)
			return perr(p, p->line, key, "at most %u device parameters", MAX_PARAMS);
		if (grow((void **)&jf->params, &p->cap_params, jf->nr_params + 1, sizeof(*pa)))
			return oom(p);
		pa = &jf->params[jf->nr_params++];
		strcpy(pa->key, key);
	}
	strcpy(pa->value, v);
	pa->line = p->line;
	return 0;
}

/* fio's name=: a new name for the job, same rules as a section name. */
static int set_job_name(struct parser *p, struct iolat_job *job, const char *key, const char *v)
{
	size_t n = strlen(v);

	if (!n || n >= IOLAT_JOB_NAME_MAX)
		return perr(p, p->line, key, "a name of 1 to %u bytes", IOLAT_JOB_NAME_MAX - 1);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] == 0x7f)
			return perr(p, p->line, key, "a name of printable characters");
	memcpy(job->name, v, n + 1);
	return 0;
}

/* fio's percentile_list: "99.5:99.9" (0 < each <= 100), at most 16. */
static int set_percentiles(struct parser *p, struct iolat_jobfile_global *g, const char *key,
			   const char *v)
{
	char got[MAX_ECHO + 8];
	unsigned n = 0;
	const char *s = v;

	echo(got, sizeof(got), v, strlen(v));
	while (*s) {
		char *end;
		double d = strtod(s, &end);

		if (end == s || (*end && *end != ':') || !(d > 0 && d <= 100) ||
		    n == IOLAT_MAX_PERCENTILES)
			return perr(p, p->line, key, "up to %u percentiles in (0, 100] separated by "
				    "':' like 99.5:99.99 (got '%s')", IOLAT_MAX_PERCENTILES, got);
		g->percentiles[n++] = d;
		s = *end ? end + 1 : end;
		if (*end && !*s)
			return perr(p, p->line, key, "a percentile after the last ':' (got '%s')", got);
	}
	if (!n)
		return perr(p, p->line, key, "at least one percentile like 99.9");
	g->nr_percentiles = n;
	return 0;
}

/*
 * Apply @key = @v (@v NULL: bare key) of option @o to @base (a job, the
 * global struct or a group, by o->where). Built-in defaults use line 0.
 */
static int apply(struct parser *p, const struct iolat_jobopt *o, void *base,
		 const char *key, const char *v)
{
	uint64_t x = 0;
	const char *hint = "";
	char got[MAX_ECHO + 8];

	if (!v) {
		if (o->type != IOLAT_OPT_BOOL)
			return perr(p, p->line, key, "a value (%s=...)", o->name);
		v = "1";
	}
	echo(got, sizeof(got), v, strlen(v));

	switch (o->type) {
	case IOLAT_OPT_STR: {
		char **f = (char **)((char *)base + o->off);
		if (!*v)
			return perr(p, p->line, key, "a non-empty value");
		char *d = strdup(v);
		if (!d)
			return oom(p);
		free(*f);
		*f = d;
		return 0;
	}
	case IOLAT_OPT_SIZE:
	case IOLAT_OPT_RATE:
		hint = size_hint(o);
		if (strchr(v, ','))
			return perr(p, p->line, key, "one value (separate read,write values are not supported)");
		if (iolat_parse_size(v, &x))
			return perr(p, p->line, key, "%s (got '%s')", hint, got);
		break;
	case IOLAT_OPT_TIME_S:
		hint = "a duration like 30s, 500ms, 2m (bare number: seconds)";
		if (iolat_parse_duration_unit(v, NSEC_PER_SEC, &x))
			return perr(p, p->line, key, "%s (got '%s')", hint, got);
		break;
	case IOLAT_OPT_TIME_US:
		hint = "a duration like 100us, 2ms (bare number: microseconds)";
		if (iolat_parse_duration_unit(v, NSEC_PER_USEC, &x))
			return perr(p, p->line, key, "%s (got '%s')", hint, got);
		break;
	case IOLAT_OPT_TARGET:
		hint = "a latency target like 5ms, 750us or max";
		if (iolat_parse_duration(v, &x))
			return perr(p, p->line, key, "%s (got '%s')", hint, got);
		break;
	case IOLAT_OPT_BOOL: {
		bool b;
		if (strcmp(o->name, "control") == 0 && iolat_mode_parse(v)) {
			/* control=MODE: on, with that behaviour */
			((struct iolat_jobfile_global *)base)->mode = iolat_mode_parse(v);
			v = "1";
		}
		if (parse_bool(v, &b))
			return perr(p, p->line, key, "%s (got '%s')",
				    strcmp(o->name, "control") ? "0 or 1" :
				    "0, 1, article, kernel or adaptive", got);
		store_uint(base, o, b);
		return 0;
	}
	case IOLAT_OPT_UINT: {
		int r = parse_uint(v, &x);
		if (r == -ERANGE || (r == 0 && (x < o->min || x > o->max)))
			return perr(p, p->line, key, "an integer from %llu to %llu (got '%s')",
				    (unsigned long long)o->min, (unsigned long long)o->max, got);
		if (r)
			return perr(p, p->line, key, "an integer (got '%s')", got);
		store_uint(base, o, x);
		return 0;
	}
	case IOLAT_OPT_ENUM: {
		int idx = choice_index(o->choices, v);
		if (idx < 0 && strcmp(o->name, "verify") == 0 && strcmp(v, "0") == 0)
			idx = IOLAT_VERIFY_NONE;
		if (idx < 0 && strcmp(o->name, "rw") == 0 && strcmp(v, "readwrite") == 0)
			idx = IOLAT_RW_RW;
		if (idx < 0) {
			char list[128];
			snprintf(list, sizeof(list), "%s", o->choices);
			for (char *c = list; *c; c++)
				if (*c == '|')
					*c = ',';
			return perr(p, p->line, key, "one of %s (got '%s')", list, got);
		}
		store_uint(base, o, o->min + (uint64_t)idx);
		return 0;
	}
	case IOLAT_OPT_ENGINE:
		return set_engine(p, (struct iolat_job *)base, key, v);
	case IOLAT_OPT_GROUP: {
		char path[IOLAT_GROUP_PATH_MAX];
		const char *why = NULL;
		int r = normalise_group_path(v, path, sizeof(path), &why);
		if (r < 0)
			return perr(p, p->line, key, "%s (got '%s')", why, got);
		int gi = IOLAT_GROUP_ROOT;
		if (r == 0) {
			gi = get_group(p, path, p->line, key);
			if (gi < 0)
				return gi;
		}
		store_uint(base, o, (uint64_t)(int64_t)gi);
		return 0;
	}
	case IOLAT_OPT_IOFLAGS:
		return set_ioflags(p, (unsigned *)((char *)base + o->off), key, v);
	case IOLAT_OPT_PARAM:
		return set_param(p, key, v);
	case IOLAT_OPT_JOBNAME:
		return set_job_name(p, (struct iolat_job *)base, key, v);
	case IOLAT_OPT_PCTLIST:
		return set_percentiles(p, (struct iolat_jobfile_global *)base, key, v);
	}
	if (o->max && x > o->max)
		return perr(p, p->line, key, "%s of at most %llu (got '%s')", hint,
			    (unsigned long long)o->max, got);
	if (x < o->min)
		return perr(p, p->line, key, "%s of at least %llu (got '%s')", hint,
			    (unsigned long long)o->min, got);
	store_uint(base, o, x);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Sections                                                                 */

static size_t opt_index(const struct iolat_jobopt *o)
{
	return (size_t)(o - opts);
}

static unsigned key_line(struct parser *p, const char *name)
{
	const struct iolat_jobopt *o = find_opt(name);
	unsigned l = o ? p->cur_lines[opt_index(o)] : 0;
	return l ? l : p->jf->jobs[p->jf->nr_jobs - 1].line;
}

/* Checks across keys of the job just finished. */
static int finish_job(struct parser *p)
{
	struct iolat_job *j;

	if (p->sec != SEC_JOB)
		return 0;
	j = &p->jf->jobs[p->jf->nr_jobs - 1];
	memcpy(j->key_line, p->cur_lines, sizeof(p->cur_lines));
	if (!j->randrepeat)
		return perr(p, key_line(p, "randrepeat"), "randrepeat",
			    "1: a seed always repeats its offsets here; for another sequence "
			    "give seed= another value");
	if (!j->norandommap)
		return perr(p, key_line(p, "norandommap"), "norandommap",
			    "1: iolat keeps no random map (offsets are drawn independently, as "
			    "fio's norandommap=1)");
	if (j->time_based && !j->runtime_ns)
		return perr(p, key_line(p, "time_based"), "time_based", "a runtime as well");
	if (j->size && j->size < j->bs)
		return perr(p, key_line(p, "size"), "size", "at least bs (%u bytes)", j->bs);
	if (j->size && j->offset > UINT64_MAX - j->size)
		return perr(p, key_line(p, "offset"), "offset", "offset + size below 2^64");
	if ((j->burst_on_ns == 0) != (j->burst_off_ns == 0))
		return perr(p, key_line(p, j->burst_on_ns ? "burst_on" : "burst_off"),
			    j->burst_on_ns ? "burst_on" : "burst_off",
			    "burst_on and burst_off together (both above 0)");
	if (j->burst_on_ns > UINT64_MAX / 4 || j->burst_off_ns > UINT64_MAX / 4)
		return perr(p, key_line(p, "burst_on"), "burst_on", "on/off durations below 100 years");
	return 0;
}

static int job_dup_defaults(struct parser *p, struct iolat_job *j)
{
	*j = p->defaults;
	if (p->defaults.filename) {
		j->filename = strdup(p->defaults.filename);
		if (!j->filename)
			return oom(p);
	}
	return 0;
}

static int begin_section(struct parser *p, const char *s, size_t n)
{
	struct iolat_jobfile *jf = p->jf;
	char name[IOLAT_GROUP_PATH_MAX + 8], got[MAX_ECHO + 8];
	int r;

	echo(got, sizeof(got), s, n);
	if (n == 0)
		return perr(p, p->line, NULL, "section '[]': expected a name ([global], [group:PATH] or [JOB])");
	r = finish_job(p);
	if (r)
		return r;

	if (n == 6 && memcmp(s, "global", 6) == 0) {
		p->sec = SEC_GLOBAL;
		return 0;
	}
	if (n >= 6 && memcmp(s, "group:", 6) == 0) {
		char path[IOLAT_GROUP_PATH_MAX];
		const char *why = NULL;
		if (n - 6 >= sizeof(name))
			return perr(p, p->line, NULL, "section '%s': expected a group path shorter than 256 bytes", got);
		memcpy(name, s + 6, n - 6);
		name[n - 6] = '\0';
		r = normalise_group_path(name, path, sizeof(path), &why);
		if (r != 0)
			return perr(p, p->line, NULL, "section '%s': expected %s", got,
				    r > 0 ? "a group path other than the root" : why);
		int gi = iolat_jobfile_find_group(jf, path);
		if (gi >= 0 && jf->groups[gi].declared)
			return perr(p, p->line, NULL, "section '%s': expected each group once (already declared at line %u)",
				    got, jf->groups[gi].line);
		gi = get_group(p, path, p->line, NULL);
		if (gi < 0)
			return gi;
		jf->groups[gi].declared = true;
		jf->groups[gi].line = p->line;
		p->cur_group = gi;
		p->sec = SEC_GROUP;
		return 0;
	}

	/* a job */
	if (n >= IOLAT_JOB_NAME_MAX)
		return perr(p, p->line, NULL, "section '%s': expected a job name of at most %u bytes",
			    got, IOLAT_JOB_NAME_MAX - 1);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f || s[i] == '[' || s[i] == ']')
			return perr(p, p->line, NULL, "section '%s': expected a job name of printable characters", got);
	if (jf->nr_jobs >= MAX_JOBS)
		return perr(p, p->line, NULL, "section '%s': expected at most %u jobs", got, MAX_JOBS);
	if (grow((void **)&jf->jobs, &p->cap_jobs, jf->nr_jobs + 1, sizeof(*jf->jobs)))
		return oom(p);
	struct iolat_job *j = &jf->jobs[jf->nr_jobs];
	r = job_dup_defaults(p, j);
	if (r)
		return r;
	memcpy(j->name, s, n);
	j->name[n] = '\0';
	j->line = p->line;
	j->index = jf->nr_jobs++;
	memcpy(p->cur_lines, p->def_lines, sizeof(p->cur_lines));
	p->sec = SEC_JOB;
	return 0;
}

/* An unknown key: what fio calls it here, or the nearest known key. */
static int unknown_key(struct parser *p, const char *key)
{
	struct iolat_suggest sg;
	const char *hint = iolat_fio_key_hint(key), *best;

	if (hint)
		return perr(p, p->line, key, "a known key: %s (see `iolat help keys`)", hint);
	iolat_suggest_init(&sg, key);
	for (size_t i = 0; i < NR_OPTS; i++) {
		if (opts[i].type == IOLAT_OPT_PARAM)
			continue;
		iolat_suggest_offer(&sg, opts[i].name);
		if (opts[i].alias)
			iolat_suggest_offer(&sg, opts[i].alias);
	}
	best = iolat_suggest_best(&sg);
	if (best)
		return perr(p, p->line, key, "a known key; did you mean '%s'? (see `iolat help keys`)",
			    best);
	return perr(p, p->line, key, "a known key (see `iolat help keys`)");
}

static int do_key(struct parser *p, const char *key, const char *v)
{
	const struct iolat_jobopt *o = find_opt(key);
	void *base;

	if (!o)
		return unknown_key(p, key);
	switch (p->sec) {
	case SEC_NONE:
		return perr(p, p->line, key, "a section header ([global], [group:PATH] or [JOB]) before it");
	case SEC_GLOBAL:
		if (!(o->where & IOLAT_OPT_IN_GLOBAL))
			return perr(p, p->line, key, "only in a [group:PATH] section");
		base = (o->where & IOLAT_OPT_IN_JOB) ? (void *)&p->defaults : (void *)&p->jf->global;
		if (o->type != IOLAT_OPT_PARAM)
			p->def_lines[opt_index(o)] = p->line;
		if (strcmp(o->name, "seed") == 0) {
			int r = apply(p, o, base, key, v);
			if (!r)
				p->jf->global.seed_set = true;
			return r;
		}
		break;
	case SEC_JOB:
		if (!(o->where & IOLAT_OPT_IN_JOB))
			return perr(p, p->line, key, o->where & IOLAT_OPT_IN_GLOBAL ?
				    "only in [global]" : "only in a [group:PATH] section");
		base = &p->jf->jobs[p->jf->nr_jobs - 1];
		p->cur_lines[opt_index(o)] = p->line;
		break;
	case SEC_GROUP:
		if (!(o->where & IOLAT_OPT_IN_GROUP))
			return perr(p, p->line, key, "only target in a [group:PATH] section");
		base = &p->jf->groups[p->cur_group];
		break;
	default:
		return -EINVAL;
	}
	return apply(p, o, base, key, v);
}

static int do_line(struct parser *p, const char *s, size_t n)
{
	char got[MAX_ECHO + 8];

	if (s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close) {
			echo(got, sizeof(got), s, n);
			return perr(p, p->line, NULL, "section '%s': expected ']'", got);
		}
		if ((size_t)(close - s) != n - 1) {
			echo(got, sizeof(got), s, n);
			return perr(p, p->line, NULL, "section '%s': expected nothing after ']'", got);
		}
		const char *a = s + 1, *b = close;
		while (a < b && is_space(*a))
			a++;
		while (b > a && is_space(b[-1]))
			b--;
		return begin_section(p, a, (size_t)(b - a));
	}

	char key[MAX_KEY_LEN + 1];
	const char *eq = memchr(s, '=', n);
	const char *ke = eq ? eq : s + n;
	while (ke > s && is_space(ke[-1]))
		ke--;
	size_t kn = (size_t)(ke - s);
	if (kn == 0) {
		echo(got, sizeof(got), s, n);
		return perr(p, p->line, NULL, "'%s': expected key=value", got);
	}
	if (kn > MAX_KEY_LEN) {
		echo(got, sizeof(got), s, kn);
		return perr(p, p->line, got, "a known key (see `iolat help keys`)");
	}
	memcpy(key, s, kn);
	key[kn] = '\0';
	for (size_t i = 0; i < kn; i++)
		if (is_space(key[i]) || (unsigned char)key[i] < 0x20 || (unsigned char)key[i] >= 0x7f)
			return perr(p, p->line, key, "a known key (see `iolat help keys`)");
	if (!eq)
		return do_key(p, key, NULL);

	const char *vs = eq + 1, *ve = s + n;
	while (vs < ve && is_space(*vs))
		vs++;
	size_t vn = (size_t)(ve - vs);
	if (vn > MAX_VALUE_LEN)
		return perr(p, p->line, key, "a value of at most %u bytes", MAX_VALUE_LEN);
	char *val = malloc(vn + 1);
	if (!val)
		return oom(p);
	memcpy(val, vs, vn);
	val[vn] = '\0';
	int r = do_key(p, key, val);
	free(val);
	return r;
}

static int set_defaults(struct parser *p)
{
	struct iolat_jobfile *jf = p->jf;

	memset(&p->defaults, 0, sizeof(p->defaults));
	p->defaults.group = IOLAT_GROUP_ROOT;
	jf->global.rotational = -1;
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct iolat_jobopt *o = &opts[i];
		void *base;
		if (!o->def || o->where == IOLAT_OPT_IN_GROUP)
			continue;
		base = (o->where & IOLAT_OPT_IN_JOB) ? (void *)&p->defaults : (void *)&jf->global;
		int r = apply(p, o, base, o->name, o->def);
		if (r)
			return r;   /* a broken table: caught by the tests */
	}
	return 0;
}

/* Group @gi has a [group:PATH] section, or is the parent of one that does. */
static bool group_is_declared(const struct iolat_jobfile *jf, int gi)
{
	if (jf->groups[gi].declared)
		return true;
	for (unsigned k = 0; k < jf->nr_groups; k++) {
		if (!jf->groups[k].declared)
			continue;
		for (int a = jf->groups[k].parent; a >= 0; a = jf->groups[a].parent)
			if (a == gi)
				return true;
	}
	return false;
}

/*
 * Every job's group= names a declared group: a misspelled path would
 * otherwise make a new group with no target, silently losing the protection
 * the user asked for.
 */
static int check_job_groups(struct parser *p)
{
	const struct iolat_jobfile *jf = p->jf;

	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *j = &jf->jobs[i];
		struct iolat_suggest sg;
		const char *best;
		char got[MAX_ECHO + 8];

		if (j->group < 0 || group_is_declared(jf, j->group))
			continue;
		echo(got, sizeof(got), jf->groups[j->group].path, strlen(jf->groups[j->group].path));
		iolat_suggest_init(&sg, jf->groups[j->group].path);
		for (unsigned k = 0; k < jf->nr_groups; k++)
			if (jf->groups[k].declared)
				iolat_suggest_offer(&sg, jf->groups[k].path);
		best = iolat_suggest_best(&sg);
		return perr(p, iolat_job_key_line(j, "group"), "group",
			    "a group declared by a [group:PATH] section (got '%s'%s%s%s)", got,
			    best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
	}
	return 0;
}

unsigned iolat_job_key_line(const struct iolat_job *job, const char *key)
{
	const struct iolat_jobopt *o = find_opt(key);
	unsigned l = o ? job->key_line[opt_index(o)] : 0;

	return l ? l : job->line;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */

void iolat_jobfile_free(struct iolat_jobfile *jf)
{
	if (!jf)
		return;
	for (unsigned i = 0; i < jf->nr_jobs; i++)
		free(jf->jobs[i].filename);
	free(jf->jobs);
	free(jf->groups);
	free(jf->params);
	free(jf->file);
	free(jf);
}

static int parse_lines(struct parser *p, const char *buf, size_t len)
{
	size_t pos = 0;

	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		pos = 3;   /* UTF-8 byte order mark */
	while (pos < len) {
		const char *s = buf + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;

		pos += n + (nl ? 1 : 0);
		p->line++;
		if (memchr(s, '\0', n))
			return perr(p, p->line, NULL, "expected text, found a NUL byte");
		/* a comment starts at ';' or '#' at the start or after blank space */
		for (size_t i = 0; i < n; i++) {
			if ((s[i] == ';' || s[i] == '#') && (i == 0 || is_space(s[i - 1]))) {
				n = i;
				break;
			}
		}
		while (n && is_space(s[n - 1]))
			n--;
		while (n && is_space(*s)) {
			s++;
			n--;
		}
		if (n == 0)
			continue;
		int r = do_line(p, s, n);
		if (r)
			return r;
	}
	return finish_job(p);
}

int iolat_jobfile_parse_buf(const char *buf, size_t len, const char *file,
			    struct iolat_jobfile **out, char *err, size_t errlen)
{
	struct parser *p;
	struct iolat_jobfile *jf;
	char fname[256];
	int r;

	if (err && errlen)
		err[0] = '\0';
	if (!out || (!buf && len))
		return -EINVAL;
	*out = NULL;
	p = calloc(1, sizeof(*p));
	jf = calloc(1, sizeof(*jf));
	echo_max(fname, sizeof(fname), file ? file : "<buffer>", strlen(file ? file : "<buffer>"),
		 MAX_FILE_ECHO);
	if (!p || !jf || !(jf->file = strdup(fname))) {
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", fname);
		free(p);
		if (jf)
			free(jf->file);
		free(jf);
		return -ENOMEM;
	}
	p->jf = jf;
	p->err = err;
	p->errlen = errlen;
	r = set_defaults(p);
	if (!r)
		r = parse_lines(p, buf ? buf : "", len);
	if (!r && jf->nr_jobs == 0)
		r = perr(p, p->line ? p->line : 1, NULL, "expected at least one job section ([JOB])");
	if (!r)
		r = check_job_groups(p);
	free(p->defaults.filename);
	free(p);
	if (r) {
		iolat_jobfile_free(jf);
		return r;
	}
	for (unsigned i = 0; i < jf->nr_groups; i++) {
		const char *slash = strrchr(jf->groups[i].path, '/');
		jf->groups[i].name = slash ? slash + 1 : jf->groups[i].path;
	}
	*out = jf;
	return 0;
}

int iolat_jobfile_parse_file(const char *path, struct iolat_jobfile **out,
			     char *err, size_t errlen)
{
	char fname[256];
	struct stat st;
	int fd, r;

	if (err && errlen)
		err[0] = '\0';
	if (!path || !out)
		return -EINVAL;
	*out = NULL;
	echo_max(fname, sizeof(fname), path, strlen(path), MAX_FILE_ECHO);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto fail;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		r = -EISDIR;
		goto fail;
	}
	/* read up to the cap (+1 to detect a larger file); works for pipes too */
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		r = -ENOMEM;
		goto fail;
	}
	for (;;) {
		if (len == cap) {
			if (cap > MAX_FILE_BYTES) {
				free(buf);
				close(fd);
				if (err && errlen)
					snprintf(err, errlen, "%s: cannot read: larger than %u MiB",
						 fname, MAX_FILE_BYTES >> 20);
				return -EFBIG;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				close(fd);
				r = -ENOMEM;
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			free(buf);
			close(fd);
			goto fail;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	if (len > MAX_FILE_BYTES) {
		free(buf);
		if (err && errlen)
			snprintf(err, errlen, "%s: cannot read: larger than %u MiB", fname,
				 MAX_FILE_BYTES >> 20);
		return -EFBIG;
	}
	r = iolat_jobfile_parse_buf(buf, len, path, out, err, errlen);
	free(buf);
	return r;
fail:
	if (err && errlen)
		snprintf(err, errlen, "%s: cannot read: %s", fname, strerror(-r));
	return r;
}

/* ------------------------------------------------------------------------ */
/* `iolat help keys`                                                        */

static const char *type_word(const struct iolat_jobopt *o)
{
	switch (o->type) {
	case IOLAT_OPT_STR:     return "text";
	case IOLAT_OPT_SIZE:    return "size";
	case IOLAT_OPT_RATE:    return "bytes/s";
	case IOLAT_OPT_TIME_S:  return "time(s)";
	case IOLAT_OPT_TIME_US: return "time(us)";
	case IOLAT_OPT_TARGET:  return "target";
	case IOLAT_OPT_BOOL:    return "bool";
	case IOLAT_OPT_UINT:    return "int";
	case IOLAT_OPT_ENUM:    return "choice";
	case IOLAT_OPT_ENGINE:  return "engine";
	case IOLAT_OPT_GROUP:   return "path";
	case IOLAT_OPT_IOFLAGS: return "flags";
	case IOLAT_OPT_PARAM:   return "param";
	case IOLAT_OPT_JOBNAME: return "text";
	case IOLAT_OPT_PCTLIST: return "list";
	}
	return "?";
}

static const char *where_word(unsigned w)
{
	if (w == IN_JOBS)
		return "global,job";
	if (w == IOLAT_OPT_IN_GLOBAL)
		return "global";
	if (w == IOLAT_OPT_IN_GROUP)
		return "group";
	return "job";
}

/* snprintf into buf at *used, tracking the total length needed. */
__attribute__((format(printf, 5, 6)))
static void emit(char *buf, size_t len, size_t *used, int *err, const char *fmt, ...)
{
	va_list ap;
	size_t room = *used < len ? len - *used : 0;

	va_start(ap, fmt);
	int n = vsnprintf(room ? buf + *used : NULL, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*err = -EINVAL;
		return;
	}
	*used += (size_t)n;
}

int iolat_jobfile_format_keys(char *buf, size_t len)
{
	size_t used = 0;
	int err = 0;

	if (buf && len)
		buf[0] = '\0';
	else
		buf = NULL, len = 0;
	emit(buf, len, &used, &err, "%-16s %-9s %-11s %-8s %s\n", "KEY", "TYPE", "SECTIONS", "DEFAULT",
	     "MEANING");
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct iolat_jobopt *o = &opts[i];
		char name[40];
		if (o->type == IOLAT_OPT_PARAM)
			snprintf(name, sizeof(name), "%s*", o->name);
		else if (o->alias)
			snprintf(name, sizeof(name), "%s|%s", o->name, o->alias);
		else
			snprintf(name, sizeof(name), "%s", o->name);
		emit(buf, len, &used, &err, "%-16s %-9s %-11s %-8s %s", name, type_word(o),
		     where_word(o->where), o->def ? o->def : "-", o->help);
		if (o->type == IOLAT_OPT_ENGINE) {
			char list[160];

			iolat_job_engine_choices(list, sizeof(list), "|");
			emit(buf, len, &used, &err, " [%s]", list);
		} else if (o->choices) {
			emit(buf, len, &used, &err, " [%s]", o->choices);
		}
		emit(buf, len, &used, &err, "\n");
	}
	emit(buf, len, &used, &err,
	     "\nSizes: 512, 4k, 1m, 2g (powers of 1024). Times: 10ns, 250us, 5ms, 30s, 2m, 1h.\n"
	     "Sections: [global] (defaults for the jobs below it, device keys), [group:PATH]\n"
	     "(a group; its parents are created implicitly), [NAME] (a job). A job's group=\n"
	     "must be declared by a [group:PATH] section, or be the parent of one.\n"
	     "Comments: ';' or '#'.\n");
	{
		size_t room = used < len ? len - used : 0;
		int n = iolat_fio_format_keys(room ? buf + used : NULL, room);

		if (n < 0)
			err = -EINVAL;
		else
			used += (size_t)n;
	}
	if (err)
		return err;
	return used > INT_MAX ? -EOVERFLOW : (int)used;
}
