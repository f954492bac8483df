/* SPDX-License-Identifier: MIT */
/*
 * Tests of the job-file parser (src/job/jobfile_parse.c and the files it
 * calls): the README's example, inheritance from [global], defaults, aliases, device keys and parameters,
 * every error class (message names file, line and key; one line), the size
 * and duration parsers (table-driven), `help keys`, parse_file, and a
 * deterministic mutation fuzz that must never crash (run it under ASan).
 * Context: single-threaded test program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "iolatency.h"
#include "job/jobfile.h"

static struct iolat_jobfile *t_parse_ok(const char *text)
{
	struct iolat_jobfile *jf = NULL;
	char err[IOLAT_JOBFILE_ERR_MAX];
	int r = iolat_jobfile_parse_buf(text, strlen(text), "t.fio", &jf, err, sizeof(err));
	if (r)
		fail_msg("parse failed (%d): %s", r, err);
	assert_non_null(jf);
	return jf;
}

static const char design_example[] =
	"[global]\n"
	"filename=/var/tmp/iolat.data   ; or a block device\n"
	"size=2g\n"
	"runtime=30s\n"
	"direct=1\n"
	"ioengine=uring\n"
	"\n"
	"[group:main]                   ; a group: path in the tree, settings of io.latency\n"
	"target=5ms                     ; same key as the kernel's io.latency file; \"max\" = none\n"
	"\n"
	"[group:system/fbpkg]           ; nested path: parent \"system\" is created implicitly\n"
	"\n"
	"[web]                          ; a job, as in fio\n"
	"group=main                     ; iolat's group (fio's cgroup= is a kernel cgroup)\n"
	"rw=randread\n"
	"bs=4k\n"
	"iodepth=4\n"
	"\n"
	"[download]\n"
	"group=system/fbpkg\n"
	"rw=write\n"
	"bs=1m\n"
	"iodepth=32\n";

static void test_design_example(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_parse_ok(design_example);

	assert_string_equal(jf->file, "t.fio");
	assert_int_equal(jf->nr_groups, 3);
	assert_string_equal(jf->groups[0].path, "main");
	assert_int_equal(jf->groups[0].target_ns, 5000000);
	assert_true(jf->groups[0].declared);
	assert_int_equal(jf->groups[0].parent, IOLAT_GROUP_ROOT);
	assert_string_equal(jf->groups[1].path, "system");
	assert_false(jf->groups[1].declared);
	assert_int_equal(jf->groups[1].target_ns, 0);
	assert_string_equal(jf->groups[2].path, "system/fbpkg");
	assert_string_equal(jf->groups[2].name, "fbpkg");
	assert_int_equal(jf->groups[2].parent, 1);
	assert_true(jf->groups[2].declared);
	assert_int_equal(jf->groups[2].line, 11);

	assert_int_equal(jf->nr_jobs, 2);
	const struct iolat_job *w = &jf->jobs[0], *d = &jf->jobs[1];
	assert_string_equal(w->name, "web");
	assert_int_equal(w->line, 13);
	assert_string_equal(w->filename, "/var/tmp/iolat.data");
	assert_int_equal(w->size, 2ull << 30);
	assert_int_equal(w->runtime_ns, 30000000000ull);
	assert_true(w->direct);
	assert_string_equal(w->engine, "uring");
	assert_string_equal(w->ioengine, "uring");
	assert_int_equal(w->group, 0);
	assert_int_equal(w->rw, IOLAT_RW_RANDREAD);
	assert_int_equal(w->bs, 4096);
	assert_int_equal(w->iodepth, 4);
	assert_string_equal(d->name, "download");
	assert_int_equal(d->index, 1);
	assert_int_equal(d->group, 2);
	assert_int_equal(d->rw, IOLAT_RW_WRITE);
	assert_int_equal(d->bs, 1 << 20);
	assert_int_equal(d->iodepth, 32);
	assert_string_equal(d->filename, "/var/tmp/iolat.data");
	assert_ptr_not_equal(d->filename, w->filename);
	assert_int_equal(iolat_jobfile_find_group(jf, "system/fbpkg"), 2);
	assert_int_equal(iolat_jobfile_find_group(jf, "nope"), -ENOENT);
	iolat_jobfile_free(jf);
}

static void test_defaults(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_parse_ok("[only]\n");
	const struct iolat_job *j = &jf->jobs[0];

	assert_int_equal(j->rw, IOLAT_RW_READ);
	assert_int_equal(j->bs, 4096);
	assert_int_equal(j->iodepth, 1);
	assert_int_equal(j->numjobs, 1);
	assert_int_equal(j->rwmixread, 50);
	assert_int_equal(j->group, IOLAT_GROUP_ROOT);
	assert_null(j->filename);
	assert_int_equal(j->size, 0);
	assert_null(j->engine);
	assert_string_equal(j->ioengine, "");
	assert_false(j->direct);
	assert_int_equal(j->verify, IOLAT_VERIFY_NONE);
	assert_int_equal(j->ioflags, 0);
	assert_int_equal(jf->global.device, IOLAT_DEVICE_DEFAULT);
	assert_int_equal(jf->global.rotational, -1);
	assert_true(jf->global.control);
	assert_false(jf->global.kernel_compat);
	assert_int_equal(jf->global.seed, 1);
	assert_false(jf->global.seed_set);
	assert_int_equal(jf->global.nr_requests, 0);
	assert_int_equal(jf->nr_groups, 0);
	assert_int_equal(jf->nr_params, 0);
	iolat_jobfile_free(jf);
}

static void test_inheritance_and_keys(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_parse_ok(
		"# comment line\n"
		"[global]\n"
		"bs=64k\n"
		"time_based\n"
		"runtime=2m\n"
		"group=bulk\n"
		"[a]\n"
		"bs=8k\n"
		"[global]\n"
		"iodepth=8\n"
		"[b]\n"
		"readwrite=randrw\n"
		"rwmixread=70\n"
		"rate_iops=1000\n"
		"rate=10m\n"
		"thinktime=250\n"
		"startdelay=1.5\n"
		"burst_on=500ms\n"
		"burst_off=2\n"
		"ioflags=meta|swap\n"
		"verify=crc32c\n"
		"numjobs=3\n"
		"offset=1m\n"
		"ioengine=faulty:psync\n"
		"group=/\n"
		"[c]\n"
		"rw=readwrite\n"
		"group=new/leaf\n"
		"direct = 1\n"
		"ioflags=none\n"
		"[group:bulk]\n"
		"[group:new/leaf]\n");
	const struct iolat_job *a = &jf->jobs[0], *b = &jf->jobs[1], *c = &jf->jobs[2];

	assert_int_equal(a->bs, 8192);
	assert_int_equal(a->iodepth, 1);             /* the second [global] came later */
	assert_true(a->time_based);
	assert_int_equal(a->runtime_ns, 120000000000ull);
	assert_int_equal(a->group, 0);
	assert_string_equal(jf->groups[0].path, "bulk");
	assert_int_equal(b->bs, 65536);
	assert_int_equal(b->iodepth, 8);
	assert_int_equal(b->rw, IOLAT_RW_RANDRW);
	assert_int_equal(b->rwmixread, 70);
	assert_int_equal(b->rate_iops, 1000);
	assert_int_equal(b->rate_bps, 10u << 20);
	assert_int_equal(b->thinktime_ns, 250000);
	assert_int_equal(b->startdelay_ns, 1500000000ull);
	assert_int_equal(b->burst_on_ns, 500000000ull);
	assert_int_equal(b->burst_off_ns, 2000000000ull);
	assert_int_equal(b->ioflags, IOLAT_IO_META | IOLAT_IO_SWAP);
	assert_int_equal(b->verify, IOLAT_VERIFY_CRC32C);
	assert_int_equal(b->numjobs, 3);
	assert_int_equal(b->offset, 1 << 20);
	assert_string_equal(b->engine, "psync");
	assert_string_equal(b->engine_wrapper, "faulty");
	assert_string_equal(b->ioengine, "faulty:psync");
	assert_int_equal(b->group, IOLAT_GROUP_ROOT);
	assert_int_equal(c->rw, IOLAT_RW_RW);
	assert_true(c->direct);
	assert_int_equal(c->ioflags, 0);
	assert_int_equal(jf->nr_groups, 3);
	assert_string_equal(jf->groups[1].path, "new");
	assert_string_equal(jf->groups[2].path, "new/leaf");
	assert_int_equal(jf->groups[2].parent, 1);
	assert_int_equal(c->group, 2);
	assert_int_equal(jf->groups[2].line, 32);     /* its [group:PATH] section */
	/* each key's own line, inherited from [global] or set in the job */
	assert_int_equal(iolat_job_key_line(c, "group"), 28);
	assert_int_equal(iolat_job_key_line(a, "group"), 6);
	assert_string_equal(a->cgroup, "");
	assert_int_equal(iolat_job_key_line(a, "bs"), 8);
	assert_int_equal(iolat_job_key_line(b, "bs"), 3);
	assert_int_equal(iolat_job_key_line(b, "verify"), 21);
	assert_int_equal(iolat_job_key_line(a, "verify"), 7);   /* default: the job's header */
	iolat_jobfile_free(jf);
}

