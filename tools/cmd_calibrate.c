/* SPDX-License-Identifier: MIT */
/*
 * `iolat calibrate DISK|DIR|FILE`: what target suits this disk, measured in
 * about a minute (src/calib: the measurement, where it writes, the output).
 * This file parses the options, checks the place before anything is written,
 * runs the measurement with progress lines, prints the result and removes
 * the scratch files on every way out (cli_stop.h). --sim measures a
 * simulated device instead (virtual time: the same result on any machine).
 * Exit: 0 ok, 1 a measurement failed, 2 bad usage, 128+N stopped by signal N.
 * Context: the CLI's main thread (plus the signal handler of cli_stop.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib/calib_place.h"
#include "calib/calibrate.h"
#include "cli_opts.h"
#include "cli_stop.h"
#include "commands.h"
#include "iolatency.h"
#include "report/report.h"
#include "run/jobcg.h"
#include "run/run.h"

#define MAX_SET 16

struct calib_cli {
	const char *path;
	bool sim, json, quiet;
	const char *device;
	enum iolat_device_kind device_kind;
	const char *sets[MAX_SET];
	unsigned nr_sets;
	uint64_t target_ns, step_ns;
	const char *pace;          /* --pace: auto (NULL), throttle, rate */
	const char *cgroup;        /* --cgroup; NULL: iolat-calibrate-PID */
	char cgroup_buf[64];
	char cg_made[IOLAT_GROUP_PATH_MAX]; /* the part of it made here ("" none): removed at the end */
	int cg_version;            /* the throttle's hierarchy; 0: paced by rate= */
};

static void usage(FILE *f)
{
	fputs("usage: iolat calibrate DISK|DIR|FILE [--target T] [--step T]\n"
	      "                       [--pace=auto|throttle|rate] [--cgroup PATH]\n"
	      "                       [--output-format=normal|json] [-q]\n"
	      "       iolat calibrate --sim [--device MODEL] [--set KEY=VALUE]... [...]\n"
	      "\n"
	      "Measures what the disk gives a latency-sensitive reader, in about a minute:\n"
	      "a 4 KiB QD 1 random reader alone, then beside a 1 MiB QD 32 O_DIRECT writer\n"
	      "unpaced, then with the writer paced at rates found by bisection (the knee:\n"
	      "the highest rate at which the reader keeps its solo latency), then at a few\n"
	      "rates around the knee and alone again; the knee is fitted through all the\n"
	      "points. Prints a suggested latency target, an iolatd.conf snippet and a\n"
	      "profile of the disk for the simulator (docs/calibrate.md).\n"
	      "\n"
	      "  DISK           an unused whole block device (not mounted, held, or carrying\n"
	      "                 a filesystem or partition table): its first 1.25 GiB are\n"
	      "                 overwritten; for a mounted disk give a directory on it\n"
	      "  DIR            a directory: two scratch files (1.25 GiB in all) are created\n"
	      "                 there and removed at the end, also on Ctrl-C, SIGTERM, SIGHUP\n"
	      "  FILE           a path that does not exist: FILE.read and FILE.write, as DIR\n"
	      "options:\n"
	      "  --target T     find the knee for this reader p90 (e.g. 1ms) instead of\n"
	      "                 where the reader leaves its solo latency\n"
	      "  --step T       the length of each of the 15 measurements (default 3s,\n"
	      "                 1s to 60s)\n"
	      "  --pace=P       how the writer is paced: throttle, by the kernel's block\n"
	      "                 throttle on its cgroup (as iolatd acts; root, cgroup v1 blkio\n"
	      "                 or v2 io); rate, by iolat's own token bucket; auto (default):\n"
	      "                 throttle where it can, else rate\n"
	      "  --cgroup PATH  the writer's cgroup for the throttle, under the hierarchy's\n"
	      "                 root (default iolat-calibrate-PID), with no write cap on the\n"
	      "                 disk; made if missing, and then removed at the end\n"
	      "  --output-format=normal|json   the result as a table and advice, or JSON\n"
	      "  --sim          measure the simulator's device instead (virtual time)\n"
	      "  --device M     its model (default vdisk): ssd, hdd, bad-ssd, vdisk\n"
	      "  --set KEY=VAL  a model key (vdisk_mbps=1500; iolat help keys), repeatable\n"
	      "  -q             no progress lines\n"
	      "  -h, --help     this text\n"
	      "\n"
	      "exit status: 0 ok, 1 a measurement failed, 2 bad usage, 128+N stopped by signal N\n",
	      f);
}

