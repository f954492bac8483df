/* SPDX-License-Identifier: MIT */
/*
 * test_config_meaning.c - valid iolatd.conf files keep their meaning: a set
 * of configurations accepted before the configuration grammar became a table
 * over src/conf (every key, sizes such as 10m and 4k, every boolean spelling,
 * durations as targets take them, comments and blanks where they may stand,
 * the examples of contrib/, docs/iolatd.md and iolatd.conf(5)) is parsed and
 * every field of the result printed; the text must equal
 * tests/daemon/golden/config_meaning.txt, which the parser before that change
 * wrote (IOLAT_WRITE_GOLDEN=1 rewrites it: only for a change of meaning that
 * docs/iolatd.md lists under "Changes to the configuration grammar").
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/config/config.h"
#include "util/readfile.h"
#include "util/strbuf.h"

static const char *const valid[] = {
	/* contrib/iolatd.conf.example */
	"# An example\n[global]\ndevice=vda\n; control=article          ; or kernel\n"
	"; textfile=/var/lib/prometheus/node-exporter/iolatd.prom\n\n[group:web.service]\ntarget=5ms\n",
	/* docs/iolatd.md's Configuration, every key */
	"[global]\ndevice=vda            ; a disk name\ncontrol=adaptive      ; the mode\n"
	"                      ; kernel's rules\nkernel_compat=0       ; 1: control=kernel\n"
	"nr_requests=256       ; default\nrotational=1          ; default\nmin_bps=1m            ; lowest\n"
	"min_iops=10           ; lowest\ncgroup_root=/sys/fs/cgroup/blkio   ; default\n"
	"strict=0              ; 1: error\nsystemd=1             ; units\n"
	"textfile=/var/lib/prometheus/node-exporter/iolatd.prom   ; metrics\n\n"
	"[group:web]           ; a cgroup path\ntarget=5ms            ; up to 10s\n\n"
	"[group:db.service]    ; a systemd unit\ntarget=2ms\n",
	/* iolatd.conf(5)'s synopsis */
	"[global]\ndevice=vda\n[group:web]\ntarget=5ms\n[group:db.service]\ntarget=2ms\n",
	/* tests/daemon/test_config.c's full file */
	"; iolatd\n[global]\ndevice=vda   ; the disk\ndevice = 8:16\ncontrol=0\nkernel_compat=yes\n"
	"nr_requests=128\nrotational=0\nmin_bps=2m\nmin_iops=20\ncgroup_root=/sys/fs/cgroup/blkio\n\n"
	"[group:web/frontend]\ntarget=5ms\n[group:system/batch]\n[group:db]\ntarget=750us # tight\n",
	/* sizes: plain, k, m, g, either case; counts with a suffix */
	"[global]\ndevice=vda,vdb , 8:0\nmin_bps=10m\nmin_iops=4k\nnr_requests=1k\n[group:a]\ntarget=1ms\n",
	"[global]\ndevice=vda\nmin_bps=1G\nmin_iops=1\nnr_requests=65536\n[group:a]\ntarget=max\n"
	"[group:b]\ntarget=1\n",
	"[global]\ndevice=vda\nmin_bps=4096\nmin_iops=2K\nnr_requests=32\n[group:a]\ntarget=10s\n",
	"[global]\ndevice=vda\nmin_bps=3M\n[group:a]\ntarget=0\n[group:b]\ntarget=1.5ms\n",
	/* booleans, every spelling and case */
	"[global]\ndevice=vda\nstrict=true\nsystemd=off\nrotational=YES\nkernel_compat=On\n"
	"[group:a]\ntarget=5MS\n",
	"[global]\ndevice=vda\nstrict=FALSE\nsystemd=no\nrotational=1\nkernel_compat=0\n"
	"[group:a]\ntarget=750us\n",
	"[global]\ndevice=vda\nstrict=1\nsystemd=0\nrotational=off\n[group:a]\ntarget=1500000ns\n",
	/* modes */
	"[global]\ndevice=vda\ncontrol=article\n[group:a]\ntarget=2ms\n",
	"[global]\ndevice=vda\ncontrol=kernel\nkernel_compat=1\n[group:a]\ntarget=2ms\n",
	"[global]\ndevice=vda\nkernel_compat=1\ncontrol=kernel\n[group:a]\ntarget=2ms\n",
	"[global]\ndevice=vda\ncontrol=1\n[group:a]\ntarget=2ms\n",
	"[global]\ndevice=vda\ncontrol=off\ncontrol=adaptive\n[group:a]\ntarget=2ms\n",
	"[global]\ndevice=vda\ncontrol=adaptive\ncontrol=0\n[group:a]\ntarget=2ms\n",
	/* layout: blanks, CRLF, sections again, comments after a header, the last value wins */
	"\n  [ global ]  \r\n\tdevice = vda\t\r\nstrict = 1\r\nstrict = 0\r\n[global] # again\n"
	"systemd=0\n[group:x/y/z]  ; deep\r\n  target =  3ms  \r\n[group:u@1.service]\ntarget=1ms\n"
	"[group:a-b_c.d:e+f]\ntarget=max\n",
	"[global]\ndevice=253:0\ncgroup_root=/sys/fs/cgroup\ntextfile=/run/a.prom\n[group:a]\ntarget=10ms\n"
	"target=20ms",
	"[global]\ndevice=vda\ndevice=vdb\n[group:batch.slice]\n[group:web]\ntarget=9.5s\n",
};