/* weight= in a [group:PATH] section; none given: 0, and no weights for the run. */
static void test_group_weight(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_parse_ok("[group:a]\nweight=300\n[group:b]\n"
					      "[j]\ngroup=a\n[k]\ngroup=b\n");

	assert_int_equal(jf->groups[iolat_jobfile_find_group(jf, "a")].weight, 300);
	assert_int_equal(jf->groups[iolat_jobfile_find_group(jf, "b")].weight, 0);
	assert_true(iolat_jobfile_has_weights(jf));
	iolat_jobfile_free(jf);
	jf = t_parse_ok("[group:a]\ntarget=5ms\n[j]\ngroup=a\n");
	assert_false(iolat_jobfile_has_weights(jf));
	iolat_jobfile_free(jf);
}

static void test_global_device_keys(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_parse_ok(
		"[global]\r\n"
		"device=bad-ssd\r\n"
		"nr_requests=128\r\n"
		"rotational=0\r\n"
		"control=0\r\n"
		"kernel_compat\r\n"
		"seed=18446744073709551615\r\n"
		"hdd_seek_ms=8.5\r\n"
		"badssd_stall_ms = 200 ; comment\r\n"
		"hdd_seek_ms=9\r\n"
		"[group:a]\r\n"
		"target=max\r\n"
		"[group:b]\r\n"
		"target=750\r\n"
		"[j]\r\n");
	assert_int_equal(jf->global.device, IOLAT_DEVICE_BAD_SSD);
	assert_int_equal(jf->global.nr_requests, 128);
	assert_int_equal(jf->global.rotational, 0);
	assert_false(jf->global.control);
	assert_true(jf->global.kernel_compat);
	assert_true(jf->global.seed_set);
	assert_true(jf->global.seed == UINT64_MAX);
	assert_int_equal(jf->nr_params, 2);
	assert_string_equal(jf->params[0].key, "hdd_seek_ms");
	assert_string_equal(jf->params[0].value, "9");       /* the last value wins */
	assert_int_equal(jf->params[0].line, 10);
	assert_string_equal(jf->params[1].key, "badssd_stall_ms");
	assert_string_equal(jf->params[1].value, "200");
	assert_int_equal(jf->params[1].line, 9);
	assert_int_equal(jf->groups[0].target_ns, 0);
	assert_int_equal(jf->groups[1].target_ns, 750000);    /* bare: microseconds */
	assert_string_equal(iolat_device_name(jf->global.device), "bad-ssd");
	iolat_jobfile_free(jf);
}

