/* SPDX-License-Identifier: MIT */
/*
 * test_config.c - iolatd's configuration: a full file parses into the
 * expected fields (defaults where keys are absent); several devices by
 * repetition and by comma; every kind of bad input is refused with one line
 * naming the file, the line and the key (absolute paths, '..', targets
 * over 10 s among them); strict= parses.
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/config/config.h"

static struct iolatd_config cfg;
static char err[IOLATD_ERR_MAX];

static int parse(const char *text)
{
	err[0] = '\0';
	return iolatd_config_parse("t.conf", text, &cfg, err, sizeof(err));
}

static void test_full_file(void **state)
{
	assert_int_equal(parse("; iolatd\n[global]\ndevice=vda   ; the disk\ndevice = 8:16\n"
			       "control=0\nkernel_compat=yes\nnr_requests=128\nrotational=0\n"
			       "min_bps=2m\nmin_iops=20\ncgroup_root=/sys/fs/cgroup/blkio\n\n"
			       "[group:web/frontend]\ntarget=5ms\n[group:system/batch]\n"
			       "[group:db]\ntarget=750us # tight\n"), 0);
	assert_int_equal(cfg.nr_devices, 2);
	assert_string_equal(cfg.devices[0], "vda");
	assert_string_equal(cfg.devices[1], "8:16");
	assert_false(cfg.control);
	assert_int_equal(cfg.mode, IOLAT_CTL_MODE_KERNEL);
	assert_int_equal(cfg.nr_requests, 128);
	assert_int_equal(cfg.rotational, 0);
	assert_int_equal(cfg.min_bps, 2ull << 20);
	assert_int_equal(cfg.min_iops, 20);
	assert_string_equal(cfg.cgroup_root, "/sys/fs/cgroup/blkio");
	assert_int_equal(cfg.nr_groups, 3);
	assert_string_equal(cfg.groups[0].path, "web/frontend");
	assert_int_equal(cfg.groups[0].target_ns, 5000000);
	assert_int_equal(cfg.groups[0].line, 13);
	assert_int_equal(cfg.groups[1].target_ns, 0);
	assert_int_equal(cfg.groups[2].target_ns, 750000);
	assert_non_null(iolatd_config_group(&cfg, "system/batch"));
	assert_null(iolatd_config_group(&cfg, "system"));
}

static void test_defaults_and_commas(void **state)
{
	assert_int_equal(parse("[global]\ndevice=vda,vdb\n[group:a]\ntarget=max\n[group:b]\ntarget=1ms\n"), 0);
	assert_int_equal(cfg.nr_devices, 2);
	assert_string_equal(cfg.devices[1], "vdb");
	assert_true(cfg.control);
	assert_int_equal(cfg.mode, IOLATD_DEFAULT_MODE);
	assert_int_equal(cfg.rotational, -1);
	assert_int_equal(cfg.nr_requests, 0);
	assert_int_equal(cfg.min_bps, 1ull << 20);
	assert_int_equal(cfg.min_iops, 10);
	assert_string_equal(cfg.cgroup_root, "");
}

static void test_modes(void **state)
{
	static const struct { const char *v; enum iolat_ctl_mode m; bool control; } modes[] = {
		{ "adaptive", IOLAT_CTL_MODE_ADAPTIVE, true }, { "article", IOLAT_CTL_MODE_ARTICLE, true },
		{ "kernel", IOLAT_CTL_MODE_KERNEL, true }, { "1", IOLATD_DEFAULT_MODE, true },
		{ "0", IOLATD_DEFAULT_MODE, false },
	};
	char text[128];

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(text, sizeof(text), "[global]\ndevice=vda\ncontrol=%s\n[group:a]\ntarget=1ms\n",
			 modes[i].v);
		assert_int_equal(parse(text), 0);
		assert_int_equal(cfg.mode, modes[i].m);
		assert_int_equal(cfg.control, modes[i].control);
	}
	assert_string_equal(iolat_ctl_mode_name(IOLAT_CTL_MODE_ADAPTIVE), "adaptive");
}

struct bad {
	const char *text;
	const char *msg;
};

static void test_bad_input_one_line(void **state)
{
	static const struct bad bad[] = {
		{ "[global]\ndevice=vda\n[group:a]\ntarget=5 parsecs\n", "t.conf:4: key 'target': expected a duration" },
		{ "[global]\ndevice=vda\nfoo=1\n", "t.conf:3: key 'foo': unknown key in [global]" },
		{ "device=vda\n", "t.conf:1: key 'device': outside a section" },
		{ "[global]\ndevice=vda\n[group:../etc]\ntarget=1ms\n", "t.conf:3: section [group:../etc]: '..' is not allowed" },
		{ "[global]\ndevice=vda\n[group:/sys/fs/cgroup/blkio/app/main]\ntarget=1ms\n",
		  "t.conf:3: section [group:/sys/fs/cgroup/blkio/app/main]: an absolute path: give the path under cgroup_root" },
		{ "[global]\ndevice=vda\n[group:/app]\ntarget=1ms\n", "t.conf:3: section [group:/app]: an absolute path" },
		{ "[global]\ndevice=vda\n[group:a]\ntarget=10000h\n", "t.conf:4: key 'target': expected a duration up to 10s" },
		{ "[global]\ndevice=vda\n[group:a]\ntarget=11s\n", "t.conf:4: key 'target': expected a duration up to 10s" },
		{ "[global]\ndevice=vda\nstrict=2\n", "t.conf:3: key 'strict': expected 0 or 1" },
		{ "[global]\ndevice=vda\n[group:a//b]\n", "t.conf:3: section [group:a//b]" },
		{ "[global]\ndevice=vda\n[jobs]\n", "t.conf:3: section [jobs]: expected [global] or [group:" },
		{ "[global]\ndevice=vda\n[group:a]\ntarget=1ms\n[group:a]\n", "t.conf:5: section [group:a]: group given twice" },
		{ "[global]\ndevice=vda,vda\n", "t.conf:2: key 'device': device 'vda' given twice" },
		{ "[global]\ndevice=/dev/vda\n", "t.conf:2: key 'device': expected a disk name" },
		{ "[global]\ndevice=vda\ncontrol=maybe\n",
		  "t.conf:3: key 'control': expected 0, 1, adaptive, article or kernel, got 'maybe'" },
		{ "[global]\ndevice=vda\nstrict=2\n", "t.conf:3: key 'strict': expected 0 or 1 (got '2')" },
		{ "[global]\ndevice=vda\ncontrol=adaptive\nkernel_compat=1\n",
		  "t.conf:4: key 'kernel_compat': 1 conflicts with control=adaptive" },
		{ "[global]\ndevice=vda\nkernel_compat=1\ncontrol=article\n",
		  "t.conf:4: key 'control': 'article' conflicts with kernel_compat=1" },
		{ "[global]\ndevice=vda\nnr_requests=0\n", "t.conf:3: key 'nr_requests'" },
		{ "[global]\ndevice=vda\nmin_bps=-1\n", "t.conf:3: key 'min_bps'" },
		{ "[global]\ndevice=vda\ncgroup_root=relative\n", "t.conf:3: key 'cgroup_root'" },
		{ "[global]\ndevice=vda\n[group:a]\ncolor=red\n", "t.conf:4: key 'color': unknown key in a [group:] section" },
		{ "[global]\ndevice=vda\n[group:a]\ntarget\n", "t.conf:4: key 'target': expected a value (target=...)" },
		{ "[global]\ndevice=vda\n[group:a]\ntarget=\n", "t.conf:4: key 'target': expected a value" },
		{ "[global\n", "t.conf:1: section '[global': expected ']'" },
		{ "[global] x\n", "t.conf:1: section '[global] x': expected nothing after ']'" },
		{ "[global]\ndevice=vda\nstirct=1\n",
		  "t.conf:3: key 'stirct': unknown key in [global] (device, control, kernel_compat, nr_requests, "
		  "rotational, min_bps, min_iops, cgroup_root, strict, systemd, textfile, exempt); did you mean 'strict'?" },
		{ "[global]\ndevice=vda\n[group:a]\ntraget=1ms\n",
		  "t.conf:4: key 'traget': unknown key in a [group:] section (target, weight); did you mean 'target'?" },
		{ "[global]\ndevice=vda\n[group:a]\nstrict=1\n",
		  "t.conf:4: key 'strict': unknown key in a [group:] section (target, weight); it belongs in [global]" },
		{ "[global]\ndevice=vda\nmin_bps=1.5x\n",
		  "t.conf:3: key 'min_bps': expected a positive rate in bytes/s like 1m (got '1.5x')" },
		{ "[global]\ndevice=vda\nnr_requests=65537\n",
		  "t.conf:3: key 'nr_requests': expected a queue depth 1..65536 (got '65537')" },
		{ "[global]\ndevice=vda\nsystemd\ncolor\n", "t.conf:4: key 'color': unknown key in [global]" },
		{ "[group:a]\ntarget=1ms\n", "key 'device': missing" },
		{ "[global]\ndevice=vda\n", "no [group:PATH] section" },
		{ "[global]\ndevice=vda\n[group:a]\n[group:b]\ntarget=max\n", "t.conf:3: key 'target': no group has a target" },
		{ "[global]\ndevice=vda\nexempt=a,../b\n[group:a]\ntarget=1ms\n",
		  "t.conf:3: key 'exempt': expected a cgroup path under cgroup_root (system.slice/backup.service) "
		  "or a unit name (backup.service), got '../b'" },
		{ "[global]\ndevice=vda\nexempt=x.service\nexempt=x.service\n[group:a]\ntarget=1ms\n",
		  "t.conf:4: key 'exempt': 'x.service' given twice" },
		{ "[global]\ndevice=vda\nexempt=a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,b0,b1,b2,b3,b4,b5,b6\n[group:a]\ntarget=1ms\n",
		  "t.conf:3: key 'exempt': at most 16 exempt groups" },
		{ "[global]\ndevice=vda\n[group:a]\nweight=0\n",
		  "t.conf:4: key 'weight': expected an integer from 1 to 10000 (got '0')" },
		{ "[global]\ndevice=vda\n[group:a]\nweight=10001\n",
		  "t.conf:4: key 'weight': expected an integer from 1 to 10000 (got '10001')" },
		{ "[global]\ndevice=vda\n[group:a]\nweight=heavy\n", "t.conf:4: key 'weight': expected an integer (got 'heavy')" },
		{ "[global]\ndevice=vda\n[group:a]\nweight=1.5\n", "t.conf:4: key 'weight': expected an integer" },
		{ "[global]\ndevice=vda\n[group:a]\nweight\n", "t.conf:4: key 'weight': expected a value (weight=...)" },
		{ "[global]\ndevice=vda\n[group:a]\nwieght=200\n",
		  "t.conf:4: key 'wieght': unknown key in a [group:] section (target, weight); did you mean 'weight'?" },
		{ "[global]\ndevice=vda\nweight=200\n",
		  "t.conf:3: key 'weight': unknown key in [global] (device, control, kernel_compat, nr_requests, "
		  "rotational, min_bps, min_iops, cgroup_root, strict, systemd, textfile, exempt); it belongs in a [group:PATH] section" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].text), -EINVAL);
		if (!strstr(err, bad[i].msg))
			fail_msg("case %zu: got '%s', want '%s'", i, err, bad[i].msg);
		assert_null(strchr(err, '\n'));
	}
}

static void test_limits_and_strict(void **state)
{
	assert_int_equal(parse("[global]\ndevice=vda\nstrict=1\n[group:a]\ntarget=10s\n"), 0);
	assert_true(cfg.strict);
	assert_int_equal(cfg.groups[0].target_ns, 10000000000ull);
	assert_string_equal(cfg.file, "t.conf");
	assert_int_equal(parse("[global]\ndevice=vda\n[group:a]\ntarget=1ms\n"), 0);
	assert_false(cfg.strict);
}

/* Spellings the configuration grammar added (docs/iolatd.md, "Changes to the
 * configuration grammar"): the job file's sizes, a bare boolean key, a comment
 * right after a section header. */