static int bad(const char *fmt, const char *arg)
{
	return iolat_cli_usage_error("calibrate", fmt, arg);
}

static enum iolat_device_kind model(const char *name)
{
	for (int k = IOLAT_DEVICE_SSD; k <= IOLAT_DEVICE_VDISK; k++)
		if (!strcmp(name, iolat_device_name((enum iolat_device_kind)k)))
			return (enum iolat_device_kind)k;
	return IOLAT_DEVICE_DEFAULT;
}

/* --step and --target: a duration, within bounds. */
static int duration_opt(const char *opt, const char *v, uint64_t lo, uint64_t hi, uint64_t *ns)
{
	if (!v || iolat_parse_duration(v, ns) || *ns < lo || *ns > hi)
		return bad(!strcmp(opt, "--step") ? "--step: '%s' is not a duration from 1s to 60s" :
			   "--target: '%s' is not a latency like 1ms", v ? v : "");
	return 0;
}

static int parse_one(struct calib_cli *c, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v;

	if (iolat_cli_is_opt(a, "--target"))
		return duration_opt("--target", iolat_cli_opt_value(argc, argv, i, "--target"), 1000,
				    10ull * 1000000000, &c->target_ns);
	if (iolat_cli_is_opt(a, "--step"))
		return duration_opt("--step", iolat_cli_opt_value(argc, argv, i, "--step"),
				    1000000000ull, 60000000000ull, &c->step_ns);
	if (iolat_cli_is_opt(a, "--output-format")) {
		v = iolat_cli_opt_value(argc, argv, i, "--output-format");
		if (!v || (strcmp(v, "normal") && strcmp(v, "json")))
			return bad("--output-format: '%s' is not normal or json", v ? v : "");
		c->json = !strcmp(v, "json");
	} else if (iolat_cli_is_opt(a, "--device")) {
		v = iolat_cli_opt_value(argc, argv, i, "--device");
		if (!v || (c->device_kind = model(v)) == IOLAT_DEVICE_DEFAULT)
			return bad("--device: '%s' is not ssd, hdd, bad-ssd or vdisk", v ? v : "");
		c->device = v;
	} else if (iolat_cli_is_opt(a, "--set")) {
		v = iolat_cli_opt_value(argc, argv, i, "--set");
		if (!v || !strchr(v, '='))
			return bad("--set: '%s' is not KEY=VALUE", v ? v : "");
		if (c->nr_sets == MAX_SET)
			return bad("--set: at most 16 (%s)", v);
		c->sets[c->nr_sets++] = v;
	} else if (iolat_cli_is_opt(a, "--pace")) {
		v = iolat_cli_opt_value(argc, argv, i, "--pace");
		if (!v || (strcmp(v, "auto") && strcmp(v, "throttle") && strcmp(v, "rate")))
			return bad("--pace: '%s' is not auto, throttle or rate", v ? v : "");
		c->pace = v;
	} else if (iolat_cli_is_opt(a, "--cgroup")) {
		v = iolat_cli_opt_value(argc, argv, i, "--cgroup");
		if (!v || !*v || *v == '/' || strstr(v, "..") || strlen(v) >= IOLAT_GROUP_PATH_MAX ||
		    v[strlen(v) - 1] == '/')
			return bad("--cgroup: '%s' is not a cgroup path under the hierarchy's root "
				   "(like iolat/calib)", v ? v : "");
		c->cgroup = v;
	} else if (!strcmp(a, "--sim")) {
		c->sim = true;
	} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
		c->quiet = true;
	} else if (a[0] == '-' && a[1]) {
		return bad("unknown option '%s'", a);
	} else if (c->path) {
		return bad("one disk, directory or file (got a second: '%s')", a);
	} else {
		c->path = a;
	}
	return 0;
}