/* ---- errors ---- */

struct err_case {
	const char *text;
	unsigned line;
	const char *key;        /* NULL: not a key error */
	const char *fragment;   /* must appear in the message */
};

static const struct err_case err_cases[] = {
	{ "[j]\nbogus=1\n", 2, "bogus", "expected a known key" },
	{ "[j]\nbs=4q\n", 2, "bs", "expected a size" },
	{ "[j]\nbs=-4k\n", 2, "bs", "expected a size" },
	{ "[j]\nbs=0\n", 2, "bs", "at least 1" },
	{ "[j]\nbs=1g\n", 2, "bs", "at most" },
	{ "[j]\nsize=99999999999999999999999\n", 2, "size", "expected a size" },
	{ "[j]\nsize=20000000p\n", 2, "size", "expected a size" },
	{ "[j]\nruntime=10 s\n", 2, "runtime", "expected a duration" },
	{ "[j]\nruntime=5y\n", 2, "runtime", "expected a duration" },
	{ "[j]\nthinktime=abc\n", 2, "thinktime", "microseconds" },
	{ "[j]\nrw=randwr\n", 2, "rw", "one of read,write,randread" },
	{ "[j]\niodepth=0\n", 2, "iodepth", "from 1 to 65536" },
	{ "[j]\nrwmixread=101\n", 2, "rwmixread", "from 0 to 100" },
	{ "[j]\nrate_iops=1e3\n", 2, "rate_iops", "an integer" },
	{ "[j]\nrate_iops=1000,500\n", 2, "rate_iops", "one value for rw=read; R,W" },
	{ "[j]\nrw=randrw\nrate_iops=1000,\n", 3, "rate_iops", "an integer, or two (read,write)" },
	{ "[j]\nrw=randrw\nrate_iops=,10\n", 3, "rate_iops", "an integer, or two (read,write)" },
	{ "[j]\nrw=randrw\nrate_iops=1,2,3\n", 3, "rate_iops", "an integer, or two (read,write)" },
	{ "[j]\nrw=randrw\nrate_iops=1,2000000000\n", 3, "rate_iops", "from 0 to 1000000000" },
	{ "[j]\nrw=randrw\nrate_iops=0,100\n", 3, "rate_iops", "(both above 0)" },
	{ "[j]\nrw=rw\nrate_iops=10,10\nrate=1m\nrate_process=poisson\n", 5, "rate_process", "not both" },
	{ "[j]\nrate_process=exponential\n", 2, "rate_process", "one of linear,poisson" },
	{ "[j]\nrate_iops=100\nrate=1m\nrate_process=poisson\n", 4, "rate_process", "not both" },
	{ "[global]\nrate_process=poisson\n[j]\nrate_iops=9\nrate=1m\n", 2, "rate_process", "not both" },
	{ "[j]\nrate=1m,2m\n", 2, "rate", "one value" },
	{ "[j]\ndirect=maybe\n", 2, "direct", "0 or 1" },
	{ "[j]\nbs\n", 2, "bs", "a value" },
	{ "[j]\nioengine=libaio\n", 2, "ioengine", "one of uring" },
	{ "[j]\nioengine=faulty:faulty:psync\n", 2, "ioengine", "one of uring" },
	{ "[j]\nioflags=meta|\n", 2, "ioflags", "meta, swap" },
	{ "[j]\nioflags=fua\n", 2, "ioflags", "meta, swap" },
	{ "[j]\nverify=md5\n", 2, "verify", "none,crc32c" },
	{ "[j]\ngroup=a//b\n", 2, "group", "no '//'" },
	{ "[j]\ngroup=a/../b\n", 2, "group", "'..'" },
	{ "[j]\ngroup=a b\n", 2, "group", "letters, digits" },
	{ "[j]\ngroup=\n", 2, "group", "a group path" },
	{ "[j]\nfilename=\n", 2, "filename", "non-empty" },
	{ "[j]\ntarget=5ms\n", 2, "target", "only in a [group:PATH] section" },
	{ "[global]\ntarget=5ms\n[j]\n", 2, "target", "only in a [group:PATH] section" },
	{ "[group:a]\ntarget=5xs\n[j]\n", 2, "target", "latency target" },
	{ "[group:a]\nbs=4k\n[j]\n", 2, "bs", "only target" },
	{ "[group:a]\nweight=0\n[j]\n", 2, "weight", "from 1 to 10000" },
	{ "[group:a]\nweight=10001\n[j]\n", 2, "weight", "from 1 to 10000" },
	{ "[j]\nweight=100\n", 2, "weight", "only in a [group:PATH] section" },
	{ "[j]\ndevice=ssd\n", 2, "device", "only in [global]" },
	{ "[j]\nhdd_seek_ms=3\n", 2, "hdd_seek_ms", "only in [global]" },
	{ "[global]\nhdd_seek_ms=\n[j]\n", 2, "hdd_seek_ms", "a value of 1 to" },
	{ "[global]\ndevice=floppy\n[j]\n", 2, "device", "one of ssd,hdd,bad-ssd" },
	{ "[global]\nnr_requests=0\n[j]\n", 2, "nr_requests", "from 1 to 65536" },
	{ "[global]\nseed=18446744073709551616\n[j]\n", 2, "seed", "an integer from 0" },
	{ "bs=4k\n[j]\n", 1, "bs", "a section header" },
	{ "[j]\n[time_based]\n", 1, NULL, "" },     /* fine so far; see the next one */
	{ "[j]\ntime_based=1\n", 2, "time_based", "a runtime" },
	{ "[global]\ntime_based=1\n\n[j]\n", 2, "time_based", "a runtime" },
	{ "[j]\nbs=8k\nsize=4k\n", 3, "size", "at least bs" },
	{ "[j]\nsize=1m\noffset=18446744073709551615\n", 3, "offset", "below 2^64" },
	{ "[j]\nburst_on=1s\n", 2, "burst_on", "burst_off" },
	{ "[j]\nburst_off=1s\n", 2, "burst_off", "burst_on" },
	{ "[group:a]\n[group:b]\n[group:a]\n[j]\n", 3, NULL, "already declared at line 1" },
	{ "[group:/]\n[j]\n", 1, NULL, "other than the root" },
	{ "[group:a/]\n[j]\n", 1, NULL, "without a leading or trailing '/'" },
	{ "[group:/a]\n[j]\n", 1, NULL, "without a leading or trailing '/'" },
	{ "[group:a]\n[j]\ngroup=/a\n", 3, "group", "without a leading or trailing '/'" },
	{ "[group:a]\n[j]\ngroup=a/\n", 3, "group", "without a leading or trailing '/'" },
	/* a job's group must be declared (or be the parent of a declared one) */
	{ "[group:main]\ntarget=1ms\n[j]\ngroup=mian\n", 4, "group",
	  "declared by a [group:PATH] section (got 'mian'; did you mean 'main'?)" },
	{ "[global]\ngroup=web\n[j]\n[group:db]\n", 2, "group", "(got 'web')" },
	{ "[group:a/b]\n[j]\ngroup=a/c\n", 3, "group", "did you mean 'a/b'?" },
	/* unknown keys: the nearest key, or what fio's key is called here */
	{ "[j]\niodpeth=4\n", 2, "iodpeth", "did you mean 'iodepth'?" },
	{ "[j]\nblocksz=4k\n", 2, "blocksz", "did you mean 'blocksize'?" },
	{ "[global]\nrandseed=7\n[j]\n", 2, "randseed", "seed= here" },
	{ "[j]\nlatency_target=5ms\n", 2, "latency_target", "target= in a [group:PATH]" },
	{ "[j]\nzzzzzz=1\n", 2, "zzzzzz", "a known key (see" },
	/* fio keys taken with their fio meaning only */
	{ "[j]\nrandrepeat=0\n", 2, "randrepeat", "give seed= another value" },
	{ "[j]\nnorandommap=0\n", 2, "norandommap", "no random map" },
	{ "[global]\npercentile_list=99:101\n[j]\n", 2, "percentile_list", "(0, 100]" },
	{ "[global]\npercentile_list=99:\n[j]\n", 2, "percentile_list", "after the last ':'" },
	{ "[j]\nname=\n", 2, "name", "a name of 1 to" },
	{ "[j\nbs=4k\n", 1, NULL, "expected ']'" },
	{ "[j] x\n", 1, NULL, "nothing after ']'" },
	{ "[]\n", 1, NULL, "expected a name" },
	{ "[j]\n=4k\n", 2, NULL, "expected key=value" },
	{ "[j]\nb s=4k\n", 2, "b s", "a known key" },
	{ "", 1, NULL, "at least one job" },
	{ "[global]\nbs=4k\n; only globals\n", 3, NULL, "at least one job" },
	{ "[group:a]\ntarget=1ms\n", 2, NULL, "at least one job" },
	{ "[0123456789012345678901234567890123456789012345678901234567890123456789]\n", 1, NULL,
	  "at most 63 bytes" },
	{ "[j]\nnumjobs=5000\n", 2, "numjobs", "from 1 to 4096" },
};