static void test_new_spellings(void **state)
{
	assert_int_equal(parse("[global];the disk\ndevice=vda\nmin_bps=1.5m\nmin_iops=2kib\nstrict\n"
			       "systemd = off\n[group:a]#web\ntarget=1.5ms\n"), 0);
	assert_int_equal(cfg.min_bps, 3ull << 19);
	assert_int_equal(cfg.min_iops, 2048);
	assert_true(cfg.strict);
	assert_false(cfg.systemd);
	assert_int_equal(cfg.groups[0].target_ns, 1500000);
}

/* iolatd_config_check(): every problem, one line each, in file order, the
 * whole file's checks last (none for a device= or target= already refused:
 * not "missing" too); a good file has none. */
static void test_check_tells_every_problem(void **state)
{
	static const char text[] = "[global]\ndevice=/dev/vda\nstirct=1\nmin_bps=0\n"
				   "[jobs]\ntarget=1ms\n[group:a]\ntarget=soon\n";
	char out[2048];
	int n = iolatd_config_check_text("c.conf", text, out, sizeof(out));

	assert_int_equal(n, 5);
	assert_string_equal(out,
		"c.conf:2: key 'device': expected a disk name (vda) or MAJ:MIN, got '/dev/vda'\n"
		"c.conf:3: key 'stirct': unknown key in [global] (device, control, kernel_compat, "
		"nr_requests, rotational, min_bps, min_iops, cgroup_root, strict, systemd, textfile, exempt); "
		"did you mean 'strict'?\n"
		"c.conf:4: key 'min_bps': expected a positive rate in bytes/s like 1m (got '0')\n"
		"c.conf:5: section [jobs]: expected [global] or [group:CGROUP/PATH]\n"
		"c.conf:8: key 'target': expected a duration up to 10s such as 5ms, 750us, or max (got 'soon')\n");
	/* the checks of the whole file, where no key was refused already */
	n = iolatd_config_check_text("c.conf", "[global]\nstrict=1\n[group:a]\ntarget=max\n", out, sizeof(out));
	assert_int_equal(n, 2);
	assert_string_equal(out,
		"c.conf:4: key 'device': missing: [global] needs device=NAME or MAJ:MIN\n"
		"c.conf:3: key 'target': no group has a target or a weight: nothing would ever be throttled\n");
	/* the first of them is what iolatd_config_parse() says */
	assert_int_equal(parse(text), -EINVAL);
	assert_non_null(strstr(err, "t.conf:2: key 'device': expected a disk name"));
	assert_int_equal(iolatd_config_check_text("c.conf", "[global]\ndevice=vda\n[group:a]\ntarget=1ms\n",
						  out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_true(iolatd_config_check("/nonexistent/iolatd.conf", out, sizeof(out)) == -ENOENT);
	assert_non_null(strstr(out, "/nonexistent/iolatd.conf: cannot open"));
}

/* exempt=: paths and unit names, comma-separated and repeated, added up; a
 * leading '/' is dropped; none by default (iolatd's own cgroup and journald
 * are exempt without it). */
static void test_exempt_list(void **state)
{
	assert_int_equal(parse("[global]\ndevice=vda\n[group:a]\ntarget=1ms\n"), 0);
	assert_int_equal(cfg.nr_exempt, 0);
	assert_int_equal(parse("[global]\ndevice=vda\nexempt=backup.service, /sys/agent\n"
			       "exempt=x@1.service\n[group:a]\ntarget=1ms\n"), 0);
	assert_int_equal(cfg.nr_exempt, 3);
	assert_string_equal(cfg.exempt[0], "backup.service");
	assert_string_equal(cfg.exempt[1], "sys/agent");
	assert_string_equal(cfg.exempt[2], "x@1.service");
	assert_int_equal(cfg.exempt_line, 3);
}

/* weight=: 1..10000, 100 where not written (and then not "given"); a group
 * with a weight and no target is something to do; a refused weight= is not
 * "no group has a target" too. */
static void test_weights(void **state)
{
	char out[1024];

	assert_int_equal(parse("[global]\ndevice=vda\n[group:a]\nweight=300\n[group:b]\n"
			       "[group:c]\nweight=1\ntarget=1ms\n[group:d]\nweight = 10000\n"), 0);
	assert_int_equal(cfg.groups[0].weight, 300);
	assert_true(cfg.groups[0].weight_given);
	assert_int_equal(cfg.groups[1].weight, IOLATD_WEIGHT_DEFAULT);
	assert_false(cfg.groups[1].weight_given);
	assert_int_equal(cfg.groups[2].weight, 1);
	assert_int_equal(cfg.groups[2].target_ns, 1000000);
	assert_int_equal(cfg.groups[3].weight, 10000);
	assert_true(iolatd_config_weighted(&cfg));
	assert_int_equal(iolatd_config_weight(&cfg.groups[0], 0), 300);
	assert_int_equal(iolatd_config_weight(&cfg.groups[1], 3), 100);
	assert_int_equal(iolatd_config_weight(NULL, 0), 100);
	cfg.groups[0].dev_weight[1] = 700; /* a unit's IODeviceWeight= on the second disk */
	assert_int_equal(iolatd_config_weight(&cfg.groups[0], 1), 700);
	assert_int_equal(iolatd_config_weight(&cfg.groups[0], 0), 300);
	/* weight=100 written is a weight given: the file asks for weights */
	assert_int_equal(parse("[global]\ndevice=vda\n[group:a]\nweight=100\n"), 0);
	assert_true(cfg.groups[0].weight_given);
	assert_int_equal(parse("[global]\ndevice=vda\n[group:a]\ntarget=1ms\n"), 0);
	assert_false(iolatd_config_weighted(&cfg));
	/* --check-config: each bad weight told, and no "nothing to throttle" for them */
	assert_int_equal(iolatd_config_check_text("w.conf", "[global]\ndevice=vda\n[group:a]\nweight=0\n"
						  "[group:b]\nweight=20000\n", out, sizeof(out)), 2);
	assert_string_equal(out, "w.conf:4: key 'weight': expected an integer from 1 to 10000 (got '0')\n"
				 "w.conf:6: key 'weight': expected an integer from 1 to 10000 (got '20000')\n");
}

static void test_load_missing_file(void **state)
{
	assert_int_equal(iolatd_config_load("/nonexistent/iolatd.conf", &cfg, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/iolatd.conf: cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_file),
		cmocka_unit_test(test_defaults_and_commas),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_bad_input_one_line),
		cmocka_unit_test(test_limits_and_strict),
		cmocka_unit_test(test_new_spellings),
		cmocka_unit_test(test_check_tells_every_problem),
		cmocka_unit_test(test_exempt_list),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_load_missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