static void dump_group(struct iolat_strbuf *sb, const struct iolatd_group_cfg *g)
{
	iolat_strbuf_addf(sb, "  group path=%s target_ns=%llu line=%u unit=%s per_device=%d\n", g->path,
			    (unsigned long long)g->target_ns, g->line, g->unit, g->per_device);
}

static void dump(struct iolat_strbuf *sb, unsigned i, const struct iolatd_config *c)
{
	iolat_strbuf_addf(sb, "config %u: file=%s devices=%u", i, c->file, c->nr_devices);
	for (unsigned d = 0; d < c->nr_devices; d++)
		iolat_strbuf_addf(sb, " [%s]", c->devices[d]);
	iolat_strbuf_addf(sb, "\n  control=%d mode=%s mode_given=%d strict=%d systemd=%d"
			    " nr_requests=%u rotational=%d min_bps=%llu min_iops=%llu\n"
			    "  cgroup_root=%s textfile=%s groups=%u\n",
			    c->control, iolat_ctl_mode_name(c->mode), c->mode_given, c->strict, c->systemd,
			    c->nr_requests, c->rotational, (unsigned long long)c->min_bps,
			    (unsigned long long)c->min_iops, c->cgroup_root, c->textfile, c->nr_groups);
	for (unsigned g = 0; g < c->nr_groups; g++)
		dump_group(sb, &c->groups[g]);
}

static char *golden_path(void)
{
	static char path[512];
	const char *slash = strrchr(__FILE__, '/');

	snprintf(path, sizeof(path), "%.*s/golden/config_meaning.txt",
		 slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
	return path;
}

static void test_valid_configs_keep_their_meaning(void **state)
{
	static struct iolatd_config cfg;
	static char got[1 << 16];
	struct iolat_strbuf sb;
	char err[IOLATD_ERR_MAX], name[32], *want;
	size_t len;

	iolat_strbuf_init(&sb, got, sizeof(got));
	for (unsigned i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		snprintf(name, sizeof(name), "c%u.conf", i);
		if (iolatd_config_parse(name, valid[i], &cfg, err, sizeof(err)))
			fail_msg("config %u no longer parses: %s", i, err);
		dump(&sb, i, &cfg);
	}
	assert_true(sb.used < sizeof(got));
	if (getenv("IOLAT_WRITE_GOLDEN")) {
		FILE *f = fopen(golden_path(), "w");

		assert_non_null(f);
		fputs(got, f);
		fclose(f);
	}
	assert_int_equal(iolat_read_file(golden_path(), 1 << 20, &want, &len), 0);
	if (strcmp(want, got))
		fail_msg("the parsed configurations differ from %s; got:\n%s", golden_path(), got);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_configs_keep_their_meaning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