static void t_check_error(const char *text, size_t len, unsigned line, const char *key,
			  const char *fragment)
{
	struct iolat_jobfile *jf = (struct iolat_jobfile *)0x1;
	char err[IOLAT_JOBFILE_ERR_MAX];
	char prefix[64], keyp[128];

	memset(err, 'x', sizeof(err));
	int r = iolat_jobfile_parse_buf(text, len, "t.fio", &jf, err, sizeof(err));
	if (r != -EINVAL)
		fail_msg("expected -EINVAL for %s, got %d (%s)", text, r, r ? err : "ok");
	assert_null(jf);
	assert_non_null(memchr(err, '\0', sizeof(err)));
	assert_null(strchr(err, '\n'));
	snprintf(prefix, sizeof(prefix), "t.fio:%u: ", line);
	if (strncmp(err, prefix, strlen(prefix)) != 0)
		fail_msg("message '%s' does not start with '%s'", err, prefix);
	if (key) {
		snprintf(keyp, sizeof(keyp), "key '%s': expected ", key);
		if (!strstr(err, keyp))
			fail_msg("message '%s' does not name %s", err, keyp);
	}
	if (!strstr(err, fragment))
		fail_msg("message '%s' lacks '%s'", err, fragment);
}

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *c = &err_cases[i];
		size_t len = strlen(c->text);
		if (strstr(c->text, "[time_based]"))
			continue;   /* a job named like a key is fine */
		t_check_error(c->text, len, c->line, c->key, c->fragment);
	}
	/* a NUL byte inside the text */
	t_check_error("[j]\nbs=4k\0\n", 10, 2, NULL, "NUL byte");
	/* a job may be named like a key */
	struct iolat_jobfile *jf = t_parse_ok("[j]\n[time_based]\n");
	assert_string_equal(jf->jobs[1].name, "time_based");
	iolat_jobfile_free(jf);
}