static int parse_args(struct calib_cli *c, int argc, char **argv, int *rc)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			*rc = IOLAT_EXIT_OK;
			return 1;
		}
		if ((*rc = parse_one(c, argc, argv, &i)))
			return 1;
	}
	if (c->sim && c->path)
		return *rc = bad("--sim measures the simulator: no disk (got '%s')", c->path), 1;
	if (!c->sim && !c->path)
		return *rc = bad("%s", "expected a disk, a directory or a new file's path (or --sim)"), 1;
	if (!c->sim && (c->device || c->nr_sets))
		return *rc = bad("%s goes with --sim", c->device ? "--device" : "--set"), 1;
	if (c->sim && (c->pace || c->cgroup))
		return *rc = bad("%s paces a real disk's writer: not with --sim", c->pace ? "--pace" : "--cgroup"), 1;
	if (c->cgroup && c->pace && !strcmp(c->pace, "rate"))
		return *rc = bad("--cgroup is the throttle's: not with --pace=%s", c->pace), 1;
	return 0;
}

/*
 * The writer's pacer, before anything is written: the kernel's throttle on a
 * cgroup (root; v1 blkio, or v2 with io enabled for the cgroup's parent) or
 * iolat's rate=. Return: 0, or a usage error.
 */
static int choose_pacer(struct calib_cli *c)
{
	bool want = c->pace && !strcmp(c->pace, "throttle");
	char why[JOBCG_PATH_MAX + 128];

	if (c->sim || (c->pace && !strcmp(c->pace, "rate")))
		return 0;
	if (!c->cgroup) {
		snprintf(c->cgroup_buf, sizeof(c->cgroup_buf), "iolat-calibrate-%ld", (long)getpid());
		c->cgroup = c->cgroup_buf;
	}
	c->cg_version = iolat_jobcg_usable(NULL, c->cgroup, why, sizeof(why));
	if (c->cg_version)
		return 0;
	if (want || c->cgroup != c->cgroup_buf)
		return bad(want ? "--pace=throttle: %s" : "--cgroup: %s", why);
	if (!c->quiet)
		fprintf(stderr, "iolat calibrate: the writer is paced by iolat's rate=, not the kernel's "
			"throttle: %s\n", why);
	return 0;
}

static void on_note(void *ctx, const char *line)
{
	const struct calib_cli *c = ctx;

	if (!c->quiet)
		fprintf(stderr, "iolat calibrate: %s\n", line);
}

/* A line that must reach the user, -q or not (a cgroup left behind). */
static void on_note_always(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "iolat calibrate: %s\n", line);
}

static void on_progress(void *ctx, const char *phase, const struct iolat_calib_point *pt)
{
	const struct calib_cli *c = ctx;
	char p90[32];

	if (c->quiet)
		return;
	fprintf(stderr, "iolat calibrate: %-7s writer ", phase);
	if (!pt->rate_bps)
		fputs("off", stderr);
	else if (pt->rate_bps == IOLAT_CALIB_UNPACED)
		fprintf(stderr, "unpaced %.0f MB/s", pt->writer_mb_s);
	else
		fprintf(stderr, "paced %.0f MB/s (did %.0f)", (double)pt->rate_bps / 1e6,
			pt->writer_mb_s);
	fprintf(stderr, ": reader p90 %s, %.0f reads/s%s\n",
		iolat_format_latency(pt->p90_ns, p90, sizeof(p90)), pt->reads_s,
		!pt->rate_bps ? "" : pt->within ? ", within" : ", not within");
}