static void test_errors_huge_input(void **state)
{
	(void)state;
	/* a 100 000-byte value, a 1000-byte key, a 5000-byte section name */
	size_t n = 100000;
	char *buf = malloc(n + 64);
	assert_non_null(buf);
	int o = sprintf(buf, "[j]\nfilename=");
	memset(buf + o, 'a', n);
	strcpy(buf + o + n, "\n");
	t_check_error(buf, strlen(buf), 2, "filename", "at most 4095 bytes");

	o = sprintf(buf, "[j]\n");
	memset(buf + o, 'k', 1000);
	strcpy(buf + o + 1000, "=1\n");
	t_check_error(buf, strlen(buf), 2, "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...", "a known key");

	buf[0] = '[';
	memset(buf + 1, 'g', 5000);
	strcpy(buf + 5001, "]\n");
	t_check_error(buf, strlen(buf), 1, NULL, "at most 63 bytes");

	/* a value with control characters is echoed sanitised */
	char err[IOLAT_JOBFILE_ERR_MAX];
	struct iolat_jobfile *jf;
	const char bad[] = "[j]\nbs=\x01\x1b[31m\n";
	assert_int_equal(iolat_jobfile_parse_buf(bad, sizeof(bad) - 1, "t.fio", &jf, err, sizeof(err)),
			 -EINVAL);
	assert_null(strchr(err, '\x1b'));
	/* a tiny error buffer is still NUL-terminated */
	char tiny[8];
	assert_int_equal(iolat_jobfile_parse_buf(bad, sizeof(bad) - 1, "t.fio", &jf, tiny, sizeof(tiny)),
			 -EINVAL);
	assert_int_equal(strlen(tiny), 7);
	/* no error buffer at all */
	assert_int_equal(iolat_jobfile_parse_buf(bad, sizeof(bad) - 1, NULL, &jf, NULL, 0), -EINVAL);
	free(buf);
}