static int measure(struct calib_cli *c, const struct iolat_calib_place *pl,
		   struct iolat_calib_result *r)
{
	struct iolat_calib_plan plan = {
		.backend = c->sim ? &iolat_backend_sim : &iolat_backend_engines,
		.sim_device = c->device ? c->device_kind : IOLAT_DEVICE_VDISK,
		.sim_keys = c->sets, .nr_sim_keys = c->nr_sets,
		.read_size = IOLAT_CALIB_READ_SIZE, .write_size = IOLAT_CALIB_WRITE_SIZE,
		.step_ns = c->step_ns, .target_ns = c->target_ns, .stop = &iolat_cli_stop_flag,
		.note = on_note, .progress = on_progress, .ctx = c,
	};
	char err[512];
	int ret;

	if (c->cg_version) {
		plan.throttle_cgroup = c->cgroup;
		plan.throttle_version = c->cg_version;
	}
	if (!c->sim) {
		plan.read_path = pl->read_path;
		plan.write_path = pl->write_path;
		plan.read_offset = pl->read_offset;
		plan.write_offset = pl->write_offset;
	}
	ret = iolat_calibrate(&plan, r, err, sizeof(err));
	if (ret)
		fprintf(stderr, "iolat calibrate: %s\n", err[0] ? err : strerror(-ret));
	return ret == -EINVAL ? IOLAT_EXIT_USAGE : ret ? IOLAT_EXIT_FAILED : IOLAT_EXIT_OK;
}

int iolat_cmd_calibrate(int argc, char **argv)
{
	struct calib_cli c = { 0 };
	struct iolat_calib_place pl = { 0 };
	struct iolat_calib_result *r;
	const char *scratch[2] = { pl.read_path, pl.write_path };
	char err[4400];
	int rc = IOLAT_EXIT_OK;

	if (parse_args(&c, argc, argv, &rc))
		return rc;
	if ((rc = choose_pacer(&c)))
		return rc;
	if (!c.sim && iolat_calib_place(&pl, c.path, (long)getpid(), err, sizeof(err))) {
		fprintf(stderr, "iolat calibrate: %s\n", err);
		return IOLAT_EXIT_USAGE;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "iolat calibrate: out of memory\n");
		return IOLAT_EXIT_FAILED;
	}
	iolat_cli_stop_install();
	if (pl.scratch)
		iolat_cli_stop_unlink_on_kill(scratch, 2);
	/* One cgroup for the whole calibration: a cgroup removed takes its bytes out of its
	 * parent's counters (v1), which a watcher of the parent would see go backwards. */
	if (c.cg_version && iolat_jobcg_make_path(c.cgroup, c.cg_made, sizeof(c.cg_made), err, sizeof(err))) {
		fprintf(stderr, "iolat calibrate: %s\n", err);
		rc = IOLAT_EXIT_FAILED;
	} else {
		rc = measure(&c, &pl, r);
	}
	iolat_jobcg_remove_path(c.cgroup ? c.cgroup : "", c.cg_made, on_note_always, &c);
	if (pl.scratch) {
		unlink(pl.read_path);
		unlink(pl.write_path);
	}
	iolat_cli_stop_restore();
	if (iolat_cli_stop_signal()) {
		fprintf(stderr, "iolat calibrate: interrupted by signal %d%s\n", iolat_cli_stop_signal(),
			pl.scratch ? "; its scratch files are removed" : "");
		rc = iolat_cli_stop_exit_code();
	}
	if (rc == IOLAT_EXIT_OK || iolat_cli_stop_signal()) {
		const char *dev = c.sim ? "DISK" : r->device;

		if ((c.json ? iolat_calib_write_json(r, dev, stdout) :
			      iolat_calib_write_text(r, dev, stdout)) && rc == IOLAT_EXIT_OK)
			rc = IOLAT_EXIT_FAILED;
	}
	free(r);
	return rc;
}