/* ---- value parsers ---- */

static void test_sizes(void **state)
{
	(void)state;
	static const struct { const char *s; uint64_t v; } ok[] = {
		{ "512", 512 }, { "0", 0 }, { "4k", 4096 }, { "4K", 4096 }, { "4kb", 4096 },
		{ "4KiB", 4096 }, { "1m", 1 << 20 }, { "10M", 10 << 20 }, { "2g", 2ull << 30 },
		{ "1t", 1ull << 40 }, { "1p", 1ull << 50 }, { "1.5k", 1536 }, { "0.5m", 512 << 10 },
		{ "512b", 512 }, { "16383p", 16383ull << 50 }, { "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "k", "-1", "1x", "4kk", "4 k", "1.5.5", "16384p", "18446744073709551616",
		"1kib2", "+4", "0x10", "4bb",
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v = 0;
		if (iolat_parse_size(ok[i].s, &v) != 0)
			fail_msg("'%s' rejected", ok[i].s);
		if (v != ok[i].v)
			fail_msg("'%s' -> %llu, want %llu", ok[i].s, (unsigned long long)v,
				 (unsigned long long)ok[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 7;
		if (iolat_parse_size(bad[i], &v) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		assert_int_equal(v, 7);
	}
}

/* Value aliases come from the option table (readwrite = rw, verify=0 = none). */
static void test_value_aliases(void **state)
{
	struct iolat_jobfile *jf = t_parse_ok("[j]\nrw=readwrite\nverify=0\n[k]\nverify=crc32c\n");

	(void)state;
	assert_int_equal(jf->jobs[0].rw, IOLAT_RW_RW);
	assert_int_equal(jf->jobs[0].verify, IOLAT_VERIFY_NONE);
	assert_int_equal(jf->jobs[1].verify, IOLAT_VERIFY_CRC32C);
	iolat_jobfile_free(jf);
}

/* rate_iops=R,W (fio's read,write pair) on a mixed job; one value after a
 * pair inherited from [global] is one value again; rate_process's words. */
static void test_rate_pair(void **state)
{
	struct iolat_jobfile *jf = t_parse_ok("[global]\nrw=randrw\nrate_iops=300,100\n[pair]\n"
					      "rate_process=linear\n[one]\nrate_iops=50\n"
					      "rate_process=poisson\n[none]\nrw=read\nrate_iops=0\n");
	const struct iolat_job *pair = &jf->jobs[0], *one = &jf->jobs[1], *none = &jf->jobs[2];

	(void)state;
	assert_true(pair->rate_split);
	assert_int_equal(pair->rate_iops, 300);
	assert_int_equal(pair->rate_iops_write, 100);
	assert_int_equal(pair->rate_process, IOLAT_RATE_LINEAR);
	assert_false(one->rate_split);
	assert_int_equal(one->rate_iops, 50);
	assert_int_equal(one->rate_iops_write, 0);
	assert_int_equal(one->rate_process, IOLAT_RATE_POISSON);
	assert_false(none->rate_split);
	assert_int_equal(none->rate_iops, 0);
	assert_int_equal(none->rate_process, IOLAT_RATE_PROCESS_UNSET);
	iolat_jobfile_free(jf);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(iolat_rw_name(IOLAT_RW_RANDRW), "randrw");
	assert_true(iolat_rw_is_random(IOLAT_RW_RANDWRITE));
	assert_false(iolat_rw_is_random(IOLAT_RW_RW));
	assert_true(iolat_rw_is_mixed(IOLAT_RW_RW));
	assert_false(iolat_rw_has_write(IOLAT_RW_RANDREAD));
	assert_true(iolat_rw_has_write(IOLAT_RW_RANDRW));
}

static void test_help_keys(void **state)
{
	(void)state;
	int need = iolat_jobfile_format_keys(NULL, 0);
	assert_true(need > 100);
	char *buf = malloc((size_t)need + 1);
	assert_non_null(buf);
	assert_int_equal(iolat_jobfile_format_keys(buf, (size_t)need + 1), need);
	assert_int_equal(strlen(buf), need);
	for (const struct iolat_opt *o = iolat_jobfile_options(); o->name; o++) {
		assert_non_null(o->help);
		if (!strstr(buf, o->name))
			fail_msg("key %s missing from the listing", o->name);
	}
	/* truncation keeps a NUL and reports the full need */
	char small[32];
	assert_int_equal(iolat_jobfile_format_keys(small, sizeof(small)), need);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	free(buf);
}

static void test_parse_file(void **state)
{
	(void)state;
	char err[IOLAT_JOBFILE_ERR_MAX];
	struct iolat_jobfile *jf = NULL;
	char path[] = "/tmp/iolat-test-jobfile-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, design_example, strlen(design_example)), (ssize_t)strlen(design_example));
	close(fd);
	assert_int_equal(iolat_jobfile_parse_file(path, &jf, err, sizeof(err)), 0);
	assert_int_equal(jf->nr_jobs, 2);
	assert_string_equal(jf->file, path);
	iolat_jobfile_free(jf);
	unlink(path);

	assert_int_equal(iolat_jobfile_parse_file("/nonexistent/iolat.fio", &jf, err, sizeof(err)), -ENOENT);
	assert_null(jf);
	assert_non_null(strstr(err, "/nonexistent/iolat.fio: cannot read: "));
	assert_int_equal(iolat_jobfile_parse_file("/tmp", &jf, err, sizeof(err)), -EISDIR);
}

/* ---- fuzz: random mutations of valid files must never crash ---- */

static uint64_t t_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_fuzz_mutations(void **state)
{
	(void)state;
	static const char *const seeds[] = {
		design_example,
		"[global]\ndevice=hdd\nhdd_x=1\n[group:a/b/c]\ntarget=1ms\n[j]\ngroup=a/b\nrw=randrw\n"
		"burst_on=1\nburst_off=1\nioflags=swap\nrate=1m\nrate_iops=5\n",
	};
	static const char alphabet[] = "[]=;#\n\r\t /:.-_0123456789kmgsuKMGabcdefghijklmnopqrstuvwxyz\0\xff";
	uint64_t rs = 0x9e3779b97f4a7c15ull;
	char buf[2048], err[IOLAT_JOBFILE_ERR_MAX];
	unsigned ok = 0;

	for (unsigned it = 0; it < 20000; it++) {
		const char *seed = seeds[it % 2];
		size_t len = strlen(seed);
		memcpy(buf, seed, len);
		unsigned nmut = 1 + (unsigned)(t_rand(&rs) % 8);
		for (unsigned m = 0; m < nmut; m++) {
			size_t pos = (size_t)(t_rand(&rs) % (len + 1));
			char c = alphabet[t_rand(&rs) % (sizeof(alphabet) - 1)];
			switch (t_rand(&rs) % 3) {
			case 0:   /* replace */
				if (pos < len)
					buf[pos] = c;
				break;
			case 1:   /* insert */
				if (len + 1 < sizeof(buf)) {
					memmove(buf + pos + 1, buf + pos, len - pos);
					buf[pos] = c;
					len++;
				}
				break;
			default:  /* delete */
				if (pos < len) {
					memmove(buf + pos, buf + pos + 1, len - pos - 1);
					len--;
				}
			}
		}
		struct iolat_jobfile *jf = NULL;
		int r = iolat_jobfile_parse_buf(buf, len, "f.fio", &jf, err, sizeof(err));
		if (r == 0) {
			ok++;
			assert_true(jf->nr_jobs > 0);
			for (unsigned g = 0; g < jf->nr_groups; g++)
				assert_true(jf->groups[g].parent < (int)g);
			iolat_jobfile_free(jf);
		} else {
			assert_int_equal(r, -EINVAL);
			assert_null(jf);
			assert_null(strchr(err, '\n'));
			assert_int_equal(strncmp(err, "f.fio:", 6), 0);
		}
	}
	/* pure random bytes */
	for (unsigned it = 0; it < 5000; it++) {
		size_t len = (size_t)(t_rand(&rs) % sizeof(buf));
		for (size_t i = 0; i < len; i++)
			buf[i] = (char)t_rand(&rs);
		struct iolat_jobfile *jf = NULL;
		int r = iolat_jobfile_parse_buf(buf, len, "f.fio", &jf, err, sizeof(err));
		if (r == 0)
			iolat_jobfile_free(jf);
	}
	assert_true(ok > 100);   /* the mutations keep many files valid */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_design_example),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_inheritance_and_keys),
		cmocka_unit_test(test_global_device_keys),
		cmocka_unit_test(test_group_weight),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_errors_huge_input),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_value_aliases),
		cmocka_unit_test(test_rate_pair),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_help_keys),
		cmocka_unit_test(test_parse_file),
		cmocka_unit_test(test_fuzz_mutations),
	};
	return cmocka_run_group_tests_name("jobfile", tests, NULL, NULL);
}
